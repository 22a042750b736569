"""Hints and reviews through a real service process and its embedded bot workers, on both
transports: a person playing a bot asks for a hint (answered once a worker searched it, one of
the legal moves), plays it, and reviews the game once it is over."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hanafuda.v1 import game_pb2, play_pb2, rules_pb2, service_pb2

from .clients import TRANSPORTS, open_client
from .conftest import redis_env
from .playing import after_the_bots
from .processes import RefereeProcess

READY = play_pb2.ADVICE_STATUS_READY


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_hint_then_a_review_against_a_bot(
    module_referee: RefereeProcess, transport: str
) -> None:
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI,
        players=["person", "bot"],
        bots=[play_pb2.BOT_LEVEL_UNSPECIFIED, play_pb2.BOT_LEVEL_GREEDY],
    )
    request.koi_koi.rounds = 1
    rng = random.Random(3)
    async with open_client(transport, module_referee) as client:
        created = await client.create(request)
        game, token = created.game, created.player_tokens[0]
        view = await after_the_bots(client, game, token, await client.view(game, token))
        hinted = 0
        while view.status != game_pb2.GAME_STATUS_OVER:
            if hinted < 2:
                hint = await client.hint(game, token, wait_seconds=20)
                assert hint.status == READY and hint.version == view.version
                assert hint.move in view.legal_moves
                assert hint.candidates[0].move == hint.move
                assert len(hint.candidates) == min(5, len(view.legal_moves))
                choice = hint.move
                hinted += 1
            else:
                choice = rng.choice(list(view.legal_moves))
            answer = await client.submit(game, choice, token, expected_version=view.version)
            view = await after_the_bots(client, game, token, answer.view)
        review = await client.review(game, token, wait_seconds=25)
        assert review.status == READY and review.decisions >= 1
        for difference in review.differences:
            assert difference.expert.move != difference.played.move
        # The bot's seat token reviews the bot's own decisions: none (a bot's are not a seat's).
        theirs = await client.review(game, created.player_tokens[1], wait_seconds=25)
        assert theirs.status == READY and theirs.decisions == 0


async def test_a_hint_from_external_workers(tmp_path: Path, key_prefix: str) -> None:
    """A referee that runs no worker of its own: the hint waits in the queue (PENDING) until
    the ``bot-workers`` command serves it."""
    env = redis_env(key_prefix)
    with RefereeProcess(tmp_path, env=env, flags=["--bot-workers", "0"], name="alone") as referee:
        async with open_client("http", referee) as client:
            created = await client.create(
                service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"])
            )
            actor = created.view.turn
            token = created.player_tokens[actor]
            pending = await client.hint(created.game, token, wait_seconds=1)
            assert pending.status == play_pb2.ADVICE_STATUS_PENDING
            with RefereeProcess(tmp_path, env=env, subcommand="bot-workers", name="workers"):
                hint = await client.hint(created.game, token, wait_seconds=25)
            assert hint.status == READY
            assert hint.move in (await client.view(created.game, token)).legal_moves
