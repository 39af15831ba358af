"""The bulk archive of recorded games: JSON Lines, one game per line, optionally gzip (docs/scenarios.md).

One line (``referee record --jsonl`` writes it; shown here on several)::

    {"id": "seed 7", "catalog": {"id": "af-ref", "digest": "sha256:..."},
     "game": {...NewGame...}, "actions": [{"type": "keep", "player": 0}, ...],
     "outcome": {"refused": null, "result": {"winner": 1, "reason": "deck_out"}}}

- ``game`` (required): the NewGame exactly as sent (docs/api.md §2), seed included.
- ``actions`` (required): the actions in order (docs/api.md §6; card references
  such as ``p0.hand.AF-005`` allowed, as ``referee record`` writes them).
- ``outcome`` (required): what came of them when the game was played —
  ``refused``: ``null`` if every action was legal, else where the referee
  refused (``{"at": 12 or "game", "rule": "8.2", "code": "file_empty"}``);
  ``result``: the state's ``result`` at the end (``null``: not over).
- ``id`` (default ``line N``), ``catalog`` (what it was played with) and
  ``meta`` (anything: players, date...) are for people and are not checked.

A file whose first bytes are gzip's is read as gzip, whatever its name.
Blank lines are skipped. Every problem names the file and the line.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from referee.engine import StateDict, records
from referee.scenarios.model import Scenario, parse
from referee.scenarios.records_io import record_scenario
from referee.scenarios.source import Document, ScenarioError

FIELDS = {"id", "catalog", "game", "actions", "outcome", "meta"}
GZIP_MAGIC = b"\x1f\x8b"


class ArchiveError(Exception):
    """A line (or the whole file) that cannot be used: ``file:line: field: what is wrong``."""

    def __init__(self, file: str, line: int | None, message: str, field: str | None = None):
        self.file, self.line, self.field, self.message = file, line, field, message
        where = file if line is None else f"{file}:{line}"
        super().__init__(f"{where}: {field}: {message}" if field else f"{where}: {message}")

    def __reduce__(self) -> tuple[Any, ...]:  # raised in worker processes, reported by the parent
        return ArchiveError, (self.file, self.line, self.message, self.field)


@dataclass
class ArchivedGame:
    line: int
    id: str
    scenario: Scenario  # the game and its actions, expecting every action legal
    outcome: dict[str, Any]  # as recorded, normalised (:func:`normal_outcome`)


# -- writing ----------------------------------------------------------------------


def line_for(
    game_id: str,
    catalog: Any,
    game: dict[str, Any],
    actions: list[Any],
    state: StateDict | dict[str, Any],
    refused: dict[str, Any] | None = None,
) -> bytes:
    """One archive line (with its newline) for a game played to ``state``."""
    return (
        orjson.dumps(
            {
                "id": game_id,
                "catalog": {"id": catalog.id, "digest": catalog.digest},
                "game": game,
                "actions": actions,
                "outcome": {"refused": refused, "result": state.get("result")},
            }
        )
        + b"\n"
    )


# -- reading ----------------------------------------------------------------------


RECORD_ITEM = b"afr "  # an item of a directory archive: this, the record's file name, a newline, its bytes


def read_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` for every non-blank line; raises :class:`ArchiveError` if the file cannot be read.

    A directory is an archive of game records (``*.afr``, docs/records.md): one item per file, in name order,
    numbered from 1, each :data:`RECORD_ITEM`, its name and its bytes (a worker may not share the files); a
    single record file is an archive of one such item."""
    source = str(path)
    if Path(path).is_dir():
        yield from _records_in(sorted(p for p in Path(path).rglob("*.afr") if p.is_file()))
        return
    if _is_record(Path(path)):  # one game record: an archive of one game
        yield from _records_in([Path(path)])
        return
    number = 0
    try:
        with open(path, "rb") as raw:
            gzipped = raw.read(2) == GZIP_MAGIC
            raw.seek(0)
            stream = gzip.GzipFile(fileobj=raw) if gzipped else raw
            for number, line in enumerate(stream, 1):
                if line.strip():
                    yield number, line
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise ArchiveError(source, number + 1, f"the gzip data is damaged or cut short ({exc})") from None
    except OSError as exc:
        raise ArchiveError(source, None, f"cannot read: {exc.strerror or exc}") from None


def _is_record(path: Path) -> bool:
    """A game record (``.afr``, or a file whose first line is a tag, ``[``), not a JSON Lines archive."""
    if path.suffix.lower() == ".afr":
        return True
    try:
        with open(path, "rb") as raw:
            return raw.read(64).lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"[")
    except OSError:
        return False  # read_lines says why


