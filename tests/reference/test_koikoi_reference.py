"""Self-tests of the reference Koi-Koi (tests/reference/koikoi.py).

The reference is only useful as an oracle if it is right on its own: these tests hold it to the
spec's worked examples and to scripted positions, and play random games through it checking its
invariants. The engine is not involved here (that is test_differential.py).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from tests.reference.deck import ALL_CARDS, KIND, MONTH
from tests.reference.koikoi import (
    BLUE,
    BOAR,
    BUTTERFLIES,
    CURTAIN,
    DEER,
    LIGHTNING,
    MOON,
    POETRY,
    PRESETS,
    RAIN_MAN,
    SAKE,
    WILLOW_MONTH,
    YELLOW,
    Deal,
    KoiKoiGame,
    Rules,
    has_four,
    has_four_pairs,
)

LIGHTS = [c for c in ALL_CARDS if KIND[c] == "light"]
PINES = [c for c in ALL_CARDS if MONTH[c] == 1]
PLUMS = [c for c in ALL_CARDS if MONTH[c] == 2]
SIX_RIBBONS = [*POETRY, *BLUE]
# Five ribbons plus one, forming neither akatan nor aotan: tan alone.
LOOSE_RIBBONS = [
    "pine-ribbon",
    "plum-ribbon",
    "wisteria-ribbon",
    "iris-ribbon",
    "clover-ribbon",
    "willow-ribbon",
]
ANIMALS = [BOAR, DEER, BUTTERFLIES, "plum-warbler", SAKE]
VIEWING = [CURTAIN, MOON, SAKE]
FOUR_PAIRS = [
    "plum-plain-1",
    "plum-plain-2",
    "cherry-plain-1",
    "cherry-plain-2",
    "iris-plain-1",
    "iris-plain-2",
    "peony-plain-1",
    "peony-plain-2",
]


# -- helpers ----------------------------------------------------------------------------------


def make_deal(
    hand0: Sequence[str],
    hand1: Sequence[str],
    field: Sequence[str],
    stock_first: Sequence[str] = (),
) -> Deal:
    """A deal with the given cards in place; the other cards fill the gaps, months spread out.

    The filler deals the first card of each month, then the second of each, and so on, so that
    it forms no four of a month nor four pairs by itself.
    """
    used = [*hand0, *hand1, *field, *stock_first]
    assert len(set(used)) == len(used), used
    seen: dict[int, int] = {}
    rank: dict[str, tuple[int, int]] = {}
    rest = [c for c in ALL_CARDS if c not in used]
    for card in rest:
        seen[MONTH[card]] = seen.get(MONTH[card], 0) + 1
        rank[card] = (seen[MONTH[card]], MONTH[card])
    rest.sort(key=lambda c: rank[c])
    parts = [list(hand0), list(hand1), list(field)]
    for part in parts:
        while len(part) < 8:
            part.append(rest.pop(0))
    return {"hands": parts[:2], "field": parts[2], "stock": [*stock_first, *rest]}


def random_deal(rng: random.Random) -> Deal:
    deck = list(ALL_CARDS)
    rng.shuffle(deck)
    return {"hands": [deck[0:8], deck[8:16]], "field": deck[16:24], "stock": deck[24:48]}


def no_deal_check_fires(deal: Deal) -> bool:
    cards = [deal["field"], *deal["hands"]]
    return not any(has_four(c) or has_four_pairs(c) for c in cards)


PLAIN_DEAL = make_deal([], [], [])
FIELD_FOUR = make_deal([], [], PINES)
TESHI_SEAT_1 = make_deal([], PINES, [])


def cards_in_play(game: KoiKoiGame) -> int:
    return (
        sum(len(h) for h in game.hands)
        + len(game.field)
        + len(game.stock)
        + sum(len(c) for c in game.captured)
        + (1 if game.drawn else 0)
    )


def play_random_game(
    preset: str, seed: int, overrides: Mapping[str, object] | None = None
) -> KoiKoiGame:
    """Play random legal moves to the end, checking the game's invariants on the way."""
    rng = random.Random(seed)
    deals = [random_deal(rng) for _ in range(60)]
    game = KoiKoiGame(preset, overrides or {}, deals, rng.randrange(2))
    options = game.rules.options
    while not game.over:
        assert cards_in_play(game) == 48
        moves = game.legal_moves()
        assert moves, game.pending()
        before = (repr(game.hands), repr(game.field), repr(game.captured), game.pending())
        with pytest.raises(ValueError, match="illegal move"):
            game.apply(("play", "no-such-card", None))
        assert before == (repr(game.hands), repr(game.field), repr(game.captured), game.pending())
        if game.phase == "decide":
            seat = game.turn
            assert seat is not None
            assert game.hands[seat] or options.last_turn_koikoi
            assert options.koikoi_limit == 0 or game.koikoi_calls[seat] < options.koikoi_limit
            points = game.rules.yaku_points(
                game.captured[seat], game.koikoi_calls[seat], game.month
            )
            assert points > game.turn_start_points
        game.apply(rng.choice(moves))
    assert cards_in_play(game) == 48
    assert game.pending() is None and game.legal_moves() == []
    if options.starting_points == 0:
        assert sum(r["points"] for r in game.rounds) == sum(game.totals)
    else:
        assert sum(game.totals) == 2 * options.starting_points
    for i, record in enumerate(game.rounds):
        assert record["round"] == i + 1 and record["month"] == i % 12 + 1
        if record["outcome"] == "stop":
            assert record["winner"] is not None and record["base"] is not None
    return game


