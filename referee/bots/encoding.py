"""A fixed-size observation of one seat's view for one catalog (docs/bots.md), beside the action space.

Read from one seat's view (docs/api.md §5): nothing the seat may not know
goes in. The action space is :class:`referee.bots.actions.ActionSpace`
(re-exported here). Used by the PettingZoo environment
(:mod:`referee.bots.env`) and open to any bot.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from itertools import islice
from operator import itemgetter
from typing import Any, Literal

from referee.bots.actions import SIMPLE, ActionSpace
from referee.bots.extra import np
from referee.engine import Catalog, ViewDict
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
CARD_KEYS = ("card", "fairy", "evidence", "case")  # where an event names its one card
_card = itemgetter("card")  # map() with it reads a zone's entries in C
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
        # Where each thing goes in the vector (the layout below), looked up once here.
        self.phase_at = {phase.value: 1 + i for i, phase in enumerate(PHASES)}
        self.step_at = {step.value: 4 + i for i, step in enumerate(STEPS)}
        self.pending_at = {kind: SCALARS + i for i, kind in enumerate(RESPONDABLE)}
        per_card = SCALARS + len(RESPONDABLE)
        self.block_at: list[dict[str | None, int]] = [
            {None: self.size, **{cid: per_card + b * self.c + i for cid, i in self.position.items()}}
            for b in range(len(PER_CARD))
        ]
        self.count_at = tuple(block.__getitem__ for block in self.block_at)  # bound once: read at every encode
        cases = per_card + len(PER_CARD) * self.c
        self.slot_at = [
            [
                tuple(range(cases + s * CASE_FEATURES, cases + (s + 1) * CASE_FEATURES))
                for s in range(first, first + CASE_SLOTS_PER_PLAYER)
            ]
            for first in (0, CASE_SLOTS_PER_PLAYER)
        ]

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
        # Written for speed (an environment step encodes once): the copies of each card are positions in the
        # vector that numpy counts; everything else is a list of (position, value) that numpy writes in one go
        # (a numpy item write costs several times a list's; a list of the whole vector costs more to convert).
        seat = seat_of(view)
        players, pending = view["players"], view.get("pending")
        me, opp = players[seat], players[1 - seat]
        at, value = self._head(view, seat, me, opp, pending)
        self._case_slots(view, seat, me, opp, at, value)
        v = np.bincount(self._copies(view["cards"], me, opp), minlength=self.size + 1)[:-1].astype(np.float32)
        v[at] = value
        return v

    def _head(self, view: ViewDict, seat: int, me: Any, opp: Any, pending: Any) -> tuple[list[int], list[float]]:
        """The scalars and the pending action's one-hot, as positions and values (the layout's first blocks)."""
        at = [0, self.phase_at[view["phase"]], self.step_at[view["step"]], *range(8, SCALARS)]
        value = [
            view["turn"] / 50,
            1,
            1,
            view["active"] == seat,
            view["first_player"] == seat,
            bool(view["case_played"]),
            pending is not None,
            pending is not None and pending["responder"] == seat,
            me["file"] / 40,
            opp["file"] / 40,
            len(me["hand"]) / 10,
            len(opp["hand"]) / 10,
        ]
        pending_at = None if pending is None else self.pending_at.get(pending["action"]["type"])
        if pending_at is not None:
            at.append(pending_at)
            value.append(1)
        return at, value

    def _copies(self, cards: dict[str, str], me: Any, opp: Any) -> list[int]:
        """For each card of each per-card block, its position in the vector (a card the view does not name
        counts at position :attr:`size`, cut off after counting): looked up by ``map``, all in C."""
        get = cards.get
        hand, my_trash, opp_trash, my_field, opp_field = self.count_at
        counted = [*map(hand, map(get, me["hand"])), *map(my_trash, map(get, me["trash"]))]
        counted += map(opp_trash, map(get, opp["trash"]))
        counted += map(my_field, map(get, map(_card, [*me["cases"], *me["fairies"], *me["evidence"]])))
        counted += map(opp_field, map(get, map(_card, [*opp["cases"], *opp["fairies"], *opp["evidence"]])))
        return counted

    def _case_slots(self, view: ViewDict, seat: int, me: Any, opp: Any, at: list[int], value: list[float]) -> None:
        """The case slots' features, appended as positions and values (empty slots stay 0)."""
        cards, level, power = view["cards"], self.level, self._powers(view, seat)
        mine_on: dict[str, int] = {}
        for f in me["fairies"]:
            if f["case"] is not None:
                mine_on[f["case"]] = mine_on.get(f["case"], 0) + 1
        for slots, pl in zip(self.slot_at, (me, opp), strict=True):
            for o, e in zip(slots, pl["cases"]):  # at most CASE_SLOTS_PER_PLAYER
                iid = e["card"]
                cid = cards.get(iid)
                at += o
                value += (
                    1,
                    e["face_up"],
                    e["actioned"],
                    level[cid] if cid else 0,
                    mine_on.get(iid, 0),
                    power.get(iid, 0) / 10,
                )

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
        self.event_at = {kind: i for i, kind in enumerate(EVENT_TYPES)}
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
        observation: np.ndarray | None = None,
    ) -> np.ndarray:
        """``opponent_seen``: instance -> catalog id of the opponent's cards seen; ``events``: the seat's, newest
        first (at most :data:`RECENT_EVENTS` used); ``known``: instance -> catalog id the seat knows;
        ``observation``: the view's :class:`Observation` when the caller has it already (else encoded here)."""
        seat = seat_of(view)
        v = np.zeros(self.size, dtype=np.float32)
        v[: self.view.size] = self.view.encode(view) if observation is None else observation
        position, seen_at = self.view.position, self.view.size
        seen: dict[int, int] = {}
        for cid in opponent_seen.values():
            seen[seen_at + position[cid]] = seen.get(seen_at + position[cid], 0) + 1
        if seen:
            v[list(seen)] = [n / 3 for n in seen.values()]
        ones = self._events(seat, events, known, seen_at + self.c)
        if ones:
            v[ones] = 1
        return v

    def _events(self, seat: int, events: Iterable[Mapping[str, Any]], known: dict[str, str], start: int) -> list[int]:
        """The positions the recent events set to 1: each one's type, by whom, the card it names if known."""
        n_types, position = len(EVENT_TYPES), self.view.position
        ones: list[int] = []
        for k, event in enumerate(islice(events, RECENT_EVENTS)):
            o = start + k * self.per_event
            kind = self.event_at.get(event.get("type"))  # type: ignore[arg-type]
            if kind is not None:
                ones.append(o + kind)
            who = event.get("player")
            if who in (0, 1):
                ones.append(o + n_types + (0 if who == seat else 1))
            for key in CARD_KEYS:
                named = known.get(event[key]) if isinstance(event.get(key), str) else None
                if named is not None:
                    ones.append(o + n_types + 2 + position[named])
                    break
        return ones
