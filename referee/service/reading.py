"""Reading a request: its id, its JSON body, its envelope of keys, its language.

Every reader takes the WSGI environ, not Flask's ``request``: the same code
serves the Flask path and the lean path of the hot endpoints
(:mod:`referee.service.hot_path`), and skips a context-local lookup each time.
"""

from __future__ import annotations

import os
import re
import time
from array import array
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

import msgspec
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
    an object repeats a key, or nests deeper than :data:`MAX_DEPTH`, or holds more arrays and objects than
    one per :data:`BYTES_PER_CONTAINER` bytes of the limit). Every check is linear in the body."""
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
    _count_containers(data, limits.size)
    try:
        body = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc) or "recursion limit" in str(exc):  # deeper than orjson reads (1,024)
            raise too_deep() from None
        raise Problem("invalid-json", "invalid_json", f"The body is not valid JSON: {exc}.") from None
    if not isinstance(body, dict):
        raise schema_problem({"_schema": ["The body must be a JSON object."]})
    if repeats_a_key(data, body):
        del body  # the second reading's tree replaces the first's, not beside it
        path = duplicate_key_path(data) or ""
        raise Problem(
            "duplicate-key",
            "duplicate_key",
            f"{path or 'The body'}: a key appears twice in one object; the referee reads no body two ways.",
            errors={path: ["Duplicate key."]},
        )
    return body


# -- repeated keys ---------------------------------------------------------------------
# orjson keeps the last of repeated keys, silently. Proving there are none costs one
# writing of the parsed body and a few byte counts, all linear and in C: every colon of
# JSON text is a key's or a string's (literal, or escaped as \u003a), and the body is
# written back with every colon literal. So the text's colons (counting each real escape as one)
# equal the written body's exactly when no pair was dropped: each dropped pair takes at
# least its own key's colon with it. Only a body that does repeat a key is read a second
# time, to name the key's path (see duplicate_key_path).


def repeats_a_key(data: bytes, body: Any) -> bool:
    """True when the JSON text ``data`` repeats a key in some object (``body`` being its parse).

    It also refuses, as 400 ``too_deeply_nested``, a body deeper than
    :data:`MAX_DEPTH` (orjson reads 1,024 levels, writes 254), before anything
    else would write it.
    """
    written = _written_small(body) if len(data) <= SMALL_BODY else _written_large(data, body)
    colons = data.count(b":")
    if b"\\u003" in data:  # memchr first: states have no backslash
        colons += _escaped_colons(data)
    return written.count(b":") != colons


def _escaped_colons(data: bytes) -> int:
    """How many escaped colons (``\\u003a``) the JSON text ``data`` holds. A run of backslashes
    reads as pairs, each an escaped backslash, left to right: with the pairs dropped, a
    backslash left before ``u003a`` starts an escape (in ``\\\\u003a`` it does not)."""
    unpaired = data.replace(b"\\\\", b"")
    return unpaired.count(b"\\u003a") + unpaired.count(b"\\u003A")


# orjson.dumps reserves far more address space than it writes when a value has many
# items (126 MiB for a list of 500,000 zeros): harmless for the small bodies every
# request of the API sends, and the fastest check of their depth. A larger body is
# written by msgspec (1.3 times what it writes) and its depth read from its text.
SMALL_BODY = 64 * 1024
_ENCODER = msgspec.json.Encoder()


def _written_small(body: Any) -> bytes:
    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:
        raise too_deep() from None


def _written_large(data: bytes, body: Any) -> bytes:
    if _depth(data) > MAX_DEPTH:
        raise too_deep()
    return _ENCODER.encode(body)


_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_STEPS = bytes.maketrans(b"[]{}", bytes((1, 255, 1, 255)))  # 255 is -1 as a signed byte


def _depth(data: bytes) -> int:
    """How deep the JSON text ``data`` nests: its strings dropped, its brackets as steps of +1
    and -1, the highest running sum. All of it in C, in one pass each, whatever the shape."""
    steps = _STRING.sub(b"", data).translate(_STEPS, _NOT_BRACKETS)
    return max(accumulate(array("b", steps)), default=0)


class _Repeat:
    """An object of the second reading that holds a repeated key, itself or below it (every other
    object is read as None). ``tail`` is the key's path from here, last segment first (a list, so
    that each enclosing object adds its segment in constant time, whatever the depth)."""

    tail: list[str]


class _RepeatFinder:
    """The hook of a second reading of the text by :mod:`json`, which reports each
    object's pairs before dropping any: it marks the first repeated key in document
    order. Objects complete innermost first, so each object looks at its own keys, then
    at the marks its values already carry; an array (which has no hook) is searched by
    its nearest enclosing object, once, and only after some object below was marked.
    Every object and array is thus looked at a bounded number of times: linear work,
    and no path string built but the one answered."""

    def __init__(self) -> None:
        self.marked = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> _Repeat | None:
        if len(pairs) > 1 and len(dict(pairs)) != len(pairs):
            return self._mark([_first_repeated(pairs)])
        if self.marked:
            for key, value in pairs:
                tail = _tail_in(value)
                if tail is not None:
                    tail.append(key)
                    return self._mark(tail)
        return None  # an object with no repeated key, in it or below: nothing of it is needed

    def _mark(self, tail: list[str]) -> _Repeat:
        self.marked = True
        repeat = _Repeat()
        repeat.tail = tail
        return repeat


def _first_repeated(pairs: list[tuple[str, Any]]) -> str:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            return key
        seen.add(key)
    raise AssertionError("no repeated key")  # pragma: no cover - the caller counted one


def _tail_in(value: Any) -> list[str] | None:
    """The mark's tail of the first marked object in ``value`` (itself, or through arrays), depth
    first in document order. Recursive: the body is at most MAX_DEPTH deep by now (checked before
    the second reading), far within the interpreter's recursion limit."""
    kind = type(value)
    if kind is _Repeat:
        tail: list[str] = value.tail
        return tail
    if kind is list:
        for index, item in enumerate(value):
            kind = type(item)
            if kind is _Repeat or kind is list:
                found = _tail_in(item)
                if found is not None:
                    found.append(str(index))
                    return found
    return None


