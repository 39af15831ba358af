"""Reading a request: its id, its JSON body, its envelope of keys, its language.

Every reader takes the WSGI environ, not Flask's ``request``: the same code
serves the Flask path and the lean path of the hot endpoints
(:mod:`referee.service.hot_path`), and skips a context-local lookup each time.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from typing import Any

import orjson
from werkzeug.datastructures import LanguageAccept
from werkzeug.exceptions import ClientDisconnected, RequestEntityTooLarge
from werkzeug.http import parse_accept_header, parse_options_header
from werkzeug.wsgi import get_content_length, get_input_stream

from referee.engine.facts import Player
from referee.service.problems import Problem, schema_problem

JSON = "application/json"
# Per-request values, kept in the WSGI environ (cheaper than flask.g).
T0_KEY = "referee.t0"
RID_KEY = "referee.request_id"
VIOLATION_KEY = "referee.violation"
PROBLEM_JSON = "application/problem+json"
REQUEST_ID_PATTERN = re.compile(r"^[A-Za-z0-9._:\-]{1,128}$")


def new_request_id() -> str:
    """A fresh request id: the one mint of them (the app's requests, gunicorn's own refusals)."""
    return os.urandom(16).hex()


def request_id(environ: dict[str, Any]) -> str:
    """This request's id, chosen on first asking: X-Request-ID if acceptable, else a new one."""
    rid = environ.get(RID_KEY)
    if rid is None:
        rid = environ.get("HTTP_X_REQUEST_ID")
        if rid is None or not REQUEST_ID_PATTERN.match(rid):
            rid = new_request_id()
        environ[RID_KEY] = rid
    return rid


@dataclass(frozen=True, slots=True)
class BodyLimits:
    """How much a body may be: ``size`` bytes at most (``REFEREE_MAX_BODY``), and a chunked one must
    arrive whole within ``chunked_seconds`` (``REFEREE_CHUNKED_BODY_TIMEOUT``)."""

    size: int
    chunked_seconds: float


def read_body(environ: dict[str, Any], limits: BodyLimits) -> dict[str, Any]:
    """The request's JSON object: 415 unless plain JSON (no Content-Encoding), 413 over ``limits.size``
    bytes, 408 for a chunked body slower than ``limits.chunked_seconds``, 400 unless an object (or when
    an object repeats a key, or nests deeper than :data:`MAX_DEPTH`)."""
    encoding = environ.get("HTTP_CONTENT_ENCODING")
    if encoding is not None and encoding.strip().lower() not in ("", "identity"):
        raise Problem(
            "encoded-body",
            "encoded_body",
            f"The body is sent with Content-Encoding {encoding[:40]!r}: the referee reads plain JSON only "
            "(send it without Content-Encoding).",
        )
    # The usual exact header first: werkzeug's parse of the header costs more than the check.
    content_type = environ.get("CONTENT_TYPE")
    if content_type != JSON:
        mimetype = parse_options_header(content_type)[0].lower()  # werkzeug's request.mimetype
        if mimetype != JSON:
            raise Problem(
                "unsupported-media-type",
                "unsupported_media_type",
                f"Send the body as {JSON}, not {mimetype or 'no Content-Type'}.",
            )
    data = _read_raw(environ, limits)
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc) or "recursion limit" in str(exc):  # deeper than orjson reads (1,024)
            raise too_deep() from None
        raise Problem("invalid-json", "invalid_json", f"The body is not valid JSON: {exc}.") from None
    if not isinstance(body, dict):
        raise schema_problem({"_schema": ["The body must be a JSON object."]})
    if may_repeat_keys(data, body):
        path = duplicate_key_path(data)
        if path is not None:
            raise Problem(
                "duplicate-key",
                "duplicate_key",
                f"{path or 'The body'}: a key appears twice in one object; the referee reads no body two ways.",
                errors={path: ["Duplicate key."]},
            )
    return body


# -- duplicate keys ------------------------------------------------------------------
# orjson keeps the last of repeated keys, silently. Proving there are none costs one
# orjson.dumps and two byte counts: a colon in JSON text is either a key's or inside a
# string, so when the parsed body, written back, has as many colons as the text, no key
# was dropped. Escaped colons (\u003a) could hide one: such bodies take the slow path.


def may_repeat_keys(data: bytes, body: Any) -> bool:
    """False when ``body`` (parsed from ``data``) certainly kept every key of the text.

    Writing the body back also proves it is no deeper than orjson writes (254
    levels; it reads 1,024): a body nested deeper is refused here, as 400
    ``too_deeply_nested``, before anything else would write it.
    """
    try:
        written = orjson.dumps(body)
    except orjson.JSONEncodeError:
        raise too_deep() from None
    if b"\\" in data and (b"\\u003a" in data or b"\\u003A" in data):  # memchr first: states have no "\\"
        return True
    return written.count(b":") != data.count(b":")


MAX_DEPTH = 254  # levels orjson writes (an object holding 253 arrays); no request of the API is a tenth as deep


def too_deep() -> Problem:
    return Problem(
        "too-deeply-nested",
        "too_deeply_nested",
        f"The body nests arrays and objects more than {MAX_DEPTH} levels deep; no request of this API does.",
    )


class _Object(dict[str, Any]):
    repeated: str | None = None


def _object(pairs: list[tuple[str, Any]]) -> _Object:
    obj = _Object()
    for key, value in pairs:
        if key in obj and obj.repeated is None:
            obj.repeated = key
        obj[key] = value
    return obj


