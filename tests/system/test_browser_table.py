"""The browser table (``clients/table``, served at ``/``) in a real browser: Debian's Chromium
driven by Playwright, against a real referee process.

Whole games are played through the page by clicks, as a person plays them: Koi-Koi against a
greedy bot, Hachi-Hachi against two bots at phone width and against three (dropping out of the
round), and Koi-Koi between two browser contexts joined by an invitation link while a third
watches. A reload in the middle of a game resumes it where it was (its first moves by keyboard);
a referee restart under two pages is survived; a one-second clock runs out and the player
resigns; axe-core finds no serious or critical violation in the lobby, the table and a decision
dialog. The pages run under the referee's Content-Security-Policy (a violation
fails the test), except the accessibility scan's, into which axe-core is injected.

Screenshots of key moments go to ``tmp/artifacts/table/`` at the repository's root (not
committed). Needs ``/usr/bin/chromium`` (``scripts/test`` installs it) and the table package's
npm install (for axe-core; done here when due).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import httpx
import pytest
from google.protobuf import json_format
from hanafuda.v1 import cards_pb2, game_pb2, moves_pb2, service_pb2
from playwright.sync_api import Browser, ConsoleMessage, Page, Route, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.clients.npm_packages import TABLE, install

from .conftest import own_referee
from .processes import RefereeProcess
from .test_end_to_end import HACHI_SCRIPT, KOIKOI_SCRIPT, hachi_request, koikoi_request

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "tmp" / "artifacts" / "table"
#: Clicks one game may take before the test gives up (a one-round game takes a few dozen).
MAX_STEPS = 300
#: Milliseconds a page may take to show the effect of a click or of the other seat's move.
STEP_MS = 10_000


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RefereeProcess]:
    """One referee (in-process store) for the module's games."""
    with RefereeProcess(tmp_path_factory.mktemp("table")) as process:
        yield process


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install -y chromium (scripts/test does it)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            # As root in a container Chromium needs --no-sandbox.
            args=["--no-sandbox", "--disable-dev-shm-usage"],
        )
        yield launched
        launched.close()


class Watched:
    """A page with its console errors and CSP violations collected."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        page.set_default_timeout(STEP_MS)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.errors.append(message.text)

    def assert_clean(self) -> None:
        assert not self.errors, self.errors


def _fragment(url: str) -> dict[str, str]:
    """The parameters of a table link's fragment (``game``, ``token``)."""
    return dict(part.split("=", 1) for part in urlsplit(url).fragment.split("&"))


#: A phone in portrait (TABLE.md, "Phones"): the options of its browser context.
PHONE: dict[str, Any] = {"viewport": {"width": 390, "height": 844}, "is_mobile": True}


def open_page(browser: Browser, url: str, **context: Any) -> Watched:
    watched = Watched(browser.new_context(**context).new_page())
    watched.page.goto(url)
    return watched


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def start_game(
    page: Page, kind: str, opponents: list[str], *, clock: int = 0, rounds: int = 1
) -> None:
    """Fills the lobby and starts the game (one round unless told; Hachi-Hachi with one seat
    more than ``opponents``)."""
    page.wait_for_selector("#lobby:not([hidden])")
    page.check(f'input[name="kind"][value="{kind}"]')
    # The rule sets are the chosen game's (they come from the referee a moment after a switch).
    page.wait_for_selector(f'#preset[data-kind="{kind}"]', state="attached")
    if kind == "hachihachi":
        page.select_option("#seat-count", str(len(opponents) + 1))
    page.fill("#rounds", str(rounds))
    page.fill("#clock-seconds", str(clock))
    for seat, opponent in enumerate(opponents, start=1):
        page.select_option(f"#opponent-{seat}", opponent)
    page.click("#start")
    page.wait_for_selector("#table[data-version]")


#: How long a bot's move may take to reach a page on a loaded machine (the bot workers, then the
#: watch): far above the usual tenth of a second.
BOT_MS = 45_000


def start_to_my_turn(page: Page, kind: str, opponents: list[str], **options: Any) -> None:
    """``start_game``, then waits for the player's first turn; a deal may end the game at once
    (a deal check), and then a new game is started, up to ten times."""
    for attempt in range(10):
        if attempt:
            split = urlsplit(page.url)
            page.goto(f"{split.scheme}://{split.netloc}/")
        start_game(page, kind, opponents, **options)
        page.wait_for_function(
            """() => document.getElementById("table").dataset.myTurn === "true"
                || document.getElementById("table").dataset.status === "over" """,
            timeout=BOT_MS,
        )
        if state(page)["mine"] == "true":
            return
    raise AssertionError("ten deals in a row ended the game at once")


#: What a page shows of its dialogs and focus, for a failure's message.
PAGE_SCENE = """() => ({
    open: [...document.querySelectorAll("dialog[open]")].map((dialog) => dialog.id),
    focused: document.activeElement?.id || document.activeElement?.tagName,
    status: document.getElementById("status")?.textContent,
    version: document.getElementById("table")?.dataset.version,
})"""


def open_dialog(page: Page, button: str, dialog: str) -> None:
    """Clicks ``button`` and waits for ``dialog`` to open; else fails saying what was on screen
    (the open dialogs, the focus)."""
    page.click(button)
    try:
        page.wait_for_selector(f"{dialog}[open]")
    except PlaywrightTimeoutError:
        shot(page, "open-dialog-failed")
        raise AssertionError(f"{dialog} did not open: {page.evaluate(PAGE_SCENE)}") from None


def state(page: Page) -> dict[str, str]:
    """The table's version, status and whether it waits for this page's seat."""
    found = page.evaluate(
        """() => {
          const table = document.getElementById("table");
          const dialog = document.getElementById("decision");
          return {
            version: table.dataset.version || "",
            status: table.dataset.status || "",
            mine: table.dataset.myTurn || "",
            busy: table.hasAttribute("aria-busy") ? "yes" : "",
            dialog: dialog.open ? "open" : "",
          };
        }"""
    )
    return dict(found)


def act(page: Page, *, keyboard: bool = False, dismiss: bool = True) -> bool:
    """Makes this page's seat's next decision by a click (``keyboard``: by the keyboard alone),
    if it has one; whether it did. A round's summary open is dismissed first, unless
    ``dismiss`` is False (the caller reads it: then nothing is done while it is open)."""
    now = state(page)
    if now["busy"] or now["status"] != "playing":
        return False
    if page.evaluate("document.getElementById('round-summary').open"):
        if not dismiss:
            return False
        # A round's summary stays until it is dismissed: read, then go on.
        page.click("#round-summary-close")
        return True
    if now["dialog"]:
        buttons = page.locator("#decision button[data-move]:not([data-move='cancel'])")
        # End rounds early where the game asks (stop, shōbu); otherwise the first choice. The
        # buttons name their move in data-kind, whatever the page's language.
        kinds = buttons.evaluate_all("(buttons) => buttons.map((b) => b.dataset.kind)")
        preferred = next((i for i, kind in enumerate(kinds) if kind in ("stop", "shobu")), 0)
        if keyboard:
            # The dialog has the focus: its first button, and the others a Tab away.
            assert page.evaluate("document.activeElement.dataset.move") == "0"
            for _ in range(preferred):
                page.keyboard.press("Tab")
            page.keyboard.press("Enter")
        else:
            buttons.nth(preferred).click()
    elif now["mine"] == "true":
        playable = page.locator("#hand button.card.playable")
        if playable.count() == 0:
            return False
        if keyboard:
            # Tab along the hand to the first playable card.
            if page.evaluate("!document.activeElement.closest('#hand')"):
                page.locator("#hand button.card").first.focus()
            for _ in range(8):
                if page.evaluate("document.activeElement.classList.contains('playable')"):
                    break
                page.keyboard.press("Tab")
            page.keyboard.press("Enter")
        else:
            playable.first.click()
    else:
        return False
    page.wait_for_function(
        """(before) => {
          const table = document.getElementById("table");
          return !table.hasAttribute("aria-busy") && (table.dataset.version !== before
            || document.getElementById("decision").open);
        }""",
        arg=now["version"],
    )
    return True


def play_to_end(pages: list[Page], shots: str | None = None) -> int:
    """Clicks through the game on ``pages`` (one per person's seat) until it is over; the number
    of clicks."""
    clicks = 0
    shot_decision = shots is not None
    for _ in range(MAX_STEPS):
        if all(state(page)["status"] == "over" for page in pages):
            return clicks
        if shot_decision and shots is not None:
            for page in pages:
                if state(page)["dialog"]:
                    shot(page, f"{shots}-decision")
                    shot_decision = False
        if any(act(page) for page in pages):
            clicks += 1
            continue
        # Nobody here is to play: wait for the game to move (another seat, a bot, the clock).
        versions = [state(page)["version"] for page in pages]
        pages[0].wait_for_timeout(50)
        if [state(page)["version"] for page in pages] == versions:
            pages[0].wait_for_timeout(100)
    raise AssertionError(f"the game did not end in {MAX_STEPS} steps")


#: The names of a hand's cards (their buttons' text, hidden from sight).
HAND_NAMES = "(cards) => cards.map((card) => card.querySelector('.sr-only').textContent)"
CARD_NUMBERS = "(cards) => cards.map((card) => card.dataset.card)"


def final_rows(page: Page) -> list[list[str]]:
    return [
        row.locator("th, td").all_inner_texts() for row in page.locator("#final tbody tr").all()
    ]


def test_a_koikoi_game_against_a_greedy_bot_played_by_clicks(
    referee: RefereeProcess, browser: Browser
) -> None:
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    shot(page, "koikoi-lobby")
    # A one-round game can end at the deal (a hand yaku); the test needs a turn to click.
    start_to_my_turn(page, "koikoi", ["greedy"])
    # The seat's token is in the fragment only.
    url = urlsplit(page.url)
    assert url.query == "" and "token=" in url.fragment
    # Every card of the hand is a named button; the greedy bot is named at its seat.
    names = page.locator("#hand button.card").evaluate_all(HAND_NAMES)
    assert len(names) == 8
    # In English, with the card's Japanese name in romaji and kanji.
    named = re.compile(
        r"[a-z ]+ \((bright|animal|ribbon|plain), [A-Z][a-z]+; [A-Z][A-Za-zōū ()]+, [^\x00-\x7f]+\)"
    )
    assert all(named.fullmatch(name) for name in names), names
    # ...and that text is each button's accessible name, as the browser computes it.
    assert page.locator("#hand").get_by_role("button", name=names[0], exact=True).count() >= 1
    assert "greedy bot" in page.inner_text("#seats")
    shot(page, "koikoi-start")
    clicks = play_to_end([page], shots="koikoi")
    assert clicks >= 1
    shot(page, "koikoi-over")
    assert page.inner_text("#status").startswith("Game over")
    rows = final_rows(page)
    assert [row[0] for row in rows] == ["Player 1", "Greedy bot 2"]
    story = page.inner_text("#events")
    assert "You played" in story and "You drew" in story and "Game over" in story
    watched.assert_clean()


