"""The game objects of docs/api.md: Action (§6), State (§3, docs/state.md), NewGame
and Deck (§2), View (§5), Card (§8) and Violation (§7).

Shape only: whether an action is legal, a deck is legal or a state is
consistent (RULES 13.1) is the engine's to decide. Every schema rejects
unknown fields, and every field takes exactly one JSON type.
"""

from __future__ import annotations

from marshmallow import RAISE, INCLUDE, Schema, fields, validate

from schemas.fields import (
    Deck,
    OneOfSchemas,
    StrictBoolean,
    instance_id,
    instance_ids,
    natural,
    player_index,
)

STATE_SCHEMA = "ace-file/state@1"
RULESET = "ace-file-99"
PHASES = ("mulligan", "turn", "over")
STEPS = ("mulligan", "case", "main", "end")
WINDOW_MODES = ("auto", "strict")
RESULT_REASONS = ("deck_out", "concede")
KINDS = ("case", "fairy", "evidence", "spell", "counter", "bonus")


def _doc(text: str) -> dict:
    return {"description": text}


class _Strict(Schema):
    class Meta:
        unknown = RAISE


# -- actions (docs/api.md §6) -----------------------------------------------------

# type: (the fields it takes besides type, player and pay; rule; summary)
ACTIONS: dict[str, tuple[tuple[str, ...], str, str]] = {
    "mulligan": ((), "5.4", "Trash the whole hand and draw 7 (mulligan phase)."),
    "keep": ((), "5.4", "Keep the hand (mulligan phase)."),
    "play_case": (("card",), "6.4", "Play a case from hand, face down (case step)."),
    "skip_case": ((), "6.4", "Play no case this turn (case step)."),
    "draw": ((), "8.2", "Draw 1 card (main step, 1 action)."),
    "play_fairy": (("card",), "8.3", "Play a fairy from hand, standby."),
    "play_evidence": (("card", "case"), "8.4", "Play an evidence from hand onto a case in play."),
    "dispatch": (("fairy", "case"), "8.5", "Dispatch a standby fairy to a case in play."),
    "redispatch": (("fairy", "case"), "8.6", "Move a dispatched fairy to another case in play."),
    "recall": (("fairy",), "8.7", "Recall a dispatched fairy: it becomes standby."),
    "investigate": (("case",), "10", "Investigate a case one of your fairies is dispatched to."),
    "use_ability": (("card", "ability", "targets"), "9.1", "Use ability number `ability` of a fairy or evidence you control."),
    "cast_spell": (("card", "targets"), "9.2", "Cast a spell from hand."),
    "counter": (("card", "targets"), "9.3", "Play a counter from hand in a response window."),
    "pass": ((), "9.4", "Close the response window (the responder)."),
    "end_turn": ((), "6.5", "End the turn (main step, no window open)."),
    "discard": (("cards",), "6.6", "Discard exactly the excess over 7 cards (end step)."),
    "concede": ((), "11.2", "Concede the game (either player, any time before it is over)."),
}

_ACTION_FIELDS = {
    "card": lambda: instance_id(required=True, metadata=_doc("The card instance the action uses.")),
    "case": lambda: instance_id(required=True, metadata=_doc("A case instance in play.")),
    "fairy": lambda: instance_id(required=True, metadata=_doc("A fairy instance on the field.")),
    "ability": lambda: natural(required=True, metadata=_doc("The index of the ability on the card (0-based).")),
    "targets": lambda: instance_ids(allow_none=True, metadata=_doc(
        "One instance id per effect that takes a target, in the card's order; absent or null means [].")),
    "cards": lambda: instance_ids(required=True, metadata=_doc(
        "The cards discarded: exactly the excess over 7 (the count is a rule matter, RULES 6.6).")),
}


def _action_schema(kind: str) -> type[Schema]:
    names, rule, summary = ACTIONS[kind]
    attrs: dict = {
        "type": fields.String(required=True, validate=validate.OneOf([kind])),
        "player": player_index(required=True, metadata=_doc("Who acts.")),
        **{name: _ACTION_FIELDS[name]() for name in names},
        "pay": instance_ids(metadata=_doc(
            "The case instances that pay the cost (RULES 7.3); absent: the cases controlled longest.")),
        "Meta": type("Meta", (), {"unknown": RAISE, "description": f"{summary} (RULES {rule})"}),
    }
    name = "".join(part.capitalize() for part in kind.split("_")) + "Action"
    return type(name, (Schema,), attrs)


