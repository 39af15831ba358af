"""The HTTP service: docs/api.md §1 over Flask. It translates; the engine decides.

Every endpoint reads the body with orjson, checks the envelope (which keys
the body has), checks the seal of any state it carries (docs/api.md §4), hands the
state and action to :mod:`referee.engine` — whose strict parser checks their
shape and consistency — and writes the answer with orjson. Marshmallow
(``schemas/``) documents every body and generates ``openapi.yaml``, but is
never run on a request: see docs/operations.md, "The hot path".

Every error is a problem of the one table (:mod:`referee.service.problems`):
``InvalidInput`` 400, ``InconsistentState`` 400, ``RuleViolation`` 422
(``ReplayError`` with ``index``, ``IllegalDeck`` with ``violations``); a
wrong seal or token 403; anything unexpected 500, logged with its traceback.

The parts: ``app.py`` (this factory, which chooses the mode's codec once),
``context.py`` (what every part reads), ``reading.py`` (request id, body,
envelope, language), ``routes.py`` (the game endpoints), ``ops.py`` (health,
metrics, OpenAPI, docs), ``table_page.py`` (the ``/table`` page's files),
``answers.py`` (what each game endpoint does, without Flask, for every mode),
``codecs.py`` (the plain and sealed codecs: how a mode reads and writes
states), ``private.py`` (private play's codec; the tokens, seats, seals and
the ledger it and the sealed codec use are :mod:`referee.private`'s),
``hot_path.py`` (the hot endpoints' POSTs answered in front of Flask), ``shortcuts.py`` (the service's registry of shortcuts),
``hooks.py`` (per-request work and the error mapping), ``problems.py``,
``metrics.py``, ``logs.py``, ``config.py``.
"""

from __future__ import annotations

import inspect
from typing import Any

import orjson
from flask import Flask
from flask.json.provider import JSONProvider
from flask.sessions import NullSession, SessionInterface

from referee import engine
from referee.private.ledger import Ledger, LedgerUnavailable, open_ledger
from referee.private.sealing import Sealer
from referee.private.tokens import Vault
from referee.service import hot_path, logs, metrics
from referee.service.answers import game_answers
from referee.service.codecs import Codec, PlainCodec, SealedCodec
from referee.service.config import ConfigError, Settings
from referee.service.context import Referee
from referee.service.heavy import HeavyWork
from referee.service.hooks import register_hooks
from referee.service.openapi import (
    make_api,
    render_yaml,
)
from referee.service.ops import ops_blueprint, register_docs, register_echo
from referee.service.private import PrivateCodec
from referee.service.routes import game_blueprint
from referee.service.table_page import register_table


class OrjsonProvider(JSONProvider):
    """Flask's ``jsonify``/``request.json`` through orjson."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj).decode("utf-8")

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return orjson.loads(s)


class NoSessions(SessionInterface):
    """The referee keeps nothing between requests: no cookie session to open or save on each one."""

    _none = NullSession()

    def open_session(self, app: Flask, request: Any) -> NullSession:
        return self._none

    def save_session(self, app: Flask, session: Any, response: Any) -> None:
        return None


def load_catalog(settings: Settings) -> engine.Catalog:
    """The catalog of ``settings`` (raises ``CatalogError`` with a one-line detail)."""
    if settings.catalog_path:
        return engine.Catalog.from_path(settings.catalog_path)
    return engine.Catalog.builtin()


def ledger_of(settings: Settings) -> Ledger | None:
    """The ledger ``settings`` name (docs/api.md §11), reached once now: unreachable is a start-up error."""
    if settings.ledger is None:
        return None
    ledger = open_ledger(settings.ledger, settings.ledger_ttl, settings.ledger_timeout, metrics.ledger_batch)
    try:
        ledger.ping()
    except LedgerUnavailable as exc:
        raise ConfigError(f"REFEREE_LEDGER={settings.ledger}: unreachable at start-up ({exc})") from None
    ledger.close()  # each worker opens its own connection
    return ledger


def codec_of(settings: Settings, catalog: engine.Catalog, heavy: HeavyWork) -> Codec:
    """The one codec of the mode ``settings`` choose (docs/api.md §10, §4, else plain), made once."""
    if settings.state_key is not None:
        vault = Vault(settings.state_key, settings.previous_state_key)
        return PrivateCodec(catalog, vault, ledger_of(settings), heavy)
    if settings.secret is not None:
        return SealedCodec(catalog, Sealer(settings.secret, settings.previous_secret))
    return PlainCodec(catalog)


def create_app(settings: Settings | None = None, catalog: engine.Catalog | None = None) -> Flask:
    """A WSGI app for one catalog and one sealing secret.

    ``settings`` defaults to :meth:`Settings.from_env`; ``catalog`` to the one
    those settings name.
    """
    settings = settings if settings is not None else Settings.from_env()
    catalog = catalog if catalog is not None else load_catalog(settings)
    heavy = HeavyWork.of(catalog, settings.heavy_slots, settings.heavy_nice, settings.heavy_max_seconds)
    ref = Referee(settings, catalog, codec_of(settings, catalog, heavy), heavy)
    ref.cards_body = orjson.dumps({"catalog": catalog.ref, "cards": [catalog.card_json(cid) for cid in catalog.cards]})
    ref.formats_body = orjson.dumps({"formats": catalog.format_json()})
    ref.card_bodies = {cid: orjson.dumps(catalog.card_json(cid)) for cid in catalog.cards}
    from referee.engine.rules_index import load_rules

    ref.rules_body = orjson.dumps({"rules": load_rules()})

    app = Flask("referee")
    app.json = OrjsonProvider(app)
    app.session_interface = NoSessions()
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body
    app.extensions["referee"] = ref
    logs.configure()
    metrics.publish_config(catalog, ref.fingerprints())

    api = make_api(app)
    answers = game_answers(ref)
    api.register_blueprint(game_blueprint(ref, answers))
    api.register_blueprint(ops_blueprint(ref, lambda: openapi_text(ref, api)))
    # The decorators above document the views; at run time the views return
    # finished Responses, so call them directly, without flask-smorest's wrappers.
    for endpoint, view in list(app.view_functions.items()):
        app.view_functions[endpoint] = inspect.unwrap(view)
    # The hot endpoints' POSTs skip Flask (the same handlers, hooks and error mapping):
    # referee.service.hot_path. Flask.wsgi_app(app, ...) stays the way through Flask alone.
    app.wsgi_app = hot_path.lean(app, ref, answers)  # type: ignore[method-assign, assignment]
    register_docs(app)
    register_table(app, ref)
    if settings.bench_echo:
        register_echo(app)
    register_hooks(app, ref)
    if settings.metrics_port is not None:
        app.wsgi_app = metrics.metrics_listener(app.wsgi_app, settings.metrics_port)  # type: ignore[method-assign, assignment]
    openapi_text(ref, api)  # render once now: with gunicorn's preload, the workers share it
    return app


def openapi_text(ref: Referee, api: Any) -> str:
    if ref.openapi_yaml is None:
        ref.openapi_yaml = render_yaml(api)
    return ref.openapi_yaml


def openapi_yaml(app: Flask) -> str:
    """The OpenAPI document of ``app`` (what ``GET /openapi.yaml`` serves)."""
    ref: Referee = app.extensions["referee"]
    api = app.extensions["flask-smorest"]["apis"][""]["ext_obj"]
    return openapi_text(ref, api)
