/**
 * The table: one game seen from one seat (or by a spectator), kept up to date by the SDK's
 * `watchGame` (which resumes by itself after a dropped connection, missing no version), and the
 * seat's moves sent with `submitMove` at the version they were chosen at.
 *
 * Every version is drawn whole from its `GameView`; the events of each version are told once, in
 * words, in the live region. A reload (a language switch is one) resumes the game from the
 * referee and tells its story so far again from the game's log, in the table's language
 * (`story.ts`).
 */

import {
  GameKind,
  GameStatus,
  MoveKind,
  Participation,
  Reason,
  RefereeError,
  WaitingFor,
  type Card,
  type Event,
  type GameView,
  type Move,
  type RefereeClient,
  type RoundResult,
  type SeatInfo,
} from "@hanafuda-referee/client";
import { Advice } from "./advice.js";
import { joinWords, koikoiWords, sageWords } from "./decisions.js";
import { plansOf, reachList, showGuide } from "./guide.js";
import {
  loadRounds,
  runningTotals,
  sheetRows,
  sheetTable,
  startingTotals,
  summaryContent,
} from "./rounds.js";
import { playAgain } from "./lobby.js";
import { previewPlay, whyNotPlayable } from "./preview.js";
import { backSvg, cardInfo, cardName, cardSvg, shortName, type Kind } from "./cards.js";
import { append, byId, el, picture } from "./dom.js";
import { firstShowing, invitationPanel, invitations } from "./invites.js";
import { KEPT_LINES, eventLines, keepSayings, keptSayings, saidText, storyUpTo, type Line, type Said } from "./story.js";
import type { Place } from "./links.js";
import { problemOf, problemSentence, problemText } from "./problems.js";
import { t } from "./i18n/language.js";
import type { LevelKey, WaitKey } from "./i18n/strings.js";
import {
  gameSummary,
  halves,
  moveKey,
  moveLabel,
  party,
  person,
  multiplierLine,
  pointsText,
  roundSummary,
  signedNumber,
  yakuName,
  type Seats,
} from "./words.js";

const KIND_GROUPS: readonly Kind[] = ["bright", "animal", "ribbon", "plain"];
const WAIT_KEYS: Record<number, WaitKey> = {
  [WaitingFor.HAND_PLAY]: "handPlay",
  [WaitingFor.TARGET_CHOICE]: "targetChoice",
  [WaitingFor.KOIKOI_DECISION]: "koikoi",
  [WaitingFor.SAGE_DECISION]: "sage",
  [WaitingFor.JOIN_DECISION]: "join",
};
/**
 * How long another seat's move stays in sight before a dialog covers the table (TABLE.md,
 * "Motion": an opponent's or a bot's move is seen before the next decision is asked). Longer
 * than a card's arrival (450 ms, app.css), short enough not to feel like waiting.
 */
const SEEN_PAUSE_MS = 1000;
const LEVEL_NAMES: ReadonlyArray<LevelKey | undefined> = [undefined, "random", "greedy", "expert"];

/** Hachi-Hachi's card count of captures: light 20, animal 10, ribbon 5, plain 1 (RULES.md 2.5). */
function cardPoints(cards: readonly Card[]): number {
  const values = { bright: 20, animal: 10, ribbon: 5, plain: 1 } as const;
  return cards.reduce((sum, card) => sum + values[cardInfo(card).kind], 0);
}

/** Card points against the 88 of the card count, signed: "+12", "-43" ("−43" in French). */
function againstEightyEight(points: number): string {
  return signedNumber(points - 88);
}

/** A pile's cards by kind (brights, animals, ribbons, plains), the kinds it does not hold left out. */
function byKind(cards: readonly Card[]): Array<{ kind: Kind; cards: Card[] }> {
  return KIND_GROUPS.map((kind) => ({ kind, cards: cards.filter((card) => cardInfo(card).kind === kind) })).filter(
    (group) => group.cards.length > 0,
  );
}

function timeOf(stamp: { seconds: bigint; nanos: number } | undefined): number | undefined {
  return stamp ? Number(stamp.seconds) * 1000 + stamp.nanos / 1e6 : undefined;
}

function clockText(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
}

/** A card as a button (playable or not) or as a named picture. */
function cardButton(card: Card, options: { playable: boolean; key: string }): HTMLButtonElement {
  // The name is the button's text (hidden from sight, the picture shows it), not an aria-label:
  // the picture's words would not match a label (WCAG 2.5.3, "label in name").
  const button = el("button", {
    type: "button",
    class: options.playable ? "card playable" : "card",
    "aria-disabled": options.playable ? null : "true",
    "data-card": cardInfo(card).card,
    "data-key": options.key,
  });
  button.append(picture(cardSvg(card)), el("span", { class: "sr-only" }, cardName(card)));
  return button;
}

function cardImage(card: Card, small = false): HTMLSpanElement {
  const span = el("span", {
    class: small ? "card small" : "card",
    role: "img",
    "aria-label": cardName(card),
    "data-card": card,
  });
  span.append(picture(cardSvg(card)));
  return span;
}

