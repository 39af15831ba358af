"""``referee replay FILE``: a recorded game checked end to end; the first illegal action with its index and rule."""

from __future__ import annotations

import json

import pytest

from referee.cli import main as referee
from referee.engine import Catalog
from referee.engine.playout import play_out


@pytest.fixture(scope="module")
def recorded():
    game, state, actions = play_out(Catalog.builtin(), "replay-1")
    return game, state, actions


def replay(capsys, *args: str) -> tuple[int, str]:
    code = referee(["replay", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out + err


def test_a_legal_game(tmp_path, capsys, recorded):
    game, state, actions = recorded
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"game": game, "actions": actions}))
    final = tmp_path / "final.json"
    code, out = replay(capsys, str(path), "--out", str(final))
    assert code == 0
    winner = state["players"][state["result"]["winner"]]["name"]  # named as the table names the players
    assert f"all {len(actions)} action(s) legal; game over: {winner} wins" in out
    assert json.loads(final.read_text()) == state


def test_the_first_illegal_action(tmp_path, capsys, recorded):
    game, _, actions = recorded
    broken = list(actions)
    broken[5] = {"type": "end_turn", "player": 1 - broken[5]["player"]}
    broken[9] = {"type": "fly", "player": 0}
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"game": game, "actions": broken}, indent=1))
    code, out = replay(capsys, str(path))
    assert code == 1
    assert f"action 5 of {len(actions)} is illegal: rule 12.2 (not_your_turn)" in out
    assert "(line " in out and "5 of" in out


def test_from_a_state_and_from_a_scenario_file(tmp_path, capsys):
    from referee.scenarios.build import build_position

    state = build_position(Catalog.builtin(), {"p0": {"cases": ["AF-043"]}})
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps({"state": state, "actions": [{"type": "draw", "player": 0}, {"type": "draw", "player": 0}]})
    )
    code, out = replay(capsys, str(path))
    assert code == 1 and "action 1 of 2 is illegal: rule 7.2 (cannot_pay)" in out
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "given: {position: {p0: {cases: [AF-043]}}}\n"
        "when: [{type: draw, player: 0}, {type: end_turn, player: 0}]\n"
        "then: {violation: {rule: '1.1'}}\n"
    )
    code, out = replay(capsys, str(scenario))
    assert code == 0 and "all 2 action(s) legal; game not over: turn 2" in out


def test_malformed_recorded_games(tmp_path, capsys):
    path = tmp_path / "g.json"
    for body, message in [
        ({"actions": []}, "give exactly one of game and state"),
        ({"game": {}, "state": {}, "actions": []}, "give exactly one of game and state"),
        ({"game": {}, "actions": {}}, "actions: must be a list"),
        ({"game": {}, "actions": [], "extra": 1}, "extra: unknown field"),
    ]:
        path.write_text(json.dumps(body))
        code, out = replay(capsys, str(path))
        assert code == 2 and message in out, out
    path.write_text('{"game": ')
    code, out = replay(capsys, str(path))
    assert code == 2 and "not valid YAML" in out
    path.write_text(json.dumps({"game": {"decks": [[], [], []]}, "actions": []}))
    code, out = replay(capsys, str(path))
    assert code == 2 and "the game is refused: error 400 (invalid_schema)" in out
