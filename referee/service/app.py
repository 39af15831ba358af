"""The HTTP service: API.md §1 over Flask. It translates; the engine decides.

Every endpoint reads the body with orjson, checks the envelope (which keys
the body has), checks the seal of any state it carries (API.md §4), hands the
state and action to :mod:`referee.engine` — whose strict parser checks their
shape and consistency — and writes the answer with orjson. Marshmallow
(``schemas/``) documents every body and generates ``openapi.yaml``, but is
never run on a request: see docs/operations.md, "The hot path".

Engine errors become problem details (:mod:`referee.service.problems`):
``InvalidInput`` 400, ``InconsistentState`` 400, ``RuleViolation`` 422
(``ReplayError`` with ``index``, ``IllegalDeck`` with ``violations``); a
wrong seal 403; anything unexpected 500, logged with its traceback.
"""

from __future__ import annotations

import inspect
import os
import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import orjson
from flask import Flask, Response, request, send_from_directory
from flask.json.provider import JSONProvider
from flask_smorest import Blueprint
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

from referee import engine
from referee.engine.errors import (
    IllegalDeck,
    InconsistentState,
    InvalidInput,
    RuleViolation,
)
from referee.service import logs, metrics
from referee.service.config import Settings
from referee.service.openapi import (
    DOCS_ASSETS,
    DOCS_HTML,
    DOCS_INIT_JS,
    ERROR_RESPONSES,
    NEW_GAME_EXAMPLE,
    docs_assets_dir,
    make_api,
    render_yaml,
)
from referee.service.problems import Problem, violation_json
from referee.service.sealing import Sealer, SealError

import schemas as S

JSON = "application/json"
# Per-request values, kept in the WSGI environ (cheaper than flask.g).
_T0 = "referee.t0"
_RID = "referee.request_id"
_VIOLATION = "referee.violation"
PROBLEM_JSON = "application/problem+json"
_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


class OrjsonProvider(JSONProvider):
    """Flask's ``jsonify``/``request.json`` through orjson."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj).decode("utf-8")

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)


@dataclass
class Referee:
    """Per-app state: settings, the catalog, the sealer and the drain flag."""

    settings: Settings
    catalog: engine.Catalog
    sealer: Sealer | None
    draining: bool = False
    cards_body: bytes = b""
    card_bodies: dict[str, bytes] = field(default_factory=dict)
    rules_body: bytes = b""
    openapi_yaml: str | None = None


def load_catalog(settings: Settings) -> engine.Catalog:
    """The catalog of ``settings`` (raises ``CatalogError`` with a one-line detail)."""
    if settings.catalog_path:
        return engine.Catalog.from_path(settings.catalog_path)
    return engine.Catalog.builtin()


def create_app(settings: Settings | None = None, catalog: engine.Catalog | None = None) -> Flask:
    """A WSGI app for one catalog and one sealing secret.

    ``settings`` defaults to :meth:`Settings.from_env`; ``catalog`` to the one
    those settings name.
    """
    settings = settings if settings is not None else Settings.from_env()
    catalog = catalog if catalog is not None else load_catalog(settings)
    sealer = Sealer(settings.secret, settings.previous_secret) if settings.secret else None
    ref = Referee(settings, catalog, sealer)
    ref.cards_body = orjson.dumps({"catalog": catalog.ref,
                                   "cards": [catalog.card_json(cid) for cid in catalog.cards]})
    ref.card_bodies = {cid: orjson.dumps(catalog.card_json(cid)) for cid in catalog.cards}
    from referee.engine.rules_index import load_rules

    ref.rules_body = orjson.dumps({"rules": load_rules()})

    app = Flask("referee")
    app.json = OrjsonProvider(app)
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body
    app.extensions["referee"] = ref
    logs.configure()
    metrics.CATALOG.labels(catalog.id, catalog.digest).set(1)

    api = make_api(app)
    api.register_blueprint(_game_blueprint(ref))
    api.register_blueprint(_ops_blueprint(ref, lambda: _openapi(ref, api)))
    # The decorators above document the views; at run time the views return
    # finished Responses, so call them directly, without flask-smorest's wrappers.
    for endpoint, view in list(app.view_functions.items()):
        app.view_functions[endpoint] = inspect.unwrap(view)
    _register_docs(app)
    if settings.bench_echo:
        _register_echo(app)
    _register_hooks(app, ref)
    _openapi(ref, api)  # render once now: with gunicorn's preload, the workers share it
    return app


def _openapi(ref: Referee, api: Any) -> str:
    if ref.openapi_yaml is None:
        ref.openapi_yaml = render_yaml(api)
    return ref.openapi_yaml


def openapi_yaml(app: Flask) -> str:
    """The OpenAPI document of ``app`` (what ``GET /openapi.yaml`` serves)."""
    ref: Referee = app.extensions["referee"]
    api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
    return _openapi(ref, api)


# -- reading requests -------------------------------------------------------------

def request_id() -> str:
    """This request's id (X-Request-ID if acceptable, else a new random one)."""
    environ = request.environ
    rid = environ.get(_RID)
    if rid is None:
        rid = environ[_RID] = os.urandom(16).hex()
    return rid


