"""Golden counts (docs/perft.md): the published table recomputed on its positions, where that is quick."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from referee.cli import main as referee
from referee.engine import Catalog, Session
from referee.engine.perft import divide, opening, perft
from referee.engine.records import read

ROOT = Path(__file__).resolve().parents[1]
CATALOG = Catalog.builtin()
QUICK = {"opening": 10, "window": 10, "targets": 4}  # the deepest row of each recomputed here


def table() -> list[tuple[str, int, int]]:
    doc = (ROOT / "docs" / "perft.md").read_text("utf-8")
    body = doc[doc.index("<!-- perft counts") : doc.index("<!-- /perft counts")]
    return [(m[1], int(m[2]), int(m[3])) for m in re.finditer(r"^\| (\w+) \| (\d+) \| (\d+) \|$", body, re.M)]


def position(name: str) -> dict:
    record = read((ROOT / "examples" / "perft" / f"{name}.afr").read_text("utf-8"))
    session = Session.new(CATALOG, record.new_game(CATALOG))[0]
    session.replay(record.actions)
    return session.state


@pytest.mark.parametrize(("name", "depth", "count"), [row for row in table() if row[1] <= QUICK[row[0]]])
def test_the_published_count_is_the_engines(name, depth, count):
    assert perft(CATALOG, position(name), depth) == count


def test_the_table_has_the_three_positions_and_the_default_is_the_opening():
    assert {name for name, _, _ in table()} == set(QUICK)
    assert opening(CATALOG) == position("opening")
    window = position("window")
    assert window["pending"] is not None and window["options"]["response_windows"] == "strict"
    assert sum(1 for a in Session(CATALOG, position("targets")).legal_actions() if a.get("targets")) >= 40


def test_divide_adds_up_to_the_count_and_depth_zero_is_one():
    state = position("window")
    assert sum(n for _, n in divide(CATALOG, state, 3)) == perft(CATALOG, state, 3)
    assert perft(CATALOG, state, 0) == 1


def test_the_command_prints_the_count(capsys):
    assert referee(["perft", "--depth", "4", "--position", str(ROOT / "examples" / "perft" / "window.afr")]) == 0
    assert capsys.readouterr().out.startswith("depth 4: 11 sequences (")
    assert referee(["perft", "--depth", "-1"]) == 2
    assert "--depth must be 0 to 64" in capsys.readouterr().err


def test_the_command_says_why_a_finished_game_has_no_sequence(tmp_path, capsys):
    """RULES 11.3: after the end no action is legal, and the count of 0 says so."""
    from referee.engine.perft import opening_game

    body = {"game": opening_game(CATALOG), "actions": [{"type": "concede", "player": 0}]}
    path = tmp_path / "over.json"
    path.write_text(json.dumps(body), "utf-8")
    assert referee(["perft", "--depth", "5", "--position", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("depth 5: 0 sequences (")
    assert out[1].startswith("the game is over (player 1 won, concede): no action is legal after the end (RULES 11.3)")
