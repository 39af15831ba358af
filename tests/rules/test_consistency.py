"""RULES 13.1, reaching further: a state claiming what the rules make impossible is refused (400).

Each test builds a consistent position (it passes ``check_state``), changes
one thing the rules cannot produce, and expects ``InconsistentState`` with
rule 13.1 and its own ``code``; apply, validate and legal_actions all refuse
it and change nothing. The rule the impossibility comes from is cited beside
13.1. Random legal play never produces any of them:
tests/test_consistency_properties.py.
"""

from __future__ import annotations

import copy

import pytest

from referee import engine
from referee.engine import Catalog, InconsistentState

from .positions import CAT, PLUS, Position, act, catalog_of, legal_deck


def refused(state: dict, code: str, catalog: Catalog | None = None) -> InconsistentState:
    catalog = catalog or catalog_of(state)
    before = copy.deepcopy(state)
    with pytest.raises(InconsistentState) as caught:
        engine.apply(catalog, state, act("pass", 1))
    assert (caught.value.rule, caught.value.code) == ("13.1", code), caught.value.detail
    with pytest.raises(InconsistentState):
        engine.legal_actions(catalog, state)
    assert state == before
    return caught.value


def investigation(
    *, negated: bool = False, power: int = 0, counter: str | None = None, catalog: Catalog = CAT
) -> tuple[dict, dict]:
    """Player 0 investigates player 1's case b01 (face up, 10.2), paid by a01; player 1 may have played
    ``counter`` (now in their trash)."""
    p = Position(catalog=catalog)
    pay = p.case(0, "AF-042", actioned=True)
    case = p.case(1, "AF-045", face_up=True)
    p.fairy(0, "AF-004", on=case)
    p.hand(1, "AF-070")
    played = [p.trash(1, counter)] if counter else []
    p.pending(act("investigate", 0, case=case, pay=[pay]), negated=negated, power=power, counters=played)
    return p.build(), {"pay": pay, "case": case, "counters": played}


# -- a pending action and its counters (RULES 9.3–9.5) ------------------------------------------------


def test_13_1_a_negated_pending_action_needs_a_counter_that_negated_it():
    """RULES 13.1, 9.5: a pending investigation marked negated with no counter played against it."""
    state, _ = investigation()
    state["pending"]["negated"] = True
    err = refused(state, "negated_without_counter")
    assert err.path == "state.pending.negated"


def test_13_1_a_negated_pending_action_with_its_counter_is_consistent():
    """RULES 13.1, 9.5: 邪魔 (AF-070) played and in the responder's trash: negated agrees."""
    state, _ = investigation(negated=True, counter="AF-070")
    engine.check_state(CAT, state)


def test_13_1_a_counter_that_negates_is_recorded_as_negating():
    """RULES 13.1, 9.5: 邪魔 was played against the investigation, yet negated is false."""
    state, _ = investigation(negated=True, counter="AF-070")
    state["pending"]["negated"] = False
    refused(state, "negation_not_recorded")


def test_13_1_the_investigation_power_is_what_the_counters_gave():
    """RULES 13.1, 9.3: 目くらまし (AF-071, −2) was played: power is −2, not 0; and −2 needs a counter."""
    state, _ = investigation(power=-2, counter="AF-071")
    engine.check_state(CAT, state)
    state["pending"]["power"] = 0
    refused(state, "investigation_power_mismatch")
    state, _ = investigation()
    state["pending"]["power"] = 3
    refused(state, "investigation_power_mismatch")


