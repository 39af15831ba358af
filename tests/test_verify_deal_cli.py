"""``referee verify-deal REVEALED.json``: a revealed private game's deal checks, a tampered one
fails with one clear line and exit 1, an unreadable file exits 2, never a traceback."""

from __future__ import annotations

import json

import pytest
from test_fair_play_engine import finished_private_game, tampered

from referee.cli import main
from referee.engine.fair_deal import commitment


@pytest.fixture(scope="module")
def game(catalog, new_game_body):
    return finished_private_game(catalog, new_game_body, rounds=80)


def write(tmp_path, doc) -> str:
    path = tmp_path / "revealed.json"
    path.write_text(json.dumps(doc), "utf-8")
    return str(path)


def test_a_revealed_game_verifies_and_its_first_state_is_written(tmp_path, capsys, game):
    first, last = game
    out = tmp_path / "first.json"
    code = main(
        ["verify-deal", write(tmp_path, {"state": last}), "--commitment", commitment(first["seed"]), "--out", str(out)]
    )
    assert code == 0
    assert capsys.readouterr().out.startswith("deal verified: seed commitment " + commitment(first["seed"]))
    assert json.loads(out.read_text("utf-8")) == first


@pytest.mark.parametrize("how", ["seed", "cards", "file"])
def test_a_tampered_reveal_fails_in_one_line(tmp_path, capsys, game, how):
    code = main(["verify-deal", write(tmp_path, {"state": tampered(game[1], how)})])
    err = capsys.readouterr().err
    assert code == 1 and "FAILED" in err and err.strip().count("\n") == 0


def test_a_wrong_commitment_fails(tmp_path, capsys, game):
    code = main(["verify-deal", write(tmp_path, game[1]), "--commitment", commitment("other")])
    assert code == 1 and "does not match the commitment" in capsys.readouterr().err


@pytest.mark.parametrize("content", ["not json", "[1, 2]", '{"state": 3}', '{"seed": "x", "phase": "over"}'])
def test_a_file_that_is_not_a_revealed_state_is_an_error_not_a_traceback(tmp_path, capsys, content):
    path = tmp_path / "bad.json"
    path.write_text(content, "utf-8")
    code = main(["verify-deal", str(path)])
    err = capsys.readouterr().err
    assert code in (1, 2) and "Traceback" not in err and err.strip().count("\n") == 0


def test_a_missing_file_exits_2(tmp_path, capsys):
    assert main(["verify-deal", str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
