/**
 * The 48 cards: what each is (month, kind, subject), its accessible name, and its picture, an
 * original SVG drawn from those facts alone: the month's colour and number, the flower's name,
 * and a sign of the kind (a sun for a bright, a medallion naming the animal or object, a band
 * for a ribbon, petals for a plain).
 *
 * The numbers are the `Card` enum's (1 to 48, in the order of the spec's CARDS.md).
 */

import { Card } from "@hanafuda-referee/client";
import { t } from "./i18n/language.js";
import type { CardWords, Subject } from "./i18n/strings.js";

export type Kind = "bright" | "animal" | "ribbon" | "plain";

export interface CardInfo {
  readonly card: Card;
  /** 1 to 12. */
  readonly month: number;
  readonly kind: Kind;
  /** What the card shows: `crane`, `poetryRibbon`, `plain`, `lightning`... (a key of the words). */
  readonly subject: Subject;
  /** Ribbons: `poetry`, `blue` or `red`. */
  readonly ribbon?: "poetry" | "blue" | "red";
}

/** Each month's flower in kanji and romaji, for the cards' Japanese names. */
const KANJI_FLOWERS = ["松", "梅", "桜", "藤", "菖蒲", "牡丹", "萩", "芒", "菊", "紅葉", "柳", "桐"] as const;
const ROMAJI_FLOWERS = [
  "Matsu", "Ume", "Sakura", "Fuji", "Ayame", "Botan", "Hagi", "Susuki", "Kiku", "Momiji", "Yanagi", "Kiri",
] as const;

/**
 * The cards' standard Japanese names, by card number, kanji then romaji; a card not listed is a
 * plain, "<flower>のカス" ("<flower> no kasu"). The lightning and the yellow paulownia plain are
 * plains too, told apart in brackets.
 */
const JAPANESE: Readonly<Record<number, readonly [string, string]>> = {
  1: ["松に鶴", "Matsu ni tsuru"],
  2: ["松に赤短", "Matsu ni akatan"],
  5: ["梅に鶯", "Ume ni uguisu"],
  6: ["梅に赤短", "Ume ni akatan"],
  9: ["桜に幕", "Sakura ni maku"],
  10: ["桜に赤短", "Sakura ni akatan"],
  13: ["藤に不如帰", "Fuji ni hototogisu"],
  14: ["藤に短冊", "Fuji ni tanzaku"],
  17: ["菖蒲に八橋", "Ayame ni yatsuhashi"],
  18: ["菖蒲に短冊", "Ayame ni tanzaku"],
  21: ["牡丹に蝶", "Botan ni chō"],
  22: ["牡丹に青短", "Botan ni aotan"],
  25: ["萩に猪", "Hagi ni inoshishi"],
  26: ["萩に短冊", "Hagi ni tanzaku"],
  29: ["芒に月", "Susuki ni tsuki"],
  30: ["芒に雁", "Susuki ni kari"],
  33: ["菊に盃", "Kiku ni sakazuki"],
  34: ["菊に青短", "Kiku ni aotan"],
  37: ["紅葉に鹿", "Momiji ni shika"],
  38: ["紅葉に青短", "Momiji ni aotan"],
  41: ["柳に小野道風", "Yanagi ni Ono no Michikaze"],
  42: ["柳に燕", "Yanagi ni tsubame"],
  43: ["柳に短冊", "Yanagi ni tanzaku"],
  44: ["柳のカス（雷）", "Yanagi no kasu (kaminari)"],
  45: ["桐に鳳凰", "Kiri ni hōō"],
  46: ["桐のカス（黄）", "Kiri no kasu (ki)"],
};

/** The card's Japanese name: kanji and romaji. */
export function japaneseName(card: Card): { readonly kanji: string; readonly romaji: string } {
  const info = cardInfo(card);
  const named = JAPANESE[card];
  if (named) return { kanji: named[0], romaji: named[1] };
  const m = info.month - 1;
  return { kanji: `${KANJI_FLOWERS[m] ?? ""}のカス`, romaji: `${ROMAJI_FLOWERS[m] ?? ""} no kasu` };
}

// Each month's colours: the card's ground and the flower's.
const GROUNDS = [
  "#e8f1e4", "#f6e6ee", "#fbeaf0", "#ece6f6", "#e4eaf7", "#f8e8e6",
  "#f1ecdf", "#eef0e2", "#f8f1dc", "#f8e6dc", "#e2ece9", "#ebe6f0",
] as const;
const FLOWER_COLOURS = [
  "#2f6b3a", "#b0306a", "#d9598a", "#7a5bb5", "#3a5bb0", "#c43b3b",
  "#a0508a", "#8a8a3a", "#c9962a", "#c4512a", "#3f8a6b", "#6a4f9a",
] as const;

