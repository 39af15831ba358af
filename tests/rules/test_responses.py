"""RULES 9: abilities, spells, counters and response windows."""

from __future__ import annotations

import pytest

from referee.engine import InconsistentState

from .positions import PLUS, Position, act, apply, assert_illegal, assert_legal, events_of, legal, normal, run

# -- 9.1 Abilities ------------------------------------------------------------------------------


def test_9_1_an_ability_pays_its_cost_and_applies_its_effect():
    """RULES 9.1: 南の妖精 (AF-002): 1 action, once per turn, +1 power to itself until end of turn."""
    p = Position()
    case = p.case(0, "AF-042")
    south = p.fairy(0, "AF-002")
    state = p.build()

    after, events = apply(state, act("use_ability", 0, card=south, ability=0, targets=[]))

    expected = normal(state, applied=1)
    expected["players"][0]["cases"] = [{"card": case, "face_up": False, "actioned": True}]
    expected["modifiers"] = [{"card": south, "power": 1}]
    expected["used"] = [{"card": south, "ability": 0}]
    assert after == expected
    assert events_of(events, "power") == [{"type": "power", "card": south, "amount": 1}]


def test_9_1_an_evidence_ability_is_used_too():
    """RULES 9.1: V.I.P.のカード (AF-021, evidence): 0 actions, once per turn, draw 1."""
    p = Position()
    case = p.case(0, "AF-042", actioned=True)
    vip = p.evidence(0, "AF-021", on=case)
    top = p.file(0, "AF-051")
    state = p.build()

    after, _ = apply(state, act("use_ability", 0, card=vip, ability=0, targets=[]))

    assert after["players"][0]["hand"] == [top]
    assert after["used"] == [{"card": vip, "ability": 0}]


def test_9_1_an_ability_marked_once_per_turn_is_used_once_per_turn():
    """RULES 9.1: the second use of 物知りの妖精's (AF-008) free ability in one turn is refused."""
    p = Position()
    wise = p.fairy(0, "AF-008")
    state = p.build()
    state, _ = apply(state, act("use_ability", 0, card=wise, ability=0, targets=[]))
    assert_illegal(state, act("use_ability", 0, card=wise, ability=0, targets=[]), "9.1", "ability_used")


def test_9_1_once_per_turn_is_per_card():
    """RULES 9.1: a second 物知りの妖精 may still use its own ability."""
    p = Position()
    first = p.fairy(0, "AF-008")
    second = p.fairy(0, "AF-008")
    state = p.build()
    state, _ = apply(state, act("use_ability", 0, card=first, ability=0, targets=[]))
    assert_legal(state, act("use_ability", 0, card=second, ability=0, targets=[]))


def test_9_1_an_ability_without_once_per_turn_may_be_used_again():
    """RULES 9.1: 東の妖精 (AF-003, 1 action: draw 1) is used twice, paying twice."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043")
    east = p.fairy(0, "AF-003")
    state = p.build()
    after, _ = run(state, *[act("use_ability", 0, card=east, ability=0, targets=[])] * 2)
    assert len(after["players"][0]["hand"]) == 2 and after["used"] == []


def test_9_1_a_card_without_that_ability_index_is_refused():
    """RULES 9.1: ability 1 of a one-ability card, or any ability of a plain fairy, does not exist."""
    p = Position()
    p.case(0, "AF-042")
    south = p.fairy(0, "AF-002")
    plain = p.fairy(0, "AF-004")
    state = p.build()
    assert_illegal(state, act("use_ability", 0, card=south, ability=1, targets=[]), "9.1", "no_such_ability")
    assert_illegal(state, act("use_ability", 0, card=plain, ability=0, targets=[]), "9.1", "no_such_ability")


def test_9_1_only_the_controllers_abilities():
    """RULES 9.1: the opponent's fairy, or a fairy still in hand, is not the player's to use (12.3)."""
    p = Position()
    p.case(0, "AF-042")
    theirs = p.fairy(1, "AF-002")
    in_hand = p.hand(0, "AF-002")
    state = p.build()
    assert_illegal(state, act("use_ability", 0, card=theirs, ability=0, targets=[]), "12.3", "card_not_available")
    assert_illegal(state, act("use_ability", 0, card=in_hand, ability=0, targets=[]), "12.3", "card_not_available")


def test_9_1_abilities_are_used_in_the_controllers_main_step_only():
    """RULES 9.1: in the case step an ability is refused (8.1)."""
    p = Position(step="case")
    wise = p.fairy(0, "AF-008")
    state = p.build()
    assert_illegal(state, act("use_ability", 0, card=wise, ability=0, targets=[]), "8.1", "not_main_step")


def test_9_1_a_standby_and_a_dispatched_fairy_both_use_abilities():
    """RULES 9.1: standby or dispatched, the fairy's ability is open."""
    p = Position()
    case = p.case(0, "AF-042", actioned=True)
    standby = p.fairy(0, "AF-008")
    out = p.fairy(0, "AF-008", on=case)
    state = p.build()
    assert_legal(state, act("use_ability", 0, card=standby, ability=0, targets=[]))
    assert_legal(state, act("use_ability", 0, card=out, ability=0, targets=[]))


