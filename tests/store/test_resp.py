"""The store's own RESP packing (store/resp.py) against redis-py's."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given
from hypothesis import strategies as st
from redis.asyncio.connection import Connection

from hanafuda_referee.store import resp
from hanafuda_referee.store.resp import pack_commands

_TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=40)
_ARGUMENT = st.one_of(st.binary(max_size=200), _TEXT, st.integers(-(2**70), 2**70))
#: A command's name is one word: redis-py splits a name at white space ("CLIENT SETNAME" is two
#: arguments), the store's are single words (EVALSHA, EVAL).
_WORD = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ_", min_size=1, max_size=12)
_NAME = st.one_of(_WORD, _WORD.map(str.encode))
_COMMAND = st.tuples(_NAME, st.lists(_ARGUMENT, max_size=14)).map(lambda c: (c[0], *c[1]))


@given(st.lists(_COMMAND, min_size=1, max_size=6))
def test_the_same_bytes_as_redis_py(commands: list[tuple[bytes | str | int, ...]]) -> None:
    assert pack_commands(commands) == b"".join(Connection().pack_commands(commands))


def test_a_commit_as_the_store_sends_it() -> None:
    commit = (
        *("EVALSHA", "0" * 40, 2, "hanafuda:{g}:game", "hanafuda:{g}:answers"),
        *(11, b"\x00state\xff", b"\x02\x01\x07", b"", b"", 86_400_000, 600_000, "chan"),
    )
    assert pack_commands([commit] * 3) == b"".join(Connection().pack_commands([commit] * 3))


@pytest.mark.parametrize("argument", [True, 1.5, None, ["x"]])
def test_other_argument_types_are_refused(argument: object) -> None:
    with pytest.raises(TypeError):
        pack_commands([("SET", "key", argument)])  # type: ignore[list-item]


def test_the_example_runs() -> None:
    result = doctest.testmod(resp)
    assert (result.attempted, result.failed) == (1, 0)
