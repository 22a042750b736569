"""Hidden information through a real service process: many random games on both transports,
every answer, watch item, log, error and server log line scanned for another seat's cards and
the stock (what counts as a leak is defined in :mod:`tests.system.hidden`)."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest
from hanafuda.v1 import cards_pb2, events_pb2, game_pb2, moves_pb2, rules_pb2, service_pb2

from hanafuda_referee.cards import Card
from hanafuda_referee.hosting.adapter import GameInfo
from hanafuda_referee.hosting.kinds import adapter_for
from tests.service.conftest import seeded_request

from .clients import TRANSPORTS, Client, Refused, collect, open_client, refusal_of
from .hidden import (
    GameTruth,
    Leak,
    cards_named_in,
    leaks_in_events,
    leaks_in_text,
    leaks_in_view,
    words_in_records,
)
from .playing import PLAY, move
from .processes import RefereeProcess

#: Koi-Koi and Hachi-Hachi games per transport: 32 and 12 in all. HTTP gets fewer because
#: every view costs the server a JSON rendering; both transports serve the same projections.
GAMES = {"http": (10, 4), "grpc": (22, 8)}
#: Games played at once on one transport: the server and the test each keep a core busy.
PARALLEL = 4


def prepared_deal(rng: random.Random, seats: int, hand: int, field_size: int) -> game_pb2.Deal:
    """A deal from a seeded shuffle: hands of ``hand`` cards, the field, the rest as stock."""
    deck = [cards_pb2.Card.ValueType(c) for c in range(1, 49)]
    rng.shuffle(deck)
    hands = [game_pb2.Hand(cards=deck[i * hand : (i + 1) * hand]) for i in range(seats)]
    dealt = seats * hand
    return game_pb2.Deal(
        hands=hands, field=deck[dealt : dealt + field_size], stock=deck[dealt + field_size :]
    )


def koikoi_request(seed: int) -> service_pb2.CreateGameRequest:
    """A seeded game whose first deal is prepared; every fourth game has a second round."""
    request = seeded_request(seed, rounds=2 if seed % 4 == 0 else 1)
    request.prepared_deals.append(prepared_deal(random.Random(seed), 2, 8, 8))
    return request


def hachi_request(seed: int) -> service_pb2.CreateGameRequest:
    """A seeded game of 3 to 5 participants (4 and 5 have a drop phase), first deal prepared."""
    rng = random.Random(seed)
    players = 3 + seed % 3
    return service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_HACHI_HACHI,
        players=[f"p{i}" for i in range(players)],
        seed=seed,
        hachi_hachi=rules_pb2.HachiHachiRules(rounds=1),
        prepared_deals=[prepared_deal(rng, players, 7, 6)],
    )


@dataclass
class Scan:
    """What one game's scan found and how much it looked at."""

    game: str = ""
    leaks: list[Leak] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    #: Moves submitted, accepted or not.
    submits: int = 0
    views: int = 0
    events: int = 0
    errors: int = 0


def masked(text: str, card: int) -> str:
    """An error text with the card the request named blanked out."""
    return re.sub(rf"\b({Card(card).code}|CARD_{Card(card).name})\b", "?", text)