# -- 9.2 Spells -----------------------------------------------------------------------------------


def test_9_2_a_spell_is_cast_from_hand_its_effect_applies_and_it_goes_to_the_trash():
    """RULES 9.2: 閃き (AF-060): 1 action, draw 2; then in the trash."""
    p = Position()
    case = p.case(0, "AF-042")
    spell = p.hand(0, "AF-060")
    top = p.file(0, "AF-051", "AF-050")
    state = p.build()

    after, _ = apply(state, act("cast_spell", 0, card=spell, targets=[]))

    expected = normal(state, applied=1)
    expected["players"][0]["cases"] = [{"card": case, "face_up": False, "actioned": True}]
    expected["players"][0]["hand"] = top
    expected["players"][0]["file"] = state["players"][0]["file"][2:]
    expected["players"][0]["trash"] = state["players"][0]["trash"] + [spell]
    assert after == expected


def test_9_2_cast_spell_names_a_spell():
    """RULES 9.2: cast_spell with a counter card is refused."""
    p = Position()
    p.case(0, "AF-042")
    counter = p.hand(0, "AF-070")
    state = p.build()
    assert_illegal(state, act("cast_spell", 0, card=counter, targets=[]), "9.2", "not_a_spell")


# -- 9.3 Counters -----------------------------------------------------------------------------------


def _investigation(counters=("AF-071",), responder_cases=1, windows="auto"):
    """Player 0 investigates player 1's level-3 case with a power-3 fairy; player 1 holds ``counters``
    and ``responder_cases`` unactioned cases (the investigated case is actioned: it pays for nothing)."""
    p = Position(windows=windows)
    pay = p.case(0, "AF-042")
    target = p.case(1, "AF-045", actioned=True)  # level 3, hit 2
    fairy = p.fairy(0, "AF-004", on=target)  # power 3
    cases = [p.case(1, "AF-043") for _ in range(responder_cases)]
    held = [p.hand(1, c) for c in counters]
    return p, {"pay": pay, "target": target, "fairy": fairy, "cases": cases, "held": held}


def test_9_3_a_counter_applies_at_once_and_goes_to_the_trash():
    """RULES 9.3: 目くらまし (AF-071) sets the pending investigation's power −2 right away, paid by the
    responder's own case, and lies in the responder's trash while the window stays open."""
    p, c = _investigation()
    state, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    smoke = c["held"][0]

    after, events = apply(state, act("counter", 1, card=smoke, targets=[]))

    assert after["pending"]["power"] == -2 and after["pending"]["counters"] == [smoke]
    assert after["players"][1]["trash"][-1] == smoke and smoke not in after["players"][1]["hand"]
    assert after["players"][1]["cases"][1] == {"card": c["cases"][0], "face_up": False, "actioned": True}
    assert events_of(events, "investigation_power") == [{"type": "investigation_power", "amount": -2, "by": smoke}]


def test_9_3_a_counter_answers_only_its_trigger():
    """RULES 9.3: 盗み見 (AF-074, trigger draw) in an investigation's window is wrong_trigger."""
    p, c = _investigation(counters=("AF-071", "AF-074"))
    state, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    v = assert_illegal(state, act("counter", 1, card=c["held"][1], targets=[]), "9.3", "wrong_trigger")
    assert v.params["pending"] == "investigate" and v.params["trigger"] == "draw"


def test_9_3_the_counter_action_names_a_counter():
    """RULES 9.3: a spell played as a counter is refused."""
    p, c = _investigation(counters=("AF-071", "AF-060"))
    state, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    assert_illegal(state, act("counter", 1, card=c["held"][1], targets=[]), "9.3", "not_a_counter")


def test_9_3_a_counter_is_paid_with_the_responders_own_unactioned_cases():
    """RULES 9.3: naming the active player's case to pay is bad_payer (7.3)."""
    p, c = _investigation()
    state, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    v = assert_illegal(state, act("counter", 1, card=c["held"][0], targets=[], pay=[c["pay"]]), "7.3", "bad_payer")
    assert v.params["why"] == "not theirs"


