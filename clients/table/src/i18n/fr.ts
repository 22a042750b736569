/** La table en français. */

import type { Strings, Who } from "./strings.js";

function cap(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** Le sujet d'une phrase : « Vous », « Ann ». */
function Subj(who: Who): string {
  return who.you ? "Vous" : cap(who.name);
}

function obj(who: Who): string {
  return who.you ? "vous" : who.name;
}

/** Le verbe accordé au sujet : `verb(who, "avez", "a")`. */
function verb(who: Who, withYou: string, withName: string): string {
  return `${Subj(who)} ${who.you ? withYou : withName}`;
}

function list(items: readonly string[]): string {
  if (items.length < 2) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} et ${items.at(-1)}`;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count <= 1 ? one : many}`;
}

function number(value: number): string {
  return (Number.isInteger(value) ? String(value) : value.toFixed(1)).replace(".", ",").replace("-", "−");
}

const OTHERS_WAIT = {
  handPlay: "joue une carte",
  targetChoice: "choisisse la carte à prendre",
  koikoi: "dise koi-koi ou s'arrête",
  sage: "dise sage ou shōbu",
  join: "joue la manche ou se retire",
} as const;

export const fr: Strings = {
  languageName: "Français",
  page: {
    title: "Hanafuda",
    brand: "Table de hanafuda",
    language: "Langue",
    lobbyTitle: "Nouvelle partie",
    gameLegend: "Jeu",
    koikoiChoice: "Koi-Koi (2 joueurs)",
    hachiChoice: "Hachi-Hachi (3 à 6 joueurs)",
    players: "Joueurs",
    fourPlayers: "4 (chaque manche s'ouvre par le choix de jouer ou de se retirer)",
    rules: "Règles",
    rounds: "Manches (vide : selon les règles)",
    clockSeconds: "Secondes par coup (0 : sans pendule)",
    yourName: "Votre nom",
    opponents: "Adversaires",
    start: "Commencer la partie",
    watchTitle: "Regarder une partie",
    watchGame: "Identifiant de la partie",
    watch: "Regarder",
    gameTitle: "Partie",
    spectating: "Vous regardez la partie.",
    hint: "Conseil",
    resign: "Abandonner",
    field: "Tapis",
    yourHand: "Votre main",
    story: "Ce qui s'est passé",
    decisionTitle: "Votre décision",
    decisionResign: "Abandonner la partie…",
    resignTitle: "Abandonner la partie ?",
    resignText: "La manche est annulée et la partie s'arrête aussitôt.",
    resignYes: "Abandonner",
    resignNo: "Continuer à jouer",
    guideOpen: "Guide des yaku",
    guideClose: "Fermer",
    sheetOpen: "Feuille de marque",
    sheetClose: "Fermer",
    pileClose: "Fermer",
    summaryContinue: "Continuer",
    invitesOpen: "Liens d'invitation",
  },

  cards: {
    months: [
      "janvier", "février", "mars", "avril", "mai", "juin",
      "juillet", "août", "septembre", "octobre", "novembre", "décembre",
    ],
    flowers: [
      "pin", "prunier", "cerisier", "glycine", "iris", "pivoine",
      "trèfle", "eulalie", "chrysanthème", "érable", "saule", "paulownia",
    ],
    flowersOf: [
      "du pin", "du prunier", "du cerisier", "de la glycine", "de l'iris", "de la pivoine",
      "du trèfle", "de l'eulalie", "du chrysanthème", "de l'érable", "du saule", "du paulownia",
    ],
    subjects: {
      crane: "grue",
      warbler: "fauvette",
      curtain: "rideau",
      cuckoo: "coucou",
      bridge: "pont",
      butterflies: "papillons",
      boar: "sanglier",
      moon: "lune",
      geese: "oies",
      sakeCup: "coupe de saké",
      deer: "cerf",
      rainMan: "homme à la pluie",
      swallow: "hirondelle",
      phoenix: "phénix",
      poetryRibbon: "ruban poétique",
      blueRibbon: "ruban bleu",
      redRibbon: "ruban rouge",
      plain: "carte simple",
      lightning: "foudre",
      yellowPlain: "carte simple jaune",
    },
    kinds: { bright: "lumière", animal: "animal", ribbon: "ruban", plain: "simple" },
    groups: { bright: "Lumières", animal: "Animaux", ribbon: "Rubans", plain: "Simples" },
    name: (card) =>
      `${card.subject} ${card.flowerOf} (${card.kind}, ${card.month} ; ${card.romaji}, ${card.kanji})`,
    short: (card) => `${card.subject} ${card.flowerOf}`,
    unknown: "une carte inconnue",
  },

  words: {
    seat: (number) => `la place ${number}`,
    you: "vous",
    nobody: "personne",
    theTable: "la table",
    list,
    points: (amount, count) => `${amount} ${count <= 1 && count >= -1 ? "point" : "points"}`,
    number,
  },

  yaku: {
    goko: "cinq lumières (gokō)",
    shiko: "quatre lumières sans l'homme à la pluie (shikō)",
    "ame-shiko": "quatre lumières avec l'homme à la pluie (ame-shikō)",
    sanko: "trois lumières sans l'homme à la pluie (sankō)",
    inoshikacho: "sanglier, cerf et papillons (inoshikachō)",
    tane: "cinq animaux (tane)",
    "akatan-aotan": "rubans poétiques et rubans bleus (akatan-aotan)",
    akatan: "trois rubans poétiques (akatan)",
    aotan: "trois rubans bleus (aotan)",
    tan: "cinq rubans (tan)",
    kasu: "dix cartes simples (kasu)",
    "hanami-zake": "rideau et coupe de saké (hanami-zake)",
    "tsukimi-zake": "lune et coupe de saké (tsukimi-zake)",
    tsukifuda: "les quatre cartes du mois de la manche (tsukifuda)",
    triplet: "trois cartes d'un mois (sanbon)",
    "special-triplet": "trois cartes d'avril, mai ou juillet, ou les simples de décembre (tatesanbon)",
    red: "rubans et simples seulement (aka)",
    "lone-ribbon": "un ruban et six simples (tan-ichi)",
    "lone-animal": "un animal et six simples (toichi)",
    "lone-light": "une lumière et six simples (pikaichi)",
    "three-pairs": "trois paires (kuttsuki)",
    "empty-nest": "sept simples (karasu)",
    "four-of-a-kind": "quatre cartes d'un mois (teshi)",
    haneken: "trois cartes d'un mois et deux paires (haneken)",
    "one-two-four": "une seule, une paire et quatre d'un mois (ichi-ni-shi)",
    "four-three": "quatre d'un mois et trois d'un autre (shisō)",
    "seven-ribbons": "sept rubans (nanatan)",
    "four-lights": "quatre lumières sans l'homme à la pluie (shikō)",
    "five-lights": "cinq lumières (gokō)",
    "plains-16": "16 simples (su-jūroku)",
    "plains-17": "17 simples (su-jūshichi)",
    "plains-18": "18 simples (su-jūhachi)",
    "plains-19": "19 simples (su-jūku)",
    "all-eights": "tout le monde à 88",
    "double-eights": "168 ou plus",
  },
  multipliers: {
    "seven-or-more": "7 points ou plus : doublé",
    "own-koikoi": "après un koi-koi du gagnant : doublé",
    "own-koikoi-bonus": "bonus des koi-koi du gagnant",
    "opponent-koikoi": "gagné après un koi-koi de l'adversaire",
    "all-calls-plus-one": "chaque koi-koi, plus un",
    "counter-seven": "arrêt contre un adversaire à 7 ou plus : doublé",
  },
  moves: {
    label: (key, card) =>
      ({
        play: `Jouer ${card}`,
        take: `Prendre ${card}`,
        koikoi: "Koi-koi (continuer)",
        stop: "Stop (marquer maintenant)",
        sage: "Sage (continuer)",
        shobu: "Shōbu (finir la manche)",
        join: "Jouer la manche",
        drop: "Se retirer",
        resign: "Abandonner",
        other: "Coup",
      })[key],
  },
  roundEnds: {
    dealCheck: "une vérification de la donne",
    stop: "un arrêt",
    exhaustion: "des mains épuisées",
    dealerEmpty: "la main vide du donneur",
    shobu: "shōbu",
    sageOvertaken: "un sage dépassé",
    cardCount: "le compte des cartes",
  },
  gameEnds: {
    roundsPlayed: "toutes les manches jouées",
    outOfPoints: "un joueur à court de points",
    targetReached: "l'objectif atteint",
    resigned: "un abandon",
  },

  story: {
    gameCreated: (players) => `Une partie à ${players} joueurs commence.`,
    roundDealt: (round, month, dealer) =>
      `La manche ${round} est distribuée${month ? ` (mois ${month})` : ""} ; ${dealer.you ? "vous donnez" : `${dealer.name} donne`}.`,
    played: (actor, card, taken) =>
      `${verb(actor, "avez", "a")} joué ${card}${taken.length ? `, en prenant ${list(taken)}` : " sur le tapis"}.`,
    drew: (actor, card, taken) =>
      `${verb(actor, "avez", "a")} tiré ${card}${taken.length ? `, en prenant ${list(taken)}` : ", posé sur le tapis"}.`,
    targetRequired: (seat, card) =>
      `${verb(seat, "devez", "doit")} choisir la carte que prend ${card}.`,
    targetChosen: (actor, taken, card) =>
      `${verb(actor, "avez", "a")} pris ${list(taken)} avec ${card}.`,
    yakuFormed: (seat, yaku, points) => `${verb(seat, "avez", "a")} formé ${list(yaku)} : ${points}.`,
    koikoiCalled: (seat, calls) => `${verb(seat, "avez", "a")} dit koi-koi (${calls}).`,
    stopped: (seat, automatic) =>
      `${verb(seat, "vous êtes", "s'est")} arrêté${automatic ? " (automatiquement)" : ""}.`,
    roundEnded: "La manche est finie.",
    gameOver: "La partie est finie.",
    participation: (seat, joined, forced) =>
      `${joined ? verb(seat, "jouez", "joue") + " la manche" : verb(seat, "vous retirez", "se retire") + " de la manche"}${forced ? " (obligé)" : ""}.`,
    teyakuDeclared: (seat, teyaku) => `${verb(seat, "avez", "a")} annoncé ${teyaku}.`,
    aHand: "une main",
    dekiyakuFormed: (seat, dekiyaku) => `${verb(seat, "avez", "a")} formé ${list(dekiyaku)}.`,
    sageCalled: (seat) => `${verb(seat, "avez", "a")} dit sage.`,
    shobuCalled: (seat) => `${verb(seat, "avez", "a")} dit shōbu.`,
    sageOvertaken: (overtaker, caller) =>
      `${verb(overtaker, "avez", "a")} dépassé le sage ${caller.you ? "que vous aviez dit" : `de ${caller.name}`}.`,
    paid: (from, amount, to) => `${verb(from, "avez", "a")} payé ${amount} à ${obj(to)}.`,
    lightning: (seat, month) =>
      `${verb(seat, "ramassez", "ramasse")} le mois ${month} grâce à la foudre.`,
    resigned: (seat, timedOut) =>
      `${verb(seat, "avez", "a")} abandonné${timedOut ? " (temps écoulé)" : ""}.`,
    timedOut: (seat, move) =>
      `${seat.you ? "Votre temps" : `Le temps de ${seat.name}`} est écoulé ; l'arbitre a décidé pour ${seat.you ? "vous" : "lui"}${move ? ` : ${move}` : ""}.`,
    dealCheck: "Une vérification de la donne s'est déclenchée.",
    redealt: "Les cartes sont redistribuées.",
    firstDealer: (draws, dealer) =>
      `Pour la première donne, ${list(draws.map((draw) => `${draw.seat.you ? "vous avez tiré" : `${draw.seat.name} a tiré`} ${draw.card}`))} : ${
        dealer ? `${dealer.you ? "vous donnez" : `${dealer.name} donne`} en premier.` : "le même mois, donc chacun tire à nouveau."
      }`,
    fieldRefilled: (card) => `Le tapis était vide : on y retourne ${card}, prise de la pioche.`,
    cardsCounted: (counts) =>
      `Décompte des cartes : ${list(counts.map((c) => `${obj(c.seat)} ${c.count} (${c.difference})`))}.`,
    roundSummary: (round, end, dealCheck, winner, points) => {
      const who = winner ? (winner.you ? "vous gagnez" : `${winner.name} gagne`) : "pas de gagnant";
      return `Manche ${round} finie par ${end}${dealCheck ? " (vérification de la donne)" : ""} : ${who}${points ? ` avec ${points}` : ""}.`;
    },
    gameSummary: (end, draw, winner, resigned) => {
      const outcome = draw
        ? "match nul"
        : winner
          ? winner.you
            ? "vous gagnez"
            : `${winner.name} gagne`
          : "pas de gagnant";
      return `Partie finie par ${end} : ${outcome}.${resigned ? ` ${verb(resigned, "avez", "a")} abandonné.` : ""}`;
    },
    watching: "Vous regardez la partie.",
    seated: (seat) => `Vous êtes à la place ${seat}. La partie est en cours.`,
  },

  table: {
    connecting: "Connexion à la partie…",
    noGame: "Ce lien ne mène à aucune partie : il est mal recopié, ou la partie est finie et effacée.",
    badToken: "La place de ce lien n'appartient pas à cette partie : le lien est mal recopié ou coupé.",
    noGameTitle: "Aucune partie à ce lien",
    lost: (problem) => `La connexion à la partie est perdue. ${problem}`,
    backToLobby: "Retour à l'accueil",
    stale: "La partie a avancé avant l'arrivée de votre coup ; la voici maintenant.",
    refused: (problem) => `Ce coup a été refusé. ${problem}`,
    kinds: { koikoi: "Koi-Koi", hachihachi: "Hachi-Hachi" },
    title: (game, round, rounds, month) =>
      `${game}, manche ${round} sur ${rounds}${month ? ` (mois ${month})` : ""}`,
    documentTitle: (game, mine) => `Hanafuda : ${game}${mine ? " (à vous)" : ""}`,
    over: "La partie est finie.",
    waitingForGame: "En attente de la partie.",
    mine: {
      handPlay: "jouez une carte de votre main",
      targetChoice: "choisissez la carte à prendre",
      koikoi: "dites koi-koi ou arrêtez",
      sage: "dites sage ou shōbu",
      join: "jouez la manche ou retirez-vous",
    },
    yourTurn: (what) => `À vous : ${what}.`,
    decide: "décidez",
    waitingFor: (seat, key) =>
      seat.you ? "On attend votre coup." : `On attend que ${seat.name} ${key ? OTHERS_WAIT[key] : "joue"}.`,
    youMark: " (vous)",
    bot: (level) =>
      ({ random: "robot au hasard", greedy: "robot glouton", expert: "robot expert" })[level],
    dealer: "donneur",
    thinking: "réfléchit",
    toPlay: "doit jouer",
    balance: (points) => `Solde ${points}`,
    score: (points) => `Score ${points}`,
    inHand: (count) => `${plural(count, "carte", "cartes")} en main`,
    koikoiCalls: (calls) => `koi-koi ×${calls}`,
    calledSage: "a dit sage",
    droppedOut: "retiré",
    yakuTotal: (points) => `Yaku : ${points}`,
    yakuLine: (name, points) => `${name} : ${points}`,
    teyakuLine: (name, value) => `main : ${name}, ${plural(value, "point", "points")}`,
    dekiyakuLine: (name, value) => `${name} : ${plural(value, "point", "points")}`,
    noCaptures: "Aucune carte prise.",
    groupHeading: (group, count) => `${group} (${count})`,
    stock: (count) => `Pioche : ${plural(count, "carte", "cartes")}`,
    fieldMultiplier: (factor, floor) =>
      `Multiplicateur du tapis ×${factor}${floor > 1 ? ` (au moins ×${floor}, reporté de la manche précédente)` : ""} : chaque paiement est multiplié par lui`,
    dropFees: (amount) => `Droits de retrait sur la table : ${amount}`,
    cardPoints: (points, difference) => `points des cartes ${points} (${difference} face à 88)`,
    drawn: "Tirée : ",
    handEmpty: "Votre main est vide.",
    chooseTitle: "Choisissez la carte à prendre",
    matchesMore: (card) => `${cap(card)} va avec plusieurs cartes du tapis.`,
    takeCard: (card) => `Prendre ${card}`,
    cancel: "Annuler",
    multiplierFactor: (name, factor) => `${name} : ×${factor}`,
    multiplierAdded: (name, points) => `${name} : +${points}`,
    payment: (from, to, amount, reason) => `${cap(from)} → ${to} : ${amount}${reason ? ` (${reason})` : ""}`,
    gameOverTitle: "Partie finie",
    player: "Joueur",
    balanceColumn: "Solde",
    scoreColumn: "Score",
    review: "Revoir ma partie avec l'expert",
    newGame: "Nouvelle partie",
    inviteLink: (name, seat) => `Lien pour ${name} (place ${seat})`,
    spectatorLink: "Lien pour les spectateurs",
    invitationsTitle: "Liens d'invitation",
    spectatorTitle: "Lien des spectateurs",
    invitationsText: "Envoyez à chaque ami son propre lien : il contient sa place.",
    spectatorText: "Tout le monde peut regarder avec ce lien.",
    noClock: "Sans pendule",
    time: (seat, clock) => `${seat.you ? "Votre temps" : `Temps de ${seat.name}`} : ${clock}`,
    reserve: (seat, clock) => `${seat.you ? "Votre réserve" : `Réserve de ${seat.name}`} : ${clock}`,
    decisionTitle: "Votre décision",
    koikoiTitle: "Koi-koi ou stop ?",
    koikoiText: (points) =>
      `Vos yaku valent ${points}. Arrêtez pour les marquer maintenant, ou dites koi-koi pour continuer et gagner plus.`,
    koikoiRisk: (opponent, cards, points) =>
      `Continuer a un risque : ${opponent} a encore ${cards} carte${cards > 1 ? "s" : ""} en main et des yaku valant ${points} pour l'instant, et marque d'abord s'il en forme un.`,
    nothingLeft: "Vous n'avez plus de carte à jouer : continuer ne peut plus rien vous rapporter.",
    goOnReach: (lines) => `À portée si vous continuez : ${lines.join(" ; ")}.`,
    sageTitle: "Sage ou shōbu ?",
    sagePaid: (each, multiplier, total) =>
      `Vos combinaisons de prises vous ont été payées ${each} par chacun des autres joueurs (leurs valeurs × ${multiplier}, le multiplicateur du tapis) : ${total} en tout pour cette manche.`,
    sageShobu: (fees) =>
      `Shōbu finit la manche maintenant : vous gardez ces gains et gagnez la manche${fees ? `, avec les droits de retrait (${fees})` : ""} ; pas de décompte des cartes.`,
    sageGoOn: (points, difference) =>
      `Sage continue : chaque nouvelle combinaison que vous formez est payée de même, et si les mains s'épuisent, le décompte des cartes règle la manche (vous avez ${points} points de cartes, ${difference} par rapport à 88).`,
    sageRisk: (refund, least) =>
      `Le risque : si un autre joueur forme une combinaison avant votre prochaine, vous rendez ${refund} à chacun des deux autres et payez à son auteur le double de sa valeur (au moins ${least}), et la manche s'arrête.`,
    sageLastCard: (points, difference) =>
      `Vous n'avez plus de carte à jouer : sage ne peut plus rien former et mène seulement au décompte des cartes, où vous avez ${points} points de cartes (${difference} par rapport à 88).`,
    joinTitle: "Jouer ou se retirer ?",
    joinDrop: (fee, multiplier) =>
      `Se retirer : vous payez un droit de ${fee} (10 × ${multiplier}, le multiplicateur du tapis), que le gagnant de la manche ramasse, et vous ne jouez pas la manche, sans autre paiement.`,
    joinPlay: (multiplier) =>
      `Jouer : vous jouez la manche, et chacun de ses paiements (combinaisons de main et de prises, décompte des cartes par rapport à 88) est multiplié par ${multiplier}.`,
    joinCount: (joined) =>
      `${joined} des 3 joueurs ${joined > 1 ? "jouent" : "joue"} déjà ; dès que 3 jouent, les autres se retirent sans droit à payer.`,
    pileOpen: (seat) => `Voir en grand ${seat.you ? "vos cartes prises" : `les cartes prises par ${seat.name}`}`,
    pileTitle: (seat) => (seat.you ? "Vos cartes prises" : `Cartes prises par ${seat.name}`),
    pileCount: (count) => `${plural(count, "carte prise", "cartes prises")}.`,
    pileCardPoints: (points, difference) => `Points des cartes : ${points} (${difference} face à 88).`,
    pileNoYaku: (hachi) => (hachi ? "Aucun dekiyaku formé pour l'instant." : "Aucun yaku formé pour l'instant."),
  },

  guide: {
    withinReach: "À portée :",
    reach: (name, have, need, points) => `${name} ${have}/${need} · ${points}`,
    title: (game) => `Guide des yaku : ${game}`,
    intro: "Toutes les combinaisons que comptent ces règles : les cartes qui les font, et ce qu'elles valent.",
    yakuTitle: "Yaku (cartes prises)",
    dekiyakuTitle: "Dekiyaku (cartes prises)",
    teyakuTitle: "Teyaku (la main distribuée)",
    teyakuText:
      "L'arbitre les annonce à la donne d'après les sept cartes de chaque main (les cartes du saule comptent comme simples) ; chaque autre joueur paie la valeur fois le multiplicateur du tapis.",
    dekiyakuText:
      "Chaque autre joueur paie la valeur fois le multiplicateur du tapis ; puis le joueur dit sage (continuer) ou shōbu (finir la manche).",
    anyOf: (count) => `${count} au choix parmi :`,
    allOf: "toutes ces cartes :",
    requires: (card) => `dont ${card}`,
    extra: (need) => `+1 point par carte au-delà de ${need}`,
    afterKoikoi: (points) => `${points} une fois que le gagnant a dit koi-koi`,
    roundMonth: (month) => `cette manche : ${month}`,
  },

  rounds: {
    summaryTitle: (round) => `Fin de la manche ${round}`,
    yakuTitle: "Yaku marqués :",
    base: (points) => `Base : ${points}`,
    score: (points) => `Score de la manche : ${points}`,
    fieldMultiplier: (factor) => `Multiplicateur du tapis : ×${factor}`,
    paymentsTitle: "Paiements (multiplicateur du tapis compris) :",
    causes: {
      teyaku: "combinaison de main",
      dekiyaku: "combinaison de cartes prises",
      sageRefund: "remboursement d'un sage dépassé",
      sageOvertaken: "sage dépassé",
      cardCount: "compte des cartes",
      allEights: "tout le monde à 88",
      doubleEights: "168 ou plus",
      dropFee: "droit de retrait",
      dropFeesTaken: "droits de retrait ramassés",
    },
    causeOf: (cause, combination) => `${cause} : ${combination}`,
    countsTitle: "Compte des cartes (lumière 20, animal 10, ruban 5, simple 1 ; 88 pour être quitte) :",
    count: (name, count, difference) => `${name} : ${count} (${difference})`,
    runningScores: "Scores après cette manche :",
    runningBalances: "Soldes après cette manche :",
    sheetTitle: "Feuille de marque",
    round: "Manche",
    total: "Total",
    start: "Départ",
    loading: "Lecture des manches…",
    noRounds: "Aucune manche n'est encore finie.",
    failed: (problem) => `Impossible de lire les manches. ${problem}`,
    playAgain: "Rejouer avec les mêmes réglages",
    playAgainFailed: (problem) => `Impossible de lancer une nouvelle partie. ${problem}`,
  },

  invites: {
    copy: "Copier",
    copyLabel: (link) => `Copier : ${link}`,
    copied: (link) => `Copié : ${link}.`,
    selected: "Le lien est sélectionné : copiez-le avec la commande de copie de votre appareil.",
    close: "Terminé",
  },

  preview: {
    choose: (card, targets) => `${cap(card)} prend ${list(targets)} au choix : vous choisirez.`,
    takes: (card, taken) => `${cap(card)} prend ${list(taken)}.`,
    toField: (card) => `${cap(card)} ne prend rien : elle va sur le tapis.`,
    watching: "Vous regardez : les spectateurs ne jouent pas.",
    notYourTurn: "Ce n'est pas encore à vous : la table dit à qui c'est.",
    notNow: "Cette carte ne peut pas être jouée maintenant.",
    decisionFirst: "Votre main attend : répondez d'abord à la décision.",
  },

  advice: {
    noMove: "aucun coup",
    playTaking: (card, target) => `jouer ${card} en prenant ${target}`,
    play: (card) => `jouer ${card}`,
    take: (card) => `prendre ${card}`,
    mean: (points) => {
      const rounded = Math.round(points * 10) / 10;
      return `${rounded > 0 ? "+" : rounded < 0 ? "−" : "±"}${Math.abs(rounded).toFixed(1).replace(".", ",")}`;
    },
    estimate: (move, mean, samples) =>
      `${move} : ${mean} points en moyenne${samples ? ` sur ${samples} donnes tirées au hasard` : ""}`,
    hintTitle: "Conseil",
    reviewTitle: "Revue",
    thinking: "L'expert réfléchit…",
    busy: "L'expert est occupé : redemandez dans un instant.",
    movedOn: "La partie a avancé : redemandez pour votre nouvelle décision.",
    expertWould: (move) => `L'expert choisirait de ${move}.`,
    estimatesIntro: "Ses estimations des meilleurs coups, en points pour vous dans cette manche :",
    reviewing: "L'expert revoit votre partie…",
    allSame: (decisions) =>
      `Sur vos ${plural(decisions, "décision", "décisions")}, l'expert aurait fait chaque fois comme vous.`,
    difference: (round, played, expert, cost) =>
      `Manche ${round} : vous avez choisi de ${played} ; l'expert choisirait de ${expert} (environ ${cost} points de mieux en moyenne).`,
    otherwise: (decisions, differences) =>
      `Sur vos ${plural(decisions, "décision", "décisions")}, l'expert aurait choisi autrement ${plural(differences, "fois", "fois")} :`,
    notYourTurn: "Un conseil porte sur votre propre décision : attendez votre tour.",
    gameOver: "La partie est finie : demandez plutôt une revue.",
    failed: (problem) => `L'expert n'a pas pu répondre. ${problem}`,
  },

  lobby: {
    documentTitle: "Hanafuda : nouvelle partie",
    opponents: {
      greedy: "Robot glouton",
      random: "Robot au hasard",
      expert: "Robot expert",
      friend: "Un ami (lien d'invitation)",
    },
    seat: (number) => `Place ${number}`,
    defaultRules: "les règles par défaut de l'arbitre",
    presets: {
      "koikoi:fudawiki":
        "Fuda-wiki (par défaut) : 12 manches, points cumulés ; doublés à 7 ou plus, et après un koi-koi de l'adversaire ; les quatre cartes du mois marquent",
      "koikoi:wikipedia-fr":
        "Wikipédia en français : 12 manches ; votre propre koi-koi double aussi, un arrêt contre un adversaire à 7 ou plus double ; la manche s'arrête à la dernière carte du donneur",
      "koikoi:hanafuda-legends":
        "Hanafuda Legends (le jeu) : 12 manches ; tous les yaku formés comptent ; doublés à 7 ou plus",
      "koikoi:coins":
        "Pour des jetons : 30 points chacun, le gagnant prend au perdant, éliminé à 0 ; chaque koi-koi multiplie",
      "koikoi:koikoi-japan":
        "Koi-Koi Japan (le jeu PC) : 8 manches, 30 points chacun ; vos koi-koi ajoutent des points ; les yaku de rubans s'additionnent",
      "koikoi:nintendo":
        "Koi-Koi de Nintendo : 12 manches, points cumulés ; doublés à 7 ou plus, et après un koi-koi de l'adversaire",
      "hachihachi:fudawiki":
        "Fuda-wiki : 12 manches ; combinaisons de main à la donne, combinaisons de prises avec sage ou shōbu, compte des cartes face à 88",
    },
    failed: (problem) => `Impossible de créer la partie. ${problem}`,
    defaultName: "Joueur 1",
    botName: (level, seat) =>
      `${({ random: "Robot au hasard", greedy: "Robot glouton", expert: "Robot expert" })[level]} ${seat}`,
    friendName: (seat) => `Ami ${seat}`,
  },
  problems: {
    reasons: {
      NOT_YOUR_TURN: "Ce n'est pas votre tour.",
      UNKNOWN_SEAT: "Cette place n'existe pas dans la partie.",
      CARD_NOT_IN_HAND: "Cette carte n'est pas dans votre main.",
      TARGET_REQUIRED: "La carte s'accorde avec deux cartes du tapis : choisissez celle à prendre.",
      TARGET_DOES_NOT_MATCH: "Cette carte du tapis ne s'accorde pas avec la carte jouée.",
      WRONG_MOVE: "La partie attend un autre genre de coup.",
      NO_DECISION_PENDING: "Il n'y a pas de décision à prendre maintenant.",
      MOVE_NOT_IN_GAME: "Ce coup n'existe pas dans ce jeu.",
      KOIKOI_NOT_ALLOWED: "Vous ne pouvez pas dire koi-koi maintenant.",
      GAME_OVER: "La partie est finie.",
      UNKNOWN_PRESET: "L'arbitre ne connaît pas ces règles.",
      UNKNOWN_OPTION: "L'arbitre ne connaît pas l'une des options des règles.",
      BAD_OPTION_VALUE: "L'un des réglages sort des limites permises.",
      BAD_DEAL: "La donne préparée n'est pas une donne valable.",
      BAD_CARDS: "Les cartes envoyées ne sont pas valables.",
      BAD_ENCODING: "L'arbitre n'a pas pu lire la demande de la page : rechargez la page.",
      STALE_VERSION: "La partie a avancé entre-temps : regardez de nouveau la table.",
      UNKNOWN_GAME: "Cette partie n'existe pas : le lien est mal recopié, ou la partie est finie et effacée.",
      BAD_TOKEN: "La place de ce lien n'appartient pas à cette partie.",
      MISSING_TOKEN: "Il faut le lien d'un joueur : un spectateur ne peut pas le faire.",
      PERMISSION_DENIED: "Votre place ne peut pas agir pour une autre.",
      TESTING_FEATURE_DISABLED: "Cet arbitre n'accepte pas les options de test.",
      REQUEST_TOO_LARGE: "La demande est trop grande : raccourcissez les noms ou la liste.",
      INVALID_ARGUMENT: "Un élément de la demande manque ou sort des limites.",
      UNAVAILABLE: "L'arbitre ne peut pas répondre pour l'instant : réessayez dans un moment.",
      API_KEY_REQUIRED: "Cet arbitre demande une clé d'API, que cette page n'a pas.",
      MALFORMED_MOVE: "Le coup est mal formé.",
      REQUEST_ID_REUSED: "La page a envoyé une autre demande sous le même identifiant : rechargez la page.",
      UNSUPPORTED_MEDIA_TYPE: "L'arbitre n'a pas pu lire la demande de la page : rechargez la page.",
      RATE_LIMITED: "Trop de demandes en peu de temps : patientez un peu.",
      TIMED_OUT: "Votre temps est écoulé : la pendule a décidé pour vous.",
      TOO_MANY_GAMES: "Vous avez autant de parties en cours que l'arbitre le permet : finissez-en une ou abandonnez-la d'abord.",
      TOO_MANY_BOT_GAMES: "Vous avez autant de parties en cours avec des robots que l'arbitre le permet : finissez-en une ou abandonnez-la, ou jouez sans robot.",
      TOO_MANY_EXPERT_SEATS: "Trop de robots experts pour une seule partie : choisissez-en moins (un robot glouton ne coûte presque rien).",
      STORE_FULL: "L'arbitre est plein et ne crée plus de partie pour l'instant (les parties en cours continuent).",
      GAME_NOT_OVER: "La partie n'est pas encore finie : la revue vient une fois la partie terminée.",
    },
    limit: (limit) => `La limite est de ${limit}.`,
    retrySeconds: (seconds) => `Réessayez dans ${plural(seconds, "seconde", "secondes")}.`,
    retryMinutes: (minutes) => `Réessayez dans ${plural(minutes, "minute", "minutes")}.`,
    together: (sentences) => sentences.join(" "),
    unreachable: "Impossible de joindre l'arbitre : vérifiez votre connexion et réessayez.",
    other: "Quelque chose n'a pas marché : réessayez, ou rechargez la page.",
  },
};
