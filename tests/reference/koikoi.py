"""Reference Koi-Koi: an independent reading of RULES.md Part 1, used as a test oracle.

This module was written from the shared spec (RULES.md Part 1, CARDS.md) and the seed documents,
without looking at the engine's code. ``tests/reference/test_differential.py`` plays the same
deals and the same moves through it and through the engine and compares every pending decision,
legal-move list, round result and total: two readings written apart that agree are evidence that
both follow the spec. It is standard library only and favours clarity over speed.

Formats:

- Cards are the CARDS.md codes (``"pine-crane"``, ``"willow-lightning"``, ...).
- A deal (:class:`Deal`) gives the two hands (8 cards each, seat 0 first), the field (8) and the
  stock (24, top card first). A game takes its deals in order, a redeal taking the next one, and
  raises ``RuntimeError("out of deals")`` when it needs one more than it was given.
- Moves are tuples: ``("play", card, target)`` with ``target`` a field card or ``None``;
  ``("choose", target)`` for a drawn card that matches two field cards; ``("koikoi",)`` and
  ``("stop",)``. :meth:`KoiKoiGame.legal_moves` lists plays in one canonical form: a target only
  where two field cards match, or for the lightning's wild plays. :meth:`KoiKoiGame.apply` takes
  exactly those moves (``("play", card)`` standing for ``("play", card, None)``).
- :meth:`KoiKoiGame.pending` is ``(seat, phase)``, phase ``"play"``, ``"choose"`` or ``"decide"``,
  or ``None`` once the game is over. Round results are :class:`RoundRecord` entries in
  ``KoiKoiGame.rounds``; a drawn game has ``winner`` ``None``.

Where the spec leaves room, the readings are this module's own, except for two points on which it
deliberately follows the engine's documented reading (docs/koikoi.md), so that the differential
test can cover them rather than avoid them:

- Yaku overrides take the keys ``points``, ``extra`` (+1 per card beyond those the yaku needs),
  ``enabled`` and ``points_after_koikoi`` (the points once the scorer has called koi-koi this
  round; 0 means the same as ``points``). An override giving ``points`` without
  ``points_after_koikoi`` makes the yaku worth those points before and after a call.
  koikoi-japan's viewing yaku are points 1, points_after_koikoi 3.
- ``grand_yaku_fifteen`` and then ``five_to_six`` apply to the points as overridden (an override
  of ``goko`` is still worth 15; an override to 5 is worth 6), on both values of a yaku; the
  extra-card points are added after them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypedDict

from tests.reference.capture import capture, matches, plays
from tests.reference.deck import ALL_CARDS, KIND, MONTH

RAIN_MAN = "willow-rainman"
SAKE = "chrysanthemum-sake"
CURTAIN = "cherry-curtain"
MOON = "susuki-moon"
LIGHTNING = "willow-lightning"
YELLOW = "paulownia-yellow"
BOAR = "clover-boar"
DEER = "maple-deer"
BUTTERFLIES = "peony-butterflies"
POETRY: tuple[str, ...] = ("pine-ribbon", "plum-ribbon", "cherry-ribbon")
BLUE: tuple[str, ...] = ("peony-ribbon", "chrysanthemum-ribbon", "maple-ribbon")
WILLOW_MONTH = 11
SEATS: tuple[int, int] = (0, 1)

# ---------------------------------------------------------------------------------------------
# Yaku (RULES.md 1.4)
# ---------------------------------------------------------------------------------------------

# Table order: it breaks ties between yaku of a group and orders every yaku list.
YAKU_ORDER: tuple[str, ...] = (
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
YAKU_GROUP: dict[str, str] = {
    "goko": "lights",
    "shiko": "lights",
    "ame-shiko": "lights",
    "sanko": "lights",
    "inoshikacho": "animals",
    "tane": "animals",
    "akatan-aotan": "ribbons",
    "akatan": "ribbons",
    "aotan": "ribbons",
    "tan": "ribbons",
    "kasu": "plains",
    "hanami-zake": "special",
    "tsukimi-zake": "special",
    "tsukifuda": "special",
}
GRAND_YAKU: tuple[str, ...] = ("goko", "akatan-aotan")


@dataclasses.dataclass
class YakuValue:
    """One yaku's entry in a rule set."""

    points: int
    extra: bool = False
    enabled: bool = True
    points_after_koikoi: int = 0  # 0: the same as `points`

    def value(self, calls: int) -> int:
        """The points before extra cards, for a scorer with `calls` koi-koi calls this round."""
        if self.points_after_koikoi and calls > 0:
            return self.points_after_koikoi
        return self.points


