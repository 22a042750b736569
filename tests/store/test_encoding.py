"""The byte layouts, key names and URL parsing, without a server."""

from __future__ import annotations

import pytest
from redis.crc import key_slot

from hanafuda_referee.store import MemoryStore, RedisStore, open_store, parse_store_url
from hanafuda_referee.store.encoding import (
    decode_record,
    encode_record,
    pack_events,
    request_digest,
    unpack_events,
)
from hanafuda_referee.store.keys import KeySpace


@pytest.mark.parametrize(
    "events",
    [[], [b""], [b"a", b"", b"bc"], [b"x" * 127, b"y" * 128], [bytes(range(256)) * 70]],
)
def test_packed_events_round_trip(events: list[bytes]) -> None:
    assert unpack_events(pack_events(events)) == events


def test_event_lengths_are_varints() -> None:
    assert pack_events([b"x" * 127]) == b"\x7f" + b"x" * 127
    assert pack_events([b"y" * 128]) == b"\x80\x01" + b"y" * 128
    assert pack_events([b"z" * 300]) == b"\xac\x02" + b"z" * 300


@pytest.mark.parametrize("truncated", [b"\x05abc", b"\x80", b"\x02a"])
def test_truncated_packed_events_are_refused(truncated: bytes) -> None:
    with pytest.raises(ValueError, match="truncated"):
        unpack_events(truncated)


def test_record_round_trip_keeps_colons_and_binary_in_meta_and_state() -> None:
    meta = b"a:b:\x00\xff"
    state = b"12:34:" + bytes(range(256))
    record = encode_record(41, meta, state)
    assert record.startswith(b"41:6:")
    assert decode_record(record) == (41, state, meta)
    assert decode_record(encode_record(0, b"", b"")) == (0, b"", b"")


def test_request_ids_are_kept_as_fixed_size_digests() -> None:
    short, long = request_digest("r"), request_digest("x" * 128)
    assert len(short) == len(long) == 16
    assert request_digest("r") == short
    assert len({request_digest(f"req-{n}") for n in range(1000)}) == 1000


def test_a_truncated_record_is_refused() -> None:
    with pytest.raises(ValueError, match="record"):
        decode_record(b"3:10:short")


def test_all_keys_of_a_game_share_one_cluster_slot() -> None:
    for game_id in ["g1", "AbC-_.~09xyzXYZ0123456789", "x" * 64, "with:colon"]:
        keys = KeySpace("some-prefix:").game(game_id)
        slots = {key_slot(key.encode()) for key in keys.all()}
        assert slots == {key_slot(game_id.encode())}
        assert key_slot(keys.channel.encode()) == key_slot(game_id.encode())
        assert len({*keys.all(), keys.channel}) == 3


def test_a_prefix_with_braces_is_refused() -> None:
    with pytest.raises(ValueError, match="braces"):
        KeySpace("a{b}:")


def test_record_pattern_escapes_glob_characters_of_the_prefix() -> None:
    assert KeySpace("hf:").game_pattern() == "hf:{*}:g"
    assert KeySpace("a*b?[c]\\:").game_pattern() == "a\\*b\\?\\[c\\]\\\\:{*}:g"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("redis://h:6379/0", ("redis://h:6379/0", False)),
        ("rediss://u:p@h:6380", ("rediss://u:p@h:6380", False)),
        ("redis+cluster://h:7000", ("redis://h:7000", True)),
        ("rediss+cluster://h:7000", ("rediss://h:7000", True)),
        ("redis://h:7000?cluster=true", ("redis://h:7000", True)),
        ("redis://h:7000?cluster=no&x=1", ("redis://h:7000?x=1", False)),
        ("unix:///run/redis.sock", ("unix:///run/redis.sock", False)),
    ],
)
def test_store_urls(url: str, expected: tuple[str, bool]) -> None:
    assert parse_store_url(url) == expected


@pytest.mark.parametrize(
    "url", ["http://h", "memcached://h", "redis://h?cluster=maybe", "unix:///s?cluster=1"]
)
def test_bad_store_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match=r"scheme|boolean|unix"):
        parse_store_url(url)


async def test_open_store_picks_memory_without_url_and_redis_with_one() -> None:
    memory = open_store(None)
    assert isinstance(memory, MemoryStore)
    assert isinstance(open_store(""), MemoryStore)
    redis = open_store("redis://127.0.0.1:1/0")  # opening never connects
    assert isinstance(redis, RedisStore)
    cluster = open_store("redis+cluster://127.0.0.1:1")
    assert isinstance(cluster, RedisStore)
    for store in (memory, redis, cluster):
        await store.close()
