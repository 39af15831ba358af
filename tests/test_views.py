"""docs/api.md §5 and RULES 4.1/4.4: what a view shows, stated as the contract (hypothesis).

The engine has one view (``referee/engine/views.py``); these properties hold it to
what the contract says a player may see, on real positions with cases turned
either way and ``cards`` in any order, rather than to a second copy of it.
"""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import Catalog, apply
from referee.engine.events import events_for
from referee.engine.facts import commitment, other
from referee.engine.playout import play
from referee.engine.views import VIEW_SCHEMA, view_of, visible_cards

CATALOG = Catalog.builtin()
# (state, the action played from it), through two games
POSITIONS = [
    (copy.deepcopy(s), a)
    for options in ({"response_windows": "strict"}, {})
    for n, (s, a) in enumerate(play(CATALOG, f"views-{len(options)}", options=options))
    if n % 7 == 0
]
HIDDEN = ("seed", "rng", "seal")  # docs/api.md §5: they would let a viewer re-deal both files


@st.composite
def positions(draw):
    """A real position with its cases turned either way (both sides of RULES 4.4) and ``cards`` in any order."""
    state = copy.deepcopy(draw(st.sampled_from(POSITIONS))[0])
    for pl in state["players"]:
        for case in pl["cases"]:
            case["face_up"] = draw(st.booleans())
    if draw(st.booleans()):
        state["cards"] = dict(draw(st.permutations(list(state["cards"].items()))))
    return state


def field_cards(pl: dict, face_down_too: bool) -> set[str]:
    cases = {e["card"] for e in pl["cases"] if face_down_too or e["face_up"]}
    return cases | {e["card"] for zone in ("fairies", "evidence") for e in pl[zone]}


@settings(max_examples=200, deadline=None)
@given(positions(), st.integers(0, 1))
def test_given_a_position_then_the_view_shows_exactly_the_cards_the_viewer_may_know(state, viewer):
    mine, theirs = state["players"][viewer], state["players"][other(viewer)]
    may_know = {*mine["hand"], *mine["trash"], *theirs["trash"]}
    may_know |= field_cards(mine, face_down_too=True) | field_cards(theirs, face_down_too=False)
    pending = state["pending"]
    if pending is not None:  # its declaration revealed the card, except a case played face down
        may_know |= set(pending["counters"])
        if pending["action"]["type"] != "play_case" and "card" in pending["action"]:
            may_know.add(pending["action"]["card"])
    view = view_of(state, viewer)
    assert visible_cards(state, viewer) == may_know
    assert view["cards"] == {iid: cid for iid, cid in state["cards"].items() if iid in may_know}
    assert list(view["cards"]) == [iid for iid in state["cards"] if iid in may_know]  # the state's order kept


@settings(max_examples=100, deadline=None)
@given(positions(), st.integers(0, 1))
def test_given_a_position_then_the_view_is_the_state_with_files_as_counts_and_no_seed(state, viewer):
    view = view_of(state, viewer)
    assert not set(HIDDEN) & set(view)
    assert (view["schema"], view["viewer"], view["player"]) == (VIEW_SCHEMA, viewer, viewer)
    assert view["commitment"] == commitment(state["seed"])
    assert view["players"] == [{**pl, "file": len(pl["file"])} for pl in state["players"]]
    shown = [k for k in state if k not in (*HIDDEN, "cards", "players")]
    assert list(view) == [*shown, "viewer", "player", "commitment", "cards", "players"]  # one order, one answer
    assert all(view[k] == state[k] for k in shown if k != "schema")
    assert view_of(state, viewer, visible_cards(state, viewer)) == view


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(POSITIONS), st.sampled_from([0, 1, None]))
def test_given_the_visible_cards_then_the_events_are_those_computed_without_them(position, viewer):
    state, events = apply(CATALOG, *position)
    reveal = {"type": "reveal", "case": next(iter(state["cards"])), "card": "AF-001"}
    events = [*events, reveal]
    known = visible_cards(state, viewer) if viewer is not None else None
    assert events_for(events, state, viewer, known) == events_for(events, state, viewer)
