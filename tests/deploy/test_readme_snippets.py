"""Every example of the deploy READMEs (``deploy/**/README.md``), followed as a reader follows
it, top to bottom: each fenced block and each command written in the prose is run, rendered or
checked against the files it names, so that an example that stops working fails here.

What "checked" means for each kind of command, without a Docker engine or a cluster:

- run as written, in a scratch directory that sees the repository's files: ``export``,
  ``mkdir``, ``cat`` with its here-document, ``kubectl kustomize`` (pipelines included), and
  ``kubectl create`` with ``--dry-run=client -o yaml`` added (it needs no server);
- ``kubectl apply -k`` and ``kubectl delete -k``: the kustomization is rendered and every object
  validated against the Kubernetes API schemas offline. ``--dry-run=client`` cannot stand in:
  even a client-side dry run asks an API server for its resource types ("unable to recognize
  ...: connection refused" without one);
- the other ``kubectl`` commands (``rollout status``, ``wait``, ``logs``, ``get``, ``delete``,
  ``top``, ``port-forward``): the namespace, and each object, selector or port they name, are
  the rendered manifests' (in the overlay a trailing comment names, else in every overlay);
- ``curl`` and ``grpcurl``: sent to live referees standing for the ports the example uses (the
  compose file's published ports, or ``kubectl port-forward``'s), after their route is found in
  the OpenAPI document or their method through server reflection (as grpcurl finds it); the
  expected answer written under a command (``# -> {...}``) is held against the real one;
- ``docker build``, ``push`` and ``run``, ``docker compose``, ``kind``, ``minikube``: the files,
  build arguments, images, ports, services, settings, subcommands and health-check programs
  they name are the Dockerfile's, the compose file's, the manifests' and the CLI's;
- YAML blocks: parts of a kustomization are added to the reader's own overlay (made by the
  README's step 2), rendered, and must change something and stay valid; the prometheus-adapter
  rules name the workers' metrics.

A command that none of these checks knows fails the test, unless :data:`UNCHECKED` lists it
with the reason it cannot be checked here.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import httpx
import kubernetes_validate  # type: ignore[import-untyped]  # no type hints
import pytest
import yaml  # type: ignore[import-untyped]
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (  # type: ignore[import-untyped]
    ProtoReflectionDescriptorDatabase,
)

from hanafuda_referee.config import Config
from hanafuda_referee.store.factory import parse_store_url
from tests.system.processes import RefereeProcess, referee_command
from tests.system.shared_redis import SHARED_REDIS_URL, owned_prefix

from . import bot_workers
from .bot_workers import SETTINGS
from .compose import load_compose
from .dockerfile import Dockerfile
from .kubernetes import KUBECTL, KUBERNETES, KUSTOMIZATIONS, Manifests, render, selects
from .markdown import Block, Command, code_blocks, commands, inline_spans
from .test_kubernetes import KUBERNETES_VERSIONS

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
#: Every README of the deployment files.
READMES = tuple(sorted(path.relative_to(ROOT).as_posix() for path in DEPLOY.rglob("README.md")))

pytestmark = pytest.mark.skipif(
    KUBECTL is None, reason="kubectl is not installed: the manifests cannot be rendered"
)

#: Commands and blocks of the READMEs no check here can hold, each with its reason: (README, the
#: command as written, or a block's first line) -> why. One neither checked nor listed fails the
#: test.
UNCHECKED: dict[tuple[str, str], str] = {
    ("deploy/kubernetes/README.md", "redis-cli --cluster add-node"): (
        "an operation by hand on a live Redis Cluster, which no file here runs; named only as "
        "what growing the cluster takes"
    ),
}

#: The programs whose mention in the prose, as inline code, is a command to check.
_PROGRAMS = frozenset(
    {
        ".venv/bin/python",
        "apt-get",
        "curl",
        "docker",
        "grpcurl",
        "hanafuda-referee",
        "kind",
        "kubectl",
        "minikube",
        "pip",
        "redis-cli",
        # None of the READMEs' commands yet: named so that one written later is not taken
        # for prose (and fails until a check knows it).
        "bash",
        "helm",
        "kustomize",
        "openssl",
        "python",
        "python3",
        "redis-server",
        "sh",
    }
)
#: kubectl's names of the resources the READMEs name, as the manifests spell their kinds.
_RESOURCES = {
    "deployment": "Deployment",
    "job": "Job",
    "namespace": "Namespace",
    "pods": "Pod",
    "pvc": "PersistentVolumeClaim",
    "service": "Service",
    "statefulset": "StatefulSet",
    "storageclass": "StorageClass",
}
#: The kubectl commands the prose may name alone (``kubectl kustomize``, ``kubectl apply -k``).
_KUBECTL_NAMED = frozenset({"apply", "create", "kustomize"})
_ROLLOUT_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet"})
_PLACEHOLDER = re.compile(r"<[^<>]+>")


def _namespace() -> str:
    kustomization = yaml.safe_load((KUBERNETES / "base" / "kustomization.yaml").read_text())
    namespace: str = kustomization["namespace"]
    return namespace


@functools.cache
def _subcommand_exists(subcommand: str) -> bool:
    """Whether ``hanafuda-referee <subcommand>`` is a command of the CLI (its --help answers)."""
    done = subprocess.run(
        [*referee_command(), subcommand, "--help"], capture_output=True, timeout=60, check=False
    )
    return done.returncode == 0


def _dockerfile() -> Dockerfile:
    return Dockerfile.read(ROOT / "Dockerfile")


def _image_version() -> str:
    return _dockerfile().stages[-1].labels()["org.opencontainers.image.version"]


def _validate(objects: tuple[dict[str, Any], ...] | list[dict[str, Any]], where: str) -> None:
    for item in objects:
        for version in KUBERNETES_VERSIONS:
            try:
                kubernetes_validate.validate(item, version, strict=True)
            except kubernetes_validate.ValidationError as error:
                raise AssertionError(
                    f"{where}: {item['kind']} {item['metadata']['name']} is not valid for "
                    f"Kubernetes {version}: {error}"
                ) from error


# -- live referees -----------------------------------------------------------------------------


@dataclass
class Live:
    """Two referee processes over one Redis and one key prefix, as two replicas of the compose
    file or two pods of the Deployment: they stand for whatever the examples reach on a port."""

    replicas: list[RefereeProcess]
    _document: dict[str, Any] | None = None

    def target(self, role: str) -> RefereeProcess:
        """The process standing for the compose service or pod ``role`` (the load balancer and
        a port-forwarded pod are one of the replicas: HAProxy itself is run by
        test_compose)."""
        return self.replicas[1] if role == "referee-b" else self.replicas[0]

    @property
    def document(self) -> dict[str, Any]:
        if self._document is None:
            answer = httpx.get(f"{self.replicas[0].http_url}/openapi.json", timeout=10)
            answer.raise_for_status()
            self._document = answer.json()
        return self._document


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    directory = tmp_path_factory.mktemp("live")
    with owned_prefix() as prefix:
        env = {"REDIS_URL": SHARED_REDIS_URL, "HANAFUDA_KEY_PREFIX": prefix}
        replicas = [
            RefereeProcess(directory, env=env, allow_testing=False, name=name)
            for name in ("referee-a", "referee-b")
        ]
        try:
            for replica in replicas:
                replica.start()
            yield Live(replicas)
        finally:
            for replica in replicas:
                replica.stop()


# -- the reader's session -------------------------------------------------------------------------


@dataclass
class Session:
    """What a reader following one README has made so far: a scratch directory beside links to
    the repository's files (where the examples run), the variables exported, the images built,
    the compose file started, the ports forwarded, the objects ``kubectl create`` made, and the
    placeholders an earlier answer filled in."""

    readme: str
    sandbox: Path
    live: Live
    env: dict[str, str] = field(default_factory=dict)
    built: set[str] = field(default_factory=set)
    compose: str | None = None
    #: Local port -> (the pod or compose service it reaches, the container port).
    forwarded: dict[int, tuple[str, int]] = field(default_factory=dict)
    created: list[dict[str, Any]] = field(default_factory=list)
    placeholders: dict[str, str] = field(default_factory=dict)
    #: What was checked, one line per command (shown when a check fails).
    checked: list[str] = field(default_factory=list)

    def run(self, source: str, *, kubectl_dry_run: bool = False) -> str:
        """Runs shell text as written in the scratch directory, with the variables exported so
        far; its standard output. ``kubectl_dry_run``: kubectl only prints what it would do."""
        prelude = ""
        if kubectl_dry_run:
            prelude = 'kubectl() { command kubectl "$@" --dry-run=client -o yaml; }\n'
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", prelude + source],
            cwd=self.sandbox,
            env={
                **os.environ,
                **self.env,
                # No cluster: a kubectl that tried to reach one would fail, not find one.
                "KUBECONFIG": str(self.sandbox / ".kubeconfig"),
            },
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, f"{source}\nexited {done.returncode}:\n{done.stderr}"
        return done.stdout

    def kustomization(self, directory: str) -> Path:
        path = self.sandbox / directory
        assert (path / "kustomization.yaml").is_file(), f"{directory} is no kustomization"
        return path

    def render(self, directory: str) -> tuple[dict[str, Any], ...]:
        output = self.run(f"kubectl kustomize {shlex.quote(directory)}")
        return tuple(d for d in yaml.safe_load_all(output) if d)

    def compose_services(self) -> dict[str, dict[str, Any]]:
        assert self.compose is not None, "no compose file started before this command"
        services: dict[str, dict[str, Any]] = load_compose(ROOT / self.compose, self.env)[
            "services"
        ]
        return services

    def endpoint(self, address: str) -> tuple[RefereeProcess, int]:
        """The live process and the container port that ``host:port`` reaches."""
        host, _, port_text = address.rpartition(":")
        assert host in ("localhost", "127.0.0.1"), f"{address}: not this machine"
        port = int(port_text)
        if port in self.forwarded:
            role, container_port = self.forwarded[port]
            return self.live.target(role), container_port
        for name, service in self.compose_services().items():
            for published in service.get("ports", []):
                host_port, _, target = str(published).rpartition(":")
                if host_port == str(port):
                    return self.live.target(name), int(target)
        raise AssertionError(f"nothing the README started answers on {address}")

    def url(self, address: str) -> str:
        process, container_port = self.endpoint(address)
        defaults = Config()
        assert container_port == defaults.http_port, f"{address} is not the HTTP port"
        return process.http_url

    def grpc_target(self, address: str) -> str:
        process, container_port = self.endpoint(address)
        assert container_port == Config().grpc_port, f"{address} is not the gRPC port"
        return process.grpc_target

    def fill(self, text: str) -> str:
        """``text`` with the placeholders an earlier answer gave values to filled in."""
        for placeholder, value in self.placeholders.items():
            text = text.replace(placeholder, value)
        left = _PLACEHOLDER.findall(text)
        assert not left, f"no earlier answer gives {left}"
        return text


@dataclass(frozen=True, slots=True)
class Example:
    """One command to check: the README's line, the command and where it came from."""

    line: int
    command: Command
    inline: bool = False


