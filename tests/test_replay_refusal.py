"""A refused /v1/replay is worded from the state its actions reached, not by replaying them again
(issue 39): each action is applied once, and the refusal names cards as they were then."""

from __future__ import annotations

import sys
from typing import Any

from referee.engine import pipeline, replay
from referee.engine.playout import play_out


def steps_taken(run: Any) -> int:
    """How many times the rules' pipeline ran (``pipeline.step``): counted, not timed."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call" and frame.f_code is pipeline.step.__code__:
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
    steps = steps_taken(lambda: answers.append(client.post("/v1/replay", json={"game": game, "actions": [*actions, wrong]})))
    answer = answers[0]
    assert answer.status_code == 422, answer.get_json()
    assert answer.get_json()["index"] == len(actions)
    assert steps == len(actions) + 1
    reached, _ = replay(catalog, actions, game=game)
    alone = client.post("/v1/replay", json={"state": reached, "actions": [wrong]}).get_json()
    assert answer.get_json()["detail"] == alone["detail"], (answer.get_json(), alone)
