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

import contextvars
import math
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


def steady_ms() -> int:
    """Milliseconds of the machine's monotonic clock: never steps back (an operator or NTP setting the wall
    clock leaves it alone), meaningful only as a difference."""
    return time.monotonic_ns() // 1_000_000


class SteadyClock:
    """This machine's clock in milliseconds since 1970, read once and then advanced by the monotonic clock:
    a step of the wall clock (back or forward) after the first reading moves it not at all, so a game's
    moves are never charged at a time before one already recorded by this process (docs/api.md §15)."""

    def __init__(self) -> None:
        self._offset: int | None = None

    def now(self) -> int:
        if self._offset is None:
            self._offset = wall_ms() - steady_ms()
        return steady_ms() + self._offset


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
        if not _host_and_port(parts) or (parts.path.strip("/") and not parts.path.strip("/").isdigit()):
            raise LedgerURLError(f"{url!r}: write redis://host:port/db (db a number)")
    elif parts.scheme in CLUSTER_SCHEMES:
        if not _host_and_port(parts) or parts.path.strip("/") not in ("", "0"):
            raise LedgerURLError(f"{url!r}: write redis+cluster://host:port (any one node of the cluster; db 0 only)")
    elif parts.scheme in SENTINEL_SCHEMES:
        try:
            sentinels(url)
        except ValueError:
            raise LedgerURLError(
                f"{url!r}: write redis+sentinel://host:port[,host:port…]/service_name (the sentinels, and the name "
                "they know the primary by)"
            ) from None
    else:
        raise LedgerURLError(
            f"{url!r}: use sqlite:///absolute/path.db, redis://host:port/db, redis+cluster://host:port "
            "or redis+sentinel://host:port[,host:port…]/service_name"
        )
    try:
        replicas_of(url)
    except ValueError:
        raise LedgerURLError(
            f"{url!r}: the one option of a Redis ledger is ?replicas=n (n from 1 to 16: the replicas that must "
            "hold each write before it is answered, docs/ledger.md)"
        ) from None
    return "redis"


CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}  # and the scheme of its nodes
SENTINEL_SCHEMES = {"redis+sentinel": "redis", "rediss+sentinel": "rediss"}
MAX_REPLICAS = 16


def replicas_of(url: str) -> int:
    """How many replicas must confirm each write (``?replicas=n``; 0 without it); ValueError for any other query."""
    query = urlsplit(url).query
    if not query:
        return 0
    name, _, value = query.partition("=")
    if name != "replicas" or not value.isdigit() or not 1 <= int(value) <= MAX_REPLICAS:
        raise ValueError(query)
    return int(value)


def sentinels(url: str) -> tuple[list[tuple[str, int]], str]:
    """The sentinels' addresses and the service name of a ``redis+sentinel://`` URL; ValueError if malformed."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]  # a password (user:pass@) is the primary's, not an address
    service = parts.path.strip("/")
    if not netloc or not service or "/" in service:
        raise ValueError(url)
    addresses = []
    for address in netloc.split(","):
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(url)
        addresses.append((host.strip("[]"), int(port)))
    return addresses, service


def _host_and_port(parts: SplitResult) -> bool:
    try:
        return bool(parts.hostname) and parts.port != -1
    except ValueError:  # a port that is not a number
        return False


# synchronous=FULL by default: a move answered is on disk, even through a power cut (as the shipped
# Redis's appendfsync always); ?synchronous=normal: through any crash of a process, not of the machine.
SQLITE_QUERIES = {"": "FULL", "synchronous=full": "FULL", "synchronous=normal": "NORMAL"}


_UNSET = object()  # a work's value before its batch has run

# How long past its deadline (the request's arrival plus the ledger's timeout) a call may still be sent,
# and its caller waits for its batch, before it answers "nothing was written" (a call never sent) or
# "outcome unknown" (a write in a batch under way). So every answer that waited on the store comes within
# the timeout of the request's arrival plus GRACE and the little CPU that follows (docs/api.md §11:
# plus at most one second). A SQLite batch stops waiting for the write lock at the deadline itself,
# leaving the grace to its commit.
GRACE = 0.75

_ARRIVED: contextvars.ContextVar[float | None] = contextvars.ContextVar("ledger_request_arrived", default=None)


def request_arrived(at: float | None) -> None:
    """The request this thread (or greenlet) serves arrived at ``at`` (``time.monotonic()``), or None once
    it is answered: every ledger call it makes is answered within the ledger's timeout of ``at`` (plus
    :data:`GRACE`). Outside a request a call counts from its own start."""
    _ARRIVED.set(at)


def deadline(timeout: float) -> float:
    """When the ledger's answer to the current call is due (``time.monotonic()``): ``timeout`` after the
    request's arrival, or after now outside a request."""
    arrived = _ARRIVED.get()
    return (time.monotonic() if arrived is None else arrived) + timeout


