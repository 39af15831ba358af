"""``referee check``: find scenario files, run them, report one line each and a summary."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterable, TextIO

from referee.scenarios.model import parse
from referee.scenarios.runner import Result, run
from referee.scenarios.source import ScenarioError, load_documents

SCENARIO_SUFFIXES = (".yaml", ".yml")


class NothingToCheck(Exception):
    """A path that does not exist, or paths holding no scenario file."""


def discover(paths: Iterable[str | Path]) -> list[Path]:
    """The scenario files under ``paths``: files as given, directories searched for ``*.yaml``/``*.yml``."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix in SCENARIO_SUFFIXES and p.is_file()
                                and not any(part.startswith(".") for part in p.relative_to(path).parts)))
        elif path.is_file():
            found.append(path)
        else:
            raise NothingToCheck(f"{raw}: no such file or directory")
    seen: set[Path] = set()
    unique = []
    for p in found:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def _error_result(err: ScenarioError, label: str | None = None) -> Result:
    return Result(label or err.file, Path(err.file).stem, "error", [str(err)], file=err.file,
                  line=err.line or 1, error=err)


def run_file(path: Path, backend: Any) -> list[Result]:
    """Every scenario of one file; a file that does not parse is one ``error`` result."""
    try:
        docs = load_documents(path)
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


def report_line(r: Result) -> str:
    if r.status == "error":
        return f"ERROR {r.details[0]}"
    rule = f" [{r.rule}]" if r.rule else ""
    word = "ok   " if r.passed else "FAIL "
    return f"{word}{r.label}{rule} {r.name}"


def check(paths: Iterable[str | Path], backend: Any, out: TextIO | None = None, quiet: bool = False,
          on_result: Callable[[Result], None] | None = None) -> tuple[list[Result], float]:
    """Run every scenario under ``paths``, printing as it goes; returns the results and the seconds taken."""
    out = out or sys.stdout
    files = discover(paths)
    if not files:
        raise NothingToCheck("no scenario files (*.yaml, *.yml) under " + " ".join(map(str, paths)))
    start = time.perf_counter()
    results: list[Result] = []
    for path in files:
        for r in run_file(path, backend):
            results.append(r)
            if on_result:
                on_result(r)
            if r.passed and quiet:
                continue
            out.write(report_line(r) + "\n")
            if r.status == "failed":
                for line in r.details:
                    out.write("      " + line + "\n")
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


def exit_code(results: list[Result]) -> int:
    """2 if a scenario was malformed, else 1 if one failed, else 0."""
    if any(r.status == "error" for r in results):
        return 2
    return 0 if all(r.passed for r in results) else 1
