"""The scenario format (docs/scenarios.md): every ``given`` and ``then`` form, passing and failing.

Each failing case checks the failure explains itself: the action, the
expected and actual outcome, and the state difference.
"""

from __future__ import annotations

import textwrap

import pytest

from referee.engine import Catalog
from referee.scenarios import InProcess, load, run
from referee.scenarios.build import build_position, expand_game, filler
from referee.scenarios.refs import RefError, parse_ref, ref_for, resolve


@pytest.fixture(scope="module")
def backend():
    return InProcess(Catalog.builtin())


def outcome(backend, text: str, index: int = 0):
    scenarios = load("case.yaml", textwrap.dedent(text))
    return run(scenarios[index], backend)


def passes(backend, text: str) -> None:
    r = outcome(backend, text)
    assert r.status == "passed", "\n".join(r.details)


def fails(backend, text: str, *snippets: str) -> str:
    r = outcome(backend, text)
    assert r.status == "failed", f"expected a failure, got {r.status}"
    details = "\n".join(r.details)
    for s in snippets:
        assert s in details, f"{s!r} not in:\n{details}"
    return details


INVESTIGATE = """
    given:
      position:
        p0:
          cases: [AF-051, AF-043]
          fairies: [{card: AF-005, case: p0.cases.0}]
    when:
      - {type: investigate, player: 0, case: p0.cases.AF-051, pay: [p0.cases.AF-043]}
"""


# -- then: legal + assertions --------------------------------------------------------


def test_legal_with_assertions_passes(backend):
    passes(
        backend,
        INVESTIGATE
        + """
    then:
      legal: true
      p0.fairies: []
      p0.trash: [AF-005]
      p0.cases.AF-051: {face_up: true, actioned: false}
      p0.cases.1: {card: AF-043, actioned: true}
      phase: turn
      turn: 1
      events: [{type: investigation, outcome: failed}]
    """,
    )


def test_legal_is_implied_by_assertions(backend):
    passes(backend, INVESTIGATE + "    then: {p0.fairies: 0}\n")


def test_wrong_expectation_fails_with_expected_actual_and_line(backend):
    details = fails(
        backend,
        INVESTIGATE
        + """
    then:
      p0.fairies: [AF-005]
      phase: over
    """,
        "p0.fairies (line 11)",
        "expected: [AF-005]",
        "actual:   []",
        "missing [AF-005]",
        "phase (line 12)",
        "expected: over",
        "actual:   turn",
    )
    assert details.startswith("the state after every action differs from then")


def test_unexpected_violation_shows_action_and_state(backend):
    fails(
        backend,
        """
    given: {position: {p0: {cases: [AF-042], file: 0}}}
    when: [{type: draw, player: 0}]
    then: {legal: true}
    """,
        "at action 0 (when.0, line 3): {type: draw, player: 0}",
        "expected: legal",
        "actual:   violation of rule 8.2 (file_empty)",
        "state before it:",
        "p0.file: 0 card(s)",
    )


# -- then: violation ---------------------------------------------------------------


def test_violation_passes(backend):
    passes(
        backend,
        """
    given: {position: {p0: {cases: [AF-042], file: 0}}}
    when: [{type: draw, player: 0}]
    then: {violation: {rule: "8.2", code: file_empty, index: 0}}
    """,
    )


def test_violation_wrong_rule_fails(backend):
    fails(
        backend,
        """
    given: {position: {p0: {cases: [AF-042], file: 0}}}
    when: [{type: draw, player: 0}]
    then: {violation: {rule: "8.9"}}
    """,
        "expected: violation of rule 8.9 at action 0",
        "actual:   violation of rule 8.2",
        "(rule 8.2, not 8.9)",
    )


def test_violation_wrong_code_fails(backend):
    fails(
        backend,
        """
    given: {position: {p0: {cases: [AF-042], file: 0}}}
    when: [{type: draw, player: 0}]
    then: {violation: {rule: "8.2", code: cannot_pay}}
    """,
        "(code file_empty, not cannot_pay)",
    )


def test_violation_expected_but_accepted_shows_what_changed(backend):
    fails(
        backend,
        INVESTIGATE + '    then: {violation: {rule: "10.1"}}\n',
        "expected: violation of rule 10.1 at action 0",
        "actual:   accepted",
        "resolved: {type: investigate, player: 0, case: a01, pay: [a02]}",
        "what it changed (- before, + after):",
        "-p0.fairies: [AF-005 on AF-051]",
        "+p0.fairies: []",
    )


