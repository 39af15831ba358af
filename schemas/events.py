"""Every event type (docs/state.md, "Events"): its fields, and what each side sees.

Events name cards by instance id, which is opaque (docs/api.md §3), and give
counts where the cards are hidden, so most events are the same for both
players. In private mode (docs/api.md §10) each seat gets its events through
``referee.engine.events.events_for``: ``game_started`` carries the seed's
``commitment`` instead of the seed, and a catalog identity is given only
for a card that seat may know. One schema per type, chosen by ``type``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import Schema, fields, validate

from referee.engine.facts import Reason
from referee_schemas.fields import OneOfSchemas, instance_id, instance_ids, natural, player_index, tagged_schema

BOTH = "Both players see it in full."


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


def _player(text: str = "The player concerned.") -> fields.Integer:
    return player_index(required=True, metadata=_doc(text))


def _id(text: str, **kw: Any) -> fields.String:
    return instance_id(required=True, metadata=_doc(text), **kw)


def _count(text: str) -> fields.Integer:
    return natural(required=True, metadata=_doc(text))


# type: (summary, what each side sees, fields)
EVENTS: dict[str, tuple[str, str, dict[str, Callable[[], fields.Field[Any]]]]] = {
    "game_started": (
        "The decks were shuffled and the game dealt (RULES 5).",
        "Plain mode: `seed`. Private mode: each seat gets `commitment` (SHA-256 of the seed) "
        "instead: that the shuffle happened, not the order.",
        {
            "first_player": lambda: _player("Who plays first (RULES 5.2)."),
            "seed": lambda: fields.String(metadata=_doc("Plain mode only: the game's seed.")),
            "commitment": lambda: fields.String(
                metadata=_doc("Private mode only: `sha256:` and the SHA-256 of the seed, revealed at the end.")
            ),
        },
    ),
    "draw": (
        "A player drew cards from the top of their file (RULES 8.2, 9.7, 5.3).",
        "Both see how many, never which: the drawer finds them in their view's hand.",
        {"player": _player, "cards": lambda: _count("How many cards were drawn.")},
    ),
    "mulligan": (
        "A player trashed their hand to draw again (RULES 5.4, 5.5).",
        BOTH + " The trashed cards are in the trash of both views.",
        {"player": _player, "cards": lambda: _count("How many cards were trashed.")},
    ),
    "keep": ("A player kept their hand (RULES 5.4).", BOTH, {"player": _player}),
    "turn_started": (
        "A turn began (RULES 6.1).",
        BOTH,
        {"turn": lambda: _count("The turn number."), "player": _player},
    ),
    "case_played": (
        "A case was played face down (RULES 6.4).",
        "Both see the instance id, neither the card's identity (unless it is the viewer's own).",
        {"player": _player, "case": lambda: _id("The case instance.")},
    ),
    "discard_owed": (
        "The active player must discard down to 7 (RULES 6.6).",
        BOTH,
        {"player": _player, "count": lambda: _count("How many cards to discard.")},
    ),
    "discard": (
        "Cards were discarded to the trash (RULES 6.6).",
        BOTH + " The trash is public.",
        {"player": _player, "cards": lambda: instance_ids(required=True)},
    ),
    "paid": (
        "Cases were actioned to pay a cost (RULES 7.3).",
        BOTH,
        {"player": _player, "cases": lambda: instance_ids(required=True)},
    ),
    "window_opened": (
        "A response window opened on a declared action (RULES 9.4).",
        BOTH,
        {
            "responder": _player,
            "action": lambda: fields.String(required=True, metadata=_doc("The pending action's type.")),
        },
    ),
    "counter": (
        "A counter was played in the window (RULES 9.3).",
        BOTH,
        {"player": _player, "card": lambda: _id("The counter instance (now in the trash).")},
    ),
    "window_closed": (
        "The response window closed and the action resolved or not (RULES 9.4, 9.5).",
        BOTH,
        {"negated": lambda: fields.Boolean(required=True)},
    ),
    "negated": (
        "A counter negated the pending action (RULES 9.5).",
        BOTH,
        {"action": lambda: fields.String(required=True), "by": lambda: _id("The counter instance.")},
    ),
    "investigation_power": (
        "A counter changed an investigation's power.",
        BOTH,
        {"amount": lambda: fields.Integer(strict=True, required=True), "by": lambda: _id("The counter instance.")},
    ),
    "game_over": (
        "The game ended (RULES 11).",
        BOTH,
        {
            "winner": _player,
            "reason": lambda: fields.String(required=True, validate=validate.OneOf([r.value for r in Reason])),
        },
    ),
    "mill": (
        "The top cards of a file went to the trash (docs/api.md §8 `mill`).",
        BOTH + " The trash is public.",
        {"player": _player, "cards": lambda: _count("How many cards were trashed.")},
    ),
    "skipped": (
        "An effect lost its target, or an action lost its case, and did nothing (RULES 9.6).",
        BOTH,
        {
            "effect": lambda: fields.String(),
            "target": lambda: instance_id(),
            "action": lambda: fields.String(),
            "reason": lambda: fields.String(),
        },
    ),
    "power": (
        "A fairy's power changed until end of turn.",
        BOTH,
        {"card": lambda: _id("The fairy or evidence."), "amount": lambda: fields.Integer(strict=True, required=True)},
    ),
    "ready": ("A case became unactioned.", BOTH, {"case": lambda: _id("The case.")}),
    "bounce": ("A fairy returned to its owner's hand.", BOTH, {"fairy": lambda: _id("The fairy."), "to": _player}),
    "trash": (
        "A card on the field went to its owner's trash.",
        BOTH,
        {"card": lambda: _id("The card."), "player": _player},
    ),
    "reveal": (
        "A face-down case turned face up (RULES 10, docs/api.md §8 `reveal`).",
        "Both see `card`, the case's catalog id, since it is face up now; a seat is never given "
        "`card` for an instance it may not know.",
        {
            "case": lambda: _id("The case instance."),
            "card": lambda: fields.String(metadata=_doc("The case's catalog id.")),
        },
    ),
    "recover": (
        "A card returned from its owner's trash to their hand.",
        BOTH,
        {"player": _player, "card": lambda: _id("The card (known to both: it was in the trash).")},
    ),
    "ability": (
        "An ability was used (RULES 9.1).",
        BOTH,
        {
            "player": _player,
            "card": lambda: _id("The fairy or evidence."),
            "ability": lambda: _count("The ability's index."),
        },
    ),
    "spell": ("A spell was cast (RULES 9.2).", BOTH, {"player": _player, "card": lambda: _id("The spell instance.")}),
    "investigation": (
        "An investigation was made (RULES 10).",
        BOTH,
        {
            "player": _player,
            "case": lambda: _id("The case."),
            "outcome": lambda: fields.String(
                required=True, validate=validate.OneOf(("abandoned", "failed", "continues", "solved"))
            ),
            "power": lambda: fields.Integer(strict=True),
            "level": lambda: fields.Integer(strict=True),
        },
    ),
    "solved": (
        "A case was solved (RULES 10.4).",
        BOTH,
        {"case": lambda: _id("The case."), "by": _player, "hit": lambda: _count("The case's hit.")},
    ),
    "fairy_played": (
        "A fairy was played, standby (RULES 8.3).",
        BOTH,
        {"player": _player, "fairy": lambda: _id("The fairy instance.")},
    ),
    "evidence_played": (
        "An evidence was played onto a case (RULES 8.4).",
        BOTH,
        {"player": _player, "evidence": lambda: _id("The evidence instance."), "case": lambda: _id("The case.")},
    ),
    "dispatch": (
        "A fairy was dispatched to a case (RULES 8.5).",
        BOTH,
        {"player": _player, "fairy": lambda: _id("The fairy."), "case": lambda: _id("The case.")},
    ),
    "redispatch": (
        "A fairy moved to another case (RULES 8.6).",
        BOTH,
        {"player": _player, "fairy": lambda: _id("The fairy."), "case": lambda: _id("The case.")},
    ),
    "recall": (
        "A dispatched fairy became standby (RULES 8.7).",
        BOTH,
        {
            "player": _player,
            "fairy": lambda: _id("The fairy."),
            "case": lambda: instance_id(required=True, allow_none=True, metadata=_doc("Always null.")),
        },
    ),
}


def _event_schema(kind: str) -> type[Schema]:
    summary, seen, makers = EVENTS[kind]
    members = {name: make() for name, make in makers.items()}
    return tagged_schema(kind, "Event", members, f"{summary} What each side sees: {seen}")


EVENT_SCHEMAS: dict[str, type[Schema]] = {kind: _event_schema(kind) for kind in EVENTS}
_EVENT_INSTANCES = {kind: cls() for kind, cls in EVENT_SCHEMAS.items()}


def event_field(**kwargs: Any) -> OneOfSchemas:
    kwargs.setdefault("metadata", _doc("Something that happened, in order; one schema per `type`."))
    return OneOfSchemas(_EVENT_INSTANCES, **kwargs)
