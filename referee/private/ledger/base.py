"""The ledger of private games (docs/api.md §11, docs/ledger.md): one line of play per game.

A stateless referee cannot tell a game's latest token from an older copy; the
ledger can. Per game id it keeps the latest ``seq`` and, for each seq, the
digest of the action that produced it and the token it produced — nothing
readable (no plain state, no seat, no key: tokens are encrypted).

This module holds what both stores share: the one small interface,
:class:`Ledger`, the outcomes of a move, the checking of a ``REFEREE_LEDGER``
URL, and :class:`GroupCommit`, which writes the calls that queued while the
previous write was under way as one. The stores are apart:
:mod:`~referee.private.ledger.sqlite` and :mod:`~referee.private.ledger.redis`.

Every failure of the store (refused connection, timeout, a read-only or full
disk, a Redis that cannot persist) is :class:`LedgerUnavailable`: the service
answers 503 and applies nothing; nothing is ever accepted unrecorded. One
failure is not that: a move sent to Redis whose answer never came (a timeout,
a connection lost after sending) may yet be run by Redis, so it is
:class:`LedgerOutcomeUnknown` (503 ``ledger_outcome_unknown``): the client
sends the same move again, which the ledger answers with what it recorded.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from urllib.parse import SplitResult, urlsplit

# Told of each write of a group commit: how many calls it carried and how long the store took (in
# seconds). The service counts them (its metrics); the ledger knows no metrics.
OnBatch = Callable[[int, float], None]


def unobserved(size: int, seconds: float) -> None:
    """No one is told of a batch."""


APPLIED: Literal["applied"] = "applied"
REPEATED: Literal["repeated"] = "repeated"
STALE: Literal["stale"] = "stale"
SKEWED: Literal["skewed"] = "skewed"


def wall_ms() -> int:
    """This machine's clock, in milliseconds since 1970."""
    return time.time_ns() // 1_000_000


# Milliseconds a ledger's clock runs ahead of its source (the machine's, Redis's TIME): 0. A test moves a
# ledger's ``ahead_ms`` forward to let a player's time run out without sleeping.
AHEAD = 0


class LedgerUnavailable(Exception):
    """The store cannot be reached or written now (HTTP 503 ``ledger_unavailable``)."""


class LedgerOutcomeUnknown(LedgerUnavailable):
    """A move was sent to the store and no answer came: it may have been recorded, or not yet, or never
    (HTTP 503 ``ledger_outcome_unknown``). Sending the same move again on the same token is safe: the
    ledger records it once, and answers a repeat with the recorded answer (docs/ledger.md)."""


class LedgerURLError(ValueError):
    """A ``REFEREE_LEDGER`` value that names no store this referee can use."""


@dataclass(frozen=True)
class Outcome:
    """What :meth:`Ledger.record` did.

    ``kind``: ``applied`` (recorded as ``seq + 1``), ``repeated`` (that very
    action was recorded at ``seq + 1`` already: ``token`` is the recorded
    answer), ``stale`` (refused; ``latest`` is the game's latest seq) or
    ``skewed`` (refused: the move's time was too far from the ledger's clock,
    ``latest`` is the ledger's time, docs/api.md §15).
    """

    kind: str
    latest: int
    token: str | None = None


class Ledger(Protocol):
    """The one interface both stores give the service."""

    def start(self, game_id: str, token: str, only_new: bool = False) -> bool:
        """Record a new game at seq 0; with ``only_new``, only if the ledger does not hold the game already
        (a match's next game, whose id is the game before's: dealt once). Whether it was recorded."""

    def record(self, game_id: str, seq: int, digest: str, token: str, sent: str, at: int | None = None) -> Outcome:
        """Atomically: record ``token`` as seq ``seq + 1`` if ``seq`` is the game's latest.

        ``sent`` is the token the move was made on: a game the ledger does not
        hold is adopted at ``seq`` with it first (docs/api.md §11). ``at``: the
        time of :meth:`now` a clocked move was charged at; a store whose clock is
        not this machine's refuses (``skewed``, ``latest`` its time) a time too
        far from its own, and the move is made again at that time.
        """

    def stale(self, game_id: str, seq: int, digest: str) -> int | None:
        """The game's latest seq if a move by ``digest`` on seq ``seq`` would be refused, else None."""

    def latest(self, game_id: str) -> tuple[int, str] | None:
        """The game's latest seq and token, or None for a game it does not hold."""

    def move(self, game_id: str, seq: int) -> tuple[str, str] | None:
        """The digest of the action recorded as ``seq`` and the token it produced, or None."""

    def now(self, game_id: str) -> int:
        """The ledger's clock, in milliseconds since 1970, for a move of ``game_id`` (docs/api.md §15):
        the time a game's moves are charged at, the same for every replica that shares the store."""

    def ping(self) -> None:
        """Raise :class:`LedgerUnavailable` unless the store answers (and, for SQLite, is writable)."""

    def close(self) -> None:
        """Drop this process's connections (the app is loaded before gunicorn forks its workers)."""


