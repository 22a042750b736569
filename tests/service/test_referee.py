"""The referee's hosted games, through its RPC-named methods, on the in-memory store."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Awaitable
from typing import Any

import pytest
from google.protobuf.message import Message
from hanafuda.v1 import events_pb2, game_pb2, moves_pb2, rules_pb2, service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.hosting.referee import RPC_NAMES, Referee
from hanafuda_referee.store import MemoryStore, StoreSettings, open_store

from .conftest import (
    FIELD,
    SEAT0_HAND,
    SEAT1_HAND,
    SPECTATOR,
    scripted_deal,
    scripted_request,
    seat,
    seeded_request,
)

PLAY, CHOOSE, KOIKOI, STOP = (
    moves_pb2.MOVE_KIND_PLAY,
    moves_pb2.MOVE_KIND_CHOOSE_TARGET,
    moves_pb2.MOVE_KIND_KOIKOI,
    moves_pb2.MOVE_KIND_STOP,
)


async def refused(call: Awaitable[Any], reason: str) -> ApiError:
    """Await ``call``, which must be refused with ``reason``."""
    with pytest.raises(ApiError) as info:
        await call
    assert info.value.reason == reason, info.value.message
    return info.value


def move(kind: int, card: int = 0, target: int = 0) -> moves_pb2.Move:
    message = moves_pb2.Move()
    message.kind, message.card, message.target = kind, card, target  # type: ignore[assignment]
    return message


async def submit(
    referee: Referee,
    game: str,
    token: str,
    the_move: moves_pb2.Move,
    **fields: Any,
) -> service_pb2.SubmitMoveResponse:
    return await referee.SubmitMove(
        service_pb2.SubmitMoveRequest(game=game, move=the_move, **fields), seat(token)
    )


async def get(referee: Referee, game: str, caller: Caller = SPECTATOR) -> game_pb2.GameView:
    return (await referee.GetGame(service_pb2.GetGameRequest(game=game), caller)).view


def kinds(events: Any) -> list[str]:
    return [str(e.WhichOneof("kind")) for e in events]


def test_methods_are_named_like_the_rpcs() -> None:
    for name in RPC_NAMES:
        assert callable(getattr(Referee, name))
    assert len(RPC_NAMES) == 14


# --- creation and reads --------------------------------------------------------------------------


async def test_create_hands_out_tokens_and_stores_only_their_hashes(referee: Referee) -> None:
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    assert created.game and len(created.player_tokens) == 2
    assert len(set(created.player_tokens)) == 2
    assert created.view.version == 1
    assert not created.view.HasField("viewer_seat")
    assert not created.view.hand and not created.view.legal_moves
    record = await referee.store.load(created.game)
    assert record is not None
    for token in created.player_tokens:
        assert token.encode() not in record.meta + record.state
        assert hashlib.sha256(token.encode()).digest() in record.meta


async def test_testing_features_need_the_flag() -> None:
    strict = Referee(MemoryStore())
    await refused(strict.CreateGame(seeded_request(3), SPECTATOR), "TESTING_FEATURE_DISABLED")
    await refused(strict.CreateGame(scripted_request(), SPECTATOR), "TESTING_FEATURE_DISABLED")
    plain = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"])
    created = await strict.CreateGame(plain, SPECTATOR)
    assert created.view.status == game_pb2.GAME_STATUS_IN_PROGRESS


async def test_api_key_guards_creation_only() -> None:
    keyed = Referee(MemoryStore(), api_key="k3y")
    plain = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"])
    await refused(keyed.CreateGame(plain, SPECTATOR), "API_KEY_REQUIRED")
    await refused(keyed.CreateGame(plain, Caller(api_key="wrong")), "API_KEY_REQUIRED")
    created = await keyed.CreateGame(plain, Caller(api_key="k3y"))
    assert (await get(keyed, created.game)).version == 1
    await keyed.ListPresets(service_pb2.ListPresetsRequest(), SPECTATOR)


async def test_get_as_seat_spectator_and_bad_token(referee: Referee) -> None:
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    t0, t1 = created.player_tokens
    v0 = await get(referee, created.game, seat(t0))
    v1 = await get(referee, created.game, seat(t1))
    spectator = await get(referee, created.game)
    assert v0.viewer_seat == 0 and list(v0.hand) == sorted(SEAT0_HAND)
    assert v1.viewer_seat == 1 and list(v1.hand) == sorted(SEAT1_HAND)
    assert not spectator.hand and not spectator.HasField("viewer_seat")
    assert list(spectator.field) == sorted(FIELD)
    assert [s.hand_size for s in spectator.seats] == [8, 8]
    assert [s.name for s in spectator.seats] == ["Ann", "Bob"]
    assert v0.turn == 0 and len(v0.legal_moves) == 8 and not v1.legal_moves
    assert v0.waiting.kind == game_pb2.WAITING_FOR_HAND_PLAY
    assert v0.rules.koi_koi.rounds == 1 and v0.rules.preset == "fudawiki"
    await refused(get(referee, created.game, seat("not-a-token")), "BAD_TOKEN")
    await refused(get(referee, "NoSuchGame123"), "UNKNOWN_GAME")
    await refused(get(referee, "bad id {}"), "INVALID_ARGUMENT")


# --- a whole game ---------------------------------------------------------------------------


async def test_scripted_game_is_refereed_to_the_end(referee: Referee) -> None:
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    game = created.game
    t0, t1 = created.player_tokens

    first = await submit(referee, game, t0, move(PLAY, 1))  # the crane takes the pine plain
    assert first.version == 2 and first.view.version == 2
    assert kinds(first.events) == ["card_played", "card_drawn"]
    played, drawn = first.events
    assert played.actor == 0 and played.card_played.card == 1
    assert list(played.card_played.captured) == [3]
    assert not drawn.HasField("actor") and drawn.card_drawn.card == 6
    assert not drawn.card_drawn.captured  # the plum ribbon joins the field
    assert [e.version for e in first.events] == [2, 2]
    assert first.events[1].sequence == first.events[0].sequence + 1
    assert first.view.turn == 1 and not first.view.legal_moves

    second = await submit(referee, game, t1, move(PLAY, 37))
    assert list(second.events[0].card_played.captured) == [39]
    assert list(second.events[1].card_drawn.captured) == [6]
    await submit(referee, game, t0, move(PLAY, 9))
    await submit(referee, game, t1, move(PLAY, 45))
    fifth = await submit(referee, game, t0, move(PLAY, 29))
    assert kinds(fifth.events) == ["card_played", "card_drawn", "yaku_formed"]
    formed = fifth.events[2].yaku_formed
    assert formed.seat == 0 and formed.points == 5 and not formed.improved
    assert [(y.id, list(y.cards), y.points) for y in formed.yaku] == [("sanko", [1, 9, 29], 5)]
    assert fifth.view.waiting.kind == game_pb2.WAITING_FOR_KOIKOI_DECISION
    assert [m.kind for m in fifth.view.legal_moves] == [KOIKOI, STOP]
    assert list(fifth.view.seats[0].captured) == [1, 3, 9, 11, 29, 31]
    assert fifth.view.seats[0].yaku_points == 5

    # The decision is pending: a card or a decision carrying a card are refused.
    await refused(submit(referee, game, t0, move(PLAY, 7)), "WRONG_MOVE")
    await refused(submit(referee, game, t0, move(KOIKOI, 7)), "MALFORMED_MOVE")
    await refused(submit(referee, game, t1, move(STOP)), "NOT_YOUR_TURN")

    last = await submit(referee, game, t0, move(STOP))
    assert kinds(last.events) == ["stopped", "round_ended", "game_ended"]
    assert last.events[0].actor == 0 and not last.events[0].stopped.automatic
    result = last.events[1].round_ended.result
    assert result.winner == 0 and result.end == game_pb2.ROUND_END_STOP
    assert result.score.base == 5 and result.score.points == 5 and not result.score.multipliers
    ended = last.events[2].game_ended.result
    assert list(ended.scores) == [5, 0] and ended.winner == 0 and not ended.draw
    assert ended.end == game_pb2.GAME_END_ROUNDS_PLAYED
    view = last.view
    assert view.status == game_pb2.GAME_STATUS_OVER and not view.HasField("turn")
    assert view.waiting.kind == game_pb2.WAITING_FOR_NOTHING and not view.legal_moves
    assert [s.score for s in view.seats] == [5, 0]
    assert view.game_result.winner == 0 and view.rounds_finished == 1
    assert view.last_result == result
    await refused(submit(referee, game, t1, move(PLAY, 45)), "GAME_OVER")

    log = await referee.GetGameLog(service_pb2.GetGameLogRequest(game=game), SPECTATOR)
    assert kinds(log.events)[:2] == ["game_created", "round_dealt"]
    assert [e.sequence for e in log.events] == list(range(len(log.events)))
    assert log.events[0].game_created.players == ["Ann", "Bob"]
    assert log.HasField("seed")
    assert len(log.deals) == 1 and log.deals[0].deal == scripted_deal()
    assert log.deals[0].round == 1 and log.deals[0].dealer == 0


async def test_random_games_match_the_engine(referee: Referee) -> None:
    """Whole seeded games with random legal moves: every response agrees with the engine run
    on the same moves."""
    from hanafuda_referee.koikoi.game import apply, new_game
    from hanafuda_referee.koikoi.rules import KoiKoiRules
    from hanafuda_referee.moves import Move, MoveKind

    rng = random.Random(11)
    for seed in (1, 2, 3):
        created = await referee.CreateGame(seeded_request(seed, rounds=2), SPECTATOR)
        state, _ = new_game(KoiKoiRules.from_preset("fudawiki", {"rounds": 2}), seed)
        tokens = created.player_tokens
        view = created.view
        while view.status != game_pb2.GAME_STATUS_OVER:
            actor = view.turn
            own = await get(referee, created.game, seat(tokens[actor]))
            chosen = rng.choice(list(own.legal_moves))
            answer = await submit(referee, created.game, tokens[actor], chosen)
            state, _ = apply(state, actor, Move(MoveKind(chosen.kind), chosen.card, chosen.target))
            view = answer.view
            assert [s.score for s in view.seats] == list(state.scores)
            assert [s.hand_size for s in view.seats] == [h.bit_count() for h in state.hands]
            assert view.stock_size == state.stock_size
        assert list(view.game_result.scores) == list(state.scores)


# --- versions, retries, refusals -------------------------------------------------------------


async def test_stale_version_is_refused_and_says_the_current_one(referee: Referee) -> None:
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    t0, t1 = created.player_tokens
    await submit(referee, created.game, t0, move(PLAY, 1), expected_version=1)
    error = await refused(
        submit(referee, created.game, t1, move(PLAY, 37), expected_version=1), "STALE_VERSION"
    )
    assert error.metadata == {"current_version": "2"}
    answer = await submit(referee, created.game, t1, move(PLAY, 37), expected_version=2)
    assert answer.version == 3


async def test_a_retry_returns_the_first_answer_and_changes_nothing(referee: Referee) -> None:
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    t0, t1 = created.player_tokens
    first = await submit(referee, created.game, t0, move(PLAY, 1), request_id="r-1")
    again = await submit(referee, created.game, t0, move(PLAY, 1), request_id="r-1")
    assert again == first
    # Even through another replica whose cache never saw the game, and with a stale version.
    replica = Referee(referee.store)
    third = await replica.SubmitMove(
        service_pb2.SubmitMoveRequest(
            game=created.game, move=move(PLAY, 1), request_id="r-1", expected_version=1
        ),
        seat(t0),
    )
    assert third == first
    assert (await get(referee, created.game)).version == 2
    # Request ids are per seat: seat 1 may use the same id for its own move.
    other = await submit(referee, created.game, t1, move(PLAY, 37), request_id="r-1")
    assert other.version == 3


async def test_a_request_id_reused_for_another_move_is_refused(referee: Referee) -> None:
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    t0, t1 = created.player_tokens
    first = await submit(referee, created.game, t0, move(PLAY, 1), request_id="r-1")
    second = await submit(referee, created.game, t1, move(PLAY, 37), request_id="r-2")
    assert second.version == 3
    record = await referee.store.load(created.game)
    log = await referee.store.events(created.game, -1, 100)
    # Another card, or the same card with a target: not the move the id answered.
    for other in (move(PLAY, 9), move(PLAY, 1, 11)):
        error = await refused(
            submit(referee, created.game, t0, other, request_id="r-1"), "REQUEST_ID_REUSED"
        )
        assert "r-1" in error.message
    # The same through a replica that never saw the game, and with a stale expected version.
    replica = Referee(referee.store)
    await refused(
        replica.SubmitMove(
            service_pb2.SubmitMoveRequest(
                game=created.game, move=move(PLAY, 9), request_id="r-1", expected_version=1
            ),
            seat(t0),
        ),
        "REQUEST_ID_REUSED",
    )
    assert await referee.store.load(created.game) == record
    assert await referee.store.events(created.game, -1, 100) == log
    # The same id with the same move still gets the first answer, on either referee.
    assert await submit(referee, created.game, t0, move(PLAY, 1), request_id="r-1") == first
    assert await submit(replica, created.game, t0, move(PLAY, 1), request_id="r-1") == first


async def test_a_refused_move_changes_nothing(referee: Referee) -> None:
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    t0, t1 = created.player_tokens
    before = await referee.store.load(created.game)
    log_before = await referee.store.events(created.game, -1, 100)
    await refused(submit(referee, created.game, t0, move(PLAY, 2)), "CARD_NOT_IN_HAND")
    await refused(submit(referee, created.game, t1, move(PLAY, 37)), "NOT_YOUR_TURN")
    await refused(
        submit(referee, created.game, t1, move(PLAY, 37), request_id="x"), "NOT_YOUR_TURN"
    )
    assert await referee.store.load(created.game) == before
    assert await referee.store.events(created.game, -1, 100) == log_before


async def test_every_reason_is_reachable(referee: Referee) -> None:
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    game, (t0, t1) = created.game, created.player_tokens
    sub = service_pb2.SubmitMoveRequest
    await refused(submit(referee, game, t1, move(PLAY, 37)), "NOT_YOUR_TURN")
    await refused(submit(referee, game, t0, move(PLAY, 37)), "CARD_NOT_IN_HAND")
    await refused(submit(referee, game, t0, move(KOIKOI)), "NO_DECISION_PENDING")
    await refused(submit(referee, game, t0, move(moves_pb2.MOVE_KIND_SAGE)), "MOVE_NOT_IN_GAME")
    await refused(submit(referee, game, t0, move(PLAY, 1, 11)), "TARGET_DOES_NOT_MATCH")
    await refused(submit(referee, game, t0, move(0)), "INVALID_ARGUMENT")
    await refused(
        referee.SubmitMove(sub(game=game, move=move(PLAY, 1), seat=1), seat(t0)),
        "PERMISSION_DENIED",
    )
    await refused(
        referee.SubmitMove(sub(game=game, move=move(PLAY, 1), seat=5), seat(t0)), "UNKNOWN_SEAT"
    )
    await refused(
        referee.SubmitMove(sub(game=game, move=move(PLAY, 1)), SPECTATOR), "MISSING_TOKEN"
    )
    await refused(submit(referee, game, "forged", move(PLAY, 1)), "BAD_TOKEN")
    await refused(submit(referee, "NoSuchGame123", t0, move(PLAY, 1)), "UNKNOWN_GAME")
    await refused(submit(referee, game, t0, move(PLAY, 1), request_id="x" * 65), "INVALID_ARGUMENT")
    played = await referee.CreateGame(scripted_request(), SPECTATOR)
    await submit(referee, played.game, played.player_tokens[0], move(PLAY, 1), request_id="once")
    await refused(
        submit(referee, played.game, played.player_tokens[0], move(PLAY, 9), request_id="once"),
        "REQUEST_ID_REUSED",
    )

    def create(**fields: Any) -> Awaitable[service_pb2.CreateGameResponse]:
        request = scripted_request()
        for name, value in fields.items():
            if name == "koi_koi":
                request.koi_koi.MergeFrom(value)
            else:
                setattr(request, name, value)
        return referee.CreateGame(request, SPECTATOR)

    await refused(create(preset="no-such-preset"), "UNKNOWN_PRESET")
    error = await refused(
        create(koi_koi=rules_pb2.KoiKoiRules(yaku=[rules_pb2.YakuRule(id="goku")])),
        "UNKNOWN_OPTION",
    )
    assert error.metadata["option"] == "yaku.goku"
    twice = [rules_pb2.YakuRule(id="goko", points=15), rules_pb2.YakuRule(id="goko", points=1)]
    error = await refused(create(koi_koi=rules_pb2.KoiKoiRules(yaku=twice)), "BAD_OPTION_VALUE")
    assert error.metadata["option"] == "yaku.goko"
    error = await refused(create(koi_koi=rules_pb2.KoiKoiRules(rounds=0)), "BAD_OPTION_VALUE")
    assert error.metadata["option"] == "rounds"
    hachi_hachi = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_HACHI_HACHI,
        players=["a", "b", "c"],
        hachi_hachi=rules_pb2.HachiHachiRules(rounds=121),
    )
    error = await refused(referee.CreateGame(hachi_hachi, SPECTATOR), "BAD_OPTION_VALUE")
    assert error.metadata["option"] == "rounds"
    await refused(create(koi_koi=rules_pb2.KoiKoiRules(exhaustion=99)), "BAD_OPTION_VALUE")  # type: ignore[arg-type]
    # Values the proto field takes but a score could not be shown with (once an INTERNAL).
    huge = rules_pb2.KoiKoiRules(starting_points=2**31)
    error = await refused(create(koi_koi=huge), "BAD_OPTION_VALUE")
    assert error.metadata["option"] == "starting_points"
    huge = rules_pb2.KoiKoiRules(yaku=[rules_pb2.YakuRule(id="goko", points=2**32 - 1)])
    error = await refused(create(koi_koi=huge), "BAD_OPTION_VALUE")
    assert error.metadata["option"] == "yaku.goko.points"
    score = service_pb2.ScoreKoiKoiRequest(overrides=huge, round_month=1)
    await refused(referee.ScoreKoiKoi(score, SPECTATOR), "BAD_OPTION_VALUE")
    await refused(create(first_dealer=7), "UNKNOWN_SEAT")
    short = scripted_request()
    del short.prepared_deals[0].stock[-1]
    await refused(referee.CreateGame(short, SPECTATOR), "BAD_DEAL")
    many = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a"] * 7)
    await refused(referee.CreateGame(many, SPECTATOR), "REQUEST_TOO_LARGE")
    three = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a"] * 3)
    await refused(referee.CreateGame(three, SPECTATOR), "INVALID_ARGUMENT")
    await refused(
        referee.CreateGame(service_pb2.CreateGameRequest(players=["a", "b"]), SPECTATOR),
        "INVALID_ARGUMENT",
    )
    hachi = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_HACHI_HACHI, players=["a", "b"])
    error = await refused(referee.CreateGame(hachi, SPECTATOR), "INVALID_ARGUMENT")
    assert "3 to 6 players" in error.message


async def test_target_choices_are_refereed(referee: Referee) -> None:
    """Random seeded games until a hand card meets two field cards: the play needs a target."""
    rng = random.Random(5)
    for seed in range(40):
        created = await referee.CreateGame(seeded_request(seed, rounds=1), SPECTATOR)
        view = created.view
        while view.status != game_pb2.GAME_STATUS_OVER:
            token = created.player_tokens[view.turn]
            own = await get(referee, created.game, seat(token))
            by_card: dict[int, list[int]] = {}
            for m in own.legal_moves:
                if m.kind == PLAY:
                    by_card.setdefault(m.card, []).append(m.target)
            doubles = [c for c, targets in by_card.items() if len(targets) == 2]
            if doubles:
                card = doubles[0]
                await refused(
                    submit(referee, created.game, token, move(PLAY, card)), "TARGET_REQUIRED"
                )
                wrong = next(c for c in range(1, 49) if c not in by_card[card])
                await refused(
                    submit(referee, created.game, token, move(PLAY, card, wrong)),
                    "TARGET_DOES_NOT_MATCH",
                )
                answer = await submit(
                    referee, created.game, token, move(PLAY, card, by_card[card][1])
                )
                assert by_card[card][1] in answer.events[0].card_played.captured
                return
            view = (
                await submit(referee, created.game, token, rng.choice(list(own.legal_moves)))
            ).view
    pytest.fail("no target choice in 40 games")


async def test_replicas_revalidate_against_the_current_state() -> None:
    """Two referees on one store, each with its own cache: a move judged on a stale cache is
    re-validated against the state the store returns, in the same call."""
    store = MemoryStore()
    a, b = Referee(store, allow_testing=True), Referee(store, allow_testing=True)
    created = await a.CreateGame(scripted_request(), SPECTATOR)
    t0, t1 = created.player_tokens
    await get(b, created.game)  # b caches version 1
    await submit(a, created.game, t0, move(PLAY, 1))
    # b still believes seat 0 is to play; seat 1's move is right on the current state.
    answer = await submit(b, created.game, t1, move(PLAY, 37))
    assert answer.version == 3
    # And a refusal judged on a stale cache is confirmed against the store before it is final.
    await refused(submit(a, created.game, t1, move(PLAY, 45)), "NOT_YOUR_TURN")
    answer = await submit(a, created.game, t0, move(PLAY, 9))
    assert answer.version == 4


async def test_store_unavailable_is_reported_fast() -> None:
    store = open_store(
        "redis://127.0.0.1:1/0",
        StoreSettings(connect_timeout=0.2, socket_timeout=0.2, operation_timeout=0.5),
    )
    down = Referee(store, allow_testing=True)
    await refused(down.CreateGame(scripted_request(), SPECTATOR), "UNAVAILABLE")
    await refused(get(down, "SomeGame"), "UNAVAILABLE")
    assert not await down.ready()
    await store.close()


# --- watching and logs ---------------------------------------------------------------------------


async def test_watch_follows_and_resumes(referee: Referee) -> None:
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    game, (t0, t1) = created.game, created.player_tokens
    for token, card in ((t0, 1), (t1, 37), (t0, 9)):
        await submit(referee, game, token, move(PLAY, card))
    # Resume from version 2 as seat 1: versions 3 and 4, each with its view, then live.
    stream = referee.WatchGame(service_pb2.WatchGameRequest(game=game, from_version=2), seat(t1))
    items = [await anext(stream), await anext(stream)]
    assert [i.version for i in items] == [3, 4]
    assert items[1].view == await get(referee, game, seat(t1))
    assert all(e.version == i.version for i in items for e in i.events)
    await submit(referee, game, t1, move(PLAY, 45))
    live = await anext(stream)
    assert live.version == 5 and kinds(live.events)[0] == "card_played"
    await stream.aclose()

    # A spectator without a resume point starts from the current view, and the stream ends
    # with the game.
    spectator = referee.WatchGame(service_pb2.WatchGameRequest(game=game), SPECTATOR)
    now = await anext(spectator)
    assert now.version == 5 and not now.events and not now.view.hand
    await submit(referee, game, t0, move(PLAY, 29))
    await submit(referee, game, t0, move(STOP))
    rest = [item async for item in spectator]
    assert [i.version for i in rest] == [6, 7]
    assert rest[-1].view.status == game_pb2.GAME_STATUS_OVER
    # From version 0: the creation itself comes first.
    everything = [
        i
        async for i in referee.WatchGame(
            service_pb2.WatchGameRequest(game=game, from_version=0), SPECTATOR
        )
    ]
    assert [i.version for i in everything] == list(range(1, 8))
    assert kinds(everything[0].events)[0] == "game_created"
    with pytest.raises(ApiError):
        await anext(
            referee.WatchGame(service_pb2.WatchGameRequest(game=game, from_version=99), SPECTATOR)
        )


async def test_watchers_of_a_game_share_each_step_and_never_another_seats(
    referee: Referee,
) -> None:
    """A commit wakes all of a game's watchers at once: in a process they build each version's
    item once per seat (and once for the spectators), and a seat's item never reaches another."""
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    game, (t0, t1) = created.game, created.player_tokens
    elsewhere = Referee(referee.store, allow_testing=True)  # another process, as it were

    def watch(on: Referee, caller: Caller, **fields: Any) -> Any:
        return on.WatchGame(service_pb2.WatchGameRequest(game=game, **fields), caller)

    streams = {
        "spectator": watch(referee, SPECTATOR),
        "another spectator": watch(referee, SPECTATOR),
        "replaying spectator": watch(referee, SPECTATOR, from_version=0),
        "seat 0": watch(referee, seat(t0)),
        "seat 1": watch(referee, seat(t1)),
        "spectator elsewhere": watch(elsewhere, SPECTATOR),
        "seat 0 elsewhere": watch(elsewhere, seat(t0)),
    }
    for stream in streams.values():
        assert (await anext(stream)).version == 1
    for token, card in ((t0, 1), (t1, 37)):
        await submit(referee, game, token, move(PLAY, card))
        items = {name: await anext(stream) for name, stream in streams.items()}
        assert items["spectator"] is items["another spectator"] is items["replaying spectator"]
        assert items["spectator"] == items["spectator elsewhere"]
        assert items["seat 0"] == items["seat 0 elsewhere"]
        assert items["seat 0"] is not items["seat 1"]
        hands = [set(items[name].view.hand) for name in ("seat 0", "seat 1")]
        assert all(hands) and not hands[0] & hands[1]
        assert not items["spectator"].view.hand
    for stream in streams.values():
        await stream.aclose()


