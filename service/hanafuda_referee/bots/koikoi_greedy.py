"""The ``greedy`` Koi-Koi bot: one look ahead.

A play is judged by the position it leaves (:mod:`.koikoi_values`: the seat's worth less the
opponent's), plus what the seat's own draw may take from the field it leaves (the next stock card
is any unseen card, all equally likely), less what the opponent may take from it on the next turn
(a field month the opponent probably holds a card of). A drawn card's target is judged the same
way. Koi-koi or stop by a simple risk rule: call koi-koi only for a small score, with cards left to
play, while the opponent scores nothing and is not one card short of a yaku.

>>> from hanafuda_referee.koikoi.game import new_game
>>> from hanafuda_referee.koikoi.rules import KoiKoiRules
>>> from hanafuda_referee.koikoi.view import view
>>> state, _ = new_game(KoiKoiRules(), seed=3, first_dealer=0)
>>> choose(view(state, 0)) in view(state, 0).legal_moves
True
"""

from __future__ import annotations

from math import comb

from hanafuda_referee.bots.koikoi_values import KoiKoiValues, Pile, values_for
from hanafuda_referee.cards import DECK, MONTH_MASKS, MONTH_OF
from hanafuda_referee.koikoi.game import Phase
from hanafuda_referee.koikoi.rollout import stop_total
from hanafuda_referee.koikoi.view import KoiKoiView
from hanafuda_referee.moves import KOIKOI, STOP, Move, MoveKind

__all__ = ["choose", "taken_by"]

#: The weight of the other field months the opponent may take, beside the best one (he plays one
#: card a turn).
_OTHER_RISKS = 0.3
#: Koi-koi only below this score, with at least this many cards in hand.
_KOIKOI_BELOW = 5
_KOIKOI_HAND = 3


def taken_by(field: int, move: Move) -> int:
    """The cards a legal play or target choice takes (the played card included), 0 when the
    card joins the field. A play naming a field card of another month is the wild lightning's."""
    card, target = move.card, move.target
    if move.kind is MoveKind.CHOOSE_TARGET:
        raise ValueError("a target choice takes the drawn card and its target")
    same = field & MONTH_MASKS[MONTH_OF[card]]
    if target and MONTH_OF[target] != MONTH_OF[card]:
        return 1 << card | 1 << target
    if not same:
        return 0
    if same.bit_count() == 2:
        return 1 << card | 1 << target
    return 1 << card | same


