"""The per-request work (request id, metrics, access log, security and CORS headers) and the one
mapping of errors to problem details, shared by Flask's path (:func:`register_hooks`) and the lean
path of the hot endpoints (:mod:`referee.service.hot_path`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson
from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from referee.engine.errors import InvalidInput, RuleViolation
from referee.events import EventInputError, EventRefusal
from referee.private.ledger import request_arrived
from referee.private.sealing import SealError
from referee.private.tokens import TokenError
from referee.service import logs, metrics
from referee.service.context import Referee
from referee.service.problems import (
    MAX_ERROR_ANSWER,
    Problem,
    cut_to_size,
    event_problem,
    problem_for,
    refusal_problem,
    slug_of_status,
)
from referee.service.reading import (
    JSON,
    PROBLEM_JSON,
    RID_KEY,
    T0_KEY,
    VIOLATION_KEY,
    language,
    request_id,
)

# A Content-Length past 10^18 bytes is a client's attack or bug, on any path (and would
# not fit the 64-bit integers of the access log).
MAX_LENGTH_DIGITS = 18


def _bytes_in(environ: Any) -> int:
    length = environ.get("CONTENT_LENGTH")
    return int(length) if length and length.isdecimal() and len(length) <= MAX_LENGTH_DIGITS else 0


def begin(environ: dict[str, Any]) -> None:
    """The start of every request: its clock, its id, and a refusal of an absurd Content-Length."""
    environ[T0_KEY] = time.perf_counter()
    request_arrived(time.monotonic())  # the ledger answers within its timeout of this (docs/api.md §11)
    request_id(environ)
    length = environ.get("CONTENT_LENGTH")
    if length and len(length) > MAX_LENGTH_DIGITS:
        raise Problem(
            "bad-request",
            "bad_content_length",
            f"Content-Length has {len(length)} digits; no body can be that long.",
        )


def finisher(ref: Referee) -> Callable[[dict[str, Any], str, str, str, int, int], list[tuple[str, str]]]:
    """``finish(environ, endpoint, method, path, status, bytes_out)``: count and log one answered
    request, and return the headers every answer gets (request id, security, CORS)."""
    log_requests = ref.settings.log_requests
    cors_any = "*" in ref.settings.cors_origins
    cors = frozenset(ref.settings.cors_origins)
    record = metrics.record
    access = logs.access
    perf_counter = time.perf_counter

    def finish(
        environ: dict[str, Any], endpoint: str, method: str, path: str, status: int, bytes_out: int
    ) -> list[tuple[str, str]]:
        request_arrived(None)  # answered: a ledger call after it (a test's, a CLI's) counts from its own start
        rid = environ.get(RID_KEY) or request_id(environ)
        headers = [("X-Request-ID", rid), ("X-Content-Type-Options", "nosniff")]
        if cors:
            origin = environ.get("HTTP_ORIGIN")
            if origin is not None and (cors_any or origin in cors):
                headers.extend(_cors_headers(origin, cors_any, method == "OPTIONS"))
        elapsed = perf_counter() - environ.get(T0_KEY, perf_counter())
        violation = environ.get(VIOLATION_KEY)
        record(endpoint, method, status, elapsed, violation)
        if log_requests:
            line = {
                "request_id": rid,
                "method": method,
                "path": path,
                "endpoint": endpoint,
                "status": status,
                "duration_ms": round(elapsed * 1000, 3),
                "bytes_in": _bytes_in(environ),
                "bytes_out": bytes_out,
                "remote": environ.get("REMOTE_ADDR"),
            }
            if violation is not None:
                line["rule"], line["code"] = violation
            access(line)
        return headers

    return finish


def _cors_headers(origin: str, any_origin: bool, preflight: bool) -> list[tuple[str, str]]:
    """CORS for browser clients (REFEREE_CORS_ORIGINS); no credentials are involved."""
    headers = [("Access-Control-Allow-Origin", "*" if any_origin else origin)]
    if not any_origin:
        headers.append(("Vary", "Origin"))
    headers.append(("Access-Control-Expose-Headers", "X-Request-ID, Content-Language"))
    if preflight:
        headers += [
            ("Access-Control-Allow-Methods", "GET, POST, OPTIONS"),
            ("Access-Control-Allow-Headers", "Content-Type, X-Request-ID, Accept-Language"),
            ("Access-Control-Max-Age", "86400"),
        ]
    return headers


# -- errors: the one mapping of everything raised in a request to a problem ----------------


def error_answer(exc: Exception, environ: dict[str, Any], max_body: int) -> tuple[int, bytes, list[tuple[str, str]]]:
    """The problem+json answer to ``exc``: its status, its body, and the headers it adds to
    Content-Type and Content-Length (``Allow`` of a 405, ``Content-Language``). Called while
    ``exc`` is being handled (an unexpected one is logged with its traceback)."""
    headers: list[tuple[str, str]] = []
    if isinstance(exc, Problem):
        problem = exc
        headers = list(exc.headers)
    elif isinstance(exc, RuleViolation):
        lang = language(environ)
        environ[VIOLATION_KEY] = (exc.rule, exc.code)
        problem = problem_for(exc, lang)
        if lang == "ja":
            headers.append(("Content-Language", "ja"))
    elif isinstance(exc, InvalidInput):
        problem = problem_for(exc)
    elif isinstance(exc, (EventRefusal, EventInputError)):
        problem = event_problem(exc)
        if isinstance(exc, EventRefusal):
            environ[VIOLATION_KEY] = (exc.rule, exc.code)
    elif isinstance(exc, (SealError, TokenError)):
        problem = refusal_problem(exc)
    elif isinstance(exc, HTTPException):
        problem = _http_problem(exc, environ, max_body)
        headers = [(k, v) for k, v in exc.get_headers() if k.lower() == "allow"]
    else:
        logs.LOG.exception("unhandled error", extra={"request_id": request_id(environ)})
        problem = Problem(
            "internal-error",
            "internal_error",
            "The referee failed on this request; it is logged under this request id.",
        )
    body = orjson.dumps(problem.body(request_id(environ)))
    if len(body) > MAX_ERROR_ANSWER:  # never an answer many times the size of the request it refuses
        body = orjson.dumps(cut_to_size(problem.body(request_id(environ))))
    return problem.status, body, headers


def _http_problem(exc: HTTPException, environ: dict[str, Any], max_body: int) -> Problem:
    """werkzeug's refusal (routing, the body's size) as a problem: its status kept, its type the table's."""
    status = exc.code or 500
    path = _path(environ)
    detail = {
        404: f"No such path: {path}.",
        405: f"{environ.get('REQUEST_METHOD', 'GET').upper()} is not allowed on {path}.",
        413: f"The body is over the limit of {max_body} bytes (REFEREE_MAX_BODY).",
        415: f"Send the body as {JSON}.",
    }.get(status)
    if detail is not None:
        slug = slug_of_status(status)
        return Problem(slug, slug.replace("-", "_"), detail)
    code = (exc.name or "error").lower().replace(" ", "_").replace("'", "")
    return Problem.of_status(status, code, exc.description or exc.name or "Error.")