def test_a_hachihachi_game_against_two_bots_at_phone_width(
    referee: RefereeProcess, browser: Browser
) -> None:
    watched = open_page(browser, referee.http_url + "/", **PHONE)
    page = watched.page
    page.wait_for_selector("#opponent-1")
    page.check('input[name="kind"][value="hachihachi"]')
    page.wait_for_selector("#opponent-2")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "hachihachi-phone-lobby")
    start_to_my_turn(page, "hachihachi", ["greedy", "random"])
    # Nothing is wider than the phone's screen.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "hachihachi-phone-start")
    assert_turn_on_screen(page, 844)
    play_to_end([page], shots="hachihachi")
    shot(page, "hachihachi-phone-over")
    rows = final_rows(page)
    assert len(rows) == 3
    assert page.locator("#last-round").inner_text().startswith("Round 1 ended by")
    # Balances in points (halves shown as .5), summing to zero.
    assert sum(float(row[1]) for row in rows) == 0
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    watched.assert_clean()


#: Kept by the page from its start (an init script): when each story line was added and when the
#: decision dialog opened, in milliseconds of the page's clock, and when the table was first drawn.
TIMING_SCRIPT = """
window.__lines = []; window.__opened = []; window.__drawn = [];
document.addEventListener("DOMContentLoaded", () => {
  new MutationObserver(() => window.__drawn.push(performance.now())).observe(
    document.getElementById("table"), { attributes: true, attributeFilter: ["data-version"] });
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) {
      window.__lines.push({ at: performance.now(), text: node.textContent });
    }
  }).observe(document.getElementById("events"), { childList: true });
  new MutationObserver(() => {
    if (document.getElementById("decision").open) window.__opened.push(performance.now());
  }).observe(document.getElementById("decision"), { attributes: true, attributeFilter: ["open"] });
});
"""


def _friend_joins_before_the_player(referee: RefereeProcess, friend: dict[str, str]) -> bool:
    """Waits for the drop phase to ask the friend at seat 3, and joins for them; ``False`` when
    the player (seat 0) is asked first or the drop phase ends without asking the friend."""
    headers = {"Authorization": f"Bearer {friend['token']}"}
    url = f"{referee.http_url}/v1/games/{friend['game']}"
    for _ in range(BOT_MS // 50):
        view = httpx.get(url, headers=headers, timeout=10).json()["view"]
        if view.get("waiting", {}).get("kind") != "WAITING_FOR_JOIN_DECISION":
            return False
        if view.get("turn", 0) == 0:
            return False
        if view["turn"] == 3:
            moved = httpx.post(
                f"{url}/moves",
                json={"move": {"kind": "MOVE_KIND_JOIN"}, "expectedVersion": view["version"]},
                headers=headers,
                timeout=10,
            )
            assert moved.status_code == 200, moved.text
            return True
        time.sleep(0.05)
    raise AssertionError("the bots before the friend did not decide")


def test_a_hachihachi_game_of_four_asks_to_join_or_drop(
    referee: RefereeProcess, browser: Browser
) -> None:
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    page.add_init_script(TIMING_SCRIPT)
    # The drop phase asks the player unless three seats joined before them (then they drop for
    # free) or the seats left must all join. The seat before the player is a friend, played here
    # by the referee's API once the page is drawn, so the page sees a decision made before the
    # player is asked (the bots decide on the bot workers, often before a new page is drawn). A
    # deal that asks the player first, or does not ask them, is dealt again.
    for _ in range(25):
        page.goto(referee.http_url + "/")
        start_game(page, "hachihachi", ["greedy", "random", "friend"])
        friend = _fragment(page.input_value("#invite-3"))
        if not _friend_joins_before_the_player(referee, friend):
            continue
        # The player is asked next, or the drop phase went on without asking.
        page.wait_for_function(
            """() => document.getElementById("decision").open
              || !/join/i.test(document.getElementById("status").textContent)""",
            timeout=60_000,
        )
        asked = state(page)["dialog"] and page.inner_text("#decision-title") == "Join or drop out?"
        if not asked:
            continue
        lines = page.evaluate("() => window.__lines")
        (opened, *_) = page.evaluate("() => window.__opened")
        (first_drawn, *_) = page.evaluate("() => window.__drawn")
        # What the first drawing told happened before the page was open: only later moves count.
        bots = [
            line
            for line in lines
            if line["at"] > first_drawn
            and re.search(r"^(?!You).* (joined|dropped out)", line["text"])
        ]
        if bots:
            # Another seat's decision is seen before the dialog covers the table (TABLE.md,
            # "Motion").
            assert opened - bots[-1]["at"] >= 900, (opened, bots)
            # The numbers of the choice, as the referee's view has them: the fee, the multiplier
            # and how many have joined.
            view = _view(referee, page)
            multiplier = view["fieldMultiplier"]
            joined = sum(s.get("participation") == "PARTICIPATION_JOINED" for s in view["seats"])
            words = page.inner_text("#decision-text")
            for said in (
                f"Drop out: you pay a fee of {10 * multiplier} points (10 × {multiplier}, the "
                "field multiplier), which the round's winner takes",
                f"each of its payments (hand and capture combinations, the card count against "
                f"88) is multiplied by {multiplier}.",
                f"{joined} of the 3 players {'has' if joined == 1 else 'have'} joined so far",
            ):
                assert said in words, (said, words)
            break
    else:
        raise AssertionError("the player was never asked to join or drop after another seat")
    shot(page, "hachihachi-four-join-or-drop")
    page.get_by_role("button", name="Drop out").click()
    page.wait_for_function(
        "() => document.getElementById('events').innerText.includes('You dropped out')"
    )
    # The friend plays on in a browser of their own, to the game's end.
    friend_page = open_page(browser, page.input_value("#invite-3"))
    friend_page.page.wait_for_selector("#table[data-version]")
    play_to_end([page, friend_page.page])
    assert len(final_rows(page)) == 4
    watched.assert_clean()
    friend_page.assert_clean()


def test_two_friends_play_through_invitation_links_while_someone_watches(
    referee: RefereeProcess, browser: Browser
) -> None:
    host = open_page(browser, referee.http_url + "/")
    start_game(host.page, "koikoi", ["friend"])
    link = host.page.input_value("#invite-1")
    spectator_link = host.page.input_value("#invite-watch")
    assert urlsplit(link).query == "" and "token=" in urlsplit(link).fragment
    assert "token=" not in spectator_link
    friend = open_page(browser, link)
    friend.page.wait_for_selector("#table[data-version]")
    watcher = open_page(browser, spectator_link)
    watcher.page.wait_for_selector("#table[data-version]")
    assert watcher.page.is_hidden("#my-hand") and watcher.page.is_hidden("#resign")
    assert watcher.page.is_visible("#spectating")
    shot(friend.page, "friends-guest-start")
    play_to_end([host.page, friend.page], shots="friends")
    watcher.page.wait_for_selector("#table[data-status='over']")
    shot(watcher.page, "friends-spectator-over")
    for watched in (host, friend, watcher):
        assert final_rows(watched.page) == final_rows(host.page)
        watched.assert_clean()
    # Tokens never reached the referee in a URL: its log holds none of them.
    token = _fragment(link)["token"]
    assert token not in referee.log_text()


def test_a_reload_in_the_middle_of_a_game_resumes_where_it_was(
    referee: RefereeProcess, browser: Browser
) -> None:
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    # A deal may end the game within a few moves (a bot's early yaku and stop): deal again.
    for _ in range(10):
        page.goto(referee.http_url + "/")
        start_game(page, "koikoi", ["greedy"], clock=300)
        # The first moves by the keyboard alone.
        for _ in range(2):
            while state(page)["status"] == "playing" and not act(page, keyboard=True):
                page.wait_for_timeout(50)
        # The bot decides off the request path: its clock-less turn may still be on, so wait
        # for a person's clock to run again (or the game to end and deal again).
        page.wait_for_function(
            """() => document.querySelector("#table")?.dataset.status !== "playing"
                || /\\d:\\d\\d/.test(document.querySelector("#turn-clock")?.textContent ?? "")""",
            timeout=15_000,
        )
        if state(page)["status"] == "playing":
            break
    else:
        raise AssertionError("ten games in a row ended within two moves")
    assert page.is_visible("#turn-clock") and re.search(r"\d:\d\d", page.inner_text("#turn-clock"))
    page.wait_for_selector('#events-log[data-story="told"]')
    before = {
        "version": state(page)["version"],
        "hand": page.locator("#hand button.card").evaluate_all(HAND_NAMES),
        "field": page.inner_text("#field"),
        "story": page.locator("#events li").all_inner_texts(),
    }
    url = page.url
    page.reload()
    page.wait_for_selector(f"#table[data-version='{before['version']}']")
    # The story so far is told again from the game's log.
    page.wait_for_selector('#events-log[data-story="told"]')
    assert page.url == url
    after = {
        "version": state(page)["version"],
        "hand": page.locator("#hand button.card").evaluate_all(HAND_NAMES),
        "field": page.inner_text("#field"),
        "story": page.locator("#events li").all_inner_texts(),
    }
    assert after == before
    shot(page, "reload-resumed")
    # And the game goes on from there to its end.
    play_to_end([page])
    watched.assert_clean()


def _resign(page: Page) -> bool:
    """Resigns by the table's button, or the same in a decision's dialog when one is open;
    whether the page got to confirm it before the game ended."""
    for _ in range(10):
        if state(page)["status"] == "over":
            return False
        try:
            page.click("#decision-resign" if state(page)["dialog"] else "#resign", timeout=2_000)
            page.click("#resign-yes", timeout=2_000)
            return True
        except PlaywrightTimeoutError:
            # A dialog opened or closed meanwhile (a decision, or the game's end): look again.
            continue
    raise AssertionError("the resign button could not be clicked")


def test_the_clock_runs_out_and_a_player_resigns(referee: RefereeProcess, browser: Browser) -> None:
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    for _ in range(10):
        page.goto(referee.http_url + "/")
        start_game(page, "koikoi", ["greedy"], clock=1)
        # One second per move: the referee decides for the seat (its timeout bot), and says so
        # (unless the deal ended the game at once: then deal again).
        page.wait_for_function(
            "() => document.getElementById('events').innerText.includes('You ran out of time')"
            " || document.getElementById('table').dataset.status === 'over'"
        )
        if state(page)["status"] == "over":
            continue
        shot(page, "clock-timed-out")
        # Three timeouts in a row resign the seat (the default max_auto_decisions): on a loaded
        # machine that can come first, and then the game is dealt again.
        resigned = _resign(page)
        page.wait_for_selector("#table[data-status='over']")
        if resigned and "(out of time)" not in page.inner_text("#events"):
            break
    else:
        raise AssertionError("ten games in a row ended before the player could resign")
    assert page.inner_text("#status") == (
        "Game over by a resignation: Greedy bot 2 wins. You resigned."
    )
    assert page.is_hidden("#resign")
    watched.assert_clean()


def test_a_link_to_no_game_says_so(referee: RefereeProcess, browser: Browser) -> None:
    watched = open_page(browser, referee.http_url + "/#game=no-such-game&token=whatever")
    watched.page.wait_for_function(
        "() => document.getElementById('status').innerText.startsWith('This link leads to no game')"
    )
    # The way back to the lobby is offered where the message is (a reload could not help).
    assert "Reload" not in watched.page.inner_text("#status")
    # No empty table under it: only what went wrong and the way back.
    assert watched.page.is_hidden("#field") and watched.page.is_hidden("#seats")
    assert watched.page.inner_text("#game-title") == "No game at this link"
    watched.page.click("#status a")
    watched.page.wait_for_selector("#lobby:not([hidden])")


def test_the_pages_reconnect_by_themselves_when_the_referee_restarts(
    browser: Browser, tmp_path: Path
) -> None:
    """The games are in Redis: the referee stops and starts again on the same port, and each
    page's watch resumes from the last version it had, missing nothing."""
    with own_referee(tmp_path) as restarting:
        host = open_page(browser, restarting.http_url + "/")
        # A deal that ends the game at once (a hand that wins at the deal) leaves nothing to
        # reconnect to: deal again.
        for _ in range(10):
            host.page.goto(restarting.http_url + "/")
            start_game(host.page, "koikoi", ["friend"])
            if state(host.page)["status"] != "over":
                break
        else:
            raise AssertionError("ten games in a row ended at their deal")
        friend = open_page(browser, host.page.input_value("#invite-1"))
        friend.page.wait_for_selector("#table[data-version]")
        restarting.stop()
        restarting.start()
        play_to_end([host.page, friend.page])
        shot(friend.page, "reconnected-over")
        # Each page told every version once: the same number of lines (each page's own first
        # line, then every event worth a line), the same ending.
        told = [page.locator("#events li").all_inner_texts() for page in (host.page, friend.page)]
        assert len(told[0]) == len(told[1])
        assert told[0][-1].startswith("Game over") and told[1][-1].startswith("Game over")
        assert final_rows(host.page) == final_rows(friend.page)


def _axe_violations(page: Page, axe_source: str) -> list[dict[str, object]]:
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source)
    results = page.evaluate("async () => (await window.axe.run(document)).violations")
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in results
        if v["impact"] in ("serious", "critical")
    ]


