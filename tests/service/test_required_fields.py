"""The ``REQUIRED`` marks of the contract are what the service refuses, on both transports.

For each method a request the referee accepts is taken apart one field at a time: every field it
sets (walking into the messages it sets, and the first element of a repeated message) is cleared
in turn and the request sent again over gRPC and over HTTP. A field whose absence is refused must
be marked ``google.api.field_behavior = REQUIRED`` (and a marked one must be refused without it),
with the same reason on both transports and the status ``INVALID_ARGUMENT``. The OpenAPI document
builds its ``required`` lists from those marks (tests/http/test_openapi.py), so what it promises
is what the service does.

A path-bound field (``game``) cannot be left out of an HTTP request, whose path holds it: it is
checked over gRPC alone. A field the service needs in some requests only is not ``REQUIRED``; the
few the baselines below happen to need are listed in ``CONDITIONAL`` with the requests that do
without them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, cast

import grpc
import pytest
import pytest_asyncio
from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status  # type: ignore[import-untyped]
from hanafuda.v1 import moves_pb2, rules_pb2, service_pb2, service_pb2_grpc

from hanafuda_referee.calls.errors import STATUS
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.http import app as http_app
from hanafuda_referee.http.field_behavior import is_required
from hanafuda_referee.http.routes import HttpBinding, service_bindings
from hanafuda_referee.store import MemoryStore
from tests.asgi import AsgiCaller

from .conftest import cards, scripted_request, serving_grpc

SERVICE = service_pb2.DESCRIPTOR.services_by_name["RefereeService"]
BINDINGS = {binding.method.name: binding for binding in service_bindings(SERVICE)}

#: Fields some valid requests leave out although a baseline below needs them: full name → why
#: they are not REQUIRED.
CONDITIONAL = {
    "hanafuda.v1.Deal.stock": "a deal for 6 Hachi-Hachi participants leaves no card in the stock",
}


#: The game of a move case: replaced by a new game's id when sent (each move resigns its game).
NEW_GAME = "new-game"


@dataclass(frozen=True)
class Case:
    """A request the referee accepts, and whether it acts as a seat (needs a fresh game)."""

    method: str
    request: Message
    as_seat: bool = False
    #: The seat resigns its new game first (a review is of a finished game).
    finished: bool = False


def _baselines(game: str) -> list[Case]:
    yaku = rules_pb2.YakuRule(id="goko", points=10)
    return [
        Case("ListPresets", service_pb2.ListPresetsRequest(kind=rules_pb2.GAME_KIND_KOI_KOI)),
        Case(
            "ScoreKoiKoi",
            service_pb2.ScoreKoiKoiRequest(
                preset="fudawiki",
                overrides=rules_pb2.KoiKoiRules(yaku=[yaku]),
                captured=cards([1, 5]),
                round_month=3,
                own_koikoi_calls=1,
                opponent_koikoi_calls=1,
                opponent_yaku_points=2,
            ),
        ),
        Case(
            "ClassifyKoiKoiHand",
            service_pb2.ClassifyKoiKoiHandRequest(hand=cards([1, 2, 3, 4, 5, 9, 13, 17])),
        ),
        Case(
            "ClassifyHachiHachiHand",
            service_pb2.ClassifyHachiHachiHandRequest(hand=cards([1, 2, 5, 9, 13, 17, 21])),
        ),
        Case(
            "ScoreHachiHachiCaptures",
            service_pb2.ScoreHachiHachiCapturesRequest(captured=cards([1, 9])),
        ),
        Case(
            "SettleHachiHachiRound",
            service_pb2.SettleHachiHachiRoundRequest(
                counts=[98, 88, 78], field_multiplier=2, dealer=1
            ),
        ),
        Case(
            "ListCaptures",
            service_pb2.ListCapturesRequest(
                card=cards([41])[0], field=cards([42, 43, 1]), lightning_wild=True
            ),
        ),
        Case("CreateGame", _creation()),
        Case("GetGame", service_pb2.GetGameRequest(game=game, wait_seconds=0)),
        Case("GetGameLog", service_pb2.GetGameLogRequest(game=game, page_size=5)),
        Case("WatchGame", service_pb2.WatchGameRequest(game=game, from_version=0)),
        Case(
            "SubmitMove",
            service_pb2.SubmitMoveRequest(
                game=NEW_GAME,
                move=moves_pb2.Move(kind=moves_pb2.MOVE_KIND_RESIGN),
                seat=0,
                expected_version=1,
                request_id="r1",
            ),
            as_seat=True,
        ),
        Case("GetHint", service_pb2.GetHintRequest(game=NEW_GAME, wait_seconds=0), as_seat=True),
        Case(
            "ReviewGame",
            service_pb2.ReviewGameRequest(game=NEW_GAME, wait_seconds=0),
            as_seat=True,
            finished=True,
        ),
    ]


def _creation() -> service_pb2.CreateGameRequest:
    request = scripted_request()
    request.koi_koi.yaku.add(id="kasu", points=2)
    request.preset = "fudawiki"
    request.request_id = ""
    return request


def _set_fields(message: Message, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The path of every field ``message`` sets, a repeated message's first element walked
    into (its index is 0 in the path), depth first."""
    for field, value in message.ListFields():
        path = (*prefix, field.name)
        yield path
        if field.type != FieldDescriptor.TYPE_MESSAGE:
            continue
        if field.is_repeated:
            yield from _set_fields(value[0], (*path, "0"))
        else:
            yield from _set_fields(value, path)


