"""The figures the deploy READMEs state (ports, replica and pod counts, sizes, limits, package
counts) against the files they describe: each is read from the README by a pattern and compared
with what the compose files, the rendered manifests, the Dockerfile, the lock and the service's
defaults hold. A figure that is a measurement, or someone else's, says so in :data:`FIGURES`
with where it comes from; a new figure of a kind the scan knows (a size, a count of pods,
replicas, nodes, packages..., a port) that no entry covers fails the test.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from hanafuda_referee.config import Config
from hanafuda_referee.grpc.server import IDLE_TIMEOUT
from hanafuda_referee.store.settings import StoreSettings

from .compose import HAProxyConfig, load_compose
from .dockerfile import Dockerfile
from .kubernetes import KUBECTL, KUBERNETES, Manifests, render
from .markdown import prose
from .test_kubernetes import KUBERNETES_VERSIONS
from .test_lock import _pins

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE = "deploy/README.md"
K8S = "deploy/kubernetes/README.md"

pytestmark = pytest.mark.skipif(
    KUBECTL is None, reason="kubectl is not installed: the manifests cannot be rendered"
)

_WORDS = {1: "one", 2: "two", 3: "three", 5: "five", 6: "six", 10: "ten"}
#: What the scan takes for a figure: a number (or a number word) with a unit of size, CPU or
#: count, or a bare number of four or five digits (a port, a user id).
_NUMBER = r"(?:\d[\d,]*(?:\.\d+)?|two|three|four|five|six|ten|a quarter|half)"
_UNIT = (
    r"(?:KB|MB|GB|MiB|GiB|Mi|Gi|ms|m\b|%|packages|cores?|pods?|replicas?|processes|nodes|"
    r"masters|streams|partitions|workers|CPU)"
)
_SCAN = re.compile(rf"(?<![\w.-])(?:{_NUMBER}\s?{_UNIT}|\d{{4,5}}(?![\d-]))")


def _word(number: float) -> str:
    return _WORDS[int(number)]


# -- what the files hold ---------------------------------------------------------------------


def _compose(name: str) -> dict[str, dict[str, Any]]:
    services: dict[str, dict[str, Any]] = load_compose(DEPLOY / name, {"REDIS_PASSWORD": "0" * 48})[
        "services"
    ]
    return services


def _compose_document(name: str) -> dict[str, Any]:
    return load_compose(DEPLOY / name, {"REDIS_PASSWORD": "0" * 48})


def _agreed(values: list[Any]) -> Any:
    """The one value both compose files (or every manifest) give."""
    assert len(set(map(str, values))) == 1, f"the files disagree: {values}"
    return values[0]


def _in_both(read: Callable[[dict[str, dict[str, Any]]], Any]) -> Any:
    return _agreed([read(_compose(name)) for name in ("compose.yaml", "compose.cluster.yaml")])


def _workers_service(services: dict[str, dict[str, Any]]) -> dict[str, Any]:
    (found,) = (s for s in services.values() if s.get("command") == ["bot-workers"])
    return found


def _published(service: dict[str, Any]) -> list[str]:
    """Its host ports, HTTP first then gRPC, as the container ports are."""
    by_container = {
        int(port.rpartition(":")[2]): port.rpartition(":")[0] for port in service["ports"]
    }
    defaults = Config()
    return [by_container[defaults.http_port], by_container[defaults.grpc_port]]


def _cluster_nodes() -> tuple[int, int]:
    """The Redis Cluster overlay's nodes and the replicas per master its Job asks for."""
    statefulset = render("overlays/redis-cluster").one("StatefulSet", "redis-cluster")
    script = (KUBERNETES / "overlays/redis-cluster/create-cluster.sh").read_text()
    found = re.search(r"--cluster-replicas (\d+)", script)
    assert found
    return statefulset["spec"]["replicas"], int(found[1])


