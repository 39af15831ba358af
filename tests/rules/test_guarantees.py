"""RULES 13: what the referee guarantees — consistent input, determinism, the order of checks."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee import engine
from referee.engine import InconsistentState, InvalidInput
from referee.engine.facts import TURN_MAX
from referee.engine.state import check_state

from .positions import CAT, FILLER, Position, act, apply, assert_illegal, events_of, legal, legal_deck

# -- 13.1 -----------------------------------------------------------------------------------


def _base():
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-047")
    fairy = p.fairy(0, "AF-004", on=case)
    p.evidence(0, "AF-022", on=case)
    p.hand(0, "AF-060")
    p.used(p.fairy(0, "AF-008"), 0)
    return p.build(), case, fairy


def _drop_a_card(s, *_):
    s["players"][0]["file"].pop()


def _card_twice(s, *_):
    s["players"][0]["file"][-1] = s["players"][0]["hand"][0]


def _fairy_on_missing_case(s, case, fairy):
    s["players"][0]["fairies"][0]["case"] = s["players"][1]["file"][0]


def _evidence_on_missing_case(s, *_):
    s["players"][0]["evidence"][0]["case"] = "zz99"


def _other_catalog(s, *_):
    s["catalog"] = {"id": "af-ref", "digest": "sha256:" + "0" * 64}


def _result_without_over(s, *_):
    s["result"] = {"winner": 0, "reason": "concede"}


def _wrong_active(s, *_):
    s["active"] = 1


def _end_step_without_excess(s, *_):
    s["step"] = "end"


def _pending_in_wrong_step(s, case, fairy):
    s["pending"] = {"action": {"type": "investigate", "player": 0, "case": case, "pay": []}, "responder": 1}
    s["step"] = "case"


def _pending_unknown_card(s, *_):
    s["pending"] = {"action": {"type": "draw", "player": 0, "pay": ["zz99"]}, "responder": 1}


def _pending_play_fairy_of_a_spell(s, *_):
    """A pending play_fairy naming the spell in hand: resolving it would put a spell among the fairies."""
    s["pending"] = {
        "action": {"type": "play_fairy", "player": 0, "card": s["players"][0]["hand"][0], "pay": []},
        "responder": 1,
    }


def _pending_cast_of_a_counter(s, *_):
    """A pending cast_spell naming a counter: resolving it would negate with no window."""
    counter = s["players"][0]["file"][0]
    s["cards"][counter] = "AF-081"
    s["players"][0]["file"].remove(counter)
    s["players"][0]["hand"].append(counter)
    s["pending"] = {
        "action": {"type": "cast_spell", "player": 0, "card": counter, "targets": [], "pay": []},
        "responder": 1,
    }


def _pending_ability_the_card_lacks(s, case, fairy):
    """A pending use_ability of a plain fairy's ability 0: it has none."""
    s["pending"] = {
        "action": {"type": "use_ability", "player": 0, "card": fairy, "ability": 0, "targets": [], "pay": []},
        "responder": 1,
    }


def _two_fairies_on_a_limit_one_case(s, case, fairy):
    s["players"][0]["fairies"][1]["case"] = case


def _used_twice(s, *_):
    s["used"].append(dict(s["used"][0]))


def _modifier_on_a_card_in_hand(s, *_):
    s["modifiers"] = [{"card": s["players"][0]["hand"][0], "power": 1}]


def _fairy_in_cases_zone(s, case, fairy):
    s["players"][0]["cases"].append({"card": fairy, "face_up": False, "actioned": False})
    s["players"][0]["fairies"] = s["players"][0]["fairies"][1:]


