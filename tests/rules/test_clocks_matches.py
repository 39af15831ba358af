"""RULES 11.5 and 12.1 (clocks), and 14 (matches): whose time runs, time out, the claim, a match's games.

The engine keeps no time: each move is given the time it was recorded at (``now``, milliseconds). A game
dealt without a time (the engine's ``new_game``) starts its clock at 0, so ``now`` here is the time since
the deal.
"""

from __future__ import annotations

import copy

import pytest

from referee import engine
from referee.engine.errors import InvalidInput, RuleViolation

from .positions import CAT, Position, act, assert_violation, legal_deck, new_game

CLOCK = {"initial": 600, "increment": 10}
MINUTES_10 = 600_000


def at(state: dict, action: dict, now: int) -> dict:
    """Apply ``action`` recorded at ``now``; the input state must come back untouched."""
    before = copy.deepcopy(state)
    after, _ = engine.apply(CAT, state, action, now)
    assert state == before
    return after


def refused_at(state: dict, action: dict, now: int, rule: str, code: str) -> None:
    """Refused at ``now`` citing ``rule`` and ``code``, nothing changed, validate agrees, not listed (13.3)."""
    before = copy.deepcopy(state)
    with pytest.raises(RuleViolation) as caught:
        engine.apply(CAT, state, action, now)
    assert state == before
    again = engine.validate(CAT, state, action, now)
    assert again is not None and (again.rule, again.code) == (rule, code)
    assert action not in engine.legal_actions(CAT, state, None, now)
    assert_violation(caught.value, rule, code)


def clocked_game(**request) -> dict:
    state, _ = new_game(clock=CLOCK, **request)
    return state


def window_position() -> dict:
    """Player 0's draw waits in a response window (RULES 9.4): player 1 responds; a clock from the deal."""
    p = Position()
    paid = p.case(0, "AF-042", actioned=True)
    p.pending(act("draw", 0, pay=[paid]))
    state = p.build()
    state["clock"] = {**CLOCK, "remaining": [MINUTES_10, MINUTES_10], "started": 0, "last": 0}
    engine.check_state(CAT, state)
    return state


# -- 11.5 ------------------------------------------------------------------------------------


def test_11_5_a_move_charges_the_player_who_may_act_the_time_since_the_last_move_then_the_increment():
    """RULES 11.5: in the mulligan phase the deciding player's time runs (12.1); the move adds the increment."""
    state = clocked_game()
    assert state["clock"]["remaining"] == [MINUTES_10, MINUTES_10] and state["clock"]["last"] == 0
    assert engine.view(CAT, state, 1)["clock"]["running"] == 0  # the first player decides first (5.4)
    state = at(state, act("keep", 0), 5_000)
    assert state["clock"]["remaining"] == [MINUTES_10 - 5_000 + 10_000, MINUTES_10]
    assert state["clock"]["last"] == 5_000
    state = at(state, act("keep", 1), 12_000)  # player 1 decided: 7 s since player 0's move
    assert state["clock"]["remaining"] == [605_000, MINUTES_10 - 7_000 + 10_000]
    view = engine.view(CAT, state, 0)["clock"]
    assert view["running"] == 0 and view["since"] == "1970-01-01T00:00:12.000Z"


def test_11_5_inside_a_response_window_the_responders_time_runs_and_pays():
    """RULES 11.5, 12.1: while a window is open the responder may act, so their time runs."""
    state = window_position()
    assert engine.view(CAT, state, 0)["clock"]["running"] == 1
    after = at(state, act("pass", 1), 30_000)
    assert after["clock"]["remaining"] == [MINUTES_10, MINUTES_10 - 30_000 + 10_000]
    assert engine.view(CAT, after, 0)["clock"]["running"] == 0  # the window closed: the active player's


def test_11_5_a_move_after_the_players_time_ran_out_is_refused_and_changes_nothing():
    """RULES 11.5: a player whose time has run out may take no action but concede."""
    state = clocked_game()
    refused_at(state, act("keep", 0), MINUTES_10, "11.5", "time_out")
    assert engine.validate(CAT, state, act("keep", 0), MINUTES_10 - 1) is None  # a millisecond earlier


def test_11_5_a_player_out_of_time_may_still_concede_and_the_clock_ends_no_game_by_itself():
    """RULES 11.5: until claimed the game goes on; only concede is listed for the player out of time."""
    state = clocked_game()
    late = MINUTES_10 + 60_000
    assert engine.legal_actions(CAT, state, 0, late) == [act("concede", 0)]
    assert state["phase"] == "mulligan"
    after = at(state, act("concede", 0), late)
    assert after["result"] == {"winner": 1, "reason": "concede"}
    assert after["clock"]["remaining"][0] == 0  # charged down to 0, never below


