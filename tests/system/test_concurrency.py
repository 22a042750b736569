"""Conflicting moves raced through two service processes sharing one Redis, over both transports.

Every round fires many ``SubmitMove`` calls for the same version at once, split over HTTP and
gRPC on both replicas: exactly one may win, every other one must be refused as stale, and the
game must end exactly as a replay of the winning moves on a fresh in-process referee says.
Request ids make a move idempotent across replicas: a retry anywhere returns the first answer.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence

from hanafuda.v1 import game_pb2, service_pb2

from tests.service.conftest import seeded_request

from .clients import Client, Refused, connect, expected_status, submission
from .processes import RefereeProcess
from .replay import Accepted, assert_replays

#: Calls racing for each version.
CONTENDERS = 16
#: Upper bound on a game's versions: a game that does not end by then is a failure.
MAX_VERSIONS = 200
#: Versions raced for, at the least, over however many games that takes.
MIN_CONTESTED = 40


async def race(
    clients: Sequence[Client],
    requests: Sequence[service_pb2.SubmitMoveRequest],
    token: str,
    offset: int,
) -> list[service_pb2.SubmitMoveResponse | BaseException]:
    """Sends every request at once, request ``i`` through ``clients[(i + offset) % len]``."""
    calls = [
        clients[(i + offset) % len(clients)].submit_request(request, token)
        for i, request in enumerate(requests)
    ]
    return await asyncio.gather(*calls, return_exceptions=True)


def outcomes(results: Sequence[service_pb2.SubmitMoveResponse | BaseException]) -> list[str]:
    """A short account of raced calls, for failure messages."""
    return [
        f"version {r.version}" if isinstance(r, service_pb2.SubmitMoveResponse) else repr(r)
        for r in results
    ]


def submit_lines(processes: Sequence[RefereeProcess], game: str) -> Counter[str]:
    """The outcomes of ``SubmitMove`` on ``game`` in both processes' canonical log lines."""
    counted: Counter[str] = Counter()
    for process in processes:
        for record in process.log_records():
            if record.get("method") == "SubmitMove" and record.get("game") == game:
                counted[str(record.get("reason") or record["outcome"])] += 1
    return counted


async def contested_game(
    clients: Sequence[Client], request: service_pb2.CreateGameRequest
) -> tuple[str, list[str], list[Accepted]]:
    """Plays a whole game with every version raced for by :data:`CONTENDERS` calls; checks each
    race and returns the game id, the tokens and the winning moves."""
    created = await clients[0].create(request)
    game, tokens = created.game, list(created.player_tokens)
    view = created.view
    accepted: list[Accepted] = []
    for version in range(1, MAX_VERSIONS):
        if view.status == game_pb2.GAME_STATUS_OVER:
            return game, tokens, accepted
        assert view.version == version
        seat = view.turn
        legal = list((await clients[version % 4].view(game, tokens[seat])).legal_moves)
        assert legal
        # Different moves where there is a choice, and different request ids (or none).
        requests = [
            submission(
                game,
                legal[i % len(legal)],
                request_id=f"v{version}-c{i}" if i % 2 else "",
                expected_version=version,
            )
            for i in range(CONTENDERS)
        ]
        results = await race(clients, requests, tokens[seat], offset=version)

        winners = [
            i for i, r in enumerate(results) if isinstance(r, service_pb2.SubmitMoveResponse)
        ]
        assert len(winners) == 1, (version, outcomes(results))
        for i, result in enumerate(results):
            if i in winners:
                continue
            assert isinstance(result, Refused), (version, i, result)
            assert result.reason == "STALE_VERSION", (version, i, result)
            assert result.status == expected_status(result.transport, "STALE_VERSION")
            assert result.metadata == {"current_version": str(version + 1)}, result
        (winner,) = winners
        answer = results[winner]
        assert isinstance(answer, service_pb2.SubmitMoveResponse)
        assert answer.version == answer.view.version == version + 1
        assert all(e.version == version + 1 for e in answer.events)
        accepted.append(Accepted(seat, requests[winner].move, answer))
        # Both replicas (clients i and i + 2 are the same transport on the two replicas)
        # now read exactly one version further.
        for reader in (clients[(version + 1) % 4], clients[(version + 3) % 4]):
            assert (await reader.view(game)).version == version + 1
        view = answer.view
    raise AssertionError(f"the game did not end in {MAX_VERSIONS} versions")


