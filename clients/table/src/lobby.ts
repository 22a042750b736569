/**
 * The lobby: a form that creates a Koi-Koi or Hachi-Hachi game (preset, rounds, clock, and each
 * other seat a bot of a chosen level or a friend), then takes the creator to seat 1 with the
 * invitation links of the friends' seats; and a form to watch a game.
 */

import {
  BotLevel,
  GameKind,
  type GameView,
  type RefereeClient,
} from "@hanafuda-referee/client";
import { byId, el } from "./dom.js";
import { fragmentOf, linkTo } from "./links.js";
import { keepInvitations } from "./invites.js";
import { problemSentence } from "./problems.js";
import { SETS, t } from "./i18n/language.js";
import type { LevelKey, OpponentKey, PresetKey } from "./i18n/strings.js";

/** Seats of the game chosen: Koi-Koi 2; Hachi-Hachi 3 to 6 (from 4, a drop phase opens rounds). */
function seatsOf(form: HTMLFormElement): number {
  if (gameOf(form) === "koikoi") return 2;
  return Number(byId<HTMLSelectElement>("seat-count").value) || 3;
}

const OPPONENTS: readonly OpponentKey[] = ["greedy", "random", "expert", "friend"];

const LEVELS: Record<LevelKey, BotLevel> = {
  greedy: BotLevel.GREEDY,
  random: BotLevel.RANDOM,
  expert: BotLevel.EXPERT,
};

function gameOf(form: HTMLFormElement): "koikoi" | "hachihachi" {
  const chosen = form.querySelector<HTMLInputElement>('input[name="kind"]:checked');
  return chosen?.value === "hachihachi" ? "hachihachi" : "koikoi";
}

/** Where the lobby's last choices are kept (local storage: every tab of this browser). */
export const CHOICES_KEY = "hanafuda-table:lobby";

/** The lobby's choices, kept when a game is started and put back the next time (TABLE.md). */
interface Choices {
  readonly kind: "koikoi" | "hachihachi";
  readonly seats: string;
  /** The rule set chosen for each game kind. */
  readonly presets: Partial<Record<"koikoi" | "hachihachi", string>>;
  readonly rounds: string;
  readonly clock: string;
  readonly name: string;
  readonly opponents: readonly string[];
}

function keptChoices(): Partial<Choices> {
  try {
    const kept: unknown = JSON.parse(localStorage.getItem(CHOICES_KEY) ?? "{}");
    return kept && typeof kept === "object" ? (kept as Partial<Choices>) : {};
  } catch {
    return {};
  }
}

function keepChoices(form: HTMLFormElement): void {
  const kind = gameOf(form);
  const preset = chosenPreset(form);
  const { presets } = keptChoices();
  const choices: Choices = {
    kind,
    seats: byId<HTMLSelectElement>("seat-count").value,
    // A list not yet shown for this game keeps the rule set remembered for it.
    presets: preset ? { ...presets, [kind]: preset } : { ...presets },
    rounds: byId<HTMLInputElement>("rounds").value,
    clock: byId<HTMLInputElement>("clock-seconds").value,
    name: byId<HTMLInputElement>("name").value,
    opponents: [...byId("opponents").querySelectorAll("select")].map((select) => select.value),
  };
  try {
    localStorage.setItem(CHOICES_KEY, JSON.stringify(choices));
  } catch {
    // Storage refused (a privacy setting): the defaults next time.
  }
}

/** Puts the kept choices back into the form (a value the form no longer offers is left out). */
function restoreChoices(form: HTMLFormElement): readonly string[] {
  const kept = keptChoices();
  const radio = form.querySelector<HTMLInputElement>(`input[name="kind"][value="${kept.kind === "hachihachi" ? "hachihachi" : "koikoi"}"]`);
  if (radio) radio.checked = true;
  const seats = byId<HTMLSelectElement>("seat-count");
  if ([...seats.options].some((option) => option.value === kept.seats)) seats.value = kept.seats ?? seats.value;
  if (typeof kept.rounds === "string") byId<HTMLInputElement>("rounds").value = kept.rounds;
  if (typeof kept.clock === "string") byId<HTMLInputElement>("clock-seconds").value = kept.clock;
  // A name the player typed; a language's default name gives way to the page's language.
  const defaults = Object.values(SETS).map((set) => set.lobby.defaultName);
  if (typeof kept.name === "string" && kept.name.trim() && !defaults.includes(kept.name)) {
    byId<HTMLInputElement>("name").value = kept.name;
  }
  return Array.isArray(kept.opponents) ? kept.opponents.filter((value) => typeof value === "string") : [];
}

