"""RULES 5: setup — deck checks, the seeded shuffle, the first player, the opening hands, mulligans."""

from __future__ import annotations

from collections import Counter

import pytest

from referee import engine
from referee.engine import IllegalDeck

from .positions import CAT, act, apply, assert_illegal, legal_deck, new_game, run, started_game


def test_5_1_decks_are_checked_before_anything_is_dealt():
    """RULES 5.1: an illegal deck stops the game before shuffling or dealing."""
    with pytest.raises(IllegalDeck) as caught:
        engine.new_game(CAT, {"decks": [legal_deck()[:39], legal_deck()], "seed": "s"})
    assert (caught.value.rule, caught.value.code) == ("3.1", "deck_size")


def test_5_1_shuffling_makes_each_file_a_permutation_of_its_deck():
    """RULES 5.1: with shuffle on, the dealt cards are the deck's cards in another order."""
    shuffled, _ = engine.new_game(CAT, {"decks": [legal_deck(), legal_deck()], "seed": "shuffle-me", "first_player": 0})
    for pl in shuffled["players"]:
        order = [shuffled["cards"][i] for i in pl["hand"] + pl["file"]]
        assert Counter(order) == Counter(legal_deck())
    orders = [[shuffled["cards"][i] for i in pl["hand"] + pl["file"]] for pl in shuffled["players"]]
    assert orders[0] != legal_deck() and orders[1] != legal_deck() and orders[0] != orders[1]


def test_5_1_the_same_seed_shuffles_the_same_way():
    """RULES 5.1 (and docs/api.md §9): the shuffle draws only on the seed."""
    game = {"decks": [legal_deck(), legal_deck()], "seed": "same"}
    assert engine.new_game(CAT, game) == engine.new_game(CAT, game)


def test_5_2_the_first_player_is_the_one_the_request_names():
    """RULES 5.2: first_player 1 makes player 1 decide first and play turn 1."""
    state, _ = new_game(first_player=1)
    assert (state["first_player"], state["active"]) == (1, 1)


def test_5_2_without_a_named_first_player_the_seed_chooses():
    """RULES 5.2: no first_player → chosen from the seed: stable per seed, and both players come up."""
    firsts = []
    for n in range(16):
        state, _ = new_game(first_player=None, seed=f"who-{n}")
        again, _ = new_game(first_player=None, seed=f"who-{n}")
        assert state["first_player"] == again["first_player"] == state["active"]
        firsts.append(state["first_player"])
    assert set(firsts) == {0, 1}


def test_5_3_each_player_draws_seven():
    """RULES 5.3: unshuffled, each hand is the top 7 of its deck and 33 cards stay in the file."""
    state, events = new_game()
    for pl in state["players"]:
        assert [state["cards"][i] for i in pl["hand"]] == legal_deck()[:7]
        assert len(pl["file"]) == 33
    assert [e for e in events if e["type"] == "draw"] == [
        {"type": "draw", "player": 0, "cards": 7},
        {"type": "draw", "player": 1, "cards": 7},
    ]
    assert state["phase"] == "mulligan" and state["turn"] == 0


def test_5_4_a_mulligan_trashes_the_whole_hand_and_draws_seven():
    """RULES 5.4: the 7 cards go to the trash; the next 7 of the file come to hand."""
    state, _ = new_game()
    hand = list(state["players"][0]["hand"])
    next_seven = state["players"][0]["file"][:7]

    after, _ = apply(state, act("mulligan", 0))

    pl = after["players"][0]
    assert pl["trash"] == hand
    assert pl["hand"] == next_seven
    assert len(pl["file"]) == 26
    assert after["active"] == 0 and not pl["kept"]


def test_5_4_a_player_may_mulligan_any_number_of_times_then_keep():
    """RULES 5.4: three mulligans in a row, then keep."""
    state, _ = new_game()
    state, _ = run(state, act("mulligan", 0), act("mulligan", 0), act("mulligan", 0), act("keep", 0))
    assert len(state["players"][0]["trash"]) == 21
    assert state["players"][0]["kept"] and state["active"] == 1


