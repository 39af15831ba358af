"""Heavy work apart (docs/api.md §16): a hint, a record's recovery or an event's pairing never takes the CPU
of the workers that answer rule checks.

A rule check is a few milliseconds of CPU; a ``/v1/suggest`` is up to two seconds of it, and a record
recovered from the ledger or an event of 4,096 players more. Run inside a gevent worker, such a request
stops every other connection of that worker until it ends; run inside a sync worker, it holds the worker.
So heavy work goes elsewhere, in three parts:

- **Slots** (:class:`Slots`): a replica's share for heavy work is ``REFEREE_HEAVY_SLOTS`` lock files in a
  directory its workers share. A heavy request takes one slot as it starts, or is refused at once
  (:func:`busy`: 429 ``busy`` with ``Retry-After``): never queued past its budget. A slot is an ``flock``,
  so the kernel frees the slot of a worker that dies holding it.
- **Helpers** (:class:`Helpers`): processes of each worker, started with ``spawn`` (nothing of the
  worker's gevent hub or sockets comes along), running one job at a time at a lower CPU priority
  (``REFEREE_HEAVY_NICE``), so that the kernel gives the serving workers the CPU first. The worker waits
  for the answer on a pipe (``multiprocessing.connection``, whose wait is cooperative under gevent): its
  other requests go on meanwhile.
- **Jobs**: module-level functions, called in a helper as ``job(catalog, *args)``; arguments and answers
  cross the pipe pickled. A job that outlives its time is ended with its helper (:class:`HeavyTimeout`).

Why processes and not threads: the bots and the recovery are pure Python, and a thread holds the GIL
that the worker's requests need (docs/decisions.md, "Heavy work runs in helper processes").
"""

from __future__ import annotations

import atexit
import fcntl
import multiprocessing
import os
import pickle
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from referee.service import metrics
from referee.service.problems import Problem

Job = Callable[..., Any]

START_SECONDS = 30.0  # a helper that has not imported the referee by then is taken for dead
RETRY_AFTER_SECONDS = 1  # a slot frees within a suggestion's largest budget, 2 s: ask again soon


def busy(what: str, detail: str | None = None) -> Problem:
    """429 ``busy``: the replica's share for heavy work is taken (docs/api.md §16), or ``detail``."""
    problem = Problem(
        "busy",
        "busy",
        detail
        or f"The referee's share for heavy work is busy: {what} could not start now. Ask again after "
        f"Retry-After seconds; rule checks are never refused this way.",
    )
    problem.headers = [("Retry-After", str(RETRY_AFTER_SECONDS))]
    return problem


class HeavyTimeout(Exception):
    """A job ran past its hard deadline; its helper was ended."""


def heavy_timeout(what: str) -> Problem:
    """503 ``heavy_timeout``: the job ran past its time and was ended; nothing was changed."""
    problem = Problem(
        "heavy-timeout",
        "heavy_timeout",
        f"{what} ran past its time (its budget_ms, or REFEREE_HEAVY_MAX_SECONDS) and was ended; nothing changed.",
    )
    problem.headers = [("Retry-After", str(RETRY_AFTER_SECONDS))]
    return problem


# -- slots: the replica's share ----------------------------------------------------


class Slots:
    """``count`` lock files in ``folder``; each worker opens them itself (a lock belongs to an open file)."""

    def __init__(self, folder: str, count: int):
        self.folder = folder
        self.count = count
        self._pid = -1
        self._files: list[int] = []
        self._held: set[int] = set()  # the slots this worker holds (its greenlets share its files)

    def _opened(self) -> list[int]:
        if self._pid != os.getpid():  # a fork (gunicorn's worker) opens its own files: its locks are its own
            self._pid, self._held = os.getpid(), set()
            self._files = [
                os.open(os.path.join(self.folder, f"slot-{i}"), os.O_RDWR | os.O_CREAT, 0o600)
                for i in range(self.count)
            ]
        return self._files

    def take(self) -> int | None:
        """A free slot's file, locked now, or None when every slot is taken."""
        for fd in self._opened():
            if fd in self._held:  # this worker's own lock: flock would grant it again
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # another worker's
                continue
            self._held.add(fd)
            return fd
        return None

    def give_back(self, fd: int) -> None:
        self._held.discard(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)


def slots_folder() -> str:
    """A folder for one replica's slots, removed when the process that made it exits (not its forks)."""
    folder = tempfile.mkdtemp(prefix="referee-heavy-")
    owner = os.getpid()

    def remove() -> None:
        if os.getpid() == owner:
            shutil.rmtree(folder, ignore_errors=True)

    atexit.register(remove)
    return folder


# -- helpers: the processes that run jobs -------------------------------------------


def _helper_main(conn: Connection) -> None:
    """A helper's life (its priority lowered by the worker as it started): take the catalog, then run each
    job it is sent until the worker goes away."""
    try:
        catalog = conn.recv()
    except (EOFError, OSError):
        return
    conn.send(("ready", None))
    while True:
        try:
            job, args = conn.recv()
        except (EOFError, OSError):  # the worker ended: so does its helper
            return
        cpu = time.process_time()
        try:
            answer = ("ok", job(catalog, *args))
        except Exception as exc:  # the job's own refusal, handed to the worker to answer
            answer = ("raised", exc if _crosses(exc) else RuntimeError(f"{type(exc).__name__}: {exc}"))
        conn.send((*answer, time.process_time() - cpu))