@pytest.mark.parametrize(
    "break_it, code",
    [
        (_drop_a_card, "card_not_conserved"),
        (_card_twice, "duplicate_card"),
        (_fairy_on_missing_case, "dangling_reference"),
        (_evidence_on_missing_case, "dangling_reference"),
        (_other_catalog, "catalog_mismatch"),
        (_result_without_over, "inconsistent_result"),
        (_wrong_active, "inconsistent_turn"),
        (_end_step_without_excess, "inconsistent_step"),
        (_pending_in_wrong_step, "inconsistent_pending"),
        (_pending_unknown_card, "dangling_reference"),
        (_pending_play_fairy_of_a_spell, "inconsistent_pending"),
        (_pending_cast_of_a_counter, "inconsistent_pending"),
        (_pending_ability_the_card_lacks, "inconsistent_pending"),
        (_two_fairies_on_a_limit_one_case, "dispatch_limit_exceeded"),
        (_used_twice, "inconsistent_used"),
        (_modifier_on_a_card_in_hand, "dangling_reference"),
        (_fairy_in_cases_zone, "wrong_zone_kind"),
    ],
)
def test_13_1_an_inconsistent_state_is_rejected_and_nothing_is_applied(break_it, code):
    """RULES 13.1: each kind of inconsistency is refused with its own code; apply changes nothing."""
    state, case, fairy = _base()
    break_it(state, case, fairy)
    before = copy.deepcopy(state)

    with pytest.raises(InconsistentState) as caught:
        engine.apply(CAT, state, act("draw", 0))

    assert caught.value.code == code and caught.value.rule == "13.1"
    assert state == before
    with pytest.raises(InconsistentState):
        engine.validate(CAT, state, act("draw", 0))
    with pytest.raises(InconsistentState):
        engine.legal_actions(CAT, state)


def test_13_1_a_malformed_state_is_rejected_with_field_paths():
    """RULES 13.1: not of the schema: an InvalidInput naming each bad field."""
    state, _, _ = _base()
    state["players"][0]["hand"] = "AF-060"
    state["turn"] = -1
    with pytest.raises(InvalidInput) as caught:
        engine.check_state(CAT, state)
    assert {"state.players.0.hand", "state.turn"} <= set(caught.value.errors)


def test_13_1_a_hand_built_state_with_only_the_stable_fields_is_complete():
    """RULES 13.1: modifiers, used and the pending extras are optional on input."""
    state, _, _ = _base()
    del state["modifiers"], state["used"], state["options"]
    checked = engine.check_state(CAT, state)
    assert checked["modifiers"] == [] and checked["used"] == []
    assert checked["options"] == {"response_windows": "auto"}


# -- 13.2 -----------------------------------------------------------------------------------


def _dump(obj) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _sample_game():
    """A scripted game from a seeded, shuffled deal (a fixed choice among the legal actions each time)."""
    state, events = engine.new_game(CAT, {"decks": [sorted(legal_deck()), legal_deck()], "seed": "det-13.2"})
    out = [_dump((state, events))]
    for n in range(40):
        actions = [a for a in legal(state) if a["type"] != "concede"]
        if not actions:
            break
        a = actions[(7 * n) % len(actions)]
        state, events = engine.apply(CAT, state, a)
        out.append(_dump((a, state, events)))
    return out


