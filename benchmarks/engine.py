"""Engine speed: median µs of apply, legal_actions and the consistency check on
seeded mid-game states, and whole random games per second, on one core.

    make bench            # or: .venv/bin/python benchmarks/engine.py [--states N] [--games N]

Figures are recorded in the README's performance section. Not a test: no
thresholds here, just numbers.
"""

from __future__ import annotations

import argparse
import copy
import os
import statistics
import time

from referee.engine import Catalog, Session, apply, check_state, legal_actions
from referee.engine.board import Game
from referee.engine.game import actions_for, step  # the raw pipeline, to time it apart from the session
from referee.engine.playout import choose, play_out, random_new_game
from referee.engine.setup import SeededStream, new_game


def mid_game_positions(catalog: Catalog, count: int) -> list[tuple[dict, dict]]:
    """(state, the action the random player took there), from the middle of seeded games."""
    positions = []
    seed = 0
    while len(positions) < count:
        game, _, actions = play_out(catalog, f"bench-{seed}")
        seed += 1
        if len(actions) < 40:
            continue
        state, _ = new_game(catalog, game)
        g = Game(catalog, state)
        for i, action in enumerate(actions):
            if i in (len(actions) // 3, len(actions) // 2, 2 * len(actions) // 3):
                positions.append((copy.deepcopy(state), action))
            step(g, action)
    return positions[:count]


def median_us(fn, items, repeat: int) -> float:
    samples = []
    for item in items:
        for _ in range(repeat):
            t0 = time.perf_counter_ns()
            fn(item)
            samples.append(time.perf_counter_ns() - t0)
    return statistics.median(samples) / 1000


def games_per_second(catalog: Catalog, games: int, enumerate_all: bool) -> tuple[float, float]:
    """Whole random games from deal to the end; returns (games/s, actions per game)."""
    total_actions = 0
    t0 = time.perf_counter()
    for n in range(games):
        seed = f"speed-{n}"
        if not enumerate_all:
            total_actions += len(play_out(catalog, seed)[2])
            continue
        state, _ = new_game(catalog, random_new_game(catalog, seed))
        g, stream = Game(catalog, state), SeededStream("choices:" + seed)
        while not g.over:
            step(g, choose(actions_for(g), stream))
            total_actions += 1
    elapsed = time.perf_counter() - t0
    return games / elapsed, total_actions / games


def replay_rate(catalog: Catalog, games: int) -> float:
    """In-process replay of recorded games (Session.replay: parse each action, apply; no re-check between)."""
    recorded = [play_out(catalog, f"replay-{n}")[::2] for n in range(games)]
    total = 0
    t0 = time.perf_counter()
    for game, actions in recorded:
        total += Session.new(catalog, game)[0].replay(actions)
    return total / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=60)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    catalog = Catalog.builtin()
    positions = mid_game_positions(catalog, args.states)
    print(f"{len(positions)} mid-game states, {args.repeat} runs each")
    rows = [
        ("apply (check + rules + copy)", lambda p: apply(catalog, p[0], p[1])),
        ("consistency check (check_state)", lambda p: check_state(catalog, p[0])),
        ("legal_actions", lambda p: legal_actions(catalog, p[0])),
    ]
    for label, fn in rows:
        print(f"  {label:34s} median {median_us(fn, positions, args.repeat):8.1f} µs")
    print(f"  in-process replay                  {replay_rate(catalog, max(10, args.games // 10)):8.0f} actions/s")
    rate, length = games_per_second(catalog, args.games, enumerate_all=False)
    print(f"  random full games (fast policy)    {rate:8.1f} games/s  ({length:.0f} actions/game)")
    rate, length = games_per_second(catalog, max(20, args.games // 5), enumerate_all=True)
    print(f"  random full games (legal_actions)  {rate:8.1f} games/s  ({length:.0f} actions/game)")


if __name__ == "__main__":
    main()
