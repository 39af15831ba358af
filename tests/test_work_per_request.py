"""Work per request, counted (issue 39): a refused /v1/replay is worded from the state its actions
reached, not by replaying them again; /v1/legal-actions with labels reads the cards in play once per
player, not once per action."""

from __future__ import annotations

import sys
from typing import Any

from referee.engine import legal_actions, pipeline, replay
from referee.engine.board import Board
from referee.engine.labels import Namer, label
from referee.engine.playout import play_out
from referee.engine.state import check_state


def calls_of(code: Any, run: Any) -> int:
    """How many times the function of ``code`` ran during ``run()``: counted, not timed."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call" and frame.f_code is code:
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def test_a_replay_refused_at_its_last_action_applies_each_action_once(client, catalog):
    """Given a random game's first 60 actions and then one by the player who may not act, when replayed,
    then 422 at index 60, worded as a refusal in the state reached (names and all), after 61 runs of the pipeline (not 121)."""
    game, _, actions = play_out(catalog, "replay-refusal", max_actions=60)
    game = {**game, "players": ["Aoi", "Ren"]}
    wrong = {"type": "end_turn", "player": 1 - actions[-1]["player"]}
    answers: list[Any] = []
    steps = calls_of(
        pipeline.step.__code__,
        lambda: answers.append(client.post("/v1/replay", json={"game": game, "actions": [*actions, wrong]})),
    )
    answer = answers[0]
    assert answer.status_code == 422, answer.get_json()
    assert answer.get_json()["index"] == len(actions)
    assert steps == len(actions) + 1
    reached, _ = replay(catalog, actions, game=game)
    alone = client.post("/v1/replay", json={"state": reached, "actions": [wrong]}).get_json()
    assert answer.get_json()["detail"] == alone["detail"], (answer.get_json(), alone)


def test_labels_read_the_cards_in_play_once_per_player_and_word_each_action_as_alone(client, catalog, positions):
    """Given the position of a game with the most legal actions, when /v1/legal-actions is asked with
    labels, then one Namer is made (not one per action), and each label is the one the action gets
    labelled alone."""
    state = max((s for s, _ in positions), key=lambda s: len(legal_actions(catalog, s)))
    actions = legal_actions(catalog, state)
    assert len(actions) > 20
    answers: list[Any] = []
    made = calls_of(
        Namer.__init__.__code__,
        lambda: answers.append(client.post("/v1/legal-actions", json={"state": state, "labels": True})),
    )
    assert answers[0].status_code == 200
    assert made <= 2
    g = Board(catalog, check_state(catalog, state))
    assert [a["label"] for a in answers[0].get_json()["actions"]] == [label(g, a) for a in actions]