class GameScan:
    """Plays one game with random legal moves and scans everything each seat receives."""

    def __init__(
        self, client: Client, request: service_pb2.CreateGameRequest, rng: random.Random
    ) -> None:
        self.client = client
        self.request = request
        self.rng = rng
        self.truth = GameTruth(request)
        self.scan = Scan()
        self.game = ""
        self.viewers: list[int | None] = [*range(len(request.players)), None]

    def token(self, viewer: int | None) -> str | None:
        return None if viewer is None else self.scan.tokens[viewer]

    def view(self, viewer: int | None, view: game_pb2.GameView, where: str) -> None:
        self.scan.views += 1
        self.scan.leaks += leaks_in_view(self.truth, viewer, view, where)

    def events(self, viewer: int | None, events: Sequence[events_pb2.Event], where: str) -> None:
        self.scan.events += len(events)
        self.scan.leaks += leaks_in_events(self.truth, viewer, events, where)

    async def submit(
        self, move: moves_pb2.Move, token: str | None
    ) -> service_pb2.SubmitMoveResponse:
        self.scan.submits += 1
        return await self.client.submit(self.game, move, token)

    def error(self, viewer: int | None, error: Refused, named: Iterable[int] = ()) -> None:
        self.scan.errors += 1
        self.scan.leaks += leaks_in_text(
            self.truth, viewer, error.text, f"{error.reason} error", named=named
        )

    async def run(self) -> Scan:
        created = await self.client.create(self.request)
        self.game = self.scan.game = created.game
        self.scan.tokens = list(created.player_tokens)
        self.view(None, created.view, "CreateGame")
        # Seats resume from version 0 (every version, whenever the stream got going); the
        # spectator starts from the current view.
        watches = {
            viewer: asyncio.ensure_future(
                collect(
                    self.client.watch(self.game, self.token(viewer), None if viewer is None else 0),
                    timeout=120.0,
                )
            )
            for viewer in self.viewers
        }
        try:
            moves = await self.play()
            watched = {viewer: await task for viewer, task in watches.items()}
        finally:
            for task in watches.values():
                task.cancel()
        final = self.truth.version
        for viewer, items in watched.items():
            versions = [item.version for item in items]
            first = 1 if viewer is not None else versions[0]
            assert versions == list(range(first, final + 1)), (viewer, versions)
            for item in items:
                self.events(viewer, item.events, "WatchGame")
                self.view(viewer, item.view, "WatchGame view")
                assert all(e.version == item.version for e in item.events)
        await self.read_logs(over=True)
        assert moves == final - 1
        return self.scan

    async def play(self) -> int:
        moves = 0
        while True:
            views = {v: await self.client.view(self.game, self.token(v)) for v in self.viewers}
            for viewer, view in views.items():
                assert view.version == self.truth.version
                self.view(viewer, view, "GetGame")
                if viewer is not None:
                    # The replay is the truth only while it agrees with the seats' own views.
                    assert set(view.hand) == self.truth.hand(viewer), viewer
                assert view.stock_size == len(self.truth.stock())
            spectator = views[None]
            if spectator.status == game_pb2.GAME_STATUS_OVER:
                return moves
            actor = spectator.turn
            if moves % 3 == 0:
                await self.provoke(actor, views[actor])
            if moves % 6 == 0:
                await self.read_logs(over=False)
            chosen = self.rng.choice(list(views[actor].legal_moves))
            answer = await self.submit(chosen, self.token(actor))
            self.truth.apply(actor, chosen)
            moves += 1
            assert answer.version == self.truth.version
            self.events(actor, answer.events, "SubmitMove")
            self.view(actor, answer.view, "SubmitMove view")

    async def provoke(self, actor: int, own: game_pb2.GameView) -> None:
        """Errors each seat might provoke: a hidden card played (another hand's, the stock's),
        a move out of turn, a move without a token."""
        hidden_hands = sorted(
            c for s in range(len(self.viewers) - 1) if s != actor for c in self.truth.hand(s)
        )
        stock = sorted(self.truth.stock())
        if own.waiting.kind == game_pb2.WAITING_FOR_HAND_PLAY and hidden_hands and stock:
            answers = []
            for card in (self.rng.choice(hidden_hands), self.rng.choice(stock)):
                error = await refusal_of(self.submit(move(PLAY, card), self.token(actor)))
                assert error.reason == "CARD_NOT_IN_HAND", error
                self.error(actor, error, named=[card])
                answers.append(
                    (error.code, error.http_status, masked(error.message, card), error.metadata)
                )
            # Another hand's card and a stock card are refused alike: nothing tells them apart.
            assert answers[0] == answers[1]
        for other in range(len(self.viewers) - 1):
            hand = sorted(self.truth.hand(other))
            if other == actor or not hand:
                continue
            error = await refusal_of(self.submit(move(PLAY, hand[0]), self.token(other)))
            assert error.reason == "NOT_YOUR_TURN", error
            self.error(other, error, named=[hand[0]])
            break
        named = stock[0] if stock else 1
        error = await refusal_of(self.submit(move(PLAY, named), None))
        assert error.reason == "MISSING_TOKEN"
        self.error(None, error, named=[named])

    async def read_logs(self, *, over: bool) -> None:
        for viewer in self.viewers:
            log = await self.client.log(self.game, self.token(viewer))
            versions = sorted({e.version for e in log.events})
            assert versions == list(range(1, self.truth.version + 1))
            assert [e.sequence for e in log.events] == list(range(len(log.events)))
            self.events(viewer, log.events, "GetGameLog")
            if over:
                # The audit: once over, the log shows the seed and every deal, to everyone.
                assert log.seed == self.request.seed
                dealt, prepared = log.deals[0].deal, self.request.prepared_deals[0]
                assert [set(h.cards) for h in dealt.hands] == [set(h.cards) for h in prepared.hands]
                assert set(dealt.field) == set(prepared.field)
                assert dealt.stock == prepared.stock
            else:
                assert not log.HasField("seed") and not log.deals