def check_url(url: str) -> str:
    """``sqlite`` or ``redis``: the store ``url`` names; :class:`LedgerURLError` when it names none."""
    parts = urlsplit(url)
    if parts.scheme == "sqlite":
        if parts.netloc or not parts.path.startswith("/") or parts.path.endswith("/"):
            raise LedgerURLError(f"{url!r}: write sqlite:///absolute/path.db (three slashes, an absolute file path)")
        if parts.query not in SQLITE_QUERIES:
            raise LedgerURLError(f"{url!r}: the one option is ?synchronous=normal (docs/ledger.md, Durability)")
        return "sqlite"
    if parts.scheme in ("redis", "rediss"):
        if not _host_and_port(parts) or (parts.path.strip("/") and not parts.path.strip("/").isdigit()) or parts.query:
            raise LedgerURLError(f"{url!r}: write redis://host:port/db (db a number)")
        return "redis"
    if parts.scheme in CLUSTER_SCHEMES:
        if not _host_and_port(parts) or parts.path.strip("/") not in ("", "0") or parts.query:
            raise LedgerURLError(f"{url!r}: write redis+cluster://host:port (any one node of the cluster; db 0 only)")
        return "redis"
    raise LedgerURLError(f"{url!r}: use sqlite:///absolute/path.db, redis://host:port/db or redis+cluster://host:port")


CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}  # and the scheme of its nodes


def _host_and_port(parts: SplitResult) -> bool:
    try:
        return bool(parts.hostname) and parts.port != -1
    except ValueError:  # a port that is not a number
        return False


# synchronous=FULL by default: a move answered is on disk, even through a power cut (as the shipped
# Redis's appendfsync always); ?synchronous=normal: through any crash of a process, not of the machine.
SQLITE_QUERIES = {"": "FULL", "synchronous=full": "FULL", "synchronous=normal": "NORMAL"}


_UNSET = object()  # a work's value before its batch has run


class Work:
    """One caller's work for the next batch (a function of the SQLite connection, or a Redis script
    call), and its outcome once that batch has been written.

    ``woken`` is set when the outcome is there, or when the caller is handed
    the lead of the next batch; it is made when the work is (``threading``'s
    Event, which is gevent's once the worker has patched ``threading``).
    """

    __slots__ = ("done", "error", "value", "woken", "work")

    def __init__(self, work: Any):
        self.work = work
        self.woken = threading.Event()
        self.done = False
        self.value: Any = _UNSET
        self.error: BaseException | None = None


# How long a batch's leader may wait for the works its last batch suggests are on their way. Under
# load the requests of a worker reach the ledger one after the other, a few hundred µs of CPU apart:
# without a wait the first one writes alone and the next ones queue behind it, in batches of 1 to 3,
# each paying a write (and for SQLite an fsync and a hand-over to a thread) of its own. After a batch
# of one (a worker with one request at a time) no leader waits.
LINGER = 0.0015


class GroupCommit:
    """Group commit: one write to the store for all the works queued while the previous one was under way
    (one SQLite transaction, or one Redis round trip).

    The first caller that finds no batch running leads: it takes the whole
    queue and has ``commit`` run it (setting each work's ``value`` or
    ``error``). Then it wakes each caller of that batch, and hands the lead
    to the first work that queued meanwhile, whose caller takes the queue as
    it then stands. Each caller returns (or raises) its own work's outcome,
    and only after the write that held it has returned, so an answer never
    runs ahead of the store. The lock is held only to take or add to the
    queue, never across a wait.
    """

    def __init__(self, commit: Callable[[list[Work]], None], linger: float = LINGER, on_batch: OnBatch = unobserved):
        self._commit = commit
        self._linger = linger
        self._on_batch = on_batch
        self._lock = threading.Lock()
        self._queue: list[Work] = []
        self._busy = False
        self._last = 1  # the size of the last batch
        self._full = threading.Event()  # set once the queue holds as many works as the last batch

    def run(self, work: Any) -> Any:
        """``work``'s outcome (its value, or its error raised), once the batch that held it is written."""
        mine = Work(work)
        with self._lock:
            self._queue.append(mine)
            lead, self._busy = not self._busy, True
            if len(self._queue) >= self._last:
                self._full.set()
        if not lead:
            mine.woken.wait()  # for the outcome, or for the lead
        if not mine.done:
            self._lead()
        if mine.error is not None:
            raise mine.error
        return mine.value

    def _lead(self) -> None:
        """Write the queue as one batch; wake its callers, and the next leader if any work queued meanwhile.

        The leader waits until as many works have queued as its last batch
        held, at most ``linger`` seconds (see :data:`LINGER`): after a batch of
        one its own work is enough, and it does not wait.
        """
        self._full.wait(self._linger)
        with self._lock:
            batch, self._queue = self._queue, []
            self._last = len(batch)
            self._full.clear()
        started = time.perf_counter()
        try:
            self._commit(batch)
        finally:
            self._on_batch(len(batch), time.perf_counter() - started)
            for item in batch:
                if item.value is _UNSET and item.error is None:  # the batch itself failed to run
                    item.error = LedgerUnavailable("the ledger's batch did not run")
                item.done = True
                item.woken.set()
            with self._lock:
                following = self._queue[0] if self._queue else None
                self._busy = following is not None
            if following is not None:
                following.woken.set()
