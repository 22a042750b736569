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
    LIGHTS,
    MONTH_MASKS,
    PLAINS,
    POETRY_RIBBONS,
    RIBBONS,
    Card,
)
from hanafuda_referee.koikoi.rules import KoiKoiRules
from hanafuda_referee.koikoi.scoring import PointsFunction, animal_pool, points_function

__all__ = ["KoiKoiValues", "Target", "values_for"]

#: How much of a target's points its progress is worth before the target is formed.
PROGRESS_WEIGHT = 1.5
#: A small worth of each card by kind (index: card number), so that equal progress prefers the
#: rarer card: light, animal or ribbon, plain.
_KIND_WORTH: tuple[float, ...] = (
    0.0,
    *(0.4 if c.mask & LIGHTS else 0.1 if c.mask & PLAINS else 0.25 for c in Card),
)
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


class KoiKoiValues:
    """The worth of capture piles under one rule set (build it with :func:`values_for`)."""

    def __init__(self, rules: KoiKoiRules) -> None:
        self.rules = rules
        self.points: PointsFunction = points_function(rules)
        self.targets = _targets(rules)
        rule = rules.yaku_rule("tsukifuda")
        self.tsukifuda = rule.points if rule.enabled else 0

    def progress(self, captured: int, blocked: int, month: int) -> float:
        """The worth of the targets ``captured`` is building and can still form, ``blocked``
        being the cards the seat can no longer take (the opponent's captures)."""
        total = 0.0
        for pool, need, points in self._month_targets(month):
            have = (captured & pool).bit_count()
            if have >= need or not have:
                continue
            if (pool & ~blocked).bit_count() < need:
                continue
            share = have / need
            total += points * PROGRESS_WEIGHT * share * share
        return total

    def _month_targets(self, month: int) -> tuple[Target, ...]:
        if not self.tsukifuda or not month:
            return self.targets
        return (*self.targets, Target(MONTH_MASKS[month], 4, self.tsukifuda))

    def worth(self, captured: int, blocked: int, month: int, calls: int = 0) -> float:
        """Yaku points now, progress toward the rest, and a little per card."""
        kinds = 0.0
        rest = captured
        while rest:
            low = rest & -rest
            kinds += _KIND_WORTH[low.bit_length() - 1]
            rest ^= low
        return self.points(captured, month, calls) + self.progress(captured, blocked, month) + kinds

    def near(self, captured: int, blocked: int, month: int) -> bool:
        """Whether the captures are one card short of a target they can still form."""
        for pool, need, _ in self._month_targets(month):
            have = (captured & pool).bit_count()
            if have == need - 1 and (pool & ~blocked).bit_count() >= need:
                return True
        return False


@lru_cache(maxsize=64)
def values_for(rules: KoiKoiRules) -> KoiKoiValues:
    """The values of a rule set (kept: a game asks for the same rule set at every decision)."""
    return KoiKoiValues(rules)
