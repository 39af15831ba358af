"""The ledger in one SQLite file (``sqlite:///absolute/path.db``): one machine.

WAL mode, and ``BEGIN IMMEDIATE`` transactions, so gunicorn's workers
(separate processes) see one order of moves. Each process commits the moves
that queued while its previous commit ran in one transaction (a group commit:
one fsync for all of them), each move still its own compare-and-set, and
answers none before that commit has returned.
"""

from __future__ import annotations

import logging
import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar, cast

from referee.private.ledger.base import (
    AHEAD,
    APPLIED,
    REPEATED,
    STALE,
    GroupCommit,
    LedgerUnavailable,
    OnBatch,
    Outcome,
    SteadyClock,
    Work,
    deadline,
    unobserved,
)

_T = TypeVar("_T")

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


# Held only while a process makes its SQLite queue on first use (never across a wait, so it is safe
# under gevent too): two threads' first calls must not make two queues on one connection.
_FIRST_USE = threading.Lock()


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

    def __init__(
        self, path: str, ttl: float, timeout: float, synchronous: str = "FULL", on_batch: OnBatch = unobserved
    ):
        self.path = path
        self.synchronous = synchronous
        self._on_batch = on_batch
        self.ttl = ttl
        self.timeout = timeout
        self._pid = -1
        self._db: sqlite3.Connection | None = None
        self._group: GroupCommit | None = None
        self._off_the_loop = _off_the_loop()
        self._games = 0
        self.ahead_ms = AHEAD
        self._clock = SteadyClock()

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

    def _run(self, work: Callable[[sqlite3.Connection], _T], writes: bool = False) -> _T:
        """``work(db)`` in an immediate transaction, with whatever else is queued meanwhile.

        It answers only once that transaction has committed; any SQLite error
        is :class:`LedgerUnavailable` for every work of the batch, none of
        which is then recorded; so is a batch that could not take the write
        lock by the first of its works' deadlines (``writes``: see
        :class:`~referee.private.ledger.base.GroupCommit`).
        """
        if self._pid != os.getpid():  # a forked worker: its own connection and queue, made after gevent's patch
            with _FIRST_USE:
                if self._pid != os.getpid():
                    self._db = None
                    self._group = GroupCommit(self._commit, on_batch=self._on_batch)
                    self._off_the_loop = _off_the_loop()
                    self._pid = os.getpid()
        assert self._group is not None
        return cast(_T, self._group.run(work, deadline(self.timeout), writes))

    def _commit(self, batch: list[Work]) -> None:
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
            self._begin(db, min(item.deadline for item in batch))
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

    def _begin(self, db: sqlite3.Connection, due: float = math.inf) -> None:
        """``BEGIN IMMEDIATE`` (the write lock), waiting at most the timeout (and not past ``due``, the
        first deadline of the batch's works) while another worker holds it.

        SQLite's own busy handler sleeps 1 ms, then 2, 5, 10...: far longer than a batch holds the lock.
        Trying again after a short, growing pause keeps two busy workers from waiting on each other's
        sleeps. Under gevent the pause is gevent's, so the loop serves other requests meanwhile.
        """
        deadline = min(time.monotonic() + self.timeout, due)
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

    def start(self, game_id: str, token: str, only_new: bool = False) -> bool:
        def work(db: sqlite3.Connection) -> bool:
            if only_new and db.execute("SELECT 1 FROM games WHERE game_id = ?", (game_id,)).fetchone():
                return False
            self._take(db, game_id, 0, token)
            return True

        started = self._run(work, writes=True)
        self._games += 1
        if self._games % _EXPIRE_EVERY == 0:
            self._run(self._expire, writes=True)
        return started

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

        return self._run(work, writes=True)

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
        return self._clock.now() + self.ahead_ms

    def ping(self) -> None:
        # A write that changes a page, so that a read-only file or a full disk shows as unreachable, not
        # only a missing one (a write that changes nothing commits without touching the disk).
        self._run(lambda db: db.execute("INSERT OR REPLACE INTO ping VALUES (1, ?)", (time.time(),)), writes=True)

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