@pytest.mark.parametrize("where", ["wrong trigger", "not a counter", "the declarer's"])
def test_13_1_a_counter_played_in_the_window_is_the_responders_and_answers_the_pending_action(where):
    """RULES 13.1, 9.3: 横やり (AF-073) answers play_case, not investigate; a fairy is no counter; a counter in
    the declaring player's trash was not played by the responder."""
    p = Position()
    pay = p.case(0, "AF-042", actioned=True)
    case = p.case(1, "AF-045", face_up=True)
    p.fairy(0, "AF-004", on=case)
    played = {
        "wrong trigger": lambda: p.trash(1, "AF-073"),
        "not a counter": lambda: p.trash(1, "AF-004"),
        "the declarer's": lambda: p.trash(0, "AF-071"),
    }[where]()
    p.pending(act("investigate", 0, case=case, pay=[pay]))
    state = p.build()
    state["pending"]["counters"] = [played]
    assert refused(state, "pending_counter_mismatch").path == "state.pending.counters.0"


def test_13_1_a_pending_action_no_counter_of_the_catalog_answers_opened_no_window():
    """RULES 13.1, 9.4: af-ref has no counter for a redispatch but PLUS has: without one, the window could
    not have opened in either mode."""
    without = Catalog.from_data(
        {
            "id": "no-redispatch-counter",
            "cards": [c for c in PLUS.canonical["cards"] if c["id"] not in ("AF-078", "T-02")],
        }
    )
    p = Position(catalog=PLUS)
    pay = p.case(0, "AF-042", actioned=True)
    here = p.case(0, "AF-043")
    there = p.case(1, "AF-047")
    fairy = p.fairy(0, "AF-004", on=here)
    p.pending(act("redispatch", 0, fairy=fairy, case=there, pay=[pay]))
    state = p.build()
    state["catalog"] = without.ref
    with pytest.raises(InconsistentState) as caught:
        engine.check_state(without, state)
    assert caught.value.code == "no_counter_for_trigger"


# -- what the pending action names (RULES 10.2, 8.4–8.7, 9.1, 9.6) ------------------------------------


def test_13_1_a_pending_investigation_is_of_a_face_up_case():
    """RULES 13.1, 10.2: the investigated case turned face up when the investigation was declared."""
    state, _names = investigation()
    state["players"][1]["cases"][0]["face_up"] = False
    assert refused(state, "investigated_case_face_down").path == "state.pending.action.case"


def test_13_1_a_pending_action_names_a_case_in_play():
    """RULES 13.1, 8.5: no effect takes a case off the field inside a window; a dispatch to a trashed case."""
    p = Position()
    pay = p.case(0, "AF-042", actioned=True)
    gone = p.trash(1, "AF-047")
    fairy = p.fairy(0, "AF-004")
    p.pending(act("dispatch", 0, fairy=fairy, case=pay, pay=[pay]))
    state = p.build()
    state["pending"]["action"]["case"] = gone
    refused(state, "dangling_reference")


def test_13_1_the_fairy_of_a_pending_dispatch_is_the_declarers():
    """RULES 13.1, 8.5: a dispatch of the opponent's fairy could not have been declared; the declarer's own
    fairy, even bounced to hand by a counter since, is fine."""
    p = Position()
    pay = p.case(0, "AF-042", actioned=True)
    case = p.case(1, "AF-047")
    theirs = p.fairy(1, "AF-005")
    mine = p.hand(0, "AF-004")
    p.pending(act("dispatch", 0, fairy=mine, case=case, pay=[pay]))
    state = p.build()
    state["pending"]["action"]["fairy"] = theirs
    assert refused(state, "inconsistent_pending").path == "state.pending.action.fairy"


def test_13_1_a_pending_spell_names_one_target_per_targeted_effect():
    """RULES 13.1, 9.6: 追い払い (AF-064) takes one target; a pending cast naming none was never declared."""
    p = Position()
    pay = p.case(0, "AF-042", actioned=True)
    pay2 = p.case(0, "AF-043", actioned=True)
    fairy = p.fairy(1, "AF-004")
    spell = p.hand(0, "AF-064")
    p.pending(act("cast_spell", 0, card=spell, targets=[fairy], pay=[pay, pay2]))
    state = p.build()
    state["pending"]["action"]["targets"] = []
    assert refused(state, "inconsistent_pending").path == "state.pending.action.targets"


