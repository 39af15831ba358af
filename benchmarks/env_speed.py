"""referee.bots.env steps per second, in-process: uniformly random legal actions for both agents, concede off
(the environment's default), whole games; one core.

    python benchmarks/env_speed.py [--steps 20000] [--infostate] [--profile | --pieces] [--no-rlcard]

Prints one JSON line: steps, games, steps per second (wall and CPU), mean game length, games per second.
When ``rlcard`` is installed (the extra ``benchmark``: ``pip install -e '.[benchmark]'``), the same run also
plays RLCard's UNO, limit Hold'em and Dou Dizhu the same way (reset, then a uniformly random legal action until
the game is over, CPU time) and adds each one's steps a CPU-second and ours divided by it (``rlcard``): figures of
one run on one machine, so the ratios hold where the absolute figures do not.
``--pieces`` adds where a step's time goes (microseconds a step): the engine's ``legal_actions``, ``view`` and
``apply``, the index map, the observation and the mask, each timed where the environment calls it, and the rest
(PettingZoo's loop, the random agent, resets, and the timers' own cost).
The figures and RLCard's beside them: docs/performance.md, "Bots and fuzzing".
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from referee.bots.actions import ActionSpace
from referee.bots.encoding import Observation
from referee.bots.env import env
from referee.engine import Session

PIECES = (
    (Session, "legal_actions", "legal_actions"),
    (Session, "view", "view"),
    (Session, "apply_parsed", "apply"),
    (ActionSpace, "legal", "index map"),
    (Observation, "encode", "observation"),
    (ActionSpace, "mask", "mask"),
)


def timed(spent: dict[str, float], name: str, method: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return method(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - start

    return wrapper


def pieces(steps_wanted: int, infostate: bool) -> dict[str, float]:
    """:func:`run` with each piece's time summed where the environment calls it: microseconds a step."""
    spent = dict.fromkeys((name for *_, name in PIECES), 0.0)
    saved = [(owner, attr, getattr(owner, attr)) for owner, attr, _ in PIECES]
    for owner, attr, name in PIECES:
        setattr(owner, attr, timed(spent, name, getattr(owner, attr)))
    try:
        start = time.perf_counter()
        figures = run(steps_wanted, infostate)
        total = time.perf_counter() - start
    finally:
        for owner, attr, method in saved:
            setattr(owner, attr, method)
    per_step = {name: round(t / figures["steps"] * 1e6, 2) for name, t in spent.items()}
    per_step["rest"] = round((total - sum(spent.values())) / figures["steps"] * 1e6, 2)
    return per_step


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


RLCARD_GAMES = ("uno", "limit-holdem", "doudizhu")


def rlcard_run(name: str, steps_wanted: int) -> dict[str, float]:
    """RLCard's environment ``name``, the loop above: reset, a random legal action until over; CPU time."""
    import rlcard

    game, rng = rlcard.make(name, config={"seed": 0}), np.random.default_rng(0)
    steps = 0
    cpu = time.process_time()
    while steps < steps_wanted:
        state, _ = game.reset()
        while not game.is_over():
            legal = list(state["legal_actions"])
            state, _ = game.step(legal[int(rng.integers(len(legal)))])
            steps += 1
    return {"steps": steps, "steps_per_cpu_second": round(steps / (time.process_time() - cpu))}


def beside_rlcard(ours: dict[str, float], steps: int) -> dict[str, Any]:
    """RLCard's games in this run, and our steps a CPU-second divided by each one's; {} without rlcard."""
    try:
        import rlcard  # noqa: F401
    except ImportError:
        return {}
    out: dict[str, Any] = {}
    for name in RLCARD_GAMES:
        theirs = rlcard_run(name, steps)
        out[name] = theirs | {
            "ours_over_theirs": round(ours["steps_per_cpu_second"] / theirs["steps_per_cpu_second"], 3)
        }
    return {"rlcard": out}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--infostate", action="store_true", help="with the information-state observation")
    p.add_argument("--profile", action="store_true", help="print cProfile's top functions instead")
    p.add_argument("--pieces", action="store_true", help="print microseconds a step for each piece instead")
    p.add_argument("--no-rlcard", action="store_true", help="do not run RLCard's games even when installed")
    args = p.parse_args()
    if args.pieces:
        print(json.dumps(pieces(args.steps, args.infostate)))
        return
    if args.profile:
        cProfile.runctx("run(args.steps, args.infostate)", globals(), {"args": args}, "/tmp/env_speed.prof")
        pstats.Stats("/tmp/env_speed.prof").sort_stats("tottime").print_stats(30)
        return
    ours = run(args.steps, args.infostate)
    print(json.dumps(ours | ({} if args.no_rlcard else beside_rlcard(ours, args.steps))))


if __name__ == "__main__":
    main()
