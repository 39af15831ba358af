"""The board: a state together with its catalog, and the moves every rule shares.

:class:`Board` wraps one (already checked) state dict. Queries read it;
moves mutate it and record events. Rules modules build on these so that
"a card goes to the trash" (RULES 4.5–4.7) or "a player must draw"
(RULES 11.1) is written once.
"""

from __future__ import annotations

from typing import Any

from referee.engine.catalog import Card, Catalog
from referee.engine.event_types import EventDict
from referee.engine.facts import Outcome, Phase, Reason, majority, other
from referee.engine.flow import Edge, advance, who_acts
from referee.engine.registry import rule
from referee.engine.state_types import (
    CaseEntryDict,
    EvidenceEntryDict,
    FairyEntryDict,
    FieldZone,
    PlayerDict,
    StateDict,
)

# The enum members this module compares with, bound once: reading one through its class is an
# attribute lookup of the enum's metaclass on every read.
_OVER = Phase.OVER
_DECK_OUT = Reason.DECK_OUT


class Board:
    __slots__ = ("catalog", "events", "now", "s")

    def __init__(self, catalog: Catalog, state: StateDict, now: int | None = None):
        self.catalog = catalog
        self.s = state
        self.events: list[EventDict] = []
        self.now = now  # when the move under way was recorded, for a clock (clocks.py); None: no time given

    # -- queries -----------------------------------------------------------

    @property
    def over(self) -> bool:
        over: bool = self.s["phase"] == _OVER
        return over

    def player(self, i: int) -> PlayerDict:
        return self.s["players"][i]

    def card(self, iid: str) -> Card:
        return self.catalog.cards[self.s["cards"][iid]]

    def kind(self, iid: str) -> str | None:
        cid = self.s["cards"].get(iid)
        return None if cid is None else self.catalog.cards[cid].kind

    def on_field(self, zone: FieldZone, iid: str) -> tuple[int, Any] | None:
        """(controller, entry) of a card in either player's ``cases``, ``fairies`` or ``evidence``
        (the entry is of the zone's TypedDict: the typed lookups below say which)."""
        for i in (0, 1):
            for e in self.s["players"][i][zone]:
                if e["card"] == iid:
                    return i, e
        return None

    def case_in_play(self, iid: str) -> tuple[int, CaseEntryDict] | None:
        return self.on_field("cases", iid)

    def fairy_on_field(self, iid: str) -> tuple[int, FairyEntryDict] | None:
        return self.on_field("fairies", iid)

    def evidence_on_field(self, iid: str) -> tuple[int, EvidenceEntryDict] | None:
        return self.on_field("evidence", iid)

    def hand_of_kind(self, player: int, kind: str) -> list[str]:
        """The cards of ``kind`` in ``player``'s hand, in hand order."""
        of_kind, cards = self.catalog.ids_of_kind.get(kind, frozenset()), self.s["cards"]
        return [iid for iid in self.s["players"][player]["hand"] if cards.get(iid) in of_kind]

    def own_entry(self, player: int, zone: FieldZone, iid: str) -> Any:
        """``player``'s entry of ``iid`` in ``zone`` (of the zone's TypedDict), or ``None``."""
        for e in self.s["players"][player][zone]:
            if e["card"] == iid:
                return e
        return None

    def all_cases(self) -> list[str]:
        return [e["card"] for pl in self.s["players"] for e in pl["cases"]]

    def fairies_on(self, player: int, case: str) -> list[str]:
        return [f["card"] for f in self.s["players"][player]["fairies"] if f["case"] == case]

    def evidence_on(self, player: int, case: str) -> list[str]:
        return [e["card"] for e in self.s["players"][player]["evidence"] if e["case"] == case]

    def power(self, iid: str) -> int:
        """Printed power plus every until-end-of-turn modifier (docs/api.md §8 ``power``)."""
        modifiers: int = sum(m["power"] for m in self.s["modifiers"] if m["card"] == iid)
        return self.card(iid).power + modifiers

    def unactioned_cases(self, player: int) -> list[str]:
        return [e["card"] for e in self.s["players"][player]["cases"] if not e["actioned"]]

    def who_acts(self) -> int:
        """RULES 12.1: the responder inside a window, else the active player."""
        return who_acts(self.s)

    # -- moves -------------------------------------------------------------

    def emit(self, kind: str, **fields: Any) -> None:
        event: Any = {
            "type": kind,
            **fields,
        }  # of the shape EventDict names for ``kind`` (tests/test_fair_play_engine.py)
        self.events.append(event)

    def lose(self, loser: int, reason: Reason) -> None:
        """RULES 11.1 / 11.2: the game ends; the opponent wins."""
        s = self.s
        outcome = Outcome(reason, other(loser))
        advance(s, Edge.GAME_ENDS)
        s["pending"] = None
        s["result"] = outcome.json()
        match = s["match"]
        if match is not None:  # RULES 14.1, 14.3: the game counts for the match
            match["wins"][outcome.winner] += 1
            if match["wins"][outcome.winner] >= majority(match["best_of"]):
                match["winner"] = outcome.winner
        self.emit("game_over", **outcome.json())

    @rule("11.1")
    def draw(self, player: int, count: int, required: bool) -> int:
        """Draw ``count`` cards one at a time; a required draw from an empty file loses (RULES 11.1)."""
        pl = self.s["players"][player]
        drawn = 0
        for _ in range(count):
            if not pl["file"]:
                if required:
                    self.emit("draw", player=player, cards=drawn)
                    self.lose(player, _DECK_OUT)
                    return drawn
                break
            pl["hand"].append(pl["file"].pop(0))
            drawn += 1
        self.emit("draw", player=player, cards=drawn)
        return drawn

    def hand_to_trash(self, player: int, iid: str) -> None:
        """A card leaves the hand for its owner's trash (a negated play, RULES 9.5)."""
        self.s["players"][player]["hand"].remove(iid)
        self.to_trash(player, iid)

    @rule("4.5")
    def to_trash(self, player: int, iid: str) -> None:
        """RULES 4.5: a card goes to its owner's trash (here, the player it belongs to)."""
        self.s["players"][player]["trash"].append(iid)

    def remove_from_field(self, player: int, zone: FieldZone, iid: str) -> None:
        """Take a fairy or evidence off the field; its until-end-of-turn modifiers end with it."""
        entries = self.s["players"][player][zone]
        for j, e in enumerate(entries):
            if e["card"] == iid:
                del entries[j]
                break
        if self.s["modifiers"]:
            self.s["modifiers"] = [m for m in self.s["modifiers"] if m["card"] != iid]

    def trash_from_field(self, player: int, zone: FieldZone, iid: str) -> None:
        self.remove_from_field(player, zone, iid)
        self.to_trash(player, iid)

    @rule("10.6.1")
    @rule("11.4")
    def mill(self, player: int, count: int) -> list[str]:
        """Trash the top ``count`` cards of a file (RULES 10.6.1, 11.4: never a loss by itself)."""
        pl = self.s["players"][player]
        taken: list[str] = pl["file"][:count]
        del pl["file"][:count]
        pl["trash"].extend(taken)
        self.emit("mill", player=player, cards=len(taken))
        return taken

    @rule("4.6")
    @rule("4.7")
    @rule("10.6.2")
    @rule("10.6.3")
    def case_leaves(self, case: str) -> None:
        """RULES 4.6/4.7: a case leaves the field; evidence on it is trashed, fairies become standby."""
        found = self.case_in_play(case)
        if found is None:
            return
        owner, _ = found
        cases = self.s["players"][owner]["cases"]
        cases[:] = [e for e in cases if e["card"] != case]
        self.to_trash(owner, case)
        for i in (0, 1):  # evidence in the order attached, per owner
            for ev in self.evidence_on(i, case):
                self.trash_from_field(i, "evidence", ev)
        for i in (0, 1):
            for f in self.s["players"][i]["fairies"]:
                if f["case"] == case:
                    f["case"] = None
