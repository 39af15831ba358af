"""Property tests of Swiss pairing (RULES 15.5) over random events: no rematch, the bye rule, every player
still in paired once, the least cost (against an exhaustive search on small fields, and against the
blossom on the whole graph for fields whose score groups are large enough for the small graph's
representatives), and standings that are the same for the same document."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import events
from referee.events.pairing import blossom_pairing, cost, floated_pairing, least_cost_pairing
from referee.events.tournament import field_of


def random_event(seed: int, players: int, rounds: int, drop_rate: float) -> dict:
    """An event of ``players`` played for up to ``rounds`` rounds with random scores and drops."""
    rng = random.Random(seed)
    doc = events.new_event([f"p{i}" for i in range(players)], seed=f"prop-{seed}", swiss_rounds=rounds + 1)
    for _ in range(rounds):
        answer = events.pair(doc)
        if answer.get("swiss_ended"):
            return answer["event"]
        doc = answer["event"]
        current = doc["rounds"][-1]
        for pairing in current["pairings"]:
            if "players" in pairing:
                pairing["result"] = (
                    {"forfeit": rng.choice(pairing["players"])}
                    if rng.random() < 0.05
                    else {"games": rng.choice([[2, 0], [2, 1], [0, 2], [1, 2]])}
                )
        active = [
            p["id"] for p in doc["players"] if p["id"] not in {d for r in doc["rounds"] for d in r.get("drops", [])}
        ]
        drops = [p for p in active if rng.random() < drop_rate][: max(0, len(active) - 2)]
        if drops:
            current["drops"] = drops
    return doc


def perfect_matchings(players: list[int], met: dict[int, set[int]]) -> Iterator[list[tuple[int, int]]]:
    """Every rematch-free pairing of ``players`` (exhaustive)."""
    if not players:
        yield []
        return
    first, rest = players[0], players[1:]
    for i, other in enumerate(rest):
        if other not in met[first]:
            for tail in perfect_matchings(rest[:i] + rest[i + 1 :], met):
                yield [(first, other), *tail]


def least_by_search(players: list[int], points: dict[int, int], met: dict[int, set[int]]) -> int | None:
    costs = [cost(m, points) for m in perfect_matchings(players, met)]
    return min(costs) if costs else None


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    players=st.integers(2, 11),
    rounds=st.integers(1, 6),
    drop_rate=st.sampled_from([0.0, 0.1]),
)
def test_a_round_obeys_15_5_and_costs_the_least_an_exhaustive_search_finds(seed, players, rounds, drop_rate) -> None:
    """RULES 15.5 on small fields: checked against every possible pairing."""
    doc = random_event(seed, players, rounds, drop_rate)
    if doc.get("swiss_ended"):
        return
    event = events.read_event(doc)
    field = field_of(event)
    answer = events.pair(doc)
    if answer.get("swiss_ended"):  # no bye candidate leaves a rematch-free pairing
        fewest = min(field.byes[p] for p in field.order)
        for bye in [None] if len(field.order) % 2 == 0 else [p for p in field.order if field.byes[p] == fewest]:
            rest = [p for p in field.order if p != bye]
            assert least_by_search(rest, field.points, field.met) is None
        return
    index = {pid: i for i, pid in enumerate(event.ids)}
    pairs = [tuple(index[x] for x in p["players"]) for p in answer["pairings"] if "players" in p]
    byes = [index[p["bye"]] for p in answer["pairings"] if "bye" in p]
    seen = [p for pair in pairs for p in pair] + byes
    assert sorted(seen) == sorted(field.order)  # every player still in, once
    assert all(b not in field.met[a] for a, b in pairs)  # no rematch
    assert len(byes) == len(field.order) % 2
    if byes and len(event.rounds) > 0:
        fewest = min(field.byes[p] for p in field.order)
        candidates = [p for p in reversed(field.order) if field.byes[p] == fewest]
        feasible = [
            c
            for c in candidates
            if least_by_search([p for p in field.order if p != c], field.points, field.met) is not None
        ]
        assert byes[0] == feasible[0]  # the lowest without a bye who leaves a pairing
    rest = [p for p in field.order if p not in byes]
    assert cost(pairs, field.points) == least_by_search(rest, field.points, field.met)
    again = events.pair(copy.deepcopy(doc))
    assert again == answer
    assert events.standings(doc) == events.standings(copy.deepcopy(doc))


def blossom_least(order: list[int], points: dict[int, int], met: dict[int, set[int]]) -> int | None:
    """The least cost by networkx's blossom on every allowed pair (slow, exact)."""
    graph = nx.Graph()
    graph.add_nodes_from(order)
    top = 1 + (max(points[p] for p in order) - min(points[p] for p in order)) ** 2
    for i, a in enumerate(order):
        for b in order[i + 1 :]:
            if b not in met[a]:
                graph.add_edge(a, b, weight=top - (points[a] - points[b]) ** 2)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != len(order):
        return None
    return sum((points[a] - points[b]) ** 2 for a, b in matching)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(40, 90), rounds=st.integers(1, 3))
