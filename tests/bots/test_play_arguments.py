"""The bot command's arguments: ids and tokens that begin with a dash, the token from the
environment, the budget options."""

from __future__ import annotations

import pytest

from hanafuda_referee.bots import Level
from hanafuda_referee.bots.play import TOKEN_VARIABLE, parse_arguments


def test_ids_and_tokens_may_begin_with_a_dash() -> None:
    args = parse_arguments(["--url", "http://h:1", "--game=-g", "--token=-t"])
    assert (args.game, args.token, args.level) == ("-g", "-t", Level.EXPERT)


def test_the_token_may_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_VARIABLE, "secret")
    args = parse_arguments(["--grpc", "h:1", "--game=g", "--level", "greedy", "--playouts", "9"])
    assert (args.token, args.level, args.playouts, args.grpc) == ("secret", Level.GREEDY, 9, "h:1")


def test_a_token_is_needed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TOKEN_VARIABLE, raising=False)
    with pytest.raises(SystemExit) as exit_:
        parse_arguments(["--url", "http://h:1", "--game=g"])
    assert exit_.value.code == 2
