"""Swiss pairing (RULES 15.5): no rematch, the bye rule, and the least sum of squared match-point
differences, exactly, deterministically, and fast enough for 4,096 players.

Most rounds are paired by a fast path (:func:`floated_pairing`): each score
group inside, one player floated down across each boundary with an odd number
of players above it. No pairing costs less (its docstring says why), so when it
is found it is a least-cost pairing. When it is not, the blossom decides:

The cost of a pairing depends only on the players' match points, so players of
one score group are interchangeable for the cost: only who has met whom tells
them apart. A minimum-cost perfect matching (networkx's weighted blossom,
``max_weight_matching``) on every allowed pair would be exact but has millions of
edges at 4,096 players. It is run instead on a small graph that provably has
the same least cost, and its answer is extended to the whole field:

Let ``D`` be the most opponents any player has met (a player refuses at most
``D`` partners). A score group is a **wall** when it has more than ``8D + 2``
players, and **large** when it has at least ``2K + 3D + 2``, ``K = 6D + 3``
(every large group is a wall). A large group enters the graph as ``K``
representatives (its top and bottom players) and ``P`` stand-ins (``P`` = ``K``
or ``K + 1``, of the parity of the rest of the group), each stand-in meaning
"pairs with a player of the rest of the group": stand-ins join the group's
representatives and each other at cost 0. A small group enters whole. Two
players are joined when they have not met and no wall lies strictly between
their score groups. Then:

1. *At most 4D + 2 players leave any score group G in a least-cost pairing.*
   Two leaving downwards (or two upwards), x and y with partners p and q, could
   be re-paired x–y, p–q at a strictly lower cost ((a − b)² < a² + b² for a, b >
   0), unless x, y have met or p, q have: each leaver is blocked so with at most
   2D others, so at most 2D + 1 leave each way.
2. *No least-cost pairing pairs across a wall B.* A pair x–z spanning B
   and a pair y1–y2 inside B re-pair x–y1, y2–z at a strictly lower cost
   ((a + b)² > a² + b²); B keeps at least (|B| − 4D − 2)/2 > 2D pairs inside
   (1.), and the opponents of x and z spoil at most 2D of them.
3. *The leavers can be taken to be representatives.* If a rest player x leaves
   G with partner p, some representative r paired inside G (to q) has r, p not
   met and x, q not met (at least K − 4D − 2 such r, 2D spoiled): re-pairing
   r–p, x–q keeps the cost. Repeated, every leaver is a representative, and the
   pairing is one of the small graph's, of the same cost.
4. *Every pairing of the small graph extends to the whole field at its cost.*
   Each representative paired with a stand-in gets a rest player it has not
   met (the rest has at least K + 3D + 2 players); the rest left over, at
   least 3D + 2 players who each refuse at most D of the others, is paired
   inside the group at cost 0: greedily in standings order, then each two
   left over (x, y) are exchanged into a pair (a, b) with x–a and y–b allowed,
   which exists since x and y have more allowed partners together than there
   are paired players (Dirac's argument).

So the small graph's least cost is the field's, and its pairing extended is a
least-cost pairing; no pairing of the small graph means no rematch-free pairing
at all. The blossom is run with ``maxcardinality`` and integer weights
``W − cost`` (W above any cost): a perfect matching if there is one, and among
those the cheapest, in integer arithmetic. Nodes and edges are added in
standings order, so the same field gets the same pairing (RULES 13.2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set

import networkx as nx

from referee.events.rules import rule

Pairs = list[tuple[int, int]]


def cost(pairs: Sequence[tuple[int, int]], points: Mapping[int, int]) -> int:
    """RULES 15.5's measure of a pairing: the sum over its pairs of the squared match-point difference."""
    return sum((points[a] - points[b]) ** 2 for a, b in pairs)


def _groups(order: Sequence[int], points: Mapping[int, int]) -> list[list[int]]:
    """The score groups of ``order`` (standings order: match points never rise along it)."""
    groups: list[list[int]] = []
    for p in order:
        if groups and points[groups[-1][0]] == points[p]:
            groups[-1].append(p)
        else:
            groups.append([p])
    return groups


FLOATER_TRIES = 4  # players tried as a group's one floater before the fast path gives way to the blossom