export class Table {
  private view: GameView | undefined;
  private shown = -1n;
  private told = -1n;
  private busy = false;
  /** The story told again from the log at the first drawing, and the lines told since. */
  private history: Line[] = [];
  private readonly live: Line[] = [];
  /** How many lines the story had before the ones shown (the list is numbered from there). */
  private dropped = 0;
  private readonly sayings: Said[];
  private clockTimer: number | undefined;
  private decisionKey = "";
  /** Finished rounds whose summary the player has not dismissed yet, with the view told with them. */
  private readonly summaries: Array<{ result: RoundResult; view?: GameView; showAt: number }> = [];
  private readonly advice: Advice;
  /** When another seat's move was last told, and the timer that asks the decision after it. */
  private othersMovedAt = 0;
  private pauseTimer: number | undefined;

  constructor(
    private readonly referee: RefereeClient,
    private readonly place: Place,
  ) {
    this.sayings = keptSayings(this.storageKey);
    this.advice = new Advice(referee, place);
  }

  private get storageKey(): string {
    return `said:${this.place.game}:${this.place.token ? "seat" : "watch"}`;
  }

  /** Shows the table and follows the game until it ends or `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    byId("lobby").hidden = true;
    byId("table").hidden = false;
    this.wire(signal);
    // The host's friends' links, in front of the host the first time the new game is shown.
    const friends = this.place.token ? invitations(this.place.game) : [];
    byId("invites-open").textContent = friends.length ? t.table.invitationsTitle : t.table.spectatorTitle;
    if (friends.length && firstShowing(this.place.game)) this.toggleInvitations(true);
    this.clockTimer = window.setInterval(() => this.drawClock(), 250);
    signal.addEventListener("abort", () => window.clearInterval(this.clockTimer));
    this.setStatus(t.table.connecting);
    try {
      for await (const item of this.referee.watchGame(
        { game: this.place.game },
        { token: this.place.token, signal },
      )) {
        const first = this.told < 0n;
        this.tell(item.version, item.events);
        if (item.view && item.version >= this.shown) this.draw(item.view, item.version);
        if (first && item.view) {
          if (!this.sayings.length) {
            // Who the page plays for, first in the story (version 0: before every event).
            const seat = item.view.viewerSeat;
            this.sayings.push(seat === undefined ? { version: "0", kind: "watching" } : { version: "0", kind: "seated", seat });
            keepSayings(this.storageKey, this.sayings);
          }
          void this.retell(item.version);
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      const reason = error instanceof RefereeError ? error.reason : undefined;
      const badSeat =
        reason === Reason.BAD_TOKEN || reason === Reason.MISSING_TOKEN || reason === Reason.PERMISSION_DENIED;
      this.setStatus(
        reason === Reason.UNKNOWN_GAME
          ? t.table.noGame
          : badSeat
            ? t.table.badToken
            : t.table.lost(problemSentence(error)),
      );
      if (!this.view) {
        // Nothing was ever shown: no empty table, only what went wrong and the way back.
        byId("table").dataset.status = "lost";
        byId("game-title").textContent = t.table.noGameTitle;
      }
      // A reload cannot mend a wrong link: offer the way back to the lobby instead.
      byId("status").append(" ", el("a", { href: "/" }, t.table.backToLobby));
    }
  }

  private wire(signal: AbortSignal): void {
    const options = { signal };
    byId("hand").addEventListener("click", (event) => this.onHandClick(event), options);
    // What a card will take, shown while it is pointed at or has the keyboard's focus.
    const preview = (event: globalThis.Event): void => {
      const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button.card");
      if (button) this.showPreview(Number(button.dataset.card) as Card);
    };
    byId("hand").addEventListener("mouseover", preview, options);
    byId("hand").addEventListener("focusin", preview, options);
    byId("hand").addEventListener("mouseleave", () => this.clearPreview(), options);
    byId("hand").addEventListener("focusout", () => this.clearPreview(), options);
    byId("invites-open").addEventListener(
      "click",
      () => this.toggleInvitations(byId("invites").hidden === true),
      options,
    );
    byId("hint").addEventListener(
      "click",
      () => {
        if (this.view) void this.advice.hint(this.view.version);
      },
      options,
    );
    byId("results").addEventListener(
      "click",
      (event) => {
        if ((event.target as HTMLElement).closest("#review")) void this.advice.review();
      },
      options,
    );
    byId("guide-open").addEventListener(
      "click",
      () => {
        if (this.view) showGuide(this.view);
      },
      options,
    );
    byId("guide-close").addEventListener("click", () => byId<HTMLDialogElement>("guide").close(), options);
    byId("sheet-open").addEventListener("click", () => void this.showSheet(), options);
    // A capture pile shows itself large when tapped or clicked, or by its button.
    byId("seats").addEventListener(
      "click",
      (event) => {
        const pile = (event.target as HTMLElement).closest<HTMLElement>(".captures[data-seat]");
        if (pile) this.showPile(Number(pile.dataset.seat));
      },
      options,
    );
    const pile = byId<HTMLDialogElement>("pile");
    byId("pile-close").addEventListener("click", () => pile.close(), options);
    // Closed by its button or by Escape: back to the pile's control, drawn again since it opened
    // if the game moved on (the browser's own return would find the old one gone).
    pile.addEventListener(
      "close",
      () => {
        // The close event comes a moment later: the pile may have been opened again meanwhile.
        if (pile.open) return;
        const seat = this.pileSeat;
        this.pileSeat = undefined;
        document.querySelector<HTMLElement>(`#seats [data-key="pile-${seat}"]`)?.focus();
      },
      options,
    );
    byId("sheet-close").addEventListener("click", () => byId<HTMLDialogElement>("sheet").close(), options);
    const summary = byId<HTMLDialogElement>("round-summary");
    byId("round-summary-close").addEventListener("click", () => summary.close(), options);
    // Closed by its button or by Escape: the next summary, else the decision it held back.
    summary.addEventListener(
      "close",
      () => {
        this.summaries.shift();
        // The last one read: the hand is played again, or the decision held back is asked.
        if (!this.showSummary() && this.view) this.draw(this.view, this.shown);
      },
      options,
    );
    const askResign = (): void => {
      const dialog = byId<HTMLDialogElement>("resign-dialog");
      if (!dialog.open) dialog.showModal();
    };
    // From the table, or from a decision's dialog (which keeps the table out of reach).
    byId("resign").addEventListener("click", askResign, options);
    byId("decision-resign").addEventListener("click", askResign, options);
    byId("resign-yes").addEventListener(
      "click",
      () => {
        byId<HTMLDialogElement>("resign-dialog").close();
        this.closeDecision();
        void this.submit({ kind: MoveKind.RESIGN } as Move);
      },
      options,
    );
    byId("resign-no").addEventListener(
      "click",
      () => byId<HTMLDialogElement>("resign-dialog").close(),
      options,
    );
    byId("decision-moves").addEventListener(
      "click",
      (event) => {
        const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button[data-move]");
        if (!button) return;
        const moves = this.myMoves();
        const index = Number(button.dataset.move);
        if (button.dataset.move === "cancel") {
          this.closeDecision();
          return;
        }
        const move = this.pendingChoice ? this.pendingChoice[index] : moves[index];
        if (move) {
          this.closeDecision();
          void this.submit(move);
        }
      },
      options,
    );
    byId<HTMLDialogElement>("decision").addEventListener(
      "cancel",
      (event) => {
        // Escape closes a target choice the player opened, not a decision the game asks for.
        if (!this.pendingChoice) event.preventDefault();
        else this.closeDecision();
      },
      options,
    );
  }

  private pendingChoice: Move[] | undefined;

  private myMoves(): Move[] {
    const view = this.view;
    if (!view || view.viewerSeat === undefined || view.status !== GameStatus.IN_PROGRESS) return [];
    return view.legalMoves;
  }

  private onHandClick(event: MouseEvent): void {
    const button = (event.target as HTMLElement).closest<HTMLButtonElement>("button.card");
    if (!button || this.busy) return;
    const card = Number(button.dataset.card) as Card;
    // Not while a round's summary is still to be read (see drawHand).
    const moves = this.summaries.length ? [] : this.myMoves().filter((m) => m.kind === MoveKind.PLAY && m.card === card);
    if (!moves.length && this.view) {
      const mine = this.view.viewerSeat !== undefined && this.view.turn === this.view.viewerSeat;
      byId("preview").textContent = whyNotPlayable(this.view, mine);
      return;
    }
    if (moves.length === 1 && moves[0]) void this.submit(moves[0]);
    else if (moves.length > 1) {
      this.pendingChoice = moves;
      this.openDecision(
        `choice:${card}`,
        t.table.chooseTitle,
        t.table.matchesMore(cardName(card)),
        moves,
        true,
        card,
      );
    }
  }

  private showPreview(card: Card): void {
    this.clearPreview();
    const view = this.view;
    if (!view) return;
    const preview = previewPlay(card, this.myMoves(), view.field);
    if (!preview) return;
    for (const taken of preview.takes) {
      document.querySelector(`#field .card[data-card="${taken}"]`)?.classList.add("would-take");
    }
    byId("preview").textContent = preview.words;
  }

  private clearPreview(): void {
    for (const card of document.querySelectorAll("#field .would-take")) card.classList.remove("would-take");
    const box = byId("preview");
    // The emptied box keeps its height until the table is drawn again: the buttons below it,
    // which the pointer (or a tap) leaving the hand is heading for, do not move under it.
    if (box.textContent) box.style.minHeight = `${box.offsetHeight}px`;
    box.textContent = "";
  }

  private async submit(move: Move): Promise<void> {
    const view = this.view;
    if (!view || this.busy) return;
    this.busy = true;
    // The player has seen the table and acted: what follows from the move is asked at once.
    this.othersMovedAt = 0;
    byId("table").setAttribute("aria-busy", "true");
    try {
      // A move is chosen at a version and sent with it (a stale one is refused); a resignation
      // stands at any version, so it goes without one.
      const resign = move.kind === MoveKind.RESIGN;
      const answer = await this.referee.submitMove(
        resign
          ? { game: this.place.game, move }
          : { game: this.place.game, move, expectedVersion: view.version },
        { token: this.place.token },
      );
      this.tell(answer.version, answer.events);
      if (answer.view && answer.version >= this.shown) this.draw(answer.view, answer.version);
    } catch (error) {
      if (error instanceof RefereeError && error.reason === Reason.STALE_VERSION) {
        this.say({ version: String(view.version), kind: "stale" });
      } else {
        this.say({ version: String(view.version), kind: "refused", problem: problemOf(error) });
      }
      const fresh = await this.referee
        .getGame({ game: this.place.game }, { token: this.place.token })
        .catch(() => undefined);
      if (fresh?.view && fresh.view.version >= this.shown) this.draw(fresh.view, fresh.view.version);
    } finally {
      this.busy = false;
      byId("table").removeAttribute("aria-busy");
      if (this.view) this.drawDecision(this.view);
    }
  }

  // Telling -------------------------------------------------------------------------------------

  private seats(view: GameView | undefined = this.view): Seats {
    return { names: view?.seats.map((seat) => seat.name) ?? [], me: view?.viewerSeat };
  }

  private tell(version: bigint, events: readonly Event[]): void {
    if (version <= this.told) return;
    this.told = version;
    // Not at the first drawing: what happened before the page opened is not on screen to see.
    const others = this.view !== undefined && events.some((event) => event.actor !== undefined && event.actor !== this.view?.viewerSeat);
    if (others) this.othersMovedAt = Date.now();
    for (const event of events) {
      if (event.kind.case === "roundEnded" && event.kind.value.result) {
        // A round another seat's move ended: that move is seen before its summary covers it.
        this.summaries.push({ result: event.kind.value.result, showAt: this.othersMovedAt + (others ? SEEN_PAUSE_MS : 0) });
      }
    }
    for (const line of eventLines(this.seats(), version, events)) this.append(line);
  }

  /** Tells the player something of the table's own, and keeps it for the story told again. */
  private say(said: Said): void {
    this.sayings.push(said);
    keepSayings(this.storageKey, this.sayings);
    this.append({ version: BigInt(said.version), text: saidText(said, (refused) => this.refusal(refused)) });
  }

