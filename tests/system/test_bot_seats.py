"""Bot seats (PLAY.md) through a real service process: games against bots of every level played
to the end on both games and both transports, the bots' moves never in the answer of the move
that hands them the turn (they come as the next versions, decided by the referee's embedded bot
workers), and a game with nobody in it refused unless testing is allowed.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hanafuda.v1 import game_pb2, moves_pb2, play_pb2, rules_pb2, service_pb2

from .clients import TRANSPORTS, Client, open_client, refusal_of
from .playing import after_the_bots, move
from .processes import RefereeProcess

LEVELS: tuple[play_pb2.BotLevel.ValueType, ...] = (
    play_pb2.BOT_LEVEL_RANDOM,
    play_pb2.BOT_LEVEL_GREEDY,
    play_pb2.BOT_LEVEL_EXPERT,
)
PERSON = play_pb2.BOT_LEVEL_UNSPECIFIED


async def _play_against_bots(
    client: Client, request: service_pb2.CreateGameRequest, human: int, seed: int
) -> game_pb2.GameView:
    """The human seat plays random legal moves; after each answer, once the bots moved (a
    watcher learns of their moves), it is the human's turn again, or the game is over."""
    created = await client.create(request)
    game, token = created.game, created.player_tokens[human]
    assert list(created.view.bots) == list(request.bots) + [0] * (
        len(request.players) - len(request.bots)
    )
    rng = random.Random(seed)
    view = await after_the_bots(client, game, token, await client.view(game, token))
    while view.status != game_pb2.GAME_STATUS_OVER:
        assert view.turn == human and view.legal_moves
        answer = await client.submit(
            game, rng.choice(list(view.legal_moves)), token, expected_version=view.version
        )
        # The answer is the move's own commit: a bot's move comes as a later version.
        assert answer.version == view.version + 1
        assert all(e.actor == human for e in answer.events if e.HasField("actor"))
        view = await after_the_bots(client, game, token, answer.view)
    # The bots played (in Hachi-Hachi, maybe the whole game at its creation: the person may
    # have to sit a round out when the bots all join).
    log = await client.log(game, token)
    assert any(e.HasField("actor") and e.actor != human for e in log.events)
    return view


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("level", LEVELS, ids=["random", "greedy", "expert"])
async def test_koikoi_against_a_bot_to_the_end(
    module_referee: RefereeProcess, transport: str, level: play_pb2.BotLevel.ValueType
) -> None:
    async with open_client(transport, module_referee) as client:
        for human in (0, 1):
            request = service_pb2.CreateGameRequest(
                kind=rules_pb2.GAME_KIND_KOI_KOI,
                players=["me", "bot"] if human == 0 else ["bot", "me"],
                bots=[PERSON, level] if human == 0 else [level],
                seed=20 + human,
            )
            request.koi_koi.rounds = 2
            final = await _play_against_bots(client, request, human, seed=human)
            assert final.game_result.end in (
                game_pb2.GAME_END_ROUNDS_PLAYED,
                game_pb2.GAME_END_OUT_OF_POINTS,
                game_pb2.GAME_END_TARGET_REACHED,
            )


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("level", LEVELS, ids=["random", "greedy", "expert"])
async def test_hachihachi_against_two_bots_to_the_end(
    module_referee: RefereeProcess, transport: str, level: play_pb2.BotLevel.ValueType
) -> None:
    async with open_client(transport, module_referee) as client:
        request = service_pb2.CreateGameRequest(
            kind=rules_pb2.GAME_KIND_HACHI_HACHI,
            players=["bot-a", "me", "bot-b", "bot-c"],
            bots=[level, PERSON, level, play_pb2.BOT_LEVEL_RANDOM],
            seed=31,
        )
        request.hachi_hachi.rounds = 1
        final = await _play_against_bots(client, request, 1, seed=2)
        assert final.game_result.end == game_pb2.GAME_END_ROUNDS_PLAYED


async def test_a_resignation_against_a_bot_ends_the_game(module_referee: RefereeProcess) -> None:
    async with open_client("http", module_referee) as client:
        created = await client.create(
            service_pb2.CreateGameRequest(
                kind=rules_pb2.GAME_KIND_KOI_KOI,
                players=["me", "bot"],
                bots=[PERSON, play_pb2.BOT_LEVEL_GREEDY],
            )
        )
        answer = await client.submit(
            created.game, move(moves_pb2.MOVE_KIND_RESIGN), created.player_tokens[0]
        )
        assert answer.view.game_result.winner == 1


async def test_bot_seats_are_checked(tmp_path: Path, module_referee: RefereeProcess) -> None:
    async with open_client("grpc", module_referee) as client:
        for bots, reason in (([1, 2, 3], "INVALID_ARGUMENT"), ([0, 7], "BAD_OPTION_VALUE")):
            request = service_pb2.CreateGameRequest(
                kind=rules_pb2.GAME_KIND_KOI_KOI,
                players=["a", "b"],
                bots=bots,  # type: ignore[arg-type]
            )
            assert (await refusal_of(client.create(request))).reason == reason
        # Bots only: allowed here (testing features on), played out by the bot workers.
        everyone = service_pb2.CreateGameRequest(
            kind=rules_pb2.GAME_KIND_KOI_KOI,
            players=["a", "b"],
            bots=[play_pb2.BOT_LEVEL_RANDOM, play_pb2.BOT_LEVEL_GREEDY],
        )
        everyone.koi_koi.rounds = 1
        created = await client.create(everyone)
        assert created.view.bot_thinking_seat == created.view.turn
        final = await after_the_bots(client, created.game, None, created.view)
        assert final.status == game_pb2.GAME_STATUS_OVER
    with RefereeProcess(tmp_path, allow_testing=False) as strict:
        async with open_client("http", strict) as client:
            refused = await refusal_of(client.create(everyone))
            assert refused.reason == "TESTING_FEATURE_DISABLED"
