/**
 * The browser table's entry point: the lobby when the URL has no fragment, else the game the
 * fragment names (a seat with its token, or a spectator). The referee is this page's own origin.
 */

import { RefereeClient } from "@hanafuda-referee/client";
import { showLobby } from "./lobby.js";
import { placeOf } from "./links.js";
import { Table } from "./table.js";
import { LANGUAGES, type Lang } from "./i18n/strings.js";
import { setLanguage, translatePage } from "./i18n/language.js";

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

translatePage();
document.getElementById("language")?.addEventListener("change", (event) => {
  const chosen = (event.target as HTMLSelectElement).value;
  if (!(LANGUAGES as readonly string[]).includes(chosen)) return;
  setLanguage(chosen as Lang);
  // Every word on the page is drawn again in the new language: the table from the referee
  // (the watch resumes), the lobby from its form. The story told so far stays as it was told.
  location.reload();
});

window.addEventListener("hashchange", () => {
  // A new table starts from a clean page: the previous one's listeners and dialogs go with it.
  location.reload();
});
route();