def read_body() -> dict[str, Any]:
    """The request's JSON object: 415 unless JSON, 413 over the limit, 400 unless an object."""
    if request.mimetype != JSON:
        raise Problem(415, "unsupported-media-type", "unsupported_media_type",
                      f"Send the body as {JSON}, not {request.mimetype or 'no Content-Type'}.")
    data = _read_raw()
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise Problem(400, "invalid-json", "invalid_json", f"The body is not valid JSON: {exc}.") from None
    if not isinstance(body, dict):
        raise _schema_problem({"_schema": ["The body must be a JSON object."]})
    return body


def _read_raw() -> bytes:
    """The body's bytes, never more than ``REFEREE_MAX_BODY`` (else 413)."""
    if request.content_length is not None:
        return request.get_data(cache=False)  # werkzeug: 413 when Content-Length is over the limit
    environ = request.environ
    if not environ.get("wsgi.input_terminated"):
        return b""  # no length and a server that does not end the stream: read nothing (werkzeug's rule)
    limit = request.max_content_length or 0
    data = environ["wsgi.input"].read(limit + 1)  # chunked: read one byte past the limit to know
    if len(data) > limit:
        raise RequestEntityTooLarge()
    return data


def _schema_problem(errors: dict[str, list[str]], detail: str | None = None) -> Problem:
    if detail is None:
        detail = "; ".join(f"{path}: {' '.join(msgs)}" for path, msgs in sorted(errors.items()))
    return Problem(400, "invalid-schema", "invalid_schema", detail, errors=errors)