def _compose_cluster_nodes() -> tuple[int, int]:
    services = _compose("compose.cluster.yaml")
    nodes = [n for n, s in services.items() if (s.get("command") or [""])[0] == "redis-server"]
    script = (KUBERNETES / "overlays/redis-cluster/create-cluster.sh").read_text()
    found = re.search(r"--cluster-replicas (\d+)", script)
    assert found
    return len(nodes), int(found[1])


def _referee(kustomization: str = "base") -> dict[str, Any]:
    container: dict[str, Any] = (
        render(kustomization).pod("Deployment", "hanafuda-referee").container("referee")
    )
    return container


def _workers(manifests: Manifests | None = None) -> dict[str, Any]:
    pod = (manifests or render("base")).pod("Deployment", "hanafuda-bot-workers")
    (container,) = pod.containers
    return container


def _autoscaler(name: str) -> dict[str, Any]:
    spec: dict[str, Any] = render("base").one("HorizontalPodAutoscaler", name)["spec"]
    return spec


def _cpu_target(name: str) -> int:
    (metric,) = (m for m in _autoscaler(name)["metrics"] if m["type"] == "Resource")
    value: int = metric["resource"]["target"]["averageUtilization"]
    return value


def _scale_down(name: str) -> tuple[int, int]:
    """Pods removed per minute at most, and the calm minutes before."""
    rules = _autoscaler(name)["behavior"]["scaleDown"]
    (policy,) = rules["policies"]
    assert policy["type"] == "Pods" and policy["periodSeconds"] == 60, policy
    return policy["value"], rules["stabilizationWindowSeconds"] // 60


def _millicores(quantity: str) -> int:
    return int(quantity[:-1]) if quantity.endswith("m") else int(float(quantity) * 1000)


def _mebibytes(quantity: str) -> int:
    units = {"Mi": 1, "Gi": 1024}
    return int(quantity[:-2]) * units[quantity[-2:]]


def _probe(kind: str) -> dict[str, Any]:
    probe: dict[str, Any] = _referee()[f"{kind}Probe"]
    return probe


def _redis_args(kustomization: str, name: str) -> list[str]:
    pod = render(kustomization).pod("StatefulSet", name)
    (container,) = (c for c in pod.containers if c["name"] == "redis")
    return [*container.get("command", []), *container.get("args", [])]


def _option(arguments: list[str], name: str) -> str:
    return arguments[arguments.index(f"--{name}") + 1]


def _haproxy_seconds(directive: str) -> int:
    """A timeout of haproxy.cfg's ``defaults``, in seconds."""
    (value,) = HAProxyConfig.read(DEPLOY / "haproxy.cfg").section("defaults").one(directive)
    found = re.fullmatch(r"(\d+)(ms|s|m|h)", value)
    assert found, value
    return int(found[1]) * {"ms": 0, "s": 1, "m": 60, "h": 3600}[found[2]]


def _seconds(redis_arguments: list[str]) -> str:
    """The ``cluster-node-timeout`` of a Redis node's arguments, in seconds."""
    return str(int(_option(redis_arguments, "cluster-node-timeout")) // 1000)


def _network_ports(kustomization: str, name: str) -> list[int]:
    policy = render(kustomization).one("NetworkPolicy", name)
    return sorted(
        {port["port"] for rule in policy["spec"].get("ingress", []) for port in rule["ports"]}
    )


def _image_user() -> str:
    user = Dockerfile.read(ROOT / "Dockerfile").stages[-1].last("USER").text
    uid, _, gid = user.partition(":")
    assert uid == gid, user
    return uid


def _env_file(name: str) -> dict[str, str]:
    lines = (KUBERNETES / "base" / name).read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line.strip() and not line.startswith("#"))


# -- the figures -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Figure:
    """A phrase of a README holding figures (its pattern's groups). ``expected`` gives, for a
    match, the groups the files make it; None with a ``reason`` when no file here holds it."""

    readme: str
    pattern: str
    expected: Callable[[re.Match[str]], tuple[str | None, ...]] | None
    reason: str = ""


