"""Hachi-Hachi scoring: pure, stateless building blocks for the game flow (RULES.md Part 2).

- :mod:`.teyaku`: the hand combinations declared at the deal;
- :mod:`.dekiyaku`: the capture combinations paid during play, and what a turn's captures pay;
- :mod:`.field`: the field multiplier, its carry-over and the four-of-a-month redeal check;
- :mod:`.settlement`: card points, the end-of-round settlement, payments in half points;
- :mod:`.kinds`: how Hachi-Hachi sorts the cards (willow cards are plains for the combinations).

The game itself, built on them (imported from its modules, not re-exported here):
:mod:`.rules` (``HachiHachiRules``), :mod:`.game` (``new_game``, ``apply``, ``legal_moves``),
:mod:`.events`, :mod:`.view` and :mod:`.codec`.

Card sets are bit masks, as in :mod:`hanafuda_referee.cards`. The rules as implemented, with every
choice made where the spec and seed are silent: ``docs/hachihachi.md``.

May import: the core modules and the standard library's pure parts, as the Koi-Koi engine (the
``import-linter`` contracts in pyproject.toml).

>>> from hanafuda_referee.hachihachi import card_points
>>> from hanafuda_referee.cards import DECK
>>> card_points(DECK)
264
"""

from hanafuda_referee.hachihachi.dekiyaku import (
    DEKIYAKU_VALUES,
    Dekiyaku,
    DekiyakuDue,
    DekiyakuId,
    DekiyakuPayment,
    Ladder,
    dekiyaku_of,
    dekiyaku_payment,
)
from hanafuda_referee.hachihachi.field import (
    MULTIPLIERS,
    carry_floor,
    field_has_four,
    field_multiplier,
)
from hanafuda_referee.hachihachi.inputs import BadCardsError
from hanafuda_referee.hachihachi.settlement import (
    PAR,
    Halves,
    Payment,
    PaymentReason,
    balance_deltas,
    card_points,
    collect,
    count_winner,
    halves,
    payment_score,
    sage_overtaken,
    settle,
)
from hanafuda_referee.hachihachi.teyaku import (
    TEYAKU_VALUES,
    Teyaku,
    TeyakuId,
    classify_teyaku,
    teyaku_of,
)

__all__ = [
    "DEKIYAKU_VALUES",
    "MULTIPLIERS",
    "PAR",
    "TEYAKU_VALUES",
    "BadCardsError",
    "Dekiyaku",
    "DekiyakuDue",
    "DekiyakuId",
    "DekiyakuPayment",
    "Halves",
    "Ladder",
    "Payment",
    "PaymentReason",
    "Teyaku",
    "TeyakuId",
    "balance_deltas",
    "card_points",
    "carry_floor",
    "classify_teyaku",
    "collect",
    "count_winner",
    "dekiyaku_of",
    "dekiyaku_payment",
    "field_has_four",
    "field_multiplier",
    "halves",
    "payment_score",
    "sage_overtaken",
    "settle",
    "teyaku_of",
]
