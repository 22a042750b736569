"""Every refusal reason through a real service process, on both transports.

Each ``hanafuda.v1.Reason`` is provoked over HTTP and over gRPC and must arrive with the status
pair the contract gives it (docs/api.md: HTTP status + AIP-193 ``ErrorInfo`` on one side, gRPC
code + ``ErrorInfo`` in the rich status on the other), the same on both. A refused move must
change nothing: version, every seat's view and the log stay as they were.

Two reasons are not reachable from outside and are checked at the mapping level only:
``KOIKOI_NOT_ALLOWED`` (reserved: the referee stops for a player who may not call koi-koi, so no
decision is ever pending) and ``UNAVAILABLE`` (needs the store down: see test_outage.py). One is
HTTP's alone: ``UNSUPPORTED_MEDIA_TYPE`` (a gRPC request is always protobuf).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Iterator
from pathlib import Path

import grpc
import pytest
from hanafuda.v1 import errors_pb2, game_pb2, play_pb2, rules_pb2, service_pb2

from hanafuda_referee.calls.errors import DOMAIN, STATUS
from tests.service.conftest import cards, scripted_request

from .clients import GrpcClient, HttpClient, Refused, open_client, refusal_of
from .conftest import own_referee
from .playing import CHOOSE, KOIKOI, PLAY, SAGE, STOP, move
from .processes import RefereeProcess

API_KEY = "system-test-key"

_INVALID = (grpc.StatusCode.INVALID_ARGUMENT, 400)
_PRECONDITION = (grpc.StatusCode.FAILED_PRECONDITION, 409)
_UNAUTHENTICATED = (grpc.StatusCode.UNAUTHENTICATED, 401)
_DENIED = (grpc.StatusCode.PERMISSION_DENIED, 403)

#: The table of docs/api.md, written out independently of the code: reason -> (gRPC, HTTP).
EXPECTED: dict[str, tuple[grpc.StatusCode, int]] = {
    **dict.fromkeys(
        (
            "NOT_YOUR_TURN",
            "CARD_NOT_IN_HAND",
            "TARGET_REQUIRED",
            "TARGET_DOES_NOT_MATCH",
            "WRONG_MOVE",
            "NO_DECISION_PENDING",
            "KOIKOI_NOT_ALLOWED",
            "GAME_OVER",
        ),
        _PRECONDITION,
    ),
    "STALE_VERSION": (grpc.StatusCode.ABORTED, 409),
    **dict.fromkeys(
        (
            "UNKNOWN_SEAT",
            "MOVE_NOT_IN_GAME",
            "MALFORMED_MOVE",
            "UNKNOWN_PRESET",
            "UNKNOWN_OPTION",
            "BAD_OPTION_VALUE",
            "BAD_DEAL",
            "BAD_CARDS",
            "BAD_ENCODING",
            "REQUEST_TOO_LARGE",
            "INVALID_ARGUMENT",
            "REQUEST_ID_REUSED",
        ),
        _INVALID,
    ),
    **dict.fromkeys(("BAD_TOKEN", "MISSING_TOKEN", "API_KEY_REQUIRED"), _UNAUTHENTICATED),
    **dict.fromkeys(("PERMISSION_DENIED", "TESTING_FEATURE_DISABLED"), _DENIED),
    "UNKNOWN_GAME": (grpc.StatusCode.NOT_FOUND, 404),
    "UNAVAILABLE": (grpc.StatusCode.UNAVAILABLE, 503),
    "UNSUPPORTED_MEDIA_TYPE": (grpc.StatusCode.INVALID_ARGUMENT, 415),
    "RATE_LIMITED": (grpc.StatusCode.RESOURCE_EXHAUSTED, 429),
    "TIMED_OUT": (grpc.StatusCode.ABORTED, 409),
    "TOO_MANY_GAMES": (grpc.StatusCode.RESOURCE_EXHAUSTED, 429),
    "TOO_MANY_BOT_GAMES": (grpc.StatusCode.RESOURCE_EXHAUSTED, 429),
    "TOO_MANY_EXPERT_SEATS": _INVALID,
    "STORE_FULL": (grpc.StatusCode.RESOURCE_EXHAUSTED, 503),
    "GAME_NOT_OVER": _PRECONDITION,
}
#: Reasons no request to a healthy server can provoke (see the module docstring).
UNREACHABLE = frozenset({"KOIKOI_NOT_ALLOWED", "UNAVAILABLE"})
#: Reasons only the HTTP transport gives.
HTTP_ONLY = frozenset({"UNSUPPORTED_MEDIA_TYPE"})


def all_reasons() -> set[str]:
    """The contract's reasons: ``hanafuda.v1.Reason`` without its prefix and zero value."""
    names = {v.name.removeprefix("REASON_") for v in errors_pb2.Reason.DESCRIPTOR.values}
    return names - {"UNSPECIFIED"}


