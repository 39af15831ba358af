"""The in-process scenario backend refuses as the service does (one error mapping, RULES 13.1 each step)."""

from __future__ import annotations

import pytest

from referee.engine import Catalog, InvalidInput, RuleViolation
from referee.scenarios.backends import InProcess, Refusal
from referee.service.problems import problem_for

CATALOG = Catalog.builtin()


@pytest.fixture
def session(new_game_body):
    return InProcess(CATALOG).new_game(new_game_body)


def test_a_state_made_inconsistent_between_steps_is_refused_with_rule_13_1(session):
    session.state["players"][0]["hand"].pop()  # a card vanishes: RULES 13.1
    with pytest.raises(Refusal) as caught:
        InProcess(CATALOG).apply(session, {"type": "keep", "player": session.state["active"]})
    assert (caught.value.status, caught.value.code) == (400, "card_not_conserved")
    assert list(caught.value.errors) == ["state.players.0"]


def test_a_refusal_carries_what_the_service_answers(session):
    with pytest.raises(Refusal) as caught:
        InProcess(CATALOG).apply(session, {"type": "draw", "player": session.state["active"]})
    problem = problem_for(RuleViolation("mulligan_phase"))
    assert (caught.value.status, caught.value.code, caught.value.rule, caught.value.detail) == (
        problem.status,
        problem.code,
        problem.extra["rule"],
        problem.detail,
    )


def test_a_schema_error_maps_to_a_400_with_its_paths():
    problem = problem_for(InvalidInput({"action.player": ["must be 0 or 1"]}))
    assert (problem.status, problem.code, problem.extra) == (
        400,
        "invalid_schema",
        {"errors": {"action.player": ["must be 0 or 1"]}},
    )