def play_always_koikoi(
    preset: str, seed: int, overrides: Mapping[str, object] | None = None
) -> None:
    """Random play that never stops by choice, checking how each round ends."""
    rng = random.Random(seed)
    game = KoiKoiGame(preset, overrides or {}, [random_deal(rng) for _ in range(60)], 0)
    options = game.rules.options
    last_caller: int | None = None
    n_rounds = len(game.rounds)
    while not game.over:
        dealer = game.dealer
        if game.phase == "decide":
            last_caller = game.turn
            game.apply(("koikoi",))
        else:
            game.apply(rng.choice(game.legal_moves()))
        if len(game.rounds) == n_rounds:
            continue
        record = game.rounds[n_rounds]
        assert record["dealer"] == dealer
        if record["outcome"] == "exhaustion":
            if options.exhaustion == "dealer-points":
                assert record["winner"] == dealer
                assert record["points"] == options.dealer_points
            else:
                assert options.exhaustion == "last-koikoi-wins"
                assert last_caller is not None and record["winner"] == last_caller
        elif record["outcome"] == "dealer-empty":
            assert options.end_when_dealer_empty
            assert record["winner"] == 1 - dealer == last_caller
        elif record["outcome"] == "stop":
            # Nobody stops by choice: the referee did (last card, or koikoi_limit reached).
            assert not options.last_turn_koikoi or options.koikoi_limit > 0
        else:
            assert record["outcome"] in ("void", "deal-check-win")
        last_caller = None
        n_rounds = len(game.rounds)


# -- scoring: the spec's worked examples --------------------------------------------------------


def test_worked_example_44() -> None:
    rules = Rules("wikipedia-fr")
    # sanko without the curtain (which would add hanami-zake), 5 ribbons with neither akatan
    # nor aotan complete, and tsukimi-zake.
    player = [
        "pine-crane",
        "paulownia-phoenix",
        MOON,
        "pine-ribbon",
        "plum-ribbon",
        "wisteria-ribbon",
        "iris-ribbon",
        "peony-ribbon",
        SAKE,
    ]
    score = rules.score(player, 2, ["plum-plain-1"], 0, 5)
    assert score.yaku == [("sanko", 5), ("tan", 1), ("tsukimi-zake", 5)]
    assert score.base == 11
    assert score.multipliers == [("seven_or_more", 2), ("own_koikoi", 2)]
    assert score.points == 44


def test_worked_example_20() -> None:
    rules = Rules("wikipedia-fr")
    plains = [c for c in ALL_CARDS if KIND[c] == "plain" and MONTH[c] <= 6][:11]
    opponent = [*BLUE, *plains]
    assert rules.counted_yaku(opponent, 1, 5) == [("aotan", 5), ("kasu", 2)]
    score = rules.score([BOAR, DEER, BUTTERFLIES], 0, opponent, 1, 5)
    assert (score.points, score.base) == (20, 5)
    assert score.multipliers == [("opponent_koikoi", 2), ("counter_seven", 2)]