def _measured(readme: str, pattern: str, reason: str) -> Figure:
    return Figure(readme, pattern, None, reason)


FIGURES: tuple[Figure, ...] = (
    # deploy/README.md: the compose files.
    Figure(
        COMPOSE,
        r"`compose\.yaml` here runs (two) replicas",
        lambda _: (
            _word(
                len(
                    [
                        s
                        for s in _compose("compose.yaml").values()
                        if "build" in s and "command" not in s
                    ]
                )
            ),
        ),
    ),
    Figure(
        COMPOSE,
        r"\| `(lb|referee-a|referee-b)` [^|]*\| `localhost:(\d+)` \| `localhost:(\d+)` \|",
        lambda found: (found[1], *_in_both(lambda services: _published(services[found[1]]))),
    ),
    Figure(
        COMPOSE,
        r"health and metrics on (\d+) inside|`HANAFUDA_BOT_WORKER_HEALTH_PORT`, (\d+)\)"
        r"|127\.0\.0\.1:(\d+)/metrics",
        lambda found: tuple(
            _in_both(
                lambda s: _workers_service(s)["environment"]["HANAFUDA_BOT_WORKER_HEALTH_PORT"]
            )
            if group is not None
            else None
            for group in found.groups()
        ),
    ),
    Figure(
        COMPOSE,
        r"\((172\.29\.80\.0/24); (172\.29\.81\.0/24) for the cluster variant\) with the "
        r"balancer at `(\.\d+)`",
        lambda _: (
            *(
                _compose_document(name)["networks"]["default"]["ipam"]["config"][0]["subnet"]
                for name in ("compose.yaml", "compose.cluster.yaml")
            ),
            "."
            + _in_both(lambda s: s["lb"]["networks"]["default"]["ipv4_address"].rpartition(".")[2]),
        ),
    ),
    Figure(
        COMPOSE,
        r"Its timeouts let a stream stay quiet for (an hour);",
        lambda _: (
            {3600: "an hour"}[
                _agreed([_haproxy_seconds(f"timeout {side}") for side in ("client", "server")])
            ],
        ),
    ),
    Figure(
        COMPOSE,
        r"`HANAFUDA_BOT_WORKER_PROCESSES` processes \((\d+)\), with (a quarter) of a replica's "
        r"CPU weight",
        lambda _: (
            _in_both(lambda s: _workers_service(s)["environment"]["HANAFUDA_BOT_WORKER_PROCESSES"]),
            # Docker's default weight is 1024.
            {0.25: "a quarter"}[_in_both(lambda s: _workers_service(s)["cpu_shares"]) / 1024],
        ),
    ),
    Figure(
        COMPOSE,
        r"(\d+) game creations a minute|(\d+) spectator streams per replica",
        lambda found: (
            f"{Config().create_rate:g}" if found[1] else None,
            str(Config().watchers_per_client) if found[2] else None,
        ),
    ),
    Figure(
        COMPOSE,
        r"its caps \((\d+) unfinished games, (\d+) with bots\)",
        lambda _: (str(Config().max_client_games), str(Config().max_client_bot_games)),
    ),
    Figure(
        COMPOSE,
        r"(Six) Redis nodes, `redis-0` to `redis-(\d)`.*? a cluster of (three) masters with one "
        r"replica each",
        lambda _: (
            _word(_compose_cluster_nodes()[0]).capitalize(),
            str(_compose_cluster_nodes()[0] - 1),
            _word(_compose_cluster_nodes()[0] / (_compose_cluster_nodes()[1] + 1)),
        ),
    ),
    Figure(
        COMPOSE,
        r"@redis-cluster:(\d+)`",
        lambda _: (
            _compose("compose.cluster.yaml")["referee-a"]["environment"]["REDIS_URL"]
            .rpartition(":")[2]
            .split("/")[0],
        ),
    ),
    Figure(
        COMPOSE,
        r"after the (\d+) s `cluster-node-timeout`",
        lambda _: (_seconds(_compose("compose.cluster.yaml")["redis-0"]["command"]),),
    ),
    Figure(
        COMPOSE,
        r"with the compose file's (\d+) MB, (\d+) MB, some ([\d,]+) moves",
        lambda _: _room(_option(_compose("compose.yaml")["redis"]["command"], "maxmemory")),
    ),
    Figure(
        COMPOSE,
        r"in (\d+) streams, `<prefix>|number of partitions \((\d+), "
        r"`StoreSettings\.bot_queue_partitions`\)",
        lambda found: tuple(
            str(StoreSettings().bot_queue_partitions) if group else None for group in found.groups()
        ),
    ),
    Figure(
        COMPOSE,
        r"The lock pins (\d+) packages",
        lambda _: (str(len(_pins())),),
    ),
    Figure(
        COMPOSE,
        r"UID and GID (\d+);",
        lambda _: (_image_user(),),
    ),
    # deploy/README.md: the settings table's defaults are checked by
    # test_the_settings_table_gives_the_images_defaults; its ports are figures of this scan.
    Figure(
        COMPOSE,
        r"\| `HANAFUDA_GRPC_PORT`, `HANAFUDA_HTTP_PORT` \| (\d+), (\d+) \||"
        r"\| `HANAFUDA_MAX_WATCHERS` \| (\d+) \||\| `HANAFUDA_BOT_WORKER_HEALTH_PORT` \| (\d+) \|",
        lambda found: tuple(
            value if group is not None else None
            for group, value in zip(
                found.groups(),
                (
                    str(Config().grpc_port),
                    str(Config().http_port),
                    str(Config().max_watchers),
                    str(Config().bot_worker_health_port),
                ),
                strict=True,
            )
        ),
    ),
    _measured(
        COMPOSE,
        r"about 44 KB of memory each",
        "a measurement of a running referee's memory per stream (docs/api.md says it too)",
    ),
    _measured(
        COMPOSE,
        r"about 50 ms of CPU for each expert move|its budget \(50 ms\)",
        "the expert's play-outs take about that on the reference machine "
        "(service/hanafuda_referee/bots/budget.py): a measurement, not a setting",
    ),
    _measured(
        COMPOSE,
        r"about 1\.3 KB \(Koi-Koi\) or 1\.4 KB|some 50 bytes each|about 5 KB per stream",
        "measured in Redis (MEMORY USAGE; docs/performance.md)",
    ),
    _measured(
        COMPOSE,
        r"`http://collector:4317`",
        "an example address on OTLP/gRPC's standard port",
    ),
    _measured(
        COMPOSE,
        r"on one 2-core machine \(three masters with a replica each, `cluster-node-timeout` "
        r"1000 ms",
        "the benchmark's machine and settings (tests/system/cluster.py NODE_TIMEOUT_MS; "
        "figures in docs/performance.md)",
    ),
    _measured(
        COMPOSE,
        r"the lock then held 35 packages",
        "what the lock held on the day of the timing (2026-11-27), a record of that run; the "
        "lock's count now is checked above",
    ),
    # deploy/kubernetes/README.md
    Figure(
        K8S,
        r"Kubernetes (\d\.\d+) or later \(the manifests are checked against the API of "
        r"(\d\.\d+) and of (\d\.\d+)\)",
        lambda _: (KUBERNETES_VERSIONS[0], *KUBERNETES_VERSIONS),
    ),
    Figure(
        K8S,
        r"a StatefulSet of (one) pod",
        lambda _: (
            _word(render("overlays/redis").one("StatefulSet", "redis")["spec"]["replicas"]),
        ),
    ),
    Figure(
        K8S,
        r"(six) nodes \((three) masters, a replica each\)|Redis nodes, `redis-cluster-0` to "
        r"`-(\d)`.*?a cluster of (three) masters with one replica each",
        lambda found: _cluster_figures(found),
    ),
    Figure(
        K8S,
        r"at its autoscaler's minimum of (\d+) pods",
        lambda _: (
            str(
                _agreed(
                    [
                        _autoscaler(n)["minReplicas"]
                        for n in ("hanafuda-referee", "hanafuda-bot-workers")
                    ]
                )
            ),
        ),
    ),
    Figure(
        K8S,
        r"the HTTP port \(`http`, (\d+)\) as an HTTP route, the gRPC port \(`grpc`, (\d+),",
        lambda _: tuple(
            str(
                next(
                    p["port"]
                    for p in render("base").one("Service", "hanafuda-referee")["spec"]["ports"]
                    if p["name"] == name
                )
            )
            for name in ("http", "grpc")
        ),
    ),
    Figure(
        K8S,
        r"\| startup \| `GET /healthz` on `http`, every (\d+) s, up to (\d+) s \|",
        lambda _: (
            str(_probe("startup")["periodSeconds"]),
            str(_probe("startup")["periodSeconds"] * _probe("startup")["failureThreshold"]),
        ),
    ),
    Figure(
        K8S,
        r"\| liveness \| gRPC health, overall status `\"\"`, on (\d+), every (\d+) s \|",
        lambda _: (
            str(_probe("liveness")["grpc"]["port"]),
            str(_probe("liveness")["periodSeconds"]),
        ),
    ),
    Figure(
        K8S,
        r"\| readiness \| `GET /readyz` on `http`, every (\d+) s \|",
        lambda _: (str(_probe("readiness")["periodSeconds"]),),
    ),
    Figure(
        K8S,
        r"keeps serving for (\d+) s \(`preStop`",
        lambda _: (_referee()["lifecycle"]["preStop"]["exec"]["command"][-1],),
    ),
    Figure(
        K8S,
        r"`HANAFUDA_SHUTDOWN_GRACE` \((\d+) s\)",
        lambda _: (f"{Config.load(None, _env_file('referee.env')).shutdown_grace:g}",),
    ),
    Figure(
        K8S,
        r"`terminationGracePeriodSeconds` \((\d+)\)",
        lambda _: (
            str(
                _agreed(
                    [
                        render("base").pod("Deployment", n).spec["terminationGracePeriodSeconds"]
                        for n in ("hanafuda-referee", "hanafuda-bot-workers")
                    ]
                )
            ),
        ),
    ),
    Figure(
        K8S,
        r"Requests of (\d+m) CPU and (\d+) MiB, limits of (one) CPU .{0,40}and (\d+) GiB",
        lambda _: (
            _referee()["resources"]["requests"]["cpu"],
            str(_mebibytes(_referee()["resources"]["requests"]["memory"])),
            _word(_millicores(_referee()["resources"]["limits"]["cpu"]) / 1000),
            str(_mebibytes(_referee()["resources"]["limits"]["memory"]) // 1024),
        ),
    ),
    Figure(
        K8S,
        r"the default `HANAFUDA_MAX_WATCHERS` of ([\d,]+) streams",
        lambda _: (f"{Config().max_watchers:,}",),
    ),
    Figure(
        K8S,
        r"The HorizontalPodAutoscaler keeps (\d+) to (\d+) pods, adding one when the pods' CPU "
        r"averages over (\d+)% of their request, and removes at most (one) a minute after "
        r"(five) calm minutes",
        lambda _: (
            str(_autoscaler("hanafuda-referee")["minReplicas"]),
            str(_autoscaler("hanafuda-referee")["maxReplicas"]),
            str(_cpu_target("hanafuda-referee")),
            *map(_word, _scale_down("hanafuda-referee")),
        ),
    ),
    Figure(
        K8S,
        r"lets a drain take (one) pod at a time",
        lambda _: (
            _word(
                render("base").one("PodDisruptionBudget", "hanafuda-referee")["spec"][
                    "maxUnavailable"
                ]
            ),
        ),
    ),
    Figure(
        K8S,
        r"the image's user \(UID (\d+)\)",
        lambda _: (
            _agreed(
                [str(pod.spec["securityContext"]["runAsUser"]) for pod in render("base").pods()]
                + [_image_user()]
            ),
        ),
    ),
    Figure(
        K8S,
        r"a (\d+) MiB in-memory `/tmp`",
        lambda _: (
            str(
                _mebibytes(
                    next(
                        v["emptyDir"]["sizeLimit"]
                        for v in render("base")
                        .pod("Deployment", "hanafuda-referee")
                        .spec["volumes"]
                        if "emptyDir" in v
                    )
                )
            ),
        ),
    ),
    Figure(
        K8S,
        r"bot workers', on (\d+)\.|own traffic \((\d+) and the bus, (\d+)\)",
        lambda found: (
            (str(_network_ports("overlays/redis", "redis-from-referee-only")[0]), None, None)
            if found[1]
            else (None, *map(str, _network_ports("overlays/redis-cluster", "redis-cluster-peers")))
        ),
    ),
    _measured(
        K8S,
        r"an idle referee holds about 85 MB, and each spectator's stream up to 44 KB",
        "measurements of a running referee's memory (docs/api.md gives the stream's too)",
    ),
    _measured(
        K8S,
        r"about 50 ms of CPU each|its 50 ms means",
        "the expert's play-outs take about that on the reference machine "
        "(service/hanafuda_referee/bots/budget.py): a measurement, not a setting",
    ),
    Figure(
        K8S,
        r"the workers' keeps (\d+) to (\d+) pods, adding one when their CPU averages over "
        r"(\d+m) \((\d+)% of the request, (\d+)% of the limit\), and removes at most (two) a "
        r"minute after (two) calm minutes",
        lambda _: _workers_autoscaling(),
    ),
    Figure(
        K8S,
        r"`HANAFUDA_BOT_WORKER_PROCESSES=(\d+)` in `base/bot-workers\.env`",
        lambda _: (_env_file("bot-workers.env")["HANAFUDA_BOT_WORKER_PROCESSES"],),
    ),
    Figure(
        K8S,
        r"a CPU limit of (one) core .{0,120}? and a request of (half),",
        lambda _: (
            _word(_millicores(_workers()["resources"]["limits"]["cpu"]) / 1000),
            {0.5: "half"}[
                _millicores(_workers()["resources"]["requests"]["cpu"])
                / _millicores(_workers()["resources"]["limits"]["cpu"])
            ],
        ),
    ),
    Figure(
        K8S,
        r"Memory: (\d+) MiB requested, (\d+) MiB at most",
        lambda _: (
            str(_mebibytes(_workers()["resources"]["requests"]["memory"])),
            str(_mebibytes(_workers()["resources"]["limits"]["memory"])),
        ),
    ),
    Figure(
        K8S,
        r"\(value (-?\d+), `preemptionPolicy: (\w+)`\) puts the workers below the referee's "
        r"pods \(priority (\d+)\)",
        lambda _: (
            str(render("base").one("PriorityClass", "hanafuda-bot-workers")["value"]),
            render("base").one("PriorityClass", "hanafuda-bot-workers")["preemptionPolicy"],
            # No priorityClassName: the cluster's default, 0 unless a global default is set.
            str(render("base").pod("Deployment", "hanafuda-referee").spec.get("priority", 0)),
        ),
    ),
    Figure(
        K8S,
        r"the health port `health` \((\d+),",
        lambda _: (
            str(next(p["containerPort"] for p in _workers()["ports"] if p["name"] == "health")),
        ),
    ),
    Figure(
        K8S,
        r"one Redis (\d\.\d) server.*?lives on a (\d+) GiB volume.*?`maxmemory` is (\d+) MB under "
        r"a (\d+) GiB memory limit",
        lambda _: _redis_overlay(),
    ),
    Figure(
        K8S,
        r"A master that stops answering for (\d+) s\s?\(`cluster-node-timeout`\)",
        lambda _: (_seconds(_redis_args("overlays/redis-cluster", "redis-cluster")),),
    ),
    _measured(
        K8S,
        r"meanwhile, about 8 s",
        "measured: 7.91 s (docs/performance.md, deploy/README.md)",
    ),
    Figure(
        K8S,
        r"the referee closes a connection idle for (\d+) minutes",
        lambda _: (f"{IDLE_TIMEOUT / 60:g}",),
    ),
    Figure(
        K8S,
        r"`dns:///hanafuda-referee-pods\.hanafuda\.svc\.cluster\.local:(\d+)`",
        lambda _: (
            str(
                next(
                    p["port"]
                    for p in render("base").one("Service", "hanafuda-referee-pods")["spec"]["ports"]
                    if p["name"] == "grpc"
                )
            ),
        ),
    ),
)


def _room(maxmemory: str) -> tuple[str, ...]:
    """The compose Redis's limit, the room the creation ceiling leaves under it, and the moves
    of some 100 bytes that fit in it (to one significant figure)."""
    megabytes = int(maxmemory.removesuffix("mb"))
    room = int(megabytes * (1 - Config().creation_memory_ceiling))
    moves = room * 2**20 / 100
    rounded = round(moves, -(int(math.log10(moves))))
    return str(megabytes), str(room), f"{int(rounded):,}"


def _cluster_figures(found: re.Match[str]) -> tuple[str | None, ...]:
    nodes, replicas = _cluster_nodes()
    masters = _word(nodes / (replicas + 1))
    if found[1]:
        return _word(nodes), masters, None, None
    return None, None, str(nodes - 1), masters


def _workers_autoscaling() -> tuple[str, ...]:
    name = "hanafuda-bot-workers"
    request = _millicores(_workers()["resources"]["requests"]["cpu"])
    limit = _millicores(_workers()["resources"]["limits"]["cpu"])
    target = request * _cpu_target(name) // 100
    return (
        str(_autoscaler(name)["minReplicas"]),
        str(_autoscaler(name)["maxReplicas"]),
        f"{target}m",
        str(_cpu_target(name)),
        str(target * 100 // limit),
        *map(_word, _scale_down(name)),
    )


def _redis_overlay() -> tuple[str, ...]:
    manifests = render("overlays/redis")
    pod = manifests.pod("StatefulSet", "redis")
    (container,) = (c for c in pod.containers if c["name"] == "redis")
    version = re.fullmatch(r"redis:(\d+\.\d+)[.-].*", container["image"])
    assert version, container["image"]
    (claim,) = manifests.one("StatefulSet", "redis")["spec"]["volumeClaimTemplates"]
    arguments = _redis_args("overlays/redis", "redis")
    return (
        version[1],
        str(_mebibytes(claim["spec"]["resources"]["requests"]["storage"]) // 1024),
        _option(arguments, "maxmemory").removesuffix("mb"),
        str(_mebibytes(container["resources"]["limits"]["memory"]) // 1024),
    )


def _text(readme: str) -> str:
    """The README's prose (fenced blocks left out: test_readme_snippets checks them), its
    whitespace made single spaces, so that a phrase wrapped over lines still matches."""
    return " ".join(prose((ROOT / readme).read_text()).split())


def _id(figure: Figure) -> str:
    return f"{Path(figure.readme).parent.name}:{figure.pattern[:40]}"


@pytest.mark.parametrize("figure", [f for f in FIGURES if f.expected is not None], ids=_id)
def test_each_figure_is_what_the_files_hold(figure: Figure) -> None:
    found = list(re.finditer(figure.pattern, _text(figure.readme)))
    assert found, f"{figure.readme} no longer says {figure.pattern!r}: update FIGURES"
    assert figure.expected is not None
    for match in found:
        assert match.groups() == figure.expected(match), (
            f"{figure.readme}: {match[0]!r} states {match.groups()}, the files hold "
            f"{figure.expected(match)}"
        )


def test_each_figure_no_file_holds_is_still_stated_and_says_why() -> None:
    for figure in FIGURES:
        if figure.expected is None:
            assert figure.reason, figure.pattern
            assert re.search(figure.pattern, _text(figure.readme)), (
                f"{figure.readme} no longer says {figure.pattern!r}: drop it from FIGURES"
            )


@pytest.mark.parametrize("readme", sorted({f.readme for f in FIGURES}))
def test_every_figure_of_the_readme_is_covered(readme: str) -> None:
    text = _text(readme)
    # A checked figure covers the numbers its groups read, no more (the words a pattern skips
    # over are not checked); one no file holds covers its whole phrase.
    covered = [
        span
        for figure in FIGURES
        if figure.readme == readme
        for match in re.finditer(figure.pattern, text)
        for span in (
            [match.span(group) for group in range(1, len(match.groups()) + 1) if match[group]]
            if figure.expected is not None
            else [match.span()]
        )
    ]
    uncovered = [
        text[max(0, found.start() - 40) : found.end() + 20]
        for found in _SCAN.finditer(text)
        if not any(start < found.end() and found.start() < end for start, end in covered)
    ]
    assert not uncovered, (
        f"{readme} states figures no entry of FIGURES checks or explains:\n" + "\n".join(uncovered)
    )


def test_the_scan_finds_the_kinds_of_figures_it_is_for() -> None:
    found = [
        m[0] for m in _SCAN.finditer("2 to 10 pods, 256 MiB, 500m CPU, port 8080, 42 packages")
    ]
    assert found == ["10 pods", "256 MiB", "500m", "8080", "42 packages"]
    assert not list(_SCAN.finditer("the 2026-11-27 run, redis-0, x-shared-settings, v1beta1"))


#: The settings table's entries that give no value but say where it is written.
_REFERENCES = frozenset({"a pool (count: top-level README)", "top-level README"})
#: A setting's field of Config, where its variable does not say it.
_FIELDS = {"REDIS_URL": "redis_url", "OTEL_EXPORTER_OTLP_ENDPOINT": "otlp_endpoint"}


def _image_config() -> Config:
    """The service's settings in the image, with no variable set by the operator."""
    environment = Dockerfile.read(ROOT / "Dockerfile").stages[-1].environment()
    return Config.load(None, {k: v for k, v in environment.items() if k.startswith("HANAFUDA_")})


def test_the_settings_table_gives_the_images_defaults() -> None:
    text = (ROOT / COMPOSE).read_text()
    section = text[text.index("## Settings") :]
    rows = re.findall(r"^\| ((?:`\w+`(?:, )?)+) \| ([^|]+) \|", section, re.MULTILINE)
    assert len(rows) > 10, "the settings table was not found"
    config = _image_config()
    for variables_cell, values_cell in rows:
        variables = re.findall(r"`(\w+)`", variables_cell)
        if values_cell.strip() in _REFERENCES:
            continue
        values = [value.strip().strip("`") for value in values_cell.split(",")]
        assert len(values) == len(variables), (variables, values)
        for variable, stated in zip(variables, values, strict=True):
            field = _FIELDS.get(variable, variable.removeprefix("HANAFUDA_").lower())
            actual = getattr(config, field)
            if stated in ("unset", "none"):
                assert actual in (None, ()), f"{variable}: the image has {actual!r}"
            elif isinstance(actual, float):
                assert float(stated) == actual, f"{variable}: {stated}, the image {actual}"
            else:
                assert stated == str(actual), f"{variable}: {stated}, the image {actual!r}"
