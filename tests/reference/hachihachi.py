"""An independent reading of Hachi-Hachi (RULES.md Part 2), used as a differential-test oracle.

It was written from the specification alone (RULES.md Part 2 and CARDS.md, with seed 004, the
French fudawiki page that Part 2 is taken from) without looking at the engine's code, so that the
two can only agree by both following the rules. tests/reference/test_differential.py plays the
same games through the engine and through this module and compares them move by move. It uses the
standard library only and favours plainness over speed.

Cards are the CARDS.md codes, such as ``"pine-crane"`` or ``"willow-lightning"``. A deal is a
mapping with ``"hands"`` (seven cards for each participant), ``"field"`` (six cards), ``"stock"``
(the rest) and optionally ``"stock_after_drops"`` (the 21-card stock once the dropped hands are
shuffled into it; without it they go after the stock, in seat order).

``pending()`` gives ``(seat, kind)``, where kind is ``"join-or-drop"``, ``"play"``, ``"choose"``
or ``"shobu-or-sage"``, and ``None`` once the game is over. Moves are tuples:

- ``("join",)`` and ``("drop",)`` in the drop phase;
- ``("play", card, target)``: target is the field card taken when two field cards match the
  played card's month, otherwise ``None`` (``("play", card)`` is accepted for that);
- ``("choose", target)``: the field card the drawn card takes when it matches two;
- ``("shobu",)`` and ``("sage",)`` after a dekiyaku.

Money is kept in half points (17.5 points is 35), because an overtaken sage caller refunds half of
his first payment and the rules never round; a balance of 2 is one point.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Any, TypedDict

from tests.reference.capture import capture, matches, plays
from tests.reference.deck import ALL_CARDS, KIND, MONTH

Move = tuple[str | None, ...]

WILLOW = 11
POETRY_RIBBONS = {"pine-ribbon", "plum-ribbon", "cherry-ribbon"}
BLUE_RIBBONS = {"peony-ribbon", "chrysanthemum-ribbon", "maple-ribbon"}
INOSHIKACHO = {"clover-boar", "maple-deer", "peony-butterflies"}
FOUR_LIGHTS = {"pine-crane", "cherry-curtain", "susuki-moon", "paulownia-phoenix"}
RAIN_MAN = "willow-rainman"
BIG_FIELD_LIGHTS = {"pine-crane", "cherry-curtain", "susuki-moon"}
GRAND_FIELD_LIGHTS = {"willow-rainman", "paulownia-phoenix"}
DECEMBER_PLAINS = {"paulownia-yellow", "paulownia-plain-1", "paulownia-plain-2"}
CARD_VALUE = {"light": 20, "animal": 10, "ribbon": 5, "plain": 1}

# --- teyaku (2.2 and 2.6) ------------------------------------------------------------------------

# In the order of the 2.2 table, which decides between two teyaku of equal value.
TEYAKU_TABLE = [
    ("triplet", 10),
    ("special-triplet", 15),
    ("red", 15),
    ("lone-ribbon", 20),
    ("lone-animal", 20),
    ("lone-light", 20),
    ("three-pairs", 20),
    ("empty-nest", 25),
    ("four-of-a-kind", 30),
    ("haneken", 30),
    ("one-two-four", 35),
    ("four-three", 50),
]
TEYAKU_VALUE = dict(TEYAKU_TABLE)


def teyaku_kind(code: str) -> str:
    """The card's kind for the kind-based teyaku: every willow card is a plain there (2.2), and
    the sake cup is only an animal (2.6), as it is in CARDS.md."""
    if MONTH[code] == WILLOW:
        return "plain"
    return KIND[code]


def teyaku_candidates(hand: Sequence[str]) -> list[str]:
    """Every teyaku of the 2.2 table that the 7-card hand satisfies, in table order."""
    months = Counter(MONTH[c] for c in hand)
    shape = sorted(months.values(), reverse=True)
    kinds = Counter(teyaku_kind(c) for c in hand)
    n_plain, n_ribbon = kinds["plain"], kinds["ribbon"]
    n_animal, n_light = kinds["animal"], kinds["light"]
    found: set[str] = set()

    # Two triplets (3-3-1) still make one triplet, special if either of them is (2.6).
    triplet_months = [m for m, k in months.items() if k == 3]
    if triplet_months:
        special = any(m in (4, 5, 7) for m in triplet_months)
        # A December triplet is special only when it is the three plains, not with the phoenix.
        if 12 in triplet_months and set(hand) >= DECEMBER_PLAINS:
            special = True
        found.add("special-triplet" if special else "triplet")
    if shape == [2, 2, 2, 1]:
        found.add("three-pairs")
    if 4 in shape:
        found.add("four-of-a-kind")
    if shape == [3, 2, 2]:
        found.add("haneken")
    if shape == [4, 2, 1]:
        found.add("one-two-four")
    if shape == [4, 3]:
        found.add("four-three")

    if n_ribbon >= 2 and n_ribbon + n_plain == 7:
        found.add("red")
    if n_ribbon == 1 and n_plain == 6:
        found.add("lone-ribbon")
    if n_animal == 1 and n_plain == 6:
        found.add("lone-animal")
    if n_light == 1 and n_plain == 6:
        found.add("lone-light")
    if n_plain == 7:
        found.add("empty-nest")

    return [t for t, _ in TEYAKU_TABLE if t in found]


def teyaku_of(hand: Sequence[str]) -> tuple[str, int] | None:
    """The one teyaku that counts for the hand, as ``(id, value)``: the highest, and of two of
    equal value the first in the table; ``None`` when the hand has none."""
    best: tuple[str, int] | None = None
    for t in teyaku_candidates(hand):
        value = TEYAKU_VALUE[t]
        # Strictly greater, so that the earlier of two equal values stays.
        if best is None or value > best[1]:
            best = (t, value)
    return best


# --- dekiyaku (2.4 and 2.6) ----------------------------------------------------------------------

# The order of the 2.4 table, the order in which dekiyaku_held reports them.
DEKIYAKU_ORDER = [
    "akatan",
    "aotan",
    "inoshikacho",
    "seven-ribbons",
    "four-lights",
    "five-lights",
    "plains-16",
    "plains-17",
    "plains-18",
    "plains-19",
]
DEKIYAKU_VALUE = {
    "akatan": 35,
    "aotan": 35,
    "inoshikacho": 35,
    "seven-ribbons": 50,
    "four-lights": 50,
    "five-lights": 75,
    "plains-16": 50,
    "plains-17": 60,
    "plains-18": 75,
    "plains-19": 100,
    "all-eights": 50,
    "double-eights": 50,
}
# The rungs of a ladder share a group, because a higher rung pays only the difference with what
# the group already paid; every other dekiyaku is its own group and adds up.
DEKIYAKU_GROUP = {
    "akatan": "akatan",
    "aotan": "aotan",
    "inoshikacho": "inoshikacho",
    "seven-ribbons": "seven-ribbons",
    "four-lights": "lights",
    "five-lights": "lights",
    "plains-16": "plains",
    "plains-17": "plains",
    "plains-18": "plains",
    "plains-19": "plains",
}


def dekiyaku_plain_count(captured: Iterable[str]) -> int:
    """The plains that count for the plains dekiyaku: the plains and every willow card (2.4); the
    sake cup is not one (2.6)."""
    return sum(1 for c in captured if KIND[c] == "plain" or MONTH[c] == WILLOW)


def dekiyaku_held(captured: Collection[str]) -> list[tuple[str, int]]:
    """The dekiyaku the captures form, as ``(id, value)`` in table order, with only the top rung
    of each ladder."""
    s = set(captured)
    held = []
    if s >= POETRY_RIBBONS:
        held.append("akatan")
    if s >= BLUE_RIBBONS:
        held.append("aotan")
    if s >= INOSHIKACHO:
        held.append("inoshikacho")
    ribbons = sum(1 for c in s if KIND[c] == "ribbon" and MONTH[c] != WILLOW)
    if ribbons >= 7:
        held.append("seven-ribbons")
    if s >= FOUR_LIGHTS:
        held.append("five-lights" if RAIN_MAN in s else "four-lights")
    plains = dekiyaku_plain_count(captured)
    if plains >= 16:
        held.append(f"plains-{min(plains, 19)}")
    return [(d, DEKIYAKU_VALUE[d]) for d in held]


def card_count(captured: Iterable[str]) -> int:
    """The card count of 2.5: light 20, animal 10, ribbon 5, plain 1, willow cards included at
    their own kind's value."""
    return sum(CARD_VALUE[KIND[c]] for c in captured)


