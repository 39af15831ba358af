"""What each service shortcut (referee/service/shortcuts.py) wins on the public endpoints.

    .venv/bin/python benchmarks/service_shortcuts.py [--bodies 48] [--rounds 15]

As ``benchmarks/shortcuts.py`` does for the engine's: the production app called
as WSGI in this process (log on, multiprocess metrics), in plain mode and in
private mode (mid-game states as tokens, each action sent with its player's
seat), on ``/v1/apply``, ``/v1/validate``, ``/v1/legal-actions`` and
``/v1/view``; once with every shortcut on and once with each turned off (the
app built and called with its careful twin in its place), in alternating
rounds. Prints the time per request (each body's fastest call: a shared
machine only adds time) and how much longer each endpoint takes without each
shortcut. A shortcut stays only where that is at least 10% on some endpoint
(docs/architecture.md). Not a test: just numbers.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from http_inprocess import caller, make_app
from http_load import midgame_bodies
from shortcuts import keep_fastest, print_gains

from referee.engine.shortcuts import Shortcut
from referee.service.shortcuts import SHORTCUTS

PATHS = ("/v1/apply", "/v1/validate", "/v1/legal-actions", "/v1/view")
STATE_KEY = bytes(range(32)).hex()  # a fixed key: a benchmark keeps no secret


def plain_calls(app: Any, bodies: list[dict[str, Any]]) -> dict[str, list[Callable[[], int]]]:
    def body_of(path: str, b: dict[str, Any]) -> dict[str, Any]:
        if path in ("/v1/apply", "/v1/validate"):
            return b
        return {"state": b["state"], "player": b["action"]["player"]} if path == "/v1/view" else {"state": b["state"]}

    return {p: [caller(app, p, orjson.dumps(body_of(p, b))) for b in bodies] for p in PATHS}


def private_calls(app: Any, bodies: list[dict[str, Any]]) -> dict[str, list[Callable[[], int]]]:
    """The same positions as private games: each state a token, each request with the actor's seat."""
    vault = app.extensions["referee"].codec.vault
    calls: dict[str, list[Callable[[], int]]] = {f"private {p}": [] for p in PATHS}
    for i, b in enumerate(bodies):
        state = {**b["state"], "game_id": f"g-bench-{i:04d}"}
        token, player = vault.token(state), b["action"]["player"]
        seat = vault.seat(state["game_id"], player)
        for p in PATHS:
            body: dict[str, Any] = {"state": token, "seat": seat}
            if p in ("/v1/apply", "/v1/validate"):
                body["action"] = b["action"]
            calls[f"private {p}"].append(caller(app, p, orjson.dumps(body)))
    return calls


def apps_without(shortcut: Shortcut | None, bodies: list[dict[str, Any]]) -> dict[str, list[Callable[[], int]]]:
    """Every endpoint's calls, on apps built with ``shortcut`` turned off (None: every shortcut on)."""
    with off(shortcut):
        os.environ.pop("REFEREE_STATE_KEY", None)
        calls = plain_calls(make_app(), bodies)
        os.environ["REFEREE_STATE_KEY"] = STATE_KEY
        calls.update(private_calls(make_app(), bodies))
        os.environ.pop("REFEREE_STATE_KEY", None)
    return calls


def off(shortcut: Shortcut | None) -> AbstractContextManager[None]:
    return shortcut.turned_off() if shortcut is not None else nullcontext()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bodies", type=int, default=48, help="mid-game bodies (each sent once per round)")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    bodies = [b for b in midgame_bodies(args.bodies * 2) if b["action"]["type"] != "concede"][: args.bodies]
    settings: dict[str, Shortcut | None] = {"all on": None, **{s.name.split(":")[0]: s for s in SHORTCUTS}}
    devnull, saved_stderr = os.open(os.devnull, os.O_WRONLY), os.dup(2)
    os.dup2(devnull, 2)  # the request log lines
    try:
        calls = {name: apps_without(s, bodies) for name, s in settings.items()}
        endpoints = list(calls["all on"])
        best = {(n, e): [float("inf")] * len(bodies) for n in settings for e in endpoints}
        clock = time.process_time  # this process's CPU: what other processes on a shared machine take is not in it
        for name, s in settings.items():  # warm up
            with off(s):
                for fs in calls[name].values():
                    for f in fs:
                        f()
        for r in range(args.rounds):
            for endpoint in endpoints:
                order = list(settings.items())
                for name, shortcut in order if r % 2 == 0 else order[::-1]:
                    mins = best[name, endpoint]
                    with off(shortcut):
                        keep_fastest(calls[name][endpoint], mins, clock)
    finally:
        os.dup2(saved_stderr, 2)
    print_gains(best, list(settings), (endpoints[: len(PATHS)], endpoints[len(PATHS) :]), args.rounds, width=26)
    return 0


if __name__ == "__main__":
    sys.exit(main())
