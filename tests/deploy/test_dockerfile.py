"""The Dockerfile and .dockerignore, checked without a Docker engine.

The files are read and held against the code (ports and settings from ``Config``, the console
script and package layout from pyproject.toml), and what the image would run is run here: its
health check against a live server, and its builder stage's build of the project, from exactly
the files the build context would hold.
"""

from __future__ import annotations

import http.server
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import tomllib
import urllib.request
import zipfile
from collections.abc import Iterator
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet

from hanafuda_referee.config import Config
from tests.store.servers import free_port
from tests.system.processes import RefereeProcess, referee_command

from .dockerfile import Dockerfile, Stage, exec_form, split_flags
from .dockerignore import IgnoreRules

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "hanafuda-referee"
LOCK = "deploy/requirements.lock"
#: The client distribution (the generated stubs the service imports), installed from the tree.
CLIENT = "clients/python"


@pytest.fixture(scope="module")
def dockerfile() -> Dockerfile:
    return Dockerfile.read(ROOT / "Dockerfile")


@pytest.fixture(scope="module")
def ignore() -> IgnoreRules:
    assert (ROOT / ".dockerignore").is_file(), "no .dockerignore: the whole tree would be sent"
    return IgnoreRules.read(ROOT / ".dockerignore")


@pytest.fixture(scope="module")
def pyproject() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def _builder(dockerfile: Dockerfile) -> Stage:
    return dockerfile.stages[0]


def _final(dockerfile: Dockerfile) -> Stage:
    return dockerfile.stages[-1]


def _venv(builder: Stage) -> str:
    """The directory the builder makes its virtualenv in."""
    for run in builder.all("RUN"):
        found = re.search(r"-m venv(?:\s+--\S+)*\s+(\S+)", run.text)
        if found:
            return found[1].rstrip("/")
    raise AssertionError("the builder makes no virtualenv (python -m venv)")


def _copies(stage: Stage) -> list[tuple[dict[str, str], list[str], str]]:
    """Each COPY of a stage as (flags, sources, destination)."""
    copies = []
    for instruction in stage.all("COPY"):
        flags, rest = split_flags(instruction.text)
        words = exec_form(rest) or shlex.split(rest)
        assert len(words) >= 2, f"line {instruction.line}: COPY needs a source and a destination"
        copies.append((flags, words[:-1], words[-1]))
    return copies


def _image_config(dockerfile: Dockerfile) -> Config:
    """The service's settings in the image with no variable set by the operator."""
    environment = _final(dockerfile).environment()
    return Config.load(None, {k: v for k, v in environment.items() if k.startswith("HANAFUDA_")})


# The stages ----------------------------------------------------------------------------------


def test_two_stages_on_one_pinned_slim_python_base(
    dockerfile: Dockerfile, pyproject: dict[str, Any]
) -> None:
    assert len(dockerfile.stages) >= 2
    names = {stage.name for stage in dockerfile.stages if stage.name}
    assert _builder(dockerfile).name in names
    # The final stage starts afresh from the base image, not from the builder.
    final = _final(dockerfile)
    assert final.base not in names
    assert {stage.base for stage in dockerfile.stages} == {final.base}
    repository, _, tag = final.base.partition(":")
    assert repository in ("python", "docker.io/library/python")
    version, *variant = tag.split("@")[0].split("-")
    assert "slim" in variant, f"{final.base} is not a slim image"
    assert re.fullmatch(r"3\.\d+", version), f"{final.base} is not pinned to a Python release"
    assert version in SpecifierSet(pyproject["project"]["requires-python"])


def test_the_final_stage_copies_only_the_builders_virtualenv(dockerfile: Dockerfile) -> None:
    builder, final = _builder(dockerfile), _final(dockerfile)
    venv = _venv(builder)
    copies = _copies(final)
    assert copies
    for flags, sources, destination in copies:
        assert flags.get("from") == builder.name
        assert [source.rstrip("/") for source in sources] == [venv]
        assert destination.rstrip("/") == venv
    assert not final.all("ADD")
    # No build tool, package manager or cache is brought in by the final stage itself.
    for run in final.all("RUN"):
        assert not re.search(r"\b(pip3?|apt-get|apt|apk|gcc|cc|make)\b", run.text), run.text
    assert final.environment()["PATH"].startswith(f"{venv}/bin:")


def test_the_service_runs_as_a_fixed_non_root_user(dockerfile: Dockerfile) -> None:
    final = _final(dockerfile)
    user = final.last("USER").text
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) > 0, f"USER {user} is not a fixed non-root UID"
    assert not gid or (gid.isdigit() and int(gid) > 0)
    assert final.index("USER") < final.index("ENTRYPOINT")
    assert final.index("USER") < final.index("CMD")
    # The account exists in the image, under that same UID.
    assert any(re.search(rf"useradd\b.*--uid {uid}\b", run.text) for run in final.all("RUN"))


