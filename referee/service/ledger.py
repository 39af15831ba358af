"""The ledger of private games (docs/api.md §11, docs/ledger.md): one line of play per game.

A stateless referee cannot tell a game's latest token from an older copy; the
ledger can. Per game id it keeps the latest ``seq`` and, for each seq, the
digest of the action that produced it and the token it produced — nothing
readable (no plain state, no seat, no key: tokens are encrypted).

One small interface, :class:`Ledger`, with two stores:

- :class:`SqliteLedger` (``sqlite:///absolute/path.db``): one machine; WAL
  mode, and ``BEGIN IMMEDIATE`` transactions, so gunicorn's workers
  (separate processes) see one order of moves. Each process commits the moves
  that queued while its previous commit ran in one transaction (a group
  commit: one fsync for all of them), each move still its own compare-and-set,
  and answers none before that commit has returned;
- :class:`RedisLedger` (``redis://host:port/db``, or ``redis+cluster://host:port``
  for a Redis Cluster): every replica shares one Redis; a move's
  compare-and-set is one Lua script (atomic on the server), and all of a
  game's data is one hash under a key with the game id as its hash tag
  (``af:{g-…}``), so on a cluster each game lives on one node. Each process
  sends the calls that queued while its previous round trip was under way
  as one script (one per slot on a cluster; the same :class:`GroupCommit`),
  each call in it still its own compare-and-set.

Every failure of the store (refused connection, timeout, a read-only or full
disk, a Redis that cannot persist) is :class:`LedgerUnavailable`: the service
answers 503 and applies nothing; nothing is ever accepted unrecorded. One
failure is not that: a move sent to Redis whose answer never came (a timeout,
a connection lost after sending) may yet be run by Redis, so it is
:class:`LedgerOutcomeUnknown` (503 ``ledger_outcome_unknown``): the client
sends the same move again, which the ledger answers with what it recorded.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, cast
from urllib.parse import SplitResult, urlsplit

from referee.service import metrics

_T = TypeVar("_T")

APPLIED: Literal["applied"] = "applied"
REPEATED: Literal["repeated"] = "repeated"
STALE: Literal["stale"] = "stale"
SKEWED: Literal["skewed"] = "skewed"


def _wall_ms() -> int:
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

    def start(self, game_id: str, token: str) -> None:
        """Record a new game at seq 0."""

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


def open_ledger(url: str, ttl: float, timeout: float) -> Ledger:
    """The store ``url`` names (checked with :func:`check_url`), not yet connected."""
    if check_url(url) == "sqlite":
        parts = urlsplit(url)
        return SqliteLedger(parts.path, ttl, timeout, SQLITE_QUERIES[parts.query])
    return RedisLedger(url, ttl, timeout)


# -- SQLite ----------------------------------------------------------------------------------

# moves is a rowid table: each move's row (its ~5 KB token) goes at the table's end, and only its
# (game_id, seq) key into the index. Ordered by that key (WITHOUT ROWID), a move split a page of its
# game's rows, and SQLite kept at most ~1 KB of each row in that page, the rest in overflow pages
# (docs/decisions.md, "A SQLite move writes its row"). A game's latest seq is its highest move, read
# from that index; games keeps only when each game was last touched, for the expiry, and a move
# rewrites it only when it is older than TTL_SLACK of the TTL: so a move writes its row and its index
# entry, and no page of games (docs/decisions.md, "A SQLite move writes its row").
_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (game_id TEXT PRIMARY KEY, touched REAL NOT NULL);
CREATE TABLE IF NOT EXISTS moves (
    game_id TEXT NOT NULL, seq INTEGER NOT NULL, digest TEXT, token TEXT NOT NULL,
    PRIMARY KEY (game_id, seq));
CREATE INDEX IF NOT EXISTS games_touched ON games (touched);
CREATE TABLE IF NOT EXISTS ping (id INTEGER PRIMARY KEY, at REAL NOT NULL);
"""
# A file of the earlier layout kept each game's latest seq in games.latest, rewritten by every move.
# It is dropped when a worker first opens the file, so that a worker of the earlier code still
# running on it (a reload) fails its moves (503) instead of reading a latest seq no longer kept.
_DROP_LATEST = "ALTER TABLE games DROP COLUMN latest"
# How stale games.touched may grow, as a share of the TTL, before a move rewrites it; a game is
# expired only TTL (1 + TTL_SLACK) after it was touched, so never sooner than TTL after its last move.
TTL_SLACK = 0.01
_EXPIRE_EVERY = 1000  # new games between two sweeps of expired ones


