"""Hachi-Hachi rule sets: the ``fudawiki`` preset (seed 004, RULES.md Part 2) and its options.

Part 2 has one option, ``rounds``; everything else is fixed by the spec or decided in
``docs/hachihachi.md``. A rule set is an immutable, hashable value; an unknown preset, option or
value is refused with a :class:`~hanafuda_referee.errors.RulesError` naming what is allowed.

>>> HachiHachiRules.from_preset("fudawiki").rounds
12
>>> HachiHachiRules.from_preset("fudawiki", {"rounds": 3}).overrides()
{'rounds': 3}
>>> try:
...     HachiHachiRules.from_preset("fudawiki", {"rounds": 0})
... except RulesError as error:
...     print(error.reason.value, "-", error.message)
BAD_OPTION_VALUE - option 'rounds' cannot be 0; allowed: a whole number from 1 to 120
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hanafuda_referee.errors import Reason, RulesError

__all__ = ["DEFAULT_PRESET", "PRESETS", "HachiHachiRules"]

#: The smallest and largest value of each whole-number option. The spec sets no upper bound on
#: ``rounds``; 120, as for Koi-Koi, is ten times the preset's and far beyond any game played. A
#: game keeps every finished round's result, so a round count no game could reach would let a
#: game's stored state (and the work of each of its moves) grow without end.
_INT_RANGE: Mapping[str, tuple[int, int]] = {"rounds": (1, 120)}


@dataclass(frozen=True, slots=True)
class HachiHachiRules:
    """A resolved Hachi-Hachi rule set. Build one with :meth:`from_preset`."""

    preset: str = "fudawiki"
    #: Rounds in a game (RULES.md 2.7).
    rounds: int = 12

    @classmethod
    def from_preset(
        cls, preset: str = "fudawiki", overrides: Mapping[str, Any] | None = None
    ) -> HachiHachiRules:
        """The preset's rule set with ``overrides`` (option name → value) applied.

        >>> HachiHachiRules.from_preset("fudawiki", {"rounds": 1}).rounds
        1
        >>> try:
        ...     HachiHachiRules.from_preset("nintendo")
        ... except RulesError as error:
        ...     print(error.reason.value)
        UNKNOWN_PRESET
        """
        try:
            base = PRESETS[preset]
        except KeyError:
            raise RulesError(
                Reason.UNKNOWN_PRESET,
                f"unknown Hachi-Hachi preset {preset!r}; presets: {', '.join(PRESETS)}",
                "preset",
            ) from None
        return base.with_overrides(overrides or {})

    def with_overrides(self, overrides: Mapping[str, Any]) -> HachiHachiRules:
        """This rule set with some options changed (validated as in :meth:`from_preset`).

        >>> HachiHachiRules().with_overrides({"rounds": 4}).rounds
        4
        """
        changes = {name: _check_option(name, value) for name, value in overrides.items()}
        return dataclasses.replace(self, **changes)

    def overrides(self) -> dict[str, Any]:
        """The options that differ from this rule set's preset, as :meth:`from_preset` takes them.

        >>> HachiHachiRules().overrides()
        {}
        """
        base = PRESETS[self.preset]
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name != "preset" and getattr(self, f.name) != getattr(base, f.name)
        }

    def options(self) -> dict[str, Any]:
        """Every option with its value, for display.

        >>> HachiHachiRules().options()
        {'rounds': 12}
        """
        return {
            f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "preset"
        }


def _option_names() -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(HachiHachiRules) if f.name != "preset")


def _check_option(name: str, value: Any) -> Any:
    if name in _INT_RANGE:
        low, high = _INT_RANGE[name]
        # bool is an int subclass; True is no round count.
        if type(value) is int and low <= value <= high:
            return value
        raise RulesError(
            Reason.BAD_OPTION_VALUE,
            f"option {name!r} cannot be {value!r}; allowed: a whole number from {low} to {high}",
            name,
        )
    raise RulesError(
        Reason.UNKNOWN_OPTION,
        f"unknown Hachi-Hachi option {name!r}; options: {', '.join(_option_names())}",
        name,
    )


#: The presets of RULES.md Part 2, by name: seed 004 only.
PRESETS: Mapping[str, HachiHachiRules] = {"fudawiki": HachiHachiRules()}

DEFAULT_PRESET = "fudawiki"
