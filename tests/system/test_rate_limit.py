"""The creation limit (PLAY.md, "Limits"): a token bucket per client, shared by every replica
on one Redis, refused with ``RATE_LIMITED`` and the wait, on both transports alike.

Two real processes on the shared Redis under one key prefix; every request comes from
127.0.0.1, so without an API key all of them are one client.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from google.rpc import error_details_pb2, status_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status  # type: ignore[import-untyped]
from hanafuda.v1 import rules_pb2, service_pb2, service_pb2_grpc

from .clients import Refused, open_client
from .conftest import redis_env
from .processes import RefereeProcess

#: Three games at once, then one every 20 s: the tests never wait for a token to come back.
LIMIT = {"HANAFUDA_CREATE_RATE": "3", "HANAFUDA_CREATE_BURST": "3"}
BODY = {"kind": "GAME_KIND_KOI_KOI", "players": ["ann", "bob"]}
REQUEST = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["ann", "bob"])


@pytest.fixture
def limited_pair(
    tmp_path: Path, key_prefix: str
) -> Iterator[tuple[RefereeProcess, RefereeProcess]]:
    env = {**redis_env(key_prefix), **LIMIT}
    with (
        RefereeProcess(tmp_path, env=env, allow_testing=False, name="replica-a") as first,
        RefereeProcess(tmp_path, env=env, allow_testing=False, name="replica-b") as second,
    ):
        yield first, second


def _create_http(process: RefereeProcess, api_key: str | None = None) -> httpx.Response:
    headers = {} if api_key is None else {"x-api-key": api_key}
    return httpx.post(f"{process.http_url}/v1/games", json=BODY, headers=headers, timeout=10)


def _create_grpc(process: RefereeProcess) -> service_pb2.CreateGameResponse:
    with grpc.insecure_channel(process.grpc_target) as channel:
        answer: service_pb2.CreateGameResponse = service_pb2_grpc.RefereeServiceStub(
            channel
        ).CreateGame(REQUEST, timeout=10)
        return answer


def test_the_limit_is_shared_by_replicas_and_says_when_to_retry(
    limited_pair: tuple[RefereeProcess, RefereeProcess],
) -> None:
    a, b = limited_pair
    # The burst, spent across both replicas and both transports.
    assert _create_http(a).status_code == 200
    assert _create_grpc(b).game
    assert _create_http(b).status_code == 200

    refused = _create_http(a)
    assert refused.status_code == 429
    wait = int(refused.headers["retry-after"])
    assert 1 <= wait <= 20
    error = refused.json()["error"]
    assert error["status"] == "RESOURCE_EXHAUSTED"
    (info,) = error["details"]
    assert info["reason"] == "RATE_LIMITED"
    assert int(info["metadata"]["retry_after_seconds"]) == wait

    with pytest.raises(grpc.RpcError) as raised:
        _create_grpc(b)
    call = raised.value
    assert call.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    status: status_pb2.Status = rpc_status.from_call(call)
    infos = [error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()]
    assert [d.Unpack(m) for d, m in zip(status.details, infos, strict=True)] == [True, True]
    assert infos[0].reason == "RATE_LIMITED"
    assert 1 <= infos[1].retry_delay.seconds <= 20
    assert int(infos[0].metadata["retry_after_seconds"]) == infos[1].retry_delay.seconds

    # Refusals created nothing and took nothing: another client still has its whole bucket.
    for _ in range(3):
        assert _create_http(b, api_key="another-client").status_code == 200
    assert _create_http(a, api_key="another-client").status_code == 429


async def test_a_refusal_reads_the_same_through_the_test_clients(
    limited_pair: tuple[RefereeProcess, RefereeProcess],
) -> None:
    a, _ = limited_pair
    for transport in ("http", "grpc"):
        async with open_client(transport, a) as client:
            key = f"client-{transport}"
            for _ in range(3):
                await client.create(REQUEST, api_key=key)
            with pytest.raises(Refused) as raised:
                await client.create(REQUEST, api_key=key)
            assert raised.value.reason == "RATE_LIMITED"
            assert raised.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
