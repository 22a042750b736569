"""The Python client package (``clients/python/hanafuda_client``), sync and async, against real
referee processes: whole games of both kinds, refusals with their reason, request ids and the
retry of ``UNAVAILABLE`` after the server did the work, and a watch that resumes after its
connection was cut, missing nothing and repeating nothing."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from hanafuda.v1 import errors_pb2, game_pb2, play_pb2, rules_pb2, service_pb2
from hanafuda_client import (
    AsyncRefereeClient,
    RefereeClient,
    RefereeError,
    RetryPolicy,
    new_request_id,
)

from .conftest import redis_env
from .processes import RefereeProcess
from .proxy import FaultyProxy

KINDS = ["koikoi", "hachihachi"]
#: Seconds a whole game or a watch may take on a loaded machine.
GAME_TIMEOUT = 120.0


def _creation(kind: str, seed: int = 3) -> service_pb2.CreateGameRequest:
    """A seeded game of one round."""
    if kind == "koikoi":
        return service_pb2.CreateGameRequest(
            kind=rules_pb2.GAME_KIND_KOI_KOI,
            players=["ann", "bob"],
            koi_koi=rules_pb2.KoiKoiRules(rounds=1),
            seed=seed,
        )
    return service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_HACHI_HACHI,
        players=["ann", "bob", "cy"],
        hachi_hachi=rules_pb2.HachiHachiRules(rounds=1),
        seed=seed,
    )


def _play_sync(
    client: RefereeClient, game: str, tokens: list[str], moves: int | None = None
) -> game_pb2.GameView:
    """The seat on turn plays its first legal move, ``moves`` times or to the game's end; each
    answer is the next version. Returns the last spectator's view."""
    view = client.get_game(game)
    played = 0
    while view.status == game_pb2.GAME_STATUS_IN_PROGRESS and (moves is None or played < moves):
        token = tokens[view.turn]
        own = client.get_game(game, token)
        answer = client.submit_move(game, own.legal_moves[0], token, expected_version=own.version)
        assert answer.version == own.version + 1 == answer.view.version
        view = client.get_game(game)
        assert view.version == answer.version
        played += 1
    return view


async def _play_async(
    client: AsyncRefereeClient, game: str, tokens: list[str], moves: int | None = None
) -> game_pb2.GameView:
    """As :func:`_play_sync`, awaited."""
    view = await client.get_game(game)
    played = 0
    while view.status == game_pb2.GAME_STATUS_IN_PROGRESS and (moves is None or played < moves):
        token = tokens[view.turn]
        own = await client.get_game(game, token)
        answer = await client.submit_move(
            game, own.legal_moves[0], token, expected_version=own.version
        )
        assert answer.version == own.version + 1 == answer.view.version
        view = await client.get_game(game)
        played += 1
    return view


def _log_lines(
    process: RefereeProcess, method: str, game: str, count: int
) -> list[dict[str, object]]:
    """The server's request log lines of ``method`` on ``game``, once there are ``count`` (a
    line is written when its request ends, and may be buffered a moment)."""
    deadline = time.monotonic() + 10
    while True:
        lines = [
            r for r in process.log_records() if r.get("method") == method and r.get("game") == game
        ]
        if len(lines) >= count or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


# Whole games --------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_the_sync_client_plays_a_whole_game(module_referee: RefereeProcess, kind: str) -> None:
    with RefereeClient(module_referee.grpc_target) as client:
        created = client.create_game(_creation(kind))
        assert len(created.player_tokens) == (2 if kind == "koikoi" else 3)
        final = _play_sync(client, created.game, list(created.player_tokens))
        assert final.status == game_pb2.GAME_STATUS_OVER
        assert final.HasField("game_result")
        # A finished game refuses any move, with its reason.
        with pytest.raises(RefereeError) as refused:
            client.resign(created.game, created.player_tokens[0])
        assert refused.value.reason == "GAME_OVER"
        assert refused.value.known_reason == errors_pb2.REASON_GAME_OVER
        assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize("kind", KINDS)
