"""RULES 8: the main-step actions, each costing 1 action."""

from __future__ import annotations

import pytest

from .positions import Position, act, apply, assert_illegal, assert_legal, events_of, legal, normal, run


def _paid(state, case):
    """``state`` normalised, with ``case`` (player 0's first case) actioned: the expected base after paying 1."""
    expected = normal(state, applied=1)
    entry = expected["players"][0]["cases"][0]
    assert entry["card"] == case
    entry["actioned"] = True
    return expected


# -- 8.1 --------------------------------------------------------------------------------


def test_8_1_main_step_actions_are_not_taken_in_the_case_step():
    """RULES 8.1: draw, play_fairy and dispatch in the case step are refused (not_main_step)."""
    p = Position(step="case")
    p.case(0, "AF-042")
    case = p.case(0, "AF-043")
    fairy = p.hand(0, "AF-004")
    standby = p.fairy(0, "AF-005")
    state = p.build()
    assert_illegal(state, act("draw", 0), "8.1", "not_main_step")
    assert_illegal(state, act("play_fairy", 0, card=fairy), "8.1", "not_main_step")
    assert_illegal(state, act("dispatch", 0, fairy=standby, case=case), "8.1", "not_main_step")


def test_8_1_main_step_actions_are_not_taken_while_a_window_is_open():
    """RULES 8.1: the responder's draw, cast or ability inside a window is refused (main_action_in_window)."""
    p = Position()
    c = p.case(0, "AF-042", actioned=True)
    p.case(1, "AF-047")
    p.hand(1, "AF-074")
    spell = p.hand(1, "AF-060")
    own_fairy = p.fairy(1, "AF-003")
    p.pending(act("draw", 0, pay=[c]))
    state = p.build()
    assert_illegal(state, act("draw", 1), "8.1", "main_action_in_window")
    assert_illegal(state, act("cast_spell", 1, card=spell, targets=[]), "8.1", "main_action_in_window")
    assert_illegal(state, act("use_ability", 1, card=own_fairy, ability=0, targets=[]), "8.1", "main_action_in_window")


def test_8_1_main_step_actions_belong_to_the_active_player():
    """RULES 8.1: the non-active player's draw outside a window is refused (12.2 is the first rule broken)."""
    p = Position()
    p.case(1, "AF-042")
    state = p.build()
    assert_illegal(state, act("draw", 1), "12.2", "not_your_turn")


# -- 8.2 --------------------------------------------------------------------------------


def test_8_2_the_draw_action_draws_the_top_card_for_one_action():
    """RULES 8.2: one case pays; the top card of the file comes to hand."""
    p = Position()
    case = p.case(0, "AF-042")
    top = p.file(0, "AF-051")
    state = p.build()

    after, events = apply(state, act("draw", 0))

    expected = _paid(state, case)
    expected["players"][0]["hand"] = [top]
    expected["players"][0]["file"] = state["players"][0]["file"][1:]
    assert after == expected
    assert events == [{"type": "paid", "player": 0, "cases": [case]}, {"type": "draw", "player": 0, "cards": 1}]


def test_8_2_a_voluntary_draw_from_an_empty_file_is_illegal():
    """RULES 8.2: the draw action is refused when the file is empty (no loss, nothing changes)."""
    p = Position()
    p.case(0, "AF-042")
    p.file_size(0, 0)
    state = p.build()
    assert_illegal(state, act("draw", 0), "8.2", "file_empty")


def test_8_2_a_draw_whose_file_a_counter_emptied_draws_nothing_and_does_not_lose():
    """RULES 8.2: 逆転の一手 (AF-083) mills the last card before the draw resolves; the draw is voluntary
    (not a required draw, 11.1), so it draws nothing and the game goes on."""
    p = Position()
    case = p.case(0, "AF-042")
    p.file_size(0, 1)
    p.case(1, "AF-047")
    mill = p.hand(1, "AF-083")
    state = p.build()

    after, events = run(state, act("draw", 0), act("counter", 1, card=mill, targets=[]), act("pass", 1))

    assert after["phase"] == "turn" and after["result"] is None
    assert after["players"][0]["file"] == [] and after["players"][0]["hand"] == []
    assert events[-1] == {"type": "draw", "player": 0, "cards": 0}
    assert after["players"][0]["cases"] == [{"card": case, "face_up": False, "actioned": True}]


# -- 8.3 --------------------------------------------------------------------------------


