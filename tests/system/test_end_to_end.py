"""Whole games through a real service process, on prepared deals, over each transport.

Each game is scripted move by move with the rulings worked out by hand from RULES.md: every
move's events (captures, draws, yaku and dekiyaku, payments, round and game ends) are checked,
and the same script played over HTTP and over gRPC must give the same answers and views, as
messages, after every move (game ids and event times aside).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

import pytest
from google.protobuf.message import Message
from hanafuda.v1 import events_pb2, game_pb2, moves_pb2, rules_pb2, scoring_pb2, service_pb2

from tests.service.conftest import cards, scripted_deal

from .clients import TRANSPORTS, Client, collect, open_client
from .playing import KOIKOI, PLAY, SHOBU, STOP, move
from .processes import RefereeProcess


def summary(event: events_pb2.Event) -> tuple[object, ...]:
    """An event as a short tuple of what it rules (times and sequences left out)."""
    kind = event.WhichOneof("kind")
    actor = event.actor if event.HasField("actor") else None
    match kind:
        case "card_played":
            e = event.card_played
            return ("played", actor, e.card, sorted(e.captured))
        case "card_drawn":
            return ("drawn", event.card_drawn.card, sorted(event.card_drawn.captured))
        case "yaku_formed":
            y = event.yaku_formed
            return ("yaku", y.seat, y.points, [(s.id, s.points) for s in y.yaku], y.improved)
        case "koikoi_called":
            return ("koikoi", event.koikoi_called.seat, event.koikoi_called.calls)
        case "stopped":
            return ("stopped", event.stopped.seat, event.stopped.automatic)
        case "round_dealt":
            d = event.round_dealt
            return ("dealt", d.round, d.month, d.dealer, d.stock_size, d.field_multiplier)
        case "deal_check_fired":
            c = event.deal_check_fired
            return ("deal check", c.check, c.outcome, c.seat, sorted(c.cards))
        case "round_ended":
            r = event.round_ended.result
            return ("round ended", r.round, r.end, r.winner if r.HasField("winner") else None)
        case "game_ended":
            g = event.game_ended.result
            winner = g.winner if g.HasField("winner") else None
            return ("game ended", g.end, list(g.scores), list(g.balances_halves), winner, g.draw)
        case "teyaku_declared":
            t = event.teyaku_declared
            return ("teyaku", t.seat, t.teyaku.id, t.teyaku.value, sorted(t.teyaku.cards))
        case "dekiyaku_formed":
            formed = event.dekiyaku_formed
            made = [(k.id, k.value, sorted(k.cards)) for k in formed.dekiyaku]
            return ("dekiyaku", formed.seat, made)
        case "payment_made":
            p = event.payment_made.payment
            return ("paid", p.from_seat, p.to_seat, p.amount_halves, p.cause, p.combination)
        case "shobu_called":
            return ("shobu", event.shobu_called.seat)
        case "target_required":
            required = event.target_required
            return ("target required", required.seat, required.card, sorted(required.targets))
        case "target_chosen":
            chosen = event.target_chosen
            return ("target chosen", chosen.card, sorted(chosen.captured))
        case _:
            return (str(kind),)


@dataclass(frozen=True)
class Step:
    """One scripted move and the events it must cause, as :func:`summary` writes them."""

    seat: int
    move: moves_pb2.Move
    events: Sequence[tuple[object, ...]]
    #: What the game waits for afterwards.
    waiting: int


@dataclass
class Transcript:
    """Everything one run of a script received, with the game id and event times blanked so
    that two runs (two games) compare as messages."""

    answers: list[service_pb2.SubmitMoveResponse] = field(default_factory=list)
    views: list[list[game_pb2.GameView]] = field(default_factory=list)
    log: service_pb2.GetGameLogResponse | None = None


def blank(message: Message) -> Message:
    """A copy without the game id and the event times (all that differs between two games)."""
    copy = type(message)()
    copy.CopyFrom(message)
    _blank(copy)
    return copy


def _blank(message: Message) -> None:
    for descriptor, value in message.ListFields():
        if descriptor.name == "game" and descriptor.type == descriptor.TYPE_STRING:
            message.ClearField("game")
        elif descriptor.name == "time" and descriptor.message_type is not None:
            message.ClearField("time")
        elif descriptor.message_type is not None:
            for item in value if descriptor.is_repeated else [value]:
                if not isinstance(item, Message):
                    break  # a map of scalars
                _blank(item)


async def play_script(
    client: Client, request: service_pb2.CreateGameRequest, script: Sequence[Step]
) -> Transcript:
    """Plays ``script``, checking each move's events and the waiting state; returns what every
    seat and a spectator saw after every move."""
    created = await client.create(request)
    game, tokens = created.game, list(created.player_tokens)
    viewers: list[str | None] = [*tokens, None]
    watch = asyncio.ensure_future(collect(client.watch(game, None, 0)))
    transcript = Transcript()
    try:
        for number, step in enumerate(script, start=1):
            answer = await client.submit(game, step.move, tokens[step.seat])
            got = [summary(e) for e in answer.events]
            assert got == list(step.events), f"move {number}: {got}"
            assert answer.version == number + 1 == answer.view.version
            assert answer.view.waiting.kind == step.waiting, f"move {number}"
            views = [await client.view(game, token) for token in viewers]
            assert views[step.seat] == answer.view
            transcript.answers.append(answer)
            transcript.views.append(views)
        items = await watch
    finally:
        watch.cancel()
    # The spectator's stream went through the same versions and views as its reads.
    assert [i.version for i in items] == list(range(1, len(script) + 2))
    assert [i.view for i in items[1:]] == [views[-1] for views in transcript.views]
    transcript.log = await client.log(game)
    return transcript


async def play_everywhere(
    process: RefereeProcess, request: service_pb2.CreateGameRequest, script: Sequence[Step]
) -> Transcript:
    """The script over each transport; both must have received the very same messages."""
    transcripts = []
    for transport in TRANSPORTS:
        async with open_client(transport, process) as client:
            transcripts.append(await play_script(client, request, script))
    http, grpc = transcripts
    for number, (a, b) in enumerate(zip(http.answers, grpc.answers, strict=True), start=1):
        assert blank(a) == blank(b), f"answer to move {number}"
    for number, (http_views, grpc_views) in enumerate(zip(http.views, grpc.views, strict=True)):
        for seen_http, seen_grpc in zip(http_views, grpc_views, strict=True):
            assert blank(seen_http) == blank(seen_grpc), f"views after move {number + 1}"
    assert http.log is not None and grpc.log is not None
    assert blank(http.log) == blank(grpc.log)
    return http


# --- Koi-Koi ----------------------------------------------------------------------------------

#: Round 2's deal (seat 1 deals, having won round 1): seat 0 holds the four pines (teshi).
ROUND2_SEAT0 = (1, 2, 3, 4, 5, 9, 13, 17)
ROUND2_SEAT1 = (6, 10, 14, 18, 21, 25, 29, 33)
ROUND2_FIELD = (7, 11, 15, 19, 22, 26, 30, 34)
ROUND2_STOCK = (8, 12, 16, 20, 23, 24, 27, 28, 31, 32, 35, 36, *range(37, 49))

HAND, DECISION, NOTHING = (
    game_pb2.WAITING_FOR_HAND_PLAY,
    game_pb2.WAITING_FOR_KOIKOI_DECISION,
    game_pb2.WAITING_FOR_NOTHING,
)


def koikoi_request() -> service_pb2.CreateGameRequest:
    """Two fudawiki rounds: the service tests' scripted deal, then a teshi deal."""
    second = game_pb2.Deal(
        hands=[game_pb2.Hand(cards=cards(ROUND2_SEAT0)), game_pb2.Hand(cards=cards(ROUND2_SEAT1))],
        field=cards(ROUND2_FIELD),
        stock=cards(ROUND2_STOCK),
    )
    return service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI,
        players=["Ann", "Bob"],
        first_dealer=0,
        seed=2026,
        koi_koi=rules_pb2.KoiKoiRules(rounds=2),
        prepared_deals=[scripted_deal(), second],
    )