class _Position:
    """What one decision reads from the view, and the worth of the positions a move leads to."""

    def __init__(self, view: KoiKoiView) -> None:
        me = view.seat if view.seat is not None else view.turn
        self.me, self.you = me, 1 - me
        self.values: KoiKoiValues = values_for(view.rules)
        self.month = view.month
        self.mine = view.seats[me].captured
        self.theirs = view.seats[1 - me].captured
        self.my_calls = view.seats[me].koikoi_calls
        self.their_calls = view.seats[1 - me].koikoi_calls
        drawn = 1 << view.drawn if view.drawn else 0
        self.unseen = DECK & ~(view.hand | view.field | self.mine | self.theirs | drawn)
        self.their_hand = view.seats[1 - me].hand_size
        self.stock_size = view.stock_size
        #: Balances already worked out: one decision asks for the same pair of piles again and
        #: again (every play that takes nothing leaves the seat's pile as it was).
        self._balances: dict[tuple[int, int], float] = {}
        self._piles: dict[tuple[int, int], Pile] = {}
        #: :meth:`holds_one` of each month's cards, asked once per month per play otherwise.
        self._holds_month: dict[int, float] = {}
        #: :meth:`_draw_gains` worked out, by month, the month's field cards and the seat's pile.
        self._month_gains: dict[tuple[int, int, int], tuple[float, ...]] = {}

    def balance(self, mine: int, theirs: int) -> float:
        """The seat's worth less the opponent's."""
        key = (mine, theirs)
        known = self._balances.get(key)
        if known is None:
            known = self._pile(mine, self.my_calls).worth(theirs) - self._pile(
                theirs, self.their_calls
            ).worth(mine)
            self._balances[key] = known
        return known

    def _pile(self, captured: int, calls: int) -> Pile:
        """The pile ``captured`` read once (one side of most balances is the same pile)."""
        key = (captured, calls)
        pile = self._piles.get(key)
        if pile is None:
            pile = self._piles[key] = self.values.pile(captured, self.month, calls)
        return pile

    def holds_one(self, cards: int) -> float:
        """The chance that the opponent's hand holds one of these unseen cards at least."""
        unseen = self.unseen.bit_count()
        k = (cards & self.unseen).bit_count()
        h = min(self.their_hand, unseen)
        if not k or not h:
            return 0.0
        return 1.0 - comb(unseen - k, h) / comb(unseen, h)

    def risk(self, field: int, mine: int) -> float:
        """What the opponent may gain on his next turn from ``field``: the months he probably
        holds a card of, each worth its best capture to him."""
        theirs = self.theirs
        before = self.balance(mine, theirs)
        risks: list[float] = []
        for month in range(1, 13):
            cards = field & MONTH_MASKS[month]
            if not cards:
                continue
            chance = self._holds_month.get(month)
            if chance is None:
                chance = self._holds_month[month] = self.holds_one(MONTH_MASKS[month])
            if not chance:
                continue
            gain = max(before - self.balance(mine, theirs | take) for take in _options(cards))
            risks.append(chance * gain)
        if not risks:
            return 0.0
        risks.sort(reverse=True)
        return risks[0] + _OTHER_RISKS * sum(risks[1:])

    def draw_gain(self, field: int, mine: int) -> float:
        """What the seat's draw may add, on average over the unseen cards."""
        unseen = self.unseen
        if not self.stock_size or not unseen:
            return 0.0
        total = 0.0
        # Month by month, in card order (a month's cards are consecutive), so that the sum is
        # the same as card by card; a month's gains are kept, since the plays of one decision
        # mostly leave a month's field cards and the seat's pile as they were.
        for month in range(1, 13):
            for gain in self._draw_gains(month, field & MONTH_MASKS[month], mine):
                total += gain
        return total / unseen.bit_count()

    def _draw_gains(self, month: int, cards: int, mine: int) -> tuple[float, ...]:
        """What drawing each unseen card of ``month`` adds, with ``cards`` of the month on the
        field: one gain per unseen card that takes something, in card order."""
        key = (month, cards, mine)
        known = self._month_gains.get(key)
        if known is not None:
            return known
        gains: list[float] = []
        rest = self.unseen & MONTH_MASKS[month]
        if cards and rest:
            theirs = self.theirs
            before = self.balance(mine, theirs)
            options = _options(cards)
            while rest:
                low = rest & -rest
                rest ^= low
                gains.append(
                    max(self.balance(mine | low | take, theirs) - before for take in options)
                )
        known = self._month_gains[key] = tuple(gains)
        return known

    def after(self, field: int, mine: int, draw: bool) -> float:
        """The worth of leaving ``field`` with captures ``mine``."""
        worth = self.balance(mine, self.theirs) - self.risk(field, mine)
        if draw:
            worth += self.draw_gain(field, mine)
        return worth


def _options(cards: int) -> list[int]:
    """The captures a card of the same month makes of ``cards`` (one to three field cards)."""
    if cards.bit_count() == 2:
        low = cards & -cards
        return [low, cards ^ low]
    return [cards]


def choose(view: KoiKoiView) -> Move:
    """The greedy move of ``view`` (which has legal moves)."""
    moves = view.legal_moves
    position = _Position(view)
    if view.phase is Phase.DECISION:
        return _koikoi_or_stop(view, position)
    field = view.field
    best, best_worth = moves[0], float("-inf")
    for move in moves:
        if move.kind is MoveKind.CHOOSE_TARGET:
            taken = 1 << view.drawn | 1 << move.target
            worth = position.after(field & ~taken, position.mine | taken, draw=False)
        else:
            taken = taken_by(field, move)
            left = field & ~taken if taken else field | 1 << move.card
            worth = position.after(left, position.mine | taken, draw=True)
        if worth > best_worth:
            best, best_worth = move, worth
    return best


def _koikoi_or_stop(view: KoiKoiView, position: _Position) -> Move:
    values, month = position.values, position.month
    mine, theirs = position.mine, position.theirs
    my_points = values.points(mine, month, position.my_calls)
    their_points = values.points(theirs, month, position.their_calls)
    score = stop_total(view.rules, my_points, position.my_calls, position.their_calls, their_points)
    threat = their_points > 0 or values.near(theirs, mine, month)
    if view.hand.bit_count() >= _KOIKOI_HAND and not threat and score < _KOIKOI_BELOW:
        return KOIKOI
    return STOP