def test_8_3_a_fairy_is_played_from_hand_standby():
    """RULES 8.3: the fairy leaves the hand and joins the field with case null."""
    p = Position()
    case = p.case(0, "AF-042")
    fairy = p.hand(0, "AF-006")
    state = p.build()

    after, _ = apply(state, act("play_fairy", 0, card=fairy))

    expected = _paid(state, case)
    expected["players"][0]["hand"] = []
    expected["players"][0]["fairies"] = [{"card": fairy, "case": None}]
    assert after == expected


def test_8_3_play_fairy_names_a_fairy():
    """RULES 8.3: play_fairy with an evidence card is refused."""
    p = Position()
    p.case(0, "AF-042")
    ev = p.hand(0, "AF-022")
    state = p.build()
    assert_illegal(state, act("play_fairy", 0, card=ev), "8.3", "not_a_fairy")


# -- 8.4 --------------------------------------------------------------------------------


def test_8_4_an_evidence_is_played_onto_a_case_in_play():
    """RULES 8.4: the evidence leaves the hand and is attached to the named case."""
    p = Position()
    case = p.case(0, "AF-042")
    ev = p.hand(0, "AF-023")
    state = p.build()

    after, _ = apply(state, act("play_evidence", 0, card=ev, case=case))

    expected = _paid(state, case)
    expected["players"][0]["hand"] = []
    expected["players"][0]["evidence"] = [{"card": ev, "case": case}]
    assert after == expected


def test_8_4_play_evidence_names_an_evidence():
    """RULES 8.4: play_evidence with a fairy card is refused."""
    p = Position()
    case = p.case(0, "AF-042")
    fairy = p.hand(0, "AF-004")
    state = p.build()
    assert_illegal(state, act("play_evidence", 0, card=fairy, case=case), "8.4", "not_an_evidence")


def test_8_4_the_evidence_needs_a_case_in_play():
    """RULES 8.4: a case in hand, or in the trash, is not a case in play (12.3)."""
    p = Position()
    p.case(0, "AF-042")
    ev = p.hand(0, "AF-023")
    in_hand = p.hand(0, "AF-043")
    in_trash = p.trash(1, "AF-044")
    state = p.build()
    assert_illegal(state, act("play_evidence", 0, card=ev, case=in_hand), "12.3", "no_such_case")
    assert_illegal(state, act("play_evidence", 0, card=ev, case=in_trash), "12.3", "no_such_case")


# -- 8.5 --------------------------------------------------------------------------------


def test_8_5_a_standby_fairy_is_dispatched_to_a_case_in_play():
    """RULES 8.5: the fairy's case becomes the named case."""
    p = Position()
    case = p.case(0, "AF-042")
    fairy = p.fairy(0, "AF-004")
    state = p.build()

    after, events = apply(state, act("dispatch", 0, fairy=fairy, case=case))

    expected = _paid(state, case)
    expected["players"][0]["fairies"] = [{"card": fairy, "case": case}]
    assert after == expected
    assert events[-1] == {"type": "dispatch", "player": 0, "fairy": fairy, "case": case}


def test_8_5_a_dispatched_fairy_is_not_dispatched_again():
    """RULES 8.5: dispatch is for standby fairies (a dispatched one is redispatched, 8.6)."""
    p = Position()
    a = p.case(0, "AF-042")
    b = p.case(0, "AF-043")
    fairy = p.fairy(0, "AF-004", on=a)
    state = p.build()
    assert_illegal(state, act("dispatch", 0, fairy=fairy, case=b), "8.5", "not_standby")


# -- 8.6 --------------------------------------------------------------------------------


def test_8_6_a_dispatched_fairy_is_redispatched_to_a_different_case():
    """RULES 8.6: the fairy moves from one case to the other."""
    p = Position()
    a = p.case(0, "AF-042")
    b = p.case(1, "AF-043")
    fairy = p.fairy(0, "AF-004", on=b)
    state = p.build()

    after, _ = apply(state, act("redispatch", 0, fairy=fairy, case=a))

    expected = _paid(state, a)
    expected["players"][0]["fairies"] = [{"card": fairy, "case": a}]
    assert after == expected


def test_8_6_a_standby_fairy_is_not_redispatched():
    """RULES 8.6: redispatch needs a dispatched fairy."""
    p = Position()
    a = p.case(0, "AF-042")
    fairy = p.fairy(0, "AF-004")
    state = p.build()
    assert_illegal(state, act("redispatch", 0, fairy=fairy, case=a), "8.6", "not_dispatched")