# Runs ``fn(arg)`` and gives its result: in the calling thread, or in gevent's thread pool.
Runner = Callable[[Callable[[Any], Any], Any], Any]


def _off_the_loop() -> Runner:
    """How this process runs a call that waits on the disk (a commit's fsync): in the gevent hub's
    thread pool when gevent has patched the process (the default worker), so its event loop serves
    other requests meanwhile; else in the calling thread (the sync worker serves one request at a
    time anyway)."""
    try:
        from gevent import get_hub, monkey
    except ImportError:  # pragma: no cover
        return lambda fn, arg: fn(arg)
    if not monkey.is_module_patched("threading"):
        return lambda fn, arg: fn(arg)
    pool = get_hub().threadpool

    def run(fn: Callable[[Any], Any], arg: Any) -> Any:
        failed, value = pool.apply(_caught, (fn, arg))
        if failed:
            raise value
        return value

    return run


def _caught(fn: Callable[[Any], Any], arg: Any) -> tuple[bool, Any]:
    """``fn(arg)``'s value, or the exception it raised, as a value: raised again in the calling greenlet,
    and not printed by gevent's thread pool as a traceback of many lines (the failure is logged once,
    as one JSON line, by whoever handles it)."""
    try:
        return False, fn(arg)
    except Exception as exc:
        return True, exc


LOG = logging.getLogger("referee.ledger")


_UNSET = object()  # a work's value before its batch has run
# Held only while a process makes its SQLite queue on first use (never across a wait, so it is safe
# under gevent too): two threads' first calls must not make two queues on one connection.
_FIRST_USE = threading.Lock()


class _Work:
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

    def __init__(self, commit: Callable[[list[_Work]], None], linger: float = LINGER):
        self._commit = commit
        self._linger = linger
        self._lock = threading.Lock()
        self._queue: list[_Work] = []
        self._busy = False
        self._last = 1  # the size of the last batch
        self._full = threading.Event()  # set once the queue holds as many works as the last batch

    def run(self, work: Any) -> Any:
        """``work``'s outcome (its value, or its error raised), once the batch that held it is written."""
        mine = _Work(work)
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
            metrics.ledger_batch(len(batch), time.perf_counter() - started)
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