// Month by month: the four cards' kinds and subjects, in the enum's order.
const DECK: ReadonlyArray<ReadonlyArray<readonly [Kind, Subject, CardInfo["ribbon"]?]>> = [
  [["bright", "crane"], ["ribbon", "poetryRibbon", "poetry"], ["plain", "plain"], ["plain", "plain"]],
  [["animal", "warbler"], ["ribbon", "poetryRibbon", "poetry"], ["plain", "plain"], ["plain", "plain"]],
  [["bright", "curtain"], ["ribbon", "poetryRibbon", "poetry"], ["plain", "plain"], ["plain", "plain"]],
  [["animal", "cuckoo"], ["ribbon", "redRibbon", "red"], ["plain", "plain"], ["plain", "plain"]],
  [["animal", "bridge"], ["ribbon", "redRibbon", "red"], ["plain", "plain"], ["plain", "plain"]],
  [["animal", "butterflies"], ["ribbon", "blueRibbon", "blue"], ["plain", "plain"], ["plain", "plain"]],
  [["animal", "boar"], ["ribbon", "redRibbon", "red"], ["plain", "plain"], ["plain", "plain"]],
  [["bright", "moon"], ["animal", "geese"], ["plain", "plain"], ["plain", "plain"]],
  [["animal", "sakeCup"], ["ribbon", "blueRibbon", "blue"], ["plain", "plain"], ["plain", "plain"]],
  [["animal", "deer"], ["ribbon", "blueRibbon", "blue"], ["plain", "plain"], ["plain", "plain"]],
  [["bright", "rainMan"], ["animal", "swallow"], ["ribbon", "redRibbon", "red"], ["plain", "lightning"]],
  [["bright", "phoenix"], ["plain", "yellowPlain"], ["plain", "plain"], ["plain", "plain"]],
];

const INFOS: ReadonlyMap<Card, CardInfo> = new Map(
  DECK.flatMap((cards, month) =>
    cards.map(([kind, subject, ribbon], index): [Card, CardInfo] => {
      const card = (month * 4 + index + 1) as Card;
      const info: CardInfo = ribbon
        ? { card, month: month + 1, kind, subject, ribbon }
        : { card, month: month + 1, kind, subject };
      return [card, info];
    }),
  ),
);

/** Every card, in the enum's order. */
export const ALL_CARDS: readonly Card[] = [...INFOS.keys()];

/** What `card` is; throws on `Card.UNSPECIFIED` or a number this table does not know. */
export function cardInfo(card: Card): CardInfo {
  const info = INFOS.get(card);
  if (!info) throw new Error(`unknown card ${card}`);
  return info;
}

/** The words that name `card` in the table's language. */
export function cardWords(card: Card): CardWords {
  const info = cardInfo(card);
  const m = info.month - 1;
  return {
    subject: t.cards.subjects[info.subject],
    flower: t.cards.flowers[m] ?? "",
    flowerOf: t.cards.flowersOf[m] ?? "",
    kind: t.cards.kinds[info.kind],
    month: t.cards.months[m] ?? "",
    ...japaneseName(card),
  };
}

/**
 * The card's name for people and screen readers, in the table's language with its Japanese
 * name: in English `cardName(Card.PINE_CRANE)` is
 * `"pine crane (bright, January; Matsu ni tsuru, 松に鶴)"`.
 */
export function cardName(card: Card): string {
  return INFOS.has(card) ? t.cards.name(cardWords(card)) : t.cards.unknown;
}

/** The name in sentences: `pine crane`, `grue du pin`, `松に鶴`. */
export function shortName(card: Card): string {
  return INFOS.has(card) ? t.cards.short(cardWords(card)) : t.cards.unknown;
}

/** A font size that keeps `text` inside `room` units of the card: smaller for longer words. */
function fontSize(text: string, size: number, room = 52): number {
  // Kanji are about twice as wide as Latin letters.
  const width = [...text].reduce((sum, char) => sum + (char.charCodeAt(0) > 0x2e80 ? 1 : 0.62), 0);
  return Math.min(size, Math.round((room / Math.max(width, 1)) * 10) / 10);
}

/** Text for the SVG markup: the words are this program's, but `&` and `<` must still be escaped. */
function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;");
}

const RIBBON_COLOURS = { poetry: "#c8202c", red: "#d8372f", blue: "#2446a8" } as const;

