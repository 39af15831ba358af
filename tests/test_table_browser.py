"""The table page (/table) in a real browser: Debian's Chromium driven by Playwright, against a
real ``referee serve`` on a loopback port. Every assertion reads what the page shows.

Every test also checks that the page logged no console error, sent no request outside the
referee's origin and never had an action refused by /v1/apply (it sends only listed actions).
Screenshots of each screen go to ``tests/artifacts/`` (git-ignored) for a person to look at;
each time one is taken, no text of the event log may be clipped. axe-core (npm, pinned in
``tests/axe/package-lock.json``) checks the deal, play, replay and game-over screens.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, start_server

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

pytestmark = pytest.mark.e2e

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = ROOT / "tests" / "artifacts"


def _deck(top: list[str], pool: list[str]) -> list[str]:
    """A legal 40-card deck list: ``top`` first (the opening hand), then up to 3 of each of ``pool``."""
    deck, count = list(top), Counter(top)
    for cid in pool + top:
        while count[cid] < 3 and len(deck) < 40:
            deck.append(cid)
            count[cid] += 1
    return deck


# With the deck order kept, Aoi opens with these seven and Ren with those.
AOI_HAND = ["AF-042", "AF-043", "AF-004", "AF-044", "AF-005", "AF-022", "AF-045"]
REN_HAND = ["AF-044", "AF-046", "AF-009", "AF-011", "AF-023", "AF-026", "AF-052"]
AOI_DECK = _deck(AOI_HAND, ["AF-046", "AF-047", "AF-052", "AF-053", "AF-009", "AF-011", "AF-012", "AF-023"])
REN_DECK = _deck(REN_HAND, ["AF-045", "AF-047", "AF-053", "AF-043", "AF-004", "AF-005", "AF-012", "AF-022"])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    started: list = []
    server = start_server(tmp_path_factory.mktemp("table"), started, workers=2)
    yield server
    server.stop()


@contextlib.contextmanager
def chromium():
    """Debian's Chromium under Playwright (skips the test where it is missing; fails it on CI)."""
    if not Path(CHROMIUM).exists():
        message = f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="module")
def cards(server) -> dict[str, dict]:
    return {c["id"]: c for c in httpx.get(server.url + "/v1/cards").json()["cards"]}


def names(cards: dict[str, dict], ids) -> set[str]:
    return {n for cid in ids for n in (cards[cid]["name"], cards[cid].get("name_en")) if n}


AXE = ROOT / "tests" / "axe" / "node_modules" / "axe-core" / "axe.min.js"
RAW_ID = re.compile(r"\b[ab](?=[0-9a-f]{0,5}\d)[0-9a-f]{6}\b")  # an instance id ("a89f2fc"): never shown

# What the page shows, read in one round trip.
READ_PAGE = """() => ({
  curtain: !document.getElementById("curtain").hidden,
  status: document.getElementById("status").innerText,
  labels: [...document.querySelectorAll("#actions .action")].map((b) => b.innerText),
  groups: [...document.querySelectorAll("#actions .group")].map((g) => g.dataset.group),
  over: !!document.querySelector("#actions .game-over"),
  gen: Number(document.body.dataset.gen || 0),
})"""

# Every piece of log text that does not fit its box, or sits outside the log: none may.
# A card's words cut (docs/table.md, "Phone and keyboard"): a name, the other language's name or the stats
# wider or taller than their box, or a card (not a back) whose words run past its frame. The rules text
# alone is cut on the table by design (a tap shows it whole).
CLIPPED_ON_CARDS = """() => [...document.querySelectorAll(
    '#board .card:not(.back), #board .card :is(.c-name, .c-alt, .c-stats, .c-head)')]
  .filter((el) => el.offsetParent && (el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight))
  .map((el) => `${el.className}: ${el.textContent} (${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight})`)"""

CLIPPED_IN_LOG = """() => {
  const log = document.getElementById("log");
  const box = log.getBoundingClientRect();
  const bad = [];
  for (const el of log.querySelectorAll("li, li .n, li .ev")) {
    const r = el.getBoundingClientRect();
    if (el.scrollWidth > el.clientWidth + 1 || r.left < box.left - 0.5 || r.right > box.right + 0.5) {
      bad.push(el.textContent);
    }
  }
  if (log.scrollWidth > log.clientWidth + 1) bad.push("the log scrolls sideways");
  return bad;
}"""

AXE_RUN = """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
  .map((v) => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" "))}))"""


