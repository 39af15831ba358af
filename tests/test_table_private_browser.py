"""The table for two devices and a watcher (docs/table.md, "Two devices"): Debian's Chromium driven by
Playwright against a real ``referee serve`` with a state key and a SQLite ledger. Browser contexts share
nothing but the server: the dealer plays on the main page, the other player on their link, a third
context watches; every page follows the game by itself (POST /v1/latest), survives a reload and a
browser restart, and catches up by itself when its token went stale (409). One test runs behind the
shipped nginx config in front of sync workers; one plays the computer on a phone.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from benchmarks.nginx import NGINX, Nginx
from tests.conftest import STATE_KEY, start_server
from tests.test_table_browser import (
    PREFERRED,
    RAW_ID,
    ROOT,
    Table,
    _watch,
    chromium,
    install_axe,
    play_against_the_computer,
)

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

pytestmark = pytest.mark.e2e

FOLLOW = 10_000  # ms: how long a test waits for a page to show a move (it shows within a poll, 0.5 s)


@pytest.fixture(scope="module")
def browser():
    with chromium() as browser:
        yield browser


@pytest.fixture(scope="session")
def axe_core() -> Path:
    return install_axe()


def _ledger_env(work) -> dict[str, str]:
    return {"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": f"sqlite:///{work / 'ledger.db'}"}


@pytest.fixture(scope="module")
def ledger_server(tmp_path_factory):
    work = tmp_path_factory.mktemp("private-table")
    started: list = []
    server = start_server(work, started, workers=2, env=_ledger_env(work))
    yield server
    server.stop()


def _seq(page) -> int:
    text = page.locator("#status .seq").inner_text() if page.locator("#status .seq").count() else ""
    return int(text.split()[-1]) if text else -1


def _move(table) -> bool:
    """One listed move of the tests' policy, if this page may move now; whether it moved."""
    seen = table.seen()
    if seen["over"]:
        return False
    choice = next((i for want in PREFERRED for i, label in enumerate(seen["labels"]) if label.startswith(want)), None)
    if choice is None:
        return False
    table.click(table.page.locator("#actions .action").nth(choice))
    return True


def _hidden_cards_in(body: dict) -> list[str]:
    """The cards of a spectator's answer that a spectator may not know: hands and face-down cases."""
    view = body.get("view")
    if not isinstance(view, dict):
        return []
    hidden = {iid for pl in view["players"] for iid in pl["hand"]}
    hidden |= {c["card"] for pl in view["players"] for c in pl["cases"] if not c["face_up"]}
    return sorted(hidden & set(view["cards"]))