def test_8_6_redispatching_to_the_same_case_is_illegal():
    """RULES 8.6: the new case must differ from the current one."""
    p = Position()
    a = p.case(0, "AF-042")
    fairy = p.fairy(0, "AF-004", on=a)
    state = p.build()
    assert_illegal(state, act("redispatch", 0, fairy=fairy, case=a), "8.6", "same_case")


# -- 8.7 --------------------------------------------------------------------------------


def test_8_7_a_dispatched_fairy_is_recalled_to_standby():
    """RULES 8.7: recall makes the fairy standby, for 1 action."""
    p = Position()
    a = p.case(0, "AF-042")
    fairy = p.fairy(0, "AF-004", on=a)
    state = p.build()

    after, _ = apply(state, act("recall", 0, fairy=fairy))

    expected = _paid(state, a)
    expected["players"][0]["fairies"] = [{"card": fairy, "case": None}]
    assert after == expected


def test_8_7_a_standby_fairy_is_not_recalled():
    """RULES 8.7: only a dispatched fairy is recalled."""
    p = Position()
    p.case(0, "AF-042")
    fairy = p.fairy(0, "AF-004")
    state = p.build()
    assert_illegal(state, act("recall", 0, fairy=fairy), "8.7", "recall_standby")


# -- 8.8 --------------------------------------------------------------------------------


def test_8_8_investigating_costs_one_action():
    """RULES 8.8: a failed investigation of a level-8 case still turns one case sideways."""
    p = Position()
    pay = p.case(0, "AF-042")
    case = p.case(1, "AF-051")
    p.fairy(0, "AF-005", on=case)
    state = p.build()
    after, _ = apply(state, act("investigate", 0, case=case))
    assert after["players"][0]["cases"] == [{"card": pay, "face_up": False, "actioned": True}]


def test_8_8_the_same_case_may_be_investigated_again_in_the_same_turn_paying_again():
    """RULES 8.8: a case whose requirement fails (10.5) is investigated twice; each time costs 1."""
    p = Position()
    a = p.case(0, "AF-042")
    b = p.case(0, "AF-043")
    case = p.case(1, "AF-040")  # level 4, needs 1 evidence
    p.fairy(0, "AF-006", on=case)  # power 4
    state = p.build()

    after, events = run(state, act("investigate", 0, case=case), act("investigate", 0, case=case))

    assert [e["outcome"] for e in events_of(events, "investigation")] == ["continues", "continues"]
    assert [e["cases"] for e in events_of(events, "paid")] == [[a], [b]]
    assert_illegal(after, act("investigate", 0, case=case), "7.2", "cannot_pay")


# -- 8.9 --------------------------------------------------------------------------------


def test_8_9_at_most_one_own_fairy_per_case():
    """RULES 8.9: a second own fairy dispatched to the same case is refused."""
    p = Position()
    case = p.case(0, "AF-042")
    p.fairy(0, "AF-004", on=case)
    second = p.fairy(0, "AF-005")
    state = p.build()
    v = assert_illegal(state, act("dispatch", 0, fairy=second, case=case), "8.9", "one_fairy_per_case")
    assert v.params == {"player": 0, "case": case, "count": 1, "limit": 1}


def test_8_9_redispatching_onto_a_case_holding_an_own_fairy_is_refused():
    """RULES 8.9: the limit holds for redispatch too."""
    p = Position()
    a = p.case(0, "AF-042")
    b = p.case(0, "AF-043")
    p.fairy(0, "AF-004", on=a)
    mover = p.fairy(0, "AF-005", on=b)
    state = p.build()
    assert_illegal(state, act("redispatch", 0, fairy=mover, case=a), "8.9", "one_fairy_per_case")


def test_8_9_the_opponents_fairies_on_the_case_do_not_count():
    """RULES 8.9: player 1's fairy on the case does not stop player 0's."""
    p = Position()
    pay = p.case(0, "AF-042")
    case = p.case(1, "AF-047")
    p.fairy(1, "AF-004", on=case)
    mine = p.fairy(0, "AF-005")
    state = p.build()
    assert_legal(state, act("dispatch", 0, fairy=mine, case=case))
    after, _ = apply(state, act("dispatch", 0, fairy=mine, case=case))
    assert after["players"][0]["fairies"] == [{"card": mine, "case": case}]
    assert pay == after["players"][0]["cases"][0]["card"]