class Table:
    """The page, with the few moves the tests make."""

    def __init__(self, page, url: str):
        self.page = page
        self.url = url

    def open(self, path: str = "/"):
        self.page.goto(self.url + path)
        self.page.wait_for_selector("body[data-ready='1']")
        return self.page

    @property
    def gen(self) -> int:
        return int(self.page.evaluate("Number(document.body.dataset.gen || 0)"))

    def click(self, locator) -> None:
        """Click, and wait until the page has drawn again."""
        before = self.gen
        locator.click()
        self.page.wait_for_function("n => Number(document.body.dataset.gen || 0) > n", arg=before)

    def deal(self, seed: str, decks: tuple[list[str], list[str]] | None = None, first: int = 0) -> None:
        page = self.page
        if decks is not None:
            for p, deck in enumerate(decks):
                page.select_option(f"#deck-{p}", "paste")
                page.fill(f"#paste-{p}", json.dumps(deck))
            page.check("#no-shuffle")
        page.fill("#seed", seed)
        page.select_option("#first-player", str(first))
        self.click(page.locator("#deal-button"))

    def action(self, text: str):
        return self.page.locator("#actions .action", has_text=text).first

    def hand_card(self, name: str):
        return self.page.locator(".player-zone.me .hand .card", has_text=name).first

    def field_card(self, name: str):
        return self.page.locator(".player-zone.me .field .card", has_text=name).first

    def offer(self, card, text: str) -> None:
        """Click a card, then the one of its listed actions (in the card panel) that says ``text``."""
        self.click(card)
        expect(self.page.locator("#card-panel")).to_be_visible()
        self.click(self.page.locator("#card-panel .action", has_text=text).first)

    def pass_device(self) -> None:
        expect(self.page.locator("#curtain")).to_be_visible()
        self.click(self.page.locator("#curtain-go"))

    def keep_both(self) -> None:
        self.click(self.action("Keep this hand"))
        self.pass_device()
        self.click(self.action("Keep this hand"))
        self.pass_device()

    def text(self) -> str:
        return self.page.content()

    def seen(self) -> dict:
        return self.page.evaluate(READ_PAGE)

    def shot(self, name: str) -> None:
        """A screenshot for a person to look at; the log's text must be whole in every one."""
        ARTIFACTS.mkdir(exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        assert self.page.evaluate(CLIPPED_IN_LOG) == [], name
        assert self.page.evaluate(CLIPPED_ON_CARDS) == [], name

    def clipped_cards(self) -> list[str]:
        return self.page.evaluate(CLIPPED_ON_CARDS)

    def axe(self, screen: str) -> None:
        """axe-core on the page as it is: no serious or critical violation."""
        self.page.add_script_tag(path=str(AXE))
        found = self.page.evaluate(AXE_RUN)
        assert [v for v in found if v["impact"] in ("serious", "critical")] == [], (screen, found)

    def no_sideways_scroll(self) -> None:
        width = self.page.viewport_size["width"]
        assert self.page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.fixture(scope="session")
def axe_core() -> Path:
    return install_axe()


def install_axe() -> Path:
    """axe-core from npm, pinned by tests/axe/package-lock.json (installed on first use)."""
    if not AXE.exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--prefix", str(AXE.parents[2])], check=True, capture_output=True
        )
    return AXE


def _watch(page, server_url: str) -> tuple[list[str], list[str], list[str]]:
    """Console errors, requests outside the referee's origin, and refused /v1/apply calls."""
    errors: list[str] = []
    foreign: list[str] = []
    refused: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "422" not in m.text else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: foreign.append(r.url) if not r.url.startswith((server_url + "/", "blob:")) else None)
    page.on("response", lambda r: refused.append(r.url) if r.url.endswith("/v1/apply") and r.status >= 400 else None)
    return errors, foreign, refused


@pytest.fixture(params=["desktop", "phone"])
def any_table(request, browser, server):
    """The page at 1400×900 and at a phone's 390×844."""
    size = {"desktop": (1400, 900), "phone": (390, 844)}[request.param]
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, is_mobile=request.param == "phone", has_touch=True
    )
    page = context.new_page()
    errors, foreign, refused = _watch(page, server.url)
    table = Table(page, server.url)
    table.size = request.param
    yield table
    context.close()
    assert errors == [], "console errors"
    assert foreign == [], "requests outside the referee's origin"
    assert refused == [], "the page sent an action the referee did not list"