  private refusal(said: Said & { kind: "refused" }): string {
    return t.table.refused(problemText(said.problem));
  }

  private append(line: Line): void {
    this.live.push(line);
    if (this.live.length > KEPT_LINES) this.live.splice(0, this.live.length - KEPT_LINES);
    const log = byId<HTMLOListElement>("events");
    log.append(el("li", {}, line.text));
    // The oldest lines go, and the list goes on counting where it was: "201." stays the 201st.
    while (log.childElementCount > KEPT_LINES) {
      log.firstElementChild?.remove();
      this.dropped += 1;
    }
    log.start = this.dropped + 1;
    const box = byId("events-log");
    box.scrollTop = box.scrollHeight;
  }

  /**
   * Tells the story up to `version` (the first one drawn) again from the game's log, in the
   * table's language, before the lines told since; `data-story` says when it is in.
   */
  private async retell(version: bigint): Promise<void> {
    const box = byId("events-log");
    box.dataset.story = "loading";
    let total = 0;
    try {
      const story = await storyUpTo(this.referee, this.place, version, this.seats(), this.sayings, (said) =>
        this.refusal(said),
      );
      this.history = story.lines;
      total = story.total;
    } catch {
      // The log could not be read: the story starts from now (the table itself is whole).
      this.history = [];
    }
    const later = this.live.filter((line) => line.version > version || !this.history.length);
    const lines = [...this.history, ...later];
    const log = byId<HTMLOListElement>("events");
    log.replaceChildren(...lines.slice(-KEPT_LINES).map((line) => el("li", {}, line.text)));
    this.dropped = Math.max(0, total + later.length - KEPT_LINES);
    log.start = this.dropped + 1;
    box.scrollTop = box.scrollHeight;
    box.dataset.story = "told";
  }

