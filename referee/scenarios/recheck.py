"""``referee recheck``: re-apply every game of an archive and report those that come out differently.

Each game is played again from its NewGame, action by action, on the backend
(a catalog in-process, or a service): if an action is now refused where it was
not (or the other way round, or at another action or rule) its **legality**
changed; if every action still goes the same way but the game ends with
another ``result``, its **outcome** changed. Either way it is reported with the
recorded and the new outcome. The games run in batches on a
:class:`~referee.scenarios.parallel.Pool`; the report is in archive order.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

import orjson

from referee.scenarios.archive import ArchiveError, describe, parse_line, read_lines
from referee.scenarios.backends import Backend, InProcess, Refusal
from referee.scenarios.parallel import BackendSpec, open_pool
from referee.scenarios.runner import Execution, execute

BATCH = 16  # games per task: ~0.1-0.3 s of work, so a task costs little and the workers finish together


@dataclass
class Verdict:
    """One game: ``status`` is ``unchanged``, ``outcome``, ``legality`` or ``malformed``."""

    line: int
    id: str
    status: str
    recorded: dict[str, Any] | None = None
    now: dict[str, Any] | None = None
    error: str | None = None  # for malformed lines: file:line: field: what is wrong


@dataclass
class Summary:
    games: int = 0
    unchanged: int = 0
    outcome: int = 0
    legality: int = 0
    malformed: int = 0
    changes: list[Verdict] = field(default_factory=list)
    problems: list[Verdict] = field(default_factory=list)

    def add(self, v: Verdict) -> None:
        self.games += 1
        setattr(self, v.status, getattr(self, v.status) + 1)
        if v.status in ("outcome", "legality"):
            self.changes.append(v)
        elif v.status == "malformed":
            self.problems.append(v)

    def line(self) -> str:
        return (
            f"{self.games} game(s) re-checked: {self.unchanged} unchanged, {self.outcome} outcome changed, "
            f"{self.legality} legality changed, {self.malformed} malformed"
        )

    def exit_code(self) -> int:
        """2 if a line was malformed, else 1 if a game changed, else 0."""
        return 2 if self.malformed else 1 if self.changes else 0


def outcome_of(ex: Execution) -> dict[str, Any]:
    """What came of a game played again, in the archive's form."""
    refused = None
    if ex.ref_error is not None:  # a reference that names no card now: the action cannot be made
        refused = {"at": ex.at, "rule": None, "code": "reference_names_no_card"}
    elif ex.refusal is not None:
        refused = {"at": "game" if ex.at == "given" else ex.at, "rule": ex.refusal.rule, "code": ex.refusal.code}
    reached = ex.state["result"] if refused is None and ex.state is not None else None
    result = None if reached is None else {"winner": reached["winner"], "reason": reached["reason"]}
    return {"refused": refused, "result": result}


def recheck_line(backend: Backend, source: str, number: int, raw: bytes) -> Verdict:
    try:
        game = parse_line(source, number, raw, backend.catalog)
    except ArchiveError as err:
        return Verdict(number, f"line {number}", "malformed", error=str(err))
    try:
        ex = _played(game.scenario, backend)
    except Exception as exc:
        if type(exc).__module__.startswith(("referee.client", "httpx")):
            raise
        tb = traceback.extract_tb(exc.__traceback__)[-1]
        return Verdict(
            number,
            game.id,
            "malformed",
            game.outcome,
            error=(
                f"{source}:{number}: the referee crashed: {type(exc).__name__}: {exc} "
                f"({tb.filename.rsplit('/', 1)[-1]}:{tb.lineno}) — this is a bug in the referee"
            ),
        )
    if ex.refusal is not None and ex.refusal.code == "invalid_schema":  # not of the API's shape, whatever the catalog
        return Verdict(number, game.id, "malformed", game.outcome, error=_shape_error(source, number, ex))
    now = outcome_of(ex)
    if now["refused"] != game.outcome["refused"]:
        status = "legality"
    elif now["result"] != game.outcome["result"]:
        status = "outcome"
    else:
        status = "unchanged"
    return Verdict(number, game.id, status, game.outcome, now)


