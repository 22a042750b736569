"""deploy/kubernetes, checked without a cluster: every kustomization (the base and each overlay)
rendered by ``kubectl kustomize``, validated against the Kubernetes API schemas offline
(``kubernetes-validate``, strict: an unknown field fails), read against the code (ports,
settings, the image's user, the bot workers' command and health port) and run where it can be
run here: the Deployment's probes against a live referee, the Redis servers with the
StatefulSets' own arguments, and the Job that makes the Redis Cluster with its own script.

The local redis-server may be older than the manifests' image (Debian's 7.0 against 7.4): the
arguments they use are read the same by both.
"""

from __future__ import annotations

import functools
import os
import re
import secrets
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlsplit

import grpc
import httpx
import kubernetes_validate  # type: ignore[import-untyped]  # no type hints
import pytest
import redis
import yaml  # type: ignore[import-untyped]
from grpc_health.v1 import health_pb2, health_pb2_grpc  # type: ignore[import-untyped]

from hanafuda_referee.config import Config
from hanafuda_referee.store.factory import parse_store_url
from tests.store.servers import REDIS_CLI, REDIS_SERVER, free_port
from tests.system.processes import RefereeProcess

from . import bot_workers
from .bot_workers import SETTINGS
from .dockerfile import Dockerfile
from .kubernetes import (
    KUBECTL,
    KUBERNETES,
    KUSTOMIZATIONS,
    Manifests,
    PodTemplate,
    expand,
    references,
    render,
    selects,
)

ROOT = Path(__file__).resolve().parents[2]
README = KUBERNETES / "README.md"

pytestmark = pytest.mark.skipif(
    KUBECTL is None, reason="kubectl is not installed: the manifests cannot be rendered"
)

#: The Kubernetes versions the manifests are validated against: the oldest the README supports
#: (gRPC probes are GA from 1.27) and the newest whose schemas kubernetes-validate ships (its
#: version is pinned in pyproject.toml, so this list changes only on purpose).
KUBERNETES_VERSIONS = ("1.27", "1.37")

#: The Deployment of the referee and its container, as the base names them.
REFEREE = "hanafuda-referee"
#: The Deployment of the bot workers and its container.
BOT_WORKERS = "hanafuda-bot-workers"
BOT_WORKERS_CONTAINER = "bot-workers"
#: The objects of the manifests that belong to no namespace.
CLUSTER_SCOPED = frozenset({"PriorityClass"})
#: The Secrets the README has the reader make, with made-up values.
SECRETS: Mapping[str, Mapping[str, str]] = {"hanafuda-redis": {"password": secrets.token_hex(24)}}
OVERLAYS = tuple(k for k in KUSTOMIZATIONS if k.startswith("overlays/"))
#: The kubelet's HTTP probe succeeds on 200 to 399.
_HTTP_PROBE_OK = range(200, 400)


@pytest.fixture(scope="module", params=KUSTOMIZATIONS)
def manifests(request: pytest.FixtureRequest) -> Manifests:
    return render(request.param)


def _referee(manifests: Manifests) -> PodTemplate:
    return manifests.pod("Deployment", REFEREE)


def _redis_pods(manifests: Manifests) -> list[PodTemplate]:
    return [pod for pod in manifests.pods() if pod.runs("redis-server")]


def _referee_environment(manifests: Manifests) -> dict[str, str]:
    return manifests.environment(_referee(manifests).container("referee"), SECRETS)


def _bot_workers(manifests: Manifests) -> PodTemplate:
    return manifests.pod("Deployment", BOT_WORKERS)


def _bot_workers_environment(manifests: Manifests) -> dict[str, str]:
    return manifests.environment(_bot_workers(manifests).container(BOT_WORKERS_CONTAINER), SECRETS)


def _cores(quantity: str) -> float:
    """A Kubernetes CPU quantity (``500m``, ``1``, ``1.5``) in cores."""
    return int(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)


def _memory_bytes(quantity: str) -> int:
    """A Kubernetes memory quantity (``512Mi``, ``1Gi``, ``1G``) or a Redis one (``600mb``)."""
    units = {"ki": 2**10, "mi": 2**20, "gi": 2**30, "k": 10**3, "m": 10**6, "g": 10**9}
    units |= {"kb": 2**10, "mb": 2**20, "gb": 2**30}
    found = re.fullmatch(r"(\d+)([a-zA-Z]*)", quantity)
    assert found, f"cannot read the quantity {quantity!r}"
    return int(found[1]) * units.get(found[2].lower(), 1) if found[2] else int(found[1])