def _examples(readme: str) -> list[Block | Example]:
    """The README's blocks that are not shell, and the commands of its shell blocks and of its
    prose, in the order of the text."""
    text = (ROOT / readme).read_text()
    items: list[tuple[int, Block | Example]] = []
    for block in code_blocks(text):
        if block.language in ("sh", "bash", "shell", "console"):
            for command in commands(block.text):
                line = block.line + command.line
                items.append((line, Example(line, command)))
        else:
            items.append((block.line, block))
    for span in inline_spans(text):
        words = span.text.split()
        if words[0].startswith("scripts/") or (words[0] in _PROGRAMS and len(words) > 1):
            command = Command(span.text, span.line, span.text + "\n")
            items.append((span.line, Example(span.line, command, inline=True)))
    return [item for _, item in sorted(items, key=lambda pair: pair[0])]


# -- the checks of each command ------------------------------------------------------------------


class Unknown(AssertionError):
    """A command, flag or block that no check here knows."""


def _flags(
    words: list[str], with_value: set[str], alone: set[str]
) -> tuple[dict[str, list[str]], list[str]]:
    """``words`` as options (each flag to its values, ``--flag=value`` and ``-f value`` alike)
    and positional words; a flag of neither set fails as unknown."""
    options: dict[str, list[str]] = {}
    positional: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if not word.startswith("-") or word == "-":
            positional.append(word)
            continue
        name, equals, value = word.partition("=")
        if name in with_value:
            if not equals:
                value = words[index]
                index += 1
            options.setdefault(name, []).append(value)
        elif name in alone and not equals:
            options.setdefault(name, []).append("")
        else:
            raise Unknown(f"no check knows the flag {word}")
    return options, positional


