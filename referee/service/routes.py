"""The game endpoints of docs/api.md §1 as Flask views: their OpenAPI documentation, and a call
of the endpoint's handler (:mod:`referee.service.answers`), which does the work.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from flask import Response, request
from flask_smorest import Blueprint

import referee_schemas as S
from referee.service.answers import Handler
from referee.service.context import Referee
from referee.service.openapi import (
    ERROR_RESPONSES,
    EVENT_EXAMPLE,
    NEW_GAME_EXAMPLE,
    apply_example,
)
from referee.service.problems import Problem
from referee.service.reading import JSON

View = Callable[..., Response]
RECORD_TYPE = "text/plain; charset=utf-8"


def response_of(handler: Handler) -> Response:
    """The Flask answer of ``handler`` for this request."""
    status, body, lang = handler(request.environ)
    resp = Response(body, status=status, mimetype=JSON)
    if lang is not None:
        resp.headers["Content-Language"] = lang
    return resp


def game_blueprint(ref: Referee, answers: dict[str, Handler]) -> Blueprint:  # noqa: C901 -- one nested view per route, declared in order: a list, not a branching
    """The game endpoints; ``answers`` are their handlers (:func:`referee.service.answers.game_answers`)."""
    catalog = ref.catalog
    blp = Blueprint("game", __name__, description="The referee (docs/api.md §1).")

    common = {"content_type": JSON}

    def errors(*names: str) -> Callable[[View], View]:
        def decorate(func: View) -> View:
            for name in names:
                func = blp.alt_response(ERROR_RESPONSES[name][1], response=name)(func)
            return func

        return decorate

    def request_body(schema: Any, text: str, example: Any = None) -> Callable[[View], View]:
        content: dict[str, Any] = {"schema": schema}
        if example is not None:
            content["example"] = example
        documented: Callable[[View], View] = blp.doc(
            requestBody={"required": True, "description": text, "content": {JSON: content}}
        )
        return documented

    @blp.route("/v1/games", methods=["POST"])
    @blp.doc(operationId="newGame")
    @request_body(S.NewGameSchema, "Both decks and the game's options (docs/api.md §2).", NEW_GAME_EXAMPLE)
    @blp.response(
        201,
        S.either(S.GameResponseSchema, S.PrivateGameResponseSchema),
        description="The new game, in the mulligan phase (private mode: its token and seats).",
        **common,
    )
    @errors("BadRequest", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation", "LedgerUnavailable")
    def new_game() -> Response:
        """Start a game: check both decks, shuffle, deal.

        An illegal deck is a 422 whose `violations` lists every problem of
        both decks (RULES 3).
        """
        return response_of(answers["new_game"])

    @blp.route("/v1/matches/next", methods=["POST"])
    @blp.doc(operationId="nextMatchGame")
    @request_body(
        S.either(S.NextGameRequestSchema, S.PrivateNextGameRequestSchema),
        "The final state of a match's game that is over, and the first player the loser chose "
        "(private mode: the token and the loser's seat).",
    )
    @blp.response(
        201,
        S.either(S.GameResponseSchema, S.PrivateGameResponseSchema),
        description="The match's next game, in the mulligan phase (private mode: its token and new seats).",
        **common,
    )
    @errors("BadRequest", "PrivateRefused", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    @errors("NextGameDealt", "LedgerUnavailable")
    def next_game() -> Response:
        """Deal the next game of a match (docs/api.md §15, RULES 14).

        The same decks, names, options, clock and format; a fresh seed (private
        mode: drawn and committed, new seats, recorded in the ledger); the first
        player the loser chose (RULES 14.2). A game not over, or not of a match, is
        a 422 citing 14.1; a finished match 14.3; a `first_player` chosen by the
        winner 14.2 (private mode: 403 `not_your_seat`, the seat must be the loser's).
        """
        return response_of(answers["next_game"])

    @blp.route("/v1/apply", methods=["POST"])
    @blp.doc(operationId="applyAction")
    @request_body(
        S.either(S.ApplyRequestSchema, S.PrivateActRequestSchema),
        "A state and one action (private mode: a token, the action and the actor's seat).",
        apply_example(),
    )
    @blp.response(
        200,
        S.either(S.GameResponseSchema, S.PrivateApplyResponseSchema),
        description="The next state and its events (private mode: also the actor's view).",
        **common,
    )
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    @errors("StaleState", "LedgerUnavailable")
    def apply() -> Response:
        """Apply one action.

        An illegal action is a 422 naming the first rule it breaks, checked
        in RULES 13.3's order; the state is unchanged.
        """
        return response_of(answers["apply"])

    @blp.route("/v1/validate", methods=["POST"])
    @blp.doc(operationId="validateAction")
    @request_body(
        S.either(S.ApplyRequestSchema, S.PrivateActRequestSchema),
        "A state and one action (private mode: a token, the action and the actor's seat).",
    )
    @blp.response(200, S.ValidateResponseSchema, description="Whether the action is legal now.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType")
    def validate() -> Response:
        """Dry-run one action: never a 422, the violation is in the answer."""
        return response_of(answers["validate"])

    @blp.route("/v1/legal-actions", methods=["POST"])
    @blp.doc(operationId="legalActions")
    @request_body(
        S.either(S.LegalActionsRequestSchema, S.PrivateAskRequestSchema),
        "A state, and optionally a player (private mode: a token and a seat).",
        {"state": copy.deepcopy(apply_example()["state"]), "player": 0, "labels": True},
    )
    @blp.response(200, S.LegalActionsResponseSchema, description="Every legal action now.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType")
    def legal_actions() -> Response:
        """Every legal action now, for that player or for whoever may act.

        Listed without `pay`; a discard owed at the end step is listed once
        (docs/api.md §6). With `"labels": true` each action also has a readable
        `label` (English, or Japanese with `Accept-Language: ja`) naming only
        what its player may see.
        """
        return response_of(answers["legal_actions"])

    @blp.route("/v1/replay", methods=["POST"])
    @blp.doc(operationId="replayGame")
    @blp.doc(
        requestBody={
            "required": True,
            "description": "A new game or a state, and the actions to apply in order (private mode: a token and "
            "both seats); or a game record (docs/records.md).",
            "content": {
                JSON: {
                    "schema": {
                        "oneOf": [S.ReplayRequestSchema, S.PrivateReplayRequestSchema, S.ReplayRecordRequestSchema]
                    }
                }
            },
        }
    )
    @blp.response(
        200,
        S.either(S.ReplayResponseSchema, S.PrivateReplayResponseSchema),
        description="The state after every action.",
        **common,
    )
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    def replay() -> Response:
        """Apply a list of actions in order.

        On the first illegal one, a 422 whose body also has `index` (0-based;
        from a record, also its `line`); an illegal deck in `game` is a 422
        with `violations`. A record that does not read, or whose `Result`
        differs from the game's, is a 400 `bad_record` with its `line`.
        """
        return response_of(answers["replay"])

    @blp.route("/v1/records", methods=["POST"])
    @blp.doc(operationId="writeRecord")
    @blp.doc(
        requestBody={
            "required": True,
            "description": "A game from its NewGame and its actions (as /v1/replay takes it), or a record; "
            "`player` for one seat's or a spectator's record; with a ledger, a private game's id and its seats.",
            "content": {
                JSON: {
                    "schema": {
                        "oneOf": [
                            S.RecordsRequestSchema,
                            S.RecordFromRecordRequestSchema,
                            S.PrivateRecordsRequestSchema,
                            S.LedgerRecordRequestSchema,
                        ]
                    }
                }
            },
        }
    )
    @blp.doc(
        responses={
            "200": {
                "description": "The game's record (docs/records.md).",
                "content": {RECORD_TYPE: {"schema": {"type": "string"}}},
            }
        }
    )
    @errors("BadRequest", "PrivateRefused", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    @errors("NotFound", "NotRecoverable", "LedgerUnavailable", "Busy")
    def records() -> Response:
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
        """
        status, body, _ = answers["records"](request.environ)
        return Response(body, status=status, content_type=RECORD_TYPE)

    @blp.route("/v1/records/read", methods=["POST"])
    @blp.doc(operationId="readRecord")
    @request_body(S.ReplayRecordRequestSchema, "A game record (docs/records.md).")
    @blp.response(200, S.RecordReadResponseSchema, description="The record's parts.", **common)
    @errors("BadRequest", "PayloadTooLarge", "UnsupportedMediaType")
    def read_record() -> Response:
        """A record read, not played: its NewGame, its actions and the line of each.

        What a viewer needs to step through a record (the table's replay
        viewer): the game to deal, the actions in order, each action's time
        for a clocked game, and each action's line (1-based) in the record.
        Nothing is played: `/v1/replay` with the record checks it. A record
        that does not read, or names no game this referee can deal (a seat's
        record, another catalog), is a 400 `bad_record` with its `line`.
        """
        return response_of(answers["read_record"])

    @blp.route("/v1/view", methods=["POST"])
    @blp.doc(operationId="viewGame")
    @request_body(
        S.either(S.ViewRequestSchema, S.PrivateAskRequestSchema),
        "A state and a player (private mode: a token and a seat).",
    )
    @blp.response(200, S.ViewResponseSchema, description="What that player may see.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType")
    def view() -> Response:
        """What one player may see (docs/api.md §5). A view is never sealed and never accepted as a state."""
        return response_of(answers["view"])

    @blp.route("/v1/suggest", methods=["POST"])
    @blp.doc(operationId="suggestAction")
    @request_body(
        S.either(S.SuggestRequestSchema, S.PrivateSuggestRequestSchema),
        "A state, whose move, the bot and its budget (private mode: a token and the seat).",
        {"state": copy.deepcopy(apply_example()["state"]), "player": 0, "bot": "ismcts", "budget_ms": 500},
    )
    @blp.response(200, S.SuggestResponseSchema, description="The bot's move: one of the player's legal actions.")
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    @errors("Busy", "HeavyTimeout")
    def suggest() -> Response:
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
        """
        return response_of(answers["suggest"])

    @blp.route("/v1/reveal", methods=["POST"])
    @blp.doc(operationId="revealGame")
    @request_body(S.RevealRequestSchema, "The token of a finished private game and both its seats.")
    @blp.response(200, S.RevealResponseSchema, description="The whole plain state, seed included.", **common)
    @errors("BadRequest", "PrivateRefused", "PayloadTooLarge", "UnsupportedMediaType")
    def reveal() -> Response:
        """Private mode only (docs/api.md §10): the whole state of a finished game.

        Needs both seats (403 `bad_seat` / `not_your_seat` otherwise): the
        referee cannot tell the game's last token from a copy a player
        conceded on to peek. Before the end it is a 403 (`game_not_over`).
        Anyone can then check the deal with the seed (`referee verify-deal`).
        A referee in plain mode answers 400 (`private_mode_off`): its states
        are plain already.
        """
        return response_of(answers["reveal"])

    @blp.route("/v1/latest", methods=["POST"])
    @blp.doc(operationId="latestState")
    @request_body(S.LatestRequestSchema, "A private game's id and a seat of it (or its spectator key).")
    @blp.response(200, S.LatestResponseSchema, description="The game's latest token and the seat's view.", **common)
    @errors("BadRequest", "PrivateRefused", "NotFound", "PayloadTooLarge", "UnsupportedMediaType")
    @errors("LedgerUnavailable")
    def latest() -> Response:
        """With a ledger only (docs/api.md §11): a private game's latest token.

        A device that lost its token, or a second device, catches up this way.
        Unknown game: 404 (`unknown_game`); without a ledger: 400 (`no_ledger`).
        """
        return response_of(answers["latest"])

    @blp.route("/v1/decks/validate", methods=["POST"])
    @blp.doc(operationId="validateDeck")
    @request_body(
        S.DeckValidateRequestSchema,
        "One deck (ids, counts, a deck list or a deck code), and optionally a format.",
        {"deck": "3 消えた上履き\n3x The School Festival Mystery\n2 AF-042\n", "format": "af99"},
    )
    @blp.response(200, S.DeckValidateResponseSchema, description="Every problem of the deck.", **common)
    @errors("BadRequest", "PayloadTooLarge", "UnsupportedMediaType")
    def validate_deck() -> Response:
        """Check one deck against RULES 3 (and a format's 3.6–3.8): every problem, not just the first.

        Also answers the deck's canonical forms (`counts`, `list`, `code`), so
        that an app converts between them. A deck list that does not read is a
        400 `bad_deck_list` naming each bad line; a broken deck code 400
        `bad_deck_code`, another catalog's 400 `wrong_catalog`; an unknown
        format 400 `unknown_format`, a date before its first revision 400
        `format_not_in_force` (docs/api.md §13).
        """
        return response_of(answers["validate_deck"])

    @blp.route("/v1/events/pair", methods=["POST"])
    @blp.doc(operationId="pairEvent")
    @request_body(S.EventRequestSchema, "An event document (docs/api.md §17).", EVENT_EXAMPLE)
    @blp.response(200, S.PairResponseSchema, description="The event with its next round, and that round.", **common)
    @errors("BadRequest", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    def pair_event() -> Response:
        """Pair an event's next round (RULES 15.5; the top cut's, 15.6).

        Round 1 follows the seed's order; later rounds the standings, with no
        rematch, the bye rule, and the least sum of squared match-point
        differences. When no pairing without a rematch exists, `swiss_ended`
        is true and no round is added. A round still missing a result is a 422
        `round_not_finished` (15.2); an event whose rounds are all played a 422
        `event_over` (15.6). Not an event (an unknown or repeated player id, a
        player paired twice in a round or after dropping): a 400 naming the field.
        """
        return response_of(answers["pair_event"])

    @blp.route("/v1/events/standings", methods=["POST"])
    @blp.doc(operationId="eventStandings")
    @request_body(S.EventRequestSchema, "An event document (docs/api.md §17).", EVENT_EXAMPLE)
    @blp.response(200, S.StandingsResponseSchema, description="The standings, the ratings, the winner.", **common)
    @errors("BadRequest", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    def event_standings() -> Response:
        """An event's standings (RULES 15.4), Glicko-2 ratings (15.7), and winner (15.6).

        Ordered by match points, OMW, GW, OGW (compared exactly), then the
        seed's order; the rates shown rounded to 4 places.
        """
        return response_of(answers["event_standings"])

    @blp.route("/v1/events/check", methods=["POST"])
    @blp.doc(operationId="checkEvent")
    @request_body(S.EventRequestSchema, "An event document (docs/api.md §17).", EVENT_EXAMPLE)
    @blp.response(200, S.EventCheckResponseSchema, description="Every round obeys RULES 15.", **common)
    @errors("BadRequest", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    def check_event() -> Response:
        """Check every round of an event against RULES 15.1, 15.2, 15.5 and 15.6.

        A 422 names the first rule broken, with `round` and `table` (the
        pairing's 1-based position in the round): a rematch, a wrong bye, a
        pairing whose sum of squared match-point differences is above the
        least possible (`pairing_cost`), a result that is not a match score.
        """
        return response_of(answers["check_event"])

    @blp.route("/v1/formats", methods=["GET"])
    @blp.doc(operationId="listFormats")
    @blp.response(200, S.FormatsResponseSchema, description="The catalog's formats.", **common)
    def formats() -> Response:
        """The catalog's formats and their dated revisions (docs/api.md §13)."""
        return Response(ref.formats_body, mimetype=JSON)

    @blp.route("/v1/cards", methods=["GET"])
    @blp.doc(operationId="listCards")
    @blp.response(200, S.CardsResponseSchema, description="The catalog's id, digest and cards.", **common)
    def cards() -> Response:
        """The catalog in use."""
        return Response(ref.cards_body, mimetype=JSON)

    @blp.route("/v1/cards/<id>", methods=["GET"])
    @blp.doc(operationId="getCard")
    @blp.response(200, S.CardSchema, description="The card.", **common)
    @errors("NotFound")
    def card(id: str) -> Response:
        """One card of the catalog, by its catalog id."""
        data = ref.card_bodies.get(id)
        if data is None:
            raise Problem("not-found", "card_not_found", f"There is no card {id!r} in catalog {catalog.id}.")
        return Response(data, mimetype=JSON)

    @blp.route("/v1/rules", methods=["GET"])
    @blp.doc(operationId="listRules")
    @blp.response(200, S.RulesResponseSchema, description="Every rule id of RULES.md with its text.", **common)
    def rules() -> Response:
        """The rule index of RULES.md."""
        return Response(ref.rules_body, mimetype=JSON)

    return blp
