/** 日本語の卓。 */

import type { Strings, Who } from "./strings.js";

/** 文中の人：「あなた」「Annさん」ではなく名前そのまま。 */
function who(person: Who): string {
  return person.you ? "あなた" : person.name;
}

function list(items: readonly string[]): string {
  return items.join("・");
}

function number(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

const OTHERS_WAIT = {
  handPlay: "手札を出す",
  targetChoice: "取る札を選ぶ",
  koikoi: "こいこいかあがりかを決める",
  sage: "サゲか勝負かを決める",
  join: "参加か降りるかを決める",
} as const;

export const ja: Strings = {
  languageName: "日本語",
  page: {
    title: "花札",
    brand: "花札の卓",
    language: "言語",
    lobbyTitle: "新しい対局",
    gameLegend: "ゲーム",
    koikoiChoice: "こいこい（2人）",
    hachiChoice: "八八（3〜6人）",
    players: "人数",
    fourPlayers: "4（各回の初めに参加か降りるかを決める）",
    rules: "ルール",
    rounds: "回戦数（空欄：ルールどおり）",
    clockSeconds: "1手の秒数（0：時計なし）",
    yourName: "あなたの名前",
    opponents: "対戦相手",
    start: "対局を始める",
    watchTitle: "対局を観戦する",
    watchGame: "対局ID",
    watch: "観戦",
    gameTitle: "対局",
    spectating: "観戦中です。",
    hint: "ヒント",
    resign: "投了",
    field: "場",
    yourHand: "あなたの手札",
    story: "これまでの流れ",
    decisionTitle: "あなたの判断",
    decisionResign: "投了する…",
    resignTitle: "投了しますか？",
    resignText: "この回は無効になり、対局はすぐに終わります。",
    resignYes: "投了する",
    resignNo: "続ける",
    guideOpen: "役の一覧",
    guideClose: "閉じる",
    sheetOpen: "得点表",
    sheetClose: "閉じる",
    summaryContinue: "続ける",
    invitesOpen: "招待リンク",
  },

  cards: {
    months: ["1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"],
    flowers: ["松", "梅", "桜", "藤", "菖蒲", "牡丹", "萩", "芒", "菊", "紅葉", "柳", "桐"],
    flowersOf: ["松", "梅", "桜", "藤", "菖蒲", "牡丹", "萩", "芒", "菊", "紅葉", "柳", "桐"],
    subjects: {
      crane: "鶴",
      warbler: "鶯",
      curtain: "幕",
      cuckoo: "不如帰",
      bridge: "八橋",
      butterflies: "蝶",
      boar: "猪",
      moon: "月",
      geese: "雁",
      sakeCup: "盃",
      deer: "鹿",
      rainMan: "小野道風",
      swallow: "燕",
      phoenix: "鳳凰",
      poetryRibbon: "赤短",
      blueRibbon: "青短",
      redRibbon: "短冊",
      plain: "カス",
      lightning: "雷",
      yellowPlain: "黄色のカス",
    },
    kinds: { bright: "光", animal: "タネ", ribbon: "短冊", plain: "カス" },
    groups: { bright: "光札", animal: "タネ札", ribbon: "短冊札", plain: "カス札" },
    name: (card) => `${card.kanji}（${card.romaji}、${card.kind}・${card.month}）`,
    short: (card) => card.kanji,
    unknown: "不明な札",
  },

  words: {
    seat: (number) => `${number}番席`,
    you: "あなた",
    nobody: "なし",
    theTable: "場代",
    list,
    points: (amount) => `${amount}点`,
    number,
  },

  yaku: {
    goko: "五光",
    shiko: "四光（雨なし）",
    "ame-shiko": "雨四光",
    sanko: "三光（雨なし）",
    inoshikacho: "猪鹿蝶",
    tane: "タネ（5枚）",
    "akatan-aotan": "赤短・青短",
    akatan: "赤短",
    aotan: "青短",
    tan: "タン（5枚）",
    kasu: "カス（10枚）",
    "hanami-zake": "花見で一杯",
    "tsukimi-zake": "月見で一杯",
    tsukifuda: "月札（その月の4枚）",
    triplet: "三本",
    "special-triplet": "立三本",
    red: "赤（短冊とカスだけ）",
    "lone-ribbon": "短一（短冊1枚とカス6枚）",
    "lone-animal": "十一（タネ1枚とカス6枚）",
    "lone-light": "光一（光1枚とカス6枚）",
    "three-pairs": "くっつき（3組の対）",
    "empty-nest": "空素（カス7枚）",
    "four-of-a-kind": "手四（同じ月4枚）",
    haneken: "はねけん（3枚と2組の対）",
    "one-two-four": "一二四",
    "four-three": "四三",
    "seven-ribbons": "七短（短冊7枚）",
    "four-lights": "四光（雨なし）",
    "five-lights": "五光",
    "plains-16": "素十六（カス16枚）",
    "plains-17": "素十七（カス17枚）",
    "plains-18": "素十八（カス18枚）",
    "plains-19": "素十九（カス19枚）",
    "all-eights": "全員88点",
    "double-eights": "168点以上",
  },
  multipliers: {
    "seven-or-more": "7点以上で2倍",
    "own-koikoi": "勝者のこいこいで2倍",
    "own-koikoi-bonus": "勝者のこいこいの加点",
    "opponent-koikoi": "相手のこいこい後の勝ち",
    "all-calls-plus-one": "こいこいの回数＋1倍",
    "counter-seven": "7点以上の相手に対するあがりで2倍",
  },
  moves: {
    label: (key, card) =>
      ({
        play: `${card}を出す`,
        take: `${card}を取る`,
        koikoi: "こいこい（続ける）",
        stop: "あがる（今の点で終える）",
        sage: "サゲ（続ける）",
        shobu: "勝負（この回を終える）",
        join: "この回に参加する",
        drop: "降りる",
        resign: "投了",
        other: "手",
      })[key],
  },
  roundEnds: {
    dealCheck: "配り札の判定",
    stop: "あがり",
    exhaustion: "手札の使い切り",
    dealerEmpty: "親の手札切れ",
    shobu: "勝負",
    sageOvertaken: "サゲの追い越し",
    cardCount: "札の計算",
  },
  gameEnds: {
    roundsPlayed: "全回戦の終了",
    outOfPoints: "持ち点切れ",
    targetReached: "目標点への到達",
    resigned: "投了",
  },

  story: {
    gameCreated: (players) => `${players}人の対局が始まります。`,
    roundDealt: (round, month, dealer) =>
      `第${round}回戦の札が配られました${month ? `（${month}月）` : ""}。親は${who(dealer)}です。`,
    played: (actor, card, taken) =>
      `${who(actor)}が${card}を出し、${taken.length ? `${list(taken)}を取りました` : "場に置きました"}。`,
    drew: (actor, card, taken) =>
      `${who(actor)}が${card}を引き、${taken.length ? `${list(taken)}を取りました` : "場に置きました"}。`,
    targetRequired: (seat, card) => `${who(seat)}は${card}で取る札を選びます。`,
    targetChosen: (actor, taken, card) => `${who(actor)}が${card}で${list(taken)}を取りました。`,
    yakuFormed: (seat, yaku, points) => `${who(seat)}が${list(yaku)}を作りました：${points}。`,
    koikoiCalled: (seat, calls) => `${who(seat)}がこいこい（${calls}回目）。`,
    stopped: (seat, automatic) => `${who(seat)}が${automatic ? "自動的に" : ""}あがりました。`,
    roundEnded: "この回は終わりました。",
    gameOver: "対局は終わりました。",
    participation: (seat, joined, forced) =>
      `${who(seat)}は${forced ? "規則により" : ""}${joined ? "参加します" : "降りました"}。`,
    teyakuDeclared: (seat, teyaku) => `${who(seat)}が手役「${teyaku}」を出しました。`,
    aHand: "手役",
    dekiyakuFormed: (seat, dekiyaku) => `${who(seat)}が出来役「${list(dekiyaku)}」を作りました。`,
    sageCalled: (seat) => `${who(seat)}がサゲ。`,
    shobuCalled: (seat) => `${who(seat)}が勝負。`,
    sageOvertaken: (overtaker, caller) => `${who(overtaker)}が${who(caller)}のサゲを追い越しました。`,
    paid: (from, amount, to) => `${who(from)}が${who(to)}に${amount}を払いました。`,
    lightning: (seat, month) => `${who(seat)}が雷で${month}月の札を集めました。`,
    resigned: (seat, timedOut) => `${who(seat)}が${timedOut ? "時間切れで" : ""}投了しました。`,
    timedOut: (seat, move) =>
      `${who(seat)}の時間切れ。審判が代わりに決めました${move ? `：${move}` : ""}。`,
    dealCheck: "配り札の判定が成立しました。",
    redealt: "札を配り直します。",
    firstDealer: (draws, dealer) =>
      `親決め：${list(draws.map((draw) => `${who(draw.seat)}は${draw.card}`))}。${
        dealer ? `${who(dealer)}が親です。` : "同じ月なので引き直します。"
      }`,
    fieldRefilled: (card) => `場が空になったので、山札から${card}をめくりました。`,
    cardsCounted: (counts) =>
      `札の計算：${list(counts.map((c) => `${who(c.seat)} ${c.count}点（${c.difference}）`))}。`,
    roundSummary: (round, end, dealCheck, winner, points) => {
      const result = winner ? `${who(winner)}の勝ち` : "勝者なし";
      return `第${round}回戦は${end}${dealCheck ? "（配り札の判定）" : ""}で終了：${result}${points ? `（${points}）` : ""}。`;
    },
    gameSummary: (end, draw, winner, resigned) => {
      const outcome = draw ? "引き分け" : winner ? `${who(winner)}の勝ち` : "勝者なし";
      return `対局終了（${end}）：${outcome}。${resigned ? `${who(resigned)}が投了しました。` : ""}`;
    },
    watching: "この対局を観戦しています。",
    seated: (seat) => `あなたは${seat}番席です。対局中です。`,
  },

  table: {
    connecting: "対局に接続しています…",
    noGame: "このリンクの対局はありません。リンクが間違っているか、対局が終わって消えました。",
    badToken: "このリンクの席はこの対局のものではありません。リンクが間違っているか、途中で切れています。",
    noGameTitle: "このリンクに対局はありません",
    lost: (message) => `対局との接続が切れました：${message}。`,
    backToLobby: "ロビーに戻る",
    stale: "あなたの手が届く前に対局が進みました。今の局面を表示します。",
    refused: (message) => `その手は受け付けられませんでした：${message}`,
    kinds: { koikoi: "こいこい", hachihachi: "八八" },
    title: (game, round, rounds, month) =>
      `${game}　第${round}回戦（全${rounds}回戦）${month ? `・${month}月` : ""}`,
    documentTitle: (game, mine) => `花札：${game}${mine ? "（あなたの番）" : ""}`,
    over: "対局は終わりました。",
    waitingForGame: "対局を待っています。",
    mine: {
      handPlay: "手札から1枚出してください",
      targetChoice: "取る札を選んでください",
      koikoi: "こいこいかあがりかを決めてください",
      sage: "サゲか勝負かを決めてください",
      join: "この回に参加するか降りるかを決めてください",
    },
    yourTurn: (what) => `あなたの番：${what}。`,
    decide: "決めてください",
    waitingFor: (seat, key) => `${who(seat)}が${key ? OTHERS_WAIT[key] : "指す"}のを待っています。`,
    youMark: "（あなた）",
    bot: (level) => ({ random: "ランダムボット", greedy: "貪欲ボット", expert: "エキスパートボット" })[level],
    dealer: "親",
    thinking: "考え中",
    toPlay: "手番",
    balance: (points) => `持ち点 ${points}`,
    score: (points) => `得点 ${points}`,
    inHand: (count) => `手札${count}枚`,
    koikoiCalls: (calls) => `こいこい×${calls}`,
    calledSage: "サゲ中",
    droppedOut: "降り",
    yakuTotal: (points) => `役：${points}`,
    yakuLine: (name, points) => `${name}：${points}`,
    teyakuLine: (name, value) => `手役：${name}、${value}点`,
    dekiyakuLine: (name, value) => `${name}：${value}点`,
    noCaptures: "まだ取り札はありません。",
    groupHeading: (group, count) => `${group}（${count}）`,
    stock: (count) => `山札：${count}枚`,
    fieldMultiplier: (factor, floor) =>
      `場の倍率 ×${factor}${floor > 1 ? `（前の回から最低×${floor}）` : ""}：すべての支払いにかかります`,
    dropFees: (amount) => `場に置かれた降り賃：${amount}`,
    cardPoints: (points, difference) => `札の点 ${points}（88点に対して${difference}）`,
    drawn: "引いた札：",
    handEmpty: "手札はありません。",
    chooseTitle: "取る札を選んでください",
    matchesMore: (card) => `${card}は場の複数の札と合います。`,
    takeCard: (card) => `${card}を取る`,
    cancel: "やめる",
    multiplierFactor: (name, factor) => `${name}：×${factor}`,
    multiplierAdded: (name, points) => `${name}：＋${points}`,
    payment: (from, to, amount, reason) => `${from} → ${to}：${amount}${reason ? `（${reason}）` : ""}`,
    gameOverTitle: "対局終了",
    player: "プレイヤー",
    balanceColumn: "持ち点",
    scoreColumn: "得点",
    review: "エキスパートと対局を振り返る",
    newGame: "新しい対局を始める",
    inviteLink: (name, seat) => `${name}さんへのリンク（${seat}番席）`,
    spectatorLink: "観戦用リンク",
    invitationsTitle: "招待リンク",
    spectatorTitle: "観戦用リンク",
    invitationsText: "友だちにはそれぞれ自分のリンクを送ってください。リンクが席を表します。",
    spectatorText: "このリンクがあれば誰でも観戦できます。",
    noClock: "時計なし",
    time: (seat, clock) => `${who(seat)}の持ち時間：${clock}`,
    reserve: (seat, clock) => `${who(seat)}の予備時間：${clock}`,
    decisionTitle: "あなたの判断",
    koikoiTitle: "こいこいか、あがりか？",
    koikoiText: (points) =>
      `あなたの役は${points}です。あがれば今この点を得ます。こいこいすれば続けて、さらに点を狙います。`,
    koikoiRisk: (opponent, cards, points) =>
      `続ける危険：${opponent}は手札がまだ${cards}枚あり、今の役は${points}です。先に役を作られると相手の得点になります。`,
    nothingLeft: "もう出せる札がありません。続けても得るものはありません。",
    sageTitle: "サゲか勝負か？",
    sagePaid: (each, multiplier, total) =>
      `あなたの出来役は、ほかの各プレイヤーから${each}ずつ支払われました（役の点×場の倍率${multiplier}）。この回の合計は${total}です。`,
    sageShobu: (fees) =>
      `勝負：この回を今終え、受け取った点はそのままで、この回の勝者になります${fees ? `（降り賃${fees}も受け取ります）` : ""}。札の計算はしません。`,
    sageGoOn: (points, difference) =>
      `サゲ：続けて、新しい出来役ができればまた同じように支払われます。手札がなくなれば札の計算で決まります（今の札の点は${points}、88点に対して${difference}）。`,
    sageRisk: (refund, least) =>
      `危険：あなたが次の出来役を作る前にほかのプレイヤーが出来役を作ると、ほかの二人に${refund}ずつ返し、その人に役の点の2倍（少なくとも${least}）を払って、この回は終わります。`,
    sageLastCard: (points, difference) =>
      `もう出せる札がありません。サゲでも新しい出来役はできず、札の計算になるだけです（札の点は${points}、88点に対して${difference}）。`,
    joinTitle: "参加か降りるか？",
    joinText: "この回に参加するか、降りるかを決めてください。",
  },

  guide: {
    withinReach: "あと少し：",
    reach: (name, have, need, points) => `${name} ${have}/${need}・${points}`,
    title: (game) => `役の一覧：${game}`,
    intro: "このルールで数える役のすべて：役になる札と、その点。",
    yakuTitle: "役（取り札）",
    dekiyakuTitle: "出来役（取り札）",
    teyakuTitle: "手役（配られた手札）",
    teyakuText:
      "配った時点で、審判が各自の手札7枚から判定します（柳の札はカスとして数えます）。ほかの各プレイヤーが点数×場の倍率を払います。",
    dekiyakuText:
      "ほかの各プレイヤーが点数×場の倍率を払います。そのあと、サゲ（続ける）か勝負（この回を終える）かを選びます。",
    anyOf: (count) => `このうち${count}枚：`,
    allOf: "これらすべて：",
    requires: (card) => `${card}を含む`,
    extra: (need) => `${need}枚を超える1枚ごとに＋1点`,
    afterKoikoi: (points) => `こいこいの後は${points}`,
    roundMonth: (month) => `この回は${month}`,
  },

  rounds: {
    summaryTitle: (round) => `第${round}回戦の結果`,
    yakuTitle: "できた役：",
    base: (points) => `基本点：${points}`,
    score: (points) => `この回の得点：${points}`,
    fieldMultiplier: (factor) => `場の倍率：×${factor}`,
    paymentsTitle: "支払い（場の倍率込み）：",
    causes: {
      teyaku: "手役",
      dekiyaku: "出来役",
      sageRefund: "追い越されたサゲの返金",
      sageOvertaken: "サゲの追い越し",
      cardCount: "札の計算",
      allEights: "全員88点",
      doubleEights: "168点以上",
      dropFee: "降り賃",
      dropFeesTaken: "降り賃の受け取り",
    },
    causeOf: (cause, combination) => `${cause}「${combination}」`,
    countsTitle: "札の計算（光20・タネ10・短冊5・カス1、88点で差し引きなし）：",
    count: (name, count, difference) => `${name}：${count}（${difference}）`,
    runningScores: "この回のあとの得点：",
    runningBalances: "この回のあとの持ち点：",
    sheetTitle: "得点表",
    round: "回戦",
    total: "合計",
    start: "開始時",
    loading: "各回の結果を読んでいます…",
    noRounds: "まだ終わった回はありません。",
    failed: (message) => `各回の結果を読めませんでした：${message}`,
    playAgain: "同じ設定でもう一度",
    playAgainFailed: (message) => `新しい対局を始められませんでした：${message}`,
  },

  invites: {
    copy: "コピー",
    copyLabel: (link) => `コピー：${link}`,
    copied: (link) => `コピーしました：${link}。`,
    selected: "リンクを選択しました。端末のコピー操作でコピーしてください。",
    close: "閉じる",
  },

  preview: {
    choose: (card, targets) => `${card}は${list(targets)}のどれかを取ります（選べます）。`,
    takes: (card, taken) => `${card}は${list(taken)}を取ります。`,
    toField: (card) => `${card}は何も取らず、場に置かれます。`,
    watching: "観戦中です。観戦者は札を出せません。",
    notYourTurn: "まだあなたの番ではありません。誰の番かは上に出ています。",
    notNow: "この札は今は出せません。",
    decisionFirst: "先に判断に答えてください。",
  },

  advice: {
    noMove: "手なし",
    playTaking: (card, target) => `${card}を出して${target}を取る`,
    play: (card) => `${card}を出す`,
    take: (card) => `${card}を取る`,
    mean: (points) => {
      const rounded = Math.round(points * 10) / 10;
      return `${rounded > 0 ? "+" : rounded < 0 ? "−" : "±"}${Math.abs(rounded).toFixed(1)}`;
    },
    estimate: (move, mean, samples) =>
      `${move}：平均${mean}点${samples ? `（${samples}通りの配りで試算）` : ""}`,
    hintTitle: "ヒント",
    reviewTitle: "振り返り",
    thinking: "エキスパートが考えています…",
    busy: "エキスパートは手が離せません。少ししてからもう一度どうぞ。",
    movedOn: "対局が進みました。新しい判断についてもう一度聞いてください。",
    expertWould: (move) => `エキスパートなら「${move}」。`,
    estimatesIntro: "有力な手の見積もり（この回のあなたの点）：",
    reviewing: "エキスパートがあなたの対局を見直しています…",
    allSame: (decisions) => `あなたの${decisions}回の判断は、すべてエキスパートと同じでした。`,
    difference: (round, played, expert, cost) =>
      `第${round}回戦：あなたは「${played}」、エキスパートなら「${expert}」（平均で約${cost}点よい）。`,
    otherwise: (decisions, differences) =>
      `あなたの${decisions}回の判断のうち、エキスパートなら${differences}回ちがう手を選びました：`,
    rateLimited: "エキスパートへの質問が続きました。少し待ってからもう一度どうぞ。",
    notYourTurn: "ヒントはあなた自身の判断のためのものです。あなたの番を待ってください。",
    gameOver: "対局は終わりました。振り返りを頼んでください。",
    failed: (message) => `エキスパートは答えられませんでした：${message}`,
  },

  lobby: {
    documentTitle: "花札：新しい対局",
    opponents: {
      greedy: "貪欲ボット",
      random: "ランダムボット",
      expert: "エキスパートボット",
      friend: "友だち（招待リンク）",
    },
    seat: (number) => `${number}番席`,
    defaultRules: "審判の標準ルール",
    presets: {
      "koikoi:fudawiki":
        "fuda-wiki（標準）：12回戦、得点は累計。7点以上で2倍、相手のこいこい後も2倍。月札あり",
      "koikoi:wikipedia-fr":
        "フランス語版ウィキペディア：12回戦。自分のこいこいでも2倍、7点以上の相手に対するあがりで2倍。親の最後の札で回が終わる",
      "koikoi:hanafuda-legends": "Hanafuda Legends（ゲーム）：12回戦。できた役はすべて数える。7点以上で2倍",
      "koikoi:coins": "コイン勝負：各30点、勝者が敗者から取り、0点で終わり。こいこいの回数で倍になる",
      "koikoi:koikoi-japan":
        "Koi-Koi Japan（PCゲーム）：8回戦、各30点。こいこいで加点。短冊の役はすべて足す",
      "koikoi:nintendo": "任天堂のこいこい：12回戦、得点は累計。7点以上で2倍、相手のこいこい後も2倍",
      "hachihachi:fudawiki": "fuda-wiki：12回戦。配った時の手役、サゲか勝負の出来役、88点を基準にした札の計算",
    },
    refused: (message) => `審判が受け付けませんでした：${message}`,
    failed: (message) => `対局を作れませんでした：${message}`,
    defaultName: "プレイヤー1",
    botName: (level, seat) =>
      `${({ random: "ランダムボット", greedy: "貪欲ボット", expert: "エキスパートボット" })[level]}${seat}`,
    friendName: (seat) => `友だち${seat}`,
  },
};
