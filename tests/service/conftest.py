"""Fixtures of the service tests: referees on the in-memory store and on a real Redis.

The Redis fixtures use the server on 127.0.0.1:6379 (skipped when none answers) under a key
prefix of their own, and delete every key under it afterwards.
"""

from __future__ import annotations

import contextlib
import socket
import uuid
from collections.abc import AsyncIterator, Iterable
from typing import Any

import grpc
import pytest
import pytest_asyncio
from hanafuda.v1 import cards_pb2, game_pb2, rules_pb2, service_pb2
from redis.asyncio import Redis

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.grpc.server import GrpcServer
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.store import MemoryStore, StoreSettings, open_store

REDIS_URL = "redis://127.0.0.1:6379/0"

#: The scripted deal (see ``scripted_request``): seat 0 deals and holds three lights whose
#: months lie once each on the field; no deal check fires.
SEAT0_HAND = (1, 9, 29, 7, 15, 19, 23, 27)
FIELD = (3, 11, 31, 39, 43, 47, 35, 21)
SEAT1_HAND = (37, 45, 41, 33, 25, 17, 13, 5)
#: The stock, top first: the first draws match none of the months seat 0 needs.
STOCK = (6, 8, 14, 16, 18, 20, 22, 24, 26, 28, 34, 36, 38, 40, 42, 44, 46, 48, 2, 4, 10, 12, 30, 32)


def redis_answers() -> bool:
    """Whether a Redis server listens on 127.0.0.1:6379."""
    with socket.socket() as probe:
        probe.settimeout(0.2)
        return probe.connect_ex(("127.0.0.1", 6379)) == 0


def cards(numbers: Iterable[int]) -> list[cards_pb2.Card.ValueType]:
    """Card numbers as values of repeated ``Card`` fields."""
    return [cards_pb2.Card.ValueType(n) for n in numbers]


def scripted_deal() -> game_pb2.Deal:
    """The scripted deal as a message."""
    return game_pb2.Deal(
        hands=[game_pb2.Hand(cards=cards(SEAT0_HAND)), game_pb2.Hand(cards=cards(SEAT1_HAND))],
        field=cards(FIELD),
        stock=cards(STOCK),
    )


def scripted_request(rounds: int = 1) -> service_pb2.CreateGameRequest:
    """A one-round fudawiki game on the scripted deal, seat 0 dealing."""
    return service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI,
        players=["Ann", "Bob"],
        first_dealer=0,
        koi_koi=rules_pb2.KoiKoiRules(rounds=rounds),
        prepared_deals=[scripted_deal()],
    )


def seeded_request(seed: int, rounds: int = 2) -> service_pb2.CreateGameRequest:
    """A seeded fudawiki game."""
    return service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI,
        players=["Ann", "Bob"],
        seed=seed,
        koi_koi=rules_pb2.KoiKoiRules(rounds=rounds),
    )


def seat(token: str) -> Caller:
    """A caller holding a seat's token."""
    return Caller(token=token, request_id=uuid.uuid4().hex, transport="test")


SPECTATOR = Caller(transport="test")


@contextlib.asynccontextmanager
async def serving_grpc(
    referee: Referee, **options: Any
) -> AsyncIterator[tuple[GrpcServer, grpc.aio.Channel]]:
    """A gRPC server for ``referee`` on a free loopback port (``options`` go to
    :class:`GrpcServer`) and a channel to it; both closed on the way out."""
    server = GrpcServer(referee, host="127.0.0.1", port=0, **options)
    port = await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield server, channel
    finally:
        await channel.close()
        await server.stop(0)


@pytest.fixture
def referee() -> Referee:
    """A referee on a fresh in-memory store, testing features allowed."""
    return Referee(MemoryStore(), allow_testing=True)


@pytest_asyncio.fixture
async def redis_prefix() -> AsyncIterator[str]:
    """A key prefix of its own on the Redis at 127.0.0.1:6379, cleaned up afterwards."""
    if not redis_answers():
        pytest.skip("no Redis answers on 127.0.0.1:6379")
    prefix = f"test-service-{uuid.uuid4().hex}:"
    yield prefix
    client = Redis.from_url(REDIS_URL)
    try:
        keys = [key async for key in client.scan_iter(match=prefix + "*", count=1000)]
        if keys:
            await client.delete(*keys)
    finally:
        await client.aclose()


@pytest_asyncio.fixture
async def redis_referee(redis_prefix: str) -> AsyncIterator[Referee]:
    """A referee on the Redis store, under its own key prefix."""
    store = open_store(REDIS_URL, StoreSettings(key_prefix=redis_prefix, watch_block=0.2))
    yield Referee(store, allow_testing=True)
    await store.close()