async def test_watchers_are_limited_per_process_and_give_their_slots_back() -> None:
    limited = Referee(MemoryStore(), allow_testing=True, max_watchers=2)
    created = await limited.CreateGame(scripted_request(), SPECTATOR)
    game, (t0, t1) = created.game, created.player_tokens

    def watch(caller: Caller = SPECTATOR, name: str = game) -> Any:
        return limited.WatchGame(service_pb2.WatchGameRequest(game=name), caller)

    first, second = watch(), watch()
    assert (await anext(first)).version == (await anext(second)).version == 1
    assert limited.watchers.open == 2
    error = await refused(anext(watch()), "UNAVAILABLE")
    assert error.metadata == {"limit": "max_watchers"}
    # A refused stream holds nothing, whatever refused it.
    await refused(anext(watch()), "UNAVAILABLE")
    assert limited.watchers.open == 2
    # Spectators never lock a seat out of its own game.
    own = watch(seat(t0))
    assert (await anext(own)).view.viewer_seat == 0
    assert (limited.watchers.open, limited.watchers.spectators) == (3, 2)

    await first.aclose()
    assert limited.watchers.open == 2
    for _ in range(3):
        await refused(anext(watch(name="NoSuchGame")), "UNKNOWN_GAME")
    assert limited.watchers.open == 2
    third = watch(seat(t1))
    assert (await anext(third)).view.viewer_seat == 1
    await second.aclose()
    await own.aclose()
    # A stream that ends with its game gives its slot back too.
    for token, card in ((t0, 1), (t1, 37), (t0, 9), (t1, 45), (t0, 29)):
        await submit(limited, game, token, move(PLAY, card))
    await submit(limited, game, t0, move(STOP))
    assert [item.version async for item in third] == list(range(2, 8))
    assert limited.watchers.open == 0

    unlimited = Referee(limited.store, allow_testing=True)
    streams = [
        unlimited.WatchGame(service_pb2.WatchGameRequest(game=game), SPECTATOR) for _ in range(50)
    ]
    for stream in streams:
        assert (await anext(stream)).version == 7
    assert unlimited.watchers.open == 50
    for stream in streams:
        await stream.aclose()
    with pytest.raises(ValueError, match="negative"):
        Referee(limited.store, max_watchers=-1)


