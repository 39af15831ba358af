"""RULES 7: actions, the one cost unit, paid by turning unactioned cases sideways."""

from __future__ import annotations

from referee.engine.board import Board
from referee.engine.errors import RuleViolation
from referee.engine.registry import rule


@rule("7.2", "cannot_pay")
@rule("7.3", "wrong_pay_count", "bad_payer")
def payers(g: Board, player: int, cost: int, pay: list[str] | None) -> list[str]:
    """The cases that pay ``cost`` for ``player``, or the violation (RULES 7.2, 7.3).

    Without ``pay``, the unactioned cases the player has controlled longest
    (``cases`` is in the order played).
    """
    if pay is None and not cost:  # nothing to pay, nothing named: most actions of a turn
        return []
    own = g.s["players"][player]["cases"]
    if pay is None:
        free = [e["card"] for e in own if not e["actioned"]]
        if len(free) < cost:  # RULES 7.2
            raise RuleViolation("cannot_pay", player=player, cost=cost, available=len(free))
        return free[:cost]
    if len(pay) != cost:  # RULES 7.3: the wrong number of cases
        raise RuleViolation("wrong_pay_count", cost=cost, given=len(pay))
    by_id = {e["card"]: e for e in own}
    seen: set[str] = set()
    for case in pay:
        entry = by_id.get(case)
        if case in seen:
            why = "named twice"
        elif entry is None:
            why = "not theirs" if g.case_in_play(case) else "not in play"
        elif entry["actioned"]:
            why = "already actioned"
        else:
            seen.add(case)
            continue
        raise RuleViolation("bad_payer", case=case, why=why)
    return list(pay)


@rule("7.1")
def pay(g: Board, player: int, cases: list[str]) -> None:
    """RULES 7.1: each paying case turns sideways (actioned)."""
    if not cases:
        return
    wanted = set(cases)
    for e in g.s["players"][player]["cases"]:
        if e["card"] in wanted:
            e["actioned"] = True
    g.emit("paid", player=player, cases=list(cases))