def test_9_3_the_draw_trigger_is_the_draw_action_only_not_an_effects_draw():
    """RULES 9.3: 東の妖精's draw ability opens no window for a player holding 盗み見 (AF-074)."""
    p = Position()
    p.case(0, "AF-042")
    east = p.fairy(0, "AF-003")
    p.case(1, "AF-043")
    p.hand(1, "AF-074")
    state = p.build()
    after, events = apply(state, act("use_ability", 0, card=east, ability=0, targets=[]))
    assert after["pending"] is None and not events_of(events, "window_opened")
    assert len(after["players"][0]["hand"]) == 1


def test_9_3_the_draw_trigger_is_not_the_draw_step():
    """RULES 9.3: player 1's draw step opens no window for player 0 holding 盗み見."""
    p = Position(active=0)
    p.case(0, "AF-042")
    p.hand(0, "AF-074")
    state = p.build()
    after, events = apply(state, act("end_turn", 0))
    assert after["pending"] is None and after["step"] == "case"
    assert not events_of(events, "window_opened")


def test_9_3_the_draw_trigger_answers_the_draw_action():
    """RULES 9.3: the draw action does open a window for 盗み見."""
    p = Position()
    p.case(0, "AF-042")
    p.case(1, "AF-043")
    p.hand(1, "AF-074")
    state = p.build()
    after, events = apply(state, act("draw", 0))
    assert after["pending"]["action"]["type"] == "draw"
    assert events_of(events, "window_opened") == [{"type": "window_opened", "responder": 1, "action": "draw"}]


# -- 9.4 Response windows -------------------------------------------------------------------------


def test_9_4_auto_no_counter_in_hand_means_no_window():
    """RULES 9.4 auto: the opponent holds no counter; the investigation resolves at once."""
    p, c = _investigation(counters=())
    after, events = apply(p.build(), act("investigate", 0, case=c["target"]))
    assert after["pending"] is None and events_of(events, "solved")


def test_9_4_auto_a_counter_the_opponent_cannot_pay_opens_no_window():
    """RULES 9.4 auto: the opponent holds 邪魔 but has no unactioned case."""
    p, c = _investigation(counters=("AF-070",), responder_cases=0)
    after, events = apply(p.build(), act("investigate", 0, case=c["target"]))
    assert after["pending"] is None and events_of(events, "solved")


def test_9_4_auto_a_counter_of_another_trigger_opens_no_window():
    """RULES 9.4 auto: 通せんぼ (AF-075, play_fairy) does not answer an investigation."""
    p, c = _investigation(counters=("AF-075",))
    after, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    assert after["pending"] is None


def test_9_4_auto_a_counter_without_a_legal_target_opens_no_window():
    """RULES 9.4 auto: 置き手紙 (AF-079, recall → recover a spell from one's trash) with no spell in
    the trash opens nothing; with one there, the recall waits in a window."""
    for spell_in_trash in (False, True):
        p = Position()
        p.case(0, "AF-042")
        case = p.case(0, "AF-043")
        fairy = p.fairy(0, "AF-004", on=case)
        p.case(1, "AF-044")
        p.hand(1, "AF-079")
        if spell_in_trash:
            p.trash(1, "AF-060")
        after, _ = apply(p.build(), act("recall", 0, fairy=fairy))
        assert (after["pending"] is not None) is spell_in_trash


def test_9_4_auto_a_playable_counter_opens_a_window_before_the_action_takes_effect():
    """RULES 9.4 auto: with 目くらまし in hand, the investigation is pending and nothing is solved yet."""
    p, c = _investigation()
    state = p.build()
    after, events = apply(state, act("investigate", 0, case=c["target"]))
    assert after["pending"] == {
        "action": {"type": "investigate", "player": 0, "case": c["target"], "pay": [c["pay"]]},
        "responder": 1,
        "negated": False,
        "power": 0,
        "counters": [],
    }
    assert not events_of(events, "investigation")
    assert after["players"][1]["cases"][0]["card"] == c["target"]


def test_9_4_strict_a_window_opens_even_when_the_opponent_holds_no_counter():
    """RULES 9.4 strict: the opponent controls an unactioned case; an empty hand still gets a window."""
    p, c = _investigation(counters=(), windows="strict")
    after, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    assert after["pending"]["action"]["type"] == "investigate"
    assert legal(after) == [act("pass", 1), act("concede", 0), act("concede", 1)]