def test_13_2_the_same_state_and_action_give_byte_identical_results():
    """RULES 13.2: apply twice on equal inputs; the JSON of state and events is the same bytes."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-045")
    p.fairy(0, "AF-004", on=case)
    state = p.build()
    action = act("investigate", 0, case=case)
    first = _dump(engine.apply(CAT, copy.deepcopy(state), copy.deepcopy(action)))
    second = _dump(engine.apply(CAT, copy.deepcopy(state), copy.deepcopy(action)))
    assert first == second
    assert _dump(engine.legal_actions(CAT, state)) == _dump(engine.legal_actions(CAT, copy.deepcopy(state)))


def test_13_2_the_same_new_game_and_actions_replay_identically():
    """RULES 13.2: a seeded game played twice in this process."""
    assert _sample_game() == _sample_game()


def test_13_2_results_do_not_depend_on_the_process_or_its_hash_seed():
    """RULES 13.2: another interpreter with another PYTHONHASHSEED computes the same bytes."""
    script = (
        "import json, sys; sys.path.insert(0, 'tests');"
        "from rules.test_guarantees import _sample_game;"
        "print(json.dumps(_sample_game()))"
    )
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=repo, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stdout) == _sample_game()


# -- 13.3 -----------------------------------------------------------------------------------


def test_13_3_game_over_comes_before_who_may_act():
    """RULES 13.3: the wrong player acting after the end is told 11.3, not 12.2."""
    state = Position().over(winner=0).build()
    assert_illegal(state, act("draw", 1), "11.3", "game_over")


def test_13_3_who_may_act_comes_before_the_actions_own_rule():
    """RULES 13.3: wrong player AND empty file → 12.2, not 8.2."""
    p = Position()
    p.case(1, "AF-042")
    p.file_size(1, 0)
    assert_illegal(p.build(), act("draw", 1), "12.2", "not_your_turn")


def test_13_3_the_window_comes_before_the_actions_own_rule():
    """RULES 13.3: the responder's draw from an empty file inside a window → 8.1, not 8.2."""
    p = Position()
    c = p.case(0, "AF-042", actioned=True)
    p.case(1, "AF-043")
    p.hand(1, "AF-074")
    p.file_size(1, 0)
    p.pending(act("draw", 0, pay=[c]))
    assert_illegal(p.build(), act("draw", 1), "8.1", "main_action_in_window")


def test_13_3_the_step_comes_before_a_missing_card():
    """RULES 13.3: playing an unknown fairy in the case step → 8.1, not 12.3."""
    state = Position(step="case").build()
    assert_illegal(state, act("play_fairy", 0, card="nope"), "8.1", "not_main_step")


@pytest.mark.parametrize("kind", ["mulligan", "keep"])
def test_13_3_inside_the_third_group_the_step_the_game_is_in_comes_first(kind):
    """RULES 13.3: a mulligan (or keep) in the end step breaks 6.6 (the step the game is in), not 5.4."""
    p = Position(step="end")
    p.hand(0, *["AF-005"] * 8)
    assert_illegal(p.build(), act(kind, 0), "6.6", "end_step")


def test_13_3_a_missing_card_comes_before_the_cost():
    """RULES 13.3: missing card AND no payment → 12.3, not 7.2."""
    state = Position().build()  # no case at all: nothing could pay
    assert_illegal(state, act("play_fairy", 0, card="nope"), "12.3", "card_not_available")


def test_13_3_an_illegal_target_comes_before_the_cost():
    """RULES 13.3: illegal target AND cannot pay → 9.6, not 7.2."""
    p = Position()
    case = p.case(1, "AF-047")
    spell = p.hand(0, "AF-064")  # cost 2, player 0 has no case
    assert_illegal(p.build(), act("cast_spell", 0, card=spell, targets=[case]), "9.6", "illegal_target")


def test_13_3_a_missing_card_comes_before_the_actions_own_rule():
    """RULES 13.3: a discard naming a card not in hand AND of the wrong count → 12.3, not 6.6."""
    p = Position()
    p.hand(0, *["AF-005"] * 9)
    state, _ = apply(p.build(), act("end_turn", 0))
    assert_illegal(state, act("discard", 0, cards=["nope"]), "12.3", "card_not_available")


def test_13_3_each_group_is_checked_whole_a_missing_card_before_a_card_named_twice():
    """RULES 13.3 (clarified 2026-12-01): a discard naming [a01, a01, a card of the opponent's hand] breaks
    12.3 (not there), not 6.6's duplicate, though the duplicate comes first in the list."""
    p = Position()
    hand = p.hand(0, *["AF-005"] * 10)
    theirs = p.hand(1, "AF-005")
    state, _ = apply(p.build(), act("end_turn", 0))
    v = assert_illegal(state, act("discard", 0, cards=[hand[0], hand[0], theirs]), "12.3", "card_not_available")
    assert v.params["card"] == theirs


