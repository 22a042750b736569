"""Who a client is (PLAY.md, "Limits"), through real server processes on both transports: only
what the referee verified names a client.

- Without API keys configured, an ``x-api-key`` nobody checks is no new client: random keys
  from one address all draw from that address's creation bucket.
- With API keys configured (several, comma-separated), a creation needs one of them, and each
  key is a client of its own wherever it comes from.
- An IPv6 address counts by its /64: a referee listening on ``::1`` behind a trusted proxy on
  ``::1`` gives the forwarded addresses of one /64 one bucket, another /64 another.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import grpc
import httpx
import pytest
from hanafuda.v1 import rules_pb2, service_pb2, service_pb2_grpc

from .conftest import redis_env
from .processes import RefereeProcess

#: Three games at once, then one every 20 s: the tests never wait for a token to come back.
LIMIT = {"HANAFUDA_CREATE_RATE": "3", "HANAFUDA_CREATE_BURST": "3"}
BODY = {"kind": "GAME_KIND_KOI_KOI", "players": ["ann", "bob"]}
REQUEST = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["ann", "bob"])


class IPv6RefereeProcess(RefereeProcess):
    """A referee listening on the IPv6 loopback only (the tests reach it at ``[::1]``)."""

    def _launch(self) -> None:
        self.extra_env.setdefault("HANAFUDA_HOST", "::1")
        super()._launch()

    @property
    def http_url(self) -> str:
        return f"http://[::1]:{self.http_port}"

    @property
    def grpc_target(self) -> str:
        return f"[::1]:{self.grpc_port}"


def _http(process: RefereeProcess, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(f"{process.http_url}/v1/games", json=BODY, headers=headers, timeout=10)


def _grpc(process: RefereeProcess, metadata: tuple[tuple[str, str], ...] = ()) -> grpc.StatusCode:
    with grpc.insecure_channel(process.grpc_target) as channel:
        try:
            service_pb2_grpc.RefereeServiceStub(channel).CreateGame(
                REQUEST, timeout=10, metadata=metadata
            )
        except grpc.RpcError as error:
            code: grpc.StatusCode = error.code()
            return code
    return grpc.StatusCode.OK


def _random_key() -> dict[str, str]:
    return {"x-api-key": secrets.token_hex(16)}


def _far(n: int) -> dict[str, str]:
    """The header of a trusted proxy forwarding the ``n``-th address of 2001:db8:0:1::/64."""
    return {"x-forwarded-for": f"2001:db8:0:1:{n:x}::{n:x}"}


def _reason(response: httpx.Response) -> str:
    (info,) = response.json()["error"]["details"]
    reason: str = info["reason"]
    return reason


def test_random_api_keys_from_one_address_are_one_client(tmp_path: Path, key_prefix: str) -> None:
    env = {**redis_env(key_prefix), **LIMIT}
    with RefereeProcess(tmp_path, env=env, allow_testing=False) as referee:
        assert _http(referee, _random_key()).status_code == 200
        assert _grpc(referee, (("x-api-key", secrets.token_hex(16)),)) == grpc.StatusCode.OK
        assert _http(referee, _random_key()).status_code == 200
        refused = _http(referee, _random_key())
        assert refused.status_code == 429 and _reason(refused) == "RATE_LIMITED"
        assert _grpc(referee, (("x-api-key", "another"),)) == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert _http(referee).status_code == 429  # and no key at all: the same client


@pytest.fixture
def keyed(tmp_path: Path, key_prefix: str) -> Iterator[RefereeProcess]:
    env = {**redis_env(key_prefix), **LIMIT, "HANAFUDA_API_KEY": "first-key,second-key"}
    with RefereeProcess(tmp_path, env=env, allow_testing=False) as referee:
        yield referee


def test_with_keys_configured_an_unknown_key_is_refused(keyed: RefereeProcess) -> None:
    for headers in ({}, {"x-api-key": "unknown-key"}, {"x-api-key": "first-key,second-key"}):
        refused = _http(keyed, headers)
        assert refused.status_code == 401 and _reason(refused) == "API_KEY_REQUIRED"
    assert _grpc(keyed, (("x-api-key", "unknown-key"),)) == grpc.StatusCode.UNAUTHENTICATED
    assert _grpc(keyed) == grpc.StatusCode.UNAUTHENTICATED
    # Each configured key is a client: its own bucket, on both transports.
    for _ in range(3):
        assert _http(keyed, {"x-api-key": "first-key"}).status_code == 200
    assert _grpc(keyed, (("x-api-key", "first-key"),)) == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert _grpc(keyed, (("x-api-key", "second-key"),)) == grpc.StatusCode.OK


def test_addresses_of_one_ipv6_64_share_a_bucket(tmp_path: Path, key_prefix: str) -> None:
    # The tests' requests come from ::1: here it stands for a load balancer that forwards the
    # address of each far client.
    env = {**redis_env(key_prefix), **LIMIT, "HANAFUDA_TRUSTED_PROXIES": "::1"}
    with IPv6RefereeProcess(tmp_path, env=env, allow_testing=False) as referee:
        assert _http(referee, _far(1)).status_code == 200
        assert _grpc(referee, (("x-forwarded-for", "2001:db8:0:1::ffff"),)) == grpc.StatusCode.OK
        assert _http(referee, _far(3)).status_code == 200
        for n in range(4, 8):  # every other address of that /64: the same client
            refused = _http(referee, _far(n))
            assert refused.status_code == 429 and _reason(refused) == "RATE_LIMITED"
        metadata = (("x-forwarded-for", "2001:db8:0:1:ffff:ffff:ffff:ffff"),)
        assert _grpc(referee, metadata) == grpc.StatusCode.RESOURCE_EXHAUSTED
        # The next /64 is another client; so is the proxy's own address, served over IPv6.
        assert _http(referee, {"x-forwarded-for": "2001:db8:0:2::1"}).status_code == 200
        assert _grpc(referee, (("x-forwarded-for", "2001:db8:0:2::2"),)) == grpc.StatusCode.OK
        assert _http(referee).status_code == 200
        assert _grpc(referee) == grpc.StatusCode.OK


def test_the_ipv6_prefix_is_configurable(tmp_path: Path, key_prefix: str) -> None:
    env = {
        **redis_env(key_prefix),
        **LIMIT,
        "HANAFUDA_TRUSTED_PROXIES": "::1",
        "HANAFUDA_IPV6_CLIENT_PREFIX": "48",
    }
    with IPv6RefereeProcess(tmp_path, env=env, allow_testing=False) as referee:
        for n in range(1, 4):  # three /64s of one /48
            assert _http(referee, {"x-forwarded-for": f"2001:db8:0:{n}::1"}).status_code == 200
        assert _http(referee, {"x-forwarded-for": "2001:db8:0:ffff::1"}).status_code == 429
        assert _http(referee, {"x-forwarded-for": "2001:db8:1::1"}).status_code == 200