def test_13_1_a_pending_once_per_turn_ability_counts_as_used():
    """RULES 13.1, 9.1: a once-per-turn ability is used when declared, so used lists it."""
    p = Position()
    pay = p.case(0, "AF-042", actioned=True)
    south = p.fairy(0, "AF-002")
    p.used(south, 0)
    p.pending(act("use_ability", 0, card=south, ability=0, targets=[], pay=[pay]))
    state = p.build()
    state["used"] = []
    refused(state, "ability_use_not_recorded")


# -- the payment of a pending action (RULES 7.1–7.3) --------------------------------------------------


def test_13_1_a_case_that_paid_for_a_pending_action_is_actioned():
    """RULES 13.1, 7.1: the paying case turned sideways on declaration."""
    state, _names = investigation()
    state["players"][0]["cases"][0]["actioned"] = False
    assert refused(state, "unactioned_payer").path == "state.pending.action.pay.0"


def test_13_1_the_cases_that_paid_are_the_declarers_each_once():
    """RULES 13.1, 7.3: a case of the opponent's, or one case twice, did not pay."""
    state, names = investigation()
    state["pending"]["action"]["pay"] = [names["case"]]
    refused(state, "payer_not_own")
    state, names = investigation()
    state["pending"]["action"]["pay"] = [names["pay"], names["pay"]]
    refused(state, "payer_not_own")


def test_13_1_a_pending_action_was_paid_in_full():
    """RULES 13.1, 7.2: an investigation costs 1; a pending one paid by no case, or a free play_case paid by
    one, was never declared."""
    state, _ = investigation()
    state["pending"]["action"]["pay"] = []
    refused(state, "pay_count_mismatch")
    p = Position(step="case")
    pay = p.case(0, "AF-042", actioned=True)
    new_case = p.hand(0, "AF-043")
    p.hand(1, "AF-073")
    p.case_played = True
    p.pending(act("play_case", 0, card=new_case, pay=[]))
    state = p.build()
    state["pending"]["action"]["pay"] = [pay]
    refused(state, "pay_count_mismatch")


def test_13_1_a_pending_action_without_pay_is_refused_as_missing_not_as_a_wrong_count():
    """RULES 13.1, docs/api.md §3: pending.action.pay is required in a state; a hand-typed pending
    investigation without it gets its own code, and the detail names the missing field."""
    state, _ = investigation()
    del state["pending"]["action"]["pay"]
    err = refused(state, "pending_pay_missing")
    assert err.path == "state.pending.action.pay"
    assert "pending.action.pay is missing" in err.detail


def test_13_1_a_pending_free_action_needs_pay_too():
    """RULES 13.1, docs/api.md §3: a pending play_case costs nothing, and still says so with pay: []."""
    p = Position(step="case")
    p.case(0, "AF-042")
    new_case = p.hand(0, "AF-043")
    p.hand(1, "AF-073")
    p.case_played = True
    p.pending(act("play_case", 0, card=new_case, pay=[]))
    state = p.build()
    del state["pending"]["action"]["pay"]
    refused(state, "pending_pay_missing")


def _mulligan_phase() -> dict:
    state, _ = engine.new_game(CAT, {"decks": [legal_deck(), legal_deck()], "seed": "mull", "first_player": 0})
    return state


# -- the result (RULES 11.1, 5.5) -------------------------------------------------------------------


def test_13_1_a_deck_out_loser_has_an_empty_file():
    """RULES 13.1, 11.1: player 1 lost by deck-out, so they drew from an empty file."""
    p = Position().over(0, "deck_out")
    p.file_size(1, 0)
    state = p.build()
    state["players"][1]["file"].append(state["players"][1]["trash"].pop())
    assert refused(state, "deck_out_with_cards_in_file").path == "state.result"


