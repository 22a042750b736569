"""The external bot: plays one seat of a hosted game over the public API, with that seat's token.

    python -m hanafuda_referee.bots.play --url http://127.0.0.1:8080 --game=GAME --token=TOKEN \\
        [--level expert] [--seed 0] [--seconds 0.05 | --playouts N]
    python -m hanafuda_referee.bots.play --grpc 127.0.0.1:50051 --game=GAME --token=TOKEN ...

(Ids and tokens may begin with ``-``, hence ``=``; the token may also come from the environment
variable ``HANAFUDA_BOT_TOKEN``, out of sight of other users' process lists.)

It reads the seat's view; whenever the seat has legal moves it decides (:func:`.levels.decide` on
the view read back by :func:`.proto_view.engine_view`, so exactly as a built-in bot of that
level) and submits the move with the view's version as ``expected_version`` and a request id of
its own; otherwise it watches the game (``WatchGame``, Server-Sent Events over HTTP) until the
game moves on. A move answered ``UNAVAILABLE`` (or unanswered) is retried with the same request
id, as the contract says, until another answer comes; a stale or refused move makes it read the
game again. It exits 0 once the game is over, 1 when the service refuses it for good (an unknown
game, a bad token), 2 for bad arguments.

Over HTTP it needs only the standard library; over gRPC, the generated stubs and ``grpcio``
installed with the service.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, Protocol, TypeVar

from google.protobuf import json_format
from hanafuda.v1 import game_pb2, moves_pb2, service_pb2

from hanafuda_referee.bots.budget import Budget
from hanafuda_referee.bots.levels import Level, decide
from hanafuda_referee.bots.proto_view import engine_view, move_message

__all__ = [
    "GrpcTable",
    "HttpTable",
    "Refused",
    "Table",
    "Unavailable",
    "main",
    "parse_arguments",
    "play",
]

#: The environment variable the token may come from instead of ``--token`` (a command line is
#: visible to every user of the machine; the environment of a process is not).
TOKEN_VARIABLE = "HANAFUDA_BOT_TOKEN"
#: Seconds a request may take; a watch that long with no news is simply opened again.
REQUEST_SECONDS = 30.0
#: Waits between retries of an unanswered request (the last one repeats), seconds.
RETRY_WAITS = (0.05, 0.1, 0.2, 0.5, 1.0, 2.0)
#: Retries of one unanswered request before giving up (about five minutes).
MAX_RETRIES = 160
#: Refusals after which reading the game again and deciding anew is the answer.
_READ_AGAIN = frozenset(
    {"STALE_VERSION", "NOT_YOUR_TURN", "NO_DECISION_PENDING", "WRONG_MOVE", "TIMED_OUT"}
)

T = TypeVar("T")


class Unavailable(Exception):
    """No answer: the service is unreachable or answered ``UNAVAILABLE`` (the outcome of a move
    is then unknown)."""


class Refused(Exception):
    """The service refused the request, for ``reason`` (an ``ErrorInfo`` reason)."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason


class Table(Protocol):
    """One seat at a hosted game, over one transport."""

    def view(self) -> game_pb2.GameView:
        """The seat's view now."""
        ...

    def wait(self, version: int) -> None:
        """Return once the game is past ``version``, or after a while anyway."""
        ...

    def submit(self, move: moves_pb2.Move, version: int, request_id: str) -> game_pb2.GameView:
        """Submit ``move`` on ``version``; the view after it."""
        ...


