"""Creation request ids (PLAY.md): a creation retried with its request id answers the first
outcome, on both transports and across replicas, without creating or counting anything more.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from hanafuda.v1 import rules_pb2, service_pb2

from .clients import TRANSPORTS, connect, open_client, refusal_of
from .conftest import own_referee
from .playing import move
from .processes import RefereeProcess


def _request(request_id: str, **fields: str) -> service_pb2.CreateGameRequest:
    return service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI,
        players=[fields.get("first", "a"), "b"],
        request_id=request_id,
    )


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_retried_creation_answers_the_first_game_and_tokens(
    module_referee: RefereeProcess, transport: str
) -> None:
    async with open_client(transport, module_referee) as client:
        request_id = str(uuid.uuid4())
        first = await client.create(_request(request_id))
        again = await client.create(_request(request_id))
        assert again.game == first.game
        assert list(again.player_tokens) == list(first.player_tokens)
        assert again.view == first.view
        # The tokens work, and a retry after a move shows the game as it is now.
        seat = first.view.turn
        own = await client.view(first.game, first.player_tokens[seat])
        await client.submit(first.game, own.legal_moves[0], first.player_tokens[seat])
        later = await client.create(_request(request_id))
        assert later.game == first.game and later.view.version == first.view.version + 1

        reused = await refusal_of(client.create(_request(request_id, first="z")))
        assert reused.reason == "REQUEST_ID_REUSED"
        other = await client.create(_request(str(uuid.uuid4())))
        assert other.game != first.game


async def test_the_id_is_the_clients_own(tmp_path: Path) -> None:
    """Another client (another API key) with the same id gets a game of its own."""
    with own_referee(tmp_path) as one:
        async with open_client("http", one) as client:
            request_id = str(uuid.uuid4())
            mine = await client.create(_request(request_id), api_key="key-one")
            theirs = await client.create(_request(request_id), api_key="key-two")
            assert mine.game != theirs.game
            assert list(mine.player_tokens) != list(theirs.player_tokens)


async def test_racing_retries_over_two_replicas_get_one_game(
    referee_pair: tuple[RefereeProcess, RefereeProcess],
) -> None:
    async with connect(*referee_pair) as clients:
        request_id = str(uuid.uuid4())
        answers = await asyncio.gather(*(c.create(_request(request_id)) for c in clients * 2))
    assert len({a.game for a in answers}) == 1
    assert len({tuple(a.player_tokens) for a in answers}) == 1


async def test_a_retry_takes_nothing_from_the_creation_limit(tmp_path: Path) -> None:
    env = {"HANAFUDA_CREATE_RATE": "1", "HANAFUDA_CREATE_BURST": "2"}
    with own_referee(tmp_path, env=env) as referee:
        async with open_client("grpc", referee) as client:
            request_id = str(uuid.uuid4())
            first = await client.create(_request(request_id))
            for _ in range(5):
                assert (await client.create(_request(request_id))).game == first.game
            await client.create(_request(""))  # the second token of the bucket
            limited = await refusal_of(client.create(_request("")))
            assert limited.reason == "RATE_LIMITED"
            # Still answered: a retry is not a creation.
            assert (await client.create(_request(request_id))).game == first.game
            game = first.game
            resigned = await client.submit(game, move(9), first.player_tokens[0])
            assert resigned.view.game_result.resigned == 0