def test_9_4_strict_no_unactioned_case_no_window():
    """RULES 9.4 strict: an opponent without an unactioned case gets no window."""
    p, c = _investigation(counters=("AF-070",), responder_cases=0, windows="strict")
    after, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    assert after["pending"] is None


def _every_respondable_action():
    """A position where player 0 may take each of the ten respondable action types."""
    p = Position(step="case", windows="strict")
    for _ in range(4):
        p.case(0, "AF-042")
    mine = p.case(0, "AF-043", face_up=True)
    theirs = p.case(1, "AF-047")
    out = p.fairy(0, "AF-002", on=mine)
    standby = p.fairy(0, "AF-005")
    actions = {
        "play_case": act("play_case", 0, card=p.hand(0, "AF-044")),
        "draw": act("draw", 0),
        "play_fairy": act("play_fairy", 0, card=p.hand(0, "AF-004")),
        "play_evidence": act("play_evidence", 0, card=p.hand(0, "AF-022"), case=mine),
        "dispatch": act("dispatch", 0, fairy=standby, case=theirs),
        "redispatch": act("redispatch", 0, fairy=out, case=theirs),
        "recall": act("recall", 0, fairy=out),
        "investigate": act("investigate", 0, case=mine),
        "use_ability": act("use_ability", 0, card=out, ability=0, targets=[]),
        "cast_spell": act("cast_spell", 0, card=p.hand(0, "AF-060"), targets=[]),
    }
    return p.build(), actions


@pytest.mark.parametrize(
    "kind",
    [
        "play_case",
        "draw",
        "play_fairy",
        "play_evidence",
        "dispatch",
        "redispatch",
        "recall",
        "investigate",
        "use_ability",
        "cast_spell",
    ],
)
def test_9_4_every_respondable_action_opens_a_window_in_strict_mode(kind):
    """RULES 9.4: each action of 6.4, 8.2–8.8, 9.1, 9.2 becomes pending (strict, opponent with a case)."""
    state, actions = _every_respondable_action()
    if kind != "play_case":
        state, _ = apply(state, act("skip_case", 0))
    after, events = apply(state, actions[kind])
    assert after["pending"]["action"]["type"] == kind
    assert after["pending"]["responder"] == 1
    assert events_of(events, "window_opened") == [{"type": "window_opened", "responder": 1, "action": kind}]


def test_9_4_skip_case_and_end_turn_open_no_window():
    """RULES 9.4: skipping the case step and ending the turn are not respondable."""
    state, _ = _every_respondable_action()
    state, _ = apply(state, act("skip_case", 0))
    assert state["pending"] is None
    state, _ = apply(state, act("end_turn", 0))
    assert state["pending"] is None and state["active"] == 1


def test_9_4_the_window_stays_open_until_the_responder_passes():
    """RULES 9.4: after 邪魔, with no counter left in hand, the window is still open; pass closes it."""
    p, c = _investigation(counters=("AF-070",))
    state, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    state, _ = apply(state, act("counter", 1, card=c["held"][0], targets=[]))
    assert state["pending"] is not None and state["players"][1]["hand"] == []

    after, events = apply(state, act("pass", 1))

    assert after["pending"] is None
    assert events[0] == {"type": "window_closed", "negated": True}


def test_9_4_counters_are_played_one_at_a_time_in_one_window():
    """RULES 9.4: two 目くらまし, one after the other, make −4 in the same window."""
    p, c = _investigation(counters=("AF-071", "AF-071"), responder_cases=2)
    state, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    state, _ = run(state, *[act("counter", 1, card=h, targets=[]) for h in c["held"]])
    assert state["pending"]["power"] == -4 and state["pending"]["counters"] == c["held"]


def test_9_4_the_active_player_cannot_respond():
    """RULES 9.4: inside the window the active player's counter is refused (12.1)."""
    p, c = _investigation()
    mine = p.hand(0, "AF-070")
    state, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    assert_illegal(state, act("counter", 0, card=mine, targets=[]), "12.1", "responder_acts")
    assert_illegal(state, act("pass", 0), "12.1", "responder_acts")


def test_9_4_there_is_no_pass_without_a_window():
    """RULES 9.4: pass with no window open is refused."""
    state = Position().build()
    assert_illegal(state, act("pass", 0), "9.4", "no_window_to_pass")


def test_9_4_after_the_pass_the_pending_action_resolves():
    """RULES 9.4: the responder passes at once; the investigation solves the case."""
    p, c = _investigation()
    state, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    after, events = apply(state, act("pass", 1))
    assert events_of(events, "solved") and after["players"][1]["trash"][-1] == c["target"]