# -- scoring: presets and options ---------------------------------------------------------------


def test_koikoi_japan_six_ribbons_are_22() -> None:
    rules = Rules("koikoi-japan")
    assert rules.counted_yaku(SIX_RIBBONS, 0, 1) == [
        ("akatan-aotan", 10),
        ("akatan", 5),
        ("aotan", 5),
        ("tan", 2),
    ]
    assert rules.yaku_points(SIX_RIBBONS, 0, 1) == 22


def test_koikoi_japan_own_calls_add_points_then_multiply() -> None:
    rules = Rules("koikoi-japan")
    assert rules.score(SIX_RIBBONS, 2, [], 0, 1).points == 22 + 2
    assert rules.score(SIX_RIBBONS, 4, [], 0, 1).points == 22 * 2


def test_koikoi_japan_viewing_is_1_then_3_after_a_call() -> None:
    rules = Rules("koikoi-japan")
    assert rules.counted_yaku([CURTAIN, SAKE], 0, 1) == [("hanami-zake", 1)]
    assert rules.counted_yaku([CURTAIN, SAKE], 1, 1) == [("hanami-zake", 3)]


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("fudawiki", [("akatan-aotan", 10)]),
        ("hanafuda-legends", [("akatan-aotan", 10), ("tan", 2)]),
        ("coins", [("akatan", 6), ("aotan", 6), ("tan", 2)]),
    ],
)
def test_yaku_groups_on_six_ribbons(preset: str, expected: list[tuple[str, int]]) -> None:
    assert Rules(preset).counted_yaku(SIX_RIBBONS, 0, 1) == expected


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        (LIGHTS, [("goko", 10)]),
        ([c for c in LIGHTS if c != RAIN_MAN], [("shiko", 8)]),
        (["pine-crane", CURTAIN, RAIN_MAN, MOON], [("ame-shiko", 7)]),
        (["pine-crane", CURTAIN, RAIN_MAN], []),
    ],
)
def test_light_yaku(cards: list[str], expected: list[tuple[str, int]]) -> None:
    assert Rules("fudawiki").counted_yaku(cards, 0, 1) == expected


def test_coins_goko_is_15() -> None:
    assert Rules("coins").counted_yaku(LIGHTS, 0, 1) == [("goko", 15)]


@pytest.mark.parametrize(
    ("preset", "overrides", "expected"),
    [
        ("fudawiki", {}, [("inoshikacho", 7)]),
        ("hanafuda-legends", {}, [("inoshikacho", 5), ("tane", 1)]),
        ("hanafuda-legends", {"sake_cup": "plain-only"}, [("inoshikacho", 5)]),
    ],
)
def test_animal_yaku_and_sake_cup(
    preset: str, overrides: dict[str, object], expected: list[tuple[str, int]]
) -> None:
    assert Rules(preset, overrides).counted_yaku(ANIMALS, 0, 1) == expected


def test_tsukifuda_needs_the_round_month_and_the_option() -> None:
    assert ("tsukifuda", 4) in Rules("fudawiki").counted_yaku(PINES, 0, 1)
    assert ("tsukifuda", 4) not in Rules("fudawiki").counted_yaku(PINES, 0, 2)
    assert ("tsukifuda", 4) not in Rules("nintendo").counted_yaku(PINES, 0, 1)


@pytest.mark.parametrize(
    ("overrides", "cards", "expected"),
    [
        ({}, VIEWING, [("hanami-zake", 5), ("tsukimi-zake", 5)]),
        ({"viewing": "one-per-round"}, VIEWING, [("hanami-zake", 5)]),
        ({"viewing": "off"}, VIEWING, []),
        ({"rain_spoils_viewing": "any-willow"}, [*VIEWING, LIGHTNING], []),
        (
            {"rain_spoils_viewing": "rain-man"},
            [*VIEWING, LIGHTNING],
            [("hanami-zake", 5), ("tsukimi-zake", 5)],
        ),
        ({"five_to_six": True}, VIEWING, [("hanami-zake", 6), ("tsukimi-zake", 6)]),
    ],
)
def test_viewing_options(
    overrides: dict[str, object], cards: list[str], expected: list[tuple[str, int]]
) -> None:
    assert Rules("fudawiki", overrides).counted_yaku(cards, 0, 4) == expected


