"""Every kind of failure `referee fuzz` finds is one `referee check` reproduces: for each invariant, an engine
bug planted on purpose is found by the fuzzer, its scenario fails under `referee check` naming the same
invariant, and passes once the bug is gone; the scenario format's `then.invariants`, in-process and over HTTP.

The plants reach past the engine's package face: a rule has to be broken somewhere.
"""

from __future__ import annotations

import collections
import json
import random
import textwrap
from pathlib import Path

import httpx
import pytest
import yaml

import referee
from referee.cli import main

BUILTIN = str(Path(referee.__file__).parent / "data" / "af-ref.yaml")


def plant_validate_refusing_keep(monkeypatch: pytest.MonkeyPatch) -> None:
    """listed_legal: validate refuses a keep that legal_actions lists (as it would a draw in the mulligan)."""
    from referee.engine import Session

    real = Session.validate

    def validate(self, action, path="action"):
        if isinstance(action, dict) and action.get("type") == "keep":
            return real(self, {"type": "draw", "player": action["player"]}, path)
        return real(self, action, path)

    monkeypatch.setattr(Session, "validate", validate)


def plant_dispatch_without_room(monkeypatch: pytest.MonkeyPatch) -> None:
    """refusal: RULES 8.9 broken: a dispatch no longer checks the room on the case (the listing still does)."""
    from referee.engine import RuleViolation
    from referee.engine.rulebook import RULEBOOK

    def own_rule(self, g, a, entry):
        if entry["case"] is not None:
            raise RuleViolation("not_standby", fairy=a["fairy"])

    monkeypatch.setattr(type(RULEBOOK["dispatch"]), "own_rule", own_rule)


def plant_trash_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    """consistent: a card that goes to the trash goes there twice (RULES 13.1: 41 cards)."""
    from referee.engine.board import Board

    real = Board.to_trash

    def to_trash(self, player, iid):
        real(self, player, iid)
        self.s["players"][player]["trash"].append(iid)

    monkeypatch.setattr(Board, "to_trash", to_trash)


def plant_view_leak(monkeypatch: pytest.MonkeyPatch) -> None:
    """seat_secrets: a seat's view names the first card of the opponent's hand."""
    from referee.engine import Session

    real = Session.view

    def view(self, player):
        out = real(self, player)
        hand = self.state["players"][1 - player]["hand"] if player in (0, 1) else []
        return {**out, "cards": {**out["cards"], hand[0]: self.state["cards"][hand[0]]}} if hand else out

    monkeypatch.setattr(Session, "view", view)


def plant_unseeded_shuffle(monkeypatch: pytest.MonkeyPatch) -> None:
    """deterministic: the deal's shuffle does not follow the game's seed."""
    from referee.engine.setup import SeededStream

    monkeypatch.setattr(SeededStream, "shuffle", lambda self, items: random.shuffle(items))


def plant_endless_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """ends_within: a draw from an empty file no longer loses (RULES 11.1), so nothing ends the game."""
    from referee.engine.board import Board

    real = Board.draw
    monkeypatch.setattr(Board, "draw", lambda self, player, count, required: real(self, player, count, False))


PLANTS = {
    "listed_legal": (plant_validate_refusing_keep, ["--games", "2", "--seed", "p"]),
    "refusal": (plant_dispatch_without_room, ["--games", "20", "--seed", "fuzz"]),
    "consistent": (plant_trash_twice, ["--games", "2", "--seed", "p"]),
    "seat_secrets": (plant_view_leak, ["--games", "2", "--seed", "p"]),
    "deterministic": (plant_unseeded_shuffle, ["--games", "2", "--seed", "p"]),
    # game e:0 ends by itself within 300 actions (the check without the plant says so)
    "ends_within": (plant_endless_file, ["--games", "1", "--seed", "e", "--max-actions", "300"]),
}


def fuzz_json(capsys, *args: str) -> tuple[int, dict]:
    rc = main(["fuzz", BUILTIN, *args, "--json"])
    return rc, json.loads(capsys.readouterr().out)