def _path(environ: dict[str, Any]) -> str:
    """werkzeug's ``request.path``: PATH_INFO as UTF-8, with one leading slash."""
    raw = environ.get("PATH_INFO") or ""
    return "/" + raw.encode("latin1").decode("utf-8", "replace").lstrip("/")


# -- the Flask path ------------------------------------------------------------------------


def register_hooks(app: Flask, ref: Referee) -> None:
    """The per-request work and the error mapping on Flask's path (every request the lean path of
    :mod:`referee.service.hot_path` does not take)."""
    max_body = ref.settings.max_body
    finish = finisher(ref)

    @app.before_request
    def _start() -> None:
        begin(request.environ)

    @app.after_request
    def _finish(response: Response) -> Response:
        req = request._get_current_object()  # type: ignore[attr-defined]
        rule = req.url_rule
        add_header = response.headers.add
        for name, value in finish(
            req.environ,
            rule.endpoint if rule is not None else "unmatched",
            req.method,
            req.path,
            response.status_code,
            response.content_length or 0,
        ):
            add_header(name, value)
        return response

    def _error(exc: Exception) -> Response:
        status, body, headers = error_answer(exc, request.environ, max_body)
        resp = Response(body, status=status, mimetype=PROBLEM_JSON)
        for name, value in headers:
            resp.headers[name] = value
        return resp

    # Flask picks the handler of the nearest class: HTTPException too, over flask-smorest's own.
    app.register_error_handler(HTTPException, _error)
    app.register_error_handler(Exception, _error)
