"""Answers written as JSON without their message are the message's JSON, byte for byte.

``SubmitMove`` and ``GetGame`` answer the HTTP transport with a reply that writes its JSON from
texts kept between moves (:class:`~hanafuda_referee.api.games.MoveReply`); gRPC gets the
message. Complete random games of both kinds under every preset check every answer, as each
seat and as a spectator, retries included, against ``json_format``'s text of the message.
"""

from __future__ import annotations

import json
import random

from google.protobuf import json_format
from google.protobuf.message import Message
from hanafuda.v1 import game_pb2, service_pb2

from hanafuda_referee.api.caller import Caller
from hanafuda_referee.api.http_app import _MEMOIZED_TYPES
from hanafuda_referee.api.proto_json import JsonWriter
from hanafuda_referee.api.referee import Referee
from hanafuda_referee.store import MemoryStore


def reference(message: Message) -> str:
    """The HTTP transport's definition of a message's JSON."""
    document = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    return json.dumps(document, ensure_ascii=False, separators=(",", ":"))


async def test_every_answer_of_random_games_is_written_as_its_message() -> None:
    referee = Referee(MemoryStore(), allow_testing=True)
    # As the HTTP app writes, with a small memo so that entries are evicted too.
    writer = JsonWriter(memoized=_MEMOIZED_TYPES, memo_size=16)
    presets = await referee.ListPresets(service_pb2.ListPresetsRequest(), Caller())
    rng = random.Random(2026)
    seen: set[str] = set()
    answers = 0
    for index, preset in enumerate(presets.presets):
        players = ["Ann", "Bob", "Cy"][: 2 if preset.kind == 1 else 3]
        created = await referee.CreateGame(
            service_pb2.CreateGameRequest(
                kind=preset.kind, preset=preset.name, players=players, seed=index
            ),
            Caller(),
        )
        tokens = list(created.player_tokens)
        callers = [Caller(), *(Caller(token=t) for t in tokens)]
        view = created.view
        while view.status != game_pb2.GAME_STATUS_OVER:
            request = service_pb2.GetGameRequest(game=created.game)
            for caller in callers:
                got = await referee.GetGameReply(request, caller)
                assert got.json(writer) == reference(got.message())
            mover = Caller(token=tokens[view.turn])
            legal = (await referee.GetGameReply(request, mover)).message().view.legal_moves
            submit = service_pb2.SubmitMoveRequest(
                game=created.game, move=rng.choice(list(legal)), request_id=f"r{view.version}"
            )
            reply = await referee.SubmitMoveReply(submit, mover)
            message = reply.message()
            text = reply.json(writer)
            assert text == reference(message)
            # A retry is answered from the log: the same text.
            assert (await referee.SubmitMoveReply(submit, mover)).json(writer) == text
            seen.update(event.WhichOneof("kind") or "" for event in message.events)
            seen.add(game_pb2.WaitingFor.Name(message.view.waiting.kind))
            view = message.view
            answers += 1
    assert answers > 1000
    # The games went through the rare shapes too.
    assert {"WAITING_FOR_TARGET_CHOICE", "WAITING_FOR_KOIKOI_DECISION"} <= seen
    assert {"round_ended", "game_ended", "yaku_formed", "koikoi_called"} <= seen
