"""Waiting for one's turn (``wait_seconds`` on ``GetGame`` and ``SubmitMove``) through the hosting
layer on the in-process store: a wait ends when the seat is to act again, when the game is over,
at its time limit or at shutdown; a spectator's ends when the game moves on; a waiting move's
answer carries what the opponent did meanwhile; waits are capped per client and refused before
the move when over the cap."""

from __future__ import annotations

import asyncio
import time

import pytest
from hanafuda.v1 import game_pb2, play_pb2, rules_pb2, service_pb2

from hanafuda_referee.botworkers.deciding import decide_turn
from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.hosting.bot_turns import BotDecision
from hanafuda_referee.hosting.games import HostedGames
from hanafuda_referee.moves import Move
from hanafuda_referee.store import MemoryStore

from .conftest import SPECTATOR, seat


def _against_greedy() -> service_pb2.CreateGameRequest:
    """Seat 0 a person who deals first, seat 1 a greedy bot."""
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI,
        players=["ann", "bot"],
        bots=[play_pb2.BOT_LEVEL_UNSPECIFIED, play_pb2.BOT_LEVEL_GREEDY],
        seed=11,
        first_dealer=0,
    )
    request.koi_koi.rounds = 1
    return request


def _two_people() -> service_pb2.CreateGameRequest:
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI, players=["ann", "bob"], seed=5, first_dealer=0
    )
    request.koi_koi.rounds = 1
    return request


async def _decided(decision: BotDecision) -> Move:
    return decide_turn(decision)[0]


async def _worker(store: MemoryStore, games: HostedGames, delay: float = 0.05) -> None:
    """A bot worker of the test: plays every queued turn after ``delay`` seconds."""
    while True:
        for turn in await store.take_bot_turns("test-worker", 4, 200, 5_000):
            await asyncio.sleep(delay)
            await games.play_bot_turn(turn.game_id, turn.version, _decided)
            await store.finish_bot_turn(turn)


async def test_a_move_that_waits_answers_with_the_bots_reply_and_the_seats_next_turn() -> None:
    store = MemoryStore()
    games = HostedGames(store, allow_testing=True)
    created = await games.create(_against_greedy(), SPECTATOR)
    ann = seat(created.player_tokens[0])
    worker = asyncio.create_task(_worker(store, games))
    try:
        view = (await games.get(service_pb2.GetGameRequest(game=created.game), ann)).message().view
        assert view.turn == 0
        move = view.legal_moves[0]
        plain = await games.submit(
            service_pb2.SubmitMoveRequest(
                game=created.game, move=move, expected_version=view.version
            ),
            ann,
        )
        # Without a wait the answer is the move's own, the bot still to think.
        assert plain.message().view.turn == 1
        assert plain.message().view.bot_thinking_seat == 1
        # A read that waits answers once the bot has moved and ann is to act again.
        waited = (
            (await games.get(service_pb2.GetGameRequest(game=created.game, wait_seconds=5), ann))
            .message()
            .view
        )
        assert waited.turn == 0 or waited.status == game_pb2.GAME_STATUS_OVER
        assert waited.version > plain.message().version

        move = waited.legal_moves[0]
        answer = (
            await games.submit(
                service_pb2.SubmitMoveRequest(
                    game=created.game, move=move, expected_version=waited.version, wait_seconds=5
                ),
                ann,
            )
        ).message()
        # The answer runs on through the bot's reply: its events and the latest view.
        actors = {e.actor for e in answer.events if e.HasField("actor")}
        assert 1 in actors, "the bot's moves are in the waited answer"
        assert answer.version == answer.view.version
        assert answer.view.turn == 0 or answer.view.status == game_pb2.GAME_STATUS_OVER
        assert not answer.view.HasField("bot_thinking_seat")
        # What ann's own log shows of those versions, no more (hidden information).
        log = await games.log(service_pb2.GetGameLogRequest(game=created.game), ann)
        shown = [e for e in log.events if e.version > waited.version]
        assert list(answer.events) == shown
    finally:
        worker.cancel()