def test_kasu_counting_options() -> None:
    plains9 = [c for c in ALL_CARDS if KIND[c] == "plain" and c != YELLOW][:9]
    assert Rules("fudawiki").counted_yaku([*plains9, SAKE], 0, 4) == [("kasu", 1)]
    animal_only = Rules("fudawiki", {"sake_cup": "animal-only"})
    assert animal_only.counted_yaku([*plains9, SAKE], 0, 4) == []
    yellow_double = Rules("fudawiki", {"yellow_paulownia_double": True})
    assert yellow_double.counted_yaku([*plains9[:8], YELLOW], 0, 4) == [("kasu", 1)]


def test_grand_yaku_fifteen() -> None:
    rules = Rules("fudawiki", {"grand_yaku_fifteen": "on"})
    assert rules.counted_yaku(LIGHTS, 0, 4) == [("goko", 15)]
    assert rules.counted_yaku(SIX_RIBBONS, 0, 4) == [("akatan-aotan", 15)]


def test_yaku_override_points_and_enabled() -> None:
    rules = Rules("fudawiki", {"yaku": {"goko": {"points": 20}, "sanko": {"enabled": False}}})
    assert rules.counted_yaku(LIGHTS, 0, 4) == [("goko", 20)]
    assert rules.counted_yaku(["pine-crane", CURTAIN, MOON], 0, 4) == []


# -- change a): the keys of a yaku override -----------------------------------------------------


def test_override_extra_turns_extra_card_points_off_and_on() -> None:
    assert Rules("fudawiki").counted_yaku(LOOSE_RIBBONS, 0, 4) == [("tan", 2)]
    no_extra = Rules("fudawiki", {"yaku": {"tan": {"extra": False}}})
    assert no_extra.counted_yaku(LOOSE_RIBBONS, 0, 4) == [("tan", 1)]
    extra = Rules("hanafuda-legends", {"yaku": {"inoshikacho": {"extra": "on"}}})
    assert extra.counted_yaku(ANIMALS, 0, 4) == [("inoshikacho", 7), ("tane", 1)]


def test_override_key_bonus_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown field 'bonus'"):
        Rules("fudawiki", {"yaku": {"tan": {"bonus": False}}})


def test_points_after_koikoi_alone_keeps_points() -> None:
    rules = Rules("fudawiki", {"yaku": {"sanko": {"points_after_koikoi": 9}}})
    three_lights = ["pine-crane", CURTAIN, MOON]
    assert rules.counted_yaku(three_lights, 0, 4) == [("sanko", 5)]
    assert rules.counted_yaku(three_lights, 1, 4) == [("sanko", 9)]
    assert rules.counted_yaku(three_lights, 3, 4) == [("sanko", 9)]


def test_points_without_points_after_koikoi_holds_before_and_after_a_call() -> None:
    rules = Rules("koikoi-japan", {"yaku": {"hanami-zake": {"points": 5}}})
    assert rules.counted_yaku([CURTAIN, SAKE], 0, 1) == [("hanami-zake", 5)]
    assert rules.counted_yaku([CURTAIN, SAKE], 1, 1) == [("hanami-zake", 5)]


@pytest.mark.parametrize(
    "override",
    [
        {"points": 2, "points_after_koikoi": 4},
        {"points_after_koikoi": 4, "points": 2},
    ],
)
def test_points_and_points_after_koikoi_together(override: dict[str, int]) -> None:
    rules = Rules("koikoi-japan", {"yaku": {"hanami-zake": override}})
    assert rules.counted_yaku([CURTAIN, SAKE], 0, 1) == [("hanami-zake", 2)]
    assert rules.counted_yaku([CURTAIN, SAKE], 1, 1) == [("hanami-zake", 4)]


def test_points_after_koikoi_zero_means_the_same_as_points() -> None:
    rules = Rules("koikoi-japan", {"yaku": {"hanami-zake": {"points_after_koikoi": 0}}})
    assert rules.counted_yaku([CURTAIN, SAKE], 1, 1) == [("hanami-zake", 1)]


