"""The Python client distribution (``clients/python``, ``hanafuda-referee-client``) stands on its
own: its wheel declares only what a client needs (none of the server's dependencies, directly or
through its dependencies), and installed into a fresh virtualenv with nothing but those
dependencies it imports and plays against a real referee."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.system.processes import RefereeProcess

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "python"
#: What the client must never bring along: the server's own dependencies.
SERVER_ONLY = {"litestar", "uvicorn", "redis", "structlog", "httptools", "uvloop", "hiredis"}
SERVER_ONLY |= {"prometheus-client", "grpcio-health-checking", "grpcio-reflection"}
#: What it needs, and all it declares.
DECLARED = {"grpcio", "grpcio-status", "protobuf", "googleapis-common-protos"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The client's wheel, built offline from a copy of the tree (a build in place would leave
    its build/ and egg-info behind)."""
    wheels = tmp_path_factory.mktemp("wheels")
    source = tmp_path_factory.mktemp("source") / "python"
    shutil.copytree(
        CLIENT, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
    )
    built = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"),
            *("--no-index", "--disable-pip-version-check", "--quiet"),
            *("--wheel-dir", str(wheels), str(source)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (found,) = wheels.glob("hanafuda_referee_client-*.whl")
    return found


def _requires(wheel: Path) -> list[Requirement]:
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        fields = Parser().parsestr(archive.read(name).decode())
    return [Requirement(r) for r in fields.get_all("Requires-Dist") or []]


def _closure(requirements: list[Requirement]) -> set[str]:
    """The distributions ``requirements`` bring along (no extras), as installed here."""
    seen: set[str] = set()
    todo = [r for r in requirements if r.marker is None or r.marker.evaluate()]
    while todo:
        name = canonicalize_name(todo.pop().name)
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.requires(name) or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement)
    return seen


def test_the_wheel_declares_only_what_a_client_needs(wheel: Path) -> None:
    requires = _requires(wheel)
    assert {canonicalize_name(r.name) for r in requires} == DECLARED
    assert not _closure(requires) & SERVER_ONLY
    with (CLIENT / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    assert wheel.name.startswith(f"hanafuda_referee_client-{project['version']}-")


def test_the_client_plays_from_a_fresh_virtualenv_with_its_dependencies_alone(
    wheel: Path, tmp_path: Path
) -> None:
    """The wheel installed (``--no-deps``) into a fresh virtualenv; its dependencies, and
    nothing else, from this environment's files: it imports, the server's packages are out of
    reach, and it creates a game on a real referee and reads it back."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install"),
            *("--no-deps", "--no-index", "--disable-pip-version-check", "--quiet", str(wheel)),
        ],
        # Nothing of this environment's path: pip must see the virtualenv alone.
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    # The dependency closure's files, file by file (google/ is shared by several distributions).
    dependencies = tmp_path / "dependencies"
    for name in _closure(_requires(wheel)):
        distribution = metadata.distribution(name)
        for file in distribution.files or []:
            if file.parts[0] == "..":
                continue  # a script or data outside site-packages
            target = dependencies / file
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():
                target.symlink_to(Path(str(distribution.locate_file(file))).resolve())
    program = """
import importlib.util, sys
from hanafuda.v1 import rules_pb2, service_pb2
from hanafuda_client import RefereeClient, RefereeError
for server_only in ("litestar", "uvicorn", "redis", "structlog", "hanafuda_referee"):
    assert importlib.util.find_spec(server_only) is None, server_only
with RefereeClient(sys.argv[1]) as client:
    created = client.create_game(service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI, players=["ann", "bob"]))
    view = client.get_game(created.game, created.player_tokens[0])
    try:
        client.get_game("no-such-game")
    except RefereeError as error:
        print(view.version, len(view.hand), error.reason)
"""
    with RefereeProcess(tmp_path) as referee:
        ran = subprocess.run(
            [str(python), "-c", program, referee.grpc_target],
            env={"PYTHONPATH": str(dependencies), "PATH": "/usr/bin:/bin"},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["1", "8", "UNKNOWN_GAME"]