def test_11_5_a_claim_in_a_game_without_a_clock_is_refused():
    """RULES 11.5: only a game with a clock has time to claim."""
    state, _ = new_game()
    refused_at(state, act("claim_time", 1), 10**9, "11.5", "no_clock")


# -- 12.1 ------------------------------------------------------------------------------------


def test_12_1_the_opponent_claims_the_game_once_the_players_time_has_run_out():
    """RULES 12.1 (amended): a time claim is open, at any moment, to the player whose opponent's time ran out."""
    state = clocked_game()
    assert act("claim_time", 1) not in engine.legal_actions(CAT, state, 1, MINUTES_10 - 1)
    assert act("claim_time", 1) in engine.legal_actions(CAT, state, 1, MINUTES_10)
    after = at(state, act("claim_time", 1), MINUTES_10 + 5)
    assert after["result"] == {"winner": 1, "reason": "time"} and after["phase"] == "over"
    assert after["clock"]["remaining"] == [0, MINUTES_10]
    assert engine.view(CAT, after, None)["clock"]["running"] is None
    engine.check_state(CAT, after)  # RULES 13.1: a result on time fits a clock at 0


def test_12_1_a_claim_before_the_opponents_time_ran_out_is_refused():
    """RULES 12.1: neither the player whose time runs nor the opponent before it ran out may claim."""
    state = clocked_game()
    refused_at(state, act("claim_time", 1), MINUTES_10 - 1, "12.1", "time_not_out")
    refused_at(state, act("claim_time", 0), MINUTES_10 * 2, "12.1", "time_not_out")  # their own time


def test_12_1_a_claim_is_open_inside_a_response_window_too():
    """RULES 12.1: "at any moment": the responder's time ran out in a window; the active player claims."""
    state = window_position()
    after = at(state, act("claim_time", 0), MINUTES_10)
    assert after["result"] == {"winner": 0, "reason": "time"}


def test_13_1_a_result_on_time_needs_the_losers_clock_at_0():
    """RULES 13.1: a game over on time whose loser still has time is not a possible position."""
    p = Position().over(1, "time")
    with pytest.raises(InvalidInput, match=r"RULES 11\.5"):
        p.build()


# -- replays: the same moves at the same times give the same clocks (RULES 13.2) ---------------


def test_13_2_a_replay_with_the_recorded_times_charges_exactly_as_the_game_did():
    """RULES 13.2: a clocked game replays its charges from its moves' times, and needs them."""
    game = {"decks": [legal_deck(), legal_deck()], "seed": "t", "first_player": 0, "shuffle": False, "clock": CLOCK}
    state, _ = engine.new_game(CAT, game)
    moves, times = [act("keep", 0), act("keep", 1), act("skip_case", 0)], [3_000, 4_500, 70_000]
    for move, t in zip(moves, times, strict=True):
        state = at(state, move, t)
    replayed, applied = engine.replay(CAT, moves, game=game, times=times)
    assert applied == 3 and replayed["clock"] == state["clock"]
    with pytest.raises(InvalidInput, match="times"):
        engine.replay(CAT, moves, game=game)
    with pytest.raises(engine.ReplayError) as late:
        engine.replay(CAT, moves, game=game, times=[3_000, 4_500, 10**9])
    assert late.value.index == 2 and late.value.code == "time_out"


# -- 14 --------------------------------------------------------------------------------------


def won_by(state: dict, winner: int) -> dict:
    after, _ = engine.apply(CAT, state, act("concede", 1 - winner))
    return after


def test_14_1_a_game_won_counts_for_the_match_and_the_next_game_keeps_decks_names_options_and_clock():
    """RULES 14.1: the same decks, format and clock; a fresh seed; the game's number and the wins carried."""
    first, _ = new_game(match={"best_of": 3}, clock=CLOCK, options={"response_windows": "strict"})
    assert first["match"] == {"best_of": 3, "game": 1, "wins": [0, 0], "winner": None}
    over = won_by(first, 0)
    assert over["match"]["wins"] == [1, 0] and over["match"]["winner"] is None
    request, match = engine.next_game(over, first_player=1, chooser=1)
    assert "seed" not in request and request["first_player"] == 1
    assert request["clock"] == CLOCK and request["options"] == {"response_windows": "strict"}
    second, _ = engine.new_game(CAT, request, match=match)
    assert second["match"] == {"best_of": 3, "game": 2, "wins": [1, 0], "winner": None}
    assert second["seed"] != first["seed"] and second["first_player"] == 1
    for i in (0, 1):
        assert sorted(second["cards"][c] for c in second["players"][i]["file"] + second["players"][i]["hand"]) == (
            sorted(legal_deck())
        )


def test_14_1_the_next_game_of_a_game_not_over_or_not_of_a_match_is_refused():
    """RULES 14.1: a match's next game follows a game of the match that is over."""
    state, _ = new_game(match={"best_of": 3})
    assert_violation(_refusal(state, 0), "14.1", "match_game_not_over")
    plain, _ = new_game()
    assert_violation(_refusal(won_by(plain, 0), 0), "14.1", "not_a_match")