class SqliteLedger:
    """The ledger in one SQLite file, shared by every process on the machine.

    Each process (gunicorn forks its workers after loading the app) opens one
    connection on first use, and writes through a :class:`GroupCommit`: the
    moves that arrive while a transaction commits go into the next one
    together, so one commit (and its fsync) serves them all.
    ``synchronous=FULL`` (the default): a move answered is on disk, as Redis's
    ``appendfsync always`` promises; ``NORMAL`` (``?synchronous=normal``): in
    the kernel, so it survives any crash of a process, not a power cut.
    """

    def __init__(self, path: str, ttl: float, timeout: float, synchronous: str = "FULL"):
        self.path = path
        self.synchronous = synchronous
        self.ttl = ttl
        self.timeout = timeout
        self._pid = -1
        self._db: sqlite3.Connection | None = None
        self._group: GroupCommit | None = None
        self._off_the_loop = _off_the_loop()
        self._games = 0
        self.ahead_ms = AHEAD

    def _connection(self) -> sqlite3.Connection:
        """This process's connection (only ever used by one batch at a time)."""
        if self._db is None:
            try:
                # No busy handler (timeout 0): the one wait for the lock is _begin's, bounded by the timeout.
                db = sqlite3.connect(self.path, timeout=0, isolation_level=None, check_same_thread=False)
                db.execute("PRAGMA journal_mode=WAL")
                db.execute(f"PRAGMA synchronous={self.synchronous}")
                db.executescript(_SCHEMA)
                self._migrate(db)
            except sqlite3.Error as exc:
                raise LedgerUnavailable(f"SQLite ledger {self.path}: {exc}") from None
            self._db = db
        return self._db

    def _migrate(self, db: sqlite3.Connection) -> None:
        """The earlier layout brought to today's (see ``_DROP_LATEST``), once, under the write lock."""
        self._begin(db)
        try:
            if any(column[1] == "latest" for column in db.execute("PRAGMA table_info(games)")):
                db.execute(_DROP_LATEST)
            db.execute("COMMIT")
        finally:
            if db.in_transaction:
                db.execute("ROLLBACK")

    def _run(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """``work(db)`` in an immediate transaction, with whatever else is queued meanwhile.

        It answers only once that transaction has committed; any SQLite error
        is :class:`LedgerUnavailable` for every work of the batch, none of
        which is then recorded.
        """
        if self._pid != os.getpid():  # a forked worker: its own connection and queue, made after gevent's patch
            with _FIRST_USE:
                if self._pid != os.getpid():
                    self._db = None
                    self._group = GroupCommit(self._commit)
                    self._off_the_loop = _off_the_loop()
                    self._pid = os.getpid()
        assert self._group is not None
        return cast(_T, self._group.run(work))

    def _commit(self, batch: list[_Work]) -> None:
        """Every work of ``batch``, in order, in one transaction; each one's outcome set on it.

        The works are quick (a few statements on pages in memory) and run here; the ``COMMIT``, which
        writes the WAL and fsyncs it (and now and then checkpoints), runs off gevent's loop. One
        handover of the interpreter lock per batch, not one per statement.
        """
        try:
            db = self._connection()
        except LedgerUnavailable as exc:
            for item in batch:
                item.error = exc
            return
        try:
            self._begin(db)
            try:
                for item in batch:
                    item.value = item.work(db)
            except BaseException as exc:
                item.error = exc  # the work that failed; the others' share of the batch goes with it
                raise
            self._off_the_loop(db.execute, "COMMIT")
        except BaseException as exc:
            if db.in_transaction:
                try:
                    db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            if isinstance(exc, sqlite3.Error):
                LOG.warning(
                    "ledger write failed",
                    extra={"store": "sqlite", "path": self.path, "error": f"{type(exc).__name__}: {exc}"},
                )
                if _disk_full(exc):
                    self._reclaim(db)
                self._db = None  # a fresh connection next time (the file may have come back)
            lost = LedgerUnavailable(f"SQLite ledger {self.path}: {exc}")
            for other in batch:
                if other.error is None or isinstance(other.error, sqlite3.Error):
                    other.error = lost
        else:
            self._keep_room(db)

    def _keep_room(self, db: sqlite3.Connection) -> None:
        """Checkpoint before the WAL can take the disk's last free bytes.

        SQLite copies the WAL into the database by itself only after a commit
        that leaves it past 1,000 pages (4 MB), and never gives its space
        back. On a disk with less room than that the WAL grew until every
        write failed, and kept any space freed since: the ledger stayed 503
        until an operator stepped in. Once the WAL is larger than the free
        space, its pages are copied into the database (which grows by at most
        the WAL's size, so they fit) and the WAL truncated. Two system calls
        after each commit (a batch of moves), and a checkpoint only when the
        disk runs short.
        """
        try:
            wal = os.stat(self.path + "-wal").st_size
            disk = os.statvfs(os.path.dirname(self.path) or "/")
        except OSError:
            return
        if wal > disk.f_bavail * disk.f_frsize:
            self._reclaim(db)

    def _reclaim(self, db: sqlite3.Connection) -> None:
        """Copy the WAL into the database and truncate it to nothing, giving its space back (see
        :meth:`_keep_room`); also tried after a write refused for want of space, in case the WAL's pages
        fit. Logged as one line either way, with why it could not."""
        try:
            busy, frames, copied = self._off_the_loop(_checkpoint, db)
        except sqlite3.Error as exc:  # the database file itself cannot grow to take the WAL's pages
            LOG.warning(
                "ledger WAL not reclaimed",
                extra={"store": "sqlite", "path": self.path, "error": f"{type(exc).__name__}: {exc}"},
            )
            return
        done = not busy and frames == copied
        LOG.warning(
            "ledger WAL reclaimed" if done else "ledger WAL not reclaimed",
            extra={
                "store": "sqlite",
                "path": self.path,
                "wal_frames": frames,
                "copied": copied,
                **({} if done else {"error": "another connection is reading the WAL; tried again on the next failure"}),
            },
        )

    def _begin(self, db: sqlite3.Connection) -> None:
        """``BEGIN IMMEDIATE`` (the write lock), waiting at most the timeout while another worker holds it.

        SQLite's own busy handler sleeps 1 ms, then 2, 5, 10...: far longer than a batch holds the lock.
        Trying again after a short, growing pause keeps two busy workers from waiting on each other's
        sleeps. Under gevent the pause is gevent's, so the loop serves other requests meanwhile.
        """
        deadline = time.monotonic() + self.timeout
        pause = 0.00005
        while True:
            try:
                db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                if time.monotonic() + pause > deadline:
                    raise
            time.sleep(pause)
            pause = min(pause * 2, 0.002)

    def start(self, game_id: str, token: str) -> None:
        def work(db: sqlite3.Connection) -> None:
            self._take(db, game_id, 0, token)

        self._run(work)
        self._games += 1
        if self._games % _EXPIRE_EVERY == 0:
            self._run(self._expire)

    def _take(self, db: sqlite3.Connection, game_id: str, seq: int, token: str) -> None:
        """``game_id`` afresh, held at ``seq`` with ``token`` (a new game, or one adopted at its token's seq)."""
        db.execute("DELETE FROM moves WHERE game_id = ?", (game_id,))
        db.execute("INSERT OR REPLACE INTO games VALUES (?, ?)", (game_id, time.time()))
        db.execute("INSERT INTO moves VALUES (?, ?, NULL, ?)", (game_id, seq, token))

    def _expired_before(self) -> float:
        """Games last touched before this time are past their TTL (see ``TTL_SLACK``)."""
        return time.time() - self.ttl * (1 + TTL_SLACK)

    def _expire(self, db: sqlite3.Connection) -> None:
        cutoff = self._expired_before()
        db.execute("DELETE FROM moves WHERE game_id IN (SELECT game_id FROM games WHERE touched < ?)", (cutoff,))
        db.execute("DELETE FROM games WHERE touched < ?", (cutoff,))

    def _latest(self, db: sqlite3.Connection, game_id: str) -> tuple[int, float] | None:
        """The game's latest seq and when it was last touched; None for a game it does not hold."""
        row = db.execute(
            "SELECT (SELECT max(seq) FROM moves WHERE game_id = ?1), touched FROM games WHERE game_id = ?1",
            (game_id,),
        ).fetchone()
        if row is None or row[0] is None or row[1] < self._expired_before():
            return None
        return row[0], row[1]

    def record(self, game_id: str, seq: int, digest: str, token: str, sent: str, at: int | None = None) -> Outcome:
        def work(db: sqlite3.Connection) -> Outcome:
            held = self._latest(db, game_id)
            if held is None:  # adopted at the token's seq
                self._take(db, game_id, seq, sent)
                held = (seq, time.time())
            latest, touched = held
            if latest == seq:
                db.execute("INSERT INTO moves VALUES (?, ?, ?, ?)", (game_id, seq + 1, digest, token))
                now = time.time()
                if now - touched > self.ttl * TTL_SLACK:
                    db.execute("UPDATE games SET touched = ? WHERE game_id = ?", (now, game_id))
                return Outcome(APPLIED, seq + 1, token)
            if latest > seq:
                row = db.execute(
                    "SELECT digest, token FROM moves WHERE game_id = ? AND seq = ?", (game_id, seq + 1)
                ).fetchone()
                if row is not None and row[0] == digest:
                    return Outcome(REPEATED, latest, row[1])
            return Outcome(STALE, latest)

        return self._run(work)

    def stale(self, game_id: str, seq: int, digest: str) -> int | None:
        def work(db: sqlite3.Connection) -> int | None:
            held = self._latest(db, game_id)
            if held is None or held[0] == seq:
                return None
            latest = held[0]
            if latest > seq:
                row = db.execute(
                    "SELECT digest FROM moves WHERE game_id = ? AND seq = ?", (game_id, seq + 1)
                ).fetchone()
                if row is not None and row[0] == digest:
                    return None
            return latest

        return self._run(work)

    def latest(self, game_id: str) -> tuple[int, str] | None:
        def work(db: sqlite3.Connection) -> tuple[int, str] | None:
            held = self._latest(db, game_id)
            if held is None:
                return None
            latest = held[0]
            row = db.execute("SELECT token FROM moves WHERE game_id = ? AND seq = ?", (game_id, latest)).fetchone()
            return (latest, row[0]) if row is not None else None

        return self._run(work)

    def move(self, game_id: str, seq: int) -> tuple[str, str] | None:
        def work(db: sqlite3.Connection) -> tuple[str, str] | None:
            row = db.execute("SELECT digest, token FROM moves WHERE game_id = ? AND seq = ?", (game_id, seq)).fetchone()
            return None if row is None else (row[0] or "", row[1])

        return self._run(work)

    def now(self, game_id: str) -> int:
        """The machine's clock: one machine shares one SQLite file (``ahead_ms``: see :data:`AHEAD`)."""
        return _wall_ms() + self.ahead_ms

    def ping(self) -> None:
        # A write that changes a page, so that a read-only file or a full disk shows as unreachable, not
        # only a missing one (a write that changes nothing commits without touching the disk).
        self._run(lambda db: db.execute("INSERT OR REPLACE INTO ping VALUES (1, ?)", (time.time(),)))

    def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            db.close()

    def size(self) -> int:
        """Bytes of the database file and its WAL (the benchmark's ledger size)."""
        return sum(os.path.getsize(p) for p in (self.path, self.path + "-wal") if os.path.exists(p))


def _disk_full(exc: BaseException) -> bool:
    """A write SQLite refused for want of space (SQLITE_FULL)."""
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc)


