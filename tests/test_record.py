"""``referee record``: a seeded game written as a scenario pinning the final state (a golden playthrough)."""

from __future__ import annotations

import json

import yaml

from referee.cli import main as referee
from referee.engine import Catalog
from referee.engine.playout import play_out
from referee.scenarios.model import load


def record(tmp_path, capsys, *args: str) -> tuple[int, str, str]:
    code = referee(["record", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_random_game_recorded_then_checked(tmp_path, capsys):
    out_file = tmp_path / "golden.yaml"
    code, _, err = record(tmp_path, capsys, "--seed", "rec-1", "--out", str(out_file))
    assert code == 0 and "game over" in err
    [sc] = load(out_file)
    assert sc.then["phase"] == "over" and sc.then["legal"] is True
    assert all(key in sc.then for key in ("p0.hand", "p1.file", "p0.cases", "p1.fairies", "result", "rng"))
    assert referee(["check", str(out_file)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 passed, 0 failed"


def test_same_seed_same_file_and_the_engines_own_playout(tmp_path, capsys):
    _, first, _ = record(tmp_path, capsys, "--seed", "rec-2")
    _, second, _ = record(tmp_path, capsys, "--seed", "rec-2")
    assert first == second
    game, state, actions = play_out(Catalog.builtin(), "rec-2")
    data = yaml.safe_load(first)
    assert len(data["when"]) == len(actions)
    assert data["then"]["turn"] == state["turn"] and data["then"]["result"] == state["result"]
    assert data["given"]["game"]["decks"] == game["decks"]


def test_max_actions_and_a_changed_rule_shows_up(tmp_path, capsys):
    out_file = tmp_path / "short.yaml"
    assert record(tmp_path, capsys, "--seed", "rec-3", "--max-actions", "12", "--out", str(out_file))[0] == 0
    data = yaml.safe_load(out_file.read_text())
    assert len(data["when"]) == 12 and data["then"]["phase"] == "turn"
    # a golden file fails, with a diff, when the game plays differently
    text = out_file.read_text().replace(f"  turn: {data['then']['turn']}\n", f"  turn: {data['then']['turn'] + 1}\n")
    out_file.write_text(text)
    assert referee(["check", str(out_file)]) == 1
    out = capsys.readouterr().out
    assert "turn (line" in out and f"expected: {data['then']['turn'] + 1}" in out


def test_actions_from_a_file_with_references(tmp_path, capsys):
    actions = tmp_path / "actions.yaml"
    actions.write_text(
        "- {type: keep, player: 0}\n- {type: keep, player: 1}\n- {type: play_case, player: 0, card: p0.hand.AF-043}\n"
    )
    game = tmp_path / "game.yaml"
    game.write_text("decks: [{top: [AF-043, AF-004]}, {top: []}]\n")
    out_file = tmp_path / "rec.yaml"
    code, _, _ = record(
        tmp_path,
        capsys,
        "--seed",
        "x",
        "--game",
        str(game),
        "--actions",
        str(actions),
        "--name",
        "my game",
        "--out",
        str(out_file),
    )
    assert code == 0
    [sc] = load(out_file)
    assert sc.name == "my game"
    assert sc.when[2] == {"type": "play_case", "player": 0, "card": "p0.hand.AF-043"}
    assert sc.then["p0.cases"] == [{"card": "AF-043", "face_up": False, "actioned": False}]
    assert referee(["check", str(out_file)]) == 0


def test_illegal_action_in_the_file(tmp_path, capsys):
    actions = tmp_path / "actions.json"
    actions.write_text(json.dumps({"actions": [{"type": "keep", "player": 0}, {"type": "draw", "player": 0}]}))
    code, _, err = record(tmp_path, capsys, "--seed", "x", "--actions", str(actions))
    assert code == 1
    assert "action 1 is illegal: rule 12.2 (not_your_turn)" in err


def test_malformed_actions_file(tmp_path, capsys):
    actions = tmp_path / "actions.yaml"
    actions.write_text("- {type: keep, player: 0\n")
    code, _, err = record(tmp_path, capsys, "--seed", "x", "--actions", str(actions))
    assert code == 2 and f"{actions}:" in err and "not valid YAML" in err
    actions.write_text("type: keep\n")
    assert record(tmp_path, capsys, "--seed", "x", "--actions", str(actions))[0] == 2