@pytest.mark.parametrize(
    "rule, code",
    [("8.9", "one_fairy_per_case"), ("10.1", "no_fairy_on_case"), ("9.1", "ability_used"), ("8.6", "same_case")],
)
def test_13_3_the_actions_own_rule_comes_before_the_cost(rule, code):
    """RULES 13.3: with every own case actioned, the action's own rule is still the one reported."""
    p = Position()
    mine = p.case(0, "AF-042", actioned=True)
    case = p.case(1, "AF-047", face_up=True)  # known to player 0, so RULES 8.9 and not 8.9.1 applies
    on = p.fairy(0, "AF-004", on=case)
    spare = p.fairy(0, "AF-005")
    south = p.fairy(0, "AF-002")
    p.used(south, 0)
    state = p.build()
    action = {
        "8.9": act("dispatch", 0, fairy=spare, case=case),
        "10.1": act("investigate", 0, case=mine),
        "9.1": act("use_ability", 0, card=south, ability=0, targets=[]),
        "8.6": act("redispatch", 0, fairy=on, case=case),
    }[rule]
    assert_illegal(state, action, rule, code)


@pytest.mark.parametrize("cid", ["AF-041", "AF-047"])
@pytest.mark.parametrize("kind", ["dispatch", "redispatch"])
def test_13_3_every_refusal_8_9_1_causes_cites_8_9_1_whatever_the_cases_limit(cid, kind):
    """RULES 13.3 (clarified 2026-12-05): a second fairy onto the opponent's face-down case is refused under
    8.9.1 whether the case's printed limit is 2 (学園祭の怪, AF-041) or 1 (理科室の異臭, AF-047), never under
    8.9, and before the cost (player 0 has no unactioned case)."""
    p = Position()
    here = p.case(0, "AF-042", actioned=True)
    case = p.case(1, cid)
    p.fairy(0, "AF-004", on=case)
    second = p.fairy(0, "AF-005", on=here if kind == "redispatch" else None)
    v = assert_illegal(p.build(), act(kind, 0, fairy=second, case=case), "8.9.1", "face_down_case_limit")
    assert v.params["limit"] == 1


def test_13_3_the_count_of_payers_is_checked_last():
    """RULES 13.3: a legal draw paid with two cases fails only on 7.3."""
    p = Position()
    a = p.case(0, "AF-042")
    b = p.case(0, "AF-043")
    assert_illegal(p.build(), act("draw", 0, pay=[a, b]), "7.3", "wrong_pay_count")


def test_13_3_an_illegal_action_inside_a_sequence_changes_nothing():
    """RULES 13.3: replay stops at the first illegal action, naming its index and rule."""
    state = Position(step="case").build()
    with pytest.raises(engine.ReplayError) as caught:
        engine.replay(CAT, [act("skip_case", 0), act("draw", 0)], state=state)
    assert (caught.value.index, caught.value.rule, caught.value.code) == (1, "7.2", "cannot_pay")
    after, n = engine.replay(CAT, [act("skip_case", 0)], state=state)
    assert n == 1 and after["step"] == "main" and state["step"] == "case"


# -- an answer never leaves the range its input keeps (RULES 13.1) ---------------------------


def test_13_1_at_the_last_turn_a_state_may_hold_the_turn_cannot_pass():
    """RULES 13.1: a state's turn is at most TURN_MAX, so ending that turn (which would answer turn
    TURN_MAX + 1, a state the referee refuses) is refused; every other action stays open."""
    p = Position(turn=TURN_MAX, first_player=1)
    p.case(0, "AF-042")  # something to pay a draw with
    state = p.build()
    v = assert_illegal(state, act("end_turn", 0), "13.1", "turn_limit")
    assert str(TURN_MAX) in v.detail() and str(TURN_MAX) in v.detail("ja")
    assert {a["type"] for a in legal(state, 0)} == {"draw", "concede"}


