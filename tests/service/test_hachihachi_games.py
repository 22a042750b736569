"""Hosted Hachi-Hachi games through the referee, played with random legal moves."""

from __future__ import annotations

import random

from hanafuda.v1 import game_pb2, rules_pb2, scoring_pb2, service_pb2

from hanafuda_referee.hosting.referee import Referee

from .conftest import SPECTATOR, seat


def request(players: int, seed: int, rounds: int = 2) -> service_pb2.CreateGameRequest:
    return service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_HACHI_HACHI,
        players=[f"p{i}" for i in range(players)],
        seed=seed,
        hachi_hachi=rules_pb2.HachiHachiRules(rounds=rounds),
    )


async def view_of(referee: Referee, game: str, token: str | None) -> game_pb2.GameView:
    caller = SPECTATOR if token is None else seat(token)
    return (await referee.GetGame(service_pb2.GetGameRequest(game=game), caller)).view


async def play_out(referee: Referee, players: int, seed: int) -> tuple[str, set[int]]:
    """Play a game to its end; check every view on the way. Returns the game and the waiting
    kinds seen."""
    created = await referee.CreateGame(request(players, seed), SPECTATOR)
    game, tokens = created.game, list(created.player_tokens)
    assert len(tokens) == players
    rng = random.Random(seed)
    version = created.view.version
    waited: set[int] = set()
    for _ in range(2000):
        views = [await view_of(referee, game, t) for t in tokens]
        spectator = await view_of(referee, game, None)
        assert not spectator.hand
        for own in [*views, spectator]:
            assert sum(s.balance_halves for s in own.seats) == 0
        for s, own in enumerate(views):
            for other, theirs in enumerate(views):
                if other != s:
                    assert not set(own.hand) & set(theirs.hand)
            assert len(own.hand) == own.seats[s].hand_size
        if spectator.status == game_pb2.GAME_STATUS_OVER:
            return game, waited
        waited.add(spectator.waiting.kind)
        actor = spectator.turn
        legal = list(views[actor].legal_moves)
        assert legal
        for other, theirs in enumerate(views):
            if other != actor:
                assert not theirs.legal_moves
        answer = await referee.SubmitMove(
            service_pb2.SubmitMoveRequest(game=game, move=rng.choice(legal)), seat(tokens[actor])
        )
        assert answer.view.version > version
        version = answer.view.version
    raise AssertionError("the game did not end")


async def test_three_player_game_to_the_end(referee: Referee) -> None:
    game, waited = await play_out(referee, 3, 7)
    assert game_pb2.WAITING_FOR_JOIN_DECISION not in waited
    final = await view_of(referee, game, None)
    assert final.game_result.end == game_pb2.GAME_END_ROUNDS_PLAYED
    assert final.rounds_finished == 2
    assert len(final.game_result.balances_halves) == 3
    log = await referee.GetGameLog(service_pb2.GetGameLogRequest(game=game), SPECTATOR)
    results = [e.round_ended.result for e in log.events if e.HasField("round_ended")]
    assert len(results) == 2 and final.last_result == results[-1]
    for result in results:
        assert result.field_multiplier >= 1
        net = [0, 0, 0]
        for p in result.payments:
            if p.HasField("from_seat"):
                net[p.from_seat] -= p.amount_halves
            if p.HasField("to_seat"):
                net[p.to_seat] += p.amount_halves
        assert sum(net) == 0
    kinds = [e.WhichOneof("kind") for e in log.events]
    assert kinds[0] == "game_created" and kinds[-1] == "game_ended"
    assert "round_ended" in kinds and "payment_made" in kinds
    assert all(not e.round_dealt.hand for e in log.events)
    assert log.deals


async def test_four_player_game_has_a_drop_phase(referee: Referee) -> None:
    game, waited = await play_out(referee, 4, 11)
    assert game_pb2.WAITING_FOR_JOIN_DECISION in waited
    created = await referee.CreateGame(request(4, 11), SPECTATOR)
    view = created.view
    assert view.waiting.kind == game_pb2.WAITING_FOR_JOIN_DECISION
    assert len(view.seats) == 4
    log = await referee.GetGameLog(service_pb2.GetGameLogRequest(game=game), SPECTATOR)
    decided = [e.participation_decided for e in log.events if e.HasField("participation_decided")]
    assert decided and any(not d.joined for d in decided)
    dropped_fee = [
        e.payment_made.payment
        for e in log.events
        if e.HasField("payment_made")
        and e.payment_made.payment.cause
        in (scoring_pb2.PAYMENT_CAUSE_DROP_FEE, scoring_pb2.PAYMENT_CAUSE_DROP_FEES_TAKEN)
    ]
    assert len(dropped_fee) % 2 == 0


async def test_hidden_information_in_events(referee: Referee) -> None:
    created = await referee.CreateGame(request(3, 3), SPECTATOR)
    tokens = list(created.player_tokens)
    for s, token in enumerate(tokens):
        log = await referee.GetGameLog(
            service_pb2.GetGameLogRequest(game=created.game), seat(token)
        )
        dealt = [e.round_dealt for e in log.events if e.HasField("round_dealt")]
        own = await view_of(referee, created.game, token)
        assert set(dealt[-1].hand) == set(own.hand)
        assert own.viewer_seat == s
