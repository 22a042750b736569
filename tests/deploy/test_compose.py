"""deploy/compose.yaml and deploy/compose.cluster.yaml, checked without a Docker engine: two or
more referee replicas built from this repository behind one load balancer (HAProxy,
deploy/haproxy.cfg), over one Redis or a Redis Cluster, with settings the service accepts and
that make them share games, the bot workers as a service of their own over the same store, and a
Redis that keeps every game behind a password.

The load balancer's configuration is also checked by HAProxy itself and run in front of two live
referees when HAProxy is installed (Debian's package: ``apt-get install haproxy``); those tests
skip otherwise.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import http.server
import ipaddress
import os
import re
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import httpx
import pytest
from hanafuda.v1 import rules_pb2, service_pb2, service_pb2_grpc

from hanafuda_referee.config import Config
from hanafuda_referee.store.factory import parse_store_url
from tests.store.servers import free_port, port_answers
from tests.system.processes import RefereeProcess
from tests.system.shared_redis import SHARED_REDIS_URL, owned_prefix

from . import bot_workers
from .bot_workers import SETTINGS
from .compose import HAProxyConfig, Section, load_compose

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
COMPOSE_FILES = ("compose.yaml", "compose.cluster.yaml")
HAPROXY_CONFIG = DEPLOY / "haproxy.cfg"
HAPROXY = shutil.which("haproxy")
#: Skipped without HAProxy on a developer's machine; in CI (scripts/test installs it) they run,
#: and fail if it is missing.
needs_haproxy = pytest.mark.skipif(
    HAPROXY is None and not os.environ.get("CI"),
    reason="haproxy is not installed (apt-get install haproxy)",
)
#: Where the haproxy image reads its configuration.
HAPROXY_IMAGE_CONFIG = "/usr/local/etc/haproxy/haproxy.cfg"
PASSWORD = secrets.token_hex(24)
#: The referee's SSE keep-alive comment interval (service/hanafuda_referee/http/app.py).
SSE_KEEPALIVE_SECONDS = 15
_DURATION = re.compile(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?")


@pytest.fixture(scope="module", params=COMPOSE_FILES)
def services(request: pytest.FixtureRequest) -> dict[str, dict[str, Any]]:
    document = load_compose(DEPLOY / request.param, {"REDIS_PASSWORD": PASSWORD})
    found = document["services"]
    assert isinstance(found, dict)
    return found


@pytest.fixture(scope="module")
def haproxy_config() -> HAProxyConfig:
    return HAProxyConfig.read(HAPROXY_CONFIG)


def _is_bot_workers(service: dict[str, Any]) -> bool:
    return service.get("command") == [bot_workers.COMMAND]


def _referees(services: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The services that run the referee: built from the repository, with its default command."""
    return {
        name: service
        for name, service in services.items()
        if "build" in service and not _is_bot_workers(service)
    }


