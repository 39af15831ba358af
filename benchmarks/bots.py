"""Bot strength: 200 seeded games per pairing, each side first half the time, with 95% Wilson intervals.

    python benchmarks/bots.py [--games 200] [--iterations 64] [--response-windows strict|auto]
                              [--pairs ismcts,random greedy,random expert,club ...]

Each pairing is ``referee play --bots A,B --games N --seed bench --json``, run in its own process (two at a
time). A bot is a bot's name (``ismcts`` alone takes ``--iterations``) or a level (``beginner``, ``club``,
``expert``: ``referee.bots.players.LEVELS``); fixed work, so the games are the same on any machine and under
any load. Prints one JSON line per pairing and the seconds it took.

``--options JSON`` gives the first bot of each pair ISMCTS's options (``{"widening": 1.0}``, ``{"exploration":
1.4}``, ``{"samples": 16}``, ``{"rollout": 1}``: docs/bots.md) and plays in-process instead (the same deals as
``referee play``; the bots' seeds ``bench:a`` and ``bench:b``), for measuring one change at a time.
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


def run_in_process(pair: str, games: int, windows: str, options: dict) -> dict:
    """``pair``'s games as ``referee play`` deals them, the first bot given ``options``."""
    from referee.bots.match import play_match
    from referee.bots.players import make_bot
    from referee.engine import Catalog

    catalog = Catalog.builtin()
    a, b = pair.split(",")
    start = time.perf_counter()
    result = play_match(
        catalog,
        lambda i: (make_bot(a, catalog, seed="bench:a", **options), make_bot(b, catalog, seed="bench:b")),
        (a, b),
        games,
        "bench",
        options={"response_windows": windows},
    )
    return result.to_json() | {"options": options, "seconds": round(time.perf_counter() - start, 1)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--iterations", type=int, default=64, help="ISMCTS iterations per decision")
    p.add_argument("--pairs", nargs="+", default=["ismcts,random", "ismcts,greedy", "greedy,random"])
    p.add_argument("--parallel", type=int, default=2)
    p.add_argument("--response-windows", choices=("strict", "auto"), default="strict", help="RULES 9.4")
    p.add_argument("--options", type=json.loads, help="ISMCTS options for the first bot of each pair (in-process)")
    args = p.parse_args()
    pairs = [
        ",".join(f"ismcts:{args.iterations}" if b == "ismcts" else b for b in pair.split(",")) for pair in args.pairs
    ]

    def one(pair: str) -> dict:
        if args.options is not None:
            return run_in_process(pair, args.games, args.response_windows, args.options)
        return run(pair, args.games, args.response_windows)

    with ThreadPoolExecutor(args.parallel) as pool:
        for result in pool.map(one, pairs):
            print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
