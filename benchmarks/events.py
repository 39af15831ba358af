"""Pairing and standings time of big events (docs/performance.md, "Events").

    .venv/bin/python benchmarks/events.py [--players 64 512 4096] [--round 5] [--repeat 3]

Each event is played to the round before ``--round`` with random results (seeded: the same events every
run), then its next round is paired and its standings computed, each timed (best of ``--repeat``, one core).
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from referee.events import new_event, pair, standings


def played_event(players: int, rounds: int, seed: int = 7) -> dict[str, Any]:
    """An event of ``players`` players after ``rounds`` rounds with random match scores (best of 3)."""
    rng = random.Random(seed)
    event = new_event([f"p{i:04d}" for i in range(players)], seed=f"bench-{players}", swiss_rounds=max(rounds + 1, 1))
    for _ in range(rounds):
        event = pair(event)["event"]
        for pairing in event["rounds"][-1]["pairings"]:
            if "players" in pairing:
                pairing["result"] = {"games": rng.choice([[2, 0], [2, 1], [0, 2], [1, 2]])}
    return event


def best_of(repeat: int, work: Any) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[64, 512, 4096])
    parser.add_argument("--round", type=int, default=5, help="the round paired (default 5)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"{'players':>8} {'round':>6} {'pair s':>8} {'standings s':>12}")
    for players in args.players:
        event = played_event(players, args.round - 1)
        paired = best_of(args.repeat, lambda e=event: pair(e))
        ranked = best_of(args.repeat, lambda e=event: standings(e))
        print(f"{players:>8} {args.round:>6} {paired:>8.3f} {ranked:>12.3f}")


if __name__ == "__main__":
    main()
