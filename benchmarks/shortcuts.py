"""What each engine shortcut (referee/engine/shortcuts.py) wins on the public endpoints.

    .venv/bin/python benchmarks/shortcuts.py [--bodies 64] [--rounds 15]

Calls the production app as WSGI in this process (as ``http_inprocess.py`` does:
log on, multiprocess metrics) with mid-game bodies, on ``/v1/apply``,
``/v1/validate`` and ``/v1/legal-actions``, and the engine's public functions
``apply``, ``validate`` and ``legal_actions`` (what ``referee check``, ``recheck``
and bots call in-process) with the same bodies, once with every shortcut on and once
with each shortcut turned off (its careful twin in its place), in alternating
rounds, and prints the time per request (each body's fastest call: a shared
machine only adds time) and how much longer each endpoint takes without each
shortcut. A shortcut stays in the engine only where that is
at least 10% on some endpoint (docs/architecture.md). Not a test: just numbers.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from functools import partial
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from http_inprocess import caller, make_app
from http_load import midgame_bodies

from referee import engine
from referee.engine import Catalog
from referee.engine.shortcuts import SHORTCUTS


def keep_fastest(calls: list[Callable[[], object]], fastest: list[float], clock: Callable[[], float]) -> None:
    """Make each call once; ``fastest[i]`` keeps the least time call i has taken (a shared machine
    only ever adds time to a call, so the fastest of several rounds is the call's own cost)."""
    for i, call in enumerate(calls):
        start = clock()
        call()
        took = clock() - start
        if took < fastest[i]:
            fastest[i] = took


def print_gains(
    best: dict[tuple[str, str], list[float]],
    settings: list[str],
    groups: tuple[list[str], ...],
    rounds: int,
    width: int,
) -> None:
    """The table: µs per call of each setting (the mean of the bodies' fastest calls), and how much longer
    than with every shortcut on ("all on") each endpoint takes without each shortcut."""
    mean = {key: sum(v) / len(v) * 1e6 for key, v in best.items()}
    bodies = len(next(iter(best.values())))
    print(f"µs per call (mean over {bodies} bodies of each body's fastest of {rounds} calls), in-process")
    for group in groups:
        print(f"  {'setting':<44}" + "".join(f"{e:>{width}}" for e in group))
        for name in settings:
            cells = []
            for e in group:
                took, base = mean[name, e], mean["all on", e]
                cells.append(f"{took:6.1f}" + ("" if name == "all on" else f" ({took / base - 1:+6.1%})"))
            label = name if name == "all on" else f"without {name}"
            print(f"  {label[:44]:<44}" + "".join(f"{c:>{width}}" for c in cells))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bodies", type=int, default=64, help="mid-game bodies (each sent once per round)")
    ap.add_argument("--rounds", type=int, default=15)
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    bodies = midgame_bodies(args.bodies)
    app = make_app()
    catalog = Catalog.builtin()
    endpoints = {
        "/v1/apply": [caller(app, "/v1/apply", orjson.dumps(b)) for b in bodies],
        "/v1/validate": [caller(app, "/v1/validate", orjson.dumps(b)) for b in bodies],
        "/v1/legal-actions": [caller(app, "/v1/legal-actions", orjson.dumps({"state": b["state"]})) for b in bodies],
        # the engine's public functions, as in-process users (referee check, recheck, bots) call them
        "engine.apply": [partial(engine.apply, catalog, b["state"], b["action"]) for b in bodies],
        "engine.validate": [partial(engine.validate, catalog, b["state"], b["action"]) for b in bodies],
        "engine.legal_actions": [partial(engine.legal_actions, catalog, b["state"]) for b in bodies],
    }
    settings = {"all on": None, **{s.name.split(":")[0]: s for s in SHORTCUTS}}
    # best[setting, endpoint][i]: the fastest call seen on body i. A shared machine only ever adds time
    # to a call, so the fastest of several rounds is the call's own cost; the sum over bodies compares.
    best: dict[tuple[str, str], list[float]] = {
        (n, e): [float("inf")] * len(bodies) for n in settings for e in endpoints
    }
    devnull, saved_stderr = os.open(os.devnull, os.O_WRONLY), os.dup(2)
    os.dup2(devnull, 2)  # the request log lines
    clock = time.perf_counter
    try:
        for fs in endpoints.values():  # warm up
            for f in fs:
                f()
        for r in range(args.rounds):
            for endpoint, fs in endpoints.items():
                order = list(settings.items())
                for name, shortcut in order if r % 2 == 0 else order[::-1]:
                    mins = best[name, endpoint]
                    with shortcut.turned_off() if shortcut else nullcontext():
                        keep_fastest(fs, mins, clock)
    finally:
        os.dup2(saved_stderr, 2)
    groups = (list(endpoints)[:3], list(endpoints)[3:])  # HTTP endpoints, then the engine's functions
    print_gains(best, list(settings), groups, args.rounds, width=22)
    return 0


if __name__ == "__main__":
    sys.exit(main())