KOIKOI_SCRIPT = (
    # The crane takes the pine plain; the plum ribbon drawn joins the field.
    Step(0, move(PLAY, 1), [("played", 0, 1, [3]), ("drawn", 6, [])], HAND),
    Step(1, move(PLAY, 37), [("played", 1, 37, [39]), ("drawn", 8, [6])], HAND),
    Step(0, move(PLAY, 9), [("played", 0, 9, [11]), ("drawn", 14, [])], HAND),
    Step(1, move(PLAY, 45), [("played", 1, 45, [47]), ("drawn", 16, [14])], HAND),
    # Crane, curtain and moon: sankō, 5 points; seat 0 must decide.
    Step(
        0,
        move(PLAY, 29),
        [("played", 0, 29, [31]), ("drawn", 18, []), ("yaku", 0, 5, [("sanko", 5)], False)],
        DECISION,
    ),
    Step(0, move(KOIKOI), [("koikoi", 0, 1)], HAND),
    Step(1, move(PLAY, 41), [("played", 1, 41, [43]), ("drawn", 20, [18])], HAND),
    Step(0, move(PLAY, 7), [("played", 0, 7, []), ("drawn", 22, [21])], HAND),
    Step(1, move(PLAY, 33), [("played", 1, 33, [35]), ("drawn", 24, [])], HAND),
    Step(0, move(PLAY, 15), [("played", 0, 15, []), ("drawn", 26, [])], HAND),
    # Seat 1's fifth ribbon (plum, wisteria, willow, iris, clover): tan, 1 point.
    Step(
        1,
        move(PLAY, 25),
        [("played", 1, 25, [26]), ("drawn", 28, []), ("yaku", 1, 1, [("tan", 1)], False)],
        DECISION,
    ),
    # Seat 1 stops: 1 point doubled by seat 0's koi-koi. Round 2 is dealt by the winner and
    # ends at once on seat 0's teshi (6 points); two rounds played, seat 0 wins 6 to 2.
    Step(
        1,
        move(STOP),
        [
            ("stopped", 1, False),
            ("round ended", 1, game_pb2.ROUND_END_STOP, 1),
            ("dealt", 2, 2, 1, 24, 0),
            (
                "deal check",
                rules_pb2.DEAL_CHECK_HAND_FOUR,
                rules_pb2.DEAL_CHECK_ACTION_WIN,
                0,
                sorted(ROUND2_SEAT0),
            ),
            ("round ended", 2, game_pb2.ROUND_END_DEAL_CHECK, 0),
            ("game ended", game_pb2.GAME_END_ROUNDS_PLAYED, [6, 2], [], 0, False),
        ],
        NOTHING,
    ),
)