#: The columns of the 1.4 table ("fudawiki-like": fudawiki, wikipedia-fr and nintendo).
YAKU_COLUMNS: tuple[str, ...] = ("fudawiki-like", "hanafuda-legends", "coins", "koikoi-japan")
#: The 1.4 table, a cell per column: the points, "+" when each extra card adds one, "off" for
#: an entry the column leaves out (its points if an override turns it on), "1/3" for points
#: before and after a koi-koi call.
_YAKU_TABLE: dict[str, tuple[str, str, str, str]] = {
    "goko": ("10", "10", "15", "10"),
    "shiko": ("8", "8", "10", "8"),
    "ame-shiko": ("7", "7", "8", "7"),
    "sanko": ("5", "5", "6", "5"),
    "inoshikacho": ("5+", "5", "5", "5"),
    "tane": ("1+", "1+", "1+", "1+"),
    "akatan-aotan": ("10+", "10", "off 10", "10"),
    "akatan": ("5+", "5", "6", "5"),
    "aotan": ("5+", "5", "6", "5"),
    "tan": ("1+", "1+", "1+", "1+"),
    "kasu": ("1+", "1+", "1+", "1+"),
    "hanami-zake": ("5", "5", "3", "1/3"),
    "tsukimi-zake": ("5", "5", "3", "1/3"),
    "tsukifuda": ("4", "off 4", "off 4", "off 4"),
}


def _yaku_cell(cell: str) -> YakuValue:
    enabled = not cell.startswith("off ")
    cell = cell.removeprefix("off ")
    extra = cell.endswith("+")
    before, _, after = cell.rstrip("+").partition("/")
    return YakuValue(int(before), extra, enabled, int(after or 0))


def _yaku_table(column: str) -> dict[str, YakuValue]:
    """A fresh copy of one column of the 1.4 table."""
    if column not in YAKU_COLUMNS:
        raise ValueError(f"unknown yaku column {column!r}")
    index = YAKU_COLUMNS.index(column)
    return {yaku_id: _yaku_cell(cells[index]) for yaku_id, cells in _YAKU_TABLE.items()}


# ---------------------------------------------------------------------------------------------
# Options and presets (RULES.md 1.6)
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Options:
    """Every rules option of a rule set; the defaults are those 1.6 gives every preset."""

    yaku_column: str  # which column of the 1.4 table; not an option a game can override
    tsukifuda: bool
    rounds: int
    starting_points: int
    field_four: str
    field_pairs: str
    hand_four: str
    hand_pairs: str
    yaku_groups: str
    seven_or_more: int
    own_koikoi: str
    opponent_koikoi: str
    all_calls_plus_one: bool
    counter_seven: bool
    exhaustion: str
    dealer_after_void: str
    refill_empty_field: bool
    koikoi_limit: int = 0
    last_turn_koikoi: bool = False
    sake_cup: str = "animal-and-plain"
    viewing: str = "on"
    rain_spoils_viewing: str = "off"
    lightning_wild: str = "off"
    five_to_six: bool = False
    grand_yaku_fifteen: bool = False
    teyaku_points: int = 6
    first_dealer: str = "draw"
    # 1.6 lists no default for these: 1.3 and 1.1 give the first two; the others are off
    # unless a preset turns them on.
    dealer_points: int = 1  # "1 by default"
    target_score: int = 0  # "> 0 to enable": off
    yellow_paulownia_double: bool = False
    akatan_aotan_stacks: bool = False
    end_when_dealer_empty: bool = False


#: RULES.md 1.6 as it is printed: one row per option, one column per preset, in this order.
PRESET_NAMES: tuple[str, ...] = (
    "fudawiki",
    "wikipedia-fr",
    "hanafuda-legends",
    "coins",
    "koikoi-japan",
    "nintendo",
)
_PRESET_TABLE: dict[str, tuple[Any, ...]] = {
    "yaku_column": (
        "fudawiki-like",
        "fudawiki-like",
        "hanafuda-legends",
        "coins",
        "koikoi-japan",
        "fudawiki-like",
    ),
    "tsukifuda": (True, True, False, False, False, False),
    "rounds": (12, 12, 12, 12, 8, 12),
    "starting_points": (0, 0, 0, 30, 30, 0),
    "field_four": ("redeal", "void", "redeal", "redeal", "redeal", "redeal"),
    "field_pairs": ("redeal", "void", "ignore", "ignore", "ignore", "ignore"),
    "hand_four": ("win", "win", "win", "redeal", "redeal", "win"),
    "hand_pairs": ("win", "win", "win", "redeal", "ignore", "win"),
    "yaku_groups": (
        "best-of-group",
        "best-of-group",
        "cumulative",
        "cumulative",
        "cumulative",
        "best-of-group",
    ),
    "akatan_aotan_stacks": (False, False, False, False, True, False),
    "seven_or_more": (7, 7, 7, 0, 0, 7),
    "own_koikoi": ("none", "double", "none", "none", "bonus-points", "none"),
    "opponent_koikoi": ("double", "double", "double", "none", "none", "double"),
    "all_calls_plus_one": (False, False, False, True, False, False),
    "counter_seven": (False, True, False, False, False, False),
    "exhaustion": ("last-koikoi-wins", "void", "void", "void", "dealer-points", "void"),
    # wikipedia-fr's exhaustion cell: "void, with end_when_dealer_empty".
    "end_when_dealer_empty": (False, True, False, False, False, False),
    "dealer_after_void": ("keep", "rotate", "keep", "keep", "keep", "keep"),
    "refill_empty_field": (False, True, False, False, False, False),
    # koikoi-japan: "first_dealer random" (the paragraph under the table).
    "first_dealer": ("draw", "draw", "draw", "draw", "random", "draw"),
}

