"""The turn flow (referee/engine/flow.py): the one writer of ``phase`` and ``step``, read as enums everywhere.

The source checks read the engine with ``ast``; the behaviour checks play random games
and watch every change of phase and step go along an edge of ``FLOW``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from referee.engine import Catalog, Session
from referee.engine.facts import Phase, Step
from referee.engine.flow import FLOW, Edge, advance, deciding, turn_player
from referee.engine.playout import random_action, random_new_game
from referee.engine.setup import SeededStream

ENGINE = Path(__file__).resolve().parent.parent / "referee" / "engine"
FLOW_KEYS = ("phase", "step")
NAMES = {m.value for m in (*Phase, *Step)}


def _is_flow_key(node: ast.AST) -> bool:
    """``x["phase"]``, ``x["step"]``, ``x.get("phase")``..."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value in FLOW_KEYS
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        return bool(node.args) and isinstance(node.args[0], ast.Constant) and node.args[0].value in FLOW_KEYS
    return False


def offences(source: str) -> list[str]:
    """Writes of phase or step, and comparisons of them with a bare string, in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        targets = (
            node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        )
        found.extend(f"line {node.lineno}: writes {ast.unparse(t)}" for t in targets if _is_flow_key(t))
        if isinstance(node, ast.Call):
            found.extend(f"line {node.lineno}: passes {k.arg}=" for k in node.keywords if k.arg in FLOW_KEYS)
        if isinstance(node, ast.Dict):
            found.extend(
                f"line {node.lineno}: a dict with {k.value!r}"
                for k in node.keys
                if isinstance(k, ast.Constant) and k.value in FLOW_KEYS
            )
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_flow_key(s) for s in sides):
                found.extend(
                    f"line {node.lineno}: compares with {ast.unparse(s)}"
                    for s in sides
                    if isinstance(s, (ast.Constant, ast.Tuple, ast.Set))
                    and any(isinstance(c, ast.Constant) and c.value in NAMES for c in ast.walk(s))
                )
    return found


def test_given_code_that_writes_or_compares_phase_by_hand_then_the_reader_finds_it():
    source = 's["step"] = "main"\nif s["phase"] == "over": pass\nbuild(State, phase="turn")\nx = {"step": 1}\n'
    assert len(offences(source)) == 4
    assert offences('if s["phase"] == Phase.OVER: advance(s, Edge.GAME_ENDS)\n') == []


@pytest.mark.parametrize("path", sorted(p for p in ENGINE.glob("*.py") if p.name != "flow.py"), ids=lambda p: p.name)
def test_given_an_engine_module_then_only_the_flow_writes_phase_and_step_and_every_read_uses_the_enums(path):
    assert offences(path.read_text(encoding="utf-8")) == []


def test_given_every_edge_then_it_goes_to_a_phase_and_step_of_the_enums():
    for transition in FLOW.values():
        assert transition.phase in (None, *Phase) and transition.step in (None, *Step)
        for phase, step in transition.sources or ():
            assert phase in tuple(Phase) and step in tuple(Step)


def test_given_an_edge_from_where_the_game_is_not_then_advance_refuses_it():
    with pytest.raises(AssertionError):
        advance({"phase": Phase.MULLIGAN.value, "step": Step.MULLIGAN.value}, Edge.CASE_STEP_ENDS)


def test_given_the_flow_facts_then_the_first_player_decides_first_and_plays_the_odd_turns():
    assert [deciding(1, False), deciding(1, True)] == [1, 0]
    assert [turn_player(t, 1) for t in (1, 2, 3)] == [1, 0, 1]


def _moves(edge: Edge) -> set[tuple[tuple[str, str], tuple[str, str]]]:
    """Every (from, to) of (phase, step) that ``edge`` allows, where its sources are listed."""
    t = FLOW[edge]
    return {(src, (t.phase or src[0], t.step or src[1])) for src in t.sources or ()}


@pytest.mark.parametrize("seed", [f"flow-{n}" for n in range(12)])
def test_given_random_games_then_every_change_of_phase_and_step_is_a_path_along_the_flow(seed):
    catalog = Catalog.builtin()
    session, _ = Session.new(catalog, random_new_game(catalog, seed, options={"response_windows": "strict"}))
    assert (session.state["phase"], session.state["step"]) == (FLOW[Edge.DEALT].phase, FLOW[Edge.DEALT].step)
    one_edge = set().union(*(_moves(e) for e in Edge))
    two_edges = {(a, c) for a, b in one_edge for b2, c in one_edge if b == b2}  # keep, then turn 1 begins
    stream = SeededStream("choices:" + seed)
    for _ in range(600):
        if session.over:
            break
        before = (session.state["phase"], session.state["step"])
        session.apply_parsed(random_action(session.board, stream))
        after = (session.state["phase"], session.state["step"])
        if after != before and after[0] != Phase.OVER:
            assert (before, after) in one_edge | two_edges, (before, after)
    if session.over:
        assert session.state["phase"] == Phase.OVER
