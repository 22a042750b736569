"""Properties of whole random Koi-Koi games, for every preset."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanafuda_referee.cards import DECK, mask_of
from hanafuda_referee.errors import MoveRejected
from hanafuda_referee.koikoi import events as ev
from hanafuda_referee.koikoi.codec import decode, encode
from hanafuda_referee.koikoi.game import KoiKoiState, Phase, apply, legal_moves, new_game
from hanafuda_referee.koikoi.rules import PRESETS, KoiKoiRules
from hanafuda_referee.koikoi.view import view
from hanafuda_referee.moves import Move, MoveKind

#: No round takes more moves than this: 16 plays, 16 target choices, 16 decisions.
MAX_MOVES_PER_ROUND = 48


def where_cards_are(state: KoiKoiState) -> list[int]:
    stock = mask_of(state.stock[state.stock_pos :])
    drawn = 1 << state.drawn if state.drawn else 0
    return [*state.hands, state.field, stock, *state.captured, drawn]


def assert_every_card_in_one_place(state: KoiKoiState) -> None:
    places = where_cards_are(state)
    union = 0
    for place in places:
        assert not union & place, "a card is in two places"
        union |= place
    assert union == DECK


def normalise(state: KoiKoiState, move: Move) -> Move:
    """The listed form of a play that names an optional target (its single or one of three
    matches): the same move without the target."""
    if move.kind is MoveKind.PLAY and move.target:
        from hanafuda_referee.capture import matches

        m = matches(state.field, move.card)
        if (m >> move.target) & 1 and m.bit_count() in (1, 3):
            return Move.play(move.card)
    return move


def random_move(rng: random.Random) -> Move:
    kind = MoveKind(rng.randint(1, 8))
    return Move(kind, rng.choice([0, rng.randint(1, 48)]), rng.choice([0, rng.randint(1, 48)]))


def check_scores(state: KoiKoiState) -> None:
    rules = state.rules
    start = rules.starting_points
    won = [0, 0]
    for result in state.results:
        if result.winner >= 0:
            won[result.winner] += result.points
    if rules.transfer:
        assert state.scores == (start + won[0] - won[1], start + won[1] - won[0])
    else:
        assert state.scores == (won[0], won[1])


def check_views(state: KoiKoiState, events: tuple[ev.Event, ...]) -> None:
    for seat in (0, 1):
        seen = view(state, seat)
        other = state.hands[1 - seat]
        assert seen.hand == state.hands[seat]
        assert other not in (seen.field, seen.hand) or not other
        for event in events:
            shown = ev.visible_to(event, seat)
            if isinstance(shown, ev.RoundDealt):
                assert shown.hands[1 - seat] == 0
    spectator = view(state, None)
    assert spectator.hand == 0 and spectator.legal_moves == ()
    assert "stock" not in spectator._fields


def play_checked(rules: KoiKoiRules, seed: int, move_seed: int) -> KoiKoiState:
    rng = random.Random(move_seed)
    state, events = new_game(rules, seed=seed)
    limit = MAX_MOVES_PER_ROUND * rules.rounds
    for _ in range(limit):
        assert_every_card_in_one_place(state)
        check_scores(state)
        check_views(state, events)
        assert decode(encode(state)) == state
        if state.phase is Phase.OVER:
            return state
        legal = legal_moves(state)
        assert legal, "a game in progress always has a move"
        for move in legal:
            apply(state, state.turn, move)  # raises if a listed move is refused
        for _ in range(4):
            seat = rng.choice([0, 1, state.turn, state.turn])
            move = random_move(rng)
            accepted = True
            try:
                apply(state, seat, move)
            except MoveRejected as rejection:
                accepted = False
                refusal = rejection
            if accepted:
                assert seat == state.turn and normalise(state, move) in legal
            else:
                assert refusal.reason and refusal.message
                assert seat != state.turn or normalise(state, move) not in legal
        for other in legal_moves(state, 1 - state.turn):
            raise AssertionError(f"the seat not to act has a legal move {other}")
        state, events = apply(state, state.turn, rng.choice(legal))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    move_seed=st.integers(0, 2**32),
    rounds=st.integers(1, 12),
    overrides=st.fixed_dictionaries(
        {},
        optional={
            "lightning_wild": st.sampled_from(["on", "before-november"]),
            "refill_empty_field": st.booleans(),
            "koikoi_limit": st.integers(0, 3),
            "last_turn_koikoi": st.booleans(),
            "exhaustion": st.sampled_from(
                ["void", "last-koikoi-wins", "dealer-points", "all-lost"]
            ),
            "end_when_dealer_empty": st.booleans(),
        },
    ),
)
def test_random_games_keep_every_invariant(
    preset: str, seed: int, move_seed: int, rounds: int, overrides: dict[str, object]
) -> None:
    rules = KoiKoiRules.from_preset(preset, {"rounds": rounds, **overrides})
    state = play_checked(rules, seed, move_seed)
    assert state.phase is Phase.OVER
    assert len(state.results) == state.round


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_thousands_of_full_games_terminate_with_consistent_scores(preset: str) -> None:
    rules = KoiKoiRules.from_preset(preset)
    rng = random.Random(preset)
    for game in range(1000):
        state, _ = new_game(rules, seed=game)
        for _ in range(MAX_MOVES_PER_ROUND * rules.rounds):
            if state.phase is Phase.OVER:
                break
            state, _ = apply(state, state.turn, rng.choice(legal_moves(state)))
            if state.phase is not Phase.OVER and rng.random() < 0.05:
                assert_every_card_in_one_place(state)
        assert state.phase is Phase.OVER, f"game {game} did not end"
        check_scores(state)
        assert 1 <= len(state.results) <= rules.rounds


def test_the_same_seed_and_moves_replay_to_the_same_game() -> None:
    rules = KoiKoiRules.from_preset("fudawiki")

    def replay() -> tuple[KoiKoiState, list[ev.Event]]:
        rng = random.Random(5)
        state, events = new_game(rules, seed=77)
        log = list(events)
        while state.phase is not Phase.OVER:
            state, events = apply(state, state.turn, rng.choice(legal_moves(state)))
            log += events
        return state, log

    assert replay() == replay()
