"""The README's picture of the browser table, made from a real game: run it again after the
table changes.

Starts a referee (in-process store, seeds allowed), creates a Koi-Koi game against the greedy
bot with a fixed seed, opens the table in Debian's Chromium (driven by Playwright) at 1280×800 as
seat 0, plays ``--moves`` of that seat's decisions by clicking the first playable card (or the
first choice of a dialog), waits for the bot's answer, and saves a screenshot. From the
repository's root, after ``bash scripts/test`` installed the dev tools and Chromium::

    .venv/bin/python scripts/table_picture.py [--out docs/images/table.png] [--moves 3]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
SEED = 20261128


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _post(url: str, body: dict[str, object]) -> dict[str, object]:
    request = urllib.request.Request(
        url, json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return dict(json.load(answer))


def _start_referee(workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    """A referee on free ports; its HTTP base URL once it answers."""
    script = Path(sys.executable).with_name("hanafuda-referee")
    command = [str(script)] if script.exists() else [shutil.which("hanafuda-referee") or "false"]
    http_port, grpc_port = _free_port(), _free_port()
    env = {
        **os.environ,
        "HANAFUDA_ALLOW_TESTING": "true",
        "HANAFUDA_HTTP_PORT": str(http_port),
        "HANAFUDA_GRPC_PORT": str(grpc_port),
    }
    env.pop("REDIS_URL", None)
    log = (workdir / "referee.log").open("wb")
    process = subprocess.Popen([*command, "serve"], env=env, stdout=log, stderr=log)
    base = f"http://127.0.0.1:{http_port}"
    for _ in range(200):
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1):
                return process, base
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the referee did not start: see {workdir / 'referee.log'}")


def _decide(page: Page) -> bool:
    """Seat 0's next decision by a click, if it has one now; whether it did."""
    table = page.locator("#table")
    if table.get_attribute("aria-busy") is not None:
        return False
    dialog = page.locator("#decision")
    if dialog.evaluate("d => d.open"):
        dialog.locator("button[data-move]:not([data-move='cancel'])").first.click()
        return True
    if table.get_attribute("data-my-turn") != "true":
        return False
    playable = page.locator("#hand button.card.playable")
    if playable.count() == 0:
        return False
    playable.first.click()
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "table.png")
    parser.add_argument("--moves", type=int, default=3, help="seat 0's decisions before the shot")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install -y chromium")
    with tempfile.TemporaryDirectory(prefix="hf-picture-") as work:
        process, base = _start_referee(Path(work))
        try:
            created = _post(
                base + "/v1/games",
                {
                    "kind": "GAME_KIND_KOI_KOI",
                    "players": ["You", "Greedy bot"],
                    "bots": ["BOT_LEVEL_UNSPECIFIED", "BOT_LEVEL_GREEDY"],
                    "seed": SEED,
                    "firstDealer": 1,
                },
            )
            tokens = created["playerTokens"]
            assert isinstance(tokens, list)
            url = f"{base}/#game={created['game']}&token={tokens[0]}"
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-dev-shm-usage"]
                )
                page = browser.new_page(
                    viewport={"width": 1280, "height": 800}, reduced_motion="reduce"
                )
                page.goto(url)
                page.wait_for_selector("#table[data-version]")
                made, deadline = 0, time.monotonic() + 60
                while made < args.moves and time.monotonic() < deadline:
                    if _decide(page):
                        made += 1
                    page.wait_for_timeout(300)
                # The bot's answer on screen, then the shot.
                page.wait_for_function(
                    "() => document.getElementById('table').dataset.myTurn === 'true'"
                    " || document.getElementById('table').dataset.status === 'over'",
                    timeout=30_000,
                )
                page.wait_for_timeout(500)
                args.out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(args.out))
                browser.close()
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(f"wrote {args.out} after {made} moves of seat 0")


if __name__ == "__main__":
    main()
