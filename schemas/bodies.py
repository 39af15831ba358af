"""Every request and response body of docs/api.md §1.

These schemas document the bodies and generate ``openapi.yaml``; the service
never loads or dumps through them on a request (see docs/operations.md,
"The hot path").
"""

from __future__ import annotations

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from referee.engine.facts import DECK_MAX_VIOLATIONS, UNKNOWN_CARDS_LISTED

from schemas.fields import StrictBoolean, natural, player_index
from schemas.game import (
    CardSchema,
    CatalogRefSchema,
    EventSchema,
    NewGameSchema,
    StateSchema,
    ViewSchema,
    ViolationSchema,
    action_field,
    deck_field,
    listed_action_field,
)


def _doc(text: str) -> dict:
    return {"description": text}


VIOLATIONS_BOUND = (f"Bounded: per deck, RULES 3.1 once, 3.2 and 3.3 at most once per id, and the first "
                    f"{UNKNOWN_CARDS_LISTED} distinct unknown ids (3.4) followed by one `more_unknown_cards` "
                    f"violation with their count: at most {DECK_MAX_VIOLATIONS} per deck.")


# -- requests --------------------------------------------------------------------

class ApplyRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A state and the action to apply to it (also the body of /v1/validate)."

    state = fields.Nested(StateSchema, required=True)
    action = action_field(required=True)


class LegalActionsRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A state, and optionally the player whose legal actions are wanted."

    state = fields.Nested(StateSchema, required=True)
    player = player_index(metadata=_doc("Absent: whoever may act now."))
    labels = StrictBoolean(metadata=_doc(
        "True: give each action a readable `label` (English, or Japanese with `Accept-Language: ja`). "
        "Default false."))


class ReplayRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Either `game` (a NewGame) or `state`, and the actions to apply in order."

    game = fields.Nested(NewGameSchema)
    state = fields.Nested(StateSchema)
    actions = fields.List(action_field(), required=True)

    @validates_schema
    def _one_start(self, data: dict, **kwargs) -> None:
        if ("game" in data) == ("state" in data):
            raise ValidationError("Give exactly one of game and state.", "_schema")


class ViewRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A state and the player whose view is wanted."

    state = fields.Nested(StateSchema, required=True)
    player = player_index(required=True)


class DeckValidateRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "One deck to check against RULES 3."

    deck = deck_field(required=True)


# -- responses -------------------------------------------------------------------

class GameResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The new (or next) state and what happened."

    state = fields.Nested(StateSchema, required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)


class ValidateResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Whether the action is legal now, and if not the first rule it breaks."

    legal = StrictBoolean(required=True)
    violation = fields.Nested(ViolationSchema, required=True, allow_none=True)


class LegalActionsResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Every legal action now, without `pay` (docs/api.md §6)."

    actions = fields.List(listed_action_field(), required=True)


class ReplayResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The state after every action, and how many were applied."

    state = fields.Nested(StateSchema, required=True)
    applied = natural(required=True)


class ViewResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "What one player may see."

    view = fields.Nested(ViewSchema, required=True)


class DeckValidateResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Every RULES 3 problem of the deck, not just the first."

    legal = StrictBoolean(required=True)
    violations = fields.List(fields.Nested(ViolationSchema), required=True, validate=validate.Length(
        max=DECK_MAX_VIOLATIONS), metadata=_doc(VIOLATIONS_BOUND))


class CardsResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The catalog in use."

    catalog = fields.Nested(CatalogRefSchema, required=True)
    cards = fields.List(fields.Nested(CardSchema), required=True)


class RuleSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "One rule of RULES.md."

    id = fields.String(required=True, metadata={"example": "10.4"})
    text = fields.String(required=True)


class RulesResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The rule index of RULES.md, in document order."

    rules = fields.List(fields.Nested(RuleSchema), required=True)


class HealthSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Liveness or readiness."

    status = fields.String(required=True, metadata={"example": "ok"})
    version = fields.String(metadata={"description": "The referee's package version (`/livez`).",
                                      "example": "0.1.0"})


class ReadinessSchema(HealthSchema):
    class Meta:
        unknown = RAISE
        description = ("Ready for traffic, with what this replica runs: compare replicas behind one "
                       "balancer, they must agree.")

    catalog = fields.Nested(CatalogRefSchema, required=True, metadata={
        "description": "The catalog loaded (the ref every state carries)."})
    keys = fields.Dict(keys=fields.String(), values=fields.String(), required=True, metadata={
        "description": "The fingerprint of each configured key by role (`current`; `previous` during a "
                       "rotation): the first 8 bytes of HMAC-SHA256(key, \"fingerprint\") in hex, never "
                       "the key. Empty without sealing.",
        "example": {"current": "3f9a0c1d2b4e5f60"}})


class ProblemSchema(Schema):
    class Meta:
        unknown = INCLUDE
        description = (
            "An error (RFC 9457 problem details, `application/problem+json`). `code` is a "
            "stable snake_case name; `instance` is the request id (X-Request-ID).")

    type = fields.String(required=True, metadata={"example": "https://ace-file-referee.dev/problems/invalid-schema"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    code = fields.String(required=True)
    detail = fields.String(required=True)
    instance = fields.String(required=True)
    errors = fields.Dict(keys=fields.String(), values=fields.List(fields.String()),
                         metadata=_doc("400 schema errors: field path (dotted, list indexes as numbers) to messages."))
    rule = fields.String(metadata=_doc("422: the rule id of RULES.md that the action or deck breaks."))
    index = natural(metadata=_doc("/v1/replay 422: the 0-based index of the first illegal action."))
    violations = fields.List(fields.Nested(ViolationSchema), validate=validate.Length(max=2 * DECK_MAX_VIOLATIONS),
                             metadata=_doc("Deck 422s: every violation (RULES 3). " + VIOLATIONS_BOUND))
