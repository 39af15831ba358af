"""RULES 8: the main-step actions, each costing 1 action (8.2–8.7, 8.9).

Investigation (8.8) is in ``investigation.py``; abilities and spells (9.1,
9.2) in ``effects.py``. Each is respondable (RULES 9.4): ``declare`` only
pays, ``resolve`` does the action when its window closes, re-checking what a
counter may have changed (RULES 9.6: a target gone is skipped).
"""

from __future__ import annotations

from collections.abc import Iterator

from referee.engine.actions import (
    Action,
    MainStepRule,
    knows,
    require_case_in_play,
    require_dispatch_room,
    require_in_hand,
    require_own_fairy,
    simple,
)
from referee.engine.board import Board
from referee.engine.errors import RuleViolation
from referee.engine.registry import rule
from referee.engine.state_types import FairyEntryDict, PendingDict


class Draw(MainStepRule):
    """RULES 8.2: draw 1; illegal from an empty file (a voluntary draw is not a required one)."""

    type = "draw"

    @rule("8.2", "file_empty")
    def check(self, g: Board, a: Action) -> None:
        if not g.player(a["player"])["file"]:
            raise RuleViolation("file_empty", player=a["player"])

    def legal(self, g: Board, player: int, free: int) -> list[Action]:
        return [simple(self.type, player)] if free >= 1 and g.player(player)["file"] else []

    def resolve(self, g: Board, a: Action, pending: PendingDict | None) -> None:
        # A counter may have milled the file meanwhile: still voluntary, so no loss.
        g.draw(a["player"], 1, required=False)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        yield simple(self.type, player)


class _PlayFromHand(MainStepRule):
    kind = ""
    code = ""

    def check(self, g: Board, a: Action) -> None:
        require_in_hand(g, a["player"], a["card"])
        if "case" in a:
            require_case_in_play(g, a["case"])
        if g.kind(a["card"]) != self.kind:
            raise RuleViolation(self.code, card=a["card"])

    def negated(self, g: Board, a: Action) -> None:  # RULES 9.5
        g.hand_to_trash(a["player"], a["card"])

    def legal(self, g: Board, player: int, free: int) -> list[Action]:
        # The candidates are cards of the kind from the hand (onto a case in play): each passes ``check``.
        return self.affordable(g, player, free)


@rule("8.3", "not_a_fairy")
class PlayFairy(_PlayFromHand):
    """RULES 8.3: a fairy from hand onto the field, standby."""

    type, kind, code = "play_fairy", "fairy", "not_a_fairy"

    def resolve(self, g: Board, a: Action, pending: PendingDict | None) -> None:
        pl = g.player(a["player"])
        pl["hand"].remove(a["card"])
        pl["fairies"].append({"card": a["card"], "case": None})
        g.emit("fairy_played", player=a["player"], fairy=a["card"])

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        for iid in g.hand_of_kind(player, "fairy"):
            yield simple(self.type, player, card=iid)


@rule("8.4", "not_an_evidence")
class PlayEvidence(_PlayFromHand):
    """RULES 8.4: an evidence from hand onto any case in play (either player's)."""

    type, kind, code = "play_evidence", "evidence", "not_an_evidence"

    def resolve(self, g: Board, a: Action, pending: PendingDict | None) -> None:
        if g.case_in_play(a["case"]) is None:  # RULES 9.6: the case is gone; the card stays in hand
            g.emit("skipped", action=self.type, reason="case no longer in play")
            return
        pl = g.player(a["player"])
        pl["hand"].remove(a["card"])
        pl["evidence"].append({"card": a["card"], "case": a["case"]})
        g.emit("evidence_played", player=a["player"], evidence=a["card"], case=a["case"])

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        evidence = g.hand_of_kind(player, "evidence")
        cases = g.all_cases() if evidence else []  # most hands hold none: then the cases are not asked for
        for iid in evidence:
            for case in cases:
                yield simple(self.type, player, card=iid, case=case)


def _move_fairy(g: Board, player: int, fairy: str, case: str | None) -> None:
    """Set a fairy's case; a dispatched fairy goes last in the list (RULES 4.7's dispatch order)."""
    fairies = g.player(player)["fairies"]
    for j, e in enumerate(fairies):
        if e["card"] == fairy:
            e["case"] = case
            if case is not None:
                fairies.append(fairies.pop(j))
            return