def _python_program(words: list[str]) -> str:
    """The program of ``python -c PROGRAM``; it must compile."""
    assert words[:2] == ["python", "-c"] and len(words) == 3, f"not python -c: {words}"
    compile(words[2], "<README>", "exec")
    return words[2]


def _asked(program: str) -> list[tuple[int, str]]:
    """The (port, path) of every local URL a program asks."""
    return [
        (int(port), path)
        for port, path in re.findall(r"http://127\.0\.0\.1:(\d+)(/[\w/]*)", program)
    ]


def check_docker(session: Session, example: Example, words: list[str]) -> str:
    if words[1] == "compose":
        return check_compose(session, example, words[2:])
    subcommand, rest = words[1], words[2:]
    if subcommand == "build":
        options, positional = _flags(rest, {"-t", "--build-arg"}, set())
        (context,) = positional
        dockerfile = Dockerfile.read(ROOT / context / "Dockerfile")
        declared = dict(dockerfile.global_arguments)
        for argument in options.get("--build-arg", []):
            name, _, value = argument.partition("=")
            assert name in declared, f"the Dockerfile declares no ARG {name}"
            # A digest pins the image the Dockerfile names by tag, not another one.
            assert value.split("@")[0] == declared[name], (value, declared[name])
        for tag in options.get("-t", []):
            name, _, version = tag.rpartition(":") if ":" in tag else (tag, "", "")
            if version:
                assert version == _image_version(), f"{tag}: the image is {_image_version()}"
            session.built.add(tag)
        return f"the Dockerfile in {context!r} declares its build arguments; tags {session.built}"
    if subcommand == "push":
        (tag,) = rest
        assert tag in session.built, f"{tag} was not built above"
        return f"{tag} was built above"
    if subcommand == "run":
        options, positional = _flags(
            rest, {"-p", "-e", "--stop-timeout", "--health-cmd"}, {"--rm", "-d"}
        )
        image, *arguments = positional
        assert image in session.built, f"{image} was not built above"
        if arguments:
            assert _subcommand_exists(arguments[0]), f"hanafuda-referee has no {arguments[0]}"
        environment = dict(e.split("=", 1) for e in options.get("-e", []))
        assert set(environment) <= SETTINGS, f"not settings: {set(environment) - SETTINGS}"
        config = Config.load(None, environment)
        if config.redis_url:
            parse_store_url(config.redis_url)
        exposed = {
            int(port)
            for expose in _dockerfile().stages[-1].all("EXPOSE")
            for port in expose.text.split()
        }
        for published in options.get("-p", []):
            container_port = int(published.rpartition(":")[2])
            assert container_port in exposed, f"{published}: the image exposes {exposed}"
            assert container_port in (config.http_port, config.grpc_port), published
        for timeout in options.get("--stop-timeout", []):
            assert float(timeout) > config.shutdown_grace, "no time left to drain"
        for health in options.get("--health-cmd", []):
            program = _python_program(shlex.split(health))
            workers = arguments[:1] == [bot_workers.COMMAND]
            for port, path in _asked(program):
                if workers:
                    assert port == config.bot_worker_health_port, port
                    assert path in bot_workers.HEALTH_PATHS, path
                else:
                    assert port == config.http_port, port
                    assert path in session.live.document["paths"], path
        return f"{image} was built; its command, settings, ports and health check are real"
    raise Unknown(f"no check knows docker {subcommand}")


