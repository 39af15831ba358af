"""What a scenario names must exist: its action types and its catalog cards (docs/scenarios.md, "Malformed").

A misspelt action type (``drow``) or a card the catalog does not hold (``AF-999``) would only show as the
referee refusing the scenario's own input, read as a rule failure. It is a mistake in the file instead,
reported like any malformed one (exit 2, ``file:line``), with the nearest known name. The one exception is
the step at which the scenario expects a refusal (``then: {error: ...}`` or ``violation``): there an unknown
type or card may be the very point (``13.1-inconsistent-state-is-refused.yaml``, ``3.4-...``).

The checks read the catalog the scenarios run against (in-process, or the one the service serves).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from referee.engine import Catalog
from referee.engine.model import ACTION_TYPES
from referee.scenarios.model import Index, Scenario, did_you_mean
from referee.scenarios.refs import RefError, action_refs, parse_ref

Path = tuple[str | int, ...]

# The zones of a position's player that list catalog ids (docs/scenarios.md), each a list of ids or of
# entries ``{card: id, ...}``.
_POSITION_ZONES = ("hand", "trash", "cases", "fairies", "evidence")


def check_names(sc: Scenario, catalog: Catalog) -> None:
    """Raise the scenario's :class:`~referee.scenarios.source.ScenarioError` at the first unknown action type
    or card id, unless a refusal is expected at that step."""
    known = catalog.cards
    if not _refusal_expected(sc, "given"):
        for path, cid in _given_cards(sc):
            if cid not in known:
                raise sc.doc.error(path, _unknown_card(cid, catalog))
    for i, action in enumerate(sc.when):
        if not isinstance(action, dict):
            continue
        kind = action.get("type")
        if isinstance(kind, str) and kind not in ACTION_TYPES and not _refusal_expected(sc, i):
            raise sc.doc.error(("when", i, "type"), f"unknown action type {kind!r}" + did_you_mean(kind, ACTION_TYPES))
        for sub, text in action_refs(action):  # a card the catalog lacks is in no zone: the reference never resolves
            try:
                named = parse_ref(text).card
            except RefError:
                continue  # model.parse reports it
            if named is not None and named not in known:
                raise sc.doc.error(("when", i, *sub), _unknown_card(named, catalog))


def _refusal_expected(sc: Scenario, step: Index) -> bool:
    """Whether the scenario expects a refusal at ``step`` (``index: any``: at whichever step it comes)."""
    return sc.expect != "legal" and sc.expect_index in (step, "any")


def _unknown_card(cid: str, catalog: Catalog) -> str:
    return f"{cid} is not a card of the catalog {catalog.id}" + did_you_mean(cid, catalog.cards)


def _given_cards(sc: Scenario) -> Iterator[tuple[Path, str]]:
    """Each catalog id the ``given`` names (a position's zones, a game's decks), with its path."""
    given = sc.given
    if not isinstance(given, dict):
        return
    if sc.given_kind == "position":
        yield from _position_cards(given)
    elif sc.given_kind == "game" and not sc.raw_game:
        yield from _deck_cards(given.get("decks"))


def _position_cards(pos: dict[str, Any]) -> Iterator[tuple[Path, str]]:
    for p in ("p0", "p1"):
        spec = pos.get(p)
        if not isinstance(spec, dict):
            continue
        base: Path = ("given", "position", p)
        for zone in _POSITION_ZONES:
            yield from _listed(base + (zone,), spec.get(zone))
        file_spec = spec.get("file")
        if isinstance(file_spec, dict):
            yield from _listed(base + ("file", "top"), file_spec.get("top"))
        else:
            yield from _listed(base + ("file",), file_spec)


def _deck_cards(decks: Any) -> Iterator[tuple[Path, str]]:
    if not isinstance(decks, list):
        return
    for d, deck in enumerate(decks):
        base: Path = ("given", "game", "decks", d)
        if isinstance(deck, dict) and "top" in deck:
            yield from _listed(base + ("top",), deck.get("top"))
        elif isinstance(deck, dict):
            yield from ((base + (cid,), cid) for cid in deck if isinstance(cid, str))
        else:
            yield from _listed(base, deck)


def _listed(path: Path, entries: Any) -> Iterator[tuple[Path, str]]:
    """The ids of a list of ids or of ``{card: id}`` entries (anything else is the schema's to refuse)."""
    if not isinstance(entries, list):
        return
    for j, entry in enumerate(entries):
        if isinstance(entry, str):
            yield path + (j,), entry
        elif isinstance(entry, dict) and isinstance(entry.get("card"), str):
            yield path + (j, "card"), entry["card"]
