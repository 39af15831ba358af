"""The shipped examples: one scenario file (at least) for every rule id of the rules reference, all run
through ``referee check`` (the command's entry point, in-process), so they can never rot; the event rules
(RULES 15), which no game scenario can show, have an event document each, run through ``referee event
check``."""

from __future__ import annotations

import re
from pathlib import Path

from referee.cli import main as referee
from referee.engine.rules_index import rule_ids
from referee.scenarios.model import load

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "scenarios"
EVENT_EXAMPLES = EXAMPLES.parent / "events"
EVENT_RULES = "15."  # RULES 15: events, shown by event documents
NAME = re.compile(r"^(?P<rule>\d+(?:\.\d+)+)-[a-z0-9]+(?:-[a-z0-9]+)*\.yaml$")


def test_every_example_passes_through_referee_check(capsys):
    code = referee(["check", str(EXAMPLES)])
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert code == 0, out
    assert re.fullmatch(r"\d+ passed, 0 failed", lines[-1]), lines[-1]
    assert not [line for line in lines[:-1] if not line.startswith("ok   ")]


def test_every_rule_id_has_an_example():
    files = sorted(EXAMPLES.glob("*.yaml"))
    covered = {NAME.match(f.name)["rule"] for f in files if NAME.match(f.name)}
    missing = [r for r in rule_ids() if r not in covered and not r.startswith(EVENT_RULES)]
    assert not missing, f"rule ids without examples/scenarios/<id>-<slug>.yaml: {missing}"


def test_every_event_rule_has_an_event_document_that_passes_referee_event_check(capsys):
    files = sorted(EVENT_EXAMPLES.iterdir())
    covered = {NAME.match(f.name)["rule"] for f in files if NAME.match(f.name)}
    missing = [r for r in rule_ids() if r.startswith(EVENT_RULES) and r not in covered]
    assert not missing, f"event rule ids without examples/events/<id>-<slug>.yaml: {missing}"
    for path in files:
        match = NAME.match(path.name)
        assert match and match["rule"].startswith(EVENT_RULES), f"{path.name}: name it <15.x>-<words>.yaml"
        assert path.read_text("utf-8").startswith(f"# RULES {match['rule']}"), f"{path.name}: cite its rule"
        assert referee(["event", "check", str(path)]) == 0, capsys.readouterr().out


def test_example_files_are_named_by_their_rule_and_set_it():
    known = set(rule_ids())
    for path in sorted(EXAMPLES.iterdir()):
        match = NAME.match(path.name)
        assert match, f"{path.name}: name it <rule id>-<words-with-dashes>.yaml"
        assert match["rule"] in known, f"{path.name}: {match['rule']} is not a rule id"
        for sc in load(path):
            assert sc.rule == match["rule"], f"{sc.label}: rule {sc.rule!r}, file says {match['rule']}"
            assert sc.name and sc.name != path.stem, f"{sc.label}: give the scenario a name"
        assert path.read_text("utf-8").startswith("# RULES "), f"{path.name}: start with a comment citing the rule"