function drawOpponents(form: HTMLFormElement, initial: readonly string[] = []): void {
  const holder = byId("opponents");
  byId("seat-count-row").hidden = gameOf(form) === "koikoi";
  const seats = seatsOf(form);
  const drawn = [...holder.querySelectorAll("select")].map((select) => select.value);
  const kept = drawn.length ? drawn : initial;
  holder.replaceChildren();
  for (let seat = 1; seat < seats; seat++) {
    const id = `opponent-${seat}`;
    const select = el("select", { id, name: id });
    for (const value of OPPONENTS) select.append(el("option", { value }, t.lobby.opponents[value]));
    const value = kept[seat - 1];
    select.value = value && (OPPONENTS as readonly string[]).includes(value) ? value : "greedy";
    holder.append(el("p", {}, el("label", { for: id }, t.lobby.seat(seat + 1)), " ", select));
  }
}

/**
 * The rule set chosen for the form's game; "" (the referee's default) while the list shown is
 * still the other game's, just after a switch.
 */
function chosenPreset(form: HTMLFormElement): string {
  const select = byId<HTMLSelectElement>("preset");
  return select.dataset.kind === gameOf(form) ? select.value : "";
}

async function drawPresets(referee: RefereeClient, form: HTMLFormElement): Promise<void> {
  const select = byId<HTMLSelectElement>("preset");
  const game = gameOf(form);
  const kind = game === "koikoi" ? GameKind.KOI_KOI : GameKind.HACHI_HACHI;
  // Until this game's list is drawn, the one shown is stale (the other game's, or an earlier one).
  delete select.dataset.kind;
  try {
    const { presets } = await referee.listPresets({ kind });
    // The game was switched again while this list was on its way: the newer list wins.
    if (gameOf(form) !== game) return;
    // The rule set last chosen for this game, else the referee's default.
    const chosen = keptChoices().presets?.[game];
    const remembered = presets.some((preset) => preset.name === chosen);
    select.replaceChildren(
      ...presets.map((preset) =>
        el(
          "option",
          { value: preset.name, selected: remembered ? preset.name === chosen : preset.isDefault },
          // The preset in the player's words; one this table does not know, as the referee says it.
          t.lobby.presets[`${game}:${preset.name}` as PresetKey] ??
            (preset.description ? `${preset.name}: ${preset.description}` : preset.name),
        ),
      ),
    );
  } catch {
    if (gameOf(form) !== game) return;
    select.replaceChildren(el("option", { value: "" }, t.lobby.defaultRules));
  }
  // Which game the list is for, so that a test (or a script) can wait for it.
  select.dataset.kind = game;
}

/** Shows the lobby and wires its forms. */
export function showLobby(referee: RefereeClient): void {
  byId("lobby").hidden = false;
  byId("table").hidden = true;
  document.title = t.lobby.documentTitle;
  const form = byId<HTMLFormElement>("new-game");
  const error = byId("lobby-error");
  let opponents: readonly string[] = [];
  if (!form.dataset.wired) {
    form.dataset.wired = "yes";
    // The page's default name, in the table's language (a name the player typed stays).
    const name = byId<HTMLInputElement>("name");
    if (name.value === name.defaultValue) name.value = t.lobby.defaultName;
    opponents = restoreChoices(form);
    form.addEventListener("change", (event) => {
      const changed = (event.target as HTMLElement).getAttribute("name");
      if (changed === "kind") {
        drawOpponents(form);
        void drawPresets(referee, form);
      } else if (changed === "seat-count") {
        drawOpponents(form);
      }
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      error.textContent = "";
      keepChoices(form);
      void create(referee, form).catch((failure: unknown) => {
        error.textContent = t.lobby.failed(problemSentence(failure));
      });
    });
    byId<HTMLFormElement>("watch").addEventListener("submit", (event) => {
      event.preventDefault();
      const game = byId<HTMLInputElement>("watch-game").value.trim();
      if (game) location.hash = fragmentOf({ game, token: "" });
    });
  }
  drawOpponents(form, opponents);
  void drawPresets(referee, form);
}