class Work:
    """One caller's work for the next batch (a function of the SQLite connection, or a Redis script
    call), and its outcome once that batch has been written.

    ``woken`` is set when the outcome is there; ``deadline`` is when its caller stops waiting for it
    (``time.monotonic()``); ``writes`` whether it may change the store (so that a caller who stops
    waiting for a batch already sent answers "outcome unknown", not "nothing written").
    """

    __slots__ = ("deadline", "done", "error", "value", "woken", "work", "writes")

    def __init__(self, work: Any, deadline: float = math.inf, writes: bool = True):
        self.work = work
        self.deadline = deadline
        self.writes = writes
        self.woken = threading.Event()
        self.done = False
        self.value: Any = _UNSET
        self.error: BaseException | None = None


# How long a batch's writer may wait for the works its last batch suggests are on their way. Under
# load the requests of a worker reach the ledger one after the other, a few hundred µs of CPU apart:
# without a wait the first one writes alone and the next ones queue behind it, in batches of 1 to 3,
# each paying a write (and for SQLite an fsync and a hand-over to a thread) of its own. After a batch
# of one (a worker with one request at a time) the writer does not wait.
LINGER = 0.0015


class GroupCommit:
    """Group commit: one write to the store for all the works queued while the previous one was under way
    (one SQLite transaction, or one Redis round trip).

    One writer thread per process (a greenlet under gevent), started on first use, takes the whole
    queue and has ``commit`` run it (setting each work's ``value`` or ``error``), wakes each caller
    of that batch, and takes the queue as it then stands. Each caller returns (or raises) its own
    work's outcome, and only after the write that held it has returned, so an answer never runs
    ahead of the store; or, :data:`GRACE` past its deadline, stops waiting: a work still in the
    queue is taken out and is :class:`LedgerUnavailable` (nothing was sent), a work in a batch under
    way is :class:`LedgerOutcomeUnknown` if it writes. The lock is held only to take
    or change the queue, never across a wait.
    """

    def __init__(self, commit: Callable[[list[Work]], None], linger: float = LINGER, on_batch: OnBatch = unobserved):
        self._commit = commit
        self._linger = linger
        self._on_batch = on_batch
        self._lock = threading.Lock()
        self._queue: list[Work] = []
        self._busy = False  # a batch is being written
        self._last = 1  # the size of the last batch
        self._queued = threading.Event()  # set while the queue holds a work
        self._full = threading.Event()  # set once the queue holds as many works as the last batch
        self._writer: threading.Thread | None = None

    def run(self, work: Any, due: float = math.inf, writes: bool = True) -> Any:
        """``work``'s outcome (its value, or its error raised), once the batch that held it is written;
        :class:`LedgerUnavailable` or :class:`LedgerOutcomeUnknown` once ``due`` (plus :data:`GRACE`
        for a batch under way) has passed."""
        if time.monotonic() >= due + GRACE:
            raise LedgerUnavailable("the request's time for the ledger had run out; nothing was sent")
        mine = Work(work, due, writes)
        with self._lock:
            self._queue.append(mine)
            if len(self._queue) >= self._last:
                self._full.set()
            self._queued.set()
            if self._writer is None:
                self._writer = threading.Thread(target=self._write, name="ledger-group-commit", daemon=True)
                self._writer.start()
        if not mine.woken.wait(None if due == math.inf else due + GRACE - time.monotonic()):
            with self._lock:
                queued = any(item is mine for item in self._queue)
                if queued:
                    self._queue.remove(mine)
                elif not mine.done:
                    kind = LedgerOutcomeUnknown if writes else LedgerUnavailable
                    raise kind("the ledger did not answer in time")
            if queued:
                raise LedgerUnavailable("the ledger did not take the call in time (a batch ahead of it was slow)")
        if mine.error is not None:
            raise mine.error
        return mine.value

    def _write(self) -> None:
        """The writer: batch after batch, for as long as the process lives."""
        while True:
            self._queued.wait()
            self._full.wait(self._linger)
            with self._lock:
                batch, self._queue = self._queue, []
                self._last = max(1, len(batch))
                self._full.clear()
                self._queued.clear()
                self._busy = bool(batch)
            if batch:
                self._write_batch(batch)

    def _write_batch(self, batch: list[Work]) -> None:
        """Write ``batch`` as one; wake its callers (the writer itself never raises)."""
        started = time.perf_counter()
        try:
            self._commit(batch)
        except Exception as exc:  # the batch itself failed to run: each caller raises it
            for item in batch:
                if item.value is _UNSET and item.error is None:
                    item.error = exc
        finally:
            self._on_batch(len(batch), time.perf_counter() - started)
            for item in batch:
                if item.value is _UNSET and item.error is None:
                    item.error = LedgerUnavailable("the ledger's batch did not run")
                item.done = True
                item.woken.set()
            self._busy = False