def _bot_workers(services: dict[str, dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """The one service that runs the bot workers: its name and itself."""
    (found,) = ((name, s) for name, s in services.items() if _is_bot_workers(s))
    return found


def _redis_servers(services: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The services that run a Redis server."""
    return {
        name: service
        for name, service in services.items()
        if (service.get("command") or [""])[0] == "redis-server"
    }


def _shared_aliases(servers: dict[str, dict[str, Any]]) -> set[str]:
    """The network aliases every one of ``servers`` has."""
    aliases = [
        {a for network in (s.get("networks") or {}).values() for a in network["aliases"]}
        for s in servers.values()
    ]
    return set.intersection(*aliases) if aliases else set()


def _load_balancer(services: dict[str, dict[str, Any]]) -> dict[str, Any]:
    (found,) = (s for s in services.values() if str(s.get("image", "")).startswith("haproxy:"))
    return found


def _config(service: dict[str, Any]) -> Config:
    environment = service["environment"]
    assert isinstance(environment, dict), "environment as a mapping"
    return Config.load(None, {key: str(value) for key, value in environment.items()})


def _seconds(duration: str) -> int:
    found = _DURATION.fullmatch(duration)
    assert found and duration, f"cannot read the duration {duration!r}"
    hours, minutes, seconds = (int(part or 0) for part in found.groups())
    return hours * 3600 + minutes * 60 + seconds


def _option(command: list[str], name: str) -> str:
    values = [command[i + 1] for i, arg in enumerate(command[:-1]) if arg == f"--{name}"]
    assert values, f"redis-server is not given --{name}"
    return values[-1]


def _bytes(quantity: str) -> int:
    found = re.fullmatch(r"(\d+)([kmg]?)b?", quantity.lower())
    assert found, f"cannot read the quantity {quantity!r}"
    return int(found[1]) * {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}[found[2]]


def _published(service: dict[str, Any]) -> dict[str, str]:
    """Container port -> host port."""
    return dict(str(port).rsplit(":", 1)[::-1] for port in service.get("ports", []))


# -- the replicas ---------------------------------------------------------------------------------


def test_two_referee_replicas_built_from_this_repository(
    services: dict[str, dict[str, Any]],
) -> None:
    referees = _referees(services)
    assert len(referees) >= 2
    assert _redis_servers(services)
    for name, service in referees.items():
        build = service["build"]
        context = (DEPLOY / build["context"]).resolve()
        assert context == ROOT, f"{name} is not built from the repository"
        assert (context / build.get("dockerfile", "Dockerfile")).is_file()


def test_the_replicas_accept_their_settings_and_share_one_store(
    services: dict[str, dict[str, Any]],
) -> None:
    configs = {name: _config(service) for name, service in _referees(services).items()}
    redis_servers = _redis_servers(services)
    clustered = {
        _option(s["command"], "cluster-enabled") == "yes"
        for s in redis_servers.values()
        if "--cluster-enabled" in s["command"]
    } or {False}
    for name, config in configs.items():
        assert config.redis_url is not None, f"{name} would keep its games in its own memory"
        url, cluster = parse_store_url(config.redis_url)
        # A Redis service's name, or a name all the nodes of a cluster share.
        assert urlsplit(url).hostname in set(redis_servers) | _shared_aliases(redis_servers)
        assert {cluster} == clustered, f"{name}: a cluster URL exactly when Redis is a cluster"
        assert config.host == "0.0.0.0"
        # A misspelt variable would be ignored silently: each must be one the service reads.
        unknown = {
            key
            for key in services[name]["environment"]
            if key.startswith("HANAFUDA_") and key not in SETTINGS
        }
        assert not unknown, f"{name}: {unknown} are not settings of the service"
    # The same Redis and the same key prefix: a game made through one is found by the others.
    assert len({(c.redis_url, c.key_prefix) for c in configs.values()}) == 1


def test_every_service_is_published_on_distinct_host_ports(
    services: dict[str, dict[str, Any]],
) -> None:
    published: list[str] = []
    for name, service in _referees(services).items():
        config = _config(service)
        mapping = _published(service)
        assert set(mapping) == {str(config.grpc_port), str(config.http_port)}, name
        published.extend(mapping.values())
    published.extend(_published(_load_balancer(services)).values())
    assert len(published) == len(set(published))


def test_the_replicas_wait_for_redis_and_get_time_to_drain(
    services: dict[str, dict[str, Any]],
) -> None:
    redis_servers = set(_redis_servers(services))
    for name, service in _referees(services).items():
        waits = service["depends_on"]
        healthy = {n for n, w in waits.items() if w["condition"] == "service_healthy"}
        # Or a one-shot service (the cluster's maker) that itself waits for every node.
        for maker, wait in waits.items():
            if wait["condition"] == "service_completed_successfully":
                assert services[maker]["restart"] == "no"
                healthy |= {
                    n
                    for n, w in services[maker]["depends_on"].items()
                    if w["condition"] == "service_healthy"
                }
        assert redis_servers <= healthy, f"{name} does not wait for {redis_servers - healthy}"
        assert _seconds(service["stop_grace_period"]) > _config(service).shutdown_grace, name


# -- the bot workers ------------------------------------------------------------------------------


def test_the_bot_workers_are_a_service_of_their_own_over_the_replicas_store(
    services: dict[str, dict[str, Any]],
) -> None:
    name, workers = _bot_workers(services)
    referees = _referees(services)
    # The replicas' image, built from the repository the same way, running the workers' command.
    for referee in referees.values():
        assert (workers["build"], workers["image"]) == (referee["build"], referee["image"])
        # No bot in the replicas: every bot turn is the workers'.
        assert str(referee["environment"][bot_workers.EMBEDDED_POOL]) == "0"
    environment = {key: str(value) for key, value in workers["environment"].items()}
    assert set(environment) <= SETTINGS, set(environment) - SETTINGS
    assert bot_workers.EMBEDDED_POOL not in environment
    # The replicas' Redis and key prefix: the same games and the same queue.
    config = _config(workers)
    for referee in referees.values():
        assert (config.redis_url, config.key_prefix) == (
            _config(referee).redis_url,
            _config(referee).key_prefix,
        )
    # Scaled apart (`--scale bot-workers=N`): nothing that only one container can hold.
    assert "ports" not in workers and "container_name" not in workers, name
    assert int(environment[bot_workers.PROCESSES]) >= 1
    # Under contention the replicas' answers come first: the workers weigh less than a referee
    # (Docker's default weight, 1024), and no cap that a small host could refuse.
    for referee in referees.values():
        assert workers["cpu_shares"] < referee.get("cpu_shares", 1024)
    assert "cpus" not in workers


def test_the_bot_workers_wait_for_redis_stop_gracefully_and_are_locked_down(
    services: dict[str, dict[str, Any]],
) -> None:
    _, workers = _bot_workers(services)
    for referee in _referees(services).values():
        assert workers["depends_on"] == referee["depends_on"]
    assert _seconds(workers["stop_grace_period"]) > _config(workers).shutdown_grace
    assert workers["read_only"] is True
    assert workers["cap_drop"] == ["ALL"]
    assert workers["security_opt"] == ["no-new-privileges:true"]
    assert workers["restart"] == "unless-stopped"


class _HealthOnly(http.server.BaseHTTPRequestHandler):
    """Answers 200 on ``/healthz`` and 404 elsewhere: where the workers' health check must ask."""

    def do_GET(self) -> None:
        self.send_response(200 if self.path == "/healthz" else 404)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # the base class names it `format`
        pass


def _health_check(workers: dict[str, Any], environment: dict[str, str]) -> int:
    """The exit status of the service's health check, run as Docker runs it (exec form) with
    this interpreter as the image's ``python``."""
    test = workers["healthcheck"]["test"]
    assert test[0] == "CMD" and test[1] == "python", test
    env = {**os.environ, **environment}
    run = subprocess.run([sys.executable, *test[2:]], env=env, capture_output=True, timeout=30)
    return run.returncode


def test_the_bot_workers_health_check_asks_their_health_port(
    services: dict[str, dict[str, Any]],
) -> None:
    _, workers = _bot_workers(services)
    environment = {key: str(value) for key, value in workers["environment"].items()}
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _HealthOnly)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        listening = {**environment, bot_workers.HEALTH_PORT: str(server.server_address[1])}
        assert _health_check(workers, listening) == 0
    finally:
        server.shutdown()
        server.server_close()
    # Nothing on the port: unhealthy.
    assert _health_check(workers, {**environment, bot_workers.HEALTH_PORT: str(free_port())}) != 0


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_the_bot_workers_health_check_passes_on_live_workers(
    compose_file: str, tmp_path: Path
) -> None:
    if not bot_workers.command_available():
        pytest.skip("this hanafuda-referee has no bot-workers command")
    services = load_compose(DEPLOY / compose_file, {"REDIS_PASSWORD": PASSWORD})["services"]
    _, workers = _bot_workers(services)
    environment = {key: str(value) for key, value in workers["environment"].items()}
    with owned_prefix() as prefix:
        environment |= {"REDIS_URL": SHARED_REDIS_URL, "HANAFUDA_KEY_PREFIX": prefix}
        with bot_workers.running(environment, tmp_path) as port:
            assert _health_check(workers, {bot_workers.HEALTH_PORT: str(port)}) == 0


# -- Redis ----------------------------------------------------------------------------------------


def test_redis_is_bounded_keeps_every_game_and_asks_for_the_password(
    services: dict[str, dict[str, Any]],
) -> None:
    urls = {_config(s).redis_url for s in _referees(services).values()}
    (url,) = urls
    assert url is not None and urlsplit(url).password == PASSWORD
    for name, service in _redis_servers(services).items():
        command = service["command"]
        assert _option(command, "requirepass") == PASSWORD, name
        assert _option(command, "maxmemory-policy") == "noeviction", name
        assert _option(command, "appendonly") == "yes", name
        # Room above maxmemory for the fork that rewrites the append-only file.
        assert _bytes(_option(command, "maxmemory")) <= _bytes(service["mem_limit"]) * 0.75
        if "--cluster-enabled" in command:
            assert _option(command, "masterauth") == PASSWORD, name
        # The health check authenticates, and passes on PONG alone: redis-cli exits 0 on an
        # error reply such as NOAUTH.
        assert service["environment"]["REDISCLI_AUTH"] == PASSWORD
        assert "grep -qx PONG" in " ".join(service["healthcheck"]["test"]), name
        # Its data on a named volume of its own.
        (volume,) = service["volumes"]
        assert volume.split(":")[1] == "/data"


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_compose_refuses_to_start_without_a_password(compose_file: str) -> None:
    with pytest.raises(ValueError, match="REDIS_PASSWORD"):
        load_compose(DEPLOY / compose_file, {})


def test_the_cluster_is_made_by_the_kubernetes_jobs_script() -> None:
    services = load_compose(DEPLOY / "compose.cluster.yaml", {"REDIS_PASSWORD": PASSWORD})[
        "services"
    ]
    nodes = _redis_servers(services)
    assert len(nodes) == 6
    (maker,) = (s for s in services.values() if "REDIS_NODES" in s.get("environment", {}))
    assert maker["environment"]["REDIS_NODES"].split() == [f"{n}:6379" for n in nodes]
    (mount,) = maker["volumes"]
    source, target, _ = mount.split(":")
    assert (DEPLOY / source).resolve() == (
        ROOT / "deploy/kubernetes/overlays/redis-cluster/create-cluster.sh"
    )
    assert maker["command"] == ["sh", target]
    assert maker["environment"]["REDISCLI_AUTH"] == PASSWORD


# -- the load balancer ----------------------------------------------------------------------------


def _frontend_for(config: HAProxyConfig, port: int) -> Section:
    (found,) = (
        f
        for f in config.of_kind("frontend")
        if any(bind[0].rsplit(":", 1)[1] == str(port) for bind in f.all("bind"))
    )
    return found


def _servers(backend: Section) -> dict[str, tuple[str, list[str]]]:
    """Server name -> (address, its options with the backend's default-server ones first)."""
    defaults = [word for d in backend.all("default-server") for word in d]
    return {s[0]: (s[1], defaults + s[2:]) for s in backend.all("server")}


def test_the_load_balancer_is_one_entry_point_for_both_transports(
    services: dict[str, dict[str, Any]], haproxy_config: HAProxyConfig
) -> None:
    balancer = _load_balancer(services)
    (volume,) = balancer["volumes"]
    source, target, mode = volume.split(":")
    assert (DEPLOY / source).resolve() == HAPROXY_CONFIG and target == HAPROXY_IMAGE_CONFIG
    assert mode == "ro"
    referees = _referees(services)
    assert set(balancer["depends_on"]) == set(referees)
    defaults = Config()
    # It publishes the referee's own ports, so clients need not know it is there.
    assert set(_published(balancer)) == {str(defaults.http_port), str(defaults.grpc_port)}
    for port, transport in ((defaults.http_port, "http"), (defaults.grpc_port, "grpc")):
        frontend = _frontend_for(haproxy_config, port)
        backend = haproxy_config.section("backend", frontend.one("default_backend")[0])
        servers = _servers(backend)
        # Every replica, at its own port for this transport, and nothing else.
        addresses = {}
        for name, service in referees.items():
            config = _config(service)
            addresses[name] = (
                f"{name}:{config.http_port if transport == 'http' else config.grpc_port}"
            )
        assert {address for address, _ in servers.values()} == set(addresses.values())
        assert backend.one("balance") == ["roundrobin"]
        (bind,) = frontend.all("bind")
        if transport == "grpc":
            # HTTP/2 in and out: each call (stream) is balanced on its own.
            assert bind[1:] == ["proto", "h2"]
            for _, options in servers.values():
                assert options[options.index("proto") + 1] == "h2"
        else:
            assert "proto" not in bind
        # A replica out of Redis's reach is taken out: health checked on /readyz.
        for _, options in servers.values():
            assert "check" in options or "track" in options
    http_backend = haproxy_config.section(
        "backend", _frontend_for(haproxy_config, defaults.http_port).one("default_backend")[0]
    )
    assert http_backend.one("http-check send") == ["meth", "GET", "uri", "/readyz"]


@pytest.mark.parametrize("compose_file", COMPOSE_FILES)
def test_the_replicas_trust_the_load_balancer_alone_to_name_clients(
    compose_file: str, haproxy_config: HAProxyConfig
) -> None:
    # HAProxy names each client in X-Forwarded-For (HTTP and gRPC alike)...
    assert haproxy_config.section("defaults").all("option forwardfor") == [[]]
    # ...and the replicas believe that header from the balancer's fixed address only: no other
    # container (nor the host, through a replica's published port) can take that address.
    document = load_compose(DEPLOY / compose_file, {"REDIS_PASSWORD": PASSWORD})
    services = document["services"]
    (network,) = _load_balancer(services)["networks"].values()
    balancer = ipaddress.ip_address(network["ipv4_address"])
    for service in _referees(services).values():
        assert _config(service).trusted_proxies == (str(balancer),)
    (pool,) = document["networks"]["default"]["ipam"]["config"]
    assert balancer in ipaddress.ip_network(pool["subnet"])
    assert balancer not in ipaddress.ip_network(pool["ip_range"])


def test_the_load_balancer_streams_events_unbuffered(haproxy_config: HAProxyConfig) -> None:
    defaults = haproxy_config.section("defaults")
    assert defaults.one("mode") == ["http"]
    # A stream quiet between two SSE keep-alive comments must not be cut.
    for timeout in ("client", "server"):
        (value,) = defaults.one(f"timeout {timeout}")
        assert _seconds(value) > 4 * SSE_KEEPALIVE_SECONDS, timeout
    for section in haproxy_config.sections:
        for directive in section.directives:
            assert directive[:2] != ["option", "http-buffer-request"], section.name
            assert directive[:1] != ["compression"], f"{section.name} would buffer"


@needs_haproxy
def test_haproxy_accepts_its_configuration() -> None:
    assert HAPROXY is not None
    checked = subprocess.run(
        [HAPROXY, "-c", "-f", str(HAPROXY_CONFIG)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stderr
    # Warnings only for the replicas' names, which resolve inside Compose's network alone.
    for line in checked.stderr.splitlines():
        if "[WARNING]" in line:
            assert "could not resolve address" in line, line


def _local_config(
    config_path: Path, referees: dict[str, RefereeProcess], http_port: int, grpc_port: int
) -> str:
    """haproxy.cfg with the published ports on free loopback ports and each replica's name and
    port replaced by the local process's."""
    defaults = Config()
    text = config_path.read_text()
    text = re.sub(rf"bind :{defaults.http_port}\b", f"bind 127.0.0.1:{http_port}", text)
    text = re.sub(rf"bind :{defaults.grpc_port}\b", f"bind 127.0.0.1:{grpc_port}", text)
    for name, process in referees.items():
        text = text.replace(f" {name}:{defaults.http_port}", f" 127.0.0.1:{process.http_port}")
        text = text.replace(f" {name}:{defaults.grpc_port}", f" 127.0.0.1:{process.grpc_port}")
    # Compose's DNS is not here, and the addresses above need none.
    return re.sub(r"\n    nameserver .*", "\n    nameserver dns 127.0.0.1:9", text)


def _served(process: RefereeProcess, method: str, transport: str) -> float:
    text = httpx.get(f"{process.http_url}/metrics", timeout=5).text
    return sum(
        float(value)
        for value in re.findall(
            rf'^hanafuda_requests_total\{{(?=[^}}]*method="{method}")'
            rf'(?=[^}}]*transport="{transport}")[^}}]*\}} (\S+)$',
            text,
            flags=re.MULTILINE,
        )
    )


@contextlib.contextmanager
def _balanced(
    directory: Path, env: dict[str, str] | None = None, source: str | None = None
) -> Iterator[tuple[dict[str, RefereeProcess], int, int]]:
    """Two referees on the shared Redis (with ``env`` besides) behind HAProxy with
    deploy/haproxy.cfg: the replicas and HAProxy's HTTP and gRPC ports. ``source``: the address
    HAProxy connects to the replicas from (its own ``source`` directive)."""
    assert HAPROXY is not None
    with owned_prefix() as prefix:
        shared = {"REDIS_URL": SHARED_REDIS_URL, "HANAFUDA_KEY_PREFIX": prefix, **(env or {})}
        referees = {
            name: RefereeProcess(directory, env=shared, allow_testing=False, name=name)
            for name in ("referee-a", "referee-b")
        }
        haproxy: subprocess.Popen[bytes] | None = None
        try:
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                list(pool.map(RefereeProcess.start, referees.values()))
            http_port, grpc_port = free_port(), free_port()
            text = _local_config(HAPROXY_CONFIG, referees, http_port, grpc_port)
            if source is not None:
                mode = "\n    mode http\n"
                text = text.replace(mode, f"{mode}    source {source}\n", 1)
            config = directory / "haproxy.cfg"
            config.write_text(text)
            log = (directory / "haproxy.log").open("ab")
            haproxy = subprocess.Popen(
                [HAPROXY, "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT
            )
            log.close()
            deadline = time.monotonic() + 10
            while not (port_answers(http_port) and port_answers(grpc_port)):
                assert haproxy.poll() is None, (directory / "haproxy.log").read_text()
                assert time.monotonic() < deadline, "haproxy did not listen"
                time.sleep(0.02)
            yield referees, http_port, grpc_port
        finally:
            if haproxy is not None:
                haproxy.terminate()
                haproxy.wait(timeout=10)
            for referee in referees.values():
                referee.stop()


@pytest.fixture
def balanced_referees(tmp_path: Path) -> Iterator[tuple[dict[str, RefereeProcess], int, int]]:
    """Two referees behind HAProxy (:func:`_balanced`)."""
    with _balanced(tmp_path) as balanced:
        yield balanced


@needs_haproxy
def test_through_the_load_balancer_calls_spread_and_events_stream(
    balanced_referees: tuple[dict[str, RefereeProcess], int, int],
) -> None:
    referees, http_port, grpc_port = balanced_referees
    # gRPC: one channel, one HTTP/2 connection to the balancer, yet every replica serves.
    with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        stub = service_pb2_grpc.RefereeServiceStub(channel)
        for _ in range(6):
            stub.ListPresets(service_pb2.ListPresetsRequest(), timeout=5)
    served = {name: _served(p, "ListPresets", "grpc") for name, p in referees.items()}
    assert all(count > 0 for count in served.values()), served
    # HTTP/JSON: each request balanced too, over one kept-alive connection.
    with httpx.Client(base_url=f"http://127.0.0.1:{http_port}", timeout=5) as client:
        for _ in range(4):
            assert client.get("/v1/rules/presets").status_code == 200
        served = {name: _served(p, "ListPresets", "http") for name, p in referees.items()}
        assert all(count > 0 for count in served.values()), served
        # The event stream: its first event arrives while the stream is open (a buffering
        # proxy would hold it until more came or the stream ended).
        created = client.post(
            "/v1/games",
            json={"kind": "GAME_KIND_KOI_KOI", "preset": "nintendo", "players": ["ann", "bob"]},
        )
        game = created.json()["game"]
        with client.stream("GET", f"/v1/games/{game}/events") as events:
            assert events.status_code == 200
            assert events.headers["content-type"].startswith("text/event-stream")
            started = time.monotonic()
            first = next(line for line in events.iter_lines() if line.startswith("data:"))
            assert time.monotonic() - started < 3
    assert game in first


@needs_haproxy
def test_through_the_load_balancer_a_client_is_its_own_address_not_what_it_claims(
    tmp_path: Path,
) -> None:
    # HAProxy reaches the replicas from 127.0.0.2, the one address they trust to name clients
    # (the compose files trust the balancer's fixed address); the test's client is 127.0.0.1.
    env = {
        "HANAFUDA_TRUSTED_PROXIES": "127.0.0.2",
        "HANAFUDA_CREATE_RATE": "1",
        "HANAFUDA_CREATE_BURST": "2",
    }
    body = {"kind": "GAME_KIND_KOI_KOI", "players": ["ann", "bob"]}
    request = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"])
    with _balanced(tmp_path, env, source="127.0.0.2") as (referees, http_port, grpc_port):
        # Each request claims another address; HAProxy appends the one it saw, which the
        # replicas believe: every request spends the bucket of 127.0.0.1.
        with httpx.Client(base_url=f"http://127.0.0.1:{http_port}", timeout=5) as client:
            for n, status in ((1, 200), (2, 200), (3, 429)):
                claim = {"x-forwarded-for": f"203.0.113.{n}"}
                assert client.post("/v1/games", json=body, headers=claim).status_code == status
        with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
            stub = service_pb2_grpc.RefereeServiceStub(channel)
            with pytest.raises(grpc.RpcError) as refused:
                stub.CreateGame(request, timeout=5, metadata=(("x-forwarded-for", "203.0.113.4"),))
            assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        # Straight to a replica the client is 127.0.0.1 too: the same, spent, bucket (had the
        # replicas not believed HAProxy, its requests would have spent 127.0.0.2's).
        direct = httpx.post(f"{referees['referee-a'].http_url}/v1/games", json=body, timeout=5)
        assert direct.status_code == 429


def test_the_deploy_readme_names_only_real_settings() -> None:
    named = set(
        re.findall(r"\b(?:HANAFUDA_[A-Z_]+|REDIS_URL)\b", (DEPLOY / "README.md").read_text())
    )
    assert named
    unknown = named - SETTINGS
    assert not unknown, f"deploy/README.md names {unknown}, which are not settings"
