"""Koi-Koi rule sets: every option of RULES.md Part 1, the six presets, and overrides.

A rule set is an immutable, hashable value built from a preset name plus overrides; an unknown
preset, option or value is refused with a :class:`~hanafuda_referee.errors.RulesError` that names
it and what is allowed.

>>> rules = KoiKoiRules.from_preset("wikipedia-fr")
>>> rules.exhaustion, rules.end_when_dealer_empty, rules.counter_seven
('void', True, True)
>>> KoiKoiRules.from_preset("fudawiki", {"rounds": 6, "yaku": {"goko": {"points": 15}}}).yaku_rule(
...     "goko").points
15
>>> try:
...     KoiKoiRules.from_preset("fudawiki", {"exhaustion": "sudden-death"})
... except RulesError as error:
...     print(error.reason.value, "-", error.message)
BAD_OPTION_VALUE - option 'exhaustion' cannot be 'sudden-death'; allowed: void, ...
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hanafuda_referee.errors import Reason, RulesError

__all__ = [
    "DEFAULT_PRESET",
    "ENUM_OPTIONS",
    "MAX_YAKU_POINTS",
    "PRESETS",
    "YAKU_GROUP",
    "YAKU_IDS",
    "KoiKoiRules",
    "YakuRule",
]

#: Every yaku, in the order of the spec's table (ties between equal yaku go to the earlier one).
YAKU_IDS: tuple[str, ...] = (
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

#: The group of each yaku: best-of-group counts one yaku per group except ``special``.
YAKU_GROUP: Mapping[str, str] = {
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

#: The values each enumerated option allows, in the spec's spelling.
ENUM_OPTIONS: Mapping[str, tuple[str, ...]] = {
    "first_dealer": ("draw", "random", "seat-0", "seat-1"),
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

#: The smallest and largest value of each whole-number option. The largest are far beyond any
#: game played, and keep every score a game can reach within the API's 32-bit fields: a round
#: scores at most about 4.2 million (every yaku at :data:`MAX_YAKU_POINTS`, all 48 cards, every
#: multiplier, eight calls each), so 120 rounds stay under 2**31 (``tests/koikoi/test_rules.py``
#: checks it).
_INT_RANGE: Mapping[str, tuple[int, int]] = {
    "rounds": (1, 120),
    "starting_points": (0, 1_000_000),
    "target_score": (0, 1_000_000),
    "teyaku_points": (0, 100),
    "seven_or_more": (0, 1_000),
    "dealer_points": (0, 100),
    "koikoi_limit": (0, 100),
}
#: The largest points a yaku (``points``, ``points_after_koikoi``) can be given.
MAX_YAKU_POINTS = 100

_BOOL_OPTIONS = (
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


@dataclass(frozen=True, slots=True)
class YakuRule:
    """How one yaku scores under a rule set.

    ``extra``: +1 point per card beyond the cards the yaku needs (group yaku only).
    ``points_after_koikoi``: the points once the player has called koi-koi this round
    (0 = the same as ``points``), as the ``koikoi-japan`` viewing yaku have.
    """

    id: str
    enabled: bool
    points: int
    extra: bool = False
    points_after_koikoi: int = 0


def _table(
    points: Mapping[str, int],
    extra: frozenset[str],
    disabled: frozenset[str] = frozenset(),
    after_koikoi: Mapping[str, int] | None = None,
) -> tuple[YakuRule, ...]:
    after = after_koikoi or {}
    return tuple(
        YakuRule(y, y not in disabled, points[y], y in extra, after.get(y, 0)) for y in YAKU_IDS
    )


_STANDARD_POINTS = {
    "goko": 10,
    "shiko": 8,
    "ame-shiko": 7,
    "sanko": 5,
    "inoshikacho": 5,
    "tane": 1,
    "akatan-aotan": 10,
    "akatan": 5,
    "aotan": 5,
    "tan": 1,
    "kasu": 1,
    "hanami-zake": 5,
    "tsukimi-zake": 5,
    "tsukifuda": 4,
}
_COUNTING = frozenset(("tane", "tan", "kasu"))
_STANDARD_EXTRA = _COUNTING | {"inoshikacho", "akatan-aotan", "akatan", "aotan"}

_YAKU_STANDARD = _table(_STANDARD_POINTS, _STANDARD_EXTRA)
_YAKU_STANDARD_NO_TSUKIFUDA = _table(_STANDARD_POINTS, _STANDARD_EXTRA, frozenset({"tsukifuda"}))
_YAKU_LEGENDS = _table(_STANDARD_POINTS, _COUNTING, frozenset({"tsukifuda"}))
_YAKU_COINS = _table(
    {
        **_STANDARD_POINTS,
        "goko": 15,
        "shiko": 10,
        "ame-shiko": 8,
        "sanko": 6,
        "akatan": 6,
        "aotan": 6,
        "hanami-zake": 3,
        "tsukimi-zake": 3,
    },
    _COUNTING,
    frozenset({"akatan-aotan", "tsukifuda"}),
)
_YAKU_JAPAN = _table(
    {**_STANDARD_POINTS, "hanami-zake": 1, "tsukimi-zake": 1},
    _COUNTING,
    frozenset({"tsukifuda"}),
    {"hanami-zake": 3, "tsukimi-zake": 3},
)


@dataclass(frozen=True, slots=True)
class KoiKoiRules:
    """A resolved Koi-Koi rule set. Build one with :meth:`from_preset`; every field is an option of
    RULES.md Part 1 under its spec name, enumerated values in the spec's spelling."""

    preset: str = "fudawiki"
    # 1.1 Game and rounds
    rounds: int = 12
    starting_points: int = 0
    target_score: int = 0
    first_dealer: str = "draw"
    dealer_after_void: str = "keep"
    # 1.2 The deal
    field_four: str = "redeal"
    field_pairs: str = "redeal"
    hand_four: str = "win"
    hand_pairs: str = "win"
    teyaku_points: int = 6
    # 1.4 Yaku
    yaku_groups: str = "best-of-group"
    akatan_aotan_stacks: bool = False
    yaku: tuple[YakuRule, ...] = field(default=_YAKU_STANDARD)
    sake_cup: str = "animal-and-plain"
    yellow_paulownia_double: bool = False
    viewing: str = "on"
    rain_spoils_viewing: str = "off"
    five_to_six: bool = False
    grand_yaku_fifteen: bool = False
    # 1.5 Scoring a stop
    seven_or_more: int = 7
    own_koikoi: str = "none"
    opponent_koikoi: str = "double"
    all_calls_plus_one: bool = False
    counter_seven: bool = False
    # 1.3 A turn
    exhaustion: str = "last-koikoi-wins"
    dealer_points: int = 1
    end_when_dealer_empty: bool = False
    refill_empty_field: bool = False
    koikoi_limit: int = 0
    last_turn_koikoi: bool = False
    lightning_wild: str = "off"

    def yaku_rule(self, yaku_id: str) -> YakuRule:
        """The rule of one yaku, by its spec id."""
        return self.yaku[YAKU_IDS.index(yaku_id)]

    @property
    def transfer(self) -> bool:
        """Whether the game is in transfer mode (players start with a stock of points)."""
        return self.starting_points > 0

    @classmethod
    def from_preset(
        cls, preset: str = "fudawiki", overrides: Mapping[str, Any] | None = None
    ) -> KoiKoiRules:
        """The preset's rule set with ``overrides`` applied.

        ``overrides`` maps option names to values; ``yaku`` takes a mapping from yaku id to a
        mapping of ``enabled`` / ``points`` / ``extra`` / ``points_after_koikoi``.
        """
        try:
            base = PRESETS[preset]
        except KeyError:
            raise RulesError(
                Reason.UNKNOWN_PRESET,
                f"unknown Koi-Koi preset {preset!r}; presets: {', '.join(PRESETS)}",
                "preset",
            ) from None
        return base.with_overrides(overrides or {})

    def with_overrides(self, overrides: Mapping[str, Any]) -> KoiKoiRules:
        """This rule set with some options changed (validated as in :meth:`from_preset`)."""
        changes: dict[str, Any] = {}
        for name, value in overrides.items():
            if name == "yaku":
                changes["yaku"] = _override_yaku(self.yaku, value)
            else:
                changes[name] = _check_option(name, value)
        return dataclasses.replace(self, **changes)

    def overrides(self) -> dict[str, Any]:
        """The options that differ from this rule set's preset, as :meth:`from_preset` takes them.

        >>> KoiKoiRules.from_preset("nintendo", {"rounds": 3}).overrides()
        {'rounds': 3}
        """
        base = PRESETS[self.preset]
        diff: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name in ("preset", "yaku"):
                continue
            value = getattr(self, f.name)
            if value != getattr(base, f.name):
                diff[f.name] = value
        yaku_diff = {}
        for mine, theirs in zip(self.yaku, base.yaku, strict=True):
            if mine == theirs:
                continue
            changed = {
                k: getattr(mine, k)
                for k in ("enabled", "points", "extra", "points_after_koikoi")
                if getattr(mine, k) != getattr(theirs, k)
            }
            if "points" in changed and mine.points_after_koikoi:
                # Points given alone reset the value after a koi-koi call: keep this one.
                changed["points_after_koikoi"] = mine.points_after_koikoi
            yaku_diff[mine.id] = changed
        if yaku_diff:
            diff["yaku"] = yaku_diff
        return diff

    def options(self) -> dict[str, Any]:
        """Every option with its value (the yaku as a mapping by id), for display."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "yaku":
                value = {
                    y.id: {
                        "enabled": y.enabled,
                        "points": y.points,
                        "extra": y.extra,
                        "points_after_koikoi": y.points_after_koikoi,
                    }
                    for y in value
                }
            out[f.name] = value
        return out


def _option_names() -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(KoiKoiRules) if f.name != "preset")


def _check_option(name: str, value: Any) -> Any:
    if name in ENUM_OPTIONS:
        allowed = ENUM_OPTIONS[name]
        if name == "first_dealer" and type(value) is int and value in (0, 1):
            return f"seat-{value}"
        if isinstance(value, str) and value in allowed:
            return value
        raise RulesError(
            Reason.BAD_OPTION_VALUE,
            f"option {name!r} cannot be {value!r}; allowed: {', '.join(allowed)}",
            name,
        )
    if name in _INT_RANGE:
        low, high = _INT_RANGE[name]
        if type(value) is int and low <= value <= high:
            return value
        raise RulesError(
            Reason.BAD_OPTION_VALUE,
            f"option {name!r} cannot be {value!r}; allowed: a whole number from {low} to {high}",
            name,
        )
    if name in _BOOL_OPTIONS:
        if type(value) is bool:
            return value
        raise RulesError(
            Reason.BAD_OPTION_VALUE,
            f"option {name!r} cannot be {value!r}; allowed: true, false",
            name,
        )
    raise RulesError(
        Reason.UNKNOWN_OPTION,
        f"unknown Koi-Koi option {name!r}; options: {', '.join(_option_names())}",
        name,
    )


def _override_yaku(table: tuple[YakuRule, ...], value: Any) -> tuple[YakuRule, ...]:
    if not isinstance(value, Mapping):
        raise RulesError(
            Reason.BAD_OPTION_VALUE,
            "option 'yaku' must map yaku ids to their settings",
            "yaku",
        )
    rules = list(table)
    for yaku_id, settings in value.items():
        if yaku_id not in YAKU_IDS:
            raise RulesError(
                Reason.UNKNOWN_OPTION,
                f"unknown yaku {yaku_id!r}; yaku: {', '.join(YAKU_IDS)}",
                f"yaku.{yaku_id}",
            )
        if not isinstance(settings, Mapping):
            raise RulesError(
                Reason.BAD_OPTION_VALUE,
                f"option 'yaku.{yaku_id}' must map settings (enabled, points, extra, "
                "points_after_koikoi) to values",
                f"yaku.{yaku_id}",
            )
        index = YAKU_IDS.index(yaku_id)
        rule = rules[index]
        for key, setting in settings.items():
            option = f"yaku.{yaku_id}.{key}"
            if key in ("enabled", "extra"):
                if type(setting) is not bool:
                    raise RulesError(
                        Reason.BAD_OPTION_VALUE,
                        f"option {option!r} cannot be {setting!r}; allowed: true, false",
                        option,
                    )
            elif key in ("points", "points_after_koikoi"):
                if type(setting) is not int or not 0 <= setting <= MAX_YAKU_POINTS:
                    raise RulesError(
                        Reason.BAD_OPTION_VALUE,
                        f"option {option!r} cannot be {setting!r}; allowed: a whole number "
                        f"from 0 to {MAX_YAKU_POINTS}",
                        option,
                    )
            else:
                raise RulesError(
                    Reason.UNKNOWN_OPTION,
                    f"unknown yaku setting {option!r}; settings: enabled, points, extra, "
                    "points_after_koikoi",
                    option,
                )
            rule = dataclasses.replace(rule, **{key: setting})
        if "points" in settings and "points_after_koikoi" not in settings:
            # A yaku given its points is worth them throughout, as the override says: it does
            # not keep a preset's different value after a koi-koi call (koikoi-japan's viewing).
            rule = dataclasses.replace(rule, points_after_koikoi=0)
        rules[index] = rule
    return tuple(rules)


#: The six presets of RULES.md 1.6, by name.
PRESETS: Mapping[str, KoiKoiRules] = {
    "fudawiki": KoiKoiRules(),
    "wikipedia-fr": KoiKoiRules(
        preset="wikipedia-fr",
        field_four="void",
        field_pairs="void",
        own_koikoi="double",
        counter_seven=True,
        exhaustion="void",
        end_when_dealer_empty=True,
        dealer_after_void="rotate",
        refill_empty_field=True,
    ),
    "hanafuda-legends": KoiKoiRules(
        preset="hanafuda-legends",
        field_pairs="ignore",
        yaku_groups="cumulative",
        yaku=_YAKU_LEGENDS,
        exhaustion="void",
    ),
    "coins": KoiKoiRules(
        preset="coins",
        starting_points=30,
        field_pairs="ignore",
        hand_four="redeal",
        hand_pairs="redeal",
        yaku_groups="cumulative",
        yaku=_YAKU_COINS,
        seven_or_more=0,
        opponent_koikoi="none",
        all_calls_plus_one=True,
        exhaustion="void",
    ),
    "koikoi-japan": KoiKoiRules(
        preset="koikoi-japan",
        rounds=8,
        starting_points=30,
        field_pairs="ignore",
        hand_four="redeal",
        hand_pairs="ignore",
        yaku_groups="cumulative",
        akatan_aotan_stacks=True,
        yaku=_YAKU_JAPAN,
        seven_or_more=0,
        own_koikoi="bonus-points",
        opponent_koikoi="none",
        exhaustion="dealer-points",
        dealer_points=1,
        first_dealer="random",
    ),
    "nintendo": KoiKoiRules(
        preset="nintendo",
        field_pairs="ignore",
        yaku=_YAKU_STANDARD_NO_TSUKIFUDA,
        exhaustion="void",
    ),
}

DEFAULT_PRESET = "fudawiki"
