"""The table's event log in words (referee/service/table/i18n.js, changes.js), run by Node on the
page's own modules: cards by name (never an instance id), and the moves a page follows (views, not
events) told in the referee's vocabulary, naming no card the viewer may not see."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

TABLE = ROOT / "referee" / "service" / "table"
NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="nodejs is not installed (apt-get install nodejs)")


def run(script: str):
    """Run an ES module ``script`` (the table's modules imported as i18n and changes); its printed JSON."""
    prelude = (
        f'import * as i18n from "{(TABLE / "i18n.js").as_uri()}";\n'
        f'import * as changes from "{(TABLE / "changes.js").as_uri()}";\n'
    )
    out = subprocess.run(
        [NODE, "--input-type=module", "-e", prelude + script], capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


NAMES = """const names = {a89f2fc: "Butting In", b000001: "The Graffiti Fuss"};
const name = (iid, cid) => names[iid] || cid || "a hidden card";
const who = (p) => ["Aoi", "Ren"][p];
const text = (lang, ev, known) => i18n.eventText(lang, ev, name, who, (t) => t, known);
"""


def test_a_negated_action_names_the_counter_not_its_instance_id():
    said = run(
        NAMES
        + """console.log(JSON.stringify([
  text("en", {type: "negated", action: "play_case", by: "a89f2fc"}),
  text("en", {type: "solved", case: "b000001", by: 1, hit: 1}),
  text("en", {type: "draw", player: 1, cards: 2}),
  text("en", {type: "case_played", player: 1, case: "b000001"}, () => false),
]));"""
    )
    assert said == [
        "play_case is negated by Butting In.",
        "The Graffiti Fuss is solved by Ren: 1 card(s) hit.",
        "Ren draws 2 cards.",
        "Ren plays a case face down.",
    ]


def view(**players) -> dict:
    base = {"name": "", "file": 30, "hand": [], "trash": [], "cases": [], "fairies": [], "evidence": [], "kept": True}
    return {
        "seq": 5,
        "turn": 3,
        "phase": "turn",
        "step": "main",
        "active": 1,
        "pending": None,
        "result": None,
        "cards": {},
        "viewer": 0,
        "players": [{**base, **players.get("p0", {})}, {**base, **players.get("p1", {})}],
    }


def test_a_followed_move_is_told_from_the_two_views_and_names_nothing_hidden():
    before = view(p1={"hand": ["b1", "b2"], "file": 30})
    after = view(p1={"hand": ["b2", "b3"], "file": 29, "fairies": [{"card": "b1", "case": None}]})
    after["seq"] = 7
    after["cards"] = {"b1": "AF-004"}
    events = run(f"console.log(JSON.stringify(changes.changesBetween({json.dumps(before)}, {json.dumps(after)})));")
    assert [e["type"] for e in events] == ["fairy_played", "draw"]
    assert events[1]["cards"] == 1  # b3 is in Ren's hand: counted, not named
    assert all(e["seen"] for e in events)