PRESETS: dict[str, Options] = {
    name: Options(**{option: row[column] for option, row in _PRESET_TABLE.items()})
    for column, name in enumerate(PRESET_NAMES)
}

ENUM_OPTIONS: dict[str, tuple[str, ...]] = {
    "field_four": ("redeal", "void", "ignore"),  # `win` is for hands only
    "field_pairs": ("redeal", "void", "ignore"),
    "hand_four": ("redeal", "void", "win", "ignore"),
    "hand_pairs": ("redeal", "void", "win", "ignore"),
    "yaku_groups": ("best-of-group", "cumulative"),
    "own_koikoi": ("none", "double", "bonus-points"),
    "opponent_koikoi": ("none", "double", "per-call"),
    "exhaustion": ("void", "last-koikoi-wins", "dealer-points", "all-lost"),
    "dealer_after_void": ("keep", "rotate"),
    "sake_cup": ("animal-and-plain", "animal-only", "plain-only", "animal-and-two-plains"),
    "viewing": ("on", "off", "one-per-round"),
    "rain_spoils_viewing": ("off", "any-willow", "rain-man"),
    "lightning_wild": ("off", "on", "before-november"),
}
INT_OPTIONS: dict[str, int] = {  # name -> smallest value allowed
    "rounds": 1,
    "starting_points": 0,
    "seven_or_more": 0,
    "koikoi_limit": 0,
    "teyaku_points": 0,
    "dealer_points": 0,
    "target_score": 0,
}
BOOL_OPTIONS: tuple[str, ...] = (
    "akatan_aotan_stacks",
    "all_calls_plus_one",
    "counter_seven",
    "end_when_dealer_empty",
    "refill_empty_field",
    "last_turn_koikoi",
    "five_to_six",
    "grand_yaku_fifteen",
    "yellow_paulownia_double",
    "tsukifuda",
)
# The first dealer is an argument of KoiKoiGame: the option is accepted and has no effect here.
IGNORED_OPTIONS: tuple[str, ...] = ("first_dealer",)


def _as_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.lower() in ("on", "yes", "true"):
        return True
    if isinstance(value, str) and value.lower() in ("off", "no", "false"):
        return False
    raise ValueError(f"option {name}: not a boolean: {value!r}")


def _as_int(name: str, value: object, minimum: int | None = None) -> int:
    # bool is an int subclass, but True is not a number.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"option {name}: bad value {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"option {name}: bad value {value!r}")
    return value


def _option_value(name: str, value: object) -> object:
    """`value` checked and converted for option `name`."""
    if name in ENUM_OPTIONS:
        if value not in ENUM_OPTIONS[name]:
            raise ValueError(f"option {name}: bad value {value!r}")
        return value
    if name in INT_OPTIONS:
        return _as_int(name, value, INT_OPTIONS[name])
    if name in BOOL_OPTIONS:
        return _as_bool(name, value)
    raise ValueError(f"unknown option {name!r}")


# ---------------------------------------------------------------------------------------------
# Rule sets and scoring (RULES.md 1.4, 1.5)
# ---------------------------------------------------------------------------------------------


class Score(NamedTuple):
    """A scored stop: the round points, the base, the yaku counted and the multipliers applied."""

    points: int
    base: int
    yaku: list[tuple[str, int]]
    multipliers: list[tuple[str, int]]


