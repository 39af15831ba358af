"""referee.env steps per second: uniformly random legal actions for both agents (no concede), whole games.

python benchmarks/env_steps.py [--steps 20000]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from referee.bots.encoding import FIXED
from referee.bots.env import env

CONCEDE = FIXED.index("concede")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=20000)
    args = p.parse_args()
    game, rng = env(seed=0), np.random.default_rng(0)
    steps = games = 0
    start, cpu = time.perf_counter(), time.process_time()
    while steps < args.steps:
        game.reset(seed=games)
        games += 1
        for _ in game.agent_iter():
            obs, _, termination, truncation, _ = game.last()
            if termination or truncation:
                game.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                playable = legal[legal != CONCEDE] if len(legal) > 1 else legal  # concede only when alone
                game.step(int(rng.choice(playable)))
            steps += 1
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(
        json.dumps(
            {
                "steps": steps,
                "games": games,
                "steps_per_second": round(steps / wall),
                "steps_per_cpu_second": round(steps / cpu),
            }
        )
    )


if __name__ == "__main__":
    main()
