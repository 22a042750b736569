/**
 * Every word the table shows, as one typed set per language (`en.ts`, `fr.ts`, `ja.ts`): a
 * language that misses a key, or gives one the wrong shape, fails `tsc --strict`, and
 * `tests/clients/test_table_strings.py` compares the three sets key by key as well (the ids
 * listed in records, the lengths of lists).
 *
 * Sentences that hold names or numbers are functions, so each language orders its words and
 * agrees its verbs ("you win", "Ann wins"; "vous gagnez", "Ann gagne") as it needs.
 */

import type { Reason } from "@hanafuda-referee/client";

/** The languages of the table, by their BCP 47 primary subtag. */
export const LANGUAGES = ["en", "fr", "ja"] as const;
export type Lang = (typeof LANGUAGES)[number];

/** Someone named in a sentence: a seat (`you` when it is the viewer's) or the table itself. */
export interface Who {
  readonly name: string;
  readonly you: boolean;
}

/** A card's words, for `Strings.cards.name` and `.short`. */
export interface CardWords {
  /** The card's subject in this language: "crane", "poetry ribbon", "plain". */
  readonly subject: string;
  /** The flower (month plant) in this language, and after "of": "pine" / "du pin". */
  readonly flower: string;
  readonly flowerOf: string;
  readonly kind: string;
  readonly month: string;
  /** The Japanese name in kanji and in romaji: "松に鶴", "Matsu ni tsuru". */
  readonly kanji: string;
  readonly romaji: string;
}

export type Subject =
  | "crane" | "warbler" | "curtain" | "cuckoo" | "bridge" | "butterflies" | "boar" | "moon"
  | "geese" | "sakeCup" | "deer" | "rainMan" | "swallow" | "phoenix" | "poetryRibbon"
  | "blueRibbon" | "redRibbon" | "plain" | "lightning" | "yellowPlain";

export type KindKey = "bright" | "animal" | "ribbon" | "plain";

/** Koi-Koi yaku, Hachi-Hachi teyaku and dekiyaku, by the referee's ids. */
export type YakuId =
  | "goko" | "shiko" | "ame-shiko" | "sanko" | "inoshikacho" | "tane" | "akatan-aotan" | "akatan"
  | "aotan" | "tan" | "kasu" | "hanami-zake" | "tsukimi-zake" | "tsukifuda"
  | "triplet" | "special-triplet" | "red" | "lone-ribbon" | "lone-animal" | "lone-light"
  | "three-pairs" | "empty-nest" | "four-of-a-kind" | "haneken" | "one-two-four" | "four-three"
  | "seven-ribbons" | "four-lights" | "five-lights" | "plains-16" | "plains-17" | "plains-18"
  | "plains-19" | "all-eights" | "double-eights";

/** Koi-Koi multipliers, by the referee's names (dashed; the proto's comment writes them with `_`). */
export type MultiplierId =
  | "seven-or-more" | "own-koikoi" | "own-koikoi-bonus" | "opponent-koikoi"
  | "all-calls-plus-one" | "counter-seven";

export type RoundEndKey =
  | "dealCheck" | "stop" | "exhaustion" | "dealerEmpty" | "shobu" | "sageOvertaken" | "cardCount";
export type GameEndKey = "roundsPlayed" | "outOfPoints" | "targetReached" | "resigned";
export type WaitKey = "handPlay" | "targetChoice" | "koikoi" | "sage" | "join";
export type MoveKey =
  | "play" | "take" | "koikoi" | "stop" | "sage" | "shobu" | "join" | "drop" | "resign" | "other";
/** The presets `ListPresets` gives, by game and name: `koikoi:fudawiki`. */
export type PresetKey =
  | "koikoi:fudawiki" | "koikoi:wikipedia-fr" | "koikoi:hanafuda-legends" | "koikoi:coins"
  | "koikoi:koikoi-japan" | "koikoi:nintendo" | "hachihachi:fudawiki";
export type OpponentKey = "greedy" | "random" | "expert" | "friend";
export type LevelKey = "random" | "greedy" | "expert";