async def test_a_koikoi_game_to_the_end_alike_over_both_transports(
    module_referee: RefereeProcess,
) -> None:
    transcript = await play_everywhere(module_referee, koikoi_request(), KOIKOI_SCRIPT)

    after_sanko = transcript.views[4][0]
    assert list(after_sanko.seats[0].captured) == [1, 3, 9, 11, 29, 31]
    assert [(y.id, list(y.cards)) for y in after_sanko.seats[0].yaku] == [("sanko", [1, 9, 29])]
    assert [m.kind for m in after_sanko.legal_moves] == [KOIKOI, STOP]
    assert not transcript.views[4][1].legal_moves
    after_call = transcript.views[5][2]
    assert after_call.last_koikoi_caller == 0 and after_call.seats[0].koikoi_calls == 1
    assert after_call.turn == 1

    final = transcript.views[-1][2]
    assert final.status == game_pb2.GAME_STATUS_OVER and not final.HasField("turn")
    assert [s.score for s in final.seats] == [6, 2]
    assert transcript.log is not None
    first, second = [
        e.round_ended.result for e in transcript.log.events if e.HasField("round_ended")
    ]
    assert final.rounds_finished == 2 and final.last_result == second
    assert (first.winner, first.end, first.month, first.dealer) == (
        1,
        game_pb2.ROUND_END_STOP,
        1,
        0,
    )
    assert first.score.base == 1 and first.score.points == 2
    assert [(y.id, sorted(y.cards)) for y in first.score.yaku] == [("tan", [6, 14, 18, 26, 43])]
    assert [(m.factor, m.result) for m in first.score.multipliers] == [(2, 2)]
    assert (second.winner, second.end, second.deal_check) == (
        0,
        game_pb2.ROUND_END_DEAL_CHECK,
        rules_pb2.DEAL_CHECK_HAND_FOUR,
    )
    assert second.month == 2 and second.dealer == 1 and second.score.points == 6
    result = final.game_result
    assert (list(result.scores), result.winner, result.draw) == ([6, 2], 0, False)

    # The audit: the log of the finished game shows both deals, in order.
    assert transcript.log is not None
    dealt = [(d.round, d.dealer, sorted(d.deal.hands[0].cards)) for d in transcript.log.deals]
    assert dealt == [(1, 0, sorted(scripted_deal().hands[0].cards)), (2, 1, sorted(ROUND2_SEAT0))]
    assert list(transcript.log.deals[1].deal.stock) == list(ROUND2_STOCK)
    assert transcript.log.seed == 2026