  private setStatus(text: string): void {
    byId("status").textContent = text;
  }

  // Drawing -------------------------------------------------------------------------------------

  private draw(view: GameView, version: bigint): void {
    this.view = view;
    this.shown = version;
    const table = byId("table");
    const focused = document.activeElement?.getAttribute("data-key");
    table.dataset.version = String(version);
    table.dataset.status = view.status === GameStatus.OVER ? "over" : "playing";
    table.dataset.kind = view.kind === GameKind.HACHI_HACHI ? "hachihachi" : "koikoi";
    const mine = view.viewerSeat !== undefined && view.turn === view.viewerSeat;
    table.dataset.myTurn = String(mine && view.status === GameStatus.IN_PROGRESS);
    const seats = this.seats(view);
    const game = view.kind === GameKind.HACHI_HACHI ? t.table.kinds.hachihachi : t.table.kinds.koikoi;
    byId("game-title").textContent =
      t.table.title(game, view.round, this.roundsOf(view), view.roundMonth);
    document.title = t.table.documentTitle(game, mine);
    this.setStatus(this.statusLine(view, seats));
    byId("resign").hidden =
      view.viewerSeat === undefined || view.status !== GameStatus.IN_PROGRESS;
    byId("spectating").hidden = view.viewerSeat !== undefined;
    // A hint is for the seat's own pending decision, asked of the referee's expert.
    byId("hint").hidden = !(mine && view.status === GameStatus.IN_PROGRESS);
    this.drawSeats(view, seats);
    if (byId<HTMLDialogElement>("pile").open) this.fillPile();
    this.drawField(view);
    this.drawHand(view);
    this.markArrivals();
    this.drawResults(view, seats);
    // A round's summary waits for the player, with the view of its version (the totals after it);
    // at the game's end the results panel shows the same and the sheet.
    for (const entry of this.summaries) entry.view ??= view;
    if (view.status === GameStatus.OVER) this.summaries.splice(0);
    this.showSummary();
    this.drawDecision(view);
    this.drawClock();
    if (focused) {
      // Keep the keyboard where it was: on the same card, or (that card played) on the hand.
      const again =
        document.querySelector<HTMLElement>(`[data-key="${CSS.escape(focused)}"]`) ??
        document.querySelector<HTMLElement>("#hand button.playable, #hand button.card");
      again?.focus();
    }
  }

  /** Where each card was at the last drawing ("field:12", "seat1:12", "drawn:12"). */
  private placed = new Set<string>();