def test_two_devices_play_a_whole_private_game_while_a_third_watches(browser, ledger_server, axe_core, tmp_path):
    url = ledger_server.url
    dealer_context = browser.new_context(viewport={"width": 1400, "height": 900})
    aoi = Table(dealer_context.new_page(), url)
    problems = [_watch(aoi.page, url)]
    page = aoi.open()
    page.select_option("#first-player", "0")
    aoi.click(page.locator("#deal-button"))
    expect(page.locator("#watch-link")).to_have_count(1)
    # The dealer's own seat is in its address (the fragment, which no server log sees), and links for
    # the other seat and for watchers are on the page; none carries a token.
    own = parse_qs(urlsplit(page.url).fragment)
    assert set(own) == {"game", "seat"} and urlsplit(page.url).query == ""
    invite = page.locator("#invite-link").get_attribute("href")
    watch = page.locator("#watch-link").get_attribute("href")
    assert "afs1." not in invite + watch + page.url and "#game=" in invite and "&watch=" in watch
    assert page.locator("body").inner_text().count("Private mode") == 1
    aoi.shot("private-dealer-desktop")
    aoi.axe("private play (dealer)")

    ren_context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    ren = Table(ren_context.new_page(), url)
    problems.append(_watch(ren.page, url))
    ren.open(invite[len(url) :])
    expect(ren.page.locator(".player-zone.me .pname")).to_have_text("Ren")
    # The phone puts the player's own hand right before their actions (docs/table.md).
    hand_top = ren.page.locator(".player-zone.me .hand").bounding_box()["y"]
    assert hand_top < ren.page.locator("#actions").bounding_box()["y"]

    watcher_context = browser.new_context(viewport={"width": 1400, "height": 900})
    watcher = Table(watcher_context.new_page(), url)
    problems.append(_watch(watcher.page, url))
    bodies: list[dict] = []

    def keep_body(response) -> None:
        if response.url.startswith(url + "/v1/"):
            bodies.append(json.loads(response.body()))

    watcher.page.on("response", keep_body)
    watcher.open(watch[len(url) :])
    expect(watcher.page.locator("#seat-bar")).to_contain_text("Watching")
    watcher.shot("watch-desktop")
    watcher.axe("watch")

    players = {"Aoi": aoi, "Ren": ren}
    moves = idle = 0
    reloaded = restarted = False
    while not aoi.seen()["over"]:
        moved = None
        for name, table in players.items():
            if _move(table):
                moved = name
                break
        if moved is None:
            idle += 1
            assert idle < 50, {n: t.seen() for n, t in players.items()}
            aoi.page.wait_for_timeout(200)  # a page still drawing what it has just followed
            continue
        moves, idle = moves + 1, 0
        seq = _seq(players[moved].page)
        for table in players.values():  # the other device shows the move without a click
            expect(table.page.locator("#status .seq")).to_have_text(f"seq {seq}", timeout=FOLLOW)
        if moves == 12 and not reloaded:  # Ren reloads: same position, same log, and play goes on
            reloaded = True
            log = ren.page.locator("#log li").count()
            ren.page.reload()
            ren.page.wait_for_selector("body[data-ready='1']")
            expect(ren.page.locator("#status .seq")).to_have_text(f"seq {seq}")
            expect(ren.page.locator("#log li")).to_have_count(log)
            ren.shot("private-ren-phone")
            ren.axe("private play (phone)")
        if moves == 24 and not restarted:  # Aoi's browser restarts: /table alone finds the game again
            restarted = True
            storage = dealer_context.storage_state()
            dealer_context.close()
            dealer_context = browser.new_context(viewport={"width": 1400, "height": 900}, storage_state=storage)
            aoi = players["Aoi"] = Table(dealer_context.new_page(), url)
            problems.append(_watch(aoi.page, url))
            aoi.open("/table")
            expect(aoi.page.locator("#status .seq")).to_have_text(f"seq {seq}")
            expect(aoi.page.locator("#invite-link")).to_have_attribute("href", invite)  # the links again
        assert moves < 400, "the game did not end"
    assert reloaded and restarted
    for table in (aoi, ren, watcher):
        expect(table.page.locator("#status")).to_contain_text("wins", timeout=FOLLOW)
        assert not RAW_ID.findall(table.page.locator("#log").inner_text())
    expect(watcher.page.locator(".player-zone")).to_have_count(2)
    watcher.shot("watch-over-desktop")
    # Each device knows only its own moves: "Download this game" writes the record from the ledger's tokens
    # (docs/records.md): the dealer holds both seats, so the whole record; Ren, his seat's.
    records = {}
    for name in ("Aoi", "Ren"):
        with players[name].page.expect_download() as got:
            players[name].page.click("#download")
        records[name] = tmp_path / f"{name}.afr"
        got.value.save_as(records[name])
    whole, seat = records["Aoi"].read_text("utf-8"), records["Ren"].read_text("utf-8")
    assert "[Seed " in whole and '[Result "*"]' not in whole, whole[:400]
    assert '[Seat "1"]' in seat and "[Seed " not in seat, seat[:400]
    assert [line.split(" ;")[0] for line in whole.split("\n\n", 1)[1].splitlines()] == [
        line.split(" ;")[0] for line in seat.split("\n\n", 1)[1].splitlines()
    ]  # the same moves, each named as its reader may know its cards
    replayed = subprocess.run(
        [sys.executable, "-m", "referee", "replay", str(records["Aoi"])], cwd=ROOT, capture_output=True, text=True
    )
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    for context in (dealer_context, ren_context, watcher_context):
        context.close()
    for errors, foreign, refused in problems:
        assert errors == [] and foreign == [] and refused == []
    # Every answer the watcher's browser received: a spectator view holds no hand and no face-down case.
    assert len(bodies) > moves / 2
    assert [b for b in bodies if _hidden_cards_in(b)] == []
    assert all(b["view"]["viewer"] is None for b in bodies if "view" in b)


