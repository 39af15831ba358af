"""The costliest request bodies we know how to build, each with an ordinary body of the same size and shape.

Shared by tests/test_hostile_bodies.py (which bounds the memory and steps each
costs) and benchmarks/hostile.py (which measures them against real gunicorn).
Every builder takes the body's size in bytes and returns ``(hostile, ordinary)``:
the ordinary one is the same text without what makes the other hostile (the
escaped colon, the repeated key), so the two differ in cost only by that.
"""

from __future__ import annotations

from collections.abc import Callable

Builder = Callable[[int], tuple[bytes, bytes]]


def _fill(head: bytes, unit: bytes, tail: bytes, size: int) -> bytes:
    """``head`` + as many ``unit`` as fit in ``size`` bytes + ``tail``."""
    return head + unit * max(0, (size - len(head) - len(tail)) // len(unit)) + tail


def issue_escape(size: int) -> tuple[bytes, bytes]:
    """The reported one: 100 objects deep, each key 1,000 bytes, around an array of
    zeros, and one escaped colon (``\\u003a``) elsewhere in the body."""
    key = b'"' + b"k" * 1000 + b'":'
    head = b'{"state":' + (b"{" + key) * 100 + b"["
    tail = b"0]" + b"}" * 100 + b',"x":"\\u003a"}'
    plain = tail.replace(b"\\u003a", b"abcdef")
    return _fill(head, b"0,", tail, size), _fill(head, b"0,", plain, size)


# The most arrays and objects a body may hold is one per 16 bytes of the size limit (reading.py's
# BYTES_PER_CONTAINER): the bodies below hold as many as that allows, one per 17 bytes.
EMPTY_OBJECT = b'{"kkkkkkkkkk":0},'  # 17 bytes, one object


def deep_repeat(size: int) -> tuple[bytes, bytes]:
    """250 objects deep (the most the referee reads), keys as long as fit, an array of
    as many small objects as the referee reads at the bottom, and one repeated key at its
    very end: the path found is as long as it can be, after every object before it was read."""
    depth = 250
    key_len = max(1, min(1000, size // (8 * depth)))
    key = b'"' + b"k" * key_len + b'":'
    head = b'{"state":' + (b"{" + key) * depth + b"["
    tail = b'{"a":0,"a":1}]' + b"}" * depth + b"}"
    plain = tail.replace(b'"a":1', b'"b":1')
    return _fill(head, EMPTY_OBJECT, tail, size), _fill(head, EMPTY_OBJECT, plain, size)


def many_escapes(size: int) -> tuple[bytes, bytes]:
    """Escaped colons and runs of backslashes everywhere (the count of escapes is exact,
    and a backslash run is looked at once), with a repeated key at the end."""
    head = b'{"state":['
    unit = b'"\\\\\\u003a\\\\u003a",'
    tail = b'{"a:":0,"a\\u003a":1}]}'
    plain = tail.replace(b"\\u003a", b"b:")
    return _fill(head, unit, tail, size), _fill(head, unit, plain, size)


def nested_arrays(size: int) -> tuple[bytes, bytes]:
    """Arrays 120 deep over and over (with a string beside each, to stay within the count of
    arrays the referee reads), a repeated key in the last: each array is searched for the
    marked object once, by the object around it."""
    unit = b"[" * 120 + b"{}" + b"]" * 120 + b',"' + b"p" * (17 * 121 - 246) + b'",'
    head = b'{"actions":['
    tail = b"[" * 120 + b'{"a":0,"a":1}' + b"]" * 120 + b"]}"
    plain = tail.replace(b'"a":1', b'"b":1')
    return _fill(head, unit, tail, size), _fill(head, unit, plain, size)


def wide_repeats(size: int) -> tuple[bytes, bytes]:
    """Objects of many keys each, every one repeating its first key at its end."""
    keys = b",".join(b'"k%d":0' % i for i in range(50))
    head = b'{"deck":['
    unit = b"{" + keys + b',"k0":1},'
    tail = b"{}]}"
    plain_unit = b"{" + keys + b',"k50":1},'
    return _fill(head, unit, tail, size), _fill(head, plain_unit, tail, size)


BUILDERS: dict[str, Builder] = {
    "issue_escape": issue_escape,
    "deep_repeat": deep_repeat,
    "many_escapes": many_escapes,
    "nested_arrays": nested_arrays,
    "wide_repeats": wide_repeats,
}

# Every endpoint that reads a body: the check runs before anything else reads it.
BODY_PATHS = (
    "/v1/games",
    "/v1/apply",
    "/v1/validate",
    "/v1/legal-actions",
    "/v1/replay",
    "/v1/view",
    "/v1/reveal",
    "/v1/latest",
    "/v1/decks/validate",
    "/v1/records",
    "/v1/records/read",
    "/v1/suggest",
    "/v1/matches/next",
    "/v1/events/pair",
    "/v1/events/standings",
    "/v1/events/check",
)