def test_the_status_table_is_the_same_in_docs_code_and_proto() -> None:
    assert set(EXPECTED) == all_reasons()
    assert dict(STATUS) == EXPECTED
    # Each value's doc comment in errors.proto ends with its pair: "gRPC `X`, HTTP N."
    text = (Path(__file__).parents[2] / "proto/hanafuda/v1/errors.proto").read_text()
    documented = {}
    for block in re.findall(r"((?:\s*//[^\n]*\n)+)\s*REASON_(\w+) = \d+;", text):
        comment, name = block
        found = re.findall(r"gRPC `(\w+)`, HTTP (\d+)", " ".join(comment.split()).replace("//", ""))
        if name != "UNSPECIFIED":
            assert len(found) == 1, name
            documented[name] = (grpc.StatusCode[found[0][0]], int(found[0][1]))
    assert documented == EXPECTED


#: The API keys of the processes with per-client limits: one client per transport.
LIMITED_KEYS = "limits-http,limits-grpc"


@pytest.fixture(scope="module")
def limited_referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    """A process with a creation limit of four games at once (then one a minute) per client,
    two unfinished games per client, one of them with bots, and one expert seat per game."""
    with own_referee(
        tmp_path_factory.mktemp("limited"),
        env={
            "HANAFUDA_API_KEY": LIMITED_KEYS,
            "HANAFUDA_CREATE_RATE": "1",
            "HANAFUDA_CREATE_BURST": "4",
            "HANAFUDA_MAX_CLIENT_GAMES": "2",
            "HANAFUDA_MAX_CLIENT_BOT_GAMES": "1",
            "HANAFUDA_MAX_EXPERT_SEATS": "1",
        },
        name="limited",
    ) as process:
        yield process


@pytest.fixture(scope="module")
def full_referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    """A process whose in-process store holds one game at most."""
    with RefereeProcess(
        tmp_path_factory.mktemp("full"), env={"HANAFUDA_MAX_GAMES": "1"}, name="full"
    ) as process:
        yield process


@pytest.fixture(scope="module")
def unswept_referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    """A process whose turn clocks are applied only by requests (no sweeper)."""
    with own_referee(
        tmp_path_factory.mktemp("unswept"), flags=["--sweep-interval", "0"], name="unswept"
    ) as process:
        yield process


@pytest.fixture(scope="module")
def strict_referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    """A process as in production: an API key for creating games, no testing features."""
    with own_referee(
        tmp_path_factory.mktemp("strict"),
        env={"HANAFUDA_API_KEY": API_KEY},
        allow_testing=False,
        name="strict",
    ) as process:
        yield process


#: A deal where seat 0's crane meets two pines on the field and the first card drawn, a plum,
#: meets two plums: a target is required for the play, then for the draw.
CHOICE_SEAT0 = (1, 9, 13, 17, 21, 25, 29, 33)
CHOICE_SEAT1 = (4, 8, 12, 16, 20, 24, 28, 32)
CHOICE_FIELD = (2, 3, 5, 6, 10, 14, 18, 22)
CHOICE_STOCK = (
    7,
    *sorted(set(range(1, 49)) - {*CHOICE_SEAT0, *CHOICE_SEAT1, *CHOICE_FIELD, 7}),
)


def choice_request() -> service_pb2.CreateGameRequest:
    request = scripted_request()
    deal = request.prepared_deals[0]
    deal.hands[0].cards[:] = cards(CHOICE_SEAT0)
    deal.hands[1].cards[:] = cards(CHOICE_SEAT1)
    deal.field[:] = cards(CHOICE_FIELD)
    deal.stock[:] = cards(CHOICE_STOCK)
    return request


