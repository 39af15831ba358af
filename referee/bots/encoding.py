"""A stable discrete action space and a fixed-size observation for one catalog (docs/bots.md).

Both are read from one seat's view (docs/api.md §5) and the legal actions the
referee lists: nothing the seat may not know goes in. Used by the PettingZoo
environment (``referee.env``) and open to any bot.

Actions. Cards in hand are named by catalog id; cards on the field by
*slot*: case slots 0–9 are the acting seat's cases in the order played,
10–19 the opponent's; fairy slots 0–19 the seat's fairies, evidence slots
0–19 its evidence, in their zone's order. The index of an action is
``OFFSETS[type] + position`` in this layout (:meth:`ActionSpace.describe`
prints it for a catalog):

======================  ==========================================
``mulligan`` … ``concede``  one index each (see :data:`FIXED`)
``play_case``            one per case id of the catalog
``play_fairy``           one per fairy id
``play_evidence``        evidence id × case slot
``dispatch``             fairy slot × case slot
``redispatch``           fairy slot × case slot
``recall``               fairy slot
``investigate``          case slot
``use_ability``          (fairy slot, then evidence slot + 20) × ability
``cast_spell``           one per spell id
``counter``              one per counter id
======================  ==========================================

Targets and ``discard``'s cards are not in the index: an index stands for
the first legal action with that key in the referee's order (the referee's
first target choice; the listed discard). An action on a slot past the last
(an eleventh case of one player) has no index and is masked out.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from referee.engine import Catalog
from referee.engine.facts import Phase, Step
from referee.engine.model import RESPONDABLE

FIXED = ("mulligan", "keep", "skip_case", "draw", "pass", "end_turn", "discard", "concede")
CASE_SLOTS_PER_PLAYER = 10
CASE_SLOTS = 2 * CASE_SLOTS_PER_PLAYER
FAIRY_SLOTS = 20
EVIDENCE_SLOTS = 20
# The engine's own lists, in their order (the layout's one-hot blocks follow it).
PHASES = tuple(Phase)
STEPS = tuple(Step)
SCALARS = 17
CASE_FEATURES = 6
PER_CARD = ("my hand", "my trash", "opponent's trash", "my field", "opponent's field")


def _ids(catalog: Catalog, kind: str) -> list[str]:
    return sorted(c.id for c in catalog.cards.values() if c.kind == kind)


class ActionSpace:
    """The catalog's discrete actions: :meth:`index` of a legal action, :meth:`mask`, :meth:`action` back."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.ids = {kind: _ids(catalog, kind) for kind in ("case", "fairy", "evidence", "spell", "counter")}
        self.abilities = max([len(c.abilities) for c in catalog.cards.values()] or [1]) or 1
        sizes = dict.fromkeys(FIXED, 1)
        sizes |= {
            "play_case": len(self.ids["case"]),
            "play_fairy": len(self.ids["fairy"]),
            "play_evidence": len(self.ids["evidence"]) * CASE_SLOTS,
            "dispatch": FAIRY_SLOTS * CASE_SLOTS,
            "redispatch": FAIRY_SLOTS * CASE_SLOTS,
            "recall": FAIRY_SLOTS,
            "investigate": CASE_SLOTS,
            "use_ability": (FAIRY_SLOTS + EVIDENCE_SLOTS) * self.abilities,
            "cast_spell": len(self.ids["spell"]),
            "counter": len(self.ids["counter"]),
        }
        self.offsets: dict[str, int] = {}
        n = 0
        for kind, size in sizes.items():
            self.offsets[kind] = n
            n += size
        self.sizes = sizes
        self.n = n

    def describe(self) -> str:
        return "\n".join(f"{o:5d}..{o + self.sizes[k] - 1:5d}  {k}" for k, o in self.offsets.items())

    # -- slots, from the acting seat's view -------------------------------------------------------

    @staticmethod
    def _case_slot(view: dict[str, Any], seat: int, iid: str) -> int | None:
        for p, base in ((seat, 0), (1 - seat, CASE_SLOTS_PER_PLAYER)):
            for i, e in enumerate(view["players"][p]["cases"]):
                if e["card"] == iid:
                    return base + i if i < CASE_SLOTS_PER_PLAYER else None
        return None

    @staticmethod
    def _slot(view: dict[str, Any], seat: int, zone: str, iid: str, limit: int) -> int | None:
        for i, e in enumerate(view["players"][seat][zone]):
            if e["card"] == iid:
                return i if i < limit else None
        return None

    def index(self, action: dict[str, Any], view: dict[str, Any]) -> int | None:
        """The index of ``action`` (one the seat of ``view`` may take), or ``None`` when it has none."""
        kind, seat = action["type"], action["player"]
        base = self.offsets.get(kind)
        if base is None:  # a type the space leaves out: a time claim (docs/api.md §15), never in an unclocked game
            return None
        if kind in FIXED:
            return base
        cards = view["cards"]
        if kind in ("play_case", "play_fairy", "cast_spell", "counter"):
            pool = self.ids[
                {"play_case": "case", "play_fairy": "fairy", "cast_spell": "spell", "counter": "counter"}[kind]
            ]
            return base + pool.index(cards[action["card"]])
        if kind == "play_evidence":
            slot = self._case_slot(view, seat, action["case"])
            return (
                None if slot is None else base + self.ids["evidence"].index(cards[action["card"]]) * CASE_SLOTS + slot
            )
        if kind in ("dispatch", "redispatch"):
            f = self._slot(view, seat, "fairies", action["fairy"], FAIRY_SLOTS)
            c = self._case_slot(view, seat, action["case"])
            return None if f is None or c is None else base + f * CASE_SLOTS + c
        if kind == "recall":
            f = self._slot(view, seat, "fairies", action["fairy"], FAIRY_SLOTS)
            return None if f is None else base + f
        if kind == "investigate":
            c = self._case_slot(view, seat, action["case"])
            return None if c is None else base + c
        if kind == "use_ability":
            f = self._slot(view, seat, "fairies", action["card"], FAIRY_SLOTS)
            if f is None:
                e = self._slot(view, seat, "evidence", action["card"], EVIDENCE_SLOTS)
                f = None if e is None else FAIRY_SLOTS + e
            return None if f is None else base + f * self.abilities + action["ability"]
        raise ValueError(f"unknown action type {kind!r}")

    def legal(self, legal: list[dict[str, Any]], view: dict[str, Any]) -> dict[int, dict[str, Any]]:
        """index → the first legal action with that index (the referee's order)."""
        out: dict[int, dict[str, Any]] = {}
        for a in legal:
            i = self.index(a, view)
            if i is not None and i not in out:
                out[i] = a
        return out

    def mask(self, legal: dict[int, dict[str, Any]]) -> np.ndarray:
        m = np.zeros(self.n, dtype=np.int8)
        m[list(legal)] = 1
        return m