class HttpTable:
    """A seat over the HTTP/JSON API (standard library only)."""

    def __init__(self, url: str, game: str, token: str) -> None:
        self._base = url.rstrip("/") + "/v1/games/" + urllib.parse.quote(game, safe="")
        self._headers = {"authorization": f"Bearer {token}"}

    def _open(self, request: urllib.request.Request) -> Any:
        try:
            return urllib.request.urlopen(request, timeout=REQUEST_SECONDS)
        except urllib.error.HTTPError as error:
            try:
                body = json.load(error)
                details = body.get("error", body).get("details", [])
                reason = next((d["reason"] for d in details if "reason" in d), "")
                message = body.get("error", body).get("message", "")
            except (ValueError, AttributeError):
                reason, message = "", error.reason
            if error.code == 503 or reason == "UNAVAILABLE":
                raise Unavailable(message) from None
            raise Refused(reason or str(error.code), str(message)) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            raise Unavailable(str(error)) from None

    def _json(self, request: urllib.request.Request) -> dict[str, Any]:
        with self._open(request) as response:
            body: dict[str, Any] = json.load(response)
            return body

    def view(self) -> game_pb2.GameView:
        body = self._json(urllib.request.Request(self._base, headers=self._headers))
        return json_format.ParseDict(body["view"], game_pb2.GameView(), ignore_unknown_fields=True)

    def wait(self, version: int) -> None:
        url = f"{self._base}/events?from_version={version}"
        headers = {**self._headers, "accept": "text/event-stream"}
        try:
            with self._open(urllib.request.Request(url, headers=headers)) as stream:
                for line in stream:
                    # The first item (or the stream's end) means the game moved on.
                    if line.startswith((b"data:", b"event:")):
                        return
        except TimeoutError:
            return  # a quiet game: the caller reads it again
        except Unavailable:
            time.sleep(RETRY_WAITS[-1])

    def submit(self, move: moves_pb2.Move, version: int, request_id: str) -> game_pb2.GameView:
        body = {
            "move": json_format.MessageToDict(move),
            "expectedVersion": str(version),
            "requestId": request_id,
        }
        request = urllib.request.Request(
            self._base + "/moves",
            data=json.dumps(body).encode(),
            headers={**self._headers, "content-type": "application/json"},
            method="POST",
        )
        answer = self._json(request)
        return json_format.ParseDict(
            answer["view"], game_pb2.GameView(), ignore_unknown_fields=True
        )


class GrpcTable:
    """A seat over gRPC (plain text), with the generated stubs."""

    def __init__(self, target: str, game: str, token: str) -> None:
        import grpc
        from hanafuda.v1 import service_pb2_grpc

        self._grpc = grpc
        self._channel = grpc.insecure_channel(target)
        self._stub = service_pb2_grpc.RefereeServiceStub(self._channel)
        self._game = game
        self._metadata = (("authorization", f"Bearer {token}"),)

    def _call(self, call: Callable[[], T]) -> T:
        grpc = self._grpc
        try:
            return call()
        except grpc.RpcError as error:
            code = error.code()
            if code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
                raise Unavailable(str(error.details())) from None
            raise Refused(_grpc_reason(error) or code.name, str(error.details())) from None

    def view(self) -> game_pb2.GameView:
        request = service_pb2.GetGameRequest(game=self._game)
        return self._call(
            lambda: self._stub.GetGame(request, metadata=self._metadata, timeout=REQUEST_SECONDS)
        ).view

    def wait(self, version: int) -> None:
        request = service_pb2.WatchGameRequest(game=self._game, from_version=version)
        grpc = self._grpc
        stream = self._stub.WatchGame(request, metadata=self._metadata, timeout=REQUEST_SECONDS)
        try:
            next(stream)
        except StopIteration:
            pass
        except grpc.RpcError as error:
            # A quiet game ends the watch at its deadline: the caller reads it again. Anything
            # else (the service away, the watch refused) is worth a pause first.
            if error.code() is not grpc.StatusCode.DEADLINE_EXCEEDED:
                time.sleep(RETRY_WAITS[-1])
        finally:
            stream.cancel()

    def submit(self, move: moves_pb2.Move, version: int, request_id: str) -> game_pb2.GameView:
        request = service_pb2.SubmitMoveRequest(
            game=self._game, move=move, expected_version=version, request_id=request_id
        )
        return self._call(
            lambda: self._stub.SubmitMove(request, metadata=self._metadata, timeout=REQUEST_SECONDS)
        ).view

    def close(self) -> None:
        self._channel.close()


