"""docs/api.md §8's effect entries and RULES 9.6, 9.7: every kind of effect, declared once.

Each effect is one class registered with :func:`effect`. The class declares
its catalog grammar (the entry's keys, their values and where the effect may
appear), its target pool and legality (RULES 9.6), how it applies (9.7) and
its JSON form. ``catalog_loader.py`` reads entries with it, ``effects.py``
targets and applies through it, and the OpenAPI card schema lists
:func:`grammars`: adding an effect is adding one class here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from referee.engine.facts import kind_of_word, other
from referee.engine.state_types import (
    CaseEntryDict,
    EvidenceEntryDict,
    FairyEntryDict,
    FieldZone,
    PendingDict,
    PlayerDict,
    StateDict,
)


class EffectBoard(Protocol):
    """What an effect reads and moves on the board: ``board.Board`` is one (mypy checks it).

    The effects sit on the catalog's floor (the loader reads their grammar), below the board,
    so they name the board by what they use of it rather than by importing it.
    """

    s: StateDict

    def player(self, i: int) -> PlayerDict: ...
    def kind(self, iid: str) -> str | None: ...
    def all_cases(self) -> list[str]: ...
    def case_in_play(self, iid: str) -> tuple[int, CaseEntryDict] | None: ...
    def fairy_on_field(self, iid: str) -> tuple[int, FairyEntryDict] | None: ...
    def evidence_on_field(self, iid: str) -> tuple[int, EvidenceEntryDict] | None: ...
    def own_entry(self, player: int, zone: FieldZone, iid: str) -> Any: ...
    def emit(self, kind: str, **fields: Any) -> None: ...
    def draw(self, player: int, count: int, required: bool) -> int: ...
    def mill(self, player: int, count: int) -> list[str]: ...
    def remove_from_field(self, player: int, zone: FieldZone, iid: str) -> None: ...
    def trash_from_field(self, player: int, zone: FieldZone, iid: str) -> None: ...


# Where an effect entry appears: a fairy's or evidence's ability, a spell, a counter.
SOURCES = ("ability", "spell", "counter")


@dataclass(frozen=True, slots=True)
class Effect:
    """One effect entry of a loaded card.

    ``op`` names its :class:`EffectType` (the entry's key); ``amount`` its
    number (0 where it has none); ``kind`` what it targets (``fairy``,
    ``evidence``, ``case``, ``self``, ``spell``, ``any``) or ``None``;
    ``targeted`` whether it takes the next id of the action's ``targets``.
    """

    op: str
    amount: int = 0
    kind: str | None = None
    targeted: bool = False

    def to_json(self) -> dict[str, Any]:
        return EFFECTS[self.op].to_json(self)


@dataclass(frozen=True, slots=True)
class Entry:
    """One effect entry being read: its value(s), where it is and what card holds it."""

    value: Any
    raw: dict[str, Any]
    where: str
    source: str  # one of SOURCES
    trigger: str | None
    fail: Callable[[str, str], Exception]  # (field, detail) -> the CatalogError to raise

    def integer(self, value: Any, field: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(field, f"must be an integer from {low} to {high}")
        return value


@dataclass(slots=True)
class Resolution:
    """What an effect applies within: the game, who uses it, its card, the pending action (9.3–9.5)."""

    g: EffectBoard
    player: int
    source: str
    pending: PendingDict | None = None


class EffectType:
    """One kind of effect entry. Subclasses declare the class attributes and override what differs.

    ``op`` is the entry's key; ``values`` the JSON schema of each key's value
    (the key set identifies the entry); ``kinds`` the values of a target kind;
    ``low``/``high`` an amount's range.
    """

    op: ClassVar[str]
    values: ClassVar[dict[str, dict[str, Any]]]

    # -- catalog grammar (docs/api.md §8) --
    def parse(self, entry: Entry) -> Effect:
        raise NotImplementedError

    def grammar(self) -> dict[str, Any]:
        """The entry's JSON schema, for the OpenAPI card schema."""
        return {
            "type": "object",
            "description": " ".join((self.__doc__ or "").split()),
            "properties": copy.deepcopy(self.values),
            "required": list(self.values),
            "additionalProperties": False,
        }

    def to_json(self, e: Effect) -> dict[str, Any]:
        return {self.op: e.kind}

    # -- targets (RULES 9.6): only for targeted effects --
    def pool(self, g: EffectBoard, player: int, e: Effect) -> Iterable[str]:
        return ()

    def target_ok(self, g: EffectBoard, player: int, e: Effect, iid: str) -> bool:
        return False

    # -- application (RULES 9.7) --
    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        raise NotImplementedError


EFFECTS: dict[str, EffectType] = {}
_BY_KEYS: dict[frozenset[str], EffectType] = {}


def effect(cls: type[EffectType]) -> type[EffectType]:
    """Register an effect type: its entry keys must not collide with another's."""
    instance = cls()
    keys = frozenset(cls.values)
    assert cls.op not in EFFECTS and keys not in _BY_KEYS, cls.op
    EFFECTS[cls.op] = _BY_KEYS[keys] = instance
    return cls


def parse_entry(
    raw: Any, where: str, source: str, trigger: str | None, fail: Callable[[str, str], Exception]
) -> Effect:
    """Read one effect entry of a catalog card, or raise ``fail(field, detail)``."""
    if not isinstance(raw, dict) or not raw:
        raise fail(where, "an effect entry is a mapping")
    kind = _BY_KEYS.get(frozenset(raw))
    if kind is None:
        if len(raw) != 1:
            raise fail(where, f"unknown effect {sorted(map(str, raw))}")
        raise fail(where, f"unknown effect {next(iter(raw))!r}")
    return kind.parse(Entry(raw.get(kind.op), raw, where, source, trigger, fail))


def grammars() -> list[dict[str, Any]]:
    """Every effect entry's JSON schema, in registration order."""
    return [kind.grammar() for kind in EFFECTS.values()]


# -- the shapes effects share --------------------------------------------------------------


class Amount(EffectType):
    """An effect whose value is a number."""

    low: ClassVar[int] = 0
    high: ClassVar[int] = 40

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "values" not in cls.__dict__:
            cls.values = {cls.op: {"type": "integer", "minimum": cls.low, "maximum": cls.high}}

    def parse(self, entry: Entry) -> Effect:
        amount = entry.integer(entry.value, f"{entry.where}.{self.op}", self.low, self.high)
        self.allowed(entry)
        return Effect(self.op, amount)

    def allowed(self, entry: Entry) -> None:
        """Refuse the entry where its card may not carry it."""

    def to_json(self, e: Effect) -> dict[str, Any]:
        return {self.op: e.amount}


class Targeted(EffectType):
    """An effect whose value is the kind of card it targets: it takes the next id of ``targets``."""

    kinds: ClassVar[tuple[str, ...]]

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if "values" not in cls.__dict__:
            cls.values = {cls.op: {"type": "string", "enum": list(cls.kinds)}}

    def parse(self, entry: Entry) -> Effect:
        kind = target_kind(entry.value)
        if kind not in self.kinds:
            raise entry.fail(f"{entry.where}.{self.op}", f"must be one of {', '.join(self.kinds)}{ALSO_KIND_WORDS}")
        return Effect(self.op, 0, kind, targeted=True)


ALSO_KIND_WORDS = " (or a word of RULES' term table for the kind)"


def target_kind(value: Any) -> Any:
    """A target written as a card kind, read as its kind (RULES' term table, ruling 2026-12-05: wherever a card
    kind is written, each word of the table is that kind): ``妖精カード`` and ``character`` are ``fairy``;
    anything else is left as written, for the caller to judge."""
    return (kind_of_word(value) or value) if isinstance(value, str) else value


def fairies_on_field(g: EffectBoard) -> list[str]:
    return [f["card"] for i in (0, 1) for f in g.player(i)["fairies"]]


def evidence_on_field(g: EffectBoard) -> list[str]:
    return [e["card"] for i in (0, 1) for e in g.player(i)["evidence"]]


# -- the effects (docs/api.md §8) ----------------------------------------------------------


@effect
class Draw(Amount):
    """`{draw: n}`: the user draws n cards; a required draw from an empty file loses (RULES 11.1)."""

    op = "draw"

    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        r.g.draw(r.player, e.amount, required=True)


@effect
class Mill(Amount):
    """`{mill: n}`: the opponent's top n file cards go to their trash."""

    op = "mill"

    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        r.g.mill(other(r.player), e.amount)


@effect
class Power(EffectType):
    """`{power: n, target: fairy|self}`: n power until end of turn to a fairy on the field, or to the
    ability's own card (`self`, abilities only)."""

    op = "power"
    values: ClassVar[dict[str, Any]] = {
        "power": {"type": "integer", "minimum": -99, "maximum": 99},
        "target": {"type": "string", "enum": ["fairy", "self"]},
    }

    def parse(self, entry: Entry) -> Effect:
        amount, target, where = entry.value, target_kind(entry.raw["target"]), entry.where
        entry.integer(amount, where + ".power", -99, 99)
        if target not in ("fairy", "self"):
            raise entry.fail(where + ".target", "must be fairy or self" + ALSO_KIND_WORDS)
        if target == "self" and entry.source != "ability":
            raise entry.fail(where + ".target", "target: self is for abilities of fairies and evidence")
        return Effect("power", amount, target, targeted=target == "fairy")

    def to_json(self, e: Effect) -> dict[str, Any]:
        return {"power": e.amount, "target": e.kind}

    def pool(self, g: EffectBoard, player: int, e: Effect) -> Iterable[str]:
        return fairies_on_field(g)

    def target_ok(self, g: EffectBoard, player: int, e: Effect, iid: str) -> bool:
        return g.fairy_on_field(iid) is not None

    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        g, card = r.g, r.source if e.kind == "self" else target
        assert card is not None  # a targeted effect is applied with its target (effects.apply_effects)
        if g.fairy_on_field(card) is None and g.evidence_on_field(card) is None:
            g.emit("skipped", effect="power", target=card)
            return
        g.s["modifiers"].append({"card": card, "power": e.amount})
        g.emit("power", card=card, amount=e.amount)


@effect
class Ready(EffectType):
    """`{ready: 1}`: one of the user's own actioned cases becomes unactioned."""

    op = "ready"
    values: ClassVar[dict[str, Any]] = {"ready": {"type": "integer", "enum": [1]}}

    def parse(self, entry: Entry) -> Effect:
        if isinstance(entry.value, bool) or entry.value != 1:
            raise entry.fail(f"{entry.where}.ready", "must be 1")
        return Effect("ready", 1, "case", targeted=True)

    def to_json(self, e: Effect) -> dict[str, Any]:
        return {"ready": e.amount}

    def pool(self, g: EffectBoard, player: int, e: Effect) -> Iterable[str]:
        return g.all_cases()

    def target_ok(self, g: EffectBoard, player: int, e: Effect, iid: str) -> bool:
        entry = g.own_entry(player, "cases", iid)
        return entry is not None and entry["actioned"]

    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        entry = r.g.own_entry(r.player, "cases", target) if target is not None else None
        assert entry is not None  # target_ok held just before (effects.apply_effects)
        entry["actioned"] = False
        r.g.emit("ready", case=target)


@effect
class Bounce(Targeted):
    """`{bounce: fairy}`: a fairy on the field returns to its owner's hand."""

    op, kinds = "bounce", ("fairy",)

    def pool(self, g: EffectBoard, player: int, e: Effect) -> Iterable[str]:
        return fairies_on_field(g)

    def target_ok(self, g: EffectBoard, player: int, e: Effect, iid: str) -> bool:
        return g.fairy_on_field(iid) is not None

    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        g = r.g
        found = g.fairy_on_field(target) if target is not None else None
        assert target is not None and found is not None  # target_ok held just before (effects.apply_effects)
        owner = found[0]
        g.remove_from_field(owner, "fairies", target)
        g.player(owner)["hand"].append(target)
        g.emit("bounce", fairy=target, to=owner)


@effect
class Trash(Targeted):
    """`{trash: fairy|evidence}`: a fairy or an evidence on the field goes to its owner's trash."""

    op, kinds = "trash", ("fairy", "evidence")

    def pool(self, g: EffectBoard, player: int, e: Effect) -> Iterable[str]:
        return fairies_on_field(g) if e.kind == "fairy" else evidence_on_field(g)

    def target_ok(self, g: EffectBoard, player: int, e: Effect, iid: str) -> bool:
        found = g.fairy_on_field(iid) if e.kind == "fairy" else g.evidence_on_field(iid)
        return found is not None

    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        g = r.g
        zone: FieldZone = "fairies" if e.kind == "fairy" else "evidence"
        found = (g.fairy_on_field if e.kind == "fairy" else g.evidence_on_field)(target) if target is not None else None
        assert target is not None and found is not None  # target_ok held just before (effects.apply_effects)
        owner = found[0]
        g.trash_from_field(owner, zone, target)
        g.emit("trash", card=target, player=owner)


@effect
class Reveal(Targeted):
    """`{reveal: case}`: a face-down case in play turns face up."""

    op, kinds = "reveal", ("case",)

    def pool(self, g: EffectBoard, player: int, e: Effect) -> Iterable[str]:
        return g.all_cases()

    def target_ok(self, g: EffectBoard, player: int, e: Effect, iid: str) -> bool:
        found = g.case_in_play(iid)
        return found is not None and not found[1]["face_up"]

    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        found = r.g.case_in_play(target) if target is not None else None
        assert target is not None and found is not None  # target_ok held just before (effects.apply_effects)
        found[1]["face_up"] = True
        r.g.emit("reveal", case=target, card=r.g.s["cards"][target])


@effect
class Recover(Targeted):
    """`{recover: fairy|evidence|spell|any}`: a card of that kind from the user's trash to their hand."""

    op, kinds = "recover", ("fairy", "evidence", "spell", "any")

    def pool(self, g: EffectBoard, player: int, e: Effect) -> Iterable[str]:
        trash: list[str] = g.player(player)["trash"]
        return trash

    def target_ok(self, g: EffectBoard, player: int, e: Effect, iid: str) -> bool:
        return iid in g.player(player)["trash"] and (e.kind == "any" or g.kind(iid) == e.kind)

    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        pl = r.g.player(r.player)
        assert target is not None  # a targeted effect is applied with its target (effects.apply_effects)
        pl["trash"].remove(target)
        pl["hand"].append(target)
        r.g.emit("recover", player=r.player, card=target)


@effect
class Negate(EffectType):
    """`{negate: true}` (counters only): the pending action is negated (RULES 9.5)."""

    op = "negate"
    values: ClassVar[dict[str, Any]] = {"negate": {"type": "boolean", "enum": [True]}}

    def parse(self, entry: Entry) -> Effect:
        if entry.value is not True:
            raise entry.fail(f"{entry.where}.negate", "must be true")
        if entry.source != "counter":
            raise entry.fail(f"{entry.where}.negate", "negate is for counters only")
        return Effect("negate")

    def to_json(self, e: Effect) -> dict[str, Any]:
        return {"negate": True}

    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        assert r.pending is not None  # a counter's effect, inside the window of the action it answers
        r.pending["negated"] = True
        r.g.emit("negated", action=r.pending["action"]["type"], by=r.source)


@effect
class InvestigationPower(Amount):
    """`{investigation_power: n}` (counters with trigger `investigate` only): n power to the pending
    investigation (RULES 10.3)."""

    op, low, high = "investigation_power", -99, 99

    def allowed(self, entry: Entry) -> None:
        if entry.source != "counter" or entry.trigger != "investigate":
            raise entry.fail(
                f"{entry.where}.investigation_power",
                "investigation_power is for counters with trigger investigate only",
            )

    def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
        assert r.pending is not None  # a counter's effect, inside the window of the action it answers
        r.pending["power"] += e.amount
        r.g.emit("investigation_power", amount=e.amount, by=r.source)
