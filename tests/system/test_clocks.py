"""Turn clocks (PLAY.md) through real service processes on the shared Redis, with short times.

Timeouts happen at their deadlines whoever is looking: a watcher sees them with nobody calling
(the sweeper), two replicas and a reader racing for one apply it once, a move that comes after
its deadline is refused, and a seat that stays away resigns after its automatic decisions.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from contextlib import aclosing
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from hanafuda.v1 import events_pb2, game_pb2, play_pb2, rules_pb2, service_pb2

from .clients import TRANSPORTS, Client, connect, open_client, refusal_of
from .conftest import own_referee
from .processes import RefereeProcess


@pytest.fixture(scope="module")
def clock_referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    """A process whose sweeper runs often, as in production (0.5 s)."""
    with own_referee(tmp_path_factory.mktemp("clocks")) as process:
        yield process


def _koikoi(clock: play_pb2.ClockOptions) -> service_pb2.CreateGameRequest:
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], seed=3
    )
    request.clock.CopyFrom(clock)
    return request


async def _events_until_over(client: Client, game: str, timeout: float) -> list[events_pb2.Event]:
    """What a spectator's stream shows until the game ends."""
    events: list[events_pb2.Event] = []

    async def follow() -> None:
        async with aclosing(client.watch(game, None, from_version=1)) as items:
            async for item in items:
                events.extend(item.events)
                if item.view.status == game_pb2.GAME_STATUS_OVER:
                    return

    await asyncio.wait_for(follow(), timeout)
    return events


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_watcher_sees_timeouts_with_nobody_calling_until_the_seat_resigns(
    clock_referee: RefereeProcess, transport: str
) -> None:
    """Both seats away: each decision times out after a second and the timeout bot takes it;
    the third timeout in a row of a seat (max_auto_decisions 2) resigns it."""
    async with open_client(transport, clock_referee) as client:
        clock = play_pb2.ClockOptions(move_seconds=1, max_auto_decisions=2)
        created = await client.create(_koikoi(clock))
        assert created.view.clock.options.move_seconds == 1
        assert created.view.clock.options.on_timeout == play_pb2.ON_TIMEOUT_AUTO
        assert created.view.clock.options.timeout_bot == play_pb2.BOT_LEVEL_GREEDY
        first = created.view.turn
        started = time.monotonic()
        events = await _events_until_over(client, created.game, timeout=30)
        elapsed = time.monotonic() - started

    timeouts = [e for e in events if e.HasField("decision_timed_out")]
    resigned = [e for e in events if e.HasField("resigned")]
    assert len(resigned) == 1 and resigned[0].resigned.timed_out
    assert not resigned[0].HasField("actor")  # the referee acted, not the seat
    # Four automatic decisions (two per seat), then the fifth timeout resigns the first seat.
    assert [t.decision_timed_out.seat for t in timeouts] == [first, 1 - first] * 2
    assert [t.decision_timed_out.automatic_in_row for t in timeouts] == [1, 1, 2, 2]
    assert resigned[0].resigned.seat == first
    ended = events[-1].game_ended.result
    assert ended.end == game_pb2.GAME_END_RESIGNED and ended.winner == 1 - first
    # One second per decision: five timeouts take about five seconds, applied once each.
    assert 4.5 <= elapsed < 15
    versions = [t.version for t in timeouts] + [resigned[0].version]
    assert versions == sorted(set(versions))


async def test_a_move_spends_the_reserve_past_its_own_time(clock_referee: RefereeProcess) -> None:
    async with open_client("http", clock_referee) as client:
        clock = play_pb2.ClockOptions(move_seconds=1, reserve_seconds=3)
        created = await client.create(_koikoi(clock))
        game, tokens = created.game, list(created.player_tokens)
        seat = created.view.turn
        shown = created.view.clock
        assert list(shown.reserve_ms) == [3000, 3000] and shown.seat == seat

        def to_ms(t: Timestamp) -> int:
            return t.seconds * 1000 + t.nanos // 1_000_000

        assert to_ms(shown.move_deadline) - to_ms(shown.started) == 1000
        assert to_ms(shown.deadline) - to_ms(shown.move_deadline) == 3000

        await asyncio.sleep(1.8)  # 0.8 s into the reserve, before the timeout
        own = await client.view(game, tokens[seat])
        answer = await client.submit(game, own.legal_moves[0], tokens[seat])
        assert not any(e.HasField("decision_timed_out") for e in answer.events)
        reserves = list(answer.view.clock.reserve_ms)
        assert 1500 <= reserves[seat] <= 2300, reserves
        assert reserves[1 - seat] == 3000
        assert answer.view.clock.seat == answer.view.turn
        assert list(answer.view.clock.automatic_in_row) == [0, 0]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_move_after_its_deadline_is_refused_and_says_what_was_taken(
    tmp_path: Path, transport: str
) -> None:
    """No sweeper here: the late move itself finds the timeout due, applies it (in a commit of
    its own) and is refused with TIMED_OUT naming the decision taken."""
    with own_referee(tmp_path, flags=["--sweep-interval", "0"]) as referee:
        async with open_client(transport, referee) as client:
            clock = play_pb2.ClockOptions(move_seconds=1, on_timeout=play_pb2.ON_TIMEOUT_RESIGN)
            created = await client.create(_koikoi(clock))
            game, tokens = created.game, list(created.player_tokens)
            seat = created.view.turn
            own = await client.view(game, tokens[seat])
            await asyncio.sleep(1.2)
            refused = await refusal_of(
                client.submit(game, own.legal_moves[0], tokens[seat], expected_version=own.version)
            )
            assert refused.reason == "TIMED_OUT"
            assert refused.metadata["taken"] == "resign"
            assert refused.metadata["current_version"] == str(own.version + 1)
            view = await client.view(game)
            assert view.status == game_pb2.GAME_STATUS_OVER
            assert view.game_result.resigned == seat and view.game_result.winner == 1 - seat
            # Refused: nothing of the move was done, and a retry is refused the same way.
            log = await client.log(game)
            assert sum(e.HasField("card_played") for e in log.events) == 0


