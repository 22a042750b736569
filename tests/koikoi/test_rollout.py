"""The fast play-out path against the engine: the same choices must give the same round.

Each check plays a round twice from the same state: through :func:`rollout.play_out` with a
chooser that records every ``(n, i)`` it is asked and answers, then through the engine, making
``legal_moves(state)[i]`` at each step. The engine must be asked the same number of times with
the same ``n`` (its list of legal moves has the length the play-out counted), and the round must
end with the same :class:`RoundResult` (outcome, detail, winner, points, captured cards, scoring
context) and the same scores. An option listed in another order, a rule applied differently, a
mis-scored stop: each changes some round among the thousands played here.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hanafuda_referee.cards import ANIMALS, LIGHTS, MONTH_MASKS, PLAINS, RIBBONS, WILLOWS, Card
from hanafuda_referee.dealing import Deal, deal_from_deck, shuffled_deck
from hanafuda_referee.koikoi import events as ev
from hanafuda_referee.koikoi.game import (
    FIELD_SIZE,
    HAND_SIZE,
    KoiKoiState,
    Phase,
    _deal_checks,
    apply,
    legal_moves,
    new_game,
)
from hanafuda_referee.koikoi.rollout import (
    Chooser,
    Playout,
    _deal_check_may_fire,
    play_out,
    random_chooser,
    random_rounds,
    stop_total,
)
from hanafuda_referee.koikoi.rules import ENUM_OPTIONS, PRESETS, YAKU_IDS, KoiKoiRules
from hanafuda_referee.koikoi.scoring import points_function, score_stop, yaku_points
from tests.koikoi.positions import position

#: Options that change how a round is played and scored, with the values worth mixing.
PLAY_OPTIONS: dict[str, Any] = {
    "lightning_wild": st.sampled_from(ENUM_OPTIONS["lightning_wild"]),
    "refill_empty_field": st.booleans(),
    "koikoi_limit": st.integers(0, 3),
    "last_turn_koikoi": st.booleans(),
    "exhaustion": st.sampled_from(ENUM_OPTIONS["exhaustion"]),
    "dealer_points": st.integers(0, 3),
    "end_when_dealer_empty": st.booleans(),
    "starting_points": st.sampled_from([0, 5, 30]),
    "seven_or_more": st.sampled_from([0, 4, 7]),
    "own_koikoi": st.sampled_from(ENUM_OPTIONS["own_koikoi"]),
    "opponent_koikoi": st.sampled_from(ENUM_OPTIONS["opponent_koikoi"]),
    "all_calls_plus_one": st.booleans(),
    "counter_seven": st.booleans(),
    "viewing": st.sampled_from(ENUM_OPTIONS["viewing"]),
    "sake_cup": st.sampled_from(ENUM_OPTIONS["sake_cup"]),
    "yaku": st.fixed_dictionaries(
        {},
        optional={
            "hanami-zake": st.fixed_dictionaries({"points_after_koikoi": st.integers(0, 4)}),
            "kasu": st.fixed_dictionaries({"points": st.integers(0, 3)}),
            "tane": st.fixed_dictionaries({"enabled": st.booleans()}),
        },
    ),
}

#: Rule sets that make the rarer rules frequent: wild lightning, refills, call limits, the end
#: of the round at the dealer's last card, and every exhaustion mode.
EDGE_OVERRIDES: list[dict[str, Any]] = [
    {},
    {"lightning_wild": "on", "refill_empty_field": True, "koikoi_limit": 1},
    {
        "lightning_wild": "before-november",
        "last_turn_koikoi": True,
        "exhaustion": "dealer-points",
        "end_when_dealer_empty": True,
    },
    {"exhaustion": "last-koikoi-wins", "koikoi_limit": 2, "own_koikoi": "bonus-points"},
    {"exhaustion": "all-lost", "opponent_koikoi": "per-call", "all_calls_plus_one": True},
    {"lightning_wild": "before-november", "refill_empty_field": True},
]


def recording(rng: random.Random, log: list[tuple[int, int]]) -> Chooser:
    """A random chooser that appends each question and answer to ``log``."""

    def choose(n: int) -> int:
        i = rng.randrange(n)
        log.append((n, i))
        return i

    return choose


def engine_playout(state: KoiKoiState, log: list[tuple[int, int]]) -> Playout:
    """The current round of ``state`` played through the engine with the recorded choices."""
    round_number = state.round
    for step, (n, i) in enumerate(log):
        moves = legal_moves(state)
        assert len(moves) == n, f"choice {step}: the engine lists {len(moves)} moves, not {n}"
        state, events = apply(state, state.turn, moves[i])
        for event in events:
            if isinstance(event, ev.RoundEnded) and event.result.round == round_number:
                assert step == len(log) - 1, "the engine ended the round before the play-out"
                return Playout(event.result, event.scores)
    raise AssertionError("the play-out ended the round before the engine")


def advance(state: KoiKoiState, rng: random.Random, moves: int) -> KoiKoiState:
    """``state`` after up to ``moves`` random engine moves (fewer if the game ends)."""
    for _ in range(moves):
        if state.phase is Phase.OVER:
            break
        legal = legal_moves(state)
        state, _ = apply(state, state.turn, rng.choice(legal))
    return state


def assert_same_round(state: KoiKoiState, choice_seed: int) -> None:
    log: list[tuple[int, int]] = []
    fast = play_out(state, recording(random.Random(choice_seed), log))
    assert fast.result.round == state.round
    assert engine_playout(state, log) == fast


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    choice_seed=st.integers(0, 2**32),
    moves_before=st.integers(0, 70),
    overrides=st.fixed_dictionaries({}, optional=PLAY_OPTIONS),
)
def test_play_out_from_any_point_matches_the_engine(
    preset: str, seed: int, choice_seed: int, moves_before: int, overrides: dict[str, Any]
) -> None:
    rules = KoiKoiRules.from_preset(preset, {"rounds": 12, **overrides})
    state, _ = new_game(rules, seed)
    state = advance(state, random.Random(choice_seed + 1), moves_before)
    assume(state.phase is not Phase.OVER)
    assert_same_round(state, choice_seed)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("overrides", EDGE_OVERRIDES, ids=range(len(EDGE_OVERRIDES)))
def test_hundreds_of_rounds_from_every_phase_match_the_engine(
    preset: str, overrides: dict[str, Any]
) -> None:
    rules = KoiKoiRules.from_preset(preset, {"rounds": 12, **overrides})
    rng = random.Random(f"{preset}{sorted(overrides.items())}")
    resumed = {Phase.PLAY: 0, Phase.DRAWN_TARGET: 0, Phase.DECISION: 0}
    for game in range(40):
        state, _ = new_game(rules, seed=game)
        # A play-out from several points of the game, each after the engine has moved on.
        while state.phase is not Phase.OVER:
            assert_same_round(state, rng.randrange(2**32))
            resumed[state.phase] += 1
            state = advance(state, rng, rng.randrange(1, 12))
    # Resuming mid-turn is part of the contract: make sure it was exercised.
    assert min(resumed.values()) > 0, resumed


def engine_first_rounds(
    rules: KoiKoiRules, n: int, seed: int, redeals: list[int] | None = None
) -> list[Playout]:
    """What :func:`random_rounds` promises, through the engine: one random source for the batch;
    each round is the first round of a new game given the decks shuffled from it (one more
    whenever the engine's deal checks ask for a redeal), then played by a random chooser on the
    same source. ``redeals`` collects each round's number of redeals."""
    rng = random.Random(seed)
    choose = random_chooser(rng)
    out = []
    for _ in range(n):
        deals: list[Deal] = []
        while True:
            deals.append(deal_from_deck(shuffled_deck(rng), 2, HAND_SIZE, FIELD_SIZE))
            state, events = new_game(rules, seed, deals, first_dealer=0)
            # The engine deals again past the prepared deals: give it one more and start over.
            used = sum(1 for e in events if isinstance(e, ev.RoundDealt) and e.round == 1)
            if used <= len(deals):
                break
        if redeals is not None:
            redeals.append(len(deals) - 1)
        while True:
            ended = [e for e in events if isinstance(e, ev.RoundEnded)]
            if ended:
                out.append(Playout(ended[0].result, ended[0].scores))
                break
            moves = legal_moves(state)
            state, events = apply(state, state.turn, moves[choose(len(moves))])
    return out


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("fudawiki", {}),  # redeal on the field, win on the hands
        ("wikipedia-fr", {"lightning_wild": "on"}),  # void on the field, win on the hands
        ("coins", {"hand_four": "void", "field_four": "ignore"}),
        ("koikoi-japan", {"hand_pairs": "win", "exhaustion": "last-koikoi-wins"}),
        ("nintendo", {"field_pairs": "redeal", "hand_pairs": "redeal", "starting_points": 30}),
    ],
)
def test_random_rounds_are_the_engines_first_rounds(preset: str, overrides: dict[str, Any]) -> None:
    rules = KoiKoiRules.from_preset(preset, overrides)
    fast = random_rounds(rules, 1200, seed=99)
    redeals: list[int] = []
    assert fast == engine_first_rounds(rules, 1200, 99, redeals)
    # The deal checks' results are in the sample, not only played rounds; and redeals, where
    # the rule set has them.
    assert any(p.result.detail.startswith(("hand_", "field_")) for p in fast)
    checks = (rules.field_four, rules.field_pairs, rules.hand_four, rules.hand_pairs)
    assert any(redeals) == ("redeal" in checks)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("overrides", EDGE_OVERRIDES, ids=range(len(EDGE_OVERRIDES)))
