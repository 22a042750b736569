"""The deck of CARDS.md, as the reference readings spell it: 48 card codes with their month and
kind (``light``, ``animal``, ``ribbon`` or ``plain``), in the order of the table."""

from __future__ import annotations

CARD_TABLE: tuple[tuple[str, int, str], ...] = (
    # code, month, kind
    ("pine-crane", 1, "light"),
    ("pine-ribbon", 1, "ribbon"),
    ("pine-plain-1", 1, "plain"),
    ("pine-plain-2", 1, "plain"),
    ("plum-warbler", 2, "animal"),
    ("plum-ribbon", 2, "ribbon"),
    ("plum-plain-1", 2, "plain"),
    ("plum-plain-2", 2, "plain"),
    ("cherry-curtain", 3, "light"),
    ("cherry-ribbon", 3, "ribbon"),
    ("cherry-plain-1", 3, "plain"),
    ("cherry-plain-2", 3, "plain"),
    ("wisteria-cuckoo", 4, "animal"),
    ("wisteria-ribbon", 4, "ribbon"),
    ("wisteria-plain-1", 4, "plain"),
    ("wisteria-plain-2", 4, "plain"),
    ("iris-bridge", 5, "animal"),
    ("iris-ribbon", 5, "ribbon"),
    ("iris-plain-1", 5, "plain"),
    ("iris-plain-2", 5, "plain"),
    ("peony-butterflies", 6, "animal"),
    ("peony-ribbon", 6, "ribbon"),
    ("peony-plain-1", 6, "plain"),
    ("peony-plain-2", 6, "plain"),
    ("clover-boar", 7, "animal"),
    ("clover-ribbon", 7, "ribbon"),
    ("clover-plain-1", 7, "plain"),
    ("clover-plain-2", 7, "plain"),
    ("susuki-moon", 8, "light"),
    ("susuki-geese", 8, "animal"),
    ("susuki-plain-1", 8, "plain"),
    ("susuki-plain-2", 8, "plain"),
    ("chrysanthemum-sake", 9, "animal"),
    ("chrysanthemum-ribbon", 9, "ribbon"),
    ("chrysanthemum-plain-1", 9, "plain"),
    ("chrysanthemum-plain-2", 9, "plain"),
    ("maple-deer", 10, "animal"),
    ("maple-ribbon", 10, "ribbon"),
    ("maple-plain-1", 10, "plain"),
    ("maple-plain-2", 10, "plain"),
    ("willow-rainman", 11, "light"),
    ("willow-swallow", 11, "animal"),
    ("willow-ribbon", 11, "ribbon"),
    ("willow-lightning", 11, "plain"),
    ("paulownia-phoenix", 12, "light"),
    ("paulownia-yellow", 12, "plain"),
    ("paulownia-plain-1", 12, "plain"),
    ("paulownia-plain-2", 12, "plain"),
)

ALL_CARDS: tuple[str, ...] = tuple(code for code, _, _ in CARD_TABLE)
MONTH: dict[str, int] = {code: month for code, month, _ in CARD_TABLE}
KIND: dict[str, str] = {code: kind for code, _, kind in CARD_TABLE}
