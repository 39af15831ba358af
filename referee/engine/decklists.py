"""Deck codes (docs/records.md, the formats' deck lists): a deck as ``afd1.<base64url>``, compact and bound to its catalog.

The payload is ``b"\\x01"``, the first 4 bytes of the catalog's SHA-256 digest,
then for each card of the deck in ascending card-id order the unsigned LEB128
varint of its index among the catalog's ids sorted ascending and one byte of
count (1..40); two check bytes (the first of SHA-256 of the payload) follow.
The same deck always gives the same code.

>>> cat = Catalog.builtin()
>>> code = deck_code(cat, {"AF-001": 2, "AF-005": 1})
>>> counts_from_code(cat, code)
{'AF-001': 2, 'AF-005': 1}
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Mapping

from referee.engine.catalog import Catalog

PREFIX = "afd1."
VERSION = b"\x01"
MAX_COUNT = 40
CODE_MAX_CHARS = 1024  # a deck of 100 entries (facts.DECK_MAX_ENTRIES) is ~350 characters


class DeckCodeError(ValueError):
    """A deck code that does not read (``bad_deck_code``) or was made from another catalog (``wrong_catalog``)."""

    def __init__(self, code: str, message: str):
        self.code = code
        self.message = message
        super().__init__(message)


def _catalog_tag(catalog: Catalog) -> bytes:
    return bytes.fromhex(catalog.digest.removeprefix("sha256:"))[:4]


def _check(payload: bytes) -> bytes:
    return hashlib.sha256(payload).digest()[:2]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def deck_code(catalog: Catalog, counts: Mapping[str, int]) -> str:
    """The deck code of ``counts`` (catalog id → count, each 1..40, every id in the catalog)."""
    index = {cid: i for i, cid in enumerate(sorted(catalog.cards))}
    payload = bytearray(VERSION + _catalog_tag(catalog))
    for cid in sorted(counts):
        n = counts[cid]
        if n == 0:
            continue
        if cid not in index:
            raise DeckCodeError("bad_deck_code", f"{cid} is not a card of catalog {catalog.id}")
        if not 1 <= n <= MAX_COUNT:
            raise DeckCodeError("bad_deck_code", f"{cid}: a deck code holds 1 to {MAX_COUNT} copies, not {n}")
        payload += _varint(index[cid]) + bytes((n,))
    data = bytes(payload) + _check(bytes(payload))
    return PREFIX + base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def counts_from_code(catalog: Catalog, code: str) -> dict[str, int]:
    """The deck a code names, as catalog id → count; raises :class:`DeckCodeError`."""
    if not isinstance(code, str) or not code.startswith(PREFIX) or len(code) > CODE_MAX_CHARS:
        raise DeckCodeError(
            "bad_deck_code", f"a deck code starts with {PREFIX} and is at most {CODE_MAX_CHARS} characters"
        )
    body = code[len(PREFIX) :]
    try:
        data = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raise DeckCodeError("bad_deck_code", "the deck code is not base64url") from None
    if base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii") != body or len(data) < 7:
        raise DeckCodeError("bad_deck_code", "the deck code is cut short or not base64url")
    payload, check = data[:-2], data[-2:]
    if _check(payload) != check:
        raise DeckCodeError("bad_deck_code", "the deck code's check bytes do not match: a character was changed")
    if payload[:1] != VERSION:
        raise DeckCodeError("bad_deck_code", "the deck code is of an unknown version")
    if payload[1:5] != _catalog_tag(catalog):
        raise DeckCodeError("wrong_catalog", f"the deck code was made from another catalog than {catalog.id}")
    ids = sorted(catalog.cards)
    counts: dict[str, int] = {}
    pos = 5
    while pos < len(payload):
        n, shift = 0, 0
        while True:
            if pos >= len(payload) or shift > 28:
                raise DeckCodeError("bad_deck_code", "the deck code is cut short")
            byte = payload[pos]
            pos += 1
            n |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                break
        if pos >= len(payload):
            raise DeckCodeError("bad_deck_code", "the deck code is cut short")
        count = payload[pos]
        pos += 1
        if n >= len(ids) or not 1 <= count <= MAX_COUNT:
            raise DeckCodeError("bad_deck_code", "the deck code names a card or a count this catalog has not")
        cid = ids[n]
        if counts and cid <= next(reversed(counts)):
            raise DeckCodeError("bad_deck_code", "the deck code lists its cards out of order")
        counts[cid] = count
    return counts
