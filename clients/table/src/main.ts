/**
 * The browser table's entry point: the lobby when the URL has no fragment, else the game the
 * fragment names (a seat with its token, or a spectator). The referee is this page's own origin.
 */

import { RefereeClient } from "@hanafuda-referee/client";
import { showLobby } from "./lobby.js";
import { placeOf } from "./links.js";
import { Table } from "./table.js";

const referee = new RefereeClient({ baseUrl: location.origin });
let current: AbortController | undefined;

function route(): void {
  current?.abort();
  current = undefined;
  const place = placeOf(location.hash);
  if (!place) {
    showLobby(referee);
    return;
  }
  const controller = new AbortController();
  current = controller;
  void new Table(referee, place).run(controller.signal);
}

window.addEventListener("hashchange", () => {
  // A new table starts from a clean page: the previous one's listeners and dialogs go with it.
  location.reload();
});
route();
