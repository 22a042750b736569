"""What a seat may not see at each version of a game, and the scans that look for it.

The truth comes from the test's own replay: a game is created with a seed (and prepared deals)
through the testing features, so the test runs the same rules engine in-process on the same
moves (:class:`GameTruth`) and knows every hand and the stock order at every version. The
service's filtering (views, events, logs, errors) is what is under test, and none of it is used
to build the truth; the replay is checked against the seats' own views as it goes, so a replay
that drifted from the server fails loudly instead of scanning against a wrong truth.

"Hidden from seat *s* at a moment" means: a card in another seat's hand (a dropped Hachi-Hachi
hand set aside included) or in the stock (not yet drawn), except the cards the rules show to every
seat while they stay there (a declared teyaku's exposed cards, a Koi-Koi hand deal check's cards).
A spectator (seat None) may see no hand at all. A message **reveals** a card when the card is
hidden from its receiver and appears in any ``Card`` field of the message, or its code or enum
name appears in the text of an error or a server log line.

Events are judged at the moment they describe, not when they are read: the events of version *v*
(as a move's answer, a watch item or in a log read much later) are split at each ``RoundDealt``
into deal segments, each checked against what was hidden during that deal:

* before the move's first deal (or the whole move when it dealt nothing): the cards hidden both
  before and after the move when the deal stayed the same; otherwise the cards hidden before the
  move less the card it played and the top stock card a play draws;
* a deal the move made and left at once (a redeal, or a deal check that ended the round): every
  card but the receiver's dealt hand and the field (the other hands and the stock);
* the deal in force after the move: the cards hidden after the move.

A view is checked against the cards hidden at its version, its ``last_result`` aside: that is the
``RoundEnded`` result of an earlier deal, which the events of their own versions carry and where
they are checked.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import Message
from hanafuda.v1 import events_pb2, game_pb2, moves_pb2, rules_pb2, service_pb2

from hanafuda_referee.cards import Card, cards_of
from hanafuda_referee.hachihachi import events as hachi_events
from hanafuda_referee.hachihachi import game as hachi_game
from hanafuda_referee.hosting.convert import deal_from_proto
from hanafuda_referee.hosting.hachihachi import HACHI_HACHI
from hanafuda_referee.hosting.koikoi import KOI_KOI
from hanafuda_referee.koikoi import events as koikoi_events
from hanafuda_referee.koikoi import game as koikoi_game
from hanafuda_referee.moves import Move, MoveKind

__all__ = [
    "ALL_CARDS",
    "GameTruth",
    "Leak",
    "cards_in",
    "cards_named_in",
    "leaks_in_events",
    "leaks_in_text",
    "leaks_in_view",
]

ALL_CARDS = frozenset(range(1, 49))
_CARD_ENUM = "hanafuda.v1.Card"
# A card's code (`pine-plain-1`) or enum name (`CARD_PINE_PLAIN_1`) standing alone in a text.
_CARD_WORDS: Mapping[str, int] = {
    **{card.code: int(card) for card in Card},
    **{f"CARD_{card.name}": int(card) for card in Card},
}
_CARD_PATTERN = re.compile(
    r"(?<![A-Za-z0-9_-])("
    + "|".join(re.escape(w) for w in sorted(_CARD_WORDS, key=len, reverse=True))
    + r")(?![A-Za-z0-9_-])"
)


def cards_in(message: Message, skip: Sequence[str] = ()) -> set[int]:
    """Every card any ``Card`` field of ``message`` holds, recursively (top-level fields named
    in ``skip`` left out)."""
    found: set[int] = set()
    for field, value in message.ListFields():
        if field.name in skip:
            continue
        values = value if field.is_repeated else [value]
        for item in values:
            if field.message_type is not None:
                found |= cards_in(item)
            elif field.enum_type is not None and field.enum_type.full_name == _CARD_ENUM:
                found.add(int(item))
    found.discard(0)
    return found


def cards_named_in(text: str) -> set[int]:
    """The cards whose code or enum name stands in ``text``."""
    return {_CARD_WORDS[word] for word in _CARD_PATTERN.findall(text)}


def _mask(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _set(mask: int) -> frozenset[int]:
    return frozenset(int(c) for c in cards_of(mask))


@dataclass(frozen=True)
class Leak:
    """Cards a message showed its receiver while they were hidden from it."""

    where: str
    seat: int | None
    version: int
    cards: frozenset[int]

    def __str__(self) -> str:
        codes = ", ".join(Card(c).code for c in sorted(self.cards))
        return f"{self.where} showed seat {self.seat} at version {self.version}: {codes}"


@dataclass(frozen=True)
class _Step:
    """One version of the game as the engine made it."""

    move: Move | None
    before: Any
    after: Any
    events: tuple[Any, ...]


class GameTruth:
    """The replay of one game: every engine state and event, by contract version."""

    def __init__(self, request: service_pb2.CreateGameRequest) -> None:
        assert request.HasField("seed"), "the truth needs the game's seed"
        self.kind = request.kind
        deals = [deal_from_proto(d, i) for i, d in enumerate(request.prepared_deals)]
        first = request.first_dealer if request.HasField("first_dealer") else None
        state: Any
        events: Sequence[Any]
        if request.kind == rules_pb2.GAME_KIND_KOI_KOI:
            rules = KOI_KOI.rules_of(request)
            state, events = koikoi_game.new_game(rules, request.seed, deals, first)
        else:
            hachi_rules = HACHI_HACHI.rules_of(request)
            state, events = hachi_game.new_game(
                hachi_rules, request.seed, len(request.players), deals, first
            )
        self.steps: dict[int, _Step] = {1: _Step(None, None, state, tuple(events))}
        self.version = 1

    @property
    def state(self) -> Any:
        """The engine state at the current version."""
        return self.steps[self.version].after

    def apply(self, seat: int, move: moves_pb2.Move) -> None:
        """Replay an accepted move: the next version."""
        engine_move = Move(MoveKind(move.kind), int(move.card), int(move.target))
        engine = koikoi_game if self.kind == rules_pb2.GAME_KIND_KOI_KOI else hachi_game
        after, events = engine.apply(self.state, seat, engine_move)
        self.steps[self.version + 1] = _Step(engine_move, self.state, after, tuple(events))
        self.version += 1

    def hand(self, seat: int, version: int | None = None) -> frozenset[int]:
        """A seat's hand at a version (the current one by default)."""
        state = self.steps[version or self.version].after
        return _set(state.hands[seat])

    def stock(self, version: int | None = None) -> tuple[int, ...]:
        """The stock still to draw, top first."""
        state = self.steps[version or self.version].after
        return tuple(state.stock[state.stock_pos :])

    # -- what is hidden --------------------------------------------------------------------

    def _exposed(self, state: Any) -> int:
        """Cards the rules show everyone while they stay in a hand: declared teyaku."""
        if self.kind != rules_pb2.GAME_KIND_HACHI_HACHI:
            return 0
        mask = 0
        for teyaku in state.teyaku:
            if teyaku is not None:
                mask |= teyaku.exposed
        return mask

    def hidden_in(self, state: Any, seat: int | None) -> frozenset[int]:
        """The cards hidden from ``seat`` (None: a spectator) in an engine state."""
        mask = _mask(state.stock[state.stock_pos :])
        for other, hand in enumerate(state.hands):
            if other != seat:
                mask |= hand
        if self.kind == rules_pb2.GAME_KIND_HACHI_HACHI:
            mask |= state.aside
        return _set(mask & ~self._exposed(state))

    def hidden(self, seat: int | None, version: int | None = None) -> frozenset[int]:
        """The cards hidden from ``seat`` at a version (the current one by default)."""
        return self.hidden_in(self.steps[version or self.version].after, seat)

    def event_segments(self, version: int, seat: int | None) -> list[frozenset[int]]:
        """The hidden cards of each deal segment of a version's events (see the module doc)."""
        step = self.steps[version]
        dealt = [i for i, e in enumerate(step.events) if _is_deal(e)]
        bounds = [0, *dealt, len(step.events)]
        segments: list[frozenset[int]] = []
        for index in range(len(bounds) - 1):
            shown = _mask_shown(step.events[bounds[index] : bounds[index + 1]])
            if index == 0:
                if step.before is None:
                    hidden: frozenset[int] = frozenset()
                elif not dealt:
                    hidden = self.hidden_in(step.before, seat) & self.hidden_in(step.after, seat)
                else:
                    hidden = self.hidden_in(step.before, seat) - _revealed_by(step)
            elif index == len(dealt):
                hidden = self.hidden_in(step.after, seat)
            else:
                deal = step.events[bounds[index]]
                own = deal.hands[seat] if seat is not None else 0
                hidden = ALL_CARDS - _set(own | deal.field)
            segments.append(hidden - _set(shown))
        return segments


