"""Requests the two transports once answered differently, now answered alike.

Credentials: the same ``authorization`` and ``x-api-key`` values, as HTTP headers and as gRPC
metadata, give the same seat or the same refusal. gRPC used to take a bare token as one (HTTP
refused it), serve an empty ``Bearer`` as a spectator, and take the last of two tokens or keys
where HTTP took the first.

Long refusals: a refusal that quotes a long input (an unknown preset's name) reaches a gRPC
client with its reason. Quoted whole, its status detail outgrew grpc's metadata limit and the
client got ``RESOURCE_EXHAUSTED`` instead.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from types import SimpleNamespace

import grpc
import pytest
import pytest_asyncio
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status  # type: ignore[import-untyped]
from hanafuda.v1 import rules_pb2, service_pb2, service_pb2_grpc

from hanafuda_referee.calls.caller import bearer_token
from hanafuda_referee.calls.errors import MAX_MESSAGE, STATUS, ApiError
from hanafuda_referee.grpc.server import caller_from_metadata
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.http import app as http_app
from hanafuda_referee.store import MemoryStore
from tests.asgi import AsgiCaller

from .conftest import scripted_request, serving_grpc

#: A name in a case's headers that stands for a seat's token.
SEAT_0, SEAT_1 = "<seat 0>", "<seat 1>"
API_KEY = "s3cret"

#: (id, headers as (name, value) pairs, what a GetGame answers: a viewer seat or a reason).
READS: list[tuple[str, list[tuple[str, str]], int | str | None]] = [
    ("bearer", [("authorization", f"Bearer {SEAT_0}")], 0),
    ("scheme-in-any-case", [("authorization", f"bEARER {SEAT_1}")], 1),
    ("none-is-a-spectator", [], None),
    ("bare-token", [("authorization", SEAT_0)], "BAD_TOKEN"),
    ("bearer-alone", [("authorization", "Bearer")], "BAD_TOKEN"),
    ("empty", [("authorization", "")], "BAD_TOKEN"),
    ("basic", [("authorization", "Basic dTpw")], "BAD_TOKEN"),
    ("forged", [("authorization", "Bearer forged")], "BAD_TOKEN"),
    (
        "two-tokens",
        [("authorization", f"Bearer {SEAT_0}"), ("authorization", f"Bearer {SEAT_1}")],
        "INVALID_ARGUMENT",
    ),
    (
        "the-same-token-twice",
        [("authorization", f"Bearer {SEAT_0}"), ("authorization", f"Bearer {SEAT_0}")],
        "INVALID_ARGUMENT",
    ),
    ("two-api-keys", [("x-api-key", "wrong"), ("x-api-key", API_KEY)], "INVALID_ARGUMENT"),
]


@pytest_asyncio.fixture
async def transports() -> AsyncIterator[tuple[AsgiCaller, grpc.aio.Channel, list[str], str]]:
    """The HTTP app and a gRPC channel on one referee (with an API key), a game's tokens and
    its id."""
    referee = Referee(MemoryStore(), allow_testing=True, api_key=API_KEY)
    app = http_app.create_app(referee, SimpleNamespace(max_request_bytes=1 << 20, cors_origins=()))
    async with serving_grpc(referee) as (_, channel):
        created = await referee.CreateGame(
            scripted_request(), caller_from_metadata([("x-api-key", API_KEY)])[0]
        )
        yield AsgiCaller(app, keep_body=True), channel, list(created.player_tokens), created.game


def _filled(headers: list[tuple[str, str]], tokens: list[str]) -> list[tuple[str, str]]:
    return [(n, v.replace(SEAT_0, tokens[0]).replace(SEAT_1, tokens[1])) for n, v in headers]


async def _over_http(
    caller: AsgiCaller, method: str, path: str, headers: list[tuple[str, str]], body: bytes = b""
) -> int | str | None:
    """The viewer seat (None: a spectator) of a 200 answer, or the refusal's reason."""
    raw = [(n.encode(), v.encode()) for n, v in headers]
    if body:
        raw += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    status = await caller(method, path, raw, body)
    answer = json.loads(caller.body)
    if status != 200:
        reason: str = answer["error"]["details"][0]["reason"]
        assert STATUS[reason][1] == status
        return reason
    viewer: int | None = answer["view"].get("viewerSeat")
    return viewer