async def test_the_async_client_plays_a_whole_game(
    module_referee: RefereeProcess, kind: str
) -> None:
    async with AsyncRefereeClient(module_referee.grpc_target) as client:
        created = await client.create_game(_creation(kind, seed=5))
        tokens = list(created.player_tokens)
        watched = asyncio.create_task(_collect(client.watch_game(created.game, from_version=0)))
        final = await _play_async(client, created.game, tokens)
        assert final.status == game_pb2.GAME_STATUS_OVER
        items = await asyncio.wait_for(watched, GAME_TIMEOUT)
        # The watch from version 0 saw every version, once, and ended with the game.
        assert [item.version for item in items] == list(range(1, final.version + 1))
        assert items[-1].view == final


@pytest.mark.parametrize("kind", KINDS)
def test_the_sync_client_asks_for_a_hint_and_a_review(
    module_referee: RefereeProcess, kind: str
) -> None:
    with RefereeClient(module_referee.grpc_target) as client:
        created = client.create_game(_creation(kind, seed=8))
        tokens = list(created.player_tokens)
        view = client.get_game(created.game, tokens[0])
        actor = view.turn
        seen = client.get_game(created.game, tokens[actor])
        hint = client.get_hint(created.game, tokens[actor], wait_seconds=20)
        assert hint.status == play_pb2.ADVICE_STATUS_READY and hint.version == seen.version
        assert hint.move in seen.legal_moves
        with pytest.raises(RefereeError) as refused:
            client.review_game(created.game, tokens[actor])
        assert refused.value.reason == "GAME_NOT_OVER"
        client.resign(created.game, tokens[actor])
        review = client.review_game(created.game, tokens[actor], wait_seconds=20)
        assert review.status == play_pb2.ADVICE_STATUS_READY and review.decisions == 0


async def test_the_async_client_asks_for_a_hint(module_referee: RefereeProcess) -> None:
    async with AsyncRefereeClient(module_referee.grpc_target) as client:
        created = await client.create_game(_creation("koikoi", seed=9))
        tokens = list(created.player_tokens)
        actor = (await client.get_game(created.game, tokens[0])).turn
        hint = await client.get_hint(created.game, tokens[actor], wait_seconds=20)
        assert hint.status == play_pb2.ADVICE_STATUS_READY
        assert len(hint.candidates) >= 1 and hint.candidates[0].move == hint.move
        with pytest.raises(RefereeError) as refused:
            await client.get_hint(created.game, tokens[1 - actor])
        assert refused.value.reason == "NOT_YOUR_TURN"


async def _collect(
    stream: AsyncIterator[service_pb2.WatchGameResponse],
) -> list[service_pb2.WatchGameResponse]:
    return [item async for item in stream]


def test_refusals_carry_their_reason_and_metadata(module_referee: RefereeProcess) -> None:
    with RefereeClient(module_referee.grpc_target) as client:
        created = client.create_game(_creation("koikoi"))
        view = created.view
        waiting = created.player_tokens[1 - view.turn]
        own = client.get_game(created.game, created.player_tokens[view.turn])
        with pytest.raises(RefereeError) as refused:
            client.submit_move(created.game, own.legal_moves[0], waiting)
        assert refused.value.reason == "NOT_YOUR_TURN"
        assert refused.value.domain == "hanafuda-referee"
        with pytest.raises(RefereeError) as unknown:
            client.get_game("no-such-game")
        assert unknown.value.known_reason == errors_pb2.REASON_UNKNOWN_GAME
        assert unknown.value.code == grpc.StatusCode.NOT_FOUND
        # A resignation is a move like any other, on turn or not.
        resigned = client.resign(created.game, waiting)
        assert resigned.view.status == game_pb2.GAME_STATUS_OVER


def test_a_move_retried_with_its_request_id_is_answered_not_played_again(
    module_referee: RefereeProcess,
) -> None:
    with RefereeClient(module_referee.grpc_target) as client:
        created = client.create_game(_creation("koikoi"))
        token = created.player_tokens[created.view.turn]
        own = client.get_game(created.game, token)
        first = client.submit_move(created.game, own.legal_moves[0], token, request_id="move-1")
        again = client.submit_move(created.game, own.legal_moves[0], token, request_id="move-1")
        assert again == first
        assert client.get_game(created.game).version == first.version
        with pytest.raises(RefereeError) as reused:
            client.resign(created.game, token, request_id="move-1")
        assert reused.value.reason == "REQUEST_ID_REUSED"