async function create(referee: RefereeClient, form: HTMLFormElement): Promise<void> {
  const kind = gameOf(form);
  const seats = seatsOf(form);
  const name = byId<HTMLInputElement>("name").value.trim() || t.lobby.defaultName;
  const rounds = Number(byId<HTMLInputElement>("rounds").value) || undefined;
  const seconds = Number(byId<HTMLInputElement>("clock-seconds").value) || 0;
  const preset = chosenPreset(form);
  const players = [name];
  const bots: BotLevel[] = [BotLevel.UNSPECIFIED];
  for (let seat = 1; seat < seats; seat++) {
    const choice = byId<HTMLSelectElement>(`opponent-${seat}`).value;
    const level = choice in LEVELS ? LEVELS[choice as LevelKey] : undefined;
    players.push(level ? t.lobby.botName(choice as LevelKey, seat + 1) : t.lobby.friendName(seat + 1));
    bots.push(level ?? BotLevel.UNSPECIFIED);
  }
  const request: Parameters<RefereeClient["createGame"]>[0] = {
    kind: kind === "koikoi" ? GameKind.KOI_KOI : GameKind.HACHI_HACHI,
    preset,
    players,
    bots: bots.some((level) => level !== BotLevel.UNSPECIFIED) ? bots : [],
  };
  if (rounds !== undefined) {
    request.overrides =
      kind === "koikoi"
        ? { case: "koiKoi", value: { rounds } }
        : { case: "hachiHachi", value: { rounds } };
  }
  if (seconds > 0) request.clock = { moveSeconds: seconds };
  const created = await referee.createGame(request);
  const game = created.game;
  const friends = [];
  for (let seat = 1; seat < seats; seat++) {
    if (bots[seat] === BotLevel.UNSPECIFIED) {
      friends.push({
        seat,
        name: players[seat] ?? "",
        link: linkTo({ game, token: created.playerTokens[seat] ?? "" }),
      });
    }
  }
  keepInvitations(game, friends);
  location.hash = fragmentOf({ game, token: created.playerTokens[0] ?? "" });
}

/**
 * A new game with the settings and players of the one `view` shows: its game, its resolved rule
 * set (as overrides of its preset, so nothing changes), its clock, the same names and bots. The
 * viewer keeps its seat; the other people's seats get new invitation links.
 */
export async function playAgain(referee: RefereeClient, view: GameView): Promise<void> {
  const me = view.viewerSeat ?? 0;
  const players = view.seats.map((seat) => seat.name);
  const request: Parameters<RefereeClient["createGame"]>[0] = {
    kind: view.kind,
    preset: view.rules?.preset ?? "",
    players,
    bots: view.bots.some((level) => level !== BotLevel.UNSPECIFIED) ? [...view.bots] : [],
  };
  const rules = view.rules?.game;
  if (rules?.case === "koiKoi") request.overrides = { case: "koiKoi", value: rules.value };
  else if (rules?.case === "hachiHachi") request.overrides = { case: "hachiHachi", value: rules.value };
  if (view.clock?.options) request.clock = view.clock.options;
  const created = await referee.createGame(request);
  const game = created.game;
  const friends = players.flatMap((name, seat) =>
    seat !== me && (view.bots[seat] ?? BotLevel.UNSPECIFIED) === BotLevel.UNSPECIFIED
      ? [{ seat, name, link: linkTo({ game, token: created.playerTokens[seat] ?? "" }) }]
      : [],
  );
  keepInvitations(game, friends);
  location.hash = fragmentOf({ game, token: created.playerTokens[me] ?? "" });
}
