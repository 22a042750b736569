"""What the two transports charge a server for a request, apart from the service: a script, not
a test.

Starts a bare server process built like the service's (one uvloop event loop serving a
``grpc.aio`` server and a Litestar app under uvicorn with httptools), with none of the service's
code, and drives it with ``--lanes`` concurrent lanes per transport, one request at a time each:

* ``noop``: an empty request and answer;
* ``metadata``: the same, carrying what a seat's request carries besides its body (a bearer
  token and a request id: gRPC metadata, HTTP headers) and the reference requests do not;
* ``burn``: a handler that spends ``--burn`` microseconds of CPU (its thread's CPU clock);
* ``burn+io``: the same, then waiting 0.2 ms on a timer, as a handler waits for Redis;
* ``answer``: a no-op answering ``--answer-bytes`` bytes, about a move's answer.

For each, the server's CPU time per request (user plus system, from /proc), the median of
``--runs``, and its excess over the no-op. A ``burn`` excess of about ``--burn`` means the
transport adds nothing to a handler's own work; more is what interleaving requests costs it
(caches, the event loop, on gRPC the poller thread). The service's moves pay all of these:
compare with ``tests.benchmarks.service``'s CPU per request. Run from the repository root::

    .venv/bin/python -m tests.benchmarks.transport_costs [--runs 3] [--duration 3]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

import grpc
import uvicorn
import uvloop
from litestar import Litestar, Response, get
from tests.benchmarks.service import process_cpu_seconds

_SERVICE = "bench.TransportCosts"
#: A seat's request carries these besides its body (a token as long as the service's).
_SEAT_HEADERS = (("authorization", "Bearer " + "t" * 43), ("x-request-id", "r" * 20))
_TIMER_SECONDS = 0.0002


def burn(micros: int) -> None:
    """Spend ``micros`` microseconds of this thread's CPU time in the interpreter."""
    end = time.thread_time() + micros / 1e6
    total = 0
    while time.thread_time() < end:
        for i in range(50):
            total += i * i


# --- the bare server -------------------------------------------------------------------------


def _grpc_handler() -> grpc.GenericRpcHandler:
    async def noop(request: bytes, context: Any) -> bytes:
        return b""

    async def burn_rpc(request: bytes, context: Any) -> bytes:
        burn(int(request))
        return b""

    async def burn_io(request: bytes, context: Any) -> bytes:
        burn(int(request))
        await asyncio.sleep(_TIMER_SECONDS)
        return b""

    async def answer(request: bytes, context: Any) -> bytes:
        return b"x" * int(request)

    methods = {"Noop": noop, "Burn": burn_rpc, "BurnIo": burn_io, "Answer": answer}
    return grpc.method_handlers_generic_handler(
        _SERVICE,
        {name: grpc.unary_unary_rpc_method_handler(call) for name, call in methods.items()},
    )


def _http_app() -> Litestar:
    @get("/noop", status_code=204)
    async def noop() -> None:
        return None

    @get("/burn/{micros:int}", status_code=204)
    async def burn_route(micros: int) -> None:
        burn(micros)

    @get("/burn-io/{micros:int}", status_code=204)
    async def burn_io(micros: int) -> None:
        burn(micros)
        await asyncio.sleep(_TIMER_SECONDS)

    @get("/answer/{size:int}")
    async def answer(size: int) -> Response[bytes]:
        return Response(b"x" * size, media_type="application/octet-stream")

    return Litestar([noop, burn_route, burn_io, answer], openapi_config=None)


def _serve(grpc_port: int, http_port: int) -> None:
    async def main() -> None:
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((_grpc_handler(),))
        server.add_insecure_port(f"127.0.0.1:{grpc_port}")
        await server.start()
        config = uvicorn.Config(
            _http_app(),
            host="127.0.0.1",
            port=http_port,
            http="httptools",
            loop="none",
            lifespan="off",
            log_level="warning",
            access_log=False,
        )
        await uvicorn.Server(config).serve()

    uvloop.run(main())


# --- the load --------------------------------------------------------------------------------

Call = Callable[[], Awaitable[None]]
#: The HTTP route of each gRPC method, ``{}`` standing for its number argument.
_ROUTES = {"Noop": "/noop", "Burn": "/burn/{}", "BurnIo": "/burn-io/{}", "Answer": "/answer/{}"}


class Workload(NamedTuple):
    """A request: the gRPC method (and its HTTP route, see ``_ROUTES``), the number it takes
    (microseconds to burn, bytes to answer; none for the no-op), and whether it carries a
    seat's token and request id."""

    method: str
    argument: int | None = None
    seat: bool = False


