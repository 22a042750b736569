"""deploy/requirements.lock against pyproject.toml, offline: the lock the image installs still
pins every runtime dependency the project declares, within its declared range, every file with
a hash, and nothing of the dev tools. The client distribution the service depends on
(clients/python) is installed from the source tree, so the lock holds its dependencies instead
of it. ``scripts/lock-deps --check`` resolves again (online)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "deploy/requirements.lock"


def _pins() -> dict[str, tuple[str, list[str]]]:
    """Each locked package: its exact version and its hashes."""
    text = re.sub(r"\\\n\s*", " ", LOCK.read_text())
    pins: dict[str, tuple[str, list[str]]] = {}
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if not line or line.startswith("#"):
            continue
        requirement, *options = line.split(" --hash=")
        name, _, version = requirement.split(";")[0].strip().partition("==")
        pins[canonicalize_name(name)] = (version.strip(), [o.strip() for o in options])
    return pins


def _project(path: str) -> dict[str, Any]:
    with (ROOT / path).open("rb") as file:
        project: dict[str, Any] = tomllib.load(file)["project"]
        return project


CLIENT = _project("clients/python/pyproject.toml")


def _declared() -> list[Requirement]:
    """The service's dependencies, the client distribution's in its place."""
    service = [Requirement(r) for r in _project("pyproject.toml")["dependencies"]]
    client = [Requirement(r) for r in CLIENT["dependencies"]]
    return [r for r in service if r.name != CLIENT["name"]] + client


def test_the_service_depends_on_the_client_distribution_of_this_tree() -> None:
    (requirement,) = [
        Requirement(r)
        for r in _project("pyproject.toml")["dependencies"]
        if Requirement(r).name == CLIENT["name"]
    ]
    assert requirement.specifier.contains(CLIENT["version"])
    assert canonicalize_name(CLIENT["name"]) not in _pins()


def test_every_declared_dependency_is_pinned_within_its_range() -> None:
    pins = _pins()
    # The image's platform: Linux, Python 3.11.
    environment = {str(k): str(v) for k, v in default_environment().items()}
    environment.update(sys_platform="linux", python_version="3.11")
    for requirement in _declared():
        if requirement.marker is not None and not requirement.marker.evaluate(environment):
            continue
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is declared but not locked: run scripts/lock-deps"
        version, _ = pins[name]
        assert requirement.specifier.contains(version, prereleases=True), (name, version)
    assert "hiredis" in pins  # redis[hiredis]: the extra's package is locked too


def test_every_pin_is_exact_and_hashed() -> None:
    pins = _pins()
    assert len(pins) > 20
    for name, (version, hashes) in pins.items():
        assert re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", version), (name, version)
        assert hashes and all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in hashes), name


def test_the_lock_holds_no_dev_tool_and_no_machine_path() -> None:
    pins = _pins()
    for tool in ("pytest", "mypy", "ruff", "grpcio-tools", "hypothesis", "pip-tools"):
        assert tool not in pins
    text = LOCK.read_text()
    assert "--index-url" not in text and "--find-links" not in text
    assert not re.search(r"(/tmp/|/opt/|/home/|/root/|file://)", text)
    assert "pip-compile" in text and "--output-file=deploy/requirements.lock" in text


def test_the_package_count_the_deploy_readme_states_is_the_locks() -> None:
    """Issue 36: a figure the docs give about the build comes from the files (the README said
    35 packages long after the lock held 42)."""
    text = (ROOT / "deploy/README.md").read_text()
    stated = re.findall(r"The lock pins (\d+) packages", text)
    assert stated == [str(len(_pins()))], (stated, len(_pins()))
