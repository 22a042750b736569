"""The browser table's words (``clients/table/src/i18n``): English, French and Japanese each give
every key, with the same shape (a sentence, a function that makes one, a list of the same
length), none left blank; and the static page names only words that exist.

``tsc --strict`` checks the same through the ``Strings`` type (``test_table_build.py`` runs it);
this test reads the sets as the bundle holds them, so a key added to one language alone, or a
record or list left short, is named here by language and path.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .npm_packages import TABLE, install, npm

LANGUAGES = ("en", "fr", "ja")
#: The referee's reasons for refusing a request.
ERRORS_PROTO = TABLE.parents[1] / "proto" / "hanafuda" / "v1" / "errors.proto"

#: The standard Japanese names of the cards that have one of their own, by card number
#: (CARDS.md's order); every other card is a plain, "<flower>のカス".
JAPANESE_NAMES = {
    1: ("松に鶴", "Matsu ni tsuru"),
    5: ("梅に鶯", "Ume ni uguisu"),
    9: ("桜に幕", "Sakura ni maku"),
    13: ("藤に不如帰", "Fuji ni hototogisu"),
    17: ("菖蒲に八橋", "Ayame ni yatsuhashi"),
    21: ("牡丹に蝶", "Botan ni chō"),
    25: ("萩に猪", "Hagi ni inoshishi"),
    29: ("芒に月", "Susuki ni tsuki"),
    30: ("芒に雁", "Susuki ni kari"),
    33: ("菊に盃", "Kiku ni sakazuki"),
    37: ("紅葉に鹿", "Momiji ni shika"),
    41: ("柳に小野道風", "Yanagi ni Ono no Michikaze"),
    42: ("柳に燕", "Yanagi ni tsubame"),
    45: ("桐に鳳凰", "Kiri ni hōō"),
    2: ("松に赤短", "Matsu ni akatan"),
    22: ("牡丹に青短", "Botan ni aotan"),
    14: ("藤に短冊", "Fuji ni tanzaku"),
    3: ("松のカス", "Matsu no kasu"),
    48: ("桐のカス", "Kiri no kasu"),
}

_CACHE: dict[str, Any] = {}


def _shapes() -> dict[str, Any]:
    """The output of ``npm run strings``: each language's shape, ``japanese`` and ``choices``."""
    if not _CACHE:
        install(TABLE)
        output = npm(TABLE, "run", "--silent", "strings")
        _CACHE.update(json.loads(output.strip().splitlines()[-1]))
    return _CACHE


def _paths(shape: Any, prefix: str = "") -> dict[str, str]:
    """Every leaf of a shape by its dotted path: ``{"cards.months": "list/12", ...}``."""
    if isinstance(shape, dict):
        found: dict[str, str] = {}
        for key, value in shape.items():
            found.update(_paths(value, f"{prefix}.{key}" if prefix else key))
        return found
    return {prefix: str(shape)}


def test_every_language_has_every_key_with_the_same_shape() -> None:
    shapes = {language: _shapes()[language] for language in LANGUAGES}
    reference = _paths(shapes["en"])
    assert len(reference) > 200, "the English set looks cut short"
    problems = []
    for language in LANGUAGES:
        paths = _paths(shapes[language])
        missing = sorted(set(reference) - set(paths))
        extra = sorted(set(paths) - set(reference))
        changed = sorted(
            f"{path}: {paths[path]} instead of {reference[path]}"
            for path in set(paths) & set(reference)
            if paths[path] != reference[path]
        )
        blank = sorted(path for path, kind in paths.items() if "empty" in kind or "blank" in kind)
        for label, found in (
            ("misses", missing),
            ("adds", extra),
            ("changes", changed),
            ("blanks", blank),
        ):
            if found:
                problems.append(f"{language} {label}: {found}")
    assert not problems, "\n".join(problems)


def test_the_page_names_only_words_every_language_has() -> None:
    html = (TABLE / "static" / "index.html").read_text(encoding="utf-8")
    named = set(re.findall(r'data-i18n="([^"]+)"', html))
    page = set(_paths(_shapes()["en"]["page"]))
    assert named, "the page names no words"
    assert named <= page, sorted(named - page)
    # Every page word is used by the page (the document's title is set by the script).
    assert page - named == {"title"}, sorted(page - named - {"title"})


def test_cards_carry_their_standard_japanese_names() -> None:
    japanese = _shapes()["japanese"]
    assert len(japanese) == 48
    for card, (kanji, romaji) in JAPANESE_NAMES.items():
        assert japanese[str(card)] == {"kanji": kanji, "romaji": romaji}, card
    # 48 cards, and only the plains share a name (two per month, the pairs of plains).
    names = [entry["kanji"] for entry in japanese.values()]
    assert all(names.count(name) == 1 or name.endswith("のカス") for name in names)


def test_the_language_is_the_stored_choice_else_the_browsers() -> None:
    chosen = [(case["stored"], case["browser"], case["chosen"]) for case in _shapes()["choices"]]
    assert chosen == [
        (None, ["fr-CA", "en"], "fr"),
        (None, ["de-DE", "ja"], "ja"),
        (None, ["de-DE"], "en"),
        ("ja", ["fr-FR"], "ja"),
        ("xx", ["fr"], "fr"),
    ]


def _proto_reasons() -> set[str]:
    """The names of errors.proto's ``Reason`` values without ``REASON_`` (``UNSPECIFIED`` is
    never sent)."""
    proto = ERRORS_PROTO.read_text(encoding="utf-8")
    body = re.search(r"enum Reason \{(.*?)\n\}", proto, re.DOTALL)
    assert body is not None, "errors.proto has no Reason enum"
    names = set(re.findall(r"^\s*REASON_([A-Z0-9_]+)\s*=\s*\d+;", body.group(1), re.MULTILINE))
    return names - {"UNSPECIFIED"}


def _told_reasons(language: str) -> dict[str, str]:
    """The sentences a language's ``problems.reasons`` gives, by reason, read from its source
    (one ``NAME: "sentence",`` a line)."""
    source = (TABLE / "src" / "i18n" / f"{language}.ts").read_text(encoding="utf-8")
    block = re.search(r"\n  problems: \{\n    reasons: \{\n(.*?)\n    \},", source, re.DOTALL)
    assert block is not None, f"{language}.ts has no problems.reasons"
    return dict(re.findall(r'^\s+([A-Z0-9_]+): "(.*)",$', block.group(1), re.MULTILINE))


def test_every_language_tells_every_reason_the_referee_may_give() -> None:
    """Read without Node: every reason of errors.proto has a sentence, not blank, in each
    language, and none that the proto does not have (``tsc`` checks the same against the SDK's
    generated enum, which could lag behind the proto)."""
    reasons = _proto_reasons()
    assert len(reasons) >= 36, sorted(reasons)
    for language in LANGUAGES:
        told = _told_reasons(language)
        assert set(told) == reasons, (
            language,
            f"misses {sorted(reasons - set(told))}",
            f"adds {sorted(set(told) - reasons)}",
        )
        assert all(sentence.strip() for sentence in told.values()), language
    # A sentence for a player in their language: a translation differs from the English one.
    english = _told_reasons("en")
    for language in ("fr", "ja"):
        told = _told_reasons(language)
        same = sorted(reason for reason, sentence in told.items() if sentence == english[reason])
        assert not same, (language, same)
