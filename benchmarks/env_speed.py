"""referee.bots.env steps per second, in-process: uniformly random legal actions for both agents, concede off
(the environment's default), whole games; one core.

    python benchmarks/env_speed.py [--steps 20000] [--infostate] [--profile]

Prints one JSON line: steps, games, steps per second (wall and CPU), mean game length, games per second.
The figures and RLCard's beside them: docs/performance.md, "Bots and fuzzing".
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import time

import numpy as np

from referee.bots.env import env


def run(steps_wanted: int, infostate: bool) -> dict[str, float]:
    game, rng = env(seed=0, infostate=infostate), np.random.default_rng(0)
    steps = games = 0
    start, cpu = time.perf_counter(), time.process_time()
    while steps < steps_wanted:
        game.reset(seed=games)
        games += 1
        for _ in game.agent_iter():
            _, _, termination, truncation, info = game.last()
            if termination or truncation:
                game.step(None)
                continue
            legal = list(info["legal"])  # the mask's legal indices, without scanning its 11,095 entries
            game.step(legal[int(rng.integers(len(legal)))])
            steps += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {
        "steps": steps,
        "games": games,
        "steps_per_second": round(steps / wall),
        "steps_per_cpu_second": round(steps / cpu),
        "mean_game_length": round(steps / games, 1),
        "games_per_second": round(games / wall, 2),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--infostate", action="store_true", help="with the information-state observation")
    p.add_argument("--profile", action="store_true", help="print cProfile's top functions instead")
    args = p.parse_args()
    if args.profile:
        cProfile.runctx("run(args.steps, args.infostate)", globals(), {"args": args}, "/tmp/env_speed.prof")
        pstats.Stats("/tmp/env_speed.prof").sort_stats("tottime").print_stats(30)
        return
    print(json.dumps(run(args.steps, args.infostate)))


if __name__ == "__main__":
    main()