class Observation:
    """The seat's view as a fixed-size float32 vector; the layout is :meth:`layout` (docs/bots.md)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.card_ids = sorted(catalog.cards)
        self.position = {cid: i for i, cid in enumerate(self.card_ids)}
        self.c = len(self.card_ids)
        self.size = SCALARS + len(RESPONDABLE) + len(PER_CARD) * self.c + CASE_SLOTS * CASE_FEATURES

    def layout(self) -> list[tuple[int, int, str]]:
        """``(start, end, what)`` for each block of the vector."""
        out, at = [], 0
        for size, what in (
            (
                SCALARS,
                "scalars: turn/50; phase one-hot (mulligan, turn, over); step one-hot (mulligan, case, main, "
                "end); I am active; I went first; a case was played this turn; a window is open; I am its responder; "
                "my file/40; opponent's file/40; my hand/10; opponent's hand/10",
            ),
            (len(RESPONDABLE), "the pending action's type, one-hot: " + ", ".join(RESPONDABLE)),
            *((self.c, f"{what}: copies of each catalog id (sorted ids)") for what in PER_CARD),
            (
                CASE_SLOTS * CASE_FEATURES,
                "case slots 0-19 (mine 0-9, the opponent's 10-19) x (in play, face up, "
                "actioned, level/10 or 0 if unknown, my fairies on it, my investigation power on it/10)",
            ),
        ):
            out.append((at, at + size, what))
            at += size
        return out

    def encode(self, view: dict[str, Any]) -> np.ndarray:
        seat = view["viewer"]
        me, opp = view["players"][seat], view["players"][1 - seat]
        cards = view["cards"]
        v = np.zeros(self.size, dtype=np.float32)
        pending = view.get("pending")
        v[0] = view["turn"] / 50
        v[1 + PHASES.index(view["phase"])] = 1
        v[4 + STEPS.index(view["step"])] = 1
        v[8] = view["active"] == seat
        v[9] = view["first_player"] == seat
        v[10] = bool(view["case_played"])
        v[11] = pending is not None
        v[12] = pending is not None and pending["responder"] == seat
        v[13], v[14] = me["file"] / 40, opp["file"] / 40
        v[15], v[16] = len(me["hand"]) / 10, len(opp["hand"]) / 10
        at = SCALARS
        if pending is not None and pending["action"]["type"] in RESPONDABLE:
            v[at + RESPONDABLE.index(pending["action"]["type"])] = 1
        at += len(RESPONDABLE)

        def count(block: int, iids: Any) -> None:
            for iid in iids:
                cid = cards.get(iid)
                if cid is not None:
                    v[at + block * self.c + self.position[cid]] += 1

        field = ("cases", "fairies", "evidence")
        count(0, me["hand"])
        count(1, me["trash"])
        count(2, opp["trash"])
        count(3, [e["card"] for z in field for e in me[z]])
        count(4, [e["card"] for z in field for e in opp[z]])
        at += len(PER_CARD) * self.c
        power = self._powers(view, seat)
        for p, base in ((seat, 0), (1 - seat, CASE_SLOTS_PER_PLAYER)):
            for i, e in enumerate(view["players"][p]["cases"][:CASE_SLOTS_PER_PLAYER]):
                o = at + (base + i) * CASE_FEATURES
                cid = cards.get(e["card"])
                v[o : o + 4] = (1, e["face_up"], e["actioned"], self.catalog[cid].level / 10 if cid else 0)
                v[o + 4] = sum(1 for f in me["fairies"] if f["case"] == e["card"])
                v[o + 5] = power.get(e["card"], 0) / 10
        return v

    def _powers(self, view: dict[str, Any], seat: int) -> dict[str, int]:
        """My investigation power on each case (RULES 10.3: my fairies and evidence there, and modifiers)."""
        cards, me = view["cards"], view["players"][seat]
        bonus: dict[str, int] = {}
        for m in view.get("modifiers", ()):
            bonus[m["card"]] = bonus.get(m["card"], 0) + m["power"]
        out: dict[str, int] = {}
        for zone in ("fairies", "evidence"):
            for e in me[zone]:
                if e["case"] is not None:
                    out[e["case"]] = (
                        out.get(e["case"], 0) + self.catalog[cards[e["card"]]].power + bonus.get(e["card"], 0)
                    )
        return out