  /**
   * Marks the cards that arrived where they are since the last drawing (a play or a draw on the
   * field, a capture in a pile), so that they move in briefly and the eye follows the move
   * (TABLE.md, "Motion"; none under `prefers-reduced-motion`, see app.css). The first drawing
   * marks nothing.
   */
  private markArrivals(): void {
    const places: [string, string][] = [
      ["field", "#field .card[data-card]"],
      ["drawn", "#drawn .card[data-card]"],
    ];
    for (const seat of document.querySelectorAll<HTMLElement>("#seats .seat[data-seat]")) {
      places.push([`seat${seat.dataset.seat}`, `#seats .seat[data-seat="${seat.dataset.seat}"] .captures .card[data-card]`]);
    }
    const now = new Set<string>();
    const first = this.placed.size === 0;
    for (const [place, selector] of places) {
      for (const card of document.querySelectorAll<HTMLElement>(selector)) {
        const key = `${place}:${card.dataset.card}`;
        now.add(key);
        if (!first && !this.placed.has(key)) card.classList.add("arrive");
      }
    }
    this.placed = now;
  }

  private roundsOf(view: GameView): string {
    const rules = view.rules?.game;
    if (rules?.case === "koiKoi" || rules?.case === "hachiHachi") {
      return String(rules.value.rounds ?? "?");
    }
    return "?";
  }

  private statusLine(view: GameView, seats: Seats): string {
    if (view.status === GameStatus.OVER) {
      return view.gameResult ? gameSummary(seats, view.gameResult) : t.table.over;
    }
    if (view.turn === undefined) return t.table.waitingForGame;
    const key = WAIT_KEYS[view.waiting?.kind ?? WaitingFor.UNSPECIFIED];
    if (view.turn === view.viewerSeat) return t.table.yourTurn(key ? t.table.mine[key] : t.table.decide);
    return t.table.waitingFor(person(seats, view.turn), key);
  }

  private drawSeats(view: GameView, seats: Seats): void {
    const holder = byId("seats");
    holder.replaceChildren();
    const hachi = view.kind === GameKind.HACHI_HACHI;
    const plans = plansOf(view);
    for (const seat of view.seats) {
      const me = seat.seat === view.viewerSeat;
      const level = view.bots[seat.seat] ?? 0;
      const turn = view.turn === seat.seat && view.status === GameStatus.IN_PROGRESS;
      const headingId = `seat-${seat.seat}-name`;
      const panel = el(
        "section",
        {
          class: `seat${me ? " me" : ""}${turn ? " on-turn" : ""}`,
          "aria-labelledby": headingId,
          "data-seat": seat.seat,
        },
        el(
          "h2",
          { id: headingId },
          me ? `${seat.name}${t.table.youMark}` : seat.name,
          LEVEL_NAMES[level] ? ` · ${t.table.bot(LEVEL_NAMES[level])}` : "",
          seat.seat === view.dealer ? ` · ${t.table.dealer}` : "",
          // A bot seat's move comes from the bot workers, a moment later.
          turn ? ` · ${view.botThinkingSeat === seat.seat ? t.table.thinking : t.table.toPlay}` : "",
        ),
      );
      const facts = el("p", { class: "facts" });
      facts.append(
        hachi ? t.table.balance(halves(seat.balanceHalves)) : t.table.score(seat.score),
        ` · ${t.table.inHand(seat.handSize)}`,
      );
      if (!hachi && seat.koikoiCalls > 0) facts.append(` · ${t.table.koikoiCalls(seat.koikoiCalls)}`);
      if (hachi && seat.participation !== Participation.DROPPED) {
        const points = cardPoints(seat.captured);
        facts.append(` · ${t.table.cardPoints(points, againstEightyEight(points))}`);
      }
      if (hachi && seat.sage) facts.append(` · ${t.table.calledSage}`);
      if (hachi && seat.participation === Participation.DROPPED) facts.append(` · ${t.table.droppedOut}`);
      panel.append(facts);
      if (!me && seat.handSize > 0) {
        const backs = el("div", { class: "backs", "aria-hidden": "true" });
        for (let i = 0; i < Math.min(seat.handSize, 10); i++) backs.append(picture(backSvg()));
        panel.append(backs);
      }
      panel.append(this.scoring(seat, hachi), reachList(view, seat, plans) ?? "", this.captures(seat, seats));
      holder.append(panel);
    }
  }

  /**
   * The seat's yaku (Koi-Koi) or teyaku and dekiyaku (Hachi-Hachi) with their points; a hidden
   * element when there are none. `withHand`: whether the teyaku (made by the hand dealt, not by
   * the captures) is listed.
   */
  private scoring(seat: SeatInfo, hachi: boolean, withHand = true): HTMLElement {
    const list = el("ul", { class: "yaku" });
    for (const yaku of seat.yaku) {
      list.append(el("li", {}, t.table.yakuLine(yakuName(yaku.id), pointsText(yaku.points))));
    }
    if (withHand && hachi && seat.teyaku && seat.teyaku.id) {
      list.append(el("li", {}, t.table.teyakuLine(yakuName(seat.teyaku.id), seat.teyaku.value)));
    }
    for (const dekiyaku of seat.dekiyaku) {
      list.append(el("li", {}, t.table.dekiyakuLine(yakuName(dekiyaku.id), dekiyaku.value)));
    }
    if (!list.childElementCount) return el("span", { hidden: true });
    const total = seat.yakuPoints ? el("p", { class: "yaku-total" }, t.table.yakuTotal(pointsText(seat.yakuPoints))) : null;
    const box = el("div", { class: "scoring" });
    append(box, total, list);
    return box;
  }