def test_random_rounds_match_the_engine_for_every_preset(
    preset: str, overrides: dict[str, Any]
) -> None:
    rules = KoiKoiRules.from_preset(preset, overrides)
    for seed in range(3):
        assert random_rounds(rules, 60, seed) == engine_first_rounds(rules, 60, seed)


def test_random_rounds_are_deterministic_and_depend_on_the_seed() -> None:
    rules = KoiKoiRules.from_preset("fudawiki")
    assert random_rounds(rules, 50, seed=4) == random_rounds(rules, 50, seed=4)
    assert random_rounds(rules, 50, seed=4) != random_rounds(rules, 50, seed=5)
    # A longer batch starts with the shorter one.
    assert random_rounds(rules, 80, seed=4)[:50] == random_rounds(rules, 50, seed=4)


def test_the_shuffle_is_the_sort_by_64_bit_keys_of_its_documentation() -> None:
    """``shuffled_deck`` (which every deal uses) sorts the cards by 64-bit keys drawn in one
    call, card 1's key lowest in the number: games stored with a seed keep their deals."""
    for seed in range(200):
        rng = random.Random(seed)
        bits = random.Random(seed).getrandbits(48 * 64)
        keys = [(bits >> 64 * (card - 1)) & (2**64 - 1) for card in range(1, 49)]
        assert shuffled_deck(rng) == sorted(range(1, 49), key=lambda card: keys[card - 1])
    # Equal keys keep card order (a stable sort).
    zeros = random.Random(0)
    zeros.getrandbits = lambda k: 0  # type: ignore[method-assign]
    assert shuffled_deck(zeros) == list(range(1, 49))