def envelope(body: dict[str, Any], required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """The body's keys: each required one present, no other than the optional ones."""
    errors: dict[str, list[str]] = {}
    for key in required:
        if key not in body:
            errors[key] = ["Missing data for required field."]
    for key in body:
        if key not in required and key not in optional:
            errors[key] = ["Unknown field."]
    if errors:
        raise _schema_problem(errors)


def _player(body: dict[str, Any], key: str = "player") -> int | None:
    value = body.get(key)
    if value is None and key not in body:
        return None
    if type(value) is not int or value not in (0, 1):
        raise _schema_problem({key: ["Must be 0 or 1."]})
    return value


def localized(resp: Response, lang: str) -> Response:
    """Mark an answer whose human text is Japanese."""
    if lang == "ja":
        resp.headers["Content-Language"] = "ja"
    return resp


def _language() -> str:
    """``ja`` when the client prefers Japanese to English (Accept-Language, by quality), else ``en``."""
    if not request.headers.get("Accept-Language"):
        return "en"
    for tag, quality in request.accept_languages:  # highest quality first
        primary = tag.split("-", 1)[0].lower()
        if quality > 0 and primary in ("en", "ja"):
            return primary
    return "en"


# -- the game endpoints -------------------------------------------------------------

def _game_blueprint(ref: Referee) -> Blueprint:
    catalog = ref.catalog
    sealer = ref.sealer
    blp = Blueprint("game", __name__, description="The referee (API.md §1).")

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
    @request_body(S.NewGameSchema, "Both decks and the game's options (API.md §2).", NEW_GAME_EXAMPLE)
    @blp.response(201, S.GameResponseSchema, description="The new game, in the mulligan phase.", **common)
    @errors("BadRequest", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    def new_game() -> Response:
        """Start a game: check both decks, shuffle, deal.

        An illegal deck is a 422 whose `violations` lists every problem of
        both decks (RULES 3).
        """
        body = read_body()
        state, events = engine.new_game(catalog, body)
        return ok({"state": state_out(state), "events": events}, 201)

    @blp.route("/v1/apply", methods=["POST"])
    @request_body(S.ApplyRequestSchema, "A state and one action.")
    @blp.response(200, S.GameResponseSchema, description="The next state and its events.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    def apply() -> Response:
        """Apply one action.

        An illegal action is a 422 naming the first rule it breaks, checked
        in RULES 13.3's order; the state is unchanged.
        """
        body = read_body()
        envelope(body, ("state", "action"))
        state = state_in(body)
        state, events = engine.apply(catalog, state, body["action"])
        return ok({"state": state_out(state), "events": events})

    @blp.route("/v1/validate", methods=["POST"])
    @request_body(S.ApplyRequestSchema, "A state and one action.")
    @blp.response(200, S.ValidateResponseSchema, description="Whether the action is legal now.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType")
    def validate() -> Response:
        """Dry-run one action: never a 422, the violation is in the answer."""
        body = read_body()
        envelope(body, ("state", "action"))
        state = state_in(body)
        violation = engine.validate(catalog, state, body["action"])
        if violation is None:
            return ok({"legal": True, "violation": None})
        lang = _language()
        return localized(ok({"legal": False, "violation": violation_json(violation, lang)}), lang)

    @blp.route("/v1/legal-actions", methods=["POST"])
    @request_body(S.LegalActionsRequestSchema, "A state, and optionally a player.")
    @blp.response(200, S.LegalActionsResponseSchema, description="Every legal action now.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType")
    def legal_actions() -> Response:
        """Every legal action now, for that player or for whoever may act.

        Listed without `pay`; a discard owed at the end step is listed once
        (API.md §6).
        """
        body = read_body()
        envelope(body, ("state",), ("player",))
        player = _player(body)
        state = state_in(body)
        actions = engine.legal_actions(catalog, state, player)
        return ok({"actions": actions})

    @blp.route("/v1/replay", methods=["POST"])
    @request_body(S.ReplayRequestSchema, "A new game or a state, and the actions to apply in order.")
    @blp.response(200, S.ReplayResponseSchema, description="The state after every action.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType", "RuleViolation")
    def replay() -> Response:
        """Apply a list of actions in order.

        On the first illegal one, a 422 whose body also has `index` (0-based);
        an illegal deck in `game` is a 422 with `violations`.
        """
        body = read_body()
        envelope(body, ("actions",), ("game", "state"))
        if ("game" in body) == ("state" in body):
            raise _schema_problem({"_schema": ["Give exactly one of game and state."]})
        key = "state" if "state" in body else "game"
        if body[key] is None:
            raise _schema_problem({key: ["Field may not be null."]})
        start = state_in(body) if key == "state" else body["game"]
        state, applied = engine.replay(catalog, body["actions"], **{key: start})
        return ok({"state": state_out(state), "applied": applied})

    @blp.route("/v1/view", methods=["POST"])
    @request_body(S.ViewRequestSchema, "A state and a player.")
    @blp.response(200, S.ViewResponseSchema, description="What that player may see.", **common)
    @errors("BadRequest", "SealRefused", "PayloadTooLarge", "UnsupportedMediaType")
    def view() -> Response:
        """What one player may see (API.md §5). A view is never sealed and never accepted as a state."""
        body = read_body()
        envelope(body, ("state", "player"))
        player = _player(body)
        state = state_in(body)
        return ok({"view": engine.view(catalog, state, player)})

    @blp.route("/v1/decks/validate", methods=["POST"])
    @request_body(S.DeckValidateRequestSchema, "One deck.", {"deck": NEW_GAME_EXAMPLE["decks"][0]})
    @blp.response(200, S.DeckValidateResponseSchema, description="Every problem of the deck.", **common)
    @errors("BadRequest", "PayloadTooLarge", "UnsupportedMediaType")
    def validate_deck() -> Response:
        """Check one deck against RULES 3: every problem, not just the first."""
        body = read_body()
        envelope(body, ("deck",))
        violations = engine.validate_deck(catalog, body["deck"])
        lang = _language()
        resp = ok({"legal": not violations, "violations": [violation_json(v, lang) for v in violations]})
        return localized(resp, lang) if violations else resp

    @blp.route("/v1/cards", methods=["GET"])
    @blp.response(200, S.CardsResponseSchema, description="The catalog's id, digest and cards.", **common)
    def cards() -> Response:
        """The catalog in use."""
        return Response(ref.cards_body, mimetype=JSON)

    @blp.route("/v1/cards/<id>", methods=["GET"])
    @blp.response(200, S.CardSchema, description="The card.", **common)
    @errors("NotFound")
    def card(id: str) -> Response:  # noqa: A002 - the path says {id}
        """One card of the catalog, by its catalog id."""
        data = ref.card_bodies.get(id)
        if data is None:
            raise Problem(404, "not-found", "card_not_found", f"There is no card {id!r} in catalog {catalog.id}.")
        return Response(data, mimetype=JSON)

    @blp.route("/v1/rules", methods=["GET"])
    @blp.response(200, S.RulesResponseSchema, description="Every rule id of RULES.md with its text.", **common)
    def rules() -> Response:
        """The rule index of RULES.md."""
        return Response(ref.rules_body, mimetype=JSON)

    return blp


# -- operations ----------------------------------------------------------------------

def _ops_blueprint(ref: Referee, openapi: Callable[[], str]) -> Blueprint:
    blp = Blueprint("operations", __name__, description="Health, metrics and this document.")

    @blp.route("/livez", methods=["GET"])
    @blp.response(200, S.HealthSchema, description="The process is alive.", content_type=JSON)
    def livez() -> Response:
        """Liveness: the worker answers."""
        return Response(b'{"status":"ok"}', mimetype=JSON)

    @blp.route("/readyz", methods=["GET"])
    @blp.response(200, S.HealthSchema, description="Ready for traffic.", content_type=JSON)
    @blp.alt_response(503, response="ServiceUnavailable")
    def readyz() -> Response:
        """Readiness: 503 once the replica is shutting down (SIGTERM), so load balancers drain it."""
        if ref.draining:
            raise Problem(503, "service-unavailable", "shutting_down", "This replica is shutting down.")
        return Response(b'{"status":"ready"}', mimetype=JSON)

    @blp.route("/metrics", methods=["GET"])
    @blp.doc(responses={"200": {"description": "Prometheus text exposition (every worker).",
                                "content": {"text/plain": {"schema": {"type": "string"}}}}})
    def metrics_endpoint() -> Response:
        """Prometheus metrics: requests by endpoint and status, latency, violations by rule id."""
        data, content_type = metrics.exposition()
        return Response(data, content_type=content_type)

    @blp.route("/openapi.yaml", methods=["GET"])
    @blp.doc(responses={"200": {"description": "This document (identical to the repository's openapi.yaml).",
                                "content": {"application/yaml": {}}}})
    def openapi_document() -> Response:
        """The OpenAPI document."""
        return Response(openapi(), content_type="application/yaml; charset=utf-8")

    return blp


def _register_docs(app: Flask) -> None:
    assets = docs_assets_dir()

    @app.get("/docs")
    def docs() -> Response:
        return Response(DOCS_HTML, content_type="text/html; charset=utf-8")

    @app.get("/docs/init.js")
    def docs_init() -> Response:
        return Response(DOCS_INIT_JS, content_type="text/javascript; charset=utf-8")

    @app.get("/docs/static/<name>")
    def docs_static(name: str) -> Response:
        if assets is None or name not in DOCS_ASSETS:
            raise Problem(404, "not-found", "not_found", f"No such file {name!r}.")
        return send_from_directory(assets, name, max_age=86400)


def _register_echo(app: Flask) -> None:
    """``POST /bench/echo``: parse and echo, the benchmark's baseline (REFEREE_BENCH_ECHO=1)."""

    @app.post("/bench/echo")
    def bench_echo() -> Response:
        return Response(orjson.dumps(read_body()), mimetype=JSON)


# -- hooks and errors ------------------------------------------------------------------

def _cors_headers(headers: Any, origin: str, any_origin: bool, preflight: bool) -> None:
    """CORS for browser clients (REFEREE_CORS_ORIGINS); no credentials are involved."""
    headers["Access-Control-Allow-Origin"] = "*" if any_origin else origin
    if not any_origin:
        headers.add("Vary", "Origin")
    headers["Access-Control-Expose-Headers"] = "X-Request-ID, Content-Language"
    if preflight:
        headers["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
        headers["Access-Control-Allow-Headers"] = "Content-Type, X-Request-ID, Accept-Language"
        headers["Access-Control-Max-Age"] = "86400"


def _register_hooks(app: Flask, ref: Referee) -> None:
    log_requests = ref.settings.log_requests
    max_body = ref.settings.max_body
    record = metrics.record

    @app.before_request
    def _start() -> None:
        environ = request.environ
        environ[_T0] = time.perf_counter()
        rid = environ.get("HTTP_X_REQUEST_ID")
        environ[_RID] = rid if rid is not None and _REQUEST_ID.match(rid) else os.urandom(16).hex()

    cors_any = "*" in ref.settings.cors_origins
    cors = frozenset(ref.settings.cors_origins)

    @app.after_request
    def _finish(response: Response) -> Response:
        req = request._get_current_object()  # type: ignore[attr-defined]
        environ = req.environ
        rid = request_id()
        headers = response.headers
        headers["X-Request-ID"] = rid
        headers["X-Content-Type-Options"] = "nosniff"
        if cors:
            origin = environ.get("HTTP_ORIGIN")
            if origin is not None and (cors_any or origin in cors):
                _cors_headers(headers, origin, cors_any, req.method == "OPTIONS")
        endpoint = req.endpoint or "unmatched"
        status = response.status_code
        elapsed = time.perf_counter() - environ.get(_T0, time.perf_counter())
        violation = environ.get(_VIOLATION)
        record(endpoint, req.method, status, elapsed, violation)
        if log_requests:
            line = {
                "request_id": rid, "method": req.method, "path": req.path, "endpoint": endpoint,
                "status": status, "duration_ms": round(elapsed * 1000, 3),
                "bytes_in": req.content_length or 0, "bytes_out": response.content_length or 0,
                "remote": req.remote_addr,
            }
            if violation is not None:
                line["rule"], line["code"] = violation
            logs.access(line)
        return response

    def render(problem: Problem, headers: dict[str, str] | None = None) -> Response:
        resp = Response(orjson.dumps(problem.body(request_id())), status=problem.status, mimetype=PROBLEM_JSON)
        if headers:
            resp.headers.update(headers)
        return resp

    @app.errorhandler(Problem)
    def _problem(exc: Problem) -> Response:
        return render(exc)

    @app.errorhandler(InvalidInput)
    def _invalid(exc: InvalidInput) -> Response:
        if isinstance(exc, InconsistentState):
            return render(Problem(400, "inconsistent-state", exc.code, exc.detail, errors=exc.errors))
        return render(_schema_problem(exc.errors, exc.detail))

    @app.errorhandler(RuleViolation)
    def _violation(exc: RuleViolation) -> Response:
        lang = _language()
        request.environ[_VIOLATION] = (exc.rule, exc.code)
        extra: dict[str, Any] = {"rule": exc.rule}
        slug = "rule-violation"
        if isinstance(exc, IllegalDeck):
            slug = "illegal-deck"
            extra["violations"] = [violation_json(v, lang) for v in exc.violations]
        index = getattr(exc, "index", None)
        if index is not None:
            extra["index"] = index
        return localized(render(Problem(422, slug, exc.code, exc.detail(lang), **extra)), lang)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Response:
        status = exc.code or 500
        slug, code, detail = {
            404: ("not-found", "not_found", f"No such path: {request.path}."),
            405: ("method-not-allowed", "method_not_allowed", f"{request.method} is not allowed on {request.path}."),
            413: ("payload-too-large", "payload_too_large",
                  f"The body is over the limit of {max_body} bytes (REFEREE_MAX_BODY)."),
            415: ("unsupported-media-type", "unsupported_media_type", f"Send the body as {JSON}."),
        }.get(status, ("bad-request" if status < 500 else "internal-error",
                       (exc.name or "error").lower().replace(" ", "_").replace("'", ""),
                       exc.description or exc.name or "Error."))
        headers = {k: v for k, v in exc.get_headers() if k.lower() == "allow"}
        return render(Problem(status, slug, code, detail), headers)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Response:
        logs.LOG.exception("unhandled error", extra={"request_id": request_id()})
        return render(Problem(500, "internal-error", "internal_error",
                              "The referee failed on this request; it is logged under this request id."))
