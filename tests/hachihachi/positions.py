"""Building Hachi-Hachi deals and mid-round positions for tests, card by card."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from hanafuda_referee.cards import Card, cards_of, mask_of
from hanafuda_referee.dealing import Deal
from hanafuda_referee.hachihachi.game import HachiHachiState, Phase, apply, new_game
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.hachihachi.teyaku import classify_teyaku
from hanafuda_referee.moves import SHOBU

C = Card
RULES = HachiHachiRules.from_preset("fudawiki")

#: A small field (×1): no light, no four of a month.
SMALL_FIELD = (
    C.SUSUKI_PLAIN_1,
    C.SUSUKI_PLAIN_2,
    C.CHRYSANTHEMUM_PLAIN_1,
    C.WILLOW_SWALLOW,
    C.PAULOWNIA_PLAIN_1,
    C.WISTERIA_PLAIN_2,
)


def deal(
    hands: Sequence[Iterable[Card]],
    field: Iterable[Card],
    stock_top: Sequence[Card] = (),
) -> Deal:
    """A full deal: the given hands (by seat) and field, the stock starting with ``stock_top``
    and then every other card in card order."""
    hs = tuple(tuple(int(c) for c in h) for h in hands)
    f = tuple(int(c) for c in field)
    used = {c for h in hs for c in h} | set(f) | {int(c) for c in stock_top}
    rest = [c for c in range(1, 49) if c not in used]
    return Deal(hs, f, tuple(int(c) for c in stock_top) + tuple(rest))


def quiet_hands(
    fixed: Mapping[int, Iterable[Card]], field: Iterable[Card], seats: int = 3
) -> list[tuple[Card, ...]]:
    """Hands by seat: the ``fixed`` ones as given, the others drawn from the cards left so that
    they hold no teyaku (a deterministic search)."""
    taken = mask_of(field)
    for hand in fixed.values():
        taken |= mask_of(hand)
    rng = random.Random(0)
    hands: list[tuple[Card, ...]] = []
    for seat in range(seats):
        if seat in fixed:
            hands.append(tuple(fixed[seat]))
            continue
        pool = list(cards_of(((1 << 49) - 2) & ~taken))
        while True:
            pick = tuple(sorted(rng.sample(pool, 7)))
            if classify_teyaku(mask_of(pick)) is None:
                break
        taken |= mask_of(pick)
        hands.append(pick)
    return hands


def position(
    rules: HachiHachiRules = RULES,
    *,
    hands: Mapping[int, Iterable[Card]],
    field: Iterable[Card],
    stock: Sequence[Card] = (),
    captured: Mapping[int, Iterable[Card]] | None = None,
    participants: int = 3,
    players: tuple[int, int, int] = (0, 1, 2),
    dealer: int | None = None,
    turn: int | None = None,
    multiplier: int = 1,
    floor: int = 1,
    fees: Iterable[int] = (),
    sage: int = -1,
    first_points: int = 0,
    paid: Mapping[int, int] | None = None,
    balances: Sequence[int] | None = None,
    round_number: int = 1,
    full_stock: bool = True,
    dealt_field: Iterable[Card] = SMALL_FIELD,
) -> HachiHachiState:
    """A round in progress with exactly these cards where they are. Seats not in ``players``
    dropped (those in ``fees`` of their own choice); ``dealt_field`` gives the next round's
    floor. The stock is ``stock`` (top first),
    followed, when ``full_stock``, by every card not placed elsewhere; ``turn`` (by default the
    first player) is to play a hand card."""
    state, _ = new_game(rules, seed=0, participants=participants, first_dealer=players[0])
    n = participants
    hand_masks = tuple(mask_of(hands.get(s, ())) for s in range(n))
    caught = captured or {}
    captured_masks = tuple(mask_of(caught.get(s, ())) for s in range(n))
    f = mask_of(field)
    placed = f | mask_of(stock)
    for mask in (*hand_masks, *captured_masks):
        placed |= mask
    rest = tuple(c for c in range(1, 49) if not (placed >> c) & 1) if full_stock else ()
    joined = sum(1 << s for s in players)
    every = (1 << n) - 1
    paid_masks = tuple((paid or {}).get(s, 0) for s in range(n))
    return state._replace(
        round=round_number,
        dealer=players[0] if dealer is None else dealer,
        floor=floor,
        multiplier=multiplier,
        dealt_field=mask_of(dealt_field),
        balances=tuple(balances) if balances is not None else (0,) * n,
        phase=Phase.PLAY,
        turn=players[0] if turn is None else turn,
        joined=joined,
        dropped=every & ~joined,
        fees=sum(1 << s for s in fees),
        aside=0,
        players=players,
        hands=hand_masks,
        field=f,
        stock=tuple(int(c) for c in stock) + rest,
        stock_pos=0,
        captured=captured_masks,
        paid=paid_masks,
        teyaku=(None,) * n,
        sage=sage,
        first_points=first_points,
        drawn=0,
        payments=(),
    )


def finish_round(state: HachiHachiState) -> HachiHachiState:
    """Play the current round to its end: join every drop decision, call shōbu at every
    decision, otherwise play the first legal move."""
    from hanafuda_referee.hachihachi.game import legal_moves

    start = len(state.results)
    while len(state.results) == start and state.phase is not Phase.OVER:
        moves = legal_moves(state)
        move = SHOBU if state.phase is Phase.DECISION else moves[0]
        state, _ = apply(state, state.turn, move)
    return state
