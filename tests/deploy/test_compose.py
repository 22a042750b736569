"""deploy/compose.yaml, checked without a Docker engine: two or more referee replicas built from
this repository over one Redis, with settings the service accepts and that make them share games.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

# PyYAML comes with litestar, a dependency of the service; it ships no type hints.
import yaml  # type: ignore[import-untyped]

from hanafuda_referee.config import VARIABLES, Config

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "deploy" / "compose.yaml"
_DURATION = re.compile(r"(?:(\d+)m)?(?:(\d+)s)?")


@pytest.fixture(scope="module")
def services() -> dict[str, dict[str, Any]]:
    document = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(document, dict)
    found = document["services"]
    assert isinstance(found, dict)
    return found


def _referees(services: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {name: service for name, service in services.items() if "build" in service}


def _redis_names(services: dict[str, dict[str, Any]]) -> set[str]:
    return {
        name
        for name, service in services.items()
        if str(service.get("image", "")).split(":")[0] == "redis"
    }


def _config(service: dict[str, Any]) -> Config:
    environment = service["environment"]
    assert isinstance(environment, dict), "environment as a mapping"
    return Config.load(None, {key: str(value) for key, value in environment.items()})


def _seconds(duration: str) -> int:
    found = _DURATION.fullmatch(duration)
    assert found and duration, f"cannot read the duration {duration!r}"
    return int(found[1] or 0) * 60 + int(found[2] or 0)


def test_two_referee_replicas_built_from_this_repository_and_one_redis(
    services: dict[str, dict[str, Any]],
) -> None:
    referees = _referees(services)
    assert len(referees) >= 2
    assert len(_redis_names(services)) == 1
    for name, service in referees.items():
        build = service["build"]
        context = (COMPOSE.parent / build["context"]).resolve()
        assert context == ROOT, f"{name} is not built from the repository"
        assert (context / build.get("dockerfile", "Dockerfile")).is_file()


def test_the_replicas_accept_their_settings_and_share_one_store(
    services: dict[str, dict[str, Any]],
) -> None:
    configs = {name: _config(service) for name, service in _referees(services).items()}
    for name, config in configs.items():
        assert config.redis_url is not None, f"{name} would keep its games in its own memory"
        assert urlsplit(config.redis_url).hostname in _redis_names(services)
        assert config.host == "0.0.0.0"
        # A misspelt variable would be ignored silently: each must be one the service reads.
        unknown = {
            key
            for key in services[name]["environment"]
            if key.startswith("HANAFUDA_") and key not in VARIABLES
        }
        assert not unknown, f"{name}: {unknown} are not settings of the service"
    # The same Redis and the same key prefix: a game made through one is found by the others.
    assert len({(c.redis_url, c.key_prefix) for c in configs.values()}) == 1


def test_the_replicas_are_published_on_distinct_host_ports(
    services: dict[str, dict[str, Any]],
) -> None:
    published: list[str] = []
    for name, service in _referees(services).items():
        config = _config(service)
        mapping = dict(str(port).rsplit(":", 1)[::-1] for port in service["ports"])
        assert set(mapping) == {str(config.grpc_port), str(config.http_port)}, name
        published.extend(mapping.values())
    assert len(published) == len(set(published))


def test_the_replicas_wait_for_redis_and_get_time_to_drain(
    services: dict[str, dict[str, Any]],
) -> None:
    (redis_name,) = _redis_names(services)
    assert services[redis_name]["healthcheck"]["test"]
    for name, service in _referees(services).items():
        assert service["depends_on"][redis_name]["condition"] == "service_healthy", name
        assert _seconds(service["stop_grace_period"]) > _config(service).shutdown_grace, name


def test_the_deploy_readme_names_only_real_settings() -> None:
    named = set(
        re.findall(
            r"\b(?:HANAFUDA_[A-Z_]+|REDIS_URL)\b", (COMPOSE.parent / "README.md").read_text()
        )
    )
    assert named
    unknown = named - VARIABLES
    assert not unknown, f"deploy/README.md names {unknown}, which are not settings"
