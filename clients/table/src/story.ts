/**
 * The story of a game in words, in the table's language whatever the language it was first told
 * in (TABLE.md, "Languages": a switch draws the page again): what happened comes from the game's
 * log, re-described at each drawing of the page; what the table itself said to the player (a
 * refusal, a stale move) is kept in the tab's session storage as what it means, not as words,
 * and put back among the events of its version.
 */

import { type Event, type RefereeClient } from "@hanafuda-referee/client";
import { t } from "./i18n/language.js";
import type { Place } from "./links.js";
import { readLog } from "./log.js";
import type { Problem } from "./problems.js";
import { describe, type Seats } from "./words.js";

/** The most lines the story keeps (the oldest go first). */
export const KEPT_LINES = 200;

/** Something the table said to the player, at a game version, kept as what it means. */
export type Said =
  | { readonly version: string; readonly kind: "watching" }
  | { readonly version: string; readonly kind: "seated"; readonly seat: number }
  | { readonly version: string; readonly kind: "stale" }
  | { readonly version: string; readonly kind: "refused"; readonly problem: Problem };

/** A line of the story with the version it belongs to. */
export interface Line {
  readonly version: bigint;
  readonly text: string;
}

/** What the table said, in the table's language now; `refusal` words a refused move's error. */
export function saidText(said: Said, refusal: (said: Said & { kind: "refused" }) => string): string {
  switch (said.kind) {
    case "watching":
      return t.story.watching;
    case "seated":
      return t.story.seated(said.seat + 1);
    case "stale":
      return t.table.stale;
    case "refused":
      return refusal(said);
  }
}

/**
 * The lines of the events of one version, in order. An event without an actor of its own (a
 * draw, a capture) is told as the last actor's.
 */
export function eventLines(seats: Seats, version: bigint, events: readonly Event[]): Line[] {
  const lines: Line[] = [];
  let actor: number | undefined;
  for (const event of events) {
    if (event.actor !== undefined) actor = event.actor;
    const text = describe(seats, event, actor);
    if (text) lines.push({ version, text });
  }
  return lines;
}

/** The kept sayings of a game (empty when storage is refused or holds something else). */
export function keptSayings(key: string): Said[] {
  try {
    const kept: unknown = JSON.parse(sessionStorage.getItem(key) ?? "[]");
    return Array.isArray(kept) ? (kept as Said[]) : [];
  } catch {
    return [];
  }
}

/** Keeps the sayings of a game for the tab (the most recent ones only). */
export function keepSayings(key: string, sayings: readonly Said[]): void {
  try {
    sessionStorage.setItem(key, JSON.stringify(sayings.slice(-KEPT_LINES)));
  } catch {
    // Storage refused: the sayings are only lost on a reload.
  }
}

/**
 * The story up to `version` (included): the log's events re-described, with the kept sayings of
 * each version after its events; its last {@link KEPT_LINES} lines, and how many lines it has in
 * all (the first line kept is numbered from it).
 */
export async function storyUpTo(
  referee: RefereeClient,
  place: Place,
  version: bigint,
  seats: Seats,
  sayings: readonly Said[],
  refusal: (said: Said & { kind: "refused" }) => string,
): Promise<{ lines: Line[]; total: number }> {
  const byVersion = new Map<bigint, Event[]>();
  for (const event of await readLog(referee, place)) {
    if (event.version > version) continue;
    const events = byVersion.get(event.version) ?? [];
    events.push(event);
    byVersion.set(event.version, events);
  }
  const lines: Line[] = [];
  for (const [at, events] of byVersion) lines.push(...eventLines(seats, at, events));
  for (const said of sayings) {
    const at = BigInt(said.version);
    if (at > version) continue;
    const text = saidText(said, refusal);
    // After the events of its version, and after what was said before it at that version.
    let index = lines.length;
    while (index > 0 && (lines[index - 1]?.version ?? 0n) > at) index--;
    lines.splice(index, 0, { version: at, text });
  }
  return { lines: lines.slice(-KEPT_LINES), total: lines.length };
}