@pytest.fixture
def table(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors, foreign, refused = _watch(page, server.url)
    table = Table(page, server.url)
    table.errors = errors  # a test that expects a refusal takes its console line off
    yield table
    context.close()
    assert errors == [], "console errors"
    assert foreign == [], "requests outside the referee's origin"
    assert refused == [], "the page sent an action the referee did not list"


def test_deal_keep_play_dispatch_and_solve_a_case(table, cards):
    """The whole first stretch of a game, by clicking; the opponent's file shrinks by the hit."""
    page = table.open()
    table.deal("table-e2e", (AOI_DECK, REN_DECK))
    expect(page.locator("#status")).to_contain_text("Turn 0")
    expect(page.locator("#status")).to_contain_text("Aoi")

    # Hot-seat: only the seat shown has its hand in the page (docs/api.md §5).
    ren_only = names(cards, REN_HAND) - names(cards, AOI_HAND)
    assert not [n for n in ren_only if n in table.text()]
    table.click(table.action("Keep this hand"))
    table.pass_device()
    aoi_only = names(cards, AOI_HAND) - names(cards, REN_HAND)
    assert not [n for n in aoi_only if n in table.text()]
    expect(page.locator(".player-zone.me .pname")).to_have_text("Ren")
    table.click(table.action("Keep this hand"))
    table.pass_device()

    # Turn 1, Aoi: a case from hand (its card panel offers it), then a fairy, paid by turning the case sideways.
    expect(page.locator("#status")).to_contain_text("case step")
    table.offer(table.hand_card("The Graffiti Fuss"), "Play case The Graffiti Fuss face down")
    expect(page.locator(".player-zone.me .cases")).to_contain_text("The Graffiti Fuss")
    expect(page.locator("#status")).to_contain_text("main step")
    table.offer(table.hand_card("Fairy of the West"), "Play fairy Fairy of the West")
    expect(page.locator(".player-zone.me .standby")).to_contain_text("Fairy of the West")
    expect(page.locator(".player-zone.me .case-wrap.sideways")).to_have_count(1)
    table.click(table.action("End the turn"))

    # Turn 2, Ren: the face-down case of Aoi is a card back for Ren, and its label says whose it is and where.
    table.pass_device()
    assert "The Graffiti Fuss" not in table.text() and "落書き騒ぎ" not in table.text()
    expect(page.locator(".player-zone.opp .cases .card.back")).to_have_count(1)
    table.offer(table.hand_card("Strange Noises in the Library"), "Play case")
    table.click(table.action("End the turn"))
    table.pass_device()

    # Turn 3, Aoi: a second case; dispatch by clicking the fairy, then the case (a listed target); investigate.
    table.offer(table.hand_card("The Vanished Chalk"), "Play case")
    table.click(table.field_card("Fairy of the West"))
    expect(page.locator(".card.targetable")).not_to_have_count(0)
    graffiti = page.locator(".player-zone.me .case-slot", has_text="The Graffiti Fuss")
    table.click(graffiti.locator(".case-wrap .card"))
    expect(graffiti.locator(".attached")).to_contain_text("Fairy of the West")
    ren_file = page.locator(".player-zone.opp .file-count")
    before = int(re.search(r"\d+", ren_file.inner_text()).group())
    table.shot("table")
    table.offer(graffiti.locator(".case-wrap .card"), "Investigate The Graffiti Fuss")
    expect(page.locator("#log")).to_contain_text("The Graffiti Fuss is solved by Aoi: 1 card(s) hit.")
    expect(ren_file).to_have_text(f"File {before - 1}")
    expect(page.locator(".player-zone.me .cases")).not_to_contain_text("The Graffiti Fuss")


def test_a_card_with_nothing_listed_says_so_and_sends_nothing(table):
    """A click offers only the referee's listed actions: a fairy in the case step has none (RULES 8.1),
    and the page says so in either language instead of sending a guess."""
    page = table.open()
    table.deal("table-illegal", (AOI_DECK, REN_DECK))
    table.keep_both()
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith(("/v1/apply", "/v1/validate")) else None)
    table.click(table.hand_card("Fairy of the West"))
    panel = page.locator("#card-panel")
    expect(panel).to_contain_text("Nothing to do with Fairy of the West now.")
    expect(panel).to_contain_text("Power 3. A plain, strong investigator.")  # its full text, on any screen
    assert sent == []
    page.click("#lang-ja")
    expect(page.locator("#status")).to_contain_text("ターン 1")
    expect(page.locator("#actions")).to_contain_text("事件「落書き騒ぎ」を裏向きで出す")
    expect(page.locator(".player-zone.me .hand")).to_contain_text("落書き騒ぎ")
    expect(page.locator(".player-zone.me .hand")).to_contain_text("The Graffiti Fuss")  # English beside
    graffiti = page.locator(".player-zone.me .hand .card[data-cid='AF-042']").first
    expect(graffiti.locator(".c-name")).to_have_text("落書き騒ぎ")  # the name in the page's language first
    table.shot("table-ja")
    page.click("#lang-en")
    expect(page.locator("#actions")).to_contain_text("Play case The Graffiti Fuss face down")
    expect(graffiti.locator(".c-name")).to_have_text("The Graffiti Fuss")


def test_an_empty_trash_says_so(table):
    page = table.open()
    table.deal("table-trash", (AOI_DECK, REN_DECK))
    page.locator(".player-zone.me .trash-count").click()
    expect(page.locator("#trash-dialog")).to_contain_text("The trash is empty.")


def _choose_discards(table) -> None:
    """The end step: pick the cards to discard in the hand (the first ones, not the suggested last ones)."""
    page = table.page
    hand = page.locator(".player-zone.me .hand .card")
    for i in range(hand.count()):
        if page.locator("#discard-chosen").is_enabled():
            break
        table.click(hand.nth(i))
    expect(page.locator(".player-zone.me .hand .card.chosen")).not_to_have_count(0)
    chosen = page.locator("#discard-chosen").inner_text()
    assert chosen.startswith("Discard "), chosen
    table.click(page.locator("#discard-chosen"))
    if page.locator("#curtain").is_visible():  # the turn passed: the next player takes the device
        table.pass_device()
    expect(page.locator("#log")).to_contain_text(chosen.replace("Discard ", "discards ", 1))


def _click_to_the_end(table, limit: int = 900, checks=None) -> int:
    """Click until the game is over: keep, play a case, draw, discard (once chosen in the hand), pass,
    end the turn."""
    page = table.page
    preferred = ["Keep this hand", "Play case", "Play no case", "Draw a card", "Discard", "Pass", "End the turn"]
    grouped = 0
    chose = False
    for clicks in range(limit):
        seen = table.seen()
        if seen["curtain"]:
            table.click(page.locator("#curtain-go"))
            continue
        if seen["over"]:
            assert grouped > 0, "the actions were never grouped"
            return clicks
        assert len(seen["labels"]) == len(set(seen["labels"])), seen["labels"]  # identical moves: one button
        grouped += len(seen["groups"]) > 1
        if checks:
            checks(clicks)
        if not chose and page.locator("#discard-panel").count():
            _choose_discards(table)
            chose = True
            continue
        choice = next(
            (i for want in preferred for i, label in enumerate(seen["labels"]) if label.startswith(want)), None
        )
        assert choice is not None, seen["labels"]
        table.click(page.locator("#actions .action").nth(choice))
    raise AssertionError("the game did not end")