  /**
   * The seat's capture pile, small, by kind with the counts; a pile that holds cards is also the
   * way to see it large (a tap anywhere on it, or its button, which the keyboard reaches).
   */
  private captures(seat: SeatInfo, seats: Seats): HTMLElement {
    const box = el("div", { class: "captures" });
    if (!seat.captured.length) {
      box.append(el("p", { class: "none" }, t.table.noCaptures));
      return box;
    }
    box.dataset.seat = String(seat.seat);
    for (const { kind, cards } of byKind(seat.captured)) {
      const group = el("div", { class: `group ${kind}` }, el("h3", {}, t.table.groupHeading(t.cards.groups[kind], cards.length)));
      const row = el("div", { class: "row" });
      for (const card of cards) row.append(cardImage(card, true));
      group.append(row);
      box.append(group);
    }
    // Its own text is its name (no aria-label), so a voice command saying what is seen works.
    box.append(
      el(
        "button",
        { type: "button", class: "pile-open", "data-key": `pile-${seat.seat}` },
        t.table.pileOpen(person(seats, seat.seat)),
      ),
    );
    return box;
  }

  /** The seat whose pile the pile dialog shows, while it is open. */
  private pileSeat: number | undefined;

  /** Opens the dialog that shows `seat`'s capture pile large. */
  private showPile(seat: number): void {
    this.pileSeat = seat;
    this.fillPile();
    const dialog = byId<HTMLDialogElement>("pile");
    if (!dialog.open) dialog.showModal();
    byId("pile-close").focus();
  }

  /**
   * Fills the pile dialog from the current view: drawn again with every version while it is open,
   * so it never shows a pile the table behind it no longer has (README, "Capture piles shown large").
   */
  private fillPile(): void {
    const view = this.view;
    const seat = this.pileSeat === undefined ? undefined : view?.seats[this.pileSeat];
    if (!view || !seat) return;
    const hachi = view.kind === GameKind.HACHI_HACHI;
    byId("pile-title").textContent = t.table.pileTitle(person(this.seats(view), seat.seat));
    const facts = el("p", { class: "pile-facts" }, t.table.pileCount(seat.captured.length));
    if (hachi && seat.participation !== Participation.DROPPED) {
      const points = cardPoints(seat.captured);
      facts.append(" ", t.table.pileCardPoints(points, againstEightyEight(points)));
    }
    const groups = byKind(seat.captured).map(({ kind, cards }) => {
      const list = el("ul", { class: "pile-cards" });
      for (const card of cards) {
        // The picture carries the whole name (kind, month, Japanese name); the caption under it
        // is the short name for the eye, which a screen reader need not hear twice.
        const image = el("span", { class: "card large", role: "img", "aria-label": cardName(card), "data-card": card });
        image.append(picture(cardSvg(card)));
        list.append(el("li", {}, image, el("span", { class: "caption", "aria-hidden": "true" }, shortName(card))));
      }
      return el(
        "section",
        { class: `group ${kind}`, "data-kind": kind },
        el("h3", {}, t.table.groupHeading(t.cards.groups[kind], cards.length)),
        list,
      );
    });
    // The yaku the pile forms, as the seat's panel draws them (the teyaku is the hand's, left out).
    const scoring = this.scoring(seat, hachi, false);
    const formed = scoring.hidden ? el("p", { class: "none" }, t.table.pileNoYaku(hachi)) : scoring;
    byId("pile-body").replaceChildren(
      facts,
      groups.length ? el("div", { class: "pile-groups" }, ...groups) : el("p", { class: "none" }, t.table.noCaptures),
      el("section", { class: "pile-yaku" }, el("h3", {}, hachi ? t.guide.dekiyakuTitle : t.guide.yakuTitle), formed),
    );
  }

  private drawField(view: GameView): void {
    byId("stock").textContent = t.table.stock(view.stockSize);
    // Hachi-Hachi: the multiplier every payment of the round carries, and the drop fees waiting.
    const hachi = view.kind === GameKind.HACHI_HACHI && view.fieldMultiplier > 0;
    const info = byId("field-info");
    info.hidden = !hachi;
    info.textContent = hachi
      ? [
          t.table.fieldMultiplier(view.fieldMultiplier, view.floorMultiplier),
          view.tableHalves > 0n ? t.table.dropFees(halves(view.tableHalves)) : "",
        ]
          .filter(Boolean)
          .join(" · ")
      : "";
    const targets = new Set<number>();
    for (const move of this.myMoves()) {
      if (move.target) targets.add(move.target);
    }
    const field = byId("field");
    field.replaceChildren();
    for (const card of view.field) {
      const image = cardImage(card);
      if (targets.has(card)) image.classList.add("target");
      field.append(image);
    }
    const drawn = view.waiting?.drawnCard;
    byId("drawn").replaceChildren(
      ...(drawn ? [el("span", {}, t.table.drawn), cardImage(drawn)] : []),
    );
  }

  private drawHand(view: GameView): void {
    const section = byId("my-hand");
    section.hidden = view.viewerSeat === undefined;
    byId("preview").style.minHeight = "";
    const hand = byId("hand");
    hand.replaceChildren();
    // A round's summary not yet read (it may wait for the move that ended the round to be seen)
    // comes before the next round's first play.
    const playable = new Set(
      this.summaries.length
        ? []
        : this.myMoves()
            .filter((move) => move.kind === MoveKind.PLAY)
            .map((move) => move.card),
    );
    for (const card of view.hand) {
      hand.append(cardButton(card, { playable: playable.has(card), key: `hand-${card}` }));
    }
    if (!view.hand.length && view.viewerSeat !== undefined) {
      hand.append(el("p", { class: "none" }, t.table.handEmpty));
    }
  }

