"""Per-request hooks (request id, metrics, access log, CORS) and the mapping of errors to problem details."""

from __future__ import annotations

import os
import time
from typing import Any

import orjson
from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from referee.engine.errors import InvalidInput, RuleViolation
from referee.service import logs, metrics
from referee.service.context import Referee
from referee.service.problems import Problem, problem_for
from referee.service.reading import (
    JSON,
    PROBLEM_JSON,
    REQUEST_ID_PATTERN,
    RID_KEY,
    T0_KEY,
    VIOLATION_KEY,
    language,
    localized,
    request_id,
)

# A Content-Length past 10^18 bytes is a client's attack or bug, on any path (and would
# not fit the 64-bit integers of the access log).
MAX_LENGTH_DIGITS = 18


def _bytes_in(environ: Any) -> int:
    length = environ.get("CONTENT_LENGTH")
    return int(length) if length and length.isdigit() and len(length) <= MAX_LENGTH_DIGITS else 0


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


def register_hooks(app: Flask, ref: Referee) -> None:
    log_requests = ref.settings.log_requests
    max_body = ref.settings.max_body
    record = metrics.record

    @app.before_request
    def _start() -> None:
        environ = request.environ
        environ[T0_KEY] = time.perf_counter()
        rid = environ.get("HTTP_X_REQUEST_ID")
        environ[RID_KEY] = rid if rid is not None and REQUEST_ID_PATTERN.match(rid) else os.urandom(16).hex()
        length = environ.get("CONTENT_LENGTH")
        if length and len(length) > MAX_LENGTH_DIGITS:
            raise Problem(400, "bad-request", "bad_content_length",
                          f"Content-Length has {len(length)} digits; no body can be that long.")

    cors_any = "*" in ref.settings.cors_origins
    cors = frozenset(ref.settings.cors_origins)

    @app.after_request
    def _finish(response: Response) -> Response:
        # Hot: runs on every answer. One proxy lookup, headers appended (not set: none of
        # them is there yet), metrics through their cached slots, one write for the log line.
        req = request._get_current_object()  # type: ignore[attr-defined]
        environ = req.environ
        rid = environ.get(RID_KEY) or request_id()
        add_header = response.headers.add
        add_header("X-Request-ID", rid)
        add_header("X-Content-Type-Options", "nosniff")
        if cors:
            origin = environ.get("HTTP_ORIGIN")
            if origin is not None and (cors_any or origin in cors):
                _cors_headers(response.headers, origin, cors_any, req.method == "OPTIONS")
        rule = req.url_rule
        endpoint = rule.endpoint if rule is not None else "unmatched"
        status = response.status_code
        elapsed = time.perf_counter() - environ.get(T0_KEY, time.perf_counter())
        violation = environ.get(VIOLATION_KEY)
        method = req.method
        record(endpoint, method, status, elapsed, violation)
        if log_requests:
            line = {
                "request_id": rid, "method": method, "path": req.path, "endpoint": endpoint,
                "status": status, "duration_ms": round(elapsed * 1000, 3),
                "bytes_in": _bytes_in(environ), "bytes_out": response.content_length or 0,
                "remote": environ.get("REMOTE_ADDR"),
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
        return render(problem_for(exc))

    @app.errorhandler(RuleViolation)
    def _violation(exc: RuleViolation) -> Response:
        lang = language()
        request.environ[VIOLATION_KEY] = (exc.rule, exc.code)
        return localized(render(problem_for(exc, lang)), lang)

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
