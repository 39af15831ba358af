"""A complete, stable discrete action space for one catalog (docs/bots.md, "The action space").

Every action the referee lists (``legal_actions``) has an index of its own,
targets included, and every index stands for at most one listed action: the
map is one-to-one in every state (tests/test_action_space.py checks it over
random play on two catalogs). The layout depends on the catalog alone, never
on the game. It is read from the acting seat's view: nothing the seat may not
know goes into an index.

The encoding is factored: the space is a sequence of **blocks**, one per
*head* (an action type, with the card it plays or uses where it names one),
and inside a block the index is a mixed-radix number of the head's
**coordinates**, each counted from the acting seat:

- ``copy``: which of the seat's copies of that card, in the zone's order
  (the second AF-001 in hand is copy 1): copies of one card are different
  instances, so different listed actions;
- ``case``: case slot — the seat's cases in the order played (0 …), then
  the opponent's (from ``capacity["case"]``);
- ``fairy`` / ``evidence``: the seat's fairies (evidence) in their zone's
  order, then the opponent's;
- ``mine:fairy``: the seat's own fairies only (dispatch, redispatch, recall);
- a target: one coordinate per targeted effect of the card, in the card's
  order (RULES 9.6): a fairy, evidence or case slot as above; for
  ``recover`` a card of the seat's trash, by (catalog id, copy); for any
  other effect any card on the field (cases, then fairies, then evidence).

Capacities are what a legal deck can hold (RULES 3.1, 3.2): a player's
cases in play are at most the copies the catalog's case names allow (40 at
most), and so on; so no state can run out of slots. ``pay`` is not part of an
action's index: the listing has none (docs/api.md §6), and the referee pays
with its own choice when it is absent. ``discard`` is listed once (the
last cards of the hand), so it has one index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from referee.engine import ActionDict, Catalog, FieldZone, ViewDict
from referee.engine.facts import DECK_SIZE
from referee.engine.model import ACTION_TYPES

# The actions with no field besides type and player: one index each.
SIMPLE = ("mulligan", "keep", "skip_case", "draw", "pass", "end_turn", "discard", "concede", "claim_time")
FIELD_KINDS = ("case", "fairy", "evidence")
FAIRY_TO_CASE = ("dispatch", "redispatch")  # one own fairy and one case
ABLE = ("fairy", "evidence")  # the kinds whose cards have abilities (RULES 9.1)


@dataclass(frozen=True, slots=True)
class Block:
    """One head's indices: ``offset`` + the mixed-radix number of its coordinates (``dims``, ``sizes``)."""

    head: tuple[Any, ...]
    offset: int
    dims: tuple[str, ...]
    sizes: tuple[int, ...]

    @property
    def size(self) -> int:
        n = 1
        for s in self.sizes:
            n *= s
        return n

    def at(self, coords: Iterable[int]) -> int:
        i = 0
        for c, s in zip(coords, self.sizes, strict=True):
            if not 0 <= c < s:
                raise ValueError(f"{self.head}: coordinate {c} outside 0..{s - 1}")
            i = i * s + c
        return self.offset + i

    def at1(self, c: int) -> int:
        """:meth:`at` of one coordinate (most heads have one or two: said without a loop)."""
        if len(self.sizes) != 1 or not 0 <= c < self.sizes[0]:
            return self.at((c,))  # says what is wrong
        return self.offset + c

    def at2(self, c: int, d: int) -> int:
        """:meth:`at` of two coordinates."""
        sizes = self.sizes
        if len(sizes) != 2 or not (0 <= c < sizes[0] and 0 <= d < sizes[1]):
            return self.at((c, d))  # says what is wrong
        return self.offset + c * sizes[1] + d


class _made_once:  # a decorator, named as one
    """A map of :class:`Places` made the first time it is read, then kept as the instance's own attribute:
    ``functools.cached_property`` without its lock (Python 3.11 takes one on every read; a Places lives
    within one call)."""

    def __init__(self, make: Callable[[Places], dict[str, int]]):
        self.make, self.name = make, make.__name__
        self.__doc__ = make.__doc__

    def __get__(self, places: Places, owner: type | None = None) -> dict[str, int]:
        made = places.__dict__[self.name] = self.make(places)
        return made