def _is_deal(event: object) -> bool:
    return isinstance(event, koikoi_events.RoundDealt | hachi_events.RoundDealt)


def _mask_shown(events: Iterable[object]) -> int:
    """Cards a deal segment's events show to every seat by rule: hand deal checks, teyaku."""
    mask = 0
    for event in events:
        if isinstance(event, koikoi_events.DealCheck):
            mask |= event.cards
        elif isinstance(event, hachi_events.TeyakuDeclared):
            mask |= event.teyaku.exposed
    return mask


def _revealed_by(step: _Step) -> frozenset[int]:
    """What a move that ended its deal made public: the card it played and the card drawn."""
    if step.move is None or step.move.kind != MoveKind.PLAY:
        return frozenset()
    revealed = {step.move.card}
    before = step.before
    if before.stock_pos < len(before.stock):
        revealed.add(before.stock[before.stock_pos])
    return frozenset(revealed)


# --- checks ----------------------------------------------------------------------------------


def leaks_in_view(
    truth: GameTruth, seat: int | None, view: game_pb2.GameView, where: str
) -> list[Leak]:
    """The hidden cards a view shows (none, when the service is right)."""
    shown = cards_in(view, skip=("last_result",)) & truth.hidden(seat, view.version)
    return [Leak(where, seat, view.version, frozenset(shown))] if shown else []