def test_13_1_at_the_last_turn_the_discard_that_would_pass_it_is_refused():
    """RULES 13.1: the end step's discard passes the turn (6.6): at TURN_MAX it is refused, after its own checks."""
    p = Position(turn=TURN_MAX, first_player=1)
    hand = p.hand(0, *[FILLER] * 8)
    state, events = apply(p.build(), act("end_turn", 0))  # over 7 cards: the end step, still turn TURN_MAX
    assert (state["step"], state["turn"]) == ("end", TURN_MAX) and events_of(events, "discard_owed")
    assert_illegal(state, act("discard", 0, cards=hand[:2]), "6.6", "wrong_discard_count")
    assert_illegal(state, act("discard", 0, cards=hand[:1]), "13.1", "turn_limit")
    assert [a["type"] for a in legal(state, 0)] == ["concede"]


def test_13_1_the_turn_before_the_last_passes_to_a_state_the_referee_accepts():
    """RULES 13.1: every answer is a state the referee takes back as input, up to the last turn."""
    state, _ = apply(Position(turn=TURN_MAX - 1).build(), act("end_turn", 0))
    assert state["turn"] == TURN_MAX
    assert check_state(CAT, state)["turn"] == TURN_MAX


def _owed_discard() -> dict:
    """The end step of player 0, owing a discard of 2 (RULES 6.6)."""
    p = Position()
    p.hand(0, *["AF-005"] * 9)
    return apply(p.build(), act("end_turn", 0))[0]


def _in_step(where: str) -> tuple[dict, str]:
    """A position in step ``where`` of player 0's turn, or in the mulligan phase, and a case in player 0's hand
    (in the mulligan phase a hand of 7 and nothing on the field, RULES 5.3 and 5.6)."""
    if where == "mulligan":
        p = Position(phase="mulligan")
        hand = p.hand(0, "AF-043", *["AF-005"] * 6)
        p.hand(1, *["AF-005"] * 7)
        return p.build(), hand[0]
    p = Position(step=where)
    p.case(0, "AF-044")
    case = p.hand(0, "AF-043")
    return p.build(), case


OUT_OF_STEP = [  # (where, action, rule, code): RULES 13.3's ruling of 2026-12-07, a line for each case it names
    ("main", lambda case: act("play_case", 0, card=case), "6.4", "not_case_step"),
    ("main", lambda case: act("skip_case", 0), "6.4", "not_case_step"),
    ("case", lambda case: act("draw", 0), "8.1", "not_main_step"),
    ("case", lambda case: act("end_turn", 0), "6.5", "not_main_step_end"),
    ("main", lambda case: act("keep", 0), "5.4", "not_mulligan_phase"),
    ("case", lambda case: act("mulligan", 0), "5.4", "not_mulligan_phase"),
    ("mulligan", lambda case: act("draw", 0), "5.4", "mulligan_phase"),
    ("mulligan", lambda case: act("play_case", 0, card=case), "5.4", "mulligan_phase"),
    ("mulligan", lambda case: act("skip_case", 0), "5.4", "mulligan_phase"),
    ("mulligan", lambda case: act("end_turn", 0), "5.4", "mulligan_phase"),
]


@pytest.mark.parametrize(
    ("where", "action", "rule", "code"), OUT_OF_STEP, ids=lambda v: v if isinstance(v, str) else ""
)
def test_13_3_ruling_an_action_out_of_its_step_breaks_its_own_steps_rule(where, action, rule, code):
    """RULES 13.3 (ruling, 2026-12-07): the step the game is in comes first only in the mulligan phase (5.4) and
    an owed end-step discard (6.6); elsewhere an action out of its step breaks its own step's rule: 6.4 for the
    case actions, 8.1 for a main-step action, 6.5 for end_turn, 5.4 for mulligan and keep."""
    state, case = _in_step(where)
    assert_illegal(state, action(case), rule, code)


@pytest.mark.parametrize("action", [act("mulligan", 0), act("keep", 0), act("skip_case", 0), act("draw", 0)])
def test_13_3_ruling_any_action_but_the_discard_owed_in_the_end_step_breaks_6_6(action):
    """RULES 13.3 (ruling, 2026-12-07): while an end-step discard is owed, any other action breaks 6.6."""
    assert_illegal(_owed_discard(), action, "6.6", "end_step")