def test_the_small_graph_costs_what_the_whole_graph_costs(seed, players, rounds) -> None:
    """RULES 15.5 on fields with large score groups (representatives and stand-ins, pairing.py's argument)."""
    doc = random_event(seed, players, rounds, 0.0)
    field = field_of(events.read_event(doc))
    order = field.order[: len(field.order) - len(field.order) % 2]
    pairs = blossom_pairing(order, field.points, field.met)
    assert pairs is not None
    assert cost(least_cost_pairing(order, field.points, field.met), field.points) == cost(pairs, field.points)
    assert sorted(p for pair in pairs for p in pair) == sorted(order)
    assert all(b not in field.met[a] for a, b in pairs)
    assert cost(pairs, field.points) == blossom_least(order, field.points, field.met)


def test_a_large_group_is_represented_and_extended() -> None:
    """The reduction is taken (a score group past 2K + 3D + 2 players) and its pairing extended exactly."""
    doc = random_event(3, 160, 2, 0.0)
    field = field_of(events.read_event(doc))
    groups = {}
    for p in field.order:
        groups.setdefault(field.points[p], []).append(p)
    depth = max(len(field.met[p]) for p in field.order)
    assert max(len(g) for g in groups.values()) >= 2 * (6 * depth + 3) + 3 * depth + 2
    pairs = blossom_pairing(field.order, field.points, field.met)
    assert pairs is not None and cost(pairs, field.points) == blossom_least(field.order, field.points, field.met)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), size=st.integers(56, 120), depth=st.integers(1, 3), groups=st.integers(1, 3))
def test_dense_past_meetings_in_large_groups_never_give_a_rematch(seed, size, depth, groups) -> None:
    """RULES 15.5: fields built directly, each player having met ``depth`` others of their own large group
    (so a representative's partner from the rest of its group is often one it has met)."""
    rng = random.Random(seed)
    size -= size % 2
    order = list(range(size))
    points = {p: 3 * (groups - 1 - p * groups // size) for p in order}
    met: dict[int, set[int]] = {p: set() for p in order}
    for p in order:
        for _ in range(50):  # bounded: a full group leaves a player short, which is still a field
            if len(met[p]) >= depth:
                break
            q = rng.choice([x for x in order if points[x] == points[p] and x != p])
            if len(met[q]) < depth + 1:
                met[p].add(q)
                met[q].add(p)
    least = blossom_least(order, points, met)
    for pairs in (blossom_pairing(order, points, met), least_cost_pairing(order, points, met)):
        assert pairs is not None
        assert sorted(p for pair in pairs for p in pair) == order
        assert all(b not in met[a] for a, b in pairs)
        assert cost(pairs, points) == least


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), players=st.integers(4, 12), rounds=st.integers(2, 7))
def test_the_fast_path_is_never_above_the_least_cost(seed, players, rounds) -> None:
    """RULES 15.5: when the fast path finds a pairing, no pairing is cheaper (exhaustive search)."""
    doc = random_event(seed, players, rounds, 0.0)
    field = field_of(events.read_event(doc))
    order = field.order[: len(field.order) - len(field.order) % 2]
    fast = floated_pairing(order, field.points, field.met)
    if fast is not None:
        assert all(b not in field.met[a] for a, b in fast)
        assert cost(fast, field.points) == least_by_search(order, field.points, field.met)
