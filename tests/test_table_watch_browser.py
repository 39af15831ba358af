"""The spectator's table (/table/watch.html, docs/api.md §12) in a real browser: Debian's Chromium
driven by Playwright, against a real ``referee serve`` with a SQLite ledger. Two players play
through the API; a third browser context, holding only the watch link, follows the game and never
receives a card either player may not know.
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

from tests.test_table_browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402


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