  private drawResults(view: GameView, seats: Seats): void {
    const box = byId("results");
    box.replaceChildren();
    const last = view.lastResult;
    if (last) {
      box.append(el("p", { id: "last-round" }, roundSummary(seats, last)));
      // How it was scored: the winner's yaku and multipliers (Koi-Koi), the payments (Hachi-Hachi).
      const details = el("ul", { class: "breakdown" });
      for (const yaku of last.score?.yaku ?? []) {
        details.append(el("li", {}, t.table.yakuLine(yakuName(yaku.id), pointsText(yaku.points))));
      }
      for (const multiplier of last.score?.multipliers ?? []) {
        details.append(el("li", {}, multiplierLine(multiplier)));
      }
      for (const payment of last.payments) {
        const from = party(seats, payment.fromSeat);
        const to = party(seats, payment.toSeat);
        details.append(
          el(
            "li",
            {},
            t.table.payment(
              from.you ? t.words.you : from.name,
              to.you ? t.words.you : to.name,
              halves(payment.amountHalves),
              payment.combination ? yakuName(payment.combination) : undefined,
            ),
          ),
        );
      }
      if (details.childElementCount) box.append(details);
    }
    if (view.status === GameStatus.OVER && view.gameResult) {
      const result = view.gameResult;
      const hachi = view.kind === GameKind.HACHI_HACHI;
      const table = el(
        "table",
        { id: "final" },
        el("caption", {}, gameSummary(seats, result)),
        el("thead", {}, el("tr", {}, el("th", { scope: "col" }, t.table.player), el("th", { scope: "col" }, hachi ? t.table.balanceColumn : t.table.scoreColumn))),
      );
      const body = el("tbody");
      view.seats.forEach((seat, index) => {
        const value = hachi
          ? halves(result.balancesHalves[index] ?? seat.balanceHalves)
          : String(result.scores[index] ?? seat.score);
        body.append(el("tr", {}, el("th", { scope: "row" }, seat.name), el("td", {}, value)));
      });
      table.append(body);
      box.append(el("h2", {}, t.table.gameOverTitle), table);
      if (view.viewerSeat !== undefined) {
        box.append(el("p", {}, el("button", { type: "button", id: "review" }, t.table.review)));
      }
      const sheet = el("div", { id: "final-sheet" }, el("p", {}, t.rounds.loading));
      box.append(el("h3", {}, t.rounds.sheetTitle), sheet);
      void this.fillSheet(view, sheet);
      if (view.viewerSeat !== undefined) {
        const again = el("button", { type: "button", id: "again-same" }, t.rounds.playAgain);
        again.addEventListener("click", () => {
          again.disabled = true;
          playAgain(this.referee, view).catch((error: unknown) => {
            again.disabled = false;
            again.after(el("p", { role: "alert" }, t.rounds.playAgainFailed(problemSentence(error))));
          });
        });
        box.append(el("p", {}, again));
      }
      box.append(el("p", {}, el("a", { href: "#", id: "again" }, t.table.newGame)));
    }
  }

  /** Shows or hides the invitation panel (the friends' links for the host, the spectators' link). */
  private toggleInvitations(open: boolean): void {
    const box = byId("invites");
    if (open) {
      box.replaceChildren(...invitationPanel(this.place, () => this.toggleInvitations(false)));
    }
    box.hidden = !open;
    byId("invites-open").setAttribute("aria-expanded", String(open));
    if (open) box.querySelector<HTMLElement>("button.copy")?.focus();
    else byId("invites-open").focus();
  }


  private drawClock(): void {
    const view = this.view;
    const box = byId("turn-clock");
    const clock = view?.clock;
    if (!view || !clock || view.status !== GameStatus.IN_PROGRESS || clock.seat === undefined) {
      box.textContent = view?.clock?.options?.moveSeconds ? "" : t.table.noClock;
      box.hidden = !view?.clock?.options?.moveSeconds;
      return;
    }
    box.hidden = false;
    const now = Date.now();
    const move = timeOf(clock.moveDeadline);
    const deadline = timeOf(clock.deadline);
    const whose = person(this.seats(view), clock.seat);
    if (move !== undefined && move > now) {
      box.textContent = t.table.time(whose, clockText(move - now));
    } else if (deadline !== undefined) {
      box.textContent = t.table.reserve(whose, clockText(deadline - now));
    }
    box.classList.toggle("low", move !== undefined && move - now < 10_000);
  }

  // Decisions -----------------------------------------------------------------------------------

  /** Opens the summary of the first round not dismissed yet; whether one is open. */
  private showSummary(): boolean {
    const dialog = byId<HTMLDialogElement>("round-summary");
    if (dialog.open) return true;
    const next = this.summaries[0];
    if (!next?.view) return false;
    // Later moves do not hold it back further: the summary is of the move that ended the round.
    if (this.holdUntil(next.showAt)) return true;
    byId("round-summary-title").textContent = t.rounds.summaryTitle(next.result.round);
    const view = next.view;
    const running = el("div", { class: "running" }, el("p", {}, t.rounds.loading));
    byId("round-summary-body").replaceChildren(summaryContent(view, this.seats(view), next.result), running);
    // The totals after the round, from the log (as the sheet): read while the summary is shown.
    void loadRounds(this.referee, this.place)
      .then((results) => running.replaceChildren(runningTotals(view, sheetRows(view, results, startingTotals(view)), next.result.round)))
      .catch((error: unknown) => running.replaceChildren(el("p", {}, t.rounds.failed(problemSentence(error)))));
    dialog.showModal();
    byId("round-summary-close").focus();
    return true;
  }