def _checkpoint(db: sqlite3.Connection) -> tuple[int, int, int]:
    """``PRAGMA wal_checkpoint(TRUNCATE)``: (1 if another connection blocked it, else 0; frames in the
    WAL; frames copied into the database)."""
    row = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    return int(row[0]), int(row[1]), int(row[2])


# -- Redis -----------------------------------------------------------------------------------

# One script runs a batch of calls: KEYS holds each call's game hash, ARGV each call's name and then
# its arguments, in the same order. Each call runs in a protected call (pcall), so one that fails
# (a Redis out of memory refusing its write) fails alone, having written nothing, and answers
# {0, message}; the others answer {1, ...}:
# - start(token, ttl): a new game, its hash afresh at seq 0. Answers {1}.
# - record(seq, digest, token, ttl, sent): the move on seq; sent is the token it was made on, or ''.
#   Answers {1, kind, latest, token}: kind 1 applied, 2 repeated (token: the recorded one), 0 stale,
#   3 a game it does not hold, when sent is '' (the client then calls again with the token sent).
# - record_at(at, seq, digest, token, ttl, sent): record, for a move charged at ``at`` (ms, the replica's reading
#   of Redis's clock, docs/api.md §15): refused, {1, 4, now, '', now}, unless at is within CLOCK_BEHIND before
#   and CLOCK_AHEAD after Redis's TIME (now); else record's answer with now added.
# - stale(seq, digest): {1, latest} if a move by digest on seq would be refused, else {1, -1}.
# - latest(): {1, latest, token}, or {1} for a game it does not hold.
# - move(seq): {1, digest, token} of the move recorded as seq ('' for the deal's digest), or {1}.
# - now(): {1, ms}: Redis's TIME in milliseconds, the clock a game's moves are charged by (docs/api.md §15).
_BATCH = """
local calls = {}
local CLOCK_AHEAD, CLOCK_BEHIND = %d, %d

function calls.start(key, token, ttl)
  redis.call('DEL', key)
  redis.call('HSET', key, 'latest', 0, 't:0', token)
  redis.call('EXPIRE', key, ttl)
  return {1}
end

function calls.record(key, seq, digest, token, ttl, sent)
  seq = tonumber(seq)
  local latest = redis.call('HGET', key, 'latest')
  if not latest then
    if sent == '' then return {1, 3, -1, ''} end
    redis.call('DEL', key)
    redis.call('HSET', key, 'latest', seq, 't:' .. seq, sent)
    latest = seq
  else
    latest = tonumber(latest)
  end
  if latest == seq then
    redis.call('HSET', key, 'latest', seq + 1, 'd:' .. (seq + 1), digest, 't:' .. (seq + 1), token)
    redis.call('EXPIRE', key, ttl)
    return {1, 1, seq + 1, ''}
  end
  if latest > seq and redis.call('HGET', key, 'd:' .. (seq + 1)) == digest then
    return {1, 2, latest, redis.call('HGET', key, 't:' .. (seq + 1))}
  end
  return {1, 0, latest, ''}
end

function calls.record_at(key, at, seq, digest, token, ttl, sent)
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  at = tonumber(at)
  if at > now + CLOCK_AHEAD or at < now - CLOCK_BEHIND then return {1, 4, now, '', now} end
  local answer = calls.record(key, seq, digest, token, ttl, sent)
  answer[5] = now
  return answer
end

function calls.stale(key, seq, digest)
  local latest = redis.call('HGET', key, 'latest')
  if not latest then return {1, -1} end
  latest = tonumber(latest)
  seq = tonumber(seq)
  if latest == seq then return {1, -1} end
  if latest > seq and redis.call('HGET', key, 'd:' .. (seq + 1)) == digest then return {1, -1} end
  return {1, latest}
end

function calls.latest(key)
  local latest = redis.call('HGET', key, 'latest')
  if not latest then return {1} end
  return {1, tonumber(latest), redis.call('HGET', key, 't:' .. latest)}
end

function calls.move(key, seq)
  local token = redis.call('HGET', key, 't:' .. seq)
  if not token then return {1} end
  return {1, redis.call('HGET', key, 'd:' .. seq) or '', token}
end

function calls.now(key)
  local t = redis.call('TIME')
  return {1, tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)}
end

local arity = {start = 2, record = 5, record_at = 6, stale = 2, latest = 0, move = 1, now = 0}
local answers, at = {}, 1
for i, key in ipairs(KEYS) do
  local name = ARGV[at]
  local n = arity[name]
  local ok, answer = pcall(calls[name], key, unpack(ARGV, at + 1, at + n))
  if not ok then
    answer = {0, type(answer) == 'table' and answer.err or tostring(answer)}
  end
  answers[i] = answer
  at = at + 1 + n
end
return answers
"""
# How far a move's time may be from Redis's TIME when its record runs (ms): after it (a replica's reading of
# Redis's clock runs a little ahead of it), and before it (the move waited for its turn in a batch, or its
# process was busy). Outside, the record is refused and the move made again at Redis's time.
CLOCK_AHEAD, CLOCK_BEHIND = 50, 2_000
_BATCH = _BATCH % (CLOCK_AHEAD, CLOCK_BEHIND)
# The script by its SHA-1, as Redis names it in its script cache (EVALSHA sends 40 bytes, not the script).
_BATCH_SHA = hashlib.sha1(_BATCH.encode()).hexdigest()


