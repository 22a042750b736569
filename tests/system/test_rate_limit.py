"""The creation limit (PLAY.md, "Limits"): a token bucket per client, shared by every replica
on one Redis, refused with ``RATE_LIMITED`` and the wait, on both transports alike.

Two real processes on the shared Redis under one key prefix; every request comes from
127.0.0.1, so without API keys configured all of them are one client, whatever key they send.
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

    # An API key the server does not check (it has none) names no other client.
    assert _create_http(b, api_key="another-client").status_code == 429


async def test_a_refusal_reads_the_same_through_the_test_clients(
    tmp_path: Path, key_prefix: str
) -> None:
    # Each transport a client of its own: an API key the server checks.
    env = {**redis_env(key_prefix), **LIMIT, "HANAFUDA_API_KEY": "client-http,client-grpc"}
    with RefereeProcess(tmp_path, env=env, allow_testing=False) as a:
        for transport in ("http", "grpc"):
            await _refusal_reads_the_same(a, transport)


async def _refusal_reads_the_same(a: RefereeProcess, transport: str) -> None:
    async with open_client(transport, a) as client:
        key = f"client-{transport}"
        for _ in range(3):
            await client.create(REQUEST, api_key=key)
        with pytest.raises(Refused) as raised:
            await client.create(REQUEST, api_key=key)
        assert raised.value.reason == "RATE_LIMITED"
        assert raised.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED


#: Clients a trusted proxy names (documentation addresses, RFC 5737).
FAR_CLIENT, OTHER_FAR_CLIENT = "203.0.113.7", "203.0.113.8"


def _create_forwarded_http(process: RefereeProcess, forwarded_for: str) -> httpx.Response:
    return httpx.post(
        f"{process.http_url}/v1/games",
        json=BODY,
        headers={"x-forwarded-for": forwarded_for},
        timeout=10,
    )


def _create_forwarded_grpc(process: RefereeProcess, forwarded_for: str) -> grpc.StatusCode:
    with grpc.insecure_channel(process.grpc_target) as channel:
        try:
            service_pb2_grpc.RefereeServiceStub(channel).CreateGame(
                REQUEST, timeout=10, metadata=(("x-forwarded-for", forwarded_for),)
            )
        except grpc.RpcError as error:
            return error.code()
    return grpc.StatusCode.OK


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_bucket(
    tmp_path: Path, key_prefix: str
) -> None:
    # The tests' requests come from 127.0.0.1: here it stands for the load balancer.
    env = {**redis_env(key_prefix), **LIMIT, "HANAFUDA_TRUSTED_PROXIES": "127.0.0.1/32"}
    with RefereeProcess(tmp_path, env=env, allow_testing=False) as referee:
        # One far client's burst, over both transports; the proxy appended what it saw.
        assert _create_forwarded_http(referee, FAR_CLIENT).status_code == 200
        assert _create_forwarded_grpc(referee, FAR_CLIENT) == grpc.StatusCode.OK
        assert _create_forwarded_http(referee, f"{FAR_CLIENT}, 127.0.0.1").status_code == 200
        assert _create_forwarded_http(referee, FAR_CLIENT).status_code == 429
        assert _create_forwarded_grpc(referee, FAR_CLIENT) == grpc.StatusCode.RESOURCE_EXHAUSTED
        # Whatever the far client wrote before the proxy's entry is not believed.
        spoofed = f"{OTHER_FAR_CLIENT}, {FAR_CLIENT}"
        assert _create_forwarded_http(referee, spoofed).status_code == 429
        # Another far client, and the proxy's own requests, have buckets of their own.
        assert _create_forwarded_grpc(referee, OTHER_FAR_CLIENT) == grpc.StatusCode.OK
        assert _create_http(referee).status_code == 200


def test_without_trusted_proxies_a_forwarded_address_is_not_believed(
    tmp_path: Path, key_prefix: str
) -> None:
    env = {**redis_env(key_prefix), **LIMIT}
    with RefereeProcess(tmp_path, env=env, allow_testing=False) as referee:
        # A client naming another address each time is still one client: its own.
        for n in range(3):
            assert _create_forwarded_http(referee, f"203.0.113.{n}").status_code == 200
        assert _create_forwarded_http(referee, "203.0.113.50").status_code == 429
        assert _create_forwarded_grpc(referee, "203.0.113.51") == grpc.StatusCode.RESOURCE_EXHAUSTED
