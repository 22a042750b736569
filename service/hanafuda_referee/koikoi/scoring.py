"""Koi-Koi scoring: the yaku a set of captures forms, its points, and the score of a stop.

Two paths share one definition. :func:`yaku_of` is the readable one: it lists each counted yaku with
its cards and points. :func:`points_function` compiles a rule set into a function that returns
only the yaku points, for the engine's hot path and for simulations: since every yaku group
depends on its own cards only, each group's points are precomputed, by calling the readable path,
into a table indexed by the group's cards (lights together with the viewing yaku, which need a
light; animals; ribbons) or by their count (plains, two popcounts); ``tsukifuda`` is one bit
test. A scoring is then four lookups and a few integer operations.

>>> from hanafuda_referee.cards import Card, mask_of
>>> from hanafuda_referee.koikoi.rules import KoiKoiRules
>>> rules = KoiKoiRules.from_preset("wikipedia-fr")
>>> taken = mask_of([Card.PINE_CRANE, Card.CHERRY_CURTAIN, Card.PAULOWNIA_PHOENIX])
>>> [(y.id, y.points) for y in yaku_of(rules, taken, month=1)]
[('sanko', 5)]
>>> points_function(rules)(taken, 1, 0)
5
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import NamedTuple

from hanafuda_referee.cards import (
    ANIMALS,
    BLUE_RIBBONS,
    LIGHTS,
    MONTH_MASKS,
    PLAINS,
    POETRY_RIBBONS,
    RIBBONS,
    WILLOWS,
    Card,
    cards_of,
)
from hanafuda_referee.koikoi.rules import YAKU_GROUP, YAKU_IDS, KoiKoiRules, YakuRule

__all__ = [
    "Multiplier",
    "PointsFunction",
    "ScoreBreakdown",
    "Yaku",
    "animal_pool",
    "plain_count",
    "points_function",
    "score_stop",
    "yaku_of",
    "yaku_points",
]

_SAKE = 1 << Card.CHRYSANTHEMUM_SAKE
_CURTAIN = 1 << Card.CHERRY_CURTAIN
_MOON = 1 << Card.SUSUKI_MOON
_RAINMAN = 1 << Card.WILLOW_RAINMAN
_YELLOW = 1 << Card.PAULOWNIA_YELLOW
_INOSHIKACHO = (1 << Card.CLOVER_BOAR) | (1 << Card.MAPLE_DEER) | (1 << Card.PEONY_BUTTERFLIES)
_NON_RAIN_LIGHTS = LIGHTS & ~_RAINMAN
#: The most plains a capture pile can count: every plain, the yellow paulownia twice, the sake
#: cup as two.
_MOST_PLAINS = PLAINS.bit_count() + 3


class Yaku(NamedTuple):
    """A counted yaku: its spec id, its points (extras included) and the cards that form it."""

    id: str
    points: int
    cards: int

    def __str__(self) -> str:
        return f"{self.id} ({self.points}: {', '.join(c.code for c in cards_of(self.cards))})"


class Multiplier(NamedTuple):
    """One step of a score's arithmetic: ``factor`` multiplies, ``added`` adds (bonus points)."""

    id: str
    factor: int = 1
    added: int = 0


class ScoreBreakdown(NamedTuple):
    """The arithmetic of a stop: the yaku, their sum (the base), each step applied, the total."""

    yaku: tuple[Yaku, ...]
    base: int
    multipliers: tuple[Multiplier, ...]
    total: int


PointsFunction = Callable[[int, int, int], int]
"""``points(captured, month, own_koikoi_calls) -> yaku points``, compiled for one rule set."""


def animal_pool(rules: KoiKoiRules) -> int:
    """The cards that count as animals under the rule set's ``sake_cup`` option."""
    return ANIMALS & ~_SAKE if rules.sake_cup == "plain-only" else ANIMALS


