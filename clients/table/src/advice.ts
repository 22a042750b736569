/**
 * Help from the expert (TABLE.md): a hint for the seat's pending decision, and a review of a
 * finished game, both asked of the referee (`getHint`, `reviewGame`: searched by its bot
 * workers from the seat's own view, never in the page) and shown in the `#advice` panel.
 *
 * A request waits up to {@link WAIT_SECONDS} for the answer; one still pending after that is
 * asked again once. The hinted hand card is outlined until the next version is drawn.
 */

import {
  AdviceStatus,
  MoveKind,
  Reason,
  RefereeError,
  type GetHintResponse,
  type Move,
  type MoveEstimate,
  type RefereeClient,
  type ReviewGameResponse,
} from "@hanafuda-referee/client";
import { cardName } from "./cards.js";
import { byId, el } from "./dom.js";
import type { Place } from "./links.js";
import { moveLabel } from "./words.js";

/** Seconds one request waits for the workers' answer (the API allows up to 30). */
const WAIT_SECONDS = 15;
/** Leading candidates shown beside the expert's choice. */
const SHOWN_CANDIDATES = 3;

/** A move in words, a play naming the field card it takes when it names one. */
export function adviceMove(move: Move | undefined): string {
  if (!move) return "no move";
  if (move.kind === MoveKind.PLAY) {
    return move.target
      ? `play ${cardName(move.card)}, taking ${cardName(move.target)}`
      : `play ${cardName(move.card)}`;
  }
  if (move.kind === MoveKind.CHOOSE_TARGET) return `take ${cardName(move.target)}`;
  return moveLabel(move).toLowerCase();
}

/** A mean outcome in points, signed, one decimal. */
export function meanText(points: number): string {
  const rounded = Math.round(points * 10) / 10;
  return `${rounded > 0 ? "+" : rounded < 0 ? "−" : "±"}${Math.abs(rounded).toFixed(1)}`;
}

function estimateLine(estimate: MoveEstimate): string {
  const samples = estimate.samples ? ` over ${estimate.samples} sampled deals` : "";
  return `${adviceMove(estimate.move)}: ${meanText(estimate.meanPoints)} points on average${samples}`;
}

export class Advice {
  private asking = false;

  constructor(
    private readonly referee: RefereeClient,
    private readonly place: Place,
  ) {}

  private panel(): HTMLElement {
    const panel = byId("advice");
    panel.hidden = false;
    return panel;
  }

  private show(title: string, ...content: (HTMLElement | string)[]): void {
    this.panel().replaceChildren(el("h2", {}, title), ...content);
  }

  /** Asks the expert's choice for the decision pending at `version`, and shows it. */
  async hint(version: bigint): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    this.show("Hint", el("p", {}, "The expert is thinking…"));
    try {
      let answer: GetHintResponse | undefined;
      for (let tries = 0; tries < 2 && answer?.status !== AdviceStatus.READY; tries++) {
        answer = await this.referee.getHint(
          { game: this.place.game, waitSeconds: WAIT_SECONDS },
          { token: this.place.token },
        );
      }
      if (!answer || answer.status !== AdviceStatus.READY) {
        this.show("Hint", el("p", {}, "The expert is busy: ask again in a moment."));
        return;
      }
      if (answer.version !== version) {
        this.show("Hint", el("p", {}, "The game moved on: ask again for your new decision."));
        return;
      }
      const list = el("ul", { class: "estimates" });
      for (const estimate of answer.candidates.slice(0, SHOWN_CANDIDATES)) {
        list.append(el("li", {}, estimateLine(estimate)));
      }
      this.show(
        "Hint",
        el("p", { id: "hint-move" }, `The expert would ${adviceMove(answer.move)}.`),
        el("p", {}, "Its estimates of the leading moves, in points for you this round:"),
        list,
      );
      this.markHinted(answer.move);
    } catch (error) {
      this.show("Hint", el("p", {}, this.refusal(error)));
    } finally {
      this.asking = false;
    }
  }

  /** Asks the review of the finished game for this seat, and shows it. */
  async review(): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    this.show("Review", el("p", {}, "The expert is going over your game…"));
    try {
      let answer: ReviewGameResponse | undefined;
      for (let tries = 0; tries < 2 && answer?.status !== AdviceStatus.READY; tries++) {
        answer = await this.referee.reviewGame(
          { game: this.place.game, waitSeconds: WAIT_SECONDS },
          { token: this.place.token },
        );
      }
      if (!answer || answer.status !== AdviceStatus.READY) {
        this.show("Review", el("p", {}, "The expert is busy: ask again in a moment."));
        return;
      }
      const decisions = `${answer.decisions} decision${answer.decisions === 1 ? "" : "s"}`;
      if (!answer.differences.length) {
        this.show(
          "Review",
          el("p", { id: "review-summary" }, `Of your ${decisions}, the expert would have made every one as you did.`),
        );
        return;
      }
      const list = el("ol", { class: "review" });
      for (const difference of answer.differences) {
        list.append(
          el(
            "li",
            {},
            `Round ${difference.round}: you chose to ${adviceMove(difference.played?.move)}; `,
            `the expert would ${adviceMove(difference.expert?.move)} `,
            `(about ${Math.max(0, difference.costPoints).toFixed(1)} points better on average).`,
          ),
        );
      }
      this.show(
        "Review",
        el(
          "p",
          { id: "review-summary" },
          `Of your ${decisions}, the expert would have chosen otherwise ${answer.differences.length} time${answer.differences.length === 1 ? "" : "s"}:`,
        ),
        list,
      );
    } catch (error) {
      this.show("Review", el("p", {}, this.refusal(error)));
    } finally {
      this.asking = false;
    }
  }

  /** Forgets a hint whose decision is past. */
  clearHint(): void {
    for (const card of document.querySelectorAll("#hand .hinted")) card.classList.remove("hinted");
  }

  private markHinted(move: Move | undefined): void {
    this.clearHint();
    if (move?.kind !== MoveKind.PLAY) return;
    document.querySelector(`#hand button.card[data-card="${move.card}"]`)?.classList.add("hinted");
  }

  private refusal(error: unknown): string {
    if (error instanceof RefereeError) {
      if (error.reason === Reason.RATE_LIMITED) return "You asked the expert often: wait a little and ask again.";
      if (error.reason === Reason.NOT_YOUR_TURN) return "A hint is for your own decision: wait for your turn.";
      if (error.reason === Reason.GAME_OVER) return "The game is over: ask for a review instead.";
    }
    return `The expert could not answer: ${error instanceof Error ? error.message : String(error)}`;
  }
}