def test_a_seeded_game_is_played_to_the_end_by_clicking(any_table, axe_core):
    """At both sizes: a whole game by clicking, no sideways scrolling, the log whole, game over with its
    result and a New game button; axe finds nothing serious on the deal, play and game-over screens."""
    table = any_table
    page = table.open()
    table.shot(f"deal-{table.size}")
    table.axe("deal")
    table.deal("table-end-30")  # a short game: a deck-out in about a hundred clicks

    shots: list[int] = []

    def checks(clicks):
        if clicks >= 40 and not shots:
            shots.append(clicks)
            table.no_sideways_scroll()
            table.shot(f"play-{table.size}")
            table.axe("play")

    clicks = _click_to_the_end(table, checks=checks)
    assert clicks > 20 and shots, "no screenshot of play"
    expect(page.locator("#status")).to_contain_text("wins (deck out)")
    expect(page.locator("#actions .over-text")).to_contain_text("The game is over:")
    expect(page.locator("#log")).to_contain_text("Game over:")
    assert page.locator("#log li").count() >= 100  # three-digit numbers in the log
    assert not RAW_ID.findall(page.locator("#log").inner_text())  # cards by name, never an instance id
    table.no_sideways_scroll()
    table.shot(f"game-over-{table.size}")
    table.axe("game over")
    table.click(page.locator("#replay-this"))  # the game just played, in the replay viewer from the deal
    expect(page.locator("#rp-pos")).to_have_text(re.compile(r"^the deal \(0/\d+\)$"))
    table.click(page.locator("#rp-last"))
    expect(page.locator("#status")).to_contain_text("wins (deck out)")
    page.reload()  # the finished game is still this browser's: back at its end, New game offered
    page.wait_for_selector("body[data-ready='1']")
    expect(page.locator("#actions .over-text")).to_contain_text("The game is over:")
    page.click("#new-game")
    expect(page.locator("#deal-form")).to_be_visible()
    page.reload()  # the finished game has left the browser's storage: a reload brings the Deal form
    expect(page.locator("#deal-form")).to_be_visible()


def test_a_hot_seat_game_survives_a_reload_and_undo_steps_back(table):
    page = table.open()
    table.deal("table-reload", (AOI_DECK, REN_DECK))
    table.keep_both()
    table.offer(table.hand_card("The Graffiti Fuss"), "Play case")
    table.offer(table.hand_card("Fairy of the West"), "Play fairy")
    expect(page.locator("#undo")).to_be_enabled()  # right after a move
    seq = page.locator("#status .seq").inner_text()
    events = page.locator("#log li").count()

    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    table.pass_device()  # back behind the curtain: no hand is shown to whoever holds the device
    expect(page.locator("#status .seq")).to_have_text(seq)
    expect(page.locator("#log li")).to_have_count(events)
    expect(page.locator(".player-zone.me .standby")).to_contain_text("Fairy of the West")

    # Undo (hot-seat only, marked): the fairy goes back to the hand, the case stays; once more, the case too.
    table.click(page.locator("#undo"))
    expect(page.locator("#actions .note")).to_have_text("Move undone.")
    expect(page.locator(".player-zone.me .hand")).to_contain_text("Fairy of the West")
    expect(page.locator(".player-zone.me .cases")).to_contain_text("The Graffiti Fuss")
    table.click(page.locator("#undo"))
    expect(page.locator(".player-zone.me .hand")).to_contain_text("The Graffiti Fuss")
    expect(page.locator("#status")).to_contain_text("case step")
    table.offer(table.hand_card("The Vanished Chalk"), "Play case")  # play goes on from the earlier position
    expect(page.locator(".player-zone.me .cases")).to_contain_text("The Vanished Chalk")


def test_download_this_game_gives_a_record_a_replay_body_and_a_scenario_and_the_record_replays(
    table, server, tmp_path, axe_core
):
    """The record (.afr) downloaded is POST /v1/records' own; the replay viewer opens it (a file dropped or
    chosen), each line beside its position; a bent record is refused with its line."""
    page = table.open()
    table.deal("table-export", (AOI_DECK, REN_DECK))
    table.keep_both()
    table.offer(table.hand_card("The Graffiti Fuss"), "Play case")
    table.offer(table.hand_card("Fairy of the West"), "Play fairy")
    downloads: list = []
    page.on("download", lambda d: downloads.append(d))
    page.click("#download")
    for _ in range(50):  # the three files come from the one click
        if len(downloads) == 3:
            break
        page.wait_for_timeout(100)
    files = {d.suggested_filename: tmp_path / d.suggested_filename for d in downloads}
    for d in downloads:
        d.save_as(files[d.suggested_filename])
    assert len(files) == 3, files
    replay_name = next(n for n in files if n.endswith(".replay.json"))
    scenario_name = next(n for n in files if n.endswith(".scenario.yaml"))
    record_name = next(n for n in files if n.endswith(".afr"))
    body = json.loads((tmp_path / replay_name).read_text("utf-8"))
    assert len(body["actions"]) == 4
    replayed = httpx.post(server.url + "/v1/replay", json=body).json()
    assert replayed["applied"] == 4 and replayed["state"]["seq"] == 4
    scenario = tmp_path / scenario_name
    checked = subprocess.run(
        [sys.executable, "-m", "referee", "check", str(scenario)], cwd=ROOT, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    record = (tmp_path / record_name).read_bytes().decode("utf-8")
    assert record == httpx.post(server.url + "/v1/records", json=body).text
    assert httpx.post(server.url + "/v1/replay", json={"record": record}).json()["state"] == replayed["state"]

    # Back in through the replay viewer: opened at the deal, each position beside its line of the record.
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(tmp_path / record_name))
    expect(page.locator("#rp-pos")).to_have_text("the deal (0/4)")
    lines = record.split("\n")
    listing = page.locator("#record-lines li")
    expect(listing).to_have_count(len(lines) - 1)  # the record ends with a newline
    expect(page.locator("#record-lines li.current")).to_have_count(0)
    table.click(page.locator("#rp-next"))
    table.click(page.locator("#rp-next"))
    expect(page.locator("#record-lines li.current")).to_have_text(next(x for x in lines if x.startswith("2. ")))
    table.click(page.locator("#record-lines li", has_text="4. "))  # a move's line: its position
    expect(page.locator("#rp-pos")).to_have_text("action 4 of 4")
    expect(page.locator("#record-lines li[aria-current='step']")).to_contain_text("4. Aoi play_fairy")
    expect(page.locator(".player-zone.me .standby")).to_contain_text("Fairy of the West")
    table.axe("replay of a record")
    for size, (width, height) in {"desktop": (1400, 900), "phone": (390, 844)}.items():
        page.set_viewport_size({"width": width, "height": height})
        table.shot(f"record-replay-{size}")
        table.no_sideways_scroll()

    # A record bent by hand: refused with its line, shown with the lines around it.
    bent = record.replace("[Result ", "[Resutl ", 1)
    at = bent.split("\n").index(next(x for x in bent.split("\n") if x.startswith("[Resutl"))) + 1
    page.click("#tab-replay")
    page.fill("#replay-text", bent)
    page.click("#replay-load")
    error = page.locator("#replay-error")
    expect(error).to_contain_text(f"Line {at}")
    expect(error).to_contain_text("bad_record")
    expect(error.locator("li.refused")).to_have_text(bent.split("\n")[at - 1])
    table.shot("record-refused-phone")
    page.set_viewport_size({"width": 1400, "height": 900})
    table.shot("record-refused-desktop")
    table.axe("a refused record")
    table.errors.remove("Failed to load resource: the server responded with a status of 400 (BAD REQUEST)")


