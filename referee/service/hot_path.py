"""The lean path: ``POST`` to the hot endpoints answered straight from WSGI, in front of Flask.

``/v1/apply``, ``/v1/validate``, ``/v1/legal-actions`` and ``/v1/view`` are
what services call for every move, so their cost per request is our users'
cost (issue 11). Through Flask each request also paid for a request context,
the context-local proxies, URL routing, before/after hooks, blinker signals
and a ``Response`` object: about as much again as the referee's own work
(docs/operations.md, "The hot path"). Here a request whose method is exactly
``POST`` and whose ``PATH_INFO`` is exactly one of those paths goes to the
endpoint's handler (:mod:`referee.service.answers`, the very function the
Flask view calls, both derived from :mod:`referee.service.endpoints`) with the same per-request work and the same error mapping
(:mod:`referee.service.hooks`), and its answer is written as WSGI headers
built once. Anything else — another method (405, an ``OPTIONS`` preflight),
a path with a trailing or doubled slash, every other endpoint — goes to Flask
as before.

A shortcut of the service's registry (:mod:`referee.service.shortcuts`):
``tests/test_service_shortcuts.py`` proves that an app with it and one without
it answer alike (status, body bytes, headers in order, log line, metrics) over
``tests/test_hot_path_parity.py``'s corpus of every error kind, Japanese,
sealing, private mode and CORS, and over mutated positions, tokens and seats.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.http import HTTP_STATUS_CODES

from referee.service.context import Referee
from referee.service.endpoints import HOT as HOT_ENDPOINTS
from referee.service.hooks import begin, error_answer, finisher
from referee.service.reading import JSON, PROBLEM_JSON

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

HOT = tuple(e.path for e in HOT_ENDPOINTS)  # the declarations' ``hot`` ones

# werkzeug's status lines ("422 UNPROCESSABLE ENTITY"), as a Flask Response writes them
STATUS = {code: f"{code} {text.upper()}" for code, text in HTTP_STATUS_CODES.items()}


def lean(app: Flask, ref: Referee) -> WSGIApp:
    """``app``'s WSGI app with the hot endpoints' POSTs answered in front of it: each path's handler and
    its name in metrics and logs, from its declaration (the Flask view's, ``game.apply``)."""
    routes = {e.path: (e.metrics_name, e.handler) for e in HOT_ENDPOINTS if e.method == "POST"}
    flask_app = app.wsgi_app
    finish = finisher(ref)
    max_body = ref.settings.max_body
    json_type = ("Content-Type", JSON)
    problem_type = ("Content-Type", PROBLEM_JSON)

    def dispatch(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path = environ.get("PATH_INFO")
        route = routes.get(path)  # type: ignore[arg-type]
        if route is None or environ.get("REQUEST_METHOD") != "POST":
            return flask_app(environ, start_response)
        endpoint, handler = route
        try:
            begin(environ)
            status, body, lang = handler(ref, environ)
            headers = [json_type, ("Content-Length", str(len(body)))]
            if lang is not None:
                headers.append(("Content-Language", lang))
        except Exception as exc:
            status, body, extra = error_answer(exc, environ, max_body)
            headers = [problem_type, ("Content-Length", str(len(body))), *extra]
        headers += finish(environ, endpoint, "POST", path, status, len(body))  # type: ignore[arg-type]
        start_response(STATUS[status], headers)
        return [body]

    return dispatch
