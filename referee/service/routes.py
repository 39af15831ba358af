"""The game endpoints of docs/api.md §1: each reads the body, checks the seal, and hands the rest to the engine.

In private mode (docs/api.md §10) each hands the body to :mod:`referee.service.private` instead.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

import orjson
from flask import Response
from flask_smorest import Blueprint

import schemas as S
from referee import engine
from referee.engine.labels import labelled
from referee.service.context import Referee
from referee.service.openapi import (
    ERROR_RESPONSES,
    NEW_GAME_EXAMPLE,
    apply_example,
)
from referee.service.problems import Problem, violation_json
from referee.service.reading import (
    JSON,
    envelope,
    language,
    localized,
    player_field,
    read_body,
    schema_problem,
)
from referee.service.sealing import SealError

def game_blueprint(ref: Referee) -> Blueprint:
    catalog = ref.catalog
    sealer = ref.sealer
    private = ref.private
    blp = Blueprint("game", __name__, description="The referee (docs/api.md §1).")

    def state_in(body: dict[str, Any], key: str = "state") -> Any:
        """The body's state, its seal checked when sealing is on (before anything else)."""
        state = body[key]
        if sealer is not None and isinstance(state, dict):
            try:
                sealer.check(state)
            except SealError as exc:
                raise Problem(403, "seal-mismatch", exc.code, exc.detail) from None
        return state

    def state_out(state: dict[str, Any]) -> dict[str, Any]:
        """A state to return: sealed when sealing is on, else without any seal."""
        if sealer is not None:
            return sealer.seal(state)
        state.pop("seal", None)
        return state

    def ok(body: Any, status: int = 200) -> Response:
        return Response(orjson.dumps(body), status=status, mimetype=JSON)

    common = dict(content_type=JSON)

    def errors(*names: str) -> Callable:
        def decorate(func: Callable) -> Callable:
            for name in names:
                func = blp.alt_response(ERROR_RESPONSES[name][1], response=name)(func)
            return func
        return decorate

    def request_body(schema: Any, text: str, example: Any = None) -> Callable:
        content: dict[str, Any] = {"schema": schema}
        if example is not None:
            content["example"] = example
        return blp.doc(requestBody={"required": True, "description": text, "content": {JSON: content}})

    @blp.route("/v1/games", methods=["POST"])
    @blp.doc(operationId="newGame")
    @request_body(S.NewGameSchema, "Both decks and the game's options (docs/api.md §2).", NEW_GAME_EXAMPLE)
    @blp.response(201, S.either(S.GameResponseSchema, S.PrivateGameResponseSchema),
                  description="The new game, in the mulligan phase (private mode: its token and seats).", **common)
    @errors("BadRequest", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    def new_game() -> Response:
        """Start a game: check both decks, shuffle, deal.

        An illegal deck is a 422 whose `violations` lists every problem of
        both decks (RULES 3).
        """
        body = read_body()
        if private is not None:
            return ok(private.new_game(body), 201)
        state, events = engine.new_game(catalog, body)
        return ok({"state": state_out(state), "events": events}, 201)

    @blp.route("/v1/apply", methods=["POST"])
    @blp.doc(operationId="applyAction")
    @request_body(S.either(S.ApplyRequestSchema, S.PrivateActRequestSchema),
                  "A state and one action (private mode: a token, the action and the actor's seat).",
                  apply_example())
    @blp.response(200, S.either(S.GameResponseSchema, S.PrivateApplyResponseSchema),
                  description="The next state and its events (private mode: also the actor's view).", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    def apply() -> Response:
        """Apply one action.

        An illegal action is a 422 naming the first rule it breaks, checked
        in RULES 13.3's order; the state is unchanged.
        """
        body = read_body()
        if private is not None:
            return ok(private.apply(body))
        envelope(body, ("state", "action"))
        state = state_in(body)
        state, events = engine.apply(catalog, state, body["action"])
        return ok({"state": state_out(state), "events": events})

    @blp.route("/v1/validate", methods=["POST"])
    @blp.doc(operationId="validateAction")
    @request_body(S.either(S.ApplyRequestSchema, S.PrivateActRequestSchema),
                  "A state and one action (private mode: a token, the action and the actor's seat).")
    @blp.response(200, S.ValidateResponseSchema, description="Whether the action is legal now.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType")
    def validate() -> Response:
        """Dry-run one action: never a 422, the violation is in the answer."""
        body = read_body()
        if private is not None:
            violation = private.validate(body)
        else:
            envelope(body, ("state", "action"))
            violation = engine.validate(catalog, state_in(body), body["action"])
        if violation is None:
            return ok({"legal": True, "violation": None})
        lang = language()
        return localized(ok({"legal": False, "violation": violation_json(violation, lang)}), lang)

    @blp.route("/v1/legal-actions", methods=["POST"])
    @blp.doc(operationId="legalActions")
    @request_body(S.either(S.LegalActionsRequestSchema, S.PrivateAskRequestSchema),
                  "A state, and optionally a player (private mode: a token and a seat).",
                  {"state": copy.deepcopy(apply_example()["state"]), "player": 0, "labels": True})
    @blp.response(200, S.LegalActionsResponseSchema, description="Every legal action now.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType")
    def legal_actions() -> Response:
        """Every legal action now, for that player or for whoever may act.

        Listed without `pay`; a discard owed at the end step is listed once
        (docs/api.md §6). With `"labels": true` each action also has a readable
        `label` (English, or Japanese with `Accept-Language: ja`) naming only
        what its player may see.
        """
        body = read_body()
        want_labels = body.get("labels", False)
        if private is not None:
            state, actions = private.legal_actions(body)
        else:
            envelope(body, ("state",), ("player", "labels"))
            player = player_field(body)
            if type(want_labels) is not bool:
                raise schema_problem({"labels": ["Not a valid boolean."]})
            state = state_in(body)
            actions = engine.legal_actions(catalog, state, player)
        if not want_labels:
            return ok({"actions": actions})
        lang = language()
        return localized(ok({"actions": labelled(catalog, state, actions, lang)}), lang)

    @blp.route("/v1/replay", methods=["POST"])
    @blp.doc(operationId="replayGame")
    @request_body(S.either(S.ReplayRequestSchema, S.PrivateReplayRequestSchema),
                  "A new game or a state, and the actions to apply in order (private mode: a token "
                  "and both seats).")
    @blp.response(200, S.either(S.ReplayResponseSchema, S.PrivateReplayResponseSchema),
                  description="The state after every action.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    def replay() -> Response:
        """Apply a list of actions in order.

        On the first illegal one, a 422 whose body also has `index` (0-based);
        an illegal deck in `game` is a 422 with `violations`.
        """
        body = read_body()
        if private is not None:
            return ok(private.replay(body))
        envelope(body, ("actions",), ("game", "state"))
        if ("game" in body) == ("state" in body):
            raise schema_problem({"_schema": ["Give exactly one of game and state."]})
        key = "state" if "state" in body else "game"
        if body[key] is None:
            raise schema_problem({key: ["Field may not be null."]})
        start = state_in(body) if key == "state" else body["game"]
        state, applied = engine.replay(catalog, body["actions"], **{key: start})
        return ok({"state": state_out(state), "applied": applied})

    @blp.route("/v1/view", methods=["POST"])
    @blp.doc(operationId="viewGame")
    @request_body(S.either(S.ViewRequestSchema, S.PrivateAskRequestSchema),
                  "A state and a player (private mode: a token and a seat).")
    @blp.response(200, S.ViewResponseSchema, description="What that player may see.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType")
    def view() -> Response:
        """What one player may see (docs/api.md §5). A view is never sealed and never accepted as a state."""
        body = read_body()
        if private is not None:
            return ok(private.view(body))
        envelope(body, ("state", "player"))
        player = player_field(body)
        state = state_in(body)
        return ok({"view": engine.view(catalog, state, player)})

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
        body = read_body()
        if private is None:
            raise Problem(400, "private-mode-off", "private_mode_off",
                          "POST /v1/reveal is for private play (REFEREE_STATE_KEY); this referee "
                          "runs in plain mode, where every state is plain already.")
        return ok(private.reveal(body))

    @blp.route("/v1/decks/validate", methods=["POST"])
    @blp.doc(operationId="validateDeck")
    @request_body(S.DeckValidateRequestSchema, "One deck.", {"deck": NEW_GAME_EXAMPLE["decks"][0]})
    @blp.response(200, S.DeckValidateResponseSchema, description="Every problem of the deck.", **common)
    @errors("BadRequest", "PayloadTooLarge", "UnsupportedMediaType")
    def validate_deck() -> Response:
        """Check one deck against RULES 3: every problem, not just the first."""
        body = read_body()
        envelope(body, ("deck",))
        violations = engine.validate_deck(catalog, body["deck"])
        lang = language()
        resp = ok({"legal": not violations, "violations": [violation_json(v, lang) for v in violations]})
        return localized(resp, lang) if violations else resp

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
    def card(id: str) -> Response:  # noqa: A002 - the path says {id}
        """One card of the catalog, by its catalog id."""
        data = ref.card_bodies.get(id)
        if data is None:
            raise Problem(404, "not-found", "card_not_found", f"There is no card {id!r} in catalog {catalog.id}.")
        return Response(data, mimetype=JSON)

    @blp.route("/v1/rules", methods=["GET"])
    @blp.doc(operationId="listRules")
    @blp.response(200, S.RulesResponseSchema, description="Every rule id of RULES.md with its text.", **common)
    def rules() -> Response:
        """The rule index of RULES.md."""
        return Response(ref.rules_body, mimetype=JSON)

    return blp