def eight_cards(rng: random.Random) -> int:
    """Eight distinct cards, often holding four of a month or four month pairs."""
    shape = rng.randrange(3)
    months = rng.sample(range(1, 13), 4)
    if shape == 0:  # four pairs (a month may give all four of its cards)
        cards = [c for m in months for c in rng.sample(range(4 * m - 3, 4 * m + 1), 2)]
        if rng.random() < 0.3:
            cards = list(range(4 * months[0] - 3, 4 * months[0] + 1)) + cards[4:]
    elif shape == 1:  # four of a month and four other cards
        four = range(4 * months[0] - 3, 4 * months[0] + 1)
        cards = list(four) + rng.sample([c for c in range(1, 49) if c not in four], 4)
    else:
        cards = rng.sample(range(1, 49), 8)
    return sum(1 << c for c in cards)


@pytest.mark.parametrize("seed", range(4))
def test_the_deal_check_filter_never_hides_a_check(seed: int) -> None:
    every_check_on = KoiKoiRules.from_preset(
        "fudawiki",
        {"field_four": "void", "field_pairs": "void", "hand_four": "void", "hand_pairs": "void"},
    )
    rng = random.Random(seed)
    fired = 0
    for _ in range(3000):
        sets = [eight_cards(rng) for _ in range(3)]
        verdict = _deal_checks(every_check_on, (sets[0], sets[1]), sets[2])
        fired += verdict is not None
        if verdict is not None:
            assert _deal_check_may_fire(*sets)
        # The filter's own test, month by month.
        expected = any(
            any(s & m == m for m in MONTH_MASKS[1:])
            or all((s & m).bit_count() % 2 == 0 for m in MONTH_MASKS)
            for s in sets
        )
        assert _deal_check_may_fire(*sets) == expected
    assert fired > 1000


#: Options that change what a capture pile scores, with the values worth mixing.
SCORING_OPTIONS: dict[str, Any] = {
    "yaku_groups": st.sampled_from(ENUM_OPTIONS["yaku_groups"]),
    "akatan_aotan_stacks": st.booleans(),
    "sake_cup": st.sampled_from(ENUM_OPTIONS["sake_cup"]),
    "yellow_paulownia_double": st.booleans(),
    "viewing": st.sampled_from(ENUM_OPTIONS["viewing"]),
    "rain_spoils_viewing": st.sampled_from(ENUM_OPTIONS["rain_spoils_viewing"]),
    "five_to_six": st.booleans(),
    "grand_yaku_fifteen": st.booleans(),
    "yaku": st.dictionaries(
        st.sampled_from(YAKU_IDS),
        st.fixed_dictionaries(
            {},
            optional={
                "enabled": st.booleans(),
                "points": st.integers(0, 12),
                "points_after_koikoi": st.integers(0, 12),
            },
        ),
        max_size=4,
    ),
}


