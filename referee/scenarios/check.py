"""``referee check``: find scenario files, run them, report one line each and a summary.

The files run here, or spread over processes or a Dask cluster by a
:class:`~referee.scenarios.parallel.Pool`: the parent reads each file and
prints the results in file order, so the output is the same either way.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TextIO

from referee.scenarios.backends import Backend
from referee.scenarios.expand import hint
from referee.scenarios.model import parse
from referee.scenarios.parallel import BackendSpec, Pool, open_pool
from referee.scenarios.progress import bar
from referee.scenarios.records_io import (
    RECORD_SUFFIX,
    read_record_bytes,
    read_record_file,
    read_record_text,
    record_scenario,
)
from referee.scenarios.runner import Result, run
from referee.scenarios.source import ScenarioError, load_documents, read_text

SCENARIO_SUFFIXES = (".yaml", ".yml", ".afr")  # .afr: a game record (docs/records.md), checked as a scenario


class NothingToCheck(Exception):
    """A path that does not exist, or paths holding no scenario file."""


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """The scenario files under ``paths``: files as given, directories searched for ``*.yaml``/``*.yml``."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.suffix in SCENARIO_SUFFIXES
                    and p.is_file()
                    and not any(part.startswith(".") for part in p.relative_to(path).parts)
                )
            )
        elif path.is_file():
            found.append(path)
        else:
            raise NothingToCheck(f"{raw}: cannot read: No such file or directory")  # the words of every reader
    seen: set[Path] = set()
    unique = []
    for p in found:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def _error_result(err: ScenarioError, label: str | None = None) -> Result:
    return Result(
        label or err.file, Path(err.file).stem, "error", [str(err)], file=err.file, line=err.line or 1, error=err
    )


def run_file(path: Path | str, backend: Backend, text: str | None = None) -> list[Result]:
    """Every scenario of one file (``text``: its contents, if already read); a file that does not parse
    is one ``error`` result."""
    if str(path).endswith(RECORD_SUFFIX):
        return [_record_result(path, backend, text)]
    try:
        docs = load_documents(path, text)
    except ScenarioError as err:
        return [_error_result(err)]
    if not docs:
        return [_error_result(ScenarioError(str(path), None, None, "the file holds no scenario"))]
    out = []
    for doc in docs:
        try:
            sc = parse(doc)
        except ScenarioError as err:
            label = doc.file if doc.index == 0 else f"{doc.file}#{doc.index + 1}"
            out.append(_error_result(err, label))
            continue
        out.append(run(sc, backend))
    return out


def _record_result(path: Path | str, backend: Backend, text: str | None) -> Result:
    """A game record run as a scenario: every move legal, the result its ``Result`` tag says."""
    try:
        record = read_record_file(path) if text is None else read_record_text(path, text)
        return run(record_scenario(record, path, backend.catalog), backend)
    except ScenarioError as err:
        return _error_result(err)


FileWork = tuple[str, "str | ScenarioError"]  # a file's name and its text, or why it could not be read


def run_files(spec: BackendSpec, work: list[FileWork]) -> list[list[Result]]:
    """A worker's task: the results of a few files, read by the parent (a Dask worker may not see them)."""
    backend = spec.backend()
    return [
        [_error_result(text)] if isinstance(text, ScenarioError) else run_file(name, backend, text)
        for name, text in work
    ]


def _read(path: Path) -> FileWork:
    try:
        if path.suffix == RECORD_SUFFIX:  # bounded, and bytes that are not UTF-8 left for the reader to name
            return str(path), read_record_bytes(path).decode("utf-8", "surrogateescape")
        return str(path), read_text(path)
    except ScenarioError as err:
        return str(path), err


def _batches(files: list[Path], workers: int) -> Iterator[list[FileWork]]:
    """Files in batches small enough to spread evenly and large enough to cost little per task."""
    size = max(1, min(16, len(files) // (workers * 8)))
    for i in range(0, len(files), size):
        yield [_read(path) for path in files[i : i + size]]


def _results(files: list[Path], backend: Backend, pool: Pool) -> Iterator[Result]:
    if pool.executor is None:
        for path in files:
            yield from run_file(path, backend)
        return
    for batch in pool.map(run_files, _batches(files, pool.workers), BackendSpec.of(backend)):
        for results in batch:
            yield from results


def report_line(r: Result) -> str:
    if r.status == "error":
        return f"ERROR {r.details[0]}"
    rule = f" [{r.rule}]" if r.rule else ""
    word = "ok   " if r.passed else "FAIL "
    return f"{word}{r.label}{rule} {r.name}"


def check(
    paths: Iterable[str | Path],
    backend: Backend,
    out: TextIO | None = None,
    quiet: bool = False,
    on_result: Callable[[Result], None] | None = None,
    jobs: int | None = 1,
    dask: str | None = None,
) -> tuple[list[Result], float]:
    """Run every scenario under ``paths``, printing as it goes; returns the results and the seconds taken.

    ``jobs`` processes (``None``: one per core) or the Dask scheduler at ``dask`` share the files,
    each with a backend like ``backend`` (:meth:`BackendSpec.of`); the output is the same.
    Raises :class:`NothingToCheck` and :class:`~referee.scenarios.parallel.PoolError`."""
    out = out or sys.stdout
    files = discover(paths)
    if not files:
        raise NothingToCheck(
            "no scenario files (*.yaml, *.yml) or game records (*.afr) under " + " ".join(map(str, paths))
        )
    start = time.perf_counter()
    table = getattr(backend, "table_url", None)  # the page of the referee at --url; in-process, none
    results: list[Result] = []
    # a bar for the parallel path (--jobs N, --dask) on a terminal; silent under --quiet and in CI logs
    with (
        open_pool(jobs, dask, items=len(files)) as pool,
        bar(len(files), "files", quiet or pool.executor is None) as progress,
    ):
        done = None
        for r in _results(files, backend, pool):
            if r.file != done:
                done = r.file
                progress.update(1)
            results.append(r)
            if on_result:
                on_result(r)
            if not (r.passed and quiet):
                _report(out, r, table)
    seconds = time.perf_counter() - start
    out.write(summary_line(results) + "\n")
    out.flush()
    return results, seconds


def summary_line(results: list[Result]) -> str:
    """``N passed, M failed``, then ``, K malformed`` when a file or document could not be run.

    The three counts are disjoint and add up to the results, and they say what
    :func:`exit_code` says: a malformed scenario was not run, so it is neither
    passed nor failed. CI tools that read ``(\\d+) passed, (\\d+) failed`` keep working.
    """
    passed = sum(r.status == "passed" for r in results)
    failed = sum(r.status == "failed" for r in results)
    malformed = sum(r.status == "error" for r in results)
    line = f"{passed} passed, {failed} failed"
    return f"{line}, {malformed} malformed" if malformed else line


def _report(out: TextIO, r: Result, table: str | None = None) -> None:
    out.write(report_line(r) + "\n")
    if r.status == "failed":
        for line in r.details:
            out.write("      " + line + "\n")
        out.write("      " + hint(r.label, table) + "\n")


def exit_code(results: list[Result]) -> int:
    """2 if a scenario was malformed, else 1 if one failed, else 0."""
    if any(r.status == "error" for r in results):
        return 2
    return 0 if all(r.passed for r in results) else 1
