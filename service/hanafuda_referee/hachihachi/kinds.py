"""How Hachi-Hachi sorts the cards: the kind sets its teyaku and dekiyaku count with.

The printed kinds (:mod:`hanafuda_referee.cards`) hold for the card count (RULES.md 2.5). The
combinations read the willow month differently (2.2, 2.4, 2.6): every willow card is a plain, so
the rain man is no light, the swallow no animal and the willow ribbon no ribbon. The sake cup stays
an animal only.

>>> from hanafuda_referee.cards import Card
>>> bool(HH_PLAINS & Card.WILLOW_RAINMAN.mask), bool(HH_LIGHTS & Card.WILLOW_RAINMAN.mask)
(True, False)
>>> HH_PLAINS.bit_count(), HH_LIGHTS.bit_count(), HH_ANIMALS.bit_count(), HH_RIBBONS.bit_count()
(27, 4, 8, 9)
"""

from __future__ import annotations

from hanafuda_referee.cards import ANIMALS, LIGHTS, PLAINS, RIBBONS, WILLOWS

__all__ = ["HH_ANIMALS", "HH_LIGHTS", "HH_PLAINS", "HH_RIBBONS"]

#: The four lights other than the rain man: lone-light's light, and the four-lights dekiyaku.
HH_LIGHTS: int = LIGHTS & ~WILLOWS
#: The eight animals other than the swallow (the sake cup included).
HH_ANIMALS: int = ANIMALS & ~WILLOWS
#: The nine ribbons other than the willow ribbon: red's ribbons, and seven-ribbons' pool.
HH_RIBBONS: int = RIBBONS & ~WILLOWS
#: The 24 printed plains plus the four willow cards.
HH_PLAINS: int = PLAINS | WILLOWS
