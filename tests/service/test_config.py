"""The service's settings: flags over environment over defaults."""

from __future__ import annotations

import pytest

from hanafuda_referee.config import Config, parse


def test_defaults() -> None:
    config = parse([], {})
    assert (config.grpc_port, config.http_port, config.redis_url) == (50051, 8080, None)
    assert not config.allow_testing and config.log_format == "json"


def test_flags_override_the_environment() -> None:
    env = {
        "HANAFUDA_GRPC_PORT": "6000",
        "REDIS_URL": "redis://secret@cache:6379/0",
        "HANAFUDA_ALLOW_TESTING": "yes",
        "HANAFUDA_CORS_ORIGINS": "https://a.example, https://b.example",
        "HANAFUDA_API_KEY": "k",
    }
    config = parse(["--grpc-port", "7000", "--cors-origin", "https://c.example"], env)
    assert config.grpc_port == 7000 and config.allow_testing
    assert config.cors_origins == ("https://c.example",)
    assert config.redis_url == "redis://secret@cache:6379/0"
    assert parse([], env).cors_origins == ("https://a.example", "https://b.example")
    assert parse(["--allow-testing-features"], {}).allow_testing
    # Secrets stay out of the representation that logs and tracebacks print.
    assert "secret" not in repr(config) and "'k'" not in repr(config)
    assert config.store_settings().key_prefix == "hanafuda:"


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        ([], {"HANAFUDA_GRPC_PORT": "many"}),
        ([], {"HANAFUDA_ALLOW_TESTING": "maybe"}),
        (["--http-port", "70000"], {}),
        (["--key-prefix", "{bad}"], {}),
        (["--game-ttl", "0"], {}),
    ],
)
def test_bad_values_are_refused(argv: list[str], env: dict[str, str]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - each case names its own setting
        Config.load(None, env) if not argv else parse(argv, env)
