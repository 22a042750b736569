"""The README's client examples (``clients/python/examples``) play real games to their end
against a real server process, as a newcomer runs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from .processes import RefereeProcess

EXAMPLES = Path(__file__).resolve().parents[2] / "clients" / "python" / "examples"
#: A one-round game of this seed is played (no hand or field ends it at the deal)...
SEED = 1
#: ... and one of this seed ends at its deal (a hand wins it at once).
OVER_AT_DEAL_SEED = 36


def _run(script: str, *args: str, standard_library_only: bool = False) -> list[str]:
    """The example's output lines; it must exit with 0. ``standard_library_only``: run without
    site-packages, as the README says the HTTP example can be."""
    flags = ["-S"] if standard_library_only else []
    done = subprocess.run(
        [sys.executable, *flags, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def _create(
    referee: RefereeProcess, seed: int = SEED, *, hachi_hachi: bool = False
) -> tuple[str, list[str]]:
    """A seeded one-round Koi-Koi game (or Hachi-Hachi): its id and the seats' tokens."""
    game = (
        {"kind": "GAME_KIND_HACHI_HACHI", "players": ["ann", "bob", "cy"]}
        | {"hachiHachi": {"rounds": 1}}
        if hachi_hachi
        else {"kind": "GAME_KIND_KOI_KOI", "players": ["ann", "bob"], "koiKoi": {"rounds": 1}}
    )
    answer = httpx.post(f"{referee.http_url}/v1/games", json=game | {"seed": str(seed)}, timeout=5)
    answer.raise_for_status()
    created = answer.json()
    return created["game"], created["playerTokens"]


def _status(referee: RefereeProcess, game: str) -> str:
    answer = httpx.get(f"{referee.http_url}/v1/games/{game}", timeout=5)
    answer.raise_for_status()
    return str(answer.json()["view"]["status"])


@pytest.mark.parametrize("hachi_hachi", [False, True], ids=["koikoi", "hachihachi"])
def test_the_http_example_plays_a_game_to_its_end(
    referee: RefereeProcess, hachi_hachi: bool
) -> None:
    game, tokens = _create(referee, hachi_hachi=hachi_hachi)
    assert len(tokens) == (3 if hachi_hachi else 2)
    lines = _run("play_http.py", referee.http_url, game, *tokens, standard_library_only=True)
    assert all(line.startswith("seat ") for line in lines[:-1]) and len(lines) > 2
    assert lines[-1].startswith("GAME_STATUS_OVER")
    assert _status(referee, game) == "GAME_STATUS_OVER"


@pytest.mark.parametrize(
    ("seed", "refusal", "moves"),
    [(SEED, "NOT_YOUR_TURN", True), (OVER_AT_DEAL_SEED, "GAME_OVER", False)],
)
def test_the_grpc_example_shows_a_refusal_and_plays_a_game_to_its_end(
    referee: RefereeProcess, seed: int, refusal: str, moves: bool
) -> None:
    game, tokens = _create(referee, seed)
    lines = _run("play_grpc.py", referee.grpc_target, game, *tokens)
    assert lines[0].endswith(f"refused: FAILED_PRECONDITION {refusal}")
    assert all(line.startswith("seat ") for line in lines[1:-1])
    assert (len(lines) > 3) is moves
    assert lines[-1].startswith("GAME_STATUS_OVER: ann ")
    assert _status(referee, game) == "GAME_STATUS_OVER"


def test_the_grpc_example_plays_a_game_of_its_own(referee: RefereeProcess) -> None:
    lines = _run("play_grpc.py", referee.grpc_target)
    game = lines[0].removeprefix("created ")
    # A random deal: the game may already be over at its deal (then any move is refused so).
    assert lines[1].endswith(("NOT_YOUR_TURN", "GAME_OVER"))
    assert lines[-1].startswith("GAME_STATUS_OVER: ann ")
    assert _status(referee, game) == "GAME_STATUS_OVER"


def readme_block(marker: str) -> str:
    """The shell block that follows ``<!-- marker -->`` in the README, as a newcomer copies it."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    after = text.split(f"<!-- {marker} -->", 1)[1]
    return after.split("```sh\n", 1)[1].split("```", 1)[0]


def test_the_readme_plays_a_game_against_the_expert_with_curl(referee: RefereeProcess) -> None:
    """The README's curl session, verbatim but for the port, plays to the game's end."""
    script = readme_block("readme-play-against-expert").replace(
        "localhost:8080", f"127.0.0.1:{referee.http_port}"
    )
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = done.stdout.strip().splitlines()[-1]
    assert "GAME_END_" in result and "'scores'" in result, result


@pytest.mark.parametrize("kind", ["koikoi", "hachihachi"])
def test_the_client_package_example_plays_a_watched_game(
    referee: RefereeProcess, kind: str
) -> None:
    """``play_client.py``: a whole game through ``hanafuda_client``, watched live to its end."""
    lines = _run("play_client.py", referee.grpc_target, kind)
    game = lines[0].removeprefix("created ")
    final = int(lines[-1].rsplit(" ", 1)[1])
    assert lines[-1].startswith("GAME_STATUS_OVER at version ")
    assert lines[1] == f"watched versions 1 to {final}"
    assert lines[2] == "resign refused: FAILED_PRECONDITION GAME_OVER"
    assert _status(referee, game) == "GAME_STATUS_OVER"


def test_the_readmes_python_client_program_plays_a_game_to_its_end(
    referee: RefereeProcess,
) -> None:
    """The README's Python client program, verbatim but for the port."""
    text = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    after = text.split("<!-- readme-python-client -->", 1)[1]
    program = after.split("```python\n", 1)[1].split("```", 1)[0]
    program = program.replace("localhost:50051", referee.grpc_target)
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("end: GAME_END_"), done.stdout
