"""Every endpoint of docs/api.md §1, declared once: the one list the rest is derived from or checked against.

An :class:`Endpoint` names its path and method, its ``operationId``, its
request and response schemas (``schemas/``), its error responses, its handler
(a plain function of :mod:`referee.service.answers`), the codec shape it opens
a body with, whether it is hot, and its name in metrics and logs. From this
list:

- :func:`referee.service.routes.game_blueprint` makes the Flask views and
  their OpenAPI documentation (flask-smorest), so ``openapi.yaml`` is
  generated from it (``make openapi``; ``tests/test_openapi.py``);
- :func:`referee.service.hot_path.lean` answers the hot ones in front of Flask;
- ``tests/test_endpoints.py`` checks that the Python client's calls
  (``referee/client/calls.py``, which imports only itself) and the table's
  API module (``referee/service/table/api.js``) use only declared paths and
  methods, and that every shape and handler is what the codec and the handler
  read.

Adding an endpoint touches its declaration here, its handler, its docs and
its tests (docs/architecture.md, "Adding an endpoint").
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from typing import Any

import referee_schemas as S
from referee.service import answers
from referee.service.answers import Handler
from referee.service.codecs import ACT, ASK, BODIES, LOOK, SUGGEST, Shape
from referee.service.openapi import EVENT_EXAMPLE, NEW_GAME_EXAMPLE, apply_example
from referee.service.reading import JSON

RECORD_TYPE = "text/plain; charset=utf-8"
# What every body-reading endpoint may answer besides its own errors; and one that reads a state (a seal, a token).
BODY_ERRORS = ("BadRequest", "PayloadTooLarge", "UnsupportedMediaType")
STATE_ERRORS = ("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType")


@dataclass(frozen=True)
class Request:
    """A request body as OpenAPI documents it: its schema (a marshmallow schema, ``S.either`` of two, or a
    ``oneOf`` of several), what it is, and an example for "Try it out" in /docs."""

    schema: Any
    description: str
    example: Any = None


@dataclass(frozen=True)
class Endpoint:
    """One endpoint: everything the routes, the hot path, OpenAPI, metrics and the clients need of it."""

    name: str  # the view's name: its metrics and log name is "game." + name
    method: str
    path: str  # Flask's syntax: /v1/cards/<id>
    operation_id: str
    handler: Handler
    doc: str  # the OpenAPI summary (first line) and description
    response: Any  # the answer's schema (None: ``content_type`` text, a string)
    response_description: str
    request: Request | None = None  # None: a GET without a body
    errors: tuple[str, ...] = ()  # names of openapi.ERROR_RESPONSES, in the order the document lists them
    status: int = 200
    shape: Shape | None = None  # the codec shape a state-carrying body is opened with (codecs.Shape)
    hot: bool = False  # answered in front of Flask (referee.service.hot_path)
    content_type: str = JSON

    @property
    def metrics_name(self) -> str:
        """The endpoint's name in metrics (``referee_requests_total{endpoint}``) and log lines."""
        return "game." + self.name


EVENT_REQUEST = Request(S.EventRequestSchema, "An event document (docs/api.md §17).", EVENT_EXAMPLE)
# An event's question is heavy work (docs/api.md §16): refused when the replica's share is taken, ended past its time.
EVENT_ERRORS = ("Busy", "HeavyTimeout", *BODY_ERRORS, "RuleViolation")

ACT_REQUEST = Request(  # /v1/apply's and /v1/validate's
    S.either(*BODIES[ACT]),
    "A state and one action (private mode: a token, the action and the actor's seat).",
)


