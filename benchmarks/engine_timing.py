"""One timing round of the engine, printed as JSON: the script ``engine.py --baseline`` runs under each revision.

It uses only what every revision since the baseline has — ``new_game``, ``apply``,
``legal_actions``, ``check_state``, ``replay`` and the random player's
``play_out`` — and builds its states itself from fixed seeds by applying the
recorded actions through the public ``apply``, so each revision times its own
reading of the same positions (the state format gained ``seq`` on the way).

    PYTHONPATH=<a checkout> python benchmarks/engine_timing.py [--states 60] [--repeat 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import referee
from referee.engine import Catalog, apply, check_state, legal_actions, new_game, replay
from referee.engine.playout import play_out


def mid_game_positions(catalog: Catalog, count: int) -> list[tuple[dict, dict]]:
    """(state, the action the random player took there) a third, half and two thirds into seeded games."""
    positions = []
    seed = 0
    while len(positions) < count:
        game, _, actions = play_out(catalog, f"bench-{seed}")
        seed += 1
        if len(actions) < 40:
            continue
        state, _ = new_game(catalog, game)
        marks = (len(actions) // 3, len(actions) // 2, 2 * len(actions) // 3)
        for i, action in enumerate(actions[: marks[-1] + 1]):
            if i in marks:
                positions.append((state, action))
            state, _ = apply(catalog, state, action)  # a new state each time: the kept ones stay as they were
    return positions[:count]


def median_us(fn, items, repeat: int) -> float:
    """The median of single calls (wall clock, ns timer): robust to the odd preempted call on a shared machine."""
    return medians_us({"": fn}, items, repeat)[""]


def medians_us(fns: dict, items, repeat: int) -> dict[str, float]:
    """Each function's median single call, the functions taken in turn on each item so that a busy
    spell of the machine weighs on all of them alike."""
    return {name: stats["median"] for name, stats in call_stats_us(fns, items, repeat).items()}


def call_stats_us(fns: dict, items, repeat: int) -> dict[str, dict[str, float]]:
    """Each function's median single call (``median``), and the median over items of each item's
    fastest call (``best``): interference on a shared host only ever adds time to a call, and adds
    the same microseconds to a short call as to a long one, so the best call of each item is what
    the code costs, and the ratio of two versions' ``best`` does not drift with the host's load."""
    samples: dict[str, list[int]] = {name: [] for name in fns}
    best: dict[str, list[float]] = {name: [float("inf")] * len(items) for name in fns}
    clock = time.perf_counter_ns
    for _ in range(repeat):
        for i, item in enumerate(items):
            for name, fn in fns.items():
                t0 = clock()
                fn(item)
                took = clock() - t0
                samples[name].append(took)
                if took < best[name][i]:
                    best[name][i] = took
    return {
        name: {"median": statistics.median(samples[name]) / 1000, "best": statistics.median(best[name]) / 1000}
        for name in fns
    }


def hot_median_us(fn, items, repeat: int) -> float:
    """Issue 11's own method (the ``make bench`` of 7bc43d9, which took the baseline's 40 µs): each
    item ``repeat`` times in a row, one function at a time; the median of all calls."""
    samples = []
    clock = time.perf_counter_ns
    for item in items:
        for _ in range(repeat):
            t0 = clock()
            fn(item)
            samples.append(clock() - t0)
    return statistics.median(samples) / 1000


def replay_rate(catalog: Catalog, games: int, passes: int = 3) -> float:
    """Actions per CPU second replaying recorded games in-process (``replay`` from the NewGame: deal included);
    the median of ``passes`` passes. CPU time of this process, so other jobs on the machine do not count."""
    recorded = [play_out(catalog, f"replay-{n}")[::2] for n in range(games)]
    rates = []
    for _ in range(passes):
        total, t0 = 0, time.process_time()
        for game, actions in recorded:
            total += replay(catalog, actions, game=game)[1]
        rates.append(total / (time.process_time() - t0))
    return statistics.median(rates)


def measure(states: int, repeat: int, replay_games: int) -> dict[str, float]:
    catalog = Catalog.builtin()
    positions = mid_game_positions(catalog, states)
    fns = {
        "apply_us": lambda p: apply(catalog, p[0], p[1]),
        "check_state_us": lambda p: check_state(catalog, p[0]),
        "legal_actions_us": lambda p: legal_actions(catalog, p[0]),
    }
    stats = call_stats_us(fns, positions, repeat)
    timed = {name: s["median"] for name, s in stats.items()}
    best = {name.replace("_us", "_best_us"): s["best"] for name, s in stats.items()}
    hot = {name.replace("_us", "_hot_us"): hot_median_us(fn, positions, repeat) for name, fn in fns.items()}
    return {**timed, **best, **hot, "replay_actions_per_s": replay_rate(catalog, replay_games)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--replay-games", type=int, default=30)
    parser.add_argument("--expect-root", help="fail unless referee is imported from this checkout")
    args = parser.parse_args()
    if args.expect_root:  # PYTHONPATH must win over the venv's editable install
        imported = Path(referee.__file__).resolve().parent.parent
        if imported != Path(args.expect_root).resolve():
            raise SystemExit(f"referee imported from {imported}, not {args.expect_root}")
    print(json.dumps(measure(args.states, args.repeat, args.replay_games)))


if __name__ == "__main__":
    main()
