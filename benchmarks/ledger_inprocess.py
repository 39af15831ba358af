"""The referee's own CPU per private ``/v1/apply`` move with a ledger, without the network or a load generator.

    .venv/bin/python benchmarks/ledger_inprocess.py [--requests 2000] [--rounds 5]

``make bench-ledger`` measures the real server, but on a small machine the
load generator, the workers and Redis share the same cores, so its ratios mix
the ledger's cost with theirs. Here the production app (request log on,
written to /dev/null; Prometheus in multiprocess mode) is called as WSGI in
this process, once without a ledger, once with a SQLite ledger
(``synchronous=FULL``, a file in a temporary directory) and once with a Redis
ledger (a ``redis-server`` on loopback, ``appendfsync always``), in
alternating rounds, every request an ordinary move of a game of its own (one
record, never an adoption). The figures: this process's CPU time
(``time.process_time``: the worker's share, the fsync's kernel time included)
per request, its ratio to the app without a ledger, and Redis's own CPU per
move (from /proc), which a deployment spends on Redis's cores.

A fourth app has no ledger but sleeps, in each request, as long as a Redis
record waits (``--idle-us``, default 200 µs): a process that waits for
anything here pays CPU for it on waking (cold caches), so this row says how
much of a ledger's cost is the wait itself, which any store's round trip has.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bodies import midgame_bodies  # noqa: E402
from benchmarks.http_inprocess import caller  # noqa: E402
from benchmarks.ledger_load import cpu_seconds, fresh_bodies, start_redis  # noqa: E402

KEY = bytes(range(32))


def make_app(ledger: str | None) -> Any:
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="referee-bench-metrics-"))
    from referee.service.app import create_app
    from referee.service.config import Settings

    env = {"REFEREE_STATE_KEY": KEY.hex(), **({"REFEREE_LEDGER": ledger} if ledger else {})}
    return create_app(Settings.from_env(env))


def idling(app: Any, seconds: float) -> Any:
    """``app`` (without a ledger) with a sleep of ``seconds`` in each request, where a ledger would wait."""
    vault = app.extensions["referee"].codec.vault
    make_token = vault.token

    def token(state: Any) -> str:
        time.sleep(seconds)
        return make_token(state)

    vault.token = token
    return app


def apply_all(app: Any, bodies: list[bytes]) -> float:
    """CPU seconds of this process for one /v1/apply of each body."""
    calls = [caller(app, "/v1/apply", body) for body in bodies]
    start = time.process_time()
    for call in calls:
        call()
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="moves per store and round (default 2000)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--idle-us", type=float, default=200.0, help="the idle app's sleep per request (default 200)")
    args = parser.parse_args(argv)
    devnull = os.open(os.devnull, os.O_WRONLY)
    with tempfile.TemporaryDirectory(prefix="referee-ledger-inprocess-") as tmp:
        redis_proc, redis_url = start_redis(Path(tmp) / "redis", "always")
        try:
            stores = {
                "none": None,
                "idle": None,
                "sqlite": f"sqlite:///{Path(tmp) / 'ledger.db'}",
                "redis": redis_url,
            }
            positions = midgame_bodies(64)
            apps = {name: make_app(url) for name, url in stores.items()}
            apps["idle"] = idling(apps["idle"], args.idle_us / 1e6)
            cpu: dict[str, list[float]] = {name: [] for name in stores}
            redis_cpu: list[float] = []
            stderr = os.dup(2)
            for r in range(args.rounds):
                order = list(stores) if r % 2 == 0 else list(reversed(stores))
                for name in order:
                    bodies = fresh_bodies(positions, KEY, f"{name}{r}", args.requests, stores[name])
                    before = cpu_seconds(redis_proc.pid)
                    os.dup2(devnull, 2)  # the request log (one line to stderr per request)
                    try:
                        seconds = apply_all(apps[name], bodies)
                    finally:
                        os.dup2(stderr, 2)
                    cpu[name].append(seconds / args.requests * 1e6)
                    if name == "redis":
                        redis_cpu.append((cpu_seconds(redis_proc.pid) - before) / args.requests * 1e6)
            base = cpu["none"]
            print(f"{args.rounds} rounds of {args.requests} moves per store; CPU µs per /v1/apply (this process)")
            for name in stores:
                ratios = [b / c for b, c in zip(base, cpu[name], strict=True)]
                print(
                    f"  {name:7} median {statistics.median(cpu[name]):7.0f} µs"
                    f"  rounds {', '.join(f'{c:.0f}' for c in cpu[name])}"
                    f"  no-ledger / this: median {statistics.median(ratios):.2f}"
                )
            print(f"  (idle: no ledger, {args.idle_us:.0f} µs asleep in each request)")
            print(f"  Redis's own CPU per move: median {statistics.median(redis_cpu):.0f} µs")
        finally:
            redis_proc.terminate()
            redis_proc.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
