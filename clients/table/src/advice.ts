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
  type Move,
  type MoveEstimate,
  type RefereeClient,
} from "@hanafuda-referee/client";
import { cardName } from "./cards.js";
import { byId, el } from "./dom.js";
import { problemSentence } from "./problems.js";
import { t } from "./i18n/language.js";
import type { Place } from "./links.js";
import { moveLabel } from "./words.js";

/** Seconds one request waits for the workers' answer (the API allows up to 30). */
const WAIT_SECONDS = 15;
/** Leading candidates shown beside the expert's choice. */
const SHOWN_CANDIDATES = 3;

/** A move in words, a play naming the field card it takes when it names one. */
export function adviceMove(move: Move | undefined): string {
  if (!move) return t.advice.noMove;
  if (move.kind === MoveKind.PLAY) {
    return move.target
      ? t.advice.playTaking(cardName(move.card), cardName(move.target))
      : t.advice.play(cardName(move.card));
  }
  if (move.kind === MoveKind.CHOOSE_TARGET) return t.advice.take(cardName(move.target));
  return moveLabel(move).toLowerCase();
}

/** A mean outcome in points, signed, one decimal. */
export function meanText(points: number): string {
  return t.advice.mean(points);
}

function estimateLine(estimate: MoveEstimate): string {
  return t.advice.estimate(adviceMove(estimate.move), meanText(estimate.meanPoints), estimate.samples);
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

  /**
   * The answer of `ask` (GetHint or ReviewGame for this seat), each call waiting up to
   * {@link WAIT_SECONDS} for the workers, asked a second time if still pending; undefined if
   * it is pending after both.
   */
  private async ready<R extends { status: AdviceStatus }>(
    ask: (request: { game: string; waitSeconds: number }, options: { token: string }) => Promise<R>,
  ): Promise<R | undefined> {
    for (let tries = 0; tries < 2; tries++) {
      const answer = await ask({ game: this.place.game, waitSeconds: WAIT_SECONDS }, { token: this.place.token });
      if (answer.status === AdviceStatus.READY) return answer;
    }
    return undefined;
  }

  /** Asks the expert's choice for the decision pending at `version`, and shows it. */
  async hint(version: bigint): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    this.show(t.advice.hintTitle, el("p", {}, t.advice.thinking));
    try {
      const answer = await this.ready((request, options) => this.referee.getHint(request, options));
      if (!answer) {
        this.show(t.advice.hintTitle, el("p", {}, t.advice.busy));
        return;
      }
      if (answer.version !== version) {
        this.show(t.advice.hintTitle, el("p", {}, t.advice.movedOn));
        return;
      }
      const list = el("ul", { class: "estimates" });
      for (const estimate of answer.candidates.slice(0, SHOWN_CANDIDATES)) {
        list.append(el("li", {}, estimateLine(estimate)));
      }
      this.show(
        t.advice.hintTitle,
        el("p", { id: "hint-move" }, t.advice.expertWould(adviceMove(answer.move))),
        el("p", {}, t.advice.estimatesIntro),
        list,
      );
      this.markHinted(answer.move);
    } catch (error) {
      this.show(t.advice.hintTitle, el("p", {}, this.refusal(error)));
    } finally {
      this.asking = false;
    }
  }

  /** Asks the review of the finished game for this seat, and shows it. */
  async review(): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    this.show(t.advice.reviewTitle, el("p", {}, t.advice.reviewing));
    try {
      const answer = await this.ready((request, options) => this.referee.reviewGame(request, options));
      if (!answer) {
        this.show(t.advice.reviewTitle, el("p", {}, t.advice.busy));
        return;
      }
      if (!answer.differences.length) {
        this.show(
          t.advice.reviewTitle,
          el("p", { id: "review-summary" }, t.advice.allSame(answer.decisions)),
        );
        return;
      }
      const list = el("ol", { class: "review" });
      for (const difference of answer.differences) {
        list.append(
          el(
            "li",
            {},
            t.advice.difference(
              difference.round,
              adviceMove(difference.played?.move),
              adviceMove(difference.expert?.move),
              t.words.number(Math.round(Math.max(0, difference.costPoints) * 10) / 10),
            ),
          ),
        );
      }
      this.show(
        t.advice.reviewTitle,
        el("p", { id: "review-summary" }, t.advice.otherwise(answer.decisions, answer.differences.length)),
        list,
      );
    } catch (error) {
      this.show(t.advice.reviewTitle, el("p", {}, this.refusal(error)));
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
      if (error.reason === Reason.NOT_YOUR_TURN) return t.advice.notYourTurn;
      if (error.reason === Reason.GAME_OVER) return t.advice.gameOver;
    }
    return t.advice.failed(problemSentence(error));
  }
}