/** The words of the static page (`index.html`), by the `data-i18n` key of their element. */
export type PageKey =
  | "title" | "brand" | "language" | "lobbyTitle" | "gameLegend" | "koikoiChoice"
  | "hachiChoice" | "players" | "fourPlayers" | "rules" | "rounds" | "clockSeconds" | "yourName"
  | "opponents" | "start" | "watchTitle" | "watchGame" | "watch" | "gameTitle" | "spectating"
  | "hint" | "resign" | "field" | "yourHand" | "story" | "decisionTitle" | "decisionResign"
  | "resignTitle" | "resignText" | "resignYes" | "resignNo" | "guideOpen" | "guideClose"
  | "sheetOpen" | "sheetClose" | "summaryContinue" | "invitesOpen" | "pileClose";

export type CauseKey =
  | "teyaku" | "dekiyaku" | "sageRefund" | "sageOvertaken" | "cardCount" | "allEights"
  | "doubleEights" | "dropFee" | "dropFeesTaken";

/**
 * The referee's reasons for refusing a request (`hanafuda.v1.Reason`, proto/hanafuda/v1/errors.proto,
 * without `REASON_`), as the SDK's generated enum names them: a reason added to the proto and
 * regenerated fails `tsc` until every language says it.
 */
export type ReasonName = Exclude<keyof typeof Reason, "UNSPECIFIED">;

export interface Strings {
  /** The language's own name, for the switch. */
  readonly languageName: string;
  readonly page: Readonly<Record<PageKey, string>>;

  readonly cards: {
    readonly months: readonly string[];
    /** The flower as printed on the card (short). */
    readonly flowers: readonly string[];
    /** After "of" in a name ("du pin"); the same as `flowers` where the language needs no change. */
    readonly flowersOf: readonly string[];
    readonly subjects: Readonly<Record<Subject, string>>;
    readonly kinds: Readonly<Record<KindKey, string>>;
    /** Capture groups' headings. */
    readonly groups: Readonly<Record<KindKey, string>>;
    /** The full name, said by screen readers and shown on pointing: with the Japanese name. */
    name(card: CardWords): string;
    /** The name in sentences. */
    short(card: CardWords): string;
    readonly unknown: string;
  };

  readonly words: {
    /** A seat in a sentence, by its number from 1. */
    seat(number: number): string;
    you: string;
    nobody: string;
    /** The drop fees' holder. */
    theTable: string;
    /** "a, b and c". */
    list(items: readonly string[]): string;
    points(amount: string, count: number): string;
    /** A number as this language writes it (decimal comma in French). */
    number(value: number): string;
  };

  readonly yaku: Readonly<Record<YakuId, string>>;
  readonly multipliers: Readonly<Record<MultiplierId, string>>;
  readonly moves: {
    label(key: MoveKey, card: string): string;
  };
  readonly roundEnds: Readonly<Record<RoundEndKey, string>>;
  readonly gameEnds: Readonly<Record<GameEndKey, string>>;

  readonly story: {
    gameCreated(players: number): string;
    roundDealt(round: number, month: number, dealer: Who): string;
    played(actor: Who, card: string, taken: readonly string[]): string;
    drew(actor: Who, card: string, taken: readonly string[]): string;
    targetRequired(seat: Who, card: string): string;
    targetChosen(actor: Who, taken: readonly string[], card: string): string;
    yakuFormed(seat: Who, yaku: readonly string[], points: string): string;
    koikoiCalled(seat: Who, calls: number): string;
    stopped(seat: Who, automatic: boolean): string;
    roundEnded: string;
    gameOver: string;
    participation(seat: Who, joined: boolean, forced: boolean): string;
    teyakuDeclared(seat: Who, teyaku: string): string;
    aHand: string;
    dekiyakuFormed(seat: Who, dekiyaku: readonly string[]): string;
    sageCalled(seat: Who): string;
    shobuCalled(seat: Who): string;
    sageOvertaken(overtaker: Who, caller: Who): string;
    paid(from: Who, amount: string, to: Who): string;
    lightning(seat: Who, month: number): string;
    resigned(seat: Who, timedOut: boolean): string;
    timedOut(seat: Who, move: string | undefined): string;
    dealCheck: string;
    redealt: string;
    /** Koi-Koi's draw for the first dealer: each seat's card, and who deals (none: a tie). */
    firstDealer(draws: readonly { readonly seat: Who; readonly card: string }[], dealer: Who | undefined): string;
    /** The field was empty: the stock's top card is turned onto it. */
    fieldRefilled(card: string): string;
    /** Hachi-Hachi's card count at the end of the hands: each player's count and difference to 88. */
    cardsCounted(counts: readonly { readonly seat: Who; readonly count: number; readonly difference: string }[]): string;
    roundSummary(round: number, end: string, dealCheck: boolean, winner: Who | undefined, points: string | undefined): string;
    gameSummary(end: string, draw: boolean, winner: Who | undefined, resigned: Who | undefined): string;
    watching: string;
    seated(seat: number): string;
  };