def _without(message: Message, path: tuple[str, ...]) -> tuple[Message, FieldDescriptor]:
    """A copy of ``message`` with the field at ``path`` cleared, and that field."""
    copy = type(message)()
    copy.CopyFrom(message)
    parent: Message = copy
    for step in path[:-1]:
        parent = parent[int(step)] if step.isdigit() else getattr(parent, step)  # type: ignore[index]
    field = cast(Descriptor, parent.DESCRIPTOR).fields_by_name[path[-1]]
    parent.ClearField(path[-1])
    return copy, field


Outcome = str | None  # None: accepted; else the refusal's reason


@dataclass
class Transports:
    http: AsgiCaller
    stub: service_pb2_grpc.RefereeServiceStub
    game: str
    new_seat: Callable[[], Awaitable[tuple[str, str]]]


@pytest_asyncio.fixture
async def transports() -> AsyncIterator[Transports]:
    referee = Referee(MemoryStore(), allow_testing=True)
    app = http_app.create_app(referee, SimpleNamespace(max_request_bytes=1 << 20, cors_origins=()))
    async with serving_grpc(referee) as (_, channel):
        stub = service_pb2_grpc.RefereeServiceStub(channel)

        async def new_seat() -> tuple[str, str]:
            """A new game's id and its seat 0's token: each move case resigns its own game."""
            created = await stub.CreateGame(scripted_request())
            return created.game, created.player_tokens[0]

        game, _ = await new_seat()
        yield Transports(AsgiCaller(app, keep_body=True), stub, game, new_seat)


async def _seat(
    transports: Transports, request: Message, finished: bool = False
) -> tuple[Message, str]:
    """A copy of the request pointed at a new game (unless its game is the field left out), and
    that game's seat token; the game over when ``finished`` (the seat resigned)."""
    game, token = await transports.new_seat()
    if finished:
        resign = moves_pb2.Move(kind=moves_pb2.MOVE_KIND_RESIGN)
        submit: Any = transports.stub.SubmitMove  # the aio stub, typed as the sync one
        await submit(
            service_pb2.SubmitMoveRequest(game=game, move=resign, seat=0),
            metadata=[("authorization", f"Bearer {token}")],
        )
    copy = type(request)()
    copy.CopyFrom(request)
    if getattr(copy, "game", "") == NEW_GAME:
        copy.game = game  # type: ignore[attr-defined]
    return copy, token


