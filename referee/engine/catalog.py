"""The card catalog: one loader for YAML or JSON files in docs/api.md §8's format.

A catalog is loaded once (at start-up) and is immutable afterwards. Loading
resolves every kind alias (RULES 2.8) to one of the six canonical kinds,
checks every field, and computes the digest that states carry
(``sha256:`` + SHA-256 of the canonical JSON of the normalised catalog, so the
YAML and JSON spellings of one catalog share a digest).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from importlib import resources
from pathlib import Path
from typing import Any

from referee.engine.cards import (
    DECK_LIMIT,
    RECOVER_KINDS,
    REQUIREMENTS,
    SERIES,
    TRIGGERS,
    Ability,
    Card,
    deck_limits_by_name,
    name_key,
)
from referee.engine.catalog_loader import parse_card
from referee.engine.effect_types import Effect as Effect
from referee.engine.errors import CatalogError
from referee.engine.facts import KIND_ALIASES, KINDS
from referee.engine.formats import Format, Revision, parse_formats, resolve
from referee.engine.requirements import Requirement as Requirement
from referee.engine.yaml_text import YamlTextError, dotted, parse_document

# The card model lives in cards.py (and effect_types.py, requirements.py); the catalog names it too.
__all__ = [
    "DECK_LIMIT",
    "KINDS",
    "KIND_ALIASES",
    "RECOVER_KINDS",
    "REQUIREMENTS",
    "SERIES",
    "TRIGGERS",
    "Ability",
    "Card",
    "Catalog",
    "Effect",
    "Format",
    "Requirement",
    "Revision",
]


class Catalog:
    """An immutable, validated set of cards with its id and digest.

    >>> cat = Catalog.builtin()
    >>> cat.id
    'af-ref'
    >>> cat.digest.startswith("sha256:")
    True
    """

    def __init__(
        self, catalog_id: str, cards: Iterable[Card], canonical: dict[str, Any], formats: Iterable[Format] = ()
    ):
        self.id = catalog_id
        self.cards: dict[str, Card] = {c.id: c for c in cards}
        self.formats: dict[str, Format] = {f.id: f for f in formats}  # RULES 3.6–3.9, in the catalog's order
        self.canonical = canonical
        blob = json.dumps(canonical, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        self.digest = "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()
        self.ref_to_compare = {"id": self.id, "digest": self.digest}  # ``ref`` without a new dict each time
        self.game_card_ids = frozenset(c.id for c in self.cards.values() if c.kind != "bonus")
        self.ids_of_kind: dict[str, frozenset[str]] = {  # for the consistency check's set comparisons
            kind: frozenset(c.id for c in self.cards.values() if c.kind == kind) for kind in KINDS
        }
        self.name_limits: dict[str, int] = deck_limits_by_name(self.cards.values())  # RULES 3.2
        # The API's card: the catalog's fields (the digest's canonical form), then the limit RULES 3.2
        # applies to the card's name, which needs the whole catalog.
        self._api_cards: dict[str, dict[str, Any]] = {
            c.id: {**c.raw, "name_deck_limit": self.name_limit(c.name)} for c in self.cards.values()
        }
        self.counters_by_trigger: dict[str, tuple[Card, ...]] = {
            t: tuple(c for c in self.cards.values() if c.kind == "counter" and c.trigger == t) for t in TRIGGERS
        }
        self.counter_ids_by_trigger = {t: frozenset(c.id for c in cs) for t, cs in self.counters_by_trigger.items()}
        # Deck lists and codes (decklists.py): the printings of each name key in either language
        # (RULES 3.2.1), and each card's index among the ids in ascending order.
        self.ids_by_name = printings_by_name(self.cards.values())
        self.sorted_ids: tuple[str, ...] = tuple(sorted(self.cards))
        self.index_of: dict[str, int] = {cid: i for i, cid in enumerate(self.sorted_ids)}
        self.digest_bytes = bytes.fromhex(self.digest.removeprefix("sha256:"))
        self._formats_json = [f.raw for f in self.formats.values()]

    @property
    def ref(self) -> dict[str, str]:
        """The ``catalog`` field a state carries."""
        return dict(self.ref_to_compare)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.cards

    def __getitem__(self, card_id: str) -> Card:
        return self.cards[card_id]

    def get(self, card_id: str) -> Card | None:
        return self.cards.get(card_id)

    def name_limit(self, name: str) -> int:
        """RULES 3.2: how many cards of ``name`` a deck may hold (precomputed; see ``deck_limits_by_name``)."""
        return self.name_limits.get(name_key(name), DECK_LIMIT)

    def format_json(self) -> list[dict[str, Any]]:
        """``GET /v1/formats``'s list: each format as the catalog's canonical form writes it."""
        return self._formats_json

    def format_revision(self, raw: Any, path: str = "format") -> tuple[Format, Revision]:
        """The format and revision a request names (an id, or ``{"id", "date"}``), docs/api.md §13."""
        return resolve(self.formats, raw, path)

    def card_json(self, card_id: str) -> dict[str, Any]:
        """The card as the API shows it (docs/api.md §8 fields, kind canonical), with ``name_deck_limit``:
        how many cards of its name a deck may hold (RULES 3.2, :meth:`name_limit`, as ``validate_deck`` counts)."""
        return self._api_cards[card_id]

    # -- loading -----------------------------------------------------------

    @classmethod
    def builtin(cls) -> Catalog:
        """The reference catalog ``af-ref`` shipped in the package."""
        global _BUILTIN
        if _BUILTIN is None:
            text = resources.files("referee.data").joinpath("af-ref.yaml").read_text("utf-8")
            _BUILTIN = cls.from_text(text, "af-ref.yaml")
        return _BUILTIN

    @classmethod
    def from_path(cls, path: str | Path) -> Catalog:
        """A catalog file; every error names the file once, in front (``CatalogError.at``)."""
        try:
            text = Path(path).read_text("utf-8")
        except UnicodeDecodeError as exc:
            raise CatalogError(f"not UTF-8 text ({exc.reason})").at(str(path)) from None
        except OSError as exc:
            raise CatalogError(f"cannot read: {exc.strerror or exc}").at(str(path)) from None
        return cls.from_text(text, str(path))

    @classmethod
    def from_text(cls, text: str, source: str = "<catalog>") -> Catalog:
        """A catalog from YAML or JSON text (JSON is YAML too); errors name ``source`` and the line."""
        try:
            doc = parse_document(text, source)
        except YamlTextError as exc:  # not YAML, a key written twice...: file, line and column
            raise CatalogError(exc.problem, field=None if exc.path is None else dotted(exc.path)).at(
                source, exc.line, exc.column
            ) from None
        try:
            return cls.from_data(doc.data)
        except CatalogError as exc:
            raise exc.at(source, doc.line_of(exc.path)) from None

    @classmethod
    def from_data(cls, data: Any) -> Catalog:
        if not isinstance(data, dict):
            raise CatalogError("a catalog is a mapping with 'id' and 'cards'")
        unknown = set(data) - {"id", "cards", "formats", "name", "description"}
        if unknown:
            names = sorted(map(str, unknown))  # keys need not be strings, nor of one type
            raise CatalogError(f"unknown top-level field(s) {names}", field=names[0])
        catalog_id = data.get("id")
        if not isinstance(catalog_id, str) or not catalog_id:
            raise CatalogError("'id' must be a non-empty string", field="id")
        raw_cards = data.get("cards")
        if not isinstance(raw_cards, list) or not raw_cards:
            raise CatalogError("'cards' must be a non-empty list", field="cards")
        cards: list[Card] = []
        seen: set[str] = set()
        for index, raw in enumerate(raw_cards):
            try:
                card = parse_card(raw, index)
                if card.id in seen:
                    raise CatalogError("duplicate card id", card=card.id, field="id")
            except CatalogError as exc:  # where in the file: the card, then its field
                exc.path = ("cards", index, *_field_path(exc.field))
                raise
            seen.add(card.id)
            cards.append(card)
        canonical: dict[str, Any] = {"id": catalog_id, "cards": [c.raw for c in sorted(cards, key=lambda c: c.id)]}
        formats: tuple[Format, ...] = ()
        if "formats" in data:
            formats = parse_formats(data["formats"], catalog_names(cards))
        if formats:  # the digest covers them; a catalog without formats keeps the digest it had
            canonical["formats"] = [f.raw for f in formats]
        return cls(catalog_id, cards, canonical, formats)


_BUILTIN: Catalog | None = None


def printings_by_name(cards: Iterable[Card]) -> dict[str, tuple[str, ...]]:
    """Each name key (RULES 3.2.1) of a card, Japanese or English, to the ids of its printings, ascending."""
    found: dict[str, set[str]] = {}
    for card in cards:
        for name in (card.name, card.name_en):
            if name:
                found.setdefault(name_key(name), set()).add(card.id)
    return {key: tuple(sorted(ids)) for key, ids in found.items()}


def catalog_names(cards: Iterable[Card]) -> dict[str, str]:
    """Each name key of a card (either language) to the catalog's name of that card; where an English name
    is shared by cards of different names, the first card's (by id) name."""
    out: dict[str, str] = {}
    for card in sorted(cards, key=lambda c: c.id):
        out.setdefault(name_key(card.name), card.name)
    for card in sorted(cards, key=lambda c: c.id):
        if card.name_en:
            out.setdefault(name_key(card.name_en), card.name)
    return out


def _field_path(field: str | None) -> tuple[str | int, ...]:
    """``abilities.0.cost`` as the path ``("abilities", 0, "cost")``."""
    if not field:
        return ()
    return tuple(int(p) if p.isdecimal() else p for p in field.split("."))