# --- Hachi-Hachi ------------------------------------------------------------------------------

#: Seat 0 deals and holds the boar, deer and butterflies; seat 1 holds one animal and six
#: plains (lone-animal, 20); seat 2 holds no teyaku. No light on the field: a small field (×1).
HACHI_HANDS = (
    (25, 37, 21, 15, 19, 31, 35),
    (5, 4, 12, 16, 24, 40, 48),
    (13, 17, 30, 33, 42, 2, 46),
)
SEAT1_PLAINS = [4, 12, 16, 24, 40, 48]
HACHI_FIELD = (26, 27, 38, 22, 7, 34)
#: The stock, top first: each draw is scripted below.
HACHI_STOCK = (3, 11, 47, 14, 18, 20, 23, 1, 6, 8, 9, 10, 28, 29, 32, 36, 39, 41, 43, 44, 45)
SAGE_DECISION = game_pb2.WAITING_FOR_SAGE_DECISION
CAUSE_TEYAKU, CAUSE_DEKIYAKU = scoring_pb2.PAYMENT_CAUSE_TEYAKU, scoring_pb2.PAYMENT_CAUSE_DEKIYAKU


def hachi_request() -> service_pb2.CreateGameRequest:
    deal = game_pb2.Deal(
        hands=[game_pb2.Hand(cards=cards(h)) for h in HACHI_HANDS],
        field=cards(HACHI_FIELD),
        stock=cards(HACHI_STOCK),
    )
    return service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_HACHI_HACHI,
        players=["Ann", "Bob", "Cy"],
        first_dealer=0,
        seed=88,
        hachi_hachi=rules_pb2.HachiHachiRules(rounds=1),
        prepared_deals=[deal],
    )


HACHI_SCRIPT = (
    # The boar meets both clover cards on the field: seat 0 names the ribbon.
    Step(0, move(PLAY, 25, 26), [("played", 0, 25, [26]), ("drawn", 3, [])], HAND),
    Step(1, move(PLAY, 4), [("played", 1, 4, [3]), ("drawn", 11, [])], HAND),
    Step(2, move(PLAY, 46), [("played", 2, 46, []), ("drawn", 47, [46])], HAND),
    Step(0, move(PLAY, 37), [("played", 0, 37, [38]), ("drawn", 14, [])], HAND),
    Step(1, move(PLAY, 16), [("played", 1, 16, [14]), ("drawn", 18, [])], HAND),
    Step(2, move(PLAY, 17), [("played", 2, 17, [18]), ("drawn", 20, [])], HAND),
    # The butterflies complete boar, deer and butterflies: inoshikacho, 35 from each.
    Step(
        0,
        move(PLAY, 21),
        [
            ("played", 0, 21, [22]),
            ("drawn", 23, []),
            ("dekiyaku", 0, [("inoshikacho", 35, [21, 25, 37])]),
            ("paid", 1, 0, 70, CAUSE_DEKIYAKU, "inoshikacho"),
            ("paid", 2, 0, 70, CAUSE_DEKIYAKU, "inoshikacho"),
        ],
        SAGE_DECISION,
    ),
    # Shōbu: the round ends without a card count, and with it the one-round game.
    Step(
        0,
        move(SHOBU),
        [
            ("shobu", 0),
            ("round ended", 1, game_pb2.ROUND_END_SHOBU, 0),
            ("game ended", game_pb2.GAME_END_ROUNDS_PLAYED, [], [100, 10, -110], 0, False),
        ],
        NOTHING,
    ),
)


