"""How soon the table shows the other player's move (docs/table.md, "Two devices"), on loopback.

    .venv/bin/python benchmarks/table_follow.py [--moves 40]

A real ``referee serve`` (private mode, a SQLite ledger, two workers) and Debian's Chromium (Playwright):
one page holds Ren's seat on its link and follows the game by itself (POST /v1/latest). The other
player's moves (both seats, by a client of the API here, as another device would) are made one at a
time; for each, the time from the referee's answer to /v1/apply (the move recorded) until the page
shows its seq. Each move waits a random 0-0.5 s first, so moves fall anywhere in the page's
half-second poll (moves made right after a display would all wait a whole poll). Prints the median, the 90th percentile and the worst, in milliseconds.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from tests.conftest import STATE_KEY, keep_or_random, start_server  # noqa: E402
from tests.test_table_browser import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

SHOWN = "n => (document.querySelector('#status .seq') || {}).textContent === 'seq ' + n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="table-follow-"))
    started: list = []
    env = {"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": f"sqlite:///{work / 'ledger.db'}"}
    server = start_server(work, started, workers=2, env=env)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as http, sync_playwright() as pw:
            decks = http.get("/table/decks.json").json()["decks"]
            deal = http.post(
                "/v1/games", json={"decks": [decks[0]["deck"], decks[1]["deck"]], "players": ["Aoi", "Ren"]}
            )
            token, seats = deal.json()["state"], deal.json()["seats"]
            game_id = http.post("/v1/view", json={"state": token, "seat": seats[0]}).json()["view"]["game_id"]
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(f"{server.url}/table#game={game_id}&seat={seats[1]}")
            page.wait_for_function(SHOWN, arg=0)
            rng = random.Random("table-follow")
            delays: list[float] = []
            seq = 0
            while len(delays) < args.moves:
                for seat in seats:
                    listed = http.post("/v1/legal-actions", json={"state": token, "seat": seat}).json()["actions"]
                    listed = [a for a in listed if a["type"] != "concede"]
                    if listed:
                        break
                if not listed:
                    break  # the game is over
                time.sleep(rng.uniform(0, 0.5))  # a move comes at any point of the page's poll, not in step
                resp = http.post(
                    "/v1/apply", json={"state": token, "seat": seat, "action": keep_or_random(listed, rng)}
                )
                recorded = time.perf_counter()
                token, seq = resp.json()["state"], seq + 1
                page.wait_for_function(SHOWN, arg=seq, polling="raf", timeout=10_000)
                delays.append((time.perf_counter() - recorded) * 1000)
            browser.close()
    finally:
        server.stop()
    delays.sort()
    p90 = delays[int(0.9 * (len(delays) - 1))]
    print(
        f"{len(delays)} moves: median {statistics.median(delays):.0f} ms, p90 {p90:.0f} ms, worst {delays[-1]:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
