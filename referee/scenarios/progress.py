"""A progress bar for long work (``fuzz``, ``play``, ``recheck``, ``check --jobs/--dask``): on a terminal only.

tqdm draws it on standard error — done, rate, time left — when standard error
is a terminal; anywhere else (a CI log, a pipe, a file) and under ``--quiet``
nothing is drawn, so the output stays byte for byte what it was.
"""

from __future__ import annotations

import shutil
import sys
from typing import Any


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def write(self, line: str, out: Any) -> None:
        out.write(line + "\n")

    def close(self) -> None:
        pass

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass


def on_terminal(stream: Any = None) -> bool:
    stream = stream or sys.stderr
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def bar(total: int | None, what: str, quiet: bool = False) -> Any:
    """A bar over ``total`` items of ``what`` (``games``, ``files``); silent off a terminal or when ``quiet``."""
    if quiet or not on_terminal():
        return _Silent()
    from tqdm import tqdm

    # tqdm is generic in its stubs only: subscripted, it would fail at run time.
    class _Bar(tqdm):  # type: ignore[type-arg]
        def write(self, line: str, out: Any) -> None:  # type: ignore[override]
            """A line of the report, printed above the bar (the bar is drawn again below it)."""
            with self.external_write_mode(file=out):
                out.write(line + "\n")
                out.flush()

    size = shutil.get_terminal_size((80, 24))  # a terminal that reports no size (0 x 0) gets 80 x 24
    return _Bar(
        total=total, unit=" " + what, file=sys.stderr, leave=False, ncols=min(size.columns, 120), nrows=size.lines
    )