async def _lanes(calls: list[Call], seconds: float) -> int:
    """Requests completed in ``seconds`` by one lane per call, one request at a time each."""
    stop = time.monotonic() + seconds
    done = 0

    async def lane(call: Call) -> None:
        nonlocal done
        while time.monotonic() < stop:
            await call()
            done += 1

    await asyncio.gather(*(lane(call) for call in calls))
    return done


def _grpc_call(channel: grpc.aio.Channel, workload: Workload) -> Call:
    stub: grpc.aio.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(
        f"/{_SERVICE}/{workload.method}"
    )
    request = b"" if workload.argument is None else str(workload.argument).encode()
    metadata = _SEAT_HEADERS if workload.seat else None

    async def call() -> None:
        await stub(request, metadata=metadata)

    return call


def _http_call(
    connection: tuple[asyncio.StreamReader, asyncio.StreamWriter], workload: Workload
) -> Call:
    reader, writer = connection
    path = _ROUTES[workload.method].format(workload.argument)
    extra = "".join(f"{name}: {value}\r\n" for name, value in _SEAT_HEADERS)
    headers = extra if workload.seat else ""
    request = f"GET {path} HTTP/1.1\r\nhost: bench\r\n{headers}\r\n".encode()

    async def call() -> None:
        writer.write(request)
        head = await reader.readuntil(b"\r\n\r\n")
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                await reader.readexactly(int(line.split(b":", 1)[1]))

    return call


def _workloads(args: argparse.Namespace) -> dict[str, Workload]:
    return {
        "noop": Workload("Noop"),
        "metadata": Workload("Noop", seat=True),
        "burn": Workload("Burn", args.burn),
        "burn+io": Workload("BurnIo", args.burn),
        "answer": Workload("Answer", args.answer_bytes),
    }


async def _cpu_per_request(args: argparse.Namespace, pid: int, calls: list[Call]) -> float:
    """Server CPU microseconds per request of the lanes ``calls``, after a warm-up."""
    await _lanes(calls, 0.5)
    before = process_cpu_seconds(pid)
    done = await _lanes(calls, args.duration)
    return (process_cpu_seconds(pid) - before) / done * 1e6


async def _measure(args: argparse.Namespace, pid: int, transport: str, workload: Workload) -> float:
    """Server CPU microseconds per request of one workload over ``transport``: one channel
    for the gRPC lanes, one keep-alive connection per HTTP lane."""
    if transport == "grpc":
        async with grpc.aio.insecure_channel(f"127.0.0.1:{args.grpc_port}") as channel:
            calls = [_grpc_call(channel, workload) for _ in range(args.lanes)]
            return await _cpu_per_request(args, pid, calls)
    connections = [
        await asyncio.open_connection("127.0.0.1", args.http_port) for _ in range(args.lanes)
    ]
    try:
        calls = [_http_call(connection, workload) for connection in connections]
        return await _cpu_per_request(args, pid, calls)
    finally:
        for _, writer in connections:
            writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--lanes", type=int, default=32)
    parser.add_argument("--burn", type=int, default=100, help="microseconds a burn spends")
    parser.add_argument("--answer-bytes", type=int, default=6000)
    parser.add_argument("--grpc-port", type=int, default=16061)
    parser.add_argument("--http-port", type=int, default=16080)
    args = parser.parse_args()

    server = multiprocessing.get_context("spawn").Process(
        target=_serve, args=(args.grpc_port, args.http_port), daemon=True
    )
    server.start()
    assert server.pid is not None
    time.sleep(2.0)
    workloads = _workloads(args)
    costs: dict[tuple[str, str], list[float]] = {}
    try:
        for _ in range(args.runs):
            for transport in ("http", "grpc"):
                for name, workload in workloads.items():
                    cost = uvloop.run(_measure(args, server.pid, transport, workload))
                    costs.setdefault((transport, name), []).append(cost)
    finally:
        server.terminate()
        server.join()

    print(
        f"{sys.executable} -m tests.benchmarks.transport_costs --runs {args.runs} "
        f"--duration {args.duration:g} --lanes {args.lanes} --burn {args.burn} "
        f"--answer-bytes {args.answer_bytes}\n"
        f"bare server, {args.lanes} lanes, {args.runs} runs of {args.duration:g} s; "
        "server CPU per request (median), and over the no-op"
    )
    for transport in ("http", "grpc"):
        noop = statistics.median(costs[transport, "noop"])
        for name in workloads:
            cost = statistics.median(costs[transport, name])
            print(f"  {transport:5} {name:9} {cost:7.1f} us   {cost - noop:+7.1f} us")


if __name__ == "__main__":
    main()