class Provoker:
    """Provokes refusals over one transport and records the reasons and statuses seen."""

    def __init__(self, client: HttpClient | GrpcClient) -> None:
        self.client = client
        self.seen: dict[str, tuple[grpc.StatusCode, int | None]] = {}

    async def expect(self, call: Awaitable[object], reason: str) -> Refused:
        """``call`` must be refused with ``reason`` and the contract's status pair."""
        refusal = await refusal_of(call)
        assert refusal.reason == reason, refusal
        assert refusal.domain == DOMAIN
        code, http_status = EXPECTED[reason]
        assert refusal.code == code, refusal
        if isinstance(self.client, HttpClient):
            assert refusal.http_status == http_status, refusal
        else:
            assert refusal.http_status is None
        self.seen[reason] = (refusal.code, refusal.http_status)
        return refusal

    async def snapshot(
        self, game: str, tokens: list[str]
    ) -> tuple[list[game_pb2.GameView], service_pb2.GetGameLogResponse]:
        views = [await self.client.view(game, token) for token in [*tokens, None]]
        return views, await self.client.log(game)

    async def refused_move(
        self, game: str, tokens: list[str], call: Awaitable[object], reason: str
    ) -> Refused:
        """A refused move that must leave the version, every view and the log as they were."""
        before = await self.snapshot(game, tokens)
        error = await self.expect(call, reason)
        after = await self.snapshot(game, tokens)
        assert after == before, f"{reason} changed the game"
        return error

    async def moves(self, game: str, tokens: list[str]) -> None:
        """Every move refusal of the rules and of the service, on the scripted deal."""
        c, t0, t1 = self.client, tokens[0], tokens[1]
        refused = self.refused_move
        await refused(game, tokens, c.submit(game, move(PLAY, 37), t1), "NOT_YOUR_TURN")
        await refused(
            game, tokens, c.submit(game, move(PLAY, 37), t1, request_id="r1"), "NOT_YOUR_TURN"
        )
        await refused(game, tokens, c.submit(game, move(PLAY, 37), t0), "CARD_NOT_IN_HAND")
        await refused(game, tokens, c.submit(game, move(KOIKOI), t0), "NO_DECISION_PENDING")
        await refused(game, tokens, c.submit(game, move(SAGE), t0), "MOVE_NOT_IN_GAME")
        await refused(game, tokens, c.submit(game, move(PLAY, 1, 11), t0), "TARGET_DOES_NOT_MATCH")
        await refused(game, tokens, c.submit(game, move(0), t0), "INVALID_ARGUMENT")
        await refused(
            game, tokens, c.submit(game, move(PLAY, 1), t0, request_id="x" * 65), "INVALID_ARGUMENT"
        )
        await refused(game, tokens, c.submit(game, move(PLAY, 1), t0, seat=1), "PERMISSION_DENIED")
        await refused(game, tokens, c.submit(game, move(PLAY, 1), t0, seat=5), "UNKNOWN_SEAT")
        await refused(game, tokens, c.submit(game, move(PLAY, 1), None), "MISSING_TOKEN")
        await refused(game, tokens, c.submit(game, move(PLAY, 1), "forged"), "BAD_TOKEN")
        stale = await refused(
            game, tokens, c.submit(game, move(PLAY, 1), t0, expected_version=9), "STALE_VERSION"
        )
        assert stale.metadata == {"current_version": "1"}

        # Up to seat 0's koi-koi decision (the service tests' scripted game).
        for token, card in ((t0, 1), (t1, 37), (t0, 9), (t1, 45), (t0, 29)):
            await c.submit(game, move(PLAY, card), token, request_id=f"play-{card}")
        await refused(
            game,
            tokens,
            c.submit(game, move(PLAY, 7), t0, request_id="play-29"),
            "REQUEST_ID_REUSED",
        )
        await refused(game, tokens, c.submit(game, move(PLAY, 7), t0), "WRONG_MOVE")
        await refused(game, tokens, c.submit(game, move(KOIKOI, 7), t0), "MALFORMED_MOVE")
        await refused(game, tokens, c.submit(game, move(STOP), t1), "NOT_YOUR_TURN")
        await refused(game, tokens, c.hint(game, t1), "NOT_YOUR_TURN")
        await refused(game, tokens, c.review(game, t0), "GAME_NOT_OVER")
        over = await c.submit(game, move(STOP), t0)
        assert over.view.status == game_pb2.GAME_STATUS_OVER
        await refused(game, tokens, c.submit(game, move(PLAY, 45), t1), "GAME_OVER")
        await refused(game, tokens, c.submit(game, move(STOP), t0), "GAME_OVER")
        await refused(game, tokens, c.hint(game, t0), "GAME_OVER")

    async def targets(self) -> None:
        """The target refusals, on a deal where the play and then the draw need one."""
        c = self.client
        created = await c.create(choice_request())
        game, tokens = created.game, list(created.player_tokens)
        t0 = tokens[0]
        refused = self.refused_move
        await refused(game, tokens, c.submit(game, move(PLAY, 1), t0), "TARGET_REQUIRED")
        await refused(game, tokens, c.submit(game, move(PLAY, 1, 5), t0), "TARGET_DOES_NOT_MATCH")
        await refused(game, tokens, c.submit(game, move(CHOOSE, 0, 2), t0), "NO_DECISION_PENDING")
        played = await c.submit(game, move(PLAY, 1, 2), t0)
        kinds = [e.WhichOneof("kind") for e in played.events]
        assert kinds == ["card_played", "card_drawn", "target_required"]
        assert list(played.events[0].card_played.captured) == [2]
        required = played.events[2].target_required
        assert (required.seat, required.card, list(required.targets)) == (0, 7, [5, 6])
        assert played.view.waiting.kind == game_pb2.WAITING_FOR_TARGET_CHOICE
        assert (played.view.waiting.drawn_card, list(played.view.waiting.targets)) == (7, [5, 6])
        await refused(game, tokens, c.submit(game, move(PLAY, 9), t0), "WRONG_MOVE")
        await refused(game, tokens, c.submit(game, move(CHOOSE, 0, 3), t0), "TARGET_DOES_NOT_MATCH")
        await refused(game, tokens, c.submit(game, move(CHOOSE, 7, 6), t0), "MALFORMED_MOVE")
        await refused(game, tokens, c.submit(game, move(CHOOSE, 0, 6), tokens[1]), "NOT_YOUR_TURN")
        chosen = await c.submit(game, move(CHOOSE, 0, 6), t0)
        (event,) = chosen.events
        assert (event.target_chosen.card, list(event.target_chosen.captured)) == (7, [6])
        assert list(chosen.view.seats[0].captured) == [1, 2, 6, 7]
        assert chosen.view.turn == 1

    async def reads(self, game: str, tokens: list[str]) -> None:
        """Refusals of the reading methods, the stream included."""
        c = self.client
        await self.expect(c.view("NoSuchGame123"), "UNKNOWN_GAME")
        await self.expect(c.submit("NoSuchGame123", move(PLAY, 1), tokens[0]), "UNKNOWN_GAME")
        await self.expect(c.log("NoSuchGame123"), "UNKNOWN_GAME")
        await self.expect(anext(c.watch("NoSuchGame123")), "UNKNOWN_GAME")
        await self.expect(c.view("bad id {}"), "INVALID_ARGUMENT")
        await self.expect(c.view(game, "forged"), "BAD_TOKEN")
        await self.expect(c.log(game, "forged"), "BAD_TOKEN")
        await self.expect(anext(c.watch(game, "forged")), "BAD_TOKEN")
        await self.expect(anext(c.watch(game, None, 99)), "INVALID_ARGUMENT")

    async def creations(self) -> None:
        """Refusals of ``CreateGame`` and of the stateless methods."""
        c = self.client

        def create(**fields: object) -> Awaitable[service_pb2.CreateGameResponse]:
            request = scripted_request()
            for name, value in fields.items():
                if name == "koi_koi":
                    assert isinstance(value, rules_pb2.KoiKoiRules)
                    request.koi_koi.MergeFrom(value)
                else:
                    setattr(request, name, value)
            return c.create(request)

        await self.expect(create(preset="no-such-preset"), "UNKNOWN_PRESET")
        unknown = await self.expect(
            create(koi_koi=rules_pb2.KoiKoiRules(yaku=[rules_pb2.YakuRule(id="goku")])),
            "UNKNOWN_OPTION",
        )
        assert unknown.metadata["option"] == "yaku.goku"
        bad = await self.expect(create(koi_koi=rules_pb2.KoiKoiRules(rounds=0)), "BAD_OPTION_VALUE")
        assert bad.metadata["option"] == "rounds"
        await self.expect(create(first_dealer=7), "UNKNOWN_SEAT")
        short = scripted_request()
        del short.prepared_deals[0].stock[-1]
        await self.expect(c.create(short), "BAD_DEAL")
        many = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a"] * 7)
        await self.expect(c.create(many), "REQUEST_TOO_LARGE")
        three = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a"] * 3)
        await self.expect(c.create(three), "INVALID_ARGUMENT")
        kindless = service_pb2.CreateGameRequest(players=["a", "b"])
        await self.expect(c.create(kindless), "INVALID_ARGUMENT")

        itself = service_pb2.ListCapturesRequest(card=cards([1])[0], field=cards([1, 2]))
        await self.expect(
            c.call("ListCaptures", itself, service_pb2.ListCapturesResponse), "BAD_CARDS"
        )
        short_hand = service_pb2.ClassifyKoiKoiHandRequest(hand=cards([1, 2, 3]))
        await self.expect(
            c.call("ClassifyKoiKoiHand", short_hand, service_pb2.ClassifyKoiKoiHandResponse),
            "BAD_CARDS",
        )

    async def encodings(self) -> None:
        """Requests that do not decode, sent as raw bytes."""
        c = self.client
        if isinstance(c, HttpClient):
            # The last one: no body at all, where the route requires one.
            for body in (
                b"{not json",
                b'{"kind": "GAME_KIND_CHESS"}',
                b'{"players": 3}',
                b"[]",
                b"",
            ):
                response = await c.post_raw("/v1/games", body)
                await self.expect(_raise(response.status_code, response.content), "BAD_ENCODING")
            huge = b'{"players": ["' + b"a" * (2 * 1024 * 1024) + b'"]}'
            response = await c.post_raw("/v1/games", huge)
            await self.expect(_raise(response.status_code, response.content), "REQUEST_TOO_LARGE")
            response = await c.http.get("/v1/games/G", headers={"Authorization": "Basic dTpw"})
            await self.expect(_raise(response.status_code, response.content), "BAD_TOKEN")
            # A body a cross-site page could send without the browser asking first.
            for media_type in ("text/plain", "application/x-www-form-urlencoded"):
                body = b'{"kind": "GAME_KIND_KOI_KOI", "players": ["a", "b"]}'
                response = await c.post_raw("/v1/games", body, {"content-type": media_type})
                await self.expect(
                    _raise(response.status_code, response.content), "UNSUPPORTED_MEDIA_TYPE"
                )
        else:
            for payload in (b"\xff\xff\xff", b"\x0a\x05ab"):
                await self.expect(c.call_raw("CreateGame", payload), "BAD_ENCODING")

    async def limits(self, limited: RefereeProcess, full: RefereeProcess) -> None:
        """A client that asks for too many expert seats, then holds as many games with bots
        and games as it may, then creates games faster than the limit (a client of its own: an
        API key of this transport's); and a store that is full."""
        async with open_client(self.client.transport, limited) as c:
            key = f"limits-{self.client.transport}"
            plain = service_pb2.CreateGameRequest(
                kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"]
            )
            bots = service_pb2.CreateGameRequest()
            bots.CopyFrom(plain)
            bots.bots[:] = [play_pb2.BOT_LEVEL_UNSPECIFIED, play_pb2.BOT_LEVEL_GREEDY]
            experts = service_pb2.CreateGameRequest(
                kind=rules_pb2.GAME_KIND_HACHI_HACHI, players=["a", "b", "c"]
            )
            experts.bots[:] = [
                play_pb2.BOT_LEVEL_UNSPECIFIED,
                play_pb2.BOT_LEVEL_EXPERT,
                play_pb2.BOT_LEVEL_EXPERT,
            ]
            await self.expect(c.create(experts, api_key=key), "TOO_MANY_EXPERT_SEATS")
            await c.create(bots, api_key=key)
            await self.expect(c.create(bots, api_key=key), "TOO_MANY_BOT_GAMES")
            await c.create(plain, api_key=key)
            await self.expect(c.create(plain, api_key=key), "TOO_MANY_GAMES")
            # Four creations asked for, the burst: the rate's turn (a refusal by a later check
            # spends its token, so that refusals cost something too).
            await self.expect(c.create(plain, api_key=key), "RATE_LIMITED")
        async with open_client(self.client.transport, full) as c:
            plain = service_pb2.CreateGameRequest(
                kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"]
            )
            with contextlib.suppress(Refused):
                await c.create(plain)  # the first creation of the two transports fills it
            await self.expect(c.create(plain), "STORE_FULL")

    async def timeouts(self, unswept: RefereeProcess) -> None:
        """A move that comes after its deadline, on a process without a sweeper (the move
        itself finds the timeout due)."""
        async with open_client(self.client.transport, unswept) as c:
            request = service_pb2.CreateGameRequest(
                kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"]
            )
            request.clock.move_seconds = 1
            created = await c.create(request)
            seat = created.view.turn
            own = await c.view(created.game, created.player_tokens[seat])
            await asyncio.sleep(1.1)
            await self.expect(
                c.submit(created.game, own.legal_moves[0], created.player_tokens[seat]),
                "TIMED_OUT",
            )

    async def strict(self, strict: RefereeProcess) -> None:
        """The API key and the testing features, on a production-like process."""
        async with open_client(self.client.transport, strict) as c:
            plain = service_pb2.CreateGameRequest(
                kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"]
            )
            await self.expect(c.create(plain), "API_KEY_REQUIRED")
            await self.expect(c.create(plain, api_key="wrong"), "API_KEY_REQUIRED")
            created = await c.create(plain, api_key=API_KEY)
            assert created.view.version == 1
            seeded = service_pb2.CreateGameRequest()
            seeded.CopyFrom(plain)
            seeded.seed = 7
            await self.expect(c.create(seeded, api_key=API_KEY), "TESTING_FEATURE_DISABLED")
            await self.expect(
                c.create(scripted_request(), api_key=API_KEY), "TESTING_FEATURE_DISABLED"
            )


