"""What a clock costs a private ``/v1/apply`` with a ledger (docs/api.md §15): the same moves with a clock
and without, on the same app and ledger, in the same run.

    .venv/bin/python benchmarks/clocks.py [--requests 1000] [--rounds 4] [--stores sqlite,redis] [--dir /dev/shm]
    .venv/bin/python benchmarks/clocks.py --pieces

The production app (private mode, request log on and written to /dev/null) is called as WSGI in this
process, on a SQLite ledger (a file in a temporary directory) and on a Redis ledger (a ``redis-server``
on loopback, ``appendfsync always``). Each request is an ordinary move of a game of its own (one record,
never an adoption) from ``benchmarks.bodies``' mid-game positions; the clocked rounds carry a clock of a
day in each state, so no move runs out of time. Rounds of each kind alternate. The figures: wall and CPU
time (this process) per request, median and least over rounds, and the clocked / unclocked ratio of each
(the median of each pair of rounds' ratios, and the ratio of the quietest rounds: on a machine that
other work shares, the least time is the one least disturbed). A clock
costs the engine a charge per move and the view its clock; with Redis it also costs a round trip for the
ledger's time (``TIME``, read in the batch script), which SQLite (the machine's clock) does not.

On a machine whose disk is shared with other work, the fsync of each commit varies far more than a
clock costs; ``--dir /dev/shm`` keeps the files in memory (every fsync instant), which isolates the
referee's own cost.
"""

from __future__ import annotations

import argparse
import copy
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
from benchmarks.ledger_inprocess import KEY, make_app  # noqa: E402
from benchmarks.ledger_load import fresh_bodies, start_redis  # noqa: E402

DAY_MS = 86_400_000


def with_clock(positions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The positions with a clock of a day each, its last move a second ago."""
    now = time.time_ns() // 1_000_000
    out = copy.deepcopy(positions)
    for body in out:
        body["state"]["clock"] = {
            "initial": 86_400,
            "increment": 0,
            "remaining": [DAY_MS, DAY_MS],
            "started": now - 1_000,
            "last": 0,
        }
    return out


def run(app: Any, bodies: list[bytes]) -> tuple[float, float]:
    """Wall and CPU seconds for one /v1/apply of each body (``caller`` exits on any answer but 200)."""
    calls = [caller(app, "/v1/apply", body) for body in bodies]
    wall, cpu = time.perf_counter(), time.process_time()
    for call in calls:
        call()  # exits on any answer but 200
    return time.perf_counter() - wall, time.process_time() - cpu


def pieces(repeat: int = 15) -> None:
    """Each piece a clock adds to, timed alone: the least of ``repeat`` runs over the 64 positions (the least
    is the run other work disturbed least), without a clock and with one."""
    import timeit

    import orjson

    from referee import engine
    from referee.engine.views import view_of
    from referee.private.tokens import Vault

    catalog = engine.Catalog.builtin()
    plain = midgame_bodies(64)
    clocked = with_clock(plain)
    now = time.time_ns() // 1_000_000
    vault = Vault(KEY)
    kinds = {"no clock": (plain, None), "clock": (clocked, now)}
    checked = {k: [engine.check_state(catalog, b["state"]) for b in bodies] for k, (bodies, _) in kinds.items()}
    tokens = {k: [vault.token(s) for s in states] for k, states in checked.items()}
    work: dict[str, Any] = {
        "check_state": lambda k: [engine.check_state(catalog, b["state"]) for b in kinds[k][0]],
        "engine.apply": lambda k: [engine.apply(catalog, b["state"], b["action"], kinds[k][1]) for b in kinds[k][0]],
        "view, as JSON": lambda k: [orjson.dumps(view_of(s, 0)) for s in checked[k]],
        "token made": lambda k: [vault.token(s) for s in checked[k]],
        "token opened": lambda k: [vault.open(t) for t in tokens[k]],
    }
    print(f"µs per position, least of {repeat} runs of 3 x 64")
    for name, fn in work.items():
        times = {
            k: min(timeit.repeat(lambda k=k, fn=fn: fn(k), number=3, repeat=repeat)) / (3 * 64) * 1e6 for k in kinds
        }
        print(f"  {name:14} no clock {times['no clock']:6.2f}  clock {times['clock']:6.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000, help="moves per kind and round (default 1000)")
    parser.add_argument("--rounds", type=int, default=4, help="alternating rounds (default 4)")
    parser.add_argument("--stores", default="sqlite,redis", help="ledgers to measure (default sqlite,redis)")
    parser.add_argument(
        "--dir", default=None, help="where the SQLite file and Redis's data go (default: the system's temp directory)"
    )
    parser.add_argument("--pieces", action="store_true", help="time the pieces a clock adds to, alone, and stop")
    args = parser.parse_args(argv)
    if args.pieces:
        pieces()
        return 0
    devnull = os.open(os.devnull, os.O_WRONLY)
    stderr = os.dup(2)
    plain = midgame_bodies(64)
    kinds = {"no clock": plain, "clock": with_clock(plain)}
    with tempfile.TemporaryDirectory(prefix="referee-clocks-", dir=args.dir) as tmp:
        redis_proc, redis_url = start_redis(Path(tmp) / "redis", "always")
        try:
            urls = {"sqlite": f"sqlite:///{Path(tmp) / 'ledger.db'}", "redis": redis_url}
            for store in args.stores.split(","):
                app = make_app(urls[store])
                wall: dict[str, list[float]] = {k: [] for k in kinds}
                cpu: dict[str, list[float]] = {k: [] for k in kinds}
                for r in range(args.rounds):
                    for kind in kinds if r % 2 == 0 else reversed(list(kinds)):
                        bodies = fresh_bodies(kinds[kind], KEY, f"{store}{kind}{r}", args.requests, urls[store])
                        os.dup2(devnull, 2)  # the request log
                        try:
                            w, c = run(app, bodies)
                        finally:
                            os.dup2(stderr, 2)
                        wall[kind].append(w / args.requests * 1e6)
                        cpu[kind].append(c / args.requests * 1e6)
                print(f"{store}: {args.rounds} rounds of {args.requests} moves per kind; µs per private /v1/apply")
                for kind in kinds:
                    print(
                        f"  {kind:9} wall median {statistics.median(wall[kind]):6.0f} min {min(wall[kind]):6.0f}"
                        f"  cpu median {statistics.median(cpu[kind]):6.0f} min {min(cpu[kind]):6.0f}"
                        f"  (wall rounds {', '.join(f'{x:.0f}' for x in wall[kind])})"
                    )
                for name, series in (("wall", wall), ("cpu", cpu)):
                    ratios = [c / n for c, n in zip(series["clock"], series["no clock"], strict=True)]
                    print(
                        f"  clock / no clock, {name}: median of the rounds' ratios {statistics.median(ratios):.3f}, "
                        f"of the quietest rounds {min(series['clock']) / min(series['no clock']):.3f}"
                    )
        finally:
            redis_proc.terminate()
            redis_proc.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
