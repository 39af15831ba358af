"""Operations endpoints: health, readiness, metrics, the OpenAPI document, the offline docs page."""

from __future__ import annotations

from typing import Callable

import orjson
from flask import Flask, Response, send_from_directory
from flask_smorest import Blueprint

import schemas as S
from referee import __version__
from referee.service import metrics
from referee.service.context import Referee
from referee.service.openapi import (
    DOCS_ASSETS,
    DOCS_HTML,
    DOCS_INIT_JS,
    docs_assets_dir,
)
from referee.service.problems import Problem
from referee.service.reading import JSON, read_body

def ops_blueprint(ref: Referee, openapi: Callable[[], str]) -> Blueprint:
    blp = Blueprint("operations", __name__, description="Health, metrics and this document.")
    livez_body = orjson.dumps({"status": "ok", "version": __version__})

    @blp.route("/livez", methods=["GET"])
    @blp.response(200, S.HealthSchema, description="The process is alive.", content_type=JSON)
    def livez() -> Response:
        """Liveness: the worker answers, with the referee's version."""
        return Response(livez_body, mimetype=JSON)

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
        """Prometheus metrics: requests by endpoint and status, latency, violations by rule id.

        With `REFEREE_METRICS_PORT` they are served on that port only, and this path is a 404 here.
        """
        if ref.settings.metrics_port is not None:
            raise Problem(404, "not-found", "not_found", "No such path: metrics are served on another port.")
        data, content_type = metrics.exposition()
        return Response(data, content_type=content_type)

    @blp.route("/openapi.yaml", methods=["GET"])
    @blp.doc(responses={"200": {"description": "This document (identical to the repository's openapi.yaml).",
                                "content": {"application/yaml": {}}}})
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
            raise Problem(404, "not-found", "not_found", f"No such file {name!r}.")
        return send_from_directory(assets, name, max_age=86400)


def register_echo(app: Flask) -> None:
    """``POST /bench/echo``: parse and echo, the benchmark's baseline (REFEREE_BENCH_ECHO=1)."""

    @app.post("/bench/echo")
    def bench_echo() -> Response:
        return Response(orjson.dumps(read_body()), mimetype=JSON)
