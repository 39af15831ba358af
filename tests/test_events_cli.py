"""``referee event new|pair|standings|check``: an event on the command line, JSON and YAML; bad input is one
line ``referee: error: ...`` and exit 2, never a traceback."""

from __future__ import annotations

import json

import pytest
import yaml

from referee.cli import main as referee


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = referee(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def names(tmp_path):
    path = tmp_path / "names.txt"
    path.write_text("Aoi\nRen\n\nMio\nKai\nSora\n", "utf-8")
    return path


def test_an_event_from_names_to_standings(tmp_path, names, capsys) -> None:
    doc = tmp_path / "friday.yaml"
    assert run(capsys, "event", "new", "--players", str(names), "--seed", "s1", "--output", str(doc))[0] == 0
    data = yaml.safe_load(doc.read_text("utf-8"))
    assert [p["id"] for p in data["players"]] == ["Aoi", "Ren", "Mio", "Kai", "Sora"]
    code, out, _ = run(capsys, "event", "pair", str(doc), "--write")
    assert code == 0 and out.startswith("Round 1\n") and "table 1" in out and "bye" in out
    data = yaml.safe_load(doc.read_text("utf-8"))
    for pairing in data["rounds"][0]["pairings"]:
        if "players" in pairing:
            pairing["result"] = {"games": [2, 1]}
    doc.write_text(yaml.safe_dump(data), "utf-8")
    code, out, _ = run(capsys, "event", "standings", str(doc))
    lines = out.splitlines()
    assert code == 0 and lines[0].split() == ["#", "player", "points", "record", "OMW", "GW", "OGW", "rating"]
    assert len(lines) == 6 and lines[1].split()[2] == "3"
    code, out, _ = run(capsys, "event", "standings", str(doc), "--json")
    assert code == 0 and json.loads(out)["standings"][0]["rank"] == 1
    assert run(capsys, "event", "check", str(doc)) == (0, f"{doc}: ok\n", "")


def test_json_in_and_the_whole_answer_out(tmp_path, names, capsys) -> None:
    doc = tmp_path / "event.json"
    run(capsys, "event", "new", "--players", str(names), "--seed", "s", "--cut", "4", "--output", str(doc))
    code, out, _ = run(capsys, "event", "pair", str(doc), "--json")
    answer = json.loads(out)
    assert code == 0 and answer["round"] == 1 and answer["event"]["cut"] == 4


def test_a_broken_rule_is_exit_1_naming_rule_round_and_table(tmp_path, capsys) -> None:
    doc = tmp_path / "event.json"
    doc.write_text(
        json.dumps(
            {"seed": "s", "best_of": 3, "players": [{"id": "a"}, {"id": "b"}],
             "rounds": [{"pairings": [{"players": ["a", "b"], "result": {"games": [1, 1]}}]}]}
        ),
        "utf-8",
    )  # fmt: skip
    code, out, _ = run(capsys, "event", "check", str(doc))
    assert code == 1
    assert out == f"{doc}: round 1 table 1: RULES 15.2 (not_a_match_score): 1–1 is not a match score in best of 3.\n"
    code, _, err = run(capsys, "event", "pair", str(doc))
    assert code == 2 and err.startswith(f"referee: error: {doc}: round 1 table 1: RULES 15.2") and err.count("\n") == 1


BAD = {
    "missing": (None, "cannot read"),
    "not JSON": (b'{"seed": ', "not JSON"),
    "not YAML": (b"seed: [\n", "event.yaml:"),
    "not an event": (b'{"seed": "s", "best_of": 2, "players": [], "rounds": []}', "not an event: best_of"),
    "a list": (b"[1, 2]", "not an event: _schema"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("action", ["pair", "standings", "check"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, kind, action) -> None:
    content, words = BAD[kind]
    path = tmp_path / ("event.yaml" if kind == "not YAML" else "event.json")
    if content is not None:
        path.write_bytes(content)
    code, out, err = run(capsys, "event", action, str(path))
    assert code == 2 and out == ""
    assert err.startswith("referee: error: ") and err.count("\n") == 1 and words in err, err
    assert "Traceback" not in err


def test_new_refuses_duplicate_names_in_one_line(tmp_path, capsys) -> None:
    names = tmp_path / "names.txt"
    names.write_text("Aoi\nAoi\n", "utf-8")
    code, _, err = run(capsys, "event", "new", "--players", str(names), "--seed", "s")
    assert code == 2 and "Duplicate player id" in err and err.count("\n") == 1
