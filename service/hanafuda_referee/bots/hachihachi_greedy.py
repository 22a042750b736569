"""The ``greedy`` Hachi-Hachi bot: one look ahead.

A play is judged by the position it leaves (:mod:`.hachihachi_values`: the seat's worth less half
the two others'), plus what its own draw may take from the field it leaves, less what the next
two players may take from it (a field month they probably hold a card of; a card a declared
teyaku showed is known to be held). A drawn card's target is judged the same way. Sage or shōbu
by a simple risk rule: sage only with captures already worth the card count's par (88), cards
left to play, and no other player one card short of a dekiyaku. Join or drop: join with a teyaku
or a hand whose points, counting the cards that will capture from the field, reach an average
hand's.

>>> from hanafuda_referee.hachihachi.game import new_game
>>> from hanafuda_referee.hachihachi.rules import HachiHachiRules
>>> from hanafuda_referee.hachihachi.view import view
>>> state, _ = new_game(HachiHachiRules(), seed=3, participants=4, first_dealer=0)
>>> choose(view(state, 0)) in view(state, 0).legal_moves
True
"""

from __future__ import annotations

from math import comb

from hanafuda_referee.bots.hachihachi_values import card_worth, near, worth
from hanafuda_referee.cards import DECK, MONTH_MASKS, MONTH_OF
from hanafuda_referee.hachihachi.game import Phase
from hanafuda_referee.hachihachi.settlement import PAR
from hanafuda_referee.hachihachi.teyaku import classify_teyaku
from hanafuda_referee.hachihachi.view import HachiHachiView
from hanafuda_referee.moves import DROP, JOIN, SAGE, SHOBU, Move, MoveKind

__all__ = ["choose", "joins", "known_in_hands", "taken_by"]

#: The weight of the player after next, who plays once the next one has.
_LATER_PLAYER = 0.5
#: The weight of the other field months a player may take, beside the best one.
_OTHER_RISKS = 0.3
#: Join with a hand at least this strong (an average hand's card points are 38.5).
_JOIN_STRENGTH = 40
#: A hand card whose month lies on the field adds this much to the hand's strength.
_MATCH_BONUS = 5
#: Sage only with at least this many cards in hand.
_SAGE_HAND = 2


def taken_by(field: int, move: Move) -> int:
    """The cards a legal play takes (the played card included), 0 when it joins the field."""
    card, target = move.card, move.target
    same = field & MONTH_MASKS[MONTH_OF[card]]
    if not same:
        return 0
    if same.bit_count() == 2:
        return 1 << card | 1 << target
    return 1 << card | same


def known_in_hands(view: HachiHachiView) -> dict[int, int]:
    """By seat, the cards each other player is known to hold: those his declared teyaku showed
    and that have not been played since (they are neither on the field nor captured)."""
    out_of_hands = view.field | (1 << view.drawn if view.drawn else 0)
    for seat in view.seats:
        out_of_hands |= seat.captured
    known: dict[int, int] = {}
    for info in view.seats:
        if info.seat != view.seat and info.teyaku is not None and info.hand_size:
            cards = info.teyaku.exposed & ~out_of_hands
            if cards:
                known[info.seat] = cards
    return known


def joins(hand: int, field: int) -> bool:
    """The join rule: a teyaku, or a strong enough hand."""
    if hand.bit_count() == 7 and classify_teyaku(hand) is not None:
        return True
    strength = card_worth(hand)
    rest = hand
    while rest:
        low = rest & -rest
        rest ^= low
        if field & MONTH_MASKS[MONTH_OF[low.bit_length() - 1]]:
            strength += _MATCH_BONUS
    return strength >= _JOIN_STRENGTH


