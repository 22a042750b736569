"""Waiting for one's turn against a bot, on a real referee with its embedded bot workers, over
both transports: a read that waits answers at the seat's turn; a move that waits answers with
the bot's reply among its events and the seat to act again; and a value over 30 s is refused
with the same reason on both."""

from __future__ import annotations

import httpx
import pytest
from hanafuda.v1 import game_pb2, play_pb2, rules_pb2, service_pb2
from hanafuda_client import RefereeClient, RefereeError

from .processes import RefereeProcess


def _against_expert() -> service_pb2.CreateGameRequest:
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI,
        players=["me", "computer"],
        bots=[play_pb2.BOT_LEVEL_UNSPECIFIED, play_pb2.BOT_LEVEL_EXPERT],
        seed=21,
        first_dealer=1,  # the expert leads: the first read must wait for it
    )
    request.koi_koi.rounds = 1
    return request


def test_grpc_a_read_and_a_move_that_wait_for_the_experts_reply(
    module_referee: RefereeProcess,
) -> None:
    with RefereeClient(module_referee.grpc_target, timeout=10) as client:
        created = client.create_game(_against_expert())
        token = created.player_tokens[0]
        assert created.view.bot_thinking_seat == 1
        view = client.get_game(created.game, token, wait_seconds=30)
        assert view.turn == 0 and not view.HasField("bot_thinking_seat")
        replies = 0
        for _ in range(12):
            answer = client.submit_move(
                created.game,
                view.legal_moves[0],
                token,
                expected_version=view.version,
                wait_seconds=30,
            )
            view = answer.view
            if view.status == game_pb2.GAME_STATUS_OVER:
                break
            assert view.turn == 0 and answer.version == view.version
            # Past the move's own version: the expert's reply, which the answer carries.
            if any(e.version > answer.events[0].version for e in answer.events):
                assert any(e.actor == 1 for e in answer.events if e.HasField("actor"))
                replies += 1
        assert replies, "no move handed the turn to the expert"
        with pytest.raises(RefereeError) as refused:
            client.get_game(created.game, token, wait_seconds=31)
        assert refused.value.reason == "INVALID_ARGUMENT"


def test_http_a_read_and_a_move_that_wait_for_the_experts_reply(
    module_referee: RefereeProcess,
) -> None:
    base = module_referee.http_url
    with httpx.Client(base_url=base, timeout=40) as http:
        created = http.post(
            "/v1/games",
            json={
                "kind": "GAME_KIND_KOI_KOI",
                "players": ["me", "computer"],
                "bots": ["BOT_LEVEL_UNSPECIFIED", "BOT_LEVEL_EXPERT"],
                "seed": "21",
                "firstDealer": 1,
                "koiKoi": {"rounds": 1},
            },
        ).json()
        auth = {"Authorization": f"Bearer {created['playerTokens'][0]}"}
        path = f"/v1/games/{created['game']}"
        view = http.get(path, params={"waitSeconds": 30}, headers=auth).json()["view"]
        assert view["turn"] == 0 and "botThinkingSeat" not in view
        answer = http.post(
            path + "/moves",
            headers=auth,
            json={
                "move": view["legalMoves"][0],
                "expectedVersion": view["version"],
                "waitSeconds": 30,
            },
        ).json()
        assert answer["view"]["turn"] == 0 or answer["view"]["status"] == "GAME_STATUS_OVER"
        assert answer["version"] == answer["view"]["version"]
        versions = {int(e["version"]) for e in answer["events"]}
        if len(versions) > 1:  # the move handed the turn to the expert: its reply is here
            assert any(e.get("actor") == 1 for e in answer["events"])
        refused = http.get(path, params={"waitSeconds": 31}, headers=auth)
        assert refused.status_code == 400
        assert refused.json()["error"]["details"][0]["reason"] == "INVALID_ARGUMENT"
