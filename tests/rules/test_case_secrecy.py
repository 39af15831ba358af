"""RULES 8.9.1 and 4.4: a face-down case's identity is secret to the opponent, and nothing the referee tells
that opponent depends on it.

The property: take a position (hand-built around two face-down cases of player 1, or from random play), with a catalog whose cases carry any ``dispatch_limit``
(1 to 3, never below a case's own ``fairies_at_least``), and swap the catalog ids of two face-down cases of
one player. The other seat is told exactly the same things in both positions: its view, its legal actions,
the answer of ``validate`` to every action it might try (each of its legal actions, and every dispatch,
redispatch and investigation aimed at the two cases), and for each legal one the events and the view
``apply`` gives it. Left out of that last comparison: an action that turns one of the two cases face up
(investigating it, a reveal aimed at it), which shows the case by rule (10.2).
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import Catalog, InconsistentState, RuleViolation, apply, check_state, legal_actions, validate, view
from referee.engine.events import events_for
from referee.engine.playout import play

from .positions import Position

BUILTIN = Catalog.builtin()
CASES = [c for c in BUILTIN.canonical["cards"] if c["kind"] == "case"]


def _lowest_limit(case: dict) -> int:
    """The lowest ``dispatch_limit`` the catalog loader accepts for ``case`` (its ``fairies_at_least``)."""
    return max([1] + [r["fairies_at_least"] for r in case.get("requires", []) if "fairies_at_least" in r])


@st.composite
def catalogs_with_limits(draw) -> Catalog:
    """af-ref with every case's ``dispatch_limit`` drawn (under its own catalog id and digest)."""
    limits = {c["id"]: draw(st.integers(_lowest_limit(c), 3), label=c["id"]) for c in CASES}
    cards = [
        dict(c, dispatch_limit=limits[c["id"]]) if c["id"] in limits else dict(c) for c in BUILTIN.canonical["cards"]
    ]
    return Catalog.from_data({"id": "af-ref-limits", "cards": cards})


def _answer(catalog: Catalog, state: dict, action: dict):
    v = validate(catalog, state, action)
    return None if v is None else (v.rule, v.code, v.detail("en"))


def _reveals(action: dict, secret: set[str]) -> bool:
    return (action["type"] == "investigate" and action["case"] in secret) or bool(secret & {*action.get("targets", [])})


def _probes(state: dict, seat: int, secret: list[str], twin: dict, catalog: Catalog) -> list[dict]:
    """What ``seat`` might try: its legal actions in either position, and every dispatch, redispatch and
    investigation of the two secret cases."""
    out = legal_actions(catalog, state, seat) + legal_actions(catalog, twin, seat)
    for f in state["players"][seat]["fairies"]:
        kind = "dispatch" if f["case"] is None else "redispatch"
        out += [{"type": kind, "player": seat, "fairy": f["card"], "case": case} for case in secret]
    out += [{"type": "investigate", "player": seat, "case": case} for case in secret]
    unique: list[dict] = []
    for a in out:
        if a not in unique:
            unique.append(a)
    return unique


def _told(catalog: Catalog, state: dict, seat: int, action: dict):
    """What ``seat`` is told when it applies ``action``: its events and its view of the next state."""
    try:
        after, events = apply(catalog, state, action)
    except RuleViolation as v:
        return (v.rule, v.code, v.detail("en"))
    return events_for(events, after, seat), view(catalog, after, seat)


def _swapped(catalog: Catalog, state: dict, owner: int, pair: tuple[str, str]) -> dict | None:
    """``state`` with the catalog ids of the owner's two face-down cases exchanged; ``None`` when the
    exchange breaks the owner's own limits (RULES 8.9: the owner may use them, and the position then does not
    exist with the other case)."""
    twin = copy.deepcopy(state)
    a, b = pair
    twin["cards"][a], twin["cards"][b] = twin["cards"][b], twin["cards"][a]
    try:
        check_state(catalog, twin)
    except InconsistentState:
        return None
    return twin