def test_axe_finds_no_serious_violation(referee: RefereeProcess, browser: Browser) -> None:
    install(TABLE)
    axe_source = (TABLE / "node_modules" / "axe-core" / "axe.min.js").read_text()
    # axe-core is injected as an inline script: this page alone runs without the CSP.
    watched = open_page(browser, referee.http_url + "/", bypass_csp=True)
    page = watched.page
    page.wait_for_selector("#lobby:not([hidden])")
    page.wait_for_selector("#preset option", state="attached")
    found = {"lobby": _axe_violations(page, axe_source)}
    start_game(page, "koikoi", ["greedy"], clock=120)
    found["table"] = _axe_violations(page, axe_source)
    # Play on until the game asks a decision in a dialog (or ends), and scan that too.
    for _ in range(MAX_STEPS):
        now = state(page)
        if now["dialog"] or now["status"] == "over":
            break
        if not act(page):
            page.wait_for_timeout(50)
    found["later"] = _axe_violations(page, axe_source)
    shot(page, "axe-scanned")
    # A friends' game: the invitation panel in front of the host, then the score sheet's dialog.
    page.goto(referee.http_url + "/")
    start_game(page, "koikoi", ["friend"])
    page.wait_for_selector("#invites:not([hidden])")
    found["invitations"] = _axe_violations(page, axe_source)
    page.click("#sheet-open")
    page.wait_for_selector("#sheet[open] #sheet-body p")
    found["sheet"] = _axe_violations(page, axe_source)
    assert found == {"lobby": [], "table": [], "later": [], "invitations": [], "sheet": []}, (
        json.dumps(found, indent=1)
    )


# --- The decisions, on prepared deals ---------------------------------------------------------
# The whole games above decide from what the deal gives: they may never form a yaku or a
# dekiyaku. These follow the scripted deals of test_end_to_end.py, with the page playing seat 1
# (index 0) and the test the others over the HTTP API, so each dialog comes at a known move.

DIALOG_TITLES = {
    game_pb2.WAITING_FOR_KOIKOI_DECISION: "Koi-koi or stop?",
    game_pb2.WAITING_FOR_SAGE_DECISION: "Sage or shōbu?",
}
MOVE_LABELS = {
    moves_pb2.MOVE_KIND_KOIKOI: "Koi-koi (go on)",
    moves_pb2.MOVE_KIND_STOP: "Stop (score now)",
    moves_pb2.MOVE_KIND_SAGE: "Sage (go on)",
    moves_pb2.MOVE_KIND_SHOBU: "Shōbu (end the round)",
}


def _read_dialog(page: Page, texts: list[str] | None, pictured: list[int] | None) -> None:
    if texts is not None:
        texts.append(page.inner_text("#decision-text"))
    if pictured is not None:
        pictured.append(page.locator("#decision-text .about").count())


def play_script_at_seat_0(
    referee: RefereeProcess,
    page: Page,
    request: service_pb2.CreateGameRequest,
    script: Any,
    texts: list[str] | None = None,
    pictured: list[int] | None = None,
) -> list[str]:
    """Creates the game, opens seat 0's table and plays ``script`` (its seat-0 steps by clicks,
    the others over HTTP); the titles of the dialogs the page opened, in order. ``texts`` and
    ``pictured`` collect each dialog's text and how many card pictures its text holds."""
    created = httpx.post(
        f"{referee.http_url}/v1/games", json=json_format.MessageToDict(request), timeout=10
    )
    assert created.status_code == 200, created.text
    game, tokens = created.json()["game"], created.json()["playerTokens"]
    page.goto(f"{referee.http_url}/#game={game}&token={tokens[0]}")
    page.wait_for_selector('#table[data-version="1"]')
    titles = []
    for number, step in enumerate(script, start=1):
        move = step.move
        if step.seat != 0:
            moved = httpx.post(
                f"{referee.http_url}/v1/games/{game}/moves",
                json={"move": json_format.MessageToDict(move), "expectedVersion": number},
                headers={"Authorization": f"Bearer {tokens[step.seat]}"},
                timeout=10,
            )
            assert moved.status_code == 200, moved.text
        elif move.kind == moves_pb2.MOVE_KIND_PLAY:
            card = f'#hand button.card.playable[data-card="{move.card}"]'
            if move.target:
                # Two field cards match: the page asks which one to take.
                target = page.get_attribute(f'#field [data-card="{move.target}"]', "aria-label")
                page.click(card)
                page.wait_for_selector("#decision[open]")
                titles.append(page.inner_text("#decision-title"))
                _read_dialog(page, texts, pictured)
                page.click(f'#decision-moves button:has-text("Take {target}")')
            else:
                page.click(card)
        else:
            page.wait_for_selector("#decision[open]")
            titles.append(page.inner_text("#decision-title"))
            _read_dialog(page, texts, pictured)
            page.click(f'#decision-moves button:text-is("{MOVE_LABELS[move.kind]}")')
        page.wait_for_selector(f'#table[data-version="{number + 1}"]:not([aria-busy])')
        title = DIALOG_TITLES.get(step.waiting)
        if title is not None and number < len(script) and script[number].seat == 0:
            # The game waits for this page's decision: the dialog is open, with the moves.
            page.wait_for_selector("#decision[open]")
            assert page.inner_text("#decision-title") == title
    return titles


def test_the_koikoi_decision_comes_as_a_dialog(referee: RefereeProcess, browser: Browser) -> None:
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    texts: list[str] = []
    titles = play_script_at_seat_0(referee, page, koikoi_request(), KOIKOI_SCRIPT, texts)
    assert titles == ["Koi-koi or stop?"]
    # The numbers of the choice: what the yaku are worth, and what going on risks.
    assert re.search(r"Your yaku are worth \d+ points?\.", texts[0]), texts
    assert re.search(r"Going on risks it: Bob still holds \d+ cards?, with yaku worth", texts[0])
    assert page.inner_text("#status").startswith("Game over")
    story = page.inner_text("#events")
    assert "You called koi-koi (1)." in story and "Bob" in story
    assert [row[0] for row in final_rows(page)] == ["Ann", "Bob"]
    watched.assert_clean()


def test_the_sage_decision_and_a_target_choice_come_as_dialogs(
    referee: RefereeProcess, browser: Browser
) -> None:
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    texts: list[str] = []
    pictured: list[int] = []
    titles = play_script_at_seat_0(referee, page, hachi_request(), HACHI_SCRIPT, texts, pictured)
    assert titles == ["Choose a card to take", "Sage or shōbu?"]
    # The card a target choice is about is shown in the dialog, which covers the table.
    assert pictured[0] == 1
    # The numbers of sage or shōbu, from the script: inoshikacho (35) paid by both others on a
    # small field (x1); captures worth 45 card points; an overtake would cost half the first
    # payment back to each other player and at least twice the smallest dekiyaku (35).
    sage = texts[1]
    for said in (
        "paid 35 points by each other player (their values × 1, the field multiplier): "
        "70 points in all this round.",
        "Shōbu ends the round now: you keep that and win the round; there is no card count.",
        "you have 45 card points now, -43 against 88",
        "you hand back 17.5 points to each of the two others and pay its maker twice its value "
        "(at least 70 points)",
    ):
        assert said in sage, (said, sage)
    # What sage can still form: the nearest dekiyaku within reach, as the seat's panel says.
    (reach,) = re.findall(r"Within reach if you go on: (.+)\.", sage)
    assert all(re.fullmatch(SAYS["en"]["reach"], line) for line in reach.split("; ")), reach
    shot(page, "hachihachi-after-shobu")
    assert page.inner_text("#status").startswith("Game over")
    assert "You called shōbu." in page.inner_text("#events")
    watched.assert_clean()


def test_a_hint_and_a_review_come_from_the_referees_expert(
    referee: RefereeProcess, browser: Browser
) -> None:
    """TABLE.md, "Help from the expert": the hint is one of the seat's legal moves and the API's
    own answer for that decision; after the game, the review is read on the page."""
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    start_to_my_turn(page, "koikoi", ["greedy"])
    fragment = _fragment(page.url)
    auth = {"Authorization": f"Bearer {fragment['token']}"}
    page.click("#hint")
    page.wait_for_selector("#hint-move", timeout=60_000)
    told = page.inner_text("#hint-move")
    # The same decision asked of the API: answered from the workers' stored result.
    answer = httpx.get(
        f"{referee.http_url}/v1/games/{fragment['game']}/hint",
        params={"waitSeconds": "20"},
        headers=auth,
        timeout=30,
    ).json()
    assert answer["status"] == "ADVICE_STATUS_READY", answer
    view = httpx.get(
        f"{referee.http_url}/v1/games/{fragment['game']}", headers=auth, timeout=10
    ).json()["view"]
    assert answer["move"] in view["legalMoves"]
    assert str(answer["version"]) == page.get_attribute("#table", "data-version")
    move = moves_pb2.Move()
    json_format.ParseDict(answer["move"], move)
    # The first decision is a play: the page names that card and outlines it in the hand.
    hinted = page.locator("#hand button.card.hinted")
    assert hinted.count() == 1
    assert hinted.get_attribute("data-card") == str(move.card)
    assert told.startswith("The expert would play ")
    assert page.locator("#advice .estimates li").count() >= 1
    shot(page, "koikoi-hint")
    play_to_end([page])
    page.click("#review")
    page.wait_for_selector("#review-summary", timeout=90_000)
    summary = page.inner_text("#review-summary")
    assert re.match(r"Of your \d+ decisions?, the expert would", summary), summary
    shot(page, "koikoi-review")
    watched.assert_clean()


def _month(card: int) -> int:
    return (card - 1) // 4 + 1


