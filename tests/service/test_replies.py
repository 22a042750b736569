"""Answers written without their message are the message written, byte for byte.

``SubmitMove`` and ``GetGame`` answer with a reply
(:class:`~hanafuda_referee.hosting.games.MoveReply`) that composes its JSON text (HTTP) from
parts kept between moves, or builds its message (gRPC) from the same parts. Complete random games
of both kinds under every preset check every answer, as each seat and as a spectator, retries
included, against ``json_format``'s text of the message.
"""

from __future__ import annotations

import json
import random

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp
from hanafuda.v1 import game_pb2, rules_pb2, service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.store import MemoryStore
from hanafuda_referee.writers.forms import JSON, MESSAGE


def reference(message: Message) -> str:
    """The HTTP transport's definition of a message's JSON."""
    document = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


async def test_every_answer_of_random_games_is_written_as_its_message() -> None:
    referee = Referee(MemoryStore(), allow_testing=True)
    presets = await referee.ListPresets(service_pb2.ListPresetsRequest(), Caller())
    rng = random.Random(2026)
    seen: set[str] = set()
    answers = 0
    names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"]
    # Every preset with its game's players, and Hachi-Hachi with 4 to 6 participants (drops).
    games = [
        (p.kind, p.name, names[: 2 if p.kind == rules_pb2.GAME_KIND_KOI_KOI else 3])
        for p in presets.presets
    ]
    games += [(rules_pb2.GAME_KIND_HACHI_HACHI, "", names[:count]) for count in (4, 5, 6)]
    for index, (kind, preset, players) in enumerate(games):
        created = await referee.CreateGame(
            service_pb2.CreateGameRequest(kind=kind, preset=preset, players=players, seed=index),
            Caller(),
        )
        tokens = list(created.player_tokens)
        callers = [Caller(), *(Caller(token=t) for t in tokens)]
        view = created.view
        while view.status != game_pb2.GAME_STATUS_OVER:
            request = service_pb2.GetGameRequest(game=created.game)
            for caller in callers:
                got = await referee.GetGameReply(request, caller)
                assert got.written(JSON) == reference(got.message())
            mover = Caller(token=tokens[view.turn])
            legal = (await referee.GetGameReply(request, mover)).message().view.legal_moves
            submit = service_pb2.SubmitMoveRequest(
                game=created.game, move=rng.choice(list(legal)), request_id=f"r{view.version}"
            )
            reply = await referee.SubmitMoveReply(submit, mover)
            message = reply.message()
            text = reply.written(JSON)
            assert text == reference(message)
            # A retry is answered from the log: the same text.
            assert (await referee.SubmitMoveReply(submit, mover)).written(JSON) == text
            seen.update(event.WhichOneof("kind") or "" for event in message.events)
            seen.add(game_pb2.WaitingFor.Name(message.view.waiting.kind))
            view = message.view
            answers += 1
    assert answers > 1000
    # The games went through the rare shapes too.
    assert {"WAITING_FOR_TARGET_CHOICE", "WAITING_FOR_KOIKOI_DECISION"} <= seen
    assert {"round_ended", "game_ended", "yaku_formed", "koikoi_called"} <= seen
    assert {"WAITING_FOR_JOIN_DECISION", "WAITING_FOR_SAGE_DECISION"} <= seen
    assert {"participation_decided", "teyaku_declared", "dekiyaku_formed", "sage_called"} <= seen


@pytest.mark.parametrize(
    ("seconds", "nanos"),
    [(0, 0), (1_790_000_000, 250_000_000), (1_790_000_001, 1_000), (-1, 999_999_999), (5, 7)],
)
def test_a_timestamp_is_written_as_its_message_in_every_form(seconds: int, nanos: int) -> None:
    stamp = Timestamp(seconds=seconds, nanos=nanos)
    for form in (JSON, MESSAGE):
        assert form.timestamp(seconds, nanos) == form.message(stamp)


def test_a_timestamp_out_of_range_is_refused_as_its_message_is() -> None:
    with pytest.raises(ValueError, match="Timestamp is not valid"):
        JSON.timestamp(10**12, 0)