async def test_a_read_applies_the_timeouts_due(tmp_path: Path) -> None:
    """With no sweeper either, a plain read of the game applies what is due."""
    with own_referee(tmp_path, flags=["--sweep-interval", "0"]) as referee:
        async with open_client("grpc", referee) as client:
            clock = play_pb2.ClockOptions(move_seconds=1, max_auto_decisions=10)
            created = await client.create(_koikoi(clock))
            await asyncio.sleep(2.3)
            view = await client.view(created.game)
            # Two deadlines passed: two automatic decisions, applied at their deadlines.
            assert view.version == created.view.version + 1
            log = await client.log(created.game)
            timeouts = [e for e in log.events if e.HasField("decision_timed_out")]
            assert len(timeouts) == 2
            assert list(view.clock.automatic_in_row) == [1, 1]


async def test_two_replicas_and_a_reader_apply_each_timeout_once(
    referee_pair: tuple[RefereeProcess, RefereeProcess],
) -> None:
    """Both replicas sweep, and a reader hammers both with reads that apply timeouts too:
    every timeout is applied exactly once (one event per deadline, one second apart)."""
    async with connect(*referee_pair) as clients:
        clock = play_pb2.ClockOptions(move_seconds=1, max_auto_decisions=10)
        request = _koikoi(clock)
        request.koi_koi.rounds = 1
        created = await clients[0].create(request)
        game = created.game
        started = time.monotonic()
        stop = time.monotonic() + 4.5

        async def read(client: Client) -> None:
            while time.monotonic() < stop:
                await client.view(game)
                await client.log_page(service_pb2.GetGameLogRequest(game=game, page_size=5))

        await asyncio.gather(*(read(c) for c in clients * 2))
        elapsed = time.monotonic() - started
        log = await clients[1].log(game)
    timeouts = [e for e in log.events if e.HasField("decision_timed_out")]
    versions = [e.version for e in timeouts]
    assert versions == sorted(set(versions))  # one per version, never twice
    # A timeout per second of clock since creation, no more (a double would add one).
    assert int(elapsed) - 1 <= len(timeouts) <= int(elapsed) + 1, (len(timeouts), elapsed)


async def test_clock_options_are_checked(clock_referee: RefereeProcess) -> None:
    async with open_client("http", clock_referee) as client:
        for clock, option in (
            (play_pb2.ClockOptions(move_seconds=0), "move_seconds"),
            (play_pb2.ClockOptions(move_seconds=3601), "move_seconds"),
            (play_pb2.ClockOptions(move_seconds=5, reserve_seconds=86_401), "reserve_seconds"),
            (play_pb2.ClockOptions(move_seconds=5, max_auto_decisions=11), "max_auto_decisions"),
            (
                play_pb2.ClockOptions(move_seconds=5, timeout_bot=play_pb2.BOT_LEVEL_EXPERT),
                "timeout_bot",
            ),
            (play_pb2.ClockOptions(reserve_seconds=5), "move_seconds"),
        ):
            refused = await refusal_of(client.create(_koikoi(clock)))
            assert refused.reason == "BAD_OPTION_VALUE", clock
            assert refused.metadata["option"] == option


async def test_with_no_automatic_decision_allowed_the_first_timeout_resigns(
    clock_referee: RefereeProcess,
) -> None:
    """``max_auto_decisions`` 0 is not "never" (PLAY.md): the seat resigns at its first
    timeout, and the game is over."""
    async with open_client("grpc", clock_referee) as client:
        clock = play_pb2.ClockOptions(move_seconds=1, max_auto_decisions=0)
        created = await client.create(_koikoi(clock))
        seat = created.view.turn
        await asyncio.sleep(1.6)
        view = await client.view(created.game)
        assert view.status == game_pb2.GAME_STATUS_OVER
        assert view.game_result.resigned == seat
        log = await client.log(created.game)
        assert not [e for e in log.events if e.HasField("decision_timed_out")]
        assert [e.resigned.timed_out for e in log.events if e.HasField("resigned")] == [True]


async def test_a_game_without_clocks_has_none_in_its_view(clock_referee: RefereeProcess) -> None:
    async with open_client("grpc", clock_referee) as client:
        created = await client.create(
            service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"])
        )
        assert not created.view.HasField("clock") and not created.view.bots
        tokens = list(created.player_tokens)
        rng = random.Random(1)
        view = await client.view(created.game, tokens[created.view.turn])
        answer = await client.submit(
            created.game, rng.choice(list(view.legal_moves)), tokens[view.turn]
        )
        assert not answer.view.HasField("clock")