def test_the_buttons_below_the_hand_stay_put_when_a_preview_goes(
    referee: RefereeProcess, browser: Browser
) -> None:
    """A preview of several lines that goes (the focus or the pointer leaves the hand) does not
    move the buttons below it: a tap or click on one lands where it was aimed."""
    watched = open_page(browser, referee.http_url + "/", locale="fr-FR", **PHONE)
    page = watched.page
    for _ in range(10):
        page.goto(referee.http_url + "/")
        start_to_my_turn(page, "koikoi", ["greedy"])
        # The empty preview holds one line.
        line = page.locator("#preview").bounding_box()["height"]  # type: ignore[index]
        # A card whose preview takes more than one line on the phone (French says the most).
        tall = None
        for card in page.locator("#hand button.card.playable").all():
            card.focus()
            if page.locator("#preview").bounding_box()["height"] > 1.5 * line:  # type: ignore[index]
                tall = card
                break
        if tall is not None:
            break
    else:
        raise AssertionError("no deal of ten had a preview of several lines")
    aimed = page.locator("#guide-open").bounding_box()
    # The focus leaves the hand: the preview goes, the buttons stay.
    page.focus("#sheet-open")
    assert page.inner_text("#preview") == ""
    assert page.locator("#guide-open").bounding_box() == aimed
    # The pointer points at the card, then leaves the hand for the guide's button.
    tall.hover()
    assert page.inner_text("#preview") != ""
    page.hover("#guide-open")
    assert page.inner_text("#preview") == ""
    assert page.locator("#guide-open").bounding_box() == aimed
    open_dialog(page, "#guide-open", "#guide")
    watched.assert_clean()


def test_a_hand_card_says_what_it_will_take_before_it_is_played(
    referee: RefereeProcess, browser: Browser
) -> None:
    """TABLE.md, "What a card will do": pointing at each hand card outlines the field cards of its
    month that it would take (or says it joins the field); a click out of turn says why."""
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    start_to_my_turn(page, "koikoi", ["greedy"])
    field = [int(c) for c in page.locator("#field .card").evaluate_all(CARD_NUMBERS)]
    hand = [int(c) for c in page.locator("#hand button.card").evaluate_all(CARD_NUMBERS)]

    for card in hand:
        page.hover(f'#hand button.card[data-card="{card}"]')
        words = page.inner_text("#preview")
        outlined = {
            int(c) for c in page.locator("#field .card.would-take").evaluate_all(CARD_NUMBERS)
        }
        same = {c for c in field if _month(c) == _month(card)}
        assert outlined == same, (card, words)
        if not same:
            assert words.endswith("takes nothing: it joins the field."), words
        elif len(same) == 2:
            assert "takes one of" in words and "you choose" in words, words
        else:
            assert " takes " in words, words

    # The keyboard's focus shows the same as the pointer.
    page.mouse.move(0, 0)
    page.focus(f'#hand button.card[data-card="{hand[0]}"]')
    assert page.inner_text("#preview") != ""
    watched.assert_clean()


def test_a_click_out_of_turn_says_why(referee: RefereeProcess, browser: Browser) -> None:
    created = httpx.post(
        referee.http_url + "/v1/games",
        json={"kind": "GAME_KIND_KOI_KOI", "players": ["Ann", "Bob"]},
        timeout=10,
    ).json()
    first = created["view"]["turn"]
    waiting = 1 - first
    link = f"{referee.http_url}/#game={created['game']}&token={created['playerTokens'][waiting]}"
    watched = open_page(browser, link)
    page = watched.page
    page.wait_for_selector("#table[data-my-turn='false']")
    # aria-disabled (not playable now), yet a person can click it: force past the check.
    page.locator("#hand button.card").first.click(force=True)
    assert page.inner_text("#preview").startswith("It is not your turn yet")
    watched.assert_clean()


def assert_turn_on_screen(page: Page, height: int) -> None:
    """TABLE.md, "Phones": whose turn it is, the field and the hand are on screen together, with
    the page scrolled to its top; every button is a touch target of 44 px at least."""
    page.evaluate("window.scrollTo(0, 0)")
    for selector in ("#status", "#field", "#hand"):
        box = page.locator(selector).bounding_box()
        assert box is not None, selector
        assert box["y"] >= 0 and box["y"] + box["height"] <= height, (selector, box)
    small = page.locator("#table button:visible").evaluate_all(
        "(buttons) => buttons.filter((b) => b.getBoundingClientRect().height < 44).length"
    )
    assert small == 0


def test_a_hachihachi_game_of_six_on_a_phone_shows_the_turn_the_field_and_the_hand_at_once(
    referee: RefereeProcess, browser: Browser
) -> None:
    """TABLE.md, "Phones": Hachi-Hachi with more than three seats included (six panels)."""
    watched = open_page(browser, referee.http_url + "/", **PHONE)
    page = watched.page
    # Up to twelve rounds: with six seats the player sits out the rounds in which three others
    # joined first. Asked, the player joins.
    start_game(page, "hachihachi", ["greedy"] * 5, rounds=12)
    for _ in range(MAX_STEPS):
        now = state(page)
        assert now["status"] != "over", "twelve rounds went by without the player's turn to play"
        playable = page.locator("#hand button.card.playable").count()
        if now["mine"] == "true" and not now["dialog"] and playable:
            break
        join = page.locator('#decision[open] button[data-kind="join"]')
        if now["dialog"] and join.count():
            join.click()
            page.wait_for_timeout(50)
        elif not act(page):
            page.wait_for_timeout(50)
    else:
        raise AssertionError(f"no turn to play in {MAX_STEPS} steps")
    assert page.locator("#seats .seat").count() == 6
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert_turn_on_screen(page, 844)
    shot(page, "hachihachi-six-phone-turn")
    watched.assert_clean()


def test_a_koikoi_game_on_a_phone_shows_the_turn_the_field_and_the_hand_at_once(
    referee: RefereeProcess, browser: Browser
) -> None:
    watched = open_page(browser, referee.http_url + "/", **PHONE)
    page = watched.page
    start_to_my_turn(page, "koikoi", ["greedy"])
    assert_turn_on_screen(page, 844)
    shot(page, "koikoi-phone-turn")
    watched.assert_clean()


# --- Languages (TABLE.md, "Languages") ---------------------------------------------------------
# One whole game per language, the browser's language choosing the table's; desktop and phone
# sizes split across them. Each reads what the page says in that language: the lobby, the turn,
# a card's name with its Japanese name, what a hand card will take, the end of the game; no
# English phrase of the table shows through; axe-core finds no serious violation on the way.

#: What each language says at known places: the lobby's title, the start of the status at the
#: player's turn and at the end, the story's line for the player's own play, what a hand card
#: does (takes / joins the field), and a card's name (kind and month in the language, then the
#: Japanese name).
SAYS: dict[str, dict[str, str]] = {
    "en": {
        "lobby": "New game",
        "turn": "Your turn:",
        "over": "Game over by ",
        "played": "You played ",
        "preview": r"(takes .+\.|takes nothing: it joins the field\.)$",
        "card": r"[a-z ]+ \((bright|animal|ribbon|plain), [A-Z][a-z]+; [A-Z][^,]+, [^\x00-\x7f]+\)",
        "sheet": "Player",
        "reach": r".+ \d+/\d+ · \d+ points?",
        "summary": r"Round \d+ is over",
        "round": "Round",
        "rules": "Fuda-wiki (default): 12 rounds",
        "card points": "card points {}",
        "hint": r"The expert would .+\.",
        "review": r"Of your \d+ decisions?, the expert would .+",
    },
    "fr": {
        "lobby": "Nouvelle partie",
        "turn": "À vous :",
        "over": "Partie finie par ",
        "played": "Vous avez joué ",
        "preview": r"(prend .+\.|ne prend rien : elle va sur le tapis\.)$",
        "card": r".+ \((lumière|animal|ruban|simple), [a-zéû]+ ; [A-Z][^,]+, [^\x00-\x7f]+\)",
        "sheet": "Joueur",
        "reach": r".+ \d+/\d+ · \d+ points?",
        "summary": r"Fin de la manche \d+",
        "round": "Manche",
        "rules": "Fuda-wiki (par défaut) : 12 manches",
        "card points": "points des cartes {}",
        "hint": r"L'expert choisirait de .+\.",
        "review": r"Sur vos \d+ décisions?, l'expert aurait .+",
    },
    "ja": {
        "lobby": "新しい対局",
        "turn": "あなたの番：",
        "over": "対局終了",
        "played": "あなたが",
        "preview": r"(を取ります。|を取ります（選べます）。|場に置かれます。)$",
        "card": r"[^\x00-\x7f]+（[A-Z][A-Za-zōū ()]+、(光|タネ|短冊|カス)・\d+月）",
        "sheet": "プレイヤー",
        "reach": r".+ \d+/\d+・\d+点",
        "summary": r"第\d+回戦の結果",
        "round": "回戦",
        "rules": "fuda-wiki（標準）：12回戦",
        "card points": "札の点 {}",
        "hint": r"エキスパートなら「.+」。",
        "review": r"あなたの\d+回の判断.+",
    },
}

#: English phrases of the table that must not show through another language's page.
ENGLISH = (
    "Your hand",
    "What happened",
    "Stock:",
    "Waiting for",
    "Your turn",
    "No captures",
    "captures large",
    "cards captured",
    "formed yet",
    "Game over",
    "Round ",
    "Seat ",
    "in hand",
    "Start the game",
    # The rule sets as the referee describes them (in English): the lobby names them itself.
    "The rules",
    "(default)",
)


def _assert_no_english(page: Page, language: str) -> None:
    if language == "en":
        return
    text = page.inner_text("body")
    leaks = [phrase for phrase in ENGLISH if phrase in text]
    assert not leaks, (language, leaks)