def _state_example(**more: Any) -> dict[str, Any]:
    return {"state": copy.deepcopy(apply_example()["state"]), **more}


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(
        "new_game",
        "POST",
        "/v1/games",
        "newGame",
        answers.new_game,
        """Start a game: check both decks, shuffle, deal.

        An illegal deck is a 422 whose `violations` lists every problem of
        both decks (RULES 3).
        """,
        S.either(S.GameResponseSchema, S.PrivateGameResponseSchema),
        "The new game, in the mulligan phase (private mode: its token and seats).",
        Request(S.NewGameSchema, "Both decks and the game's options (docs/api.md §2).", NEW_GAME_EXAMPLE),
        ("BadRequest", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation", "LedgerUnavailable"),
        status=201,
    ),
    Endpoint(
        "next_game",
        "POST",
        "/v1/matches/next",
        "nextMatchGame",
        answers.next_game,
        """Deal the next game of a match (docs/api.md §15, RULES 14).

        The same decks, names, options, clock and format; a fresh seed (private
        mode: drawn and committed, new seats, recorded in the ledger); the first
        player the loser chose (RULES 14.2). A game not over, or not of a match, is
        a 422 citing 14.1; a finished match 14.3; a `first_player` chosen by the
        winner 14.2 (private mode: 403 `not_your_seat`, the seat must be the loser's).
        """,
        S.either(S.GameResponseSchema, S.PrivateGameResponseSchema),
        "The match's next game, in the mulligan phase (private mode: its token and new seats).",
        Request(
            S.either(S.NextGameRequestSchema, S.PrivateNextGameRequestSchema),
            "The final state of a match's game that is over, and the first player the loser chose "
            "(private mode: the token and the loser's seat).",
        ),
        ("NextGameDealt", "LedgerUnavailable", "BadRequest", "PrivateRefused", "PayloadTooLarge")
        + ("UnsupportedMediaType", "RuleViolation"),
        status=201,
    ),
    Endpoint(
        "apply",
        "POST",
        "/v1/apply",
        "applyAction",
        answers.apply,
        """Apply one action.

        An illegal action is a 422 naming the first rule it breaks, checked
        in RULES 13.3's order; the state is unchanged.
        """,
        S.either(S.GameResponseSchema, S.PrivateApplyResponseSchema),
        "The next state and its events (private mode: also the actor's view).",
        replace(ACT_REQUEST, example=apply_example()),
        ("StaleState", "LedgerUnavailable", "BadRequest", "SealRefused", "PayloadTooLarge")
        + ("UnsupportedMediaType", "RuleViolation"),
        shape=ACT,
        hot=True,
    ),
    Endpoint(
        "validate",
        "POST",
        "/v1/validate",
        "validateAction",
        answers.validate,
        "Dry-run one action: never a 422, the violation is in the answer.",
        S.ValidateResponseSchema,
        "Whether the action is legal now.",
        ACT_REQUEST,
        STATE_ERRORS,
        shape=ACT,
        hot=True,
    ),
    Endpoint(
        "legal_actions",
        "POST",
        "/v1/legal-actions",
        "legalActions",
        answers.legal_actions,
        """Every legal action now, for that player or for whoever may act.

        Listed without `pay`; a discard owed at the end step is listed once
        (docs/api.md §6). With `"labels": true` each action also has a readable
        `label` (English, or Japanese with `Accept-Language: ja`) naming only
        what its player may see.
        """,
        S.LegalActionsResponseSchema,
        "Every legal action now.",
        Request(
            S.either(*BODIES[ASK]),
            "A state, and optionally a player (private mode: a token and a seat).",
            _state_example(player=0, labels=True),
        ),
        STATE_ERRORS,
        shape=ASK,
        hot=True,
    ),
    Endpoint(
        "replay",
        "POST",
        "/v1/replay",
        "replayGame",
        answers.replay,
        """Apply a list of actions in order.

        On the first illegal one, a 422 whose body also has `index` (0-based;
        from a record, also its `line`); an illegal deck in `game` is a 422
        with `violations`. A record that does not read, or whose `Result`
        differs from the game's, is a 400 `bad_record` with its `line`.
        """,
        S.either(S.ReplayResponseSchema, S.PrivateReplayResponseSchema),
        "The state after every action.",
        Request(
            {"oneOf": [S.ReplayRequestSchema, S.PrivateReplayRequestSchema, S.ReplayRecordRequestSchema]},
            "A new game or a state, and the actions to apply in order (private mode: a token and both seats); "
            "or a game record (docs/records.md).",
        ),
        (*STATE_ERRORS, "RuleViolation"),
    ),
    Endpoint(
        "records",
        "POST",
        "/v1/records",
        "writeRecord",
        answers.write_record,
        """The game's record (docs/api.md §14), as text.

        A record every tool reads: tags, then one action a line. A record
        starts at the deal: from a `state`, the state of a deal whose decks
        were given in card-id order (else 400 `record_needs_game`, but a
        seat's record). Private mode: a deal's token and both seats; the
        whole record only once the game is over (403 `game_not_over`). An
        illegal action is the replay's 422 with `index`.

        With a ledger, from the game id alone: both seats for the whole
        record (once the game is over), one seat or the watch key for that
        seat's or a spectator's record (any time); the moves are recovered
        from the tokens the ledger keeps (docs/records.md). Unknown game: 404
        `unknown_game`; without a ledger: 400 `no_ledger`.
        """,
        None,
        "The game's record (docs/records.md).",
        Request(
            {
                "oneOf": [
                    S.RecordsRequestSchema,
                    S.RecordFromRecordRequestSchema,
                    S.PrivateRecordsRequestSchema,
                    S.LedgerRecordRequestSchema,
                ]
            },
            "A game from its NewGame and its actions (as /v1/replay takes it), or a record; `player` for one "
            "seat's or a spectator's record; with a ledger, a private game's id and its seats.",
        ),
        ("NotFound", "NotRecoverable", "LedgerUnavailable", "Busy", "BadRequest", "PrivateRefused")
        + ("PayloadTooLarge", "UnsupportedMediaType", "RuleViolation"),
        content_type=RECORD_TYPE,
    ),
    Endpoint(
        "read_record",
        "POST",
        "/v1/records/read",
        "readRecord",
        answers.read_record_parts,
        """A record read, not played: its NewGame, its actions and the line of each.

        What a viewer needs to step through a record (the table's replay
        viewer): the game to deal, the actions in order, each action's time
        for a clocked game, and each action's line (1-based) in the record.
        Nothing is played: `/v1/replay` with the record checks it. A record
        that does not read, or names no game this referee can deal (a seat's
        record, another catalog), is a 400 `bad_record` with its `line`.
        """,
        S.RecordReadResponseSchema,
        "The record's parts.",
        Request(S.ReplayRecordRequestSchema, "A game record (docs/records.md)."),
        BODY_ERRORS,
    ),
    Endpoint(
        "view",
        "POST",
        "/v1/view",
        "viewGame",
        answers.view,
        "What one player may see (docs/api.md §5). A view is never sealed and never accepted as a state.",
        S.ViewResponseSchema,
        "What that player may see.",
        Request(
            S.either(*BODIES[LOOK]),
            "A state and a player (private mode: a token and a seat).",
        ),
        STATE_ERRORS,
        shape=LOOK,
        hot=True,
    ),
    Endpoint(
        "suggest",
        "POST",
        "/v1/suggest",
        "suggestAction",
        answers.suggest,
        """A bot's move for one player, from that player's view only (docs/api.md §16).

        The bot is told the player's view, legal actions and own deck list, and
        samples what it cannot see (the opponent's deck from the catalog). Its
        randomness comes from the state's `seq` and the request's `seed`: with
        `iterations` the same request gives the same move on every machine.
        `budget_ms` above 2000 is a 400; an unknown `bot` a 400 (`unknown_bot`,
        with `bots`, the known ones); a player who may not act now a 422 citing
        RULES 12.2 (11.3 once the game is over). Heavy work: it runs apart from
        the rule checks, and is refused at once (429 `busy`, `Retry-After`)
        when the replica's share for it is taken; `budget_ms` counts from the
        request's arrival.
        """,
        S.SuggestResponseSchema,
        "The bot's move: one of the player's legal actions.",
        Request(
            S.either(*BODIES[SUGGEST]),
            "A state, whose move, the bot and its budget (private mode: a token and the seat).",
            _state_example(player=0, bot="ismcts", budget_ms=500),
        ),
        ("Busy", "HeavyTimeout", *STATE_ERRORS, "RuleViolation"),
        shape=SUGGEST,
    ),
    Endpoint(
        "reveal",
        "POST",
        "/v1/reveal",
        "revealGame",
        answers.reveal,
        """Private mode only (docs/api.md §10): the whole state of a finished game.

        Needs both seats (403 `bad_seat` / `not_your_seat` otherwise): the
        referee cannot tell the game's last token from a copy a player
        conceded on to peek. Before the end it is a 403 (`game_not_over`).
        Anyone can then check the deal with the seed (`referee verify-deal`).
        A referee in plain mode answers 400 (`private_mode_off`): its states
        are plain already.
        """,
        S.RevealResponseSchema,
        "The whole plain state, seed included.",
        Request(S.RevealRequestSchema, "The token of a finished private game and both its seats."),
        ("BadRequest", "PrivateRefused", "PayloadTooLarge", "UnsupportedMediaType"),
    ),
    Endpoint(
        "latest",
        "POST",
        "/v1/latest",
        "latestState",
        answers.latest,
        """With a ledger only (docs/api.md §11): a private game's latest token.

        A device that lost its token, or a second device, catches up this way.
        Unknown game: 404 (`unknown_game`); without a ledger: 400 (`no_ledger`).
        """,
        S.LatestResponseSchema,
        "The game's latest token and the seat's view.",
        Request(S.LatestRequestSchema, "A private game's id and a seat of it (or its spectator key)."),
        ("LedgerUnavailable", "BadRequest", "PrivateRefused", "NotFound", "PayloadTooLarge", "UnsupportedMediaType"),
    ),
    Endpoint(
        "validate_deck",
        "POST",
        "/v1/decks/validate",
        "validateDeck",
        answers.validate_deck,
        """Check one deck against RULES 3 (and a format's 3.6–3.8): every problem, not just the first.

        Also answers the deck's canonical forms (`counts`, `list`, `code`), so
        that an app converts between them. A deck list that does not read is a
        400 `bad_deck_list` naming each bad line; a broken deck code 400
        `bad_deck_code`, another catalog's 400 `wrong_catalog`; an unknown
        format 400 `unknown_format`, a date before its first revision 400
        `format_not_in_force` (docs/api.md §13).
        """,
        S.DeckValidateResponseSchema,
        "Every problem of the deck.",
        Request(
            S.DeckValidateRequestSchema,
            "One deck (ids, counts, a deck list or a deck code), and optionally a format.",
            {"deck": "3 消えた上履き\n3x The School Festival Mystery\n2 AF-042\n", "format": "af99"},
        ),
        BODY_ERRORS,
    ),
    Endpoint(
        "pair_event",
        "POST",
        "/v1/events/pair",
        "pairEvent",
        answers.pair_event,
        """Pair an event's next round (RULES 15.5; the top cut's, 15.6).

        Round 1 follows the seed's order; later rounds the standings, with no
        rematch, the bye rule, and the least sum of squared match-point
        differences. When no pairing without a rematch exists, `swiss_ended`
        is true and no round is added. A round still missing a result is a 422
        `round_not_finished` (15.2); an event whose rounds are all played a 422
        `event_over` (15.6). Not an event (an unknown or repeated player id, a
        player paired twice in a round or after dropping): a 400 naming the field.
        """,
        S.PairResponseSchema,
        "The event with its next round, and that round.",
        EVENT_REQUEST,
        EVENT_ERRORS,
    ),
    Endpoint(
        "event_standings",
        "POST",
        "/v1/events/standings",
        "eventStandings",
        answers.event_standings,
        """An event's standings (RULES 15.4), Glicko-2 ratings (15.7), and winner (15.6).

        Ordered by match points, OMW, GW, OGW (compared exactly), then the
        seed's order; the rates shown rounded to 4 places.
        """,
        S.StandingsResponseSchema,
        "The standings, the ratings, the winner.",
        EVENT_REQUEST,
        EVENT_ERRORS,
    ),
    Endpoint(
        "check_event",
        "POST",
        "/v1/events/check",
        "checkEvent",
        answers.check_event,
        """Check every round of an event against RULES 15.1, 15.2, 15.5 and 15.6.

        A 422 names the first rule broken, with `round` and `table` (the
        pairing's 1-based position in the round): a rematch, a wrong bye, a
        pairing whose sum of squared match-point differences is above the
        least possible (`pairing_cost`), a result that is not a match score.
        """,
        S.EventCheckResponseSchema,
        "Every round obeys RULES 15.",
        EVENT_REQUEST,
        EVENT_ERRORS,
    ),
    Endpoint(
        "formats",
        "GET",
        "/v1/formats",
        "listFormats",
        answers.formats,
        "The catalog's formats and their dated revisions (docs/api.md §13).",
        S.FormatsResponseSchema,
        "The catalog's formats.",
    ),
    Endpoint(
        "cards",
        "GET",
        "/v1/cards",
        "listCards",
        answers.cards,
        "The catalog in use.",
        S.CardsResponseSchema,
        "The catalog's id, digest and cards.",
    ),
    Endpoint(
        "card",
        "GET",
        "/v1/cards/<id>",
        "getCard",
        answers.card,
        "One card of the catalog, by its catalog id.",
        S.CardSchema,
        "The card.",
        errors=("NotFound",),
    ),
    Endpoint(
        "rules",
        "GET",
        "/v1/rules",
        "listRules",
        answers.rules,
        "The rule index of RULES.md.",
        S.RulesResponseSchema,
        "Every rule id of RULES.md with its text.",
    ),
)

HOT = tuple(e for e in ENDPOINTS if e.hot)
