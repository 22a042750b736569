/**
 * Invitations (TABLE.md, "Friends"): the links of the friends' seats of a game this browser
 * created, kept in local storage so the host can show them again later (from any tab), and the
 * panel that shows them with a copy button each, in front of the host when the game is new.
 *
 * A link holds a seat's token in its fragment; it is kept on the host's own browser only, as the
 * host was given it at creation.
 */

import { el } from "./dom.js";
import { t } from "./i18n/language.js";
import { linkTo, type Place } from "./links.js";

export interface Invitation {
  readonly seat: number;
  readonly name: string;
  readonly link: string;
}

interface Kept {
  readonly links: readonly Invitation[];
  /** When the game was created (ms), to forget the oldest first. */
  readonly created: number;
  /** Whether the panel has been shown once (it opens by itself only the first time). */
  readonly shown?: boolean;
}

const STORAGE_KEY = "hanafuda-table:invitations";
/** Games whose links are kept; older ones are forgotten. */
const KEPT_GAMES = 30;

function keptGames(): Record<string, Kept> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "{}");
    return parsed && typeof parsed === "object" ? (parsed as Record<string, Kept>) : {};
  } catch {
    return {};
  }
}

function store(games: Record<string, Kept>): void {
  const newest = Object.entries(games)
    .sort(([, a], [, b]) => b.created - a.created)
    .slice(0, KEPT_GAMES);
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(Object.fromEntries(newest)));
  } catch {
    // Storage refused: the links are still shown now, only not kept.
  }
}

/** Keeps the friends' links of a game this browser has just created. */
export function keepInvitations(game: string, links: readonly Invitation[]): void {
  if (!links.length) return;
  store({ ...keptGames(), [game]: { links, created: Date.now() } });
}

/** The friends' links kept for `game` (none when this browser did not create it). */
export function invitations(game: string): readonly Invitation[] {
  const kept = keptGames()[game];
  return Array.isArray(kept?.links) ? kept.links : [];
}

/** Whether the panel should open by itself (the links never shown yet); marks them shown. */
export function firstShowing(game: string): boolean {
  const games = keptGames();
  const kept = games[game];
  if (!kept || kept.shown) return false;
  store({ ...games, [game]: { ...kept, shown: true } });
  return true;
}

async function copy(text: string, input: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (a page not served over HTTPS or localhost): select the link instead,
    // so the player's own copy takes it.
    input.focus();
    input.select();
    return false;
  }
}

/**
 * The panel's content for `place`: the friends' links (for the host), each with a copy button,
 * and the spectators' link; `onClose` when the player closes it.
 */
export function invitationPanel(place: Place, onClose: () => void): HTMLElement[] {
  const friends = place.token ? invitations(place.game) : [];
  const said = el("p", { class: "copied", role: "status" });
  const list = el("ul");
  const row = (id: string, label: string, link: string, seat?: number): HTMLElement => {
    const input = el("input", {
      id,
      readonly: true,
      value: link,
      class: "invite-link",
      "data-seat": seat,
    });
    const button = el("button", { type: "button", class: "copy", "data-for": id }, t.invites.copy);
    button.setAttribute("aria-label", t.invites.copyLabel(label));
    button.addEventListener("click", () => {
      void copy(link, input).then((done) => {
        said.textContent = done ? t.invites.copied(label) : t.invites.selected;
      });
    });
    return el("li", {}, el("label", { for: id }, label), el("span", { class: "link-row" }, input, button));
  };
  for (const friend of friends) {
    list.append(row(`invite-${friend.seat}`, t.table.inviteLink(friend.name, friend.seat + 1), friend.link, friend.seat));
  }
  list.append(row("invite-watch", t.table.spectatorLink, linkTo({ game: place.game, token: "" })));
  const close = el("button", { type: "button", id: "invites-close" }, t.invites.close);
  close.addEventListener("click", onClose);
  return [
    el("h2", { id: "invites-title" }, friends.length ? t.table.invitationsTitle : t.table.spectatorTitle),
    el("p", {}, friends.length ? t.table.invitationsText : t.table.spectatorText),
    list,
    said,
    el("p", {}, close),
  ];
}