def capture_piles(rng: random.Random, n: int) -> list[int]:
    """``n`` capture piles: any size, and piles rich in one kind (where the yaku are)."""
    kinds = [LIGHTS | 1 << Card.CHRYSANTHEMUM_SAKE | WILLOWS, ANIMALS, RIBBONS, PLAINS]
    piles = []
    for _ in range(n):
        pile = sum(1 << c for c in rng.sample(range(1, 49), rng.randint(0, 30)))
        # Each card of the chosen kind with probability 1/2, 3/4 or 1.
        rich = rng.choice(kinds)
        for _ in range(rng.randint(1, 3)):
            pile |= rich & rng.getrandbits(49)
        piles.append(pile & ~1)
    return piles


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=30, deadline=None)
@given(
    pile_seed=st.integers(0, 2**32), overrides=st.fixed_dictionaries({}, optional=SCORING_OPTIONS)
)
def test_the_numeric_scoring_is_the_readable_one(
    preset: str, pile_seed: int, overrides: dict[str, Any]
) -> None:
    """``points_function`` (the play-out's and the engine's scoring) against ``yaku_points``,
    for every month and both sides of a koi-koi call."""
    rules = KoiKoiRules.from_preset(preset, overrides)
    points = points_function(rules)
    rng = random.Random(pile_seed)
    for pile in capture_piles(rng, 60):
        month, calls = rng.randint(0, 12), rng.choice((0, 0, 1, 3))
        assert points(pile, month, calls) == yaku_points(rules, pile, month, calls), (
            pile,
            month,
            calls,
        )


@pytest.mark.parametrize("preset", sorted(PRESETS))
@settings(max_examples=150, deadline=None)
@given(
    captured=st.integers(0, 2**49 - 1).map(lambda m: m & ~1),
    month=st.integers(1, 12),
    own_calls=st.integers(0, 6),
    opponent_calls=st.integers(0, 6),
    opponent_points=st.integers(0, 15),
    overrides=st.fixed_dictionaries(
        {},
        optional={
            k: PLAY_OPTIONS[k]
            for k in (
                "seven_or_more",
                "own_koikoi",
                "opponent_koikoi",
                "all_calls_plus_one",
                "counter_seven",
            )
        },
    ),
)
def test_stop_total_is_score_stops_total(
    preset: str,
    captured: int,
    month: int,
    own_calls: int,
    opponent_calls: int,
    opponent_points: int,
    overrides: dict[str, Any],
) -> None:
    rules = KoiKoiRules.from_preset(preset, overrides)
    base = yaku_points(rules, captured, month, own_calls)
    expected = score_stop(rules, captured, month, own_calls, opponent_calls, opponent_points)
    assert stop_total(rules, base, own_calls, opponent_calls, opponent_points) == expected.total


@pytest.mark.parametrize("choice_seed", range(40))
def test_a_willow_refilled_before_any_draw_leaves_the_lightning_wild(choice_seed: int) -> None:
    # The play-out reads "a willow was drawn" from the stock's order; a refill that turns up the
    # stock's first willow is no draw (the engine's test_flows has the same position).
    rules = KoiKoiRules.from_preset(
        "nintendo", {"lightning_wild": "before-november", "refill_empty_field": True}
    )
    state = position(
        rules,
        hands=(
            [Card.PEONY_PLAIN_1, Card.CLOVER_PLAIN_1, Card.IRIS_BRIDGE],
            [Card.WILLOW_LIGHTNING, Card.MAPLE_DEER, Card.PINE_CRANE],
        ),
        field=[Card.PEONY_PLAIN_2, Card.IRIS_PLAIN_2],
        stock=[Card.IRIS_PLAIN_1, Card.WILLOW_SWALLOW, Card.PINE_PLAIN_1, Card.PAULOWNIA_PLAIN_1],
    )
    assert_same_round(state, choice_seed)


def test_play_out_leaves_the_state_alone_and_refuses_a_finished_game() -> None:
    rules = KoiKoiRules.from_preset("nintendo", {"rounds": 1})
    state, _ = new_game(rules, seed=8, first_dealer=1)
    copy = state._replace()
    outcome = play_out(state, lambda n: n - 1)
    assert state == copy and outcome.result.round == 1 and outcome.result.dealer == 1
    over = advance(state, random.Random(0), 100)
    assert over.phase is Phase.OVER
    with pytest.raises(ValueError, match="game is over"):
        play_out(over, lambda n: 0)