AF99_LIST = """# an af99 deck, pasted as players write it
3 消えた上履き
3x The Graffiti Fuss
3 AF-043
3 図書室の怪音
3 Footprints in the Corridor
3 迷子の黒猫
3 西の妖精
3x Apprentice Fairy
3 AF-022
3 足跡の石膏型
3 邪魔
3 横やり
3 妖精の応援
1 閃き
"""


def test_the_deck_box_shows_each_problem_by_line_and_deals_a_pasted_list_in_a_format(table, axe_core):
    """A deck list pasted (API §13) is checked as it is typed, in the format chosen (GET /v1/formats): the
    banned card's line in af99's latest revision, none in its first; a legal list and its code deal a game
    of that format."""
    page = table.open()
    page.select_option("#format", "af99")
    checked = "#deck-check-{}:not([data-checking])"  # the box's answer to the text as it is now
    for p in (0, 1):  # the sample decks the picker offers in af99 are legal there: a deal needs nothing more
        expect(page.locator(checked.format(p) + " .deck-ok")).to_contain_text("Legal in Ace File '99")
    page.select_option("#deck-0", "paste")
    page.fill("#paste-0", AF99_LIST)
    banned = AF99_LIST.split("\n").index("1 閃き") + 1
    problem = page.locator(checked.format(0) + " .deck-problems li")
    expect(problem).to_have_count(1)
    expect(problem).to_have_attribute("data-line", str(banned))
    expect(problem).to_contain_text(f"Line {banned}")
    expect(problem).to_contain_text("Rule 3.7")
    expect(problem).to_contain_text("banned in format af99")
    page.set_viewport_size({"width": 1400, "height": 900})
    table.shot("deck-box-desktop")
    table.axe("deal with a deck box's problems")
    page.set_viewport_size({"width": 390, "height": 844})
    table.shot("deck-box-phone")
    table.no_sideways_scroll()
    page.set_viewport_size({"width": 1400, "height": 900})
    page.select_option("#format", "af99@1999-07-01")  # the first revision banned nothing
    expect(page.locator(checked.format(0) + " .deck-ok")).to_contain_text("Legal in Ace File '99: 40 cards.")

    page.select_option("#format", "af99")
    page.fill("#paste-0", AF99_LIST.replace("1 閃き", "1 Notebook"))
    expect(page.locator(checked.format(0) + " .deck-ok")).to_contain_text("Legal in Ace File '99: 40 cards.")
    code = page.locator(checked.format(0) + " .deck-code code").inner_text()
    assert code.startswith("afd1.")
    page.select_option("#deck-1", "paste")
    page.fill("#paste-1", code)  # a deck code is a deck too
    expect(page.locator(checked.format(1) + " .deck-ok")).to_contain_text("40 cards")
    page.fill("#seed", "table-format")
    table.click(page.locator("#deal-button"))
    expect(page.locator("#format-line")).to_have_text("Format: Ace File '99 (2000-04-01)")
    expect(page.locator(".player-zone.me .hand .card")).to_have_count(7)


def test_every_card_and_action_is_reachable_by_keyboard_with_a_visible_focus(table):
    page = table.open()
    table.deal("table-keys", (AOI_DECK, REN_DECK))
    table.keep_both()
    cards = page.locator("#board .card[data-iid]:not([data-iid=''])")
    assert cards.count() >= 8
    assert cards.evaluate_all("els => els.every((e) => e.tabIndex === 0 && e.getAttribute('role') === 'button')")
    graffiti = table.hand_card("The Graffiti Fuss")
    graffiti.focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Shift+Tab")  # focus by the keyboard: :focus-visible draws the outline
    outline = graffiti.evaluate("e => getComputedStyle(e).outlineStyle + ' ' + getComputedStyle(e).outlineWidth")
    assert outline.startswith("solid") and not outline.endswith(" 0px"), outline
    before = table.gen
    page.keyboard.press("Enter")
    page.wait_for_function("n => Number(document.body.dataset.gen || 0) > n", arg=before)
    play = page.locator("#card-panel .action", has_text="Play case The Graffiti Fuss")
    play.focus()
    before = table.gen
    page.keyboard.press("Enter")
    page.wait_for_function("n => Number(document.body.dataset.gen || 0) > n", arg=before)
    expect(page.locator(".player-zone.me .cases")).to_contain_text("The Graffiti Fuss")