def plain_count(rules: KoiKoiRules, captured: int) -> int:
    """How many plains ``captured`` counts for ``kasu`` (sake cup and yellow paulownia options)."""
    n = (captured & PLAINS).bit_count()
    if captured & _SAKE:
        mode = rules.sake_cup
        if mode == "animal-and-plain" or mode == "plain-only":
            n += 1
        elif mode == "animal-and-two-plains":
            n += 2
    if rules.yellow_paulownia_double and captured & _YELLOW:
        n += 1
    return n


def _points(rules: KoiKoiRules, rule: YakuRule, after_koikoi: bool) -> int:
    points = rule.points_after_koikoi if after_koikoi and rule.points_after_koikoi else rule.points
    if rules.grand_yaku_fifteen and rule.id in ("goko", "akatan-aotan"):
        points = 15
    if rules.five_to_six and points == 5:
        points = 6
    return points


def _formed(rules: KoiKoiRules, captured: int, month: int, calls: int) -> list[Yaku]:
    """Every enabled yaku the captures satisfy, before the group rules pick which count."""
    formed: list[Yaku] = []

    def add(yaku_id: str, cards: int, extra_cards: int = 0, with_extra: int = 0) -> None:
        # ``with_extra``: the cards to show when extra cards score (default: ``cards``).
        rule = rules.yaku_rule(yaku_id)
        if rule.enabled:
            points = _points(rules, rule, calls > 0)
            if rule.extra:
                points += extra_cards
                if extra_cards and with_extra:
                    cards = with_extra
            formed.append(Yaku(yaku_id, points, cards))

    lights = captured & LIGHTS
    n_lights = lights.bit_count()
    non_rain = lights & _NON_RAIN_LIGHTS
    if n_lights == 5:
        add("goko", lights)
    # A light yaku is formed by at least its cards: with more lights, the group rule (lights never
    # combine) keeps the best, and an override that disables a higher yaku falls back to a lower.
    # With `extra` set (no preset does), every light beyond the cards it needs adds a point,
    # the rain man included: he is a light, and `extra` counts the group's cards.
    if non_rain.bit_count() == 4:
        add("shiko", non_rain, n_lights - 4, lights)
    if n_lights >= 4 and lights & _RAINMAN:
        add("ame-shiko", lights, n_lights - 4)
    if non_rain.bit_count() >= 3:
        add("sanko", non_rain, n_lights - 3, lights)

    animals = captured & animal_pool(rules)
    n_animals = animals.bit_count()
    if captured & _INOSHIKACHO == _INOSHIKACHO:
        add("inoshikacho", animals, n_animals - 3)
    if n_animals >= 5:
        add("tane", animals, n_animals - 5)

    ribbons = captured & RIBBONS
    n_ribbons = ribbons.bit_count()
    has_poetry = captured & POETRY_RIBBONS == POETRY_RIBBONS
    has_blue = captured & BLUE_RIBBONS == BLUE_RIBBONS
    if has_poetry and has_blue:
        add("akatan-aotan", ribbons, n_ribbons - 6)
    if has_poetry:
        add("akatan", ribbons, n_ribbons - 3)
    if has_blue:
        add("aotan", ribbons, n_ribbons - 3)
    if n_ribbons >= 5:
        add("tan", ribbons, n_ribbons - 5)

    n_plains = plain_count(rules, captured)
    if n_plains >= 10:
        plains = captured & PLAINS
        if rules.sake_cup != "animal-only":
            plains |= captured & _SAKE
        add("kasu", plains, n_plains - 10)

    # A special yaku needs every card it can have: `extra` may be set on it (the spec lets every
    # entry's bonus be overridden), and counts nothing.
    spoil = {"off": 0, "any-willow": WILLOWS, "rain-man": _RAINMAN}[rules.rain_spoils_viewing]
    if rules.viewing != "off" and captured & _SAKE and not captured & spoil:
        if captured & _CURTAIN:
            add("hanami-zake", _CURTAIN | _SAKE)
        if captured & _MOON:
            add("tsukimi-zake", _MOON | _SAKE)
    if month and captured & MONTH_MASKS[month] == MONTH_MASKS[month]:
        add("tsukifuda", MONTH_MASKS[month])
    return formed


