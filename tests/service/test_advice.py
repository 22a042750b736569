"""Hints and reviews (``GetHint``, ``ReviewGame``) through the referee: queued for the bot workers
and never searched on the request path, answered once a worker stored them, refused with stable
reasons, rate-limited per client, and blind to what the seat cannot see. On the in-process store
and on Redis."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import pytest_asyncio
from hanafuda.v1 import game_pb2, moves_pb2, play_pb2, service_pb2
from redis.asyncio import Redis

from hanafuda_referee.bots import Budget
from hanafuda_referee.bots.advice import Advice, advise
from hanafuda_referee.bots.proto_view import engine_view
from hanafuda_referee.botworkers.consumer import BotConsumer
from hanafuda_referee.botworkers.deciding import decide_turn
from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import RETRY_AFTER, ApiError
from hanafuda_referee.hosting import games as games_module
from hanafuda_referee.hosting.advice import AdviceLimit, AdviceWork
from hanafuda_referee.hosting.bot_turns import BotDecision
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.moves import Move
from hanafuda_referee.store import MemoryStore, StoreSettings, open_store

from .conftest import (
    FIELD,
    REDIS_URL,
    SEAT0_HAND,
    SEAT1_HAND,
    SPECTATOR,
    STOCK,
    cards,
    redis_answers,
    scripted_request,
    seat,
    seeded_request,
)

READY = play_pb2.ADVICE_STATUS_READY
PENDING = play_pb2.ADVICE_STATUS_PENDING
#: A search without a clock: the same view and seed give the same advice, whatever the load.
PLAYOUTS = Budget(playouts=200)


class Worker:
    """A bot worker on the referee's store, in this event loop, that records the work it did."""

    def __init__(self, referee: Referee) -> None:
        self.works: list[AdviceWork] = []

        async def decide(decision: BotDecision) -> tuple[Move, float]:
            return decide_turn(decision)

        async def advised(work: AdviceWork) -> tuple[list[Advice], float]:
            self.works.append(work)
            return [advise(view, seed, budget=PLAYOUTS) for view, seed in work.positions], 0.0

        self.consumer = BotConsumer(referee.games, "test-worker", decide, advise=advised)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        stop = asyncio.Event()
        task = asyncio.create_task(self.consumer.run(stop))
        try:
            yield
        finally:
            stop.set()
            await task


@pytest_asyncio.fixture(params=["memory", "redis"])
async def any_referee(request: pytest.FixtureRequest) -> AsyncIterator[Referee]:
    """A referee on the in-process store, then on Redis (under its own key prefix)."""
    if request.param == "memory":
        yield Referee(MemoryStore(), allow_testing=True)
        return
    if not redis_answers():
        pytest.skip("no Redis answers on 127.0.0.1:6379")
    prefix = f"test-service-{uuid.uuid4().hex}:"
    store = open_store(REDIS_URL, StoreSettings(key_prefix=prefix, watch_block=0.2))
    try:
        yield Referee(store, allow_testing=True)
    finally:
        await store.close()
        client = Redis.from_url(REDIS_URL)
        keys = [key async for key in client.scan_iter(match=prefix + "*", count=1000)]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def _refused(call: Any, reason: str) -> ApiError:
    with pytest.raises(ApiError) as caught:
        await call
    assert caught.value.reason == reason, caught.value
    return caught.value


async def _view(referee: Referee, game: str, token: str) -> game_pb2.GameView:
    return (await referee.GetGame(service_pb2.GetGameRequest(game=game), seat(token))).view