async def test_a_hachihachi_game_to_the_end_alike_over_both_transports(
    module_referee: RefereeProcess,
) -> None:
    transcript = await play_everywhere(module_referee, hachi_request(), HACHI_SCRIPT)
    assert transcript.log is not None
    events = [summary(e) for e in transcript.log.events if e.version == 1]
    # At the deal: seat 1's lone-animal is declared, its six plains shown (the warbler stays
    # hidden: docs/hachihachi.md), and paid by both others.
    assert ("teyaku", 1, "lone-animal", 20, SEAT1_PLAINS) in events
    paid = [e for e in events if e[0] == "paid"]
    assert paid == [
        ("paid", 0, 1, 40, CAUSE_TEYAKU, "lone-animal"),
        ("paid", 2, 1, 40, CAUSE_TEYAKU, "lone-animal"),
    ]
    assert ("dealt", 1, 0, 0, 21, 1) in events

    final = transcript.views[-1][3]
    assert final.status == game_pb2.GAME_STATUS_OVER
    assert [s.balance_halves for s in final.seats] == [100, 10, -110]
    assert list(final.seats[0].captured) == [21, 22, 25, 26, 37, 38]
    assert [(d.id, d.value) for d in final.seats[0].dekiyaku] == [("inoshikacho", 35)]
    assert final.seats[1].teyaku.id == "lone-animal"
    assert transcript.log is not None
    (result,) = [e.round_ended.result for e in transcript.log.events if e.HasField("round_ended")]
    assert final.rounds_finished == 1 and final.last_result == result
    assert (result.winner, result.end, result.field_multiplier) == (0, game_pb2.ROUND_END_SHOBU, 1)
    assert sum(p.amount_halves for p in result.payments) == 40 + 40 + 70 + 70
    assert (list(final.game_result.balances_halves), final.game_result.winner) == (
        [100, 10, -110],
        0,
    )
    # While the round went on, a seat saw its own hand only, and the teyaku's cards.
    mid = transcript.views[3]
    assert [len(v.hand) for v in mid] == [5, 6, 6, 0]
    for view in mid:  # spectators included
        assert list(view.seats[1].teyaku.cards) == SEAT1_PLAINS


async def follow(
    stream: AsyncIterator[service_pb2.WatchGameResponse],
    items: list[service_pb2.WatchGameResponse],
    started: asyncio.Event,
) -> None:
    """Appends a stream's items to ``items``; ``started`` is set at the first one."""
    async for item in stream:
        items.append(item)
        started.set()


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_every_move_reaches_every_live_watcher(
    module_referee: RefereeProcess, transport: str
) -> None:
    """Each seat following the Koi-Koi script live (no resume point) gets the current view,
    then every version once, in order, with the view it would read; the stream ends with the
    game."""
    async with open_client(transport, module_referee) as client:
        created = await client.create(koikoi_request())
        game, tokens = created.game, list(created.player_tokens)
        seen: list[list[service_pb2.WatchGameResponse]] = [[] for _ in tokens]
        started = [asyncio.Event() for _ in tokens]
        streams = [
            asyncio.ensure_future(follow(client.watch(game, t), seen[i], started[i]))
            for i, t in enumerate(tokens)
        ]
        try:
            async with asyncio.timeout(60):
                for event in started:
                    await event.wait()  # following before the first move
                views: list[list[game_pb2.GameView]] = []
                for step in KOIKOI_SCRIPT:
                    await client.submit(game, step.move, tokens[step.seat])
                    views.append([await client.view(game, t) for t in tokens])
                await asyncio.gather(*streams)
        finally:
            for stream in streams:
                stream.cancel()
    for seat, items in enumerate(seen):
        assert [i.version for i in items] == list(range(1, len(KOIKOI_SCRIPT) + 2))
        assert not items[0].events and items[0].view.viewer_seat == seat
        assert [i.view for i in items[1:]] == [v[seat] for v in views]
        assert all(i.events for i in items[1:])
        assert items[-1].view.status == game_pb2.GAME_STATUS_OVER
