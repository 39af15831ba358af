"""Every way to write a Deck (docs/api.md §2, §13), read once: ids, counts, deck lists and deck codes.

- a list of catalog ids (``["AF-001", ...]``, top of the file first);
- an object of counts (``{"AF-001": 1, ...}``);
- a **deck list**: a string, one entry a line (``3 消えた上履き``, ``3x The Missing Indoor Shoes``,
  ``2 AF-040``, ``1 手帳 (AF-020)``); names in either language, read as RULES 3.2.1 says
  (NFKC, trimmed); blank lines and ``#`` comments skipped; a BOM, CRLF and tabs allowed;
- a **deck code**: ``afd1.`` + base64url (no padding) of a payload and a 2-byte check:
  payload = ``0x01``, the first 4 bytes of the catalog's digest, then per card in ascending id
  order the LEB128 varint of its index among the catalog's ids (ascending) and one count byte
  (1–40); check = the first 2 bytes of SHA-256(payload).

:func:`read_deck` is the one reader every entry point uses (NewGame, ``/v1/decks/validate``,
scenario files, ``referee record``, ``referee deck``). Work is bounded by the limits below,
whatever the input: a list is refused (400) before it is read if it is too long.
"""

from __future__ import annotations

import base64
import binascii
import difflib
import hashlib
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.engine.cards import name_key
from referee.engine.catalog import Catalog
from referee.engine.errors import InvalidInput, RefusedInput
from referee.engine.facts import DECK_MAX_ENTRIES, DECK_SIZE

CODE_PREFIX = "afd1."
CODE_VERSION = 1
CODE_MAX_COUNT = DECK_SIZE  # one count byte: 1..40 copies of one card
CODE_MAX_CHARS = 1024  # 100 cards at 4 bytes each fit in 560 characters
LIST_MAX_LINES = 1000  # a 40-card list needs at most 40 lines, plus comments
LIST_MAX_LINE = 256  # characters of one line: a count, a name, an id
LIST_MAX_COUNT = 9999  # copies on one line; more than 40 is a RULES 3.1 matter, this is a reading bound
LIST_MAX_CHARS = LIST_MAX_LINES * (LIST_MAX_LINE + 2)
NEAREST_FOR = 10  # bad lines that get a nearest name (difflib), the ones an answer lists
_ENTRY = re.compile(r"(?:(?P<count>[+-]?\d+)\s*[xX×]?\s+)?(?P<card>.+)")
_PRINTING = re.compile(r"(?P<name>.*?)\s*\((?P<id>[^()]+)\)")


class DeckCodeError(RefusedInput):
    """A deck code that cannot be read: ``bad_deck_code`` (broken, truncated, bad check) or
    ``wrong_catalog`` (made from another catalog)."""

    def __init__(self, code: str, message: str):
        super().__init__(code, {"": [message]}, message)


@dataclass(slots=True)
class DeckRead:
    """A deck read: counts by catalog id, the ids in the order given, and each id's first line (lists)."""

    counts: Counter[str]
    order: list[str] | None = None  # ids in the order given (``None``: from ``counts``)
    lines: dict[str, int] = field(default_factory=dict)

    def in_order(self) -> list[str]:
        if self.order is not None:
            return list(self.order)
        return [cid for cid, n in self.counts.items() for _ in range(n)]


def is_code(deck: Any) -> bool:
    return isinstance(deck, str) and deck.strip().startswith(CODE_PREFIX)


def read_deck(catalog: Catalog | None, deck: Any, path: str = "deck") -> DeckRead:
    """A Deck in any of its forms; :class:`InvalidInput` (400) if it is not one.

    Counts are never expanded unless the deck is a list: ``{"AF-001": 10**12}`` costs nothing and is
    simply a RULES 3.1 violation. A string needs ``catalog`` (names and codes are the catalog's).
    """
    if isinstance(deck, (list, dict)) and len(deck) > DECK_MAX_ENTRIES:
        raise InvalidInput({path: [f"a deck names at most {DECK_MAX_ENTRIES} card ids (a legal deck has 40)"]})
    if isinstance(deck, list) and all(isinstance(c, str) for c in deck):
        return DeckRead(Counter(deck), list(deck))
    if isinstance(deck, dict) and all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0 for k, v in deck.items()
    ):
        return DeckRead(Counter({k: v for k, v in deck.items() if v}))
    if isinstance(deck, str) and len(deck) > LIST_MAX_CHARS:
        raise InvalidInput({path: [f"a deck list or code has at most {LIST_MAX_CHARS} characters"]})
    if isinstance(deck, str) and catalog is not None:
        try:
            if is_code(deck):
                counts = counts_from_code(catalog, deck)
                return DeckRead(Counter(counts), [c for c, n in sorted(counts.items()) for _ in range(n)])
            return read_list(catalog, deck)
        except InvalidInput as exc:
            raise exc.under(path) from None
    raise InvalidInput(
        {path: ["must be a list of card ids, an object of card id → count (integer ≥ 0), a deck list or a deck code"]}
    )


