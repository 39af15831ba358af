"""Every request and response body of docs/api.md §1.

These schemas document the bodies and generate ``openapi.yaml``; the service
never loads or dumps through them on a request (see docs/operations.md,
"The hot path").
"""

from __future__ import annotations

from typing import Any

from marshmallow import INCLUDE, RAISE, Schema, ValidationError, fields, validate, validates_schema

from referee.engine.facts import DECK_MAX_VIOLATIONS, PLAYERS, UNKNOWN_CARDS_LISTED
from referee_schemas.events import event_field
from referee_schemas.fields import StrictBoolean, natural, player_index
from referee_schemas.game import (
    CardSchema,
    CatalogRefSchema,
    NewGameSchema,
    ResultSchema,
    StateSchema,
    ViewSchema,
    ViolationSchema,
    action_field,
    deck_field,
    format_field,
    listed_action_field,
)


def _doc(text: str) -> dict[str, str]:
    return {"description": text}


VIOLATIONS_BOUND = (
    f"Bounded: per deck, RULES 3.1 once, 3.2 or 3.8, 3.3 or 3.6, and 3.7 at most once per id, and the first "
    f"{UNKNOWN_CARDS_LISTED} distinct unknown ids (3.4) followed by one `more_unknown_cards` "
    f"violation with their count: at most {DECK_MAX_VIOLATIONS} per deck."
)


# -- requests --------------------------------------------------------------------


def times_field() -> fields.List[int]:
    return fields.List(
        natural(),
        metadata=_doc(
            "When each action was recorded, in milliseconds since the deal, one per action (docs/api.md §15): "
            "a game with a clock needs them and replays its charges exactly from them."
        ),
    )


class ApplyRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A state and the action to apply to it (also the body of /v1/validate)."

    state = fields.Nested(StateSchema, required=True)
    action = action_field(required=True)


def labels_field() -> StrictBoolean:
    """``/v1/legal-actions``' ``labels`` (plain and private mode)."""
    return StrictBoolean(
        metadata=_doc(
            "True: give each action a readable `label` (English, or Japanese with `Accept-Language: ja`). "
            "Default false."
        )
    )


class LegalActionsRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A state, and optionally the player whose legal actions are wanted."

    state = fields.Nested(StateSchema, required=True)
    player = player_index(metadata=_doc("Absent: whoever may act now."))
    labels = labels_field()


class ReplayRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Either `game` (a NewGame) or `state`, and the actions to apply in order."

    game = fields.Nested(NewGameSchema)
    state = fields.Nested(StateSchema)
    actions = fields.List(action_field(), required=True)
    times = times_field()

    @validates_schema(skip_on_field_errors=False, pass_original=True)
    def _one_start(self, data: dict[str, Any], original: Any, **kwargs: Any) -> None:
        """Read from the body's keys, whatever else is wrong with it, as the service does first (docs/api.md §1)."""
        if isinstance(original, dict) and ("game" in original) == ("state" in original):
            raise ValidationError("Give exactly one of game and state.", "_schema")


class ReplayRecordRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A game record (docs/records.md) to replay: its game, its actions."

    record = fields.String(required=True, metadata=_doc("The record's text (UTF-8, LF line ends)."))


RECORD_PLAYER = (
    "Absent: the whole record. 0 or 1: that seat's record (its commitment for the seed, its own deck only, "
    "cards it may not know as ids only); null: a spectator's (what both players know)."
)


class RecordsRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A game as `/v1/replay` takes it (from its NewGame), and whose record is wanted."

    game = fields.Nested(NewGameSchema, required=True)
    actions = fields.List(action_field(), required=True)
    times = fields.List(
        natural(), metadata=_doc("Clocked games: each action's time, in milliseconds since the deal (clocked games).")
    )
    player = player_index(allow_none=True, metadata=_doc(RECORD_PLAYER))


class RecordFromRecordRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A record, written again: whole (checked), or as one seat or a spectator may know it."

    record = fields.String(required=True, metadata=_doc("The record's text (UTF-8, LF line ends)."))
    player = player_index(allow_none=True, metadata=_doc(RECORD_PLAYER))


class NextGameRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = (
            "The final state of a match's game that is over and who plays first in the next "
            "(RULES 14.2: the loser chooses; plain mode trusts its caller)."
        )

    state = fields.Nested(StateSchema, required=True)
    first_player = player_index(required=True, metadata=_doc("Who plays first in the next game."))
    player = player_index(
        allow_none=True,
        metadata=_doc("Who chose: if sent, it must be the loser of the game that ended (else 422, RULES 14.2)."),
    )


class ViewRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A state and the player whose view is wanted (`null`: a spectator's, docs/api.md §12)."

    state = fields.Nested(StateSchema, required=True)
    player = player_index(required=True, allow_none=True)


# referee.bots.suggest's MAX_BUDGET_MS and MAX_ITERATIONS (tests/test_suggest.py checks they agree).
MAX_BUDGET_MS = 2000
MAX_ITERATIONS = 1000
MAX_SEED = 200  # characters of a suggestion's seed
ONE_BUDGET = "Give exactly one of budget_ms and iterations."


def one_budget(body: dict[str, Any]) -> bool:
    """``/v1/suggest``'s rule of work: exactly one of ``budget_ms`` and ``iterations`` (the schema below and the
    handler, :func:`referee.service.answers.suggestion_asked`, both ask this)."""
    return ("budget_ms" in body) != ("iterations" in body)


class _BotFields(Schema):
    """What ``/v1/suggest`` asks besides the state and whose move (docs/api.md §16)."""

    bot = fields.String(
        required=True,
        metadata={
            **_doc("The bot: `random`, `greedy` or `ismcts`; another name is 400 `unknown_bot`, listing them."),
            "example": "ismcts",
        },
    )
    budget_ms = fields.Integer(
        strict=True,
        validate=validate.Range(1, MAX_BUDGET_MS),
        metadata={
            **_doc(
                f"The bot's time in milliseconds, at most {MAX_BUDGET_MS} (or the lower cap the referee's "
                "operator set, REFEREE_SUGGEST_MAX_MS): the answer comes within it (10% over at most). Exactly "
                "one of `budget_ms` and `iterations`."
            ),
            "example": 500,
        },
    )
    iterations = fields.Integer(
        strict=True,
        validate=validate.Range(1, MAX_ITERATIONS),
        metadata=_doc(
            "In place of `budget_ms`: a fixed amount of work (ISMCTS iterations; the other bots' work is fixed "
            "anyway), so the same request gives the same move on every machine."
        ),
    )
    seed = fields.String(
        validate=validate.Length(max=MAX_SEED),
        metadata=_doc("With the state's `seq`, the bot's only source of randomness (default empty)."),
    )

    @validates_schema(skip_on_field_errors=False, pass_original=True)
    def _one_budget(self, data: dict[str, Any], original: Any, **kwargs: Any) -> None:
        if isinstance(original, dict) and not one_budget(original):
            raise ValidationError(ONE_BUDGET, "_schema")


class SuggestRequestSchema(_BotFields):
    class Meta:
        unknown = RAISE
        description = "A state, the player whose move is wanted, and the bot (docs/api.md §16)."

    state = fields.Nested(StateSchema, required=True)
    player = player_index(required=True)


class DeckValidateRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "One deck to check against RULES 3, and optionally a format's 3.6–3.8."

    deck = deck_field(required=True)
    format = format_field()


# -- responses -------------------------------------------------------------------


class GameResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The new (or next) state and what happened."

    state = fields.Nested(StateSchema, required=True)
    events = fields.List(event_field(), required=True)


class ValidateResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Whether the action is legal now, and if not the first rule it breaks."

    legal = StrictBoolean(required=True)
    violation = fields.Nested(ViolationSchema, required=True, allow_none=True)


RENEWED_SEAT = (
    "Private mode, during a key rotation: present when the seat sent was made under the previous "
    "key; the same seat under the current key, to use from now on (docs/operations.md)."
)


class LegalActionsResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Every legal action now, without `pay` (docs/api.md §6)."

    actions = fields.List(listed_action_field(), required=True)
    seat = fields.String(metadata={"description": RENEWED_SEAT})


class ReplayResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The state after every action, and how many were applied."

    state = fields.Nested(StateSchema, required=True)
    applied = natural(required=True)


class RecordReadResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A record read, not played: the NewGame its tags name, its actions, and the line of each."

    game = fields.Nested(NewGameSchema, required=True, metadata=_doc("The NewGame the record was dealt from."))
    actions = fields.List(action_field(), required=True)
    times = fields.List(
        natural(),
        required=True,
        allow_none=True,
        metadata=_doc("Clocked games: each action's time, in milliseconds since the deal; else null."),
    )
    lines = fields.List(natural(), required=True, metadata=_doc("The record's line (1-based) of each action."))
    result = fields.Nested(ResultSchema, required=True, allow_none=True, metadata=_doc("The `Result` tag."))


class ViewResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "What one player may see."

    view = fields.Nested(ViewSchema, required=True)
    seat = fields.String(metadata={"description": RENEWED_SEAT})


class DeckFormsSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The deck's canonical forms (docs/api.md §13), so that an app converts between them."

    counts = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(strict=True),
        required=True,
        metadata=_doc("Counts by catalog id, in ascending id order."),
    )
    list = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc(
            "The deck list: `N name` a line in ascending id order; null when a card is not in the catalog "
            "or a count is over 9999."
        ),
    )
    code = fields.String(
        required=True,
        allow_none=True,
        metadata=_doc("The deck code (`afd1.…`); null when a card is not in the catalog or a count is over 40."),
    )


class DeckValidateResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Every RULES 3 problem of the deck, not just the first."

    legal = StrictBoolean(required=True)
    violations = fields.List(
        fields.Nested(ViolationSchema),
        required=True,
        validate=validate.Length(max=DECK_MAX_VIOLATIONS),
        metadata=_doc(VIOLATIONS_BOUND),
    )
    deck = fields.Nested(DeckFormsSchema, required=True)


class FormatRevisionSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A revision: in force from its date until the next one's."

    from_ = fields.String(required=True, data_key="from", metadata={"example": "2000-04-01"})
    banned = fields.List(fields.String(), required=True, metadata=_doc("Names banned (RULES 3.7)."))
    restricted = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(strict=True),
        required=True,
        metadata=_doc("Names restricted to fewer copies (RULES 3.8)."),
    )


class FormatSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "A format of the catalog (RULES 3.6–3.9, docs/api.md §13)."

    id = fields.String(required=True, metadata={"example": "af99"})
    name = fields.String(required=True)
    series = fields.Raw(
        required=True,
        metadata={
            "description": 'The series whose cards are legal (a list), or "all".',
            "oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "string", "enum": ["all"]}],
        },
    )
    revisions = fields.List(fields.Nested(FormatRevisionSchema), required=True)
    text = fields.String()


class FormatsResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The catalog's formats."

    formats = fields.List(fields.Nested(FormatSchema), required=True)


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
    version = fields.String(metadata={"description": "The referee's package version (`/livez`).", "example": "0.1.0"})


class ReadinessSchema(HealthSchema):
    class Meta:
        unknown = RAISE
        description = (
            "Ready for traffic, with what this replica runs: compare replicas behind one balancer, they must agree."
        )

    catalog = fields.Nested(
        CatalogRefSchema, required=True, metadata={"description": "The catalog loaded (the ref every state carries)."}
    )
    keys = fields.Dict(
        keys=fields.String(),
        values=fields.String(),
        required=True,
        metadata={
            "description": "The fingerprint of each configured key by role (`current`; `previous` during a "
            'rotation): the first 8 bytes of HMAC-SHA256(key, "fingerprint") in hex, never '
            "the key. Empty without sealing.",
            "example": {"current": "3f9a0c1d2b4e5f60"},
        },
    )
    ledger = fields.Boolean(
        required=True,
        metadata={
            "description": "Whether this replica keeps a ledger of private games (docs/api.md §11): "
            "`POST /v1/latest` then answers, and a game can follow its players' devices."
        },
    )


class ProblemSchema(Schema):
    class Meta:
        unknown = INCLUDE
        description = (
            "An error (RFC 9457 problem details, `application/problem+json`). `code` is a "
            "stable snake_case name; `instance` is the request id (X-Request-ID)."
        )

    type = fields.String(required=True, metadata={"example": "https://ace-file-referee.dev/problems/invalid-schema"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    code = fields.String(required=True)
    detail = fields.String(required=True)
    instance = fields.String(required=True)
    errors = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.String()),
        metadata=_doc(
            "400 schema errors: field path (dotted, list indexes as numbers) to messages. At most the "
            "first 10 paths in the body's order, each message at most 300 characters; `errors_total` "
            "counts them all when there are more. No error answer exceeds 64 KiB."
        ),
    )
    errors_total = natural(metadata=_doc("400: how many paths had errors, when more than `errors` lists."))
    rule = fields.String(metadata=_doc("422: the rule id of RULES.md that the action or deck breaks."))
    index = natural(metadata=_doc("/v1/replay 422: the 0-based index of the first illegal action."))
    round = fields.Integer(
        allow_none=True, metadata=_doc("/v1/events 422: the round (1-based) that breaks the rule; null: the event's.")
    )
    table = fields.Integer(
        allow_none=True,
        metadata=_doc("/v1/events 422: the pairing (1-based position in the round's `pairings`); null: the round's."),
    )
    line = natural(metadata=_doc("400 `bad_record`, or a record's refused move: the record's line (1-based)."))
    player = natural(metadata=_doc("422: the player `detail` names as the one acting (0 or 1), by index."))
    actor = natural(metadata=_doc("422: the player who may act now, where `detail` names them (0 or 1)."))
    violations = fields.List(
        fields.Nested(ViolationSchema),
        validate=validate.Length(max=2 * DECK_MAX_VIOLATIONS),
        metadata=_doc("Deck 422s: every violation (RULES 3). " + VIOLATIONS_BOUND),
    )
    bots = fields.List(fields.String(), metadata=_doc("400 `unknown_bot` (/v1/suggest): the bots there are."))
    latest_seq = natural(metadata=_doc("409 `stale_state` (a ledger, docs/api.md §11): the game's latest seq."))


