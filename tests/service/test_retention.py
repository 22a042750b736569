"""A finished game stays readable for its own retention time, separate from the idle time of
the games in play (PLAY.md, "Finished games"): the referee tells the store which commit ends a
game, and the store keeps it that long."""

from __future__ import annotations

import random

import pytest
from hanafuda.v1 import game_pb2, service_pb2

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.config import Config
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.store import MemoryStore, StoreSettings
from tests.store.conftest import FakeClock

from .conftest import SPECTATOR, seat, seeded_request

IDLE, FINISHED = 60.0, 600.0


async def _play_to_the_end(referee: Referee, game: str, tokens: list[str]) -> None:
    rng = random.Random(3)
    request = service_pb2.GetGameRequest(game=game)
    for _ in range(500):
        view = (await referee.GetGame(request, SPECTATOR)).view
        if view.status == game_pb2.GAME_STATUS_OVER:
            return
        mover = seat(tokens[view.turn])
        legal = (await referee.GetGame(request, mover)).view.legal_moves
        move = service_pb2.SubmitMoveRequest(game=game, move=rng.choice(list(legal)))
        await referee.SubmitMove(move, mover)
    raise AssertionError("the game did not end")


async def _readable(referee: Referee, game: str) -> bool:
    """Whether the game can be read; any refusal but ``UNKNOWN_GAME`` is an error."""
    try:
        await referee.GetGame(service_pb2.GetGameRequest(game=game), SPECTATOR)
    except ApiError as error:
        if error.reason != "UNKNOWN_GAME":
            raise
        return False
    return True


@pytest.mark.parametrize(("idle", "finished"), [(IDLE, FINISHED), (FINISHED, IDLE)])
async def test_a_finished_game_outlives_the_idle_time_by_its_own(
    idle: float, finished: float
) -> None:
    clock = FakeClock()
    store = MemoryStore(StoreSettings(idle_ttl=idle, finished_ttl=finished), clock=clock)
    referee = Referee(store, allow_testing=True)
    played = await referee.CreateGame(seeded_request(11, rounds=1), SPECTATOR)
    idle_game = await referee.CreateGame(seeded_request(11, rounds=12), SPECTATOR)
    await _play_to_the_end(referee, played.game, list(played.player_tokens))

    clock.advance(min(idle, finished) + 1)
    assert await _readable(referee, played.game) is (finished > idle)
    assert await _readable(referee, idle_game.game) is (idle > finished)
    clock.advance(abs(idle - finished))
    assert not await _readable(referee, played.game)
    assert not await _readable(referee, idle_game.game)


async def test_the_log_of_a_finished_game_is_readable_past_the_idle_time() -> None:
    clock = FakeClock()
    store = MemoryStore(StoreSettings(idle_ttl=IDLE, finished_ttl=FINISHED), clock=clock)
    referee = Referee(store, allow_testing=True)
    created = await referee.CreateGame(seeded_request(11, rounds=1), SPECTATOR)
    await _play_to_the_end(referee, created.game, list(created.player_tokens))
    clock.advance(IDLE * 2)
    log = await referee.GetGameLog(service_pb2.GetGameLogRequest(game=created.game), SPECTATOR)
    assert log.events
    assert log.deals  # the game is over: its deals are revealed


def test_the_setting_reaches_the_store() -> None:
    config = Config.load(None, {"HANAFUDA_FINISHED_GAME_TTL": "3600"})
    assert config.store_settings().finished_ttl == 3600.0
    assert Config.load(None, {}).store_settings().finished_ttl == 7 * 24 * 3600.0
    with pytest.raises(ValueError, match="finished_ttl"):
        Config.load(None, {"HANAFUDA_FINISHED_GAME_TTL": "0"})