def leaks_in_events(
    truth: GameTruth, seat: int | None, events: Iterable[events_pb2.Event], where: str
) -> list[Leak]:
    """The hidden cards some events show, each judged at its own version and deal segment.
    The events of one version must be all of that version's (as one answer or item holds)."""
    by_version: dict[int, list[events_pb2.Event]] = {}
    for event in events:
        by_version.setdefault(event.version, []).append(event)
    leaks = []
    for version, group in sorted(by_version.items()):
        segments = truth.event_segments(version, seat)
        parts: list[list[events_pb2.Event]] = [[]]
        for event in group:
            if event.WhichOneof("kind") == "round_dealt":
                parts.append([])
            parts[-1].append(event)
        assert len(parts) == len(segments), (
            f"{where}: version {version} has {len(parts) - 1} deals, the engine made "
            f"{len(segments) - 1}"
        )
        for index, part in enumerate(parts):
            shown: set[int] = set()
            for event in part:
                shown |= cards_in(event)
            bad = shown & segments[index]
            if bad:
                leaks.append(Leak(f"{where}, deal segment {index}", seat, version, frozenset(bad)))
    return leaks


def leaks_in_text(
    truth: GameTruth,
    seat: int | None,
    text: str,
    where: str,
    *,
    named: Iterable[int] = (),
    version: int | None = None,
) -> list[Leak]:
    """The hidden cards a text (an error, a log line) names, other than those the receiver
    named in its own request (``named``)."""
    shown = (cards_named_in(text) - set(named)) & truth.hidden(seat, version)
    at = version or truth.version
    return [Leak(where, seat, at, frozenset(shown))] if shown else []


def words_in_records(records: Iterable[Mapping[str, Any]], words: Iterable[str]) -> list[str]:
    """The log records (as JSON text) that hold any card's code or enum name, or any of
    ``words`` (tokens)."""
    needles = [w for w in words if w]
    found = []
    for record in records:
        text = json.dumps(record, ensure_ascii=False)
        if cards_named_in(text) or any(n in text for n in needles):
            found.append(text)
    return found