def _option(args: list[str], name: str) -> str:
    """The value given to redis-server's ``--name`` (the last one, as Redis reads them)."""
    values = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == f"--{name}"]
    assert values, f"redis-server is not given --{name}"
    return values[-1]


# -- rendering and schemas --------------------------------------------------------------------


def test_every_kustomization_renders_into_the_namespace(manifests: Manifests) -> None:
    assert manifests.objects
    for item in manifests.objects:
        namespace = item["metadata"].get("namespace")
        if item["kind"] in CLUSTER_SCOPED:
            assert namespace is None, item["metadata"]["name"]
        else:
            assert namespace == "hanafuda", item["metadata"]["name"]
        assert item["metadata"]["labels"]["app.kubernetes.io/part-of"] == "hanafuda-referee"
    assert {"base", "overlays/redis", "overlays/redis-cluster"} <= set(KUSTOMIZATIONS)


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_object_is_valid_against_the_kubernetes_schemas(
    manifests: Manifests, version: str
) -> None:
    for item in manifests.objects:
        try:
            kubernetes_validate.validate(item, version, strict=True)
        except kubernetes_validate.ValidationError as error:
            pytest.fail(f"{item['kind']} {item['metadata']['name']} on {version}: {error}")


def test_the_schemas_catch_a_misspelt_field() -> None:
    # The check above must be able to fail: strict validation refuses an unknown field.
    deployment = render("base").one("Deployment", REFEREE)
    container = dict(deployment["spec"]["template"]["spec"]["containers"][0])
    container["livenesProbes"] = container.pop("livenessProbe")
    broken = {
        **deployment,
        "spec": {
            **deployment["spec"],
            "template": {
                **deployment["spec"]["template"],
                "spec": {**deployment["spec"]["template"]["spec"], "containers": [container]},
            },
        },
    }
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSIONS[0], strict=True)


# -- the referee against the code ---------------------------------------------------------------


def test_the_container_ports_are_the_referees_defaults(manifests: Manifests) -> None:
    defaults = Config()
    ports = {p["name"]: p["containerPort"] for p in _referee(manifests).container()["ports"]}
    assert ports == {"http": defaults.http_port, "grpc": defaults.grpc_port}
    settings = Config.load(None, _referee_environment(manifests))
    assert (settings.http_port, settings.grpc_port) == (defaults.http_port, defaults.grpc_port)
    assert settings.host == "0.0.0.0"


@pytest.mark.parametrize("deployment", [REFEREE, BOT_WORKERS])
def test_every_variable_of_the_referee_and_its_workers_is_a_setting(
    manifests: Manifests, deployment: str
) -> None:
    container = manifests.pod("Deployment", deployment).container()
    names = [entry["name"] for entry in container.get("env") or []]
    for source in container.get("envFrom") or []:
        config_map = manifests.one("ConfigMap", source["configMapRef"]["name"])
        names.extend(source.get("prefix", "") + key for key in config_map["data"])
    values = [entry.get("value", "") for entry in container.get("env") or []]
    for position, name in enumerate(names):
        if name in SETTINGS:
            continue
        # A helper only spelled into a later value (the Redis password into REDIS_URL): the
        # kubelet expands a reference only to a variable defined before it.
        users = [i for i, value in enumerate(values) if name in references(value)]
        assert users, f"{name} is not a setting of the referee (service/.../config.py)"
        assert min(users) > position, f"{name} is used before it is defined"


def test_the_referee_accepts_its_settings_and_names_its_redis(manifests: Manifests) -> None:
    environment = _referee_environment(manifests)
    config = Config.load(None, environment)
    assert config.redis_url is not None, "the referee would keep its games in its own memory"
    assert "$(" not in config.redis_url, "a reference in REDIS_URL is left unexpanded"
    assert SECRETS["hanafuda-redis"]["password"] in config.redis_url
    url, cluster = parse_store_url(config.redis_url)
    if manifests.kustomization == "base":
        return  # the Redis is the overlay's, or the reader's own
    (redis_pod,) = {pod.name: pod for pod in _redis_pods(manifests)}.values()
    args = redis_pod.container()["args"]
    assert cluster == ("--cluster-enabled" in args and _option(args, "cluster-enabled") == "yes")
    # The URL's host is a Service of the overlay that leads to the Redis pods, on their port.
    parts = urlsplit(url)
    service = manifests.get("Service", str(parts.hostname))
    assert service is not None, f"REDIS_URL names {parts.hostname}, which is no Service here"
    assert selects({"matchLabels": service["spec"]["selector"]}, redis_pod.labels)
    assert parts.port in {port["port"] for port in service["spec"]["ports"]}