async def test_spectators_are_limited_per_game_and_per_client_and_seats_per_seat() -> None:
    referee = Referee(
        MemoryStore(),
        allow_testing=True,
        watchers_per_game=2,
        watchers_per_client=3,
        watchers_per_seat=1,
    )
    games = [await referee.CreateGame(scripted_request(), SPECTATOR) for _ in range(3)]
    a, b, c = (Caller(address=f"192.0.2.{n}") for n in (1, 2, 3))

    def watch(caller: Caller, game: int) -> Any:
        request = service_pb2.WatchGameRequest(game=games[game].game)
        return referee.WatchGame(request, caller)

    streams = [watch(a, 0), watch(b, 0)]
    for stream in streams:
        await anext(stream)
    error = await refused(anext(watch(c, 0)), "UNAVAILABLE")
    assert error.metadata == {"limit": "watchers_per_game"}
    streams += [watch(a, 1), watch(a, 2)]
    for stream in streams[2:]:
        await anext(stream)
    error = await refused(anext(watch(a, 2)), "UNAVAILABLE")
    assert error.metadata == {"limit": "watchers_per_client"}
    # A seat is neither a spectator of its game nor counted with its address's streams.
    token = games[0].player_tokens[0]
    mine = referee.WatchGame(
        service_pb2.WatchGameRequest(game=games[0].game),
        Caller(token=token, address="192.0.2.1"),
    )
    assert (await anext(mine)).view.viewer_seat == 0
    error = await refused(
        anext(
            referee.WatchGame(
                service_pb2.WatchGameRequest(game=games[0].game),
                Caller(token=token, address="192.0.2.9"),
            )
        ),
        "UNAVAILABLE",
    )
    assert error.metadata == {"limit": "watchers_per_seat"}
    assert (referee.watchers.open, referee.watchers.spectators) == (5, 4)
    for stream in [*streams, mine]:
        await stream.aclose()
    assert (referee.watchers.open, referee.watchers.spectators) == (0, 0)
    # Closed streams give their places back, per game and per client too.
    again = watch(c, 0)
    await anext(again)
    await again.aclose()


