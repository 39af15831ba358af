"""referee fuzz: the invariants hold on the built-in catalog, a planted rule bug is found and handed back
as a scenario that referee check fails on, and bad input is one line with exit 2 (each invariant's planted
bug and its scenario: tests/test_invariants.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import local_cluster

import referee
from referee.cli import main

BUILTIN = str(Path(referee.__file__).parent / "data" / "af-ref.yaml")


def plant_dispatch_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """RULES 8.9 broken on purpose: a dispatch no longer checks the room on the case (the listing still does).

    The one place the test reaches past the engine's package face: a rule has to be broken somewhere.
    """
    from referee.engine import RuleViolation
    from referee.engine.rulebook import RULEBOOK

    def own_rule(self, g, a, entry):
        if entry["case"] is not None:
            raise RuleViolation("not_standby", fairy=a["fairy"])

    monkeypatch.setattr(type(RULEBOOK["dispatch"]), "own_rule", own_rule)


def test_given_the_builtin_catalog_when_fuzzed_then_every_invariant_holds_and_it_exits_0(tmp_path, capsys):
    rc = main(["fuzz", BUILTIN, "--games", "3", "--seed", "t", "--json", "--out", str(tmp_path)])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert doc["games"] == 3 and doc["failures"] == [] and doc["actions"] > 0
    assert list(tmp_path.iterdir()) == []


def test_given_a_planted_rule_bug_when_fuzzed_then_exit_1_and_the_scenario_fails_referee_check(
    tmp_path, monkeypatch, capsys
):
    plant_dispatch_bug(monkeypatch)
    rc = main(["fuzz", BUILTIN, "--games", "20", "--seed", "fuzz", "--out", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert rc == 1
    assert "FAIL game" in out and "legal_actions does not list it" in out
    [scenario] = tmp_path.glob("*.yaml")
    assert main(["check", str(scenario)]) == 1
    assert "invariant refusal (line " in capsys.readouterr().out


def test_given_the_planted_bug_the_scenario_stops_at_the_first_failing_step(tmp_path, monkeypatch, capsys):
    import yaml

    plant_dispatch_bug(monkeypatch)
    main(["fuzz", BUILTIN, "--games", "20", "--seed", "fuzz", "--out", str(tmp_path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    [failure] = doc["failures"]
    scenario = yaml.safe_load(next(tmp_path.glob("*.yaml")).read_text())
    assert len(scenario["when"]) == failure["failure"]["step"] == failure["actions"]
    # one action shorter, the game reached is one the fuzzer found nothing wrong with
    shorter = dict(scenario, when=scenario["when"][:-1], then={"legal": True})
    path = tmp_path / "shorter.yaml"
    path.write_text(yaml.safe_dump(shorter))
    assert main(["check", str(path)]) == 0


def test_given_a_catalog_that_does_not_load_when_fuzzed_then_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "cards.yaml"
    bad.write_text("id: x\ncards:\n  - {id: X-1, kind: dragon}\n")
    rc = main(["fuzz", str(bad), "--games", "1"])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and "Traceback" not in err and "cards.yaml" in err


def test_given_two_jobs_the_summary_is_that_of_one(tmp_path, capsys):
    main(["fuzz", BUILTIN, "--games", "4", "--seed", "j", "--json", "--jobs", "2", "--out", str(tmp_path)])
    two = json.loads(capsys.readouterr().out)
    main(["fuzz", BUILTIN, "--games", "4", "--seed", "j", "--json", "--jobs", "1", "--out", str(tmp_path)])
    one = json.loads(capsys.readouterr().out)
    assert (two["games"], two["actions"], two["failures"]) == (one["games"], one["actions"], one["failures"])


def test_a_view_that_names_a_hidden_card_is_caught():
    from referee.engine import Catalog, Session
    from referee.engine.playout import random_new_game
    from referee.scenarios.invariants import secrets_named

    catalog = Catalog.builtin()
    session, _ = Session.new(catalog, random_new_game(catalog, "leak"))
    state = session.state
    view = session.view(0)
    assert secrets_named(catalog, state, 0, view, []) is None
    hidden = state["players"][1]["hand"][0]
    leaky = {**view, "cards": {**view["cards"], hidden: state["cards"][hidden]}}
    assert "hidden card" in secrets_named(catalog, state, 0, leaky, [])
    event = {"type": "reveal", "case": hidden, "card": state["cards"][hidden]}
    assert "may not know" in secrets_named(catalog, state, 0, view, [event])


def test_given_a_game_longer_than_max_actions_then_the_ends_invariant_fails(tmp_path, capsys):
    rc = main(["fuzz", BUILTIN, "--games", "1", "--max-actions", "10", "--out", str(tmp_path), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert rc == 1 and doc["failures"][0]["failure"]["invariant"] == "ends_within"
    assert doc["failures"][0]["failure"]["step"] == 10 == doc["failures"][0]["actions"]


def test_given_a_dask_cluster_the_summary_is_that_of_one_job(tmp_path, capsys):
    with local_cluster(1) as scheduler:
        main(["fuzz", BUILTIN, "--games", "2", "--seed", "d", "--json", "--dask", scheduler])
        dask = json.loads(capsys.readouterr().out)
    main(["fuzz", BUILTIN, "--games", "2", "--seed", "d", "--json"])
    one = json.loads(capsys.readouterr().out)
    assert (dask["games"], dask["actions"], dask["failures"]) == (one["games"], one["actions"], one["failures"])