def test_violation_index_defaults_to_the_last_action(backend):
    text = """
    given: {position: {p0: {cases: [AF-042], file: 1}}}
    when:
      - {type: draw, player: 0}
      - {type: draw, player: 0}
    then: {violation: {rule: "7.2"%s}}
    """
    # the second draw fails on the empty file (8.2) before the cost; expect 8.2 at 1
    fails(backend, text % "", "actual:   violation of rule 8.2")
    passes(backend, (text % "").replace('"7.2"', '"8.2"'))
    fails(
        backend,
        (text % ", index: 0").replace('"7.2"', '"8.2"'),
        "at action 1",
        "(refused at action 1, expected at action 0)",
    )
    passes(backend, (text % ", index: any").replace('"7.2"', '"8.2"'))


def test_earlier_refusal_is_reported_as_such(backend):
    fails(
        backend,
        """
    given: {position: {p0: {cases: [AF-042], file: 0}}}
    when:
      - {type: draw, player: 0}
      - {type: end_turn, player: 0}
    then: {violation: {rule: "8.2"}}
    """,
        "(refused at action 0, expected at action 1)",
    )


def test_violation_with_assertions_checks_the_unchanged_state(backend):
    passes(
        backend,
        """
    given: {position: {p0: {cases: [AF-042], hand: [AF-022]}}}
    when: [{type: play_fairy, player: 0, card: p0.hand.AF-022}]
    then:
      violation: {rule: "8.3"}
      p0.hand: [AF-022]
      p0.cases.0: {actioned: false}
    """,
    )


def test_violation_at_the_given(backend):
    passes(
        backend,
        """
    given: {game: {decks: [{top: []}, {top: [], size: 39}]}}
    then: {violation: {rule: "3.1", code: deck_size, index: given}}
    """,
    )


# -- then: error ---------------------------------------------------------------------


def test_error_passes_and_fails(backend):
    text = """
    given: {game: {decks: [{top: []}, {top: []}, {top: []}]}}
    then: {error: {status: 400, code: %s, field: decks}}
    """
    passes(backend, text % "invalid_schema")
    fails(
        backend,
        text % "dangling_reference",
        "expected: error 400 (dangling_reference) on field decks at the given",
        "(code invalid_schema, not dangling_reference)",
    )


def test_error_expected_but_a_violation(backend):
    fails(
        backend,
        """
    given: {position: {p0: {cases: [AF-042], file: 0}}}
    when: [{type: draw, player: 0}]
    then: {error: {status: 400}}
    """,
        "expected a error, got a violation",
    )


def test_error_on_an_action_field(backend):
    passes(
        backend,
        """
    given: {position: {}}
    when: [{type: draw, player: 2}]
    then: {error: {code: invalid_schema, field: player}}
    """,
    )


# -- references -------------------------------------------------------------------


def test_references_resolve_against_the_state_before_each_action(backend):
    passes(
        backend,
        """
    given:
      position:
        p0: {hand: [AF-005, AF-004, AF-005], cases: [AF-042, AF-043, AF-044]}
    when:
      - {type: play_fairy, player: 0, card: "p0.hand.AF-005#1"}
      - {type: play_fairy, player: 0, card: "@p0.hand.AF-005"}
      - {type: play_fairy, player: 0, card: p0.hand.-1}
    then:
      p0.hand: []
      p0.fairies: [AF-005, AF-005, AF-004]
    """,
    )


def test_a_reference_that_names_nothing_fails_clearly(backend):
    fails(
        backend,
        """
    given: {position: {p0: {hand: [AF-004], cases: [AF-042]}}}
    when: [{type: play_fairy, player: 0, card: p0.hand.AF-006}]
    then: {legal: true}
    """,
        "the reference names no card: p0.hand.AF-006: player 0's hand holds no AF-006 (holds: AF-004)",
    )


def test_reference_helpers():
    cat = Catalog.builtin()
    state = build_position(cat, {"p0": {"hand": ["AF-005", "AF-004", "AF-005"], "cases": ["AF-042"]}})
    assert resolve(state, "p0.hand.AF-005") == "a01"
    assert resolve(state, "p0.hand.AF-005#1") == "a03"
    assert resolve(state, "p0.hand.-1") == "a03"
    assert resolve(state, "p0.cases.0") == "a04"
    assert ref_for(state, "a03") == "p0.hand.AF-005#1"
    assert ref_for(state, "a01") == "p0.hand.AF-005"
    assert ref_for(state, state["players"][1]["file"][2]) == "p1.file.2"
    with pytest.raises(RefError, match="no index 5"):
        resolve(state, "p0.cases.5")
    with pytest.raises(RefError, match="unknown zone"):
        parse_ref("p0.deck.0")


