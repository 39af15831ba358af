"""The facts of a card: the catalog format's vocabulary (docs/api.md §8) and the card model.

Kinds, their aliases (RULES 2.8) and triggers are declared here once (effect
entries in ``effect_types.py``, requirements in ``requirements.py``);
``catalog_loader.py`` reads files against them and the rules read the
resulting frozen :class:`Card` objects.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from referee.engine.effect_types import Effect, Recover
from referee.engine.model import RESPONDABLE
from referee.engine.requirements import REQUIREMENT_TYPES, Requirement

SERIES = ("af99", "millennium", "conan", "conan-movies")
REQUIREMENTS = tuple(REQUIREMENT_TYPES)  # declared in requirements.py
# docs/api.md §8: the counter triggers are action types of §6, the respondable ones (RULES 9.4).
TRIGGERS = RESPONDABLE
RECOVER_KINDS = Recover.kinds  # declared in effect_types.py

# RULES 3.2: copies of one name per deck, unless the catalog sets a lower deck_limit; the source
# limits these two names to 1 whatever a catalog says (ruling).
DECK_LIMIT = 3
LIMITED_TO_ONE = ("北の妖精", "V.I.P.のカード")


@functools.lru_cache(maxsize=4096)  # the rules compare the catalog's few names again and again
def name_key(name: str) -> str:
    """RULES 3.2.1 (ruling): the form in which two names are the same name, NFKC-normalised and trimmed.

    >>> name_key(" Ｖ.Ｉ.Ｐ.のカード ") == name_key("V.I.P.のカード")
    True
    """
    return unicodedata.normalize("NFKC", name).strip()


_COMMON = {"id", "name", "name_en", "kind", "deck_limit", "series", "text"}
FIELDS_BY_KIND = {
    "case": _COMMON | {"level", "hit", "requires", "dispatch_limit"},
    "fairy": _COMMON | {"power", "abilities"},
    "evidence": _COMMON | {"power", "abilities"},
    "spell": _COMMON | {"cost", "effect"},
    "counter": _COMMON | {"cost", "trigger", "effect"},
    "bonus": _COMMON,
}
REQUIRED_BY_KIND = {
    "case": ("level", "hit"),
    "fairy": ("power",),
    "evidence": ("power",),
    "spell": ("cost", "effect"),
    "counter": ("cost", "trigger", "effect"),
    "bonus": (),
}


@dataclass(frozen=True, slots=True)
class Ability:
    cost: int
    effect: tuple[Effect, ...]
    once_per_turn: bool = False


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    name: str
    kind: str
    name_en: str | None = None
    deck_limit: int = DECK_LIMIT
    series: str | None = None
    text: str | None = None
    power: int = 0
    level: int = 0
    hit: int = 0
    requires: tuple[Requirement, ...] = ()
    dispatch_limit: int = 1
    cost: int = 0
    trigger: str | None = None
    effect: tuple[Effect, ...] = ()
    abilities: tuple[Ability, ...] = ()
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def deck_limits_by_name(cards: Iterable[Card]) -> dict[str, int]:
    """RULES 3.2 (ruling): each name's limit, the lowest ``deck_limit`` among all its printings.

    Every printing counts, whether or not a deck holds it; the names of
    ``LIMITED_TO_ONE`` are limited to 1 whatever the catalog says.
    Keys are :func:`name_key` forms (RULES 3.2.1).
    """
    limits: dict[str, int] = {}
    for card in cards:
        key = name_key(card.name)
        limits[key] = min(limits.get(key, DECK_LIMIT), card.deck_limit)
    for name in map(name_key, LIMITED_TO_ONE):
        if name in limits:
            limits[name] = 1
    return limits
