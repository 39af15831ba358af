"""The ledger of private games (docs/api.md §11, docs/ledger.md): its face.

The interface, the outcomes and the group commit are :mod:`.base`'s; the stores
are :class:`~referee.private.ledger.sqlite.SqliteLedger` and
:class:`~referee.private.ledger.redis.RedisLedger`, and :func:`open_ledger`
makes the one a ``REFEREE_LEDGER`` URL names.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from referee.private.ledger.base import (
    APPLIED,
    REPEATED,
    SKEWED,
    SQLITE_QUERIES,
    STALE,
    GroupCommit,
    Ledger,
    LedgerOutcomeUnknown,
    LedgerUnavailable,
    LedgerURLError,
    OnBatch,
    Outcome,
    check_url,
    request_arrived,
    unobserved,
)
from referee.private.ledger.redis import RedisLedger
from referee.private.ledger.sqlite import SqliteLedger

__all__ = [
    "APPLIED",
    "REPEATED",
    "SKEWED",
    "STALE",
    "GroupCommit",
    "Ledger",
    "LedgerOutcomeUnknown",
    "LedgerURLError",
    "LedgerUnavailable",
    "Outcome",
    "RedisLedger",
    "SqliteLedger",
    "check_url",
    "open_ledger",
    "request_arrived",
]


def open_ledger(url: str, ttl: float, timeout: float, on_batch: OnBatch = unobserved) -> Ledger:
    """The store ``url`` names (checked with :func:`check_url`), not yet connected; ``on_batch`` is told of
    each of its writes."""
    if check_url(url) == "sqlite":
        parts = urlsplit(url)
        return SqliteLedger(parts.path, ttl, timeout, SQLITE_QUERIES[parts.query], on_batch)
    return RedisLedger(url, ttl, timeout, on_batch)