class Places:
    """Where each instance the acting seat's view shows sits, as the coordinates above count it (each map made
    the first time it is asked for, then read as a plain attribute: most listings need only some)."""

    def __init__(self, view: ViewDict, seat: int, capacity: dict[str, int]):
        self._view, self._seat, self.capacity = view, seat, capacity

    def slots(self, kind: str) -> dict[str, int]:
        """instance -> slot of ``kind`` (case, fairy, evidence): the seat's, then the opponent's."""
        found: dict[str, int] = getattr(self, kind)
        return found

    def _slots(self, kind: str) -> dict[str, int]:
        zone = ZONE_OF[kind]
        players = self._view["players"]
        found = {e["card"]: i for i, e in enumerate(players[self._seat][zone])}
        for i, e in enumerate(players[1 - self._seat][zone], self.capacity[kind]):
            found[e["card"]] = i
        return found

    @_made_once
    def case(self) -> dict[str, int]:
        return self._slots("case")

    @_made_once
    def fairy(self) -> dict[str, int]:
        return self._slots("fairy")

    @_made_once
    def evidence(self) -> dict[str, int]:
        return self._slots("evidence")

    @_made_once
    def copy(self) -> dict[str, int]:
        """instance -> its copy number among the seat's cards of one catalog id, in hand, on its own field
        (cases, fairies, evidence) and in its trash, each zone counted apart."""
        return {**self.hand_copy, **self.field_copy, **self.trash_copy}

    @_made_once
    def hand_copy(self) -> dict[str, int]:
        """:attr:`copy` of the seat's hand alone (what a card played from hand needs)."""
        return self._copies(self._view["players"][self._seat]["hand"])

    @_made_once
    def field_copy(self) -> dict[str, int]:
        """:attr:`copy` of the seat's own field alone (what an ability needs)."""
        me = self._view["players"][self._seat]
        return self._copies([e["card"] for z in FIELD_ZONES for e in me[z]])

    @_made_once
    def trash_copy(self) -> dict[str, int]:
        return self._copies(self._view["players"][self._seat]["trash"])

    def _copies(self, iids: list[str]) -> dict[str, int]:
        cards = self._view["cards"]
        copy: dict[str, int] = {}
        seen: dict[str, int] = {}
        for iid in iids:
            cid = cards.get(iid)
            if cid is not None:
                n = copy[iid] = seen.get(cid, 0)
                seen[cid] = n + 1
        return copy

    @_made_once
    def trash(self) -> dict[str, int]:
        return self.trash_copy


ZONE_OF: dict[str, FieldZone] = {"case": "cases", "fairy": "fairies", "evidence": "evidence"}
FIELD_ZONES: tuple[FieldZone, ...] = ("cases", "fairies", "evidence")