def test_5_4_the_first_player_decides_first():
    """RULES 5.4: the second player's mulligan before the first player kept is refused (12.2)."""
    state, _ = new_game(first_player=1)
    assert_illegal(state, act("mulligan", 0), "12.2", "not_your_turn")
    assert_illegal(state, act("keep", 0), "12.2", "not_your_turn")


def test_5_4_after_the_first_player_keeps_the_second_decides():
    """RULES 5.4: once the first player keeps, the second player may mulligan."""
    state, _ = new_game(first_player=1)
    state, _ = apply(state, act("keep", 1))
    assert state["active"] == 0 and state["phase"] == "mulligan"
    after, _ = apply(state, act("mulligan", 0))
    assert len(after["players"][0]["trash"]) == 7


def test_5_4_mulligan_and_keep_belong_to_the_mulligan_phase():
    """RULES 5.4: a mulligan in turn 1 is refused."""
    state = started_game()
    assert_illegal(state, act("mulligan", 0), "5.4", "not_mulligan_phase")
    assert_illegal(state, act("keep", 0), "5.4", "not_mulligan_phase")


def test_5_4_in_the_mulligan_phase_only_mulligan_or_keep():
    """RULES 5.4: the deciding player's draw or case in the mulligan phase is refused."""
    state, _ = new_game()
    assert_illegal(state, act("draw", 0), "5.4", "mulligan_phase")
    assert_illegal(state, act("skip_case", 0), "5.4", "mulligan_phase")
    assert_illegal(state, act("end_turn", 0), "5.4", "mulligan_phase")


def test_5_5_a_mulligan_that_cannot_draw_seven_loses():
    """RULES 5.5: after four mulligans 5 cards remain; the fifth mulligan trashes the hand, draws 5 and loses."""
    state, _ = new_game()
    state, _ = run(state, *[act("mulligan", 0)] * 4)
    assert len(state["players"][0]["file"]) == 5

    after, events = apply(state, act("mulligan", 0))

    assert after["phase"] == "over"
    assert after["result"] == {"winner": 1, "reason": "deck_out"}
    assert after["players"][0]["file"] == [] and len(after["players"][0]["hand"]) == 5
    assert len(after["players"][0]["trash"]) == 35
    assert [e["type"] for e in events] == ["mulligan", "draw", "game_over"]
    assert events[1] == {"type": "draw", "player": 0, "cards": 5}


def test_5_5_a_mulligan_with_exactly_seven_left_does_not_lose():
    """RULES 5.5: the loss is only for a mulligan that cannot draw all 7."""
    state, _ = new_game()
    state, _ = run(state, *[act("mulligan", 0)] * 3)  # 12 left
    state["players"][0]["trash"] += state["players"][0]["file"][:5]
    del state["players"][0]["file"][:5]  # 7 left (a consistent hand-made position)

    after, _ = apply(state, act("mulligan", 0))

    assert after["phase"] == "mulligan" and after["players"][0]["file"] == []
    assert len(after["players"][0]["hand"]) == 7


def test_5_6_when_both_kept_turn_one_begins_with_the_first_players_draw():
    """RULES 5.6: keep, keep → turn 1 of the first player, who drew (6.3) and is in the case step."""
    state, _ = new_game(first_player=1)
    top = state["players"][1]["file"][0]

    after, events = run(state, act("keep", 1), act("keep", 0))

    assert (after["phase"], after["turn"], after["active"], after["step"]) == ("turn", 1, 1, "case")
    assert after["players"][1]["hand"][-1] == top and len(after["players"][1]["hand"]) == 8
    assert len(after["players"][0]["hand"]) == 7
    assert [e["type"] for e in events] == ["keep", "keep", "turn_started", "draw"]
