"""RULES 13.1 over random legal play (hypothesis): every reached state passes the consistency check,
and each impossible change of 13.1's list (and the others of its kind) is refused with its own code.

A game is dealt from random decks and played by the engine's random policy
(``playout.random_action``, legal actions only) to the end. Every state on the
way, the final one included, must pass ``check_state``; then each mutation
that applies to it (a pending action to negate, a payer to stand upright, a
file to make a deck-out loser hold cards...) must make ``check_state`` refuse
it with that mutation's code.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import Catalog, InconsistentState, check_state, new_game
from referee.engine.board import Board
from referee.engine.pipeline import step
from referee.engine.playout import random_action, random_new_game
from referee.engine.setup import SeededStream

CATALOG = Catalog.builtin()
State = dict

# -- the mutations: each returns a changed copy, or None when it does not apply to the state ----------


def _copy_if_pending(state: State, wanted: Callable[[dict], bool] = lambda pen: True) -> State | None:
    """A copy to change, when a window is open on a pending action that ``wanted`` accepts."""
    pen = state["pending"]
    return copy.deepcopy(state) if pen is not None and wanted(pen) else None


def _investigating(pen: dict) -> bool:
    return pen["action"]["type"] == "investigate"


def _paid(pen: dict) -> bool:
    return bool(pen["action"].get("pay"))


def negated_without_counter(state: State) -> State | None:
    """RULES 9.5: negated, but no counter played against it."""
    out = _copy_if_pending(state)
    if out:
        out["pending"].update(negated=True, counters=[], power=0)
    return out


def negation_not_recorded(state: State) -> State | None:
    """RULES 9.5: a negating counter was played, but negated is false."""
    out = _copy_if_pending(state, lambda pen: pen["negated"])
    if out:
        out["pending"]["negated"] = False
    return out


def face_down_investigation(state: State) -> State | None:
    """RULES 10.2: the investigated case is face down again."""
    out = _copy_if_pending(state, _investigating)
    if out:
        case = out["pending"]["action"]["case"]
        for entry in (e for pl in out["players"] for e in pl["cases"] if e["card"] == case):
            entry["face_up"] = False
    return out


def power_without_counter(state: State) -> State | None:
    """docs/api.md §8 ``investigation_power``: a modifier no counter gave."""
    out = _copy_if_pending(state, _investigating)
    if out:
        out["pending"]["power"] += 1
    return out


def unactioned_payer(state: State) -> State | None:
    """RULES 7.1: a case that paid for the pending action stands upright."""
    out = _copy_if_pending(state, _paid)
    if out:
        act = out["pending"]["action"]
        for entry in (e for e in out["players"][act["player"]]["cases"] if e["card"] == act["pay"][0]):
            entry["actioned"] = False
    return out


def unpaid(state: State) -> State | None:
    """RULES 7.2: the pending action was paid by one case fewer than it costs."""
    out = _copy_if_pending(state, _paid)
    if out:
        out["pending"]["action"]["pay"].pop()
    return out


def deck_out_with_cards_in_file(state: State) -> State | None:
    """RULES 11.1: over by deck-out, the loser still holding a file."""
    if state["phase"] == "over":
        return None
    loser = next((i for i in (0, 1) if state["players"][i]["file"]), None)
    if loser is None:
        return None
    out = copy.deepcopy(state)
    out.update(phase="over", pending=None, result={"winner": 1 - loser, "reason": "deck_out"})
    return out


def deck_out_holding_seven(state: State) -> State | None:
    """RULES 5.5: over by deck-out in the mulligan phase, yet the loser holds a full hand of 7."""
    if state["phase"] != "mulligan":
        return None
    out = copy.deepcopy(state)
    loser = out["players"][out["active"]]
    loser["trash"] += loser["file"]
    loser["file"] = []
    out.update(phase="over", result={"winner": 1 - out["active"], "reason": "deck_out"})
    return out


def field_in_mulligan(state: State) -> State | None:
    """RULES 5.6: a case on the field in the mulligan phase."""
    if state["phase"] != "mulligan":
        return None
    out = copy.deepcopy(state)
    for pl in out["players"]:
        case = next((iid for iid in pl["file"] if CATALOG[out["cards"][iid]].kind == "case"), None)
        if case is not None:
            pl["file"].remove(case)
            pl["cases"].append({"card": case, "face_up": False, "actioned": False})
            return out
    return None


def short_mulligan_hand(state: State) -> State | None:
    """RULES 5.3, 5.4: a hand of 6 in the mulligan phase."""
    if state["phase"] != "mulligan":
        return None
    out = copy.deepcopy(state)
    pl = out["players"][0]
    pl["trash"].append(pl["hand"].pop())
    return out


MUTATIONS: list[tuple[Callable[[State], State | None], str]] = [
    (negated_without_counter, "negated_without_counter"),
    (negation_not_recorded, "negation_not_recorded"),
    (face_down_investigation, "investigated_case_face_down"),
    (power_without_counter, "investigation_power_mismatch"),
    (unactioned_payer, "unactioned_payer"),
    (unpaid, "pay_count_mismatch"),
    (deck_out_with_cards_in_file, "deck_out_with_cards_in_file"),
    (deck_out_holding_seven, "result_does_not_match"),
    (field_in_mulligan, "field_in_mulligan"),
    (short_mulligan_hand, "mulligan_hand_size"),
]


def states_of_play(seed: str, mode: str) -> Iterator[State]:
    """Every state of one random legal game, from the deal to the end (the live state: copy to keep)."""
    state, _ = new_game(CATALOG, random_new_game(CATALOG, seed, options={"response_windows": mode}))
    stream = SeededStream("choices:" + seed)
    g = Board(CATALOG, state)
    yield state
    while not g.over:
        g.events = []
        step(g, random_action(g, stream))
        yield state


def check_game(seed: str, mode: str, applied: dict[str, int]) -> None:
    for state in states_of_play(seed, mode):
        check_state(CATALOG, state)  # RULES 13.1: legal play reaches only consistent states
        for mutate, code in MUTATIONS:
            broken = mutate(state)
            if broken is None:
                continue
            with pytest.raises(InconsistentState) as caught:
                check_state(CATALOG, broken)
            assert caught.value.code == code, (mutate.__name__, caught.value.detail)
            applied[code] = applied.get(code, 0) + 1


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.text(min_size=1, max_size=10), mode=st.sampled_from(["auto", "strict"]))
def test_13_1_every_state_of_legal_play_passes_and_every_impossible_change_is_refused(seed, mode):
    """RULES 13.1: random legal play never trips the consistency check; each mutation is refused by its code."""
    check_game(seed, mode, {})


def test_13_1_the_seeded_games_exercise_every_mutation():
    """RULES 13.1: a few fixed games reach a state for each mutation, so none of them is tested vacuously."""
    applied: dict[str, int] = {}
    for n in range(6):
        check_game(f"consistency-{n}", "strict", applied)
    assert {code for _, code in MUTATIONS} == set(applied), applied
