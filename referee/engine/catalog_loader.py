"""Reading one card of a catalog file, checking every field (docs/api.md §8).

Every refusal is a :class:`CatalogError` naming the card and the field.
"""

from __future__ import annotations

from typing import Any

from referee.engine.cards import (
    DECK_LIMIT,
    FIELDS_BY_KIND,
    REQUIRED_BY_KIND,
    SERIES,
    TRIGGERS,
    Ability,
    Card,
)
from referee.engine.effect_types import Effect, parse_entry
from referee.engine.errors import CatalogError
from referee.engine.facts import kind_of_word
from referee.engine.registry import rule
from referee.engine.requirements import REQUIREMENT_TYPES, Requirement

MIN_SPELL_COST = 1  # RULES 7.5: spells and counters cost at least 1 action; abilities may cost 0


def parse_card(raw: Any, index: int) -> Card:
    if not isinstance(raw, dict):
        raise CatalogError("a card is a mapping", card=f"#{index}")
    card_id = raw.get("id")
    if not isinstance(card_id, str) or not card_id:
        raise CatalogError("'id' must be a non-empty string", card=f"#{index}", field="id")
    p = _CardParser(card_id, raw)
    kind = p.kind()
    unknown = set(raw) - FIELDS_BY_KIND[kind]
    if unknown:
        name = sorted(map(str, unknown))[0]
        raise CatalogError(f"unknown field for a {kind} card", card=card_id, field=name)
    for name in REQUIRED_BY_KIND[kind]:
        if name not in raw:
            raise CatalogError(f"a {kind} card needs '{name}'", card=card_id, field=name)
    fields: dict[str, Any] = {
        "id": card_id,
        "kind": kind,
        "name": p.string("name", required=True),
        "name_en": p.string("name_en"),
        "deck_limit": p.integer("deck_limit", default=DECK_LIMIT, low=1, high=DECK_LIMIT),
        "series": p.choice("series", SERIES),
        "text": p.string("text"),
    }
    if kind in ("fairy", "evidence"):
        fields["power"] = p.integer("power", low=-99, high=99)
        fields["abilities"] = p.abilities()
    elif kind == "case":
        fields["level"] = p.integer("level", low=0, high=99)
        fields["hit"] = p.integer("hit", low=0, high=40)
        fields["dispatch_limit"] = p.integer("dispatch_limit", default=1, low=1, high=40)
        fields["requires"] = p.requirements()
        for req in fields["requires"]:
            REQUIREMENT_TYPES[req.kind].check_card(req.value, fields, lambda detail: p.fail("requires", detail))
    elif kind in ("spell", "counter"):
        fields["cost"] = p.spell_cost(kind)
        if kind == "counter":
            fields["trigger"] = p.choice("trigger", TRIGGERS, required=True)
        fields["effect"] = p.effects(raw.get("effect"), "effect", kind, fields.get("trigger"))
    card = Card(**fields)
    object.__setattr__(card, "raw", _to_json(card))
    return card