ACTION_SCHEMAS: dict[str, type[Schema]] = {kind: _action_schema(kind) for kind in ACTIONS}
_ACTION_INSTANCES = {kind: cls() for kind, cls in ACTION_SCHEMAS.items()}


def action_field(**kwargs) -> OneOfSchemas:
    kwargs.setdefault("metadata", _doc("An action (docs/api.md §6), chosen by its `type`."))
    return OneOfSchemas(_ACTION_INSTANCES, **kwargs)


class ActionSchema(_Strict):
    """Wraps one action in ``{"action": ...}`` so it can be loaded on its own."""

    action = action_field(required=True)


# -- the state (docs/api.md §3, docs/state.md) --------------------------------------

class CatalogRefSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "The catalog a state was made with (docs/api.md §8)."

    id = fields.String(required=True, metadata={"example": "af-ref"})
    digest = fields.String(required=True, metadata={"example": "sha256:..."})


class OptionsSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "Game options."

    response_windows = fields.String(
        validate=validate.OneOf(WINDOW_MODES), load_default="auto",
        metadata=_doc("When a response window opens (RULES 9.4); default auto."))


class CaseEntrySchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "A case in play."

    card = instance_id(required=True)
    face_up = StrictBoolean(required=True)
    actioned = StrictBoolean(required=True)


class FairyEntrySchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "A fairy on the field: standby (case null) or dispatched to a case in play."

    card = instance_id(required=True)
    case = instance_id(required=True, allow_none=True)


class EvidenceEntrySchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "An evidence on the field, attached to a case in play."

    card = instance_id(required=True)
    case = instance_id(required=True)


class PlayerSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "One player's zones (docs/state.md)."

    name = fields.String(metadata=_doc('Default "Player 1" / "Player 2".'))
    file = instance_ids(required=True, metadata=_doc("The file (deck), top first."))
    hand = instance_ids(required=True)
    trash = instance_ids(required=True, metadata=_doc("In the order the cards arrived."))
    cases = fields.List(fields.Nested(CaseEntrySchema), required=True,
                        metadata=_doc("The cases this player controls, in the order played."))
    fairies = fields.List(fields.Nested(FairyEntrySchema), required=True)
    evidence = fields.List(fields.Nested(EvidenceEntrySchema), required=True)
    kept = StrictBoolean(required=True, metadata=_doc("The player has kept their hand (RULES 5.4)."))


class PendingSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "The action of an open response window (RULES 9.4)."

    action = action_field(required=True, metadata=_doc("The declared action, `pay` filled in as paid."))
    responder = player_index(required=True)
    negated = StrictBoolean(metadata=_doc("A counter negated it (RULES 9.5). Default false."))
    power = fields.Integer(strict=True, metadata=_doc("Investigation modifiers from counters. Default 0."))
    counters = instance_ids(metadata=_doc("Counters played in this window. Default []."))


class ResultSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "How the game ended."

    winner = player_index(required=True)
    reason = fields.String(required=True, validate=validate.OneOf(RESULT_REASONS))


class ModifierSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "An until-end-of-turn power change."

    card = instance_id(required=True)
    power = fields.Integer(strict=True, required=True)


class UsedSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "A once-per-turn ability used this turn."

    card = instance_id(required=True)
    ability = natural(required=True)


class StateSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = (
            "The full, authoritative game state (docs/api.md §3, docs/state.md). Opaque to "
            "clients apart from the documented fields; send it back exactly as received.")

    schema = fields.String(required=True, validate=validate.OneOf([STATE_SCHEMA]))
    ruleset = fields.String(required=True, validate=validate.OneOf([RULESET]))
    catalog = fields.Nested(CatalogRefSchema, required=True)
    options = fields.Nested(OptionsSchema, metadata=_doc('Default {"response_windows": "auto"}.'))
    seed = fields.String(required=True)
    rng = natural(required=True, metadata=_doc("How many random draws were made from the seed."))
    turn = natural(required=True, metadata=_doc("0 in the mulligan phase, then 1, 2, ..."))
    phase = fields.String(required=True, validate=validate.OneOf(PHASES))
    step = fields.String(required=True, validate=validate.OneOf(STEPS))
    active = player_index(required=True, metadata=_doc("Whose turn; in the mulligan phase, who decides."))
    first_player = player_index(required=True)
    case_played = StrictBoolean(required=True)
    pending = fields.Nested(PendingSchema, required=True, allow_none=True)
    result = fields.Nested(ResultSchema, required=True, allow_none=True)
    cards = fields.Dict(keys=fields.String(validate=validate.Length(min=1)), values=fields.String(),
                        required=True, metadata=_doc("Every card instance id (80) to its catalog id."))
    players = fields.List(fields.Nested(PlayerSchema), required=True, validate=validate.Length(equal=2))
    modifiers = fields.List(fields.Nested(ModifierSchema), metadata=_doc("Default []."))
    used = fields.List(fields.Nested(UsedSchema), metadata=_doc("Default []."))
    seal = fields.String(metadata=_doc(
        "A MAC over the rest of the state, present when the service runs with a secret (docs/api.md §4)."))