def check_compose(session: Session, example: Example, words: list[str]) -> str:
    options, rest = _flags(words[:2], {"-f"}, set())
    (session.compose,) = (Path(f).as_posix() for f in options["-f"])
    assert (ROOT / session.compose).is_file(), f"no {session.compose}"
    services = session.compose_services()
    subcommand, rest = words[2], words[3:]
    if subcommand == "up":
        options, positional = _flags(rest, {"--scale"}, {"--build", "-d"})
        assert not positional, positional
        if "--build" in options:
            for service in services.values():
                if "build" in service:
                    context = (ROOT / session.compose).parent / service["build"]["context"]
                    assert (context / service["build"].get("dockerfile", "Dockerfile")).is_file()
        for scale in options.get("--scale", []):
            name, _, count = scale.partition("=")
            assert name in services, f"no service {name}"
            assert int(count) > 0
            # More than one container of a service: no fixed name, no published port.
            assert "container_name" not in services[name], name
            assert not services[name].get("ports"), f"{name} publishes ports: one at most"
        for service in services.values():
            url = (service.get("environment") or {}).get("REDIS_URL")
            if url:
                assert parse_store_url(url)
        return f"{session.compose} reads with {sorted(session.env)}; services {sorted(services)}"
    if subcommand == "down":
        options, positional = _flags(rest, set(), {"-v"})
        assert not positional, positional
        if "-v" in options:
            assert load_compose(ROOT / session.compose, session.env).get("volumes"), "no volume"
        return f"{session.compose}: a compose file with volumes"
    if subcommand == "exec":
        name, program, *arguments = rest
        assert name in services, f"{session.compose} has no service {name}"
        service = services[name]
        if program == "python":
            assert "build" in service, f"{name} does not run the image built here"
            code = _python_program([program, *arguments])
            environment = {k: str(v) for k, v in (service.get("environment") or {}).items()}
            config = Config.load(None, environment)
            workers = service.get("command") == [bot_workers.COMMAND]
            for port, path in _asked(code):
                assert workers and port == config.bot_worker_health_port, (name, port)
                assert path in (*bot_workers.HEALTH_PATHS, "/metrics"), path
        elif program == "redis-cli":
            assert str(service.get("image", "")).startswith("redis:"), f"{name} is no Redis"
            if arguments[:1] == ["cluster"]:
                command = service["command"]
                assert command[command.index("--cluster-enabled") + 1] == "yes", name
        else:
            raise Unknown(f"no check knows {program} in a service")
        return f"{name} is a service of {session.compose} that runs {program}"
    raise Unknown(f"no check knows docker compose {subcommand}")


def _objects(scope: str) -> list[tuple[str, Manifests]]:
    """The rendered kustomizations a command applies to: the overlay its comment names, or
    every overlay."""
    overlays = [k for k in KUSTOMIZATIONS if k.startswith("overlays/")]
    named = [k for k in overlays if scope and (scope == k or scope == k.split("/")[-1])]
    return [(k, render(k)) for k in (named or overlays)]


def _scope(example: Example) -> tuple[str, bool]:
    """Where a kubectl command's objects must be: the overlay its trailing comment names;
    without one, every overlay for a command of a block (a step of the deployment), and one
    overlay at least for a command of the prose (``data-redis-0``, ``or data-redis-cluster-0``).
    Returns the scope and whether every overlay in it must hold the objects."""
    return example.command.comment, not example.inline