def test_8_9_a_case_with_dispatch_limit_two_takes_two_own_fairies_but_not_three():
    """RULES 8.9: 学園祭の怪 (AF-041) sets dispatch_limit 2 (face up: known to both players, RULES 8.9.1)."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043")
    festival = p.case(1, "AF-041", face_up=True)
    first = p.fairy(0, "AF-004", on=festival)
    second = p.fairy(0, "AF-005")
    third = p.fairy(0, "AF-009")
    state = p.build()

    state, _ = apply(state, act("dispatch", 0, fairy=second, case=festival))

    # The list keeps dispatch order (RULES 4.7): the newly dispatched fairy goes last.
    assert state["players"][0]["fairies"] == [
        {"card": first, "case": festival},
        {"card": third, "case": None},
        {"card": second, "case": festival},
    ]
    v = assert_illegal(state, act("dispatch", 0, fairy=third, case=festival), "8.9", "one_fairy_per_case")
    assert v.params["limit"] == 2


# -- 8.9.1 ------------------------------------------------------------------------------


def _second_fairy_on(cid: str, *, owner: int, face_up: bool):
    """Player 0 has one fairy on a case ``cid`` of ``owner`` and a second one standby, two cases to pay."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043")
    case = p.case(owner, cid, face_up=face_up)
    p.fairy(0, "AF-004", on=case)
    second = p.fairy(0, "AF-005")
    return p.build(), case, second


@pytest.mark.parametrize("cid", ["AF-041", "AF-047"])
def test_8_9_1_the_opponent_is_held_to_one_fairy_on_a_face_down_case_whatever_its_limit(cid):
    """RULES 8.9.1: 学園祭の怪 (AF-041, dispatch_limit 2) and a limit-1 case, both face down to player 0: the
    second fairy is refused the same way, so the answer does not tell the two apart."""
    state, case, second = _second_fairy_on(cid, owner=1, face_up=False)
    v = assert_illegal(state, act("dispatch", 0, fairy=second, case=case), "8.9.1", "face_down_case_limit")
    assert v.params == {"player": 0, "case": case, "count": 1, "limit": 1}
    assert not [a for a in legal(state, 0) if a.get("case") == case and a["type"] in ("dispatch", "redispatch")]


def test_8_9_1_the_limit_of_one_holds_for_redispatch_onto_a_face_down_case():
    """RULES 8.9.1: redispatching a second fairy onto the opponent's face-down 学園祭の怪 is refused too."""
    p = Position()
    p.case(0, "AF-042")
    here = p.case(0, "AF-043")
    festival = p.case(1, "AF-041")
    p.fairy(0, "AF-004", on=festival)
    mover = p.fairy(0, "AF-005", on=here)
    state = p.build()
    assert_illegal(state, act("redispatch", 0, fairy=mover, case=festival), "8.9.1", "face_down_case_limit")


def test_8_9_1_the_owner_uses_the_printed_limit_on_their_own_face_down_case():
    """RULES 8.9.1: the owner knows their face-down 学園祭の怪 (RULES 4.4) and may dispatch a second fairy."""
    state, case, second = _second_fairy_on("AF-041", owner=0, face_up=False)
    assert_legal(state, act("dispatch", 0, fairy=second, case=case))
    after, _ = apply(state, act("dispatch", 0, fairy=second, case=case))
    assert [f["case"] for f in after["players"][0]["fairies"]] == [case, case]


def test_8_9_1_from_the_moment_it_turns_face_up_the_printed_limit_applies_to_the_opponent():
    """RULES 8.9.1: 探偵団のバッジ (AF-027) turns the opponent's 学園祭の怪 face up; from then on player 0 may
    dispatch a second fairy to it."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043")
    festival = p.case(1, "AF-041")
    badge = p.evidence(0, "AF-027", on=festival)
    p.fairy(0, "AF-004", on=festival)
    second = p.fairy(0, "AF-005")
    state = p.build()
    assert_illegal(state, act("dispatch", 0, fairy=second, case=festival), "8.9.1", "face_down_case_limit")

    state, _ = apply(state, act("use_ability", 0, card=badge, ability=0, targets=[festival]))

    assert state["pending"] is None and state["players"][1]["cases"][0]["face_up"]
    assert_legal(state, act("dispatch", 0, fairy=second, case=festival))
