"""The turn flow (RULES 5.4–5.6, 6.1, 6.4–6.6, 11): every change of phase and step, as data, in one place.

The flow is the only writer of a state's ``phase`` and ``step``: the rules say
what happened (an :class:`Edge`), and :data:`FLOW` says where the game goes.
Reset and draw (6.2, 6.3) need no choice, so no state ever rests in them:
a turn begins in the case step. Whose turn a number is, and who decides in the
mulligan phase, are facts of the flow too (the consistency check and the
scenario position builder read them here).

>>> s = {"phase": "mulligan", "step": "mulligan"}
>>> advance(s, Edge.BOTH_KEPT); advance(s, Edge.TURN_BEGINS); (s["phase"], s["step"])
('turn', 'case')
>>> advance(s, Edge.DISCARDS_OWED)
Traceback (most recent call last):
...
AssertionError: discards_owed from turn/case
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, NamedTuple

from referee.engine.facts import Phase, Step, other
from referee.engine.state_types import StateDict


class Edge(StrEnum):
    """What moves the game along the flow."""

    DEALT = "dealt"  # RULES 5.3: the deal; the mulligan phase begins
    BOTH_KEPT = "both_kept"  # RULES 5.6: the mulligan phase ends; turn 1 begins
    TURN_BEGINS = "turn_begins"  # RULES 6.2, 6.3 done: the case step
    CASE_STEP_ENDS = "case_step_ends"  # RULES 6.4: a case played (or negated), or skipped
    DISCARDS_OWED = "discards_owed"  # RULES 6.5, 6.6: the turn ends with a hand over the limit
    GAME_ENDS = "game_ends"  # RULES 11.1, 11.2


class Transition(NamedTuple):
    """From any of ``sources`` ((phase, step); ``None``: anywhere), to ``phase`` and ``step`` (``None``: kept)."""

    sources: frozenset[tuple[str, str]] | None
    phase: str | None
    step: str | None


_IN_TURN = frozenset((Phase.TURN.value, s.value) for s in (Step.MULLIGAN, Step.MAIN, Step.END))

FLOW: dict[Edge, Transition] = {
    Edge.DEALT: Transition(None, Phase.MULLIGAN.value, Step.MULLIGAN.value),
    Edge.BOTH_KEPT: Transition(frozenset({(Phase.MULLIGAN.value, Step.MULLIGAN.value)}), Phase.TURN.value, None),
    # from the mulligan step on turn 1, from main or end when the turn passes (6.6)
    Edge.TURN_BEGINS: Transition(_IN_TURN, None, Step.CASE.value),
    Edge.CASE_STEP_ENDS: Transition(frozenset({(Phase.TURN.value, Step.CASE.value)}), None, Step.MAIN.value),
    Edge.DISCARDS_OWED: Transition(frozenset({(Phase.TURN.value, Step.MAIN.value)}), None, Step.END.value),
    Edge.GAME_ENDS: Transition(None, Phase.OVER.value, None),  # the step is kept: where the game ended
}


def advance(state: StateDict, edge: Edge) -> None:
    """Move ``state`` along ``edge`` of :data:`FLOW` (an edge from where the game is not is a bug)."""
    to = FLOW[edge]
    assert to.sources is None or (state["phase"], state["step"]) in to.sources, (
        f"{edge} from {state['phase']}/{state['step']}"
    )
    if to.phase is not None:
        state["phase"] = to.phase
    if to.step is not None:
        state["step"] = to.step


def dealt() -> dict[str, str]:
    """The phase and step of a state just dealt (RULES 5.3), for the position builders."""
    to = FLOW[Edge.DEALT]
    assert to.phase is not None and to.step is not None
    return {"phase": to.phase, "step": to.step}


def deciding(first_player: int, first_has_kept: bool) -> int:
    """RULES 5.4: who decides in the mulligan phase: the first player, then the second."""
    return other(first_player) if first_has_kept else first_player


def who_acts(state: StateDict | Mapping[str, Any]) -> int:
    """RULES 12.1: who may act: the responder inside a response window, else the active player (in the
    mulligan phase, the deciding one)."""
    pending = state["pending"]
    actor: int = pending["responder"] if pending is not None else state["active"]
    return actor


def turn_player(turn: int, first_player: int) -> int:
    """RULES 5.6, 6.6: whose turn ``turn`` (1, 2, ...) is: the first player's odd turns, the other's even ones."""
    return first_player if turn % 2 == 1 else other(first_player)