class Rules:
    """A resolved rule set: a preset, then the option overrides, then the yaku overrides.

    `overrides` maps option names (the spec's spellings) to values, and may hold ``"yaku"``:
    a mapping from yaku id to a mapping with any of ``points`` (int), ``extra`` and ``enabled``
    (booleans) and ``points_after_koikoi`` (int >= 0). Anything else raises ValueError.
    """

    def __init__(self, preset: str, overrides: Mapping[str, object] | None = None) -> None:
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}")
        settings = dict(overrides or {})
        yaku_overrides = settings.pop("yaku", None) or {}
        options = dataclasses.replace(PRESETS[preset])
        for name, value in settings.items():
            if name not in IGNORED_OPTIONS:
                setattr(options, name, _option_value(name, value))
        self.preset = preset
        self.options = options
        self.yaku = _yaku_table(options.yaku_column)
        self.yaku["tsukifuda"].enabled = options.tsukifuda
        self._override_yaku(yaku_overrides)
        # The two options act on the points as overridden (the engine's documented reading):
        # they are options of the rule set like the override, and the spec states them for
        # "every yaku worth 5 points".
        if options.grand_yaku_fifteen:
            for yid in GRAND_YAKU:
                entry = self.yaku[yid]
                entry.points = 15
                if entry.points_after_koikoi:
                    entry.points_after_koikoi = 15
        if options.five_to_six:
            for entry in self.yaku.values():
                if entry.points == 5:
                    entry.points = 6
                if entry.points_after_koikoi == 5:
                    entry.points_after_koikoi = 6

    def _override_yaku(self, yaku_overrides: object) -> None:
        if not isinstance(yaku_overrides, Mapping):
            raise ValueError(f"option yaku: bad value {yaku_overrides!r}")
        for yid, fields in yaku_overrides.items():
            if yid not in self.yaku:
                raise ValueError(f"unknown yaku {yid!r}")
            if not isinstance(fields, Mapping):
                raise ValueError(f"yaku {yid}: bad value {fields!r}")
            entry = self.yaku[yid]
            for key, value in fields.items():
                name = f"{yid}.{key}"
                if key == "points":
                    entry.points = _as_int(name, value)
                    # The entry's points are what the override says, before and after a call,
                    # unless it gives the second value too.
                    if "points_after_koikoi" not in fields:
                        entry.points_after_koikoi = 0
                elif key == "points_after_koikoi":
                    entry.points_after_koikoi = _as_int(name, value, 0)
                elif key == "extra":
                    entry.extra = _as_bool(name, value)
                elif key == "enabled":
                    entry.enabled = _as_bool(name, value)
                else:
                    raise ValueError(f"yaku {yid}: unknown field {key!r}")

    def counts(self, cards: Iterable[str]) -> tuple[list[str], int, int, int]:
        """The lights, and how many animals, ribbons and plains, `cards` count as."""
        lights: list[str] = []
        animals = ribbons = plains = 0
        sake_cup = self.options.sake_cup
        for card in cards:
            kind = KIND[card]
            if card == SAKE:
                if sake_cup in ("animal-and-plain", "animal-only", "animal-and-two-plains"):
                    animals += 1
                if sake_cup in ("animal-and-plain", "plain-only"):
                    plains += 1
                if sake_cup == "animal-and-two-plains":
                    plains += 2
            elif kind == "light":
                lights.append(card)
            elif kind == "animal":
                animals += 1
            elif kind == "ribbon":
                ribbons += 1
            elif card == YELLOW and self.options.yellow_paulownia_double:
                plains += 2
            else:
                plains += 1
        return lights, animals, ribbons, plains

    def formed_yaku(self, cards: Iterable[str], calls: int, month: int) -> dict[str, int]:
        """Every enabled yaku `cards` form, with its points, before groups and viewing options.

        `calls` is the scorer's koi-koi calls this round; `month` the round month.
        """
        held = set(cards)
        lights, animals, ribbons, plains = self.counts(held)
        non_rain = [c for c in lights if c != RAIN_MAN]
        formed: dict[str, int] = {}

        def add(yid: str, needed: int, have: int | None) -> None:
            entry = self.yaku[yid]
            if not entry.enabled:
                return
            points = entry.value(calls)
            # `have` is None for the special yaku: they need every card they can have.
            if entry.extra and have is not None and have > needed:
                points += have - needed
            formed[yid] = points

        # The light yaku count every light for their extra cards, the rain man included.
        if len(lights) == 5:
            add("goko", 5, len(lights))
        if len(non_rain) == 4:
            add("shiko", 4, len(lights))
        if RAIN_MAN in held and len(non_rain) >= 3:
            add("ame-shiko", 4, len(lights))
        if len(non_rain) >= 3:
            add("sanko", 3, len(lights))
        if BOAR in held and DEER in held and BUTTERFLIES in held:
            add("inoshikacho", 3, animals)
        if animals >= 5:
            add("tane", 5, animals)
        has_poetry = all(c in held for c in POETRY)
        has_blue = all(c in held for c in BLUE)
        if has_poetry and has_blue:
            add("akatan-aotan", 6, ribbons)
        if has_poetry:
            add("akatan", 3, ribbons)
        if has_blue:
            add("aotan", 3, ribbons)
        if ribbons >= 5:
            add("tan", 5, ribbons)
        if plains >= 10:
            add("kasu", 10, plains)
        if CURTAIN in held and SAKE in held:
            add("hanami-zake", 2, None)
        if MOON in held and SAKE in held:
            add("tsukimi-zake", 2, None)
        if all(c in held for c in ALL_CARDS if MONTH[c] == month):
            add("tsukifuda", 4, None)
        return formed

    def counted_yaku(self, cards: Iterable[str], calls: int, month: int) -> list[tuple[str, int]]:
        """The yaku that count, as (id, points) in table order."""
        held = set(cards)
        formed = self.formed_yaku(held, calls, month)

        viewing = [y for y in ("hanami-zake", "tsukimi-zake") if y in formed]
        spoil = self.options.rain_spoils_viewing
        spoiled = (spoil == "any-willow" and any(MONTH[c] == WILLOW_MONTH for c in held)) or (
            spoil == "rain-man" and RAIN_MAN in held
        )
        if self.options.viewing == "off" or spoiled:
            for y in viewing:
                del formed[y]
        elif self.options.viewing == "one-per-round" and len(viewing) == 2:
            best = _best(viewing, formed)
            for y in viewing:
                if y != best:
                    del formed[y]

        keep: set[str] = set()
        if self.options.yaku_groups == "best-of-group":
            for group in ("lights", "animals", "ribbons", "plains"):
                ids = [y for y in YAKU_ORDER if YAKU_GROUP[y] == group and y in formed]
                if ids:
                    keep.add(_best(ids, formed))
            keep.update(y for y in formed if YAKU_GROUP[y] == "special")
        else:  # cumulative: the light yaku still never combine
            lights = [y for y in YAKU_ORDER if YAKU_GROUP[y] == "lights" and y in formed]
            if lights:
                keep.add(_best(lights, formed))
            keep.update(y for y in formed if YAKU_GROUP[y] != "lights")
            if "akatan-aotan" in formed and not self.options.akatan_aotan_stacks:
                keep.discard("akatan")
                keep.discard("aotan")
        return [(y, formed[y]) for y in YAKU_ORDER if y in keep]

    def yaku_points(self, cards: Iterable[str], calls: int, month: int) -> int:
        """The yaku points of `cards` before multipliers (what the yaku check compares)."""
        return sum(points for _, points in self.counted_yaku(cards, calls, month))

    def score(
        self,
        cards: Iterable[str],
        calls: int,
        opp_cards: Iterable[str],
        opp_calls: int,
        month: int,
    ) -> Score:
        """Score a stop by the holder of `cards` against the holder of `opp_cards`."""
        yaku = self.counted_yaku(cards, calls, month)
        base = sum(points for _, points in yaku)
        value = base
        multipliers: list[tuple[str, int]] = []
        o = self.options
        # bonus-points is "applied to the base before any other multiplier".
        if o.own_koikoi == "bonus-points" and calls > 0:
            if calls <= 3:
                value += calls
                multipliers.append(("own_koikoi_bonus", calls))
            else:
                value *= calls - 2
                multipliers.append(("own_koikoi", calls - 2))
        # seven_or_more looks at the base, before the bonus points.
        if o.seven_or_more > 0 and base >= o.seven_or_more:
            value *= 2
            multipliers.append(("seven_or_more", 2))
        if o.own_koikoi == "double" and calls > 0:
            value *= 2
            multipliers.append(("own_koikoi", 2))
        if o.opponent_koikoi == "double" and opp_calls > 0:
            value *= 2
            multipliers.append(("opponent_koikoi", 2))
        elif o.opponent_koikoi == "per-call" and opp_calls > 0:
            value *= 1 + opp_calls
            multipliers.append(("opponent_koikoi", 1 + opp_calls))
        if o.all_calls_plus_one and calls + opp_calls > 0:
            value *= 1 + calls + opp_calls
            multipliers.append(("all_calls_plus_one", 1 + calls + opp_calls))
        if o.counter_seven:
            threshold = o.seven_or_more if o.seven_or_more > 0 else 7
            if self.yaku_points(opp_cards, opp_calls, month) >= threshold:
                value *= 2
                multipliers.append(("counter_seven", 2))
        return Score(value, base, yaku, multipliers)


