"""Properties of whole random Hachi-Hachi games, with 3 to 6 participants."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hanafuda_referee.capture import matches
from hanafuda_referee.cards import DECK, mask_of
from hanafuda_referee.errors import MoveRejected
from hanafuda_referee.hachihachi import events as ev
from hanafuda_referee.hachihachi.codec import decode, encode
from hanafuda_referee.hachihachi.game import HachiHachiState, Phase, apply, legal_moves, new_game
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.hachihachi.view import view
from hanafuda_referee.moves import Move, MoveKind

#: No round takes more moves than this: 6 drop decisions, 21 plays, 21 target choices and
#: 21 sage/shobu decisions.
MAX_MOVES_PER_ROUND = 69


def assert_every_card_in_one_place(state: HachiHachiState) -> None:
    drawn = 1 << state.drawn if state.drawn else 0
    stock = mask_of(state.stock[state.stock_pos :])
    places = [*state.hands, state.field, stock, *state.captured, drawn, state.aside]
    union = 0
    for place in places:
        assert not union & place, "a card is in two places"
        union |= place
    assert union == DECK
    assert len(state.stock) - state.stock_pos == stock.bit_count(), "a card twice in the stock"


def check_money(state: HachiHachiState) -> None:
    assert sum(state.balances) == 0
    totals = [0] * state.participants
    payments = [p for r in state.results for p in r.payments]
    if state.phase is not Phase.OVER:
        payments += state.payments
    for p in payments:
        assert p.amount > 0 and p.payer != p.payee
        totals[p.payer] -= p.amount
        totals[p.payee] += p.amount
    assert tuple(totals) == state.balances


def check_views(state: HachiHachiState, events: tuple[ev.Event, ...]) -> None:
    n = state.participants
    for seat in range(n):
        seen = view(state, seat)
        assert seen.hand == state.hands[seat]
        assert [s.hand_size for s in seen.seats] == [h.bit_count() for h in state.hands]
        for event in events:
            shown = ev.visible_to(event, seat)
            if isinstance(shown, ev.RoundDealt):
                assert all(h == 0 for s, h in enumerate(shown.hands) if s != seat)
        if seen.legal_moves:
            assert seat == state.turn
    spectator = view(state, None)
    assert spectator.hand == 0 and spectator.legal_moves == ()
    for field in ("stock", "aside", "hands", "stock_pos"):
        assert field not in spectator._fields
    for event in events:
        shown = ev.visible_to(event, None)
        if isinstance(shown, ev.RoundDealt):
            assert not any(shown.hands)


def normalise(state: HachiHachiState, move: Move) -> Move:
    """The listed form of a play that names an optional target (its single or one of three
    matches): the same move without the target."""
    if move.kind is MoveKind.PLAY and move.target:
        m = matches(state.field, move.card)
        if (m >> move.target) & 1 and m.bit_count() in (1, 3):
            return Move.play(move.card)
    return move


def random_move(rng: random.Random, state: HachiHachiState) -> Move:
    kind = MoveKind(rng.randint(1, 8))
    hand = state.hands[state.turn]
    # Cards from the hand and the field come up often, so that near misses are tried too.
    pool = [c for c in range(1, 49) if ((hand | state.field) >> c) & 1] or [1]
    card = rng.choice([0, rng.randint(1, 48), rng.choice(pool), rng.choice(pool)])
    target = rng.choice([0, rng.randint(1, 48), rng.choice(pool)])
    return Move(kind, card, target)


def check_round_ends(state: HachiHachiState, events: tuple[ev.Event, ...]) -> None:
    for event in events:
        if isinstance(event, ev.CardsCounted):
            assert sum(event.counts) == 264
        if isinstance(event, ev.RoundEnded):
            result = event.result
            assert result.outcome in ("shobu", "overtaken", "count")
            assert result.winner in result.players
            if result.outcome == "count":
                assert sum(result.counts) == 264
            else:
                assert result.counts == ()


def play_checked(
    rules: HachiHachiRules, participants: int, seed: int, move_seed: int
) -> HachiHachiState:
    rng = random.Random(move_seed)
    state, events = new_game(rules, seed=seed, participants=participants)
    for _ in range(MAX_MOVES_PER_ROUND * rules.rounds):
        assert_every_card_in_one_place(state)
        check_money(state)
        check_views(state, events)
        check_round_ends(state, events)
        assert decode(encode(state)) == state
        if state.phase is Phase.OVER:
            return state
        legal = legal_moves(state)
        assert legal, "a game in progress always has a move"
        for move in legal:
            apply(state, state.turn, move)  # raises if a listed move is refused
        for other in range(participants):
            if other != state.turn:
                assert legal_moves(state, other) == []
        for _ in range(4):
            seat = rng.choice([rng.randint(-1, participants), state.turn, state.turn])
            move = random_move(rng, state)
            refused: MoveRejected | None = None
            try:
                apply(state, seat, move)
            except MoveRejected as rejection:
                refused = rejection
            if refused is None:
                assert seat == state.turn and normalise(state, move) in legal
            else:
                assert refused.reason and refused.message
                assert seat != state.turn or normalise(state, move) not in legal
        state, events = apply(state, state.turn, rng.choice(legal))
    raise AssertionError("the game did not end")


@settings(max_examples=300, deadline=None)
@given(
    participants=st.integers(3, 6),
    seed=st.integers(0, 2**64 - 1),
    move_seed=st.integers(0, 2**32),
    rounds=st.integers(1, 4),
)
def test_random_games_keep_every_invariant(
    participants: int, seed: int, move_seed: int, rounds: int
) -> None:
    rules = HachiHachiRules.from_preset("fudawiki", {"rounds": rounds})
    state = play_checked(rules, participants, seed, move_seed)
    assert state.phase is Phase.OVER
    assert len(state.results) == state.round == rounds
    assert state.winner == (
        state.balances.index(max(state.balances))
        if state.balances.count(max(state.balances)) == 1
        else -1
    )


def play_fast(state: HachiHachiState, rng: random.Random) -> HachiHachiState:
    """Play to the end with random moves, checking the cheap invariants at every step."""
    limit = MAX_MOVES_PER_ROUND * state.rules.rounds
    for _ in range(limit):
        if state.phase is Phase.OVER:
            return state
        state, events = apply(state, state.turn, rng.choice(legal_moves(state)))
        assert sum(state.balances) == 0
        for event in events:
            if isinstance(event, ev.CardsCounted):
                assert sum(event.counts) == 264
        if rng.random() < 0.05:
            assert_every_card_in_one_place(state)
    raise AssertionError("the game did not end")


def test_thousands_of_random_rounds_terminate_with_balances_summing_to_zero() -> None:
    rng = random.Random("hachi-hachi")
    rounds = 0
    for participants, games, length in ((3, 150, 12), (4, 150, 4), (5, 150, 4), (6, 150, 4)):
        rules = HachiHachiRules.from_preset("fudawiki", {"rounds": length})
        for game in range(games):
            state, _ = new_game(rules, seed=game, participants=participants)
            state = play_fast(state, rng)
            check_money(state)
            assert len(state.results) == length
            rounds += length
            # Every seat joins or drops at random; the three players are always three.
            for result in state.results:
                assert len(set(result.players)) == 3
    assert rounds >= 3000


def test_the_same_seed_and_moves_replay_to_the_same_game() -> None:
    rules = HachiHachiRules.from_preset("fudawiki", {"rounds": 4})

    def replay() -> tuple[HachiHachiState, list[ev.Event]]:
        rng = random.Random(5)
        state, events = new_game(rules, seed=77, participants=5)
        log = list(events)
        while state.phase is not Phase.OVER:
            state, events = apply(state, state.turn, rng.choice(legal_moves(state)))
            log += events
        return state, log

    assert replay() == replay()