def _best(candidates: list[Yaku]) -> list[Yaku]:
    # max() keeps the first of equal candidates: the earlier yaku of the table wins ties.
    return [max(candidates, key=lambda y: y.points)] if candidates else []


def yaku_of(
    rules: KoiKoiRules, captured: int, month: int = 0, own_koikoi_calls: int = 0
) -> tuple[Yaku, ...]:
    """The yaku that count for ``captured`` under ``rules``, in the spec's table order.

    ``month`` is the round month (for ``tsukifuda``; 0 = none); ``own_koikoi_calls`` matters for
    yaku whose points change once the player has called koi-koi.
    """
    formed = _formed(rules, captured, month, own_koikoi_calls)
    by_group: dict[str, list[Yaku]] = {}
    for y in formed:
        by_group.setdefault(YAKU_GROUP[y.id], []).append(y)
    counted: list[Yaku] = []
    for group, members in by_group.items():
        if group == "special":
            if rules.viewing == "one-per-round":
                viewing = [y for y in members if y.id != "tsukifuda"]
                members = _best(viewing) + [y for y in members if y.id == "tsukifuda"]
            counted += members
        elif rules.yaku_groups == "best-of-group" or group == "lights":
            counted += _best(members)
        elif group == "ribbons":
            ids = {y.id for y in members}
            if "akatan-aotan" in ids and not rules.akatan_aotan_stacks:
                members = [y for y in members if y.id not in ("akatan", "aotan")]
            counted += members
        else:
            counted += members
    order = {y: i for i, y in enumerate(YAKU_IDS)}
    return tuple(sorted(counted, key=lambda y: order[y.id]))


def yaku_points(
    rules: KoiKoiRules, captured: int, month: int = 0, own_koikoi_calls: int = 0
) -> int:
    """The sum of :func:`yaku_of`'s points (the base of a stop)."""
    return sum(y.points for y in yaku_of(rules, captured, month, own_koikoi_calls))


#: Compiled functions by rule set identity: hashing a rule set on every call would cost more than
#: the scoring itself. Keeping the rule set in the entry keeps its id from being reused.
_COMPILED: dict[int, tuple[KoiKoiRules, PointsFunction]] = {}


def points_function(rules: KoiKoiRules) -> PointsFunction:
    """A fast ``points(captured, month, own_koikoi_calls)`` equal to :func:`yaku_points`.

    Compiled once per rule set (cached): group tables are filled by the readable path, so the two
    cannot disagree; the tests check them against each other over random captures.
    """
    entry = _COMPILED.get(id(rules))
    if entry is not None and entry[0] is rules:
        return entry[1]
    compiled = _compiled_by_value(rules)
    if len(_COMPILED) >= 1024:
        _COMPILED.clear()
    _COMPILED[id(rules)] = (rules, compiled)
    return compiled


@lru_cache(maxsize=256)
def _compiled_by_value(rules: KoiKoiRules) -> PointsFunction:
    keys = _TableKeys.of(rules)
    before = _group_tables(rules, keys, after_koikoi=False)
    # A player who has called koi-koi may score some yaku differently (points_after_koikoi).
    if any(y.points_after_koikoi for y in rules.yaku):
        return _points_by_calls(keys, before, _group_tables(rules, keys, after_koikoi=True))
    return _points_ignoring_calls(keys, before)


