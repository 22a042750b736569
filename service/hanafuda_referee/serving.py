"""Running the service: the gRPC server and the HTTP app, in one process and one event loop.

This is the composition root: the one module that knows every layer. Both transports share
one :class:`~.hosting.referee.Referee` (so one store connection pool and one game cache). The
HTTP app comes from ``hanafuda_referee.http.app:create_app(referee, config)`` when that module
exists; without it the service serves gRPC alone and says so in the log. A caller of
:func:`serve` may add services of its own on both ports (:class:`ExtraServices`: the service
benchmark's reference requests, ``tests/benchmarks/reference_requests.py``).

Start-up binds both ports before either serves: a port that cannot be bound (taken by another
process, gRPC's included) is logged as ``cannot listen`` and raises :class:`StartupFailed`, with
nothing left running.

Shutdown (SIGTERM, SIGINT, or the ``stop`` event): the health service turns NOT_SERVING, both
servers stop accepting, calls in flight get ``shutdown_grace`` seconds to finish, then the store
is closed.

A worker of several (``--workers``: :mod:`hanafuda_referee.workers` runs :func:`serve` in each)
binds both ports with ``SO_REUSEPORT``, so that the kernel spreads the connections over the
workers; a process serving alone refuses a port another process holds.

Bot seats' turns: a process serving alone runs ``--bot-workers`` embedded bot workers
(:mod:`.botworkers.embedded`: it takes its store's bot turns and sends the searches to that many
processes at a lower CPU priority); a worker of several runs none (the supervisor started the
group's). Every process samples the bot queue's gauges.

Traces (:mod:`.observability.tracing`) are sent when an OTLP endpoint is configured: the requests'
spans, and the Redis calls' as their children.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import importlib.util
import os
import signal
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urlsplit

import grpc
import uvicorn
from litestar.handlers import HTTPRouteHandler

from hanafuda_referee import stop_signals
from hanafuda_referee.botworkers.consumer import sample_queue
from hanafuda_referee.botworkers.embedded import EmbeddedBotWorkers
from hanafuda_referee.calls.forwarding import TrustedProxies
from hanafuda_referee.config import Config
from hanafuda_referee.grpc.server import GrpcServer, tls_credentials
from hanafuda_referee.hosting.advice import AdviceLimit
from hanafuda_referee.hosting.limits import ClientLimits, CreationLimit
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.observability import metrics, tracing
from hanafuda_referee.observability.logs import logger
from hanafuda_referee.store import GameStore, RedisStore, StoreError, open_store

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter

__all__ = [
    "FULL_COLLECTION_THRESHOLD",
    "TASKS_SIGNAL",
    "ExtraServices",
    "StartupFailed",
    "loop_factory",
    "raise_open_file_limit",
    "serve",
    "settle_garbage_collector",
]

_HTTP_MODULE = "hanafuda_referee.http.app"
#: Collections of the middle generation between two full collections (CPython's default: 10).
FULL_COLLECTION_THRESHOLD = 1000


def settle_garbage_collector() -> None:
    """Once the service is built: keep what exists out of the garbage collector's sight, and
    make full collections rarer.

    Everything made so far (modules, descriptors, the app) lives as long as the process: frozen,
    a full collection has a fraction of the objects to walk. And a full collection only every
    1,000 (not 10) collections of the middle generation: under load the objects that outlive a
    few requests (game states, kept answer parts) are promoted steadily, which set off a full
    collection every second or two, each stalling the loop for 20-50 ms and freeing next to
    nothing (0 to 70 objects). Measured with a ``gc.callbacks`` hook in the server over three
    runs of the HTTP service benchmark: full collections over 3 ms went from 29 (CPython's
    default) to 3-5 (100) to 2, both as the load started (1,000). Cycles are still collected:
    in the young and middle generations as before, in the oldest one later.
    """
    gc.collect()
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_THRESHOLD)


def raise_open_file_limit() -> int | None:
    """Raise the process's soft limit on open files to its hard limit, and return the limit in
    force (None where the platform has none).

    Every connection holds a file descriptor, a watcher's for as long as it watches, and the
    soft limit is often 1,024 where the hard one is far higher (systemd's default): a server
    that kept it would refuse connections long before ``max_watchers``. A process may raise its
    own soft limit up to the hard one; Go's runtime does so at start for the same reason. An
    unlimited hard limit is left alone: the kernel refuses "unlimited" as a soft limit.
    """
    try:
        import resource
    except ImportError:  # not a Unix
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and hard != resource.RLIM_INFINITY and soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
    return None if soft == resource.RLIM_INFINITY else soft


#: Descriptors kept for everything but watchers (the listening sockets, Redis connections,
#: requests in flight): a watcher limit that leaves fewer under the open-file limit is warned of.
_SPARE_DESCRIPTORS = 1024

#: uvicorn's HTTP/1.1 parser: httptools (C, a dependency) unless it is missing, then h11 (pure
#: Python, several times slower per request).
_HTTP_PARSER = "httptools" if importlib.util.find_spec("httptools") else "h11"
#: Seconds between two readiness checks of the store (one PING) for the gRPC health service.
_READINESS_PERIOD = 1.0
#: Seconds between two samples of the active games gauge (a SCAN on Redis: keep it rare).
_GAUGE_PERIOD = 30.0


def _http_protocol(request_timeout: float) -> Any:
    """uvicorn's protocol: httptools' with a response's head and body in one write and a
    request's arrival bounded by ``request_timeout`` seconds (see :mod:`.http.protocol`), or
    h11's (neither) when httptools is missing."""
    if _HTTP_PARSER == "h11":
        return "h11"
    from hanafuda_referee.http.protocol import with_request_timeout

    return with_request_timeout(request_timeout)


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when it is installed (a dependency everywhere it builds), else the
    standard one. Its socket and scheduling paths are in C: a third of the time of a small HTTP
    request with the standard loop goes to the loop itself."""
    try:
        import uvloop
    except ImportError:  # Windows: uvloop does not exist there
        return None
    return uvloop.new_event_loop


class _EmbeddedUvicorn(uvicorn.Server):
    """A uvicorn server that leaves signals to its host: this process handles them once, for
    both transports."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass(frozen=True)
class ExtraServices:
    """Services a process serves beside the referee's, on the same ports: gRPC handlers and
    HTTP route handlers (registered on the app after the contract's routes)."""

    grpc: Sequence[grpc.GenericRpcHandler] = ()
    http: Sequence[HTTPRouteHandler] = ()


class StartupFailed(Exception):
    """The service could not start; the reason is logged already (a port that cannot be bound)."""


def _cannot_listen(transport: str, host: str, port: int, error: OSError) -> NoReturn:
    logger.error("cannot listen", transport=transport, host=host, port=port, error=str(error))
    raise StartupFailed(f"{transport}: cannot listen on {host}:{port}: {error}") from error


def _http_socket(host: str, port: int, reuse_port: bool = False) -> socket.socket:
    """The HTTP server's listening socket, bound here rather than by uvicorn: uvicorn ends the
    whole process from inside its task when it cannot bind (``sys.exit``), past this module's
    shutdown. IPv6 for an address with a colon, else IPv4 (a name such as ``localhost`` included),
    as uvicorn chooses. ``reuse_port``: with ``SO_REUSEPORT``, shared by the workers.

    >>> with _http_socket("localhost", 0) as bound:
    ...     bound.family.name, bound.getsockname()[0]
    ('AF_INET', '127.0.0.1')
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, reuse_port=reuse_port)


def _http_factory() -> Callable[[Referee, Config], Any] | None:
    """``create_app`` of the HTTP module, or None when the module does not exist."""
    try:
        module = importlib.import_module(_HTTP_MODULE)
    except ModuleNotFoundError as error:
        if error.name != _HTTP_MODULE:
            raise  # the module exists but needs something missing: a real failure
        return None
    factory: Callable[[Referee, Config], Any] = module.create_app
    return factory


def _grpc_tls(config: Config) -> grpc.ServerCredentials | None:
    """The gRPC server's TLS credentials from the configured files, or None for plain text.
    Read at start: a file that cannot be read stops the start rather than the first call."""
    if not config.tls_cert or not config.tls_key:  # Config refuses one without the other
        return None
    with open(config.tls_cert, "rb") as cert, open(config.tls_key, "rb") as key:
        certificate, private_key = cert.read(), key.read()
    client_ca = None
    if config.tls_client_ca:
        with open(config.tls_client_ca, "rb") as ca:
            client_ca = ca.read()
    return tls_credentials(certificate, private_key, client_ca)


async def _warn_of_unmet_requirements(store: object) -> None:
    """One ``game store misconfigured`` warning per requirement a Redis server does not meet
    (see :mod:`..store.server_requirements`); nothing when it cannot be told."""
    if not isinstance(store, RedisStore):
        return
    try:
        unmet = await store.unmet_requirements()
    except StoreError:  # INFO refused (an ACL, a managed server) or the server gone again
        return
    for requirement in unmet:
        logger.warning("game store misconfigured", problem=requirement)


async def _follow_readiness(referee: Referee, grpc_server: GrpcServer) -> None:
    """Keeps the gRPC health of the referee's service name in step with the store, as
    ``/readyz`` is on HTTP; the overall status ``""`` stays SERVING: the process itself is alive,
    and a liveness probe must not restart it for an outage of Redis. Each time the store answers
    again (and when it first does), its server's requirements are checked."""
    serving: bool | None = None
    while True:
        ready = await referee.ready()
        if ready != serving:
            await grpc_server.set_ready(ready)
            if serving is not None:
                logger.warning("game store " + ("back" if ready else "unavailable"))
            if ready:  # at start, and after an outage: a failover may bring another server
                await _warn_of_unmet_requirements(referee.store)
            serving = ready
        await asyncio.sleep(_READINESS_PERIOD)


async def _sample_active_games(referee: Referee) -> None:
    while True:
        try:
            metrics.ACTIVE_GAMES.set(await referee.games.count_games())
        except Exception:  # a gauge must never take the service down
            logger.warning("active games gauge: store did not answer")
        await asyncio.sleep(_GAUGE_PERIOD)


#: Games one call of the sweep reads from the index of deadlines.
_SWEEP_BATCH = 100
#: The pause before the next sweep when one ran out of budget with timeouts still due: short,
#: so that a sweeper behind uses the time the process would otherwise spend idle, yet long
#: enough that requests run between sweeps (they also run between a sweep's batches of games).
_BEHIND_PAUSE = 0.05


async def _sweep_deadlines(referee: Referee, period: float, budget: float) -> None:
    """Apply the turn clocks' timeouts nobody asked about, every ``period`` seconds (see
    :meth:`~hanafuda_referee.hosting.games.HostedGames.sweep`; PLAY.md: a timeout happens
    within about a second of its deadline when nobody calls). Each tick works oldest deadline
    first for at most ``budget`` seconds and leaves the rest to the next tick, so that however
    many games are abandoned, the event loop keeps serving requests between ticks; a tick that
    leaves timeouts due is followed by the next one after :data:`_BEHIND_PAUSE` rather than
    ``period``. The gauge ``hanafuda_deadline_sweep_lag_seconds`` says how far behind that
    leaves the sweeper."""
    while True:
        pause = period
        try:
            until = time.monotonic() + budget
            while (looked := await referee.games.sweep(_SWEEP_BATCH, until)) > 0:
                if time.monotonic() >= until:
                    pause = min(period, _BEHIND_PAUSE)  # budget spent with work left
                    break
                if looked < _SWEEP_BATCH:
                    break  # all that was due is done
            metrics.DEADLINE_SWEEP_LAG.set(await referee.games.sweep_lag())
        except Exception:  # the next sweep retries; requests apply timeouts themselves too
            logger.warning("deadline sweep failed", exc_info=True)
        await asyncio.sleep(pause)


#: The signal on which a serving process logs what each of its tasks awaits (see
#: :func:`_log_tasks`); a supervisor sends it to a worker that does not stop.
TASKS_SIGNAL = signal.SIGUSR2
#: Frames of each task's stack that :func:`_log_tasks` writes, innermost last.
_TASK_FRAMES = 8


def _log_tasks() -> None:
    """One ``tasks`` line at WARNING: every task of the event loop, by name, with where its
    coroutine waits (file, line, function; the innermost last). A process whose shutdown hangs
    in an await sits idle in its loop, where a thread dump shows nothing; this shows which
    await it is."""
    tasks = []
    for task in asyncio.all_tasks():
        frames = [
            f"{frame.f_code.co_filename.rpartition('/')[2]}:{frame.f_lineno} {frame.f_code.co_name}"
            for frame in task.get_stack(limit=_TASK_FRAMES)
        ]
        tasks.append({"name": task.get_name(), "stack": frames})
    logger.warning("tasks", count=len(tasks), tasks=tasks)


def _redis_server(url: str | None) -> tuple[str | None, int | None]:
    """The host and port of a Redis URL, for the spans of its calls (never its password).

    >>> _redis_server("redis://:secret@cache:6380/0"), _redis_server("unix:///run/redis.sock")
    (('cache', 6380), (None, None))
    """
    if not url:
        return None, None
    parts = urlsplit(url)
    try:
        return parts.hostname, parts.port or (6379 if parts.hostname else None)
    except ValueError:  # a port that is no number: the store refuses it on its own
        return parts.hostname, None


async def serve(
    config: Config,
    *,
    stop: asyncio.Event | None = None,
    extra: Callable[[GameStore], ExtraServices] | None = None,
    worker: int | None = None,
    started: Callable[[], None] | None = None,
    span_exporter: SpanExporter | None = None,
) -> None:
    """Serve until SIGTERM/SIGINT (or until ``stop`` is set), then shut down gracefully.
    ``extra``, given the process's store, names further services to serve on both ports.
    ``worker``: this process's index among the service's workers (they share the ports);
    ``started`` is called once both servers serve. ``span_exporter``: send traces there (a
    test's in-memory exporter) rather than to the configured OTLP endpoint."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    # First, before anything is opened that would have to be closed again.
    try:
        credentials = _grpc_tls(config)
    except OSError as error:
        logger.error("cannot read the TLS files", error=str(error))
        raise StartupFailed(f"cannot read the TLS files: {error}") from error
    store = open_store(config.redis_url, config.store_settings())
    try:
        await store.ping()
    except StoreError:
        # Start anyway: requests answer UNAVAILABLE until the store is back.
        logger.warning("game store unavailable at start-up")
    referee = Referee(
        store,
        allow_testing=config.allow_testing,
        api_keys=config.api_keys,
        cache_size=config.game_cache_size,
        max_watchers=config.max_watchers,
        watchers_per_game=config.watchers_per_game,
        watchers_per_client=config.watchers_per_client,
        watchers_per_seat=config.watchers_per_seat,
        creation_limit=(
            CreationLimit(per_minute=config.create_rate, burst=config.create_burst)
            if config.create_rate
            else None
        ),
        ipv6_client_prefix=config.ipv6_client_prefix,
        client_limits=ClientLimits(
            unfinished_games=config.max_client_games,
            bot_games=config.max_client_bot_games,
            expert_seats=config.max_expert_seats,
        ),
        memory_ceiling=config.creation_memory_ceiling,
        advice_limit=(
            AdviceLimit(per_minute=config.advice_rate, burst=config.advice_burst)
            if config.advice_rate
            else None
        ),
    )
    open_files = raise_open_file_limit()
    if (
        open_files is not None
        and config.max_watchers
        and config.max_watchers + _SPARE_DESCRIPTORS > open_files
    ):
        logger.warning(
            "open-file limit below max watchers",
            open_files=open_files,
            max_watchers=config.max_watchers,
            spare=_SPARE_DESCRIPTORS,
        )
    services = ExtraServices() if extra is None else extra(store)
    reuse_port = worker is not None
    grpc_server = GrpcServer(
        referee,
        host=config.host,
        port=config.grpc_port,
        max_request_bytes=config.max_request_bytes,
        connect_timeout=config.request_timeout,
        extra_handlers=services.grpc,
        credentials=credentials,
        reuse_port=reuse_port,
        trusted_proxies=TrustedProxies.parse(config.trusted_proxies),
    )
    factory = _http_factory()
    try:
        http_socket = (
            None
            if factory is None
            else _http_socket(config.host, config.http_port, reuse_port=reuse_port)
        )
    except OSError as error:
        await store.close()
        _cannot_listen("http", config.host, config.http_port, error)
    try:
        port = await grpc_server.start()
    except OSError as error:
        if http_socket is not None:
            http_socket.close()
        await store.close()
        _cannot_listen("grpc", config.host, config.grpc_port, error)

    if config.otlp_endpoint or span_exporter is not None:
        tracing.start(config.otlp_endpoint, exporter=span_exporter, worker=worker)
        if tracing.tracer is not None and isinstance(store, RedisStore):
            store.trace_calls(tracing.RedisCalls(tracing.tracer, *_redis_server(config.redis_url)))
    # Which process of the service's workers says what.
    process = {} if worker is None else {"worker": worker, "pid": os.getpid()}
    installed: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    # A worker starts with these signals blocked (see stop_signals): one its supervisor sent
    # during the start comes now, to the handlers, and stops this process gracefully.
    stop_signals.release()
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(TASKS_SIGNAL, _log_tasks)
        installed.append(TASKS_SIGNAL)
    logger.info(
        "grpc listening",
        host=config.host,
        port=port,
        store="redis" if config.redis_url else "memory",
        testing_features=config.allow_testing,
        open_files=open_files,
        event_loop=type(asyncio.get_running_loop()).__module__.partition(".")[0],
        tracing=tracing.tracer is not None,
        **process,
    )

    http: _EmbeddedUvicorn | None = None
    http_task: asyncio.Task[None] | None = None
    if factory is None or http_socket is None:
        logger.info("http transport not available: serving gRPC only", module=_HTTP_MODULE)
    else:
        app = factory(referee, config)
        for handler in services.http:
            app.register(handler)
        http = _EmbeddedUvicorn(
            uvicorn.Config(
                app,
                host=config.host,
                port=config.http_port,
                http=_http_protocol(config.request_timeout),
                log_config=None,
                access_log=False,
                timeout_graceful_shutdown=int(config.shutdown_grace) or None,
                ssl_certfile=config.tls_cert or None,
                ssl_keyfile=config.tls_key or None,
                # uvicorn would otherwise take X-Forwarded-For from any peer on 127.0.0.1 and
                # rewrite the client's address: only --trusted-proxy decides whom to believe,
                # on both transports alike (calls/forwarding.py).
                proxy_headers=False,
            )
        )
        http_task = asyncio.create_task(http.serve(sockets=[http_socket]), name="http")
        # If the HTTP server dies, stop the whole service rather than limp.
        http_task.add_done_callback(lambda _: stop.set())
        logger.info(
            "http listening",
            host=config.host,
            port=http_socket.getsockname()[1],
            parser=_HTTP_PARSER,
            tls=bool(config.tls_cert),
            **process,
        )
    gauge = asyncio.create_task(_sample_active_games(referee), name="active-games")
    readiness = asyncio.create_task(_follow_readiness(referee, grpc_server), name="readiness")
    sweeper = asyncio.create_task(
        _sweep_deadlines(referee, config.sweep_interval, config.sweep_budget)
        if config.sweep_interval > 0
        else asyncio.Event().wait(),
        name="deadlines",
    )
    queue_gauges = asyncio.create_task(sample_queue(store), name="bot-queue-gauges")
    # One process: its own pool of bot workers. Several (``worker`` set): the supervisor
    # started theirs, once for all of them.
    bots: EmbeddedBotWorkers | None = None
    bot_task: asyncio.Task[None] | None = None
    if worker is None and config.bot_workers > 0:
        bots = EmbeddedBotWorkers(referee.games, config.bot_workers)
        bot_task = asyncio.create_task(bots.run(stop), name="bot-workers")
        logger.info("bot workers started", processes=config.bot_workers, embedded=True)
    settle_garbage_collector()
    if started is not None:
        started()

    try:
        await stop.wait()
    finally:
        logger.info("shutting down", grace_s=config.shutdown_grace)
        # Requests waiting for their turn answer now, with the game as it is, and streams end
        # with their closing frame: neither holds the shutdown for its grace.
        referee.games.shut_down()
        if http is not None:
            http.should_exit = True
        await grpc_server.stop(config.shutdown_grace)
        if http_task is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(http_task, config.shutdown_grace + 5)
        if bot_task is not None and bots is not None:
            # The turns in hand are finished (stop is set); the rest stay queued.
            with contextlib.suppress(Exception):
                await asyncio.wait_for(bot_task, config.shutdown_grace + 5)
            await asyncio.to_thread(bots.close)
        for task in (gauge, readiness, sweeper, queue_gauges):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await store.close()
        # The spans left to send, sent: the loop has nothing left to do meanwhile.
        tracing.stop()
        for sig in installed:
            loop.remove_signal_handler(sig)
        logger.info("stopped", **process)