def _crosses(exc: Exception) -> bool:
    """Whether an exception comes out of the pipe as it went in (one whose ``__init__`` takes other
    arguments than its ``args`` does not)."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return False
    return True


@dataclass
class _Helper:
    process: Any
    conn: Connection
    ready: bool = False


@dataclass
class Helpers:
    """The helper processes of one worker: at most ``count`` (a worker never holds more slots)."""

    catalog: Any
    count: int
    nice: int
    _idle: list[_Helper] = field(default_factory=list)
    _running: int = 0
    _pid: int = -1

    def _forked(self) -> None:
        if self._pid != os.getpid():  # the master's helpers (if any) are not this worker's
            self._pid, self._idle, self._running = os.getpid(), [], 0

    def start(self) -> None:
        """Start every helper now (a worker at boot), so that the first job does not wait for one to import."""
        self._forked()
        while len(self._idle) + self._running < self.count:
            self._idle.append(self._spawn())

    def _spawn(self) -> _Helper:
        ctx = multiprocessing.get_context("spawn")
        mine, theirs = ctx.Pipe()
        for end in (mine, theirs):  # a gevent worker makes sockets non-blocking: a read must wait for its bytes
            os.set_blocking(end.fileno(), True)
        # What spawn writes to the new interpreter is kept small, so that the write never waits for it to
        # start (a worker's loop would wait too); the catalog goes by the pipe, which holds it whole.
        process = ctx.Process(target=_helper_main, args=(theirs,), daemon=True)
        process.start()
        # Lowered now, before the new interpreter imports the referee: its start competes with no request.
        assert process.pid is not None  # started
        os.setpriority(os.PRIO_PROCESS, process.pid, min(19, os.getpriority(os.PRIO_PROCESS, 0) + self.nice))
        theirs.close()
        mine.send(self.catalog)
        return _Helper(process, mine)

    def run(self, job: Job, args: tuple[Any, ...], seconds: float) -> tuple[Any, float]:
        """``job(catalog, *args)`` in a helper: its answer and the CPU seconds it used. Re-raises the job's
        exception; :class:`HeavyTimeout` ``seconds`` after the job was sent."""
        self._forked()
        helper = self._idle.pop() if self._idle else self._spawn()
        self._running += 1
        try:
            if not helper.ready:  # a helper still starting (a worker warms them at boot): its start is not the job's
                self._receive(helper, time.perf_counter() + START_SECONDS)  # ("ready", None)
                helper.ready = True
            try:
                helper.conn.send((job, args))
            except OSError:  # it died meanwhile
                raise HeavyTimeout() from None
            kind, value, cpu = self._receive(helper, time.perf_counter() + seconds)
        except BaseException:
            self._running -= 1
            self._end(helper)
            self.start()  # its replacement starts now, not when the next job comes
            raise
        self._running -= 1
        self._idle.append(helper)
        if kind == "raised":
            raise value
        return value, cpu

    def _receive(self, helper: _Helper, hard_deadline: float) -> Any:
        while not helper.conn.poll(max(0.0, hard_deadline - time.perf_counter())):
            if time.perf_counter() >= hard_deadline:
                raise HeavyTimeout()
        try:
            return helper.conn.recv()
        except (EOFError, OSError):  # the helper died (killed from outside, out of memory)
            raise HeavyTimeout() from None

    @staticmethod
    def _end(helper: _Helper) -> None:
        helper.conn.close()
        if helper.process.is_alive():
            helper.process.kill()
        helper.process.join(1)


# -- the replica's heavy work --------------------------------------------------------


@dataclass
class HeavyWork:
    """One app's share for heavy work: its slots (shared by the replica's workers) and this worker's helpers."""

    slots: Slots
    helpers: Helpers
    max_seconds: float

    @classmethod
    def of(cls, catalog: Any, slots: int, nice: int, max_seconds: float) -> HeavyWork:
        return cls(Slots(slots_folder(), slots), Helpers(catalog, slots, nice), max_seconds)

    def run(self, what: str, job: Job, *args: Any, seconds: float | None = None) -> tuple[Any, float]:
        """``job(catalog, *args)`` in a helper, if a slot is free now (else :func:`busy`); its answer and CPU
        seconds. It is ended (:class:`HeavyTimeout`) ``seconds`` (``REFEREE_HEAVY_MAX_SECONDS``) after it
        started."""
        slot = self.slots.take()
        if slot is None:
            metrics.heavy_job(job.__name__, "busy")
            raise busy(what)
        try:
            answer = self.helpers.run(job, args, self.max_seconds if seconds is None else seconds)
        except HeavyTimeout:
            metrics.heavy_job(job.__name__, "timeout")
            raise
        finally:
            self.slots.give_back(slot)
        metrics.heavy_job(job.__name__, "done")
        return answer
