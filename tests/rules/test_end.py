"""RULES 11: the end of the game — deck-out, concession, after the end, trashing is not losing."""

from __future__ import annotations

import pytest

from .positions import (
    Position,
    act,
    apply,
    assert_illegal,
    legal,
    new_game,
    normal,
    run,
)

# -- 11.1 -----------------------------------------------------------------------------------


def test_11_1_a_required_draw_in_the_draw_step_from_an_empty_file_loses_at_once():
    """RULES 11.1: the draw step (6.3) with an empty file: player 1 loses before the case step."""
    p = Position(active=0)
    p.file_size(1, 0)
    state = p.build()
    after, _ = apply(state, act("end_turn", 0))
    assert (after["phase"], after["result"]) == ("over", {"winner": 0, "reason": "deck_out"})
    assert after["step"] == "main"  # the step the game ended in (docs/state.md)


def test_11_1_a_mulligan_that_cannot_draw_seven_loses_at_once():
    """RULES 11.1: the mulligan's draws (5.5) are required."""
    state, _ = new_game(first_player=1)
    state, _ = run(state, *[act("mulligan", 1)] * 5)
    assert state["result"] == {"winner": 0, "reason": "deck_out"} and state["turn"] == 0


def test_11_1_an_effect_that_makes_a_player_draw_from_an_empty_file_loses_at_once():
    """RULES 11.1: 閃き's draw (9.7) from an empty file ends the game; its later effects do not matter."""
    p = Position()
    p.case(0, "AF-042")
    p.file_size(0, 0)
    spell = p.hand(0, "AF-060")
    state = p.build()
    after, events = apply(state, act("cast_spell", 0, card=spell, targets=[]))
    assert after["result"] == {"winner": 1, "reason": "deck_out"}
    assert events[-1] == {"type": "game_over", "winner": 1, "reason": "deck_out"}


def test_11_1_the_voluntary_draw_action_is_refused_instead_of_losing():
    """RULES 11.1: the draw action (8.2) is not a required draw: an empty file makes it illegal."""
    p = Position()
    p.case(0, "AF-042")
    p.file_size(0, 0)
    assert_illegal(p.build(), act("draw", 0), "8.2", "file_empty")


# -- 11.2 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("who", [0, 1])
def test_11_2_either_player_may_concede_in_a_turn_and_the_opponent_wins(who):
    """RULES 11.2: the active or the waiting player concedes in the main step."""
    state = Position().build()

    after, events = apply(state, act("concede", who))

    expected = normal(state, applied=1)
    expected["phase"] = "over"
    expected["result"] = {"winner": 1 - who, "reason": "concede"}
    assert after == expected
    assert events == [{"type": "game_over", "winner": 1 - who, "reason": "concede"}]


@pytest.mark.parametrize("who", [0, 1])
def test_11_2_either_player_may_concede_inside_a_response_window(who):
    """RULES 11.2: with a window open, both may concede; the window closes with the game."""
    p = Position()
    c = p.case(0, "AF-042", actioned=True)
    p.case(1, "AF-043")
    p.hand(1, "AF-074")
    p.pending(act("draw", 0, pay=[c]))
    state = p.build()
    after, _ = apply(state, act("concede", who))
    assert after["result"] == {"winner": 1 - who, "reason": "concede"} and after["pending"] is None


@pytest.mark.parametrize("who", [0, 1])
def test_11_2_concede_costs_nothing_so_a_pay_list_naming_a_case_breaks_7_3(who):
    """RULES 11.2 (clarified 2026-12-05), 7.3: conceding is a free action; naming a case to pay for it is
    the wrong number of payers, as on any free action, and the game goes on. An empty list is fine."""
    p = Position()
    mine = p.case(who, "AF-042")
    state = p.build()
    v = assert_illegal(state, act("concede", who, pay=[mine]), "7.3", "wrong_pay_count")
    assert v.params == {"cost": 0, "given": 1}
    after, _ = apply(state, act("concede", who, pay=[]))
    assert after["result"] == {"winner": 1 - who, "reason": "concede"}
    assert after["players"][who]["cases"][0]["actioned"] is False


def test_11_2_the_waiting_player_may_concede_in_the_mulligan_phase():
    """RULES 11.2: player 1 concedes while player 0 decides on a mulligan."""
    state, _ = new_game()
    after, _ = apply(state, act("concede", 1))
    assert after["result"] == {"winner": 0, "reason": "concede"} and after["phase"] == "over"


def test_11_2_concede_is_open_in_the_case_and_end_steps():
    """RULES 11.2: at any moment — the case step and the end step too."""
    state = Position(step="case").build()
    assert apply(state, act("concede", 0))[0]["result"]["winner"] == 1
    p = Position()
    p.hand(0, *["AF-005"] * 8)
    state, _ = apply(p.build(), act("end_turn", 0))
    assert state["step"] == "end"
    assert apply(state, act("concede", 1))[0]["result"]["winner"] == 0


# -- 11.3 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "action", [act("draw", 0), act("end_turn", 0), act("concede", 0), act("concede", 1), act("pass", 1), act("keep", 0)]
)
def test_11_3_once_the_game_is_over_no_action_is_legal(action):
    """RULES 11.3: after a concession every action, concede included, is game_over."""
    p = Position()
    p.case(0, "AF-042")
    p.over(winner=1)
    state = p.build()
    assert_illegal(state, action, "11.3", "game_over")


def test_11_3_a_finished_game_lists_no_legal_action():
    """RULES 11.3: legal_actions is empty once the game is over."""
    state, _ = apply(Position().build(), act("concede", 0))
    assert legal(state) == [] and legal(state, 1) == []


# -- 11.4 -----------------------------------------------------------------------------------


def test_11_4_trashing_a_whole_file_does_not_end_the_game():
    """RULES 11.4: いたずら (AF-062, mill 2) empties player 1's 2-card file; the game goes on."""
    p = Position()
    p.case(0, "AF-042")
    p.file_size(1, 2)
    spell = p.hand(0, "AF-062")
    state = p.build()

    after, events = apply(state, act("cast_spell", 0, card=spell, targets=[]))

    assert after["players"][1]["file"] == []
    assert after["phase"] == "turn" and after["result"] is None
    assert events_of_type(events) == ["paid", "spell", "mill"]


def test_11_4_trashing_more_than_the_file_holds_takes_what_is_there():
    """RULES 11.4: mill 2 against 1 card trashes that one; player 1 loses only at their draw step."""
    p = Position()
    p.case(0, "AF-042")
    p.file_size(1, 1)
    spell = p.hand(0, "AF-062")
    state = p.build()
    state, events = apply(state, act("cast_spell", 0, card=spell, targets=[]))
    assert {"type": "mill", "player": 1, "cards": 1} in events and state["result"] is None

    after, _ = apply(state, act("end_turn", 0))

    assert after["result"] == {"winner": 0, "reason": "deck_out"}


def events_of_type(events):
    return [e["type"] for e in events]