  /** Fills `holder` with the score sheet read from the game's log. */
  private async fillSheet(view: GameView, holder: HTMLElement): Promise<void> {
    try {
      const results = await loadRounds(this.referee, this.place);
      const start = startingTotals(view);
      holder.replaceChildren(
        results.length ? sheetTable(view, sheetRows(view, results, start), start) : el("p", {}, t.rounds.noRounds),
      );
    } catch (error) {
      holder.replaceChildren(el("p", {}, t.rounds.failed(problemSentence(error))));
    }
  }

  private async showSheet(): Promise<void> {
    const view = this.view;
    if (!view) return;
    byId("sheet-title").textContent = t.rounds.sheetTitle;
    const body = byId("sheet-body");
    body.replaceChildren(el("p", {}, t.rounds.loading));
    const dialog = byId<HTMLDialogElement>("sheet");
    if (!dialog.open) dialog.showModal();
    byId("sheet-close").focus();
    await this.fillSheet(view, body);
  }

  /**
   * Whether dialogs wait until `time` (for another seat's move to be seen); if so, they are drawn
   * again then (the view may have moved on by then: the latest one is drawn).
   */
  private holdUntil(time: number): boolean {
    const left = time - Date.now();
    if (left <= 0) return false;
    window.clearTimeout(this.pauseTimer);
    this.pauseTimer = window.setTimeout(() => {
      if (!this.view) return;
      if (!this.showSummary()) this.drawDecision(this.view);
    }, left);
    return true;
  }

  private drawDecision(view: GameView): void {
    if (this.busy) return;
    if (this.holdUntil(this.othersMovedAt + SEEN_PAUSE_MS)) return;
    // A round's summary is read first: the next decision opens once it is dismissed.
    if (byId<HTMLDialogElement>("round-summary").open) return;
    const moves = this.myMoves().filter((move) => move.kind !== MoveKind.PLAY);
    if (!moves.length) {
      if (!this.pendingChoice) this.closeDecision();
      return;
    }
    this.pendingChoice = undefined;
    const kind = view.waiting?.kind ?? WaitingFor.UNSPECIFIED;
    const me = view.viewerSeat !== undefined ? view.seats[view.viewerSeat] : undefined;
    let title = t.table.decisionTitle;
    let text: string | string[] = "";
    if (kind === WaitingFor.KOIKOI_DECISION) {
      title = t.table.koikoiTitle;
      text = koikoiWords(view, me);
    } else if (kind === WaitingFor.SAGE_DECISION && me) {
      title = t.table.sageTitle;
      text = sageWords(view, me, cardPoints(me.captured));
    } else if (kind === WaitingFor.JOIN_DECISION) {
      title = t.table.joinTitle;
      text = joinWords(view);
    } else if (kind === WaitingFor.TARGET_CHOICE) {
      title = t.table.chooseTitle;
      const drawn = view.waiting?.drawnCard;
      text = drawn ? t.table.matchesMore(cardName(drawn)) : "";
    }
    const about = kind === WaitingFor.TARGET_CHOICE ? view.waiting?.drawnCard : undefined;
    this.openDecision(`${view.version}:${kind}`, title, text, moves, false, about);
  }

  private openDecision(
    key: string,
    title: string,
    text: string | readonly string[],
    moves: Move[],
    cancellable: boolean,
    about?: Card,
  ): void {
    const dialog = byId<HTMLDialogElement>("decision");
    if (dialog.open && this.decisionKey === key) return;
    this.decisionKey = key;
    byId("decision-title").textContent = title;
    // A paragraph per part of the choice (what it keeps, what it can win, what it risks).
    const parts = (typeof text === "string" ? [text] : text).map((part) => el("p", {}, part));
    byId("decision-text").replaceChildren(...parts);
    // The card the decision is about is in the dialog, which covers the table.
    if (about) parts[0]?.prepend(el("span", { class: "about" }, picture(cardSvg(about))));
    const holder = byId("decision-moves");
    holder.replaceChildren(
      ...moves.map((move, index) => {
        // data-kind names the move whatever the language (tests and styles read it).
        const button = el("button", { type: "button", "data-move": index, "data-kind": moveKey(move), class: "move" });
        if (move.kind === MoveKind.CHOOSE_TARGET || (move.kind === MoveKind.PLAY && move.target)) {
          button.append(picture(cardSvg(move.target)), el("span", {}, t.table.takeCard(cardName(move.target))));
        } else {
          button.textContent = moveLabel(move);
        }
        return button;
      }),
    );
    if (cancellable) holder.append(el("button", { type: "button", "data-move": "cancel" }, t.table.cancel));
    if (!dialog.open) dialog.showModal();
    holder.querySelector("button")?.focus();
  }

  private closeDecision(): void {
    this.pendingChoice = undefined;
    this.decisionKey = "";
    const dialog = byId<HTMLDialogElement>("decision");
    if (dialog.open) dialog.close();
  }
}