async def scan_games(
    process: RefereeProcess, transport: str, requests: list[service_pb2.CreateGameRequest]
) -> list[Scan]:
    limit = asyncio.Semaphore(PARALLEL)

    async def one(client: Client, request: service_pb2.CreateGameRequest) -> Scan:
        async with limit:
            return await GameScan(client, request, random.Random(request.seed)).run()

    async with open_client(transport, process) as client:
        return list(await asyncio.gather(*(one(client, r) for r in requests)))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_no_seat_ever_sees_what_is_hidden_from_it(
    module_referee: RefereeProcess, transport: str
) -> None:
    offset = 1000 if transport == "grpc" else 0
    koikoi, hachi = GAMES[transport]
    requests = [koikoi_request(offset + n) for n in range(koikoi)]
    requests += [hachi_request(offset + 500 + n) for n in range(hachi)]
    scans = await scan_games(module_referee, transport, requests)
    leaks = [str(leak) for scan in scans for leak in scan.leaks]
    assert not leaks, "\n".join(leaks[:20])
    # The scan looked at a great deal, not at nothing.
    assert sum(s.views for s in scans) > 40 * len(scans)
    assert sum(s.events for s in scans) > 100 * len(scans)
    assert sum(s.errors for s in scans) > 5 * len(scans)

    # The server's own log lines: one per request (so every move is there), none naming a card
    # or holding a token.
    games = {scan.game for scan in scans}
    submits = sum(scan.submits for scan in scans)
    records = await logged(module_referee, games, submits)
    assert not words_in_records(records, [t for scan in scans for t in scan.tokens])


async def logged(process: RefereeProcess, games: set[str], submits: int) -> list[dict[str, Any]]:
    """The process's log once it holds a ``SubmitMove`` line for each of ``submits`` moves to
    ``games`` (a line is written as its request ends, maybe just after the answer left)."""
    async with asyncio.timeout(30):
        while True:
            records = process.log_records()
            lines = [
                r for r in records if r.get("method") == "SubmitMove" and r.get("game") in games
            ]
            if len(lines) >= submits:
                assert len(lines) == submits
                return records
            await asyncio.sleep(0.05)


# --- the checker itself -------------------------------------------------------------------------


@pytest.fixture
def truth() -> GameTruth:
    """A Koi-Koi game at its creation, its deal prepared."""
    return GameTruth(koikoi_request(8))


def engine_view(truth: GameTruth, seat: int | None) -> game_pb2.GameView:
    """The view the service's own code makes of the truth (the contract's projection)."""
    adapter = adapter_for(truth.kind)
    return adapter.view(truth.state, seat, GameInfo("G", ("Ann", "Bob")), truth.version)