def _before_sending(error: Exception) -> bool:
    """Whether ``error`` came before anything was sent: redis-py's words for a connection not made
    ("Error 111 connecting to …", "Timeout connecting to server"). Any other error after a script
    was handed to the connection leaves its outcome unknown."""
    return "connecting to" in str(error)


def _noting_retry(retry_class: Any) -> Any:
    """redis-py's ``Retry``, noting in ``maybe_sent`` (of the class made here, one per client) each failed
    attempt that may have sent its command before it failed: its one retry of a failed call ends, when Redis is gone, with "Error … connecting
    to", though the first attempt may have reached a Redis that ran it and then died."""

    class NotingRetry(retry_class):  # type: ignore[misc]
        maybe_sent = False

        def call_with_retry(self, do: Any, fail: Any, *args: Any, **kwargs: Any) -> Any:
            def noting(error: Exception, *count: Any) -> Any:
                if not _before_sending(error) and not isinstance(error, OSError):
                    type(self).maybe_sent = True  # on the class: redis-py gives each connection a deep copy
                return fail(error, *count)

            return super().call_with_retry(do, noting, *args, **kwargs)

    return NotingRetry


def game_key(game_id: str) -> str:
    """The hash of one game: its id as the hash tag, so a cluster keeps it on one node."""
    return "af:{" + game_id + "}"


