"""Bot strength: 200 seeded games per pairing, each side first half the time, with 95% Wilson intervals.

    python benchmarks/bots.py [--games 200] [--iterations 64] [--response-windows strict|auto]
                              [--pairs ismcts,random greedy,random expert,club ...]

Each pairing is ``referee play --bots A,B --games N --seed bench --json``, run in its own process (two at a
time). A bot is a bot's name (``ismcts`` alone takes ``--iterations``) or a level (``beginner``, ``club``,
``expert``: ``referee.bots.players.LEVELS``); fixed work, so the games are the same on any machine and under
any load. Prints one JSON line per pairing and the seconds it took.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor


def run(pair: str, games: int, windows: str) -> dict:
    start = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee",
            "play",
            "--bots",
            pair,
            "--games",
            str(games),
            "--seed",
            "bench",
            "--json",
            "-q",
            "--response-windows",
            windows,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out) | {"seconds": round(time.perf_counter() - start, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--iterations", type=int, default=64, help="ISMCTS iterations per decision")
    p.add_argument("--pairs", nargs="+", default=["ismcts,random", "ismcts,greedy", "greedy,random"])
    p.add_argument("--parallel", type=int, default=2)
    p.add_argument("--response-windows", choices=("strict", "auto"), default="strict", help="RULES 9.4")
    args = p.parse_args()
    pairs = [
        ",".join(f"ismcts:{args.iterations}" if b == "ismcts" else b for b in pair.split(",")) for pair in args.pairs
    ]
    with ThreadPoolExecutor(args.parallel) as pool:
        for result in pool.map(lambda pair: run(pair, args.games, args.response_windows), pairs):
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