def floated_pairing(order: Sequence[int], points: Mapping[int, int], met: Mapping[int, Set[int]]) -> Pairs | None:
    """The fast path: a pairing at the lower bound of every pairing's cost, or None if it finds none.

    Every pairing crosses the boundary below a score group at least once when an odd number of players
    stand above it, and a pair crossing boundaries of gaps d1, d2... costs (d1 + d2 + ...)² ≥ d1² + d2²
    + ...: so no pairing costs less than the sum of d² over those boundaries. Pairing each group inside,
    with one player floated down across each such boundary to the group just below, costs exactly that:
    when it is found (greedily, then exchanges; a group's lowest players tried as its floater), it is a
    least-cost pairing, and the blossom is not needed."""
    groups = _groups(order, points)
    pairs: Pairs = []
    incoming: list[int] = []
    for g, members in enumerate(groups):
        pool = incoming + members
        if len(pool) % 2 == 0:
            inside = pair_inside(pool, met)
            incoming = []
        else:
            if g + 1 == len(groups):
                return None
            below = groups[g + 1]
            tried = [x for x in reversed(members) if any(y not in met[x] for y in below)][:FLOATER_TRIES]
            inside = None
            for floater in tried:
                inside = pair_inside([p for p in pool if p != floater], met)
                if inside is not None:
                    incoming = [floater]
                    break
        if inside is None:
            return None
        pairs.extend(inside)
    return pairs


@rule("15.5")
def least_cost_pairing(order: Sequence[int], points: Mapping[int, int], met: Mapping[int, Set[int]]) -> Pairs | None:
    """A rematch-free pairing of the (even) ``order`` with the least cost, or None when there is none.
    Each pair's higher-placed player first; pairs in standings order of their first player: the fast
    path's (:func:`floated_pairing`) when it finds one, else the blossom's on the small graph."""
    if not order:
        return []
    fast = floated_pairing(order, points, met)
    if fast is not None:
        return in_standings_order(fast, order)
    return blossom_pairing(order, points, met)


def blossom_pairing(order: Sequence[int], points: Mapping[int, int], met: Mapping[int, Set[int]]) -> Pairs | None:
    """The least-cost rematch-free pairing by the blossom on the small graph (the argument above), or None."""
    if not order:
        return []
    depth = max(len(met[p]) for p in order)
    reps = 6 * depth + 3
    large = 2 * reps + 3 * depth + 2
    wall = 8 * depth + 3
    groups = _groups(order, points)
    top = 1 + (points[order[0]] - points[order[-1]]) ** 2  # W: every weight is W - cost > 0
    graph = nx.Graph()
    nodes: list[list[int]] = []  # each group's players in the graph
    rests: dict[int, list[int]] = {}  # a large group's players not in the graph
    stand_ins: dict[int, int] = {}  # stand-in node -> its group
    for g, members in enumerate(groups):
        if len(members) < large:
            nodes.append(list(members))
            continue
        head = (reps + 1) // 2
        inside = members[:head] + members[len(members) - (reps - head) :]
        rests[g] = members[head : len(members) - (reps - head)]
        nodes.append(inside)
        count = reps if (reps - len(rests[g])) % 2 == 0 else reps + 1
        first = -1 - len(stand_ins)
        ins = list(range(first, first - count, -1))
        stand_ins.update(dict.fromkeys(ins, g))
        graph.add_nodes_from(inside)
        graph.add_nodes_from(ins)
        graph.add_edges_from(((r, s) for r in inside for s in ins), weight=top)
        graph.add_edges_from(((s, t) for i, s in enumerate(ins) for t in ins[i + 1 :]), weight=top)
    walls = {g for g, members in enumerate(groups) if len(members) >= wall}
    _join_players(graph, groups, nodes, walls, points, met, top)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != graph.number_of_nodes():
        return None
    return _extend(matching, order, stand_ins, rests, met)


def _join_players(
    graph: nx.Graph,
    groups: list[list[int]],
    nodes: list[list[int]],
    walls: set[int],
    points: Mapping[int, int],
    met: Mapping[int, Set[int]],
    top: int,
) -> None:
    """Every allowed pair of the graph's players: not met, and no wall strictly between them."""
    for g, here in enumerate(nodes):
        graph.add_nodes_from(here)
        for h in range(g, len(nodes)):
            if h > g + 1 and (h - 1) in walls:
                break  # a pair across a wall is never cheapest (2. above)
            weight = top - (points[groups[g][0]] - points[groups[h][0]]) ** 2
            for i, a in enumerate(here):
                refused = met[a]
                others = nodes[h][i + 1 :] if h == g else nodes[h]
                graph.add_edges_from(((a, b) for b in others if b not in refused), weight=weight)


