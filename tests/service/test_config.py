"""The service's settings: flags over environment over defaults."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from hanafuda_referee.config import _SOURCES, Config, add_arguments, parse


def test_defaults() -> None:
    config = parse([], {})
    assert (config.grpc_port, config.http_port, config.redis_url) == (50051, 8080, None)
    assert not config.allow_testing and config.log_format == "json"
    assert config.max_watchers == 10_000
    assert parse([], {"HANAFUDA_MAX_WATCHERS": "0"}).max_watchers == 0
    assert parse(["--max-watchers", "3"], {"HANAFUDA_MAX_WATCHERS": "0"}).max_watchers == 3


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
    proxies = {"HANAFUDA_TRUSTED_PROXIES": "10.0.0.0/8, ::1"}
    assert parse([], proxies).trusted_proxies == ("10.0.0.0/8", "::1")
    assert parse(["--trusted-proxy", "192.0.2.1"], proxies).trusted_proxies == ("192.0.2.1",)
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
        (["--finished-game-ttl", "0"], {}),
        ([], {"HANAFUDA_MAX_WATCHERS": "-1"}),
        (["--max-watchers", "-5"], {}),
        (["--trusted-proxy", "10.0.0.1/8"], {}),
        ([], {"HANAFUDA_TRUSTED_PROXIES": "10.0.0.0/8, proxy.example"}),
    ],
)
def test_bad_values_are_refused(argv: list[str], env: dict[str, str]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - each case names its own setting
        Config.load(None, env) if not argv else parse(argv, env)


def _readme_settings() -> list[list[str]]:
    """The rows of the README's Settings table, as cells without their backticks."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    section = readme.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows[1:]]


def test_the_readme_table_documents_every_setting_exactly() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    dest_of_flag = {
        flag: action.dest for action in parser._actions for flag in action.option_strings
    }
    setting_of_variable = {variable: name for name, (variable, _) in _SOURCES.items()}
    defaults = Config()
    documented = set()
    for _, flag_cell, variable_cell, default_cell in _readme_settings():
        flag = flag_cell.split("`")[1]
        variable = variable_cell.split("`")[1]
        name = setting_of_variable[variable]
        documented.add(name)
        assert dest_of_flag[flag] == name, flag
        default = getattr(defaults, name)
        shown = default_cell.split("`")[1] if "`" in default_cell else default_cell
        if default in (None, False, ()):
            assert shown.split(":")[0] in ("unset", "off", "none"), (name, shown)
        else:
            parse_text = _SOURCES[name][1]
            assert parse_text(shown) == default, (name, shown)
    assert documented == set(_SOURCES)


def test_help_names_every_flags_variable_and_default() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    defaults = Config()
    flags = [action for action in parser._actions if action.dest in _SOURCES]
    assert {action.dest for action in flags} == set(_SOURCES)
    for action in flags:
        variable, parse_text = _SOURCES[action.dest]
        assert action.help is not None
        described, _, tail = action.help.rpartition(f" ({variable}; default ")
        assert described, (action.dest, action.help)
        # A note may follow the default: "unset: what that means", "10000; 0: no limit".
        shown = tail.removesuffix(")").split("; ")[0].split(": ")[0]
        default = getattr(defaults, action.dest)
        if default in (None, False, ()):
            assert shown in ("unset", "off", "none"), (action.dest, shown)
        else:
            assert parse_text(shown) == default, (action.dest, shown)
