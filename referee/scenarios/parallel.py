"""Where the work of ``referee check`` and ``referee recheck`` runs: this process, local processes, or Dask.

A :class:`Pool` maps a task over work items and yields the answers **in the
items' order**, each as soon as it and those before it are done, with a
bounded number of tasks in flight (an archive of millions of games is read as
it is checked, never held whole). So the output, its order and the exit code
are the same however the work is spread; only the time differs.

- one job: the tasks run here, one after the other (nothing is pickled);
- ``--jobs N``: N local processes (``concurrent.futures``; forked, or from a
  fork server when this process already runs threads);
- ``--dask ADDRESS``: an existing ``dask.distributed`` cluster (the optional
  extra ``ace-file-referee[dask]``). Its workers need this package, same
  version; they are sent everything they read (file contents, the catalog's
  text), so they need not share a file system with the caller.

Tasks receive a :class:`BackendSpec` — what backend to build — rather than a
backend: each process builds it once and keeps it.

Errors, all :class:`PoolError` with a one-line message: the cluster cannot be
reached, ``dask.distributed`` is not installed, a worker died or cannot run
the task, or the service at ``--url`` stopped answering.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # the workers import the backends when they build one (BackendSpec._build)
    from referee.scenarios.backends import Backend

T = TypeVar("T")
R = TypeVar("R")

DASK_CONNECT_SECONDS = 10
IN_FLIGHT_PER_WORKER = 4  # enough to keep a worker busy while its last answer travels back


class PoolError(Exception):
    """The work could not be run where it was sent; one line for the operator."""


def cores() -> int:
    """The cores this process may use (its CPU affinity, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class BackendSpec:
    """What a worker needs to build the backend: the catalog (``None``: the built-in one) or the service's URL."""

    catalog: dict[str, Any] | None = field(default=None, hash=False, compare=False)  # Catalog.canonical
    digest: str = ""  # the catalog's, checked on the worker: the same version of the referee there?
    url: str | None = None
    timeout: float = 30.0

    @classmethod
    def of(cls, backend: Backend) -> BackendSpec:
        """The spec that rebuilds ``backend`` (in-process with its catalog, or the service it speaks to)."""
        from referee.engine import Catalog
        from referee.scenarios.backends import Http

        if isinstance(backend, Http):
            return cls(url=backend.label, timeout=backend.timeout)
        catalog = backend.catalog
        builtin = catalog is Catalog.builtin()
        return cls(None if builtin else catalog.canonical, catalog.digest)

    def backend(self) -> Backend:
        """This process's backend for the spec, built on first use and kept."""
        backend = _BACKENDS.get(self)
        if backend is None:
            backend = _BACKENDS[self] = self._build()
        return backend

    def _build(self) -> Backend:
        from referee.scenarios.backends import Http, InProcess

        if self.url:
            return Http(self.url, timeout=self.timeout)
        from referee.engine import Catalog

        catalog = Catalog.builtin() if self.catalog is None else Catalog.from_data(self.catalog)
        if self.digest and catalog.digest != self.digest:
            raise PoolError(
                f"the catalog loads with digest {catalog.digest[:19]}... on a worker, not "
                f"{self.digest[:19]}...: is the same version of the referee installed there?"
            )
        return InProcess(catalog)


_BACKENDS: dict[BackendSpec, Any] = {}


def guarded(task: Callable[..., R], *args: Any) -> R:
    """Run ``task`` in a worker, turning a lost service into a :class:`PoolError` (which pickles; the client's errors need not)."""
    from referee.client import RefereeConnectionError

    try:
        return task(*args)
    except RefereeConnectionError as exc:
        raise PoolError(str(exc)) from None


class Pool:
    """An ordered, bounded map over an executor (``None``: run here)."""

    def __init__(
        self,
        executor: Executor | None = None,
        workers: int = 1,
        close: Callable[[], None] | None = None,
        where: str = "here",
    ):
        self.executor = executor
        self.workers = workers
        self.where = where
        self._close = close

    def map(self, task: Callable[..., R], items: Iterable[Any], *args: Any) -> Iterator[R]:
        """``task(*args, item)`` for each item, in order; at most a few tasks per worker in flight."""
        if self.executor is None:
            for item in items:
                yield guarded(task, *args, item)
            return
        window: deque[Any] = deque()
        limit = self.workers * IN_FLIGHT_PER_WORKER
        for item in items:
            # one tuple: mypy matches no ParamSpec (submit's) when an argument follows *args
            window.append(self.executor.submit(guarded, task, *(*args, item)))
            if len(window) >= limit:
                yield self._answer(window.popleft())
        while window:
            yield self._answer(window.popleft())

    def _answer(self, future: Any) -> Any:
        try:
            return future.result()
        except PoolError:
            raise
        except BrokenProcessPool:
            raise PoolError("a worker process died (out of memory?); nothing after it was checked") from None
        except Exception as exc:
            raise PoolError(f"a worker {self.where} failed: {type(exc).__name__}: {exc}") from None

    def close(self) -> None:
        if self._close:
            self._close()
            self._close = None

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def open_pool(jobs: int | None = None, dask: str | None = None, items: int | None = None) -> Pool:
    """The pool for ``--jobs``/``--dask``: Dask if an address is given, else ``jobs`` processes
    (default: one per core, no more than there are ``items``), else this process."""
    if dask:
        return _dask_pool(dask)
    jobs = jobs or cores()
    if items is not None:
        jobs = min(jobs, max(items, 1))
    if jobs <= 1:
        return Pool()
    executor = ProcessPoolExecutor(max_workers=jobs, mp_context=_start_method())
    return Pool(executor, jobs, lambda: executor.shutdown(cancel_futures=True), f"process (--jobs {jobs})")


def _start_method() -> Any:
    """fork when this process runs one thread (it starts at once, with the catalog loaded); else forkserver,
    since forking a process that runs threads may copy a lock held by one of them."""
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["referee.scenarios.parallel", "referee.scenarios.runner"])
    return context


def _dask_pool(address: str) -> Pool:
    try:
        from distributed import Client
    except ImportError:
        raise PoolError("--dask needs dask.distributed: pip install 'ace-file-referee[dask]'") from None
    try:
        from distributed.comm import parse_address, parse_host_port

        parse_host_port(parse_address(address)[1])
    except ValueError as exc:
        raise PoolError(f"--dask {address}: not a scheduler address like tcp://scheduler:8786 ({exc})") from None
    try:
        client = Client(address, timeout=DASK_CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise PoolError(f"--dask {address}: cannot reach the scheduler: {' '.join(str(exc).split())}") from None
    threads = sum(client.nthreads().values()) or 1
    return Pool(client.get_executor(pure=False), threads, client.close, f"of the Dask cluster {address}")