async def _over_grpc(call: grpc.aio.UnaryUnaryCall) -> int | str | None:  # type: ignore[type-arg]
    """The same over gRPC: the viewer seat, or the reason of the rich status."""
    try:
        answer = await call
    except grpc.aio.AioRpcError as error:
        refused = error
    else:
        return answer.view.viewer_seat if answer.view.HasField("viewer_seat") else None
    status = rpc_status.from_call(refused)
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert STATUS[info.reason][0] == refused.code()
    return str(info.reason)


@pytest.mark.parametrize(("headers", "expected"), [c[1:] for c in READS], ids=[c[0] for c in READS])
async def test_a_read_gets_the_same_answer_on_both_transports(
    transports: tuple[AsgiCaller, grpc.aio.Channel, list[str], str],
    headers: list[tuple[str, str]],
    expected: int | str | None,
) -> None:
    http, channel, tokens, game = transports
    sent = _filled(headers, tokens)
    stub = service_pb2_grpc.RefereeServiceStub(channel)
    over_grpc = await _over_grpc(stub.GetGame(service_pb2.GetGameRequest(game=game), metadata=sent))
    assert await _over_http(http, "GET", f"/v1/games/{game}", sent) == expected
    assert over_grpc == expected


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        ((API_KEY,), None),
        (("wrong",), "API_KEY_REQUIRED"),
        (("wrong", API_KEY), "INVALID_ARGUMENT"),
    ],
    ids=["the-key", "a-wrong-key", "two-keys"],
)
async def test_creating_a_game_reads_the_api_key_alike(
    transports: tuple[AsgiCaller, grpc.aio.Channel, list[str], str],
    keys: tuple[str, ...],
    expected: str | None,
) -> None:
    http, channel, _, _ = transports
    sent = [("x-api-key", key) for key in keys]
    request = scripted_request()
    body = json.dumps({"kind": "GAME_KIND_KOI_KOI", "players": ["a", "b"]}).encode()
    stub = service_pb2_grpc.RefereeServiceStub(channel)
    over_grpc = await _over_grpc(stub.CreateGame(request, metadata=sent))
    assert await _over_http(http, "POST", "/v1/games", sent, body) == expected
    assert over_grpc == expected


def test_bearer_token() -> None:
    assert bearer_token("Bearer  tok ") == "tok"
    for refused in ("tok", "Bearer", "Bearer   ", "Basic dTpw", "", "Bearertok"):
        with pytest.raises(ApiError) as raised:
            bearer_token(refused)
        assert raised.value.reason == "BAD_TOKEN"


def test_credentials_sent_twice_name_no_seat() -> None:
    caller, refusal = caller_from_metadata(
        [("authorization", "Bearer a"), ("authorization", "Bearer b"), ("x-request-id", "r1")]
    )
    assert refusal is not None and refusal.reason == "INVALID_ARGUMENT"
    assert refusal.metadata == {"header": "authorization"}
    assert (caller.token, caller.api_key, caller.request_id) == (None, None, "r1")


@pytest.mark.parametrize("preset", ["x" * 6000, "é" * 3000], ids=["ascii", "two-byte"])
async def test_a_refusal_quoting_a_long_input_keeps_its_reason(
    transports: tuple[AsgiCaller, grpc.aio.Channel, list[str], str], preset: str
) -> None:
    http, channel, _, _ = transports
    key = [("x-api-key", API_KEY)]
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], preset=preset
    )
    stub = service_pb2_grpc.RefereeServiceStub(channel)
    body = json.dumps({"kind": "GAME_KIND_KOI_KOI", "players": ["a", "b"], "preset": preset})
    assert await _over_grpc(stub.CreateGame(request, metadata=key)) == "UNKNOWN_PRESET"
    assert await _over_http(http, "POST", "/v1/games", key, body.encode()) == "UNKNOWN_PRESET"
    message = json.loads(http.body)["error"]["message"]
    assert len(message) == MAX_MESSAGE and message.endswith("…")


def test_an_error_cuts_its_message_and_metadata_values() -> None:
    error = ApiError("INVALID_ARGUMENT", "m" * 10_000, {"parameter": "p" * 10_000})
    assert len(error.message) == MAX_MESSAGE == len(str(error))
    assert len(error.metadata["parameter"]) < 200
    short = ApiError("INVALID_ARGUMENT", "short", {"parameter": "p"})
    assert (short.message, short.metadata) == ("short", {"parameter": "p"})
