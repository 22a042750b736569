"""Resignation (PLAY.md) through a real service process, on both transports: in every phase of
both games, by the seat on turn and by a seat off turn.

Each case plays a seeded game with random legal moves until the game waits for the phase under
test, then a seat resigns. The answer must end the game at once: a ``resigned`` event, then
``game_ended`` naming the resigning seat; in Koi-Koi the other seat wins whatever the scores, in
Hachi-Hachi the balances go back to where the round in progress started. Afterwards every move
(a second resignation included) is refused ``GAME_OVER``, and the log reveals the seed.
"""

from __future__ import annotations

import random

import pytest
from hanafuda.v1 import game_pb2, moves_pb2, rules_pb2, service_pb2

from .clients import TRANSPORTS, Client, open_client, refusal_of
from .playing import move
from .processes import RefereeProcess

RESIGN = moves_pb2.MOVE_KIND_RESIGN

KOIKOI_PHASES = (
    game_pb2.WAITING_FOR_HAND_PLAY,
    game_pb2.WAITING_FOR_TARGET_CHOICE,
    game_pb2.WAITING_FOR_KOIKOI_DECISION,
)
HACHI_PHASES = (
    game_pb2.WAITING_FOR_JOIN_DECISION,
    game_pb2.WAITING_FOR_HAND_PLAY,
    game_pb2.WAITING_FOR_TARGET_CHOICE,
    game_pb2.WAITING_FOR_SAGE_DECISION,
)


async def _game_waiting_for(
    client: Client, kind: int, waiting: int, seed: int
) -> tuple[str, list[str], game_pb2.GameView, list[int]]:
    """A game that waits for ``waiting``, reached by seeded random play from ``seed`` on (a game
    that ends first is dropped for the next seed). Also gives each seat's balance when the round
    in progress began (Hachi-Hachi)."""
    seats = 2 if kind == rules_pb2.GAME_KIND_KOI_KOI else 4
    for attempt in range(200):
        request = service_pb2.CreateGameRequest(
            kind=kind,  # type: ignore[arg-type]
            players=[f"p{i}" for i in range(seats)],
            seed=seed + attempt,
        )
        created = await client.create(request)
        game, tokens = created.game, list(created.player_tokens)
        rng = random.Random(seed + attempt)
        view = created.view
        round_start = [0] * seats
        while view.status != game_pb2.GAME_STATUS_OVER:
            if view.waiting.kind == waiting:
                return game, tokens, view, round_start
            own = await client.view(game, tokens[view.turn])
            answer = await client.submit(
                game,
                rng.choice(list(own.legal_moves)),
                tokens[view.turn],
                expected_version=own.version,
            )
            for event in answer.events:
                if event.WhichOneof("kind") == "round_ended":
                    round_start = [s.balance_halves for s in answer.view.seats]
            view = answer.view
    raise AssertionError(f"no game of seed {seed}.. reached {waiting}")


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    ("kind", "waiting"),
    [(rules_pb2.GAME_KIND_KOI_KOI, w) for w in KOIKOI_PHASES]
    + [(rules_pb2.GAME_KIND_HACHI_HACHI, w) for w in HACHI_PHASES],
)
@pytest.mark.parametrize("on_turn", [True, False], ids=["on-turn", "off-turn"])
async def test_a_resignation_ends_the_game_in_every_phase(
    module_referee: RefereeProcess, transport: str, kind: int, waiting: int, on_turn: bool
) -> None:
    async with open_client(transport, module_referee) as client:
        game, tokens, view, round_start = await _game_waiting_for(client, kind, waiting, seed=7)
        seats = len(tokens)
        resigner = view.turn if on_turn else (view.turn + 1) % seats
        before = await client.view(game, tokens[resigner])
        assert all(m.kind != RESIGN for m in before.legal_moves)  # open to all, never listed

        answer = await client.submit(
            game, move(RESIGN), tokens[resigner], expected_version=before.version
        )

        assert answer.version == before.version + 1
        kinds = [e.WhichOneof("kind") for e in answer.events]
        assert kinds == ["resigned", "game_ended"]
        resigned = answer.events[0]
        assert resigned.resigned.seat == resigner and not resigned.resigned.timed_out
        assert resigned.actor == resigner
        result = answer.events[1].game_ended.result
        assert result.end == game_pb2.GAME_END_RESIGNED
        assert result.HasField("resigned") and result.resigned == resigner
        final = answer.view
        assert final.status == game_pb2.GAME_STATUS_OVER
        assert final.game_result == result
        assert list(final.legal_moves) == []
        if kind == rules_pb2.GAME_KIND_KOI_KOI:
            assert result.winner == 1 - resigner and not result.draw
            assert list(result.scores) == [s.score for s in before.seats]
        else:
            # The round in progress is void: its payments are taken back.
            assert list(result.balances_halves) == round_start
            assert final.rounds_finished == before.rounds_finished
            assert final.last_result == before.last_result

        for seat in range(seats):
            refused = await refusal_of(client.submit(game, move(RESIGN), tokens[seat]))
            assert refused.reason == "GAME_OVER"
        # As for any finished game, the log now reveals the seed and the deals.
        log = await client.log(game, tokens[0])
        assert log.HasField("seed") and len(log.deals) >= 1
        assert log.events[-1] == answer.events[-1]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_resignation_is_a_move_like_any_other(
    module_referee: RefereeProcess, transport: str
) -> None:
    """It takes an expected version and a request id: a stale one is refused and changes
    nothing; a retry with the same id answers the first outcome; a spectator cannot resign."""
    async with open_client(transport, module_referee) as client:
        created = await client.create(
            service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"])
        )
        game, tokens = created.game, list(created.player_tokens)
        stale = await refusal_of(client.submit(game, move(RESIGN), tokens[1], expected_version=99))
        assert stale.reason == "STALE_VERSION"
        assert (await client.view(game)).status == game_pb2.GAME_STATUS_IN_PROGRESS
        refused = await refusal_of(client.submit(game, move(RESIGN), None))
        assert refused.reason == "MISSING_TOKEN"
        malformed = await refusal_of(client.submit(game, move(RESIGN, card=1), tokens[1]))
        assert malformed.reason == "MALFORMED_MOVE"

        first = await client.submit(game, move(RESIGN), tokens[1], request_id="give-up")
        again = await client.submit(game, move(RESIGN), tokens[1], request_id="give-up")
        assert again.version == first.version
        assert [e.WhichOneof("kind") for e in again.events] == ["resigned", "game_ended"]
        assert again.view.game_result == first.view.game_result
        assert first.view.game_result.winner == 0