class _Position:
    """What one decision reads from the view, and the worth of the positions a move leads to."""

    def __init__(self, view: HachiHachiView) -> None:
        me = view.seat if view.seat is not None else view.turn
        self.me = me
        players = view.players
        at = players.index(me)
        self.others = (players[(at + 1) % 3], players[(at + 2) % 3])
        self.captured = {p: view.seats[p].captured for p in players}
        self.hand_size = {p: view.seats[p].hand_size for p in players}
        self.known = known_in_hands(view)
        drawn = 1 << view.drawn if view.drawn else 0
        seen = view.hand | view.field | drawn
        for cards in self.captured.values():
            seen |= cards
        for cards in self.known.values():
            seen |= cards
        self.unseen = DECK & ~seen
        self.stock_size = view.stock_size
        #: Balances already worked out: one decision asks for the same piles again and again
        #: (every play that takes nothing leaves them as they were).
        self._balances: dict[tuple[int, int, int], float] = {}

    def balance(self, captured: dict[int, int]) -> float:
        """The seat's worth less half the others' (money between three sums to zero)."""
        me, (a, b) = self.me, self.others
        mine, theirs_a, theirs_b = captured[me], captured[a], captured[b]
        key = (mine, theirs_a, theirs_b)
        known = self._balances.get(key)
        if known is None:
            known = self._balances[key] = worth(mine, theirs_a | theirs_b) - 0.5 * (
                worth(theirs_a, mine | theirs_b) + worth(theirs_b, mine | theirs_a)
            )
        return known

    def holds_one(self, seat: int, cards: int) -> float:
        """The chance that ``seat``'s hand holds one of ``cards`` at least."""
        known = self.known.get(seat, 0)
        if known & cards:
            return 1.0
        unseen = self.unseen.bit_count()
        k = (cards & self.unseen).bit_count()
        h = min(self.hand_size[seat] - known.bit_count(), unseen)
        if not k or h <= 0:
            return 0.0
        return 1.0 - comb(unseen - k, h) / comb(unseen, h)

    def risk(self, field: int, captured: dict[int, int]) -> float:
        """What the next two players may take from ``field`` on their turns."""
        before = self.balance(captured)
        total = 0.0
        for weight, seat in zip((1.0, _LATER_PLAYER), self.others, strict=True):
            risks: list[float] = []
            for month in range(1, 13):
                cards = field & MONTH_MASKS[month]
                if not cards:
                    continue
                chance = self.holds_one(seat, MONTH_MASKS[month])
                if not chance:
                    continue
                gain = max(
                    before - self.balance({**captured, seat: captured[seat] | take})
                    for take in _options(cards)
                )
                risks.append(chance * gain)
            if risks:
                risks.sort(reverse=True)
                total += weight * (risks[0] + _OTHER_RISKS * sum(risks[1:]))
        return total

    def draw_gain(self, field: int, captured: dict[int, int]) -> float:
        """What the seat's draw may add, on average over the cards the stock may hold."""
        unseen = self.unseen
        if not self.stock_size or not unseen:
            return 0.0
        before = self.balance(captured)
        me = self.me
        total = 0.0
        rest = unseen
        while rest:
            low = rest & -rest
            rest ^= low
            cards = field & MONTH_MASKS[MONTH_OF[low.bit_length() - 1]]
            if cards:
                total += max(
                    self.balance({**captured, me: captured[me] | low | take}) - before
                    for take in _options(cards)
                )
        return total / unseen.bit_count()

    def after(self, field: int, taken: int, draw: bool) -> float:
        captured = {**self.captured, self.me: self.captured[self.me] | taken}
        value = self.balance(captured) - self.risk(field, captured)
        if draw:
            value += self.draw_gain(field, captured)
        return value


def _options(cards: int) -> list[int]:
    if cards.bit_count() == 2:
        low = cards & -cards
        return [low, cards ^ low]
    return [cards]


def choose(view: HachiHachiView) -> Move:
    """The greedy move of ``view`` (which has legal moves)."""
    moves = view.legal_moves
    if view.phase is Phase.DROP:
        return JOIN if joins(view.hand, view.field) else DROP
    position = _Position(view)
    if view.phase is Phase.DECISION:
        return _sage_or_shobu(view, position)
    field = view.field
    best, best_worth = moves[0], float("-inf")
    for move in moves:
        if move.kind is MoveKind.CHOOSE_TARGET:
            taken = 1 << view.drawn | 1 << move.target
            value = position.after(field & ~taken, taken, draw=False)
        else:
            taken = taken_by(field, move)
            left = field & ~taken if taken else field | 1 << move.card
            value = position.after(left, taken, draw=True)
        if value > best_worth:
            best, best_worth = move, value
    return best


def _sage_or_shobu(view: HachiHachiView, position: _Position) -> Move:
    captured = position.captured
    mine = captured[position.me]
    a, b = position.others
    threat = near(captured[a], mine | captured[b]) or near(captured[b], mine | captured[a])
    if not threat and view.hand.bit_count() >= _SAGE_HAND and card_worth(mine) >= PAR:
        return SAGE
    return SHOBU
