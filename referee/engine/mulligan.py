"""RULES 5.4–5.6: the mulligan phase: each player mulligans any number of times, then keeps."""

from __future__ import annotations

from collections.abc import Iterator

from referee.engine.actions import Action, ActionRule, simple
from referee.engine.board import Board
from referee.engine.errors import RuleViolation
from referee.engine.facts import OPENING_HAND, Phase, other
from referee.engine.flow import Edge, advance
from referee.engine.registry import rule
from referee.engine.turn import start_turn

# The enum members this module compares with, bound once: reading one through its class is an
# attribute lookup of the enum's metaclass on every read.
_MULLIGAN_PHASE = Phase.MULLIGAN


class _MulliganPhaseRule(ActionRule):
    @rule("5.4", "not_mulligan_phase")
    def allowed(self, g: Board, a: Action) -> None:
        if g.s["phase"] != _MULLIGAN_PHASE:
            raise RuleViolation("not_mulligan_phase")

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        yield simple(self.type, player)


class Mulligan(_MulliganPhaseRule):
    """RULES 5.4/5.5: trash the hand, then draw 7 — required draws."""

    type = "mulligan"

    @rule("5.5")
    def declare(self, g: Board, a: Action) -> None:
        pl = g.player(a["player"])
        pl["trash"].extend(pl["hand"])
        g.emit("mulligan", player=a["player"], cards=len(pl["hand"]))
        pl["hand"] = []
        g.draw(a["player"], OPENING_HAND, required=True)


class Keep(_MulliganPhaseRule):
    """RULES 5.4/5.6: keep; the second player decides next, then turn 1 begins."""

    type = "keep"

    @rule("5.6")
    def declare(self, g: Board, a: Action) -> None:
        s = g.s
        g.player(a["player"])["kept"] = True
        g.emit("keep", player=a["player"])
        if not g.player(other(a["player"]))["kept"]:
            s["active"] = other(a["player"])
            return
        advance(s, Edge.BOTH_KEPT)
        start_turn(g, 1, s["first_player"])