def _extend(
    matching: set[tuple[int, int]],
    order: Sequence[int],
    stand_ins: dict[int, int],
    rests: dict[int, list[int]],
    met: Mapping[int, Set[int]],
) -> Pairs:
    """The small graph's matching as a pairing of the whole field (4. above)."""
    rank = {p: i for i, p in enumerate(order)}
    pairs: Pairs = []
    into_rest: dict[int, list[int]] = {g: [] for g in rests}
    for u, v in matching:
        if u >= 0 and v >= 0:
            pairs.append((u, v))
        elif u >= 0 or v >= 0:
            player, stand_in = (u, v) if u >= 0 else (v, u)
            into_rest[stand_ins[stand_in]].append(player)
    for g, rest in rests.items():
        taken: set[int] = set()
        for r in sorted(into_rest[g], key=rank.__getitem__):
            partner = next(x for x in rest if x not in taken and x not in met[r])
            taken.add(partner)
            pairs.append((r, partner))
        inside = pair_inside([x for x in rest if x not in taken], met)
        assert inside is not None, "the rest of a large group is always paired (4. above)"
        pairs.extend(inside)
    return in_standings_order(pairs, order)


def in_standings_order(pairs: Pairs, order: Sequence[int]) -> Pairs:
    """Each pair's higher-placed player first, the pairs in standings order of their first player."""
    rank = {p: i for i, p in enumerate(order)}
    ordered = [(a, b) if rank[a] < rank[b] else (b, a) for a, b in pairs]
    return sorted(ordered, key=lambda pair: rank[pair[0]])


def pair_inside(members: Sequence[int], met: Mapping[int, Set[int]]) -> Pairs | None:
    """A rematch-free pairing of an even group: greedily in standings order, then exchanges; None when an
    exchange finds nothing (never, for a group of at least 3D + 2 whose players each refuse at most D of
    the others: 4. above)."""
    free = list(reversed(members))
    pairs: Pairs = []
    left: list[int] = []
    while free:
        x = free.pop()
        for k in range(len(free) - 1, -1, -1):
            if free[k] not in met[x]:
                pairs.append((x, free.pop(k)))
                break
        else:
            left.append(x)
    while left:
        x, y = left.pop(0), left.pop(0)
        if y not in met[x]:
            pairs.append((x, y))
            continue
        exchanged = _exchange(pairs, x, y, met)
        if exchanged is None:
            return None
        pairs = exchanged
    return pairs


def _exchange(pairs: Pairs, x: int, y: int, met: Mapping[int, Set[int]]) -> Pairs | None:
    """``pairs`` with one pair (a, b) re-paired as x–a, y–b (or x–b, y–a), all unmet; None if none can be."""
    for i, (a, b) in enumerate(pairs):
        for c, d in ((a, b), (b, a)):
            if c not in met[x] and d not in met[y]:
                return [*pairs[:i], (x, c), (y, d), *pairs[i + 1 :]]
    return None


@rule("15.5")
def first_round(seeded: Sequence[int]) -> tuple[Pairs, int | None]:
    """Round 1: the seeded order paired first with second, third with fourth...; an odd last has the bye."""
    pairs = [(seeded[i], seeded[i + 1]) for i in range(0, len(seeded) - 1, 2)]
    return pairs, (seeded[-1] if len(seeded) % 2 else None)


@rule("15.5")
def pair_round(
    order: Sequence[int], points: Mapping[int, int], met: Mapping[int, Set[int]], byes: Mapping[int, int]
) -> tuple[Pairs, int | None] | None:
    """A later round's pairing of ``order`` (the players not dropped, in standings order) and its bye, or
    None when no pairing without a rematch exists (the Swiss rounds end, RULES 15.5).

    The bye goes to the lowest placed of those with the fewest byes (none, while anyone still in the event
    has none) without whom the others can still be paired."""
    if len(order) < 2:
        return None
    if len(order) % 2 == 0:
        pairs = least_cost_pairing(order, points, met)
        return None if pairs is None else (pairs, None)
    fewest = min(byes[p] for p in order)
    for candidate in reversed(order):
        if byes[candidate] != fewest:
            continue
        pairs = least_cost_pairing([p for p in order if p != candidate], points, met)
        if pairs is not None:
            return pairs, candidate
    return None