# UNAVAILABLE, retried ----------------------------------------------------------------------


@pytest.fixture
def proxy(module_referee: RefereeProcess) -> Iterator[FaultyProxy]:
    with FaultyProxy(module_referee.grpc_port) as faulty:
        yield faulty


def test_a_lost_answer_to_a_move_is_retried_with_the_same_request_id(
    module_referee: RefereeProcess, proxy: FaultyProxy
) -> None:
    """The server plays the move, its answer is lost with the connection: the client sends the
    same request again and gets the first answer; the move is played once."""
    with RefereeClient(proxy.target) as client:
        created = client.create_game(_creation("koikoi"))
        token = created.player_tokens[created.view.turn]
        own = client.get_game(created.game, token)
        proxy.drop_next_answer()
        answer = client.submit_move(
            created.game, own.legal_moves[0], token, expected_version=own.version
        )
        assert proxy.dropped == 1 and proxy.accepted >= 2
        assert answer.version == own.version + 1
        assert client.get_game(created.game).version == answer.version
        # The server saw the move twice, and accepted it both times: the second time, it
        # answered the first outcome (without the id, it would have refused a stale version).
        lines = _log_lines(module_referee, "SubmitMove", created.game, 2)
        assert [line["outcome"] for line in lines] == ["ok", "ok"], lines


async def test_a_lost_answer_to_a_creation_is_retried_with_the_same_request_id(
    module_referee: RefereeProcess, proxy: FaultyProxy
) -> None:
    async with AsyncRefereeClient(proxy.target) as client:
        # A first call opens the connection: what the proxy lets through next is the request,
        # not the connection's preface.
        await client.create_game(_creation("koikoi"))
        proxy.drop_next_answer()
        request_id = new_request_id()
        created = await client.create_game(_creation("koikoi"), request_id=request_id)
        assert proxy.dropped == 1
        # The server answered twice with this game: the lost answer, and the retry's.
        lines = _log_lines(module_referee, "CreateGame", created.game, 2)
        assert [line["outcome"] for line in lines] == ["ok", "ok"], lines
        # The same id once more: the same game and tokens, so the retry created nothing.
        again = await client.create_game(_creation("koikoi"), request_id=request_id)
        assert again.game == created.game
        assert again.player_tokens == created.player_tokens


def test_unavailable_is_retried_a_bounded_number_of_times() -> None:
    """Nothing listens: the call fails after the policy's attempts, with UNAVAILABLE."""
    with socket_nobody_listens() as target:
        policy = RetryPolicy(attempts=3, initial_backoff=0.05, jitter=0)
        with RefereeClient(target, retry=policy, timeout=5) as client:
            started = time.monotonic()
            with pytest.raises(RefereeError) as failed:
                client.get_game("g")
            assert failed.value.code == grpc.StatusCode.UNAVAILABLE
            assert failed.value.reason == ""
            assert time.monotonic() - started >= 0.05 + 0.1