def duplicate_key_path(data: bytes) -> str | None:
    """The path (``state.players.0.name``) of the first repeated key in ``data``, if any."""
    import json

    try:
        tree = json.loads(data, object_pairs_hook=_object)
    except (ValueError, RecursionError):
        return ""  # orjson read it; a nesting too deep for json: refuse it whole
    stack: list[tuple[str, Any]] = [("", tree)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, _Object):
            if node.repeated is not None:
                return f"{path}.{node.repeated}" if path else node.repeated
            stack.extend((f"{path}.{k}" if path else k, v) for k, v in reversed(node.items()))
        elif isinstance(node, list):
            stack.extend((f"{path}.{i}" if path else str(i), v) for i, v in reversed(list(enumerate(node))))
    return None


# -- the body's bytes ------------------------------------------------------------------

DISCARD_FACTOR = 4  # a body up to 4 × REFEREE_MAX_BODY is read and dropped before the 413
READ_CHUNK = 64 * 1024  # werkzeug's LimitedStream reads this much at a time
# A chunked body is read (and an oversized one dropped) this much at a time, the clock looked at
# after each piece: gunicorn parses the chunks as we read, so a piece of one-byte chunks takes it
# tens of milliseconds.
PIECE = 16 * 1024


def _read_raw(environ: dict[str, Any], limits: BodyLimits) -> bytes:
    """The body's bytes, never more than ``limits.size`` (else 413).

    An oversized body is read and dropped up to a bound before the 413 is
    sent, so a client that writes its whole body before reading gets the
    answer rather than a reset connection. A body that cannot be read (cut
    short, a malformed chunk, a client too slow) is a 400; a chunked body
    that is not whole within ``limits.chunked_seconds`` is a 408.
    """
    length = get_content_length(environ)  # werkzeug's request.content_length
    stream = environ["wsgi.input"]
    limit = limits.size
    try:
        if length is not None:
            if length > limit:
                _discard(stream, length, limit)
                raise RequestEntityTooLarge()
            if "wsgi.input_terminated" in environ:  # the server ends the stream (gunicorn does)
                return _read_to_end(stream, limit)
            return get_input_stream(environ, max_content_length=limit).read()  # werkzeug's get_data()
        if not environ.get("wsgi.input_terminated"):
            return b""  # no length and a server that does not end the stream: read nothing (werkzeug's rule)
        return _read_chunked(stream, limits)
    except (RequestEntityTooLarge, Problem):
        raise
    except Exception as exc:  # the WSGI server's own errors: a cut or malformed body, a timeout
        raise Problem(
            "unreadable-body", "unreadable_body", f"The body could not be read: {type(exc).__name__}."
        ) from None


def _read_chunked(stream: Any, limits: BodyLimits) -> bytes:
    """A chunked body, whole within ``limits.chunked_seconds``: one byte past the size limit is a 413.

    Each chunk costs the worker time to parse whatever its size, so the
    clock, not the byte count, bounds a body of many tiny chunks (a gevent
    worker serves no one else while it parses them).
    """
    deadline = time.monotonic() + limits.chunked_seconds
    pieces: list[bytes] = []
    size = 0
    while size <= limits.size:
        piece = stream.read(min(PIECE, limits.size + 1 - size))
        if not piece:
            return b"".join(pieces)
        pieces.append(piece)
        size += len(piece)
        if time.monotonic() > deadline:
            raise Problem(
                "request-timeout",
                "body_timeout",
                f"The chunked body was not whole after {limits.chunked_seconds:g} s ({size} bytes read): "
                "send it with Content-Length, or in larger chunks.",
            )
    _discard(stream, DISCARD_FACTOR * limits.size, limits.size, deadline)
    raise RequestEntityTooLarge()


def _read_to_end(stream: Any, limit: int) -> bytes:
    """What werkzeug's ``get_data()`` reads from a stream the server ends, without its three layers of
    stream wrappers (a sixth of our cost per request): everything up to the end or ``limit`` bytes, a
    read error being ``ClientDisconnected``."""
    data = b""
    while len(data) < limit:
        try:
            chunk = stream.read(min(READ_CHUNK, limit - len(data)))
        except (OSError, ValueError):
            raise ClientDisconnected() from None
        if not chunk:
            break
        data += chunk
    return data


def _discard(stream: Any, length: int, limit: int, deadline: float = float("inf")) -> None:
    """Read and drop up to ``length`` bytes (at most DISCARD_FACTOR × ``limit``), until ``deadline``."""
    left = min(length, DISCARD_FACTOR * limit)
    while left > 0 and time.monotonic() <= deadline:
        chunk = stream.read(min(left, PIECE))
        if not chunk:
            return
        left -= len(chunk)


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
    if not Player.is_valid(value):  # the engine's one judgement of a player index
        raise schema_problem({key: ["must be 0 or 1"]})  # the engine's words (facts.Player.check)
    return value


def language(environ: dict[str, Any]) -> str:
    """``ja`` when the client prefers Japanese to English (Accept-Language, by quality), else ``en``."""
    header = environ.get("HTTP_ACCEPT_LANGUAGE")
    if not header:
        return "en"
    for tag, quality in parse_accept_header(header, LanguageAccept):  # highest quality first
        primary = tag.split("-", 1)[0].lower()
        if quality > 0 and primary in ("en", "ja"):
            return primary
    return "en"
