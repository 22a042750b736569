"""A finished game's log replays it: its deals, prepared again in order with the first record's
dealer as the first dealer, and its moves give the same game under any other seed."""

from __future__ import annotations

import random

import pytest
from hanafuda.v1 import game_pb2, moves_pb2, service_pb2

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.dealing import Deal, shuffled_deal
from hanafuda_referee.hachihachi.game import seeded_deal
from hanafuda_referee.hosting.convert import deal_to_proto
from hanafuda_referee.hosting.referee import Referee

from .conftest import SPECTATOR, seat, seeded_request
from .test_hachihachi_games import request as hachihachi_request

Played = list[tuple[int, moves_pb2.Move]]


async def play(
    referee: Referee, request: service_pb2.CreateGameRequest, rng: random.Random
) -> tuple[str, Played]:
    """A game played to its end by random legal moves: its id and its moves, by seat."""
    created = await referee.CreateGame(request, SPECTATOR)
    tokens, view, moves = list(created.player_tokens), created.view, []
    while view.status != game_pb2.GAME_STATUS_OVER:
        caller = seat(tokens[view.turn])
        own = await referee.GetGame(service_pb2.GetGameRequest(game=created.game), caller)
        move = rng.choice(list(own.view.legal_moves))
        moves.append((view.turn, move))
        answer = await referee.SubmitMove(
            service_pb2.SubmitMoveRequest(game=created.game, move=move), caller
        )
        view = answer.view
    return created.game, moves


async def replay(referee: Referee, request: service_pb2.CreateGameRequest, moves: Played) -> str:
    """``request``'s game with ``moves`` submitted in order, each of them accepted."""
    created = await referee.CreateGame(request, SPECTATOR)
    tokens = list(created.player_tokens)
    for actor, move in moves:
        await referee.SubmitMove(
            service_pb2.SubmitMoveRequest(game=created.game, move=move), seat(tokens[actor])
        )
    return created.game


async def the_end(
    referee: Referee, game: str
) -> tuple[game_pb2.GameView, service_pb2.GetGameLogResponse]:
    """A finished game's spectator view and log, without its id, its seed, its events' times,
    and the first dealer's draw (a replay names him) and the events' places in the log that
    the draw shifts."""
    view = (await referee.GetGame(service_pb2.GetGameRequest(game=game), SPECTATOR)).view
    view.game = ""
    log = await referee.GetGameLog(service_pb2.GetGameLogRequest(game=game), SPECTATOR)
    kept = [e for e in log.events if not e.HasField("first_dealer_drawn")]
    del log.events[:]
    log.events.extend(kept)
    for event in log.events:
        event.ClearField("time")
        event.ClearField("sequence")
    log.ClearField("seed")
    return view, log


async def assert_the_log_replays(
    referee: Referee, request: service_pb2.CreateGameRequest, seed: int
) -> service_pb2.GetGameLogResponse:
    game, moves = await play(referee, request, random.Random(seed))
    view, log = await the_end(referee, game)
    again = service_pb2.CreateGameRequest()
    again.CopyFrom(request)
    again.seed = request.seed + 1000
    again.first_dealer = log.deals[0].dealer
    del again.prepared_deals[:]  # the log holds them all
    again.prepared_deals.extend(record.deal for record in log.deals)
    replayed_view, replayed_log = await the_end(referee, await replay(referee, again, moves))
    assert replayed_view == view
    assert replayed_log == log  # the events, and the deals themselves
    return log


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_koikoi_log_replays_the_game(referee: Referee, seed: int) -> None:
    log = await assert_the_log_replays(referee, seeded_request(seed, rounds=4), seed)
    assert all(not record.deal.stock_after_drops for record in log.deals)


@pytest.mark.parametrize("participants", [3, 4, 5, 6])
@pytest.mark.parametrize("seed", [1, 2])
async def test_a_hachihachi_log_replays_the_game(
    referee: Referee, participants: int, seed: int
) -> None:
    request = hachihachi_request(participants, seed, rounds=3)
    log = await assert_the_log_replays(referee, request, seed)
    for record in log.deals:
        after = record.deal.stock_after_drops
        if participants == 3:
            assert not after
        elif after:
            # The stock and the dropped hands, whole.
            assert len(after) == 21 and set(record.deal.stock) <= set(after)
            extra = set(after) - set(record.deal.stock)
            dropped = [h for h in record.deal.hands if set(h.cards) <= extra]
            assert len(dropped) == participants - 3
    if participants > 3:
        # Every deal that stood was played, so its drops happened.
        assert sum(bool(r.deal.stock_after_drops) for r in log.deals) >= 3


def with_deal(
    request: service_pb2.CreateGameRequest, deal: Deal, after: list[int]
) -> service_pb2.CreateGameRequest:
    """``request`` with ``deal`` prepared, its stock after drops being ``after``."""
    out = service_pb2.CreateGameRequest()
    out.CopyFrom(request)
    out.prepared_deals.append(deal_to_proto(deal))
    out.prepared_deals[0].stock_after_drops.extend(after)  # type: ignore[arg-type]
    return out


async def test_a_prepared_stock_after_drops_is_checked_at_creation(referee: Referee) -> None:
    four = hachihachi_request(4, 5)
    deal = seeded_deal(seed=5, number=0, participants=4, dealer=0)
    await referee.CreateGame(with_deal(four, deal, [*deal.hands[2], *deal.stock]), SPECTATOR)
    koikoi = shuffled_deal(seed=5, number=0, seats=2, hand_size=8, field_size=8)
    for bad, why in (
        (with_deal(four, deal, [*deal.hands[2][:6], deal.hands[3][0], *deal.stock]), "part of"),
        (with_deal(four, deal, [*deal.hands[2][:6], 99, *deal.stock]), "99 is not a card"),
        (with_deal(seeded_request(5), koikoi, list(koikoi.stock)), "participants who drop"),
    ):
        with pytest.raises(ApiError) as info:
            await referee.CreateGame(bad, SPECTATOR)
        assert info.value.reason == "BAD_DEAL" and why in info.value.message


@pytest.mark.parametrize("participants", [3, 4, 6])
async def test_a_redealt_hachihachi_deal_is_logged_whole(
    referee: Referee, participants: int
) -> None:
    # The four pine cards on the field: the deal is redone at once, with the seed's next deal.
    field = (1, 2, 3, 4, 5, 9)
    rest = [c for c in range(1, 49) if c not in field]
    hands = tuple(tuple(rest[7 * i : 7 * i + 7]) for i in range(participants))
    redealt = Deal(hands, field, tuple(rest[7 * participants :]))
    request = hachihachi_request(participants, 77, rounds=2)
    request.prepared_deals.append(deal_to_proto(redealt))
    request.first_dealer = 1
    log = await assert_the_log_replays(referee, request, 5)
    assert list(log.deals[0].deal.field) == list(field)
    assert list(log.deals[0].deal.stock) == list(redealt.stock)
    assert not log.deals[0].deal.stock_after_drops  # nobody dropped from a deal redone at once
    assert log.deals[1].round == 1 and len(log.deals[1].deal.stock) == 42 - 7 * participants