class _TableKeys(NamedTuple):
    """Which cards each table of a rule set is indexed by.

    ``lights``: the lights, plus the sake cup and the cards that spoil a viewing when viewing
    yaku count (they live in the same table: a viewing yaku needs a light and the sake cup).
    ``animals``: the animal pool. ``once`` / ``twice``: the cards that count as one plain for
    ``kasu``, and those that count once more (a two-plain sake cup, a double yellow paulownia),
    so that a plain count is two popcounts.
    """

    lights: int
    animals: int
    once: int
    twice: int

    @classmethod
    def of(cls, rules: KoiKoiRules) -> _TableKeys:
        spoil = {"off": 0, "any-willow": WILLOWS, "rain-man": _RAINMAN}[rules.rain_spoils_viewing]
        viewing = _SAKE | spoil if rules.viewing != "off" else 0
        sake_plains = {"animal-and-plain": 1, "plain-only": 1, "animal-and-two-plains": 2}.get(
            rules.sake_cup, 0
        )
        once = PLAINS | (_SAKE if sake_plains else 0)
        twice = (_SAKE if sake_plains == 2 else 0) | (
            _YELLOW if rules.yellow_paulownia_double else 0
        )
        return cls(LIGHTS | viewing, animal_pool(rules), once, twice)


class _GroupTables(NamedTuple):
    """One rule set's yaku points, group by group, before or after a koi-koi call: the light and
    viewing yaku, the ribbon yaku and the animal yaku by the table's cards, ``kasu`` by plain
    count, and the points of ``tsukifuda`` (0 when it is off)."""

    lights: dict[int, int]
    ribbons: dict[int, int]
    animals: dict[int, int]
    plains: tuple[int, ...]
    tsukifuda: int


#: The groups of :data:`YAKU_GROUP` each table sums ("special" with month 0: the viewing yaku).
_LIGHT_TABLE_GROUPS = frozenset(("lights", "special"))


def _group_tables(rules: KoiKoiRules, keys: _TableKeys, after_koikoi: bool) -> _GroupTables:
    """The tables of one rule set, every entry computed by the readable path (:func:`yaku_of`)
    on the table's own cards, so the fast path cannot disagree with it."""
    calls = 1 if after_koikoi else 0

    def group_points(cards: int, groups: frozenset[str]) -> int:
        # Month 0: no tsukifuda here (it has its own term).
        return sum(y.points for y in yaku_of(rules, cards, 0, calls) if YAKU_GROUP[y.id] in groups)

    def table(mask: int, groups: frozenset[str]) -> dict[int, int]:
        subsets = [0]
        for card in cards_of(mask):
            subsets += [s | (1 << card) for s in subsets]
        return {s: group_points(s, groups) for s in subsets}

    # kasu by plain count: n plain cards (no sake cup, no yellow) make exactly n plains. Counts
    # beyond one set of them (the sake cup and the yellow paulownia add up to three) extend
    # kasu's arithmetic linearly.
    plain_cards = cards_of(PLAINS & ~_YELLOW)
    kasu_only = frozenset(("plains",))
    plains = [
        group_points(sum(1 << c for c in plain_cards[:n]), kasu_only)
        for n in range(len(plain_cards) + 1)
    ]
    kasu = rules.yaku_rule("kasu")
    kasu_points = _points(rules, kasu, after_koikoi)
    for n in range(len(plain_cards) + 1, _MOST_PLAINS + 1):
        plains.append(kasu_points + (n - 10 if kasu.extra else 0) if kasu.enabled else 0)
    tsukifuda = rules.yaku_rule("tsukifuda")
    return _GroupTables(
        table(keys.lights, _LIGHT_TABLE_GROUPS),
        table(RIBBONS, frozenset(("ribbons",))),
        table(keys.animals, frozenset(("animals",))),
        tuple(plains),
        _points(rules, tsukifuda, after_koikoi) if tsukifuda.enabled else 0,
    )