# -- deck lists ---------------------------------------------------------------------------


def read_list(catalog: Catalog, text: str) -> DeckRead:
    """A deck list (docs/api.md §13); :class:`RefusedInput` ``bad_deck_list`` naming every bad line."""
    lines = text.removeprefix("\ufeff").splitlines()  # CRLF, CR and the other Unicode line ends
    if len(lines) > LIST_MAX_LINES:
        raise RefusedInput(
            "bad_deck_list",
            {
                "": [
                    f"a deck list has at most {LIST_MAX_LINES} lines of {LIST_MAX_LINE} characters ({len(lines)} lines)"
                ]
            },
        )
    counts: Counter[str] = Counter()
    order: list[str] = []
    first_line: dict[str, int] = {}
    errors: dict[str, list[str]] = {}
    for number, line in enumerate(lines, start=1):
        entry = line.strip()
        if not entry or entry.startswith("#"):
            continue
        try:
            cid, count = _read_entry(catalog, entry, near=len(errors) < NEAREST_FOR)
        except ValueError as exc:
            errors[f"line.{number}"] = [str(exc)]
            continue
        if cid not in counts and len(counts) >= DECK_MAX_ENTRIES:
            errors[f"line.{number}"] = [f"a deck names at most {DECK_MAX_ENTRIES} different cards"]
            break
        counts[cid] += count
        first_line.setdefault(cid, number)
        if len(order) < LIST_MAX_COUNT:  # the order matters only for a legal (40-card) deck
            order.extend([cid] * min(count, LIST_MAX_COUNT - len(order)))
    if errors:
        raise RefusedInput("bad_deck_list", errors, _summary(errors))
    return DeckRead(counts, order, first_line)


def _summary(errors: dict[str, list[str]]) -> str:
    first = next(iter(errors.items()))
    more = f" (and {len(errors) - 1} more bad line(s))" if len(errors) > 1 else ""
    return f"The deck list does not read: {first[0].replace('.', ' ')}: {first[1][0]}{more}."


def _read_entry(catalog: Catalog, entry: str, near: bool) -> tuple[str, int]:
    if len(entry) > LIST_MAX_LINE:
        raise ValueError(f"a line has at most {LIST_MAX_LINE} characters (this one has {len(entry)})")
    entry = entry.replace("\t", " ")
    m = _ENTRY.fullmatch(entry)
    assert m is not None  # ".+" matches any non-empty entry
    count = 1
    if m["count"] is not None:
        digits = m["count"]
        if digits[0] in "+-" or len(digits) > len(str(LIST_MAX_COUNT)) or not 1 <= int(digits) <= LIST_MAX_COUNT:
            raise ValueError(f"a count is a whole number from 1 to {LIST_MAX_COUNT} (got {digits[:12]})")
        count = int(digits)
    return _card_of(catalog, m["card"].strip(), near), count


def _card_of(catalog: Catalog, written: str, near: bool) -> str:
    """The catalog id a line's card part names: an id, a name (either language), or ``name (id)``."""
    text = name_key(written)
    if text in catalog.cards:
        return text
    printing = _PRINTING.fullmatch(text)
    if printing is not None and name_key(printing["id"]) in catalog.cards:
        cid = name_key(printing["id"])
        if cid not in catalog.ids_by_name.get(name_key(printing["name"]), ()):
            card = catalog.cards[cid]
            raise ValueError(f"{cid} is {card.name!r}, not {printing['name']!r}")
        return cid
    ids = catalog.ids_by_name.get(text)
    if ids is None:
        hint = _nearest(catalog, text) if near else None
        raise ValueError(f"no card named {written!r}" + (f"; did you mean {hint!r}?" if hint else ""))
    if len(ids) > 1:
        raise ValueError(
            f"{written!r} names {len(ids)} printings ({', '.join(ids)}): write one as {written} ({ids[0]})"
        )
    return ids[0]


def _nearest(catalog: Catalog, text: str) -> str | None:
    """The closest card name (either language) or id, by difflib's ratio; ``None`` if none is close."""
    candidates = list(catalog.ids_by_name) + list(catalog.cards)
    found = difflib.get_close_matches(text, candidates, n=1, cutoff=0.6)
    return found[0] if found else None


def deck_list_text(catalog: Catalog, counts: Mapping[str, int]) -> str | None:
    """The canonical deck list of ``counts``: one line per card in ascending id order, ``N name``, with
    `` (id)`` where the name alone would not pick the card; ``None`` if a card is not in the catalog or a
    count is over what a list's line holds (a list that would not read back)."""
    lines = []
    for cid in sorted(counts):
        card = catalog.get(cid)
        if card is None or counts[cid] > LIST_MAX_COUNT:
            return None
        if counts[cid] <= 0:
            continue
        name = card.name
        unique = catalog.ids_by_name.get(name_key(name)) == (cid,) and name_key(name) not in catalog.cards
        lines.append(f"{counts[cid]} {name}" if unique else f"{counts[cid]} {name} ({cid})")
    return "".join(line + "\n" for line in lines)