def test_the_pod_outlives_its_drain(manifests: Manifests) -> None:
    pod = _referee(manifests)
    config = Config.load(None, _referee_environment(manifests))
    pause = pod.container()["lifecycle"]["preStop"]["exec"]["command"]
    assert pause[0] == "sleep"
    # The preStop pause, then SIGTERM and the referee's drain, all before the SIGKILL.
    assert pod.spec["terminationGracePeriodSeconds"] > int(pause[1]) + config.shutdown_grace


def test_the_referee_runs_as_the_images_user(manifests: Manifests) -> None:
    user = Dockerfile.read(ROOT / "Dockerfile").stages[-1].last("USER").text
    uid, _, gid = user.partition(":")
    context = _referee(manifests).spec["securityContext"]
    assert (context["runAsUser"], context["runAsGroup"]) == (int(uid), int(gid or uid))


def test_every_pod_is_locked_down_and_sized(manifests: Manifests) -> None:
    for pod in manifests.pods():
        where = f"{pod.kind} {pod.name}"
        assert pod.spec["automountServiceAccountToken"] is False, where
        assert pod.spec["securityContext"]["runAsNonRoot"] is True, where
        assert pod.spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", where
        for container in pod.containers:
            context = container["securityContext"]
            assert context["readOnlyRootFilesystem"] is True, where
            assert context["allowPrivilegeEscalation"] is False, where
            assert context["capabilities"]["drop"] == ["ALL"], where
            resources = container["resources"]
            assert {"cpu", "memory"} <= set(resources["requests"]), where
            assert "memory" in resources["limits"], where
            assert _memory_bytes(resources["requests"]["memory"]) <= _memory_bytes(
                resources["limits"]["memory"]
            )


def test_the_services_expose_both_transports_with_their_protocols(manifests: Manifests) -> None:
    pod = _referee(manifests)
    container_ports = {p["name"]: p["containerPort"] for p in pod.container()["ports"]}
    services = [
        s
        for s in manifests.of_kind("Service")
        if selects({"matchLabels": s["spec"]["selector"]}, pod.labels)
    ]
    assert {s["metadata"]["name"] for s in services} == {REFEREE, f"{REFEREE}-pods"}
    for service in services:
        ports = {p["name"]: p for p in service["spec"]["ports"]}
        assert set(ports) == {"http", "grpc"}
        for name, port in ports.items():
            assert port["targetPort"] == name and port["port"] == container_ports[name]
        assert ports["http"]["appProtocol"] == "http"
        # gRPC without TLS is HTTP/2 with prior knowledge.
        assert ports["grpc"]["appProtocol"] == "kubernetes.io/h2c"
    # The second is headless: its name resolves to every ready pod (client-side balancing).
    headless = manifests.one("Service", f"{REFEREE}-pods")
    assert headless["spec"]["clusterIP"] == "None"
    assert not headless["spec"].get("publishNotReadyAddresses", False)


