"""Formats (RULES 3.6–3.9, docs/api.md §13): which series a game allows and which names it bans or restricts.

A catalog may list formats beside its cards. Each has dated revisions; a
revision holds from its ``from`` date until the next one's, and states its
whole ban and restriction lists (a revision does not inherit the previous
one's). Names are read as RULES 3.2.1 says (NFKC, trimmed), in either of a
card's languages, and kept as the catalog's own (Japanese) name.

Every refusal of a catalog's format is a :class:`CatalogError` naming the
format and the field.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.engine.cards import DECK_LIMIT, SERIES, name_key
from referee.engine.errors import CatalogError, InvalidInput, RefusedInput

ALL_SERIES = "all"
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
FORMAT_FIELDS = frozenset(("id", "name", "series", "revisions", "text"))
REVISION_FIELDS = frozenset(("from", "banned", "restricted"))
MAX_FORMAT_ID = 64  # characters of a format id a client may name (longer: not a format of any catalog)


def is_date(value: Any) -> bool:
    """``YYYY-MM-DD``, a real day (ISO 8601's calendar date)."""
    if not isinstance(value, str) or not _DATE.fullmatch(value):
        return False
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Revision:
    """One dated revision: from ``start`` on, these names are banned (RULES 3.7) or restricted (3.8).

    ``banned`` and ``restricted`` hold :func:`name_key` forms.
    """

    start: str
    banned: frozenset[str] = frozenset()
    restricted: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Format:
    """A format: the series it allows (``None``: every series) and its revisions, oldest first."""

    id: str
    name: str
    series: frozenset[str] | None
    revisions: tuple[Revision, ...]
    raw: dict[str, Any] = field(compare=False, repr=False)

    def allows(self, series: str | None) -> bool:
        """RULES 3.6: a card of ``series`` is legal; a card of no series only where every series is."""
        return self.series is None or (series is not None and series in self.series)

    def in_force(self, day: str | None) -> Revision | None:
        """The revision in force on ``day`` (ISO date; ``None``: the latest), or ``None`` before the first."""
        if day is None:
            return self.revisions[-1]
        found = None
        for rev in self.revisions:
            if rev.start <= day:  # ISO dates sort as text
                found = rev
        return found

    def revision(self, start: str) -> Revision | None:
        return next((r for r in self.revisions if r.start == start), None)


def parse_formats(raw: Any, names: Mapping[str, str]) -> tuple[Format, ...]:
    """The catalog's ``formats`` list; ``names`` maps each name key of a card (either language) to its
    catalog name. A problem is a :class:`CatalogError` naming the format and the field."""
    if not isinstance(raw, list):
        raise CatalogError("'formats' must be a list", field="formats")
    out: list[Format] = []
    seen: set[str] = set()
    for index, entry in enumerate(raw):
        fmt = _FormatReader(entry, index, names).read()
        if fmt.id in seen:
            raise CatalogError(f"format {fmt.id}, field id: a second format with this id").in_format(index, "id")
        seen.add(fmt.id)
        out.append(fmt)
    return tuple(out)


class _FormatReader:
    def __init__(self, raw: Any, index: int, names: Mapping[str, str]):
        self.raw = raw
        self.index = index
        self.names = names
        self.id = f"#{index}"

    def fail(self, path: tuple[str | int, ...], detail: str) -> CatalogError:
        where = ".".join(map(str, path))
        return CatalogError(f"format {self.id}, field {where}: {detail}").in_format(self.index, *path)

    def read(self) -> Format:
        raw = self.raw
        if not isinstance(raw, dict):
            raise CatalogError(f"format {self.id}: a format is a mapping").in_format(self.index)
        fid = raw.get("id")
        if not isinstance(fid, str) or not fid.strip() or len(fid) > MAX_FORMAT_ID:
            raise self.fail(("id",), f"must be a non-empty string of at most {MAX_FORMAT_ID} characters")
        self.id = fid
        unknown = sorted(map(str, set(raw) - FORMAT_FIELDS))
        if unknown:
            raise self.fail((unknown[0],), "unknown field")
        name = raw.get("name", fid)
        if not isinstance(name, str) or not name:
            raise self.fail(("name",), "must be a non-empty string")
        series = self.series(raw.get("series"))
        revisions = self.revisions(raw.get("revisions"))
        canonical: dict[str, Any] = {
            "id": fid,
            "name": name,
            "series": ALL_SERIES if series is None else sorted(series),
            "revisions": [_revision_json(r, self.names) for r in revisions],
        }
        if raw.get("text") is not None:
            if not isinstance(raw["text"], str):
                raise self.fail(("text",), "must be a string")
            canonical["text"] = raw["text"]
        return Format(fid, name, series, revisions, canonical)

    def series(self, raw: Any) -> frozenset[str] | None:
        if raw == ALL_SERIES:
            return None
        if not isinstance(raw, list) or not raw:
            raise self.fail(("series",), f"must be '{ALL_SERIES}' or a non-empty list of series")
        for i, s in enumerate(raw):
            if s not in SERIES:
                raise self.fail(("series", i), f"unknown series {s!r} (known: {', '.join(SERIES)})")
        return frozenset(raw)

    def revisions(self, raw: Any) -> tuple[Revision, ...]:
        if not isinstance(raw, list) or not raw:
            raise self.fail(("revisions",), "must be a non-empty list of revisions")
        out: list[Revision] = []
        for i, rev in enumerate(raw):
            if not isinstance(rev, dict):
                raise self.fail(("revisions", i), "a revision is a mapping with 'from'")
            unknown = sorted(map(str, set(rev) - REVISION_FIELDS))
            if unknown:
                raise self.fail(("revisions", i, unknown[0]), "unknown field")
            start = rev.get("from")
            if isinstance(start, datetime.date):  # a YAML date read by a loader other than the referee's
                start = start.isoformat()
            if not isinstance(start, str) or not is_date(start):
                raise self.fail(("revisions", i, "from"), "must be a date YYYY-MM-DD")
            if out and start <= out[-1].start:
                raise self.fail(("revisions", i, "from"), f"must be later than the revision before ({out[-1].start})")
            out.append(
                Revision(start, self.banned(rev.get("banned", []), i), self.restricted(rev.get("restricted"), i))
            )
        return tuple(out)

    def card_name(self, value: Any, path: tuple[str | int, ...]) -> str:
        key = name_key(value) if isinstance(value, str) else None
        if key is None or key not in self.names:
            raise self.fail(path, f"no card of the catalog is named {value!r}")
        return name_key(self.names[key])

    def banned(self, raw: Any, i: int) -> frozenset[str]:
        if not isinstance(raw, list):
            raise self.fail(("revisions", i, "banned"), "must be a list of card names")
        return frozenset(self.card_name(v, ("revisions", i, "banned", j)) for j, v in enumerate(raw))

    def restricted(self, raw: Any, i: int) -> dict[str, int]:
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            raise self.fail(("revisions", i, "restricted"), "must be a mapping of card name to a count")
        out: dict[str, int] = {}
        for name, limit in raw.items():
            where = ("revisions", i, "restricted", name)
            key = self.card_name(name, where)
            if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit < DECK_LIMIT:
                raise self.fail(where, f"must be an integer from 1 to {DECK_LIMIT - 1} (ban a name with 'banned')")
            out[key] = limit
        return out


def _revision_json(rev: Revision, names: Mapping[str, str]) -> dict[str, Any]:
    """A revision as the API shows it (and the digest hashes it): names as the catalog writes them, sorted."""
    out: dict[str, Any] = {"from": rev.start}
    out["banned"] = sorted(names[k] for k in rev.banned)
    out["restricted"] = {names[k]: n for k, n in sorted(rev.restricted.items(), key=lambda kv: names[kv[0]])}
    return out


def format_request(raw: Any, path: str = "format") -> tuple[str, str | None]:
    """A NewGame's or a deck check's ``format``: an id (the latest revision) or ``{"id", "date"}``.

    The shape is a schema matter (400 ``invalid_schema``); whether the catalog has it is
    :func:`resolve`'s.
    """
    if isinstance(raw, str) and raw:
        return raw, None
    if isinstance(raw, dict) and set(raw) <= {"id", "date"} and isinstance(raw.get("id"), str) and raw["id"]:
        day = raw.get("date")
        if day is None:
            return raw["id"], None
        if is_date(day):
            return raw["id"], day
        raise InvalidInput({f"{path}.date": ["must be a date YYYY-MM-DD"]})
    raise InvalidInput({path: ['must be a format id or an object {"id": id, "date": "YYYY-MM-DD"}']})


def resolve(formats: Mapping[str, Format], raw: Any, path: str = "format") -> tuple[Format, Revision]:
    """The format and revision ``raw`` names (docs/api.md §13): 400 ``unknown_format`` or
    ``format_not_in_force`` when the catalog has none."""
    fid, day = format_request(raw, path)
    fmt = formats.get(fid)
    if fmt is None:
        known = ", ".join(formats) or "none"
        shown = fid if len(fid) <= MAX_FORMAT_ID else fid[:MAX_FORMAT_ID] + "…"
        raise RefusedInput("unknown_format", {path: [f"the catalog has no format {shown!r} (it has: {known})"]})
    rev = fmt.in_force(day)
    if rev is None:
        raise RefusedInput(
            "format_not_in_force",
            {path: [f"format {fid} has no revision in force on {day}; its first is from {fmt.revisions[0].start}"]},
        )
    return fmt, rev