class RedisLedger:
    """The ledger on Redis, shared by every replica: one Redis (``redis://``) or a Redis Cluster
    (``redis+cluster://``, any one node; the client finds the others and which node holds each game).

    Each process makes its own client on first use (gunicorn forks its workers after loading the app,
    and the gevent worker patches sockets after that), so its connections are cooperative ones. Its
    calls go through a :class:`GroupCommit`: the calls that queue while one is under way are sent
    together as one script (one per cluster slot), atomic on its node, each call in it still its own
    compare-and-set: one round trip, one script and one append to Redis's append-only file (one
    fsync) for them all.
    """

    def __init__(self, url: str, ttl: float, timeout: float):
        import redis
        import redis.exceptions
        from redis.crc import key_slot

        self._errors = (redis.RedisError, redis.exceptions.RedisClusterException, OSError)
        # The errors after which a script sent may still run: Redis read it, then was too slow to
        # answer (paused, overloaded) or the connection went. A refusal (MISCONF, NOSCRIPT) ran nothing.
        self._unanswered = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.RedisClusterException, OSError)
        self._no_script = redis.exceptions.NoScriptError
        self.url = url
        self.cluster = urlsplit(url).scheme in CLUSTER_SCHEMES
        # A script's keys must share a slot on a cluster: a batch is one script per slot there.
        self._slot: Callable[[str], int] = (lambda key: key_slot(key.encode())) if self.cluster else (lambda key: 0)
        self.ttl = max(1, int(ttl))
        self.timeout = timeout
        self._pid = -1
        self._redis: Any = None
        self._group: GroupCommit | None = None
        self.ahead_ms = AHEAD
        self._skew: int | None = None  # ms from this machine's clock to Redis's TIME, once read (``now``)
        self._retry: Any = None  # this process's client's Retry (see _noting_retry)

    def _client(self) -> Any:
        if self._pid != os.getpid():
            # Two first calls at once may each make a client (a cluster's asks its node for the slots,
            # a wait no lock may be held across under gevent); either one serves, and one is kept.
            client = self._connect()
            self._redis, self._group, self._pid = client, GroupCommit(self._send), os.getpid()
        return self._redis

    def _connect(self) -> Any:
        """A client for this process."""
        import redis
        import redis.cluster
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self._retry = _noting_retry(Retry)(NoBackoff(), 1)
        options: dict[str, Any] = {
            "socket_timeout": self.timeout,
            "socket_connect_timeout": self.timeout,
            # One immediate retry of a failed connection (a pooled one Redis dropped on a restart): a
            # call takes at most twice the timeout. Sending a batch again is safe: the same action at
            # the same seq is the recorded answer.
            "retry": self._retry,
            "decode_responses": True,
        }
        scheme, _, rest = self.url.partition("://")
        if self.cluster:  # asks that node for the cluster's nodes and slots now
            return redis.cluster.RedisCluster.from_url(f"{CLUSTER_SCHEMES[scheme]}://{rest}", **options)
        return redis.Redis.from_url(self.url, retry_on_timeout=False, **options)

    def _call(self, work: Callable[[], _T]) -> _T:
        try:
            return work()
        except self._errors as exc:
            raise LedgerUnavailable(f"Redis ledger: {type(exc).__name__}: {exc}") from None

    def _script(self, name: str, game_id: str, *args: Any) -> list[Any]:
        """One call of the batch script on the game's one key, sent with this process's next batch;
        its answer without the leading 1."""
        self._call(self._client)
        assert self._group is not None
        answer: list[Any] = self._group.run((game_key(game_id), (name, *args)))
        return answer

    def _send(self, batch: list[_Work]) -> None:
        """Every call of ``batch`` in one round trip: one script per slot (one in all, off a cluster);
        each call's answer, or a :class:`LedgerUnavailable`, set on it.

        A Redis that has lost its script cache (it was restarted) refuses a
        script with ``NOSCRIPT``, having run nothing: it is given the script
        and those calls are sent once more.
        """
        by_slot: dict[int, list[_Work]] = {}
        for item in batch:
            by_slot.setdefault(self._slot(item.work[0]), []).append(item)
        groups = list(by_slot.values())
        type(self._retry).maybe_sent = False
        try:
            replies = self._scripts(groups)
            again = [n for n, reply in enumerate(replies) if isinstance(reply, self._no_script)]
            if again:
                self._redis.script_load(_BATCH)
                for n, reply in zip(again, self._scripts([groups[n] for n in again]), strict=True):
                    replies[n] = reply
        except self._errors as exc:
            replies = [exc] * len(groups)
        for group, reply in zip(groups, replies, strict=True):
            for n, item in enumerate(group):
                if isinstance(reply, Exception):  # the script's error: unreachable, cannot write (MISCONF)...
                    item.error = self._failure(reply, item.work[1][0])
                elif reply[n][0] == 1:
                    item.value = reply[n][1:]
                else:  # the call's own error (out of memory): it wrote nothing
                    item.error = LedgerUnavailable(f"Redis ledger: {reply[n][1]}")

    def _failure(self, error: Exception, call: str) -> LedgerUnavailable:
        """What a call's failure tells: nothing was applied, or, for a move that may have reached Redis
        and still run there, nothing is known (see :class:`LedgerOutcomeUnknown`)."""
        message = f"Redis ledger: {type(error).__name__}: {error}"
        if (
            call == "record"
            and isinstance(error, self._unanswered)
            and (type(self._retry).maybe_sent or not _before_sending(error))
        ):
            return LedgerOutcomeUnknown(message)
        return LedgerUnavailable(message)

    def _scripts(self, groups: list[list[_Work]]) -> list[Any]:
        """The replies to one batch script per group, sent in one pipeline (an error in its place)."""
        pipe = self._redis.pipeline(transaction=False)
        for group in groups:
            keys = [item.work[0] for item in group]
            pipe.execute_command("EVALSHA", _BATCH_SHA, len(keys), *keys, *(a for item in group for a in item.work[1]))
        replies: list[Any] = pipe.execute(raise_on_error=False)
        return replies

    def start(self, game_id: str, token: str) -> None:
        self._script("start", game_id, token, self.ttl)

    def record(self, game_id: str, seq: int, digest: str, token: str, sent: str, at: int | None = None) -> Outcome:
        # The token sent (5 KB) travels only for a game the ledger does not hold: a second, rare round trip.
        call: tuple[Any, ...] = ("record", game_id) if at is None else ("record_at", game_id, at - self.ahead_ms)
        kind, latest, recorded, *clock = self._script(*call, seq, digest, token, self.ttl, "")
        if kind == 3:
            kind, latest, recorded, *clock = self._script(*call, seq, digest, token, self.ttl, sent)
        if clock:
            self._skew = int(clock[0]) - _wall_ms()  # Redis's TIME as this record read it
        if kind == 4:
            return Outcome(SKEWED, int(latest) + self.ahead_ms)
        if kind == 1:
            return Outcome(APPLIED, latest, token)
        if kind == 2:
            return Outcome(REPEATED, latest, recorded)
        return Outcome(STALE, latest)

    def stale(self, game_id: str, seq: int, digest: str) -> int | None:
        (latest,) = self._script("stale", game_id, seq, digest)
        return None if latest < 0 else int(latest)

    def latest(self, game_id: str) -> tuple[int, str] | None:
        found = self._script("latest", game_id)
        return (int(found[0]), found[1]) if found else None

    def move(self, game_id: str, seq: int) -> tuple[str, str] | None:
        found = self._script("move", game_id, seq)
        return (found[0], found[1]) if found else None

    def now(self, game_id: str) -> int:
        """Redis's clock: ``TIME``, read in the batch script, once; then this machine's clock plus the offset
        every timed record renews (it reads ``TIME`` too, and refuses a time too far from it: ``record``'s
        ``at``), so a move costs no second round trip."""
        if self._skew is None:
            before = _wall_ms()
            (now,) = self._script("now", game_id)
            self._skew = int(now) - (before + _wall_ms()) // 2
        return _wall_ms() + self._skew + self.ahead_ms

    def ping(self) -> None:
        self._call(lambda: self._client().ping())

    def close(self) -> None:
        if self._pid == os.getpid():
            self._redis.close()
        self._pid, self._redis, self._group = -1, None, None

    def size(self, game_id: str) -> int:
        """Bytes Redis uses for one game (the benchmark's ledger size)."""
        return int(self._call(lambda: self._client().memory_usage(game_key(game_id), samples=0)) or 0)
