"""Events as one player may know them (docs/api.md §10), beside views (docs/api.md §5).

The engine's events name cards by instance id, which is opaque (docs/api.md §3),
and give counts for what is hidden: a draw says how many cards, never which.
Two things in them are secrets in private play:

- ``game_started`` carries the ``seed``, from which anyone could re-deal both
  files. Each seat gets the seed's ``commitment`` in its place: that the
  shuffle happened and what it is bound to, not the order.
- an event that names a card's catalog identity (``reveal``'s ``card``) is
  shown to a seat only when that seat may know the instance, by the same
  predicate as views (:func:`referee.engine.views.visible_cards`).

Every event type and its fields is in ``schemas/events.py``, with what each
side sees.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from referee.engine.event_types import EventDict
from referee.engine.facts import commitment
from referee.engine.state_types import StateDict
from referee.engine.views import visible_cards

# type: ((catalog-id field, the instance field it belongs to), ...)
CATALOG_FIELDS: dict[str, tuple[tuple[str, str], ...]] = {
    "reveal": (("card", "case"),),
}


def public_cards(state: StateDict) -> set[str]:
    """The instances both players may know (what an onlooker may know)."""
    return visible_cards(state, 0) & visible_cards(state, 1)


def events_for(
    events: Iterable[Mapping[str, Any]],
    state: StateDict | dict[str, Any],
    viewer: int | None,
    known: set[str] | None = None,
) -> list[EventDict]:
    """``events`` (which led to ``state``) as ``viewer`` may know them; ``None``: as both may.

    ``known`` is ``visible_cards(state, viewer)`` when the caller has it already (for a view);
    else it is computed only for an event that names a catalog id (rare).
    The input list and its events are not changed.
    """
    out: list[Any] = []  # each event of its type's shape (EventDict), as the engine made it
    for event in events:
        kind = event["type"]
        if kind == "game_started":
            event = {**{k: v for k, v in event.items() if k != "seed"}, "commitment": commitment(event["seed"])}
        elif kind in CATALOG_FIELDS:
            if known is None:
                typed = cast(StateDict, state)  # a state the engine made or checked
                known = public_cards(typed) if viewer is None else visible_cards(typed, viewer)
            hidden = [name for name, iid in CATALOG_FIELDS[kind] if event.get(iid) not in known]
            event = {k: v for k, v in event.items() if k not in hidden}
        out.append(event)
    return out