function petals(cx: number, cy: number, r: number, colour: string): string {
  // Five round petals about a centre: the month's flower, drawn the same for every month.
  let out = "";
  for (let i = 0; i < 5; i++) {
    const angle = (i * 2 * Math.PI) / 5 - Math.PI / 2;
    const x = (cx + Math.cos(angle) * r).toFixed(1);
    const y = (cy + Math.sin(angle) * r).toFixed(1);
    out += `<circle cx="${x}" cy="${y}" r="${(r * 0.75).toFixed(1)}" fill="${colour}"/>`;
  }
  return out + `<circle cx="${cx}" cy="${cy}" r="${(r * 0.5).toFixed(1)}" fill="#fff6d0"/>`;
}

function emblem(info: CardInfo, colour: string): string {
  const subject = t.cards.subjects[info.subject];
  switch (info.kind) {
    case "bright": {
      // A sun: a gold disc in a ring of short rays.
      let rays = "";
      for (let i = 0; i < 12; i++) {
        const a = (i * Math.PI) / 6;
        const x1 = (30 + Math.cos(a) * 15).toFixed(1);
        const y1 = (50 + Math.sin(a) * 15).toFixed(1);
        const x2 = (30 + Math.cos(a) * 19).toFixed(1);
        const y2 = (50 + Math.sin(a) * 19).toFixed(1);
        rays += `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="#d4a017" stroke-width="2"/>`;
      }
      return rays + `<circle cx="30" cy="50" r="12" fill="#f2c230" stroke="#a87a00"/>`;
    }
    case "animal":
      // A medallion: the animal or object named in it.
      return (
        `<rect x="9" y="38" width="42" height="24" rx="12" fill="#fff" stroke="${colour}" stroke-width="2"/>` +
        `<text x="30" y="54" font-size="${fontSize(subject, 8, 38)}" text-anchor="middle" fill="#222">${escapeText(subject)}</text>`
      );
    case "ribbon": {
      const ribbon = RIBBON_COLOURS[info.ribbon ?? "red"];
      const lines =
        info.ribbon === "poetry"
          ? `<line x1="30" y1="38" x2="30" y2="66" stroke="#fff" stroke-width="1.5" stroke-dasharray="3 2"/>`
          : "";
      return (
        `<rect x="23" y="30" width="14" height="40" fill="${ribbon}" transform="rotate(-8 30 50)"/>` +
        `<g transform="rotate(-8 30 50)">${lines}</g>`
      );
    }
    case "plain":
      if (info.subject === "lightning") {
        return `<polyline points="36,32 24,50 34,50 22,70" fill="none" stroke="#333" stroke-width="3"/>`;
      }
      if (info.subject === "yellowPlain") {
        return `<rect x="6" y="44" width="48" height="10" fill="#f2d230"/>` + petals(30, 50, 7, colour);
      }
      return petals(30, 50, 7, colour);
  }
}

/**
 * The card's picture: an SVG (60 by 96 units) hidden from assistive technology, since the button
 * that holds it carries the card's name.
 */
export function cardSvg(card: Card): string {
  const info = cardInfo(card);
  const m = info.month - 1;
  const colour = FLOWER_COLOURS[m] ?? "#333";
  const kindMark = { bright: "★", animal: "◆", ribbon: "▮", plain: "·" }[info.kind];
  const flower = t.cards.flowers[m] ?? "";
  return (
    `<svg viewBox="0 0 60 96" aria-hidden="true" focusable="false" class="card-art">` +
    `<rect x="1" y="1" width="58" height="94" rx="5" fill="${GROUNDS[m] ?? "#fff"}" stroke="#555" stroke-width="1.5"/>` +
    `<rect x="1" y="1" width="58" height="14" rx="5" fill="${colour}"/>` +
    `<text x="5" y="12" font-size="10" font-weight="700" fill="#fff">${info.month}</text>` +
    `<text x="55" y="12" font-size="10" text-anchor="end" fill="#fff">${kindMark}</text>` +
    emblem(info, colour) +
    `<text x="30" y="82" font-size="${fontSize(flower, 8)}" text-anchor="middle" fill="#222">${escapeText(flower)}</text>` +
    `<text x="30" y="91" font-size="6" text-anchor="middle" fill="#555">${escapeText(t.cards.kinds[info.kind])}</text>` +
    `</svg>`
  );
}

/** The back of a card (another seat's hand). */
export function backSvg(): string {
  return (
    `<svg viewBox="0 0 60 96" aria-hidden="true" focusable="false" class="card-art">` +
    `<rect x="1" y="1" width="58" height="94" rx="5" fill="#7a1f1f" stroke="#3d0f0f" stroke-width="1.5"/>` +
    `<rect x="8" y="8" width="44" height="80" rx="3" fill="none" stroke="#e8b04a" stroke-width="1.5"/>` +
    `</svg>`
  );
}