@contextmanager
def socket_nobody_listens() -> Iterator[str]:
    """A loopback address nothing listens on (a port bound but not listening)."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield f"127.0.0.1:{bound.getsockname()[1]}"


# Watch, resumed -----------------------------------------------------------------------------


def test_the_sync_watch_resumes_after_a_cut_missing_nothing(
    module_referee: RefereeProcess, proxy: FaultyProxy
) -> None:
    with (
        RefereeClient(module_referee.grpc_target) as player,
        RefereeClient(proxy.target) as spectator,
    ):
        created = player.create_game(_creation("koikoi", seed=11))
        tokens = list(created.player_tokens)
        items: list[service_pb2.WatchGameResponse] = []
        failure: list[BaseException] = []

        def watch() -> None:
            try:
                for item in spectator.watch_game(created.game):
                    items.append(item)
            except BaseException as error:  # reported by the test
                failure.append(error)

        def played(moves: int) -> None:
            """``moves`` moves played, and seen by the watch."""
            seen = len(items)
            _play_sync(player, created.game, tokens, moves=moves)
            deadline = time.monotonic() + GAME_TIMEOUT
            while len(items) < max(seen + moves, 1) and not failure:
                assert time.monotonic() < deadline, (
                    "the watch did not see the moves",
                    [item.version for item in items],
                    player.get_game(created.game).version,
                    proxy.accepted,
                )
                time.sleep(0.01)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        played(0)  # the first item: the view the watch starts from
        for _ in range(3):
            played(2)
            proxy.cut()
        final = _play_sync(player, created.game, tokens)
        watcher.join(GAME_TIMEOUT)
        assert not watcher.is_alive() and not failure, failure
        assert proxy.accepted >= 4
        _assert_whole(player, created.game, items, final)


async def test_the_async_watch_resumes_after_a_cut_missing_nothing(
    module_referee: RefereeProcess, proxy: FaultyProxy
) -> None:
    async with (
        AsyncRefereeClient(module_referee.grpc_target) as player,
        AsyncRefereeClient(proxy.target) as spectator,
    ):
        created = await player.create_game(_creation("hachihachi", seed=11))
        tokens = list(created.player_tokens)
        items: list[service_pb2.WatchGameResponse] = []

        async def watch() -> None:
            async for item in spectator.watch_game(created.game, tokens[0]):
                items.append(item)

        watcher = asyncio.create_task(watch())
        for moves in (0, 2, 2, 2):  # 0: the first item, the view the watch starts from
            seen = len(items)
            await _play_async(player, created.game, tokens, moves=moves)
            async with asyncio.timeout(GAME_TIMEOUT):
                while len(items) < max(seen + moves, 1):
                    if watcher.done():
                        watcher.result()  # its failure, if it failed
                        raise AssertionError("the watch ended before the game")
                    await asyncio.sleep(0.01)
            if moves:
                proxy.cut()
        final = await _play_async(player, created.game, tokens)
        await asyncio.wait_for(watcher, GAME_TIMEOUT)
        assert proxy.accepted >= 4
        with RefereeClient(module_referee.grpc_target) as reader:
            _assert_whole(reader, created.game, items, final, tokens[0])


def _assert_whole(
    client: RefereeClient,
    game: str,
    items: list[service_pb2.WatchGameResponse],
    final: game_pb2.GameView,
    token: str | None = None,
) -> None:
    """``items`` (a watch begun at the game's first view) are every version once, in order, to
    the end: the same items as one unbroken watch of the finished game from the first one."""
    versions = [item.version for item in items]
    assert versions == list(range(versions[0], final.version + 1)), versions
    assert items[-1].view.status == game_pb2.GAME_STATUS_OVER
    unbroken = list(client.watch_game(game, token, from_version=versions[0]))
    assert items[1:] == unbroken


def test_a_watch_refused_is_not_retried(module_referee: RefereeProcess) -> None:
    with RefereeClient(module_referee.grpc_target) as client:
        with pytest.raises(RefereeError) as refused:
            next(iter(client.watch_game("no-such-game")))
        assert refused.value.reason == "UNKNOWN_GAME"


def test_a_watch_resumes_across_a_restart_of_the_referee(tmp_path: Path, key_prefix: str) -> None:
    """The referee stops (its streams end with UNAVAILABLE) and starts again on the same ports
    and Redis: the watch comes back by itself, and misses nothing of the moves played since."""
    retry = RetryPolicy(attempts=30, initial_backoff=0.05, max_backoff=0.5)
    referee = RefereeProcess(tmp_path, env=redis_env(key_prefix))
    with referee, RefereeClient(referee.grpc_target, retry=retry) as client:
        created = client.create_game(_creation("koikoi", seed=13))
        tokens = list(created.player_tokens)
        items: list[service_pb2.WatchGameResponse] = []
        failure: list[BaseException] = []

        def watch() -> None:
            try:
                for item in client.watch_game(created.game, from_version=0):
                    items.append(item)
            except BaseException as error:  # reported by the test
                failure.append(error)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        _play_sync(client, created.game, tokens, moves=3)
        deadline = time.monotonic() + GAME_TIMEOUT
        while len(items) < 4 and not failure:  # the stream is open: versions 1 to 4 came
            assert time.monotonic() < deadline, [item.version for item in items]
            time.sleep(0.01)
        assert referee.stop() == 0
        referee.start()
        final = _play_sync(client, created.game, tokens)
        watcher.join(GAME_TIMEOUT)
        assert not watcher.is_alive() and not failure, failure
        assert [item.version for item in items] == list(range(1, final.version + 1))
        assert items[-1].view == final