@pytest.mark.parametrize(
    ("language", "locale", "size", "kind", "motion"),
    [
        # Each language at both sizes, in both games, with and without reduced motion.
        ("en", "en-GB", "desktop", "koikoi", "no-preference"),
        ("en", "en-US", "phone", "hachihachi", "reduce"),
        ("fr", "fr-FR", "phone", "hachihachi", "no-preference"),
        ("fr", "fr-CA", "desktop", "koikoi", "reduce"),
        ("ja", "ja-JP", "phone", "koikoi", "reduce"),
        ("ja", "ja-JP", "desktop", "hachihachi", "no-preference"),
    ],
)
def test_a_whole_game_in_each_language(
    referee: RefereeProcess,
    browser: Browser,
    language: str,
    locale: str,
    size: str,
    kind: str,
    motion: str,
) -> None:
    install(TABLE)
    axe_source = (TABLE / "node_modules" / "axe-core" / "axe.min.js").read_text()
    viewport = (
        {"width": 1280, "height": 800} if size == "desktop" else {"width": 390, "height": 844}
    )
    # axe-core is injected as an inline script: these pages run without the CSP.
    watched = open_page(
        browser,
        referee.http_url + "/",
        locale=locale,
        viewport=viewport,
        is_mobile=size == "phone",
        bypass_csp=True,
        reduced_motion=motion,
    )
    page = watched.page
    says = SAYS[language]
    page.wait_for_selector("#preset option", state="attached")
    # The browser's language chose the table's: the page says so and speaks it.
    assert page.get_attribute("html", "lang") == language
    assert page.input_value("#language") == language
    assert page.inner_text("#lobby-title") == says["lobby"]
    # The default rule set, in the player's words and language.
    assert page.inner_text("#preset option:checked").startswith(says["rules"])
    found = {"lobby": _axe_violations(page, axe_source)}
    _assert_no_english(page, language)
    opponents = ["greedy", "random"] if kind == "hachihachi" else ["greedy"]
    # Two rounds: the first one's summary comes while the game goes on.
    start_game(page, kind, opponents, rounds=2)
    first_drawn = int(state(page)["version"])
    # Play to the player's first turn (a deal may also end the game at once: then no turn).
    page.wait_for_function(
        """() => document.getElementById("table").dataset.myTurn === "true"
            || document.getElementById("table").dataset.status === "over" """
    )
    if state(page)["mine"] == "true":
        assert page.inner_text("#status").startswith(says["turn"]), page.inner_text("#status")
        if size == "phone":
            assert_turn_on_screen(page, viewport["height"])
        names = page.locator("#hand button.card").evaluate_all(HAND_NAMES)
        assert names and all(re.fullmatch(says["card"], name) for name in names), names
        playable = page.locator("#hand button.card.playable").first
        playable.hover() if size == "desktop" else playable.focus()
        assert re.search(says["preview"], page.inner_text("#preview")), page.inner_text("#preview")
        if kind == "hachihachi":
            # The field multiplier and each seat's card points, as the referee's view has them.
            view = _view(referee, page)
            assert f"×{view['fieldMultiplier']}" in page.inner_text("#field-info")
            _assert_card_points(page, view, says["card points"])
        found["table"] = _axe_violations(page, axe_source)
        _assert_no_english(page, language)
        shot(page, f"language-{language}-{size}-turn")
        # The yaku guide, in the language: every combination of the rules (Hachi-Hachi: 10
        # dekiyaku and 12 teyaku; Koi-Koi: the preset's enabled yaku, at least ten).
        open_dialog(page, "#guide-open", "#guide")
        entries = page.locator("#guide-body li[data-yaku]").count()
        assert entries == 22 if kind == "hachihachi" else entries >= 10, entries
        found["guide"] = _axe_violations(page, axe_source)
        _assert_no_english(page, language)
        shot(page, f"language-{language}-{size}-guide")
        page.click("#guide-close")
        # A hint, in the language: one of the legal moves, the API's own answer for the decision.
        page.click("#hint")
        page.wait_for_selector("#hint-move", timeout=BOT_MS)
        assert re.fullmatch(says["hint"], page.inner_text("#hint-move")), page.inner_text(
            "#hint-move"
        )
        fragment = _fragment(page.url)
        answer = httpx.get(
            f"{referee.http_url}/v1/games/{fragment['game']}/hint",
            params={"waitSeconds": "20"},
            headers={"Authorization": f"Bearer {fragment['token']}"},
            timeout=30,
        ).json()
        assert answer["status"] == "ADVICE_STATUS_READY", answer
        assert answer["move"] in _view(referee, page)["legalMoves"]
        hinted = page.locator("#hand button.card.hinted")
        assert hinted.count() == 1
        assert hinted.get_attribute("data-card") == str(
            cards_pb2.Card.Value(answer["move"]["card"])
        )
        found["hint"] = _axe_violations(page, axe_source)
        _assert_no_english(page, language)
    # Play on, reading what is within reach (once) and each round's summary.
    reach_read = summary_read = False
    said: dict[int, list[str]] = {}
    for _ in range(MAX_STEPS):
        if state(page)["status"] == "over":
            break
        if not reach_read and page.locator(".reach li").count():
            for line in page.locator(".reach li").all_inner_texts():
                assert re.fullmatch(says["reach"], line), line
            reach_read = True
        if page.evaluate("document.getElementById('round-summary').open"):
            title = page.inner_text("#round-summary-title")
            assert re.fullmatch(says["summary"], title), title
            page.wait_for_selector("#round-summary .running-scores li")
            running = page.locator("#round-summary .running-scores li").all_inner_texts()
            assert len(running) == len(opponents) + 1
            said[int(re.findall(r"\d+", title)[0])] = [line.split(" ")[-1] for line in running]
            if not summary_read:
                found["summary"] = _axe_violations(page, axe_source)
                _assert_no_english(page, language)
                shot(page, f"language-{language}-{size}-summary")
            summary_read = True
            page.click("#round-summary-close")
            continue
        # A summary that opens meanwhile waits for the check above to read it.
        if not act(page, dismiss=False):
            page.wait_for_timeout(50)
    else:
        raise AssertionError(f"the game did not end in {MAX_STEPS} steps")
    shot(page, f"language-{language}-{size}-over")
    # The first round's summary was read, unless that round ended before the page watched the
    # game (at its deal, or by the bot's first move on a loaded machine).
    # Nor when the second round ended at its deal: the game was over at once, and its end shows
    # the sheet (with both rounds) instead of a summary to dismiss.
    rounds = _round_results(referee, page)
    at_deal = [rounds[n]["end"] == "ROUND_END_DEAL_CHECK" for n in (1, 2) if n in rounds]
    unseen = _round_end_versions(referee, page).get(1, first_drawn + 1) <= first_drawn
    assert summary_read or any(at_deal) or unseen, (rounds, page.inner_text("#events")[-1500:])
    # Each summary's totals after its round are the referee's: its results' sums so far.
    results = _round_results(referee, page)
    totals = [0] * (len(opponents) + 1)
    for number in sorted(results):
        for seat, gain in enumerate(_gains(results[number], len(totals))):
            totals[seat] += gain
        if number in said:
            assert said[number] == [_amount(total, kind, language) for total in totals], number
    assert page.inner_text("#status").startswith(says["over"]), page.inner_text("#status")
    assert page.locator("#final thead th").first.inner_text() == says["sheet"]
    if kind == "hachihachi":
        _assert_card_points(page, _view(referee, page), says["card points"])
    # The score sheet, in the language, adds up to the final scores or balances.
    page.wait_for_selector("#final-sheet .sheet")
    assert page.locator("#final-sheet .sheet thead th").first.inner_text() == says["round"]
    assert _sheet_totals(page, "#final-sheet") == [row[1] for row in final_rows(page)]
    # The story tells the end too, unless the game ended at its deal, before the page watched it.
    story = page.locator("#events li").all_inner_texts()
    assert len(story) == 1 or says["over"] in story[-1], story
    found["over"] = _axe_violations(page, axe_source)
    _assert_no_english(page, language)
    # A capture pile shown large, in the language (the last round's piles stay on the table).
    if page.locator("#seats .captures[data-seat]").count():
        page.locator("#seats .captures[data-seat] button.pile-open").first.click()
        page.wait_for_selector("#pile[open] .pile-cards .card")
        found["pile"] = _axe_violations(page, axe_source)
        _assert_no_english(page, language)
        shot(page, f"language-{language}-{size}-pile")
        page.keyboard.press("Escape")
        page.wait_for_selector("#pile:not([open])", state="attached")
    # The review of the game, in the language.
    page.click("#review")
    page.wait_for_selector("#review-summary", timeout=90_000)
    assert re.fullmatch(says["review"], page.inner_text("#review-summary")), page.inner_text(
        "#review-summary"
    )
    found["review"] = _axe_violations(page, axe_source)
    _assert_no_english(page, language)
    # The spectators' link, opened in a second browser context: the same game, in the language.
    page.click("#invites-open")
    link = page.input_value("#invite-watch")
    second = open_page(browser, link, locale=locale, viewport=viewport, is_mobile=size == "phone")
    second.page.wait_for_selector('#events-log[data-story="told"]')
    assert second.page.inner_text("#status").startswith(says["over"])
    assert final_rows(second.page) == final_rows(page)
    _assert_no_english(second.page, language)
    second.assert_clean()
    assert all(not violations for violations in found.values()), json.dumps(found, indent=1)
    watched.assert_clean()


def test_the_language_is_switched_on_the_page_and_remembered(
    referee: RefereeProcess, browser: Browser
) -> None:
    watched = open_page(browser, referee.http_url + "/", locale="en-US")
    page = watched.page
    page.wait_for_selector("#lobby:not([hidden])")
    assert page.inner_text("#lobby-title") == "New game"
    with page.expect_navigation():
        page.select_option("#language", "ja")
    page.wait_for_selector("#lobby:not([hidden])")
    assert page.inner_text("#lobby-title") == "新しい対局"
    assert page.inner_text("#opponent-1 option:checked") == "貪欲ボット"
    # Remembered by this browser: a new page of the same context opens in Japanese, although
    # the browser's language is English.
    again = Watched(page.context.new_page())
    again.page.goto(referee.http_url + "/")
    again.page.wait_for_selector("#lobby:not([hidden])")
    assert again.page.inner_text("#lobby-title") == "新しい対局"
    assert again.page.get_attribute("html", "lang") == "ja"
    watched.assert_clean()
    again.assert_clean()


def test_the_lobby_remembers_the_last_choices(referee: RefereeProcess, browser: Browser) -> None:
    """TABLE.md, "Lobby": sensible defaults, the last choices remembered (this browser)."""
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    page.wait_for_selector("#preset option", state="attached")
    # The defaults: Koi-Koi under the default rules, no clock, the language's default name.
    assert page.is_checked('input[name="kind"][value="koikoi"]')
    assert page.inner_text("#preset option:checked").startswith("Fuda-wiki (default)")
    assert page.input_value("#clock-seconds") == "0"
    assert page.input_value("#name") == "Player 1"
    page.check('input[name="kind"][value="hachihachi"]')
    page.select_option("#seat-count", "4")
    page.fill("#rounds", "3")
    page.fill("#clock-seconds", "45")
    page.fill("#name", "Mika")
    page.select_option("#opponent-1", "random")
    page.select_option("#opponent-2", "friend")
    page.select_option("#opponent-3", "expert")
    page.check('input[name="kind"][value="koikoi"]')
    page.wait_for_selector('#preset[data-kind="koikoi"]', state="attached")
    page.select_option("#preset", "nintendo")
    page.select_option("#opponent-1", "random")
    page.click("#start")
    page.wait_for_selector("#table[data-version]")
    # A later visit of the lobby, in another page of the same browser, starts from those choices.
    again = Watched(page.context.new_page())
    again.page.goto(referee.http_url + "/")
    again.page.wait_for_selector('#preset[data-kind="koikoi"]', state="attached")
    lobby = again.page
    assert lobby.is_checked('input[name="kind"][value="koikoi"]')
    assert lobby.input_value("#preset") == "nintendo"
    assert (lobby.input_value("#rounds"), lobby.input_value("#clock-seconds")) == ("3", "45")
    assert lobby.input_value("#name") == "Mika"
    assert lobby.input_value("#opponent-1") == "random"
    # Hachi-Hachi: its own rule set (the default, never changed) and the seats last drawn.
    lobby.check('input[name="kind"][value="hachihachi"]')
    # Both games have a "fudawiki" set: wait for Hachi-Hachi's list itself.
    lobby.wait_for_selector('#preset[data-kind="hachihachi"]', state="attached")
    assert lobby.input_value("#seat-count") == "4"
    assert lobby.input_value("#preset") == "fudawiki"
    watched.assert_clean()
    again.assert_clean()


def test_a_game_switched_back_at_once_keeps_its_own_rule_sets(
    referee: RefereeProcess, browser: Browser
) -> None:
    """The rule sets come from the referee after each switch of game: a list that arrives after
    the player switched back is dropped, and the game created uses the list on screen."""
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    page.wait_for_selector('#preset[data-kind="koikoi"]', state="attached")
    held: list[Route] = []

    def hold_hachihachi(route: Route) -> None:
        if "HACHI" in unquote(route.request.url).upper() or "kind=2" in route.request.url:
            held.append(route)
        else:
            route.continue_()

    page.route("**/v1/rules/presets*", hold_hachihachi)
    page.check('input[name="kind"][value="hachihachi"]')
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    page.check('input[name="kind"][value="koikoi"]')
    page.wait_for_selector('#preset[data-kind="koikoi"]', state="attached")
    page.select_option("#preset", "nintendo")
    # Hachi-Hachi's list arrives late: the Koi-Koi list stays, with the player's choice.
    held[0].continue_()
    page.wait_for_timeout(500)
    assert page.get_attribute("#preset", "data-kind") == "koikoi"
    assert page.input_value("#preset") == "nintendo"
    page.unroute("**/v1/rules/presets*")
    start_game(page, "koikoi", ["greedy"])
    view = _view(referee, page)
    assert view["rules"]["preset"] == "nintendo", view["rules"]
    watched.assert_clean()