def test_14_2_the_loser_of_the_game_before_chooses_who_plays_first():
    """RULES 14.2: the winner may not choose; the loser may choose either player."""
    over = won_by(new_game(match={"best_of": 3})[0], 1)
    assert_violation(_refusal(over, 0, chooser=1), "14.2", "loser_chooses")
    for first in (0, 1):
        request, _ = engine.next_game(over, first, chooser=0)
        assert request["first_player"] == first


def test_14_3_a_match_ends_once_a_player_has_won_a_majority_and_no_further_game_is_dealt():
    """RULES 14.3: best of 3 ends at 2 wins (the match's winner named); best of 1 at 1."""
    state, _ = new_game(match={"best_of": 3})
    state = won_by(state, 1)
    request, match = engine.next_game(state, 0, chooser=0)
    state = won_by(engine.new_game(CAT, request, match=match)[0], 1)
    assert state["match"] == {"best_of": 3, "game": 2, "wins": [0, 2], "winner": 1}
    engine.check_state(CAT, state)
    assert_violation(_refusal(state, 0, chooser=0), "14.3", "match_over")
    single = won_by(new_game(match={"best_of": 1})[0], 0)
    assert single["match"]["winner"] == 0
    assert_violation(_refusal(single, 1), "14.3", "match_over")


def test_14_1_a_match_needs_best_of_1_3_or_5():
    """RULES 14.1: best of 1, 3 or 5 (400 otherwise)."""
    for bad in ({"best_of": 2}, {"best_of": 3, "game": 2}, 3):
        with pytest.raises(InvalidInput):
            new_game(match=bad)


def test_14_1_a_later_game_is_dealt_as_the_match_stood_when_named_so():
    """RULES 14.1: a NewGame may name a later game with the wins before it (as that game's record does): the
    state carries that match, and the game's win counts for it as any other."""
    state, _ = new_game(match={"best_of": 3, "game": 2, "wins": [0, 1]})
    assert state["match"] == {"best_of": 3, "game": 2, "wins": [0, 1], "winner": None}
    assert won_by(state, 1)["match"] == {"best_of": 3, "game": 2, "wins": [0, 2], "winner": 1}


@pytest.mark.parametrize(
    "match",
    [
        {"best_of": 3, "game": 2, "wins": [1, 1]},  # two games won before the second
        {"best_of": 3, "game": 3, "wins": [2, 0]},  # the match was over (RULES 14.3)
        {"best_of": 3, "game": 4, "wins": [1, 2]},  # no fourth game in a best of 3
        {"best_of": 1, "game": 2, "wins": [0, 1]},
        {"best_of": 3, "game": 2, "wins": [1]},
        {"best_of": 3, "wins": [0, 0], "winner": 1},
    ],
    ids=repr,
)
def test_14_1_a_later_game_no_match_can_reach_is_refused(match):
    """RULES 14.1 and 14.3: the wins add up to the games before, none a majority, the game within best_of."""
    with pytest.raises(InvalidInput) as refused:
        new_game(match=match)
    assert next(iter(refused.value.errors)).startswith("match")


def _refusal(state: dict, first: int, chooser: int | None = None) -> RuleViolation:
    with pytest.raises(RuleViolation) as caught:
        engine.next_game(state, first, chooser)
    return caught.value


# -- 13.1: a clock and a match must agree with the game -----------------------------------------


def test_13_1_a_clock_whose_last_move_is_past_the_states_range_is_refused():
    """RULES 13.1: ``started + last`` is a time RFC 3339 can write (a view shows it), so year 9999 at most."""
    state = clocked_game()
    state["clock"]["started"] = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z
    state["clock"]["last"] = 1
    with pytest.raises(engine.InconsistentState) as caught:
        engine.check_state(CAT, state)
    assert caught.value.code == "inconsistent_clock"


@pytest.mark.parametrize(
    "match",
    [
        {"best_of": 3, "game": 2, "wins": [0, 0], "winner": None},  # game 2 follows one game won
        {"best_of": 3, "game": 1, "wins": [0, 0], "winner": 0},  # nobody has a majority
        {"best_of": 3, "game": 4, "wins": [2, 1], "winner": None},  # past best of 3, past a majority
    ],
)
def test_13_1_a_match_whose_wins_do_not_count_its_games_is_refused(match):
    """RULES 13.1, 14.1, 14.3: the wins count the games before this one; the winner reached a majority."""
    state, _ = new_game(match={"best_of": 3})
    state["match"] = match
    with pytest.raises(engine.InconsistentState) as caught:
        engine.check_state(CAT, state)
    assert caught.value.code == "inconsistent_match"
