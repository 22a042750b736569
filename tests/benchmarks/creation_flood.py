"""How many games one client creates when it tries every trick it has: a script, not a test.

PLAY.md ("Limits"): only what the referee verified names a client. Before, a fresh random
``x-api-key`` per request was a fresh creation bucket (15,516 games in 10 s from one address),
and every address of an IPv6 network was a client of its own. This script floods one service
process (on a private Redis, or ``--redis-url``) for ``--seconds`` per scenario with
``--connections`` concurrent HTTP clients creating Koi-Koi games as fast as they are answered:

* **one address, random keys**: every request from 127.0.0.1 with a new random ``x-api-key``
  (the server checks no key);
* **one IPv6 /64**: the server listens on ``::1`` and trusts ``::1`` as its proxy; every request
  is forwarded (``X-Forwarded-For``) from a new random address of ``2001:db8:0:1::/64``.

For each it prints the requests answered, the games created and the games per minute, next to
what the configured rate allows in that time (the burst, then the rate: ``--rate`` games a
minute, ``--burst`` at once). The caps on what one client holds are off, so that the rate alone
is measured (with them on, a client would stop at its 50 unfinished games). Run from the
repository root::

    .venv/bin/python -m tests.benchmarks.creation_flood [--seconds 60] [--connections 8]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx
from tests.benchmarks.service import given_or_private_redis
from tests.system.processes import RefereeProcess

BODY = {"kind": "GAME_KIND_KOI_KOI", "players": ["ann", "bob"]}


class _IPv6Process(RefereeProcess):
    """A service process on the IPv6 loopback only."""

    @property
    def http_url(self) -> str:
        return f"http://[::1]:{self.http_port}"

    @property
    def grpc_target(self) -> str:
        return f"[::1]:{self.grpc_port}"


@dataclass(frozen=True)
class Flood:
    """What one scenario got: requests answered by status, over ``seconds``."""

    name: str
    seconds: float
    statuses: Counter[int]

    @property
    def created(self) -> int:
        return self.statuses[200]

    @property
    def per_minute(self) -> float:
        return self.created / self.seconds * 60


async def _flood(
    url: str, headers: Callable[[], dict[str, str]], seconds: float, connections: int
) -> tuple[float, Counter[int]]:
    statuses: Counter[int] = Counter()
    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        started = time.monotonic()
        deadline = started + seconds

        async def one_connection() -> None:
            while time.monotonic() < deadline:
                response = await client.post("/v1/games", json=BODY, headers=headers())
                statuses[response.status_code] += 1

        await asyncio.gather(*(one_connection() for _ in range(connections)))
        return time.monotonic() - started, statuses


def _random_key() -> dict[str, str]:
    return {"x-api-key": secrets.token_hex(16)}


def _random_address_of_one_64() -> dict[str, str]:
    host = secrets.randbits(64)
    groups = ":".join(f"{(host >> shift) & 0xFFFF:x}" for shift in (48, 32, 16, 0))
    return {"x-forwarded-for": f"2001:db8:0:1:{groups}"}


def run(args: argparse.Namespace, workdir: Path, redis_url: str) -> list[Flood]:
    """Both scenarios, each on a server process of its own (a key prefix of its own)."""
    limits = {
        "REDIS_URL": redis_url,
        "HANAFUDA_CREATE_RATE": repr(args.rate),
        "HANAFUDA_CREATE_BURST": str(args.burst),
        "HANAFUDA_MAX_CLIENT_GAMES": "0",
        "HANAFUDA_MAX_CLIENT_BOT_GAMES": "0",
    }
    scenarios: list[tuple[str, RefereeProcess, Callable[[], dict[str, str]]]] = [
        (
            "one address, a random x-api-key per request",
            RefereeProcess(workdir, env=limits, allow_testing=False, name="keys"),
            _random_key,
        ),
        (
            "one IPv6 /64, a random address of it per request",
            _IPv6Process(
                workdir,
                env={**limits, "HANAFUDA_HOST": "::1", "HANAFUDA_TRUSTED_PROXIES": "::1"},
                allow_testing=False,
                name="ipv6",
            ),
            _random_address_of_one_64,
        ),
    ]
    floods = []
    for name, process, headers in scenarios:
        process.extra_env["HANAFUDA_KEY_PREFIX"] = f"bench-{uuid.uuid4().hex[:8]}:"
        with process:
            seconds, statuses = asyncio.run(
                _flood(process.http_url, headers, args.seconds, args.connections)
            )
        floods.append(Flood(name, seconds, statuses))
    return floods


def _report(flood: Flood, rate: float, burst: int) -> str:
    allowed = burst + rate * flood.seconds / 60
    answered = sum(flood.statuses.values())
    refused = flood.statuses[429]
    after_burst = max(0, flood.created - burst) / flood.seconds * 60
    return (
        f"  {flood.name}: {answered} requests in {flood.seconds:.1f} s, {flood.created} games "
        f"created, {refused} refused RATE_LIMITED ({flood.per_minute:.1f} games/min, "
        f"{after_burst:.1f}/min past the burst); the configured rate allows {allowed:.0f} in "
        f"that time ({burst} at once, then {rate:g}/min)"
    )


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="flood per scenario")
    parser.add_argument("--connections", type=int, default=8, help="concurrent HTTP clients")
    parser.add_argument("--rate", type=float, default=30.0, help="games a minute per client")
    parser.add_argument("--burst", type=int, default=30, help="games at once per client")
    parser.add_argument("--redis-url", help="a Redis to use rather than a private one")
    return parser.parse_args()


def main() -> None:
    args = _arguments()
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hf-flood-")))
        redis_url = given_or_private_redis(args.redis_url, workdir, stack)
        print(
            f"{args.connections} connections creating games as fast as they are answered, "
            f"{args.seconds:g} s per scenario; creation rate {args.rate:g}/min, burst {args.burst}"
        )
        for flood in run(args, workdir, redis_url):
            print(_report(flood, args.rate, args.burst))
    print(
        "reproduce: .venv/bin/python -m tests.benchmarks.creation_flood "
        f"--seconds {args.seconds:g} --connections {args.connections} --rate {args.rate:g} "
        f"--burst {args.burst}"
    )


if __name__ == "__main__":
    main()
