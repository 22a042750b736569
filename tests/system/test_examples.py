"""The README's client examples (``clients/python/examples``) play real games to their end
against a real server process, as a newcomer runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from .processes import RefereeProcess

EXAMPLES = Path(__file__).resolve().parents[2] / "clients" / "python" / "examples"


def _run(script: str, *args: str) -> list[str]:
    """The example's output lines; it must exit with 0."""
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _status(referee: RefereeProcess, game: str) -> str:
    answer = httpx.get(f"{referee.http_url}/v1/games/{game}", timeout=5)
    answer.raise_for_status()
    return str(answer.json()["view"]["status"])


def test_the_http_example_plays_a_created_game_to_its_end(referee: RefereeProcess) -> None:
    created = httpx.post(
        f"{referee.http_url}/v1/games",
        json={"kind": "GAME_KIND_KOI_KOI", "players": ["ann", "bob"], "koiKoi": {"rounds": 1}},
        timeout=5,
    ).json()
    lines = _run("play_http.py", referee.http_url, created["game"], *created["playerTokens"])
    assert len(lines) > 2  # moves, then the end
    assert lines[-1].startswith("GAME_STATUS_OVER")
    assert _status(referee, created["game"]) == "GAME_STATUS_OVER"


def test_the_grpc_example_shows_a_refusal_and_plays_its_game_to_the_end(
    referee: RefereeProcess,
) -> None:
    lines = _run("play_grpc.py", referee.grpc_target)
    game = lines[0].removeprefix("created ")
    assert lines[1].endswith("out of turn: FAILED_PRECONDITION NOT_YOUR_TURN")
    assert lines[-1].startswith("GAME_STATUS_OVER: ann ")
    assert _status(referee, game) == "GAME_STATUS_OVER"
