"""Strict JSON on input: a value of the wrong JSON type for its field is refused with
``BAD_ENCODING`` and the field's path, on every method, in a body or a query parameter, and
nothing happens (hanafuda_referee/http/strict_json.py).

``json_format.ParseDict`` alone read ``"clock": []`` as no clock, ``"onTimeout": 1.5`` as
``ON_TIMEOUT_AUTO``, ``"seat": 2.0`` as 2 and ``?waitSeconds=%2B5`` as 5.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from functools import cache
from typing import Any, cast

import httpx
import pytest
from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    json_format,
    message_factory,
    struct_pb2,
    timestamp_pb2,
    wrappers_pb2,
)
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import Message
from hanafuda.v1 import play_pb2, service_pb2
from litestar import Litestar
from litestar.testing import TestClient

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.http import strict_json
from hanafuda_referee.http.app import create_app
from hanafuda_referee.store import MemoryStore
from hanafuda_referee.writers.proto_json import read_simple

from .fakes import RecordingReferee
from .live import running
from .test_proto_json import mutations, parsed, random_messages

SERVICE = service_pb2.DESCRIPTOR.services_by_name["RefereeService"]

#: A creation that is right: each case below spoils one value of it.
CREATION: dict[str, Any] = {"kind": "GAME_KIND_KOI_KOI", "players": ["Ann", "Bo"]}
CLOCK = {"moveSeconds": 30}

#: (method, verb, path, body or query, the field's path in the refusal).
CASES: list[tuple[str, str, str, dict[str, Any], str]] = [
    # CreateGame: messages, repeated fields, enums, integers, oneofs, both spellings.
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": []}, "clock"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": 30}, "clock"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": "30"}, "clock"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": {**CLOCK, "onTimeout": 1.5}},
     "clock.onTimeout"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": {**CLOCK, "onTimeout": 2.0}},
     "clock.onTimeout"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": {**CLOCK, "onTimeout": True}},
     "clock.onTimeout"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": {**CLOCK, "onTimeout": "1"}},
     "clock.onTimeout"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": {**CLOCK, "onTimeout": {}}},
     "clock.onTimeout"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": {"moveSeconds": 30.5}},
     "clock.moveSeconds"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": {"moveSeconds": 30.0}},
     "clock.moveSeconds"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": {"moveSeconds": "3e1"}},
     "clock.moveSeconds"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": {"move_seconds": [30]}},
     "clock.moveSeconds"),  # the path names the field by its JSON name, however it was sent
    ("CreateGame", "POST", "/v1/games", {**CREATION, "clock": {**CLOCK, "timeoutBot": [1]}},
     "clock.timeoutBot"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "players": "Ann"}, "players"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "players": {"0": "Ann"}}, "players"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "players": ["Ann", 7]}, "players[1]"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "players": ["Ann", None]}, "players[1]"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "players": ["Ann", ["Bo"]]}, "players[1]"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "kind": ["GAME_KIND_KOI_KOI"]}, "kind"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "kind": 1.0}, "kind"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "bots": ["BOT_LEVEL_GREEDY", 2.5]},
     "bots[1]"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "bots": "BOT_LEVEL_GREEDY"}, "bots"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "koiKoi": []}, "koiKoi"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "koiKoi": {"rounds": 1.5}}, "koiKoi.rounds"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "koiKoi": {"rounds": "six"}},
     "koiKoi.rounds"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "koiKoi": {"akatanAotanStacks": "true"}},
     "koiKoi.akatanAotanStacks"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "koiKoi": {"akatanAotanStacks": 1}},
     "koiKoi.akatanAotanStacks"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "koiKoi": {"yaku": {"id": 1}}},
     "koiKoi.yaku"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "koiKoi": {}, "hachiHachi": {}},
     "hachiHachi"),  # two members of one oneof
    ("CreateGame", "POST", "/v1/games", {**CREATION, "firstDealer": True}, "firstDealer"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "firstDealer": -1}, "firstDealer"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "seed": "12a"}, "seed"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "seed": "+12"}, "seed"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "seed": str(2**64)}, "seed"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "preparedDeals": {}}, "preparedDeals"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "preparedDeals": [[]]}, "preparedDeals[0]"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "requestId": 5}, "requestId"),
    ("CreateGame", "POST", "/v1/games", {**CREATION, "requestId": "a", "request_id": "b"},
     "requestId"),
    # SubmitMove.
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"move": []}, "move"),
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"move": {"kind": 1.5}}, "move.kind"),
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"move": {"card": False}}, "move.card"),
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"move": {"target": ["CARD_PINE_CRANE"]}},
     "move.target"),
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"expectedVersion": 1.5}, "expectedVersion"),
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"expectedVersion": "7.0"}, "expectedVersion"),
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"expectedVersion": [7]}, "expectedVersion"),
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"seat": 2.0}, "seat"),
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"seat": 2**32}, "seat"),
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"waitSeconds": "ten"}, "waitSeconds"),
    ("SubmitMove", "POST", "/v1/games/g-1/moves", {"requestId": {}}, "requestId"),
    # The rules methods.
    ("ScoreKoiKoi", "POST", "/v1/rules/koikoi:score", {"roundMonth": 1.5}, "roundMonth"),
    ("ScoreKoiKoi", "POST", "/v1/rules/koikoi:score", {"captured": "CARD_PINE_CRANE"},
     "captured"),
    ("ScoreKoiKoi", "POST", "/v1/rules/koikoi:score", {"overrides": []}, "overrides"),
    ("ScoreKoiKoi", "POST", "/v1/rules/koikoi:score", {"preset": 1}, "preset"),
    ("ClassifyKoiKoiHand", "POST", "/v1/rules/koikoi:classifyHand",
     {"hand": ["CARD_PINE_CRANE", {}]}, "hand[1]"),
    ("ClassifyHachiHachiHand", "POST", "/v1/rules/hachihachi:classifyHand", {"hand": 1},
     "hand"),
    ("ScoreHachiHachiCaptures", "POST", "/v1/rules/hachihachi:scoreCaptures",
     {"captured": [1.5]}, "captured[0]"),
    ("SettleHachiHachiRound", "POST", "/v1/rules/hachihachi:settle", {"counts": [1, "x"]},
     "counts[1]"),
    ("SettleHachiHachiRound", "POST", "/v1/rules/hachihachi:settle", {"dealer": 0.5}, "dealer"),
    ("ListCaptures", "POST", "/v1/rules:listCaptures", {"card": 1.5}, "card"),
    ("ListCaptures", "POST", "/v1/rules:listCaptures", {"lightningWild": "true"},
     "lightningWild"),
    ("ListCaptures", "POST", "/v1/rules:listCaptures", {"field": [None]}, "field[0]"),
    # Query parameters: the same reading (every value comes as a string).
    ("ListPresets", "GET", "/v1/rules/presets", {"kind": "1.5"}, "kind"),
    ("ListPresets", "GET", "/v1/rules/presets", {"kind": "GAME_KIND_CHESS"}, "kind"),
    ("GetGame", "GET", "/v1/games/g-1", {"waitSeconds": "1.5"}, "waitSeconds"),
    ("GetGame", "GET", "/v1/games/g-1", {"waitSeconds": "+5"}, "waitSeconds"),
    ("GetGame", "GET", "/v1/games/g-1", {"waitSeconds": "1e1"}, "waitSeconds"),
    ("GetGame", "GET", "/v1/games/g-1", {"wait_seconds": "1_0"}, "waitSeconds"),
    ("WatchGame", "GET", "/v1/games/g-1/events", {"fromVersion": "2.0"}, "fromVersion"),
    ("GetGameLog", "GET", "/v1/games/g-1/log", {"pageSize": "many"}, "pageSize"),
    ("GetHint", "GET", "/v1/games/g-1/hint", {"waitSeconds": "2.5"}, "waitSeconds"),
    ("ReviewGame", "GET", "/v1/games/g-1/review", {"waitSeconds": "-1"}, "waitSeconds"),
]  # fmt: skip


def test_the_cases_cover_every_method() -> None:
    assert {case[0] for case in CASES} == {method.name for method in SERVICE.methods}


@pytest.mark.parametrize(
    ("method", "verb", "path", "sent", "field"), CASES, ids=[f"{c[0]}-{c[4]}" for c in CASES]
)
def test_a_value_of_the_wrong_json_type_is_bad_encoding_with_its_path(
    method: str, verb: str, path: str, sent: dict[str, Any], field: str
) -> None:
    referee = RecordingReferee()
    with TestClient[Litestar](create_app(referee)) as client:
        body, query = (sent, None) if verb == "POST" else (None, sent)
        response = client.request(verb, path, json=body, params=query)
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    detail = error["details"][0]
    assert detail["reason"] == "BAD_ENCODING"
    assert error["message"].startswith(f"{field}: "), error["message"]
    assert detail["metadata"] == {"field": field}
    assert referee.called == []  # refused before the service: nothing happened


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        (
            {"clock": {"moveSeconds": 30, "onTimeout": 1.5}},
            "clock.onTimeout: expected an enum value's name or an integer, "
            "got a number with a fraction (1.5)",
        ),
        (
            {"clock": []},
            "clock: expected an object, got an array",
        ),
        (
            {"clock": {"moveSeconds": 30.0}},
            "clock.moveSeconds: expected an integer (a number without fraction or exponent, or "
            "a string of decimal digits), got a number with a fraction or an exponent (30.0)",
        ),
        (
            {"bots": ["BOT_LEVEL_GENIUS"]},
            'bots[0]: hanafuda.v1.BotLevel has no value named "BOT_LEVEL_GENIUS"',
        ),
        (
            {"clock": {"moveSeconds": 30, "timeoutBot": "BOT_LEVEL_GENIUS"}},
            'clock.timeoutBot: hanafuda.v1.BotLevel has no value named "BOT_LEVEL_GENIUS"',
        ),
        (
            {"firstDealer": 2**32},
            "firstDealer: 4294967296 is out of range for a uint32 (0 to 4294967295)",
        ),
        (
            {"clokc": {}},
            'clokc: hanafuda.v1.CreateGameRequest has no field named "clokc"',
        ),
        (
            {"koiKoi": {}, "hachiHachi": {}},
            "hachiHachi: koiKoi is already set, of the same oneof overrides",
        ),
        (
            {"request_id": "a", "requestId": "b"},
            "requestId: given twice, as request_id and requestId",
        ),
    ],
)
def test_the_message_says_what_was_expected_and_what_came(
    sent: dict[str, Any], message: str
) -> None:
    with pytest.raises(ApiError) as refused:
        strict_json.check({**CREATION, **sent}, service_pb2.CreateGameRequest.DESCRIPTOR)
    assert refused.value.reason == "BAD_ENCODING"
    assert refused.value.message == message


@pytest.mark.parametrize(
    "sent",
    [
        {"clock": {"moveSeconds": "30", "onTimeout": "ON_TIMEOUT_RESIGN", "timeoutBot": 1}},
        {"clock": None, "koiKoi": None, "hachiHachi": {"rounds": 6}},  # null: the default
        {"bots": [0, "BOT_LEVEL_GREEDY"], "first_dealer": 1, "seed": "-0"},
        {"bots": [7]},  # an unknown number passes: the service refuses it as gRPC's
        {"koi_koi": {"yaku": [{"id": "YAKU_GOKO", "enabled": False}]}, "seed": 2**64 - 1},
    ],
)
def test_what_proto3_json_allows_passes(sent: dict[str, Any]) -> None:
    strict_json.check({**CREATION, **sent}, service_pb2.CreateGameRequest.DESCRIPTOR)


@cache
def odd_types() -> Descriptor:
    """A message with what the contract does not use (yet): maps, a double, bytes and
    well-known types, so that the rules for them are held too."""
    pool = descriptor_pool.DescriptorPool()
    for module in (timestamp_pb2, wrappers_pb2, struct_pb2):
        proto = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(proto)
        pool.Add(proto)
    types = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name="strict_test.proto",
        package="t",
        syntax="proto3",
        dependency=[m.DESCRIPTOR.name for m in (timestamp_pb2, wrappers_pb2, struct_pb2)],
    )
    odd = file.message_type.add(name="Odd")
    for name, number, kind, type_name in (
        ("ratio", 1, types.TYPE_DOUBLE, ""),
        ("blob", 2, types.TYPE_BYTES, ""),
        ("when", 3, types.TYPE_MESSAGE, ".google.protobuf.Timestamp"),
        ("maybe", 4, types.TYPE_MESSAGE, ".google.protobuf.Int32Value"),
        ("anything", 5, types.TYPE_MESSAGE, ".google.protobuf.Struct"),
    ):
        field = odd.field.add(name=name, number=number, type=kind, label=types.LABEL_OPTIONAL)
        if type_name:
            field.type_name = type_name
    for name, number, key, value in (
        ("counts", 6, types.TYPE_STRING, types.TYPE_INT32),
        ("flags", 7, types.TYPE_INT32, types.TYPE_BOOL),
    ):
        entry = odd.nested_type.add(name=name.title() + "Entry")
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, type=key, label=types.LABEL_OPTIONAL)
        entry.field.add(name="value", number=2, type=value, label=types.LABEL_OPTIONAL)
        odd.field.add(
            name=name,
            number=number,
            type=types.TYPE_MESSAGE,
            type_name=f".t.Odd.{entry.name}",
            label=types.LABEL_REPEATED,
        )
    pool.Add(file)
    return pool.FindMessageTypeByName("t.Odd")


@pytest.mark.parametrize(
    ("sent", "field"),
    [
        ({"ratio": 1.5, "blob": "aGk=", "when": "2026-01-01T00:00:00Z"}, None),
        ({"ratio": "NaN", "maybe": 5, "anything": {"x": [1, None]}}, None),
        ({"counts": {"a": 1}, "flags": {"1": True, "-2": False}}, None),
        ({"ratio": "abc"}, "ratio"),
        ({"ratio": True}, "ratio"),
        ({"blob": "**"}, "blob"),
        ({"when": 5}, "when"),
        ({"maybe": 5.5}, "maybe"),
        ({"anything": []}, "anything"),
        ({"counts": []}, "counts"),
        ({"counts": {"a": 1.5}}, 'counts["a"]'),
        ({"counts": {"a": None}}, 'counts["a"]'),
        ({"flags": {"x": True}}, 'flags["x"]'),
        ({"flags": {"1": "true"}}, 'flags["1"]'),
    ],
)
def test_maps_floats_bytes_and_well_known_types(sent: dict[str, Any], field: str | None) -> None:
    descriptor = odd_types()
    if field is None:
        strict_json.check(sent, descriptor)
        assert isinstance(parsed(sent, message_factory.GetMessageClass(descriptor)), Message)
        return
    with pytest.raises(ApiError) as refused:
        strict_json.check(sent, descriptor)
    assert refused.value.metadata == {"field": field}


def test_json_s_missing_literals_are_not_json() -> None:
    # Python's decoder reads NaN and Infinity; JSON (and so proto3 JSON) does not have them.
    referee = RecordingReferee()
    with TestClient[Litestar](create_app(referee)) as client:
        for literal in (b"NaN", b"Infinity", b"-Infinity"):
            response = client.post(
                "/v1/games/g-1/moves",
                content=b'{"seat": ' + literal + b"}",
                headers={"content-type": "application/json"},
            )
            assert response.status_code == 400
            assert response.json()["error"]["details"][0]["reason"] == "BAD_ENCODING"
            assert literal.decode() in response.json()["error"]["message"]
    assert referee.called == []


def test_an_enum_number_in_a_query_is_the_number() -> None:
    # A query spells every value as a string: the digits of an enum number are the number, as
    # in a body (where "1", a string, is no enum name).
    referee = RecordingReferee()
    with TestClient[Litestar](create_app(referee)) as client:
        assert client.get("/v1/rules/presets", params={"kind": "2"}).status_code == 200
    assert referee.called[0][1] == service_pb2.ListPresetsRequest(kind=2)  # type: ignore[arg-type]


def test_what_the_quick_reader_takes_is_strict_and_what_is_strict_parses() -> None:
    # The transport skips the check when read_simple takes a tree (routes._parse_into): that
    # is right only while the quick reader takes nothing the check refuses. And what the check
    # lets through, ParseDict reads (its refusals carry no path).
    rng = random.Random(36)
    quick = strict = 0
    for message in random_messages(seeds=12):
        descriptor = cast(Descriptor, message.DESCRIPTOR)
        document = json_format.MessageToDict(message)
        mutations(document, rng, descriptor)
        document = json.loads(json.dumps(document))
        try:
            strict_json.check(document, descriptor)
        except ApiError:
            assert not read_simple(document, type(message)()), document
            continue
        strict += 1
        quick += read_simple(document, type(message)())
        assert isinstance(parsed(document, type(message)), Message), document
    assert quick > 100 and strict > quick  # both sides of the property are exercised


def test_a_plain_move_body_is_not_walked_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    # The quick reader's body needs no check (see above): a move costs no second walk.
    walked: list[object] = []
    monkeypatch.setattr(strict_json, "check", lambda tree, descriptor: walked.append(tree))
    referee = RecordingReferee()
    body = {"move": {"kind": "MOVE_KIND_PLAY", "card": "CARD_PINE_CRANE"}, "expectedVersion": "3"}
    with TestClient[Litestar](create_app(referee)) as client:
        assert client.post("/v1/games/g-1/moves", json=body).status_code == 200
        assert walked == []
        assert client.post("/v1/games/g-1/moves", json={**body, "seat": None}).status_code == 200
        assert len(walked) == 1  # a null is not plain: checked, then read by ParseDict


# The real referee ---------------------------------------------------------------------------


@pytest.fixture
async def live() -> AsyncIterator[tuple[httpx.AsyncClient, MemoryStore]]:
    store = MemoryStore()
    app = create_app(Referee(store))
    async with running(app) as url, httpx.AsyncClient(base_url=url, timeout=5.0) as client:
        yield client, store


async def test_a_refused_request_changes_nothing(
    live: tuple[httpx.AsyncClient, MemoryStore],
) -> None:
    http, store = live
    created = await http.post("/v1/games", json=CREATION)
    assert created.status_code == 200, created.text
    game, tokens = created.json()["game"], created.json()["playerTokens"]
    before = (await http.get(f"/v1/games/{game}")).json()["view"]

    for body in (
        {**CREATION, "clock": []},
        {**CREATION, "clock": {"moveSeconds": 30, "onTimeout": 1.5}},
        {**CREATION, "bots": ["BOT_LEVEL_UNSPECIFIED", 2.0]},
    ):
        refused = await http.post("/v1/games", json=body)
        assert refused.json()["error"]["details"][0]["reason"] == "BAD_ENCODING"
    assert await store.count_games() == 1

    turn = before["turn"]
    seat = (
        await http.get(f"/v1/games/{game}", headers={"Authorization": f"Bearer {tokens[turn]}"})
    ).json()["view"]
    move = seat["legalMoves"][0]
    for body in (
        {"move": {**move, "kind": 1.5}, "expectedVersion": "1"},
        {"move": move, "expectedVersion": 1.0},
        {"move": [move]},
    ):
        refused = await http.post(
            f"/v1/games/{game}/moves",
            json=body,
            headers={"Authorization": f"Bearer {tokens[turn]}"},
        )
        assert refused.json()["error"]["details"][0]["reason"] == "BAD_ENCODING"
    assert (await http.get(f"/v1/games/{game}")).json()["view"] == before


async def test_an_unknown_bot_level_is_bad_option_value_in_a_seat_as_in_the_clock(
    live: tuple[httpx.AsyncClient, MemoryStore],
) -> None:
    # An unknown number (what proto3 JSON writes for a value the enum does not name) is the
    # service's to refuse, with the one reason of an unknown option value.
    http, store = live
    for body in (
        {**CREATION, "bots": [play_pb2.BOT_LEVEL_UNSPECIFIED, 7]},
        {**CREATION, "clock": {"moveSeconds": 30, "timeoutBot": 7}},
    ):
        refused = await http.post("/v1/games", json=body)
        detail = refused.json()["error"]["details"][0]
        assert (refused.status_code, detail["reason"]) == (400, "BAD_OPTION_VALUE"), refused.text
        assert detail["metadata"]["option"] in ("bots", "timeout_bot")
    assert await store.count_games() == 0