def test_the_story_is_told_again_in_the_language_switched_to(
    referee: RefereeProcess, browser: Browser
) -> None:
    watched = open_page(browser, referee.http_url + "/", locale="en-US")
    page = watched.page
    # The story must hold a move of the player's: not a game that ended at its deal.
    start_to_my_turn(page, "koikoi", ["greedy"])
    play_to_end([page])
    page.wait_for_selector('#events-log[data-story="told"]')
    before = page.locator("#events li").all_inner_texts()
    assert before[0] == "You sit at seat 1. The game is on.", before
    assert any(line.startswith("You played ") for line in before), before
    with page.expect_navigation():
        page.select_option("#language", "fr")
    page.wait_for_selector('#events-log[data-story="told"]')
    after = page.locator("#events li").all_inner_texts()
    # Line for line the same story, every line in French now (a line of names and numbers only
    # could read the same: none does in a game's story).
    assert len(after) == len(before), (before, after)
    assert after[0] == "Vous êtes à la place 1. La partie est en cours.", after
    assert not set(after) & set(before), set(after) & set(before)
    assert any(line.startswith("Vous avez joué ") for line in after), after
    _assert_no_english(page, "fr")
    watched.assert_clean()


# --- Yaku within reach and the yaku guide (TABLE.md, "Yaku") -----------------------------------

_LIGHTS = {1, 9, 29, 41, 45}
_ANIMALS = {5, 13, 17, 21, 25, 30, 33, 37, 42}
_RIBBONS = {2, 6, 10, 14, 18, 22, 26, 34, 38, 43}
_PLAINS = set(range(1, 49)) - _LIGHTS - _ANIMALS - _RIBBONS
#: The cards of each Koi-Koi yaku under the default preset (fudawiki: the sake cup is an animal
#: and a plain), and how many it needs: worked out here from CARDS.md and RULES.md 1.4.
KOIKOI_YAKU_CARDS: dict[str, tuple[set[int], int]] = {
    "goko": (_LIGHTS, 5),
    "shiko": (_LIGHTS - {41}, 4),
    "ame-shiko": (_LIGHTS, 4),
    "sanko": (_LIGHTS - {41}, 3),
    "inoshikacho": ({21, 25, 37}, 3),
    "tane": (_ANIMALS, 5),
    "akatan-aotan": ({2, 6, 10, 22, 34, 38}, 6),
    "akatan": ({2, 6, 10}, 3),
    "aotan": ({22, 34, 38}, 3),
    "tan": (_RIBBONS, 5),
    "kasu": (_PLAINS | {33}, 10),
    "hanami-zake": ({9, 33}, 2),
    "tsukimi-zake": ({29, 33}, 2),
}


def _card_points(card: int) -> int:
    """Hachi-Hachi's value of a card (CARDS.md): light 20, animal 10, ribbon 5, plain 1."""
    if card in _LIGHTS:
        return 20
    if card in _ANIMALS:
        return 10
    return 5 if card in _RIBBONS else 1


def _assert_card_points(page: Page, view: dict[str, Any], says: str) -> None:
    """Each seat's panel says its card points, as the view's captures make them."""
    for seat in view["seats"]:
        if seat.get("participation") == "PARTICIPATION_DROPPED":
            continue
        captured = _card_numbers(seat.get("captured", []))
        points = sum(_card_points(card) for card in captured)
        panel = page.inner_text(f'.seat[data-seat="{seat.get("seat", 0)}"] .facts')
        # Then what they stand against (88), in brackets: full-width ones in Japanese.
        assert re.search(re.escape(says.format(points)) + r" ?[(（]", panel), panel


def _view(referee: RefereeProcess, page: Page) -> dict[str, Any]:
    fragment = _fragment(page.url)
    answer = httpx.get(
        f"{referee.http_url}/v1/games/{fragment['game']}",
        headers={"Authorization": f"Bearer {fragment['token']}"},
        timeout=10,
    )
    view: dict[str, Any] = answer.json()["view"]
    return view


def _card_numbers(cards: list[str]) -> set[int]:
    return {cards_pb2.Card.Value(card) if isinstance(card, str) else card for card in cards}


def test_the_seats_show_what_is_within_reach_and_the_guide_lists_the_rules(
    referee: RefereeProcess, browser: Browser
) -> None:
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    # Play until a seat holds a card of some yaku it has not formed (or the game ends: again).
    for _ in range(10):
        page.goto(referee.http_url + "/")
        start_game(page, "koikoi", ["greedy"])
        for _ in range(MAX_STEPS):
            if state(page)["status"] == "over" or page.locator(".reach li").count() >= 2:
                break
            if not act(page):
                page.wait_for_timeout(50)
        if page.locator(".reach li").count() >= 2 and state(page)["status"] == "playing":
            # Compared when the game waits for this seat: nothing moves meanwhile.
            page.wait_for_function(
                """() => document.getElementById("table").dataset.myTurn === "true"
                    || document.getElementById("table").dataset.status === "over" """,
                timeout=BOT_MS,
            )
            if page.locator(".reach li").count() >= 2 and state(page)["status"] == "playing":
                break
    else:
        raise AssertionError("no game of ten showed anything within reach")
    page.wait_for_function("() => !document.getElementById('table').hasAttribute('aria-busy')")
    view = _view(referee, page)
    assert page.get_attribute("#table", "data-version") == str(view["version"])
    shot(page, "koikoi-within-reach")
    for seat in view["seats"]:
        held = _card_numbers(seat.get("captured", []))
        formed = {yaku["id"] for yaku in seat.get("yaku", [])}
        items = page.locator(f'.seat[data-seat="{seat.get("seat", 0)}"] .reach li')
        for item in items.all():
            yaku = item.get_attribute("data-yaku") or ""
            month = view["roundMonth"]
            # tsukifuda: the round month's four cards.
            cards, need = KOIKOI_YAKU_CARDS.get(yaku, (set(range(4 * month - 3, 4 * month + 1)), 4))
            assert yaku in KOIKOI_YAKU_CARDS or yaku == "tsukifuda", yaku
            have = min(len(held & cards), need)
            # What the page says: the yaku in words, the cards held of those needed, the points.
            assert item.get_attribute("data-have") == str(have) and have >= 1, (yaku, held)
            assert item.get_attribute("data-need") == str(need), yaku
            assert yaku not in formed
            assert re.fullmatch(rf".+ {have}/{need} · \d+ points?", item.inner_text()), (
                item.inner_text()
            )
        # A ribbon held and the ribbons not all gone: "five ribbons (tan) n/5" is shown.
        others = set().union(
            *(_card_numbers(o.get("captured", [])) for o in view["seats"] if o is not seat)
        )
        if held & _RIBBONS and "tan" not in formed and len(_RIBBONS - others) >= 5:
            names = items.evaluate_all("(items) => items.map((item) => item.dataset.yaku)")
            assert "tan" in names, names

    # The guide: every yaku the rule set counts, its points under these rules, its cards drawn.
    page.click("#guide-open")
    page.wait_for_selector("#guide[open]")
    shot(page, "koikoi-yaku-guide")
    rules = view["rules"]["koiKoi"]
    enabled = [yaku for yaku in rules["yaku"] if yaku.get("enabled")]
    entries = page.locator("#guide-body li[data-yaku]")
    assert entries.evaluate_all("(items) => items.map((i) => i.dataset.yaku)") == [
        yaku["id"] for yaku in enabled
    ]
    for yaku in enabled:
        entry = page.locator(f'#guide-body li[data-yaku="{yaku["id"]}"]')
        points = yaku.get("points", 0)
        assert entry.locator(".worth").inner_text().startswith(f"{points} point"), yaku
        if yaku["id"] in KOIKOI_YAKU_CARDS or yaku["id"] == "tsukifuda":
            month = view["roundMonth"]
            cards, _ = KOIKOI_YAKU_CARDS.get(
                yaku["id"], (set(range(4 * month - 3, 4 * month + 1)), 4)
            )
            drawn = {int(c) for c in entry.locator(".card").evaluate_all(CARD_NUMBERS)}
            assert drawn == cards, yaku["id"]
    page.click("#guide-close")
    assert not page.is_visible("#guide")
    watched.assert_clean()


# --- Round summaries, the score sheet, play again (TABLE.md, "The course of a game") -----------


def _log_events(referee: RefereeProcess, page: Page) -> list[dict[str, Any]]:
    """The events of the page's game, as its seat reads them from the referee's log."""
    fragment = _fragment(page.url)
    log = httpx.get(
        f"{referee.http_url}/v1/games/{fragment['game']}/log",
        params={"pageSize": "1000"},
        headers={"Authorization": f"Bearer {fragment['token']}"},
        timeout=10,
    ).json()
    events: list[dict[str, Any]] = log["events"]
    return events


def _round_results(referee: RefereeProcess, page: Page) -> dict[int, dict[str, Any]]:
    """Every finished round's result by round number, from the referee's log of the game."""
    ended = [
        event["roundEnded"]["result"]
        for event in _log_events(referee, page)
        if "roundEnded" in event
    ]
    return {result["round"]: result for result in ended}


def _round_end_versions(referee: RefereeProcess, page: Page) -> dict[int, int]:
    """The game version at which each finished round ended, by round number, from the log."""
    return {
        event["roundEnded"]["result"]["round"]: int(event["version"])
        for event in _log_events(referee, page)
        if "roundEnded" in event
    }


def _gains(result: dict[str, Any], seats: int) -> list[int]:
    """Each seat's gain in a round, from its result as the API gives it in JSON: Koi-Koi (tally)
    the winner's points, Hachi-Hachi the payments in half points."""
    gains = [0] * seats
    for payment in result.get("payments", []):
        amount = int(payment["amountHalves"])
        if "fromSeat" in payment:
            gains[payment["fromSeat"]] -= amount
        if "toSeat" in payment:
            gains[payment["toSeat"]] += amount
    if "winner" in result and "score" in result:
        gains[result["winner"]] += result["score"].get("points", 0)
    return gains


def _amount(value: int, kind: str, language: str) -> str:
    """A total as the page writes it: Hachi-Hachi's halves as points, French with a comma and a
    minus sign."""
    points = value / 2 if kind == "hachihachi" else value
    text = str(int(points)) if points == int(points) else f"{points:.1f}"
    return text.replace(".", ",").replace("-", "−") if language == "fr" else text


def _sheet_totals(page: Page, holder: str) -> list[str]:
    return page.locator(f"{holder} .sheet tfoot td").all_inner_texts()