# -- zone and card assertions ---------------------------------------------------------

ZONES = """
    given:
      position:
        p0:
          hand: [AF-004, AF-005, AF-004]
          file: {top: [AF-006, AF-009], count: 5}
          cases: [AF-043, {card: AF-044, face_up: true, actioned: true}]
          fairies: [{card: AF-006, case: p0.cases.AF-044}, AF-011]
          evidence: [{card: AF-022, case: AF-043}]
    then:
"""


@pytest.mark.parametrize(
    "assertion",
    [
        "p0.hand: 3",
        "p0.hand: [AF-004, AF-005, AF-004]",
        "p0.hand: {count: 3, includes: [AF-005, AF-004], excludes: [AF-006]}",
        "p0.hand: {any_order: [AF-004, AF-004, AF-005]}",
        "p0.file: {top: [AF-006, AF-009], count: 5}",
        "p0.cases: [AF-043, {card: AF-044, face_up: true}]",
        "p0.cases.AF-044: {face_up: true, actioned: true}",
        "p0.cases.1: AF-044",
        "p0.fairies: [{card: AF-006, case: AF-044}, {card: AF-011, case: null}]",
        "p0.fairies.AF-006: {case: p0.cases.1}",
        "p0.evidence: [{card: AF-022, case: p0.cases.AF-043}]",
        "p0.hand.AF-099: null",
        "p1.hand: []",
        "p0.kept: true",
        "p0.name: Player 1",
    ],
)
def test_zone_assertion_forms_pass(backend, assertion):
    passes(backend, ZONES + "      " + assertion + "\n")


@pytest.mark.parametrize(
    "assertion, snippet",
    [
        ("p0.hand: 4", "expected: 4 card(s)"),
        ("p0.hand: [AF-004, AF-004, AF-005]", "same cards, different order or fields"),
        ("p0.hand: {includes: [AF-006]}", "missing [AF-006]"),
        ("p0.hand: {excludes: [AF-005]}", "should not hold [AF-005]"),
        ("p0.hand: {any_order: [AF-004, AF-005]}", "should hold exactly [AF-004, AF-005] in any order"),
        ("p0.file: {top: [AF-009]}", "top should be [AF-009]"),
        ("p0.cases.AF-044: {face_up: false}", "actual:   {card: AF-044, face_up: true, actioned: true}"),
        ("p0.hand.AF-006: AF-006", "actual:   no such card"),
        ("p0.hand.AF-004: null", "expected: no such card"),
        ("p0.fairies: [{card: AF-006, case: AF-043}, AF-011]", "actual:   [{card: AF-006, case: AF-044}"),
    ],
)
def test_zone_assertion_forms_fail(backend, assertion, snippet):
    fails(backend, ZONES + "      " + assertion + "\n", snippet)


def test_events_and_legal_actions(backend):
    passes(
        backend,
        """
    given:
      position:
        p0: {cases: [AF-043]}
        p1: {hand: [AF-074], cases: [AF-045]}
    when: [{type: draw, player: 0}]
    then:
      events: {includes: [{type: paid}, {type: window_opened}], excludes: [{type: draw}]}
      legal_actions: {player: 1, includes: [{type: counter, card: p1.hand.AF-074}], excludes: [{type: draw}]}
    """,
    )
    fails(
        backend,
        """
    given: {position: {p0: {cases: [AF-043]}}}
    when: [{type: draw, player: 0}]
    then:
      events: [{type: draw}, {type: paid}]
    """,
        "no event {type: paid} after the ones before it",
    )
    fails(
        backend,
        """
    given: {position: {p0: {cases: [AF-043]}}}
    then:
      legal_actions: {includes: [{type: end_turn, player: 1}], count: 3}
    """,
        "missing {type: end_turn, player: 1}",
        "expected, ",
    )


# -- given forms ----------------------------------------------------------------------


