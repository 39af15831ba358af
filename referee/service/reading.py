"""Reading a request: its id, its JSON body, its envelope of keys, its language."""

from __future__ import annotations

import os
import re
from typing import Any

import orjson
from flask import Response, request
from werkzeug.exceptions import RequestEntityTooLarge

from referee.service.problems import Problem, schema_problem  # noqa: F401  (re-exported)

JSON = "application/json"
# Per-request values, kept in the WSGI environ (cheaper than flask.g).
T0_KEY = "referee.t0"
RID_KEY = "referee.request_id"
VIOLATION_KEY = "referee.violation"
PROBLEM_JSON = "application/problem+json"
REQUEST_ID_PATTERN = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")



def request_id() -> str:
    """This request's id (X-Request-ID if acceptable, else a new random one)."""
    environ = request.environ
    rid = environ.get(RID_KEY)
    if rid is None:
        rid = environ[RID_KEY] = os.urandom(16).hex()
    return rid


def read_body() -> dict[str, Any]:
    """The request's JSON object: 415 unless JSON, 413 over the limit, 400 unless an object."""
    # The usual exact header first: werkzeug's parse of the header costs more than the check.
    if request.environ.get("CONTENT_TYPE") != JSON and request.mimetype != JSON:
        raise Problem(415, "unsupported-media-type", "unsupported_media_type",
                      f"Send the body as {JSON}, not {request.mimetype or 'no Content-Type'}.")
    data = _read_raw()
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise Problem(400, "invalid-json", "invalid_json", f"The body is not valid JSON: {exc}.") from None
    if not isinstance(body, dict):
        raise schema_problem({"_schema": ["The body must be a JSON object."]})
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
        raise schema_problem(errors)


def player_field(body: dict[str, Any], key: str = "player") -> int | None:
    value = body.get(key)
    if value is None and key not in body:
        return None
    if type(value) is not int or value not in (0, 1):
        raise schema_problem({key: ["Must be 0 or 1."]})
    return value


def localized(resp: Response, lang: str) -> Response:
    """Mark an answer whose human text is Japanese."""
    if lang == "ja":
        resp.headers["Content-Language"] = "ja"
    return resp


def language() -> str:
    """``ja`` when the client prefers Japanese to English (Accept-Language, by quality), else ``en``."""
    if not request.headers.get("Accept-Language"):
        return "en"
    for tag, quality in request.accept_languages:  # highest quality first
        primary = tag.split("-", 1)[0].lower()
        if quality > 0 and primary in ("en", "ja"):
            return primary
    return "en"
