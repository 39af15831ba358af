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

from typing import Any

from referee.engine.errors import rule
from referee.engine.fair_deal import commitment


VIEW_SCHEMA = "ace-file/view@1"


@rule("4.4")
def visible_cards(state: dict[str, Any], viewer: int) -> set[str]:
    """The instance ids whose catalog identity ``viewer`` may know: a face-down case only to its owner (RULES 4.4)."""
    known: set[str] = set(state["players"][viewer]["hand"])
    for i, pl in enumerate(state["players"]):
        known.update(pl["trash"])
        known.update(e["card"] for e in pl["fairies"])
        known.update(e["card"] for e in pl["evidence"])
        known.update(e["card"] for e in pl["cases"] if i == viewer or e["face_up"])
    pen = state["pending"]
    if pen is not None:
        known.update(pen["counters"])  # counters already sit in a trash; kept for clarity
        act = pen["action"]
        if act["type"] != "play_case" and "card" in act:
            known.add(act["card"])
    return known


def view_of(s: dict[str, Any], player: int) -> dict[str, Any]:
    """The view of a checked state for ``player`` (0 or 1), docs/api.md §5."""
    known = visible_cards(s, player)
    out = {k: v for k, v in s.items() if k not in ("seed", "rng", "seal", "cards", "players")}
    out["schema"] = VIEW_SCHEMA
    out["viewer"] = player
    out["commitment"] = commitment(s["seed"])
    out["cards"] = {iid: cid for iid, cid in s["cards"].items() if iid in known}
    out["players"] = [{**pl, "file": len(pl["file"])} for pl in s["players"]]
    return out