# -- new games and decks (docs/api.md §2) ----------------------------------------------

def deck_field(**kwargs) -> Deck:
    kwargs.setdefault("metadata", _doc(
        "40 catalog card ids, top of the file first, or an object of counts by card id."))
    return Deck(**kwargs)


class NewGameSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "A new game (docs/api.md §2)."

    decks = fields.List(deck_field(), required=True, validate=validate.Length(equal=2),
                        metadata=_doc("Player 0's deck, then player 1's."))
    seed = fields.String(validate=validate.Length(min=1), allow_none=True, metadata=_doc(
        "Any non-empty string; random if absent or null, and then returned in the state."))
    first_player = player_index(allow_none=True, metadata=_doc("Absent or null: chosen from the seed (RULES 5.2)."))
    shuffle = StrictBoolean(metadata=_doc("false keeps each deck in the order given. Default true."))
    players = fields.List(fields.String(), validate=validate.Length(equal=2), metadata=_doc("The players' names."))
    options = fields.Nested(OptionsSchema)


# -- views (docs/api.md §5) --------------------------------------------------------------

VIEW_SCHEMA = "ace-file/view@1"


class ViewPlayerSchema(_Strict):
    class Meta:
        unknown = RAISE
        description = "One player's zones as the viewer sees them: the file as a count."

    name = fields.String(required=True)
    file = natural(required=True, metadata=_doc("How many cards the file holds."))
    hand = instance_ids(required=True, metadata=_doc(
        "The hand's instance ids; which cards they are is in `cards` only for the viewer's own hand."))
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
            "declared pending action). Not a State, never sealed, never accepted as one.")

    schema = fields.String(required=True, validate=validate.OneOf([VIEW_SCHEMA]))
    viewer = player_index(required=True, metadata=_doc("Whose view this is."))
    ruleset = fields.String(required=True, validate=validate.OneOf([RULESET]))
    catalog = fields.Nested(CatalogRefSchema, required=True)
    options = fields.Nested(OptionsSchema, required=True)
    turn = natural(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(PHASES))
    step = fields.String(required=True, validate=validate.OneOf(STEPS))
    active = player_index(required=True)
    first_player = player_index(required=True)
    case_played = StrictBoolean(required=True)
    pending = fields.Nested(PendingSchema, required=True, allow_none=True)
    result = fields.Nested(ResultSchema, required=True, allow_none=True)
    cards = fields.Dict(keys=fields.String(), values=fields.String(), required=True,
                        metadata=_doc("Only the instances the viewer may know, to their catalog ids."))
    players = fields.List(fields.Nested(ViewPlayerSchema), required=True, validate=validate.Length(equal=2))
    modifiers = fields.List(fields.Nested(ModifierSchema), required=True)
    used = fields.List(fields.Nested(UsedSchema), required=True)


# -- cards (docs/api.md §8) ----------------------------------------------------------------

class AbilitySchema(Schema):
    class Meta:
        unknown = INCLUDE
        description = "An ability of a fairy or evidence."

    cost = natural()
    once_per_turn = StrictBoolean()
    effect = fields.List(fields.Dict(), metadata=_doc("Effect entries, in order (docs/api.md §8)."))


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
    deck_limit = fields.Integer(strict=True)
    power = fields.Integer(strict=True)
    abilities = fields.List(fields.Nested(AbilitySchema))
    level = fields.Integer(strict=True)
    hit = fields.Integer(strict=True)
    dispatch_limit = fields.Integer(strict=True)
    requires = fields.List(fields.Dict())
    cost = fields.Integer(strict=True)
    trigger = fields.String()
    effect = fields.List(fields.Dict())


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


class EventSchema(Schema):
    class Meta:
        unknown = INCLUDE
        description = "Something that happened, in order (docs/state.md), e.g. {\"type\": \"draw\", \"player\": 0, \"cards\": 1}."

    type = fields.String(required=True)
