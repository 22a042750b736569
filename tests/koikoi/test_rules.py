"""Koi-Koi rule sets against RULES.md 1.4 and 1.6: every preset option, the yaku table of every
preset, overrides (valid and refused) and the overrides round trip.

Every expected value below is copied from the spec's tables, not from the code.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanafuda_referee.cards import ALL_CARDS, mask_of
from hanafuda_referee.errors import Reason, RulesError
from hanafuda_referee.koikoi.rules import MAX_YAKU_POINTS, PRESETS, YAKU_IDS, KoiKoiRules
from hanafuda_referee.koikoi.scoring import score_stop

PRESET_NAMES = ("fudawiki", "wikipedia-fr", "hanafuda-legends", "coins", "koikoi-japan", "nintendo")

# ---------------------------------------------------------------------------------------------
# RULES.md 1.6: the presets table, then "Every preset not otherwise stated".

PRESET_TABLE: dict[str, dict[str, Any]] = {
    "fudawiki": {
        "rounds": 12,
        "starting_points": 0,
        "field_four": "redeal",
        "field_pairs": "redeal",
        "hand_four": "win",
        "hand_pairs": "win",
        "yaku_groups": "best-of-group",
        "akatan_aotan_stacks": False,
        "seven_or_more": 7,
        "own_koikoi": "none",
        "opponent_koikoi": "double",
        "all_calls_plus_one": False,
        "counter_seven": False,
        "exhaustion": "last-koikoi-wins",
        "end_when_dealer_empty": False,
        "dealer_points": 1,
        "dealer_after_void": "keep",
        "refill_empty_field": False,
        "first_dealer": "draw",
    },
    "wikipedia-fr": {
        "rounds": 12,
        "starting_points": 0,
        "field_four": "void",
        "field_pairs": "void",
        "hand_four": "win",
        "hand_pairs": "win",
        "yaku_groups": "best-of-group",
        "akatan_aotan_stacks": False,
        "seven_or_more": 7,
        "own_koikoi": "double",
        "opponent_koikoi": "double",
        "all_calls_plus_one": False,
        "counter_seven": True,
        "exhaustion": "void",
        "end_when_dealer_empty": True,
        "dealer_points": 1,
        "dealer_after_void": "rotate",
        "refill_empty_field": True,
        "first_dealer": "draw",
    },
    "hanafuda-legends": {
        "rounds": 12,
        "starting_points": 0,
        "field_four": "redeal",
        "field_pairs": "ignore",
        "hand_four": "win",
        "hand_pairs": "win",
        "yaku_groups": "cumulative",
        "akatan_aotan_stacks": False,
        "seven_or_more": 7,
        "own_koikoi": "none",
        "opponent_koikoi": "double",
        "all_calls_plus_one": False,
        "counter_seven": False,
        "exhaustion": "void",
        "end_when_dealer_empty": False,
        "dealer_points": 1,
        "dealer_after_void": "keep",
        "refill_empty_field": False,
        "first_dealer": "draw",
    },
    "coins": {
        "rounds": 12,
        "starting_points": 30,
        "field_four": "redeal",
        "field_pairs": "ignore",
        "hand_four": "redeal",
        "hand_pairs": "redeal",
        "yaku_groups": "cumulative",
        "akatan_aotan_stacks": False,
        "seven_or_more": 0,
        "own_koikoi": "none",
        "opponent_koikoi": "none",
        "all_calls_plus_one": True,
        "counter_seven": False,
        "exhaustion": "void",
        "end_when_dealer_empty": False,
        "dealer_points": 1,
        "dealer_after_void": "keep",
        "refill_empty_field": False,
        "first_dealer": "draw",
    },
    "koikoi-japan": {
        "rounds": 8,
        "starting_points": 30,
        "field_four": "redeal",
        "field_pairs": "ignore",
        "hand_four": "redeal",
        "hand_pairs": "ignore",
        "yaku_groups": "cumulative",
        "akatan_aotan_stacks": True,
        "seven_or_more": 0,
        "own_koikoi": "bonus-points",
        "opponent_koikoi": "none",
        "all_calls_plus_one": False,
        "counter_seven": False,
        "exhaustion": "dealer-points",
        "end_when_dealer_empty": False,
        "dealer_points": 1,
        "dealer_after_void": "keep",
        "refill_empty_field": False,
        "first_dealer": "random",
    },
    "nintendo": {
        "rounds": 12,
        "starting_points": 0,
        "field_four": "redeal",
        "field_pairs": "ignore",
        "hand_four": "win",
        "hand_pairs": "win",
        "yaku_groups": "best-of-group",
        "akatan_aotan_stacks": False,
        "seven_or_more": 7,
        "own_koikoi": "none",
        "opponent_koikoi": "double",
        "all_calls_plus_one": False,
        "counter_seven": False,
        "exhaustion": "void",
        "end_when_dealer_empty": False,
        "dealer_points": 1,
        "dealer_after_void": "keep",
        "refill_empty_field": False,
        "first_dealer": "draw",
    },
}

#: "Every preset not otherwise stated" (target_score: 1.1 enables it only when > 0, and no
#: preset enables it).
COMMON_OPTIONS: dict[str, Any] = {
    "koikoi_limit": 0,
    "last_turn_koikoi": False,
    "sake_cup": "animal-and-plain",
    "viewing": "on",
    "rain_spoils_viewing": "off",
    "lightning_wild": "off",
    "five_to_six": False,
    "grand_yaku_fifteen": False,
    "teyaku_points": 6,
    "target_score": 0,
}

# ---------------------------------------------------------------------------------------------
# RULES.md 1.4: the yaku table. None = "—" (not part of the preset); (points, extra).

_STANDARD: dict[str, tuple[int, bool] | None] = {
    "goko": (10, False),
    "shiko": (8, False),
    "ame-shiko": (7, False),
    "sanko": (5, False),
    "inoshikacho": (5, True),
    "tane": (1, True),
    "akatan-aotan": (10, True),
    "akatan": (5, True),
    "aotan": (5, True),
    "tan": (1, True),
    "kasu": (1, True),
    "hanami-zake": (5, False),
    "tsukimi-zake": (5, False),
    "tsukifuda": (4, False),
}
_LEGENDS: dict[str, tuple[int, bool] | None] = {
    **_STANDARD,
    "inoshikacho": (5, False),
    "akatan-aotan": (10, False),
    "akatan": (5, False),
    "aotan": (5, False),
    "tsukifuda": None,
}
_COINS: dict[str, tuple[int, bool] | None] = {
    **_STANDARD,
    "goko": (15, False),
    "shiko": (10, False),
    "ame-shiko": (8, False),
    "sanko": (6, False),
    "inoshikacho": (5, False),
    "akatan-aotan": None,
    "akatan": (6, False),
    "aotan": (6, False),
    "hanami-zake": (3, False),
    "tsukimi-zake": (3, False),
    "tsukifuda": None,
}
_JAPAN: dict[str, tuple[int, bool] | None] = {
    **_LEGENDS,
    "hanami-zake": (1, False),
    "tsukimi-zake": (1, False),
}

YAKU_TABLE: dict[str, dict[str, tuple[int, bool] | None]] = {
    "fudawiki": _STANDARD,
    "wikipedia-fr": _STANDARD,
    "nintendo": {**_STANDARD, "tsukifuda": None},
    "hanafuda-legends": _LEGENDS,
    "coins": _COINS,
    "koikoi-japan": _JAPAN,
}

SPEC_YAKU_IDS = (
    "goko",
    "shiko",
    "ame-shiko",
    "sanko",
    "inoshikacho",
    "tane",
    "akatan-aotan",
    "akatan",
    "aotan",
    "tan",
    "kasu",
    "hanami-zake",
    "tsukimi-zake",
    "tsukifuda",
)

# Every option and the values the spec allows for it (1.1 to 1.5).
ENUM_VALUES: dict[str, tuple[str, ...]] = {
    "dealer_after_void": ("keep", "rotate"),
    "field_four": ("redeal", "void", "ignore"),
    "field_pairs": ("redeal", "void", "ignore"),
    "hand_four": ("redeal", "void", "win", "ignore"),
    "hand_pairs": ("redeal", "void", "win", "ignore"),
    "yaku_groups": ("best-of-group", "cumulative"),
    "sake_cup": ("animal-and-plain", "animal-only", "plain-only", "animal-and-two-plains"),
    "viewing": ("on", "off", "one-per-round"),
    "rain_spoils_viewing": ("off", "any-willow", "rain-man"),
    "own_koikoi": ("none", "double", "bonus-points"),
    "opponent_koikoi": ("none", "double", "per-call"),
    "exhaustion": ("void", "last-koikoi-wins", "dealer-points", "all-lost"),
    "lightning_wild": ("off", "on", "before-november"),
}
INT_RANGE: dict[str, tuple[int, int]] = {
    "rounds": (1, 120),
    "starting_points": (0, 1_000_000),
    "target_score": (0, 1_000_000),
    "teyaku_points": (0, 100),
    "seven_or_more": (0, 1_000),
    "dealer_points": (0, 100),
    "koikoi_limit": (0, 100),
}
BOOL_OPTIONS = (
    "akatan_aotan_stacks",
    "yellow_paulownia_double",
    "five_to_six",
    "grand_yaku_fifteen",
    "all_calls_plus_one",
    "counter_seven",
    "end_when_dealer_empty",
    "refill_empty_field",
    "last_turn_koikoi",
)


def refused(preset: str, overrides: dict[str, Any] | None = None) -> RulesError:
    with pytest.raises(RulesError) as caught:
        KoiKoiRules.from_preset(preset, overrides)
    return caught.value


# ---------------------------------------------------------------------------------------------
# Presets


def test_the_six_presets_exist_and_fudawiki_is_the_default() -> None:
    assert set(PRESETS) == set(PRESET_NAMES)
    assert KoiKoiRules.from_preset() == KoiKoiRules.from_preset("fudawiki")
    assert KoiKoiRules.from_preset().preset == "fudawiki"


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_preset_options_follow_the_spec_table(preset: str) -> None:
    rules = KoiKoiRules.from_preset(preset)
    assert rules.preset == preset
    actual = {name: getattr(rules, name) for name in PRESET_TABLE[preset]}
    assert actual == PRESET_TABLE[preset]


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_preset_options_not_otherwise_stated(preset: str) -> None:
    rules = KoiKoiRules.from_preset(preset)
    actual = {name: getattr(rules, name) for name in COMMON_OPTIONS}
    assert actual == COMMON_OPTIONS
    assert rules.yellow_paulownia_double is False


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_transfer_mode_is_starting_points_above_zero(preset: str) -> None:
    assert KoiKoiRules.from_preset(preset).transfer is (preset in ("coins", "koikoi-japan"))


def test_yaku_ids_are_the_spec_table_in_order() -> None:
    assert tuple(YAKU_IDS) == SPEC_YAKU_IDS


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("yaku_id", SPEC_YAKU_IDS)
def test_yaku_table_per_preset(preset: str, yaku_id: str) -> None:
    rule = KoiKoiRules.from_preset(preset).yaku_rule(yaku_id)
    expected = YAKU_TABLE[preset][yaku_id]
    assert rule.id == yaku_id
    if expected is None:
        assert rule.enabled is False
    else:
        assert (rule.enabled, rule.points, rule.extra) == (True, *expected)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("yaku_id", SPEC_YAKU_IDS)
def test_points_after_koikoi_only_change_for_koikoi_japan_viewing(
    preset: str, yaku_id: str
) -> None:
    rule = KoiKoiRules.from_preset(preset).yaku_rule(yaku_id)
    # points_after_koikoi = 0 means "the same as points" (the field's documented meaning).
    after = rule.points_after_koikoi or rule.points
    if preset == "koikoi-japan" and yaku_id in ("hanami-zake", "tsukimi-zake"):
        assert (rule.points, after) == (1, 3)
    else:
        assert after == rule.points


def test_tsukifuda_only_in_fudawiki_and_wikipedia_fr() -> None:
    on = {p for p in PRESET_NAMES if KoiKoiRules.from_preset(p).yaku_rule("tsukifuda").enabled}
    assert on == {"fudawiki", "wikipedia-fr"}


def test_koikoi_japan_stacks_the_ribbon_yaku_and_no_other_preset_does() -> None:
    stacking = {p for p in PRESET_NAMES if KoiKoiRules.from_preset(p).akatan_aotan_stacks}
    assert stacking == {"koikoi-japan"}


def test_rule_sets_are_hashable_values() -> None:
    a = KoiKoiRules.from_preset("coins", {"rounds": 6})
    b = KoiKoiRules.from_preset("coins", {"rounds": 6})
    assert a == b
    assert hash(a) == hash(b)
    assert a != KoiKoiRules.from_preset("coins")
    assert len({a, b}) == 1


# ---------------------------------------------------------------------------------------------
# Overrides: accepted values


@pytest.mark.parametrize(
    ("option", "value"),
    [(option, value) for option, values in ENUM_VALUES.items() for value in values],
)
@pytest.mark.parametrize("preset", ["fudawiki", "koikoi-japan"])
def test_every_enumerated_value_is_accepted(preset: str, option: str, value: str) -> None:
    rules = KoiKoiRules.from_preset(preset, {option: value})
    assert getattr(rules, option) == value
    # Only that option changed: everything else is still the preset's.
    base = KoiKoiRules.from_preset(preset)
    for other in PRESET_TABLE[preset]:
        if other != option:
            assert getattr(rules, other) == getattr(base, other)
    assert rules.yaku == base.yaku
    assert rules.preset == preset


@pytest.mark.parametrize("value", ["draw", "random"])
def test_first_dealer_draw_or_random(value: str) -> None:
    assert KoiKoiRules.from_preset("nintendo", {"first_dealer": value}).first_dealer == value


@pytest.mark.parametrize("seat", [0, 1])
def test_first_dealer_can_be_a_seat(seat: int) -> None:
    rules = KoiKoiRules.from_preset("fudawiki", {"first_dealer": seat})
    assert rules.first_dealer not in ("draw", "random")
    # The resolved spelling is accepted again, so a stored rule set can be rebuilt.
    again = KoiKoiRules.from_preset("fudawiki", {"first_dealer": rules.first_dealer})
    assert again == rules
    other = KoiKoiRules.from_preset("fudawiki", {"first_dealer": 1 - seat})
    assert other.first_dealer != rules.first_dealer


@pytest.mark.parametrize("seat", [2, -1, "seat-2", "north", True])
def test_first_dealer_refuses_other_seats(seat: Any) -> None:
    error = refused("fudawiki", {"first_dealer": seat})
    assert error.reason is Reason.BAD_OPTION_VALUE
    assert "first_dealer" in error.message
    assert "draw" in error.message
    assert "random" in error.message


@pytest.mark.parametrize("rounds", [1, 3, 6, 8, 12, 24, 100])
def test_rounds_accepts_any_number_from_one(rounds: int) -> None:
    assert KoiKoiRules.from_preset("fudawiki", {"rounds": rounds}).rounds == rounds


@pytest.mark.parametrize(
    ("option", "value"),
    [(o, v) for o, (low, high) in INT_RANGE.items() for v in (low, low + 1, low + 30, high)],
)
def test_whole_number_options_accept_their_range(option: str, value: int) -> None:
    assert getattr(KoiKoiRules.from_preset("coins", {option: value}), option) == value


@pytest.mark.parametrize("option", BOOL_OPTIONS)
@pytest.mark.parametrize("value", [True, False])
def test_switches_accept_true_and_false(option: str, value: bool) -> None:
    assert getattr(KoiKoiRules.from_preset("wikipedia-fr", {option: value}), option) is value


def test_overrides_apply_on_top_of_the_preset() -> None:
    rules = KoiKoiRules.from_preset("coins", {"rounds": 6, "viewing": "off"})
    assert (rules.rounds, rules.viewing) == (6, "off")
    assert rules.starting_points == 30
    assert rules.all_calls_plus_one is True
    assert rules.yaku_rule("goko").points == 15
    assert rules.preset == "coins"


def test_several_overrides_at_once() -> None:
    rules = KoiKoiRules.from_preset(
        "fudawiki",
        {
            "rounds": 3,
            "starting_points": 20,
            "target_score": 50,
            "koikoi_limit": 2,
            "five_to_six": True,
            "sake_cup": "plain-only",
            "exhaustion": "all-lost",
        },
    )
    assert (
        rules.rounds,
        rules.starting_points,
        rules.target_score,
        rules.koikoi_limit,
        rules.five_to_six,
        rules.sake_cup,
        rules.exhaustion,
    ) == (3, 20, 50, 2, True, "plain-only", "all-lost")


def test_no_overrides_is_the_preset() -> None:
    for preset in PRESET_NAMES:
        assert KoiKoiRules.from_preset(preset, {}) == KoiKoiRules.from_preset(preset)
        assert KoiKoiRules.from_preset(preset, None) == PRESETS[preset]


# ---------------------------------------------------------------------------------------------
# Overrides: refusals


@pytest.mark.parametrize("preset", ["", "Fudawiki", "wikipedia", "sudden-death", "koikoi japan"])
def test_unknown_preset_is_refused(preset: str) -> None:
    error = refused(preset)
    assert error.reason is Reason.UNKNOWN_PRESET
    assert repr(preset) in error.message or preset in error.message
    for name in PRESET_NAMES:
        assert name in error.message


@pytest.mark.parametrize("option", ["foo", "Rounds", "sake-cup", "goko", "preset_name", ""])
def test_unknown_option_is_refused(option: str) -> None:
    error = refused("fudawiki", {option: 1})
    assert error.reason is Reason.UNKNOWN_OPTION
    assert repr(option) in error.message
    # ... and lists the options there are.
    for known in ("rounds", "sake_cup", "own_koikoi", "exhaustion", "yaku"):
        assert known in error.message


def test_unknown_option_refused_even_next_to_valid_ones() -> None:
    error = refused("nintendo", {"rounds": 6, "counter_eight": True})
    assert error.reason is Reason.UNKNOWN_OPTION
    assert "counter_eight" in error.message


@pytest.mark.parametrize("option", list(ENUM_VALUES))
@pytest.mark.parametrize("value", ["bogus", "", "ON", 1, None, True])
def test_enumerated_option_refuses_other_values(option: str, value: Any) -> None:
    error = refused("fudawiki", {option: value})
    assert error.reason is Reason.BAD_OPTION_VALUE
    assert option in error.message
    for allowed in ENUM_VALUES[option]:
        assert allowed in error.message


@pytest.mark.parametrize("option", ["field_four", "field_pairs"])
def test_win_is_for_hands_only(option: str) -> None:
    error = refused("fudawiki", {option: "win"})
    assert error.reason is Reason.BAD_OPTION_VALUE
    assert option in error.message


@pytest.mark.parametrize("option", list(INT_RANGE))
def test_whole_number_option_refuses_values_out_of_its_range_and_non_integers(
    option: str,
) -> None:
    low, high = INT_RANGE[option]
    for value in (low - 1, low - 10, high + 1, 2**32, "7", 7.0, None, True, False):
        error = refused("fudawiki", {option: value})
        assert error.reason is Reason.BAD_OPTION_VALUE, value
        assert option in error.message
        assert f"from {low} to {high}" in error.message
    for value in (low, high):
        assert getattr(KoiKoiRules.from_preset("fudawiki", {option: value}), option) == value


def test_the_largest_scores_the_options_allow_fit_the_api_s_fields() -> None:
    # Every yaku at its largest points with its bonus, every card captured, every multiplier:
    # a game of the most rounds must stay within a view's int32 scores, and the stateless
    # scoring (up to 64 calls a side, see api.stateless) within a breakdown's uint32 points.
    most = {"points": MAX_YAKU_POINTS, "extra": True, "enabled": True}
    rules = KoiKoiRules.from_preset(
        "fudawiki",
        {
            "yaku": dict.fromkeys(YAKU_IDS, most),
            "yaku_groups": "cumulative",
            "akatan_aotan_stacks": True,
            "sake_cup": "animal-and-two-plains",
            "yellow_paulownia_double": True,
            "seven_or_more": 1,
            "own_koikoi": "bonus-points",
            "opponent_koikoi": "per-call",
            "all_calls_plus_one": True,
            "counter_seven": True,
        },
    )
    everything = mask_of(ALL_CARDS)
    best_month = max(range(1, 13), key=lambda month: score_stop(rules, everything, month).base)
    round_score = score_stop(rules, everything, best_month, 8, 8, 1_000).total
    _, most_rounds = INT_RANGE["rounds"]
    _, most_points = INT_RANGE["starting_points"]
    assert most_points + most_rounds * round_score < 2**31
    assert score_stop(rules, everything, best_month, 64, 64, 10_000).total < 2**32


def test_rounds_zero_is_refused() -> None:
    error = refused("fudawiki", {"rounds": 0})
    assert error.reason is Reason.BAD_OPTION_VALUE
    assert "rounds" in error.message


@pytest.mark.parametrize("option", BOOL_OPTIONS)
@pytest.mark.parametrize("value", ["yes", "true", 1, 0, None, "on"])
def test_switch_refuses_non_booleans(option: str, value: Any) -> None:
    error = refused("fudawiki", {option: value})
    assert error.reason is Reason.BAD_OPTION_VALUE
    assert option in error.message
    assert "true" in error.message.lower()
    assert "false" in error.message.lower()


def test_error_names_the_option() -> None:
    error = refused("fudawiki", {"viewing": "sometimes"})
    assert error.option == "viewing"
    assert "sometimes" in error.message
    assert isinstance(error, ValueError)


# ---------------------------------------------------------------------------------------------
# Yaku overrides


@pytest.mark.parametrize("yaku_id", SPEC_YAKU_IDS)
def test_yaku_points_override(yaku_id: str) -> None:
    base = KoiKoiRules.from_preset("fudawiki").yaku_rule(yaku_id)
    rules = KoiKoiRules.from_preset("fudawiki", {"yaku": {yaku_id: {"points": 13}}})
    rule = rules.yaku_rule(yaku_id)
    assert rule.points == 13
    assert (rule.enabled, rule.extra) == (base.enabled, base.extra)
    for other in SPEC_YAKU_IDS:
        if other != yaku_id:
            assert rules.yaku_rule(other) == KoiKoiRules.from_preset("fudawiki").yaku_rule(other)


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("yaku_id", SPEC_YAKU_IDS)
@pytest.mark.parametrize("enabled", [True, False])
def test_yaku_can_be_switched_on_and_off(preset: str, yaku_id: str, enabled: bool) -> None:
    rules = KoiKoiRules.from_preset(preset, {"yaku": {yaku_id: {"enabled": enabled}}})
    assert rules.yaku_rule(yaku_id).enabled is enabled


def test_coins_can_switch_akatan_aotan_on_and_koikoi_japan_tsukifuda_on() -> None:
    coins = KoiKoiRules.from_preset("coins", {"yaku": {"akatan-aotan": {"enabled": True}}})
    assert coins.yaku_rule("akatan-aotan").enabled
    japan = KoiKoiRules.from_preset(
        "koikoi-japan", {"yaku": {"tsukifuda": {"enabled": True, "points": 4}}}
    )
    assert (japan.yaku_rule("tsukifuda").enabled, japan.yaku_rule("tsukifuda").points) == (True, 4)


@pytest.mark.parametrize(
    "yaku_id", ["inoshikacho", "tane", "akatan-aotan", "akatan", "aotan", "tan", "kasu"]
)
@pytest.mark.parametrize("extra", [True, False])
def test_yaku_extra_override(yaku_id: str, extra: bool) -> None:
    for preset in ("fudawiki", "hanafuda-legends"):
        rules = KoiKoiRules.from_preset(preset, {"yaku": {yaku_id: {"extra": extra}}})
        assert rules.yaku_rule(yaku_id).extra is extra


def test_yaku_points_after_koikoi_override() -> None:
    rules = KoiKoiRules.from_preset(
        "koikoi-japan", {"yaku": {"hanami-zake": {"points": 2, "points_after_koikoi": 5}}}
    )
    rule = rules.yaku_rule("hanami-zake")
    assert (rule.points, rule.points_after_koikoi) == (2, 5)
    assert rules.yaku_rule("tsukimi-zake").points_after_koikoi == 3


def test_points_given_alone_replace_the_value_after_a_koikoi_call() -> None:
    # koikoi-japan's viewing yaku are "1; 3 once he has called koi-koi": an override that gives
    # the entry its points replaces both, unless it also gives the value after a call.
    rules = KoiKoiRules.from_preset("koikoi-japan", {"yaku": {"hanami-zake": {"points": 5}}})
    assert rules.yaku_rule("hanami-zake").points_after_koikoi == 0
    assert rules.yaku_rule("tsukimi-zake").points_after_koikoi == 3
    assert KoiKoiRules.from_preset("koikoi-japan", rules.overrides()) == rules
    extra_only = KoiKoiRules.from_preset("koikoi-japan", {"yaku": {"hanami-zake": {"extra": True}}})
    assert extra_only.yaku_rule("hanami-zake").points_after_koikoi == 3


def test_several_settings_of_several_yaku() -> None:
    rules = KoiKoiRules.from_preset(
        "nintendo",
        {
            "yaku": {
                "goko": {"points": 12, "enabled": True},
                "kasu": {"extra": False, "points": 2},
                "tsukifuda": {"enabled": True},
            }
        },
    )
    assert rules.yaku_rule("goko").points == 12
    assert (rules.yaku_rule("kasu").extra, rules.yaku_rule("kasu").points) == (False, 2)
    assert rules.yaku_rule("tsukifuda").enabled


@pytest.mark.parametrize("yaku_id", ["gokou", "sankō", "ame_shiko", "akatan_aotan", ""])
def test_unknown_yaku_is_refused(yaku_id: str) -> None:
    error = refused("fudawiki", {"yaku": {yaku_id: {"points": 1}}})
    assert error.reason is Reason.UNKNOWN_OPTION
    assert repr(yaku_id) in error.message
    assert "goko" in error.message


@pytest.mark.parametrize("setting", ["value", "bonus", "Points", "enable"])
def test_unknown_yaku_setting_is_refused(setting: str) -> None:
    error = refused("fudawiki", {"yaku": {"goko": {setting: 1}}})
    assert error.reason is Reason.UNKNOWN_OPTION
    assert setting in error.message
    for known in ("enabled", "points", "extra"):
        assert known in error.message


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("points", -1),
        ("points", MAX_YAKU_POINTS + 1),
        ("points", "5"),
        ("points", 5.0),
        ("points", True),
        ("points", None),
        ("points_after_koikoi", -3),
        ("points_after_koikoi", 2**32),
        ("points_after_koikoi", "3"),
        ("enabled", 1),
        ("enabled", "yes"),
        ("enabled", None),
        ("extra", 0),
        ("extra", "no"),
    ],
)
def test_bad_yaku_setting_value_is_refused(setting: str, value: Any) -> None:
    error = refused("fudawiki", {"yaku": {"tane": {setting: value}}})
    assert error.reason is Reason.BAD_OPTION_VALUE
    assert setting in error.message
    assert "tane" in error.message


@pytest.mark.parametrize("value", [5, "goko", ["goko"], None])
def test_yaku_override_must_be_a_mapping(value: Any) -> None:
    error = refused("fudawiki", {"yaku": value})
    assert error.reason is Reason.BAD_OPTION_VALUE
    assert "yaku" in error.message


@pytest.mark.parametrize("value", [5, "on", None, True])
def test_yaku_settings_must_be_a_mapping(value: Any) -> None:
    error = refused("fudawiki", {"yaku": {"goko": value}})
    assert error.reason is Reason.BAD_OPTION_VALUE
    assert "goko" in error.message


# ---------------------------------------------------------------------------------------------
# overrides() round trip


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_a_preset_has_no_overrides(preset: str) -> None:
    assert KoiKoiRules.from_preset(preset).overrides() == {}


def test_overrides_lists_exactly_what_differs() -> None:
    rules = KoiKoiRules.from_preset(
        "coins", {"rounds": 6, "starting_points": 30, "yaku": {"goko": {"points": 15}}}
    )
    # rounds differs; starting_points and goko's points are the coins preset's own values.
    assert rules.overrides() == {"rounds": 6}
    rules = KoiKoiRules.from_preset("coins", {"yaku": {"kasu": {"points": 3, "extra": True}}})
    assert rules.overrides() == {"yaku": {"kasu": {"points": 3}}}


def _option_values() -> dict[str, st.SearchStrategy[Any]]:
    strategies: dict[str, st.SearchStrategy[Any]] = {}
    for option, values in ENUM_VALUES.items():
        strategies[option] = st.sampled_from(values)
    for option, (low, high) in INT_RANGE.items():
        strategies[option] = st.integers(low, min(high, low + 40))
    for option in BOOL_OPTIONS:
        strategies[option] = st.booleans()
    strategies["first_dealer"] = st.sampled_from(["draw", "random", 0, 1])
    return strategies


_YAKU_SETTINGS = st.fixed_dictionaries(
    {},
    optional={
        "enabled": st.booleans(),
        "points": st.integers(0, 20),
        "points_after_koikoi": st.integers(0, 20),
    },
)


@st.composite
def override_sets(draw: st.DrawFn) -> dict[str, Any]:
    """A random set of valid overrides, including yaku overrides."""
    values = _option_values()
    names = draw(st.lists(st.sampled_from(sorted(values)), unique=True, max_size=10))
    chosen: dict[str, Any] = {name: draw(values[name]) for name in names}
    yaku_ids = draw(st.lists(st.sampled_from(SPEC_YAKU_IDS), unique=True, max_size=4))
    if yaku_ids:
        yaku: dict[str, dict[str, Any]] = {}
        for yaku_id in yaku_ids:
            settings_ = draw(_YAKU_SETTINGS)
            if yaku_id not in ("hanami-zake", "tsukimi-zake", "tsukifuda") and draw(st.booleans()):
                settings_["extra"] = draw(st.booleans())
            yaku[yaku_id] = settings_
        chosen["yaku"] = yaku
    return chosen


@settings(max_examples=300, deadline=None)
@given(preset=st.sampled_from(PRESET_NAMES), overrides=override_sets())
def test_overrides_round_trip(preset: str, overrides: dict[str, Any]) -> None:
    rules = KoiKoiRules.from_preset(preset, overrides)
    assert KoiKoiRules.from_preset(preset, rules.overrides()) == rules
    # Re-applying the listed differences to the preset is idempotent.
    assert KoiKoiRules.from_preset(preset, rules.overrides()).overrides() == rules.overrides()


@settings(max_examples=200, deadline=None)
@given(preset=st.sampled_from(PRESET_NAMES), overrides=override_sets())
def test_overrides_take_the_given_values(preset: str, overrides: dict[str, Any]) -> None:
    rules = KoiKoiRules.from_preset(preset, overrides)
    for name, value in overrides.items():
        if name == "yaku":
            for yaku_id, yaku_settings in value.items():
                rule = rules.yaku_rule(yaku_id)
                for key, setting in yaku_settings.items():
                    assert getattr(rule, key) == setting
        elif name == "first_dealer" and isinstance(value, int):
            assert rules.first_dealer not in ("draw", "random")
        else:
            assert getattr(rules, name) == value
