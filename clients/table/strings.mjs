// Prints the shape of each language's words (src/i18n/{en,fr,ja}.ts) as JSON, for
// tests/clients/test_table_strings.py: every key with the kind of its value ("string", "function",
// "list/<length>", or the shape of a nested set), so a test can tell which
// key a language misses, adds, or gives another shape, beside what tsc already checks. Empty
// strings are reported as "empty" (a key left blank is as missing as one left out). Also the
// cards' Japanese names and the language chosen in a few cases.
import { build } from "esbuild";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const languages = ["en", "fr", "ja"];
const bundled = await build({
  stdin: {
    contents: [
      ...languages.map((code) => `export { ${code} } from "./src/i18n/${code}.ts";`),
      `export { japaneseName, ALL_CARDS } from "./src/cards.ts";`,
      `export { chooseLanguage } from "./src/i18n/language.ts";`,
    ].join("\n"),
    resolveDir: here,
    loader: "ts",
  },
  bundle: true,
  format: "esm",
  platform: "neutral",
  write: false,
  logLevel: "error",
});
const source = bundled.outputFiles[0].text;
const sets = await import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);

function shape(value) {
  if (typeof value === "string") return value.trim() ? "string" : "empty";
  // A language may leave out an argument it does not need ("7点" has no plural): no arity.
  if (typeof value === "function") return "function";
  if (Array.isArray(value)) {
    return value.every((item) => typeof item === "string" && item.trim())
      ? `list/${value.length}`
      : `list with blanks/${value.length}`;
  }
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, shape(value[key])]));
  }
  return typeof value;
}

// Beside the shapes: every card's Japanese name by card number, and the language chosen for a
// few stored choices and browser languages.
const japanese = Object.fromEntries(sets.ALL_CARDS.map((card) => [card, sets.japaneseName(card)]));
const choices = [
  [null, ["fr-CA", "en"]],
  [null, ["de-DE", "ja"]],
  [null, ["de-DE"]],
  ["ja", ["fr-FR"]],
  ["xx", ["fr"]],
].map(([stored, browser]) => ({ stored, browser, chosen: sets.chooseLanguage(stored, browser) }));
const shapes = Object.fromEntries(languages.map((code) => [code, shape(sets[code])]));
console.log(JSON.stringify({ ...shapes, japanese, choices }));