async def test_a_hint_is_queued_then_answered_from_the_seats_view(any_referee: Referee) -> None:
    referee = any_referee
    created = await referee.CreateGame(seeded_request(7, rounds=1), SPECTATOR)
    view = await _view(referee, created.game, created.player_tokens[0])
    me = created.player_tokens[view.turn]
    view = await _view(referee, created.game, me)
    ask = service_pb2.GetHintRequest(game=created.game)
    # No worker: the hint is queued, once, however often it is asked.
    first = await referee.GetHint(ask, seat(me))
    assert first.status == PENDING and first.version == view.version
    assert not first.HasField("move") and not first.candidates
    await referee.GetHint(ask, seat(me))
    jobs = await referee.store.take_bot_turns("peek", 10, 0, 600_000)
    assert [(j.game_id, j.version, j.job) for j in jobs] == [
        (created.game, view.version - 1, f"hint:{view.turn}")
    ]
    for job in jobs:  # handed back, as a worker that died would leave it
        await referee.store.finish_bot_turn(job)
    await referee.store.push_bot_turn(created.game, view.version - 1, f"hint:{view.turn}")
    worker = Worker(referee)
    async with worker.running():
        answer = await referee.GetHint(
            service_pb2.GetHintRequest(game=created.game, wait_seconds=10), seat(me)
        )
    assert answer.status == READY and answer.version == view.version
    assert answer.move in view.legal_moves
    assert 1 <= len(answer.candidates) <= 5
    assert answer.candidates[0].move == answer.move
    assert all(c.move in view.legal_moves for c in answer.candidates)
    # The worker searched the seat's view, exactly what its GameView shows, and nothing else.
    ((position, _),) = worker.works[0].positions
    assert position == engine_view(view)
    # Asked again: the same answer, from the store, with no new search.
    again = await referee.GetHint(ask, seat(me))
    assert again == answer and len(worker.works) == 1


async def test_hint_refusals(any_referee: Referee) -> None:
    referee = any_referee
    created = await referee.CreateGame(seeded_request(7, rounds=1), SPECTATOR)
    view = await _view(referee, created.game, created.player_tokens[0])
    waiting = created.player_tokens[1 - view.turn]
    ask = service_pb2.GetHintRequest(game=created.game)
    await _refused(referee.GetHint(ask, seat(waiting)), "NOT_YOUR_TURN")
    await _refused(referee.GetHint(ask, SPECTATOR), "MISSING_TOKEN")
    await _refused(referee.GetHint(ask, seat("not-a-token")), "BAD_TOKEN")
    await _refused(
        referee.GetHint(service_pb2.GetHintRequest(game="nope"), seat(waiting)), "UNKNOWN_GAME"
    )
    await _refused(
        referee.GetHint(
            service_pb2.GetHintRequest(game=created.game, wait_seconds=31), seat(waiting)
        ),
        "INVALID_ARGUMENT",
    )
    await _refused(
        referee.ReviewGame(service_pb2.ReviewGameRequest(game=created.game), seat(waiting)),
        "GAME_NOT_OVER",
    )
    resign = service_pb2.SubmitMoveRequest(
        game=created.game, move=moves_pb2.Move(kind=moves_pb2.MOVE_KIND_RESIGN)
    )
    await referee.SubmitMove(resign, seat(waiting))
    await _refused(referee.GetHint(ask, seat(created.player_tokens[view.turn])), "GAME_OVER")
    # Nothing was queued by a refusal.
    assert await referee.store.take_bot_turns("peek", 10, 0, 600_000) == []


async def test_hints_and_reviews_are_rate_limited_per_client() -> None:
    referee = Referee(
        MemoryStore(), allow_testing=True, advice_limit=AdviceLimit(per_minute=1, burst=2)
    )
    games = [await referee.CreateGame(seeded_request(n, rounds=1), SPECTATOR) for n in (1, 2, 3)]
    asked = []
    for created in games:
        view = await _view(referee, created.game, created.player_tokens[0])
        token = created.player_tokens[view.turn]
        asked.append((created.game, token))
    for game, token in asked[:2]:
        await referee.GetHint(service_pb2.GetHintRequest(game=game), seat(token))
    # Asking again for a hint already queued is free.
    await referee.GetHint(service_pb2.GetHintRequest(game=asked[0][0]), seat(asked[0][1]))
    game, token = asked[2]
    error = await _refused(
        referee.GetHint(service_pb2.GetHintRequest(game=game), seat(token)), "RATE_LIMITED"
    )
    assert int(error.metadata[RETRY_AFTER]) >= 1
    # Another client has its own bucket.
    other = Caller(token=token, address="192.0.2.9", transport="test")
    assert (await referee.GetHint(service_pb2.GetHintRequest(game=game), other)).status == PENDING


def _koikoi_deal(seat1_hand: tuple[int, ...], stock: tuple[int, ...]) -> game_pb2.Deal:
    return game_pb2.Deal(
        hands=[game_pb2.Hand(cards=cards(SEAT0_HAND)), game_pb2.Hand(cards=cards(seat1_hand))],
        field=cards(FIELD),
        stock=cards(stock),
    )


