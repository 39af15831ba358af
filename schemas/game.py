"""The game objects of docs/api.md: Action (§6), State (§3, docs/state.md), NewGame
and Deck (§2), View (§5), Card (§8) and Violation (§7).

Shape only: whether an action is legal, a deck is legal or a state is
consistent (RULES 13.1) is the engine's to decide. Every schema rejects
unknown fields, and every field takes exactly one JSON type.
"""

from __future__ import annotations

from typing import Any

from marshmallow import INCLUDE, RAISE, Schema, fields, validate

from referee.engine import effect_types, model, requirements
from referee.engine.facts import (
    BEST_OF,
    CLOCK_INCREMENT,
    CLOCK_INITIAL,
    PLAYERS,
    RULESET,
    SCHEMA,
    WATCH_DELAY,
    Phase,
    Step,
)
from referee_schemas.derived import ACTION_SCHEMAS as ACTION_SCHEMAS  # re-exported, as are the two below
from referee_schemas.derived import action_field as action_field
from referee_schemas.derived import listed_action_field as listed_action_field
from referee_schemas.derived import schema_for
from referee_schemas.fields import (
    Deck,
    FormatChoice,
    Grammars,
    StrictBoolean,
    instance_ids,
    natural,
    player_index,
)

STATE_SCHEMA = SCHEMA
PHASES = tuple(p.value for p in Phase)
STEPS = tuple(s.value for s in Step)
KINDS = ("case", "fairy", "evidence", "spell", "counter", "bonus")


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


class _Strict(Schema):
    class Meta:
        unknown = RAISE


# -- actions (docs/api.md §6) and the state (docs/api.md §3, docs/state.md): derived from the engine's model --

ACTIONS = model.ACTIONS
CatalogRefSchema = schema_for(model.CatalogRef)
FormatRefSchema = schema_for(model.FormatRef)
OptionsSchema = schema_for(model.Options)
CaseEntrySchema = schema_for(model.CaseEntry)
FairyEntrySchema = schema_for(model.FairyEntry)
EvidenceEntrySchema = schema_for(model.EvidenceEntry)
PlayerSchema = schema_for(model.PlayerState)
PendingSchema = schema_for(model.Pending)
ResultSchema = schema_for(model.Result)
ModifierSchema = schema_for(model.Modifier)
UsedSchema = schema_for(model.Used)
ClockSchema = schema_for(model.Clock)
MatchSchema = schema_for(model.Match)
StateSchema = schema_for(model.State)


class ActionSchema(_Strict):
    """Wraps one action in ``{"action": ...}`` so it can be loaded on its own."""

    action = action_field(required=True)


# -- new games and decks (docs/api.md §2) ----------------------------------------------


def deck_field(**kwargs: Any) -> Deck:
    kwargs.setdefault(
        "metadata",
        _doc(
            "40 catalog card ids, top of the file first, an object of counts by card id, a deck list "
            "(`3 消えた上履き` a line) or a deck code (`afd1.…`), docs/api.md §13."
        ),
    )
    return Deck(**kwargs)


def format_field(**kwargs: Any) -> FormatChoice:
    kwargs.setdefault(
        "metadata",
        _doc(
            'A format of the catalog (GET /v1/formats): its id (the latest revision) or {"id": id, "date": '
            '"YYYY-MM-DD"} (the revision in force that day). Absent or null: none (RULES 3.9).'
        ),
    )
    return FormatChoice(allow_none=True, **kwargs)


class NewClockSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "A NewGame's clock (docs/api.md §15, RULES 11.5): seconds each, Fischer increment."

    initial = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Range(*CLOCK_INITIAL),
        metadata={"description": "Each player's time at the deal, in seconds.", "example": 600},
    )
    increment = fields.Integer(
        strict=True,
        required=True,
        validate=validate.Range(*CLOCK_INCREMENT),
        metadata={"description": "Seconds added after each of a player's own moves.", "example": 10},
    )


class NewMatchSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = (
            "A NewGame's match (RULES 14.1): the first game of a best of 1, 3 or 5; with `game` and `wins`, a later "
            "game of it, as its record names it (plain mode: a private match's later game is dealt by "
            "POST /v1/matches/next)."
        )

    best_of = fields.Integer(strict=True, required=True, validate=validate.OneOf(BEST_OF))
    game = fields.Integer(
        strict=True,
        validate=validate.Range(1, max(BEST_OF)),
        metadata={"description": "Which game of the match this is (default 1), at most `best_of`."},
    )
    wins = fields.List(
        fields.Integer(strict=True, validate=validate.Range(0, max(BEST_OF) // 2)),
        validate=validate.Length(equal=2),
        metadata={
            "description": "The games each player has won before this one (default [0, 0]): `game` − 1 in all, "
            "neither a majority of `best_of` (RULES 14.3)."
        },
    )


class ViewClockSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = (
            "The clock as a view shows it (docs/api.md §15): each player's time left at the last recorded move, "
            "whose time runs, and since when; a page counts down from it without asking."
        )

    remaining = fields.List(
        natural(), required=True, validate=validate.Length(equal=PLAYERS), metadata=_doc("Milliseconds, per player.")
    )
    running = player_index(
        required=True, allow_none=True, metadata=_doc("Whose time runs (the player who may act); null once over.")
    )
    since = fields.String(
        required=True,
        metadata={
            "description": "When the running time started (the last recorded move, or the deal): RFC 3339, UTC.",
            "example": "2026-12-05T10:00:00.000Z",
        },
    )
    initial = natural(required=True, metadata=_doc("The clock's time at the deal, in seconds."))
    increment = natural(required=True, metadata=_doc("The clock's increment, in seconds."))


class NewGameSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "A new game (docs/api.md §2)."

    decks = fields.List(
        deck_field(),
        required=True,
        validate=validate.Length(equal=PLAYERS),
        metadata=_doc("Player 0's deck, then player 1's."),
    )
    seed = fields.String(
        validate=validate.Length(min=1),
        allow_none=True,
        metadata=_doc("Any non-empty string; random if absent or null, and then returned in the state."),
    )
    first_player = player_index(allow_none=True, metadata=_doc("Absent or null: chosen from the seed (RULES 5.2)."))
    shuffle = StrictBoolean(metadata=_doc("false keeps each deck in the order given. Default true."))
    players = fields.List(
        fields.String(), validate=validate.Length(equal=PLAYERS), metadata=_doc("The players' names.")
    )
    options = fields.Nested(OptionsSchema)
    format = format_field()
    clock = fields.Nested(
        NewClockSchema,
        allow_none=True,
        metadata=_doc(
            "A clock (docs/api.md §15): private mode with a ledger only (else 400 `no_ledger`). Absent or null: none."
        ),
    )
    match = fields.Nested(
        NewMatchSchema, allow_none=True, metadata=_doc("The first game of a match (RULES 14.1). Absent or null: none.")
    )
    watch_delay = fields.Integer(
        strict=True,
        allow_none=True,
        validate=validate.Range(*WATCH_DELAY),
        metadata=_doc(
            "How many moves behind the latest a spectator sees the game while it goes on (docs/api.md §12): "
            "private mode with a ledger only (else 400 `not_in_private_mode` or `no_ledger`). Absent or null: 0."
        ),
    )


# -- views (docs/api.md §5) --------------------------------------------------------------

VIEW_SCHEMA = "ace-file/view@1"


class ViewPlayerSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "One player's zones as the viewer sees them: the file as a count."

    name = fields.String(required=True)
    file = natural(required=True, metadata=_doc("How many cards the file holds."))
    hand = instance_ids(
        required=True,
        metadata=_doc("The hand's instance ids; which cards they are is in `cards` only for the viewer's own hand."),
    )
    trash = instance_ids(required=True)
    cases = fields.List(fields.Nested(CaseEntrySchema), required=True)
    fairies = fields.List(fields.Nested(FairyEntrySchema), required=True)
    evidence = fields.List(fields.Nested(EvidenceEntrySchema), required=True)
    kept = StrictBoolean(required=True)


class ViewSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = (
            "The state as one player may see it (docs/api.md §5): no seed, no rng, files as "
            "counts, and in `cards` only the instances that player may know (their hand, "
            "the field but the opponent's face-down cases, both trashes, the card of a "
            "declared pending action). Not a State, never sealed, never accepted as one."
        )

    schema = fields.String(required=True, validate=validate.OneOf([VIEW_SCHEMA]))
    viewer = player_index(
        required=True, allow_none=True, metadata=_doc("Whose view this is; `null`: a spectator's (docs/api.md §12).")
    )
    player = player_index(
        required=True,
        allow_none=True,
        metadata=_doc("The same as `viewer`, under the name docs/api.md §12 gives it: `null` for a spectator."),
    )
    ruleset = fields.String(required=True, validate=validate.OneOf([RULESET]))
    catalog = fields.Nested(CatalogRefSchema, required=True)
    options = fields.Nested(OptionsSchema, required=True)
    format = fields.Nested(
        FormatRefSchema,
        required=True,
        allow_none=True,
        metadata=_doc("The game's format and its revision (RULES 3.9); null: none."),
    )
    turn = natural(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(PHASES))
    step = fields.String(required=True, validate=validate.OneOf(STEPS))
    active = player_index(required=True)
    first_player = player_index(required=True)
    case_played = StrictBoolean(required=True)
    pending = fields.Nested(PendingSchema, required=True, allow_none=True)
    result = fields.Nested(ResultSchema, required=True, allow_none=True)
    cards = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata=_doc("Only the instances the viewer may know, to their catalog ids."),
    )
    players = fields.List(fields.Nested(ViewPlayerSchema), required=True, validate=validate.Length(equal=PLAYERS))
    modifiers = fields.List(fields.Nested(ModifierSchema), required=True)
    used = fields.List(fields.Nested(UsedSchema), required=True)
    seq = natural(
        required=True,
        metadata=_doc("How many actions were applied since the deal: a player sees a rollback as seq going back."),
    )
    commitment = fields.String(
        required=True,
        metadata={
            "description": "`sha256:` and the SHA-256 (hex) of the game's seed: the dealing the seed "
            "decided can be checked once the seed is revealed (docs/api.md §10).",
            "example": "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        },
    )
    game_id = fields.String(metadata=_doc("The game's id (private mode only)."))
    watch_delay = fields.Integer(
        strict=True,
        validate=validate.Range(*WATCH_DELAY),
        metadata=_doc(
            "How many moves behind the latest a spectator's view is while the game goes on (docs/api.md §12); "
            'absent: 0. A page says it ("3 moves behind").'
        ),
    )
    clock = fields.Nested(
        ViewClockSchema, allow_none=True, metadata=_doc("The game's clock (docs/api.md §15), or null: no clock.")
    )
    match = fields.Nested(
        MatchSchema, allow_none=True, metadata=_doc("The match this game is part of (docs/api.md §15), or null.")
    )


# -- cards (docs/api.md §8) ----------------------------------------------------------------


def effect_entry() -> Grammars:
    """An effect entry: one of the registered effects' grammars (effect_types.py), the component EffectEntry."""
    return Grammars(
        "EffectEntry",
        effect_types.grammars,
        "An effect entry (docs/api.md §8): one of the registered effects, each an object of one key.",
    )


def requirement_entry() -> Grammars:
    """A case requirement: one of the registered requirements' grammars (requirements.py), the component
    RequirementEntry."""
    return Grammars(
        "RequirementEntry",
        requirements.grammars,
        "A case requirement (docs/api.md §8): one of the registered requirements, each an object of one key.",
    )


def effect_entries() -> fields.List[Any]:
    """A list of effect entries."""
    return fields.List(effect_entry(), metadata=_doc("Effect entries, in order (docs/api.md §8)."))


class AbilitySchema(Schema):
    class Meta:
        unknown = INCLUDE
        description = "An ability of a fairy or evidence."

    cost = natural()
    once_per_turn = StrictBoolean()
    effect = effect_entries()


class CardSchema(Schema):
    class Meta:
        unknown = INCLUDE
        description = "A catalog card, kind canonical (docs/api.md §8)."

    id = fields.String(required=True, metadata={"example": "AF-001"})
    name = fields.String(required=True)
    kind = fields.String(required=True, validate=validate.OneOf(KINDS))
    name_en = fields.String()
    series = fields.String()
    text = fields.String()
    deck_limit = fields.Integer(
        strict=True, metadata=_doc("This printing's own limit, as the catalog writes it (default 3).")
    )
    name_deck_limit = fields.Integer(
        strict=True,
        metadata=_doc(
            "How many cards of this name a deck may hold: the lowest deck_limit among all the catalog's cards "
            "of the name; 北の妖精 and V.I.P.のカード 1 whatever the catalog says (RULES 3.2). The limit "
            "POST /v1/decks/validate and POST /v1/games apply."
        ),
    )
    power = fields.Integer(strict=True)
    abilities = fields.List(fields.Nested(AbilitySchema))
    level = fields.Integer(strict=True)
    hit = fields.Integer(strict=True)
    dispatch_limit = fields.Integer(strict=True)
    requires = fields.List(
        requirement_entry(), metadata=_doc("Requirements, all of which must hold to solve the case (docs/api.md §8).")
    )
    cost = fields.Integer(strict=True)
    trigger = fields.String()
    effect = effect_entries()


# -- violations (docs/api.md §7) -----------------------------------------------------------


class ViolationSchema(Schema):
    class Meta:
        unknown = INCLUDE
        description = "A broken rule (docs/api.md §7); `detail` in Japanese with `Accept-Language: ja`."

    type = fields.String(required=True, metadata={"example": "https://ace-file-referee.dev/problems/rule-violation"})
    title = fields.String(required=True, metadata={"example": "Rule violation"})
    status = fields.Integer(required=True, metadata={"example": 422})
    rule = fields.String(required=True, metadata={"example": "8.9", "description": "The rule id of RULES.md."})
    code = fields.String(required=True, metadata={"example": "one_fairy_per_case"})
    detail = fields.String(required=True)
    deck = fields.Integer(metadata={"description": "In a NewGame's deck violations: which deck (0 or 1)."})
    line = fields.Integer(
        metadata={"description": "A violation of a deck list: the line (from 1) of its card (docs/api.md §13)."}
    )
    player = fields.Integer(
        metadata={"description": "The player `detail` names as the one acting (0 or 1); `detail` says their name."}
    )
    actor = fields.Integer(metadata={"description": "The player who may act now, where `detail` names them (0 or 1)."})