# -- private play (docs/api.md §10) ------------------------------------------------------


def state_token(**kwargs: Any) -> fields.String:
    kwargs.setdefault(
        "metadata",
        _doc(
            "A state token: the whole state, encrypted and authenticated by the referee (AES-256-GCM). "
            "Opaque; send back the latest one as received."
        ),
    )
    return fields.String(validate=validate.Regexp(r"^afs1\.[A-Za-z0-9_-]+$"), **kwargs)


def seat_field(**kwargs: Any) -> fields.String:
    kwargs.setdefault("metadata", _doc("A seat: the key one player acts and sees with (POST /v1/games gave it)."))
    return fields.String(validate=validate.Regexp(r"^afk1\.[A-Za-z0-9_-]+$"), **kwargs)


class PrivateActRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = (
            "Private mode: a state token, the action, and the seat of the player who acts "
            "(`action.player` must be the seat's player, else 403 `not_your_seat`)."
        )

    state = state_token(required=True)
    action = action_field(required=True)
    seat = seat_field(required=True)


class PrivateAskRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = (
            "Private mode: a state token and a seat; the answer is for the seat's player "
            "only (`player`, if sent, must be the seat's)."
        )

    state = state_token(required=True)
    seat = seat_field(required=True, metadata=_doc("A seat, or on /v1/view the game's spectator key (`watch`)."))
    player = player_index(
        allow_none=True, metadata=_doc("If sent, the seat's player (`null` with the spectator key, on /v1/view).")
    )


class PrivateLegalActionsRequestSchema(PrivateAskRequestSchema):
    class Meta:
        unknown = RAISE
        description = (
            "Private mode: a state token and a seat; the actions are the seat's player's only (`player`, if "
            "sent, must be the seat's), labelled if asked."
        )

    labels = labels_field()


class PrivateSuggestRequestSchema(_BotFields):
    class Meta:
        unknown = RAISE
        description = (
            "Private mode: a state token, the seat whose move is wanted (`player`, if sent, must be the "
            "seat's), and the bot (docs/api.md §16)."
        )

    state = state_token(required=True)
    seat = seat_field(required=True)
    player = player_index(metadata=_doc("If sent, the seat's player."))


class SuggestResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "One of the player's legal actions, chosen by the bot from that player's view only."

    action = listed_action_field(required=True)
    label = fields.String(
        required=True, metadata=_doc("The action in words (English, or Japanese with `Accept-Language: ja`).")
    )
    seat = fields.String(metadata={"description": RENEWED_SEAT})


class PrivateReplayRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Private mode: a state token, both seats of the game, and the actions to apply in order."

    state = state_token(required=True)
    seats = fields.List(seat_field(), required=True, validate=validate.Length(equal=PLAYERS))
    actions = fields.List(action_field(), required=True)
    times = times_field()


class PrivateNextGameRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = (
            "Private mode: the token of a match's game that is over, the loser's seat (a list of one), "
            "and who plays first in the next game (RULES 14.2: the loser chooses)."
        )

    state = state_token(required=True)
    seats = fields.List(
        seat_field(),
        required=True,
        validate=validate.Length(equal=1),
        metadata=_doc("The loser's seat (another seat: 403 `not_your_seat`)."),
    )
    first_player = player_index(required=True, metadata=_doc("Who plays first in the next game."))


class PrivateRecordsRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = (
            "Private mode: the token of a game's deal, both seats and the actions; the whole record (its seed) "
            "only once the game is over (403 `game_not_over`), a seat's or a spectator's any time."
        )

    state = state_token(required=True)
    seats = fields.List(seat_field(), required=True, validate=validate.Length(equal=PLAYERS))
    actions = fields.List(action_field(), required=True)
    times = fields.List(natural(), metadata=_doc("Clocked games: each action's time, in milliseconds since the deal."))
    player = player_index(allow_none=True, metadata=_doc(RECORD_PLAYER))


class LedgerRecordRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = (
            "Private mode with a ledger (docs/api.md §11, §14): a game id and both its seats (the whole record, "
            "only once the game is over: 403 `game_not_over`), or one seat or the watch key (that seat's or a "
            "spectator's record, at any time). The moves are recovered from the tokens the ledger keeps."
        )

    game_id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    seats = fields.List(
        seat_field(), validate=validate.Length(equal=PLAYERS), metadata=_doc("Both seats: the whole record.")
    )
    seat = seat_field(metadata=_doc("One seat, or the watch key: that seat's (or a spectator's) record."))


class RevealRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = (
            "The state token of a finished private game and both its seats: the referee cannot "
            "tell a game's last token from a copy someone conceded on to see the cards, so "
            "revealing needs both players (at the end, each gives the other their seat)."
        )

    state = state_token(required=True)
    seats = fields.List(seat_field(), required=True, validate=validate.Length(equal=PLAYERS))


class PrivateGameResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = (
            "Private mode: the new game's token, its two seats (hand each player only their "
            "own) and the commitment to its seed; events as both players may know them."
        )

    state = state_token(required=True)
    seats = fields.List(
        seat_field(),
        required=True,
        validate=validate.Length(equal=PLAYERS),
        metadata=_doc("Player 0's seat, then player 1's."),
    )
    watch = seat_field(
        required=True,
        metadata=_doc(
            "The game's spectator key (docs/api.md §12): good for /v1/view and /v1/latest, "
            "refused (403 `not_your_seat`) wherever a player acts."
        ),
    )
    commitment = fields.String(
        required=True,
        metadata=_doc("`sha256:` and the SHA-256 of the seed, which POST /v1/reveal shows once the game is over."),
    )
    events = fields.List(event_field(), required=True)


class PrivateApplyResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Private mode: the next state's token, the events and the view of the seat's player."

    state = state_token(required=True)
    events = fields.List(
        event_field(), required=True, metadata=_doc("Only what the seat's player may know (see each event's schema).")
    )
    view = fields.Nested(ViewSchema, required=True)
    seat = seat_field(
        metadata=_doc(
            "Present when the seat sent was made under the previous key (a key rotation): "
            "the same seat under the current key; use it from now on."
        )
    )


class PrivateReplayResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "Private mode: the token of the state after every action, and how many were applied."

    state = state_token(required=True)
    applied = natural(required=True)
    start = state_token(
        metadata=_doc(
            "A finished game's record replayed (docs/api.md §14): the token of its deal, from which "
            "`/v1/replay` with `seats` makes each position."
        )
    )
    seats = fields.List(
        seat_field(),
        validate=validate.Length(equal=2),
        metadata=_doc("A finished game's record replayed: the replayed game's two seats, to view its positions."),
    )


class LatestRequestSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "With a ledger (docs/api.md §11): a game id (every private view carries it) and a seat of that game, or its spectator key."

    game_id = fields.String(required=True, validate=validate.Length(min=1, max=64))
    seat = seat_field(required=True)


class LatestResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = (
            "The game's latest token, its seq, and the seat's view of it (the spectator view for the watch key)."
        )

    state = state_token(required=True)
    seq = natural(required=True)
    view = fields.Nested(ViewSchema, required=True)
    seat = fields.String(metadata={"description": RENEWED_SEAT})
    next = fields.Nested(
        LatestRequestSchema,
        metadata={
            "description": "A finished game of a match that goes on, once the loser has dealt the next game "
            "(docs/api.md §15): that game's id and this seat's player's seat in it (the spectator key's, for the "
            "watch key), the very body to send to POST /v1/latest to join it. Absent until then."
        },
    )


class RevealResponseSchema(Schema):
    class Meta:
        unknown = RAISE
        description = "The whole plain state of a finished private game, seed included."

    state = fields.Nested(StateSchema, required=True)


def either(plain: type[Schema], private: type[Schema]) -> dict[str, list[type[Schema]]]:
    """A body that is ``plain`` in plain mode and ``private`` in private mode (docs/api.md §10)."""
    return {"oneOf": [plain, private]}
