"""RULES 6: the turn — reset, draw, case, main and end steps."""

from __future__ import annotations

from .positions import (
    Position,
    act,
    apply,
    assert_illegal,
    assert_legal,
    events_of,
    normal,
    run,
    started_game,
)


def test_6_1_a_turn_runs_reset_draw_case_main_end_in_order():
    """RULES 6.1: from the end of turn 1, turn 2 resets, draws, and stops in its case step; skipping
    the case step leads to the main step; ending the turn leads to the next turn's case step."""
    state = started_game()
    assert state["step"] == "case"
    state, _ = apply(state, act("play_case", 0, card=state["players"][0]["hand"][0]))  # 8 → 7 cards
    assert state["step"] == "main"

    state, events = apply(state, act("end_turn", 0))

    assert [e["type"] for e in events] == ["turn_started", "draw"]
    assert (state["turn"], state["active"], state["step"]) == (2, 1, "case")


def test_6_1_with_more_than_seven_cards_the_end_step_comes_before_the_turn_passes():
    """RULES 6.1: end_turn with 8 cards stops in the end step; the discard passes the turn."""
    state = started_game()  # player 0 holds 8
    state, _ = apply(state, act("skip_case", 0))
    state, events = apply(state, act("end_turn", 0))
    assert (state["step"], state["active"], state["turn"]) == ("end", 0, 1)
    assert events == [{"type": "discard_owed", "player": 0, "count": 1}]
    state, events = apply(state, act("discard", 0, cards=state["players"][0]["hand"][:1]))
    assert (state["step"], state["active"], state["turn"]) == ("case", 1, 2)
    assert [e["type"] for e in events] == ["discard", "turn_started", "draw"]


def test_6_2_the_reset_step_unactions_the_new_active_players_cases_only():
    """RULES 6.2: turn 2 begins: player 1's actioned cases become unactioned, player 0's stay actioned."""
    p = Position(active=0)
    mine = p.case(0, "AF-042", actioned=True)
    theirs = p.case(1, "AF-043", actioned=True, face_up=True)
    state = p.build()

    after, _ = apply(state, act("end_turn", 0))

    assert after["players"][1]["cases"] == [{"card": theirs, "face_up": True, "actioned": False}]
    assert after["players"][0]["cases"] == [{"card": mine, "face_up": False, "actioned": True}]


def test_6_3_the_draw_step_draws_the_top_card_for_the_new_active_player():
    """RULES 6.3: the referee draws 1 for the player whose turn begins."""
    p = Position(active=0)
    top = p.file(1, "AF-051")
    state = p.build()

    after, events = apply(state, act("end_turn", 0))

    expected = normal(state, applied=1)
    expected["players"][1]["hand"] = [top]
    expected["players"][1]["file"] = state["players"][1]["file"][1:]
    expected.update(turn=2, active=1, step="case", case_played=False)
    assert after == expected
    assert {"type": "draw", "player": 1, "cards": 1} in events


def test_6_3_the_first_player_draws_on_turn_one_too():
    """RULES 6.3: after both keep, the first player holds 8 cards, the second 7."""
    state = started_game()
    assert [len(pl["hand"]) for pl in state["players"]] == [8, 7]


def test_6_3_an_empty_file_at_the_draw_step_loses():
    """RULES 6.3: player 1 must draw from an empty file at the start of turn 2 and loses (11.1)."""
    p = Position(active=0)
    p.file_size(1, 0)
    state = p.build()

    after, events = apply(state, act("end_turn", 0))

    assert after["result"] == {"winner": 0, "reason": "deck_out"}
    assert (after["turn"], after["active"]) == (2, 1)
    assert events[-2:] == [
        {"type": "draw", "player": 1, "cards": 0},
        {"type": "game_over", "winner": 0, "reason": "deck_out"},
    ]


def test_6_4_a_case_is_played_face_down_and_unactioned_and_the_main_step_follows():
    """RULES 6.4: play_case puts the case on the field face down, unactioned; the step becomes main."""
    p = Position(step="case")
    case = p.hand(0, "AF-051")
    state = p.build()

    after, events = apply(state, act("play_case", 0, card=case))

    expected = normal(state, applied=1)
    expected["players"][0]["hand"] = []
    expected["players"][0]["cases"] = [{"card": case, "face_up": False, "actioned": False}]
    expected.update(step="main", case_played=True)
    assert after == expected
    assert events == [{"type": "case_played", "player": 0, "case": case}]


def test_6_4_skipping_the_case_step_changes_nothing_but_the_step():
    """RULES 6.4: skip_case only moves on to the main step."""
    p = Position(step="case")
    p.hand(0, "AF-051")
    state = p.build()

    after, _ = apply(state, act("skip_case", 0))

    expected = normal(state, applied=1)
    expected["step"] = "main"
    assert after == expected


def test_6_4_at_most_one_case_per_turn():
    """RULES 6.4: after the case step a second case is refused."""
    p = Position(step="case")
    first, second = p.hand(0, "AF-051", "AF-042")
    state = p.build()
    state, _ = apply(state, act("play_case", 0, card=first))
    assert_illegal(state, act("play_case", 0, card=second), "6.4", "not_case_step")