# --- field multiplier (2.1) ----------------------------------------------------------------------


def field_multiplier(field: Iterable[str]) -> int:
    """The multiplier the six field cards of the deal give: 4, 2 or 1."""
    s = set(field)
    if s & GRAND_FIELD_LIGHTS:
        return 4
    if s & BIG_FIELD_LIGHTS:
        return 2
    return 1


def carry_floor(field: Iterable[str]) -> int:
    """The least multiplier this round's own six field cards give the next round (the
    carry-over of 2.1): it looks at this deal only, so a carried floor does not carry again
    (2.6)."""
    s = set(field)
    if s >= GRAND_FIELD_LIGHTS:
        return 4
    if len(s & BIG_FIELD_LIGHTS) >= 2:
        return 2
    return 1


def field_has_four_of_a_month(field: Iterable[str]) -> bool:
    """Whether the field holds four cards of one month, which calls for a redeal (2.6)."""
    return any(k == 4 for k in Counter(MONTH[c] for c in field).values())


# --- card count settlement (2.5, as seed 004 states it) ------------------------------------------


def count_transfers(
    counts: Mapping[int, int], players: Sequence[int]
) -> list[tuple[int, int, int]]:
    """The payments of the card count as ``(payer, payee, points)``, before the multiplier.

    One negative player pays both others their surplus; two negative players each pay the winner
    their deficit. The counts total 264, three times 88, so one of the two cases always holds
    unless everyone has exactly 88.
    """
    diff = {p: counts[p] - 88 for p in players}
    assert sum(diff.values()) == 0, counts
    negatives = [p for p in players if diff[p] < 0]
    out = []
    if len(negatives) == 1:
        loser = negatives[0]
        for q in players:
            if q != loser and diff[q] > 0:
                out.append((loser, q, diff[q]))
    elif len(negatives) == 2:
        (winner,) = [p for p in players if p not in negatives]
        for q in negatives:
            out.append((q, winner, -diff[q]))
    return out


