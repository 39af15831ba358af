"""Game records (docs/records.md) where the scenario tooling meets them: a file read a bounded line at a time,
and a record as the scenario ``referee check``, ``replay`` and ``recheck`` run (every move legal, the result its
``Result`` tag says). The reading itself is the engine's one reader, ``referee.engine.records``."""

from __future__ import annotations

import re
from pathlib import Path

from referee.engine import Catalog, records
from referee.scenarios.model import Scenario, parse
from referee.scenarios.source import Document, ScenarioError

RECORD_SUFFIX = ".afr"


def is_record(path: str | Path) -> bool:
    """A game record: named ``*.afr``, or a file that starts (after a BOM, which the reader refuses) with a tag."""
    if str(path).endswith(RECORD_SUFFIX):
        return True
    try:
        with open(path, "rb") as raw:
            head = raw.read(8)
    except OSError:
        return False
    return re.match(rb"\[[A-Za-z]", head.removeprefix(b"\xef\xbb\xbf")) is not None  # a tag, not a JSON list


def read_record_file(path: str | Path) -> records.Record:
    """The record in ``path``, read a bounded line at a time (a 50 MB line is refused after 16 KiB);
    a :class:`ScenarioError` naming the file and the line."""
    try:
        with open(path, "rb") as raw:
            return records.read_lines(iter(lambda: raw.readline(records.MAX_LINE + 1), b""))
    except records.RecordError as exc:
        raise ScenarioError(str(path), exc.line, None, exc.message) from None
    except OSError as exc:
        raise ScenarioError(str(path), None, None, f"cannot read: {exc.strerror or exc}") from None


def read_record_bytes(path: str | Path) -> bytes:
    """A record file's bytes, refused (a :class:`ScenarioError`) when larger than a record may be."""
    try:
        with open(path, "rb") as raw:
            data = raw.read(records.MAX_BYTES + 1)
    except OSError as exc:
        raise ScenarioError(str(path), None, None, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > records.MAX_BYTES:
        raise ScenarioError(str(path), None, None, f"larger than a record may be ({records.MAX_BYTES} bytes)")
    return data


def read_record_text(path: str | Path, text: str) -> records.Record:
    """The record ``text`` read from ``path``; a :class:`ScenarioError` naming the file and the line."""
    try:
        return records.read(text.encode("utf-8", "surrogateescape"))
    except records.RecordError as exc:
        raise ScenarioError(str(path), exc.line, None, exc.message) from None


def record_scenario(record: records.Record, file: str | Path, catalog: Catalog) -> Scenario:
    """A record as a scenario: its NewGame, its actions (each at its line), every action legal, the result its
    ``Result`` tag says."""
    try:
        game = record.new_game(catalog)
    except records.RecordError as exc:
        raise ScenarioError(str(file), exc.line, None, exc.message) from None
    lines: dict[tuple[str | int, ...], int] = {("when", i): m.line for i, m in enumerate(record.moves)}
    lines[("given",)] = 1
    data = {"given": {"game": game}, "when": record.actions, "then": {"legal": True, "result": record.result}}
    sc = parse(Document(data, str(file), 0, lines, 1))
    sc.raw_game = True  # the NewGame exactly as the record names it
    return sc