# -- 9.5 Negation -------------------------------------------------------------------------------------


def _negated(p: Position, action, counter_cid):
    """Player 1 negates ``action`` with ``counter_cid`` and passes: (state before, state after)."""
    p.case(1, "AF-047")
    counter = p.hand(1, counter_cid)
    state = p.build()
    state, _ = apply(state, action)
    assert state["pending"]["action"]["type"] == action["type"]
    before = state
    after, _ = run(state, act("counter", 1, card=counter, targets=[]), act("pass", 1))
    return before, after, counter


def _without_counter(before, after, counter):
    """``before`` normalised as it should be after a negation that changes nothing but the counter
    (two actions later: the counter and the pass)."""
    expected = normal(before, applied=2)
    expected["pending"] = None
    expected["players"][1]["hand"].remove(counter)
    expected["players"][1]["trash"].append(counter)
    expected["players"][1]["cases"][-1]["actioned"] = True
    return expected


def test_9_5_a_negated_case_goes_to_its_owners_trash():
    """RULES 9.5: 横やり (AF-073): the case is trashed; the case step is over."""
    p = Position(step="case")
    case = p.hand(0, "AF-051")
    before, after, counter = _negated(p, act("play_case", 0, card=case), "AF-073")
    expected = _without_counter(before, after, counter)
    expected["players"][0]["hand"] = []
    expected["players"][0]["trash"].append(case)
    expected["step"] = "main"
    assert after == expected


def test_9_5_a_negated_fairy_goes_to_the_trash_and_the_cost_stays_paid():
    """RULES 9.5: 通せんぼ (AF-075): the fairy is trashed; the paying case stays actioned."""
    p = Position()
    pay = p.case(0, "AF-042")
    fairy = p.hand(0, "AF-006")
    before, after, counter = _negated(p, act("play_fairy", 0, card=fairy), "AF-075")
    expected = _without_counter(before, after, counter)
    expected["players"][0]["hand"] = []
    expected["players"][0]["trash"].append(fairy)
    assert after == expected
    assert after["players"][0]["cases"] == [{"card": pay, "face_up": False, "actioned": True}]
    assert after["players"][0]["fairies"] == []


def test_9_5_a_negated_evidence_goes_to_the_trash():
    """RULES 9.5: すり替え (AF-076): the evidence is trashed, not attached."""
    p = Position()
    pay = p.case(0, "AF-042")
    ev = p.hand(0, "AF-023")
    before, after, counter = _negated(p, act("play_evidence", 0, card=ev, case=pay), "AF-076")
    expected = _without_counter(before, after, counter)
    expected["players"][0]["hand"] = []
    expected["players"][0]["trash"].append(ev)
    assert after == expected


def test_9_5_a_negated_spell_goes_to_the_trash_without_its_effect():
    """RULES 9.5: 妖力封じ (AF-080) stops 閃き: no card drawn, the spell in the trash, the cost paid."""
    p = Position()
    p.case(0, "AF-042")
    spell = p.hand(0, "AF-060")
    before, after, counter = _negated(p, act("cast_spell", 0, card=spell, targets=[]), "AF-080")
    expected = _without_counter(before, after, counter)
    expected["players"][0]["hand"] = []
    expected["players"][0]["trash"].append(spell)
    assert after == expected


def test_9_5_a_negated_dispatch_leaves_the_fairy_where_it_was():
    """RULES 9.5: 足止め (AF-077): the fairy stays standby."""
    p = Position()
    case = p.case(0, "AF-042")
    fairy = p.fairy(0, "AF-004")
    before, after, counter = _negated(p, act("dispatch", 0, fairy=fairy, case=case), "AF-077")
    assert after == _without_counter(before, after, counter)
    assert after["players"][0]["fairies"] == [{"card": fairy, "case": None}]


def test_9_5_a_negated_investigation_does_nothing():
    """RULES 9.5: 邪魔 (AF-070): no mill, no trash, the case stays (face up, 10.2)."""
    p = Position()
    p.case(0, "AF-042")
    target = p.case(1, "AF-045", actioned=True)
    p.fairy(0, "AF-004", on=target)
    p.evidence(0, "AF-022", on=target)
    before, after, counter = _negated(p, act("investigate", 0, case=target), "AF-070")
    assert after == _without_counter(before, after, counter)
    assert after["players"][1]["cases"][0] == {"card": target, "face_up": True, "actioned": True}


