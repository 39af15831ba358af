"""RULES 12: who may act — the deciding player, the active player, the responder; cards one has."""

from __future__ import annotations

from .positions import Position, act, apply, assert_illegal, legal, new_game

# -- 12.1 -----------------------------------------------------------------------------------


def test_12_1_in_the_mulligan_phase_only_the_deciding_player_acts():
    """RULES 12.1: player 1 may not keep while player 0 decides (12.2's violation)."""
    state, _ = new_game(first_player=0)
    assert_illegal(state, act("keep", 1), "12.2", "not_your_turn")
    assert {a["type"] for a in legal(state, 1)} == {"concede"}
    assert {a["type"] for a in legal(state, 0)} == {"mulligan", "keep", "concede"}


def test_12_1_in_a_turn_only_the_active_player_acts():
    """RULES 12.1: outside a window player 1 lists only concede in player 0's turn."""
    p = Position()
    p.case(1, "AF-042")
    p.hand(1, "AF-004")
    state = p.build()
    assert legal(state, 1) == [act("concede", 1)]


def test_12_1_inside_a_response_window_only_the_opponent_acts():
    """RULES 12.1: with a window open, the active player's draw or end_turn is responder_acts."""
    p = Position()
    c = p.case(0, "AF-042", actioned=True)
    p.case(0, "AF-043")
    p.case(1, "AF-044")
    p.hand(1, "AF-074")
    p.pending(act("draw", 0, pay=[c]))
    state = p.build()
    v = assert_illegal(state, act("draw", 0), "12.1", "responder_acts")
    assert v.params == {"actor": 1}
    assert_illegal(state, act("end_turn", 0), "12.1", "responder_acts")
    assert {a["type"] for a in legal(state, 0)} == {"concede"}


def test_12_1_concede_is_open_to_both_players():
    """RULES 12.1: both players' concede is listed wherever a turn stands."""
    state, _ = new_game()
    assert act("concede", 0) in legal(state) and act("concede", 1) in legal(state)


# -- 12.2 -----------------------------------------------------------------------------------


def test_12_2_an_action_from_a_player_who_may_not_act_is_illegal():
    """RULES 12.2: player 1 drawing, skipping or ending player 0's turn is not_your_turn."""
    p = Position()
    p.case(1, "AF-042")
    state = p.build()
    v = assert_illegal(state, act("draw", 1), "12.2", "not_your_turn")
    assert v.params == {"player": 1, "actor": 0}
    assert_illegal(state, act("end_turn", 1), "12.2", "not_your_turn")


def test_12_2_the_waiting_player_cannot_play_a_counter_without_a_window():
    """RULES 12.2: a counter from the non-active player with no window open is not_your_turn."""
    p = Position()
    p.case(1, "AF-042")
    counter = p.hand(1, "AF-070")
    state = p.build()
    assert_illegal(state, act("counter", 1, card=counter, targets=[]), "12.2", "not_your_turn")


def test_12_2_in_the_case_step_of_turn_two_player_zero_waits():
    """RULES 12.2: in player 1's turn, player 0's skip_case is refused."""
    state = Position(active=1, step="case").build()
    assert_illegal(state, act("skip_case", 0), "12.2", "not_your_turn")
    after, _ = apply(state, act("skip_case", 1))
    assert after["step"] == "main"


# -- 12.3 -----------------------------------------------------------------------------------


def test_12_3_a_card_not_in_the_players_hand_is_not_available():
    """RULES 12.3: playing a fairy that is in the file, in the trash, or in the opponent's hand."""
    p = Position()
    p.case(0, "AF-042")
    in_file = p.file(0, "AF-004")
    in_trash = p.trash(0, "AF-004")
    theirs = p.hand(1, "AF-004")
    state = p.build()
    for card in (in_file, in_trash, theirs):
        v = assert_illegal(state, act("play_fairy", 0, card=card), "12.3", "card_not_available")
        assert v.params == {"player": 0, "card": card, "where": "in hand"}


def test_12_3_an_unknown_id_is_not_available():
    """RULES 12.3: an id that names no card."""
    p = Position()
    p.case(0, "AF-042")
    state = p.build()
    assert_illegal(state, act("play_fairy", 0, card="nope"), "12.3", "card_not_available")
    assert_illegal(state, act("investigate", 0, case="nope"), "12.3", "no_such_case")


def test_12_3_the_opponents_fairy_is_not_the_players_to_move():
    """RULES 12.3: dispatching or recalling the opponent's fairy is card_not_available."""
    p = Position()
    case = p.case(0, "AF-042")
    standby = p.fairy(1, "AF-004")
    out = p.fairy(1, "AF-005", on=case)
    state = p.build()
    assert_illegal(state, act("dispatch", 0, fairy=standby, case=case), "12.3", "card_not_available")
    assert_illegal(state, act("recall", 0, fairy=out), "12.3", "card_not_available")


def test_12_3_a_dispatch_to_a_case_not_in_play_is_refused():
    """RULES 12.3: the case the action names must be on the field."""
    p = Position()
    p.case(0, "AF-042")
    fairy = p.fairy(0, "AF-004")
    hand_case = p.hand(1, "AF-043")
    state = p.build()
    v = assert_illegal(state, act("dispatch", 0, fairy=fairy, case=hand_case), "12.3", "no_such_case")
    assert v.params == {"case": hand_case}


def test_12_3_a_discard_of_a_card_not_in_hand_is_refused():
    """RULES 12.3: the end step's discard names cards of the hand."""
    p = Position()
    p.hand(0, *["AF-005"] * 8)
    elsewhere = p.trash(0, "AF-005")
    state, _ = apply(p.build(), act("end_turn", 0))
    assert_illegal(state, act("discard", 0, cards=[elsewhere]), "12.3", "card_not_available")


def test_12_3_a_counter_not_in_the_responders_hand_is_refused():
    """RULES 12.3: the responder names a counter from their trash."""
    p = Position()
    c = p.case(0, "AF-042", actioned=True)
    p.case(1, "AF-043")
    p.hand(1, "AF-074")
    used = p.trash(1, "AF-074")
    p.pending(act("draw", 0, pay=[c]))
    state = p.build()
    assert_illegal(state, act("counter", 1, card=used, targets=[]), "12.3", "card_not_available")
