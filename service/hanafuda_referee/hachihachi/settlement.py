"""Money: the card count, the end-of-round settlement and the payments between the three players
(RULES.md 2.2, 2.4, 2.5 and 2.6).

Amounts are **half points** (:data:`Halves`), so that the half-dekiyaku refund of an overtaken sage
is exact: 35 points are 70 halves and its half, 17.5 points, is 35 halves. Every amount already
includes the field multiplier. The three players of a round are 0, 1 and 2; a payment moves an
amount from one to another, so balances always sum to zero.

>>> for payment in settle((108, 98, 58), multiplier=2):
...     print(payment)
2 pays 0 40 (card-count)
2 pays 1 20 (card-count)
>>> balance_deltas(settle((108, 98, 58), multiplier=2))
(80, 40, -120)
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import NamedTuple, TypeAlias

from hanafuda_referee.cards import ANIMALS, LIGHTS, PLAINS, RIBBONS
from hanafuda_referee.hachihachi.field import MULTIPLIERS
from hanafuda_referee.hachihachi.inputs import BadCardsError, check_cards

__all__ = [
    "ALL_EIGHTS_POINTS",
    "DECK_POINTS",
    "DOUBLE_EIGHTS_POINTS",
    "DOUBLE_EIGHTS_THRESHOLD",
    "PAR",
    "PLAYERS",
    "Halves",
    "Payment",
    "PaymentReason",
    "balance_deltas",
    "card_points",
    "collect",
    "count_winner",
    "halves",
    "payment_score",
    "points_text",
    "sage_overtaken",
    "settle",
]

#: An amount of money in half points.
Halves: TypeAlias = int

PLAYERS = 3
#: What a player's captures are measured against at the card count.
PAR = 88
#: The card points of the whole deck.
DECK_POINTS = 264
ALL_EIGHTS_POINTS = 50
DOUBLE_EIGHTS_POINTS = 50
DOUBLE_EIGHTS_THRESHOLD = 168


class PaymentReason(StrEnum):
    """Why money moved, for payments that are not a teyaku or dekiyaku of play (those carry
    their own :class:`~.teyaku.TeyakuId` / :class:`~.dekiyaku.DekiyakuId`)."""

    #: The card count: a player's result over or under 88.
    CARD_COUNT = "card-count"
    #: End-of-round dekiyaku: every player counted exactly 88.
    ALL_EIGHTS = "all-eights"
    #: End-of-round dekiyaku: a player counted 168 or more.
    DOUBLE_EIGHTS = "double-eights"
    #: An overtaken sage caller hands back half of his first dekiyaku payment.
    SAGE_REFUND = "sage-refund"
    #: An overtaken sage caller pays the overtaker's dekiyaku twice over.
    SAGE_OVERTAKEN = "sage-overtaken"
    #: A participant who dropped of his own choice pays his fee to the round's winner (the game
    #: flow makes this payment when the round ends; the scoring functions never do).
    DROP_FEE = "drop-fee"


class Payment(NamedTuple):
    """``payer`` gives ``payee`` ``amount`` half points (multiplier included), for ``reason``: a
    teyaku id, a dekiyaku id or a :class:`PaymentReason`."""

    payer: int
    payee: int
    amount: Halves
    reason: str

    def __str__(self) -> str:
        return f"{self.payer} pays {self.payee} {points_text(self.amount)} ({self.reason})"


def points_text(amount: Halves) -> str:
    """An amount in half points written in points, exact.

    >>> points_text(70), points_text(35), points_text(-35)
    ('35', '17.5', '-17.5')
    """
    sign = "-" if amount < 0 else ""
    whole, half = divmod(abs(amount), 2)
    return f"{sign}{whole}.5" if half else f"{sign}{whole}"


def halves(points: int) -> Halves:
    """``points`` as half points.

    >>> halves(35)
    70
    """
    return 2 * points


def card_points(captured: int) -> int:
    """The card count of ``captured``: light 20, animal 10, ribbon 5, plain 1, every card at its
    printed kind (the willow cards too, and the sake cup is an animal). The deck totals 264.

    >>> from hanafuda_referee.cards import DECK, WILLOWS
    >>> card_points(DECK), card_points(WILLOWS)
    (264, 36)

    Raises :class:`~.inputs.BadCardsError` unless ``captured`` is a set of cards.
    """
    check_cards(captured, what="captures")
    return (
        20 * (captured & LIGHTS).bit_count()
        + 10 * (captured & ANIMALS).bit_count()
        + 5 * (captured & RIBBONS).bit_count()
        + (captured & PLAINS).bit_count()
    )


def payment_score(captured: int) -> int:
    """The card count of ``captured`` less 88: won when positive, lost when negative.

    >>> from hanafuda_referee.cards import LIGHTS
    >>> payment_score(LIGHTS)
    12
    """
    return card_points(captured) - PAR


def _check_multiplier(multiplier: int) -> None:
    if multiplier not in MULTIPLIERS:
        raise ValueError(f"multiplier must be 1, 2 or 4, not {multiplier}")


def _check_player(player: int, what: str) -> None:
    if not 0 <= player < PLAYERS:
        raise ValueError(f"{what} must be a player 0, 1 or 2, not {player}")


def collect(payee: int, points: int, multiplier: int, reason: str) -> tuple[Payment, ...]:
    """Each other player pays ``payee`` ``points`` × ``multiplier``: how a teyaku, a dekiyaku
    and the end-of-round dekiyaku are paid.

    >>> collect(1, 20, 4, "lone-light")[0]
    Payment(payer=0, payee=1, amount=160, reason='lone-light')
    >>> [str(payment) for payment in collect(1, 20, 4, "lone-light")]
    ['0 pays 1 80 (lone-light)', '2 pays 1 80 (lone-light)']

    Raises ``ValueError`` for a player outside 0-2, a multiplier other than 1, 2 or 4, or
    points below 0. Zero points give no payments.
    """
    _check_player(payee, "payee")
    _check_multiplier(multiplier)
    if points < 0:
        raise ValueError(f"points must not be negative, not {points}")
    if points == 0:
        return ()
    amount = halves(points) * multiplier
    return tuple(
        Payment(payer, payee, amount, reason) for payer in range(PLAYERS) if payer != payee
    )


def sage_overtaken(
    caller: int, maker: int, first_points: int, new_points: int, multiplier: int
) -> tuple[Payment, ...]:
    """The payments when another player forms a dekiyaku before the sage ``caller`` forms a new
    one (RULES.md 2.4, 2.6): the caller refunds half of ``first_points`` (the total each player
    paid him at his first dekiyaku) to each of the two others, and pays the ``maker`` his
    ``new_points`` twice over, his own share and the third player's. Nobody else pays.

    >>> for payment in sage_overtaken(0, 2, 35, 50, 1):
    ...     print(payment)
    0 pays 1 17.5 (sage-refund)
    0 pays 2 17.5 (sage-refund)
    0 pays 2 100 (sage-overtaken)

    Raises ``ValueError`` when the caller is the maker, for a player outside 0-2, a multiplier
    other than 1, 2 or 4, or points that are not positive.
    """
    _check_player(caller, "caller")
    _check_player(maker, "maker")
    _check_multiplier(multiplier)
    if caller == maker:
        raise ValueError("the sage caller cannot overtake himself")
    if first_points <= 0 or new_points <= 0:
        raise ValueError("both dekiyaku payments must be positive")
    # Half of first_points points is exactly first_points halves.
    refunds = tuple(
        Payment(caller, other, first_points * multiplier, PaymentReason.SAGE_REFUND)
        for other in range(PLAYERS)
        if other != caller
    )
    double = Payment(
        caller, maker, 2 * halves(new_points) * multiplier, PaymentReason.SAGE_OVERTAKEN
    )
    return (*refunds, double)


def _check_counts(counts: tuple[int, ...]) -> None:
    if len(counts) != PLAYERS or any(c < 0 for c in counts) or sum(counts) != DECK_POINTS:
        raise BadCardsError(
            f"card counts {counts}: expected three counts of at least 0 totalling {DECK_POINTS}"
        )


def settle(
    # Any length: checking that there are three is this function's job (BadCardsError).
    counts: tuple[int, ...],
    multiplier: int,
    *,
    dealer: int = 0,
) -> tuple[Payment, ...]:
    """The end-of-round payments when the hands ran out (RULES.md 2.5), from the three card
    ``counts`` (:func:`card_points`), all × ``multiplier``:

    - the card count, each result being count − 88: a lone loser pays each winner his surplus,
      two losers each pay the winner their deficit (equal to 88: no payment either way);
    - ``all-eights``: every count is 88, so ``dealer`` (the dealer, or his stand-in when he
      dropped; players are numbered in playing order from him, hence 0 by default) receives 50
      from each other player;
    - ``double-eights``: a count of 168 or more receives 50 from each other player, on top of
      the card count.

    >>> for payment in settle((88, 88, 88), multiplier=1):
    ...     print(payment)
    1 pays 0 50 (all-eights)
    2 pays 0 50 (all-eights)
    >>> balance_deltas(settle((170, 50, 44), multiplier=1))
    (364, -176, -188)

    Raises :class:`~.inputs.BadCardsError` unless the counts are three numbers of at least 0
    totalling 264, and ``ValueError`` for a bad multiplier or dealer.
    """
    _check_counts(counts)
    _check_multiplier(multiplier)
    _check_player(dealer, "dealer")
    results = [count - PAR for count in counts]
    losers = [p for p in range(PLAYERS) if results[p] < 0]
    winners = [p for p in range(PLAYERS) if results[p] > 0]
    payments: list[Payment] = []
    if len(losers) == 1:
        (loser,) = losers
        payments.extend(
            Payment(loser, w, halves(results[w]) * multiplier, PaymentReason.CARD_COUNT)
            for w in winners
        )
    elif len(losers) == 2:
        # The results sum to zero, so two losers leave exactly one winner.
        (winner,) = winners
        payments.extend(
            Payment(loser, winner, halves(-results[loser]) * multiplier, PaymentReason.CARD_COUNT)
            for loser in losers
        )
    if all(result == 0 for result in results):
        payments.extend(collect(dealer, ALL_EIGHTS_POINTS, multiplier, PaymentReason.ALL_EIGHTS))
    for player, count in enumerate(counts):
        if count >= DOUBLE_EIGHTS_THRESHOLD:
            payments.extend(
                collect(player, DOUBLE_EIGHTS_POINTS, multiplier, PaymentReason.DOUBLE_EIGHTS)
            )
    return tuple(payments)


def count_winner(counts: tuple[int, ...]) -> int:  # any length: as settle()
    """The round's winner at a card count: the highest count, a tie going to the earlier player
    in playing order (RULES.md 2.7).

    >>> count_winner((88, 100, 76)), count_winner((100, 100, 64))
    (1, 0)

    Raises :class:`~.inputs.BadCardsError` as :func:`settle` does.
    """
    _check_counts(counts)
    # max() keeps the first of equal keys, and players are numbered in playing order.
    return max(range(PLAYERS), key=counts.__getitem__)


def balance_deltas(payments: Iterable[Payment]) -> tuple[Halves, Halves, Halves]:
    """How ``payments`` change each player's balance, in half points; the three sum to zero.

    >>> balance_deltas(collect(2, 10, 1, "triplet"))
    (-20, -20, 40)
    """
    deltas = [0] * PLAYERS
    for payment in payments:
        deltas[payment.payer] -= payment.amount
        deltas[payment.payee] += payment.amount
    return deltas[0], deltas[1], deltas[2]