def _grpc_reason(error: Any) -> str:
    """The ``ErrorInfo`` reason of a refused call, or ""."""
    from google.rpc import error_details_pb2  # type: ignore[import-untyped]
    from grpc_status import rpc_status  # type: ignore[import-untyped]

    status = rpc_status.from_call(error)
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return ""


def _retrying(call: Callable[[], T]) -> T:
    """``call`` until it is answered (the same request each time: a move keeps its request id)."""
    for attempt in range(MAX_RETRIES):
        try:
            return call()
        except Unavailable:
            time.sleep(RETRY_WAITS[min(attempt, len(RETRY_WAITS) - 1)])
    return call()


def play(
    table: Table,
    level: Level,
    seed: int,
    budget: Budget | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> game_pb2.GameView:
    """Play the table's seat until the game is over; the last view."""
    prefix = uuid.uuid4().hex[:12]
    view = _retrying(table.view)
    while view.status != game_pb2.GAME_STATUS_OVER:
        if not view.legal_moves:
            table.wait(view.version)
            view = _retrying(table.view)
            continue
        move = decide(engine_view(view), level, seed, budget=budget)
        message = move_message(move)
        request_id = f"{prefix}-{view.version}"
        version = view.version
        try:
            view = _retrying(partial(table.submit, message, version, request_id))
        except Refused as refusal:
            if refusal.reason not in _READ_AGAIN and refusal.reason != "GAME_OVER":
                raise
            log(f"refused ({refusal}); reading the game again")
            view = _retrying(table.view)
            continue
        log(f"version {version}: {move}")
    return view


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command's arguments (``argv`` None: the process's)."""
    parser = argparse.ArgumentParser(
        prog="python -m hanafuda_referee.bots.play",
        description="Play one seat of a hosted game with a built-in bot, over the public API.",
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="the HTTP/JSON API's base URL, e.g. http://127.0.0.1:8080")
    where.add_argument("--grpc", metavar="HOST:PORT", help="the gRPC endpoint (plain text)")
    # Ids and tokens may begin with "-": write them as --game=ID and --token=TOKEN.
    parser.add_argument("--game", required=True, help="the game id (--game=ID)")
    parser.add_argument(
        "--token",
        default=os.environ.get(TOKEN_VARIABLE),
        help=f"the seat's player token (--token=TOKEN), else ${TOKEN_VARIABLE}",
    )
    parser.add_argument(
        "--level", type=Level, choices=list(Level), default=Level.EXPERT, help="default: expert"
    )
    parser.add_argument("--seed", type=int, default=0, help="the bot's seed (default 0)")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--seconds", type=float, help="expert: wall-clock time per decision")
    limit.add_argument("--playouts", type=int, help="expert: play-outs per decision")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error(f"the seat's token is needed: --token=TOKEN or ${TOKEN_VARIABLE}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """The command: 0 once the game is over, 1 when refused for good."""
    args = parse_arguments(argv)
    budget = (
        Budget.wall(time.perf_counter, args.seconds)
        if args.seconds is not None
        else Budget(playouts=args.playouts)
    )

    def log(line: str) -> None:
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    table: HttpTable | GrpcTable
    table = (
        HttpTable(args.url, args.game, args.token)
        if args.url
        else GrpcTable(args.grpc, args.game, args.token)
    )
    try:
        final = play(table, args.level, args.seed, budget, log)
    except Refused as refusal:
        print(f"refused: {refusal}", file=sys.stderr)
        return 1
    except Unavailable as error:
        print(f"the service does not answer: {error}", file=sys.stderr)
        return 1
    finally:
        if isinstance(table, GrpcTable):
            table.close()
    log(f"game over: {json_format.MessageToJson(final.game_result, indent=None)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
