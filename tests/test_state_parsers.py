"""The fast state parser and the careful one accept the same states and return the same copy.

``state_fast.fast_parse_state`` may only refuse (return None) where the
careful ``state_parser.parse_state`` then decides; it must never accept what
the careful parser refuses, nor return anything different.
"""

from __future__ import annotations

import copy

from hypothesis import given, settings, strategies as st

from referee.engine import Catalog, InvalidInput
from referee.engine.playout import play, play_out
from referee.engine.state_fast import fast_parse_state
from referee.engine.state_parser import parse_state

CATALOG = Catalog.builtin()
_, FINAL, _ = play_out(CATALOG, "parsers-1")


def _samples() -> list[dict]:
    """Positions of a strict-windows game: some with a window open, some mid-turn, the end."""
    out, seen_pending = [], 0
    for state, _ in play(CATALOG, "parsers-2", options={"response_windows": "strict"}):
        if state["pending"] is not None and seen_pending < 3:
            seen_pending += 1
            out.append(copy.deepcopy(state))
        elif len(out) < 6 and state["turn"] in (3, 9) and state["step"] == "main":
            out.append(copy.deepcopy(state))
    return out + [FINAL]


SAMPLES = _samples()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "auto", "main", "a000001"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["card", "case", "x"]), inner,
                                                                 max_size=3),
    max_leaves=6,
)


def paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths(v, prefix + (i,))


@st.composite
def mutated_states(draw):
    state = copy.deepcopy(draw(st.sampled_from(SAMPLES)))
    for _ in range(draw(st.integers(0, 3))):
        options = [p for p in paths(state) if p]
        path = draw(st.sampled_from(options))
        parent = state
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(json_values)
    return state


def careful(raw):
    try:
        return parse_state(raw)
    except InvalidInput:
        return "refused"


@settings(max_examples=400, deadline=None)
@given(mutated_states())
def test_fast_parser_never_disagrees_with_the_careful_one(raw):
    fast = fast_parse_state(raw)
    if fast is not None:
        assert careful(raw) == fast


def test_fast_parser_takes_every_ordinary_state():
    assert any(s["pending"] for s in SAMPLES)
    for state in SAMPLES:
        assert fast_parse_state(state) == parse_state(state)