def test_6_4_no_case_after_skipping():
    """RULES 6.4: skip ends the case step as well."""
    p = Position(step="case")
    case = p.hand(0, "AF-051")
    state, _ = apply(p.build(), act("skip_case", 0))
    assert_illegal(state, act("play_case", 0, card=case), "6.4", "not_case_step")
    assert_illegal(state, act("skip_case", 0), "6.4", "not_case_step")


def test_6_4_only_a_case_card_is_played_in_the_case_step():
    """RULES 6.4: play_case naming a fairy is refused."""
    p = Position(step="case")
    fairy = p.hand(0, "AF-004")
    state = p.build()
    assert_illegal(state, act("play_case", 0, card=fairy), "6.4", "not_a_case")


def test_6_4_a_negated_case_still_ends_the_case_step():
    """RULES 6.4: 横やり (AF-073) negates the case; the step is main and no second case may follow."""
    p = Position(step="case")
    case, spare = p.hand(0, "AF-051", "AF-042")
    p.case(1, "AF-047")
    butt_in = p.hand(1, "AF-073")
    state = p.build()

    after, _ = run(state, act("play_case", 0, card=case), act("counter", 1, card=butt_in, targets=[]), act("pass", 1))

    assert after["step"] == "main" and after["case_played"]
    assert after["players"][0]["cases"] == [] and after["players"][0]["trash"][-1] == case
    assert_illegal(after, act("play_case", 0, card=spare), "6.4", "not_case_step")


def test_6_5_ending_the_turn_from_the_main_step_passes_it():
    """RULES 6.5: end_turn with 7 cards or fewer goes straight to the opponent's turn."""
    p = Position()
    p.hand(0, *["AF-005"] * 7)
    state = p.build()
    after, _ = apply(state, act("end_turn", 0))
    assert (after["turn"], after["active"], after["step"]) == (2, 1, "case")
    assert len(after["players"][0]["hand"]) == 7


def test_6_5_the_turn_is_not_ended_from_the_case_step():
    """RULES 6.5: end_turn in the case step is refused."""
    state = Position(step="case").build()
    assert_illegal(state, act("end_turn", 0), "6.5", "not_main_step_end")


def test_6_5_the_turn_is_not_ended_while_a_window_is_open():
    """RULES 6.5: the responder's end_turn inside a window is refused (the active player's is 12.1)."""
    p = Position()
    c = p.case(0, "AF-042", actioned=True)
    p.case(1, "AF-047")
    p.hand(1, "AF-074")
    p.pending(act("draw", 0, pay=[c]))
    state = p.build()
    assert_illegal(state, act("end_turn", 1), "6.5", "window_open")
    assert_illegal(state, act("end_turn", 0), "12.1", "responder_acts")


def test_6_6_with_more_than_seven_cards_the_player_owes_exactly_the_excess():
    """RULES 6.6: 9 cards at end_turn: step end, 2 owed; discarding 2 chosen cards passes the turn."""
    p = Position()
    hand = p.hand(0, *["AF-005"] * 9)
    state = p.build()
    state, _ = apply(state, act("end_turn", 0))
    assert (state["step"], state["active"]) == ("end", 0)

    after, events = apply(state, act("discard", 0, cards=[hand[0], hand[4]]))

    assert after["players"][0]["hand"] == [h for h in hand if h not in (hand[0], hand[4])]
    assert after["players"][0]["trash"][-2:] == [hand[0], hand[4]]
    assert (after["turn"], after["active"], after["step"]) == (2, 1, "case")
    assert events[0] == {"type": "discard", "player": 0, "cards": [hand[0], hand[4]]}


def test_6_6_discarding_the_wrong_number_is_refused():
    """RULES 6.6: 2 owed; discarding 1 or 3 is wrong_discard_count."""
    p = Position()
    hand = p.hand(0, *["AF-005"] * 9)
    state, _ = apply(p.build(), act("end_turn", 0))
    assert_illegal(state, act("discard", 0, cards=hand[:1]), "6.6", "wrong_discard_count")
    assert_illegal(state, act("discard", 0, cards=hand[:3]), "6.6", "wrong_discard_count")


def test_6_6_a_card_named_twice_in_a_discard_is_refused():
    """RULES 6.6: the discard names distinct cards."""
    p = Position()
    hand = p.hand(0, *["AF-005"] * 9)
    state, _ = apply(p.build(), act("end_turn", 0))
    assert_illegal(state, act("discard", 0, cards=[hand[0], hand[0]]), "6.6", "duplicate_discard")


def test_6_6_only_the_discard_is_open_in_the_end_step():
    """RULES 6.6: in the end step a draw or a second end_turn is refused with end_step."""
    p = Position()
    p.case(0, "AF-042")
    p.hand(0, *["AF-005"] * 8)
    state, _ = apply(p.build(), act("end_turn", 0))
    assert_illegal(state, act("draw", 0), "6.6", "end_step")
    assert_illegal(state, act("end_turn", 0), "6.6", "end_step")


