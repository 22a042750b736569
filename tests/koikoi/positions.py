"""Building Koi-Koi deals and mid-round positions for tests, card by card."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from hanafuda_referee.cards import Card, mask_of
from hanafuda_referee.dealing import Deal
from hanafuda_referee.koikoi.game import KoiKoiState, Phase, new_game, round_month
from hanafuda_referee.koikoi.rules import KoiKoiRules
from hanafuda_referee.koikoi.scoring import points_function

C = Card


def deal(
    hand0: Iterable[Card],
    hand1: Iterable[Card],
    field: Iterable[Card],
    stock_top: Sequence[Card] = (),
) -> Deal:
    """A full deal: the given hands and field, the stock starting with ``stock_top`` and then
    every other card in card order."""
    h0, h1, f = tuple(hand0), tuple(hand1), tuple(field)
    used = set(h0) | set(h1) | set(f) | set(stock_top)
    rest = [c for c in Card if c not in used]
    return Deal((h0, h1), f, tuple(stock_top) + tuple(rest))


def position(
    rules: KoiKoiRules,
    *,
    hands: tuple[Iterable[Card], Iterable[Card]],
    field: Iterable[Card],
    stock: Sequence[Card] = (),
    captured: tuple[Iterable[Card], Iterable[Card]] = ((), ()),
    turn: int = 0,
    dealer: int | None = None,
    calls: tuple[int, int] = (0, 0),
    last_caller: int = -1,
    round_number: int = 1,
    scores: tuple[int, int] | None = None,
) -> KoiKoiState:
    """A round in progress with exactly these cards where they are; the stock is ``stock`` (top
    first) followed by every card not placed elsewhere. ``turn`` is to play a hand card."""
    quiet = rules.with_overrides(
        {
            "field_four": "ignore",
            "field_pairs": "ignore",
            "hand_four": "ignore",
            "hand_pairs": "ignore",
        }
    )
    state, _ = new_game(quiet, seed=0, first_dealer=turn if dealer is None else dealer)
    h = (mask_of(hands[0]), mask_of(hands[1]))
    f = mask_of(field)
    cap = (mask_of(captured[0]), mask_of(captured[1]))
    placed = h[0] | h[1] | f | cap[0] | cap[1] | mask_of(stock)
    full_stock = tuple(int(c) for c in stock) + tuple(
        c for c in range(1, 49) if not (placed >> c) & 1
    )
    month = round_month(round_number)
    start = rules.starting_points
    return state._replace(
        rules=rules,
        round=round_number,
        dealer=turn if dealer is None else dealer,
        scores=scores if scores is not None else (start, start),
        phase=Phase.PLAY,
        turn=turn,
        hands=h,
        field=f,
        stock=full_stock,
        stock_pos=0,
        captured=cap,
        calls=calls,
        last_caller=last_caller,
        turn_points=points_function(rules)(cap[turn], month, calls[turn]),
        drawn=0,
        wild=(0, 0),
        willow_seen=False,
    )