def test_13_1_a_concession_fits_any_state():
    """RULES 13.1, 11.2: a conceded game may end with full files."""
    engine.check_state(CAT, Position().over(0, "concede").build())


def test_13_1_a_deck_out_before_turn_one_is_a_failed_mulligan():
    """RULES 13.1, 5.5: lost by deck-out in the mulligan phase means the mulligan could not draw 7: a loser
    holding 7 cards, or one who had kept, does not match the reason."""
    state = _mulligan_phase()
    loser = state["players"][0]
    loser["trash"] += loser["file"]
    loser["file"] = []
    state.update(phase="over", result={"winner": 1, "reason": "deck_out"})
    refused(state, "result_does_not_match", CAT)
    loser["trash"] += loser["hand"][1:]
    loser["hand"] = loser["hand"][:1]
    engine.check_state(CAT, state)  # one card drawn, then the file was empty: a possible end
    loser["kept"] = True
    refused(state, "result_does_not_match", CAT)


# -- before turn 1 (RULES 5.3–5.6) ---------------------------------------------------------------------


def test_13_1_no_card_is_on_the_field_in_the_mulligan_phase():
    """RULES 13.1, 5.6: cases, fairies and evidence come into play from turn 1."""
    state = _mulligan_phase()
    pl = state["players"][1]
    case = next(iid for iid in pl["file"] if CAT[state["cards"][iid]].kind == "case")
    pl["file"].remove(case)
    pl["cases"].append({"card": case, "face_up": False, "actioned": False})
    assert refused(state, "field_in_mulligan", CAT).path == "state.players.1"


def test_13_1_the_mulligan_step_is_the_mulligan_phases():
    """RULES 13.1, 5.4: a turn in step mulligan, or a mulligan phase with a case declared, is no position."""
    state = Position().build()
    state["step"] = "mulligan"
    refused(state, "inconsistent_phase")
    state = _mulligan_phase()
    state["case_played"] = True
    refused(state, "inconsistent_phase", CAT)


def test_13_1_every_hand_holds_seven_in_the_mulligan_phase():
    """RULES 13.1, 5.3, 5.4: each player drew 7, and a mulligan draws 7 again."""
    state = _mulligan_phase()
    state["players"][0]["trash"].append(state["players"][0]["hand"].pop())
    refused(state, "mulligan_hand_size", CAT)


# -- once-per-turn uses (RULES 9.1) --------------------------------------------------------------------


@pytest.mark.parametrize("which", ["the opponent's card", "an ability not once per turn"])
def test_13_1_used_lists_only_once_per_turn_abilities_of_the_active_player(which):
    """RULES 13.1, 9.1: only the active player uses abilities, and only once-per-turn ones are recorded:
    not 南の妖精's (AF-002, once per turn) of player 1, nor 東の妖精's (AF-003, any number of times)."""
    p = Position()
    p.case(0, "AF-042")
    theirs = p.fairy(1, "AF-002")
    east = p.fairy(0, "AF-003")
    state = p.build()
    state["used"] = [{"card": theirs if which == "the opponent's card" else east, "ability": 0}]
    refused(state, "inconsistent_used")


def test_13_1_every_consistency_code_is_documented_and_tested():
    """RULES 13.1: each code the check raises is in docs/state.md's table and triggered by a rules test."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    sources = [root / "referee/engine" / name for name in ("consistency.py", "pending_consistency.py")]
    codes = {code for path in sources for code in re.findall(r'_fail\(\s*"(\w+)"', path.read_text("utf-8"))}
    assert len(codes) >= 25
    docs = (root / "docs/state.md").read_text("utf-8")
    tests = "\n".join(p.read_text("utf-8") for p in sorted(Path(__file__).parent.glob("*.py")))
    tests += (root / "tests/test_consistency_properties.py").read_text("utf-8")
    assert not [c for c in codes if f"`{c}`" not in docs], "codes missing from docs/state.md"
    assert not [c for c in codes if f'"{c}"' not in tests], "codes no test triggers"