async def test_racing_moves_have_one_winner_per_version_and_the_log_replays(
    referee_pair: tuple[RefereeProcess, RefereeProcess],
) -> None:
    contested = 0
    async with connect(*referee_pair) as clients:
        # The winners' moves decide how long a game lasts: play games until enough versions
        # were raced for.
        for seed in range(20260, 20270):
            if contested >= MIN_CONTESTED:
                break
            request = seeded_request(seed=seed, rounds=3)
            game, tokens, accepted = await contested_game(clients, request)
            contested += len(accepted)

            # Both replicas serve the same log over both transports, and it replays to the
            # final state.
            spectator_logs = [await client.log(game) for client in clients]
            assert all(log == spectator_logs[0] for log in spectator_logs)
            assert spectator_logs[0].seed == seed and spectator_logs[0].deals
            await assert_replays(clients[1], game, tokens, request, accepted)
            await assert_replays(clients[2], game, tokens, request, accepted)

            # The processes' own accounts agree: one accepted call per version, the rest stale.
            assert submit_lines(referee_pair, game) == {
                "ok": len(accepted),
                "STALE_VERSION": len(accepted) * (CONTENDERS - 1),
            }
    assert contested >= MIN_CONTESTED


async def test_a_retried_request_id_returns_the_first_answer_on_any_replica(
    referee_pair: tuple[RefereeProcess, RefereeProcess],
) -> None:
    async with connect(*referee_pair) as clients:
        http_a, grpc_a, http_b, grpc_b = clients
        request = seeded_request(seed=77, rounds=1)
        created = await http_a.create(request)
        game, tokens = created.game, list(created.player_tokens)
        first_seat = created.view.turn
        token = tokens[first_seat]
        legal = list((await grpc_b.view(game, token)).legal_moves)
        assert len(legal) >= 2

        original = submission(game, legal[0], request_id="retry-me", expected_version=1)
        first = await http_a.submit_request(original, token)
        assert first.version == 2
        log_after_first = await grpc_b.log(game)

        # The same call again, on either replica over either transport: the first answer.
        for client in (grpc_b, http_b, grpc_a, http_a):
            assert await client.submit_request(original, token) == first, client.label
        # The same id with another move, with no or a stale expected version: refused as a
        # reused id (a retry must repeat its move), and nothing changes.
        for client, expected in ((grpc_b, None), (http_b, 1), (grpc_a, 7)):
            other = submission(game, legal[1], request_id="retry-me", expected_version=expected)
            (refusal,) = await race([client], [other], token, offset=0)
            assert isinstance(refusal, Refused), (client.label, refusal)
            assert refusal.reason == "REQUEST_ID_REUSED", (client.label, refusal)
        for client in clients:
            assert await client.log(game) == log_after_first, client.label
            assert (await client.view(game)).version == 2
        accepted = [Accepted(first_seat, legal[0], first)]

        # Request ids are per seat: the other seat's "retry-me" is a new move of its own.
        second_seat = first.view.turn
        assert second_seat != first_seat
        move = (await http_b.view(game, tokens[second_seat])).legal_moves[0]
        second = await grpc_a.submit(game, move, tokens[second_seat], request_id="retry-me")
        assert second.version == 3
        accepted.append(Accepted(second_seat, move, second))

        # Once its seat is on turn again (with this seed the second play forms no yaku), even a
        # move that is legal now is not made under an answered id: it is refused as a reused id
        # and the game stays at version 3.
        assert second.view.turn == first_seat
        now_legal = (await grpc_b.view(game, token)).legal_moves[0]
        reused = submission(game, now_legal, request_id="retry-me")
        (refusal,) = await race([http_b], [reused], token, offset=0)
        assert isinstance(refusal, Refused) and refusal.reason == "REQUEST_ID_REUSED", refusal
        assert (await grpc_a.view(game)).version == 3

        # The same new call sent eight times at once through both replicas: one move, eight
        # identical answers.
        seat = second.view.turn
        move = (await grpc_a.view(game, tokens[seat])).legal_moves[0]
        together = submission(game, move, request_id="all-at-once", expected_version=3)
        answers = await race(clients, [together] * 8, tokens[seat], offset=0)
        assert all(isinstance(a, service_pb2.SubmitMoveResponse) for a in answers), outcomes(
            answers
        )
        assert all(a == answers[0] for a in answers)
        answer = answers[0]
        assert isinstance(answer, service_pb2.SubmitMoveResponse)
        assert answer.version == 4
        accepted.append(Accepted(seat, move, answer))
        for client in clients:
            assert (await client.view(game)).version == 4
        await assert_replays(grpc_b, game, tokens, request, accepted)
        # Every call above was answered (first answers included): 1 + 4 + 1 + 8; the reused ids
        # refused: 3 + 1.
        assert submit_lines(referee_pair, game) == {"ok": 14, "REQUEST_ID_REUSED": 4}