def check(capsys, *args: str) -> tuple[int, str]:
    rc = main(["check", *args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, out + err


@pytest.mark.parametrize("invariant", list(PLANTS))
def test_given_a_planted_bug_the_fuzzers_scenario_fails_referee_check_on_that_invariant_until_it_is_fixed(
    invariant, tmp_path, monkeypatch, capsys
):
    plant, args = PLANTS[invariant]
    plant(monkeypatch)
    rc, doc = fuzz_json(capsys, *args, "--out", str(tmp_path))
    assert rc == 1
    [failure] = doc["failures"]
    assert failure["failure"]["invariant"] == invariant
    [scenario] = doc["scenarios"]
    assert yaml.safe_load(Path(scenario).read_text())["then"]["invariants"] == {invariant: failure["failure"]["value"]}

    rc, out = check(capsys, scenario)
    assert rc == 1, out
    assert f"invariant {invariant} (line " in out and "does not hold" in out

    monkeypatch.undo()  # the bug fixed
    rc, out = check(capsys, scenario)
    assert rc == 0, out


def test_given_a_referee_that_crashes_on_a_candidate_the_scenario_fails_on_refusal_until_it_is_fixed(
    tmp_path, monkeypatch, capsys
):
    """A crash (an error the engine does not raise on purpose) fails the invariant being checked."""
    from referee.engine import Session

    real = Session.validate

    def validate(self, action, path="action"):
        if isinstance(action, dict) and action.get("type") == "recall":
            raise KeyError("planted")
        return real(self, action, path)

    monkeypatch.setattr(Session, "validate", validate)
    rc, doc = fuzz_json(capsys, "--games", "1", "--seed", "p", "--out", str(tmp_path))
    assert rc == 1
    assert "the referee crashed in validate on {type: recall" in doc["failures"][0]["failure"]["detail"]
    rc, out = check(capsys, doc["scenarios"][0])
    assert rc == 1 and "invariant refusal (line " in out and "KeyError" in out
    monkeypatch.undo()
    assert check(capsys, doc["scenarios"][0])[0] == 0


def test_given_a_step_that_is_not_deterministic_the_scenario_is_cut_just_after_it(tmp_path, monkeypatch, capsys):
    """The minimiser shrinks against referee check: the prefix ends at the first step two plays differ on."""
    from referee.engine import Session

    real = Session.apply_parsed

    def apply_parsed(self, action, now=None):
        applied = real(self, action, now)
        if action["type"] == "end_turn":  # the planted bug: an event of end_turn carries an unseeded number
            return type(applied)((*applied.events, {"type": "noise", "n": random.random()}))
        return applied

    monkeypatch.setattr(Session, "apply_parsed", apply_parsed)
    rc, doc = fuzz_json(capsys, "--games", "1", "--seed", "p", "--out", str(tmp_path))
    assert rc == 1 and doc["failures"][0]["failure"]["invariant"] == "deterministic"
    scenario = yaml.safe_load(Path(doc["scenarios"][0]).read_text())
    types = [a["type"] for a in scenario["when"]]
    assert types[-1] == "end_turn" and "end_turn" not in types[:-1]
    shorter = tmp_path / "shorter.yaml"
    shorter.write_text(yaml.safe_dump({**scenario, "when": scenario["when"][:-1]}))
    assert check(capsys, str(shorter))[0] == 0
    assert check(capsys, doc["scenarios"][0])[0] == 1


# -- the scenario format ----------------------------------------------------------------------------------

A_GAME = """
name: a few actions of a dealt game, every invariant asserted
given: {game: {decks: [{top: [AF-042], size: 40}, {top: [AF-042], size: 40}], seed: inv, shuffle: false}}
when:
  - {type: keep, player: 0}
  - {type: keep, player: 1}
then:
  invariants:
    listed_legal: true
    consistent: true
    seat_secrets: true
    deterministic: true
    refusal: [{type: draw, player: 1}, {type: play_case, player: 0, card: p0.hand.AF-042}, {type: end_turn, player: 0}]
"""


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text(textwrap.dedent(text).lstrip(), "utf-8")
    return str(path)


def test_a_scenario_asserting_every_invariant_passes_on_the_referee(tmp_path, capsys):
    rc, out = check(capsys, write(tmp_path, A_GAME))
    assert rc == 0, out


def test_the_invariants_are_checked_after_every_step_and_name_it(tmp_path, monkeypatch, capsys):
    plant_view_leak(monkeypatch)
    rc, out = check(capsys, write(tmp_path, A_GAME))
    assert rc == 1
    assert "invariant seat_secrets (line 10) does not hold: after the given: the view of player 0 names" in out
    assert out.count("does not hold") == 1  # the other invariants hold


def test_ends_within_does_not_play_the_actions_after_the_end(tmp_path, capsys):
    text = """
    given: {game: {decks: [{top: [AF-042], size: 40}, {top: [AF-042], size: 40}], seed: inv}}
    when: [{type: concede, player: 0}, {type: keep, player: 1}]
    then: {invariants: {ends_within: 2}, result: {winner: 1, reason: concede}}
    """
    assert check(capsys, write(tmp_path, text))[0] == 0
    rc, out = check(capsys, write(tmp_path, text.replace("concede, player: 0", "keep, player: 0")))
    assert rc == 1 and "invariant ends_within (line 3) does not hold: the game is not over after 2 action(s)" in out


@pytest.mark.parametrize(
    ("invariants", "message"),
    [
        ("{seat_secrets: false}", "then.invariants.seat_secrets: seat_secrets can only be true (leave it out"),
        ("{ends_within: 0}", "then.invariants.ends_within: 0 is less than the minimum of 1"),
        ("{ends_within: many}", 'then.invariants.ends_within: "many" is not of type "integer"'),
        ("{refusal: []}", "then.invariants.refusal: [] has less than 1 item"),
        ("{secrecy: true}", "then.invariants.secrecy: unknown key 'secrecy' (the keys here: consistent, deterministic"),
        ("{consistnt: true}", "then.invariants.consistnt: unknown key 'consistnt' (did you mean 'consistent'?)"),
        ("{}", "then.invariants: {} has less than 1 propert"),
        ("{refusal: [{type: draw, player: 0, card: p0.hnd.AF-001}]}", "then.invariants.refusal.0.card:"),
    ],
)
def test_a_bad_invariant_is_one_line_naming_the_field_and_exit_2(tmp_path, capsys, invariants, message):
    text = f"given: {{game: {{seed: x}}}}\nwhen: []\nthen: {{invariants: {invariants}}}\n"
    rc, out = check(capsys, write(tmp_path, text))
    assert rc == 2
    [line] = [ln for ln in out.splitlines() if ln.startswith("ERROR")]
    assert message in line, line


def test_ends_within_with_a_refusal_expected_is_an_error(tmp_path, capsys):
    text = "given: {game: {seed: x}}\nwhen: [{type: draw, player: 0}]\nthen: {violation: {rule: '5.4'}, invariants: {ends_within: 3}}\n"
    rc, out = check(capsys, write(tmp_path, text))
    assert rc == 2 and "then.invariants.ends_within: ends_within goes with a legal outcome, not violation" in out


# -- over HTTP ----------------------------------------------------------------------------------------------


@pytest.fixture
def http_backend():
    from referee.client import RefereeClient
    from referee.scenarios.backends import Http
    from referee.service.app import create_app
    from referee.service.config import Settings

    app = create_app(Settings(log_requests=False))
    backend = Http(
        "http://referee.test", client=RefereeClient("http://referee.test", transport=httpx.WSGITransport(app=app))
    )
    yield backend
    backend.close()


def test_over_http_the_invariants_ask_the_service(tmp_path, monkeypatch, http_backend):
    """/v1/legal-actions, /v1/validate, /v1/apply and /v1/view answer the invariants' questions: the service's
    own leak (planted in the app this test serves) fails seat_secrets as it does in-process."""
    from referee.scenarios import load, run

    [sc] = load(write(tmp_path, A_GAME))
    assert run(sc, http_backend).status == "passed"
    plant_view_leak(monkeypatch)
    result = run(sc, http_backend)
    assert result.status == "failed"
    assert result.details[0].startswith("invariant seat_secrets (line 10) does not hold: after the given:")


def test_a_crash_applying_the_fuzzers_own_move_is_a_failure_not_a_traceback(tmp_path, monkeypatch, capsys):
    """Given a referee whose apply crashes the second time one end_turn is applied to one state (so the
    probe's try of the listed move passes and the fuzzer's own move crashes), then the fuzzer reports
    listed_legal, exit 1, and no traceback."""
    from referee.engine import Session

    real, seen = Session.apply, collections.Counter()

    def apply(self, action, *args, **kwargs):
        if isinstance(action, dict) and action.get("type") == "end_turn":
            key = json.dumps([self.state, action], sort_keys=True)
            seen[key] += 1
            if seen[key] == 2:
                raise KeyError("planted")
        return real(self, action, *args, **kwargs)

    monkeypatch.setattr(Session, "apply", apply)
    rc, doc = fuzz_json(capsys, "--games", "1", "--seed", "p", "--out", str(tmp_path))
    assert rc == 1 and doc["failures"][0]["failure"]["invariant"] == "listed_legal"
    assert "the referee crashed in apply on {type: end_turn" in doc["failures"][0]["failure"]["detail"]
