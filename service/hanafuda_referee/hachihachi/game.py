"""The Hachi-Hachi game: a pure state machine (RULES.md Part 2; ``docs/hachihachi.md``).

``apply(state, seat, move)`` gives ``(new_state, events)`` or raises
:class:`~hanafuda_referee.errors.MoveRejected` (states are immutable values, so a rejected move
changes nothing). The referee performs every step that needs no choice — the deal and redeals,
forced joins and free drops, shuffling the dropped hands into the stock, teyaku declarations and
payments, draws, captures with one match, the dekiyaku check, overtaken sages, the card count,
the next deal — and stops only where a seat must choose: join or drop, a hand card to play, the
target of a drawn card, sage or shōbu.

Seats are 0 to n−1 (3 to 6 participants), playing order is seat order. Money is in half points.

>>> from hanafuda_referee.hachihachi.rules import HachiHachiRules
>>> state, events = new_game(HachiHachiRules.from_preset("fudawiki"), seed=42, participants=3,
...                          first_dealer=0)
>>> state.phase.name, state.turn, state.players, sum(state.balances)
('PLAY', 0, (0, 1, 2), 0)
>>> state, events = apply(state, 0, legal_moves(state)[0])
>>> state.turn in (0, 1)
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import NamedTuple

from hanafuda_referee.capture import check_hand_play, matches, resolve, take_chosen
from hanafuda_referee.cards import (
    BLUE_RIBBONS,
    MONTH_MASKS,
    MONTH_OF,
    POETRY_RIBBONS,
    cards_of,
    full_months,
    mask_of,
)
from hanafuda_referee.dealing import (
    FIRST_DEALER_STREAM,
    Deal,
    check_deal,
    rng_for,
    shuffled_deal,
    shuffled_deck,
)
from hanafuda_referee.errors import MoveRejected, Reason, RulesError
from hanafuda_referee.hachihachi.dekiyaku import (
    INOSHIKACHO,
    Dekiyaku,
    DekiyakuId,
    DekiyakuPayment,
    dekiyaku_of,
    dekiyaku_payment,
)
from hanafuda_referee.hachihachi.events import (
    CardDrawn,
    CardPlayed,
    CardsCounted,
    DekiyakuFormed,
    Dropped,
    Event,
    FirstDealerDrawn,
    GameEnded,
    Joined,
    PaymentMade,
    PlayersChosen,
    Redeal,
    Resigned,
    RoundDealt,
    RoundEnded,
    RoundResult,
    SageCalled,
    SageOvertaken,
    ShobuCalled,
    TargetRequired,
    TeyakuDeclared,
)
from hanafuda_referee.hachihachi.field import (
    FIELD_SIZE,
    carry_floor,
    field_has_four,
    field_multiplier,
)
from hanafuda_referee.hachihachi.kinds import HH_LIGHTS, HH_PLAINS, HH_RIBBONS
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.hachihachi.settlement import (
    Payment,
    PaymentReason,
    card_points,
    collect,
    count_winner,
    halves,
    sage_overtaken,
    settle,
)
from hanafuda_referee.hachihachi.teyaku import HAND_SIZE, Teyaku, classify_teyaku
from hanafuda_referee.moves import DROP, JOIN, RESIGN, SAGE, SHOBU, Move, MoveKind

__all__ = [
    "DEKIYAKU_ORDER",
    "DROP_FEE_POINTS",
    "MAX_PARTICIPANTS",
    "MIN_PARTICIPANTS",
    "PLAYERS",
    "HachiHachiState",
    "Phase",
    "apply",
    "dekiyaku_paid",
    "legal_moves",
    "new_game",
    "resign",
    "seeded_deal",
    "stock_after_drops",
]

MIN_PARTICIPANTS = 3
MAX_PARTICIPANTS = 6
#: The players of a round.
PLAYERS = 3
#: A voluntary drop's fee, before the field multiplier (RULES.md 2.1).
DROP_FEE_POINTS = 10
#: The dekiyaku in table order; a seat's paid dekiyaku are kept as a bit mask over this order.
DEKIYAKU_ORDER: tuple[DekiyakuId, ...] = tuple(DekiyakuId)
_DEKIYAKU_BIT = {d: 1 << i for i, d in enumerate(DEKIYAKU_ORDER)}
# The least ribbons and plains that form seven-ribbons and plains-16.
_SEVEN_RIBBONS = 7
_SIXTEEN_PLAINS = 16


class Phase(IntEnum):
    """What the game waits for."""

    #: The seat to act joins or drops (4 to 6 participants).
    DROP = 1
    #: The seat to act plays a hand card.
    PLAY = 2
    #: The seat to act names the field card its drawn card takes.
    DRAWN_TARGET = 3
    #: The seat to act calls sage or shōbu after a dekiyaku payment.
    DECISION = 4
    #: The game is over.
    OVER = 5


class HachiHachiState(NamedTuple):
    """A whole Hachi-Hachi game at one instant. Card sets are bit masks; per-seat tuples are
    indexed by seat; money is in half points.

    - ``floor``: the least multiplier carried into this round; ``multiplier`` the round's;
      ``dealt_field`` the six cards dealt face up (the next round's floor comes from them).
    - ``joined`` / ``dropped`` / ``fees``: seat masks of the drop phase (``fees``: the seats
      that dropped of their own choice and owe the winner their fee).
    - ``aside``: the dropped hands, face down, until the drop phase ends and they are shuffled
      into the stock.
    - ``players``: the round's three seats in playing order from the dealer or his stand-in;
      empty during the drop phase.
    - ``stock``: the stock, top first; ``stock_pos`` the next card to draw.
    - ``paid``: per seat, the dekiyaku paid to him this round (a mask over
      :data:`DEKIYAKU_ORDER`); ``teyaku``: per seat, the teyaku declared at the deal.
    - ``sage``: the active sage caller (-1: none); ``first_points``: what each other player paid
      him at his first dekiyaku payment (the overtaken refund's base).
    - ``drawn``: the drawn card waiting for its target; ``payments``: this round's payments.
    """

    rules: HachiHachiRules
    seed: int
    participants: int
    prepared: tuple[Deal, ...]
    deals_made: int
    round: int
    dealer: int
    floor: int
    multiplier: int
    dealt_field: int
    balances: tuple[int, ...]
    results: tuple[RoundResult, ...]
    phase: Phase
    turn: int
    joined: int
    dropped: int
    fees: int
    aside: int
    players: tuple[int, ...]
    hands: tuple[int, ...]
    field: int
    stock: tuple[int, ...]
    stock_pos: int
    captured: tuple[int, ...]
    paid: tuple[int, ...]
    teyaku: tuple[Teyaku | None, ...]
    sage: int
    first_points: int
    drawn: int
    payments: tuple[Payment, ...]
    #: The seat that resigned (PLAY.md), -1 while nobody has: the game is then over.
    resigned: int = -1

    @property
    def stock_size(self) -> int:
        return len(self.stock) - self.stock_pos

    @property
    def table(self) -> int:
        """The drop fees on the table this round (half points), taken by the round's winner."""
        return self.fees.bit_count() * halves(DROP_FEE_POINTS) * self.multiplier

    @property
    def winner(self) -> int:
        """The seat with the highest balance, or -1 when it is shared (a drawn game)."""
        return _best(self.balances)


def dekiyaku_paid(mask: int) -> tuple[DekiyakuId, ...]:
    """The dekiyaku of a ``paid`` mask (:attr:`HachiHachiState.paid`), in table order.

    >>> dekiyaku_paid(0b101)
    (<DekiyakuId.AKATAN: 'akatan'>, <DekiyakuId.INOSHIKACHO: 'inoshikacho'>)
    """
    return tuple(d for i, d in enumerate(DEKIYAKU_ORDER) if (mask >> i) & 1)


def _paid_mask(ids: Iterable[DekiyakuId]) -> int:
    mask = 0
    for d in ids:
        mask |= _DEKIYAKU_BIT[d]
    return mask


def _best(balances: tuple[int, ...]) -> int:
    top = max(balances)
    return balances.index(top) if balances.count(top) == 1 else -1


def _put(values: tuple[int, ...], index: int, value: int) -> tuple[int, ...]:
    # Through a list: the quickest way to replace one item of a short tuple.
    items = list(values)
    items[index] = value
    return tuple(items)


class _Work:
    """A mutable scratch copy of a state: one move's steps edit it, then it is frozen again."""

    __slots__ = (*HachiHachiState._fields, "events")

    rules: HachiHachiRules
    seed: int
    participants: int
    prepared: tuple[Deal, ...]
    deals_made: int
    round: int
    dealer: int
    floor: int
    multiplier: int
    dealt_field: int
    balances: tuple[int, ...]
    results: tuple[RoundResult, ...]
    phase: Phase
    turn: int
    joined: int
    dropped: int
    fees: int
    aside: int
    players: tuple[int, ...]
    hands: tuple[int, ...]
    field: int
    stock: tuple[int, ...]
    stock_pos: int
    captured: tuple[int, ...]
    paid: tuple[int, ...]
    teyaku: tuple[Teyaku | None, ...]
    sage: int
    first_points: int
    drawn: int
    payments: tuple[Payment, ...]
    resigned: int
    events: list[Event]

    def __init__(self, state: HachiHachiState) -> None:
        # Spelled out rather than looped over the fields: this runs on every move.
        (
            self.rules,
            self.seed,
            self.participants,
            self.prepared,
            self.deals_made,
            self.round,
            self.dealer,
            self.floor,
            self.multiplier,
            self.dealt_field,
            self.balances,
            self.results,
            self.phase,
            self.turn,
            self.joined,
            self.dropped,
            self.fees,
            self.aside,
            self.players,
            self.hands,
            self.field,
            self.stock,
            self.stock_pos,
            self.captured,
            self.paid,
            self.teyaku,
            self.sage,
            self.first_points,
            self.drawn,
            self.payments,
            self.resigned,
        ) = state
        self.events = []

    def freeze(self) -> HachiHachiState:
        return HachiHachiState(
            self.rules,
            self.seed,
            self.participants,
            self.prepared,
            self.deals_made,
            self.round,
            self.dealer,
            self.floor,
            self.multiplier,
            self.dealt_field,
            self.balances,
            self.results,
            self.phase,
            self.turn,
            self.joined,
            self.dropped,
            self.fees,
            self.aside,
            self.players,
            self.hands,
            self.field,
            self.stock,
            self.stock_pos,
            self.captured,
            self.paid,
            self.teyaku,
            self.sage,
            self.first_points,
            self.drawn,
            self.payments,
            self.resigned,
        )

    def order(self) -> list[int]:
        """Every seat in playing order from the dealer."""
        n, dealer = self.participants, self.dealer
        return [(dealer + i) % n for i in range(n)]

    def pay(self, payments: Iterable[Payment]) -> None:
        """Move the money: balances change here and nowhere else, one event per payment."""
        balances = list(self.balances)
        made = tuple(payments)
        for p in made:
            balances[p.payer] -= p.amount
            balances[p.payee] += p.amount
            self.events.append(PaymentMade(p))
        self.balances = tuple(balances)
        self.payments += made


def _to_seats(players: tuple[int, ...], payments: Iterable[Payment]) -> tuple[Payment, ...]:
    """Payments between the round's players 0-2 (the scoring functions' numbering, in playing
    order from the dealer or his stand-in) as payments between seats."""
    return tuple(
        Payment(players[p.payer], players[p.payee], p.amount, str(p.reason)) for p in payments
    )


# --- creating a game -------------------------------------------------------------------------


def new_game(
    rules: HachiHachiRules,
    seed: int,
    participants: int = 3,
    deals: Sequence[Deal] = (),
    first_dealer: int | None = None,
) -> tuple[HachiHachiState, tuple[Event, ...]]:
    """A new game of ``participants`` (3 to 6) seats, dealt, waiting for the first decision.

    ``seed`` drives every shuffle and the first-dealer draw; ``deals`` are prepared deals (hands
    indexed by seat, 7 cards each; 6 field cards; the stock top first; optionally the stock after
    drops, see :func:`stock_after_drops`), taken in order by the game's deals (a redeal takes
    the next one), shuffles following them. ``first_dealer`` is a seat; without it the first
    dealer is drawn at random from the seed.

    >>> from hanafuda_referee.hachihachi.rules import HachiHachiRules
    >>> state, _ = new_game(HachiHachiRules(), seed=3, participants=5, first_dealer=2)
    >>> state.phase.name, state.turn, [bin(h).count("1") for h in state.hands]
    ('DROP', 2, [7, 7, 7, 7, 7])

    Raises :class:`RulesError` (``BAD_OPTION_VALUE``) for a participant count outside 3-6 or
    (``BAD_DEAL``) for a bad prepared deal, and :class:`MoveRejected` (``UNKNOWN_SEAT``) for a
    first dealer who is no seat.
    """
    if type(participants) is not int or not MIN_PARTICIPANTS <= participants <= MAX_PARTICIPANTS:
        raise RulesError(
            Reason.BAD_OPTION_VALUE,
            f"participants cannot be {participants!r}; allowed: "
            f"{MIN_PARTICIPANTS} to {MAX_PARTICIPANTS}",
            "participants",
        )
    prepared = tuple(check_deal(d, participants, HAND_SIZE, FIELD_SIZE, PLAYERS) for d in deals)
    if first_dealer is not None and not 0 <= first_dealer < participants:
        raise MoveRejected(
            Reason.UNKNOWN_SEAT,
            f"first dealer must be a seat 0 to {participants - 1}, not {first_dealer}",
        )
    zeros = (0,) * participants
    state = HachiHachiState(
        rules=rules,
        seed=seed,
        participants=participants,
        prepared=prepared,
        deals_made=0,
        round=0,
        dealer=0,
        floor=1,
        multiplier=1,
        dealt_field=0,
        balances=zeros,
        results=(),
        phase=Phase.PLAY,
        turn=0,
        joined=0,
        dropped=0,
        fees=0,
        aside=0,
        players=(),
        hands=zeros,
        field=0,
        stock=(),
        stock_pos=0,
        captured=zeros,
        paid=zeros,
        teyaku=(None,) * participants,
        sage=-1,
        first_points=0,
        drawn=0,
        payments=(),
    )
    w = _Work(state)
    if first_dealer is None:
        w.dealer = rng_for(seed, FIRST_DEALER_STREAM).randrange(participants)
        w.events.append(FirstDealerDrawn(w.dealer))
    else:
        w.dealer = first_dealer
    _start_round(w)
    return w.freeze(), tuple(w.events)


# --- the deal and the drop phase -------------------------------------------------------------


def seeded_deal(seed: int, number: int, participants: int, dealer: int) -> Deal:
    """Deal number ``number`` of a game with this seed when it is not a prepared one: a fair
    shuffle, 7 cards to each participant, the dealer first and then in playing order, then 6
    to the field; the rest is the stock.

    >>> deal = seeded_deal(seed=5, number=0, participants=4, dealer=1)
    >>> [len(h) for h in deal.hands], len(deal.field), len(deal.stock)
    ([7, 7, 7, 7], 6, 14)
    """
    dealt = shuffled_deal(seed, number, participants, HAND_SIZE, FIELD_SIZE)
    # shuffled_deal hands out from seat 0; here the i-th hand dealt is the dealer's i-th seat on.
    hands = tuple(dealt.hands[(seat - dealer) % participants] for seat in range(participants))
    return dealt._replace(hands=hands)


def stock_after_drops(
    seed: int, number: int, stock: Sequence[int], aside: int, prepared: Sequence[int] = ()
) -> tuple[int, ...]:
    """The stock the three players draw from once the dropped hands (the cards ``aside``, a
    set) have joined the ``stock`` of deal number ``number``: ``prepared`` (the deal's own
    stock after drops) when it holds exactly those cards, else a shuffle from the deal's own
    random stream, continued past the draw that shuffled the deal, so that the order depends on
    the seed and the deal number alone (prepared deals included).

    >>> deal = seeded_deal(seed=5, number=0, participants=4, dealer=1)
    >>> aside = mask_of(deal.hands[3])
    >>> after = stock_after_drops(5, 0, deal.stock, aside)
    >>> len(after), mask_of(after) == mask_of(deal.stock) | aside
    (21, True)
    >>> stock_after_drops(5, 0, deal.stock, aside, after[::-1]) == after[::-1]
    True
    """
    if prepared and mask_of(prepared) == mask_of(stock) | aside:
        return tuple(prepared)
    rng = rng_for(seed, number)
    shuffled_deck(rng)
    cards = [*stock, *(int(c) for c in cards_of(aside))]
    rng.shuffle(cards)
    return tuple(cards)


def _next_deal(w: _Work) -> tuple[tuple[int, ...], int, tuple[int, ...]]:
    """The next deal's hands (by seat), field and stock."""
    number = w.deals_made
    w.deals_made = number + 1
    if number < len(w.prepared):
        deal = w.prepared[number]
    else:
        deal = seeded_deal(w.seed, number, w.participants, w.dealer)
    return deal.hand_masks(), mask_of(deal.field), deal.stock


def _start_round(w: _Work) -> None:
    """Deal round ``w.round + 1`` (redealing a field with four of a month), then run the drop
    phase up to the first participant who must choose, or straight into play."""
    w.round += 1
    n = w.participants
    while True:
        number = w.deals_made
        hands, field, stock = _next_deal(w)
        w.hands, w.field, w.dealt_field = hands, field, field
        w.stock, w.stock_pos = stock, 0
        w.multiplier = field_multiplier(field, w.floor)
        w.events.append(
            RoundDealt(w.round, number, w.dealer, hands, field, len(stock), w.multiplier)
        )
        if not field_has_four(field):
            break
        # Same dealer, same floor, no payments: only the deal number moves on.
        w.events.append(Redeal(full_months(field)))
    zeros = (0,) * n
    w.captured, w.paid, w.teyaku = zeros, zeros, (None,) * n
    w.joined = w.dropped = w.fees = w.aside = 0
    w.players, w.payments = (), ()
    w.sage, w.first_points, w.drawn = -1, 0, 0
    if n == PLAYERS:
        w.joined = (1 << n) - 1
        _choose_players(w)
    else:
        _advance_drop(w)


def _drop(w: _Work, seat: int, fee: int, forced: bool) -> None:
    bit = 1 << seat
    w.dropped |= bit
    if fee:
        w.fees |= bit
    # The hand goes face down aside: nobody sees it again, and it joins the stock at the end
    # of the drop phase.
    w.aside |= w.hands[seat]
    w.hands = _put(w.hands, seat, 0)
    w.events.append(Dropped(seat, fee, forced))


def _advance_drop(w: _Work) -> None:
    """Make every decision that needs no choice, in playing order from the dealer, and stop at
    the first participant who must choose; once three have joined, start the play."""
    for seat in w.order():
        bit = 1 << seat
        if (w.joined | w.dropped) & bit:
            continue
        joins = w.joined.bit_count()
        if joins == PLAYERS:
            _drop(w, seat, 0, True)
            continue
        undecided = w.participants - (w.joined | w.dropped).bit_count()
        if undecided == PLAYERS - joins:
            # Everyone left is needed: he is not asked.
            w.joined |= bit
            w.events.append(Joined(seat, True))
            continue
        w.turn = seat
        w.phase = Phase.DROP
        return
    _choose_players(w)


def _choose_players(w: _Work) -> None:
    """The three players are known: shuffle the dropped hands into the stock, declare and pay
    the teyaku, and hand the first turn to the dealer or his stand-in."""
    players = tuple(s for s in w.order() if (w.joined >> s) & 1)
    w.players = players
    if w.aside:
        number = w.deals_made - 1
        prepared = w.prepared[number].stock_after_drops if number < len(w.prepared) else ()
        w.stock = stock_after_drops(w.seed, number, w.stock[w.stock_pos :], w.aside, prepared)
        w.stock_pos, w.aside = 0, 0
    w.events.append(PlayersChosen((players[0], players[1], players[2]), len(w.stock)))
    for index, seat in enumerate(players):
        teyaku = classify_teyaku(w.hands[seat])
        if teyaku is not None:
            w.teyaku = (*w.teyaku[:seat], teyaku, *w.teyaku[seat + 1 :])
            w.events.append(TeyakuDeclared(seat, teyaku))
            w.pay(_to_seats(players, collect(index, teyaku.value, w.multiplier, teyaku.id)))
    w.turn = players[0]
    w.phase = Phase.PLAY


# --- turns -----------------------------------------------------------------------------------


def _take(w: _Work, seat: int, cards: int) -> None:
    w.field &= ~cards
    w.captured = _put(w.captured, seat, w.captured[seat] | cards)


def _play(w: _Work, seat: int, card: int, target: int) -> None:
    hand = w.hands[seat]
    check_hand_play(hand, card, target)
    taken = resolve(w.field, card, target)
    w.hands = _put(w.hands, seat, hand & ~(1 << card))
    if taken:
        _take(w, seat, taken)
    else:
        w.field |= 1 << card
    w.events.append(CardPlayed(seat, card, taken))
    _draw(w, seat)


def _draw(w: _Work, seat: int) -> None:
    if w.stock_pos >= len(w.stock):
        _end_turn(w)
        return
    card = w.stock[w.stock_pos]
    w.stock_pos += 1
    m = matches(w.field, card)
    if m.bit_count() == 2:
        w.drawn = card
        w.phase = Phase.DRAWN_TARGET
        w.events.append(TargetRequired(seat, card, m))
        return
    taken = (1 << card) | m if m else 0
    if taken:
        _take(w, seat, taken)
    else:
        w.field |= 1 << card
    w.events.append(CardDrawn(seat, card, taken))
    _end_turn(w)


def _choose(w: _Work, seat: int, target: int) -> None:
    card = w.drawn
    taken = take_chosen(w.field, card, target)
    _take(w, seat, taken)
    w.drawn = 0
    w.events.append(CardDrawn(seat, card, taken))
    _end_turn(w)


def _may_form(captured: int) -> bool:
    """Whether ``captured`` holds any dekiyaku: the same tests as :func:`dekiyaku_of` without
    building one, since most turns form none and this runs after every turn."""
    return (
        captured & POETRY_RIBBONS == POETRY_RIBBONS
        or captured & BLUE_RIBBONS == BLUE_RIBBONS
        or captured & INOSHIKACHO == INOSHIKACHO
        or captured & HH_LIGHTS == HH_LIGHTS
        or (captured & HH_RIBBONS).bit_count() >= _SEVEN_RIBBONS
        or (captured & HH_PLAINS).bit_count() >= _SIXTEEN_PLAINS
    )


def _end_turn(w: _Work) -> None:
    """The dekiyaku check, once per turn after the draw (RULES.md 2.6)."""
    seat = w.turn
    captured = w.captured[seat]
    if _may_form(captured):
        formed = dekiyaku_of(captured)
        if formed:
            due = dekiyaku_payment(dekiyaku_paid(w.paid[seat]), formed)
            if due.points:
                _dekiyaku(w, seat, formed, due)
                return
    _next_turn(w)


def _dekiyaku(w: _Work, seat: int, formed: tuple[Dekiyaku, ...], due: DekiyakuPayment) -> None:
    players = w.players
    index = players.index(seat)
    w.paid = _put(w.paid, seat, _paid_mask(due.paid))
    w.events.append(DekiyakuFormed(seat, due.dues, due.points))
    caller = w.sage
    if caller >= 0 and caller != seat:
        # Another player's sage is active: it is overtaken. The maker is owed everything his
        # captures form now, paid twice over by the caller alone; the round ends.
        new_points = dekiyaku_payment((), formed).points
        w.events.append(SageOvertaken(caller, seat, w.first_points, new_points))
        w.pay(
            _to_seats(
                players,
                sage_overtaken(
                    players.index(caller), index, w.first_points, new_points, w.multiplier
                ),
            )
        )
        _end_round(w, "overtaken", seat, ())
        return
    for d in due.dues:
        w.pay(_to_seats(players, collect(index, d.points, w.multiplier, d.dekiyaku.id)))
    if caller < 0 and not w.first_points:
        # Only the one player who can be paid before any sage: his first payment is the base of
        # the refund should his sage be overtaken.
        w.first_points = due.points
    w.phase = Phase.DECISION


def _next_turn(w: _Work) -> None:
    players = w.players
    hands = w.hands
    if not (hands[players[0]] | hands[players[1]] | hands[players[2]]):
        _count(w)
        return
    w.turn = players[(players.index(w.turn) + 1) % PLAYERS]
    w.phase = Phase.PLAY


def _count(w: _Work) -> None:
    """The hands ran out with no shōbu and no overtake: the card count (RULES.md 2.5)."""
    players = w.players
    counts = (
        card_points(w.captured[players[0]]),
        card_points(w.captured[players[1]]),
        card_points(w.captured[players[2]]),
    )
    w.events.append(CardsCounted((players[0], players[1], players[2]), counts))
    # Player 0 is the dealer or his stand-in: the all-eights receiver.
    w.pay(_to_seats(players, settle(counts, w.multiplier, dealer=0)))
    _end_round(w, "count", players[count_winner(counts)], counts)


def _end_round(w: _Work, outcome: str, winner: int, counts: tuple[int, ...]) -> None:
    fee = halves(DROP_FEE_POINTS) * w.multiplier
    w.pay(
        Payment(seat, winner, fee, PaymentReason.DROP_FEE.value)
        for seat in w.order()
        if (w.fees >> seat) & 1
    )
    players = w.players
    result = RoundResult(
        w.round,
        w.dealer,
        w.multiplier,
        (players[0], players[1], players[2]),
        outcome,
        winner,
        counts,
        w.payments,
    )
    w.results += (result,)
    w.events.append(RoundEnded(result, w.balances))
    w.dealer = winner
    w.floor = carry_floor(w.dealt_field)
    w.drawn = 0
    if w.round >= w.rules.rounds:
        w.phase = Phase.OVER
        w.events.append(GameEnded(w.balances, _best(w.balances)))
        return
    _start_round(w)


# --- moves -----------------------------------------------------------------------------------

#: Every play move, interned: ``_PLAYS[card][target]`` (listing legal moves is a hot path).
_PLAYS = tuple(tuple(Move(MoveKind.PLAY, c, t) for t in range(49)) for c in range(49))
_CHOICES = tuple(Move(MoveKind.CHOOSE_TARGET, 0, t) for t in range(49))

_EXPECTED: dict[Phase, tuple[MoveKind, ...]] = {
    Phase.DROP: (MoveKind.JOIN, MoveKind.DROP),
    Phase.PLAY: (MoveKind.PLAY,),
    Phase.DRAWN_TARGET: (MoveKind.CHOOSE_TARGET,),
    Phase.DECISION: (MoveKind.SAGE, MoveKind.SHOBU),
}
_AWAITED = {
    Phase.DROP: "join or drop",
    Phase.PLAY: "a hand card to play",
    Phase.DRAWN_TARGET: "the target of the drawn card",
    Phase.DECISION: "sage or shobu",
}


def apply(
    state: HachiHachiState, seat: int, move: Move
) -> tuple[HachiHachiState, tuple[Event, ...]]:
    """The state after ``seat`` makes ``move``, and what happened.

    Raises :class:`MoveRejected` (the state is untouched: it is a value) with one of
    ``GAME_OVER``, ``UNKNOWN_SEAT``, ``NOT_YOUR_TURN`` (also for a seat that dropped out),
    ``MOVE_NOT_IN_GAME`` (koi-koi, stop), ``WRONG_MOVE``, ``NO_DECISION_PENDING`` (sage or
    shōbu while a hand card or a join/drop is awaited), ``MALFORMED_MOVE``,
    ``CARD_NOT_IN_HAND``, ``TARGET_REQUIRED``, ``TARGET_DOES_NOT_MATCH``.

    >>> from hanafuda_referee.hachihachi.rules import HachiHachiRules
    >>> state, _ = new_game(HachiHachiRules(), seed=1, participants=4, first_dealer=0)
    >>> state, events = apply(state, 0, DROP)
    >>> events[0] == Dropped(seat=0, fee=20 * state.multiplier, forced=False), state.turn
    (True, 1)
    >>> apply(state, 0, JOIN)
    Traceback (most recent call last):
    ...
    hanafuda_referee.errors.MoveRejected: seat 0 dropped out of this round; seat 1 is to act
    """
    phase = state.phase
    if phase is Phase.OVER:
        raise MoveRejected(Reason.GAME_OVER, "the game is over")
    n = state.participants
    if type(seat) is not int or not 0 <= seat < n:
        raise MoveRejected(Reason.UNKNOWN_SEAT, f"this game has seats 0 to {n - 1}, not {seat}")
    if move.kind is MoveKind.RESIGN:
        return resign(state, seat, move)
    if seat != state.turn:
        out = (state.dropped >> seat) & 1
        who = f"seat {seat} dropped out of this round; " if out else ""
        raise MoveRejected(Reason.NOT_YOUR_TURN, f"{who}seat {state.turn} is to act")
    kind = move.kind
    if kind is MoveKind.KOIKOI or kind is MoveKind.STOP:
        raise MoveRejected(Reason.MOVE_NOT_IN_GAME, f"Hachi-Hachi has no {kind.name.lower()} move")
    if kind not in _EXPECTED[phase]:
        decision = kind is MoveKind.SAGE or kind is MoveKind.SHOBU
        reason = (
            Reason.NO_DECISION_PENDING
            if decision and phase is not Phase.DRAWN_TARGET
            else Reason.WRONG_MOVE
        )
        raise MoveRejected(reason, f"the game waits for {_AWAITED[phase]}")
    if (kind is not MoveKind.PLAY and move.card) or (
        kind is not MoveKind.PLAY and kind is not MoveKind.CHOOSE_TARGET and move.target
    ):
        takes = "a target only" if kind is MoveKind.CHOOSE_TARGET else "no card and no target"
        raise MoveRejected(Reason.MALFORMED_MOVE, f"a {kind.name.lower()} move takes {takes}")
    w = _Work(state)
    if kind is MoveKind.PLAY:
        _play(w, seat, move.card, move.target)
    elif kind is MoveKind.CHOOSE_TARGET:
        _choose(w, seat, move.target)
    elif kind is MoveKind.JOIN:
        w.joined |= 1 << seat
        w.events.append(Joined(seat, False))
        _advance_drop(w)
    elif kind is MoveKind.DROP:
        _drop(w, seat, halves(DROP_FEE_POINTS) * w.multiplier, False)
        _advance_drop(w)
    elif kind is MoveKind.SAGE:
        w.sage = seat
        w.events.append(SageCalled(seat))
        _next_turn(w)
    else:
        w.events.append(ShobuCalled(seat))
        _end_round(w, "shobu", seat, ())
    return w.freeze(), tuple(w.events)


def resign(
    state: HachiHachiState, seat: int, move: Move = RESIGN
) -> tuple[HachiHachiState, tuple[Event, ...]]:
    """``seat`` gives up (PLAY.md): the round in progress ends void (its payments so far are
    taken back, no result is recorded) and the game ends; the standings are the balances of the
    finished rounds, with no penalty. Open to every seat (one sitting the round out included)
    in any phase, on turn or not.

    >>> from hanafuda_referee.hachihachi.rules import HachiHachiRules
    >>> state, _ = new_game(HachiHachiRules(), seed=1, participants=3, first_dealer=0)
    >>> over, events = apply(state, 2, RESIGN)
    >>> over.phase.name, over.balances, events[-1]
    ('OVER', (0, 0, 0), GameEnded(balances=(0, 0, 0), winner=-1, resigned=2))
    """
    if state.phase is Phase.OVER:
        raise MoveRejected(Reason.GAME_OVER, "the game is over")
    n = state.participants
    if type(seat) is not int or not 0 <= seat < n:
        raise MoveRejected(Reason.UNKNOWN_SEAT, f"this game has seats 0 to {n - 1}, not {seat}")
    if move.card or move.target:
        raise MoveRejected(Reason.MALFORMED_MOVE, "a resign move takes no card and no target")
    balances = list(state.balances)
    for p in state.payments:
        balances[p.payer] += p.amount
        balances[p.payee] -= p.amount
    final = tuple(balances)
    over = state._replace(phase=Phase.OVER, balances=final, payments=(), drawn=0, resigned=seat)
    return over, (Resigned(seat), GameEnded(final, _best(final), seat))


def legal_moves(state: HachiHachiState, seat: int | None = None) -> list[Move]:
    """Every move the seat to act may make (none for another ``seat``, or once the game is over).
    A resignation, open to every seat at any time, is not listed.

    A play lists a target only where one is required (two matches); :func:`apply` also accepts
    a play naming its single match, or one of three matches, as the same move.

    >>> from hanafuda_referee.hachihachi.rules import HachiHachiRules
    >>> state, _ = new_game(HachiHachiRules(), seed=1, participants=6, first_dealer=5)
    >>> legal_moves(state), legal_moves(state, 0)
    ([Move(kind=<MoveKind.JOIN: 7>, card=0, target=0), Move(kind=<MoveKind.DROP: 8>, \
card=0, target=0)], [])
    """
    phase = state.phase
    if phase is Phase.OVER or (seat is not None and seat != state.turn):
        return []
    if phase is Phase.DROP:
        return [JOIN, DROP]
    if phase is Phase.DECISION:
        return [SAGE, SHOBU]
    field = state.field
    if phase is Phase.DRAWN_TARGET:
        return [_CHOICES[c] for c in cards_of(matches(field, state.drawn))]
    moves: list[Move] = []
    hand = state.hands[state.turn]
    while hand:
        low = hand & -hand
        card = low.bit_length() - 1
        hand ^= low
        m = field & MONTH_MASKS[MONTH_OF[card]]
        if m.bit_count() == 2:
            low_m = m & -m
            plays = _PLAYS[card]
            moves.append(plays[low_m.bit_length() - 1])
            moves.append(plays[(m ^ low_m).bit_length() - 1])
        else:
            moves.append(_PLAYS[card][0])
    return moves
