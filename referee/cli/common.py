"""What every subcommand of ``referee`` shares: the one-line error, declaring a subcommand, reading a
catalog and writing files.

Errors an operator can fix raise :class:`CommandError`: one line on stderr
(``referee: error: ...``) and exit status 2, never a traceback; a file is
named once (``--catalog cards.yaml:12: card X-1, field kind: ...``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROG = "referee"


class CommandError(Exception):
    """A one-line error for the operator: ``referee: error: MESSAGE``, exit status 2."""


# -- files: what every subcommand shares -------------------------------------------


def load_catalog(path: str | None, option: str = "--catalog ") -> Any:
    """The catalog file at ``path`` (the built-in one when ``None``); a bad one is a
    :class:`CommandError` naming ``option`` (``"--catalog "``, ``"REFEREE_CATALOG="``) and the file once."""
    from referee.engine import Catalog, CatalogError

    try:
        return Catalog.from_path(path) if path else Catalog.builtin()
    except CatalogError as exc:  # its text starts with the file (and line)
        raise CommandError(f"{option}{exc}") from None


def catalog_of(flag: str | None) -> Any:
    """The catalog of ``--catalog``, else of ``REFEREE_CATALOG``, else the built-in one; an error names which."""
    if flag:
        return load_catalog(flag, "--catalog ")
    return load_catalog(os.environ.get("REFEREE_CATALOG") or None, "REFEREE_CATALOG=")


def check_writable(option: str, path: str) -> None:
    """Stop before any work if the file of ``option`` could not be written, with :func:`write_file`'s words."""
    import errno

    target = Path(path)
    folder = target.parent
    problem = (
        errno.EISDIR
        if target.is_dir()
        else errno.ENOENT
        if not folder.is_dir()
        else errno.EACCES
        if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK))
        else None
    )
    if problem is not None:
        raise CommandError(f"{option} {path}: cannot write: {os.strerror(problem)}")


def write_file(option: str, path: str, data: str | bytes) -> None:
    """Write ``data`` to the file of ``option``; a :class:`CommandError` naming both if it cannot."""
    try:
        if isinstance(data, bytes):
            Path(path).write_bytes(data)
        else:
            Path(path).write_text(data, "utf-8")
    except OSError as exc:
        raise CommandError(f"{option} {path}: cannot write: {exc.strerror or exc}") from None


def read_text(path: str) -> str:
    """The file's text; a :class:`CommandError` naming the file if it cannot be read."""
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise CommandError(f"{path}: not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise CommandError(f"{path}: cannot read: {exc.strerror or exc}") from None


# -- declaring a subcommand ---------------------------------------------------------


def subcommand(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    func: Callable[[argparse.Namespace], int],
    summary: str,
    description: str,
    **parser: Any,
) -> argparse.ArgumentParser:
    """The parser of ``referee NAME``, which runs ``func(args)``; the caller adds its own arguments."""
    p = sub.add_parser(name, help=summary, description=description, **parser)
    p.set_defaults(func=func)
    return p


def positive_int(text: str) -> int:
    """An argparse type: an integer of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a positive integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"not a positive integer: {text!r}")
    return value


MAX_JOBS = 256  # as many processes as REFEREE_WORKERS allows: past it a typo, not a machine


def job_count(text: str) -> int:
    """An argparse type: a number of processes, 1 to :data:`MAX_JOBS`."""
    value = positive_int(text)
    if value > MAX_JOBS:
        raise argparse.ArgumentTypeError(f"at most {MAX_JOBS} processes: {text!r}")
    return value


def positive_seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0 and at most a day (a socket's timeout must be)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= 86400:  # NaN fails too
        raise argparse.ArgumentTypeError(f"not a number of seconds above 0 and at most 86400: {text!r}")
    return value


def write_output(option: str, path: str | None, text: str, what: str | None = None) -> int:
    """``text`` to standard output, or to the file of ``option`` (saying ``what`` it wrote there, if given); 0."""
    if not path:
        sys.stdout.write(text)
        return 0
    write_file(option, path, text)
    if what:
        print(f"{PROG}: wrote {path}: {what}", file=sys.stderr)
    return 0