@pytest.mark.parametrize("name", [REFEREE, BOT_WORKERS])
def test_the_autoscaler_and_the_disruption_budget_keep_a_pod_serving(
    manifests: Manifests, name: str
) -> None:
    # The referee and the bot workers alike, each with its own: they scale apart.
    deployment = manifests.one("Deployment", name)
    # The autoscaler owns the count: a replicas field would reset it at each apply.
    assert "replicas" not in deployment["spec"]
    autoscaler = manifests.one("HorizontalPodAutoscaler", name)
    target = autoscaler["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", name)
    assert 2 <= autoscaler["spec"]["minReplicas"] < autoscaler["spec"]["maxReplicas"]
    (metric,) = autoscaler["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    budget = manifests.one("PodDisruptionBudget", name)
    pods = {pod.name: pod for pod in manifests.pods()}
    for other, pod in pods.items():
        assert selects(budget["spec"]["selector"], pod.labels) == (other == name), other
    assert budget["spec"]["maxUnavailable"] < autoscaler["spec"]["minReplicas"]
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


# -- the bot workers ------------------------------------------------------------------------------


def test_the_bot_workers_run_apart_from_the_referee(manifests: Manifests) -> None:
    referee, workers = _referee(manifests), _bot_workers(manifests)
    container = workers.container(BOT_WORKERS_CONTAINER)
    # The referee's own image, running the workers' command.
    assert container["image"] == referee.container()["image"]
    assert "command" not in container
    assert container["args"] == [bot_workers.COMMAND]
    # The referee's pods run no bot: every bot turn is the workers'.
    assert _referee_environment(manifests)[bot_workers.EMBEDDED_POOL] == "0"
    # No Service sends clients to the workers, and the referee's selector is not theirs.
    for service in manifests.of_kind("Service"):
        assert not selects({"matchLabels": service["spec"]["selector"]}, workers.labels)
    referee_selector = manifests.one("Deployment", REFEREE)["spec"]["selector"]
    assert not selects(referee_selector, workers.labels)
    workers_selector = workers.workload["spec"]["selector"]
    assert selects(workers_selector, workers.labels)
    assert not selects(workers_selector, referee.labels)


def test_the_bot_workers_share_the_referees_store_and_settings(manifests: Manifests) -> None:
    referee = _referee_environment(manifests)
    workers = _bot_workers_environment(manifests)
    # The same Redis and key prefix (the same games and the same queue), the same game
    # lifetimes: every setting of the referee's but its API key, which creates games.
    shared = {name: value for name, value in referee.items() if name != "HANAFUDA_API_KEY"}
    assert {name: workers.get(name) for name in shared} == shared
    config = Config.load(None, workers)
    assert config.redis_url is not None, "the workers would refuse the in-process store"
    assert "$(" not in config.redis_url
    # Their own settings are theirs alone.
    own = {bot_workers.PROCESSES, bot_workers.HEALTH_PORT}
    assert own <= set(workers)
    assert not own & set(referee)
    assert int(workers[bot_workers.PROCESSES]) >= 1


def test_the_bot_workers_probes_are_on_their_health_port(manifests: Manifests) -> None:
    container = _bot_workers(manifests).container(BOT_WORKERS_CONTAINER)
    port = bot_workers.health_port(_bot_workers_environment(manifests))
    # One port, the one the command serves its health and metrics on.
    (declared,) = container["ports"]
    assert (declared["containerPort"], declared["protocol"]) == (port, "TCP")
    probes = {kind: container[kind] for kind in ("startupProbe", "livenessProbe", "readinessProbe")}
    for kind, probe in probes.items():
        action = probe["httpGet"]
        assert action["port"] in (declared["name"], port), kind
        assert action.get("scheme", "HTTP") == "HTTP", kind
        assert action["path"] in bot_workers.HEALTH_PATHS, kind
    # Liveness does not ask Redis (an outage must not restart every worker); readiness does.
    liveness, readiness = bot_workers.HEALTH_PATHS
    assert probes["startupProbe"]["httpGet"]["path"] == liveness
    assert probes["livenessProbe"]["httpGet"]["path"] == liveness
    assert probes["readinessProbe"]["httpGet"]["path"] == readiness


def test_the_bot_workers_get_their_cores_scale_before_saturating_and_yield(
    manifests: Manifests,
) -> None:
    pod = _bot_workers(manifests)
    environment = _bot_workers_environment(manifests)
    resources = pod.container()["resources"]
    # A core for each worker process, each of which keeps one busy while turns wait.
    request, limit = (_cores(resources[kind]["cpu"]) for kind in ("requests", "limits"))
    assert request <= limit >= int(environment[bot_workers.PROCESSES])
    # The autoscaler's CPU target (a share of the request) is reached before the limit: a pod
    # at its limit is counted as busy, or the autoscaler would never add one.
    (metric,) = manifests.one("HorizontalPodAutoscaler", BOT_WORKERS)["spec"]["metrics"]
    assert metric["resource"]["target"]["averageUtilization"] / 100 * request < limit
    # Below the referee for the scheduler, and never evicting a pod to be placed.
    priority = manifests.one("PriorityClass", pod.spec["priorityClassName"])
    assert priority["value"] < 0
    assert priority["preemptionPolicy"] == "Never"
    assert priority.get("globalDefault", False) is False
    assert "priorityClassName" not in _referee(manifests).spec
    # SIGTERM: time to end the decision in hand, and any drain on the referee's grace.
    config = Config.load(None, environment)
    assert pod.spec["terminationGracePeriodSeconds"] > config.shutdown_grace


def test_the_queue_metrics_shown_for_the_workers_autoscaler_are_valid() -> None:
    # base/autoscaling.yaml shows, commented out, the metrics to scale the workers on the queue
    # with an external metrics adapter: added to the autoscaler, they must be a valid object.
    text = (KUBERNETES / "base" / "autoscaling.yaml").read_text()
    shown = "\n".join(line[5:] for line in text.splitlines() if line.startswith("#     "))
    metrics = yaml.safe_load(shown)
    assert {m["external"]["metric"]["name"] for m in metrics} <= set(bot_workers.METRICS)
    autoscaler = render("base").one("HorizontalPodAutoscaler", BOT_WORKERS)
    extended = {
        **autoscaler,
        "spec": {**autoscaler["spec"], "metrics": [*autoscaler["spec"]["metrics"], *metrics]},
    }
    for version in KUBERNETES_VERSIONS:
        kubernetes_validate.validate(extended, version, strict=True)


def test_nothing_reaches_the_bot_workers_but_their_health_port(manifests: Manifests) -> None:
    workers = _bot_workers(manifests)
    (declared,) = workers.container()["ports"]
    guarding = [
        policy
        for policy in manifests.of_kind("NetworkPolicy")
        if selects(policy["spec"]["podSelector"], workers.labels)
        and "Ingress" in policy["spec"]["policyTypes"]
    ]
    assert guarding, "no NetworkPolicy guards the bot workers"
    for policy in guarding:
        rules = policy["spec"].get("ingress") or []
        assert rules, "the probes and the metrics scrape need the health port"
        for rule in rules:
            # A rule without ports would open every port.
            assert rule["ports"], policy["metadata"]["name"]
            for port in rule["ports"]:
                assert port["port"] in (declared["name"], declared["containerPort"])


# -- Redis ----------------------------------------------------------------------------------------


def test_only_the_referee_its_workers_and_redis_itself_reach_redis(manifests: Manifests) -> None:
    referee = _referee(manifests)
    workers = _bot_workers(manifests)
    redis_pods = _redis_pods(manifests)
    # The Job that makes a cluster is the only other pod allowed in.
    allowed = [referee, workers, *redis_pods, *(p for p in manifests.pods() if p.kind == "Job")]
    policies = manifests.of_kind("NetworkPolicy")
    assert policies
    for pod in redis_pods:
        guarding = [
            p
            for p in policies
            if selects(p["spec"]["podSelector"], pod.labels)
            and "Ingress" in p["spec"]["policyTypes"]
        ]
        assert guarding, f"no NetworkPolicy guards {pod.name}"
        referee_ports: set[int] = set()
        worker_ports: set[int] = set()
        for policy in guarding:
            for rule in policy["spec"].get("ingress") or []:
                assert rule.get("from"), f"{policy['metadata']['name']} lets anyone in"
                ports = {p["port"] for p in rule["ports"]}
                for peer in rule["from"]:
                    assert set(peer) == {"podSelector"}, "only pods of this namespace"
                    reached = [p for p in allowed if selects(peer["podSelector"], p.labels)]
                    assert reached, f"{peer} selects none of {[p.name for p in allowed]}"
                    others = [
                        p.name
                        for p in manifests.pods()
                        if selects(peer["podSelector"], p.labels) and p not in allowed
                    ]
                    assert not others, f"{others} may reach Redis"
                    if referee in reached:
                        referee_ports |= ports
                    if workers in reached:
                        worker_ports |= ports
        assert 6379 in referee_ports, f"the referee cannot reach {pod.name}"
        assert 6379 in worker_ports, f"the bot workers cannot reach {pod.name}"
    if manifests.kustomization == "base":
        # No Redis here: the policy is there for the one an overlay (or the reader) adds.
        (policy,) = (p for p in policies if not selects(p["spec"]["podSelector"], workers.labels))
        assert policy["spec"]["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == (
            "redis"
        )


def test_redis_keeps_every_game(manifests: Manifests) -> None:
    for pod in _redis_pods(manifests):
        container = pod.container()
        args = container["args"]
        assert _option(args, "appendonly") == "yes"
        assert _option(args, "maxmemory-policy") == "noeviction"
        # Room above maxmemory for the fork that rewrites the append-only file.
        limit = _memory_bytes(container["resources"]["limits"]["memory"])
        assert _memory_bytes(_option(args, "maxmemory")) <= limit * 0.75
        # The password is the referee's, from the same Secret.
        environment = manifests.environment(container, SECRETS)
        password = SECRETS["hanafuda-redis"]["password"]
        assert expand(_option(args, "requirepass"), environment) == password
        assert environment["REDISCLI_AUTH"] == password
        if "--cluster-enabled" in args:
            assert expand(_option(args, "masterauth"), environment) == password
        # Its directory is a volume of its own, claimed per pod.
        mounts = {m["mountPath"]: m["name"] for m in container["volumeMounts"]}
        claims = {c["metadata"]["name"] for c in pod.workload["spec"]["volumeClaimTemplates"]}
        assert mounts[_option(args, "dir")] in claims


def _start_redis(
    container: Mapping[str, Any], environment: Mapping[str, str], directory: Path
) -> tuple[subprocess.Popen[bytes], int]:
    """redis-server with the container's own arguments, on a free loopback port, its volume
    in ``directory``."""
    assert REDIS_SERVER is not None
    args = [expand(arg, environment) for arg in container["args"]]
    assert args[0] == "redis-server"
    (mount,) = container["volumeMounts"]
    args = [arg.replace(mount["mountPath"], str(directory), 1) for arg in args[1:]]
    port = free_port()
    directory.mkdir(parents=True, exist_ok=True)
    log = (directory / "redis.log").open("ab")
    process = subprocess.Popen(
        [REDIS_SERVER, *args, "--port", str(port), "--bind", "127.0.0.1"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    log.close()
    client = redis.Redis(port=port, password=environment["REDIS_PASSWORD"])
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError(
                    (directory / "redis.log").read_text(errors="replace")
                ) from None
            time.sleep(0.02)
        finally:
            client.close()
    return process, port


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _local_redis_url(manifests: Manifests, url: str, port: int) -> str:
    """REDIS_URL with its host (a Service of the overlay) replaced by the local server."""
    parts = urlsplit(url)
    assert manifests.get("Service", str(parts.hostname)) is not None
    netloc = parts.netloc.rsplit("@", 1)[0] + f"@127.0.0.1:{port}"
    return parts._replace(netloc=netloc).geturl()


def _referee_ports(process: RefereeProcess) -> dict[int, int]:
    """The referee's container ports -> the local process's."""
    defaults = Config()
    return {defaults.http_port: process.http_port, defaults.grpc_port: process.grpc_port}


def _probe(
    local: Mapping[int, int], container: Mapping[str, Any], probe: Mapping[str, Any]
) -> bool:
    """Whether ``probe`` of the container succeeds against a local process whose ports are
    ``local`` (container port -> local port; found by the container port the probe names)."""
    by_name = {p["name"]: p["containerPort"] for p in container["ports"]}
    timeout = probe.get("timeoutSeconds", 1)
    if "httpGet" in probe:
        action = probe["httpGet"]
        port = local[by_name.get(action["port"], action["port"])]
        assert action.get("scheme", "HTTP") == "HTTP"
        headers = {h["name"]: h["value"] for h in action.get("httpHeaders") or []}
        answer = httpx.get(
            f"http://127.0.0.1:{port}{action['path']}", headers=headers, timeout=timeout
        )
        return answer.status_code in _HTTP_PROBE_OK
    if "grpc" in probe:
        action = probe["grpc"]
        with grpc.insecure_channel(f"127.0.0.1:{local[action['port']]}") as channel:
            try:
                answer = health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(service=action.get("service", "")),
                    timeout=timeout,
                )
            except grpc.RpcError:
                return False
        return bool(answer.status == health_pb2.HealthCheckResponse.SERVING)
    raise AssertionError(f"a probe this test cannot make: {probe}")


@pytest.fixture(scope="module")
def single_redis() -> Manifests:
    return render("overlays/redis")


@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
def test_the_probes_pass_on_a_live_referee_over_the_overlays_redis(
    single_redis: Manifests, tmp_path: Path
) -> None:
    manifests = single_redis
    (redis_pod,) = _redis_pods(manifests)
    redis_container = redis_pod.container()
    redis_env = manifests.environment(redis_container, SECRETS)
    server, port = _start_redis(redis_container, redis_env, tmp_path / "redis")
    try:
        # What the arguments made of the server, as Redis itself reports it.
        client = redis.Redis(port=port, password=redis_env["REDIS_PASSWORD"], decode_responses=True)
        stranger = redis.Redis(port=port)
        try:
            config = cast(dict[str, str], client.config_get("*"))
            with pytest.raises(redis.AuthenticationError):
                stranger.ping()
        finally:
            client.close()
            stranger.close()
        assert config["appendonly"] == "yes"
        assert config["maxmemory-policy"] == "noeviction"
        maxmemory = _option(redis_container["args"], "maxmemory")
        assert int(config["maxmemory"]) == _memory_bytes(maxmemory)

        container = _referee(manifests).container()
        environment = _referee_environment(manifests)
        environment["REDIS_URL"] = _local_redis_url(manifests, environment["REDIS_URL"], port)
        with RefereeProcess(tmp_path, env=environment, allow_testing=False) as referee:
            probes = {k: container[k] for k in ("startupProbe", "livenessProbe", "readinessProbe")}
            local = _referee_ports(referee)
            for kind, probe in probes.items():
                assert _probe(local, container, probe), f"{kind} fails on a live referee"
            # Redis gone: the pod stops taking traffic but is not restarted.
            _stop(server)
            assert not _probe(local, container, probes["readinessProbe"])
            assert _probe(local, container, probes["livenessProbe"])
            assert _probe(local, container, probes["startupProbe"])
    finally:
        _stop(server)


def _eventually(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Whether ``check`` holds within ``seconds`` (asked every 0.1 s)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
def test_the_probes_pass_on_live_bot_workers_over_the_overlays_redis(
    single_redis: Manifests, tmp_path: Path
) -> None:
    if not bot_workers.command_available():
        pytest.skip("this hanafuda-referee has no bot-workers command")
    manifests = single_redis
    (redis_pod,) = _redis_pods(manifests)
    redis_container = redis_pod.container()
    server, port = _start_redis(
        redis_container, manifests.environment(redis_container, SECRETS), tmp_path / "redis"
    )
    try:
        container = _bot_workers(manifests).container()
        environment = _bot_workers_environment(manifests)
        declared = bot_workers.health_port(environment)
        environment["REDIS_URL"] = _local_redis_url(manifests, environment["REDIS_URL"], port)
        with bot_workers.running(environment, tmp_path) as health_port:
            local = {declared: health_port}
            probes = {k: container[k] for k in ("startupProbe", "livenessProbe", "readinessProbe")}
            for kind, probe in probes.items():
                assert _eventually(functools.partial(_probe, local, container, probe)), kind
            # What the autoscaler on the queue would read.
            metrics = httpx.get(f"http://127.0.0.1:{health_port}/metrics", timeout=5).text
            assert "hanafuda_bot_queue_depth" in metrics
            # Redis gone: the workers are unready, and not restarted.
            _stop(server)
            readiness = probes["readinessProbe"]
            assert _eventually(lambda: not _probe(local, container, readiness))
            assert _probe(local, container, probes["livenessProbe"])
    finally:
        _stop(server)


@pytest.fixture
def cluster_nodes(tmp_path: Path) -> Iterator[list[int]]:
    """The cluster overlay's StatefulSet as local redis-servers: their ports."""
    manifests = render("overlays/redis-cluster")
    (pod,) = _redis_pods(manifests)
    container = pod.container()
    environment = manifests.environment(container, SECRETS)
    processes: list[subprocess.Popen[bytes]] = []
    ports: list[int] = []
    try:
        for index in range(pod.workload["spec"]["replicas"]):
            process, port = _start_redis(container, environment, tmp_path / f"node-{index}")
            processes.append(process)
            ports.append(port)
        yield ports
    finally:
        for process in processes:
            _stop(process)


@pytest.mark.skipif(
    REDIS_SERVER is None or REDIS_CLI is None, reason="redis-server or redis-cli is not installed"
)
def test_the_job_makes_the_cluster_the_referee_then_uses(
    cluster_nodes: list[int], tmp_path: Path
) -> None:
    manifests = render("overlays/redis-cluster")
    (redis_pod,) = _redis_pods(manifests)
    (job,) = (pod for pod in manifests.pods() if pod.kind == "Job")
    container = job.container()
    environment = manifests.environment(container, SECRETS)
    # The Job names every node of the StatefulSet by its stable name.
    service = redis_pod.workload["spec"]["serviceName"]
    assert manifests.one("Service", service)["spec"]["clusterIP"] == "None"
    assert environment["REDIS_NODES"].split() == [
        f"{redis_pod.name}-{index}.{service}:6379" for index in range(len(cluster_nodes))
    ]
    environment["REDIS_NODES"] = " ".join(f"127.0.0.1:{port}" for port in cluster_nodes)
    # Its script, from the ConfigMap mounted where its command reads it.
    command = container["command"]
    assert command[0] == "sh"
    (mount,) = container["volumeMounts"]
    (volume,) = (v for v in job.spec["volumes"] if v["name"] == mount["name"])
    data = manifests.one("ConfigMap", volume["configMap"]["name"])["data"]
    script = tmp_path / "script.sh"
    script.write_text(data[Path(command[1]).relative_to(mount["mountPath"]).as_posix()])
    runs = [
        subprocess.run(
            ["sh", str(script)], env=environment, capture_output=True, text=True, timeout=60
        )
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stdout + run.stderr
    assert "cluster exists" in runs[1].stdout, "a second run must find the cluster made"

    referee_env = _referee_environment(manifests)
    referee_env["REDIS_URL"] = _local_redis_url(
        manifests, referee_env["REDIS_URL"], cluster_nodes[0]
    )
    with RefereeProcess(tmp_path, env=referee_env, allow_testing=False) as referee:
        created = httpx.post(
            f"{referee.http_url}/v1/games",
            json={"kind": "GAME_KIND_KOI_KOI", "preset": "nintendo", "players": ["ann", "bob"]},
            timeout=10,
        )
        assert created.status_code == 200, created.text


# -- the README -----------------------------------------------------------------------------------


def _readme_overlay_snippets() -> list[dict[str, Any]]:
    """The README's YAML blocks that are parts of a kustomization (patches, generators)."""
    blocks = re.findall(r"^( *)```yaml\n(.*?)^\1```", README.read_text(), re.MULTILINE | re.DOTALL)
    snippets = []
    for indent, body in blocks:
        document = yaml.safe_load("\n".join(line[len(indent) :] for line in body.splitlines()))
        if isinstance(document, dict) and {"patches", "configMapGenerator"} & set(document):
            snippets.append(document)
    return snippets


def test_the_readmes_overlay_snippets_render_and_change_something(tmp_path: Path) -> None:
    snippets = _readme_overlay_snippets()
    assert len(snippets) >= 3, "the README's snippets were not found"
    assert KUBECTL is not None
    plain = render("overlays/redis").objects
    for index, snippet in enumerate(snippets):
        directory = tmp_path / f"overlay-{index}"
        directory.mkdir()
        base = os.path.relpath(KUBERNETES / "overlays/redis", directory)
        kustomization: dict[str, Any] = {
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": [base],
            **snippet,
        }
        (directory / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
        rendered = subprocess.run(
            [KUBECTL, "kustomize", str(directory)], capture_output=True, text=True, timeout=60
        )
        assert rendered.returncode == 0, f"{snippet}:\n{rendered.stderr}"
        objects = tuple(d for d in yaml.safe_load_all(rendered.stdout) if d)
        assert objects != plain, f"{snippet} changes nothing"


def test_the_readme_applies_real_kustomizations_and_names_real_settings() -> None:
    text = README.read_text()
    applied = set(re.findall(r"kubectl apply -k deploy/kubernetes/(\S+)", text))
    assert {"overlays/redis", "overlays/redis-cluster"} <= applied
    for path in applied:
        assert path in KUSTOMIZATIONS, f"the README applies {path}, which is no kustomization"
    named = set(re.findall(r"\b(?:HANAFUDA_[A-Z_]+|REDIS_URL)\b", text))
    assert not named - SETTINGS, f"the README names {named - SETTINGS}, not settings"