def _copy_tells_the_truth(page) -> None:
    """Copy says "Copied" only when the link is on the clipboard; where the page may not write it (plain HTTP
    on a LAN address: no navigator.clipboard outside a secure context) it shows the link selected and says so."""
    href = page.locator("#own-link").get_attribute("href")
    page.locator("button.copy").first.click()
    expect(page.locator(".copy-said").first).to_have_text(" Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == href
    page.evaluate("Object.defineProperty(navigator, 'clipboard', {value: undefined, configurable: true})")
    page.locator("button.copy").first.click()
    expect(page.locator(".copy-said").first).to_contain_text("Selected: copy it")
    assert page.evaluate("[document.activeElement.value, document.activeElement.selectionEnd]") == [href, len(href)]


def test_a_stale_page_catches_up_by_itself(browser, ledger_server):
    """A page whose token went stale (its seat moved on another device while it did not follow) gets a
    409 for its move, then shows the latest position and says so; nothing was applied twice."""
    url = ledger_server.url
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    first = Table(context.new_page(), url)
    page = first.open()
    expect(page.locator(".deal-go .hint")).to_contain_text("Private mode: each player gets a seat")  # not "Hot-seat"
    page.select_option("#first-player", "0")
    first.click(page.locator("#deal-button"))
    expect(page.locator("#own-link")).to_have_count(1)
    _copy_tells_the_truth(page)
    second = Table(context.new_page(), url)  # the same seat on a second device
    second.open(urlsplit(page.url)._replace(scheme="", netloc="").geturl())
    expect(second.page.locator("#actions")).to_contain_text("Keep this hand")
    frozen = {"on": True}
    answers: list[int] = []
    second.page.on("response", lambda r: answers.append(r.status) if r.url.endswith("/v1/apply") else None)

    def follow(route) -> None:  # the second page stops following until its move is refused
        if frozen["on"]:
            route.fulfill(status=503, json={"code": "ledger_unavailable", "detail": "held by the test"})
        else:
            route.continue_()

    second.page.route("**/v1/latest", follow)
    first.click(first.action("Keep this hand"))
    second.page.on("response", lambda r: frozen.update(on=False) if r.status == 409 else None)
    # A different move on the token before the first page's keep: 409 (the same move would be a retry).
    second.click(second.action("Mulligan"))
    expect(second.page.locator("#actions .note")).to_contain_text("The game had moved on", timeout=FOLLOW)
    expect(second.page.locator("#status .seq")).to_have_text("seq 1", timeout=FOLLOW)
    assert answers == [409]
    context.close()


def test_a_private_game_against_the_computer_on_a_phone(browser, ledger_server, axe_core, tmp_path):
    """The computer plays Ren's seat through its own seat key (/v1/suggest, then /v1/apply with that
    seat), like any player; the page shows only Aoi's view, and the game ends."""
    url = ledger_server.url
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    table = Table(context.new_page(), url)
    errors, foreign, refused = _watch(table.page, url)
    page = table.open()
    page.select_option("#opponent", "computer")
    page.select_option("#bot", "greedy")
    page.select_option("#strength", "100")
    page.select_option("#first-player", "0")
    page.select_option("#clock", "600+10")  # a clocked game: its record holds each move's time
    table.shot("deal-computer-phone")
    table.axe("deal (phone, computer)")
    table.click(page.locator("#deal-button"))
    expect(page.locator("#seat-bar")).to_contain_text("Against the computer: greedy")
    assert set(parse_qs(urlsplit(page.url).fragment)) == {"game", "seat", "cpu", "bot", "budget"}
    clicks = play_against_the_computer(table)
    assert clicks > 10
    expect(page.locator("#status")).to_contain_text("wins")
    expect(page.locator("#actions")).not_to_contain_text("null")  # nothing written for a panel not shown
    table.no_sideways_scroll()
    table.shot("computer-over-phone")
    table.axe("game over (phone, computer)")
    # The page made every move (both seats are its own): the game's record, whole now that it is over.
    with page.expect_download() as got:
        page.click("#download")
    record_file = tmp_path / got.value.suggested_filename
    got.value.save_as(record_file)
    record = record_file.read_text("utf-8")
    assert record_file.suffix == ".afr" and "[Seed " in record and '[Result "*"]' not in record, record[:400]
    assert '[Clock "600+10"]' in record and "\n1. Aoi keep @" in record, record[:1200]
    replayed = subprocess.run(
        [sys.executable, "-m", "referee", "replay", str(record_file)], cwd=ROOT, capture_output=True, text=True
    )
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    # The Replay tab opens what Download wrote, on the private referee that wrote it (docs/api.md §14): each
    # position a token of the replayed game, viewed with its seats; the record's lines beside them.
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(record_file))
    expect(page.locator("#rp-pos")).to_have_text(re.compile(r"^the deal \(0/\d+\)$"))
    expect(page.locator("#replay-error")).to_be_hidden()
    table.click(page.locator("#rp-next"))
    expect(page.locator("#rp-pos")).to_have_text(re.compile(r"^action 1 of \d+$"))
    expect(page.locator("#record-lines li.current")).to_contain_text("1. Aoi keep")
    expect(page.locator("#log")).to_contain_text("Aoi keeps")  # a step's events, read from its two views
    table.click(page.locator("#rp-last"))
    expect(page.locator("#status")).to_contain_text("wins")
    context.close()
    assert errors == [] and foreign == [] and refused == []


