"""A progress bar for long work (``fuzz``, ``play``, ``recheck``, ``check --jobs/--dask``): on a terminal only.

tqdm draws it on standard error — done, rate, time left — when standard error
is a terminal; anywhere else (a CI log, a pipe, a file) and under ``--quiet``
nothing is drawn, so the output stays byte for byte what it was.
"""

from __future__ import annotations

import sys
from typing import Any


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

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

    return tqdm(total=total, unit=" " + what, file=sys.stderr, leave=False, dynamic_ncols=True)
