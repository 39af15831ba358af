"""Operations endpoints: health, readiness, metrics, the OpenAPI document, the offline docs page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
from flask import Flask, Response, request, send_from_directory
from flask_smorest import Blueprint

import referee_schemas as S
from referee import __version__
from referee.private.ledger import LedgerUnavailable
from referee.service import metrics
from referee.service.context import Referee
from referee.service.openapi import (
    DOCS_ASSETS,
    DOCS_HTML,
    DOCS_INIT_JS,
    docs_assets_dir,
)
from referee.service.private import ledger_unavailable
from referee.service.problems import Problem
from referee.service.reading import JSON


def ops_blueprint(ref: Referee, openapi: Callable[[], str]) -> Blueprint:
    blp = Blueprint("operations", __name__, description="Health, metrics and this document.")
    livez_body = orjson.dumps({"status": "ok", "version": __version__})
    ledger = ref.codec.ledger
    ready_body = orjson.dumps(
        {"status": "ready", "catalog": ref.catalog.ref, "keys": ref.fingerprints(), "ledger": ledger is not None}
    )

    @blp.route("/livez", methods=["GET"])
    @blp.doc(operationId="livez")
    @blp.response(200, S.HealthSchema, description="The process is alive.", content_type=JSON)
    def livez() -> Response:
        """Liveness: the worker answers, with the referee's version."""
        return Response(livez_body, mimetype=JSON)

    @blp.route("/readyz", methods=["GET"])
    @blp.doc(operationId="readyz")
    @blp.response(200, S.ReadinessSchema, description="Ready for traffic.", content_type=JSON)
    @blp.alt_response(503, response="ServiceUnavailable")
    def readyz() -> Response:
        """Readiness: 503 once the replica is shutting down (SIGTERM), so load balancers drain it,
        and, with a ledger (docs/api.md §11), while the ledger cannot be reached (`ledger_unavailable`,
        with `waiting_for`: what the store answered, such as no primary found while a failover runs).

        A reload (SIGHUP) never turns it to 503. The answer names the catalog
        and the fingerprints of the keys, so replicas that disagree show.
        """
        if ref.draining:
            raise Problem("service-unavailable", "shutting_down", "This replica is shutting down.")
        if ledger is not None:
            try:
                ledger.ping()
            except LedgerUnavailable as exc:
                problem = ledger_unavailable(exc)
                # What the replica waits for: the store's own words (no address of a sentinel is secret; a
                # URL's password never appears in them). After a primary dies: the sentinels' new primary.
                problem.extra["waiting_for"] = str(exc)
                raise problem from None
        return Response(ready_body, mimetype=JSON)

    @blp.route("/metrics", methods=["GET"])
    @blp.doc(operationId="metrics")
    @blp.doc(
        responses={
            "200": {
                "description": "Prometheus text exposition (every worker).",
                "content": {"text/plain": {"schema": {"type": "string"}}},
            }
        }
    )
    def metrics_endpoint() -> Response:
        """Prometheus metrics: requests by endpoint and status, latency, violations by rule id.

        With `REFEREE_METRICS_PORT` they are served on that port only, and this path is a 404 here.
        """
        if ref.settings.metrics_port is not None:
            raise Problem("not-found", "not_found", "No such path: metrics are served on another port.")
        data, content_type = metrics.exposition()
        return Response(data, content_type=content_type)

    @blp.route("/openapi.yaml", methods=["GET"])
    @blp.doc(operationId="openapiDocument")
    @blp.doc(
        responses={
            "200": {
                "description": "This document (identical to the repository's openapi.yaml).",
                "content": {"application/yaml": {}},
            }
        }
    )
    def openapi_document() -> Response:
        """The OpenAPI document."""
        return Response(openapi(), content_type="application/yaml; charset=utf-8")

    return blp


def register_docs(app: Flask) -> None:
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
            raise Problem("not-found", "not_found", f"No such file {name!r}.")
        return send_from_directory(assets, name, max_age=86400)


def register_echo(app: Flask) -> None:
    """``POST /bench/echo`` (REFEREE_BENCH_ECHO=1): the benchmark's baseline, a bare Flask app that parses
    the body with orjson and echoes it, and nothing else — none of the referee's hooks, checks or
    headers. It is mounted in front of the referee's app, so both are measured in the same server,
    workers and configuration."""
    echo = Flask("referee-bench-echo")

    @echo.post("/echo")
    def bench_echo() -> Any:
        try:
            body = orjson.loads(request.get_data())
        except orjson.JSONDecodeError:  # a client's mistake is never a 500, even here
            return "not JSON", 400
        return orjson.dumps(body)

    referee_app = app.wsgi_app
    bare = echo.wsgi_app

    def mounted(environ: dict[str, Any], start_response: Any) -> Any:  # one comparison in front of the referee
        if environ.get("PATH_INFO") == "/bench/echo":
            environ["PATH_INFO"] = "/echo"
            return bare(environ, start_response)
        return referee_app(environ, start_response)

    app.wsgi_app = mounted  # type: ignore[method-assign]
