/**
 * The combinations of the game's rules, card by card: what each needs, what it is worth, and
 * how far a seat's captures are from it (TABLE.md, "Yaku": "ribbons 4/5").
 *
 * Koi-Koi's are read from the view's resolved rule set (`rules.koiKoi.yaku`: on/off, points,
 * points after koi-koi, +1 per extra card; `sake_cup`, `viewing`, `yellow_paulownia_double`,
 * `five_to_six`, `grand_yaku_fifteen`). Hachi-Hachi's rule set has no option on them, so its
 * dekiyaku and teyaku are RULES.md's tables (2.2, 2.4), the one preset's.
 *
 * A combination is within reach of a seat when it holds at least one of its cards and enough of
 * them are still to be captured: not held by another seat (captures are public).
 */

import { SakeCup, Viewing, type Card, type KoiKoiRules } from "@hanafuda-referee/client";
import { ALL_CARDS, cardInfo } from "./cards.js";
import type { YakuId } from "./i18n/strings.js";

const RAIN_MAN = 41 as Card;
const SAKE_CUP = 33 as Card;
const YELLOW_PAULOWNIA = 46 as Card;
const CURTAIN = 9 as Card;
const MOON = 29 as Card;
const INOSHIKACHO = [25, 37, 21] as Card[];

/** One combination of the rules. */
export interface Plan {
  readonly id: YakuId;
  /** The cards that count towards it. */
  readonly cards: readonly Card[];
  /** How many of them it needs (all of them for a set such as akatan). */
  readonly need: number;
  /** A card that must be among them (the rain man for ame-shikō). */
  readonly requires?: Card;
  /** Cards that count more than once (a plain counted twice under an option). */
  readonly weight?: (card: Card) => number;
  /** Its points (Koi-Koi) or value (Hachi-Hachi, before the field multiplier). */
  readonly points: number;
  /** Koi-Koi: its points once the scorer has called koi-koi, when they differ. */
  readonly afterKoikoi?: number;
  /** Koi-Koi: +1 point per card beyond `need`. */
  readonly extra?: boolean;
  /** Plans of one ladder (the lights, the plains): a seat is shown the first one it lacks. */
  readonly ladder?: string;
}

/** A Hachi-Hachi teyaku: a pattern of the dealt hand, with its value. */
export interface HandPattern {
  readonly id: YakuId;
  readonly value: number;
}

const is = {
  light: (card: Card) => cardInfo(card).kind === "bright",
  animal: (card: Card) => cardInfo(card).kind === "animal",
  ribbon: (card: Card) => cardInfo(card).kind === "ribbon",
  plain: (card: Card) => cardInfo(card).kind === "plain",
};

function where(test: (card: Card) => boolean): Card[] {
  return ALL_CARDS.filter(test);
}

/** The Koi-Koi yaku the rule set counts, in the spec's order, for a round of `month`. */
export function koikoiPlans(rules: KoiKoiRules, month: number): Plan[] {
  const sake = rules.sakeCup;
  const animals = where((c) => is.animal(c) && !(c === SAKE_CUP && sake === SakeCup.PLAIN_ONLY));
  const plains = where(
    (c) => is.plain(c) || (c === SAKE_CUP && sake !== SakeCup.ANIMAL_ONLY && sake !== SakeCup.UNSPECIFIED),
  );
  const lights = where(is.light);
  const poetry = where((c) => cardInfo(c).ribbon === "poetry");
  const blue = where((c) => cardInfo(c).ribbon === "blue");
  const shapes: Record<string, Omit<Plan, "id" | "points">> = {
    goko: { cards: lights, need: 5, ladder: "lights" },
    shiko: { cards: lights.filter((c) => c !== RAIN_MAN), need: 4, ladder: "lights" },
    "ame-shiko": { cards: lights, need: 4, requires: RAIN_MAN, ladder: "lights" },
    sanko: { cards: lights.filter((c) => c !== RAIN_MAN), need: 3, ladder: "lights" },
    inoshikacho: { cards: INOSHIKACHO, need: 3 },
    tane: { cards: animals, need: 5 },
    "akatan-aotan": { cards: [...poetry, ...blue], need: 6 },
    akatan: { cards: poetry, need: 3 },
    aotan: { cards: blue, need: 3 },
    tan: { cards: where(is.ribbon), need: 5 },
    kasu: {
      cards: plains,
      need: 10,
      weight: (card) =>
        (card === SAKE_CUP && sake === SakeCup.ANIMAL_AND_TWO_PLAINS) ||
        (card === YELLOW_PAULOWNIA && rules.yellowPaulowniaDouble)
          ? 2
          : 1,
    },
    "hanami-zake": { cards: [CURTAIN, SAKE_CUP], need: 2 },
    "tsukimi-zake": { cards: [MOON, SAKE_CUP], need: 2 },
    tsukifuda: { cards: where((c) => cardInfo(c).month === month), need: 4 },
  };
  const plans: Plan[] = [];
  for (const rule of rules.yaku) {
    const shape = shapes[rule.id];
    if (!shape || rule.enabled === false) continue;
    if ((rule.id === "hanami-zake" || rule.id === "tsukimi-zake") && rules.viewing === Viewing.OFF) continue;
    if (rule.id === "tsukifuda" && !month) continue;
    const worth = (points: number): number => {
      let value = points;
      if (rules.grandYakuFifteen && (rule.id === "goko" || rule.id === "akatan-aotan")) value = 15;
      if (rules.fiveToSix && value === 5) value = 6;
      return value;
    };
    const points = worth(rule.points ?? 0);
    const after = rule.pointsAfterKoikoi ? worth(rule.pointsAfterKoikoi) : undefined;
    plans.push({
      ...shape,
      id: rule.id as YakuId,
      points,
      ...(after !== undefined && after !== points ? { afterKoikoi: after } : {}),
      ...(rule.extra ? { extra: true } : {}),
    });
  }
  return plans;
}