def test_9_5_a_negated_ability_does_nothing_and_its_cost_stays_paid():
    """RULES 9.5: 魔気の渦 (AF-081) stops 南の妖精's +1: no modifier; the case stays actioned and the
    once-per-turn use is spent."""
    p = Position()
    p.case(0, "AF-042")
    south = p.fairy(0, "AF-002")
    before, after, counter = _negated(p, act("use_ability", 0, card=south, ability=0, targets=[]), "AF-081")
    assert after == _without_counter(before, after, counter)
    assert after["modifiers"] == [] and after["used"] == [{"card": south, "ability": 0}]


def test_9_5_a_negated_once_per_turn_ability_stays_used_for_the_turn():
    """RULES 9.5 (ruling 2026-12-01): 魔気の渦 (AF-081) negates 南の妖精's once-per-turn +1; using it again the
    same turn, with a case left to pay, is refused as used (RULES 9.1)."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043")
    south = p.fairy(0, "AF-002")
    again = act("use_ability", 0, card=south, ability=0, targets=[])
    _, after, _ = _negated(p, again, "AF-081")
    assert after["pending"] is None and after["used"] == [{"card": south, "ability": 0}]
    assert [c["actioned"] for c in after["players"][0]["cases"]] == [True, False]
    assert_illegal(after, again, "9.1", "ability_used")


@pytest.mark.parametrize("kind, counter_cid", [("redispatch", "T-02"), ("recall", "T-03"), ("draw", "T-04")])
def test_9_5_a_negated_redispatch_recall_or_draw_changes_nothing(kind, counter_cid):
    """RULES 9.5: af-ref has no counter negating these three, so the test catalog PLUS adds them: a negated
    redispatch or recall leaves the fairy where it was; a negated draw draws nothing; the cost stays paid."""
    p = Position(catalog=PLUS)
    pay = p.case(0, "AF-042")
    here = p.case(0, "AF-043", actioned=True)
    there = p.case(1, "AF-047", actioned=True)
    fairy = p.fairy(0, "AF-004", on=here)
    action = {
        "redispatch": act("redispatch", 0, fairy=fairy, case=there),
        "recall": act("recall", 0, fairy=fairy),
        "draw": act("draw", 0),
    }[kind]
    before, after, counter = _negated(p, action, counter_cid)
    expected = _without_counter(before, after, counter)
    assert after == expected
    assert after["players"][0]["fairies"] == [{"card": fairy, "case": here}]
    assert after["players"][0]["cases"][0] == {"card": pay, "face_up": False, "actioned": True}
    assert after["players"][0]["hand"] == []


@pytest.mark.parametrize("kind", ["redispatch", "recall", "draw"])
def test_9_5_a_window_marked_negated_resolves_to_nothing_on_pass(kind):
    """RULES 9.5: a hand-built window whose pending action a counter of PLUS already negated (13.1: a
    negated action has a counter played against it): the pass changes nothing but closing the window."""
    p = Position(catalog=PLUS)
    pay = p.case(0, "AF-042", actioned=True)
    here = p.case(0, "AF-043")
    there = p.case(1, "AF-047")
    fairy = p.fairy(0, "AF-004", on=here)
    played = p.trash(1, {"redispatch": "T-02", "recall": "T-03", "draw": "T-04"}[kind])
    action = {
        "redispatch": act("redispatch", 0, fairy=fairy, case=there, pay=[pay]),
        "recall": act("recall", 0, fairy=fairy, pay=[pay]),
        "draw": act("draw", 0, pay=[pay]),
    }[kind]
    p.pending(action, negated=True, counters=[played])
    state = p.build()

    after, events = apply(state, act("pass", 1))

    expected = normal(state, applied=1)
    expected["pending"] = None
    assert after == expected
    assert events == [{"type": "window_closed", "negated": True}]


# -- 9.6 Targets --------------------------------------------------------------------------------------


def test_9_6_a_target_must_be_legal_on_declaration():
    """RULES 9.6: 追い払い (bounce a fairy) aimed at a case, or at a fairy in the trash, is refused."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043")
    case = p.case(1, "AF-047")
    dead = p.trash(1, "AF-004")
    spell = p.hand(0, "AF-064")
    state = p.build()
    v = assert_illegal(state, act("cast_spell", 0, card=spell, targets=[case]), "9.6", "illegal_target")
    assert v.params == {"target": case, "effect": "bounce", "card": spell}
    assert_illegal(state, act("cast_spell", 0, card=spell, targets=[dead]), "9.6", "illegal_target")