def _secret_pairs(state: dict, owner: int) -> list[tuple[str, str]]:
    down = [e["card"] for e in state["players"][owner]["cases"] if not e["face_up"]]
    return [(down[i], down[j]) for i in range(len(down)) for j in range(i + 1, len(down))]


FAIRIES = ["AF-001", "AF-004", "AF-005", "AF-006", "AF-009"]
COUNTERS = ["AF-070", "AF-071", "AF-072", "AF-077", "AF-078", "AF-084"]
GAMES = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def positions_around_two_secret_cases(draw) -> tuple[Catalog, dict, tuple[str, str]]:
    """Player 0 in the main step, player 1 with two face-down cases (any of the catalog's cases, any limits):
    player 0's fairies on them (one each at most, RULES 8.9.1), standby or on its own cases, its evidence on
    them, player 1's own fairies there (one each, so the swapped position exists too) and a few counters."""
    catalog = draw(catalogs_with_limits())
    p = Position(catalog=catalog, windows=draw(st.sampled_from(["auto", "strict"])))
    for cid in draw(st.lists(st.sampled_from(["AF-042", "AF-043", "AF-044"]), min_size=1, max_size=3)):
        p.case(0, cid, actioned=draw(st.booleans()))
    pair = tuple(p.case(1, draw(st.sampled_from(CASES))["id"]) for _ in range(2))
    p.case(1, "AF-045", face_up=True)
    own = p.zones[0]["cases"][0]["card"]
    for case in pair:
        if draw(st.booleans()):
            p.fairy(0, draw(st.sampled_from(FAIRIES)), on=case)
        if draw(st.booleans()):
            p.fairy(1, draw(st.sampled_from(FAIRIES)), on=case)
        if draw(st.booleans()):
            p.evidence(0, "AF-022", on=case)
    for _ in range(draw(st.integers(0, 2))):
        p.fairy(0, draw(st.sampled_from(FAIRIES)))
    if draw(st.booleans()):
        p.fairy(0, draw(st.sampled_from(FAIRIES)), on=own)
    for cid in draw(st.lists(st.sampled_from(COUNTERS), max_size=2)):
        p.hand(1, cid)
    return catalog, p.build(), pair


def _same_for_the_seat(catalog: Catalog, state: dict, seat: int, pair: tuple[str, str]) -> bool:
    """Assert ``seat`` is told the same after the owner's ``pair`` is swapped; ``False`` if the swapped
    position does not exist."""
    twin = _swapped(catalog, state, 1 - seat, pair)
    if twin is None:
        return False
    assert view(catalog, state, seat) == view(catalog, twin, seat)
    assert legal_actions(catalog, state, seat) == legal_actions(catalog, twin, seat)
    for action in _probes(state, seat, list(pair), twin, catalog):
        assert _answer(catalog, state, action) == _answer(catalog, twin, action), action
        if not _reveals(action, set(pair)):
            assert _told(catalog, state, seat, action) == _told(catalog, twin, seat, action), action
    return True


@GAMES
@given(position=positions_around_two_secret_cases())
def test_8_9_1_swapping_two_face_down_cases_changes_nothing_the_opponent_is_told(position):
    """RULES 8.9.1, 4.4: player 0 is told the same whichever of player 1's face-down cases is which."""
    catalog, state, pair = position
    assert _same_for_the_seat(catalog, state, 0, pair)


@GAMES
@given(catalog=catalogs_with_limits(), seed=st.text(min_size=1, max_size=8), which=st.integers(0, 2**16))
def test_8_9_1_swapping_the_opponents_face_down_cases_changes_nothing_a_seat_is_told(catalog, seed, which):
    """RULES 8.9.1, 4.4: the seat to act is told the same whichever face-down case of the opponent is which."""
    compared = 0
    for state, _ in play(catalog, seed, max_actions=400):
        if state["phase"] != "turn" or state["pending"] is not None:
            continue
        seat = state["active"]
        pairs = _secret_pairs(state, 1 - seat)
        if pairs and _same_for_the_seat(catalog, copy.deepcopy(state), seat, pairs[which % len(pairs)]):
            compared += 1
            if compared >= 6:
                break
