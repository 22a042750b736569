/**
 * The table's language: the one the player chose on this browser (kept in local storage), else
 * the first of the browser's languages (`navigator.languages`) the table speaks, else English.
 * `t` holds its words; `translatePage` puts them into the static page, whose elements name
 * their words with `data-i18n` (text) or `data-i18n-label` (`aria-label`).
 */

import { en } from "./en.js";
import { fr } from "./fr.js";
import { ja } from "./ja.js";
import { LANGUAGES, type Lang, type PageKey, type Strings } from "./strings.js";

export const SETS: Readonly<Record<Lang, Strings>> = { en, fr, ja };

/** Where the player's choice is kept (local storage: every tab of this browser). */
export const STORAGE_KEY = "hanafuda-table:language";

function isLang(value: string | null | undefined): value is Lang {
  return (LANGUAGES as readonly string[]).includes(value ?? "");
}

/**
 * The language to use: `stored` when it is one of the table's, else the first of `browser`
 * (BCP 47 tags, "fr-CA", "ja") whose primary subtag is, else English.
 */
export function chooseLanguage(stored: string | null, browser: readonly string[]): Lang {
  if (isLang(stored)) return stored;
  for (const tag of browser) {
    const primary = tag.toLowerCase().split("-")[0];
    if (isLang(primary)) return primary;
  }
  return "en";
}

function storedChoice(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    // Storage refused (a privacy setting): the browser's language still applies.
    return null;
  }
}

function browserLanguages(): readonly string[] {
  // Outside a browser (the tests' Node) there is no navigator: English.
  if (typeof navigator === "undefined") return [];
  return navigator.languages ?? [navigator.language];
}

export let lang: Lang = chooseLanguage(storedChoice(), browserLanguages());
/** The words of the table in its language. */
export let t: Strings = SETS[lang];

/** Keeps `chosen` for this browser and makes it the table's language. */
export function setLanguage(chosen: Lang): void {
  try {
    localStorage.setItem(STORAGE_KEY, chosen);
  } catch {
    // Not kept, but used in this page all the same.
  }
  lang = chosen;
  t = SETS[chosen];
}

/** Puts the language's words into the static page and fills the language switch. */
export function translatePage(): void {
  document.documentElement.lang = lang;
  for (const element of document.querySelectorAll<HTMLElement>("[data-i18n]")) {
    element.textContent = t.page[element.dataset.i18n as PageKey] ?? element.textContent;
  }
  document.title = t.page.title;
  const select = document.getElementById("language") as HTMLSelectElement | null;
  if (select && !select.options.length) {
    for (const code of LANGUAGES) {
      const option = document.createElement("option");
      option.value = code;
      option.lang = code;
      option.textContent = SETS[code].languageName;
      select.append(option);
    }
  }
  if (select) select.value = lang;
}