def test_round_summaries_stay_the_sheet_adds_up_and_the_game_is_played_again(
    referee: RefereeProcess, browser: Browser
) -> None:
    watched = open_page(browser, referee.http_url + "/")
    page = watched.page
    start_game(page, "koikoi", ["greedy"], rounds=2)
    first_game = page.url
    summaries: dict[int, dict[str, Any]] = {}
    sheet_checked = False
    for _ in range(MAX_STEPS):
        if state(page)["status"] == "over":
            break
        if page.evaluate("document.getElementById('round-summary').open"):
            number = int(re.findall(r"\d+", page.inner_text("#round-summary-title"))[0])
            version = state(page)["version"]
            page.wait_for_selector("#round-summary .running-scores li")
            scored = page.locator("#round-summary .round-score")
            summaries[number] = {
                "line": page.inner_text("#round-summary .summary-line"),
                "score": scored.inner_text() if scored.count() else "",
                "running": page.locator("#round-summary .running-scores li").all_inner_texts(),
            }
            shot(page, f"round-{number}-summary")
            # It stays until dismissed, whatever the game does meanwhile (the bot may move).
            page.wait_for_timeout(600)
            assert page.evaluate("document.getElementById('round-summary').open")
            assert state(page)["version"] >= version
            page.click("#round-summary-close")
            continue
        if summaries and not sheet_checked and state(page)["status"] == "playing":
            # The sheet is open at any time: one row per finished round, the referee's numbers.
            page.click("#sheet-open")
            page.wait_for_selector("#sheet-body .sheet, #sheet-body p:not(:empty)")
            page.wait_for_selector("#sheet-body .sheet")
            results = _round_results(referee, page)
            rows = page.locator("#sheet-body .sheet tbody tr[data-round]")
            assert rows.count() == len(results)
            shot(page, "score-sheet")
            page.click("#sheet-close")
            sheet_checked = True
            continue
        # A summary that opens meanwhile (it waits a moment after the bot's move) is left for the
        # check above to read.
        if not act(page, dismiss=False):
            page.wait_for_timeout(50)
    else:
        raise AssertionError(f"the game did not end in {MAX_STEPS} steps")
    results = _round_results(referee, page)
    # The first round ended before the game did: its summary was on screen. Unless a round ended
    # at its deal: the first, before the page watched the game; or the second, in the version
    # that ended the first, when the game's end shows the sheet instead.
    at_deal = [results[n].get("end") == "ROUND_END_DEAL_CHECK" for n in (1, 2) if n in results]
    assert 1 in summaries or any(at_deal), (summaries, results)
    # Each summary said what the referee's result says: the round's score, and the running
    # scores (tally: each round's winner adds its points).
    names = [row[0] for row in final_rows(page)]
    totals = [0, 0]
    for number in sorted(results):
        result = results[number]
        points = result.get("score", {}).get("points", 0)
        if "winner" in result and points:
            totals[result["winner"]] += points
        if number in summaries:
            said = summaries[number]
            if points:
                assert said["score"].endswith(f"{points} points" if points != 1 else "1 point")
            assert said["running"] == [
                f"{name}: {total}" for name, total in zip(names, totals, strict=True)
            ]
    # The end: the winner, the final scores, and the sheet adding up to them.
    shot(page, "game-over-sheet")
    assert page.inner_text("#status").startswith("Game over")
    final = [row[1] for row in final_rows(page)]
    assert final == [str(total) for total in totals]
    page.wait_for_selector("#final-sheet .sheet")
    assert _sheet_totals(page, "#final-sheet") == final
    assert page.locator("#final-sheet .sheet tbody tr[data-round]").count() == len(results)
    # Play again: a new game with the same settings and opponents, this seat kept.
    page.click("#again-same")
    page.wait_for_function("(url) => location.href !== url", arg=first_game)
    # The page reloads on the new fragment: the new game's first round, 2 rounds as before.
    page.wait_for_function(
        "() => document.getElementById('game-title').innerText.startsWith('Koi-Koi, round 1 of 2')"
    )
    assert page.url != first_game
    assert "Greedy bot 2" in page.inner_text("#seats") and "greedy bot" in page.inner_text("#seats")
    watched.assert_clean()


# --- Invitations (TABLE.md, "Friends") ----------------------------------------------------------


def test_the_host_sees_the_links_at_once_copies_them_and_finds_them_again(
    referee: RefereeProcess, browser: Browser
) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    host = Watched(context.new_page())
    page = host.page
    page.goto(referee.http_url + "/")
    start_game(page, "koikoi", ["friend"])
    # In front of the host at once, on the first screen: the friend's link with a copy button.
    page.wait_for_selector("#invites:not([hidden])")
    link = page.input_value("#invite-1")
    assert "token=" in urlsplit(link).fragment
    box = page.locator("#invite-1").bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 720, box
    shot(page, "invitations-host")
    page.click('#invites button.copy[data-for="invite-1"]')
    page.wait_for_function("() => document.querySelector('#invites .copied').textContent !== ''")
    assert page.evaluate("navigator.clipboard.readText()") == link
    assert page.inner_text("#invites .copied").startswith("Copied: Link for Friend 2")
    page.click("#invites-close")
    assert page.is_hidden("#invites")
    # Later: a reload does not push them again, the button shows the same links...
    page.reload()
    page.wait_for_selector("#table[data-version]")
    assert page.is_hidden("#invites")
    page.click("#invites-open")
    assert page.input_value("#invite-1") == link
    # ...and so does another tab of the same browser (the links are kept in local storage).
    other = Watched(context.new_page())
    other.page.goto(page.url)
    other.page.wait_for_selector("#table[data-version]")
    other.page.click("#invites-open")
    assert other.page.input_value("#invite-1") == link
    # The friend's page holds no seat's link, only the spectators'.
    friend = open_page(browser, link)
    friend.page.wait_for_selector("#table[data-version]")
    assert friend.page.is_hidden("#invites")
    friend.page.click("#invites-open")
    assert friend.page.locator("#invite-1").count() == 0
    assert "token=" not in friend.page.input_value("#invite-watch")
    for watched in (host, other, friend):
        watched.assert_clean()
    context.close()


def test_a_link_with_a_wrong_seat_says_so_plainly_in_the_players_language(
    referee: RefereeProcess, browser: Browser
) -> None:
    created = httpx.post(
        referee.http_url + "/v1/games",
        json={"kind": "GAME_KIND_KOI_KOI", "players": ["Ann", "Bob"]},
        timeout=10,
    ).json()
    wrong = f"{referee.http_url}/#game={created['game']}&token=not-a-seat-token"
    watched = open_page(browser, wrong, locale="fr-FR")
    page = watched.page
    page.wait_for_function(
        "() => document.getElementById('status').innerText.startsWith('La place de ce lien')"
    )
    assert page.inner_text("#game-title") == "Aucune partie à ce lien"
    assert page.is_hidden("#field") and page.is_hidden("#my-hand")
    page.click("#status a")
    page.wait_for_selector("#lobby:not([hidden])")
    assert page.inner_text("#lobby-title") == "Nouvelle partie"


#: The lobby's refusal of a Hachi-Hachi game with three expert bots (the referee allows two
#: expert seats a game by default), in each language: the reason in a player's words with the
#: limit the refusal carries.
TOO_MANY_EXPERTS = {
    "fr": "Impossible de créer la partie. Trop de robots experts pour une seule partie : "
    "choisissez-en moins (un robot glouton ne coûte presque rien). La limite est de 2.",
    "ja": "対局を作れませんでした。一つの対局にエキスパートボットが多すぎます。"
    "減らしてください（貪欲ボットなら負担はほとんどありません）。上限は2です。",
}


def test_a_refusal_is_told_in_the_players_language_without_the_referees_english(
    tmp_path: Path, browser: Browser
) -> None:
    """TABLE.md, "Languages": errors are translated. The referee's own message (English, for
    developers) reaches the page with the refusal but is not shown."""
    # The tests' referees lift the limit on expert seats: this one keeps the default.
    with RefereeProcess(tmp_path, env={"HANAFUDA_MAX_EXPERT_SEATS": "2"}) as limited:
        for language, locale in (("fr", "fr-FR"), ("ja", "ja-JP")):
            watched = open_page(browser, limited.http_url + "/", locale=locale)
            page = watched.page
            page.wait_for_selector("#lobby:not([hidden])")
            page.check('input[name="kind"][value="hachihachi"]')
            page.select_option("#seat-count", "4")
            for seat in (1, 2, 3):
                page.select_option(f"#opponent-{seat}", "expert")
            with page.expect_response(
                lambda answer: answer.url.endswith("/v1/games") and answer.request.method == "POST"
            ) as answered:
                page.click("#start")
            refusal = answered.value.json()["error"]
            assert refusal["details"][0]["reason"] == "TOO_MANY_EXPERT_SEATS", refusal
            page.wait_for_function("() => document.getElementById('lobby-error').innerText !== ''")
            said = page.inner_text("#lobby-error")
            assert said == TOO_MANY_EXPERTS[language]
            assert refusal["message"] not in said
            assert page.is_hidden("#table")
            _assert_no_english(page, language)
            # The browser's own line for the refused request, nothing else (no CSP violation).
            assert watched.errors == [
                "Failed to load resource: the server responded with a status of 400 (Bad Request)"
            ]
            page.context.close()


#: Collects, from now on, the animation of every card marked as arrived (a later version may
#: redraw the table before a test reads it).
WATCH_ARRIVALS = """() => {
  window.arrived = [];
  new MutationObserver(() => {
    for (const card of document.querySelectorAll('.card.arrive')) {
      window.arrived.push(getComputedStyle(card).animationName);
    }
  }).observe(document.getElementById('table'), { subtree: true, childList: true });
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_cards_that_arrive_move_in_unless_motion_is_reduced(
    referee: RefereeProcess, browser: Browser, motion: str
) -> None:
    """TABLE.md, "Motion": after a play, the cards that came to the field or a pile move in
    briefly; under ``prefers-reduced-motion`` nothing moves."""
    watched = open_page(browser, referee.http_url + "/", reduced_motion=motion)
    page = watched.page
    start_to_my_turn(page, "koikoi", ["greedy"])
    page.evaluate(WATCH_ARRIVALS)
    page.locator("#hand button.card.playable").first.click()
    if page.evaluate("() => document.getElementById('decision').open"):
        # The card matches two field cards: take the first.
        page.locator("#decision-moves button[data-move='0']").click()
    page.wait_for_function("() => window.arrived.length > 0")
    names = set(page.evaluate("window.arrived"))
    assert names == ({"none"} if motion == "reduce" else {"arrive"}), names
    watched.assert_clean()


def test_a_long_story_goes_on_counting_past_its_kept_lines(
    referee: RefereeProcess, browser: Browser
) -> None:
    """TABLE.md, "The course of a game": the story stays, numbered correctly however long the
    game. Two random bots play twelve rounds (far more than the 200 lines kept); a spectator's
    page shows the last 200, numbered as the whole story counts them."""
    created = httpx.post(
        f"{referee.http_url}/v1/games",
        json={
            "kind": "GAME_KIND_KOI_KOI",
            "players": ["Ann", "Bob"],
            "bots": ["BOT_LEVEL_RANDOM", "BOT_LEVEL_RANDOM"],
            "koiKoi": {"rounds": 12},
        },
        timeout=10,
    )
    assert created.status_code == 200, created.text
    game = created.json()["game"]
    for _ in range(600):
        # A spectator's wait answers when the game moves on.
        view = httpx.get(
            f"{referee.http_url}/v1/games/{game}", params={"waitSeconds": 1}, timeout=10
        ).json()["view"]
        if view.get("status") == "GAME_STATUS_OVER":
            break
    else:
        raise AssertionError("the bots did not finish twelve rounds")
    events = 0
    token = ""
    while True:
        page_of_log = httpx.get(
            f"{referee.http_url}/v1/games/{game}/log",
            params={"pageSize": 1000, "pageToken": token},
            timeout=10,
        ).json()
        events += len(page_of_log.get("events", []))
        token = page_of_log.get("nextPageToken", "")
        if not token:
            break
    assert events > 250, events
    watched = open_page(browser, f"{referee.http_url}/#game={game}")
    page = watched.page
    page.wait_for_selector('#events-log[data-story="told"]')
    shown = page.locator("#events li").count()
    start = int(page.get_attribute("#events", "start") or "1")
    # A spectator's story: "You are watching the game." and a line per event of the log.
    assert shown == 200
    assert start + shown - 1 == events + 1, (start, shown, events)
    assert page.locator("#events li").last.inner_text().startswith("Game over")
    watched.assert_clean()


# --- Capture piles (TABLE.md, "Reading the table") -------------------------------------------


def _axe_under_csp(page: Page, axe_source: str, origin: str) -> list[dict[str, object]]:
    """``_axe_violations`` on a page that keeps the CSP: axe-core is served as a script of the
    referee's own origin (the route answers it, the referee never sees the request)."""
    page.route(
        f"{origin}/axe.min.js",
        lambda route: route.fulfill(body=axe_source, content_type="text/javascript"),
    )
    page.add_script_tag(url=f"{origin}/axe.min.js")
    return _axe_violations(page, axe_source)


