"""Pairing and standings time of big events (docs/performance.md, "Events").

    .venv/bin/python benchmarks/events.py [--players 64 512 4096] [--round 5] [--repeat 3] [--whole-graph]

Each event is played to the round before ``--round`` with random results (seeded: the same events every
run), then its next round is paired (``referee.events.pair``, the endpoint's whole work: reading the
document, standings, pairing) and its standings computed (``referee.events.standings``), each timed in CPU
seconds of this process (one core; the least of ``--repeat``) and wall seconds. ``--whole-graph`` also
times the candidate not taken: networkx's blossom on every allowed pair of the field.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import networkx as nx

from referee.events import new_event, pair, read_event, standings
from referee.events.tournament import field_of


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


def timed(repeat: int, work: Callable[[], Any]) -> tuple[float, float]:
    """The least CPU seconds and the least wall seconds of ``repeat`` runs of ``work``."""
    cpu, wall = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        work()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    return min(cpu), min(wall)


def whole_graph(event: dict[str, Any]) -> None:
    """The candidate not taken: the blossom on every allowed pair of the field (exact, no reduction)."""
    field = field_of(read_event(event))
    order = field.order[: len(field.order) - len(field.order) % 2]
    points, met = field.points, field.met
    graph = nx.Graph()
    top = 1 + (points[order[0]] - points[order[-1]]) ** 2
    for i, a in enumerate(order):
        graph.add_edges_from(
            (a, b, {"weight": top - (points[a] - points[b]) ** 2}) for b in order[i + 1 :] if b not in met[a]
        )
    nx.max_weight_matching(graph, maxcardinality=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, nargs="+", default=[64, 512, 4096])
    parser.add_argument("--round", type=int, default=5, help="the round paired (default 5)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--whole-graph", action="store_true", help="also time the blossom on the whole graph")
    args = parser.parse_args()
    print(f"{'players':>8} {'round':>6} {'what':>12} {'cpu s':>8} {'wall s':>8}")
    for players in args.players:
        event = played_event(players, args.round - 1)
        works: dict[str, Callable[[], Any]] = {
            "pair": lambda e=event: pair(e),
            "standings": lambda e=event: standings(e),
        }
        if args.whole_graph:
            works["whole graph"] = lambda e=event: whole_graph(e)
        for what, work in works.items():
            cpu, wall = timed(args.repeat, work)
            print(f"{players:>8} {args.round:>6} {what:>12} {cpu:>8.3f} {wall:>8.3f}", flush=True)


if __name__ == "__main__":
    main()