@pytest.mark.parametrize(
    "cid, why",
    [
        ("AF-061", "ready: only an own actioned case"),
        ("AF-068", "reveal: only a face-down case"),
        ("AF-066", "recover fairy: only a fairy in one's own trash"),
    ],
)
def test_9_6_each_effect_has_its_own_legal_targets(cid, why):
    """RULES 9.6: an unactioned own case is no target of ready; a face-up case none of reveal; a fairy
    in the opponent's trash none of recover."""
    p = Position()
    mine = p.case(0, "AF-042")
    up = p.case(1, "AF-043", face_up=True)
    their_dead = p.trash(1, "AF-004")
    spell = p.hand(0, cid)
    target = {"AF-061": mine, "AF-068": up, "AF-066": their_dead}[cid]
    state = p.build()
    assert_illegal(state, act("cast_spell", 0, card=spell, targets=[target]), "9.6", "illegal_target")


@pytest.mark.parametrize("named", ["pay", "default"])
def test_9_6_a_case_actioned_only_by_paying_for_this_action_is_no_target(named):
    """RULES 9.6 (ruling 2026-12-05): targets are judged on the state before the cost is paid. 妖精の羽ばたき
    (AF-061, ready one own actioned case) aimed at the one case that pays for it is refused, whether that
    case is named in ``pay`` or taken by default; another case already actioned is a target."""
    p = Position()
    payer = p.case(0, "AF-042")
    spell = p.hand(0, "AF-061")
    state = p.build()
    action = act("cast_spell", 0, card=spell, targets=[payer], **({"pay": [payer]} if named == "pay" else {}))
    v = assert_illegal(state, action, "9.6", "illegal_target")
    assert v.params == {"target": payer, "effect": "ready", "card": spell}

    tired = p.case(0, "AF-043", actioned=True)
    after, _ = apply(p.build(), {**action, "targets": [tired]})
    assert [c["actioned"] for c in after["players"][0]["cases"]] == [True, False]


def test_9_6_a_counters_target_is_judged_before_the_counter_is_paid():
    """RULES 9.6 (ruling 2026-12-05): 時間稼ぎ (AF-082, ready one own actioned case) answering a case being
    played may not target the responder's case that pays for it."""
    p = Position(step="case", windows="strict")
    payer = p.case(1, "AF-042")
    counter = p.hand(1, "AF-082")
    new_case = p.hand(0, "AF-043")
    state, _ = apply(p.build(), act("play_case", 0, card=new_case))
    assert state["pending"] is not None
    assert_illegal(state, act("counter", 1, card=counter, targets=[payer], pay=[payer]), "9.6", "illegal_target")


def test_9_6_a_pending_ready_whose_target_paid_for_it_was_never_declared():
    """RULES 9.6, 13.1: a hand-built window on 妖精の羽ばたき whose target is the case that paid for it could
    not have been declared (the target was unactioned before paying), so the state is refused."""
    p = Position()
    payer = p.case(0, "AF-042", actioned=True)
    p.case(1, "AF-043")
    p.hand(1, "AF-080")  # 妖力封じ answers cast_spell: the window could be open
    spell = p.hand(0, "AF-061")
    p.pending(act("cast_spell", 0, card=spell, targets=[payer], pay=[payer]))
    with pytest.raises(InconsistentState) as caught:
        p.build()  # checks the state as every request is checked (RULES 13.1)
    assert (caught.value.code, caught.value.path) == ("inconsistent_pending", "state.pending.action.targets.0")