FOCUSED_KEY = "(key) => document.activeElement.dataset.key === key"
#: The words of each kind's group heading (English), by the kind's card numbers.
_GROUPS = (("Brights", _LIGHTS), ("Animals", _ANIMALS), ("Ribbons", _RIBBONS), ("Plains", _PLAINS))


@pytest.mark.parametrize("kind", ["koikoi", "hachihachi"])
def test_a_capture_pile_is_shown_large_on_a_phone(
    referee: RefereeProcess, browser: Browser, kind: str
) -> None:
    """TABLE.md, "Reading the table": on a phone a tap on a capture pile shows it large, in a
    dialog: its cards by kind with their counts, each named, with the yaku it forms (and in
    Hachi-Hachi the card points); its button and Escape close it, back on the pile."""
    install(TABLE)
    axe_source = (TABLE / "node_modules" / "axe-core" / "axe.min.js").read_text()
    watched = open_page(browser, referee.http_url + "/", **PHONE, has_touch=True)
    page = watched.page
    # Two rounds: a first round that ends at its deal (a deal check) is followed by another.
    start_game(page, kind, ["greedy"] if kind == "koikoi" else ["greedy", "greedy"], rounds=2)
    # Play until a pile holds cards, stopping on this seat's turn to play (nothing moves then).
    for _ in range(MAX_STEPS):
        now = state(page)
        assert now["status"] == "playing", "the round ended before any capture"
        summary = page.evaluate("() => document.getElementById('round-summary').open")
        piles = page.locator("#seats .captures[data-seat]").count()
        # A playable hand: no round summary waits to open (it holds the hand back meanwhile).
        playable = page.locator("#hand button.card.playable").count()
        if piles and playable and now["mine"] == "true" and not now["dialog"] and not summary:
            break
        if not act(page):
            page.wait_for_timeout(50)
    pile = page.locator("#seats .captures[data-seat]").first
    seat = int(pile.get_attribute("data-seat") or "")
    view = _view(referee, page)
    captured = _card_numbers(view["seats"][seat].get("captured", []))
    assert pile.locator(".card").count() == len(captured) > 0
    name = view["seats"][seat]["name"]
    owner = "your" if seat == view.get("viewerSeat", 0) else f"{name}'s"
    control = pile.locator("button.pile-open")
    assert control.inner_text() == f"Show {owner} captures large"
    assert control.bounding_box()["height"] >= 44  # type: ignore[index]

    # A tap on the pile's cards (not its button) shows it large.
    pile.locator(".card").first.tap()
    page.wait_for_selector("#pile[open]")
    assert page.inner_text("#pile-title") == (
        "Your captures" if owner == "your" else f"{name}'s captures"
    )
    assert page.evaluate("() => document.activeElement.id") == "pile-close"
    large = page.locator("#pile .pile-cards .card")
    assert large.count() == len(captured) == pile.locator(".card").count()
    # Each card named as on the table (its kind, month and Japanese name), with a caption to see.
    assert large.evaluate_all("(cards) => cards.map((c) => c.getAttribute('aria-label'))") == (
        pile.locator(".card").evaluate_all(
            "(cards) => cards.map((c) => c.getAttribute('aria-label'))"
        )
    )
    assert all(text.strip() for text in page.locator("#pile .caption").all_inner_texts())
    # Large, and inside the phone's screen: no sideways scrolling, the first row seen at once.
    first = large.first.bounding_box()
    assert first is not None and first["y"] >= 0 and first["y"] + first["height"] <= 844
    for index in range(large.count()):
        card = large.nth(index)
        card.scroll_into_view_if_needed()
        box = card.bounding_box()
        assert box is not None
        assert box["width"] >= 60, box
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        assert box["y"] >= 0 and box["y"] + box["height"] <= 844, box
    assert page.evaluate(
        """() => {
          const dialog = document.getElementById("pile");
          return dialog.scrollWidth <= dialog.clientWidth
            && document.documentElement.scrollWidth <= window.innerWidth;
        }"""
    )
    # The groups: the pile's headings and counts, as the referee's view makes them.
    expected = [
        f"{label} ({len(captured & cards)})" for label, cards in _GROUPS if captured & cards
    ]
    assert page.locator("#pile .group h3").all_inner_texts() == expected
    assert pile.locator(".group h3").all_inner_texts() == expected
    for group, heading in zip(page.locator("#pile .group").all(), expected, strict=True):
        assert f"({group.locator('.card').count()})" in heading
    facts = page.inner_text("#pile .pile-facts")
    assert facts.startswith(f"{len(captured)} card"), facts
    if kind == "hachihachi":
        points = sum(_card_points(card) for card in captured)
        assert f"Card points: {points} (" in facts, facts
    # The yaku the pile forms: those of the seat's panel (the teyaku, the hand's, left out).
    formed = page.locator("#pile .pile-yaku")
    assert formed.locator("h3").inner_text() == (
        "Dekiyaku (captured cards)" if kind == "hachihachi" else "Yaku (captured cards)"
    )
    panel_yaku = page.locator(f'.seat[data-seat="{seat}"] .scoring .yaku li').all_inner_texts()
    panel_yaku = [line for line in panel_yaku if not line.startswith("hand: ")]
    if panel_yaku:
        assert formed.locator(".yaku li").all_inner_texts() == panel_yaku
    else:
        assert formed.inner_text().endswith("formed yet."), formed.inner_text()
    # The screen as the player sees it (a whole page's picture would misplace the dialog).
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"pile-large-{kind}-phone.png"))
    found = _axe_under_csp(page, axe_source, referee.http_url)
    assert found == [], json.dumps(found, indent=1)

    # Closed by its button: back on the pile's control.
    page.locator("#pile-close").tap()
    page.wait_for_selector("#pile:not([open])", state="attached")
    # (The dialog's close event, which puts the focus back, comes a moment after it closes.)
    page.wait_for_function(FOCUSED_KEY, arg=f"pile-{seat}")
    # The keyboard opens it again from there, and Escape closes it, back on the control.
    page.keyboard.press("Enter")
    page.wait_for_selector("#pile[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#pile:not([open])", state="attached")
    # (The dialog's close event, which puts the focus back, comes a moment after it closes.)
    page.wait_for_function(FOCUSED_KEY, arg=f"pile-{seat}")

    # Open, it follows the game: this seat plays (over the API: the dialog covers the hand),
    # preferably a card that takes one, the bots answer, and the dialog shows the piles then.
    page.keyboard.press("Enter")
    page.wait_for_selector("#pile[open]")
    view = _view(referee, page)
    field_months = {_month(card) for card in _card_numbers(view.get("field", []))}
    plays = view["legalMoves"]
    move = next(
        (m for m in plays if _month(cards_pb2.Card.Value(m["card"])) in field_months), plays[0]
    )
    fragment = _fragment(page.url)
    played = httpx.post(
        f"{referee.http_url}/v1/games/{fragment['game']}/moves",
        json={"move": move, "expectedVersion": view["version"]},
        headers={"Authorization": f"Bearer {fragment['token']}"},
        timeout=10,
    )
    assert played.status_code == 200, played.text
    # Until the game waits for this seat again (its next turn, or a decision its move opened), or
    # is over: then nothing moves, and the page shows that version.
    for _ in range(BOT_MS // 250):
        after = _view(referee, page)
        waits = (
            after.get("turn") == after.get("viewerSeat")
            or after["status"] != "GAME_STATUS_IN_PROGRESS"
        )
        if waits:
            break
        page.wait_for_timeout(250)
    else:
        raise AssertionError("the bots did not answer")
    page.wait_for_selector(f'#table[data-version="{after["version"]}"]', timeout=BOT_MS)
    assert page.locator("#pile").get_attribute("open") is not None
    shown = page.locator("#pile .pile-cards .card").evaluate_all(CARD_NUMBERS)
    panel = page.locator(f'#seats .captures[data-seat="{seat}"] .card').evaluate_all(CARD_NUMBERS)
    assert {int(card) for card in shown} == _card_numbers(
        after["seats"][seat].get("captured", [])
    ), (panel, page.inner_text("#pile-title"), seat, state(page), after["version"], watched.errors)
    watched.assert_clean()


def test_a_refused_move_stays_in_the_story_in_the_language_switched_to(
    referee: RefereeProcess, browser: Browser
) -> None:
    """A refusal is said in the story in the player's language, and told again in the language
    switched to (it is kept as its reason, not as words). The refusal is the referee's answer as
    the table receives it, made here by a route: no move of a live game is refused on purpose
    by clicks alone."""
    watched = open_page(browser, referee.http_url + "/", locale="fr-FR")
    page = watched.page
    start_to_my_turn(page, "koikoi", ["greedy"])
    refusal = {
        "error": {
            "code": 400,
            "message": "it is not seat 0's turn (an English message for developers)",
            "status": "FAILED_PRECONDITION",
            "details": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "NOT_YOUR_TURN",
                    "domain": "hanafuda-referee",
                    "metadata": {},
                }
            ],
        }
    }
    page.route(
        "**/v1/games/*/moves",
        lambda route: route.fulfill(
            status=400, content_type="application/json", body=json.dumps(refusal)
        ),
    )
    page.wait_for_selector('#events-log[data-story="told"]')
    page.locator("#hand button.card.playable").first.click()
    if page.evaluate("() => document.getElementById('decision').open"):
        page.locator("#decision-moves button[data-move='0']").click()
    french = "Ce coup a été refusé. Ce n'est pas votre tour."
    page.wait_for_function(
        "(line) => document.getElementById('events').innerText.includes(line)", arg=french
    )
    before = page.locator("#events li").all_inner_texts()
    assert before[-1] == french, before
    page.unroute("**/v1/games/*/moves")
    with page.expect_navigation():
        page.select_option("#language", "ja")
    page.wait_for_selector('#events-log[data-story="told"]')
    after = page.locator("#events li").all_inner_texts()
    # The same story, the refusal in its place, all of it in Japanese.
    assert len(after) == len(before), (before, after)
    assert after[-1] == "その手は受け付けられませんでした。あなたの番ではありません。", after
    assert not set(after) & set(before)
    # The browser's own line for the refused request (the route's answer), nothing else.
    assert watched.errors == [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    ]