def _expand(path: Path, out: Path) -> dict:
    subprocess.run(
        [sys.executable, "-m", "referee", "expand", str(path), "-o", str(out)],
        check=True,
        cwd=ROOT,
        capture_output=True,
    )
    return json.loads(out.read_text("utf-8"))


def test_the_replay_viewer_opens_at_the_deal_and_ends_on_the_position_of_v1_replay(table, server, tmp_path, axe_core):
    record = tmp_path / "game.yaml"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "referee",
            "record",
            "--seed",
            "table-replay",
            "--max-actions",
            "80",
            "--out",
            str(record),
        ],
        check=True,
        cwd=ROOT,
        capture_output=True,
    )
    expansion = _expand(record, tmp_path / "game.json")
    body = {"game": expansion["game"], "actions": expansion["actions"]}
    final = httpx.post(server.url + "/v1/replay", json=body).json()["state"]
    view = httpx.post(server.url + "/v1/view", json={"state": final, "player": 0}).json()["view"]

    page = table.open()
    page.click("#tab-replay")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url.rsplit("/", 1)[-1]) if "/v1/" in r.url else None)
    page.set_input_files("#replay-file", str(tmp_path / "game.json"))
    expect(page.locator("#rp-pos")).to_have_text("the deal (0/80)")
    assert sent.count("replay") == 1 and "apply" not in sent, sent  # the whole line in one call
    expect(page.locator("#status")).to_contain_text("Turn 0")
    table.shot("replay")
    table.axe("replay")
    table.click(page.locator("#rp-next"))
    expect(page.locator("#rp-pos")).to_have_text("action 1 of 80")
    table.click(page.locator("#rp-last"))
    expect(page.locator("#rp-pos")).to_have_text("action 80 of 80")
    expect(page.locator("#status")).to_contain_text(f"Turn {view['turn']}")
    for p in (0, 1):
        zone = page.locator(f".player-zone[data-player='{p}']")
        expect(zone.locator(".file-count")).to_have_text(f"File {view['players'][p]['file']}")
        expect(zone.locator(".trash-count")).to_have_text(f"Trash {len(view['players'][p]['trash'])}")
        expect(zone.locator(".hand-count")).to_have_text(f"Hand {len(view['players'][p]['hand'])}")
        expect(zone.locator(".cases .case-slot")).to_have_count(len(view["players"][p]["cases"]))
    hand = page.locator(".player-zone.me .hand .card .c-name").all_inner_texts()  # English first in English
    cards = {c["id"]: c for c in httpx.get(server.url + "/v1/cards").json()["cards"]}
    assert sorted(hand) == sorted(cards[view["cards"][i]]["name_en"] for i in view["players"][0]["hand"])
    table.click(page.locator("#rp-prev"))
    expect(page.locator("#rp-pos")).to_have_text("action 79 of 80")
    table.click(page.locator("#rp-first"))
    expect(page.locator("#rp-pos")).to_have_text("the deal (0/80)")


SCENARIO = """\
name: a second fairy on the same case is refused
given: {position: {p0: {cases: [AF-042, AF-043], fairies: [AF-004, AF-005]}}}
when:
  - {type: dispatch, player: 0, fairy: p0.fairies.AF-004, case: p0.cases.0}
  - {type: dispatch, player: 0, fairy: p0.fairies.AF-005, case: p0.cases.0}
then: {violation: {rule: "8.9", code: one_fairy_per_case}}
"""


def test_the_replay_viewer_jumps_to_a_scenarios_failing_action(table, tmp_path):
    scenario = tmp_path / "fails.yaml"
    scenario.write_text(SCENARIO, "utf-8")
    expansion = _expand(scenario, tmp_path / "x.json")
    assert expansion["focus"] == 1 and expansion["refused"]["rule"] == "8.9"
    page = table.open()
    page.click("#tab-replay")
    page.fill("#replay-text", json.dumps(expansion))
    page.click("#replay-load")
    expect(page.locator("#rp-pos")).to_have_text("the deal (0/2)")
    problem = page.locator("#problem")
    expect(problem).to_be_hidden()
    expect(page.locator("#rp-action")).to_contain_text("Dispatch Fairy of the West to The Graffiti Fuss")
    table.click(page.locator("#rp-fail"))
    expect(page.locator("#rp-pos")).to_have_text("action 1 of 2")
    expect(problem).to_contain_text("Rule 8.9")
    expect(problem).to_contain_text("one_fairy_per_case")
    # The refusal names the players as the page does ("Player 1"), and no instance id.
    expect(problem).to_contain_text("Player 1 already has 1 fairy(ies) dispatched to The Graffiti Fuss")
    page.click("#lang-ja")
    expect(problem).to_contain_text("ルール 8.9")
    expect(problem).to_contain_text("「落書き騒ぎ」")  # the referee's detail, asked again in Japanese
    expect(problem).not_to_contain_text("already has")


PRIVATE_KEY = "5f0c1e9a4b7d2c8e3f6a1b0d9c8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e"  # docs/api.md §10, tests only