def test_9_6_one_target_per_targeted_effect():
    """RULES 9.6: 追い払い takes exactly one target; 閃き takes none."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043")
    fairy = p.fairy(1, "AF-004")
    bounce = p.hand(0, "AF-064")
    draw2 = p.hand(0, "AF-060")
    state = p.build()
    assert_illegal(state, act("cast_spell", 0, card=bounce, targets=[]), "9.6", "wrong_target_count")
    assert_illegal(state, act("cast_spell", 0, card=bounce, targets=[fairy, fairy]), "9.6", "wrong_target_count")
    assert_illegal(state, act("cast_spell", 0, card=draw2, targets=[fairy]), "9.6", "wrong_target_count")


def test_9_6_a_counters_target_is_checked_on_declaration():
    """RULES 9.6: 落とし穴 (AF-072, trash a fairy) aimed at a case is refused."""
    p, c = _investigation(counters=("AF-072",), responder_cases=2)
    state, _ = apply(p.build(), act("investigate", 0, case=c["target"]))
    assert_illegal(state, act("counter", 1, card=c["held"][0], targets=[c["target"]]), "9.6", "illegal_target")


def test_9_6_a_target_gone_when_the_effect_applies_is_skipped():
    """RULES 9.6: a pending 妖精の応援 (AF-063, +2 to a target fairy) whose fairy has left the field
    (a hand-built window: it was trashed meanwhile) is skipped; the spell still goes to the trash."""
    p = Position()
    pay = p.case(0, "AF-042", actioned=True)
    p.case(1, "AF-047")
    gone = p.trash(0, "AF-004")
    spell = p.hand(0, "AF-063")
    p.pending(act("cast_spell", 0, card=spell, targets=[gone], pay=[pay]))
    state = p.build()

    after, events = apply(state, act("pass", 1))

    expected = normal(state, applied=1)
    expected["pending"] = None
    expected["players"][0]["hand"] = []
    expected["players"][0]["trash"].append(spell)
    assert after == expected
    assert {"type": "skipped", "effect": "power", "target": gone} in events


def test_9_6_a_redispatch_whose_fairy_a_counter_bounced_is_skipped():
    """RULES 9.6: 迷い道 (AF-078) bounces the redispatched fairy to its owner's hand; the redispatch then
    has no fairy to move and is skipped (its cost stays paid)."""
    p = Position()
    pay = p.case(0, "AF-042")
    here = p.case(0, "AF-043")
    there = p.case(1, "AF-047")
    p.case(1, "AF-044")
    p.case(1, "AF-045")
    fairy = p.fairy(0, "AF-004", on=here)
    lost = p.hand(1, "AF-078")
    state = p.build()

    state, _ = apply(state, act("redispatch", 0, fairy=fairy, case=there))
    after, events = run(state, act("counter", 1, card=lost, targets=[fairy]), act("pass", 1))

    assert after["players"][0]["fairies"] == [] and after["players"][0]["hand"] == [fairy]
    assert after["players"][0]["cases"][0] == {"card": pay, "face_up": False, "actioned": True}
    assert events_of(events, "skipped") == [{"type": "skipped", "action": "redispatch", "reason": "card_not_available"}]


# -- 9.7 Effect order and required draws -----------------------------------------------------------------


def test_9_7_effects_apply_in_the_order_the_card_lists_them():
    """RULES 9.7: 名推理 (AF-068): reveal the target case, then draw 1 — in that order."""
    p = Position()
    p.case(0, "AF-042")
    hidden = p.case(1, "AF-051")
    spell = p.hand(0, "AF-068")
    state = p.build()

    after, events = apply(state, act("cast_spell", 0, card=spell, targets=[hidden]))

    kinds = [e["type"] for e in events]
    assert kinds.index("reveal") < kinds.index("draw")
    assert after["players"][1]["cases"][0]["face_up"] is True
    assert len(after["players"][0]["hand"]) == 1


def test_9_7_a_spell_that_makes_its_caster_draw_from_an_empty_file_loses():
    """RULES 9.7: 閃き (draw 2) with one card left: a required draw (11.1) — the caster draws 1 and loses."""
    p = Position()
    p.case(0, "AF-042")
    p.file_size(0, 1)
    spell = p.hand(0, "AF-060")
    state = p.build()
    assert_legal(state, act("cast_spell", 0, card=spell, targets=[]))

    after, _ = apply(state, act("cast_spell", 0, card=spell, targets=[]))

    assert after["result"] == {"winner": 1, "reason": "deck_out"}
    assert after["players"][0]["file"] == []


def test_9_7_an_ability_draw_from_an_empty_file_loses():
    """RULES 9.7: 東の妖精's draw with an empty file is a required draw."""
    p = Position()
    p.case(0, "AF-042")
    p.file_size(0, 0)
    east = p.fairy(0, "AF-003")
    state = p.build()
    after, _ = apply(state, act("use_ability", 0, card=east, ability=0, targets=[]))
    assert after["result"] == {"winner": 1, "reason": "deck_out"}


def test_9_7_a_counters_draw_from_an_empty_file_makes_the_responder_lose():
    """RULES 9.7: 盗み見 makes its owner draw; with an empty file, player 1 loses inside the window."""
    p = Position()
    p.case(0, "AF-042")
    p.case(1, "AF-043")
    peek = p.hand(1, "AF-074")
    p.file_size(1, 0)
    state = p.build()
    state, _ = apply(state, act("draw", 0))
    after, _ = apply(state, act("counter", 1, card=peek, targets=[]))
    assert after["result"] == {"winner": 0, "reason": "deck_out"} and after["pending"] is None