class ActionSpace:
    """The catalog's discrete actions: :meth:`index` of a listed action, :meth:`legal`, :meth:`describe`."""

    def __init__(self, catalog: Catalog):
        self.catalog = catalog
        self.ids = {kind: sorted(c.id for c in catalog.cards.values() if c.kind == kind) for kind in ACTION_KINDS}
        self.copies = {cid: catalog.name_limit(card.name) for cid, card in catalog.cards.items()}
        self.capacity = {
            kind: max(1, min(DECK_SIZE, sum(self.copies[cid] for cid in self.ids[kind]))) for kind in FIELD_KINDS
        }
        self.blocks: dict[tuple[Any, ...], Block] = {}
        self.n = 0
        for kind in SIMPLE:
            self._add((kind,), ())
        for cid in self.ids["case"]:
            self._add(("play_case", cid), (("copy", self.copies[cid]),))
        for cid in self.ids["fairy"]:
            self._add(("play_fairy", cid), (("copy", self.copies[cid]),))
        for cid in self.ids["evidence"]:
            self._add(("play_evidence", cid), (("copy", self.copies[cid]), ("case", 2 * self.capacity["case"])))
        for kind in FAIRY_TO_CASE:
            self._add((kind,), (("mine:fairy", self.capacity["fairy"]), ("case", 2 * self.capacity["case"])))
        self._add(("recall",), (("mine:fairy", self.capacity["fairy"]),))
        self._add(("investigate",), (("case", 2 * self.capacity["case"]),))
        for kind in ABLE:
            for cid in self.ids[kind]:
                for a, ability in enumerate(catalog[cid].abilities):
                    dims = (("copy", self.copies[cid]), *self._targets(ability.effect))
                    self._add(("use_ability", cid, a), dims)
        for kind, head in (("spell", "cast_spell"), ("counter", "counter")):
            for cid in self.ids[kind]:
                self._add((head, cid), (("copy", self.copies[cid]), *self._targets(catalog[cid].effect)))
        # The heads without a card, looked up by type alone (the hot path of :meth:`index`).
        self._fixed = {head[0]: block for head, block in self.blocks.items() if len(head) == 1}
        self._simple_offset = {kind: self._fixed[kind].offset for kind in SIMPLE}
        self._fairy_case = {kind: (self._fixed[kind].offset, *self._fixed[kind].sizes) for kind in FAIRY_TO_CASE}
        self._index_of: dict[str, Callable[[Any, dict[str, str], Places], int]] = {
            **dict.fromkeys(FAIRY_TO_CASE, self._fairy_to_case),
            "recall": self._recall,
            "investigate": self._investigate,
            **dict.fromkeys(("play_case", "play_fairy"), self._from_hand),
            "play_evidence": self._evidence,
            **dict.fromkeys(("use_ability", "cast_spell", "counter"), self._targeted),
        }
        self._trash_offset: dict[str, dict[str, int]] = {}
        unknown = set(ACTION_TYPES) - set(SIMPLE) - set(self._index_of)
        if unknown:  # an action type this layout does not know would have no index: say so now
            raise ValueError(f"the action space has no layout for {sorted(unknown)}")

    def _add(self, head: tuple[Any, ...], dims: tuple[tuple[str, int], ...]) -> None:
        block = Block(head, self.n, tuple(d for d, _ in dims), tuple(s for _, s in dims))
        self.blocks[head] = block
        self.n += block.size

    def _targets(self, effects: Iterable[Any]) -> list[tuple[str, int]]:
        """One coordinate per targeted effect: where its target may be (see the module's docstring)."""
        out = []
        for e in effects:
            if not e.targeted:
                continue
            if e.op == "recover":
                pool = self.ids_of(e.kind)
                out.append((f"trash:{e.kind}", sum(self.copies[cid] for cid in pool)))
            elif e.kind in FIELD_KINDS:
                out.append((e.kind, 2 * self.capacity[e.kind]))
            else:
                out.append(("field", 2 * sum(self.capacity.values())))
        return out

    def ids_of(self, kind: str) -> list[str]:
        return sorted(self.catalog.cards) if kind == "any" else self.ids.get(kind, [])

    def describe(self) -> str:
        """One line per block: its indices, its head, its coordinates."""
        return "\n".join(
            f"{b.offset:6d}..{b.offset + b.size - 1:6d}  {' '.join(map(str, b.head))}"
            + (f"  ({' x '.join(f'{d}[{s}]' for d, s in zip(b.dims, b.sizes, strict=True))})" if b.dims else "")
            for b in self.blocks.values()
        )

    # -- from an action to its index -----------------------------------------------------------

    def places(self, view: ViewDict, seat: int) -> Places:
        return Places(view, seat, self.capacity)

    def index(self, action: ActionDict, view: ViewDict, places: Places | None = None) -> int:
        """The index of ``action``, one the seat of ``view`` may take now (``ValueError`` if it cannot be)."""
        kind = action["type"]
        simple_offset = self._simple_offset.get(kind)
        if simple_offset is not None:
            return simple_offset
        return self._index_of[kind](action, view["cards"], places or self.places(view, action["player"]))

    # One method per shape of action, looked up by type (``_index_of``): ``index`` asks no chain of questions.

    def _fairy_to_case(self, action: Any, cards: dict[str, str], at: Places) -> int:
        """dispatch and redispatch (half of what a listing holds): said without a call to :meth:`Block.at2`."""
        offset, fairies, cases = self._fairy_case[action["type"]]
        f, c = at.fairy[action["fairy"]], at.case[action["case"]]
        return offset + f * cases + c if f < fairies and c < cases else self._fixed[action["type"]].at2(f, c)

    def _recall(self, action: Any, cards: dict[str, str], at: Places) -> int:
        return self._fixed["recall"].at1(at.fairy[action["fairy"]])

    def _investigate(self, action: Any, cards: dict[str, str], at: Places) -> int:
        return self._fixed["investigate"].at1(at.case[action["case"]])

    def _from_hand(self, action: Any, cards: dict[str, str], at: Places) -> int:
        """play_case and play_fairy: which copy of the card."""
        iid = action["card"]
        return self.blocks[(action["type"], cards[iid])].at1(_copy_of(iid, at.hand_copy, at))

    def _evidence(self, action: Any, cards: dict[str, str], at: Places) -> int:
        iid = action["card"]
        return self.blocks[("play_evidence", cards[iid])].at2(_copy_of(iid, at.hand_copy, at), at.case[action["case"]])

    def _targeted(self, action: Any, cards: dict[str, str], at: Places) -> int:
        """use_ability, cast_spell and counter: the copy, then one coordinate per target."""
        kind, iid = action["type"], action["card"]
        if kind == "use_ability":
            block, copy = self.blocks[(kind, cards[iid], action["ability"])], _copy_of(iid, at.field_copy, at)
        else:
            block, copy = self.blocks[(kind, cards[iid])], _copy_of(iid, at.hand_copy, at)
        coords = [copy] + [self._target(dim, t, cards, at) for dim, t in zip(block.dims[1:], action["targets"])]
        return block.at(coords)

    def _target(self, dim: str, iid: str, cards: dict[str, str], at: Places) -> int:
        if dim in FIELD_KINDS:
            return at.slots(dim)[iid]
        if dim.startswith("trash:"):
            offsets = self._trash_offsets(dim)
            if cards[iid] not in offsets:
                raise ValueError(f"{iid} is not a card of {dim}")
            return offsets[cards[iid]] + at.trash[iid]
        c, f = self.capacity["case"], self.capacity["fairy"]
        if iid in at.case:
            return at.case[iid]
        if iid in at.fairy:
            return 2 * c + at.fairy[iid]
        return 2 * c + 2 * f + at.evidence[iid]

    def _trash_offsets(self, dim: str) -> dict[str, int]:
        """For a ``trash:<kind>`` coordinate: each catalog id of the kind -> the coordinate of its first copy
        (the copies of the ids before it, in sorted order), counted the first time it is asked for."""
        offsets = self._trash_offset.get(dim)
        if offsets is None:
            offsets, n = {}, 0
            for cid in self.ids_of(dim.partition(":")[2]):
                offsets[cid], n = n, n + self.copies[cid]
            self._trash_offset[dim] = offsets
        return offsets

    def legal(self, legal: list[ActionDict], view: ViewDict) -> dict[int, ActionDict]:
        """index → the listed action it stands for (every listed action of the view's seat)."""
        if not legal:
            return {}
        at = self.places(view, legal[0]["player"])
        out: dict[int, ActionDict] = {}
        simple, index = self._simple_offset, self.index
        for a in legal:
            i = simple.get(a["type"])
            if i is None:
                i = index(a, view, at)
            if i in out:
                raise ValueError(f"two listed actions share index {i}: {out[i]} and {a}")
            out[i] = a
        return out

    def mask(self, legal: dict[int, ActionDict]) -> Any:
        """The legal indices as an int8 numpy vector of length :attr:`n` (the extra ``bots``)."""
        import numpy as np

        m = np.zeros(self.n, dtype=np.int8)
        m[list(legal)] = 1
        return m


ACTION_KINDS = ("case", "fairy", "evidence", "spell", "counter")


def _copy_of(iid: str, zone_copy: dict[str, int], at: Places) -> int:
    """Which copy ``iid`` is, counted in the zone its type plays it from (else among all the seat's cards)."""
    copy = zone_copy.get(iid)
    return at.copy[iid] if copy is None else copy