@pytest.fixture(scope="module")
def private_server(tmp_path_factory):
    pytest.importorskip("referee.service.private", reason="this build has no private mode (docs/api.md §10) yet")
    started: list = []
    server = start_server(
        tmp_path_factory.mktemp("private"), started, workers=2, env={"REFEREE_STATE_KEY": PRIVATE_KEY}
    )
    yield server
    server.stop()


def test_private_mode_one_seat_per_tab(request, private_server):
    """docs/api.md §10: the dealer's tab holds seat 0; the invite link opens seat 1 in a second tab."""
    sample = httpx.get(private_server.url + "/table/decks.json").json()["decks"]
    dealt = httpx.post(private_server.url + "/v1/games", json={"decks": [sample[0]["deck"], sample[1]["deck"]]})
    if "seats" not in dealt.json():
        pytest.skip("this build has no private mode (docs/api.md §10) yet")
    browser = request.getfixturevalue("browser")
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    context.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    aoi = Table(context.new_page(), private_server.url)
    page = aoi.open()
    page.select_option("#first-player", "0")
    aoi.click(page.locator("#deal-button"))
    expect(page.locator("#seat-bar")).to_contain_text("you hold Aoi's seat only")
    expect(page.locator("#seat-bar")).to_contain_text("Every move is final")
    assert page.locator("body").inner_text().count("Private mode") == 1  # said once
    expect(page.locator("#undo")).to_have_count(0)
    # No ledger (docs/api.md §11): the page keeps the one-browser invite and says why.
    expect(page.locator("#no-ledger")).to_contain_text("keeps no ledger")
    link = page.locator("#invite-link").get_attribute("href")
    assert link.startswith(private_server.url + "/table#join=")
    ren = Table(context.new_page(), private_server.url)
    ren.open(link[len(private_server.url) :])
    expect(ren.page.locator(".player-zone.me .pname")).to_have_text("Ren")
    expect(ren.page.locator("#actions")).to_contain_text("Nothing to do now")
    aoi.click(aoi.action("Keep this hand"))
    # The second tab takes the newer token (shared by the browser's storage) and may act.
    expect(ren.page.locator("#actions")).to_contain_text("Keep this hand")
    ren.click(ren.action("Keep this hand"))
    expect(page.locator("#status")).to_contain_text("Turn 1")
    expect(page.locator("#actions")).to_contain_text("Play no case")  # the case step's list is drawn
    expect(ren.page.locator("#status .seq")).to_have_text("seq 2")
    if aoi.action("Play case").count():  # the deal is random in private mode: a hand may hold no case
        aoi.click(aoi.action("Play case"))
        expect(ren.page.locator(".player-zone.opp .cases .card.back")).to_have_count(1)
    else:
        aoi.click(aoi.action("Play no case"))
    expect(ren.page.locator("#status .seq")).to_have_text("seq 3")  # the other tab follows either way
    context.close()
    assert errors == []


def test_the_page_fits_a_phone_and_a_tap_shows_a_cards_full_text(browser, server, cards):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    table = Table(page, server.url)
    table.open()
    table.deal("table-phone", (AOI_DECK, REN_DECK))
    table.keep_both()
    expect(page.locator(".player-zone.me .hand .card")).to_have_count(8)
    table.no_sideways_scroll()
    card = table.hand_card("The Graffiti Fuss")
    before = table.gen
    card.tap()
    page.wait_for_function("n => Number(document.body.dataset.gen || 0) > n", arg=before)
    text = next(c["text"] for c in cards.values() if c.get("name_en") == "The Graffiti Fuss" and c.get("text"))
    expect(page.locator("#card-panel .cp-text")).to_contain_text(text)
    expect(page.locator("#card-panel .cp-text")).to_be_in_viewport()
    table.no_sideways_scroll()
    table.shot("table-phone")
    context.close()


PREFERRED = ["Keep this hand", "Play case", "Play no case", "Draw a card", "Discard", "Pass", "End the turn"]


def play_against_the_computer(table, limit: int = 900) -> int:
    """Click the player's moves (as _click_to_the_end) until the game is over; the computer moves by
    itself (/v1/suggest, then /v1/apply with its seat), and the page waits for it. Returns the clicks."""
    page = table.page
    for clicks in range(limit):
        seen = table.seen()
        if clicks % 8 == 0:  # every card's words whole as the board fills (fairies and evidence on cases)
            assert table.clipped_cards() == [], clicks
        if seen["over"]:
            return clicks
        choice = next(
            (i for want in PREFERRED for i, label in enumerate(seen["labels"]) if label.startswith(want)), None
        )
        if choice is None:  # the computer's move (or its answer being drawn): wait for the next drawing
            page.wait_for_function("n => Number(document.body.dataset.gen || 0) > n", arg=seen["gen"], timeout=30_000)
            continue
        table.click(page.locator("#actions .action").nth(choice))
    raise AssertionError("the game did not end")


