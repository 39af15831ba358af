"""JSON logs: one line per request (``referee.access``), JSON for everything else too.

A request line looks like::

    {"ts":"2025-01-01T12:00:00.123Z","level":"info","logger":"referee.access",
     "msg":"request","request_id":"3f2a...","method":"POST","path":"/v1/apply",
     "endpoint":"apply","status":422,"duration_ms":0.84,"bytes_in":2811,
     "bytes_out":241,"remote":"127.0.0.1","rule":"8.9","code":"one_fairy_per_case",
     "pid":4242}
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

import orjson

LOG = logging.getLogger("referee")

_STD_ATTRS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """Renders a record as one JSON object; ``extra={...}`` fields become keys."""

    def format(self, record: logging.LogRecord) -> str:
        ts = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        out: dict[str, Any] = {
            "ts": f"{ts}.{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in record.__dict__.items():
            if key not in _STD_ATTRS and not key.startswith("_"):
                out[key] = value
        out["pid"] = record.process
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return orjson.dumps(out, default=str).decode("utf-8")


def access(fields: dict[str, Any]) -> None:
    """Write one request's line to stderr: one ``write`` per line, so lines of several
    workers never interleave (the logging module would cost several times more)."""
    now = time.time()
    second = int(now)
    if second != _SECOND[0]:  # the date and time are formatted once a second, not per line
        _SECOND[0], _SECOND[1] = second, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
    line = {
        "ts": f"{_SECOND[1]}.{int(now * 1000) % 1000:03d}Z",
        "level": "info",
        "logger": "referee.access",
        "msg": "request",
        **fields,
        "pid": _PID[0],
    }
    if _PID[0] != os.getpid():
        line["pid"] = _PID[0] = os.getpid()
    try:
        os.write(2, orjson.dumps(line) + b"\n")
    except OSError:
        pass


_PID = [os.getpid()]
_SECOND: list[Any] = [-1, ""]


def configure(level: str | None = None) -> None:
    """Send the ``referee`` loggers to stderr as JSON lines (idempotent)."""
    root = logging.getLogger("referee")
    if any(getattr(h, "_referee", False) for h in root.handlers):
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    handler._referee = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel((level or os.environ.get("REFEREE_LOG_LEVEL") or "INFO").upper())
    root.propagate = False