class _CardParser:
    """Reads one card's fields, raising ``CatalogError`` naming card and field."""

    def __init__(self, card_id: str, raw: dict[str, Any]):
        self.card_id = card_id
        self.raw = raw

    def fail(self, field_name: str, detail: str) -> CatalogError:
        return CatalogError(detail, card=self.card_id, field=field_name)

    @rule("2.1")
    @rule("2.8")
    def kind(self) -> str:
        """RULES 2.1: one of the six kinds, read through the sister titles' names for them (2.8)."""
        kind = self.raw.get("kind")
        known = kind_of_word(kind) if isinstance(kind, str) else None
        if known is None:
            raise self.fail("kind", f"unknown kind {kind!r}")
        return known

    def string(self, name: str, required: bool = False) -> str | None:
        value = self.raw.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value:
            raise self.fail(name, "must be a non-empty string")
        return value

    def integer(self, name: str, default: int | None = None, low: int = 0, high: int = 99) -> int:
        value = self.raw.get(name, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(name, f"must be an integer from {low} to {high}")
        return value

    @rule("7.5")
    def spell_cost(self, kind: str) -> int:
        """RULES 7.5 (ruling): a spell or counter costs at least one action; abilities may cost 0."""
        cost = self.integer("cost", low=0, high=40)
        if cost < MIN_SPELL_COST:
            raise self.fail("cost", f"a {kind} costs at least {MIN_SPELL_COST} action (RULES 7.5); got {cost}")
        return cost

    def choice(self, name: str, options: tuple[str, ...], required: bool = False) -> str | None:
        value = self.raw.get(name)
        if value is None and not required:
            return None
        if value not in options:
            raise self.fail(name, f"must be one of {', '.join(options)} (got {value!r})")
        chosen: str = value
        return chosen

    def requirements(self) -> tuple[Requirement, ...]:
        raw = self.raw.get("requires", [])
        if not isinstance(raw, list):
            raise self.fail("requires", "must be a list")
        out = []
        for entry in raw:
            if not isinstance(entry, dict) or len(entry) != 1:
                raise self.fail("requires", "each requirement is a mapping with one key")
            ((key, value),) = entry.items()
            kind = REQUIREMENT_TYPES.get(key)
            if kind is None:
                raise self.fail("requires", f"unknown condition {key!r}")
            if not kind.valid(value):
                raise self.fail("requires", f"bad value for {key}: {value!r}")
            out.append(Requirement(key, value))
        return tuple(out)

    def abilities(self) -> tuple[Ability, ...]:
        raw = self.raw.get("abilities", [])
        if not isinstance(raw, list):
            raise self.fail("abilities", "must be a list")
        out = []
        for i, entry in enumerate(raw):
            where = f"abilities.{i}"
            if not isinstance(entry, dict):
                raise self.fail(where, "an ability is a mapping")
            unknown = set(entry) - {"cost", "once_per_turn", "effect", "text"}
            if unknown:
                raise self.fail(f"{where}.{sorted(map(str, unknown))[0]}", "unknown field")
            cost = entry.get("cost")
            if isinstance(cost, bool) or not isinstance(cost, int) or not 0 <= cost <= 40:
                raise self.fail(f"{where}.cost", "must be an integer from 0 to 40")
            once = entry.get("once_per_turn", False)
            if not isinstance(once, bool):
                raise self.fail(f"{where}.once_per_turn", "must be true or false")
            effect = self.effects(entry.get("effect"), f"{where}.effect", "ability", None)
            out.append(Ability(cost=cost, effect=effect, once_per_turn=once))
        return tuple(out)

    def effects(self, raw: Any, where: str, source: str, trigger: str | None) -> tuple[Effect, ...]:
        if not isinstance(raw, list) or not raw:
            raise self.fail(where, "must be a non-empty list of effect entries")
        return tuple(self.effect(e, f"{where}.{i}", source, trigger) for i, e in enumerate(raw))

    def effect(self, entry: Any, where: str, source: str, trigger: str | None) -> Effect:
        return parse_entry(entry, where, source, trigger, self.fail)


def _to_json(card: Card) -> dict[str, Any]:
    """The normalised card, as served by ``GET /v1/cards`` and hashed for the digest."""
    out: dict[str, Any] = {"id": card.id, "name": card.name, "kind": card.kind}
    for name in ("name_en", "series", "text"):
        if getattr(card, name) is not None:
            out[name] = getattr(card, name)
    out["deck_limit"] = card.deck_limit
    if card.kind in ("fairy", "evidence"):
        out["power"] = card.power
        if card.abilities:
            out["abilities"] = [
                {"cost": a.cost, "once_per_turn": a.once_per_turn, "effect": [e.to_json() for e in a.effect]}
                for a in card.abilities
            ]
    elif card.kind == "case":
        out.update(level=card.level, hit=card.hit, dispatch_limit=card.dispatch_limit)
        out["requires"] = [{r.kind: r.value} for r in card.requires]
    elif card.kind in ("spell", "counter"):
        out["cost"] = card.cost
        if card.trigger:
            out["trigger"] = card.trigger
        out["effect"] = [e.to_json() for e in card.effect]
    return out
