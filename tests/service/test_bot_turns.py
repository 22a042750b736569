"""A bot seat's turn through the hosting layer on the in-process store (``HostedGames``): queued
after the commit that hands the turn to a bot, never decided in it; applied once whoever plays it
and however often; dropped when the game moved on; pushed again by the sweeper when its push was
lost; and a bot seat's reply to a timeout queued too."""

from __future__ import annotations

import asyncio

from hanafuda.v1 import game_pb2, play_pb2, rules_pb2, service_pb2

from hanafuda_referee.botworkers.consumer import BotConsumer
from hanafuda_referee.botworkers.deciding import decide_turn
from hanafuda_referee.hosting.bot_turns import BOT_STALL_MS, BotDecision, BotTurnResult
from hanafuda_referee.hosting.games import HostedGames
from hanafuda_referee.moves import Move
from hanafuda_referee.store import MemoryStore

from .conftest import SPECTATOR

EXPERT = play_pb2.BOT_LEVEL_EXPERT
GREEDY = play_pb2.BOT_LEVEL_GREEDY


class _Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _bots_first(
    bots: list[play_pb2.BotLevel.ValueType], **clock: int
) -> service_pb2.CreateGameRequest:
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], bots=bots, seed=11, first_dealer=0
    )
    request.koi_koi.rounds = 1
    if clock:
        request.clock.move_seconds = clock["move_seconds"]
        request.clock.max_auto_decisions = 10
    return request


async def _decided(decision: BotDecision) -> Move:
    return decide_turn(decision)[0]


async def test_a_creation_queues_the_bots_turn_and_decides_nothing() -> None:
    store = MemoryStore()
    games = HostedGames(store, allow_testing=True)
    created = await games.create(_bots_first([EXPERT, EXPERT]), SPECTATOR)
    assert created.view.version == 1 and created.view.bot_thinking_seat == created.view.turn
    (turn,) = await store.take_bot_turns("test", 5, 0, 5_000)
    assert (turn.game_id, turn.version) == (created.game, 0)


async def test_a_turn_is_applied_once_whoever_plays_it() -> None:
    store = MemoryStore()
    games = HostedGames(store, allow_testing=True)
    other = HostedGames(store, allow_testing=True)
    created = await games.create(_bots_first([EXPERT, EXPERT]), SPECTATOR)
    seen: list[BotDecision] = []

    both_deciding = asyncio.Event()

    async def decide(decision: BotDecision) -> Move:
        seen.append(decision)
        if len(seen) == 2:
            both_deciding.set()
        await asyncio.wait_for(both_deciding.wait(), 1)  # a retry finds the game moved on
        return await _decided(decision)

    # Two workers race on one turn: both decide, one commits, the other finds it applied.
    first, second = await asyncio.gather(
        games.play_bot_turn(created.game, 0, decide), other.play_bot_turn(created.game, 0, decide)
    )
    assert sorted([first, second], key=lambda r: r.value) == [
        BotTurnResult.DROPPED,
        BotTurnResult.PLAYED,
    ]
    # Both decided the same turn, from the same seed: the same move whoever commits it.
    assert seen[0] == seen[1] and seen[0].seat == created.view.turn and seen[0].version == 0
    log = await games.log(service_pb2.GetGameLogRequest(game=created.game), SPECTATOR)
    assert max(e.version for e in log.events) == 2
    # A late retry of the same turn changes nothing.
    assert await games.play_bot_turn(created.game, 0, decide) is BotTurnResult.DROPPED
    assert len(seen) == 2
    # The next bot's turn was queued by the commit.
    turns = await store.take_bot_turns("test", 5, 0, 5_000)
    assert [(t.game_id, t.version) for t in turns][-1] == (created.game, 1)


async def test_a_consumer_plays_a_bots_only_game_to_the_end() -> None:
    store = MemoryStore()
    games = HostedGames(store, allow_testing=True)
    created = await games.create(_bots_first([GREEDY, EXPERT]), SPECTATOR)

    async def decide(decision: BotDecision) -> tuple[Move, float]:
        return decide_turn(decision)

    consumer = BotConsumer(games, "test", decide)
    stop = asyncio.Event()
    task = asyncio.create_task(consumer.run(stop))
    try:
        async with asyncio.timeout(60):
            while True:
                view = (
                    await games.get(service_pb2.GetGameRequest(game=created.game), SPECTATOR)
                ).message()
                if view.view.status == game_pb2.GAME_STATUS_OVER:
                    break
                await asyncio.sleep(0.01)
    finally:
        stop.set()
        await task
    assert not view.view.HasField("bot_thinking_seat")
    assert (await store.bot_queue_stats()).depth == 0


async def test_the_sweeper_queues_a_lost_turn_again() -> None:
    store = MemoryStore()
    clock = _Clock()
    games = HostedGames(store, allow_testing=True, clock=clock)
    created = await games.create(_bots_first([EXPERT, EXPERT]), SPECTATOR)
    (lost,) = await store.take_bot_turns("test", 5, 0, 5_000)
    await store.finish_bot_turn(lost)  # as if the push had never reached the store
    await games.sweep()
    assert await store.take_bot_turns("test", 5, 0, 5_000) == []
    clock.now += BOT_STALL_MS / 1000
    await games.sweep()
    (again,) = await store.take_bot_turns("test", 5, 0, 5_000)
    assert (again.game_id, again.version) == (created.game, 0)


async def test_a_bots_reply_to_a_timeout_goes_to_the_queue() -> None:
    store = MemoryStore()
    clock = _Clock()
    games = HostedGames(store, allow_testing=True, clock=clock)
    request = _bots_first([play_pb2.BOT_LEVEL_UNSPECIFIED, GREEDY], move_seconds=1)
    created = await games.create(request, SPECTATOR)
    assert created.view.turn == 0 and not created.view.HasField("bot_thinking_seat")
    clock.now += 1.5
    view = (await games.get(service_pb2.GetGameRequest(game=created.game), SPECTATOR)).message()
    # The timeout took seat 0's decision, which handed the turn to the bot: queued, not decided.
    assert view.view.version == 2
    assert view.view.bot_thinking_seat == 1
    (turn,) = await store.take_bot_turns("test", 5, 0, 5_000)
    assert (turn.game_id, turn.version) == (created.game, 1)