def test_a_clocked_best_of_three_a_claim_on_time_and_the_next_game_dealt_by_the_loser(browser, ledger_server, axe_core):
    """Both clocks count down on both pages from the view's clock; when Ren's 10 s are out, Aoi's page offers
    the claim (listed by the referee); Aoi wins on time, the match stands 1-0, and Ren, who lost, chooses who
    plays first in game 2 (POST /v1/matches/next with Ren's seat), dealing it with new seats; Aoi's page moves
    to game 2 by itself (POST /v1/latest's `next`), with Aoi's new seat and no link handed over."""
    url = ledger_server.url
    aoi = Table(browser.new_context(viewport={"width": 1400, "height": 900}).new_page(), url)
    problems = [_watch(aoi.page, url)]
    page = aoi.open()
    expect(page.locator("#deal-clock")).to_be_visible()  # a referee with a ledger keeps clocks
    page.select_option("#clock", "custom")
    page.fill("#clock-initial", "10")
    page.fill("#clock-increment", "0")
    page.select_option("#match", "3")
    page.select_option("#first-player", "1")  # Ren decides first: Ren's time runs from the deal
    aoi.shot("deal-clock-desktop")
    aoi.axe("deal with a clock and a match")
    aoi.click(page.locator("#deal-button"))
    clocks = page.locator("#clocks .clock")
    expect(clocks).to_have_count(2)
    expect(page.locator("#clocks .clock.running .clock-name")).to_have_text("Ren")
    expect(page.locator("#match-line")).to_have_text("Game 1 of 3: Aoi 0 – 0 Ren")
    invite = page.locator("#invite-link").get_attribute("href")
    aoi_game1 = parse_qs(urlsplit(page.url).fragment)

    ren = Table(
        browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page(), url
    )
    problems.append(_watch(ren.page, url))
    ren.open(invite[len(url) :])
    expect(ren.page.locator("#clocks .clock.running .clock-name")).to_have_text("Ren")
    ren_time = ren.page.locator("#clocks .clock[data-player='1'] .clock-time")
    first = ren_time.inner_text()
    expect(ren_time).not_to_have_text(first, timeout=3_000)  # counting down with no move and no new position
    ren.shot("clock-running-phone")

    claim = page.locator("#claim")
    expect(claim).to_be_visible(timeout=20_000)  # the referee lists the claim once Ren's time is out
    expect(claim).to_have_text("Claim the game: Ren's time is out")
    expect(page.locator("#clocks .clock[data-player='1']")).to_have_class(re.compile(r"\bout\b"))
    aoi.shot("clock-claim-desktop")
    aoi.axe("a claim on time")
    aoi.click(claim)
    expect(page.locator("#status")).to_contain_text("Aoi wins (time)")
    expect(page.locator("#match-line")).to_have_text("Game 1 of 3: Aoi 1 – 0 Ren")
    expect(page.locator("#next-wait")).to_contain_text("Ren lost this game and chooses who plays first")

    # Ren lost: Ren's page offers the choice, and deals game 2 with Ren's seat.
    expect(ren.page.locator("#next-game")).to_be_visible(timeout=FOLLOW)
    expect(ren.page.locator("#new-game")).to_have_count(0)  # no way out of the match beside the choice
    ren.shot("match-next-phone")
    ren.axe("the loser's next game")
    ren.click(ren.page.locator("#next-first-1"))
    expect(ren.page.locator("#match-line")).to_have_text("Game 2 of 3: Aoi 1 – 0 Ren")
    expect(ren.page.locator(".player-zone.me .pname")).to_have_text("Ren")
    expect(ren.page.locator("#clocks .clock.running .clock-name")).to_have_text("Ren")
    game2 = ren.page.locator("#invite-link").get_attribute("href")
    assert parse_qs(urlsplit(game2).fragment)["game"] != parse_qs(urlsplit(invite).fragment)["game"]
    ren.shot("match-game-2-phone")
    expect(page.locator("#match-line")).to_have_text("Game 2 of 3: Aoi 1 – 0 Ren", timeout=FOLLOW)
    expect(page.locator(".player-zone.me .pname")).to_have_text("Aoi")
    followed = parse_qs(urlsplit(page.url).fragment)
    assert followed["game"] == parse_qs(urlsplit(game2).fragment)["game"] and "seat" in followed
    assert followed["seat"] != aoi_game1["seat"]  # Aoi's seat of game 2
    aoi.shot("match-game-2-desktop")
    for table in (aoi, ren):
        table.page.context.close()
    for errors, foreign, refused in problems:
        assert errors == [] and foreign == [] and refused == []


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed (apt-get install nginx-light)")
def test_two_devices_follow_each_other_behind_nginx_and_sync_workers(browser, tmp_path):
    """deploy/compose/nginx.conf in front of gunicorn's sync workers: following is short polls, so two
    pages and a watcher hold no worker between their asks, and each move shows on the other device."""
    started: list = []
    env = {**_ledger_env(tmp_path), "REFEREE_WORKER_CLASS": "sync"}
    server = start_server(tmp_path, started, workers=2, env=env)
    nginx = Nginx(tmp_path, [server.url.removeprefix("http://")])
    try:
        contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(3)]
        aoi = Table(contexts[0].new_page(), nginx.url)
        page = aoi.open()
        page.select_option("#first-player", "0")
        aoi.click(page.locator("#deal-button"))
        invite = page.locator("#invite-link").get_attribute("href")
        watch = page.locator("#watch-link").get_attribute("href")
        ren = Table(contexts[1].new_page(), nginx.url)
        ren.open(invite[len(nginx.url) :])
        watcher = Table(contexts[2].new_page(), nginx.url)
        watcher.open(watch[len(nginx.url) :])
        aoi.click(aoi.action("Keep this hand"))
        expect(ren.page.locator("#actions")).to_contain_text("Keep this hand", timeout=FOLLOW)
        ren.click(ren.action("Keep this hand"))
        for table in (aoi, watcher):
            expect(table.page.locator("#status .seq")).to_have_text("seq 2", timeout=FOLLOW)
        for context in contexts:
            context.close()
    finally:
        nginx.stop()
        server.stop()