def duplicate_key_path(data: bytes) -> str | None:
    """The path (``state.players.0.name``) of the first repeated key in ``data`` (in
    document order, an object before those within it), or None when none repeats.

    A second reading of the text, by :mod:`json`: linear in its size, its memory that
    of the parsed body; numbers are read as their length (their values do not matter,
    and a 5,000-digit integer is not a ValueError).
    """
    import json

    finder = _RepeatFinder()
    try:
        tree = json.loads(data, object_pairs_hook=finder, parse_int=len, parse_float=len, parse_constant=len)
    except (ValueError, RecursionError):
        return ""  # orjson read it; json does not: refuse it whole
    tail = _tail_in(tree)
    return None if tail is None else ".".join(reversed(tail))


# Parsing JSON costs most per array or object (a megabyte of "[[],[],…]" is 350,000 lists for orjson
# to make, 0.3 s of CPU and 48 MB): a body may hold one per BYTES_PER_CONTAINER bytes of the size
# limit. The densest request of the API, a replay of the shortest actions, holds one per 27 bytes;
# a mid-game state one per 100 or more.
BYTES_PER_CONTAINER = 16


def _count_containers(data: bytes, limit: int) -> None:
    """400 ``too_many_containers`` past ``limit // BYTES_PER_CONTAINER`` arrays and objects (brackets
    in strings counted too: no string of the API holds many). Two byte counts, before any parse; a
    body too short to hold that many (two bytes each) is not counted."""
    most = limit // BYTES_PER_CONTAINER
    if len(data) > 2 * most and data.count(b"[") + data.count(b"{") > most:
        raise Problem(
            "too-many-containers",
            "too_many_containers",
            f"The body holds more than {most} arrays and objects (one per {BYTES_PER_CONTAINER} bytes of "
            "the size limit); no request of this API does.",
        )


MAX_DEPTH = 254  # levels orjson writes (an object holding 253 arrays); no request of the API is a tenth as deep


def too_deep() -> Problem:
    return Problem(
        "too-deeply-nested",
        "too_deeply_nested",
        f"The body nests arrays and objects more than {MAX_DEPTH} levels deep; no request of this API does.",
    )


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