def test_override_without_points_keeps_both_values() -> None:
    rules = Rules("koikoi-japan", {"yaku": {"tsukimi-zake": {"extra": True, "enabled": True}}})
    assert rules.counted_yaku([MOON, SAKE], 0, 1) == [("tsukimi-zake", 1)]
    assert rules.counted_yaku([MOON, SAKE], 1, 1) == [("tsukimi-zake", 3)]


@pytest.mark.parametrize("value", [-1, True, "3", 1.5, None])
def test_bad_points_after_koikoi_is_rejected(value: object) -> None:
    with pytest.raises(ValueError, match="points_after_koikoi"):
        Rules("fudawiki", {"yaku": {"sanko": {"points_after_koikoi": value}}})


def test_points_raised_only_by_his_own_call_are_not_a_rise() -> None:
    # koikoi-japan's hanami-zake is 1, then 3 once he has called: the call alone asks nothing.
    deal = make_deal(
        [CURTAIN, "pine-plain-1"],
        [],
        [SAKE, "cherry-plain-1", "plum-plain-1", "wisteria-plain-1", "iris-plain-1",
         "peony-plain-1", "clover-plain-1", "susuki-plain-1"],
        stock_first=["chrysanthemum-plain-1", "maple-plain-1", "paulownia-plain-1"],
    )  # fmt: skip
    assert no_deal_check_fires(deal)
    game = KoiKoiGame("koikoi-japan", {}, [deal, PLAIN_DEAL], 0)
    game.apply(("play", CURTAIN, None))  # takes cherry-plain-1; the draw takes the sake cup
    assert game.pending() == (0, "decide")
    game.apply(("koikoi",))
    game.apply(game.legal_moves()[0])
    assert game.pending() == (0, "play")
    assert game.turn_start_points == 3
    game.apply(("play", "pine-plain-1", None))  # no pine on the field, the draw takes nothing
    assert game.rules.yaku_points(game.captured[0], 1, 1) == 3
    assert game.pending() == (1, "play")


# -- change b): five_to_six and grand_yaku_fifteen on overridden points ------------------------


def test_five_to_six_applies_to_overridden_points() -> None:
    rules = Rules(
        "koikoi-japan",
        {"five_to_six": True, "yaku": {"hanami-zake": {"points": 5}, "kasu": {"points": 5}}},
    )
    assert rules.counted_yaku([CURTAIN, SAKE], 0, 1) == [("hanami-zake", 6)]
    assert rules.counted_yaku([CURTAIN, SAKE], 1, 1) == [("hanami-zake", 6)]
    ten_plains = [c for c in ALL_CARDS if KIND[c] == "plain"][:10]
    assert rules.counted_yaku(ten_plains, 0, 1) == [("kasu", 6)]
    assert rules.counted_yaku(["pine-crane", CURTAIN, MOON], 0, 1) == [("sanko", 6)]
    not_five = Rules("fudawiki", {"five_to_six": True, "yaku": {"sanko": {"points": 4}}})
    assert not_five.counted_yaku(["pine-crane", CURTAIN, MOON], 0, 1) == [("sanko", 4)]


def test_grand_yaku_fifteen_wins_over_overrides() -> None:
    rules = Rules(
        "fudawiki",
        {
            "grand_yaku_fifteen": True,
            "yaku": {"goko": {"points": 20}, "akatan-aotan": {"points": 3}},
        },
    )
    assert rules.counted_yaku(LIGHTS, 0, 4) == [("goko", 15)]
    assert rules.counted_yaku(SIX_RIBBONS, 0, 4) == [("akatan-aotan", 15)]


def test_extra_card_points_come_after_both_options() -> None:
    both = {"grand_yaku_fifteen": True, "five_to_six": True}
    rules = Rules("fudawiki", {**both, "yaku": {"goko": {"points": 5}}})
    assert rules.counted_yaku(LIGHTS, 0, 4) == [("goko", 15)]
    assert rules.counted_yaku([*SIX_RIBBONS, "iris-ribbon"], 0, 4) == [("akatan-aotan", 16)]
    four_animals = [BOAR, DEER, BUTTERFLIES, "plum-warbler"]
    assert rules.counted_yaku(four_animals, 0, 4) == [("inoshikacho", 6 + 1)]
    # 4 + 1 extra animal is 5, but five_to_six looks at the points before the extra cards.
    four = Rules("fudawiki", {**both, "yaku": {"inoshikacho": {"points": 4}}})
    assert four.counted_yaku(four_animals, 0, 4) == [("inoshikacho", 5)]


