"""Card points, the end-of-round settlement, the payment helpers, and balances summing to zero."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hanafuda_referee.cards import (
    ANIMALS,
    BLUE_RIBBONS,
    DECK,
    LIGHTS,
    PLAINS,
    POETRY_RIBBONS,
    RIBBONS,
    WILLOWS,
    Card,
    mask_of,
)
from hanafuda_referee.errors import Reason
from hanafuda_referee.hachihachi import (
    PAR,
    BadCardsError,
    DekiyakuId,
    Payment,
    PaymentReason,
    balance_deltas,
    card_points,
    collect,
    count_winner,
    dekiyaku_of,
    dekiyaku_payment,
    halves,
    payment_score,
    sage_overtaken,
    settle,
)
from hanafuda_referee.hachihachi.dekiyaku import INOSHIKACHO
from hanafuda_referee.hachihachi.settlement import points_text

from ._cards import cards

R = PaymentReason
MULTIPLIERS = (1, 2, 4)


def rows(payments: tuple[Payment, ...]) -> list[tuple[int, int, int, str]]:
    return [(p.payer, p.payee, p.amount, str(p.reason)) for p in payments]


# --- card points ---------------------------------------------------------------------------------


def test_the_deck_totals_264() -> None:
    assert card_points(DECK) == 264
    assert card_points(0) == 0
    assert payment_score(DECK) == 264 - 88


@pytest.mark.parametrize(
    ("kind", "each", "count"),
    [(LIGHTS, 20, 5), (ANIMALS, 10, 9), (RIBBONS, 5, 10), (PLAINS, 1, 24)],
)
def test_card_values_by_kind(kind: int, each: int, count: int) -> None:
    assert card_points(kind) == each * count


def test_willow_cards_count_at_their_own_kind() -> None:
    assert card_points(Card.WILLOW_RAINMAN.mask) == 20
    assert card_points(Card.WILLOW_SWALLOW.mask) == 10
    assert card_points(Card.WILLOW_RIBBON.mask) == 5
    assert card_points(Card.WILLOW_LIGHTNING.mask) == 1
    assert card_points(WILLOWS) == 36
    assert card_points(Card.CHRYSANTHEMUM_SAKE.mask) == 10


def test_payment_score_is_the_count_less_88() -> None:
    assert PAR == 88
    captured = LIGHTS | cards("maple-deer", "pine-plain-1")
    assert payment_score(captured) == 100 + 10 + 1 - 88
    assert payment_score(cards("pine-plain-1")) == -87


def test_card_points_checks_its_input() -> None:
    with pytest.raises(BadCardsError) as raised:
        card_points(1 << 49)
    assert raised.value.reason is Reason.BAD_CARDS


# --- the card count ------------------------------------------------------------------------------


@pytest.mark.parametrize("multiplier", MULTIPLIERS)
def test_one_loser_pays_each_winner_his_surplus(multiplier: int) -> None:
    payments = settle((120, 100, 44), multiplier)
    assert rows(payments) == [
        (2, 0, 2 * 32 * multiplier, "card-count"),
        (2, 1, 2 * 12 * multiplier, "card-count"),
    ]
    assert balance_deltas(payments) == (64 * multiplier, 24 * multiplier, -88 * multiplier)


@pytest.mark.parametrize("multiplier", MULTIPLIERS)
def test_two_losers_each_pay_the_winner_their_deficit(multiplier: int) -> None:
    payments = settle((54, 150, 60), multiplier)
    assert rows(payments) == [
        (0, 1, 2 * 34 * multiplier, "card-count"),
        (2, 1, 2 * 28 * multiplier, "card-count"),
    ]


def test_a_player_at_exactly_88_neither_pays_nor_is_paid() -> None:
    assert rows(settle((130, 88, 46), 1)) == [(2, 0, 84, "card-count")]
    assert rows(settle((46, 130, 88), 2)) == [(0, 1, 168, "card-count")]


@pytest.mark.parametrize("multiplier", MULTIPLIERS)
@pytest.mark.parametrize("dealer", range(3))
def test_all_eights_pays_the_dealer(multiplier: int, dealer: int) -> None:
    payments = settle((88, 88, 88), multiplier, dealer=dealer)
    assert rows(payments) == [
        (payer, dealer, 100 * multiplier, "all-eights") for payer in range(3) if payer != dealer
    ]
    deltas = balance_deltas(payments)
    assert deltas[dealer] == 200 * multiplier


def test_all_eights_goes_to_player_0_by_default() -> None:
    assert balance_deltas(settle((88, 88, 88), 1)) == (200, -100, -100)


@pytest.mark.parametrize("multiplier", MULTIPLIERS)
def test_double_eights_pays_on_top_of_the_card_count(multiplier: int) -> None:
    payments = settle((50, 170, 44), multiplier)
    assert rows(payments) == [
        (0, 1, 2 * 38 * multiplier, "card-count"),
        (2, 1, 2 * 44 * multiplier, "card-count"),
        (0, 1, 100 * multiplier, "double-eights"),
        (2, 1, 100 * multiplier, "double-eights"),
    ]
    assert balance_deltas(payments) == (
        -176 * multiplier,
        364 * multiplier,
        -188 * multiplier,
    )


def test_double_eights_starts_at_168() -> None:
    assert R.DOUBLE_EIGHTS in {p.reason for p in settle((168, 48, 48), 1)}
    assert R.DOUBLE_EIGHTS not in {p.reason for p in settle((167, 49, 48), 1)}


def test_double_eights_with_one_loser_charges_the_other_winner_too() -> None:
    # 168 - 88 = 80, 90 - 88 = 2, 6 - 88 = -82: player 1 wins 2 at the count, pays 50.
    assert balance_deltas(settle((168, 90, 6), 1)) == (160 + 200, 4 - 100, -164 - 100)


def test_a_lone_winner_of_everything() -> None:
    payments = settle((0, 264, 0), 4)
    assert balance_deltas(payments) == (-(176 + 100) * 4, (352 + 200) * 4, -(176 + 100) * 4)


@pytest.mark.parametrize(
    "counts",
    [(88, 88, 87), (100, 100, 100), (-1, 177, 88), (88, 88), (88, 88, 88, 0)],
)
def test_counts_must_share_the_deck(counts: Any) -> None:
    with pytest.raises(BadCardsError) as raised:
        settle(counts, 1)
    assert raised.value.reason is Reason.BAD_CARDS
    with pytest.raises(BadCardsError):
        count_winner(counts)


@pytest.mark.parametrize("multiplier", [0, 3, 8, -2])
def test_multiplier_must_be_1_2_or_4(multiplier: int) -> None:
    with pytest.raises(ValueError, match="multiplier"):
        settle((88, 88, 88), multiplier)
    with pytest.raises(ValueError, match="multiplier"):
        collect(0, 10, multiplier, "triplet")
    with pytest.raises(ValueError, match="multiplier"):
        sage_overtaken(0, 1, 35, 35, multiplier)


@pytest.mark.parametrize("dealer", [-1, 3])
def test_dealer_must_be_a_player(dealer: int) -> None:
    with pytest.raises(ValueError, match="dealer"):
        settle((88, 88, 88), 1, dealer=dealer)


# --- the winner of a counted round ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("counts", "winner"),
    [
        ((120, 100, 44), 0),
        ((54, 150, 60), 1),
        ((44, 100, 120), 2),
        ((100, 100, 64), 0),
        ((64, 100, 100), 1),
        ((88, 88, 88), 0),
    ],
)
def test_count_winner(counts: tuple[int, int, int], winner: int) -> None:
    assert count_winner(counts) == winner


# --- payments of teyaku, dekiyaku and an overtaken sage ------------------------------------------


@pytest.mark.parametrize("multiplier", MULTIPLIERS)
@pytest.mark.parametrize("payee", range(3))
def test_collect_from_each_other_player(multiplier: int, payee: int) -> None:
    payments = collect(payee, 35, multiplier, DekiyakuId.AKATAN)
    assert rows(payments) == [
        (payer, payee, 70 * multiplier, "akatan") for payer in range(3) if payer != payee
    ]
    assert balance_deltas(payments)[payee] == 140 * multiplier


def test_collect_nothing() -> None:
    assert collect(0, 0, 4, "nothing") == ()
    with pytest.raises(ValueError, match="points"):
        collect(0, -5, 1, "triplet")
    with pytest.raises(ValueError, match="payee"):
        collect(3, 5, 1, "triplet")


@pytest.mark.parametrize("multiplier", MULTIPLIERS)
def test_sage_overtaken_refunds_half_exactly(multiplier: int) -> None:
    payments = sage_overtaken(
        caller=1, maker=2, first_points=35, new_points=50, multiplier=multiplier
    )
    assert rows(payments) == [
        (1, 0, 35 * multiplier, "sage-refund"),
        (1, 2, 35 * multiplier, "sage-refund"),
        (1, 2, 200 * multiplier, "sage-overtaken"),
    ]
    assert [str(p) for p in payments][:1] == [
        f"1 pays 0 {points_text(35 * multiplier)} (sage-refund)"
    ]
    assert balance_deltas(payments) == (35 * multiplier, -270 * multiplier, 235 * multiplier)


def test_sage_overtaken_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="himself"):
        sage_overtaken(1, 1, 35, 35, 1)
    with pytest.raises(ValueError, match="positive"):
        sage_overtaken(0, 1, 0, 35, 1)
    with pytest.raises(ValueError, match="caller"):
        sage_overtaken(5, 1, 35, 35, 1)


def test_a_whole_sage_story() -> None:
    # Under a big field (×2), player 0 forms akatan + aotan (70) and calls sage; player 2 then
    # forms inoshikacho (35). In points: player 0 got 70 from each, refunds 35 to each and pays
    # 35 twice over to player 2: he ends even, player 1 is down 35, player 2 up 35; ×2, in halves.
    multiplier = 2
    first = dekiyaku_payment((), dekiyaku_of(POETRY_RIBBONS | BLUE_RIBBONS))
    payments = collect(0, first.points, multiplier, "dekiyaku")
    overtaker = dekiyaku_payment((), dekiyaku_of(INOSHIKACHO))
    payments += sage_overtaken(0, 2, first.points, overtaker.points, multiplier)
    assert balance_deltas(payments) == (0, -140, 140)


def test_halves_and_points_text() -> None:
    assert halves(35) == 70
    assert [points_text(a) for a in (0, 1, 35, 70, -35)] == ["0", "0.5", "17.5", "35", "-17.5"]


# --- every split of the deck ---------------------------------------------------------------------


@given(
    st.lists(st.integers(0, 2), min_size=48, max_size=48),
    st.sampled_from(MULTIPLIERS),
    st.integers(0, 2),
)
def test_any_split_of_the_deck_settles_to_zero(
    piles: list[int], multiplier: int, dealer: int
) -> None:
    captures = [
        mask_of(card for card, pile in zip(Card, piles, strict=True) if pile == p) for p in range(3)
    ]
    counts = (card_points(captures[0]), card_points(captures[1]), card_points(captures[2]))
    assert sum(counts) == 264
    payments = settle(counts, multiplier, dealer=dealer)
    deltas = balance_deltas(payments)
    assert sum(deltas) == 0
    for payment in payments:
        assert payment.payer != payment.payee
        assert payment.amount > 0
        assert payment.amount % multiplier == 0
    # The card count moves exactly each player's result; the end dekiyaku come on top.
    expected = [halves(count - PAR) * multiplier for count in counts]
    for player, count in enumerate(counts):
        if count >= 168:
            expected = [e - 100 * multiplier for e in expected]
            expected[player] += 300 * multiplier
    if counts == (88, 88, 88):
        expected = [-100 * multiplier] * 3
        expected[dealer] = 200 * multiplier
    assert list(deltas) == expected
    # A loser pays and a winner is paid at the card count, never the other way round.
    for payment in payments:
        if payment.reason == R.CARD_COUNT:
            assert counts[payment.payer] < PAR < counts[payment.payee]
