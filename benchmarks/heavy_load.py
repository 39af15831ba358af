"""Rule checks under heavy work (docs/api.md §16): a normal player's answers while hints or records pile up.

    python benchmarks/heavy_load.py [--duration 30] [--load suggest|records|both|none] [--suggesters 16]
                                    [--recoverers 4] [--moves 450]

``referee serve`` with ``make serve``'s defaults (2 gevent workers, the heavy slots at their default, the
number of cores), in private mode with a SQLite ledger. Meanwhile:

- **the normal player** plays a private game of its own, both seats, one move every 50 ms: it asks
  ``/v1/legal-actions`` for the seat that may act and sends ``/v1/apply`` with one of them (a new game when
  one ends). Every answer's time from sending is kept: the share within 1 s and the 99th percentile;
- **suggest**: ``--suggesters`` clients each loop ``/v1/suggest`` (ISMCTS, ``budget_ms`` 2,000) on a
  position of their own game: each answer's time from sending over its budget, and each 429's time; a
  client that is refused waits its ``Retry-After``, as a well-behaved one does;
- **records**: ``--recoverers`` clients loop ``/v1/records`` of one game of about ``--moves`` moves, with
  its watch key (the first call recovers the game, the rest read what the worker kept).

One JSON line per load, and the figures docs/performance.md quotes ("Heavy work apart").
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from servers import start_server, stop_server

STATE_KEY = "8600ec273fe39d5b43351baf5455dc20d8c27dce703a328b398e48cd5e2823df"


def sample_decks(url: str) -> list[Any]:
    """Two legal decks of the catalog in use: the table's sample decks (the first format's cards)."""
    cards = httpx.get(url + "/v1/cards").json()["cards"]
    playable = [c for c in cards if c["kind"] != "bonus"]
    rng = random.Random(7)
    decks = []
    for _ in range(2):
        counts: dict[str, int] = {}
        while sum(counts.values()) < 40:
            card = rng.choice(playable)
            if counts.get(card["id"], 0) < card.get("name_deck_limit", card.get("deck_limit", 3)):
                counts[card["id"]] = counts.get(card["id"], 0) + 1
        decks.append(counts)
    return decks


class Player:
    """One private game played from both seats over HTTP."""

    def __init__(self, client: httpx.Client, decks: list[Any], rng: random.Random):
        self.client, self.decks, self.rng = client, decks, rng
        self.deal()

    def deal(self) -> None:
        answer = self.post("/v1/games", {"decks": self.decks, "players": ["A", "B"]})
        self.token, self.seats, self.watch = answer["state"], answer["seats"], answer["watch"]
        self.view = self.post("/v1/view", {"state": self.token, "seat": self.seats[0]})["view"]
        self.moves = 0

    def post(self, path: str, body: dict[str, Any], times: list[float] | None = None) -> Any:
        sent = time.perf_counter()
        resp = self.client.post(path, json=body, timeout=30)
        if times is not None:
            times.append(time.perf_counter() - sent)
        if resp.status_code not in (200, 201):
            raise RuntimeError(f"{path}: {resp.status_code} {resp.text[:200]}")
        return resp.json()

    def actor(self) -> int:
        pending = self.view.get("pending")
        return int(pending["responder"]) if pending else int(self.view["active"])

    def move(self, times: list[float] | None = None, prefer_long: bool = False) -> None:
        if self.view["phase"] == "over":
            self.deal()
        seat = self.actor()
        listed = self.post("/v1/legal-actions", {"state": self.token, "seat": self.seats[seat]}, times)["actions"]
        choices = [a for a in listed if a["type"] != "concede"] or listed
        if prefer_long:  # a long game: end the turn only when little else is left
            busy = [a for a in choices if a["type"] not in ("end_turn", "draw")]
            choices = busy if busy and self.rng.random() < 0.85 else choices
        keep = [a for a in choices if a["type"] == "keep"]
        action = keep[0] if keep else self.rng.choice(choices)
        answer = self.post("/v1/apply", {"state": self.token, "action": action, "seat": self.seats[seat]}, times)
        self.token, self.view = answer["state"], answer["view"]
        self.moves += 1


def long_game(url: str, decks: list[Any], moves: int) -> Player:
    """The longest of a few games played to about ``moves`` moves (still going on, so it can grow)."""
    best = None
    with httpx.Client(base_url=url) as client:
        for seed in range(6):
            player = Player(client, decks, random.Random(seed))
            while player.moves < moves and player.view["phase"] != "over":
                player.move(prefer_long=True)
            if best is None or player.moves > best.moves:
                best = player
            if player.moves >= moves:
                break
    assert best is not None
    return best


def normal_player(url: str, decks: list[Any], stop: threading.Event, times: list[float]) -> None:
    with httpx.Client(base_url=url) as client:
        player = Player(client, decks, random.Random("normal"))
        tick = time.perf_counter()
        while not stop.is_set():
            player.move(times)
            tick += 0.05
            time.sleep(max(0.0, tick - time.perf_counter()))


def suggester(url: str, decks: list[Any], stop: threading.Event, out: dict[str, list[float]], n: int) -> None:
    with httpx.Client(base_url=url) as client:
        player = Player(client, decks, random.Random(f"suggester {n}"))
        for _ in range(12):  # a main-step position
            player.move()
        while not stop.is_set():
            seat = player.actor()
            body = {"state": player.token, "seat": player.seats[seat], "bot": "ismcts", "budget_ms": 2000}
            sent = time.perf_counter()
            resp = client.post("/v1/suggest", json=body, timeout=30)
            took = time.perf_counter() - sent
            if resp.status_code == 200:
                out["answered"].append(took / 2.0)
            elif resp.status_code == 429:
                out["refused"].append(took)
                time.sleep(float(resp.headers.get("Retry-After", "1")))
            else:
                out["errors"].append(resp.status_code)


def recoverer(url: str, body: dict[str, Any], stop: threading.Event, out: list[float]) -> None:
    with httpx.Client(base_url=url) as client:
        while not stop.is_set():
            sent = time.perf_counter()
            resp = client.post("/v1/records", json=body, timeout=30)
            if resp.status_code == 200:
                out.append(time.perf_counter() - sent)
            elif resp.status_code == 429:
                time.sleep(float(resp.headers.get("Retry-After", "1")))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def run(load: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    env = {"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": f"sqlite:///{tmp / f'{load}.db'}"}
    proc, url = start_server(2, tmp / f"{load}.log", env)
    try:
        decks = sample_decks(url)
        stop = threading.Event()
        threads: list[threading.Thread] = []
        heavy: dict[str, Any] = {}
        if load in ("records", "both"):
            game = long_game(url, decks, args.moves)
            body = {"game_id": game.view["game_id"], "seat": game.watch}
            first = time.perf_counter()
            while httpx.post(url + "/v1/records", json=body, timeout=60).status_code == 429:
                pass
            heavy["record_moves"] = game.moves
            heavy["first_recovery_s"] = round(time.perf_counter() - first, 3)
            repeats: list[float] = []
            threads += [
                threading.Thread(target=recoverer, args=(url, body, stop, repeats)) for _ in range(args.recoverers)
            ]
        if load in ("suggest", "both"):
            suggested: dict[str, list[float]] = {"answered": [], "refused": [], "errors": []}
            threads += [
                threading.Thread(target=suggester, args=(url, decks, stop, suggested, n))
                for n in range(args.suggesters)
            ]
        times: list[float] = []
        for t in threads:
            t.start()
        normal = threading.Thread(target=normal_player, args=(url, decks, stop, times))
        normal.start()
        time.sleep(args.duration)
        stop.set()
        for t in [normal, *threads]:
            t.join()
    finally:
        stop_server(proc)
    row: dict[str, Any] = {
        "load": load,
        "normal_requests": len(times),
        "within_1s": round(sum(t <= 1.0 for t in times) / len(times), 4),
        "p50_ms": round(statistics.median(times) * 1000, 1),
        "p99_ms": round(percentile(times, 0.99) * 1000, 1),
    }
    if load in ("suggest", "both"):
        row |= {
            "suggestions": len(suggested["answered"]),
            "worst_over_budget": round(max(suggested["answered"], default=float("nan")), 3),
            "refused": len(suggested["refused"]),
            "worst_refusal_ms": round(max(suggested["refused"], default=float("nan")) * 1000, 1),
            "errors": len(suggested["errors"]),
        }
    if load in ("records", "both"):
        row |= heavy | {"repeats": len(repeats), "repeat_p50_ms": round(statistics.median(repeats) * 1000, 1)}
    return row


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--duration", type=float, default=30.0)
    p.add_argument("--load", choices=["none", "suggest", "records", "both"], nargs="+", default=["suggest", "records"])
    p.add_argument("--suggesters", type=int, default=16)
    p.add_argument("--recoverers", type=int, default=4)
    p.add_argument("--moves", type=int, default=450)
    args = p.parse_args()
    print(json.dumps({"cores": os.cpu_count(), "duration_s": args.duration}))
    with tempfile.TemporaryDirectory() as tmp:
        for load in args.load:
            print(json.dumps(run(load, args, Path(tmp))), flush=True)


if __name__ == "__main__":
    main()
