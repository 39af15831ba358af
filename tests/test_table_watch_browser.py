"""The spectator's table (/table/watch.html, docs/api.md §12) and the two-device table
(/table/remote.html, docs/ledger.md) in a real browser: Debian's Chromium driven by Playwright,
against a real ``referee serve`` with a SQLite ledger. Players on separate browser contexts that
share nothing but the server follow each other's moves by polling /v1/latest; a watcher, holding
only the watch link, follows the game and never receives a card either player may not know.
"""

from __future__ import annotations

import random
from pathlib import Path

import httpx
import pytest

from tests.conftest import STATE_KEY, keep_or_random, start_server

playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

pytestmark = pytest.mark.e2e

from tests.test_table_browser import CHROMIUM, CHROMIUM_ARGS, Table  # noqa: E402


@pytest.fixture(scope="module")
def ledger_server(tmp_path_factory):
    work = tmp_path_factory.mktemp("watch")
    started: list = []
    env = {"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": f"sqlite:///{work / 'ledger.db'}"}
    server = start_server(work, started, workers=2, env=env)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium (.ci/run does)")
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def play(http: httpx.Client, token: str, seats: list[str], moves: int, rng: random.Random) -> str:
    for _ in range(moves):
        for player in (0, 1):
            actions = http.post("/v1/legal-actions", json={"state": token, "seat": seats[player]}).json()["actions"]
            actions = [a for a in actions if a["type"] != "concede"]
            if actions:
                resp = http.post(
                    "/v1/apply", json={"state": token, "action": keep_or_random(actions, rng), "seat": seats[player]}
                )
                assert resp.status_code == 200, resp.text
                token = resp.json()["state"]
                break
    return token


def test_a_watcher_follows_the_game_and_never_receives_a_hidden_card(ledger_server, browser, catalog):
    from referee.engine.playout import random_new_game
    from referee.engine.views import visible_cards
    from referee.service.private_tokens import Vault

    vault = Vault(bytes.fromhex(STATE_KEY))
    with httpx.Client(base_url=ledger_server.url, timeout=30) as http:
        body = random_new_game(catalog, "watch")
        body.pop("seed")
        deal = http.post("/v1/games", json=body).json()
        token, seats = deal["state"], deal["seats"]
        game_id = vault.open(token)["game_id"]

        context = browser.new_context()  # shares nothing with the players but the server
        page = context.new_page()
        received: list[dict] = []
        page.on("response", lambda r: received.append(r.json()) if r.url.endswith("/v1/latest") and r.ok else None)
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(f"{ledger_server.url}/table/watch.html#game={game_id}&watch={deal['watch']}")
        expect(page.locator("#watch-seq")).to_have_text("0", timeout=15_000)

        rng = random.Random("watch")
        token = play(http, token, seats, 8, rng)
        expect(page.locator("#watch-seq")).to_have_text("8", timeout=15_000)  # polled, not pushed
        token = play(http, token, seats, 4, rng)
        expect(page.locator("#watch-seq")).to_have_text("12", timeout=15_000)
        expect(page.locator(".watch-player")).to_have_count(2)
        context.close()

    assert received, "the page never read the game"
    for answer in received:  # every spectator view the browser received: the intersection, exactly
        state = vault.open(answer["state"])
        both = visible_cards(state, 0) & visible_cards(state, 1)
        assert set(answer["view"]["cards"]) == both and answer["view"]["viewer"] is None
        hands = {iid for pl in state["players"] for iid in pl["hand"]}
        assert not hands & set(answer["view"]["cards"])
    assert all(url.startswith(ledger_server.url) for url in requests)
    assert not any(seat in url for url in requests for seat in seats)


def test_without_a_ledger_the_watch_page_says_why(browser, tmp_path):
    started: list = []
    server = start_server(tmp_path, started, env={"REFEREE_STATE_KEY": STATE_KEY})
    try:
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"{server.url}/table/watch.html#game=g-1&watch=afk1.x")
        expect(page.locator("#watch-status")).to_contain_text("keeps no ledger", timeout=15_000)
        context.close()
    finally:
        server.stop()


def test_two_devices_play_through_the_ledger_while_a_third_watches(ledger_server, browser):
    """Point 5 of issue 23, in new pages: links that carry only the game id and a seat, each device
    polling /v1/latest; three browser contexts that share nothing but the server."""
    from referee.service.private_tokens import Vault

    vault = Vault(bytes.fromhex(STATE_KEY))
    dealer = browser.new_context()
    page = dealer.new_page()
    page.goto(f"{ledger_server.url}/table/remote.html")
    page.click("#remote-deal-button")
    expect(page.locator("#watch-link")).to_have_count(1, timeout=15_000)
    links = [page.locator(f"#seat-link-{p}").get_attribute("href") for p in (0, 1)]
    watch_link = page.locator("#watch-link").get_attribute("href")
    dealer.close()
    assert all(len(link) < 160 for link in links), links  # an id and a seat: short enough to read out
    assert "afs1." not in "".join(links)  # no token in a link

    contexts = [browser.new_context() for _ in range(3)]
    players = [contexts[p].new_page() for p in (0, 1)]
    watcher = contexts[2].new_page()
    seen: list[dict] = []
    watcher.on("response", lambda r: seen.append(r.json()) if r.url.endswith("/v1/latest") and r.ok else None)
    errors: list[str] = []
    for p in (0, 1):
        players[p].on("pageerror", lambda exc: errors.append(str(exc)))
        players[p].goto(links[p])
        expect(players[p].locator("#remote-seq")).to_have_text("0", timeout=15_000)
    watcher.goto(watch_link)
    rng = random.Random("two-devices")
    moves, idle = 0, 0
    while moves < 10:
        idle += 1
        assert idle < 100, [p.locator("#remote-status").inner_text() for p in players]
        for p in (0, 1):
            buttons = players[p].locator(".remote-action:not([data-type=concede])")
            if buttons.count():
                buttons.nth(rng.randrange(buttons.count())).click()
                moves, idle = moves + 1, 0
                for other in players:  # both devices show the move: the other one by polling
                    expect(other.locator("#remote-seq")).to_have_text(str(moves), timeout=15_000)
                break
        else:
            players[0].wait_for_timeout(200)  # the page is still drawing its actions
    expect(watcher.locator("#watch-seq")).to_have_text(str(moves), timeout=15_000)
    for context in contexts:
        context.close()
    assert not errors
    for answer in seen:  # the watcher never received a card either player may not know
        state = vault.open(answer["state"])
        hands = {iid for pl in state["players"] for iid in pl["hand"]}
        assert answer["view"]["viewer"] is None and not hands & set(answer["view"]["cards"])


def test_with_a_ledger_the_tables_invite_is_a_short_link_for_any_device(ledger_server, browser):
    """docs/api.md §11: a private game dealt at /table offers the other seat a link of the game id and the
    seat only (no token), opening the two-device table, and a watch link for spectators."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    table = Table(context.new_page(), ledger_server.url)
    page = table.open()
    table.click(page.locator("#deal-button"))
    expect(page.locator("#seat-bar")).to_contain_text("any device")
    link = page.locator("#invite-link").get_attribute("href") or ""
    assert link.startswith(ledger_server.url + "/table/remote.html#game=") and "&seat=afk1." in link
    assert len(link) < 200  # short enough to read aloud or show as a QR code; a token is kilobytes
    watch = page.locator("#watch-link").get_attribute("href") or ""
    assert watch.startswith(ledger_server.url + "/table/watch.html#game=") and "&watch=afk1." in watch
    expect(page.locator("#no-ledger")).to_have_count(0)
    context.close()