async def test_a_read_waits_no_longer_than_asked() -> None:
    games = HostedGames(MemoryStore(), allow_testing=True)
    created = await games.create(_two_people(), SPECTATOR)
    bob = seat(created.player_tokens[1])  # not to act, and nobody moves
    started = time.monotonic()
    reply = await games.get(service_pb2.GetGameRequest(game=created.game, wait_seconds=1), bob)
    assert 0.9 <= time.monotonic() - started < 3
    assert reply.message().view.version == created.view.version


async def test_a_seat_to_act_is_answered_at_once() -> None:
    games = HostedGames(MemoryStore(), allow_testing=True)
    created = await games.create(_two_people(), SPECTATOR)
    ann = seat(created.player_tokens[0])
    started = time.monotonic()
    await games.get(service_pb2.GetGameRequest(game=created.game, wait_seconds=30), ann)
    assert time.monotonic() - started < 0.5


async def test_a_spectator_waits_for_the_next_version_and_shutdown_ends_every_wait() -> None:
    games = HostedGames(MemoryStore(), allow_testing=True)
    created = await games.create(_two_people(), SPECTATOR)
    ann = seat(created.player_tokens[0])
    watching = asyncio.create_task(
        games.get(service_pb2.GetGameRequest(game=created.game, wait_seconds=10), SPECTATOR)
    )
    await asyncio.sleep(0.1)
    view = (await games.get(service_pb2.GetGameRequest(game=created.game), ann)).message().view
    await games.submit(
        service_pb2.SubmitMoveRequest(
            game=created.game, move=view.legal_moves[0], expected_version=view.version
        ),
        ann,
    )
    seen = (await asyncio.wait_for(watching, 2)).message().view
    assert seen.version == view.version + 1

    bob = seat(created.player_tokens[1])
    if seen.turn == 1:  # bob is to act: ann waits instead
        bob = ann
    waiting = asyncio.create_task(
        games.get(service_pb2.GetGameRequest(game=created.game, wait_seconds=30), bob)
    )
    await asyncio.sleep(0.1)
    games.shut_down()
    await asyncio.wait_for(waiting, 1)


async def test_wait_values_above_thirty_seconds_are_refused() -> None:
    games = HostedGames(MemoryStore(), allow_testing=True)
    created = await games.create(_two_people(), SPECTATOR)
    with pytest.raises(ApiError) as refused:
        await games.get(service_pb2.GetGameRequest(game=created.game, wait_seconds=31), SPECTATOR)
    assert refused.value.reason == "INVALID_ARGUMENT"


async def test_waits_are_capped_per_client_and_a_move_over_the_cap_is_not_played() -> None:
    games = HostedGames(MemoryStore(), allow_testing=True, waits_per_client=1)
    created = await games.create(_two_people(), SPECTATOR)
    bob = Caller(token=created.player_tokens[1], transport="test", address="192.0.2.9")
    ann = Caller(token=created.player_tokens[0], transport="test", address="192.0.2.9")
    held = asyncio.create_task(
        games.get(service_pb2.GetGameRequest(game=created.game, wait_seconds=5), bob)
    )
    await asyncio.sleep(0.1)
    view = (await games.get(service_pb2.GetGameRequest(game=created.game), ann)).message().view
    with pytest.raises(ApiError) as refused:
        await games.submit(
            service_pb2.SubmitMoveRequest(
                game=created.game,
                move=view.legal_moves[0],
                expected_version=view.version,
                wait_seconds=5,
            ),
            ann,
        )
    assert (refused.value.reason, refused.value.metadata["limit"]) == (
        "UNAVAILABLE",
        "waits_per_client",
    )
    after = (await games.get(service_pb2.GetGameRequest(game=created.game), ann)).message()
    assert after.view.version == view.version  # the refused move changed nothing
    games.shut_down()
    await held