async def test_log_hides_the_deals_until_the_end(referee: Referee) -> None:
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    t1 = created.player_tokens[1]
    request = service_pb2.GetGameLogRequest(game=created.game)
    log = await referee.GetGameLog(request, seat(t1))
    assert not log.HasField("seed") and not log.deals
    dealt = log.events[1].round_dealt
    assert list(dealt.hand) == sorted(SEAT1_HAND) and dealt.stock_size == 24
    spectator_log = await referee.GetGameLog(request, SPECTATOR)
    assert not spectator_log.events[1].round_dealt.hand


# --- hidden information ---------------------------------------------------------------------

_CARD = "hanafuda.v1.Card"


def cards_in(message: Message, skip: tuple[str, ...] = ()) -> set[int]:
    """Every card a message mentions, recursively (fields named in ``skip`` left out)."""
    found: set[int] = set()
    for field, value in message.ListFields():
        if field.name in skip:
            continue
        values = value if field.is_repeated else [value]
        for item in values:
            if field.message_type is not None:
                found |= cards_in(item, skip)
            elif field.enum_type is not None and field.enum_type.full_name == _CARD:
                found.add(int(item))
    return found


def current_round(events: Any) -> list[events_pb2.Event]:
    """The events from the last deal on: earlier ones are of a previous deal, whose cards may
    be in anyone's hand now."""
    listed: list[events_pb2.Event] = list(events)
    dealt = [i for i, e in enumerate(listed) if e.WhichOneof("kind") == "round_dealt"]
    return listed[dealt[-1] :] if dealt else listed