def _points_ignoring_calls(keys: _TableKeys, tables: _GroupTables) -> PointsFunction:
    """The points function of a rule set that scores the same before and after a koi-koi call:
    four table lookups, and the round month's four cards for ``tsukifuda``."""
    light_key, animal_key, once, twice = keys
    lights, ribbons, animals, plains, tsukifuda = tables
    ribbon_key, months = RIBBONS, MONTH_MASKS

    def points(captured: int, month: int, calls: int) -> int:
        n = (captured & once).bit_count()
        if captured & twice:  # rarely: the second count costs a tenth of the function
            n += (captured & twice).bit_count()
        total = (
            lights[captured & light_key]
            + ribbons[captured & ribbon_key]
            + animals[captured & animal_key]
            + plains[n]
        )
        if month and tsukifuda and captured & months[month] == months[month]:
            total += tsukifuda
        return total

    return points


def _points_by_calls(keys: _TableKeys, before: _GroupTables, after: _GroupTables) -> PointsFunction:
    """The points function of a rule set where a koi-koi call changes some yaku's points."""
    points_before = _points_ignoring_calls(keys, before)
    points_after = _points_ignoring_calls(keys, after)

    def points(captured: int, month: int, calls: int) -> int:
        return (points_after if calls else points_before)(captured, month, calls)

    return points


def score_stop(
    rules: KoiKoiRules,
    captured: int,
    month: int = 0,
    own_koikoi_calls: int = 0,
    opponent_koikoi_calls: int = 0,
    opponent_points: int = 0,
) -> ScoreBreakdown:
    """The score of a player who stops with ``captured`` (RULES.md 1.5).

    ``opponent_points`` are the opponent's own yaku points (for ``counter_seven``).

    The first worked example of RULES.md 1.5 (wikipedia-fr):

    >>> from hanafuda_referee.cards import Card, mask_of
    >>> from hanafuda_referee.koikoi.rules import KoiKoiRules
    >>> taken = mask_of([Card.PINE_CRANE, Card.PAULOWNIA_PHOENIX,
    ...     Card.SUSUKI_MOON, Card.CHRYSANTHEMUM_SAKE, Card.PINE_RIBBON, Card.PLUM_RIBBON,
    ...     Card.WISTERIA_RIBBON, Card.IRIS_RIBBON, Card.CLOVER_RIBBON])
    >>> score_stop(KoiKoiRules.from_preset("wikipedia-fr"), taken, 5, own_koikoi_calls=2).total
    44
    """
    yaku = yaku_of(rules, captured, month, own_koikoi_calls)
    base = sum(y.points for y in yaku)
    steps: list[Multiplier] = []
    total = base
    if rules.own_koikoi == "bonus-points" and own_koikoi_calls:
        # Applied to the base before any other multiplier (RULES.md 1.5).
        if own_koikoi_calls <= 3:
            steps.append(Multiplier("own-koikoi-bonus", added=own_koikoi_calls))
            total += own_koikoi_calls
        else:
            steps.append(Multiplier("own-koikoi-bonus", factor=own_koikoi_calls - 2))
            total *= own_koikoi_calls - 2
    if rules.seven_or_more and base >= rules.seven_or_more:
        steps.append(Multiplier("seven-or-more", factor=2))
        total *= 2
    if rules.own_koikoi == "double" and own_koikoi_calls:
        steps.append(Multiplier("own-koikoi", factor=2))
        total *= 2
    if rules.opponent_koikoi == "double" and opponent_koikoi_calls:
        steps.append(Multiplier("opponent-koikoi", factor=2))
        total *= 2
    elif rules.opponent_koikoi == "per-call" and opponent_koikoi_calls:
        steps.append(Multiplier("opponent-koikoi", factor=1 + opponent_koikoi_calls))
        total *= 1 + opponent_koikoi_calls
    if rules.all_calls_plus_one:
        factor = 1 + own_koikoi_calls + opponent_koikoi_calls
        if factor > 1:
            steps.append(Multiplier("all-calls-plus-one", factor=factor))
            total *= factor
    if rules.counter_seven and opponent_points >= (rules.seven_or_more or 7):
        steps.append(Multiplier("counter-seven", factor=2))
        total *= 2
    return ScoreBreakdown(yaku, base, tuple(steps), total)
