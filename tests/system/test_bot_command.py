"""The external bot command against a real service process: it plays its seat of a hosted game to
the end, over HTTP or over gRPC, while the test plays the other seats with seeded random moves
over HTTP; the command exits 0 once the game is over."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from .processes import RefereeProcess

#: Seconds a whole game may take (the bots play on a small budget).
GAME_SECONDS = 120


@contextmanager
def bot(
    referee: RefereeProcess, transport: str, game: str, token: str, level: str
) -> Iterator[subprocess.Popen[bytes]]:
    """The command playing ``token``'s seat; stopped if the test leaves it running."""
    where = ["--url", referee.http_url] if transport == "http" else ["--grpc", referee.grpc_target]
    command = [sys.executable, "-m", "hanafuda_referee.bots.play", *where]
    # Ids and tokens may begin with "-": hence "=" for the game, the environment for the token.
    command += [f"--game={game}", "--level", level, "--playouts", "40"]
    env = {**os.environ, "HANAFUDA_BOT_TOKEN": token}
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def create(referee: RefereeProcess, body: dict[str, Any]) -> tuple[str, list[str]]:
    answer = httpx.post(f"{referee.http_url}/v1/games", json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    created = answer.json()
    return created["game"], created["playerTokens"]


def play_randomly(
    referee: RefereeProcess, game: str, tokens: Sequence[str], seed: int
) -> dict[str, Any]:
    """Play the seats of ``tokens`` with random legal moves until the game is over; its last
    view."""
    rng = random.Random(seed)
    base = f"{referee.http_url}/v1/games/{game}"
    deadline = time.monotonic() + GAME_SECONDS
    with httpx.Client(timeout=10) as client:
        while time.monotonic() < deadline:
            moved = False
            for token in tokens:
                headers = {"authorization": f"Bearer {token}"}
                view = client.get(base, headers=headers).json()["view"]
                if view["status"] == "GAME_STATUS_OVER":
                    return dict(view)
                if view.get("legalMoves"):
                    body = {
                        "move": rng.choice(view["legalMoves"]),
                        "expectedVersion": view["version"],
                    }
                    answer = client.post(f"{base}/moves", json=body, headers=headers)
                    # The bot may have moved in between (a resignation, say): stale is fine.
                    assert answer.status_code in (200, 409), answer.text
                    moved = True
            if not moved:
                time.sleep(0.01)
    raise AssertionError("the game did not end in time")


@pytest.mark.parametrize("transport", ["http", "grpc"])
def test_the_bot_command_plays_a_koikoi_seat_to_the_end(
    referee: RefereeProcess, transport: str
) -> None:
    game, tokens = create(
        referee,
        {"kind": "GAME_KIND_KOI_KOI", "players": ["bot", "human"], "koiKoi": {"rounds": 3}},
    )
    with bot(referee, transport, game, tokens[0], "expert") as process:
        final = play_randomly(referee, game, tokens[1:], seed=1)
        output = process.communicate(timeout=30)[0].decode()
        assert process.returncode == 0, output
    assert final["round"] >= 1 and "gameResult" in final
    assert "version" in output  # it made moves of its own


def test_two_bot_commands_play_a_hachihachi_game_to_the_end(referee: RefereeProcess) -> None:
    game, tokens = create(
        referee,
        {
            "kind": "GAME_KIND_HACHI_HACHI",
            "players": ["http bot", "grpc bot", "human"],
            "hachiHachi": {"rounds": 2},
        },
    )
    with (
        bot(referee, "http", game, tokens[0], "expert") as first,
        bot(referee, "grpc", game, tokens[1], "greedy") as second,
    ):
        final = play_randomly(referee, game, tokens[2:], seed=2)
        for process in (first, second):
            output = process.communicate(timeout=30)[0].decode()
            assert process.returncode == 0, output
    assert final["status"] == "GAME_STATUS_OVER"


def test_the_bot_command_exits_1_when_refused(referee: RefereeProcess) -> None:
    game, _ = create(referee, {"kind": "GAME_KIND_KOI_KOI", "players": ["a", "b"]})
    with bot(referee, "http", game, "not-a-token", "random") as process:
        output = process.communicate(timeout=30)[0].decode()
    assert process.returncode == 1, output
    assert "refused" in output