def _records_in(files: list[Path]) -> Iterator[tuple[int, bytes]]:
    for number, file in enumerate(files, 1):
        try:
            with open(file, "rb") as raw:
                data = raw.read(records.MAX_BYTES + 1)  # a longer one the reader refuses at its line
        except OSError as exc:
            raise ArchiveError(str(file), None, f"cannot read: {exc.strerror or exc}") from None
        yield number, RECORD_ITEM + str(file).encode("utf-8", "surrogateescape") + b"\n" + data


def _record_game(number: int, raw: bytes, catalog: Any) -> ArchivedGame:
    """A directory archive's item: a game record, expected to replay legal to the result it says."""
    name, _, data = raw[len(RECORD_ITEM) :].partition(b"\n")
    file = name.decode("utf-8", "replace")
    try:
        record = records.read(data)
        scenario = record_scenario(record, file, catalog)
    except records.RecordError as exc:
        raise ArchiveError(file, exc.line, exc.message) from None
    except ScenarioError as err:
        raise ArchiveError(file, err.line, err.message) from None
    return ArchivedGame(number, file, scenario, {"refused": None, "result": record.result})


def parse_line(source: str, number: int, raw: bytes, catalog: Any = None) -> ArchivedGame:
    """One archived game, or the :class:`ArchiveError` naming what is wrong with the line (a directory's
    record is read against ``catalog``)."""
    if raw.startswith(RECORD_ITEM):
        return _record_game(number, raw, catalog)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ArchiveError(source, number, f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ArchiveError(source, number, "a line is one JSON object: {id, game, actions, outcome}")
    unknown = sorted(set(data) - FIELDS)
    if unknown:
        raise ArchiveError(source, number, f"unknown field (a line has {', '.join(sorted(FIELDS))})", unknown[0])
    for key in ("game", "actions", "outcome"):
        if key not in data:
            raise ArchiveError(source, number, "required", key)
    game_id = data.get("id", f"line {number}")
    if not isinstance(game_id, str):
        raise ArchiveError(source, number, "must be a string", "id")
    outcome = normal_outcome(data["outcome"], lambda field, msg: ArchiveError(source, number, msg, field))
    return ArchivedGame(number, game_id, _scenario(source, number, data), outcome)


def _scenario(source: str, number: int, data: dict[str, Any]) -> Scenario:
    doc = Document(
        {"given": {"game": data["game"]}, "when": data["actions"], "then": {"legal": True}}, source, 0, {}, number
    )
    try:
        sc = parse(doc)
    except ScenarioError as err:  # its field paths are the scenario's: given.game.x → game.x, when.3 → actions.3
        field = err.field or ""
        field = field.replace("given.game", "game", 1) if field.startswith("given.game") else field
        field = "actions" + field[4:] if field.startswith("when") else field
        raise ArchiveError(source, number, err.message, field or None) from None
    sc.raw_game = True  # sent exactly as recorded: no scenario defaults
    return sc


def normal_outcome(value: Any, error: Any) -> dict[str, Any]:
    """``{"refused": None | {at, rule, code}, "result": None | {winner, reason}}``; ``error(field, message)`` makes
    the exception to raise."""
    if not isinstance(value, dict) or set(value) - {"refused", "result"}:
        raise error(
            "outcome", "must be {refused, result}: refused null or {at, rule, code}, result null or {winner, reason}"
        )
    refused = value.get("refused")
    if refused is not None:
        if (
            not isinstance(refused, dict)
            or set(refused) - {"at", "rule", "code"}
            or not (refused.get("at") == "game" or _index(refused.get("at")))
            or not all(isinstance(refused.get(k), (str, type(None))) for k in ("rule", "code"))
        ):
            raise error("outcome.refused", 'must be null or {at: an action index or "game", rule, code}')
        refused = {"at": refused["at"], "rule": refused.get("rule"), "code": refused.get("code")}
    result = value.get("result")
    if result is not None and not (
        isinstance(result, dict) and result.get("winner") in (0, 1) and isinstance(result.get("reason"), str)
    ):
        raise error("outcome.result", "must be null or {winner: 0 or 1, reason}")
    if result is not None:
        result = {"winner": result["winner"], "reason": result["reason"]}
    return {"refused": refused, "result": result}


def _index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def describe(outcome: dict[str, Any]) -> str:
    """``player 1 wins (deck_out)``, ``not over``, ``action 12 refused: rule 8.2 (file_empty)``."""
    refused = outcome["refused"]
    if refused is not None:
        where = "the game" if refused["at"] == "game" else f"action {refused['at']}"
        why = f"rule {refused['rule']} ({refused['code']})" if refused["rule"] else f"error {refused['code']}"
        return f"{where} refused: {why}"
    result = outcome["result"]
    return f"player {result['winner']} wins ({result['reason']})" if result else "not over"