async def _over_grpc(transports: Transports, case: Case, request: Message) -> Outcome:
    metadata: list[tuple[str, str]] = []
    if case.as_seat:
        request, token = await _seat(transports, request, case.finished)
        metadata.append(("authorization", f"Bearer {token}"))
    call = getattr(transports.stub, case.method)
    try:
        if BINDINGS[case.method].streaming:
            stream = call(request, metadata=metadata)
            await stream.read()
            stream.cancel()
        else:
            await call(request, metadata=metadata)
    except grpc.aio.AioRpcError as error:
        refused = error
    else:
        return None
    info = error_details_pb2.ErrorInfo()
    assert rpc_status.from_call(refused).details[0].Unpack(info)
    assert STATUS[info.reason][0] == refused.code()
    return str(info.reason)


async def _over_http(transports: Transports, case: Case, request: Message) -> Outcome:
    binding = BINDINGS[case.method]
    headers = [(b"content-type", b"application/json")]
    if case.as_seat:
        request, token = await _seat(transports, request, case.finished)
        headers.append((b"authorization", f"Bearer {token}".encode()))
    path, body = _http_request(binding, request)
    status = await transports.http(binding.verb, path, headers, body)
    if status == 200:
        return None
    reason: str = json.loads(transports.http.body)["error"]["details"][0]["reason"]
    assert STATUS[reason][1] == status
    return reason


def _http_request(binding: HttpBinding, request: Message) -> tuple[str, bytes]:
    """The path and body of ``request`` along ``binding`` (its bound fields in the path, the
    others in the body; the GET routes of these baselines set none beyond the path)."""
    tree = json_format.MessageToDict(request)
    path = binding.template
    for _, field_path in binding.path_fields:
        field = request.DESCRIPTOR.fields_by_name[field_path]
        path = path.replace("{" + field_path + "}", str(tree.pop(field.json_name)))
    if not binding.body:
        assert not tree or binding.verb == "GET"
        query = "&".join(f"{name}={value}" for name, value in tree.items())
        return path + ("?" + query if query else ""), b""
    return path, json.dumps(tree).encode()


@pytest.mark.parametrize("method", [method.name for method in SERVICE.methods])
async def test_a_field_is_marked_required_when_its_absence_is_refused(
    transports: Transports, method: str
) -> None:
    cases = {case.method: case for case in _baselines(transports.game)}
    case = cases[method]
    streaming = BINDINGS[method].streaming
    assert await _over_grpc(transports, case, case.request) is None
    if not streaming:
        assert await _over_http(transports, case, case.request) is None
    # Each field the request sets: the request without it, and the field.
    taken_apart = [(path, *_without(case.request, path)) for path in _set_fields(case.request)]
    marked = {field.full_name for _, _, field in taken_apart if is_required(field)}
    refused: set[str] = set()
    for path, request, field in taken_apart:
        over_grpc = await _over_grpc(transports, case, request)
        path_bound = field.name in BINDINGS[method].bound_field_paths and len(path) == 1
        if not path_bound and not streaming:
            over_http = await _over_http(transports, case, request)
            assert over_http == over_grpc, (".".join(path), over_http, over_grpc)
        if over_grpc is not None:
            assert STATUS[over_grpc][0] == grpc.StatusCode.INVALID_ARGUMENT, over_grpc
            refused.add(field.full_name)
    assert refused - set(CONDITIONAL) == marked, method
    # A required field is set in every accepted request: none is left unset in the baseline.
    walked: list[Descriptor] = [cast(Descriptor, case.request.DESCRIPTOR)]
    walked += [field.message_type for _, _, field in taken_apart if field.message_type]
    for message in walked:
        for each in message.fields:
            if is_required(each):
                assert each.full_name in marked, f"{each.full_name} is unset in {method}'s"


def test_every_conditional_field_is_not_required() -> None:
    pool = service_pb2.DESCRIPTOR.pool
    for name in CONDITIONAL:
        message, _, field = name.rpartition(".")
        assert not is_required(pool.FindMessageTypeByName(message).fields_by_name[field])
