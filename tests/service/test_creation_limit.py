"""The creation limit in the hosting layer, on the in-process store and its clock: a bucket per
client (a verified API key, else the address), refilled with time, a refusal that creates and
takes nothing."""

from __future__ import annotations

import pytest
from hanafuda.v1 import rules_pb2, service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.config import Config
from hanafuda_referee.hosting.limits import CreationLimit
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.store import MemoryStore
from tests.store.conftest import FakeClock

REQUEST = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"])


async def test_a_client_gets_its_burst_then_one_game_per_interval() -> None:
    clock = FakeClock()
    store = MemoryStore(clock=clock)
    referee = Referee(store, creation_limit=CreationLimit(per_minute=6, burst=2))
    alice, bob = Caller(address="192.0.2.1"), Caller(address="192.0.2.2")
    for _ in range(2):
        await referee.CreateGame(REQUEST, alice)
    with pytest.raises(ApiError) as raised:
        await referee.CreateGame(REQUEST, alice)
    assert raised.value.reason == "RATE_LIMITED"
    assert raised.value.http_status == 429
    assert raised.value.metadata == {"retry_after_seconds": "10"}  # one game every 10 s
    assert await store.count_games() == 2  # the refusal created nothing
    await referee.CreateGame(REQUEST, bob)  # another address, another bucket
    clock.advance(9.5)
    with pytest.raises(ApiError) as again:
        await referee.CreateGame(REQUEST, alice)
    assert again.value.metadata == {"retry_after_seconds": "1"}  # rounded up, never 0
    clock.advance(0.5)
    await referee.CreateGame(REQUEST, alice)


async def test_an_unchecked_api_key_names_no_client() -> None:
    """Without API keys configured, a key nobody checks is no new bucket: the address is."""
    referee = Referee(MemoryStore(clock=FakeClock()), creation_limit=CreationLimit(6, burst=2))
    for n in range(2):
        await referee.CreateGame(REQUEST, Caller(api_key=f"random-{n}", address="192.0.2.1"))
    with pytest.raises(ApiError) as raised:
        await referee.CreateGame(REQUEST, Caller(api_key="random-2", address="192.0.2.1"))
    assert raised.value.reason == "RATE_LIMITED"


async def test_a_verified_key_is_its_own_bucket_wherever_it_comes_from() -> None:
    referee = Referee(
        MemoryStore(clock=FakeClock()),
        api_keys=["key-one", "key-two"],
        creation_limit=CreationLimit(6, burst=1),
    )
    await referee.CreateGame(REQUEST, Caller(api_key="key-one", address="192.0.2.1"))
    with pytest.raises(ApiError) as raised:
        await referee.CreateGame(REQUEST, Caller(api_key="key-one", address="198.51.100.9"))
    assert raised.value.reason == "RATE_LIMITED"
    await referee.CreateGame(REQUEST, Caller(api_key="key-two", address="192.0.2.1"))
    with pytest.raises(ApiError) as refused:
        await referee.CreateGame(REQUEST, Caller(api_key="key-three", address="203.0.113.1"))
    assert refused.value.reason == "API_KEY_REQUIRED"


def test_the_settings() -> None:
    config = Config.load(None, {})
    assert (config.create_rate, config.create_burst) == (30.0, 30)
    assert Config.load(None, {"HANAFUDA_CREATE_RATE": "0"}).create_rate == 0
    with pytest.raises(ValueError, match="create"):
        Config.load(None, {"HANAFUDA_CREATE_BURST": "0"})
    with pytest.raises(ValueError, match="positive rate"):
        CreationLimit(per_minute=0, burst=1)
