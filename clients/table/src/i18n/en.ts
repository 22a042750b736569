/** The table in English (the reference set: the others follow its keys). */

import type { Strings, Who } from "./strings.js";

function cap(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The subject of a sentence: "You", "Ann". */
function Subj(who: Who): string {
  return who.you ? "You" : cap(who.name);
}

/** Someone elsewhere in a sentence: "you", "Ann". */
function obj(who: Who): string {
  return who.you ? "you" : who.name;
}

function list(items: readonly string[]): string {
  if (items.length < 2) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function number(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

const OTHERS_WAIT = {
  handPlay: "to play a card",
  targetChoice: "to choose a card to take",
  koikoi: "to call koi-koi or stop",
  sage: "to call sage or shōbu",
  join: "to join or drop out",
} as const;

export const en: Strings = {
  languageName: "English",
  page: {
    title: "Hanafuda",
    brand: "Hanafuda table",
    language: "Language",
    lobbyTitle: "New game",
    gameLegend: "Game",
    koikoiChoice: "Koi-Koi (2 players)",
    hachiChoice: "Hachi-Hachi (3 to 6 players)",
    players: "Players",
    fourPlayers: "4 (a drop phase opens each round)",
    rules: "Rules",
    rounds: "Rounds (empty: as the rules say)",
    clockSeconds: "Seconds per move (0: no clock)",
    yourName: "Your name",
    opponents: "Opponents",
    start: "Start the game",
    watchTitle: "Watch a game",
    watchGame: "Game id",
    watch: "Watch",
    gameTitle: "Game",
    spectating: "You are watching.",
    hint: "Hint",
    resign: "Resign",
    field: "Field",
    yourHand: "Your hand",
    story: "What happened",
    decisionTitle: "Your decision",
    decisionResign: "Resign the game…",
    resignTitle: "Resign the game?",
    resignText: "The round is void and the game ends at once.",
    resignYes: "Resign",
    resignNo: "Keep playing",
    guideOpen: "Yaku guide",
    guideClose: "Close",
    sheetOpen: "Score sheet",
    sheetClose: "Close",
    pileClose: "Close",
    summaryContinue: "Continue",
    invitesOpen: "Invitation links",
  },

  cards: {
    months: [
      "January", "February", "March", "April", "May", "June",
      "July", "August", "September", "October", "November", "December",
    ],
    flowers: [
      "pine", "plum", "cherry", "wisteria", "iris", "peony",
      "bush clover", "susuki", "chrysanthemum", "maple", "willow", "paulownia",
    ],
    flowersOf: [
      "pine", "plum", "cherry", "wisteria", "iris", "peony",
      "bush clover", "susuki", "chrysanthemum", "maple", "willow", "paulownia",
    ],
    subjects: {
      crane: "crane",
      warbler: "warbler",
      curtain: "curtain",
      cuckoo: "cuckoo",
      bridge: "bridge",
      butterflies: "butterflies",
      boar: "boar",
      moon: "moon",
      geese: "geese",
      sakeCup: "sake cup",
      deer: "deer",
      rainMan: "rain man",
      swallow: "swallow",
      phoenix: "phoenix",
      poetryRibbon: "poetry ribbon",
      blueRibbon: "blue ribbon",
      redRibbon: "red ribbon",
      plain: "plain",
      lightning: "lightning",
      yellowPlain: "yellow plain",
    },
    kinds: { bright: "bright", animal: "animal", ribbon: "ribbon", plain: "plain" },
    groups: { bright: "Brights", animal: "Animals", ribbon: "Ribbons", plain: "Plains" },
    name: (card) =>
      `${card.flower} ${card.subject} (${card.kind}, ${card.month}; ${card.romaji}, ${card.kanji})`,
    short: (card) => `${card.flower} ${card.subject}`,
    unknown: "an unknown card",
  },

  words: {
    seat: (number) => `seat ${number}`,
    you: "you",
    nobody: "nobody",
    theTable: "the table",
    list,
    points: (amount, count) => `${amount} ${count === 1 ? "point" : "points"}`,
    number,
  },

  yaku: {
    goko: "five brights (gokō)",
    shiko: "four brights, no rain man (shikō)",
    "ame-shiko": "four brights with the rain man (ame-shikō)",
    sanko: "three brights, no rain man (sankō)",
    inoshikacho: "boar, deer and butterflies (inoshikachō)",
    tane: "five animals (tane)",
    "akatan-aotan": "poetry and blue ribbons (akatan-aotan)",
    akatan: "three poetry ribbons (akatan)",
    aotan: "three blue ribbons (aotan)",
    tan: "five ribbons (tan)",
    kasu: "ten plains (kasu)",
    "hanami-zake": "cherry curtain and sake cup (hanami-zake)",
    "tsukimi-zake": "moon and sake cup (tsukimi-zake)",
    tsukifuda: "the round month's four cards (tsukifuda)",
    triplet: "three of a month (sanbon)",
    "special-triplet": "three of April, May or July, or the December plains (tatesanbon)",
    red: "ribbons and plains only (aka)",
    "lone-ribbon": "one ribbon and six plains (tan-ichi)",
    "lone-animal": "one animal and six plains (toichi)",
    "lone-light": "one bright and six plains (pikaichi)",
    "three-pairs": "three pairs (kuttsuki)",
    "empty-nest": "seven plains (karasu)",
    "four-of-a-kind": "four of a month (teshi)",
    haneken: "three of a month and two pairs (haneken)",
    "one-two-four": "a single, a pair and four of a month (ichi-ni-shi)",
    "four-three": "four of a month and three of another (shisō)",
    "seven-ribbons": "seven ribbons (nanatan)",
    "four-lights": "four brights, no rain man (shikō)",
    "five-lights": "five brights (gokō)",
    "plains-16": "16 plains (su-jūroku)",
    "plains-17": "17 plains (su-jūshichi)",
    "plains-18": "18 plains (su-jūhachi)",
    "plains-19": "19 plains (su-jūku)",
    "all-eights": "everyone counts 88",
    "double-eights": "168 or more",
  },
  multipliers: {
    "seven-or-more": "7 points or more, doubled",
    "own-koikoi": "after the winner's own koi-koi, doubled",
    "own-koikoi-bonus": "bonus for the winner's own koi-koi calls",
    "opponent-koikoi": "won after the opponent's koi-koi",
    "all-calls-plus-one": "every koi-koi call, plus one",
    "counter-seven": "a stop against an opponent at 7 or more, doubled",
  },
  moves: {
    label: (key, card) =>
      ({
        play: `Play ${card}`,
        take: `Take ${card}`,
        koikoi: "Koi-koi (go on)",
        stop: "Stop (score now)",
        sage: "Sage (go on)",
        shobu: "Shōbu (end the round)",
        join: "Join the round",
        drop: "Drop out",
        resign: "Resign",
        other: "Move",
      })[key],
  },
  roundEnds: {
    dealCheck: "a deal check",
    stop: "a stop",
    exhaustion: "exhausted hands",
    dealerEmpty: "the dealer's empty hand",
    shobu: "shōbu",
    sageOvertaken: "a sage overtaken",
    cardCount: "the card count",
  },
  gameEnds: {
    roundsPlayed: "every round played",
    outOfPoints: "a player out of points",
    targetReached: "the target reached",
    resigned: "a resignation",
  },

  story: {
    gameCreated: (players) => `A game of ${players} players begins.`,
    roundDealt: (round, month, dealer) =>
      `Round ${round} is dealt${month ? ` (month ${month})` : ""}; ${obj(dealer)} deal${dealer.you ? "" : "s"}.`,
    played: (actor, card, taken) =>
      `${Subj(actor)} played ${card}${taken.length ? `, taking ${list(taken)}` : " to the field"}.`,
    drew: (actor, card, taken) =>
      `${Subj(actor)} drew ${card}${taken.length ? `, taking ${list(taken)}` : ", to the field"}.`,
    targetRequired: (seat, card) => `${Subj(seat)} must choose which card ${card} takes.`,
    targetChosen: (actor, taken, card) => `${Subj(actor)} took ${list(taken)} with ${card}.`,
    yakuFormed: (seat, yaku, points) => `${Subj(seat)} formed ${list(yaku)}: ${points}.`,
    koikoiCalled: (seat, calls) => `${Subj(seat)} called koi-koi (${calls}).`,
    stopped: (seat, automatic) => `${Subj(seat)} stopped${automatic ? " (automatically)" : ""}.`,
    roundEnded: "The round ended.",
    gameOver: "The game is over.",
    participation: (seat, joined, forced) =>
      `${Subj(seat)} ${joined ? "joined" : "dropped out"}${forced ? " (forced)" : ""}.`,
    teyakuDeclared: (seat, teyaku) => `${Subj(seat)} declared ${teyaku}.`,
    aHand: "a hand",
    dekiyakuFormed: (seat, dekiyaku) => `${Subj(seat)} formed ${list(dekiyaku)}.`,
    sageCalled: (seat) => `${Subj(seat)} called sage.`,
    shobuCalled: (seat) => `${Subj(seat)} called shōbu.`,
    sageOvertaken: (overtaker, caller) =>
      `${Subj(overtaker)} overtook ${caller.you ? "your" : `${caller.name}'s`} sage.`,
    paid: (from, amount, to) => `${Subj(from)} paid ${amount} to ${obj(to)}.`,
    lightning: (seat, month) => `${Subj(seat)} collected the lightning month ${month}.`,
    resigned: (seat, timedOut) => `${Subj(seat)} resigned${timedOut ? " (out of time)" : ""}.`,
    timedOut: (seat, move) =>
      `${Subj(seat)} ran out of time; the referee decided for ${seat.you ? "you" : "them"}${move ? `: ${move}` : ""}.`,
    dealCheck: "A deal check fired.",
    redealt: "The cards are dealt again.",
    firstDealer: (draws, dealer) =>
      `For the first deal, ${list(draws.map((draw) => `${obj(draw.seat)} drew ${draw.card}`))}: ${
        dealer ? `${obj(dealer)} deal${dealer.you ? "" : "s"} first.` : "the same month, so both draw again."
      }`,
    fieldRefilled: (card) => `The field was empty: ${card} is turned from the stock.`,
    cardsCounted: (counts) =>
      `The cards are counted: ${list(counts.map((c) => `${obj(c.seat)} ${c.count} (${c.difference})`))}.`,
    roundSummary: (round, end, dealCheck, winner, points) => {
      const who = winner ? `${obj(winner)} ${winner.you ? "win" : "wins"}` : "no winner";
      return `Round ${round} ended by ${end}${dealCheck ? " (deal check)" : ""}: ${who}${points ? ` with ${points}` : ""}.`;
    },
    gameSummary: (end, draw, winner, resigned) => {
      const outcome = draw
        ? "a draw"
        : winner
          ? `${obj(winner)} ${winner.you ? "win" : "wins"}`
          : "no winner";
      return `Game over by ${end}: ${outcome}.${resigned ? ` ${Subj(resigned)} resigned.` : ""}`;
    },
    watching: "You are watching the game.",
    seated: (seat) => `You sit at seat ${seat}. The game is on.`,
  },

  table: {
    connecting: "Connecting to the game…",
    noGame: "This link leads to no game: it is mistyped, or the game has ended and expired.",
    badToken: "This link's seat does not belong to this game: the link is mistyped or cut short.",
    noGameTitle: "No game at this link",
    lost: (problem) => `The connection to the game is lost. ${problem}`,
    backToLobby: "Back to the lobby",
    stale: "The game moved on before your move arrived; here it is now.",
    refused: (problem) => `That move was refused. ${problem}`,
    kinds: { koikoi: "Koi-Koi", hachihachi: "Hachi-Hachi" },
    title: (game, round, rounds, month) =>
      `${game}, round ${round} of ${rounds}${month ? ` (month ${month})` : ""}`,
    documentTitle: (game, mine) => `Hanafuda: ${game}${mine ? " (your turn)" : ""}`,
    over: "The game is over.",
    waitingForGame: "Waiting for the game.",
    mine: {
      handPlay: "play a card from your hand",
      targetChoice: "choose which card to take",
      koikoi: "call koi-koi or stop",
      sage: "call sage or shōbu",
      join: "join the round or drop out",
    },
    yourTurn: (what) => `Your turn: ${what}.`,
    decide: "decide",
    waitingFor: (seat, key) => `Waiting for ${obj(seat)} ${key ? OTHERS_WAIT[key] : "to move"}.`,
    youMark: " (you)",
    bot: (level) => `${level} bot`,
    dealer: "dealer",
    thinking: "thinking",
    toPlay: "to play",
    balance: (points) => `Balance ${points}`,
    score: (points) => `Score ${points}`,
    inHand: (count) => `${plural(count, "card", "cards")} in hand`,
    koikoiCalls: (calls) => `koi-koi ×${calls}`,
    calledSage: "called sage",
    droppedOut: "dropped out",
    yakuTotal: (points) => `Yaku: ${points}`,
    yakuLine: (name, points) => `${name}: ${points}`,
    teyakuLine: (name, value) => `hand: ${name}, ${plural(value, "point", "points")}`,
    dekiyakuLine: (name, value) => `${name}: ${plural(value, "point", "points")}`,
    noCaptures: "No captures yet.",
    groupHeading: (group, count) => `${group} (${count})`,
    stock: (count) => `Stock: ${plural(count, "card", "cards")}`,
    fieldMultiplier: (factor, floor) =>
      `Field multiplier ×${factor}${floor > 1 ? ` (at least ×${floor}, carried from the round before)` : ""}: every payment is multiplied by it`,
    dropFees: (amount) => `Drop fees on the table: ${amount}`,
    cardPoints: (points, difference) => `card points ${points} (${difference} against 88)`,
    drawn: "Drawn: ",
    handEmpty: "Your hand is empty.",
    chooseTitle: "Choose a card to take",
    matchesMore: (card) => `${cap(card)} matches more than one card of the field.`,
    takeCard: (card) => `Take ${card}`,
    cancel: "Cancel",
    multiplierFactor: (name, factor) => `${name}: ×${factor}`,
    multiplierAdded: (name, points) => `${name}: +${points}`,
    payment: (from, to, amount, reason) => `${from} → ${to}: ${amount}${reason ? ` (${reason})` : ""}`,
    gameOverTitle: "Game over",
    player: "Player",
    balanceColumn: "Balance",
    scoreColumn: "Score",
    review: "Review my game with the expert",
    newGame: "Start a new game",
    inviteLink: (name, seat) => `Link for ${name} (seat ${seat})`,
    spectatorLink: "Link for spectators",
    invitationsTitle: "Invitation links",
    spectatorTitle: "Spectator link",
    invitationsText: "Send each friend their own link: it holds their seat.",
    spectatorText: "Anyone with this link can watch.",
    noClock: "No clock",
    time: (seat, clock) => `${seat.you ? "Your" : `${seat.name}'s`} time: ${clock}`,
    reserve: (seat, clock) => `${seat.you ? "Your" : `${seat.name}'s`} reserve: ${clock}`,
    decisionTitle: "Your decision",
    koikoiTitle: "Koi-koi or stop?",
    koikoiText: (points) =>
      `Your yaku are worth ${points}. Stop to score them now, or call koi-koi to play on for more.`,
    koikoiRisk: (opponent, cards, points) =>
      `Going on risks it: ${opponent} still holds ${cards} card${cards === 1 ? "" : "s"}, with yaku worth ${points} so far, and scores first if they form one.`,
    nothingLeft: "You have no card left to play: going on can gain nothing more.",
    goOnReach: (lines) => `Within reach if you go on: ${lines.join("; ")}.`,
    sageTitle: "Sage or shōbu?",
    sagePaid: (each, multiplier, total) =>
      `Your capture combinations have been paid ${each} by each other player (their values × ${multiplier}, the field multiplier): ${total} in all this round.`,
    sageShobu: (fees) =>
      `Shōbu ends the round now: you keep that and win the round${fees ? `, with the drop fees (${fees})` : ""}; there is no card count.`,
    sageGoOn: (points, difference) =>
      `Sage plays on: each new combination you form is paid the same way, and if the hands run out the card count settles (you have ${points} card points now, ${difference} against 88).`,
    sageRisk: (refund, least) =>
      `The risk: if another player forms a combination before your next one, you hand back ${refund} to each of the two others and pay its maker twice its value (at least ${least}), and the round ends.`,
    sageLastCard: (points, difference) =>
      `You have no card left to play: sage can form nothing more and only leads to the card count, where you have ${points} card points (${difference} against 88).`,
    joinTitle: "Join or drop out?",
    joinDrop: (fee, multiplier) =>
      `Drop out: you pay a fee of ${fee} (10 × ${multiplier}, the field multiplier), which the round's winner takes, and sit the round out with no other payment.`,
    joinPlay: (multiplier) =>
      `Join: you play the round, and each of its payments (hand and capture combinations, the card count against 88) is multiplied by ${multiplier}.`,
    joinCount: (joined) =>
      `${joined} of the 3 players ${joined === 1 ? "has" : "have"} joined so far; once 3 have, the others drop out without a fee.`,
    pileOpen: (seat) => `Show ${seat.you ? "your" : `${seat.name}'s`} captures large`,
    pileTitle: (seat) => `${seat.you ? "Your" : `${cap(seat.name)}'s`} captures`,
    pileCount: (count) => `${plural(count, "card", "cards")} captured.`,
    pileCardPoints: (points, difference) => `Card points: ${points} (${difference} against 88).`,
    pileNoYaku: (hachi) => (hachi ? "No dekiyaku formed yet." : "No yaku formed yet."),
  },

  guide: {
    withinReach: "Within reach:",
    reach: (name, have, need, points) => `${name} ${have}/${need} · ${points}`,
    title: (game) => `Yaku guide: ${game}`,
    intro: "Every combination these rules count: the cards that make it, and what it is worth.",
    yakuTitle: "Yaku (captured cards)",
    dekiyakuTitle: "Dekiyaku (captured cards)",
    teyakuTitle: "Teyaku (the hand dealt)",
    teyakuText:
      "The referee declares them at the deal from each hand's seven cards (willow cards count as plains); each other player pays the value times the field multiplier.",
    dekiyakuText:
      "Each other player pays the value times the field multiplier; then the player calls sage (play on) or shōbu (end the round).",
    anyOf: (count) => `any ${count} of these:`,
    allOf: "all of these:",
    requires: (card) => `with ${card} among them`,
    extra: (need) => `+1 point for each card beyond ${need}`,
    afterKoikoi: (points) => `${points} once the scorer has called koi-koi`,
    roundMonth: (month) => `this round: ${month}`,
  },

  rounds: {
    summaryTitle: (round) => `Round ${round} is over`,
    yakuTitle: "Yaku scored:",
    base: (points) => `Base: ${points}`,
    score: (points) => `Round score: ${points}`,
    fieldMultiplier: (factor) => `Field multiplier: ×${factor}`,
    paymentsTitle: "Payments (field multiplier included):",
    causes: {
      teyaku: "hand combination",
      dekiyaku: "capture combination",
      sageRefund: "refund of an overtaken sage",
      sageOvertaken: "sage overtaken",
      cardCount: "card count",
      allEights: "everyone counts 88",
      doubleEights: "168 or more",
      dropFee: "drop fee",
      dropFeesTaken: "drop fees taken",
    },
    causeOf: (cause, combination) => `${cause}: ${combination}`,
    countsTitle: "Card count (light 20, animal 10, ribbon 5, plain 1; 88 to break even):",
    count: (name, count, difference) => `${name}: ${count} (${difference})`,
    runningScores: "Scores after this round:",
    runningBalances: "Balances after this round:",
    sheetTitle: "Score sheet",
    round: "Round",
    total: "Total",
    start: "Start",
    loading: "Reading the rounds…",
    noRounds: "No round has ended yet.",
    failed: (problem) => `The rounds could not be read. ${problem}`,
    playAgain: "Play again with the same settings",
    playAgainFailed: (problem) => `Could not start a new game. ${problem}`,
  },

  invites: {
    copy: "Copy",
    copyLabel: (link) => `Copy: ${link}`,
    copied: (link) => `Copied: ${link}.`,
    selected: "The link is selected: copy it with your device's copy command.",
    close: "Done",
  },

  preview: {
    choose: (card, targets) => `${cap(card)} takes one of ${list(targets)}: you choose which.`,
    takes: (card, taken) => `${cap(card)} takes ${list(taken)}.`,
    toField: (card) => `${cap(card)} takes nothing: it joins the field.`,
    watching: "You are watching: spectators do not play.",
    notYourTurn: "It is not your turn yet: the table tells whose it is.",
    notNow: "This card cannot be played now.",
    decisionFirst: "Your hand waits: answer the decision first.",
  },

  advice: {
    noMove: "no move",
    playTaking: (card, target) => `play ${card}, taking ${target}`,
    play: (card) => `play ${card}`,
    take: (card) => `take ${card}`,
    mean: (points) => {
      const rounded = Math.round(points * 10) / 10;
      return `${rounded > 0 ? "+" : rounded < 0 ? "−" : "±"}${Math.abs(rounded).toFixed(1)}`;
    },
    estimate: (move, mean, samples) =>
      `${move}: ${mean} points on average${samples ? ` over ${samples} sampled deals` : ""}`,
    hintTitle: "Hint",
    reviewTitle: "Review",
    thinking: "The expert is thinking…",
    busy: "The expert is busy: ask again in a moment.",
    movedOn: "The game moved on: ask again for your new decision.",
    expertWould: (move) => `The expert would ${move}.`,
    estimatesIntro: "Its estimates of the leading moves, in points for you this round:",
    reviewing: "The expert is going over your game…",
    allSame: (decisions) =>
      `Of your ${plural(decisions, "decision", "decisions")}, the expert would have made every one as you did.`,
    difference: (round, played, expert, cost) =>
      `Round ${round}: you chose to ${played}; the expert would ${expert} (about ${cost} points better on average).`,
    otherwise: (decisions, differences) =>
      `Of your ${plural(decisions, "decision", "decisions")}, the expert would have chosen otherwise ${plural(differences, "time", "times")}:`,
    notYourTurn: "A hint is for your own decision: wait for your turn.",
    gameOver: "The game is over: ask for a review instead.",
    failed: (problem) => `The expert could not answer. ${problem}`,
  },

  lobby: {
    documentTitle: "Hanafuda: new game",
    opponents: {
      greedy: "Greedy bot",
      random: "Random bot",
      expert: "Expert bot",
      friend: "A friend (invitation link)",
    },
    seat: (number) => `Seat ${number}`,
    defaultRules: "the referee's default",
    presets: {
      "koikoi:fudawiki":
        "Fuda-wiki (default): 12 rounds, points added up; 7 or more doubled, and doubled after the opponent's koi-koi; the round month's four cards score",
      "koikoi:wikipedia-fr":
        "French Wikipedia: 12 rounds; your own koi-koi doubles too, and a stop against an opponent at 7 or more doubles; the round ends with the dealer's last card",
      "koikoi:hanafuda-legends":
        "Hanafuda Legends (the game): 12 rounds; every yaku formed counts; 7 or more doubled",
      "koikoi:coins":
        "For coins: 30 points each, the winner takes from the loser, out at 0; every koi-koi call multiplies",
      "koikoi:koikoi-japan":
        "Koi-Koi Japan (the PC game): 8 rounds, 30 points each; your koi-koi calls add points; all ribbon yaku add up",
      "koikoi:nintendo":
        "Nintendo's Koi-Koi: 12 rounds, points added up; 7 or more doubled, and doubled after the opponent's koi-koi",
      "hachihachi:fudawiki":
        "Fuda-wiki: 12 rounds; hand combinations at the deal, capture combinations with sage or shōbu, the card count against 88",
    },
    failed: (problem) => `Could not create the game. ${problem}`,
    defaultName: "Player 1",
    botName: (level, seat) => `${cap(level)} bot ${seat}`,
    friendName: (seat) => `Friend ${seat}`,
  },
  problems: {
    reasons: {
      NOT_YOUR_TURN: "It is not your turn.",
      UNKNOWN_SEAT: "That seat is not one of this game's.",
      CARD_NOT_IN_HAND: "That card is not in your hand.",
      TARGET_REQUIRED: "The card matches two field cards: choose the one to take.",
      TARGET_DOES_NOT_MATCH: "That field card does not match the card played.",
      WRONG_MOVE: "The game is waiting for another kind of move.",
      NO_DECISION_PENDING: "There is no decision to make now.",
      MOVE_NOT_IN_GAME: "This game has no such move.",
      KOIKOI_NOT_ALLOWED: "Koi-koi cannot be called now.",
      GAME_OVER: "The game is over.",
      UNKNOWN_PRESET: "The referee does not know these rules.",
      UNKNOWN_OPTION: "The referee does not know one of the rule options.",
      BAD_OPTION_VALUE: "One of the settings is out of the allowed range.",
      BAD_DEAL: "The prepared deal is not a valid deal.",
      BAD_CARDS: "The cards sent are not valid.",
      BAD_ENCODING: "The referee could not read the page's request: reload the page.",
      STALE_VERSION: "The game moved on meanwhile: look at the table again.",
      UNKNOWN_GAME: "There is no such game: the link is mistyped, or the game has ended and expired.",
      BAD_TOKEN: "This link's seat does not belong to this game.",
      MISSING_TOKEN: "This needs a player's link: a spectator cannot do it.",
      PERMISSION_DENIED: "Your seat may not act for another seat.",
      TESTING_FEATURE_DISABLED: "This referee does not take testing options.",
      REQUEST_TOO_LARGE: "The request is too large: use shorter names or fewer items.",
      INVALID_ARGUMENT: "Something in the request is missing or out of range.",
      UNAVAILABLE: "The referee cannot answer right now: try again in a moment.",
      API_KEY_REQUIRED: "This referee asks for an API key, which this page does not have.",
      MALFORMED_MOVE: "The move is not well formed.",
      REQUEST_ID_REUSED: "The page sent another request under the same id: reload the page.",
      UNSUPPORTED_MEDIA_TYPE: "The referee could not read the page's request: reload the page.",
      RATE_LIMITED: "Too many requests in a short time: wait a little.",
      TIMED_OUT: "Your time ran out: the clock decided for you.",
      TOO_MANY_GAMES: "You have as many unfinished games as the referee allows: finish or resign one first.",
      TOO_MANY_BOT_GAMES: "You have as many unfinished games with bots as the referee allows: finish or resign one, or play without bots.",
      TOO_MANY_EXPERT_SEATS: "Too many expert bots for one game: choose fewer (a greedy bot costs next to nothing).",
      STORE_FULL: "The referee is full and starts no new game for now (games in progress play on).",
      GAME_NOT_OVER: "The game is not over yet: it can be reviewed once it ends.",
    },
    limit: (limit) => `The limit is ${limit}.`,
    retrySeconds: (seconds) => `Try again in ${plural(seconds, "second", "seconds")}.`,
    retryMinutes: (minutes) => `Try again in ${plural(minutes, "minute", "minutes")}.`,
    together: (sentences) => sentences.join(" "),
    unreachable: "The referee cannot be reached: check your connection and try again.",
    other: "Something went wrong: try again, or reload the page.",
  },
};