async def _hint_on(
    monkeypatch: pytest.MonkeyPatch, deal: game_pb2.Deal
) -> tuple[service_pb2.GetHintResponse, list[str]]:
    """The hint for seat 0 of a game on ``deal`` under the game id ``fixed``, and every error
    message and job the store saw on the way."""
    referee = Referee(MemoryStore(), allow_testing=True)
    monkeypatch.setattr(games_module, "new_game_id", lambda: "fixed")
    request = scripted_request()
    request.ClearField("prepared_deals")
    request.prepared_deals.append(deal)
    created = await referee.CreateGame(request, SPECTATOR)
    texts = []
    with pytest.raises(ApiError) as refused:
        await referee.GetHint(
            service_pb2.GetHintRequest(game="fixed"), seat(created.player_tokens[1])
        )
    texts.append(str(refused.value) + repr(refused.value.metadata))
    worker = Worker(referee)
    async with worker.running():
        hint = await referee.GetHint(
            service_pb2.GetHintRequest(game="fixed", wait_seconds=10),
            seat(created.player_tokens[0]),
        )
    return hint, texts


async def test_a_hint_is_the_same_whatever_the_seat_cannot_see(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two games with the same id, the same hand for seat 0 and the same field, but the other
    hand and the stock dealt otherwise: the same hint, to the last digit."""
    unseen = list(SEAT1_HAND + STOCK)
    shuffled = unseen[5:] + unseen[:5]
    one, texts_one = await _hint_on(monkeypatch, _koikoi_deal(SEAT1_HAND, STOCK))
    two, texts_two = await _hint_on(
        monkeypatch, _koikoi_deal(tuple(shuffled[:8]), tuple(shuffled[8:]))
    )
    assert one.status == READY and one == two
    assert texts_one == texts_two
    # Nothing in the hint names a card seat 0 cannot see.
    shown = {c for e in one.candidates for c in (e.move.card, e.move.target)} - {0}
    assert shown <= set(SEAT0_HAND) | set(FIELD)


def _first_legal(view: game_pb2.GameView) -> moves_pb2.Move:
    return view.legal_moves[0]


async def _play_out(
    referee: Referee,
    created: service_pb2.CreateGameResponse,
    choose: Callable[[game_pb2.GameView], moves_pb2.Move],
    views: dict[int, game_pb2.GameView],
) -> None:
    """Play the game to its end, each seat its first legal move; seat 0's views at each of its
    decisions are kept in ``views`` by version."""
    tokens = created.player_tokens
    while True:
        view = await _view(referee, created.game, tokens[0])
        if view.status == game_pb2.GAME_STATUS_OVER:
            return
        actor = view.turn if view.HasField("turn") else 0
        seen = await _view(referee, created.game, tokens[actor])
        if actor == 0:
            views[seen.version] = seen
        move = service_pb2.SubmitMoveRequest(game=created.game, move=choose(seen))
        await referee.SubmitMove(move, seat(tokens[actor]))


async def test_a_review_judges_each_decision_from_the_seats_own_view(
    any_referee: Referee,
) -> None:
    referee = any_referee
    created = await referee.CreateGame(seeded_request(5, rounds=1), SPECTATOR)
    views: dict[int, game_pb2.GameView] = {}
    await _play_out(referee, created, _first_legal, views)
    ask = service_pb2.ReviewGameRequest(game=created.game, wait_seconds=20)
    worker = Worker(referee)
    async with worker.running():
        review = await referee.ReviewGame(ask, seat(created.player_tokens[0]))
    assert review.status == READY
    choices = {v: view for v, view in views.items() if len(view.legal_moves) > 1}
    assert review.decisions == len(choices) > 0
    # Each position searched is the engine view the seat's own GameView gave, at its version.
    (work,) = worker.works
    assert [position for position, _ in work.positions] == [
        engine_view(choices[v]) for v in sorted(choices)
    ]
    assert review.differences, "the first legal move every time is seldom the expert's"
    for difference in review.differences:
        seen = choices[difference.version]
        assert difference.played.move == seen.legal_moves[0]
        assert difference.expert.move != difference.played.move
        assert difference.expert.move in seen.legal_moves
        assert difference.round == 1
        expected = difference.expert.mean_points - difference.played.mean_points
        assert difference.cost_points == pytest.approx(expected, abs=0.002)
    # The other seat's review is its own, and the same seat's is answered from the store.
    again = await referee.ReviewGame(
        service_pb2.ReviewGameRequest(game=created.game), seat(created.player_tokens[0])
    )
    assert again == review