def _best(ids: Sequence[str], formed: Mapping[str, int]) -> str:
    """The yaku of `ids` with the most points; ties go to the earlier in table order."""
    best: str | None = None
    for y in YAKU_ORDER:
        if y in ids and (best is None or formed[y] > formed[best]):
            best = y
    if best is None:
        raise ValueError("no yaku to choose from")
    return best


def _month_counts(cards: Iterable[str]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for card in cards:
        counts[MONTH[card]] = counts.get(MONTH[card], 0) + 1
    return counts


def has_four(cards: Sequence[str]) -> bool:
    """Four cards of one month (teshi, or `field_four`)."""
    return any(n == 4 for n in _month_counts(cards).values())


def has_four_pairs(cards: Sequence[str]) -> bool:
    """Eight cards forming four pairs of four different months (kuttsuki, or `field_pairs`).

    Four cards of one month are a teshi, never two pairs (seed 000: "4 paires de cartes de
    suites différentes").
    """
    counts = _month_counts(cards)
    return len(cards) == 8 and len(counts) == 4 and all(n == 2 for n in counts.values())


# ---------------------------------------------------------------------------------------------
# The game (RULES.md 1.1 to 1.3)
# ---------------------------------------------------------------------------------------------


class Deal(TypedDict):
    """A prepared deal: two hands (seat 0 first), the field, the stock (top card first)."""

    hands: Sequence[Sequence[str]]
    field: Sequence[str]
    stock: Sequence[str]


class RoundRecord(TypedDict):
    """The result of one round, as kept in `KoiKoiGame.rounds`."""

    round: int
    month: int
    dealer: int
    outcome: str  # "stop", "exhaustion", "dealer-empty", "void" or "deal-check-win"
    winner: int | None
    points: int
    base: int | None  # None unless a player scored his yaku
    yaku: list[tuple[str, int]]
    multipliers: list[tuple[str, int]]
    totals_after: list[int]


Move = tuple[str | None, ...]


class KoiKoiGame:
    """A Koi-Koi game played from prepared deals.

    `preset` and `overrides` give the rule set (see :class:`Rules`); `deals` are taken in order,
    a redeal taking the next; `first_dealer` is the seat that deals the first round. The
    constructor deals and plays ahead to the first point where a player must move, so a game
    can already be over (every round ended by a deal check).

    Public state: ``totals`` (per seat), ``rounds`` (:class:`RoundRecord` list), ``over``,
    ``winner`` (seat, or None for a drawn or unfinished game), and for the current round
    ``hands``, ``field``, ``stock``, ``captured`` and ``koikoi_calls`` (per seat), ``dealer``,
    ``month``, ``turn`` and ``phase``.
    """

    def __init__(
        self,
        preset: str,
        overrides: Mapping[str, object] | None,
        deals: Iterable[Deal],
        first_dealer: int,
    ) -> None:
        self.rules = Rules(preset, overrides)
        if first_dealer not in SEATS:
            raise ValueError("first_dealer must be 0 or 1")
        self.deals: list[Deal] = list(deals)
        self.deal_index = 0
        start = self.rules.options.starting_points
        self.totals: list[int] = [start, start]
        self.rounds: list[RoundRecord] = []
        self.over = False
        self.winner: int | None = None
        self.dealer = first_dealer
        self.month = 1
        self.hands: list[list[str]] = [[], []]
        self.field: list[str] = []
        self.stock: list[str] = []
        self.captured: list[list[str]] = [[], []]
        self.koikoi_calls: list[int] = [0, 0]
        self.last_caller: int | None = None
        self.turn: int | None = None
        self.phase: str | None = None  # "play", "choose", "decide"; "over" at the end
        self.drawn: str | None = None  # the drawn card waiting for a target choice
        self.turn_start_points = 0
        self.lightning_claim: tuple[int, int] | None = None  # (seat, month) of a wild capture
        self.willow_seen = False
        self._next_rounds()

    # -- public API -----------------------------------------------------------------------

    def pending(self) -> tuple[int, str] | None:
        """(seat, phase) of the move the game waits for, or None once it is over."""
        if self.over or self.turn is None or self.phase is None:
            return None
        return (self.turn, self.phase)

    def legal_moves(self) -> list[Move]:
        """Every move the pending seat may make, in canonical form (see the module docstring)."""
        if self.over or self.turn is None:
            return []
        seat = self.turn
        if self.phase == "play":
            moves: list[Move] = []
            for card in self.hands[seat]:
                moves.extend(plays(self.field, card))
                if card == LIGHTNING and self._lightning_is_wild():
                    moves.extend(("play", card, f) for f in self.field if MONTH[f] != MONTH[card])
            return moves
        if self.phase == "choose" and self.drawn is not None:
            return [("choose", target) for target in matches(self.field, self.drawn)]
        if self.phase == "decide":
            return [("koikoi",), ("stop",)]
        return []

    def apply(self, move: Sequence[str | None]) -> None:
        """Make `move` for the pending seat; an illegal move raises ValueError and changes nothing.

        The game then plays on by itself (draws, stops the referee makes, round ends, deals)
        until a player must move again or the game is over.
        """
        played: Move = tuple(move)
        if len(played) == 2 and played[0] == "play":
            played = (*played, None)
        if self.over:
            raise ValueError("game over")
        if played not in self.legal_moves():
            raise ValueError(f"illegal move {played!r}")
        seat = self.turn
        assert seat is not None  # a legal move exists only while a seat is to move
        kind = played[0]
        if kind == "play":
            card, target = played[1], played[2]
            assert card is not None
            self._play_hand(seat, card, target)
            self._draw(seat)
        elif kind == "choose":
            target = played[1]
            assert target is not None and self.drawn is not None
            card = self.drawn
            self.drawn = None
            self.field.remove(target)
            self.captured[seat] += [card, target]
            self._after_draw(seat)
        elif kind == "koikoi":
            self.koikoi_calls[seat] += 1
            self.last_caller = seat
            self._end_turn(seat)
        else:  # "stop"
            self._stop(seat)

    # -- rounds ---------------------------------------------------------------------------

    def _take_deal(self) -> tuple[list[list[str]], list[str], list[str]]:
        if self.deal_index >= len(self.deals):
            raise RuntimeError("out of deals")
        deal = self.deals[self.deal_index]
        self.deal_index += 1
        hands = [list(deal["hands"][0]), list(deal["hands"][1])]
        field = list(deal["field"])
        stock = list(deal["stock"])
        everything = hands[0] + hands[1] + field + stock
        if (
            len(hands[0]) != 8
            or len(hands[1]) != 8
            or len(field) != 8
            or len(stock) != 24
            or sorted(everything) != sorted(ALL_CARDS)
        ):
            raise ValueError(f"bad deal {self.deal_index - 1}")
        return hands, field, stock

    def _next_rounds(self) -> None:
        """Deal rounds until one needs a move, or the game is over."""
        while not self.over:
            if not self._deal_round():
                return

    def _deal_round(self) -> bool:
        """Deal one round, redealing as the checks say; True if it ended at the deal."""
        self.month = len(self.rounds) % 12 + 1
        while True:
            self.hands, self.field, self.stock = self._take_deal()
            self.captured = [[], []]
            self.koikoi_calls = [0, 0]
            self.last_caller = None
            self.drawn = None
            self.lightning_claim = None
            self.willow_seen = False
            check = self._deal_check()
            if check is None:
                break
            action, winner = check
            if action == "redeal":
                continue
            if action == "void":
                self._void_round()
            else:  # "win"
                points = self.rules.options.teyaku_points
                self._end_round("deal-check-win", winner, points, None, [], [])
            return True
        self._start_turn(self.dealer)
        return False

    def _deal_check(self) -> tuple[str, int | None] | None:
        """The first deal check that fires, as (action, winning seat), or None."""
        o = self.rules.options
        if has_four(self.field) and o.field_four != "ignore":
            return o.field_four, None
        if has_four_pairs(self.field) and o.field_pairs != "ignore":
            return o.field_pairs, None
        checks: tuple[tuple[str, Callable[[Sequence[str]], bool]], ...] = (
            (o.hand_four, has_four),
            (o.hand_pairs, has_four_pairs),
        )
        for setting, test in checks:
            if setting == "ignore" or not any(test(hand) for hand in self.hands):
                continue
            if setting != "win":
                return setting, None
            # A hand wins if it qualifies for any hand check set to `win`, not only this one.
            winners = [s for s in SEATS if any(v == "win" and t(self.hands[s]) for v, t in checks)]
            if len(winners) == 2:
                return "void", None
            return "win", winners[0]
        return None

    def _end_round(
        self,
        outcome: str,
        winner: int | None,
        points: int,
        base: int | None,
        yaku: list[tuple[str, int]],
        multipliers: list[tuple[str, int]],
    ) -> None:
        o = self.rules.options
        if winner is not None:
            self.totals[winner] += points
            if o.starting_points > 0:  # transfer mode: even below 0
                self.totals[1 - winner] -= points
        self.rounds.append(
            {
                "round": len(self.rounds) + 1,
                "month": self.month,
                "dealer": self.dealer,
                "outcome": outcome,
                "winner": winner,
                "points": points if winner is not None else 0,
                "base": base,
                "yaku": list(yaku),
                "multipliers": list(multipliers),
                "totals_after": list(self.totals),
            }
        )
        if winner is not None:
            self.dealer = winner
        elif o.dealer_after_void == "rotate":
            self.dealer = 1 - self.dealer
        self.phase = None
        self.turn = None
        if (
            (o.starting_points > 0 and min(self.totals) <= 0)
            or (o.target_score > 0 and max(self.totals) >= o.target_score)
            or len(self.rounds) >= o.rounds
        ):
            self.over = True
            self.phase = "over"
            if self.totals[0] != self.totals[1]:
                self.winner = 0 if self.totals[0] > self.totals[1] else 1

    # -- turns ----------------------------------------------------------------------------

    def _lightning_is_wild(self) -> bool:
        mode = self.rules.options.lightning_wild
        return mode == "on" or (mode == "before-november" and not self.willow_seen)

    def _points(self, seat: int) -> int:
        return self.rules.yaku_points(self.captured[seat], self.koikoi_calls[seat], self.month)

    def _start_turn(self, seat: int) -> None:
        self.turn = seat
        if self.rules.options.refill_empty_field and not self.field and self.stock:
            # Turned up, neither played nor drawn: no willow seen for before-november.
            self.field.append(self.stock.pop(0))
        # Counted with the calls he has now, so that his own call is never a rise.
        self.turn_start_points = self._points(seat)
        self.phase = "play"

    def _play_hand(self, seat: int, card: str, target: str | None) -> None:
        self.hands[seat].remove(card)
        if MONTH[card] == WILLOW_MONTH:
            self.willow_seen = True
        if card == LIGHTNING and target is not None and MONTH[target] != MONTH[card]:
            self.field.remove(target)
            self.captured[seat] += [card, target]
            self.lightning_claim = (seat, MONTH[target])
            return
        self._resolve(seat, card, target)

    def _resolve(self, seat: int, card: str, target: str | None) -> None:
        self.captured[seat] += capture(self.field, card, target)

    def _draw(self, seat: int) -> None:
        if not self.stock:
            self._after_draw(seat)
            return
        card = self.stock.pop(0)
        if MONTH[card] == WILLOW_MONTH:
            self.willow_seen = True
        if len(matches(self.field, card)) == 2:
            self.drawn = card
            self.phase = "choose"
            return
        self._resolve(seat, card, None)
        self._after_draw(seat)

    def _after_draw(self, seat: int) -> None:
        """Step 3 of a turn, the yaku check."""
        o = self.rules.options
        if self._points(seat) > self.turn_start_points:
            last_card = not self.hands[seat] and not o.last_turn_koikoi
            at_limit = o.koikoi_limit > 0 and self.koikoi_calls[seat] >= o.koikoi_limit
            if last_card or at_limit:
                self._stop(seat)  # he may not call koi-koi: the referee stops for him
            else:
                self.phase = "decide"
            return
        self._end_turn(seat)

    def _end_turn(self, seat: int) -> None:
        o = self.rules.options
        if o.end_when_dealer_empty and seat == self.dealer and not self.hands[seat]:
            other = 1 - self.dealer
            self._claim_lightning()
            if self.last_caller == other:
                self._score_round("dealer-empty", other)
            else:
                self._void_round()
            self._next_rounds()
            return
        if not self.hands[0] and not self.hands[1]:
            self._claim_lightning()
            if o.exhaustion == "last-koikoi-wins" and self.last_caller is not None:
                self._score_round("exhaustion", self.last_caller)
            elif o.exhaustion == "dealer-points":
                self._end_round("exhaustion", self.dealer, o.dealer_points, None, [], [])
            else:
                self._void_round()
            self._next_rounds()
            return
        self._start_turn(1 - seat)

    def _stop(self, seat: int) -> None:
        self._claim_lightning()
        self._score_round("stop", seat)
        self._next_rounds()

    def _claim_lightning(self) -> None:
        """At the end of a round, before scoring: the wild player takes his month's field cards."""
        if self.lightning_claim is None:
            return
        seat, month = self.lightning_claim
        taken = [f for f in self.field if MONTH[f] == month]
        for f in taken:
            self.field.remove(f)
        self.captured[seat] += taken
        self.lightning_claim = None

    def _score_round(self, outcome: str, seat: int) -> None:
        score = self.rules.score(
            self.captured[seat],
            self.koikoi_calls[seat],
            self.captured[1 - seat],
            self.koikoi_calls[1 - seat],
            self.month,
        )
        self._end_round(outcome, seat, score.points, score.base, score.yaku, score.multipliers)

    def _void_round(self) -> None:
        self._end_round("void", None, 0, None, [], [])