def _object(reference: str, scope: tuple[str, bool]) -> str:
    """Checks that a kubectl ``kind/name`` names an object of the manifests."""
    resource, _, name = reference.partition("/")
    kind = _RESOURCES.get(resource)
    if kind is None:
        raise Unknown(f"no check knows the resource {resource}")
    if kind == "Namespace":
        assert name == _namespace(), f"the manifests' namespace is {_namespace()}"
        return name
    if not name:
        return resource
    named, every = scope
    holding = []
    for kustomization, manifests in _objects(named):
        if kind == "PersistentVolumeClaim":
            found = name in {
                f"{template['metadata']['name']}-{s['metadata']['name']}-{ordinal}"
                for s in manifests.of_kind("StatefulSet")
                for template in s["spec"].get("volumeClaimTemplates", [])
                for ordinal in range(s["spec"].get("replicas", 1))
            }
        else:
            found = manifests.get(kind, name) is not None
        assert found or not every, f"{kustomization} has no {kind} {name}"
        if found:
            holding.append(kustomization)
    assert holding, f"no overlay has a {kind} {name}"
    return f"{kind} {name} in {holding}"


def check_kubectl(session: Session, example: Example, words: list[str]) -> str:
    command = example.command
    words = words[1:]
    if words[:1] == ["-n"]:
        assert words[1] == _namespace(), f"the manifests' namespace is {_namespace()}"
        words = words[2:]
    if not words:
        raise Unknown("kubectl alone")
    subcommand, rest = words[0], words[1:]
    scope = _scope(example)
    if subcommand in _KUBECTL_NAMED and (not rest or rest == ["-k"]):
        # The prose names the command, with nothing to run.
        return f"kubectl {subcommand} {' '.join(rest)}, named"
    if subcommand == "kustomize":
        output = session.run(command.source)
        directory = session.kustomization(rest[0])
        kustomization = yaml.safe_load((directory / "kustomization.yaml").read_text())
        for image in kustomization.get("images", []):
            new = f"{image.get('newName', image['name'])}:{image.get('newTag', '')}"
            assert new in output, f"{new} is not in what {command.text} shows"
        return f"ran {command.text}"
    if subcommand in ("apply", "delete") and rest[0] == "-k":
        (applied,) = rest[1:]
        objects = session.render(applied)
        assert objects, f"{applied} renders nothing"
        _validate(objects, applied)
        return f"{applied} renders {len(objects)} valid objects"
    if subcommand == "create":
        output = session.run(command.source, kubectl_dry_run=True)
        made = [d for d in yaml.safe_load_all(output) if d]
        for item in made:
            if item["kind"] != "Namespace":
                assert item["metadata"]["namespace"] == _namespace(), item["metadata"]
            else:
                assert item["metadata"]["name"] == _namespace(), item["metadata"]
        session.created.extend(made)
        return f"made (dry run) {[(d['kind'], d['metadata']['name']) for d in made]}"
    if subcommand == "rollout":
        assert rest[0] == "status", rest
        (reference,) = rest[1:]
        checked = _object(reference, scope)
        assert _RESOURCES[reference.split("/")[0]] in _ROLLOUT_KINDS, reference
        return checked
    if subcommand == "wait":
        options, (reference,) = _flags(rest, {"--for", "--timeout"}, set())
        (condition,) = options["--for"]
        kind = _RESOURCES[reference.split("/")[0]]
        assert kind == "Job" and condition in ("condition=complete", "condition=failed"), condition
        return _object(reference, scope)
    if subcommand == "logs":
        (reference,) = rest
        return _object(reference, scope)
    if subcommand in ("get", "delete", "top"):
        options, positional = _flags(rest, {"-l", "--raw"}, set())
        if "--raw" in options:
            (path,) = options["--raw"]
            found = re.fullmatch(
                r"/apis/external\.metrics\.k8s\.io/v1beta1/namespaces/([^/]+)/(\w+)", path
            )
            assert found, f"{path}: not an external metric"
            assert found[1] == _namespace() and found[2] in bot_workers.METRICS, path
            return f"the external metric {found[2]} the workers export"
        resource, *names = positional
        named = [_object(f"{resource}/{name}", scope) for name in names or [""]]
        for selector in options.get("-l", []):
            labels = dict(pair.split("=", 1) for pair in selector.split(","))
            for kustomization, manifests in _objects(scope[0]):
                pods = [p for p in manifests.pods() if selects({"matchLabels": labels}, p.labels)]
                assert pods, f"{selector} selects no pod of {kustomization}"
        return f"{named}"
    if subcommand == "port-forward":
        reference, *ports = [w for w in rest if w != "&"]
        _object(reference, scope)
        service = render("base").one("Service", reference.partition("/")[2])
        (workload,) = (
            p
            for p in render("base").pods()
            if selects({"matchLabels": service["spec"]["selector"]}, p.labels)
        )
        container_ports = {
            port["name"]: port["containerPort"]
            for container in workload.containers
            for port in container.get("ports", [])
        }
        for mapping in ports:
            local, _, remote = mapping.partition(":")
            (exposed,) = (p for p in service["spec"]["ports"] if str(p["port"]) == remote)
            target = exposed.get("targetPort", exposed["port"])
            session.forwarded[int(local)] = (workload.name, container_ports.get(target, target))
        return f"{reference} forwards {session.forwarded}"
    raise Unknown(f"no check knows kubectl {subcommand}")