# --- the game ------------------------------------------------------------------------------------


class Deal(TypedDict):
    """A checked deal, copied so that the game never changes the caller's lists."""

    hands: list[list[str]]
    field: list[str]
    stock: list[str]
    stock_after_drops: list[str] | None


class RoundRecord(TypedDict):
    """What a finished round leaves in ``HachiHachiGame.rounds``.

    ``teyaku`` maps each player with a teyaku to its ``(id, value)``; ``dekiyaku`` lists every
    dekiyaku paid as ``(seat, id)`` in the order paid (a ladder's rungs each appear, and
    all-eights and double-eights at the card count); ``ended_by`` is ``"shobu"``,
    ``"overtaken"`` or ``"count"``; ``counts`` maps each player to his card count, or is ``None``
    when the round did not end by the count; ``balances_after`` is every participant's balance
    once the round's payments, drop fees included, are made.
    """

    round: int
    dealer: int
    multiplier: int
    players: list[int]
    dropped: list[int]
    teyaku: dict[int, tuple[str, int]]
    dekiyaku: list[tuple[int, str]]
    ended_by: str
    winner: int
    counts: dict[int, int] | None
    balances_after: list[int]


class HachiHachiGame:
    """A game of Hachi-Hachi for 3 to 6 participants, played from the deals it is given.

    ``overrides`` may only hold ``"rounds"`` (12 by default). The deals are used in order, one
    for each round and one more for each redeal; running out of them raises ``RuntimeError``.
    Seats are numbered from 0, and after the first round the dealer is the last round's winner.

    Public state: ``balances`` (half points, one per participant, always summing to zero),
    ``rounds`` (a ``RoundRecord`` for each finished round), ``over``, ``winner`` (the seat with
    the highest final balance, ``None`` on a tie or before the end), and for the current round
    ``hands``, ``field``, ``stock``, ``captured`` (one pile per seat), ``players`` (the three
    joined seats in playing order, empty during the drop phase) and ``multiplier``.
    """

    def __init__(
        self,
        participants: int,
        overrides: Mapping[str, Any] | None,
        deals: Iterable[Mapping[str, Any]],
        first_dealer: int,
    ) -> None:
        """Check the options and the deals, and deal the first round; raises ``ValueError`` on a
        bad option or deal. The moves that need nobody's decision are made at once."""
        if not isinstance(participants, int) or not 3 <= participants <= 6:
            raise ValueError("participants must be 3 to 6")
        options = dict(overrides or {})
        for key in options:
            if key != "rounds":
                raise ValueError(f"unknown option {key!r}")
        total = options.get("rounds", 12)
        if not isinstance(total, int) or total < 1:
            raise ValueError("rounds must be an integer >= 1")
        if not isinstance(first_dealer, int) or not 0 <= first_dealer < participants:
            raise ValueError("bad first dealer")
        self.n = participants
        self.total_rounds = total
        self._deals = [self._check_deal(d) for d in deals]
        self._next_deal_index = 0

        self.balances = [0] * self.n
        self.rounds: list[RoundRecord] = []
        self.over = False
        self.winner: int | None = None
        self._floor = 1
        self._round_no = 0
        self._dealer = first_dealer
        self._start_round()

    # --- deals -----------------------------------------------------------------------------------

    def _check_deal(self, d: Mapping[str, Any]) -> Deal:
        n = self.n
        hands = [list(h) for h in d["hands"]]
        field = list(d["field"])
        stock = list(d["stock"])
        if len(hands) != n or any(len(h) != 7 for h in hands):
            raise ValueError("bad deal: need 7 cards per seat")
        if len(field) != 6:
            raise ValueError("bad deal: need 6 field cards")
        if len(stock) != 48 - 7 * n - 6:
            raise ValueError("bad deal: wrong stock size")
        everything = [c for h in hands for c in h] + field + stock
        if sorted(everything) != sorted(ALL_CARDS):
            raise ValueError("bad deal: not exactly the 48 cards")
        sad = d.get("stock_after_drops")
        if sad is not None:
            sad = list(sad)
            if len(sad) != 21 or len(set(sad)) != 21 or any(c not in MONTH for c in sad):
                raise ValueError("bad deal: stock_after_drops must be 21 distinct cards")
            # Which hands drop is only known in play, so the full check waits for _end_drop.
            if not set(stock) <= set(sad) or set(sad) & set(field):
                raise ValueError("bad deal: stock_after_drops must hold the stock")
        return {"hands": hands, "field": field, "stock": stock, "stock_after_drops": sad}

    def _take_deal(self) -> Deal:
        if self._next_deal_index >= len(self._deals):
            raise RuntimeError("out of deals")
        d = self._deals[self._next_deal_index]
        self._next_deal_index += 1
        return d

    # --- payments --------------------------------------------------------------------------------

    def _transfer(self, payer: int, payee: int, half_points: int) -> None:
        self.balances[payer] -= half_points
        self.balances[payee] += half_points

    def _pay_points(self, payer: int, payee: int, points: int) -> None:
        """Move ``points`` times the round's multiplier, in half points."""
        self._transfer(payer, payee, points * self.multiplier * 2)

    # --- round set-up ----------------------------------------------------------------------------

    def _start_round(self) -> None:
        self._round_no += 1
        # A field with a whole month is dealt again: no payment, same dealer, same floor, and it
        # is not a round.
        deal = self._take_deal()
        while field_has_four_of_a_month(deal["field"]):
            deal = self._take_deal()
        n = self.n
        self.hands = [list(h) for h in deal["hands"]]
        self.field = list(deal["field"])
        self.stock = list(deal["stock"])
        self._stock_after_drops = deal["stock_after_drops"]
        self.captured: list[list[str]] = [[] for _ in range(n)]
        self.multiplier = max(field_multiplier(self.field), self._floor)
        self._next_floor = carry_floor(self.field)

        self._drop_order = [(self._dealer + i) % n for i in range(n)]
        self._drop_pos = 0
        self._joined: list[int] = []
        self._dropped: list[int] = []
        self._fee_payers: list[int] = []
        self.players: list[int] = []
        self._teyaku: dict[int, tuple[str, int]] = {}
        self._dek_log: list[tuple[int, str]] = []
        # For each seat, what each dekiyaku group has paid him this round, so that a ladder's
        # higher rung pays only the difference.
        self._paid: list[dict[str, int]] = [{} for _ in range(n)]
        self._sage_caller: int | None = None
        # The total of the sage caller's first payment, what he refunds half of when overtaken.
        self._sage_first = 0
        self._last_payment = 0
        self._decider: int | None = None
        self._drawn: str | None = None
        self._turn_idx = 0

        if n == 3:
            self._joined = list(self._drop_order)
            self.players = list(self._drop_order)
            self._begin_play()
        else:
            self._phase = "drop"
            self._advance_drop()

    def _advance_drop(self) -> None:
        """Settle every participant who has no choice, up to the first who has one."""
        n = self.n
        while self._drop_pos < n:
            seat = self._drop_order[self._drop_pos]
            needed = 3 - len(self._joined)
            undecided = n - self._drop_pos
            if needed == 0:
                # Three have joined: the rest drop without a fee.
                self._dropped.append(seat)
                self._drop_pos += 1
                continue
            if undecided == needed:
                # Fewer than three would be left: the rest must join and are not asked.
                self._joined.append(seat)
                self._drop_pos += 1
                continue
            return
        self._end_drop()

    def _end_drop(self) -> None:
        dropped_cards = []
        for seat in sorted(self._dropped):
            dropped_cards.extend(self.hands[seat])
        if self._stock_after_drops is not None:
            if sorted(self._stock_after_drops) != sorted(self.stock + dropped_cards):
                raise RuntimeError("stock_after_drops is not the stock plus the dropped hands")
            self.stock = list(self._stock_after_drops)
        else:
            self.stock = self.stock + dropped_cards
        for seat in self._dropped:
            self.hands[seat] = []
        # The drop order starts at the dealer, so the joined seats are already in playing order
        # and a dropped dealer is followed by the first joined player after him.
        self.players = list(self._joined)
        self._begin_play()

    def _begin_play(self) -> None:
        assert len(self.players) == 3 and len(self.stock) == 21
        # Teyaku are declared before play, without a move, so they are paid here.
        for p in self.players:
            t = teyaku_of(self.hands[p])
            if t is not None:
                self._teyaku[p] = t
        for p in self.players:
            if p in self._teyaku:
                for q in self.players:
                    if q != p:
                        self._pay_points(q, p, self._teyaku[p][1])
        self._turn_idx = 0
        self._phase = "play"

    # --- public interface ------------------------------------------------------------------------

    def pending(self) -> tuple[int, str] | None:
        """Who must move and what kind of move, as ``(seat, kind)``; ``None`` once over."""
        if self.over:
            return None
        if self._phase == "drop":
            return (self._drop_order[self._drop_pos], "join-or-drop")
        if self._phase == "play":
            return (self.players[self._turn_idx], "play")
        if self._phase == "choose":
            return (self.players[self._turn_idx], "choose")
        if self._phase == "decide":
            assert self._decider is not None
            return (self._decider, "shobu-or-sage")
        raise AssertionError(self._phase)

    def legal_moves(self) -> list[Move]:
        """Every move the pending seat may make, in the module docstring's format; ``[]`` once
        over. A played card names its target only when two field cards match it."""
        if self.over:
            return []
        if self._phase == "drop":
            return [("join",), ("drop",)]
        if self._phase == "play":
            p = self.players[self._turn_idx]
            moves: list[Move] = []
            for card in self.hands[p]:
                moves.extend(plays(self.field, card))
            return moves
        if self._phase == "choose":
            assert self._drawn is not None
            return [("choose", t) for t in matches(self.field, self._drawn)]
        if self._phase == "decide":
            return [("shobu",), ("sage",)]
        raise AssertionError(self._phase)

    def apply(self, move: Sequence[str | None]) -> None:
        """Make the pending seat's move, then every step that needs nobody's decision (the
        draw, the end of the round, the next round's deal and forced drop decisions).

        Raises ``ValueError``, changing nothing, when the move is not in ``legal_moves()``.
        """
        move = tuple(move)
        if len(move) == 2 and move[0] == "play":
            move = (move[0], move[1], None)
        if move not in self.legal_moves():
            raise ValueError(f"illegal move {move!r}")
        kind = move[0]
        if kind in ("join", "drop"):
            seat = self._drop_order[self._drop_pos]
            if kind == "join":
                self._joined.append(seat)
            else:
                self._dropped.append(seat)
                # Only a voluntary drop owes a fee; forced drops are added in _advance_drop.
                self._fee_payers.append(seat)
            self._drop_pos += 1
            self._advance_drop()
        elif kind == "play":
            p = self.players[self._turn_idx]
            card, target = move[1], move[2]
            assert card is not None
            self.hands[p].remove(card)
            self._resolve(p, card, target)
            self._draw(p)
        elif kind == "choose":
            p = self.players[self._turn_idx]
            drawn, self._drawn = self._drawn, None
            assert drawn is not None
            self._resolve(p, drawn, move[1])
            self._end_turn(p)
        elif kind == "shobu":
            assert self._decider is not None
            self._end_round(self._decider, "shobu", None)
        elif kind == "sage":
            if self._sage_caller is None:
                self._sage_caller = self._decider
                self._sage_first = self._last_payment
            self._decider = None
            self._next_turn()
        else:
            raise AssertionError(move)

    # --- a turn ----------------------------------------------------------------------------------

    def _resolve(self, p: int, card: str, target: str | None) -> None:
        """Capture with one card, played or drawn, as in 1.3 step 1."""
        self.captured[p] += capture(self.field, card, target)

    def _draw(self, p: int) -> None:
        # Three hands of seven and a stock of 21 run out together, so this is only a guard.
        if not self.stock:
            self._end_turn(p)
            return
        card = self.stock.pop(0)
        if len(matches(self.field, card)) == 2:
            self._drawn = card
            self._phase = "choose"
            return
        self._resolve(p, card, None)
        self._end_turn(p)

    def _new_dekiyaku(self, p: int) -> list[tuple[str, int]]:
        """What p's captures form that he was not yet paid for, as ``(id, points due)`` in table
        order."""
        out = []
        for d, v in dekiyaku_held(self.captured[p]):
            already = self._paid[p].get(DEKIYAKU_GROUP[d], 0)
            if v > already:
                out.append((d, v - already))
        return out

    def _end_turn(self, p: int) -> None:
        # Dekiyaku are checked once a turn, after the draw, and all paid together (2.6).
        new = self._new_dekiyaku(p)
        if not new:
            self._next_turn()
            return
        caller = self._sage_caller
        if caller is not None and caller != p:
            self._overtake(p, caller)
            return
        total = sum(v for _, v in new)
        for d, _ in new:
            self._paid[p][DEKIYAKU_GROUP[d]] = DEKIYAKU_VALUE[d]
            self._dek_log.append((p, d))
        for q in self.players:
            if q != p:
                self._pay_points(q, p, total)
        self._last_payment = total
        self._decider = p
        self._phase = "decide"

    def _overtake(self, p: int, caller: int) -> None:
        held = dekiyaku_held(self.captured[p])
        # The overtaker is paid for everything he holds, not only what is new (2.6).
        total = sum(v for _, v in held)
        # Half of the first payment in points is the whole of it in half points.
        for q in self.players:
            if q != caller:
                self._transfer(caller, q, self._sage_first * self.multiplier)
        # Twice over: his own share and the third player's.
        self._pay_points(caller, p, 2 * total)
        for d, _ in held:
            self._dek_log.append((p, d))
        self._end_round(p, "overtaken", None)

    def _next_turn(self) -> None:
        if all(not self.hands[q] for q in self.players):
            self._end_by_count()
            return
        self._turn_idx = (self._turn_idx + 1) % 3
        self._phase = "play"

    # --- the end of a round ----------------------------------------------------------------------

    def _end_by_count(self) -> None:
        counts = {p: card_count(self.captured[p]) for p in self.players}
        for payer, payee, pts in count_transfers(counts, self.players):
            self._pay_points(payer, payee, pts)
        if all(counts[p] == 88 for p in self.players):
            # A dropped dealer cannot receive it: the first joined player after him takes his
            # place (2.6).
            receiver = self._dealer if self._dealer in self.players else self.players[0]
            for q in self.players:
                if q != receiver:
                    self._pay_points(q, receiver, 50)
            self._dek_log.append((receiver, "all-eights"))
        for p in self.players:
            if counts[p] >= 168:
                for q in self.players:
                    if q != p:
                        self._pay_points(q, p, 50)
                self._dek_log.append((p, "double-eights"))
        # Of equal best counts, the first in playing order wins and deals next (2.7).
        best = max(counts.values())
        winner = next(p for p in self.players if counts[p] == best)
        self._end_round(winner, "count", counts)

    def _end_round(self, winner: int, ended_by: str, counts: Mapping[int, int] | None) -> None:
        for d in self._fee_payers:
            self._pay_points(d, winner, 10)
        assert sum(self.balances) == 0
        self.rounds.append(
            {
                "round": self._round_no,
                "dealer": self._dealer,
                "multiplier": self.multiplier,
                "players": list(self.players),
                "dropped": list(self._dropped),
                "teyaku": dict(self._teyaku),
                "dekiyaku": list(self._dek_log),
                "ended_by": ended_by,
                "winner": winner,
                "counts": dict(counts) if counts is not None else None,
                "balances_after": list(self.balances),
            }
        )
        self._floor = self._next_floor
        self._decider = None
        if self._round_no >= self.total_rounds:
            self.over = True
            self._phase = "over"
            best = max(self.balances)
            top = [s for s in range(self.n) if self.balances[s] == best]
            self.winner = top[0] if len(top) == 1 else None
            return
        self._dealer = winner
        self._start_round()