# -- deck codes ----------------------------------------------------------------------------


def deck_code(catalog: Catalog, counts: Mapping[str, int]) -> str:
    """The deck code of ``counts`` (docs/api.md §13): the same deck always the same code.

    Raises ``ValueError`` for a card not in the catalog or a count outside 1–40 (no code exists).

    >>> cat = Catalog.builtin()
    >>> counts_from_code(cat, deck_code(cat, {"AF-040": 3, "AF-001": 1}))
    {'AF-001': 1, 'AF-040': 3}
    """
    payload = bytearray([CODE_VERSION])
    payload += catalog.digest_bytes[:4]
    for cid in sorted(counts):
        count = counts[cid]
        if count == 0:
            continue
        if cid not in catalog.index_of:
            raise ValueError(f"card {cid} is not in catalog {catalog.id}")
        if not 1 <= count <= CODE_MAX_COUNT:
            raise ValueError(f"a deck code holds 1 to {CODE_MAX_COUNT} copies of a card, not {count}")
        payload += _varint(catalog.index_of[cid])
        payload.append(count)
    check = hashlib.sha256(payload).digest()[:2]
    return CODE_PREFIX + base64.urlsafe_b64encode(bytes(payload) + check).rstrip(b"=").decode("ascii")


def counts_from_code(catalog: Catalog, code: str) -> dict[str, int]:
    """The counts a deck code holds; :class:`DeckCodeError` (``bad_deck_code``, ``wrong_catalog``) if none."""
    text = code.strip()
    if not text.startswith(CODE_PREFIX):
        raise DeckCodeError("bad_deck_code", f"a deck code starts with {CODE_PREFIX!r}")
    if len(text) > CODE_MAX_CHARS:
        raise DeckCodeError("bad_deck_code", f"a deck code has at most {CODE_MAX_CHARS} characters")
    body = text[len(CODE_PREFIX) :]
    if not re.fullmatch(r"[A-Za-z0-9_-]*", body) or len(body) % 4 == 1:
        raise DeckCodeError("bad_deck_code", "a deck code is base64url (A–Z, a–z, 0–9, - and _) after 'afd1.'")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
    except (binascii.Error, ValueError):
        raise DeckCodeError("bad_deck_code", "the deck code is not base64url") from None
    payload, check = raw[:-2], raw[-2:]
    if len(payload) < 5 or hashlib.sha256(payload).digest()[:2] != check:
        raise DeckCodeError("bad_deck_code", "the deck code's check does not match: it was cut or mistyped")
    if payload[0] != CODE_VERSION:
        raise DeckCodeError("bad_deck_code", f"unknown deck code version {payload[0]}")
    if payload[1:5] != catalog.digest_bytes[:4]:
        raise DeckCodeError("wrong_catalog", f"the deck code was made from another catalog than {catalog.id}")
    return _entries(catalog, payload[5:])


def _entries(catalog: Catalog, data: bytes) -> dict[str, int]:
    counts: dict[str, int] = {}
    pos = 0
    last = -1
    while pos < len(data):
        index, pos = _read_varint(data, pos)
        if pos >= len(data):
            raise DeckCodeError("bad_deck_code", "the deck code ends inside an entry")
        count = data[pos]
        pos += 1
        if index <= last or index >= len(catalog.sorted_ids):
            raise DeckCodeError("bad_deck_code", "the deck code names a card out of order or out of the catalog")
        if not 1 <= count <= CODE_MAX_COUNT:
            raise DeckCodeError("bad_deck_code", f"the deck code holds a count of {count} (1 to {CODE_MAX_COUNT})")
        if len(counts) >= DECK_MAX_ENTRIES:
            raise DeckCodeError("bad_deck_code", f"a deck names at most {DECK_MAX_ENTRIES} different cards")
        counts[catalog.sorted_ids[index]] = count
        last = index
    return counts


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


def _read_varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while pos < len(data) and shift <= 28:  # 5 bytes: far beyond any catalog's size
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    raise DeckCodeError("bad_deck_code", "the deck code ends inside a card's index")


# -- canonical forms --------------------------------------------------------------------------


def canonical_forms(catalog: Catalog, counts: Mapping[str, int]) -> dict[str, Any]:
    """``/v1/decks/validate``'s ``deck``: the counts (ascending ids), the list and the code; the list and the
    code are ``null`` where they cannot be written (a card not in the catalog; the code: a count over 40)."""
    clean = {cid: counts[cid] for cid in sorted(counts) if counts[cid] > 0}
    try:
        code: str | None = deck_code(catalog, clean)
    except ValueError:
        code = None
    return {"counts": clean, "list": deck_list_text(catalog, clean), "code": code}
