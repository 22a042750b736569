"""Koi-Koi scoring against RULES.md 1.4 (yaku) and 1.5 (scoring a stop), preset by preset.

Every expected number is worked out by hand from the spec's tables and CARDS.md; the comments
show the arithmetic. Card sets are written with the deck's codes.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hanafuda_referee.cards import Card, cards_of, mask_of
from hanafuda_referee.koikoi.rules import PRESETS, YAKU_GROUP, KoiKoiRules
from hanafuda_referee.koikoi.scoring import points_function, score_stop, yaku_of, yaku_points

PRESET_NAMES = ("fudawiki", "wikipedia-fr", "hanafuda-legends", "coins", "koikoi-japan", "nintendo")
BEST_OF_GROUP = ("fudawiki", "wikipedia-fr", "nintendo")
CUMULATIVE = ("hanafuda-legends", "coins", "koikoi-japan")
#: The presets whose animal and ribbon yaku (other than tane and tan) earn +1 per extra card.
WITH_EXTRAS = BEST_OF_GROUP


def cards(*codes: str) -> int:
    """The set of the cards with these codes (a repeated code is a mistake in the test)."""
    assert len(set(codes)) == len(codes), f"repeated card in {codes}"
    return mask_of(Card.from_code(code) for code in codes)


def rules_of(preset: str, **overrides: Any) -> KoiKoiRules:
    return KoiKoiRules.from_preset(preset, overrides)


def counted(rules: KoiKoiRules, captured: int, month: int = 0, calls: int = 0) -> dict[str, int]:
    """The counted yaku as {id: points}; also checks the fast path agrees on the sum."""
    found = yaku_of(rules, captured, month, calls)
    ids = [y.id for y in found]
    assert len(ids) == len(set(ids)), ids
    total = yaku_points(rules, captured, month, calls)
    assert total == sum(y.points for y in found)
    assert points_function(rules)(captured, month, calls) == total
    return {y.id: y.points for y in found}


# The deck, by kind (CARDS.md).
LIGHTS = ("pine-crane", "cherry-curtain", "susuki-moon", "willow-rainman", "paulownia-phoenix")
NON_RAIN_LIGHTS = ("pine-crane", "cherry-curtain", "susuki-moon", "paulownia-phoenix")
LIGHT_YAKU = ("goko", "shiko", "ame-shiko", "sanko")
INOSHIKACHO = ("clover-boar", "maple-deer", "peony-butterflies")
# The animals other than the inoshikacho three and the sake cup.
OTHER_ANIMALS = ("plum-warbler", "wisteria-cuckoo", "iris-bridge", "susuki-geese", "willow-swallow")
SAKE = "chrysanthemum-sake"
POETRY = ("pine-ribbon", "plum-ribbon", "cherry-ribbon")
BLUE = ("peony-ribbon", "chrysanthemum-ribbon", "maple-ribbon")
RED = ("wisteria-ribbon", "iris-ribbon", "clover-ribbon", "willow-ribbon")
# The 24 plains, the yellow paulownia last.
_PLAIN_CODES = tuple(c.code for c in Card if c.kind.name == "PLAIN")
PLAINS = (*(c for c in _PLAIN_CODES if c != "paulownia-yellow"), "paulownia-yellow")
PLAINS_NO_YELLOW = PLAINS[:-1]

# 1.4 table, the light yaku: (goko, shiko, ame-shiko, sanko).
LIGHT_POINTS = {
    "fudawiki": (10, 8, 7, 5),
    "wikipedia-fr": (10, 8, 7, 5),
    "nintendo": (10, 8, 7, 5),
    "hanafuda-legends": (10, 8, 7, 5),
    "coins": (15, 10, 8, 6),
    "koikoi-japan": (10, 8, 7, 5),
}


def test_deck_counts_match_cards_md() -> None:
    assert len(LIGHTS) == 5
    assert len(INOSHIKACHO) + len(OTHER_ANIMALS) + 1 == 9
    assert len(POETRY) + len(BLUE) + len(RED) == 10
    assert len(PLAINS) == 24
    everything = cards(*LIGHTS, *INOSHIKACHO, *OTHER_ANIMALS, SAKE, *POETRY, *BLUE, *RED, *PLAINS)
    assert len(cards_of(everything)) == 48


# ---------------------------------------------------------------------------------------------
# Lights


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_goko(preset: str) -> None:
    assert counted(rules_of(preset), cards(*LIGHTS)) == {"goko": LIGHT_POINTS[preset][0]}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_shiko_is_four_lights_without_the_rain_man(preset: str) -> None:
    assert counted(rules_of(preset), cards(*NON_RAIN_LIGHTS)) == {"shiko": LIGHT_POINTS[preset][1]}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("three", list(combinations(NON_RAIN_LIGHTS, 3)))
def test_ame_shiko_is_the_rain_man_and_three_lights(preset: str, three: tuple[str, ...]) -> None:
    captured = cards("willow-rainman", *three)
    assert counted(rules_of(preset), captured) == {"ame-shiko": LIGHT_POINTS[preset][2]}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("three", list(combinations(NON_RAIN_LIGHTS, 3)))
def test_sanko_is_three_lights_without_the_rain_man(preset: str, three: tuple[str, ...]) -> None:
    assert counted(rules_of(preset), cards(*three)) == {"sanko": LIGHT_POINTS[preset][3]}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("two", list(combinations(NON_RAIN_LIGHTS, 2)))
def test_rain_man_and_two_lights_is_nothing(preset: str, two: tuple[str, ...]) -> None:
    assert counted(rules_of(preset), cards("willow-rainman", *two)) == {}
    assert counted(rules_of(preset), cards(*two)) == {}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("light", LIGHTS)
def test_one_light_is_nothing(preset: str, light: str) -> None:
    assert counted(rules_of(preset), cards(light)) == {}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_light_yaku_never_combine(preset: str) -> None:
    # Five lights hold a shiko and sanko too; only the best light yaku counts in every mode.
    rules = rules_of(preset)
    assert counted(rules, cards(*LIGHTS)) == {"goko": LIGHT_POINTS[preset][0]}
    assert counted(rules, cards(*NON_RAIN_LIGHTS)) == {"shiko": LIGHT_POINTS[preset][1]}
    assert counted(rules, cards("willow-rainman", *NON_RAIN_LIGHTS[:3])) == {
        "ame-shiko": LIGHT_POINTS[preset][2]
    }


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_lights_with_padding_of_other_kinds(preset: str) -> None:
    # Two plains, one red ribbon and one ordinary animal form nothing of their own.
    padding = ("pine-plain-1", "maple-plain-2", "iris-ribbon", "susuki-geese")
    assert counted(rules_of(preset), cards(*NON_RAIN_LIGHTS[1:], *padding)) == {
        "sanko": LIGHT_POINTS[preset][3]
    }


# ---------------------------------------------------------------------------------------------
# Animals


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_inoshikacho_exactly(preset: str) -> None:
    assert counted(rules_of(preset), cards(*INOSHIKACHO)) == {"inoshikacho": 5}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("missing", INOSHIKACHO)
def test_inoshikacho_needs_all_three(preset: str, missing: str) -> None:
    two = [c for c in INOSHIKACHO if c != missing]
    # Two of the three plus two other animals: four animals, no yaku.
    assert counted(rules_of(preset), cards(*two, *OTHER_ANIMALS[:2])) == {}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("extra", [1, 2, 3, 4, 5])
def test_inoshikacho_plus_one_per_animal_beyond_three(preset: str, extra: int) -> None:
    captured = cards(*INOSHIKACHO, *OTHER_ANIMALS[:extra])
    n_animals = 3 + extra
    ino = 5 + extra if preset in WITH_EXTRAS else 5
    tane = 1 + (n_animals - 5) if n_animals >= 5 else 0
    expected = {"inoshikacho": ino}
    if preset in CUMULATIVE and tane:
        expected["tane"] = tane
    # Best of group: inoshikacho (5 + extras) always beats tane (1 + extras beyond 5).
    assert counted(rules_of(preset), captured) == expected


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_all_nine_animals(preset: str) -> None:
    # 9 animals: inoshikacho 5 (+6 where extras count), tane 1 + 4 = 5. The sake cup is one
    # plain too: no kasu.
    captured = cards(*INOSHIKACHO, *OTHER_ANIMALS, SAKE)
    expected = {
        "fudawiki": {"inoshikacho": 11},
        "wikipedia-fr": {"inoshikacho": 11},
        "nintendo": {"inoshikacho": 11},
        "hanafuda-legends": {"inoshikacho": 5, "tane": 5},
        "coins": {"inoshikacho": 5, "tane": 5},
        "koikoi-japan": {"inoshikacho": 5, "tane": 5},
    }[preset]
    assert counted(rules_of(preset), captured) == expected


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_tane_is_five_animals(preset: str) -> None:
    assert counted(rules_of(preset), cards(*OTHER_ANIMALS)) == {"tane": 1}
    assert counted(rules_of(preset), cards(*OTHER_ANIMALS[:4])) == {}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_tane_plus_one_per_animal_beyond_five(preset: str) -> None:
    rules = rules_of(preset)
    # Two of the inoshikacho animals: no inoshikacho.
    assert counted(rules, cards(*OTHER_ANIMALS, "clover-boar")) == {"tane": 2}
    assert counted(rules, cards(*OTHER_ANIMALS, "clover-boar", "maple-deer")) == {"tane": 3}
    assert counted(rules, cards(*OTHER_ANIMALS, "clover-boar", "maple-deer", SAKE)) == {"tane": 4}


# ---------------------------------------------------------------------------------------------
# Ribbons


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize(("yaku_id", "three"), [("akatan", POETRY), ("aotan", BLUE)])
def test_akatan_and_aotan_exactly(preset: str, yaku_id: str, three: tuple[str, ...]) -> None:
    points = 6 if preset == "coins" else 5
    assert counted(rules_of(preset), cards(*three)) == {yaku_id: points}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize(("yaku_id", "three"), [("akatan", POETRY), ("aotan", BLUE)])
def test_akatan_and_aotan_need_all_three(preset: str, yaku_id: str, three: tuple[str, ...]) -> None:
    for two in combinations(three, 2):
        # Two of the colour plus two red ribbons: four ribbons, no yaku.
        assert counted(rules_of(preset), cards(*two, *RED[:2])) == {}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize(("yaku_id", "three"), [("akatan", POETRY), ("aotan", BLUE)])
def test_akatan_and_aotan_with_a_fourth_ribbon(
    preset: str, yaku_id: str, three: tuple[str, ...]
) -> None:
    base = 6 if preset == "coins" else 5
    expected = base + 1 if preset in WITH_EXTRAS else base
    assert counted(rules_of(preset), cards(*three, RED[0])) == {yaku_id: expected}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize(("yaku_id", "three"), [("akatan", POETRY), ("aotan", BLUE)])
def test_akatan_and_aotan_with_tan(preset: str, yaku_id: str, three: tuple[str, ...]) -> None:
    # Five ribbons: the colour yaku (+2 extras where they count) and tan 1.
    captured = cards(*three, *RED[:2])
    expected = {
        "fudawiki": {yaku_id: 7},
        "wikipedia-fr": {yaku_id: 7},
        "nintendo": {yaku_id: 7},
        "hanafuda-legends": {yaku_id: 5, "tan": 1},
        "coins": {yaku_id: 6, "tan": 1},
        "koikoi-japan": {yaku_id: 5, "tan": 1},
    }[preset]
    assert counted(rules_of(preset), captured) == expected


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_akatan_aotan_six_ribbons(preset: str) -> None:
    captured = cards(*POETRY, *BLUE)
    expected = {
        # best of 10, akatan 5+3, aotan 5+3, tan 1+1
        "fudawiki": {"akatan-aotan": 10},
        "wikipedia-fr": {"akatan-aotan": 10},
        "nintendo": {"akatan-aotan": 10},
        # akatan-aotan replaces akatan and aotan; tan 2 still counts
        "hanafuda-legends": {"akatan-aotan": 10, "tan": 2},
        # no akatan-aotan in coins: akatan 6 + aotan 6 + tan 2
        "coins": {"akatan": 6, "aotan": 6, "tan": 2},
        # stacks: 10 + 5 + 5 + tan 2 = 22, as RULES.md 1.6 says
        "koikoi-japan": {"akatan-aotan": 10, "akatan": 5, "aotan": 5, "tan": 2},
    }[preset]
    assert counted(rules_of(preset), captured) == expected


def test_koikoi_japan_six_ribbons_is_22() -> None:
    assert yaku_points(rules_of("koikoi-japan"), cards(*POETRY, *BLUE)) == 22


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("n_red", [1, 2, 3, 4])
def test_akatan_aotan_plus_one_per_ribbon_beyond_six(preset: str, n_red: int) -> None:
    captured = cards(*POETRY, *BLUE, *RED[:n_red])
    n = 6 + n_red
    tan = 1 + (n - 5)
    expected = {
        "fudawiki": {"akatan-aotan": 10 + n_red},
        "wikipedia-fr": {"akatan-aotan": 10 + n_red},
        "nintendo": {"akatan-aotan": 10 + n_red},
        "hanafuda-legends": {"akatan-aotan": 10, "tan": tan},
        "coins": {"akatan": 6, "aotan": 6, "tan": tan},
        "koikoi-japan": {"akatan-aotan": 10, "akatan": 5, "aotan": 5, "tan": tan},
    }[preset]
    assert counted(rules_of(preset), captured) == expected


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_tan_is_five_ribbons_plus_one_each(preset: str) -> None:
    rules = rules_of(preset)
    # Red ribbons plus one of each colour: no akatan, no aotan.
    assert counted(rules, cards(*RED, POETRY[0])) == {"tan": 1}
    assert counted(rules, cards(*RED, POETRY[0], BLUE[0])) == {"tan": 2}
    assert counted(rules, cards(*RED, *POETRY[:2], *BLUE[:2])) == {"tan": 4}
    assert counted(rules, cards(*RED)) == {}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_two_poetry_and_two_blue_is_nothing(preset: str) -> None:
    assert counted(rules_of(preset), cards(*POETRY[:2], *BLUE[:2])) == {}


# ---------------------------------------------------------------------------------------------
# Plains


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("n", range(25))
def test_kasu_ten_plains_plus_one_each(preset: str, n: int) -> None:
    captured = cards(*PLAINS[:n])
    expected = {"kasu": n - 9} if n >= 10 else {}
    assert counted(rules_of(preset), captured) == expected


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_the_lightning_and_the_yellow_paulownia_are_plains(preset: str) -> None:
    nine = [p for p in PLAINS if p not in ("willow-lightning", "paulownia-yellow")][:9]
    assert counted(rules_of(preset), cards(*nine, "willow-lightning")) == {"kasu": 1}
    assert counted(rules_of(preset), cards(*nine, "paulownia-yellow")) == {"kasu": 1}


# ---------------------------------------------------------------------------------------------
# The sake cup (every mode), the yellow paulownia


SAKE_MODES = ("animal-and-plain", "animal-only", "plain-only", "animal-and-two-plains")


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("animal-and-plain", {"tane": 1}),
        ("animal-only", {"tane": 1}),
        ("plain-only", {}),
        ("animal-and-two-plains", {"tane": 1}),
    ],
)
def test_sake_cup_for_tane(preset: str, mode: str, expected: dict[str, int]) -> None:
    captured = cards(*OTHER_ANIMALS[:4], SAKE)
    assert counted(rules_of(preset, sake_cup=mode), captured) == expected


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("animal-and-plain", {"tane": 2}),
        ("animal-only", {"tane": 2}),
        ("plain-only", {"tane": 1}),
        ("animal-and-two-plains", {"tane": 2}),
    ],
)
def test_sake_cup_as_an_extra_animal_for_tane(
    preset: str, mode: str, expected: dict[str, int]
) -> None:
    captured = cards(*OTHER_ANIMALS, SAKE)
    assert counted(rules_of(preset, sake_cup=mode), captured) == expected


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize(
    ("mode", "nine_plains", "eight_plains"),
    [
        # 9 plains + cup = 10 plains: kasu 1; 8 + cup = 9: nothing.
        ("animal-and-plain", {"kasu": 1}, {}),
        ("animal-only", {}, {}),
        ("plain-only", {"kasu": 1}, {}),
        # the cup is two plains: 9 + 2 = 11 (kasu 2); 8 + 2 = 10 (kasu 1).
        ("animal-and-two-plains", {"kasu": 2}, {"kasu": 1}),
    ],
)
def test_sake_cup_for_kasu(
    preset: str, mode: str, nine_plains: dict[str, int], eight_plains: dict[str, int]
) -> None:
    rules = rules_of(preset, sake_cup=mode)
    assert counted(rules, cards(*PLAINS[:9], SAKE)) == nine_plains
    assert counted(rules, cards(*PLAINS[:8], SAKE)) == eight_plains


@pytest.mark.parametrize("mode", SAKE_MODES)
def test_sake_cup_for_kasu_extras(mode: str) -> None:
    # 12 plains + cup: 13 / 12 / 13 / 14 plains.
    expected = {
        "animal-and-plain": 4,
        "animal-only": 3,
        "plain-only": 4,
        "animal-and-two-plains": 5,
    }[mode]
    assert counted(rules_of("fudawiki", sake_cup=mode), cards(*PLAINS[:12], SAKE)) == {
        "kasu": expected
    }


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("mode", SAKE_MODES)
def test_sake_cup_for_inoshikacho_extras(preset: str, mode: str) -> None:
    # Inoshikacho + cup: the cup is a fourth animal unless it counts as a plain only.
    is_animal = mode != "plain-only"
    ino = 6 if preset in WITH_EXTRAS and is_animal else 5
    assert counted(rules_of(preset, sake_cup=mode), cards(*INOSHIKACHO, SAKE)) == {
        "inoshikacho": ino
    }


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_sake_cup_with_both_kinds_at_once(preset: str) -> None:
    # animal-and-plain: 4 animals + cup is tane, 9 plains + cup is kasu, both at once.
    captured = cards(*OTHER_ANIMALS[:4], SAKE, *PLAINS[:9])
    assert counted(rules_of(preset), captured) == {"tane": 1, "kasu": 1}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_yellow_paulownia_double(preset: str) -> None:
    nine_with_yellow = cards(*PLAINS_NO_YELLOW[:8], "paulownia-yellow")
    nine_without = cards(*PLAINS_NO_YELLOW[:9])
    off = rules_of(preset)
    on = rules_of(preset, yellow_paulownia_double=True)
    assert counted(off, nine_with_yellow) == {}
    assert counted(on, nine_with_yellow) == {"kasu": 1}
    assert counted(on, nine_without) == {}
    # All 24 plains: 25 with the double yellow, kasu 1 + 15.
    assert counted(on, cards(*PLAINS)) == {"kasu": 16}
    assert counted(off, cards(*PLAINS)) == {"kasu": 15}


def test_yellow_paulownia_double_and_two_plain_sake_cup() -> None:
    # 7 plains + yellow (2) + cup (2) = 11 plains: kasu 2.
    rules = rules_of("fudawiki", yellow_paulownia_double=True, sake_cup="animal-and-two-plains")
    assert counted(rules, cards(*PLAINS_NO_YELLOW[:7], "paulownia-yellow", SAKE)) == {"kasu": 2}
    # Everything: 24 plains + 1 (yellow) + 2 (cup) = 27: kasu 18.
    assert counted(rules, cards(*PLAINS, SAKE)) == {"kasu": 18}


# ---------------------------------------------------------------------------------------------
# Viewing yaku and tsukifuda

VIEWING_POINTS = {
    "fudawiki": 5,
    "wikipedia-fr": 5,
    "nintendo": 5,
    "hanafuda-legends": 5,
    "coins": 3,
    "koikoi-japan": 1,
}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize(
    ("yaku_id", "light"), [("hanami-zake", "cherry-curtain"), ("tsukimi-zake", "susuki-moon")]
)
def test_viewing_yaku(preset: str, yaku_id: str, light: str) -> None:
    assert counted(rules_of(preset), cards(light, SAKE)) == {yaku_id: VIEWING_POINTS[preset]}
    assert counted(rules_of(preset), cards(light)) == {}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_both_viewing_yaku(preset: str) -> None:
    points = VIEWING_POINTS[preset]
    assert counted(rules_of(preset), cards("cherry-curtain", "susuki-moon", SAKE)) == {
        "hanami-zake": points,
        "tsukimi-zake": points,
    }


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("light", ["pine-crane", "willow-rainman", "paulownia-phoenix"])
def test_other_lights_with_the_sake_cup_are_no_viewing(preset: str, light: str) -> None:
    assert counted(rules_of(preset), cards(light, SAKE)) == {}


@pytest.mark.parametrize("calls", [0, 1, 2, 3, 4, 7])
def test_koikoi_japan_viewing_is_one_then_three_after_koikoi(calls: int) -> None:
    rules = rules_of("koikoi-japan")
    points = 3 if calls else 1
    assert counted(rules, cards("cherry-curtain", SAKE), calls=calls) == {"hanami-zake": points}
    assert counted(rules, cards("susuki-moon", SAKE), calls=calls) == {"tsukimi-zake": points}


@pytest.mark.parametrize("preset", [p for p in PRESET_NAMES if p != "koikoi-japan"])
@pytest.mark.parametrize("calls", [1, 3, 5])
def test_viewing_does_not_change_after_koikoi_elsewhere(preset: str, calls: int) -> None:
    points = VIEWING_POINTS[preset]
    assert counted(rules_of(preset), cards("cherry-curtain", SAKE), calls=calls) == {
        "hanami-zake": points
    }


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("calls", [1, 4])
def test_other_yaku_do_not_change_after_koikoi(preset: str, calls: int) -> None:
    rules = rules_of(preset)
    captured = cards(*NON_RAIN_LIGHTS[:3], *INOSHIKACHO, *PLAINS[:10])
    assert yaku_of(rules, captured, 0, calls) == yaku_of(rules, captured, 0, 0)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_viewing_off(preset: str) -> None:
    rules = rules_of(preset, viewing="off")
    assert counted(rules, cards("cherry-curtain", "susuki-moon", SAKE)) == {}
    # The cards still count for their other yaku: the sanko is untouched.
    assert counted(rules, cards("pine-crane", "cherry-curtain", "susuki-moon", SAKE)) == {
        "sanko": LIGHT_POINTS[preset][3]
    }


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_viewing_one_per_round(preset: str) -> None:
    rules = rules_of(preset, viewing="one-per-round")
    both = counted(rules, cards("cherry-curtain", "susuki-moon", SAKE))
    assert list(both.values()) == [VIEWING_POINTS[preset]]
    assert set(both) <= {"hanami-zake", "tsukimi-zake"}
    assert counted(rules, cards("susuki-moon", SAKE)) == {"tsukimi-zake": VIEWING_POINTS[preset]}
    assert counted(rules, cards("cherry-curtain", SAKE)) == {"hanami-zake": VIEWING_POINTS[preset]}


def test_viewing_one_per_round_keeps_the_better_one() -> None:
    rules = rules_of("fudawiki", viewing="one-per-round", yaku={"tsukimi-zake": {"points": 9}})
    assert counted(rules, cards("cherry-curtain", "susuki-moon", SAKE)) == {"tsukimi-zake": 9}


def test_viewing_one_per_round_does_not_drop_tsukifuda() -> None:
    # Month 9 is the chrysanthemums: the sake cup is one of them.
    captured = cards(
        "cherry-curtain",
        "susuki-moon",
        SAKE,
        "chrysanthemum-ribbon",
        "chrysanthemum-plain-1",
        "chrysanthemum-plain-2",
    )
    rules = rules_of("fudawiki", viewing="one-per-round")
    found = counted(rules, captured, month=9)
    assert found.pop("tsukifuda") == 4
    assert list(found.values()) == [5]


@pytest.mark.parametrize("preset", ["fudawiki", "koikoi-japan"])
def test_extra_on_a_special_yaku_is_taken_and_counts_nothing(preset: str) -> None:
    # Every entry's bonus can be overridden (RULES.md 1.4); a special yaku needs every card it
    # can have, so there is never a card beyond them to count. Month 9 holds the sake cup: the
    # capture forms both viewing yaku and tsukifuda, next to more lights, animals and plains.
    captured = cards(
        "cherry-curtain",
        "susuki-moon",
        "pine-crane",
        SAKE,
        "chrysanthemum-ribbon",
        "chrysanthemum-plain-1",
        "chrysanthemum-plain-2",
        "maple-deer",
        "plum-plain-1",
    )
    specials = ("hanami-zake", "tsukimi-zake", "tsukifuda")
    plain = rules_of(preset, yaku={y: {"enabled": True, "points": 4} for y in specials})
    extra = rules_of(
        preset, yaku={y: {"enabled": True, "points": 4, "extra": True} for y in specials}
    )
    assert all(extra.yaku_rule(y).extra for y in specials)
    for calls in (0, 1):
        found = counted(extra, captured, month=9, calls=calls)
        assert found == counted(plain, captured, month=9, calls=calls)
        # Points given alone hold after a koi-koi call too (koikoi-japan's 3 is replaced).
        assert {y: found[y] for y in specials} == dict.fromkeys(specials, 4)


WILLOW_CARDS = ("willow-rainman", "willow-swallow", "willow-ribbon", "willow-lightning")


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("willow", WILLOW_CARDS)
def test_rain_spoils_viewing(preset: str, willow: str) -> None:
    captured = cards("cherry-curtain", SAKE, willow)
    points = VIEWING_POINTS[preset]
    off = counted(rules_of(preset, rain_spoils_viewing="off"), captured)
    any_willow = counted(rules_of(preset, rain_spoils_viewing="any-willow"), captured)
    rain_man = counted(rules_of(preset, rain_spoils_viewing="rain-man"), captured)
    assert off == {"hanami-zake": points}
    assert any_willow == {}
    assert rain_man == ({} if willow == "willow-rainman" else {"hanami-zake": points})


@pytest.mark.parametrize("mode", ["any-willow", "rain-man"])
def test_rain_spoils_only_viewing(mode: str) -> None:
    # Rain man + curtain + moon + crane is ame-shiko; both viewing yaku are spoiled.
    captured = cards("willow-rainman", "pine-crane", "cherry-curtain", "susuki-moon", SAKE)
    assert counted(rules_of("fudawiki", rain_spoils_viewing=mode), captured) == {"ame-shiko": 7}
    assert counted(rules_of("fudawiki"), captured) == {
        "ame-shiko": 7,
        "hanami-zake": 5,
        "tsukimi-zake": 5,
    }


def test_rain_spoils_viewing_without_a_willow_spoils_nothing() -> None:
    captured = cards("cherry-curtain", "susuki-moon", SAKE)
    for mode in ("any-willow", "rain-man"):
        assert counted(rules_of("fudawiki", rain_spoils_viewing=mode), captured) == {
            "hanami-zake": 5,
            "tsukimi-zake": 5,
        }


@pytest.mark.parametrize("mode", SAKE_MODES)
def test_viewing_needs_the_sake_cup_card_in_every_sake_mode(mode: str) -> None:
    rules = rules_of("fudawiki", sake_cup=mode)
    assert counted(rules, cards("cherry-curtain", SAKE)) == {"hanami-zake": 5}


MONTH_CARDS = {m: tuple(c.code for c in Card if c.month == m) for m in range(1, 13)}


@pytest.mark.parametrize("preset", PRESET_NAMES)
@pytest.mark.parametrize("month", range(1, 13))
def test_tsukifuda_the_four_cards_of_the_round_month(preset: str, month: int) -> None:
    captured = cards(*MONTH_CARDS[month])
    on = preset in ("fudawiki", "wikipedia-fr")
    assert counted(rules_of(preset), captured, month=month) == ({"tsukifuda": 4} if on else {})
    # Another round month: the same cards form nothing.
    other = month % 12 + 1
    assert counted(rules_of(preset), captured, month=other) == {}
    # Three of the four: nothing.
    assert counted(rules_of(preset), cards(*MONTH_CARDS[month][:3]), month=month) == {}


@pytest.mark.parametrize("month", range(1, 13))
def test_tsukifuda_with_more_cards(month: int) -> None:
    captured = cards(*MONTH_CARDS[month], *MONTH_CARDS[month % 12 + 1])
    assert counted(rules_of("wikipedia-fr"), captured, month=month)["tsukifuda"] == 4


def test_tsukifuda_with_other_yaku() -> None:
    # Round month 3, every cherry card: the curtain is one of three lights (sanko), and the
    # cherry ribbon one of the poetry ribbons (akatan). Specials all count in best-of-group.
    captured = cards(
        *MONTH_CARDS[3], "pine-crane", "susuki-moon", SAKE, "pine-ribbon", "plum-ribbon"
    )
    assert counted(rules_of("fudawiki"), captured, month=3) == {
        "sanko": 5,
        "akatan": 5,
        "hanami-zake": 5,
        "tsukimi-zake": 5,
        "tsukifuda": 4,
    }


# ---------------------------------------------------------------------------------------------
# Group rules


def test_best_of_group_keeps_one_yaku_per_group_and_every_special() -> None:
    captured = cards(
        *LIGHTS,  # goko 10 (shiko, ame-shiko, sanko formed too)
        *INOSHIKACHO,
        *OTHER_ANIMALS,  # inoshikacho 5 + 5 = 10 over tane 1 + 3 = 4 (no sake cup)
        *POETRY,
        *BLUE,
        RED[0],  # akatan-aotan 10 + 1 = 11 over akatan 5 + 4, aotan 5 + 4, tan 1 + 2
        *PLAINS[:11],  # kasu 2
    )
    assert counted(rules_of("fudawiki"), captured) == {
        "goko": 10,
        "inoshikacho": 10,
        "akatan-aotan": 11,
        "kasu": 2,
    }


def test_best_of_group_with_specials() -> None:
    captured = cards(*NON_RAIN_LIGHTS, SAKE, *OTHER_ANIMALS, *MONTH_CARDS[1][1:])
    # Lights: shiko 8. Animals: tane 1 + 1 (6 with the cup). Month 1 is complete (crane, pine
    # ribbon, two pine plains): tsukifuda 4. Specials: hanami 5, tsukimi 5.
    assert counted(rules_of("wikipedia-fr"), captured, month=1) == {
        "shiko": 8,
        "tane": 2,
        "hanami-zake": 5,
        "tsukimi-zake": 5,
        "tsukifuda": 4,
    }


@pytest.mark.parametrize("preset", CUMULATIVE)
def test_cumulative_counts_every_yaku_but_one_light_yaku(preset: str) -> None:
    captured = cards(*LIGHTS, *INOSHIKACHO, *OTHER_ANIMALS[:2], *POETRY, *RED[:2], *PLAINS[:10])
    goko = LIGHT_POINTS[preset][0]
    akatan = 6 if preset == "coins" else 5
    assert counted(rules_of(preset), captured) == {
        "goko": goko,
        "inoshikacho": 5,
        "tane": 1,
        "akatan": akatan,
        "tan": 1,
        "kasu": 1,
    }


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_switching_yaku_groups(preset: str) -> None:
    captured = cards(*INOSHIKACHO, *OTHER_ANIMALS[:2], *POETRY, *BLUE)
    best = rules_of(preset, yaku_groups="best-of-group")
    cumulative = rules_of(preset, yaku_groups="cumulative", akatan_aotan_stacks=False)
    stacking = rules_of(preset, yaku_groups="cumulative", akatan_aotan_stacks=True)
    extras = preset in WITH_EXTRAS
    ino = 7 if extras else 5
    colour = 6 if preset == "coins" else 5
    has_both = preset != "coins"
    # Best of group: animals the best of inoshikacho / tane 1; ribbons the best of the four.
    found = counted(best, captured)
    assert found.pop("inoshikacho") == ino
    if has_both:
        assert found == {"akatan-aotan": 10}
    else:
        # coins: akatan 6 and aotan 6 tie; one of them is the best of the ribbons.
        assert list(found.values()) == [colour]
        assert set(found) <= {"akatan", "aotan"}
    if has_both:
        assert counted(cumulative, captured) == {
            "inoshikacho": ino,
            "tane": 1,
            "akatan-aotan": 10,
            "tan": 2,
        }
        assert counted(stacking, captured) == {
            "inoshikacho": ino,
            "tane": 1,
            "akatan-aotan": 10,
            "akatan": colour + (3 if extras else 0),
            "aotan": colour + (3 if extras else 0),
            "tan": 2,
        }
    else:
        both = {"akatan": colour, "aotan": colour}
        assert counted(cumulative, captured) == {"inoshikacho": 5, "tane": 1, **both, "tan": 2}
        assert counted(stacking, captured) == {"inoshikacho": 5, "tane": 1, **both, "tan": 2}


def test_stacking_is_only_a_cumulative_matter() -> None:
    rules = rules_of("fudawiki", akatan_aotan_stacks=True)
    assert counted(rules, cards(*POETRY, *BLUE)) == {"akatan-aotan": 10}


# ---------------------------------------------------------------------------------------------
# five_to_six, grand_yaku_fifteen, yaku overrides in scoring


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_five_to_six(preset: str) -> None:
    rules = rules_of(preset, five_to_six=True)
    goko, shiko, ame, _ = LIGHT_POINTS[preset]

    def six(points: int) -> int:
        return 6 if points == 5 else points

    assert counted(rules, cards(*LIGHTS)) == {"goko": six(goko)}
    assert counted(rules, cards(*NON_RAIN_LIGHTS)) == {"shiko": six(shiko)}
    assert counted(rules, cards("willow-rainman", *NON_RAIN_LIGHTS[:3])) == {"ame-shiko": six(ame)}
    assert counted(rules, cards(*NON_RAIN_LIGHTS[:3])) == {"sanko": 6}
    assert counted(rules, cards(*INOSHIKACHO)) == {"inoshikacho": 6}
    assert counted(rules, cards(*POETRY)) == {"akatan": 6}
    assert counted(rules, cards(*BLUE)) == {"aotan": 6}
    # Worth 1: unchanged.
    assert counted(rules, cards(*OTHER_ANIMALS)) == {"tane": 1}
    assert counted(rules, cards(*RED, POETRY[0])) == {"tan": 1}
    assert counted(rules, cards(*PLAINS[:10])) == {"kasu": 1}
    viewing = VIEWING_POINTS[preset]
    assert counted(rules, cards("cherry-curtain", SAKE)) == {"hanami-zake": six(viewing)}
    assert counted(rules, cards("susuki-moon", SAKE)) == {"tsukimi-zake": six(viewing)}


def test_five_to_six_keeps_the_extras_and_tsukifuda() -> None:
    rules = rules_of("fudawiki", five_to_six=True)
    # inoshikacho is worth 6 with the option, then +1 per extra animal.
    assert counted(rules, cards(*INOSHIKACHO, OTHER_ANIMALS[0])) == {"inoshikacho": 7}
    assert counted(rules, cards(*POETRY, RED[0])) == {"akatan": 7}
    assert counted(rules, cards(*MONTH_CARDS[1]), month=1) == {"tsukifuda": 4}
    # akatan-aotan (10) beats akatan / aotan (6 + 3 = 9) still.
    assert counted(rules, cards(*POETRY, *BLUE)) == {"akatan-aotan": 10}


def test_five_to_six_in_koikoi_japan_leaves_the_viewing_yaku() -> None:
    rules = rules_of("koikoi-japan", five_to_six=True)
    assert counted(rules, cards("cherry-curtain", SAKE), calls=0) == {"hanami-zake": 1}
    assert counted(rules, cards("cherry-curtain", SAKE), calls=1) == {"hanami-zake": 3}
    # 10 + 6 + 6 + tan 2 = 24
    assert yaku_points(rules, cards(*POETRY, *BLUE)) == 24


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_grand_yaku_fifteen(preset: str) -> None:
    rules = rules_of(preset, grand_yaku_fifteen=True)
    assert counted(rules, cards(*LIGHTS)) == {"goko": 15}
    six_ribbons = counted(rules, cards(*POETRY, *BLUE))
    expected = {
        "fudawiki": {"akatan-aotan": 15},
        "wikipedia-fr": {"akatan-aotan": 15},
        "nintendo": {"akatan-aotan": 15},
        "hanafuda-legends": {"akatan-aotan": 15, "tan": 2},
        "coins": {"akatan": 6, "aotan": 6, "tan": 2},
        "koikoi-japan": {"akatan-aotan": 15, "akatan": 5, "aotan": 5, "tan": 2},
    }[preset]
    assert six_ribbons == expected
    # Other light yaku keep their value.
    assert counted(rules, cards(*NON_RAIN_LIGHTS)) == {"shiko": LIGHT_POINTS[preset][1]}


def test_grand_yaku_fifteen_keeps_the_extras() -> None:
    rules = rules_of("fudawiki", grand_yaku_fifteen=True)
    assert counted(rules, cards(*POETRY, *BLUE, *RED[:2])) == {"akatan-aotan": 17}


def test_grand_yaku_and_five_to_six_together() -> None:
    rules = rules_of("fudawiki", grand_yaku_fifteen=True, five_to_six=True)
    assert counted(rules, cards(*LIGHTS)) == {"goko": 15}
    assert counted(rules, cards(*NON_RAIN_LIGHTS[:3])) == {"sanko": 6}


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_a_disabled_yaku_scores_nothing(preset: str) -> None:
    off = {"enabled": False}
    rules = rules_of(preset, yaku={"inoshikacho": off, "kasu": off, "hanami-zake": off})
    assert counted(rules, cards(*INOSHIKACHO)) == {}
    assert counted(rules, cards(*PLAINS)) == {}
    assert counted(rules, cards("cherry-curtain", SAKE)) == {}
    # The other yaku of those cards still form.
    assert counted(rules, cards(*INOSHIKACHO, *OTHER_ANIMALS[:2])) == {"tane": 1}
    assert counted(rules, cards("cherry-curtain", "susuki-moon", SAKE)) == {
        "tsukimi-zake": VIEWING_POINTS[preset]
    }


def test_disabling_akatan_aotan_lets_akatan_and_aotan_count() -> None:
    rules = rules_of("hanafuda-legends", yaku={"akatan-aotan": {"enabled": False}})
    assert counted(rules, cards(*POETRY, *BLUE)) == {"akatan": 5, "aotan": 5, "tan": 2}


def test_enabling_akatan_aotan_in_coins() -> None:
    rules = rules_of("coins", yaku={"akatan-aotan": {"enabled": True}})
    # Coins is cumulative without stacking: akatan-aotan replaces akatan and aotan.
    assert counted(rules, cards(*POETRY, *BLUE)) == {"akatan-aotan": 10, "tan": 2}


def test_enabling_tsukifuda_in_nintendo() -> None:
    rules = rules_of("nintendo", yaku={"tsukifuda": {"enabled": True}})
    assert counted(rules, cards(*MONTH_CARDS[5]), month=5) == {"tsukifuda": 4}


def test_yaku_points_and_extra_overrides_score() -> None:
    rules = rules_of(
        "fudawiki",
        yaku={
            "kasu": {"points": 3, "extra": False},
            "tane": {"points": 2},
            "inoshikacho": {"extra": False},
            "sanko": {"points": 6},
        },
    )
    assert counted(rules, cards(*PLAINS[:14])) == {"kasu": 3}
    assert counted(rules, cards(*OTHER_ANIMALS, SAKE)) == {"tane": 3}
    assert counted(rules, cards(*INOSHIKACHO, SAKE)) == {"inoshikacho": 5}
    assert counted(rules, cards(*NON_RAIN_LIGHTS[:3])) == {"sanko": 6}
    legends = rules_of("hanafuda-legends", yaku={"akatan": {"extra": True}})
    assert counted(legends, cards(*POETRY, RED[0])) == {"akatan": 6}


def test_viewing_points_given_alone_hold_after_a_koikoi_call() -> None:
    rules = rules_of("koikoi-japan", yaku={"tsukimi-zake": {"points": 5}})
    for calls in (0, 1, 3):
        assert counted(rules, cards("susuki-moon", SAKE), calls=calls) == {"tsukimi-zake": 5}
        assert counted(rules, cards("cherry-curtain", SAKE), calls=calls) == {
            "hanami-zake": 3 if calls else 1
        }


@pytest.mark.parametrize(
    ("yaku_id", "lights", "points"),
    [
        # sanko 5 needs three lights other than the rain man; each light beyond three adds 1,
        # the rain man included (he is a light).
        ("sanko", NON_RAIN_LIGHTS[:3], 5),
        ("sanko", (*NON_RAIN_LIGHTS[:3], "willow-rainman"), 6),
        ("sanko", NON_RAIN_LIGHTS, 6),
        ("sanko", LIGHTS, 7),
        ("shiko", NON_RAIN_LIGHTS, 8),
        ("shiko", LIGHTS, 9),
        ("ame-shiko", (*NON_RAIN_LIGHTS[:3], "willow-rainman"), 7),
        ("ame-shiko", LIGHTS, 8),
        ("goko", LIGHTS, 10),
    ],
)
def test_extra_on_a_light_yaku_counts_the_lights_beyond_its_own(
    yaku_id: str, lights: tuple[str, ...], points: int
) -> None:
    # No preset sets `extra` on a light yaku; the override may. The other light yaku are off so
    # that the one under test is the group's best.
    others = {y: {"enabled": False} for y in LIGHT_YAKU if y != yaku_id}
    rules = rules_of("fudawiki", yaku={yaku_id: {"extra": True}, **others})
    assert counted(rules, cards(*lights)) == {yaku_id: points}
    (found,) = yaku_of(rules, cards(*lights))
    assert found.cards == cards(*lights)
    without = rules_of("fudawiki", yaku=others)
    assert counted(without, cards(*lights)) == {yaku_id: rules.yaku_rule(yaku_id).points}


def test_points_after_koikoi_override_on_a_viewing_yaku() -> None:
    rules = rules_of("fudawiki", yaku={"hanami-zake": {"points_after_koikoi": 8}})
    assert counted(rules, cards("cherry-curtain", SAKE), calls=0) == {"hanami-zake": 5}
    assert counted(rules, cards("cherry-curtain", SAKE), calls=2) == {"hanami-zake": 8}


@pytest.mark.parametrize(
    ("yaku_id", "captured", "month"),
    [
        ("goko", cards(*LIGHTS), 0),
        ("inoshikacho", cards(*INOSHIKACHO), 0),
        ("akatan", cards(*POETRY), 0),
        ("kasu", cards(*PLAINS[:10]), 0),
        ("tsukifuda", cards(*MONTH_CARDS[2]), 2),
    ],
    ids=["goko", "inoshikacho", "akatan", "kasu", "tsukifuda"],
)
def test_points_after_koikoi_override_on_any_yaku(yaku_id: str, captured: int, month: int) -> None:
    # "Every entry's points ... can be overridden": the readable and fast paths must agree on the
    # yaku's value once the player has called koi-koi.
    rules = rules_of("fudawiki", yaku={yaku_id: {"points_after_koikoi": 20}})
    assert yaku_points(rules, captured, month, 1) == 20
    assert points_function(rules)(captured, month, 1) == 20
    assert points_function(rules)(captured, month, 0) == yaku_points(rules, captured, month, 0)


# ---------------------------------------------------------------------------------------------
# 1.5 Scoring a stop

GEESE_TANE = cards(*OTHER_ANIMALS)  # tane 1 in every preset


def steps(breakdown: Any) -> list[tuple[int, int]]:
    return [(m.factor, m.added) for m in breakdown.multipliers]


def test_worked_example_44() -> None:
    # sanko (crane, moon, phoenix) 5 + tan (2 poetry + 3 red) 1 + tsukimi-zake (moon + cup) 5
    # = 11; two koi-koi calls of his own: 11 ×2 (seven or more) ×2 (own koi-koi) = 44.
    captured = cards(
        "pine-crane",
        "susuki-moon",
        "paulownia-phoenix",
        SAKE,
        "pine-ribbon",
        "plum-ribbon",
        "wisteria-ribbon",
        "iris-ribbon",
        "clover-ribbon",
    )
    rules = rules_of("wikipedia-fr")
    breakdown = score_stop(rules, captured, month=4, own_koikoi_calls=2)
    assert {y.id: y.points for y in breakdown.yaku} == {"sanko": 5, "tan": 1, "tsukimi-zake": 5}
    assert breakdown.base == 11
    assert steps(breakdown) == [(2, 0), (2, 0)]
    assert breakdown.total == 44


def test_worked_example_20() -> None:
    # The opponent: aotan 5 + 11 plains (kasu 2) = 7, one koi-koi call. The player: inoshikacho
    # 5 and stops: 5 ×2 (counter seven) ×2 (counter koi-koi) = 20.
    rules = rules_of("wikipedia-fr")
    opponent = cards(*BLUE, *PLAINS[:11])
    opponent_points = yaku_points(rules, opponent, month=12, own_koikoi_calls=1)
    assert opponent_points == 7
    breakdown = score_stop(
        rules,
        cards(*INOSHIKACHO),
        month=12,
        own_koikoi_calls=0,
        opponent_koikoi_calls=1,
        opponent_points=opponent_points,
    )
    assert breakdown.base == 5
    assert sorted(steps(breakdown)) == [(2, 0), (2, 0)]
    assert breakdown.total == 20


def test_breakdown_lists_each_yaku_with_its_cards() -> None:
    captured = cards(*NON_RAIN_LIGHTS[:3], *INOSHIKACHO, "pine-plain-1")
    breakdown = score_stop(rules_of("fudawiki"), captured)
    assert breakdown.base == sum(y.points for y in breakdown.yaku) == 10
    by_id = {y.id: y for y in breakdown.yaku}
    assert by_id["sanko"].cards == cards(*NON_RAIN_LIGHTS[:3])
    assert by_id["inoshikacho"].cards == cards(*INOSHIKACHO)
    assert steps(breakdown) == [(2, 0)]
    assert breakdown.total == 20


@pytest.mark.parametrize("preset", ["fudawiki", "wikipedia-fr", "hanafuda-legends", "nintendo"])
@pytest.mark.parametrize(
    ("captured", "base"),
    [
        (cards(*NON_RAIN_LIGHTS[:3]), 5),
        (cards(*NON_RAIN_LIGHTS[:3], *OTHER_ANIMALS), 6),  # sanko 5 + tane 1
        (cards("willow-rainman", *NON_RAIN_LIGHTS[:3]), 7),  # ame-shiko
        (cards(*NON_RAIN_LIGHTS), 8),  # shiko
    ],
)
def test_seven_or_more_doubles_from_seven(preset: str, captured: int, base: int) -> None:
    breakdown = score_stop(rules_of(preset), captured)
    assert breakdown.base == base
    assert breakdown.total == (base * 2 if base >= 7 else base)


@pytest.mark.parametrize("threshold", [0, 1, 5, 6, 8, 11])
def test_seven_or_more_threshold_option(threshold: int) -> None:
    base = 6  # sanko 5 + tane 1
    captured = cards(*NON_RAIN_LIGHTS[:3], *OTHER_ANIMALS)
    breakdown = score_stop(rules_of("fudawiki", seven_or_more=threshold), captured)
    doubled = threshold != 0 and base >= threshold
    assert breakdown.total == (12 if doubled else 6)


@pytest.mark.parametrize("preset", ["coins", "koikoi-japan"])
def test_no_seven_or_more_in_coins_and_koikoi_japan(preset: str) -> None:
    breakdown = score_stop(rules_of(preset), cards(*LIGHTS))
    assert breakdown.total == breakdown.base == LIGHT_POINTS[preset][0]
    assert steps(breakdown) == []


def test_seven_or_more_counts_the_base_before_koikoi_bonus_points() -> None:
    rules = rules_of("koikoi-japan", seven_or_more=7)
    # Base 6 (inoshikacho 5 + tane 1), one call: 6 + 1 = 7, but the base is 6: no doubling.
    six = cards(*INOSHIKACHO, *OTHER_ANIMALS[:2])
    assert score_stop(rules, six, own_koikoi_calls=1).total == 7
    # Base 7 (ame-shiko), one call: (7 + 1) ×2 = 16, the bonus before the doubling.
    seven = cards("willow-rainman", *NON_RAIN_LIGHTS[:3])
    breakdown = score_stop(rules, seven, own_koikoi_calls=1)
    assert breakdown.base == 7
    assert steps(breakdown) == [(1, 1), (2, 0)]
    assert breakdown.total == 16


@pytest.mark.parametrize(
    ("calls", "total"),
    [(0, 5), (1, 6), (2, 7), (3, 8), (4, 10), (5, 15), (6, 20), (8, 30)],
)
def test_own_koikoi_bonus_points(calls: int, total: int) -> None:
    # koikoi-japan: sanko 5, +n for n <= 3 calls, ×(n − 2) from the fourth call.
    breakdown = score_stop(rules_of("koikoi-japan"), cards(*NON_RAIN_LIGHTS[:3]), 0, calls)
    assert breakdown.base == 5
    assert breakdown.total == total


def test_own_koikoi_bonus_points_before_other_multipliers() -> None:
    rules = rules_of("koikoi-japan", opponent_koikoi="double", all_calls_plus_one=True)
    # Base 5, 2 own calls: 5 + 2 = 7; ×2 (opponent called); ×(1 + 2 + 1) = 56.
    breakdown = score_stop(
        rules, cards(*NON_RAIN_LIGHTS[:3]), own_koikoi_calls=2, opponent_koikoi_calls=1
    )
    assert breakdown.total == 56
    assert steps(breakdown) == [(1, 2), (2, 0), (4, 0)]
    # Base 5, 4 own calls: 5 ×2 (4 − 2) = 10; ×(1 + 4) = 50.
    breakdown = score_stop(rules, cards(*NON_RAIN_LIGHTS[:3]), own_koikoi_calls=4)
    assert breakdown.total == 50


@pytest.mark.parametrize("calls", [0, 1, 2, 5])
def test_own_koikoi_double(calls: int) -> None:
    # wikipedia-fr: ×2 once he has called, however often. Base 5: below seven.
    breakdown = score_stop(rules_of("wikipedia-fr"), cards(*NON_RAIN_LIGHTS[:3]), 0, calls)
    assert breakdown.total == (10 if calls else 5)


@pytest.mark.parametrize("preset", ["fudawiki", "hanafuda-legends", "coins", "nintendo"])
def test_own_koikoi_none(preset: str) -> None:
    # coins multiplies by every call (all_calls_plus_one); the others ignore his own calls.
    breakdown = score_stop(rules_of(preset), GEESE_TANE, own_koikoi_calls=2)
    assert breakdown.total == (3 if preset == "coins" else 1)


@pytest.mark.parametrize("preset", ["fudawiki", "wikipedia-fr", "hanafuda-legends", "nintendo"])
@pytest.mark.parametrize("calls", [0, 1, 3])
def test_opponent_koikoi_double(preset: str, calls: int) -> None:
    breakdown = score_stop(rules_of(preset), GEESE_TANE, opponent_koikoi_calls=calls)
    assert breakdown.total == (2 if calls else 1)


@pytest.mark.parametrize("calls", [0, 1, 2, 4])
def test_opponent_koikoi_per_call(calls: int) -> None:
    rules = rules_of("fudawiki", opponent_koikoi="per-call")
    breakdown = score_stop(rules, GEESE_TANE, opponent_koikoi_calls=calls)
    assert breakdown.total == 1 + calls


def test_opponent_koikoi_none_in_koikoi_japan() -> None:
    breakdown = score_stop(rules_of("koikoi-japan"), GEESE_TANE, opponent_koikoi_calls=3)
    assert breakdown.total == 1


@pytest.mark.parametrize(("own", "opponent"), [(0, 0), (1, 0), (0, 1), (2, 3), (4, 1)])
def test_all_calls_plus_one(own: int, opponent: int) -> None:
    # coins: ×(1 + every call by either player); sanko 6 in coins.
    breakdown = score_stop(rules_of("coins"), cards(*NON_RAIN_LIGHTS[:3]), 0, own, opponent)
    assert breakdown.base == 6
    assert breakdown.total == 6 * (1 + own + opponent)


@pytest.mark.parametrize(
    ("opponent_points", "doubled"), [(0, False), (6, False), (7, True), (12, True)]
)
def test_counter_seven(opponent_points: int, doubled: bool) -> None:
    breakdown = score_stop(rules_of("wikipedia-fr"), GEESE_TANE, opponent_points=opponent_points)
    assert breakdown.total == (2 if doubled else 1)


@pytest.mark.parametrize(
    ("threshold", "opponent_points", "doubled"),
    [(0, 6, False), (0, 7, True), (5, 4, False), (5, 5, True), (9, 8, False), (9, 9, True)],
)
def test_counter_seven_threshold(threshold: int, opponent_points: int, doubled: bool) -> None:
    rules = rules_of("fudawiki", counter_seven=True, seven_or_more=threshold)
    breakdown = score_stop(rules, GEESE_TANE, opponent_points=opponent_points)
    assert breakdown.total == (2 if doubled else 1)


@pytest.mark.parametrize("preset", ["fudawiki", "hanafuda-legends", "coins", "koikoi-japan"])
def test_no_counter_seven_elsewhere(preset: str) -> None:
    breakdown = score_stop(rules_of(preset), GEESE_TANE, opponent_points=20)
    assert breakdown.total == 1


def test_every_multiplier_in_order() -> None:
    rules = rules_of(
        "fudawiki",
        own_koikoi="bonus-points",
        opponent_koikoi="per-call",
        all_calls_plus_one=True,
        counter_seven=True,
    )
    # ame-shiko 7; 2 own calls: 7 + 2 = 9; ×2 (base 7 >= 7) = 18; ×2 (1 + 1 opponent call)
    # = 36; ×4 (1 + 2 + 1 calls) = 144; ×2 (opponent holds 7) = 288.
    breakdown = score_stop(
        rules,
        cards("willow-rainman", *NON_RAIN_LIGHTS[:3]),
        own_koikoi_calls=2,
        opponent_koikoi_calls=1,
        opponent_points=7,
    )
    assert breakdown.base == 7
    assert steps(breakdown) == [(1, 2), (2, 0), (2, 0), (4, 0), (2, 0)]
    assert breakdown.total == 288


def test_stop_with_double_own_and_opponent_calls() -> None:
    # wikipedia-fr: shiko 8 ×2 (seven) ×2 (own) ×2 (opponent) = 64.
    breakdown = score_stop(
        rules_of("wikipedia-fr"), cards(*NON_RAIN_LIGHTS), 0, 1, 2, opponent_points=0
    )
    assert breakdown.total == 64


def test_koikoi_japan_viewing_in_a_stop_after_koikoi() -> None:
    # hanami-zake 3 after a call, sanko 5: base 8; +1 for the call = 9 (no seven-or-more).
    captured = cards("pine-crane", "cherry-curtain", "paulownia-phoenix", SAKE)
    breakdown = score_stop(rules_of("koikoi-japan"), captured, own_koikoi_calls=1)
    assert breakdown.base == 8
    assert breakdown.total == 9


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_nothing_scores_nothing(preset: str) -> None:
    breakdown = score_stop(rules_of(preset), 0)
    assert (breakdown.yaku, breakdown.base, breakdown.total) == ((), 0, 0)


# ---------------------------------------------------------------------------------------------
# Properties: fast path = readable path; group rules


@st.composite
def captures(draw: st.DrawFn) -> int:
    """Capture sets that reach the yaku: uniform ones of any density, and ones drawn from a few
    kinds so that full light, animal, ribbon and month sets come up."""
    style = draw(st.sampled_from(["uniform", "kinds", "months"]))
    if style == "uniform":
        density = draw(st.floats(0.0, 1.0))
        bits = draw(st.lists(st.floats(0.0, 1.0), min_size=48, max_size=48))
        return mask_of(c for c, b in zip(Card, bits, strict=True) if b < density)
    if style == "kinds":
        kinds = draw(st.sets(st.sampled_from(["LIGHT", "ANIMAL", "RIBBON", "PLAIN"]), min_size=1))
        pool = [c for c in Card if c.kind.name in kinds]
        return mask_of(draw(st.sets(st.sampled_from(pool))))
    months = draw(st.sets(st.integers(1, 12), min_size=1, max_size=5))
    pool = [c for c in Card if c.month in months]
    extra = draw(st.sets(st.sampled_from(list(Card)), max_size=8))
    return mask_of(draw(st.sets(st.sampled_from(pool))) | extra)


_ENUMS: dict[str, tuple[str, ...]] = {
    "yaku_groups": ("best-of-group", "cumulative"),
    "sake_cup": SAKE_MODES,
    "viewing": ("on", "off", "one-per-round"),
    "rain_spoils_viewing": ("off", "any-willow", "rain-man"),
}
_SWITCHES = ("akatan_aotan_stacks", "yellow_paulownia_double", "five_to_six", "grand_yaku_fifteen")


@st.composite
def scoring_overrides(draw: st.DrawFn) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, values in _ENUMS.items():
        if draw(st.booleans()):
            out[name] = draw(st.sampled_from(values))
    for name in _SWITCHES:
        if draw(st.booleans()):
            out[name] = draw(st.booleans())
    yaku: dict[str, dict[str, Any]] = {}
    for yaku_id in draw(st.sets(st.sampled_from(sorted(YAKU_GROUP)), max_size=5)):
        setting: dict[str, Any] = {}
        if draw(st.booleans()):
            setting["enabled"] = draw(st.booleans())
        if draw(st.booleans()):
            setting["points"] = draw(st.integers(0, 16))
        if draw(st.booleans()):
            setting["points_after_koikoi"] = draw(st.integers(0, 16))
        if draw(st.booleans()):
            setting["extra"] = draw(st.booleans())
        yaku[yaku_id] = setting
    if yaku:
        out["yaku"] = yaku
    return out


@settings(max_examples=600, deadline=None)
@given(
    preset=st.sampled_from(PRESET_NAMES),
    captured=captures(),
    month=st.integers(0, 12),
    calls=st.integers(0, 8),
)
def test_fast_path_equals_readable_path_for_every_preset(
    preset: str, captured: int, month: int, calls: int
) -> None:
    rules = PRESETS[preset]
    assert points_function(rules)(captured, month, calls) == yaku_points(
        rules, captured, month, calls
    )


@settings(max_examples=400, deadline=None)
@given(
    preset=st.sampled_from(PRESET_NAMES),
    overrides=scoring_overrides(),
    captured=captures(),
    month=st.integers(0, 12),
    calls=st.integers(0, 8),
)
def test_fast_path_equals_readable_path_with_overrides(
    preset: str, overrides: dict[str, Any], captured: int, month: int, calls: int
) -> None:
    rules = KoiKoiRules.from_preset(preset, overrides)
    assert points_function(rules)(captured, month, calls) == yaku_points(
        rules, captured, month, calls
    )


@settings(max_examples=400, deadline=None)
@given(
    preset=st.sampled_from(PRESET_NAMES),
    overrides=scoring_overrides(),
    captured=captures(),
    month=st.integers(0, 12),
    calls=st.integers(0, 8),
)
def test_group_rules_hold_for_any_captures(
    preset: str, overrides: dict[str, Any], captured: int, month: int, calls: int
) -> None:
    rules = KoiKoiRules.from_preset(preset, overrides)
    found = yaku_of(rules, captured, month, calls)
    groups = [YAKU_GROUP[y.id] for y in found]
    # Light yaku never combine, in either mode.
    assert groups.count("lights") <= 1
    if rules.yaku_groups == "best-of-group":
        for group in ("animals", "ribbons", "plains"):
            assert groups.count(group) <= 1
    ids = {y.id for y in found}
    if rules.yaku_groups == "cumulative" and "akatan-aotan" in ids:
        for colour in ("akatan", "aotan"):
            stacks = rules.akatan_aotan_stacks and rules.yaku_rule(colour).enabled
            assert (colour in ids) is stacks
    if rules.viewing == "off":
        assert not ids & {"hanami-zake", "tsukimi-zake"}
    if rules.viewing == "one-per-round":
        assert len(ids & {"hanami-zake", "tsukimi-zake"}) <= 1
    for y in found:
        assert rules.yaku_rule(y.id).enabled
        assert y.cards and y.cards & ~captured == 0
        assert y.points >= 0


@settings(max_examples=300, deadline=None)
@given(
    preset=st.sampled_from(PRESET_NAMES),
    captured=captures(),
    month=st.integers(0, 12),
    own=st.integers(0, 6),
    opponent=st.integers(0, 6),
    opponent_points=st.integers(0, 20),
)
def test_a_stop_never_scores_below_its_base(
    preset: str, captured: int, month: int, own: int, opponent: int, opponent_points: int
) -> None:
    rules = PRESETS[preset]
    breakdown = score_stop(rules, captured, month, own, opponent, opponent_points)
    assert breakdown.base == yaku_points(rules, captured, month, own)
    assert breakdown.total >= breakdown.base
    if breakdown.base == 0 and rules.own_koikoi != "bonus-points":
        # Only bonus points are added; everything else multiplies.
        assert breakdown.total == 0
