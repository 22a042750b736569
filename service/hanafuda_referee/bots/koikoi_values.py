"""What cards are worth to a Koi-Koi seat: its yaku points, plus its progress toward the yaku it
can still form.

A *target* is a yaku seen as a pool of cards of which some number is needed: the three cards of
``inoshikacho``, five of the ten ribbons for ``tan``, three of the four lights other than the rain
man for ``sanko``... A seat's progress toward a target grows with the square of the share it
holds, and is worth nothing once the opponent holds so many of the pool's cards that the seat can
no longer gather enough. :func:`worth` adds it to the yaku points the captures score now.

>>> from hanafuda_referee.cards import Card, mask_of
>>> from hanafuda_referee.koikoi.rules import KoiKoiRules
>>> values = values_for(KoiKoiRules())
>>> boar_deer = mask_of([Card.CLOVER_BOAR, Card.MAPLE_DEER])
>>> values.worth(boar_deer, 0, month=1) > values.worth(Card.CLOVER_BOAR.mask, 0, month=1)
True
>>> values.worth(boar_deer, Card.PEONY_BUTTERFLIES.mask, month=1) < values.worth(boar_deer, 0, 1)
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from hanafuda_referee.cards import (
    BLUE_RIBBONS,
    DECK,
    LIGHTS,
    MONTH_MASKS,
    PLAINS,
    POETRY_RIBBONS,
    RIBBONS,
    Card,
)
from hanafuda_referee.koikoi.rules import KoiKoiRules
from hanafuda_referee.koikoi.scoring import PointsFunction, animal_pool, points_function

__all__ = ["KoiKoiValues", "Pile", "Target", "values_for"]

#: How much of a target's points its progress is worth before the target is formed.
PROGRESS_WEIGHT = 1.5
#: A small worth of each card by kind, in twentieths of a point, so that equal progress prefers
#: the rarer card: light (0.4), animal or ribbon (0.25), plain (0.1). Whole numbers, so that a
#: pile's sum is exact whatever order its cards come in.
_LIGHT_TWENTIETHS, _OTHER_TWENTIETHS, _PLAIN_TWENTIETHS = 8, 5, 2
_OTHERS = DECK & ~(LIGHTS | PLAINS)
_RAIN_MAN = Card.WILLOW_RAINMAN.mask
_SAKE = Card.CHRYSANTHEMUM_SAKE.mask
_CURTAIN = Card.CHERRY_CURTAIN.mask
_MOON = Card.SUSUKI_MOON.mask
_INOSHIKACHO = Card.CLOVER_BOAR.mask | Card.MAPLE_DEER.mask | Card.PEONY_BUTTERFLIES.mask


class Target(NamedTuple):
    """A yaku as ``need`` cards of ``pool``, worth ``points`` once formed."""

    pool: int
    need: int
    points: int


def _targets(rules: KoiKoiRules) -> tuple[Target, ...]:
    """The targets of a rule set: every enabled yaku that a seat builds card by card (the month's
    ``tsukifuda`` is added per month by :meth:`KoiKoiValues.worth`)."""

    def points(yaku_id: str) -> int:
        rule = rules.yaku_rule(yaku_id)
        return rule.points if rule.enabled else 0

    plains = PLAINS | (_SAKE if rules.sake_cup != "animal-only" else 0)
    candidates = [
        Target(LIGHTS & ~_RAIN_MAN, 3, points("sanko")),
        Target(_INOSHIKACHO, 3, points("inoshikacho")),
        Target(animal_pool(rules), 5, points("tane")),
        Target(POETRY_RIBBONS, 3, points("akatan")),
        Target(BLUE_RIBBONS, 3, points("aotan")),
        Target(RIBBONS, 5, points("tan")),
        Target(plains, 10, points("kasu")),
    ]
    if rules.viewing != "off":
        candidates.append(Target(_SAKE | _CURTAIN, 2, points("hanami-zake")))
        candidates.append(Target(_SAKE | _MOON, 2, points("tsukimi-zake")))
    return tuple(t for t in candidates if t.points)


class Pile(NamedTuple):
    """A capture pile's worth apart from the opponent's captures (see :meth:`KoiKoiValues.pile`)."""

    points: int
    kinds: float
    building: tuple[tuple[int, int, float], ...]

    def worth(self, blocked: int) -> float:
        """The pile's worth when the opponent holds ``blocked``."""
        return self.points + _still_open(self.building, blocked) + self.kinds


def _still_open(building: tuple[tuple[int, int, float], ...], blocked: int) -> float:
    """The worth of the targets being built that ``blocked`` leaves enough cards of."""
    total = 0.0
    for pool, need, worth in building:
        if (pool & ~blocked).bit_count() >= need:
            total += worth
    return total


class KoiKoiValues:
    """The worth of capture piles under one rule set (build it with :func:`values_for`)."""

    def __init__(self, rules: KoiKoiRules) -> None:
        self.rules = rules
        self.points: PointsFunction = points_function(rules)
        self.targets = _targets(rules)
        rule = rules.yaku_rule("tsukifuda")
        self.tsukifuda = rule.points if rule.enabled else 0
        #: The targets of each month (index 0: no month): the month's own tsukifuda among them.
        self._by_month: tuple[tuple[Target, ...], ...] = tuple(
            self.targets
            if not self.tsukifuda or not month
            else (*self.targets, Target(MONTH_MASKS[month], 4, self.tsukifuda))
            for month in range(13)
        )

    def _building(self, captured: int, month: int) -> tuple[tuple[int, int, float], ...]:
        """The targets ``captured`` holds some but not all of: each target's pool, its need and
        the worth of its progress."""
        building = []
        for pool, need, points in self._by_month[month]:
            have = (captured & pool).bit_count()
            if have >= need or not have:
                continue
            share = have / need
            building.append((pool, need, points * PROGRESS_WEIGHT * share * share))
        return tuple(building)

    def pile(self, captured: int, month: int, calls: int = 0) -> Pile:
        """What :meth:`worth` reads of a capture pile before the opponent's captures: worked
        out once for a pile whose worth is asked against many opponents' piles."""
        kinds = (
            _LIGHT_TWENTIETHS * (captured & LIGHTS).bit_count()
            + _PLAIN_TWENTIETHS * (captured & PLAINS).bit_count()
            + _OTHER_TWENTIETHS * (captured & _OTHERS).bit_count()
        ) / 20
        return Pile(self.points(captured, month, calls), kinds, self._building(captured, month))

    def worth(self, captured: int, blocked: int, month: int, calls: int = 0) -> float:
        """Yaku points now, progress toward the rest, and a little per card."""
        return self.pile(captured, month, calls).worth(blocked)

    def near(self, captured: int, blocked: int, month: int) -> bool:
        """Whether the captures are one card short of a target they can still form."""
        for pool, need, _ in self._by_month[month]:
            have = (captured & pool).bit_count()
            if have == need - 1 and (pool & ~blocked).bit_count() >= need:
                return True
        return False


@lru_cache(maxsize=64)
def values_for(rules: KoiKoiRules) -> KoiKoiValues:
    """The values of a rule set (kept: a game asks for the same rule set at every decision)."""
    return KoiKoiValues(rules)