def _curl(words: list[str]) -> tuple[str, str, dict[str, str], str | None]:
    options, positional = _flags(
        words[1:], {"-X", "--request", "-H", "--header", "-d", "--data"}, {"-s", "--silent"}
    )
    (address,) = positional
    bodies = options.get("-d", []) + options.get("--data", [])
    body = bodies[0] if bodies else None
    method = (options.get("-X") or options.get("--request") or ["POST" if body else "GET"])[0]
    headers: dict[str, str] = {}
    for header in options.get("-H", []) + options.get("--header", []):
        name, _, value = header.partition(":")
        headers[name.strip()] = value.strip()
    return method, address, headers, body


def _route(document: dict[str, Any], method: str, path: str) -> str:
    """The OpenAPI path template that serves ``method path``."""
    for template, operations in document["paths"].items():
        pattern = re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(template))
        if re.fullmatch(pattern, path) and method.lower() in operations:
            return str(template)
    raise AssertionError(f"the OpenAPI document has no {method} {path}")


def check_curl(session: Session, example: Example, words: list[str]) -> str:
    method, address, headers, body = _curl([session.fill(w) for w in words])
    location, _, path = address.partition("/")
    path = "/" + path
    template = _route(session.live.document, method, urlsplit(path).path)
    if body is not None:
        json.loads(body)
        assert headers.get("content-type") == "application/json", headers
    answer = httpx.request(
        method,
        session.url(location) + path,
        headers=headers,
        content=body.encode() if body is not None else None,
        timeout=10,
    )
    assert answer.is_success, f"{method} {path}: {answer.status_code} {answer.text}"
    for note in example.command.notes:
        if note.startswith("->"):
            _expect(session, note[2:].strip(), answer.json())
    return f"{method} {template} answered {answer.status_code}"


def _expect(session: Session, expected: str, answer: dict[str, Any]) -> None:
    """Holds an answer against the one written under its command (``{"key": "<name>", "list":
    ["<name>", ...], ...}``), and names its placeholders after the real values."""
    for key in re.findall(r'"(\w+)":', expected):
        assert key in answer, f"the answer has no {key}: {sorted(answer)}"
    for key, placeholder in re.findall(r'"(\w+)": "(<[^<>]+>)"', expected):
        session.placeholders[placeholder] = str(answer[key])
    for key, placeholder in re.findall(r'"(\w+)": \["(<[^<>]+>)"', expected):
        session.placeholders[placeholder] = str(answer[key][0])


def check_grpcurl(session: Session, example: Example, words: list[str]) -> str:
    options, positional = _flags(words[1:], set(), {"-plaintext"})
    assert "-plaintext" in options, "the referee's port speaks plain text here"
    address, full_method = positional
    service_name, _, method_name = full_method.partition("/")
    with grpc.insecure_channel(session.grpc_target(address)) as channel:
        # As grpcurl finds a method without a .proto file: through server reflection.
        pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))
        method = pool.FindServiceByName(service_name).FindMethodByName(method_name)
        request = message_factory.GetMessageClass(method.input_type)
        response = message_factory.GetMessageClass(method.output_type)
        call = channel.unary_unary(
            f"/{service_name}/{method_name}",
            request_serializer=request.SerializeToString,
            response_deserializer=response.FromString,
        )
        answer = call(request(), timeout=10)
    return f"{full_method} answered {json_format.MessageToJson(answer)}"


def check_cluster_image_load(session: Session, example: Example, words: list[str]) -> str:
    if words[:3] == ["kind", "load", "docker-image"] or words[:3] == ["minikube", "image", "load"]:
        (image,) = words[3:]
        names = {
            container["image"]
            for pod in render("base").pods()
            for container in pod.containers
            if container["image"].startswith("hanafuda-referee")
        }
        assert names == {image}, f"the manifests name {names}"
        return f"the manifests name {image}"
    raise Unknown(f"no check knows {' '.join(words[:3])}")


def check_script(session: Session, example: Example, words: list[str]) -> str:
    script = ROOT / words[0]
    assert script.is_file() and os.access(script, os.X_OK), f"no executable {words[0]}"
    for flag in words[1:]:
        assert flag.startswith("--") and flag in script.read_text(), f"{words[0]} has no {flag}"
    return f"{words[0]} exists and takes {words[1:]}"


def check_referee(session: Session, example: Example, words: list[str]) -> str:
    (subcommand,) = words[1:]
    assert _subcommand_exists(subcommand), f"hanafuda-referee has no {subcommand}"
    return f"hanafuda-referee {subcommand} --help answers"