/** Hachi-Hachi's dekiyaku (RULES.md 2.4), values before the field multiplier. */
export function hachiPlans(): Plan[] {
  const lights = where(is.light);
  // Willow cards count as plains for the plains ladder.
  const plains = where((c) => is.plain(c) || cardInfo(c).month === 11);
  const plainsRung = (need: 16 | 17 | 18 | 19, points: number): Plan => ({
    id: `plains-${need}`,
    cards: plains,
    need,
    points,
    ladder: "plains",
  });
  return [
    { id: "akatan", cards: where((c) => cardInfo(c).ribbon === "poetry"), need: 3, points: 35 },
    { id: "aotan", cards: where((c) => cardInfo(c).ribbon === "blue"), need: 3, points: 35 },
    { id: "inoshikacho", cards: INOSHIKACHO, need: 3, points: 35 },
    {
      id: "seven-ribbons",
      cards: where((c) => is.ribbon(c) && cardInfo(c).month !== 11),
      need: 7,
      points: 50,
    },
    { id: "four-lights", cards: lights.filter((c) => c !== RAIN_MAN), need: 4, points: 50, ladder: "lights" },
    { id: "five-lights", cards: lights, need: 5, points: 75, ladder: "lights" },
    plainsRung(16, 50),
    plainsRung(17, 60),
    plainsRung(18, 75),
    plainsRung(19, 100),
  ];
}

/** Hachi-Hachi's teyaku (RULES.md 2.2), highest first as a player looks for them. */
export const HAND_PATTERNS: readonly HandPattern[] = [
  { id: "four-three", value: 50 },
  { id: "one-two-four", value: 35 },
  { id: "four-of-a-kind", value: 30 },
  { id: "haneken", value: 30 },
  { id: "empty-nest", value: 25 },
  { id: "lone-ribbon", value: 20 },
  { id: "lone-animal", value: 20 },
  { id: "lone-light", value: 20 },
  { id: "three-pairs", value: 20 },
  { id: "special-triplet", value: 15 },
  { id: "red", value: 15 },
  { id: "triplet", value: 10 },
];

/** How far a seat is from a plan: cards held towards it, of `need`. */
export interface Reach {
  readonly plan: Plan;
  readonly have: number;
}

function count(plan: Plan, cards: Iterable<Card>): number {
  let total = 0;
  for (const card of cards) total += plan.weight ? plan.weight(card) : 1;
  return total;
}

/**
 * The plans within reach of a seat holding `mine`, the other seats holding `others`, leaving
 * out those it has `formed`: at least one card held, enough still to capture; of a ladder, only
 * the first rung not formed. Nearest first.
 */
export function withinReach(
  plans: readonly Plan[],
  mine: ReadonlySet<Card>,
  others: ReadonlySet<Card>,
  formed: ReadonlySet<string>,
): Reach[] {
  const found: Reach[] = [];
  const ladders = new Set<string>();
  const byNeed = [...plans].sort((a, b) => a.need - b.need);
  for (const plan of byNeed) {
    if (formed.has(plan.id)) continue;
    if (plan.requires && others.has(plan.requires)) continue;
    const held = plan.cards.filter((card) => mine.has(card));
    const free = plan.cards.filter((card) => !mine.has(card) && !others.has(card));
    const have = Math.min(count(plan, held), plan.need);
    if (!have || have + count(plan, free) < plan.need) continue;
    if (plan.ladder) {
      if (ladders.has(plan.ladder)) continue;
      ladders.add(plan.ladder);
    }
    found.push({ plan, have });
  }
  return found.sort((a, b) => b.have / b.plan.need - a.have / a.plan.need);
}