def test_a_hot_seat_game_against_the_computer_is_played_to_the_end(browser, server, axe_core):
    """docs/api.md §16: the deal form's "against the computer"; the computer plays Ren's seat with a quick
    bot, no curtain comes down (nobody passes the device), and the game ends with a result."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    errors, foreign, refused = _watch(page, server.url)
    suggested: list[int] = []
    page.on("response", lambda r: suggested.append(r.status) if r.url.endswith("/v1/suggest") else None)
    table = Table(page, server.url)
    table.open()
    page.select_option("#opponent", "computer")
    expect(page.locator("#bot")).to_be_visible()
    page.select_option("#bot", "greedy")
    page.select_option("#strength", "100")
    table.shot("deal-computer")
    table.deal("table-computer")
    expect(page.locator("#seat-bar")).to_contain_text("Against the computer: greedy, quick")
    clicks = play_against_the_computer(table)
    assert clicks > 10 and suggested and set(suggested) == {200}
    expect(page.locator("#curtain")).to_be_hidden()
    expect(page.locator("#status")).to_contain_text("wins")
    assert not RAW_ID.findall(page.locator("#log").inner_text())
    table.shot("computer-over-desktop")
    table.axe("game over against the computer")
    context.close()
    assert errors == [] and foreign == [] and refused == []


EVENT_CELLS_CLIPPED = """() => [...document.querySelectorAll('#event :is(th, td, summary, .ev-drops label, .ev-note span)')]
  .filter((el) => el.offsetParent && el.scrollWidth > el.clientWidth + 1)
  .map((el) => `${el.tagName}: ${el.textContent} (${el.scrollWidth} in ${el.clientWidth})`)"""


def _standings(page) -> list[list[str]]:
    return page.eval_on_selector_all(
        "#ev-standings tbody tr", "rows => rows.map((r) => [...r.cells].map((c) => c.innerText))"
    )


def test_the_event_tab_pairs_two_rounds_takes_results_and_ranks_the_players(any_table, server, axe_core):
    """docs/table.md, "Event": four names, round 1 paired by table, results entered, round 2 paired from the
    standings, the standings in the referee's order; at 1400×900 and 390×844 nothing is clipped or scrolls
    the page sideways, and axe finds nothing serious."""
    table = any_table
    page = table.open()
    page.click("#tab-event")
    page.fill("#ev-names", "Aoi\nRen\nMio\nKai\n")
    page.fill("#ev-seed", "friday-1")
    page.click("#ev-form button[type=submit]")
    expect(page.locator("#ev-standings tbody tr")).to_have_count(4)
    expect(page.locator("#ev-pair")).to_be_enabled()
    page.click("#ev-pair")
    round1 = page.locator(".ev-round[open] tbody tr")
    expect(round1).to_have_count(2)
    expect(page.locator("#ev-pair")).to_be_disabled()  # results first (RULES 15.2)
    doc = json.loads(page.evaluate("localStorage.getItem('af-table-event')"))
    fresh = {**doc, "rounds": []}
    assert doc == httpx.post(server.url + "/v1/events/pair", json={"event": fresh}).json()["event"]
    # table 1: the first player wins 2-1; table 2: its second player forfeits
    menus = page.locator(".ev-round[open] select")
    assert menus.nth(0).locator("option").all_inner_texts()[1:5] == ["2–0", "2–1", "1–2", "0–2"]
    menus.nth(0).select_option("2-1")
    expect(page.locator("#ev-standings tbody tr").first).to_contain_text("3")
    second = round1.nth(1).locator("td").nth(1).inner_text().split(" – ")[1]
    menus.nth(1).select_option(f"forfeit:{second}")
    expect(page.locator("#ev-pair")).to_be_enabled()
    table.shot(f"event-round-1-{table.size}")
    page.click("#ev-pair")
    expect(page.locator(".ev-round")).to_have_count(2)
    expect(page.locator("#ev-note")).to_contain_text("Round 2")
    doc = json.loads(page.evaluate("localStorage.getItem('af-table-event')"))
    assert len(doc["rounds"]) == 2 and doc["rounds"][0]["pairings"][1]["result"] == {"forfeit": second}
    menus = page.locator(".ev-round[open] select")
    menus.nth(0).select_option("2-0")
    menus.nth(1).select_option("0-2")  # at once: each change builds on the one before
    expect(page.locator(".ev-winner")).to_be_visible()
    doc = json.loads(page.evaluate("localStorage.getItem('af-table-event')"))
    want = httpx.post(server.url + "/v1/events/standings", json={"event": doc}).json()
    expect(page.locator("#ev-standings tbody tr th")).to_have_text([r["player"] for r in want["standings"]])
    shown = _standings(page)
    assert [row[2] for row in shown] == [str(r["match_points"]) for r in want["standings"]]
    assert [row[3] for row in shown] == [r["record"] for r in want["standings"]]
    # swiss_rounds defaults to 2 for 4 players: the event is over and its winner said
    expect(page.locator(".ev-winner")).to_contain_text(want["winner"])
    expect(page.locator("#ev-pair")).to_be_disabled()
    table.shot(f"event-standings-{table.size}")
    assert page.evaluate(EVENT_CELLS_CLIPPED) == []
    table.no_sideways_scroll()
    table.axe(f"event ({table.size})")
    page.select_option("select[aria-label^='Result of table 1']", "")  # a result taken back: pairing waits again
    expect(page.locator("#ev-pair")).to_be_disabled()
    # a document whose round 2 repeats round 1 (a rematch), loaded from a file: the check names rule, round, table
    bent = {**doc, "rounds": [doc["rounds"][0], doc["rounds"][0]]}
    page.set_input_files(
        "#ev-file", files=[{"name": "bent.json", "mimeType": "application/json", "buffer": json.dumps(bent).encode()}]
    )
    expect(page.locator(".ev-round")).to_have_count(2)
    page.click("#ev-check")
    expect(page.locator("#ev-problem")).to_contain_text(re.compile(r"RULES 15\.5.*round 2, table 1"))
    page.click("#lang-ja")
    expect(page.locator("#ev-standings thead th").nth(2)).to_have_text("勝ち点")
    table.shot(f"event-ja-{table.size}")
    assert page.evaluate(EVENT_CELLS_CLIPPED) == []
    table.no_sideways_scroll()