def _played(scenario: Any, backend: Backend) -> Execution:
    """The game played again. In-process, on the engine's own states without checking each one
    (``InProcess.trusting``, as ``/v1/replay`` plays; 1.6× the games a second), then the state it
    ended or stopped on is checked (RULES 13.1); should that fail, the game is played again checking
    the state before each action, so the verdict names the action where it first went wrong."""
    if not isinstance(backend, InProcess):
        return execute(scenario, backend)
    ex = execute(scenario, backend.trusting())
    if ex.state is not None:  # where it ended, or stopped (a refused action changes nothing)
        try:
            backend.refuse_inconsistent(ex.state)
        except Refusal:
            return execute(scenario, backend)
    return ex


def _shape_error(source: str, number: int, ex: Execution) -> str:
    """``file:line: actions.3.type: unknown action type 'dance'``: the engine's field, in the line's terms."""
    assert ex.refusal is not None
    field, messages = next(iter(sorted(ex.refusal.errors.items())), ("", [ex.refusal.detail]))
    if ex.at == "given":
        field = f"game.{field}" if field else "game"
    else:
        field = f"actions.{ex.at}" + (field[len("action") :] if field.startswith("action") else f".{field}")
    return f"{source}:{number}: {field}: {'; '.join(messages)}"


def recheck_batch(spec: BackendSpec, source: str, batch: list[tuple[int, bytes]]) -> list[Verdict]:
    """A worker's task: the verdicts of a few lines."""
    backend = spec.backend()
    return [recheck_line(backend, source, number, raw) for number, raw in batch]


def _batches(lines: Iterator[tuple[int, bytes]]) -> Iterator[list[tuple[int, bytes]]]:
    batch: list[tuple[int, bytes]] = []
    for item in lines:
        batch.append(item)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def report_line(source: str, v: Verdict) -> str:
    if v.status == "malformed":
        return f"ERROR {v.error}"
    assert v.recorded is not None and v.now is not None
    return f"CHANGED {source}:{v.line} {v.id}: {v.status}: was {describe(v.recorded)}, now {describe(v.now)}"


def recheck(
    archive: str | Path,
    backend: Backend,
    out: TextIO | None = None,
    jobs: int | None = 1,
    dask: str | None = None,
    quiet: bool = False,
) -> Summary:
    """Re-check every game of ``archive``, printing each changed or malformed one and the summary last.

    Raises :class:`ArchiveError` (the file cannot be read) and
    :class:`~referee.scenarios.parallel.PoolError`."""
    out = out or sys.stdout
    source = str(archive)
    summary = Summary()
    from referee.scenarios.progress import bar, on_terminal

    total = sum(1 for _ in read_lines(archive)) if on_terminal() and not quiet else None  # for the time left
    with open_pool(jobs, dask) as pool, bar(total, "games", quiet) as progress:
        for batch in pool.map(recheck_batch, _batches(read_lines(archive)), BackendSpec.of(backend), source):
            progress.update(len(batch))
            for v in batch:
                summary.add(v)
                if v.status != "unchanged":
                    progress.write(report_line(source, v), out)
    if not summary.games:
        raise ArchiveError(source, None, "holds no game (one JSON object per line, or *.afr game records)")
    out.write(summary.line() + "\n")
    out.flush()
    return summary


def report_json(archive: str, backend: Backend, summary: Summary) -> bytes:
    """The machine-readable report (``--report FILE``)."""
    catalog = backend.catalog
    changes = [{k: v for k, v in asdict(c).items() if k != "error"} for c in summary.changes]
    return (
        orjson.dumps(
            {
                "archive": archive,
                "catalog": {"id": catalog.id, "digest": catalog.digest},
                "referee": getattr(backend, "label", "in-process"),
                "summary": {
                    "games": summary.games,
                    "unchanged": summary.unchanged,
                    "outcome_changed": summary.outcome,
                    "legality_changed": summary.legality,
                    "malformed": summary.malformed,
                },
                "changes": changes,
                "malformed": [{"line": p.line, "error": p.error} for p in summary.problems],
            },
            option=orjson.OPT_INDENT_2,
        )
        + b"\n"
    )
