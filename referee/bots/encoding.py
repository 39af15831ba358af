"""A fixed-size observation of one seat's view for one catalog (docs/bots.md), beside the action space.

Read from one seat's view (docs/api.md §5): nothing the seat may not know
goes in. The action space is :class:`referee.bots.actions.ActionSpace`
(re-exported here). Used by the PettingZoo environment
(:mod:`referee.bots.env`) and open to any bot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from referee.bots.actions import SIMPLE, ActionSpace
from referee.bots.extra import np
from referee.engine import Catalog, FieldZone, ViewDict
from referee.engine.facts import Phase, Step
from referee.engine.model import RESPONDABLE

__all__ = ["CASE_SLOTS", "EVENT_TYPES", "FIXED", "ActionSpace", "InfoState", "Observation"]

FIXED = SIMPLE  # the actions of one index each, first in the space: concede is FIXED.index("concede")
CASE_SLOTS_PER_PLAYER = 10
CASE_SLOTS = 2 * CASE_SLOTS_PER_PLAYER
# The engine's own lists, in their order (the layout's one-hot blocks follow it).
PHASES = tuple(Phase)
STEPS = tuple(Step)
SCALARS = 17
CASE_FEATURES = 6
PER_CARD = ("my hand", "my trash", "opponent's trash", "my field", "opponent's field")
# The event types (docs/api.md §1's events, as the engine emits them), in a fixed order for one-hots.
EVENT_TYPES = (
    "game_started", "draw", "mulligan", "keep", "turn_started", "case_played", "discard_owed", "discard",
    "paid", "window_opened", "counter", "window_closed", "negated", "investigation_power", "game_over", "mill",
    "skipped", "power", "ready", "bounce", "trash", "reveal", "recover", "ability", "spell", "investigation",
    "solved", "fairy_played", "evidence_played", "dispatch", "redispatch", "recall",
)  # fmt: skip
RECENT_EVENTS = 16
PADDING = [0.0] * (CASE_SLOTS_PER_PLAYER * CASE_FEATURES)  # the case slots one player leaves empty (a tail of it)
CARD_KEYS = ("card", "fairy", "evidence", "case")  # where an event names its one card
FIELD: tuple[FieldZone, ...] = ("cases", "fairies", "evidence")
SUPPORT: tuple[Literal["fairies", "evidence"], ...] = (
    "fairies",
    "evidence",
)  # what adds to an investigation's power on its case


def seat_of(view: ViewDict) -> int:
    """The seat whose view this is (a spectator's view has none to encode)."""
    seat = view["viewer"]
    if seat is None:
        raise ValueError("a seat's view is encoded, not a spectator's")
    return seat


class Observation:
    """The seat's view as a fixed-size float32 vector; the layout is :meth:`layout` (docs/bots.md)."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.card_ids = sorted(catalog.cards)
        self.position = {cid: i for i, cid in enumerate(self.card_ids)}
        self.c = len(self.card_ids)
        # Each card's printed level / 10 and power, read once here rather than from the catalog at every encode.
        self.level = {cid: card.level / 10 for cid, card in catalog.cards.items()}
        self.power = {cid: card.power for cid, card in catalog.cards.items()}
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

    def encode(self, view: ViewDict) -> np.ndarray:
        # Three parts, each written the cheapest way: the scalars and the case slots as Python lists (numpy's
        # item writes cost several times a list's), the copies of each card as indices counted by numpy (a
        # list of the whole vector's length costs more to convert than all the rest).
        seat = seat_of(view)
        me, opp = view["players"][seat], view["players"][1 - seat]
        cards = view["cards"]
        head = [0.0] * (SCALARS + len(RESPONDABLE))
        pending = view.get("pending")
        head[0] = view["turn"] / 50
        head[1 + PHASES.index(view["phase"])] = 1
        head[4 + STEPS.index(view["step"])] = 1
        head[8] = view["active"] == seat
        head[9] = view["first_player"] == seat
        head[10] = bool(view["case_played"])
        head[11] = pending is not None
        head[12] = pending is not None and pending["responder"] == seat
        head[13], head[14] = me["file"] / 40, opp["file"] / 40
        head[15], head[16] = len(me["hand"]) / 10, len(opp["hand"]) / 10
        if pending is not None and pending["action"]["type"] in RESPONDABLE:
            head[SCALARS + RESPONDABLE.index(pending["action"]["type"])] = 1
        position, c = self.position, self.c
        field = FIELD
        counted: list[int] = []  # for each card of each block, its index in the blocks (numpy counts them)
        for block, iids in enumerate(
            (
                me["hand"],
                me["trash"],
                opp["trash"],
                [e["card"] for z in field for e in me[z]],
                [e["card"] for z in field for e in opp[z]],
            )
        ):
            base = block * c
            # position.get(None) is None: a card the view does not name is skipped (map keeps this loop in C)
            counted += [base + k for k in map(position.get, map(cards.get, iids)) if k is not None]  # type: ignore[arg-type]
        power = self._powers(view, seat)
        mine_on: dict[str, int] = {}
        for f in me["fairies"]:
            if f["case"] is not None:
                mine_on[f["case"]] = mine_on.get(f["case"], 0) + 1
        slots: list[float] = []
        level = self.level
        for p in (seat, 1 - seat):
            cases = view["players"][p]["cases"][:CASE_SLOTS_PER_PLAYER]
            for e in cases:
                iid = e["card"]
                cid = cards.get(iid)
                slots += (
                    1,
                    e["face_up"],
                    e["actioned"],
                    level[cid] if cid else 0,
                    mine_on.get(iid, 0),
                    power.get(iid, 0) / 10,
                )
            slots += PADDING[len(cases) * CASE_FEATURES :]
        v = np.empty(self.size, dtype=np.float32)
        at = len(head)
        v[:at] = head
        v[at : at + len(PER_CARD) * c] = np.bincount(counted, minlength=len(PER_CARD) * c)
        v[at + len(PER_CARD) * c :] = slots
        return v

    def _powers(self, view: ViewDict, seat: int) -> dict[str, int]:
        """My investigation power on each case (RULES 10.3: my fairies and evidence there, and modifiers)."""
        cards, me = view["cards"], view["players"][seat]
        bonus: dict[str, int] = {}
        for m in view.get("modifiers", ()):
            bonus[m["card"]] = bonus.get(m["card"], 0) + m["power"]
        out: dict[str, int] = {}
        for zone in SUPPORT:
            for e in me[zone]:
                if e["case"] is not None:
                    out[e["case"]] = out.get(e["case"], 0) + self.power[cards[e["card"]]] + bonus.get(e["card"], 0)
        return out


class InfoState:
    """The seat's information state as a fixed-size float32 vector: the view (:class:`Observation`), the
    opponent's cards the seat has seen (ever, wherever they went since), and the last
    :data:`RECENT_EVENTS` events as the seat was told them (docs/api.md §10's filter: what the seat may know).

    Everything in it the seat was shown; :meth:`layout` names each block."""

    recent = RECENT_EVENTS

    def __init__(self, catalog: Catalog):
        self.view = Observation(catalog)
        self.c = self.view.c
        self.per_event = len(EVENT_TYPES) + 2 + self.c
        self.size = self.view.size + self.c + RECENT_EVENTS * self.per_event

    def layout(self) -> list[tuple[int, int, str]]:
        out = [(a, b, "view: " + what) for a, b, what in self.view.layout()]
        at = self.view.size
        out.append((at, at + self.c, "the opponent's cards I have seen, copies of each catalog id / 3"))
        at += self.c
        what = "event types one-hot, by me, by the opponent, the card it names (catalog id one-hot, if known)"
        out.append((at, at + RECENT_EVENTS * self.per_event, f"the last {RECENT_EVENTS} events, newest first: {what}"))
        return out

    def encode(
        self,
        view: ViewDict,
        opponent_seen: dict[str, str],
        events: Iterable[Mapping[str, Any]],  # any event's keys are read alike: its player, the card it names
        known: dict[str, str],
    ) -> np.ndarray:
        """``opponent_seen``: instance -> catalog id of the opponent's cards seen; ``events``: the seat's, newest
        first (at most :data:`RECENT_EVENTS` used); ``known``: instance -> catalog id the seat knows."""
        seat = seat_of(view)
        v = np.zeros(self.size, dtype=np.float32)
        v[: self.view.size] = self.view.encode(view)
        at = self.view.size
        position = self.view.position
        for cid in opponent_seen.values():
            v[at + position[cid]] += 1 / 3
        at += self.c
        n_types = len(EVENT_TYPES)
        for k, event in enumerate(events):
            if k == RECENT_EVENTS:
                break
            o = at + k * self.per_event
            kind = event.get("type")
            if kind in EVENT_TYPES:
                v[o + EVENT_TYPES.index(kind)] = 1
            who = event.get("player")
            if who in (0, 1):
                v[o + n_types + (0 if who == seat else 1)] = 1
            for key in CARD_KEYS:
                named = known.get(event[key]) if isinstance(event.get(key), str) else None
                if named is not None:
                    v[o + n_types + 2 + position[named]] = 1
                    break
        return v