  readonly table: {
    connecting: string;
    noGame: string;
    badToken: string;
    noGameTitle: string;
    /** `problem`: a sentence of `problems` (the same below). */
    lost(problem: string): string;
    backToLobby: string;
    stale: string;
    refused(problem: string): string;
    kinds: { readonly koikoi: string; readonly hachihachi: string };
    title(game: string, round: number, rounds: string, month: number): string;
    documentTitle(game: string, mine: boolean): string;
    over: string;
    waitingForGame: string;
    mine: Readonly<Record<WaitKey, string>>;
    yourTurn(what: string): string;
    decide: string;
    waitingFor(seat: Who, key: WaitKey | undefined): string;
    youMark: string;
    bot(level: LevelKey): string;
    dealer: string;
    thinking: string;
    toPlay: string;
    balance(points: string): string;
    score(points: number): string;
    inHand(count: number): string;
    koikoiCalls(calls: number): string;
    calledSage: string;
    droppedOut: string;
    yakuTotal(points: string): string;
    yakuLine(name: string, points: string): string;
    teyakuLine(name: string, value: number): string;
    dekiyakuLine(name: string, value: number): string;
    noCaptures: string;
    groupHeading(group: string, count: number): string;
    stock(count: number): string;
    /** Hachi-Hachi: the round's field multiplier, and the least one carried from the round before. */
    fieldMultiplier(factor: number, floor: number): string;
    dropFees(amount: string): string;
    /** Hachi-Hachi: a seat's captured card points (light 20, animal 10, ribbon 5, plain 1) against 88. */
    cardPoints(points: number, difference: string): string;
    drawn: string;
    handEmpty: string;
    chooseTitle: string;
    matchesMore(card: string): string;
    takeCard(card: string): string;
    cancel: string;
    multiplierFactor(name: string, factor: number): string;
    multiplierAdded(name: string, points: string): string;
    payment(from: string, to: string, amount: string, reason: string | undefined): string;
    gameOverTitle: string;
    player: string;
    balanceColumn: string;
    scoreColumn: string;
    review: string;
    newGame: string;
    inviteLink(name: string, seat: number): string;
    spectatorLink: string;
    invitationsTitle: string;
    spectatorTitle: string;
    invitationsText: string;
    spectatorText: string;
    noClock: string;
    time(seat: Who, clock: string): string;
    reserve(seat: Who, clock: string): string;
    decisionTitle: string;
    koikoiTitle: string;
    koikoiText(points: string): string;
    /** What going on risks in Koi-Koi: the opponent's cards in hand and yaku so far. */
    koikoiRisk(opponent: string, cards: number, points: string): string;
    /** What going on can still form: the nearest combinations within reach, as their lines. */
    goOnReach(lines: readonly string[]): string;
    /** Said at koi-koi or sage when the seat has no card left to play. */
    nothingLeft: string;
    sageTitle: string;
    /** What the seat's capture combinations were paid this round: by each payer (values × the
     * field multiplier) and in all. */
    sagePaid(each: string, multiplier: number, total: string): string;
    /** What shōbu does: the round ends and is won; `fees` the drop fees it takes (or none). */
    sageShobu(fees: string | undefined): string;
    /** What sage does: more combinations paid, else the card count (`points`, `difference` to 88). */
    sageGoOn(points: number, difference: string): string;
    /** What sage risks: the refund to each other player, and the least an overtaking maker is paid. */
    sageRisk(refund: string, least: string): string;
    /** Sage on the seat's last card: only the card count is left to it. */
    sageLastCard(points: number, difference: string): string;
    joinTitle: string;
    /** What dropping out costs: the fee (10 × the field multiplier), which the round's winner takes. */
    joinDrop(fee: string, multiplier: number): string;
    /** What joining means: the round's payments, all × the field multiplier. */
    joinPlay(multiplier: number): string;
    /** How many of the three players have joined so far. */
    joinCount(joined: number): string;
    /** The control on a seat's capture pile that shows it large: "Show Ann's captures large". */
    pileOpen(seat: Who): string;
    /** The title of the pile shown large: "Ann's captures". */
    pileTitle(seat: Who): string;
    /** How many cards the pile holds. */
    pileCount(count: number): string;
    /** Hachi-Hachi: the pile's card points against 88, as a sentence of its own. */
    pileCardPoints(points: number, difference: string): string;
    /** No yaku (Koi-Koi) or dekiyaku (Hachi-Hachi) formed by the pile yet. */
    pileNoYaku(hachi: boolean): string;
  };

