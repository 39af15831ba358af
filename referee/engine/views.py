"""docs/api.md §5 and RULES 4.1/4.4: what one player may see.

The viewer knows: their own hand and face-down cases, every card on the
field except the opponent's face-down cases, both trashes, and, as docs/api.md §5
says, the card of a pending action, which its declaration revealed (a case
is played face down, so a pending ``play_case`` stays hidden). Files are
counts. No ``seed`` or ``rng``: they would let a viewer re-deal both files;
the view carries the seed's ``commitment`` instead (docs/api.md §10) and
``seq``, so a player sees a rollback. A view is never accepted as a state.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from referee.engine.clocks import clock_view
from referee.engine.facts import commitment
from referee.engine.registry import rule
from referee.engine.state_types import StateDict, ViewDict

VIEW_SCHEMA = "ace-file/view@1"
NOT_IN_VIEW = ("seed", "rng", "seal", "cards", "players")  # cards and players are shown filtered

_card = itemgetter("card")  # map() with it reads a zone's entries in C: every private answer does this


@rule("4.4")
def visible_cards(state: StateDict, viewer: int | None) -> set[str]:
    """The instance ids whose catalog identity ``viewer`` may know: a face-down case only to its owner (RULES 4.4).

    ``None`` is a spectator (docs/api.md §12): exactly what both players may know, from this same predicate.
    """
    if viewer is None:
        return visible_cards(state, 0) & visible_cards(state, 1)
    players = state["players"]
    known: set[str] = set(players[viewer]["hand"])
    for i, pl in enumerate(players):
        known.update(pl["trash"], map(_card, pl["fairies"]), map(_card, pl["evidence"]))
        known.update(map(_card, pl["cases"]) if i == viewer else [e["card"] for e in pl["cases"] if e["face_up"]])
    pen = state["pending"]
    if pen is not None:
        known.update(pen["counters"])  # counters already sit in a trash; kept for clarity
        act = pen["action"]
        if act["type"] != "play_case" and "card" in act:
            known.add(act["card"])
    return known


def view_of(s: StateDict, player: int | None, known: set[str] | None = None) -> ViewDict:
    """The view of a checked state for ``player`` (0 or 1, or None for a spectator), docs/api.md §5 and §12.

    ``known`` is ``visible_cards(s, player)`` when the caller has it already.
    """
    if known is None:
        known = visible_cards(s, player)
    out: Any = dict(s)  # then the keys not shown dropped: the same keys, in the same order; a ViewDict when done
    for key in NOT_IN_VIEW:
        out.pop(key, None)
    out["schema"] = VIEW_SCHEMA
    out["viewer"] = player
    out["player"] = player  # docs/api.md §12 names it so (`null` for a spectator); `viewer` came first
    out["commitment"] = commitment(s["seed"])
    out["cards"] = {iid: cid for iid, cid in s["cards"].items() if iid in known}
    out["players"] = [{**pl, "file": len(pl["file"])} for pl in s["players"]]
    if s.get("clock") is not None:  # docs/api.md §15: time left at the last move, whose runs, since when
        out["clock"] = clock_view(s)
    view: ViewDict = out
    return view
