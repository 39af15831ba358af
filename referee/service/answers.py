"""What the game endpoints do, with no web framework: each reads the WSGI environ and returns an :data:`Answer`.

Both ways into them use these same functions: the Flask views of
:mod:`referee.service.routes` (which carry the OpenAPI documentation) and the
lean path of the hot endpoints (:mod:`referee.service.hot_path`). An error is
raised (:class:`~referee.service.problems.Problem` or the engine's) and
answered by the one error mapping, :func:`referee.service.hooks.problem_of`.

In private mode (docs/api.md §10) each hands the body to
:mod:`referee.service.private` instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from referee import engine
from referee.engine.errors import RuleViolation
from referee.engine.labels import labelled, names_for
from referee.service.context import Referee
from referee.service.private import no_ledger
from referee.service.problems import Problem, violation_json
from referee.service.reading import BodyLimits, envelope, language, player_field, read_body, schema_problem
from referee.service.sealing import SealError

# status, JSON body, and "ja" when its human text is Japanese (Content-Language), else None
Answer = tuple[int, bytes, "str | None"]
Environ = dict[str, Any]
Handler = Callable[[Environ], Answer]


def _lang(lang: str) -> str | None:
    return "ja" if lang == "ja" else None


def game_answers(ref: Referee) -> dict[str, Handler]:
    """The game endpoints' handlers by endpoint name (``apply``, ``legal_actions``...)."""
    catalog = ref.catalog
    sealer = ref.sealer
    private = ref.private
    limits = BodyLimits(ref.settings.max_body, ref.settings.chunked_body_timeout)
    dumps = orjson.dumps

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

    def named(violation: RuleViolation, state: Any, action: Any) -> RuleViolation:
        """The refusal, its detail to name players and cards from ``state`` as the acting player sees them."""
        player = action.get("player") if isinstance(action, dict) else None
        namers = names_for(catalog, state, player)
        if namers is not None:
            violation.params["_names"] = namers
        return violation

    def new_game(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        if private is not None:
            return 201, dumps(private.new_game(body)), None
        state, events = engine.new_game(catalog, body)
        return 201, dumps({"state": state_out(state), "events": events}), None

    def apply(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        if private is not None:
            return 200, dumps(private.apply(body)), None
        envelope(body, ("state", "action"))
        state = state_in(body)
        try:
            state, events = engine.apply(catalog, state, body["action"])
        except RuleViolation as exc:
            raise named(exc, state, body["action"]) from None
        return 200, dumps({"state": state_out(state), "events": events}), None

    def validate(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        if private is not None:
            violation = private.validate(body)
        else:
            envelope(body, ("state", "action"))
            state = state_in(body)
            violation = engine.validate(catalog, state, body["action"])
            if violation is not None:
                named(violation, state, body["action"])
        if violation is None:
            return 200, b'{"legal":true,"violation":null}', None
        lang = language(environ)
        return 200, dumps({"legal": False, "violation": violation_json(violation, lang)}), _lang(lang)

    def legal_actions(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        want_labels = body.get("labels", False)
        renewed: dict[str, Any] = {}
        if private is not None:
            state, actions, renewed = private.legal_actions(body)
        else:
            envelope(body, ("state",), ("player", "labels"))
            player = player_field(body)
            if type(want_labels) is not bool:
                raise schema_problem({"labels": ["Not a valid boolean."]})
            state = state_in(body)
            actions = engine.legal_actions(catalog, state, player)
        if not want_labels:
            return 200, dumps({"actions": actions, **renewed}), None
        lang = language(environ)
        return 200, dumps({"actions": labelled(catalog, state, actions, lang), **renewed}), _lang(lang)

    def replay(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        if private is not None:
            return 200, dumps(private.replay(body)), None
        envelope(body, ("actions",), ("game", "state"))
        if ("game" in body) == ("state" in body):
            raise schema_problem({"_schema": ["Give exactly one of game and state."]})
        key = "state" if "state" in body else "game"
        if body[key] is None:
            raise schema_problem({key: ["Field may not be null."]})
        start = state_in(body) if key == "state" else body["game"]
        try:
            state, applied = engine.replay(catalog, body["actions"], **{key: start})
        except RuleViolation as exc:
            index = getattr(exc, "index", None)
            if type(index) is int:  # name the players and cards as they were when the action was refused
                at, _ = engine.replay(catalog, body["actions"][:index], **{key: start})
                named(exc, at, body["actions"][index])
            raise
        return 200, dumps({"state": state_out(state), "applied": applied}), None
        return 200, dumps({"state": state_out(state), "applied": applied}), None

    def view(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        if private is not None:
            return 200, dumps(private.view(body)), None
        envelope(body, ("state", "player"))
        player = None if body["player"] is None else player_field(body)  # None: a spectator (docs/api.md §12)
        state = state_in(body)
        return 200, dumps({"view": engine.view(catalog, state, player)}), None

    def reveal(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        if private is None:
            raise Problem(
                400,
                "private-mode-off",
                "private_mode_off",
                "POST /v1/reveal is for private play (REFEREE_STATE_KEY); this referee "
                "runs in plain mode, where every state is plain already.",
            )
        return 200, dumps(private.reveal(body)), None

    def latest(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        if private is None:
            raise no_ledger()
        return 200, dumps(private.latest(body)), None

    def validate_deck(environ: Environ) -> Answer:
        body = read_body(environ, limits)
        envelope(body, ("deck",))
        violations = engine.validate_deck(catalog, body["deck"])
        lang = language(environ)
        out = dumps({"legal": not violations, "violations": [violation_json(v, lang) for v in violations]})
        return 200, out, _lang(lang) if violations else None

    return {
        "new_game": new_game,
        "apply": apply,
        "validate": validate,
        "legal_actions": legal_actions,
        "replay": replay,
        "view": view,
        "reveal": reveal,
        "latest": latest,
        "validate_deck": validate_deck,
    }
