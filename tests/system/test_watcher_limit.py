"""The watcher limit of a real service process (``--max-watchers``): spectators' streams over
it are refused on both transports with the same status, the rest of the API is still served, a
seat's own stream is never refused for spectators, and a watcher that disconnects, or a watch
refused for another reason, gives its slot back.

Also the open-file limit the process raises at start, which bounds watchers in practice.
"""

from __future__ import annotations

import asyncio
import resource
import subprocess
import sys
from collections.abc import AsyncGenerator, Iterator
from contextlib import AsyncExitStack, aclosing
from pathlib import Path

import pytest
from hanafuda.v1 import rules_pb2, service_pb2

from .clients import Client, Refused, connect, expected_status
from .conftest import own_referee
from .processes import RefereeProcess

#: The limit the process runs with.
LIMIT = 2
#: Seconds a test waits for the process to notice a disconnection.
PATIENCE = 10.0


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    with own_referee(
        tmp_path_factory.mktemp("limited"), flags=["--max-watchers", str(LIMIT)]
    ) as process:
        yield process


def _watchers(process: RefereeProcess) -> float:
    """The process's ``hanafuda_watchers`` gauge."""
    return process.metric("hanafuda_watchers")


async def _until_watchers(process: RefereeProcess, count: int) -> None:
    async with asyncio.timeout(PATIENCE):
        while await asyncio.to_thread(_watchers, process) != count:
            await asyncio.sleep(0.05)


async def _opened(
    stack: AsyncExitStack, client: Client, game: str
) -> AsyncGenerator[service_pb2.WatchGameResponse, None]:
    """A watch of ``game`` whose first item has arrived (so the process holds it), closed with
    ``stack``."""
    stream = await stack.enter_async_context(aclosing(client.watch(game)))
    first = await anext(stream)
    assert first.version == 1
    return stream


async def _refused_watch(client: Client, game: str) -> Refused:
    try:
        async with aclosing(client.watch(game)) as stream:
            await anext(stream)
    except Refused as refusal:
        return refusal
    raise AssertionError(f"{client.label}: the watch was accepted")


async def test_watches_over_the_limit_are_refused_and_slots_come_back(
    limited: RefereeProcess,
) -> None:
    async with connect(limited) as (http, grpc_client):
        created = await http.create(
            service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["A", "B"])
        )
        game = created.game
        await _until_watchers(limited, 0)

        async with AsyncExitStack() as first_sse:
            await _opened(first_sse, http, game)
            async with AsyncExitStack() as first_grpc:
                await _opened(first_grpc, grpc_client, game)
                assert _watchers(limited) == LIMIT

                for client in (http, grpc_client):
                    refusal = await _refused_watch(client, game)
                    assert refusal.reason == "UNAVAILABLE", refusal
                    assert refusal.status == expected_status(client.transport, "UNAVAILABLE")
                    assert refusal.metadata == {"limit": "max_watchers"}
                    # Everything but watching is still served.
                    assert (await client.view(game)).version == 1
                assert _watchers(limited) == LIMIT

                # Spectators never lock the players out of their own game's stream.
                async with AsyncExitStack() as seats:
                    clients = (http, grpc_client)
                    for client, token in zip(clients, created.player_tokens, strict=True):
                        own = await seats.enter_async_context(aclosing(client.watch(game, token)))
                        assert (await anext(own)).view.viewer_seat == clients.index(client)
                    assert _watchers(limited) == LIMIT + 2
                await _until_watchers(limited, LIMIT)

            # The gRPC watcher went away (its call cancelled): its slot is free again.
            await _until_watchers(limited, 1)
            async with AsyncExitStack() as second_grpc:
                await _opened(second_grpc, grpc_client, game)
                assert _watchers(limited) == LIMIT
                assert (await _refused_watch(http, game)).reason == "UNAVAILABLE"

        # Both closed (the SSE connection dropped): nothing is held.
        await _until_watchers(limited, 0)

        # Watches refused for another reason hold nothing either.
        for client in (http, grpc_client):
            for _ in range(LIMIT + 1):
                assert (await _refused_watch(client, "no-such-game")).reason == "UNKNOWN_GAME"
        assert _watchers(limited) == 0
        async with AsyncExitStack() as again:
            await _opened(again, http, game)
            await _opened(again, grpc_client, game)
            assert _watchers(limited) == LIMIT


def _limits_after_start(soft: int, hard: int) -> tuple[int | None, tuple[int, int]]:
    """What ``raise_open_file_limit`` returns in a process started with these limits, and the
    limits it then holds."""
    script = (
        "import resource\n"
        "from hanafuda_referee.serving import raise_open_file_limit\n"
        "print(raise_open_file_limit(), *resource.getrlimit(resource.RLIMIT_NOFILE))\n"
    )

    def lower() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    printed = subprocess.run(
        [sys.executable, "-c", script],
        preexec_fn=lower,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout.split()
    returned, *now = printed
    return (None if returned == "None" else int(returned)), (int(now[0]), int(now[1]))


def test_the_soft_open_file_limit_is_raised_to_the_hard_one() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard < 512:
        pytest.skip(f"needs a finite hard limit of some size, not {hard}")
    ceiling = min(hard, 4096)
    assert _limits_after_start(256, ceiling) == (ceiling, (ceiling, ceiling))
    # Already at the hard limit: nothing to do.
    assert _limits_after_start(ceiling, ceiling) == (ceiling, (ceiling, ceiling))


def test_a_watcher_limit_above_the_open_file_limit_is_warned_of(tmp_path: Path) -> None:
    """A process whose watchers could never all connect says so at start."""
    with own_referee(tmp_path, flags=["--max-watchers", "100000000"]) as process:
        records = process.log_records()
    warnings = [r for r in records if r.get("event") == "open-file limit below max watchers"]
    (listening,) = [r for r in records if r.get("event") == "grpc listening"]
    assert len(warnings) == 1
    assert warnings[0]["max_watchers"] == 100_000_000
    assert warnings[0]["open_files"] == listening["open_files"] > 0