def _cases_with_room(g: Board, player: int) -> set[str]:
    """The cases in play to which ``player`` may dispatch one more fairy (RULES 8.9); on a case the player
    does not know, the limit is 1 (RULES 8.9.1). Each case asked once, as it is met in its zone."""
    on_case: dict[str | None, int] = {}  # counted by hand: a Counter costs more to make than this whole count
    for f in g.player(player)["fairies"]:
        on_case[f["case"]] = on_case.get(f["case"], 0) + 1
    return {
        e["card"]
        for owner, pl in enumerate(g.s["players"])
        for e in pl["cases"]
        if on_case.get(e["card"], 0) < (g.card(e["card"]).dispatch_limit if knows(player, owner, e) else 1)
    }


class _FairyMove(MainStepRule):
    def check(self, g: Board, a: Action) -> None:
        entry = require_own_fairy(g, a["player"], a["fairy"])
        if "case" in a:
            require_case_in_play(g, a["case"])
        self.own_rule(g, a, entry)

    def own_rule(self, g: Board, a: Action, entry: FairyEntryDict) -> None:
        raise NotImplementedError

    def resolve(self, g: Board, a: Action, pending: PendingDict | None) -> None:
        entry = g.own_entry(a["player"], "fairies", a["fairy"])
        try:  # RULES 9.6: re-check what a counter may have changed
            if entry is None:
                raise RuleViolation("card_not_available", player=a["player"], card=a["fairy"], where="on the field")
            if "case" in a:
                require_case_in_play(g, a["case"])
            self.own_rule(g, a, entry)
        except RuleViolation as gone:
            g.emit("skipped", action=self.type, reason=gone.code)
            return
        _move_fairy(g, a["player"], a["fairy"], a.get("case"))
        g.emit(self.type, player=a["player"], fairy=a["fairy"], case=a.get("case"))


class Dispatch(_FairyMove):
    """RULES 8.5 (and 8.9): a standby fairy to any case in play."""

    type = "dispatch"

    @rule("8.5", "not_standby")
    def own_rule(self, g: Board, a: Action, entry: FairyEntryDict) -> None:
        if entry["case"] is not None:
            raise RuleViolation("not_standby", fairy=a["fairy"])
        require_dispatch_room(g, a["player"], a["case"])

    def legal(self, g: Board, player: int, free: int) -> list[Action]:
        # The candidates are own standby fairies and cases in play: the room on the case is left to test.
        if free < 1:
            return []
        candidates = list(self.candidates(g, player))
        if not candidates:
            return []
        room = _cases_with_room(g, player)  # asked once a case, not once a fairy and case
        return [a for a in candidates if a["case"] in room]

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        cases = g.all_cases()
        for f in g.player(player)["fairies"]:
            if f["case"] is None:
                for case in cases:  # simple()'s dict, written out: listed for every standby fairy and case
                    yield {"type": self.type, "player": player, "fairy": f["card"], "case": case}


class Redispatch(_FairyMove):
    """RULES 8.6 (and 8.9): a dispatched fairy to a different case in play."""

    type = "redispatch"

    @rule("8.6", "not_dispatched", "same_case")
    def own_rule(self, g: Board, a: Action, entry: FairyEntryDict) -> None:
        if entry["case"] is None:
            raise RuleViolation("not_dispatched", fairy=a["fairy"])
        if entry["case"] == a["case"]:
            raise RuleViolation("same_case", fairy=a["fairy"], case=a["case"])
        require_dispatch_room(g, a["player"], a["case"])

    legal = Dispatch.legal  # own dispatched fairies and other cases in play: the room is left to test

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        cases = g.all_cases()
        for f in g.player(player)["fairies"]:
            if f["case"] is not None:
                for case in cases:
                    if case != f["case"]:  # simple()'s dict, written out: listed for every fairy and case
                        yield {"type": self.type, "player": player, "fairy": f["card"], "case": case}


class Recall(_FairyMove):
    """RULES 8.7: a dispatched fairy becomes standby."""

    type = "recall"

    @rule("8.7", "recall_standby")
    def own_rule(self, g: Board, a: Action, entry: FairyEntryDict) -> None:
        if entry["case"] is None:
            raise RuleViolation("recall_standby", fairy=a["fairy"])

    def legal(self, g: Board, player: int, free: int) -> list[Action]:
        return self.affordable(g, player, free)  # the candidates are own dispatched fairies

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        for f in g.player(player)["fairies"]:
            if f["case"] is not None:
                yield simple(self.type, player, fairy=f["card"])