  /** The combinations within reach of a seat, and the guide to every combination of the rules. */
  readonly guide: {
    withinReach: string;
    /** "ribbons (tan) 4/5 · 1 point". */
    reach(name: string, have: number, need: number, points: string): string;
    title(game: string): string;
    intro: string;
    yakuTitle: string;
    dekiyakuTitle: string;
    teyakuTitle: string;
    teyakuText: string;
    dekiyakuText: string;
    anyOf(count: number): string;
    allOf: string;
    requires(card: string): string;
    extra(need: number): string;
    afterKoikoi(points: string): string;
    roundMonth(month: string): string;
  };

  /** Round summaries, the score sheet, the end of the game. */
  readonly rounds: {
    summaryTitle(round: number): string;
    yakuTitle: string;
    base(points: string): string;
    score(points: string): string;
    fieldMultiplier(factor: number): string;
    paymentsTitle: string;
    causes: Readonly<Record<CauseKey, string>>;
    /** A payment's cause with the combination it is for: "hand combination: sanbon". */
    causeOf(cause: string, combination: string): string;
    countsTitle: string;
    count(name: string, count: number, difference: string): string;
    runningScores: string;
    runningBalances: string;
    sheetTitle: string;
    round: string;
    total: string;
    start: string;
    loading: string;
    noRounds: string;
    failed(problem: string): string;
    playAgain: string;
    playAgainFailed(problem: string): string;
  };

  readonly invites: {
    copy: string;
    /** The copy button's name for screen readers: it holds `copy`. */
    copyLabel(link: string): string;
    copied(link: string): string;
    selected: string;
    close: string;
  };

  readonly preview: {
    choose(card: string, targets: readonly string[]): string;
    takes(card: string, taken: readonly string[]): string;
    toField(card: string): string;
    watching: string;
    notYourTurn: string;
    notNow: string;
    decisionFirst: string;
  };

  readonly advice: {
    noMove: string;
    playTaking(card: string, target: string): string;
    play(card: string): string;
    take(card: string): string;
    /** A signed mean in points, to one decimal. */
    mean(points: number): string;
    estimate(move: string, mean: string, samples: number): string;
    hintTitle: string;
    reviewTitle: string;
    thinking: string;
    busy: string;
    movedOn: string;
    expertWould(move: string): string;
    estimatesIntro: string;
    reviewing: string;
    allSame(decisions: number): string;
    difference(round: number, played: string, expert: string, cost: string): string;
    otherwise(decisions: number, differences: number): string;
    notYourTurn: string;
    gameOver: string;
    failed(problem: string): string;
  };

  readonly lobby: {
    documentTitle: string;
    opponents: Readonly<Record<OpponentKey, string>>;
    seat(number: number): string;
    defaultRules: string;
    /** Each preset in a player's words: where it comes from and what sets it apart. */
    presets: Readonly<Record<PresetKey, string>>;
    failed(problem: string): string;
    defaultName: string;
    botName(level: LevelKey, seat: number): string;
    friendName(seat: number): string;
  };

  /**
   * What went wrong, in a player's words (`src/problems.ts` picks the sentence): never the
   * referee's own message, which is English and written for developers.
   */
  readonly problems: {
    /** Each refusal by its reason. */
    readonly reasons: Readonly<Record<ReasonName, string>>;
    /** Said after a refusal that names its limit (games, expert seats). */
    limit(limit: number): string;
    /** Said after a refusal that says when to try again. */
    retrySeconds(seconds: number): string;
    retryMinutes(minutes: number): string;
    /** Sentences one after another. */
    together(sentences: readonly string[]): string;
    /** The referee could not be reached (the network, or the referee down). */
    unreachable: string;
    /** A refusal for a reason this table does not know, or another failure. */
    other: string;
  };
}