def test_both_options_apply_to_points_after_koikoi() -> None:
    six = Rules(
        "koikoi-japan",
        {"five_to_six": True, "yaku": {"hanami-zake": {"points_after_koikoi": 5}}},
    )
    assert six.counted_yaku([CURTAIN, SAKE], 0, 1) == [("hanami-zake", 1)]
    assert six.counted_yaku([CURTAIN, SAKE], 1, 1) == [("hanami-zake", 6)]
    assert six.counted_yaku([MOON, SAKE], 1, 1) == [("tsukimi-zake", 3)]
    fifteen = Rules(
        "koikoi-japan",
        {"grand_yaku_fifteen": True, "yaku": {"goko": {"points": 10, "points_after_koikoi": 12}}},
    )
    assert fifteen.counted_yaku(LIGHTS, 0, 1) == [("goko", 15)]
    assert fifteen.counted_yaku(LIGHTS, 1, 1) == [("goko", 15)]


# -- rule sets ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "overrides", "message"),
    [
        ("nope", {}, "unknown preset"),
        ("fudawiki", {"colour": "red"}, "unknown option 'colour'"),
        ("fudawiki", {"rounds": 0}, "option rounds: bad value 0"),
        ("fudawiki", {"viewing": "sometimes"}, "option viewing: bad value"),
        ("fudawiki", {"five_to_six": "perhaps"}, "not a boolean"),
        ("fudawiki", {"yaku": {"nope": {}}}, "unknown yaku 'nope'"),
    ],
)
def test_bad_rule_sets_are_rejected(
    preset: str, overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Rules(preset, overrides)


# -- deal checks --------------------------------------------------------------------------------


def test_prepared_deals_are_what_they_claim() -> None:
    assert no_deal_check_fires(PLAIN_DEAL)
    assert has_four(FIELD_FOUR["field"])
    assert has_four(TESHI_SEAT_1["hands"][1]) and not has_four(TESHI_SEAT_1["hands"][0])
    assert has_four_pairs(make_deal(FOUR_PAIRS, [], [])["hands"][0])


def test_field_four_redeals_with_fudawiki() -> None:
    game = KoiKoiGame("fudawiki", {}, [FIELD_FOUR, PLAIN_DEAL], 0)
    assert game.deal_index == 2 and game.rounds == []
    assert game.pending() == (0, "play")


def test_field_four_voids_the_round_with_wikipedia_fr() -> None:
    game = KoiKoiGame("wikipedia-fr", {}, [FIELD_FOUR, PLAIN_DEAL], 0)
    assert [(r["outcome"], r["month"]) for r in game.rounds] == [("void", 1)]
    assert game.dealer == 1 and game.pending() == (1, "play")
    assert game.month == 2


def test_teshi_wins_teyaku_points_and_the_deal() -> None:
    game = KoiKoiGame("fudawiki", {}, [TESHI_SEAT_1, PLAIN_DEAL], 0)
    first = game.rounds[0]
    assert (first["outcome"], first["winner"], first["points"]) == ("deal-check-win", 1, 6)
    assert game.totals == [0, 6]
    assert game.dealer == 1 and game.pending() == (1, "play")


def test_teyaku_win_in_transfer_mode_moves_the_points() -> None:
    overrides = {"starting_points": 10, "teyaku_points": 4}
    game = KoiKoiGame("fudawiki", overrides, [TESHI_SEAT_1, PLAIN_DEAL], 0)
    assert game.totals == [6, 14]


def test_both_hands_winning_voids_the_round() -> None:
    game = KoiKoiGame("nintendo", {}, [make_deal(PLUMS, PINES, []), PLAIN_DEAL], 0)
    assert game.rounds[0]["outcome"] == "void"
    assert game.totals == [0, 0] and game.dealer == 0


def test_four_pairs_and_teshi_both_winning_void_the_round() -> None:
    deal = make_deal(FOUR_PAIRS, PINES, [])
    assert has_four_pairs(deal["hands"][0])
    game = KoiKoiGame("fudawiki", {}, [deal, PLAIN_DEAL], 0)
    assert game.rounds[0]["outcome"] == "void"


def test_koikoi_japan_redeals_teshi_and_ignores_pairs() -> None:
    deals = [TESHI_SEAT_1, make_deal(FOUR_PAIRS, [], []), PLAIN_DEAL]
    game = KoiKoiGame("koikoi-japan", {}, deals, 1)
    assert game.rounds == [] and game.deal_index == 2
    assert game.pending() == (1, "play")


def test_running_out_of_deals_raises() -> None:
    with pytest.raises(RuntimeError, match="out of deals"):
        KoiKoiGame("fudawiki", {}, [FIELD_FOUR], 0)


def test_game_ended_by_a_deal_check_takes_no_more_deals() -> None:
    game = KoiKoiGame("fudawiki", {"rounds": 1}, [TESHI_SEAT_1], 0)
    assert game.over and game.winner == 1 and game.pending() is None


def test_transfer_mode_ends_when_a_player_reaches_0() -> None:
    overrides = {"starting_points": 6, "hand_four": "win"}
    game = KoiKoiGame("coins", overrides, [TESHI_SEAT_1, PLAIN_DEAL, PLAIN_DEAL], 0)
    assert game.over and game.totals == [0, 12] and game.winner == 1
    assert len(game.rounds) == 1


# -- turns --------------------------------------------------------------------------------------


def test_two_matches_need_a_named_target() -> None:
    deal = make_deal(
        ["plum-warbler", "pine-crane"],
        ["pine-ribbon"],
        ["plum-ribbon", "plum-plain-1", CURTAIN, "susuki-plain-1", "maple-plain-1",
         "iris-plain-1", "clover-plain-1", "wisteria-plain-1"],
        stock_first=["cherry-plain-1"],
    )  # fmt: skip
    assert no_deal_check_fires(deal)
    game = KoiKoiGame("fudawiki", {}, [deal], 0)
    moves = game.legal_moves()
    assert ("play", "plum-warbler", "plum-ribbon") in moves
    assert ("play", "plum-warbler", "plum-plain-1") in moves
    assert ("play", "plum-warbler", None) not in moves
    for move in (("play", "plum-warbler", None), ("play", "plum-warbler")):
        with pytest.raises(ValueError, match="illegal move"):
            game.apply(move)
    game.apply(("play", "plum-warbler", "plum-ribbon"))
    assert sorted(game.captured[0]) == sorted(
        ["plum-warbler", "plum-ribbon", "cherry-plain-1", CURTAIN]
    )
    assert "plum-plain-1" in game.field
    assert game.pending() == (1, "play")


def test_drawn_card_on_two_matches_waits_for_a_choice() -> None:
    deal = make_deal(
        ["maple-deer"],
        [],
        [CURTAIN, "cherry-plain-1", "pine-plain-1", "plum-plain-1", "iris-plain-1",
         "clover-plain-1", "susuki-plain-1", "paulownia-plain-1"],
        stock_first=["cherry-plain-2"],
    )  # fmt: skip
    assert no_deal_check_fires(deal)
    game = KoiKoiGame("fudawiki", {}, [deal], 0)
    game.apply(("play", "maple-deer"))
    assert "maple-deer" in game.field
    assert game.pending() == (0, "choose")
    assert sorted(game.legal_moves()) == [("choose", CURTAIN), ("choose", "cherry-plain-1")]
    with pytest.raises(ValueError, match="illegal move"):
        game.apply(("stop",))
    game.apply(("choose", CURTAIN))
    assert game.captured[0] == ["cherry-plain-2", CURTAIN]
    assert game.pending() == (1, "play")


# -- the wild lightning -------------------------------------------------------------------------

LIGHTNING_DEAL = make_deal(
    [LIGHTNING],
    [],
    [SAKE, "chrysanthemum-ribbon", "chrysanthemum-plain-1", "cherry-plain-1", "pine-plain-1",
     "plum-plain-1", "iris-plain-1", "clover-plain-1"],
    stock_first=[CURTAIN],
)  # fmt: skip


def test_wild_lightning_plays_are_listed_only_when_on() -> None:
    assert no_deal_check_fires(LIGHTNING_DEAL)
    wild = KoiKoiGame("fudawiki", {"lightning_wild": "on"}, [LIGHTNING_DEAL], 0)
    moves = wild.legal_moves()
    assert ("play", LIGHTNING, None) in moves
    assert {m[2] for m in moves if m[1] == LIGHTNING} == {None, *LIGHTNING_DEAL["field"]}
    tame = KoiKoiGame("fudawiki", {"lightning_wild": "off"}, [LIGHTNING_DEAL], 0)
    assert [m for m in tame.legal_moves() if m[1] == LIGHTNING] == [("play", LIGHTNING, None)]
    with pytest.raises(ValueError, match="illegal move"):
        tame.apply(("play", LIGHTNING, SAKE))


def test_wild_lightning_claims_its_month_at_the_end_of_the_round() -> None:
    game = KoiKoiGame("fudawiki", {"lightning_wild": "on", "rounds": 1}, [LIGHTNING_DEAL], 0)
    game.apply(("play", LIGHTNING, SAKE))
    assert game.lightning_claim == (0, 9)
    # The draw takes the curtain with cherry-plain-1: hanami-zake.
    assert game.pending() == (0, "decide")
    assert "chrysanthemum-ribbon" in game.field
    game.apply(("stop",))
    assert game.over
    claimed = {"chrysanthemum-ribbon", "chrysanthemum-plain-1"}
    assert set(game.captured[0]) == {LIGHTNING, SAKE, CURTAIN, "cherry-plain-1", *claimed}
    assert not any(MONTH[c] == 9 for c in game.field)
    assert game.rounds[0]["yaku"] == [("hanami-zake", 5)]


def test_before_november_wild_ends_once_a_willow_is_played() -> None:
    deal = make_deal(
        ["willow-swallow", LIGHTNING],
        [],
        ["pine-crane", "plum-plain-1", "cherry-plain-1", "iris-plain-1", "clover-plain-1",
         "susuki-plain-1", "maple-plain-1", "peony-plain-1"],
    )  # fmt: skip
    assert no_deal_check_fires(deal)
    game = KoiKoiGame("fudawiki", {"lightning_wild": "before-november"}, [deal], 0)
    assert ("play", LIGHTNING, "pine-crane") in game.legal_moves()
    game.apply(("play", "willow-swallow", None))
    while game.turn != 0:
        game.apply(game.legal_moves()[0])
    lightning_targets = [m[2] for m in game.legal_moves() if m[1] == LIGHTNING]
    assert lightning_targets
    assert all(t is None or MONTH[t] == WILLOW_MONTH for t in lightning_targets)


# -- random games -------------------------------------------------------------------------------

OPTION_SETS: list[dict[str, object]] = [
    {"lightning_wild": "on"},
    {"lightning_wild": "before-november"},
    {"exhaustion": "all-lost", "dealer_after_void": "rotate"},
    {"exhaustion": "last-koikoi-wins", "koikoi_limit": 1},
    {"last_turn_koikoi": True, "end_when_dealer_empty": True},
    {"opponent_koikoi": "per-call", "own_koikoi": "bonus-points", "target_score": 30},
    {"viewing": "one-per-round", "rain_spoils_viewing": "any-willow", "five_to_six": True},
    {"field_pairs": "void", "hand_pairs": "void", "rounds": 3},
    {"refill_empty_field": True, "sake_cup": "animal-and-two-plains"},
    {"yellow_paulownia_double": True, "grand_yaku_fifteen": True},
    {"yaku": {"sanko": {"points": 5, "points_after_koikoi": 2}, "tan": {"extra": False}}},
]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_games_finish_with_every_card_accounted_for(preset: str) -> None:
    for seed in range(3):
        game = play_random_game(preset, seed)
        assert game.over and game.rounds


@pytest.mark.parametrize("overrides", OPTION_SETS)
def test_random_games_with_options(overrides: dict[str, object]) -> None:
    for i, preset in enumerate(PRESETS):
        play_random_game(preset, 1000 + i, overrides)


@pytest.mark.parametrize("preset", list(PRESETS))
def test_rounds_without_voluntary_stops_end_by_the_rules(preset: str) -> None:
    for seed in range(2):
        play_always_koikoi(preset, seed)
        play_always_koikoi(preset, seed, {"last_turn_koikoi": True})
        play_always_koikoi(preset, seed, {"koikoi_limit": 2})
