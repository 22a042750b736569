"""The benchmark's reference requests: never served by the console script, served on both
transports by the benchmark's own entry point, and the write is one real, short-lived key under
the prefix.

Real processes for the served or not (as the benchmark starts its server); an in-process app and
gRPC server for the store-down answers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import httpx
import pytest
import pytest_asyncio
import redis
from litestar.testing import AsyncTestClient
from tests.benchmarks.reference_requests import (
    COMMAND,
    NOOP_METHOD,
    NOOP_PATH,
    WRITE_METHOD,
    WRITE_PATH,
    grpc_handler,
    http_handlers,
)
from tests.service.conftest import REDIS_URL
from tests.store.servers import free_port
from tests.system.processes import RefereeProcess
from tests.system.shared_redis import owned_prefix

from hanafuda_referee.grpc.server import GrpcServer
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.http.app import create_app
from hanafuda_referee.store import RedisStore, StoreSettings
from hanafuda_referee.store.keys import KeySpace

#: The reference write's key lives this long (RedisStore's _PROBE_TTL_MS).
PROBE_TTL_MS = 10_000


def _grpc_call(target: str, method: str) -> bytes:
    with grpc.insecure_channel(target) as channel:
        call: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(method)
        return call(b"", timeout=10)


def _grpc_code(target: str, method: str) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as raised:
        _grpc_call(target, method)
    code: grpc.StatusCode = raised.value.code()
    return code


@pytest.fixture
def shared_prefix() -> Iterator[str]:
    """A key prefix of this test's own on the shared Redis, emptied afterwards."""
    with owned_prefix() as prefix:
        yield prefix


def test_the_console_script_serves_none_of_them(tmp_path: Path) -> None:
    with RefereeProcess(tmp_path) as process:
        assert httpx.get(process.http_url + NOOP_PATH, timeout=10).status_code == 404
        assert httpx.post(process.http_url + WRITE_PATH, timeout=10).status_code == 404
        assert _grpc_code(process.grpc_target, NOOP_METHOD) == grpc.StatusCode.UNIMPLEMENTED
        assert _grpc_code(process.grpc_target, WRITE_METHOD) == grpc.StatusCode.UNIMPLEMENTED


def test_the_benchmark_server_answers_them_and_the_write_sets_one_key_with_a_ttl(
    tmp_path: Path, shared_prefix: str
) -> None:
    # No embedded bot workers: their consumer creates the bot queue's streams when it first
    # waits for a turn, and this test counts every key written under its prefix.
    env = {
        "REDIS_URL": REDIS_URL,
        "HANAFUDA_KEY_PREFIX": shared_prefix,
        "HANAFUDA_BOT_WORKERS": "0",
    }
    raw = redis.Redis.from_url(REDIS_URL)
    probe_key = (shared_prefix + "probe").encode()
    try:
        with RefereeProcess(tmp_path, env=env, command=COMMAND) as process:
            noop = httpx.get(process.http_url + NOOP_PATH, timeout=10)
            assert (noop.status_code, noop.content) == (204, b"")
            assert _grpc_call(process.grpc_target, NOOP_METHOD) == b""
            assert list(raw.scan_iter(match=f"{shared_prefix}*")) == []  # no-ops write nothing

            write = httpx.post(process.http_url + WRITE_PATH, timeout=10)
            assert (write.status_code, write.content) == (204, b"")
            assert list(raw.scan_iter(match=f"{shared_prefix}*")) == [probe_key]
            assert 0 < raw.pttl(probe_key) <= PROBE_TTL_MS

            raw.delete(probe_key)
            assert _grpc_call(process.grpc_target, WRITE_METHOD) == b""
            assert list(raw.scan_iter(match=f"{shared_prefix}*")) == [probe_key]
            assert 0 < raw.pttl(probe_key) <= PROBE_TTL_MS
            # Not a game: the pattern the active games gauge counts does not match it.
            assert list(raw.scan_iter(match=KeySpace(shared_prefix).game_pattern())) == []
    finally:
        raw.close()


@pytest_asyncio.fixture
async def dead_store() -> AsyncIterator[RedisStore]:
    """A Redis store whose server does not exist: every operation fails fast."""
    settings = StoreSettings(connect_timeout=0.2, socket_timeout=0.5, operation_timeout=1.0)
    store = RedisStore.connect(f"redis://127.0.0.1:{free_port()}/0", settings)
    yield store
    await store.close()


async def test_the_write_answers_unavailable_when_the_store_is_down(
    dead_store: RedisStore,
) -> None:
    referee = Referee(dead_store)
    app = create_app(referee)
    for handler in http_handlers(dead_store):
        app.register(handler)
    async with AsyncTestClient(app) as client:
        assert (await client.get(NOOP_PATH)).status_code == 204
        refused = await client.post(WRITE_PATH)
        assert refused.status_code == 503
        assert "UNAVAILABLE" in refused.text

    server = GrpcServer(
        referee, host="127.0.0.1", port=0, extra_handlers=(grpc_handler(dead_store),)
    )
    port = await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            noop: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(NOOP_METHOD)
            write: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
                WRITE_METHOD
            )
            assert await noop(b"", timeout=10) == b""
            with pytest.raises(grpc.aio.AioRpcError) as raised:
                await write(b"", timeout=10)
            assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
    finally:
        await server.stop(0)
