"""Reads cost what the present costs (PLAY.md): a view, a watch item and a log page of a long
game are no bigger than those of a short one, and the log is read page by page, missing nothing.

Sizes, not times, are asserted: the serialized size of what a read sends is what its cost follows.
"""

from __future__ import annotations

import random
from contextlib import aclosing

import pytest
from hanafuda.v1 import game_pb2, rules_pb2, service_pb2

from .clients import TRANSPORTS, Client, open_client, refusal_of
from .processes import RefereeProcess


async def _play_until(
    client: Client,
    game: str,
    tokens: list[str],
    rng: random.Random,
    *,
    rounds_finished: int | None = None,
) -> game_pb2.GameView:
    """Random legal moves until ``rounds_finished`` rounds are finished and the next round's
    first hand play is awaited (or, with None, until the game is over)."""
    view = await client.view(game)
    while view.status != game_pb2.GAME_STATUS_OVER:
        if (
            rounds_finished is not None
            and view.rounds_finished >= rounds_finished
            and view.waiting.kind == game_pb2.WAITING_FOR_HAND_PLAY
        ):
            return view
        own = await client.view(game, tokens[view.turn])
        answer = await client.submit(
            game, rng.choice(list(own.legal_moves)), tokens[view.turn], expected_version=own.version
        )
        view = answer.view
    return view


async def _watch_item(client: Client, game: str, version: int) -> service_pb2.WatchGameResponse:
    """The watch item of ``version``, as a spectator resuming just before it gets it."""
    async with aclosing(client.watch(game, None, from_version=version - 1)) as items:
        async for item in items:
            return item
    raise AssertionError("the stream ended at once")


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_view_and_a_watch_item_do_not_grow_with_the_finished_rounds(
    module_referee: RefereeProcess, transport: str
) -> None:
    async with open_client(transport, module_referee) as client:
        request = service_pb2.CreateGameRequest(
            kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], seed=5
        )
        request.koi_koi.rounds = 12
        created = await client.create(request)
        game, tokens = created.game, list(created.player_tokens)
        rng = random.Random(5)
        sizes: dict[int, tuple[int, int, int]] = {}
        for finished in (1, 11):
            await _play_until(client, game, tokens, rng, rounds_finished=finished)
            view = await client.view(game)
            assert view.status == game_pb2.GAME_STATUS_IN_PROGRESS, "the game ended early"
            assert view.rounds_finished == finished and view.HasField("last_result")
            seat_view = await client.view(game, tokens[view.turn])
            item = await _watch_item(client, game, view.version)
            assert item.view == view
            sizes[finished] = (
                view.ByteSize(),
                seat_view.ByteSize(),
                item.ByteSize(),
            )
        # Eleven finished rounds against one: the same size but for a few varints (scores,
        # round numbers, captures of this round so far) and the last result's yaku.
        for short, long in zip(sizes[1], sizes[11], strict=True):
            assert long <= short + 96, sizes


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize(
    ("kind", "players"),
    [(rules_pb2.GAME_KIND_KOI_KOI, 2), (rules_pb2.GAME_KIND_HACHI_HACHI, 5)],
)
async def test_the_log_read_in_pages_is_the_whole_log(
    module_referee: RefereeProcess, transport: str, kind: int, players: int
) -> None:
    """Pages of every small size, ending anywhere (between a deal and its drops too), give the
    very events and deals of the log read at once; each page holds at most its size plus the
    rest of one version's events."""
    async with open_client(transport, module_referee) as client:
        request = service_pb2.CreateGameRequest(
            kind=kind,  # type: ignore[arg-type]
            players=[f"p{i}" for i in range(players)],
            seed=11,
        )
        if kind == rules_pb2.GAME_KIND_KOI_KOI:
            request.koi_koi.rounds = 3
        else:
            request.hachi_hachi.rounds = 3
        created = await client.create(request)
        game, tokens = created.game, list(created.player_tokens)
        await _play_until(client, game, tokens, random.Random(11))

        whole = await client.log_page(
            service_pb2.GetGameLogRequest(game=game, page_size=1000), tokens[0]
        )
        assert not whole.next_page_token and whole.HasField("seed")
        assert len(whole.deals) >= 3
        per_version: dict[int, int] = {}
        for event in whole.events:
            per_version[event.version] = per_version.get(event.version, 0) + 1
        most = max(per_version.values())
        for size in (1, 2, 3, 5, 8, 13):
            paged = await client.log(game, tokens[0], page_size=size)
            assert list(paged.events) == list(whole.events), size
            assert list(paged.deals) == list(whole.deals), size
            assert paged.seed == whole.seed
            first = await client.log_page(
                service_pb2.GetGameLogRequest(game=game, page_size=size), tokens[0]
            )
            assert first.next_page_token and len(first.events) < size + most


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_log_page_does_not_grow_with_the_game(
    module_referee: RefereeProcess, transport: str
) -> None:
    """The default page of a long game holds at most the default size; the seed and deals come
    only with the pages that hold the deals, so the last page of a finished game is small too."""
    async with open_client(transport, module_referee) as client:
        request = service_pb2.CreateGameRequest(
            kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], seed=9
        )
        request.koi_koi.rounds = 12
        created = await client.create(request)
        game, tokens = created.game, list(created.player_tokens)
        await _play_until(client, game, tokens, random.Random(9))
        request_page = service_pb2.GetGameLogRequest(game=game, page_size=50)
        sizes = []
        pages = 0
        while True:
            page = await client.log_page(request_page, tokens[1])
            pages += 1
            assert len(page.events) <= 50 + 12
            assert len(page.deals) <= 3
            sizes.append(page.ByteSize())
            if not page.next_page_token:
                break
            request_page.page_token = page.next_page_token
        assert pages >= 8
        assert max(sizes) <= 4 * min(sizes[:-1]), sizes


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_bad_page_token_is_refused(module_referee: RefereeProcess, transport: str) -> None:
    async with open_client(transport, module_referee) as client:
        created = await client.create(
            service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"])
        )
        for token in ("nonsense", "AQ==", "A" * 100):
            refused = await refusal_of(
                client.log_page(service_pb2.GetGameLogRequest(game=created.game, page_token=token))
            )
            assert refused.reason == "INVALID_ARGUMENT"
        # A token past the game's end: from a longer game, not this one's (seeded: a deal that
        # ends its first round at once would leave it too short).
        other = await client.create(
            service_pb2.CreateGameRequest(
                kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], seed=5
            )
        )
        view = await _play_until(
            client, other.game, list(other.player_tokens), random.Random(1), rounds_finished=1
        )
        assert view.version > 3
        page = await client.log_page(
            service_pb2.GetGameLogRequest(game=other.game, page_size=3), None
        )
        while page.next_page_token:
            last = page.next_page_token
            page = await client.log_page(
                service_pb2.GetGameLogRequest(game=other.game, page_size=3, page_token=last)
            )
        refused = await refusal_of(
            client.log_page(service_pb2.GetGameLogRequest(game=created.game, page_token=last))
        )
        assert refused.reason == "INVALID_ARGUMENT"