def test_the_checker_accepts_honest_views_and_flags_leaky_ones(truth: GameTruth) -> None:
    other_hand = sorted(truth.hand(1))
    stock = truth.stock()
    honest = engine_view(truth, 0)
    assert set(honest.hand) == truth.hand(0)
    assert not leaks_in_view(truth, 0, honest, "honest")
    assert not leaks_in_view(truth, None, engine_view(truth, None), "honest")

    leaky = game_pb2.GameView()
    leaky.CopyFrom(honest)
    leaky.field.append(cards_pb2.Card.ValueType(other_hand[0]))
    (leak,) = leaks_in_view(truth, 0, leaky, "leaky")
    assert leak.cards == {other_hand[0]}
    # A card deep in a nested message: the next stock card as a waiting target.
    leaky.CopyFrom(honest)
    leaky.waiting.targets.append(cards_pb2.Card.ValueType(stock[3]))
    assert leaks_in_view(truth, 0, leaky, "leaky")[0].cards == {stock[3]}
    # A spectator's view showing any hand.
    spectator = engine_view(truth, None)
    spectator.hand.extend(honest.hand)
    assert leaks_in_view(truth, None, spectator, "leaky")[0].cards == truth.hand(0)
    # The result of an earlier round is judged with its own events, not with the view.
    honest.last_result.score.yaku.add(cards=[cards_pb2.Card.ValueType(other_hand[1])])
    assert not leaks_in_view(truth, 0, honest, "last_result")


def test_the_checker_judges_events_at_their_own_version(truth: GameTruth) -> None:
    dealt = events_pb2.Event(version=1, sequence=1)
    dealt.round_dealt.hand.extend(cards_pb2.Card.ValueType(c) for c in sorted(truth.hand(0)))
    assert not leaks_in_events(truth, 0, [dealt], "deal")
    assert leaks_in_events(truth, 1, [dealt], "deal")[0].cards == truth.hand(0)

    # Seat 0 plays a card and draws the top of the stock: both become public.
    top = truth.stock()[0]
    legal = [m for m in engine_view(truth, 0).legal_moves if m.kind == PLAY]
    move = legal[0]
    truth.apply(0, move)
    played = events_pb2.Event(version=2, sequence=2)
    played.card_played.card = move.card
    drawn = events_pb2.Event(version=2, sequence=3)
    drawn.card_drawn.card = cards_pb2.Card.ValueType(top)
    assert not leaks_in_events(truth, 1, [played, drawn], "move")
    # Naming the next stock card, or a card still in seat 1's hand, is a leak.
    drawn.card_drawn.captured.append(cards_pb2.Card.ValueType(truth.stock()[0]))
    assert leaks_in_events(truth, 0, [played, drawn], "move")[0].cards == {truth.stock()[0]}
    hand_card = sorted(truth.hand(1))[0]
    played.card_played.captured.append(cards_pb2.Card.ValueType(hand_card))
    assert hand_card in leaks_in_events(truth, 0, [played], "move")[0].cards
    # The version-1 deal is still judged against its own time, not the current one.
    assert not leaks_in_events(truth, 0, [dealt], "deal, read later")


def test_the_checker_flags_card_names_in_errors_and_log_lines(truth: GameTruth) -> None:
    other = Card(sorted(truth.hand(1))[0])
    stock = Card(truth.stock()[0])
    mine = Card(sorted(truth.hand(0))[0])
    assert cards_named_in(f"{other.code} and CARD_{stock.name}.") == {other, stock}
    assert cards_named_in("pine-plain-12 CARD_PINE_PLAIN_1X") == set()
    text = f"{other.code} is not in your hand"
    assert not leaks_in_text(truth, 0, text, "error", named=[other])
    assert leaks_in_text(truth, 0, text, "error")[0].cards == {other}
    assert not leaks_in_text(truth, 0, f"you hold {mine.code}", "error")
    assert leaks_in_text(truth, None, f"seat 0 holds {mine.code}", "error")
    records = [{"event": "request", "game": "G"}, {"event": "x", "detail": stock.code}]
    assert words_in_records(records, []) == ['{"event": "x", "detail": "' + stock.code + '"}']
    assert words_in_records([{"event": "request", "auth": "tok-123"}], ["tok-123"])
    assert not words_in_records(records[:1], ["tok-123"])