def test_game_defaults_and_top_decks(backend):
    cat = Catalog.builtin()
    game = expand_game(cat, {"decks": [{"top": ["AF-042"]}, {"top": [], "size": 39}]})
    assert game["seed"] == "scenario" and game["first_player"] == 0 and game["shuffle"] is False
    assert game["decks"][0][0] == "AF-042" and len(game["decks"][0]) == 40 and len(game["decks"][1]) == 39
    assert expand_game(cat, {"decks": [], "first_player": None, "shuffle": True})["first_player"] is None
    assert "shuffle" not in expand_game(cat, {"decks": [["AF-004"] * 40] * 2})


def test_filler_respects_deck_limits_and_avoids_counters():
    cat = Catalog.builtin()
    deck = ["AF-001"] + filler(cat, ["AF-001"], 39)
    assert len(deck) == 40 and deck.count("AF-001") == 1
    assert all(deck.count(c) <= 3 for c in deck)
    assert not any(cat[c].kind in ("counter", "case", "bonus") for c in deck)


def test_position_builds_a_consistent_state():
    from referee.engine import check_state

    cat = Catalog.builtin()
    state = build_position(
        cat,
        {
            "turn": 2,
            "p0": {"file": 3, "trash": ["AF-060"]},
            "p1": {"hand": ["AF-004"], "cases": [{"card": "AF-043", "actioned": True}]},
        },
    )
    check_state(cat, state)
    assert state["active"] == 1 and state["step"] == "main"
    assert len(state["players"][0]["file"]) == 3 and len(state["players"][0]["trash"]) == 37
    assert state["cards"][state["players"][0]["trash"][0]] == "AF-060"
    assert state["players"][1]["cases"] == [{"card": "b02", "face_up": False, "actioned": True}]


def test_a_mulligan_phase_position_deals_seven_filler_cards_to_a_hand_not_given():
    """RULES 5.3 / 13.1: every hand holds 7 in the mulligan phase, so a position fills the ones it omits."""
    from referee.engine import check_state

    cat = Catalog.builtin()
    state = build_position(
        cat, {"phase": "mulligan", "p1": {"hand": ["AF-004"] * 3 + ["AF-005"] * 3 + ["AF-043"], "file": 26}}
    )
    check_state(cat, state)
    assert [len(pl["hand"]) for pl in state["players"]] == [7, 7]
    assert len(state["players"][1]["file"]) == 26 and len(state["players"][0]["file"]) == 33


def test_given_state_is_sent_as_it_is(backend):
    cat = Catalog.builtin()
    state = build_position(cat, {"p0": {"cases": ["AF-043"]}})
    import json

    passes(
        backend,
        f"""
    given: {{state: {json.dumps(state)}}}
    when: [{{type: draw, player: 0, pay: [a01]}}]
    then: {{p0.hand: 1, p0.cases.a01: {{actioned: true}}}}
    """,
    )


def test_several_scenarios_in_one_file(backend):
    scenarios = load(
        "multi.yaml",
        "given: {position: {}}\nthen: {turn: 1}\n---\nname: second\ngiven: {position: {}}\nthen: {turn: 2}\n",
    )
    assert [s.label for s in scenarios] == ["multi.yaml", "multi.yaml#2"]
    assert [run(s, backend).status for s in scenarios] == ["passed", "failed"]
    assert scenarios[0].name == "multi" and scenarios[1].name == "second"


def test_an_engine_crash_is_a_failure_not_a_crash(backend, monkeypatch):
    from referee.engine import Session

    def boom(*a, **k):
        raise KeyError("x")

    monkeypatch.setattr(Session, "apply", boom)
    r = outcome(backend, INVESTIGATE + "    then: {legal: true}\n")
    assert r.status == "failed" and "the referee crashed: KeyError" in r.details[0]


def test_given_a_position_that_leaves_out_who_acts_then_the_turn_flow_decides_it():
    """RULES 5.4, 5.6: build_position reads referee.engine.flow: in the mulligan phase the second player
    decides once the first kept; in a turn, turn 2 is the second player's main step."""
    from referee.engine import check_state

    cat = Catalog.builtin()
    mulligan = build_position(cat, {"phase": "mulligan", "first_player": 1, "p1": {"kept": True}})
    assert (mulligan["step"], mulligan["turn"], mulligan["active"]) == ("mulligan", 0, 0)
    turn = build_position(cat, {"first_player": 1, "turn": 2})
    assert (turn["phase"], turn["step"], turn["active"]) == ("turn", "main", 0)
    for state in (mulligan, turn):
        check_state(cat, state)  # a consistent position (RULES 13.1)