def test_6_6_no_discard_outside_the_end_step():
    """RULES 6.6: a discard in the main step is refused with not_end_step."""
    p = Position()
    hand = p.hand(0, *["AF-005"] * 9)
    state = p.build()
    assert_illegal(state, act("discard", 0, cards=hand[:2]), "6.6", "not_end_step")


def test_6_6_at_any_other_moment_a_hand_may_hold_any_number_of_cards():
    """RULES 6.6: with 9 cards in the main step, drawing a tenth is legal."""
    p = Position()
    p.case(0, "AF-042")
    p.hand(0, *["AF-005"] * 9)
    state = p.build()
    after, _ = apply(state, act("draw", 0))
    assert len(after["players"][0]["hand"]) == 10 and after["step"] == "main"


def test_6_7_until_end_of_turn_effects_and_once_per_turn_uses_end_when_the_turn_passes():
    """RULES 6.7: modifiers and once-per-turn uses are cleared when turn 2 begins."""
    p = Position()
    fairy = p.fairy(0, "AF-008")
    p.modifier(fairy, 2).used(fairy, 0)
    state = p.build()
    after, _ = apply(state, act("end_turn", 0))
    assert after["modifiers"] == [] and after["used"] == []


def test_6_7_a_card_that_leaves_the_field_comes_back_without_its_effects_but_keeps_its_uses():
    """RULES 6.7 (ruling 2026-12-05): 物知りの妖精 (AF-008) gives itself +2 (once per turn), is bounced by
    追い払い (AF-064) and played again the same turn: it comes back at its printed power, and its
    ability stays used for the turn."""
    p = Position()
    for cid in ("AF-042", "AF-043", "AF-044"):
        p.case(0, cid)
    fairy = p.fairy(0, "AF-008")
    bounce = p.hand(0, "AF-064")
    state = p.build()

    state, _ = apply(state, act("use_ability", 0, card=fairy, ability=0, targets=[]))
    assert state["modifiers"] == [{"card": fairy, "power": 2}]
    after, _ = run(state, act("cast_spell", 0, card=bounce, targets=[fairy]), act("play_fairy", 0, card=fairy))

    assert {"card": fairy, "case": None} in after["players"][0]["fairies"]
    assert after["modifiers"] == []
    assert after["used"] == [{"card": fairy, "ability": 0}]
    assert_illegal(after, act("use_ability", 0, card=fairy, ability=0, targets=[]), "9.1", "ability_used")


def test_6_7_a_card_trashed_and_recovered_keeps_its_once_per_turn_use_recorded():
    """RULES 6.7: a used card that left the field for the trash is still listed in ``used`` (the state
    is consistent, RULES 13.1), so it cannot use the ability again if it comes back this turn."""
    p = Position()
    p.case(0, "AF-042")
    south = p.trash(0, "AF-002")
    p.used(south, 0)
    state = p.build()
    after, _ = apply(state, act("draw", 0))
    assert after["used"] == [{"card": south, "ability": 0}]


def test_6_7_the_cards_own_states_carry_over_to_the_next_turn():
    """RULES 6.7: actioned and face-up cases, dispatched fairies and attached evidence stay as they were."""
    p = Position()
    case = p.case(0, "AF-047", face_up=True, actioned=True)
    theirs = p.case(1, "AF-045", face_up=True, actioned=False)
    fairy = p.fairy(0, "AF-004", on=theirs)
    ev = p.evidence(0, "AF-022", on=case)
    state = p.build()

    after, _ = apply(state, act("end_turn", 0))

    assert after["players"][0]["cases"] == [{"card": case, "face_up": True, "actioned": True}]
    assert after["players"][1]["cases"] == [{"card": theirs, "face_up": True, "actioned": False}]
    assert after["players"][0]["fairies"] == [{"card": fairy, "case": theirs}]
    assert after["players"][0]["evidence"] == [{"card": ev, "case": case}]


def test_6_8_a_fairy_acts_in_the_turn_it_enters_the_field():
    """RULES 6.8: no summoning sickness — play, dispatch and investigate in one turn."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043")
    p.case(0, "AF-044")
    target = p.case(1, "AF-045")  # level 3
    fairy = p.hand(0, "AF-004")  # power 3
    state = p.build()

    _after, events = run(
        state,
        act("play_fairy", 0, card=fairy),
        act("dispatch", 0, fairy=fairy, case=target),
        act("investigate", 0, case=target),
    )

    assert events_of(events, "solved") == [{"type": "solved", "case": target, "by": 0, "hit": 2}]


def test_6_8_any_number_of_cards_of_one_name_may_be_on_the_field():
    """RULES 6.8: no uniqueness rule — a third 西の妖精 joins two on the field."""
    p = Position()
    p.case(0, "AF-042")
    p.fairy(0, "AF-004")
    p.fairy(0, "AF-004")
    third = p.hand(0, "AF-004")
    state = p.build()
    assert_legal(state, act("play_fairy", 0, card=third))
    after, _ = apply(state, act("play_fairy", 0, card=third))
    assert [after["cards"][f["card"]] for f in after["players"][0]["fairies"]] == ["AF-004"] * 3
