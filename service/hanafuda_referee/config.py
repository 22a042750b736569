"""The service's settings: one frozen value, from command-line flags, environment variables and
defaults, in that order of precedence.

Every setting, with its flag, variable and default, is in the README's *Settings* table
(``tests/service/test_config.py`` keeps the two in step).
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hanafuda_referee.store import StoreSettings

__all__ = ["VARIABLES", "Config", "add_arguments", "available_cores", "parse"]

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
_LOG_FORMATS = ("json", "console")


@dataclass(frozen=True, slots=True)
class Config:
    """Every setting of the service (see the module docstring for flags and variables)."""

    host: str = "0.0.0.0"
    grpc_port: int = 50051
    http_port: int = 8080
    redis_url: str | None = None
    key_prefix: str = "hanafuda:"
    game_ttl: float = 24 * 3600.0
    finished_game_ttl: float = 7 * 24 * 3600.0
    sweep_interval: float = 0.5
    sweep_budget: float = 0.2
    answer_ttl: float = 600.0
    max_games: int = 10_000
    max_request_bytes: int = 1024 * 1024
    request_timeout: float = 10.0
    api_key: str | None = None
    cors_origins: tuple[str, ...] = ()
    log_format: str = "json"
    log_level: str = "INFO"
    allow_testing: bool = False
    shutdown_grace: float = 10.0
    game_cache_size: int = 4096
    max_watchers: int = 10_000
    watchers_per_game: int = 1_000
    watchers_per_client: int = 32
    watchers_per_seat: int = 8
    create_rate: float = 30.0
    tls_cert: str | None = None
    tls_key: str | None = None
    tls_client_ca: str | None = None
    create_burst: int = 30
    advice_rate: float = 20.0
    advice_burst: int = 10
    workers: int = 1
    otlp_endpoint: str | None = None
    table: bool = True
    trusted_proxies: tuple[str, ...] = ()
    ipv6_client_prefix: int = 64
    max_client_games: int = 50
    max_client_bot_games: int = 5
    max_expert_seats: int = 2
    creation_memory_ceiling: float = 0.9
    bot_workers: int = 1
    bot_worker_processes: int = 1
    bot_worker_health_port: int = 8081

    def __post_init__(self) -> None:
        for name in ("grpc_port", "http_port", "bot_worker_health_port"):
            port = getattr(self, name)
            if not 0 <= port < 65536:
                raise ValueError(f"{name} must be 0 to 65535, not {port}")
        if self.log_format not in _LOG_FORMATS:
            raise ValueError(f"log format must be json or console, not {self.log_format!r}")
        if self.max_request_bytes < 1024:
            raise ValueError("max request bytes must be at least 1024")
        if min(self.shutdown_grace, self.game_cache_size, self.request_timeout) < 0:
            raise ValueError(
                "shutdown grace, game cache size and request timeout must not be negative"
            )
        if (
            min(
                self.max_watchers,
                self.watchers_per_game,
                self.watchers_per_client,
                self.watchers_per_seat,
            )
            < 0
        ):
            raise ValueError("watcher limits must not be negative")
        if not self.sweep_budget > 0:
            raise ValueError(f"sweep budget must be positive, not {self.sweep_budget}")
        if bool(self.tls_cert) != bool(self.tls_key):
            raise ValueError("TLS needs both a certificate and a key (tls cert, tls key)")
        if self.tls_client_ca and not self.tls_cert:
            raise ValueError("a TLS client CA needs the server's TLS certificate and key")
        if self.create_rate < 0 or self.create_burst < 1:
            raise ValueError("create rate must not be negative and create burst must be positive")
        if self.advice_rate < 0 or self.advice_burst < 1:
            raise ValueError("advice rate must not be negative and advice burst must be positive")
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, not {self.workers}")
        if self.workers > 1 and not self.redis_url:
            # Each process would hold games of its own: a game created through one worker
            # would be unknown to the next request's, which the shared port may give another.
            raise ValueError(
                f"{self.workers} workers need a shared store: set a Redis URL (the in-process "
                "store is one process's own, so workers would not see each other's games)"
            )
        if self.bot_workers < 0 or self.bot_worker_processes < 1:
            raise ValueError(
                "bot workers must not be negative and bot worker processes must be positive"
            )
        for proxy in self.trusted_proxies:
            try:
                ipaddress.ip_network(proxy)
            except ValueError as error:
                raise ValueError(f"trusted proxy: {error}") from None
        if not 1 <= self.ipv6_client_prefix <= 128:
            raise ValueError(
                f"the IPv6 client prefix is 1 to 128 bits, not {self.ipv6_client_prefix}"
            )
        if min(self.max_client_games, self.max_client_bot_games, self.max_expert_seats) < 0:
            raise ValueError("client game limits and max expert seats must not be negative")
        if not 0 < self.creation_memory_ceiling <= 1:
            raise ValueError(
                "the creation memory ceiling is a share of the store's memory limit, above 0 "
                f"and at most 1, not {self.creation_memory_ceiling}"
            )
        # The store checks its own settings (TTLs, prefix) when built: fail at start-up too.
        self.store_settings()

    @property
    def api_keys(self) -> tuple[str, ...]:
        """The API keys: the setting holds one, or several separated by commas."""
        if not self.api_key:
            return ()
        return tuple(key.strip() for key in self.api_key.split(",") if key.strip())

    def store_settings(self) -> StoreSettings:
        """The store's settings under this configuration."""
        return StoreSettings(
            key_prefix=self.key_prefix,
            idle_ttl=self.game_ttl,
            finished_ttl=self.finished_game_ttl,
            answer_ttl=self.answer_ttl,
            max_games=self.max_games,
        )

    def __repr__(self) -> str:
        # Never print the API key or a Redis password in logs or tracebacks.
        shown = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        if shown["api_key"]:
            shown["api_key"] = "<set>"
        if shown["redis_url"]:
            shown["redis_url"] = "<set>"
        return "Config(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"

    @classmethod
    def load(
        cls, args: argparse.Namespace | None = None, env: Mapping[str, str] | None = None
    ) -> Config:
        """The configuration from parsed flags (:func:`add_arguments`), then ``env``, then the
        defaults. Raises ``ValueError`` naming a bad value."""
        env = env or {}
        values: dict[str, Any] = {}
        for name, (variable, parse) in _SOURCES.items():
            flag = getattr(args, name, None) if args is not None else None
            if flag is not None:
                # Repeated flags (argparse "append") arrive as a list.
                values[name] = tuple(flag) if isinstance(flag, list) else flag
            elif variable in env:
                try:
                    values[name] = parse(env[variable])
                except ValueError as error:
                    raise ValueError(f"{variable}: {error}") from None
        return cls(**values)


