"""``POST /v1/decks/validate`` of a 40-line deck list, per second (docs/formats.md).

    .venv/bin/python benchmarks/decks.py [--seconds 10] [--url http://127.0.0.1:8000]

Without ``--url``: the production app called as WSGI in this process (as
``benchmarks/http_inprocess.py`` does; no network, no gunicorn), one core.
With ``--url``: a running service over HTTP, one connection, requests in
sequence (what one client gets; ``wrk`` measures many). Each body is a deck
list of 40 lines, one card a line (40 different cards of the built-in
catalog, each ``1 name``), checked in the ``open`` format; a deck list of
the same deck, the same deck as a code and as counts are measured alike, so
the list's own cost shows. Prints requests per second (wall clock) and the
CPU milliseconds per request (in-process only).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))


def bodies() -> dict[str, bytes]:
    from referee.engine import Catalog
    from referee.engine.decklists import deck_code, deck_list_text

    catalog = Catalog.builtin()
    game_cards = [c for c in catalog.cards.values() if c.kind != "bonus"][:40]
    counts = {c.id: 1 for c in game_cards}
    text = "".join(f"1 {c.name}\n" for c in game_cards)  # 40 lines
    assert text.count("\n") == 40 and deck_list_text(catalog, counts) is not None
    return {
        "list (40 lines)": orjson.dumps({"deck": text, "format": "open"}),
        "code": orjson.dumps({"deck": deck_code(catalog, counts), "format": "open"}),
        "counts": orjson.dumps({"deck": counts, "format": "open"}),
    }


def in_process() -> Callable[[bytes], int]:
    from http_inprocess import caller, make_app

    app = make_app()
    cache: dict[bytes, Callable[[], int]] = {}

    def send(body: bytes) -> int:
        call = cache.get(body)
        if call is None:
            call = cache[body] = caller(app, "/v1/decks/validate", body)
        return call()

    return send


def over_http(url: str) -> Callable[[bytes], int]:
    import httpx

    client = httpx.Client(base_url=url, headers={"Content-Type": "application/json"})

    def send(body: bytes) -> int:
        resp = client.post("/v1/decks/validate", content=body)
        if resp.status_code != 200:
            raise SystemExit(f"/v1/decks/validate: {resp.status_code} {resp.text[:200]}")
        return len(resp.content)

    return send


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds per body (default 10)")
    parser.add_argument("--url", help="a running service (default: the app in this process)")
    args = parser.parse_args()
    send = over_http(args.url) if args.url else in_process()
    for name, body in bodies().items():
        for _ in range(50):  # warm up
            send(body)
        count = 0
        wall0, cpu0 = time.perf_counter(), time.process_time()
        while time.perf_counter() - wall0 < args.seconds:
            send(body)
            count += 1
        wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
        where = args.url or "in process"
        cpu_note = "" if args.url else f", {1000 * cpu / count:.3f} ms CPU per request"
        print(f"{name:>16}: {count / wall:8.0f} requests/s ({where}{cpu_note})")


if __name__ == "__main__":
    main()