def check_pip(session: Session, example: Example, words: list[str]) -> str:
    # The README says how the Dockerfile installs the project: it must be one of its RUNs.
    runs = [
        " ".join(re.sub(r"--python \S+ ", "", run.text).split())
        for stage in _dockerfile().stages
        for run in stage.all("RUN")
    ]
    assert any(" ".join(words) in run for run in runs), f"no RUN {' '.join(words)}: {runs}"
    return "a RUN of the Dockerfile"


def check_apt_get(session: Session, example: Example, words: list[str]) -> str:
    assert words[1] == "install", words
    (package,) = words[2:]
    script = (ROOT / "scripts" / "test").read_text()
    assert re.search(rf"apt-get install [^\n]*\b{package}\b", script), f"scripts/test: {package}"
    return f"scripts/test installs {package} the same way"


def check_redis_cli(session: Session, example: Example, words: list[str]) -> str:
    script = (KUBERNETES / "overlays" / "redis-cluster" / "create-cluster.sh").read_text()
    pattern = r"^\s*redis-cli\b.*" + re.escape(" ".join(words[1:]))
    assert re.search(pattern, script, re.MULTILINE), f"create-cluster.sh does not run {words}"
    return "create-cluster.sh runs it"


def check_pytest(session: Session, example: Example, words: list[str]) -> str:
    options, positional = _flags(words[1:], {"-m"}, {"-q"})
    assert options["-m"] == ["pytest"] and words[0] == ".venv/bin/python", words
    # Not run from here: it is a module of this suite, which runs it anyway.
    for path in positional:
        assert (ROOT / path).is_file() and Path(path).name.startswith("test_"), path
    return f"{positional} are modules of this suite"


def check_run(session: Session, example: Example, words: list[str]) -> str:
    session.run(example.command.source)
    return f"ran {example.command.text}"


def check_export(session: Session, example: Example, words: list[str]) -> str:
    names = re.findall(r"\bexport (\w+)=", example.command.text)
    assert names, example.command.text
    shown = "".join(f'printf "%s\\0" "${name}"\n' for name in names)
    printed = session.run(example.command.source + shown)
    session.env.update(zip(names, printed.split("\0")[:-1], strict=True))
    assert all(session.env[n] for n in names), "an empty value"
    return f"exported {names}"


_CHECKS: dict[str, Callable[[Session, Example, list[str]], str]] = {
    ".venv/bin/python": check_pytest,
    "apt-get": check_apt_get,
    "cat": check_run,
    "curl": check_curl,
    "docker": check_docker,
    "export": check_export,
    "grpcurl": check_grpcurl,
    "hanafuda-referee": check_referee,
    "kind": check_cluster_image_load,
    "kubectl": check_kubectl,
    "minikube": check_cluster_image_load,
    "mkdir": check_run,
    "pip": check_pip,
    "redis-cli": check_redis_cli,
}
#: The commands run as written, whose pipelines are therefore run whole.
_RUN_WHOLE = frozenset({"cat", "export", "mkdir", "kubectl"})


def check_command(session: Session, example: Example) -> str:
    command = example.command
    if (session.readme, command.text) in UNCHECKED:
        return f"unchecked: {UNCHECKED[session.readme, command.text]}"
    pipeline = command.pipeline
    words = pipeline[0]
    program = "scripts/" if words[0].startswith("scripts/") else words[0]
    check = check_script if program == "scripts/" else _CHECKS.get(program)
    if check is None:
        raise Unknown(f"no check knows {program}: add one, or list it in UNCHECKED with why")
    assert len(pipeline) == 1 or program in _RUN_WHOLE, f"a pipeline of {program} is not run"
    return check(session, example, words)


# -- the YAML blocks ----------------------------------------------------------------------------

#: The fields of a kustomization a README may show as part of the reader's overlay.
_KUSTOMIZATION_FIELDS = frozenset({"configMapGenerator", "images", "patches", "resources"})


def check_yaml(session: Session, block: Block) -> str:
    document = yaml.safe_load(block.text)
    assert isinstance(document, dict), f"line {block.line}: not a mapping"
    if set(document) <= _KUSTOMIZATION_FIELDS:
        return check_overlay_part(session, block, document)
    if set(document) == {"externalRules"}:
        return check_adapter_rules(document["externalRules"])
    raise Unknown(f"no check knows a YAML block of {sorted(document)}")


