"""The capture rule both games share (RULES.md 1.3 steps 1 and 2; Part 2 plays the same turn),
on a field that is a list of CARDS.md codes."""

from __future__ import annotations

from tests.reference.deck import MONTH


def matches(field: list[str], card: str) -> list[str]:
    """The field cards of ``card``'s month, in field order."""
    return [f for f in field if MONTH[f] == MONTH[card]]


def plays(field: list[str], card: str) -> list[tuple[str, str, str | None]]:
    """A hand card's plays in canonical form: one per target when two field cards match it,
    else one play naming none."""
    found = matches(field, card)
    if len(found) == 2:
        return [("play", card, target) for target in found]
    return [("play", card, None)]


def capture(field: list[str], card: str, target: str | None) -> list[str]:
    """Put ``card``, played or drawn, onto ``field`` (changed in place) and return what it
    captures: nothing when no field card matches (it joins the field), else the card with its
    single match, its named ``target`` of two, or all three of its month."""
    found = matches(field, card)
    if not found:
        field.append(card)
        return []
    if len(found) == 2:
        if target not in found:
            raise ValueError(f"{card} needs one of {found} as its target")
        found = [target]
    for taken in found:
        field.remove(taken)
    return [card, *found]