async def _raise(status: int, body: bytes) -> None:
    """A raw HTTP answer that must be an error, as the refusal it carries."""
    assert status != 200, body
    raise Refused.from_http(status, body)


async def test_every_reason_is_reachable_with_the_same_status_on_both_transports(
    module_referee: RefereeProcess,
    strict_referee: RefereeProcess,
    limited_referee: RefereeProcess,
    unswept_referee: RefereeProcess,
    full_referee: RefereeProcess,
) -> None:
    seen: dict[str, dict[str, tuple[grpc.StatusCode, int | None]]] = {}
    for transport in ("http", "grpc"):
        async with open_client(transport, module_referee) as client:
            assert isinstance(client, HttpClient | GrpcClient)
            provoker = Provoker(client)
            created = await client.create(scripted_request())
            tokens = list(created.player_tokens)
            await provoker.moves(created.game, tokens)
            await provoker.targets()
            await provoker.reads(created.game, tokens)
            await provoker.creations()
            await provoker.encodings()
            await provoker.strict(strict_referee)
            await provoker.limits(limited_referee, full_referee)
            await provoker.timeouts(unswept_referee)
            seen[transport] = provoker.seen
        missing = all_reasons() - UNREACHABLE - set(provoker.seen)
        if transport == "grpc":
            missing -= HTTP_ONLY
        assert not missing, f"{transport}: never provoked {sorted(missing)}"
    # The same reason, the same gRPC code, whichever transport carried it.
    assert {r: code for r, (code, _) in seen["http"].items() if r not in HTTP_ONLY} == {
        r: code for r, (code, _) in seen["grpc"].items()
    }
    assert set(seen["http"]) >= HTTP_ONLY
