"""Checking a hosted game against its replay on a fresh in-process referee.

A game played on the service processes must be exactly what its accepted moves make of it: the
same creation request (same seed or prepared deals) on a :class:`Referee` over the in-memory
store, with the same moves applied in version order, has to end in the same views and the same
log, up to the game id and the events' times. And the service's own log must hold, for every
version, exactly the events the accepted move's answer reported.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from hanafuda.v1 import events_pb2, game_pb2, moves_pb2, service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.store import MemoryStore

from .clients import Client

__all__ = ["Accepted", "assert_log_holds", "assert_replays", "timeless"]


@dataclass(frozen=True, slots=True)
class Accepted:
    """A move the service accepted: who made it, what it was and what the service answered."""

    seat: int
    move: moves_pb2.Move
    answer: service_pb2.SubmitMoveResponse

    @property
    def version(self) -> int:
        """The version the move reached."""
        return self.answer.version


def timeless(events: Sequence[events_pb2.Event]) -> list[events_pb2.Event]:
    """Copies of ``events`` without their recording time (a replay records its own)."""
    out = []
    for event in events:
        copy = events_pb2.Event()
        copy.CopyFrom(event)
        copy.ClearField("time")
        out.append(copy)
    return out


def _anonymous(view: game_pb2.GameView) -> game_pb2.GameView:
    copy = game_pb2.GameView()
    copy.CopyFrom(view)
    copy.game = ""
    return copy


def _caller(token: str | None = None) -> Caller:
    return Caller(token=token, request_id=uuid.uuid4().hex, transport="replay")


async def _viewers(
    client: Client, game: str, tokens: Sequence[str]
) -> list[tuple[game_pb2.GameView, service_pb2.GetGameLogResponse]]:
    """The view and the log of every seat, then of a spectator, through ``client``."""
    out = []
    for token in [*tokens, None]:
        out.append((await client.view(game, token), await client.log(game, token)))
    return out


def assert_log_holds(
    logs: Sequence[service_pb2.GetGameLogResponse], accepted: Sequence[Accepted]
) -> None:
    """Every version of the log (as each seat sees it: ``logs[seat]``) holds exactly the events
    the accepted move reaching it answered with; versions and sequences run without a gap."""
    for log in logs:
        assert [e.sequence for e in log.events] == list(range(len(log.events)))
        versions = sorted({e.version for e in log.events})
        assert versions == list(range(1, len(versions) + 1)), versions
        assert [e.version for e in log.events] == sorted(e.version for e in log.events)
    assert [a.version for a in accepted] == list(range(2, len(accepted) + 2))
    for move in accepted:
        recorded = [e for e in logs[move.seat].events if e.version == move.version]
        assert recorded == list(move.answer.events), move.version
        # The move's own events name its seat as the actor; nothing else moved at that version.
        actors = {e.actor for e in recorded if e.HasField("actor")}
        assert actors == {move.seat}, (move.version, actors)


async def assert_replays(
    client: Client,
    game: str,
    tokens: Sequence[str],
    request: service_pb2.CreateGameRequest,
    accepted: Sequence[Accepted],
) -> None:
    """The game as ``client`` reads it now (every seat's and a spectator's view and log) equals
    the replay of ``accepted`` on a fresh in-process referee; the log holds the answers."""
    served = await _viewers(client, game, tokens)
    assert_log_holds([log for _, log in served[: len(tokens)]], accepted)

    referee = Referee(MemoryStore(), allow_testing=True)
    created = await referee.CreateGame(request, _caller())
    ordered = sorted(accepted, key=lambda a: a.version)
    for move in ordered:
        answer = await referee.SubmitMove(
            service_pb2.SubmitMoveRequest(game=created.game, move=move.move),
            _caller(created.player_tokens[move.seat]),
        )
        assert answer.version == move.version
        assert timeless(answer.events) == timeless(move.answer.events), move.version
        assert _anonymous(answer.view) == _anonymous(move.answer.view), move.version
    for (view, log), token in zip(served, [*created.player_tokens, None], strict=True):
        replayed_view = (
            await referee.GetGame(service_pb2.GetGameRequest(game=created.game), _caller(token))
        ).view
        replayed_log = await referee.GetGameLog(
            service_pb2.GetGameLogRequest(game=created.game), _caller(token)
        )
        assert _anonymous(view) == _anonymous(replayed_view)
        assert timeless(log.events) == timeless(replayed_log.events)
        assert log.HasField("seed") == replayed_log.HasField("seed")
        assert log.seed == replayed_log.seed
        assert list(log.deals) == list(replayed_log.deals)