def _bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"not a boolean: {text!r}")


def _optional(text: str) -> str | None:
    return text or None


def _comma_separated(text: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in text.split(",") if item.strip())


def available_cores() -> int:
    """The cores this process may run on: those of its CPU affinity, fewer when a cgroup
    (a container's CPU limit) grants less CPU time than that, rounded up; at least 1."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    quota = _cgroup_cpu_quota()
    if quota is not None:
        cores = min(cores, math.ceil(quota))
    return max(1, cores)


def _cgroup_cpu_quota() -> float | None:
    """The CPUs a cgroup's quota grants (cgroup v2 ``cpu.max``, else v1's CFS quota), or None
    when there is no limit or none can be read."""
    try:
        with open("/sys/fs/cgroup/cpu.max") as limit:
            quota, _, period = limit.read().partition(" ")
        if quota.strip() != "max":
            return int(quota) / int(period)
        return None
    except (OSError, ValueError):
        pass
    try:
        with (
            open("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") as quota_file,
            open("/sys/fs/cgroup/cpu/cpu.cfs_period_us") as period_file,
        ):
            quota_us, period_us = int(quota_file.read()), int(period_file.read())
    except (OSError, ValueError):
        return None
    return quota_us / period_us if quota_us > 0 and period_us > 0 else None


def _workers(text: str) -> int:
    """A worker count: a positive number, or ``auto`` for one per available core.

    >>> _workers("3"), _workers("auto") == available_cores()
    (3, True)
    """
    if text.strip().lower() == "auto":
        return available_cores()
    return int(text)


def _workers_flag(text: str) -> int:
    try:
        return _workers(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number or auto: {text!r}") from None


#: setting -> (environment variable, parser of its text).
_SOURCES: Mapping[str, tuple[str, Callable[[str], Any]]] = {
    "host": ("HANAFUDA_HOST", str),
    "grpc_port": ("HANAFUDA_GRPC_PORT", int),
    "http_port": ("HANAFUDA_HTTP_PORT", int),
    "redis_url": ("REDIS_URL", _optional),
    "key_prefix": ("HANAFUDA_KEY_PREFIX", str),
    "game_ttl": ("HANAFUDA_GAME_TTL", float),
    "finished_game_ttl": ("HANAFUDA_FINISHED_GAME_TTL", float),
    "sweep_interval": ("HANAFUDA_SWEEP_INTERVAL", float),
    "sweep_budget": ("HANAFUDA_SWEEP_BUDGET", float),
    "create_rate": ("HANAFUDA_CREATE_RATE", float),
    "tls_cert": ("HANAFUDA_TLS_CERT", str),
    "tls_key": ("HANAFUDA_TLS_KEY", str),
    "tls_client_ca": ("HANAFUDA_TLS_CLIENT_CA", str),
    "create_burst": ("HANAFUDA_CREATE_BURST", int),
    "advice_rate": ("HANAFUDA_ADVICE_RATE", float),
    "advice_burst": ("HANAFUDA_ADVICE_BURST", int),
    "answer_ttl": ("HANAFUDA_ANSWER_TTL", float),
    "max_games": ("HANAFUDA_MAX_GAMES", int),
    "max_request_bytes": ("HANAFUDA_MAX_REQUEST_BYTES", int),
    "request_timeout": ("HANAFUDA_REQUEST_TIMEOUT", float),
    "api_key": ("HANAFUDA_API_KEY", _optional),
    "cors_origins": ("HANAFUDA_CORS_ORIGINS", _comma_separated),
    "log_format": ("HANAFUDA_LOG_FORMAT", str),
    "log_level": ("HANAFUDA_LOG_LEVEL", str),
    "allow_testing": ("HANAFUDA_ALLOW_TESTING", _bool),
    "shutdown_grace": ("HANAFUDA_SHUTDOWN_GRACE", float),
    "game_cache_size": ("HANAFUDA_GAME_CACHE_SIZE", int),
    "max_watchers": ("HANAFUDA_MAX_WATCHERS", int),
    "watchers_per_game": ("HANAFUDA_WATCHERS_PER_GAME", int),
    "watchers_per_client": ("HANAFUDA_WATCHERS_PER_CLIENT", int),
    "watchers_per_seat": ("HANAFUDA_WATCHERS_PER_SEAT", int),
    "workers": ("HANAFUDA_WORKERS", _workers),
    "otlp_endpoint": ("OTEL_EXPORTER_OTLP_ENDPOINT", _optional),
    "table": ("HANAFUDA_TABLE", _bool),
    "trusted_proxies": ("HANAFUDA_TRUSTED_PROXIES", _comma_separated),
    "ipv6_client_prefix": ("HANAFUDA_IPV6_CLIENT_PREFIX", int),
    "max_client_games": ("HANAFUDA_MAX_CLIENT_GAMES", int),
    "max_client_bot_games": ("HANAFUDA_MAX_CLIENT_BOT_GAMES", int),
    "max_expert_seats": ("HANAFUDA_MAX_EXPERT_SEATS", int),
    "creation_memory_ceiling": ("HANAFUDA_CREATION_MEMORY_CEILING", float),
    "bot_workers": ("HANAFUDA_BOT_WORKERS", _workers),
    "bot_worker_processes": ("HANAFUDA_BOT_WORKER_PROCESSES", _workers),
    "bot_worker_health_port": ("HANAFUDA_BOT_WORKER_HEALTH_PORT", int),
}

#: Every environment variable the service reads.
VARIABLES: frozenset[str] = frozenset(variable for variable, _ in _SOURCES.values())


#: What ``--help`` adds to a default: what an unset one means, or what 0 means.
_DEFAULT_NOTES: Mapping[str, str] = {
    "redis_url": "an in-process store",
    "max_games": "0: no limit; Redis: its maxmemory decides",
    "request_timeout": "0: no limit on HTTP",
    "api_key": "not required",
    "tls_cert": "plain text",
    "tls_key": "plain text",
    "tls_client_ca": "no client certificate",
    "cors_origins": "CORS off",
    "trusted_proxies": "X-Forwarded-For is ignored",
    "max_watchers": "0: no limit",
    "watchers_per_game": "0: no limit",
    "watchers_per_client": "0: no limit",
    "watchers_per_seat": "0: no limit",
    "workers": "auto: one per core",
    "max_client_games": "0: no limit",
    "max_client_bot_games": "0: no limit",
    "max_expert_seats": "0: no limit",
    "creation_memory_ceiling": "1: no margin",
    "otlp_endpoint": "no traces",
    "bot_workers": "0: external bot workers serve the queue",
}


def _shown_default(name: str) -> str:
    """The default of setting ``name`` as ``--help`` prints it."""
    value = next(f.default for f in dataclasses.fields(Config) if f.name == name)
    if value is None:
        shown = "unset"
    elif value == ():
        shown = "none"
    elif isinstance(value, bool):
        shown = "on" if value else "off"
    elif isinstance(value, float) and value.is_integer():
        shown = str(int(value))
    else:
        shown = str(value)
    note = _DEFAULT_NOTES.get(name)
    if note is None:
        return shown
    return f"{shown}: {note}" if value is None or value == () else f"{shown}; {note}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the settings' flags to ``parser`` (each defaults to None: unset, see :meth:`load`).

    Each flag's help ends with its environment variable and its default, taken from
    :data:`_SOURCES` and :class:`Config` so that ``--help`` cannot leave one out."""

    def add(flag: str, description: str, *, dest: str | None = None, **options: Any) -> None:
        name = dest or flag.removeprefix("--").replace("-", "_")
        variable, _ = _SOURCES[name]
        shown = f"{description} ({variable}; default {_shown_default(name)})"
        parser.add_argument(flag, dest=name, help=shown, **options)

    add("--host", "address to listen on")
    add("--grpc-port", "gRPC port", type=int)
    add("--http-port", "HTTP port", type=int)
    add("--redis-url", "Redis URL; prefer the variable when it holds a password")
    add("--key-prefix", "Redis key prefix")
    add("--game-ttl", "seconds an idle game lives", type=float)
    add("--finished-game-ttl", "seconds a finished game stays readable", type=float)
    add(
        "--sweep-interval",
        "seconds between two sweeps of the turn clocks' deadlines (0: no sweeper)",
        type=float,
    )
    add(
        "--sweep-budget",
        "seconds one sweep may spend applying timeouts; the rest waits for the next sweep",
        type=float,
    )
    add("--answer-ttl", "seconds a move's answer is kept for retries", type=float)
    add("--max-games", "games the in-process store holds at once", type=int)
    add("--max-request-bytes", "largest request accepted, in bytes", type=int)
    add(
        "--request-timeout",
        "seconds a client has to send a whole HTTP request, or to open a gRPC connection",
        type=float,
    )
    add(
        "--api-key",
        "API key a client must send (header x-api-key) to create games, or several separated "
        "by commas; seats act with their own tokens; prefer the variable",
    )
    add(
        "--cors-origin",
        "an origin allowed by CORS on HTTP; repeat for several (the variable: comma-separated)",
        dest="cors_origins",
        action="append",
    )
    add("--log-format", "json or console", choices=_LOG_FORMATS)
    add("--log-level", "log level")
    add(
        "--allow-testing-features",
        "accept seeds and prepared deals at game creation",
        dest="allow_testing",
        action="store_true",
        default=None,
    )
    add("--shutdown-grace", "seconds in-flight calls get at shutdown", type=float)
    add("--game-cache-size", "games whose last state each process keeps", type=int)
    add("--max-watchers", "spectators' WatchGame streams the process follows at once", type=int)
    add("--watchers-per-game", "spectators' streams of one game in the process", type=int)
    add("--watchers-per-client", "spectators' streams from one address in the process", type=int)
    add("--watchers-per-seat", "streams of one seat of a game in the process", type=int)
    add("--tls-cert", "PEM certificate chain: serve TLS on both ports", metavar="FILE")
    add("--tls-key", "PEM private key of the TLS certificate", metavar="FILE")
    add(
        "--tls-client-ca",
        "PEM CA: gRPC clients must present a certificate it signed",
        metavar="FILE",
    )
    add("--create-rate", "games one client may create per minute (0: no limit)", type=float)
    add("--create-burst", "games one client may create at once before the rate applies", type=int)
    add(
        "--advice-rate",
        "hints and reviews one client may ask for per minute (0: no limit)",
        type=float,
    )
    add("--advice-burst", "hints and reviews one client may ask for at once", type=int)
    add(
        "--workers",
        "serving processes sharing the ports; more than one needs Redis",
        type=_workers_flag,
        metavar="N",
    )
    add(
        "--otlp-endpoint",
        "OTLP/gRPC collector to send traces to (http://host:4317 for plain text)",
        metavar="URL",
    )
    add(
        "--trusted-proxy",
        "an address or network (CIDR) of a proxy whose X-Forwarded-For names the client, for "
        "the per-client limits; repeat for several (the variable: comma-separated)",
        dest="trusted_proxies",
        action="append",
    )
    add(
        "--ipv6-client-prefix",
        "bits of an IPv6 address that name one client for the per-client limits",
        type=int,
    )
    add("--max-client-games", "unfinished games one client may hold", type=int)
    add("--max-client-bot-games", "unfinished games with bot seats one client may hold", type=int)
    add("--max-expert-seats", "expert bot seats in one game", type=int)
    add(
        "--creation-memory-ceiling",
        "share of the store's memory limit (Redis maxmemory) above which no game is created",
        type=float,
    )
    add(
        "--bot-workers",
        "bot worker processes serve starts for the bots' turns, at a lower CPU priority "
        "(auto: one per core)",
        type=_workers_flag,
        metavar="N",
    )
    add(
        "--processes",
        "bot worker processes of the bot-workers command (auto: one per core)",
        dest="bot_worker_processes",
        type=_workers_flag,
        metavar="N",
    )
    add(
        "--health-port",
        "the bot-workers command's HTTP port for /healthz, /readyz and /metrics",
        dest="bot_worker_health_port",
        type=int,
    )
    add(
        "--no-table",
        "do not serve the browser table at / on HTTP",
        dest="table",
        action="store_false",
        default=None,
    )


def parse(argv: Sequence[str], env: Mapping[str, str]) -> Config:
    """The configuration of a command line of settings flags alone (for tests and tools)."""
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return Config.load(parser.parse_args(list(argv)), env)
