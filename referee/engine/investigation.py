"""RULES 10: investigating a case (8.8), and solving it."""

from __future__ import annotations

from collections.abc import Iterator

from referee.engine.actions import Action, MainStepRule, require_case_in_play, simple
from referee.engine.board import Board
from referee.engine.cards import name_key
from referee.engine.errors import RuleViolation
from referee.engine.facts import other
from referee.engine.registry import rule
from referee.engine.requirements import REQUIREMENT_TYPES
from referee.engine.state_types import PendingDict


@rule("10.3")
def investigation_power(g: Board, player: int, case: str, modifier: int = 0) -> int:
    """RULES 10.3: the investigator's own fairies and evidence on the case, plus modifiers."""
    return (
        sum(g.power(f) for f in g.fairies_on(player, case))
        + sum(g.power(e) for e in g.evidence_on(player, case))
        + modifier
    )


@rule("10.5")
def requirements_hold(g: Board, player: int, case: str) -> bool:
    """RULES 10.5: every requirement, counted for the investigator on that case (docs/api.md §8)."""
    fairies = [name_key(g.card(f).name) for f in g.fairies_on(player, case)]  # names as RULES 3.2.1 reads them
    evidence = [name_key(g.card(e).name) for e in g.evidence_on(player, case)]
    return all(
        REQUIREMENT_TYPES[req.kind].holds(
            fairies, evidence, name_key(req.value) if isinstance(req.value, str) else req.value
        )
        for req in g.card(case).requires
    )


class Investigate(MainStepRule):
    """RULES 8.8 / 10: investigate a case one's own fairy is dispatched to."""

    type = "investigate"

    @rule("10.1", "no_fairy_on_case")
    def check(self, g: Board, a: Action) -> None:
        require_case_in_play(g, a["case"])
        if not g.fairies_on(a["player"], a["case"]):  # RULES 10.1
            raise RuleViolation("no_fairy_on_case", player=a["player"], case=a["case"])

    @rule("8.8")
    @rule("10.2")
    def declare(self, g: Board, a: Action) -> None:
        found = g.case_in_play(a["case"])
        assert found is not None  # check() found it, and declaring changes no case
        entry = found[1]
        if not entry["face_up"]:  # RULES 10.2: face up now, and for good (4.4)
            entry["face_up"] = True
            g.emit("reveal", case=a["case"], card=g.s["cards"][a["case"]])

    @rule("10.2.1")
    @rule("10.4")
    @rule("10.6")
    def resolve(self, g: Board, a: Action, pending: PendingDict | None) -> None:
        player, case = a["player"], a["case"]
        if g.case_in_play(case) is None or not g.fairies_on(player, case):  # RULES 10.2.1
            g.emit("investigation", player=player, case=case, outcome="abandoned")
            return
        power = investigation_power(g, player, case, pending["power"] if pending else 0)
        level = g.card(case).level
        if power < level:  # RULES 10.4: the cards that worked the case are trashed
            g.emit("investigation", player=player, case=case, power=power, level=level, outcome="failed")
            for ev in g.evidence_on(player, case):
                g.trash_from_field(player, "evidence", ev)
            for f in g.fairies_on(player, case):
                g.trash_from_field(player, "fairies", f)
            return
        if not requirements_hold(g, player, case):  # RULES 10.5
            g.emit("investigation", player=player, case=case, power=power, level=level, outcome="continues")
            return
        hit = g.card(case).hit  # RULES 10.6
        g.emit("investigation", player=player, case=case, power=power, level=level, outcome="solved")
        g.mill(other(player), hit)  # 10.6.1 (11.4: not yet a loss)
        g.case_leaves(case)  # 10.6.2, 10.6.3
        g.emit("solved", case=case, by=player, hit=hit)

    def legal(self, g: Board, player: int, free: int) -> list[Action]:
        return self.affordable(g, player, free)  # the candidates are cases in play with an own fairy on them

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        manned = {f["case"] for f in g.player(player)["fairies"]}  # fairies_on(player, case) is non-empty
        for case in g.all_cases():
            if case in manned:
                yield simple(self.type, player, case=case)
