"""The bodies of the event endpoints (docs/api.md §17): the event document, its rounds, and the answers.

They document the bodies (``openapi.yaml``); the service reads an event with
:func:`referee.events.read_event`, which refuses what these refuse, with the
same field paths.
"""

from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from referee.events.document import BEST_OF, CUTS, MAX_ID, MAX_PLAYERS, MAX_ROUNDS, MAX_TEXT, RATING_BOUNDS
from referee_schemas.fields import StrictBoolean, natural


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


def _player_id(**kwargs: object) -> fields.String:
    return fields.String(validate=validate.Length(1, MAX_ID), **kwargs)  # type: ignore[arg-type]


class EventRatingSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A Glicko-2 rating (RULES 15.7): default 1500, 350, 0.06."

    rating = fields.Float(required=True, validate=validate.Range(*RATING_BOUNDS["rating"]))
    rd = fields.Float(required=True, validate=validate.Range(*RATING_BOUNDS["rd"]))
    volatility = fields.Float(required=True, validate=validate.Range(*RATING_BOUNDS["volatility"]))


class EventPlayerSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A player of the event: a unique id (1 to 64 characters), a name, a starting rating."

    id = _player_id(required=True)
    name = fields.String(validate=validate.Length(0, MAX_TEXT))
    rating = fields.Nested(EventRatingSchema)


class EventResultSchema(Schema):
    class Meta:
        unknown = RAISE
        description = (
            "Exactly one of `games` (the games each player won, in the pairing's order: a match score of "
            "RULES 15.2, else a 422) and `forfeit` (the player who forfeits: a loss 0–2)."
        )

    games = fields.List(natural(), validate=validate.Length(equal=2))
    forfeit = _player_id()


class EventPairingSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A match (`players`, and its `result` once played) or a bye (`bye`)."

    players = fields.List(_player_id(), validate=validate.Length(equal=2))
    result = fields.Nested(EventResultSchema)
    bye = _player_id()
    table = fields.Integer(validate=validate.Range(min=1), metadata=_doc("The match's table number, from 1."))


class EventRoundSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A round: its pairings, the players who leave after it, and whether it is a cut round."

    pairings = fields.List(fields.Nested(EventPairingSchema), required=True)
    drops = fields.List(_player_id(), metadata=_doc("The players who leave after this round (RULES 15.1)."))
    cut = StrictBoolean(metadata=_doc("A round of the top cut (RULES 15.6)."))


class EventSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "An event (docs/api.md §17, RULES 15): kept by the client and sent whole."

    name = fields.String(validate=validate.Length(0, MAX_TEXT))
    seed = fields.String(required=True, validate=validate.Length(0, MAX_TEXT))
    best_of = fields.Integer(required=True, validate=validate.OneOf(BEST_OF))
    swiss_rounds = fields.Integer(
        validate=validate.Range(1, MAX_ROUNDS), metadata=_doc("Default ⌈log₂ players⌉, at least 1 (RULES 15.1).")
    )
    cut = fields.Integer(validate=validate.OneOf(CUTS), metadata=_doc("The top cut's size; 0: none (RULES 15.6)."))
    swiss_ended = StrictBoolean(metadata=_doc("Set by the referee when no pairing without a rematch was left."))
    players = fields.List(fields.Nested(EventPlayerSchema), required=True, validate=validate.Length(2, MAX_PLAYERS))
    rounds = fields.List(fields.Nested(EventRoundSchema), required=True, validate=validate.Length(0, MAX_ROUNDS))


class EventRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "An event document."

    event = fields.Nested(EventSchema, required=True)


class PairResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The event with its next round appended, and that round's number and pairings."

    event = fields.Nested(EventSchema, required=True)
    round = fields.Integer(required=True, allow_none=True, metadata=_doc("The round's number; null: none added."))
    pairings = fields.List(
        fields.Nested(EventPairingSchema), required=True, metadata=_doc("Matches by table, then the bye.")
    )
    swiss_ended = StrictBoolean(metadata=_doc("True: no pairing without a rematch exists; no round was added."))


class StandingSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "One player's place (RULES 15.4); the rates rounded to 4 places (the order uses them exactly)."

    rank = fields.Integer(required=True)
    player = _player_id(required=True)
    match_points = natural(required=True)
    record = fields.String(required=True, metadata=_doc("Matches won and lost, `W-L` (a bye is a win)."))
    mw = fields.Float(required=True)
    omw = fields.Float(required=True)
    gw = fields.Float(required=True)
    ogw = fields.Float(required=True)
    dropped = StrictBoolean(required=True)


class StandingsResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The standings, every player's rating, and the winner once there is one."

    standings = fields.List(fields.Nested(StandingSchema), required=True)
    ratings = fields.Dict(keys=fields.String(), values=fields.Nested(EventRatingSchema), required=True)
    winner = _player_id(metadata=_doc("The cut final's winner; without a cut, the first once the last round is in."))


class EventCheckResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Every round obeys RULES 15 (else a 422 naming the rule, the round and the table)."

    ok = StrictBoolean(required=True)
