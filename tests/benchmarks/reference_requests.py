"""Benchmark-only reference requests: a no-op and one plain store write, on both transports.

``tests/benchmarks/service.py`` measures the API's moves against two references served by the same
process, event loop and store connections as the API itself: the cheapest request the transport
can serve (the no-op) and a request that does one plain write through the store's own Redis client
(one SET of a 10-second key under the key prefix, see ``RedisStore.write_probe``). A move costing
no more than the write means the whole move -- load, rules, compare-and-set, event, encoding --
costs no more than one naive Redis round trip.

* HTTP: ``GET /bench/noop`` and ``POST /bench/write``, both answering 204 with no body (the write:
  503 ``UNAVAILABLE`` when the store cannot answer).
* gRPC: the service ``hanafuda.bench.Bench`` with the unary methods ``Noop`` and ``Write``, empty
  raw bytes in and out (``UNAVAILABLE`` likewise). It is served by a generic handler outside the
  protobuf contract: a client calls ``channel.unary_unary("/hanafuda.bench.Bench/Noop")``.

They are no part of the product: ``python -m tests.benchmarks.reference_requests [serve flags]``
runs the service with them (:func:`services`, through ``hanafuda_referee.cli.main``), and the
console script never serves them (its paths answer 404, its methods ``UNIMPLEMENTED``). Neither
writes a log line or request metrics: they price serving a request at
all, and the API's own requests pay for their observability as part of their cost.
"""

from __future__ import annotations

import sys
from typing import Any, Protocol, runtime_checkable

import grpc
from litestar import get, post
from litestar.handlers import HTTPRouteHandler

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.cli import main
from hanafuda_referee.serving import ExtraServices
from hanafuda_referee.store import StoreError

__all__ = [
    "COMMAND",
    "GRPC_SERVICE",
    "NOOP_METHOD",
    "NOOP_PATH",
    "WRITE_METHOD",
    "WRITE_PATH",
    "ProbeWriter",
    "grpc_handler",
    "http_handlers",
    "services",
]

#: The gRPC service of the reference requests.
GRPC_SERVICE = "hanafuda.bench.Bench"
#: Full gRPC method names, as a client calls them.
NOOP_METHOD = f"/{GRPC_SERVICE}/Noop"
WRITE_METHOD = f"/{GRPC_SERVICE}/Write"
#: HTTP paths.
NOOP_PATH = "/bench/noop"
WRITE_PATH = "/bench/write"

_UNAVAILABLE = "the game store is unavailable; retry later"


@runtime_checkable
class ProbeWriter(Protocol):
    """A store that can do the reference write (both game stores can)."""

    async def write_probe(self) -> None:
        """One plain write to the store's backend."""
        ...


def http_handlers(store: ProbeWriter) -> list[HTTPRouteHandler]:
    """The HTTP route handlers, to register on the service's Litestar app."""

    @get(NOOP_PATH, name="bench-noop", status_code=204)
    async def noop() -> None:
        return None

    @post(WRITE_PATH, name="bench-write", status_code=204)
    async def write() -> None:
        try:
            await store.write_probe()
        except StoreError:
            raise ApiError("UNAVAILABLE", _UNAVAILABLE) from None

    return [noop, write]


def grpc_handler(store: ProbeWriter) -> grpc.GenericRpcHandler:
    """The generic handler of ``hanafuda.bench.Bench`` (raw bytes: no (de)serialisation)."""

    async def noop(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        return b""

    async def write(request: bytes, context: grpc.aio.ServicerContext[Any, Any]) -> bytes:
        try:
            await store.write_probe()
        except StoreError:
            await context.abort(grpc.StatusCode.UNAVAILABLE, _UNAVAILABLE)
        return b""

    return grpc.method_handlers_generic_handler(
        GRPC_SERVICE,
        {
            "Noop": grpc.unary_unary_rpc_method_handler(noop),
            "Write": grpc.unary_unary_rpc_method_handler(write),
        },
    )


def services(store: object) -> ExtraServices:
    """Both transports' reference requests over ``store`` (for :func:`.serving.serve`)."""
    if not isinstance(store, ProbeWriter):
        raise TypeError(f"{type(store).__name__} cannot serve the benchmark write")
    return ExtraServices(grpc=(grpc_handler(store),), http=http_handlers(store))


#: How :class:`tests.system.processes.RefereeProcess` runs a server with them.
COMMAND = [sys.executable, "-m", "tests.benchmarks.reference_requests"]

if __name__ == "__main__":
    raise SystemExit(main(extra=services))