def check_overlay_part(session: Session, block: Block, part: dict[str, Any]) -> str:
    """Adds the block to the reader's overlay (``my-deploy``, from step 2) and renders it."""
    base = "my-deploy" if (session.sandbox / "my-deploy").is_dir() else None
    if base is None:
        kustomization: dict[str, Any] = {
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": ["../deploy/kubernetes/overlays/redis"],
        }
    else:
        kustomization = yaml.safe_load((session.sandbox / base / "kustomization.yaml").read_text())
    before = (session.sandbox / f"before-{block.line}").resolve()
    after = (session.sandbox / f"after-{block.line}").resolve()
    for directory, extended in ((before, False), (after, True)):
        directory.mkdir()
        written = dict(kustomization)
        if extended:
            for key, value in part.items():
                written[key] = [*written.get(key, []), *value]
        (directory / "kustomization.yaml").write_text(yaml.safe_dump(written))
    plain, changed = session.render(before.name), session.render(after.name)
    assert changed != plain, f"line {block.line}: the block changes nothing"
    _validate(changed, f"line {block.line}")
    for generator in part.get("configMapGenerator", []):
        literals = dict(literal.split("=", 1) for literal in generator.get("literals", []))
        assert set(literals) <= SETTINGS, f"not settings: {set(literals) - SETTINGS}"
        Config.load(None, literals)
    return f"added to {base or 'an overlay'}, renders valid objects, changed"


def check_adapter_rules(rules: list[dict[str, Any]]) -> str:
    """prometheus-adapter's external rules: each names a metric the workers export, per
    namespace, with the adapter's own template fields."""
    for rule in rules:
        found = re.fullmatch(r"(\w+)\{namespace!=\"\"\}", rule["seriesQuery"])
        assert found and found[1] in bot_workers.METRICS, rule["seriesQuery"]
        assert rule["resources"]["overrides"] == {"namespace": {"resource": "namespace"}}
        fields = set(re.findall(r"<<\s*(\.\w+)\s*>>", rule["metricsQuery"]))
        assert fields <= {".Series", ".LabelMatchers", ".GroupBy"}, fields
    return f"{len(rules)} rules over the workers' metrics"


# -- the tests -----------------------------------------------------------------------------------


def _sandbox(directory: Path) -> Path:
    """A scratch directory that sees the repository's files: what the examples write stays in
    it."""
    for entry in ROOT.iterdir():
        if entry.name not in (".git",):
            (directory / entry.name).symlink_to(entry)
    (directory / ".kubeconfig").write_text("")
    return directory


@pytest.mark.parametrize("readme", READMES)
def test_every_example_of_the_readme_runs_or_is_checked(
    readme: str, live: Live, tmp_path: Path
) -> None:
    session = Session(readme, _sandbox(tmp_path), live)
    examples = _examples(readme)
    assert examples, f"{readme} shows no example"
    for item in examples:
        where = f"{readme}:{item.line}"
        try:
            if isinstance(item, Block) and (readme, item.first_line) in UNCHECKED:
                session.checked.append(f"{where}: unchecked: {UNCHECKED[readme, item.first_line]}")
            elif isinstance(item, Block):
                session.checked.append(f"{where}: {check_yaml(session, item)}")
            else:
                session.checked.append(f"{where}: {check_command(session, item)}")
        except (AssertionError, ValueError, KeyError) as error:
            done = "\n".join(session.checked)
            text = item.first_line if isinstance(item, Block) else item.command.text
            message = f"{where}: {text}\n{error}\n\nchecked before it:\n{done}"
            raise AssertionError(message) from error
    if readme == "deploy/kubernetes/README.md":
        _every_secret_the_pods_need_is_made(session)


def _every_secret_the_pods_need_is_made(session: Session) -> None:
    """The Secrets the README has the reader make are those the pods read (``CreateContainer
    ConfigError`` otherwise), with the keys they read."""
    made = {
        item["metadata"]["name"]: set(item.get("data") or {})
        for item in session.created
        if item["kind"] == "Secret"
    }
    for kustomization in KUSTOMIZATIONS:
        for pod in render(kustomization).pods():
            for container in pod.containers:
                for entry in container.get("env") or []:
                    reference = (entry.get("valueFrom") or {}).get("secretKeyRef")
                    if reference is None:
                        continue
                    keys = made.get(reference["name"], set())
                    assert reference["key"] in keys or reference.get("optional"), (
                        f"{kustomization}: {pod.name} reads {reference}, which the README "
                        f"does not make ({made})"
                    )
                    if reference["name"] in made:
                        assert reference["key"] in keys, (reference, made)


def test_every_unchecked_example_is_still_in_its_readme() -> None:
    for readme, text in UNCHECKED:
        examples = _examples(readme)
        assert any(
            (isinstance(e, Example) and e.command.text == text)
            or (isinstance(e, Block) and e.first_line == text)
            for e in examples
        ), f"{readme} no longer has {text}: drop it from UNCHECKED"


def test_a_command_or_block_no_check_knows_fails() -> None:
    session = Session("README.md", ROOT, Live([]))
    for text in (
        "helm install referee .",
        "kubectl scale deployment/x --replicas=3",
        "docker run --privileged hanafuda-referee",
    ):
        command = Command(text, 1, text + "\n")
        with pytest.raises(Unknown):
            check_command(session, Example(1, command))
    with pytest.raises(Unknown):
        check_yaml(session, Block(1, "yaml", "apiVersion: v1\nkind: ConfigMap\n"))
