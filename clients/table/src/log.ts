/**
 * The game's log as the page's seat (or a spectator) may read it: every event, in order, read
 * page by page through `getGameLog`.
 */

import { type Event, type RefereeClient } from "@hanafuda-referee/client";
import type { Place } from "./links.js";

/** Events read per page of the log (the API's most). */
const PAGE_SIZE = 1000;
/** A bound on the pages read: 100 000 events, far beyond any game's log. */
const MOST_PAGES = 100;

/** Every event of the game's log, in order. */
export async function readLog(referee: RefereeClient, place: Place): Promise<Event[]> {
  const events: Event[] = [];
  let pageToken = "";
  // A page never splits a version; a long game takes a few pages.
  for (let pages = 0; pages < MOST_PAGES; pages++) {
    const page = await referee.getGameLog(
      { game: place.game, pageSize: PAGE_SIZE, pageToken },
      { token: place.token },
    );
    events.push(...page.events);
    pageToken = page.nextPageToken;
    if (!pageToken) break;
  }
  return events;
}