def test_the_environment_of_the_image(dockerfile: Dockerfile) -> None:
    environment = _final(dockerfile).environment()
    assert environment["PYTHONDONTWRITEBYTECODE"] == "1"
    assert environment["PYTHONUNBUFFERED"] == "1"
    assert _image_config(dockerfile).host == "0.0.0.0"


def test_both_service_ports_are_exposed(dockerfile: Dockerfile) -> None:
    config = _image_config(dockerfile)
    exposed = {
        int(port.split("/")[0])
        for instruction in _final(dockerfile).all("EXPOSE")
        for port in instruction.text.split()
    }
    assert exposed == {config.grpc_port, config.http_port}


def test_the_entrypoint_runs_the_console_script_in_exec_form(
    dockerfile: Dockerfile, pyproject: dict[str, Any]
) -> None:
    final = _final(dockerfile)
    entrypoint = exec_form(final.last("ENTRYPOINT").text)
    command = exec_form(final.last("CMD").text)
    assert entrypoint == [SCRIPT], "ENTRYPOINT must be the exec form of the console script"
    assert command is not None, "CMD must be in exec form"
    assert SCRIPT in pyproject["project"]["scripts"]
    assert final.last("STOPSIGNAL").text == "SIGTERM"
    # The container's command line is one the script accepts, as the serve command.
    result = subprocess.run(
        [*referee_command(), *command, "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "--grpc-port" in result.stdout


def test_the_labels_name_the_project_and_its_version(
    dockerfile: Dockerfile, pyproject: dict[str, Any]
) -> None:
    labels = _final(dockerfile).labels()
    assert labels["org.opencontainers.image.title"] == pyproject["project"]["name"]
    assert labels["org.opencontainers.image.version"] == pyproject["project"]["version"]
    assert labels["org.opencontainers.image.description"]
    assert labels["org.opencontainers.image.base.name"] == _final(dockerfile).base


def test_the_project_is_installed_as_a_package_without_dev_extras(dockerfile: Dockerfile) -> None:
    for stage in dockerfile.stages:
        for run in stage.all("RUN"):
            words = shlex.split(run.text)
            assert "-e" not in words and "--editable" not in words, run.text
            assert not any(re.search(r"\[[^]]*\bdev\b", word) for word in words), run.text
            assert "optional-dependencies" not in run.text, run.text
    installs = [shlex.split(run.text) for run in _builder(dockerfile).all("RUN")]
    (project,) = [w for w in installs if "pip" in w and "install" in w and w[-1] == "."]
    # The client distribution the service depends on, from the tree (it is on no index).
    assert f"./{CLIENT}" in project, "the builder does not install the client distribution"


def test_the_dependency_layer_installs_the_lock_with_hashes_before_the_sources(
    dockerfile: Dockerfile,
) -> None:
    """The dependencies come from deploy/requirements.lock alone (exact versions, every file
    checked against its hash) in a layer of their own, before any source is copied; the
    project is then installed without resolving anything again."""
    builder = _builder(dockerfile)
    copies = _copies(builder)
    lock_copy = next(i for i, (_, sources, _) in enumerate(copies) if sources == [LOCK])
    assert all("service" not in sources for _, sources, _ in copies[:lock_copy])
    installs = [shlex.split(run.text) for run in builder.all("RUN") if "install" in run.text]
    (locked,) = [words for words in installs if "-r" in words]
    assert "--require-hashes" in locked and "--no-deps" in locked
    assert locked[locked.index("-r") + 1] == Path(LOCK).name
    (project,) = [words for words in installs if words[-1] == "."]
    assert "--no-deps" in project


# The build context ---------------------------------------------------------------------------


def test_every_copied_source_reaches_the_build_context(
    dockerfile: Dockerfile, ignore: IgnoreRules
) -> None:
    for stage in dockerfile.stages:
        for flags, sources, _ in _copies(stage):
            if "from" in flags:
                continue
            for source in sources:
                assert (ROOT / source).exists(), f"COPY {source}: no such file in the repository"
                assert not ignore.excludes(source), f"COPY {source}: left out by .dockerignore"
                assert next(ignore.files(ROOT, source), None), f"COPY {source}: nothing in it"


def test_the_builder_copies_everything_the_package_build_reads(
    dockerfile: Dockerfile, pyproject: dict[str, Any]
) -> None:
    copied = {
        source.rstrip("/")
        for flags, sources, _ in _copies(_builder(dockerfile))
        if "from" not in flags
        for source in sources
    }
    needed = {"pyproject.toml", pyproject["project"]["readme"], CLIENT}
    needed |= set(pyproject["tool"]["setuptools"]["packages"]["find"]["where"])
    assert needed <= copied


def test_the_dockerignore_leaves_out_everything_the_image_does_not_need(
    dockerfile: Dockerfile, ignore: IgnoreRules
) -> None:
    for path in (
        ".git",
        ".git/HEAD",
        ".venv/bin/python",
        "node_modules/some-package/index.js",
        "tests/deploy/test_dockerfile.py",
        "docs/api.md",
        ".env",
        ".mypy_cache/3.11/cache.db",
        ".pytest_cache/README.md",
        ".ruff_cache/CACHEDIR.TAG",
        ".hypothesis/examples/x",
        "hanafuda_referee.egg-info/PKG-INFO",
        "build/lib/hanafuda_referee/cli.py",
        "service/hanafuda_referee/__pycache__/cli.cpython-311.pyc",
        "clients/python/hanafuda/v1/__pycache__/service_pb2.cpython-311.pyc",
        "service/hanafuda_referee/stray.pyc",
        "service/hanafuda_referee.egg-info/PKG-INFO",
    ):
        assert ignore.excludes(path), f"{path} would be sent to the builder"
    # Whatever lies at the top of the checkout and is not copied stays out too.
    copied = [
        source.rstrip("/")
        for stage in dockerfile.stages
        for flags, sources, _ in _copies(stage)
        if "from" not in flags
        for source in sources
    ]
    for entry in ROOT.iterdir():
        if not any(
            source == entry.name or source.startswith(f"{entry.name}/") for source in copied
        ):
            assert ignore.excludes(entry.name), f"{entry.name} would be sent to the builder"


# The health check ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def health_command(dockerfile: Dockerfile) -> list[str]:
    """The image's HEALTHCHECK command, with this interpreter for the image's ``python``."""
    flags, rest = split_flags(_final(dockerfile).last("HEALTHCHECK").text)
    assert {"interval", "timeout", "retries"} <= flags.keys()
    assert rest.startswith("CMD ")
    command = exec_form(rest.removeprefix("CMD").strip())
    assert command is not None, "the health check must be in exec form (no shell in the image)"
    assert command[:2] == ["python", "-c"] and len(command) == 3
    return [sys.executable, *command[1:]]


def _run_health(command: list[str], http_port: int) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("HANAFUDA_") and key != "REDIS_URL"
    }
    environment["HANAFUDA_HTTP_PORT"] = str(http_port)
    return subprocess.run(command, env=environment, capture_output=True, text=True, timeout=60)


def test_the_health_check_passes_on_a_live_server_and_fails_once_it_stops(
    tmp_path: Path, health_command: list[str]
) -> None:
    referee = RefereeProcess(tmp_path, allow_testing=False)
    with referee:
        healthy = _run_health(health_command, referee.http_port)
        assert healthy.returncode == 0, healthy.stderr
        assert referee.stop() == 0
    stopped = _run_health(health_command, referee.http_port)
    assert stopped.returncode != 0


def test_the_health_check_fails_when_nothing_listens(health_command: list[str]) -> None:
    result = _run_health(health_command, free_port())
    assert result.returncode != 0


class _Unavailable(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(503)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def unavailable_port() -> Iterator[int]:
    """A port on which an HTTP server answers 503 to everything."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Unavailable)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_the_health_check_fails_on_an_error_status(
    health_command: list[str], unavailable_port: int
) -> None:
    result = _run_health(health_command, unavailable_port)
    assert result.returncode != 0


def test_the_health_check_asks_the_configured_http_port(
    health_command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without HANAFUDA_HTTP_PORT it asks the service's default port; with it, that port."""
    asked: list[str] = []

    def record(url: str, timeout: float) -> None:
        asked.append(url)

    monkeypatch.setattr(urllib.request, "urlopen", record)
    code = compile(health_command[2], "<healthcheck>", "exec")
    monkeypatch.delenv("HANAFUDA_HTTP_PORT", raising=False)
    exec(code, {})
    monkeypatch.setenv("HANAFUDA_HTTP_PORT", "18080")
    exec(code, {})
    assert asked == [
        f"http://127.0.0.1:{Config().http_port}/healthz",
        "http://127.0.0.1:18080/healthz",
    ]


# The builder stage, outside Docker -----------------------------------------------------------


def _builder_sources(dockerfile: Dockerfile, ignore: IgnoreRules, into: Path) -> None:
    """Lay out in ``into`` what the builder's COPY instructions put in its WORKDIR, from the
    files the build context would hold."""
    builder = _builder(dockerfile)
    assert builder.index("WORKDIR") < builder.index("COPY"), "COPY before WORKDIR"
    for flags, sources, destination in _copies(builder):
        assert "from" not in flags
        assert not destination.startswith("/"), "the builder copies into its WORKDIR"
        for source in sources:
            start = ROOT / source
            for path in ignore.files(ROOT, source):
                if start.is_dir():
                    target = into / destination / path.relative_to(start)
                elif destination.endswith("/"):
                    target = into / destination / path.name
                else:
                    target = into / destination
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, target)


def _project(path: Path) -> dict[str, Any]:
    with (path / "pyproject.toml").open("rb") as file:
        return tomllib.load(file)


def _wheel_names(
    pyproject: dict[str, Any], root: Path, ignore: IgnoreRules, where: str = "."
) -> tuple[set[str], set[str]]:
    """A project's top-level packages (as its package data names them) and the module files
    its wheel must hold (its packages' .py files in the build context)."""
    setuptools = pyproject["tool"]["setuptools"]
    packages = {name.split(".")[0] for name in setuptools["package-data"]}
    modules = {
        path.relative_to(root / where / found).as_posix()
        for found in setuptools["packages"]["find"]["where"]
        for path in ignore.files(root, (Path(where) / found).as_posix())
        if path.suffix == ".py"
    }
    return packages, {m for m in modules if m.split("/")[0] in packages}


def test_the_builder_stage_builds_complete_wheels(
    dockerfile: Dockerfile, ignore: IgnoreRules, pyproject: dict[str, Any], tmp_path: Path
) -> None:
    """``pip install ./clients/python .`` in the builder, reproduced: wheels built from the
    copied sources hold, the service's, every module and the console script, the client's, the
    generated stubs and the descriptor set; together they import."""
    source, wheels, unpacked = tmp_path / "src", tmp_path / "wheels", tmp_path / "site"
    _builder_sources(dockerfile, ignore, source)
    built = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"),
            *("--no-index", "--disable-pip-version-check", "--quiet"),
            *("--wheel-dir", str(wheels), str(source / CLIENT), str(source)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (service,) = wheels.glob("hanafuda_referee-*.whl")
    (client,) = wheels.glob("hanafuda_referee_client-*.whl")
    contents = {}
    for wheel, project, where in (
        (service, pyproject, "."),
        (client, _project(ROOT / CLIENT), CLIENT),
    ):
        with zipfile.ZipFile(wheel) as archive:
            names = set(archive.namelist())
            archive.extractall(unpacked)
        contents[wheel] = names
        packages, modules = _wheel_names(project, ROOT, ignore, where)
        assert modules <= names, modules - names
        # Pure Python: no extension module of the project's own.
        assert not [n for n in names if n.endswith(tuple(EXTENSION_SUFFIXES))]
        assert not [n for n in names if "__pycache__" in n]
        top_level = {name.split("/")[0] for name in names}
        assert {t for t in top_level if not t.endswith(".dist-info")} == packages
    for required in ("hanafuda_referee/cli.py", "hanafuda_referee/py.typed"):
        assert required in contents[service]
    for required in (
        "hanafuda/v1/service_pb2.py",
        "hanafuda/v1/service_pb2_grpc.py",
        "hanafuda/v1/service_pb2.pyi",
        "hanafuda/v1/descriptor_set.binpb",
        "hanafuda_client/py.typed",
    ):
        assert required in contents[client]
    descriptors = ROOT / "clients/python/hanafuda/v1/descriptor_set.binpb"
    assert (unpacked / "hanafuda/v1/descriptor_set.binpb").read_bytes() == descriptors.read_bytes()
    (entry_points,) = unpacked.glob("hanafuda_referee-*.dist-info/entry_points.txt")
    assert f"{SCRIPT} = hanafuda_referee.cli:main" in entry_points.read_text()

    # The unpacked wheels import on their own, and the HTTP layer finds its packaged descriptors.
    check = (
        "import pathlib, sys, hanafuda_referee, hanafuda.v1.service_pb2, hanafuda_client\n"
        "from hanafuda_referee.http import openapi\n"
        "for module in (hanafuda_referee, hanafuda.v1.service_pb2, hanafuda_client):\n"
        "    assert pathlib.Path(module.__file__).is_relative_to(sys.argv[1]), module\n"
        "assert openapi.load_comments(), 'descriptor set not found'\n"
    )
    environment = {**os.environ, "PYTHONPATH": str(unpacked)}
    imported = subprocess.run(
        [sys.executable, "-c", check, str(unpacked)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert imported.returncode == 0, imported.stderr