async def test_no_seat_ever_sees_the_other_hand(referee: Referee) -> None:
    rng = random.Random(2026)
    for game_number in range(6):
        created = await referee.CreateGame(seeded_request(100 + game_number, 2), SPECTATOR)
        game, tokens = created.game, created.player_tokens
        view = created.view
        while view.status != game_pb2.GAME_STATUS_OVER:
            actor = view.turn
            other = 1 - actor
            own = await get(referee, game, seat(tokens[actor]))
            hidden_before = set((await get(referee, game, seat(tokens[other]))).hand)
            # A card of the other hand and a card of the stock are refused alike.
            stock = set(range(1, 49)) - hidden_before - set(own.hand) - set(own.field)
            stock -= {c for s in own.seats for c in s.captured}
            if own.waiting.kind == game_pb2.WAITING_FOR_HAND_PLAY and hidden_before and stock:
                probe = sorted(hidden_before)[0]
                a = await refused(
                    submit(referee, game, tokens[actor], move(PLAY, probe)), "CARD_NOT_IN_HAND"
                )
                b_card = sorted(stock)[0]
                b = await refused(
                    submit(referee, game, tokens[actor], move(PLAY, b_card)), "CARD_NOT_IN_HAND"
                )
                from hanafuda_referee.cards import Card

                assert a.message.replace(Card(probe).code, "?") == b.message.replace(
                    Card(b_card).code, "?"
                )
            answer = await submit(referee, game, tokens[actor], rng.choice(list(own.legal_moves)))
            view = answer.view
            hidden = set((await get(referee, game, seat(tokens[other]))).hand)
            seen = cards_in(answer.view, skip=("last_result", "rules"))
            for event in current_round(answer.events):
                seen |= cards_in(event)
            assert seen and not hidden & seen, (game_number, hidden & seen)
            spectator = await get(referee, game)
            assert not spectator.hand
            assert not set((await get(referee, game, seat(tokens[actor]))).hand) & cards_in(
                spectator, skip=("last_result", "rules")
            )
            if view.status != game_pb2.GAME_STATUS_OVER:
                log = await referee.GetGameLog(
                    service_pb2.GetGameLogRequest(game=game), seat(tokens[actor])
                )
                log_seen: set[int] = set()
                for event in current_round(log.events):
                    log_seen |= cards_in(event)
                assert not hidden & log_seen
                assert not log.deals and not log.HasField("seed")


class CountingStore(MemoryStore):
    """A memory store that counts the calls made to it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    async def load(self, game_id: str) -> Any:
        self.calls.append("load")
        return await super().load(game_id)

    async def commit(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append("commit")
        return await super().commit(*args, **kwargs)


async def test_a_move_takes_one_store_round_trip() -> None:
    store = CountingStore()
    referee = Referee(store, allow_testing=True)
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    t0, t1 = created.player_tokens
    store.calls.clear()
    await submit(referee, created.game, t0, move(PLAY, 1), request_id="a")
    await submit(referee, created.game, t1, move(PLAY, 37), expected_version=2)
    assert store.calls == ["commit", "commit"]


async def test_a_full_in_process_store_refuses_new_games_as_store_full() -> None:
    referee = Referee(MemoryStore(StoreSettings(max_games=1)), allow_testing=True)
    created = await referee.CreateGame(scripted_request(), SPECTATOR)
    error = await refused(referee.CreateGame(scripted_request(), SPECTATOR), "STORE_FULL")
    assert error.http_status == 503
    # The game it holds plays on.
    view = (await referee.GetGame(service_pb2.GetGameRequest(game=created.game), SPECTATOR)).view
    assert view.version == 1
