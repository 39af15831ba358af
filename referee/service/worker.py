"""The gunicorn workers of ``referee serve``: slow clients must never hold a worker.

- :class:`BufferingWorker` (the default, ``REFEREE_WORKER_CLASS=buffering``;
  :mod:`referee.service.buffering`): an event loop reads each request whole
  and writes each answer without blocking, as nginx does; the requests run
  synchronously, one at a time, as under sync workers and at their cost.
- :class:`GeventWorker` (``REFEREE_WORKER_CLASS=gevent``): every connection is
  a greenlet, so a socket that idles, trickles its headers or never reads its
  reply waits on its own while the worker serves everyone else. It costs
  ≈ 25–60% more CPU per request than sync workers (gevent's Python-level
  sockets, hub switches and a timer per blocking operation; docs/operations.md).
  Deadlines (``REFEREE_CLIENT_TIMEOUT``): a request's head must be complete
  within it (gunicorn's keep-alive timeout bounds the whole head read), and
  each body read or reply write must progress within it. One request per
  connection, as with sync workers (see ``handle_request``).
- :class:`SyncWorker` (``REFEREE_WORKER_CLASS=sync``): gunicorn's sync worker,
  one connection per worker: only behind a buffering proxy.

Both write gunicorn's own errors (a bad request line, header or chunk size, a
URI or header over the limits) as problem+json with a request id, logged like
any request, instead of gunicorn's HTML page.

Shutdown (docs/operations.md, "Shutdown"): a worker that gets SIGTERM because
the server is stopping turns ``/readyz`` to 503, keeps serving for
``REFEREE_DRAIN_SECONDS`` and then stops. A worker that gets SIGTERM
for any other reason — a reload (SIGHUP) or fewer workers (TTOU), where the
master has already started its replacements — finishes its requests and
stops without ever reporting unready. The master says which case it is in a
byte of shared memory (:func:`mark_shutting_down`), set before it signals
the workers.
"""

from __future__ import annotations

import mmap
import os
import threading
from typing import Any

import orjson
from gunicorn import util
from gunicorn.workers.sync import SyncWorker as _GunicornSync

from referee.service import logs
from referee.service.buffering import BufferingWorker as _Buffering
from referee.service.problems import TITLES, TYPE_BASE

# One shared byte, mapped before gunicorn forks: 1 once the master is stopping.
_SHUTTING_DOWN = mmap.mmap(-1, 1)


def mark_shutting_down() -> None:
    """Called in the master on SIGTERM, before it signals the workers."""
    _SHUTTING_DOWN[0] = 1


def shutting_down() -> bool:
    return _SHUTTING_DOWN[0] == 1


# -- gunicorn's own errors as problem+json -------------------------------------------

_SLUGS = {
    400: "bad-request",
    403: "forbidden",
    414: "uri-too-long",
    417: "expectation-failed",
    431: "headers-too-large",
    501: "not-implemented",
}


def problem_write_error(sock: Any, status: int, reason: str, message: str) -> None:
    """gunicorn's ``util.write_error``, answering problem+json and logging the request id."""
    rid = os.urandom(16).hex()
    slug = _SLUGS.get(status, "bad-request" if status < 500 else "internal-error")
    code = reason.lower().replace(" ", "_")
    body = orjson.dumps(
        {
            "type": TYPE_BASE + slug,
            "title": TITLES[slug],
            "status": status,
            "code": code,
            "detail": message or reason,
            "instance": rid,
        }
    )
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\nX-Request-ID: {rid}\r\nX-Content-Type-Options: nosniff\r\n\r\n"
    )
    logs.access({"request_id": rid, "endpoint": "unparsed", "status": status, "code": code, "detail": message[:200]})
    util.write_nonblock(sock, head.encode("latin-1") + body)


# -- SIGTERM: drain only when the server stops ----------------------------------------


class _Lifecycle:
    """SIGTERM handling shared by both worker classes (gunicorn calls ``handle_exit``)."""

    alive: bool
    wsgi: Any

    def init_process(self) -> None:
        util.write_error = problem_write_error  # this worker process's error pages
        super().init_process()  # type: ignore[misc]

    def handle_exit(self, sig: int, frame: Any) -> None:
        referee = self.wsgi.extensions["referee"]
        if not shutting_down():  # replaced by the master (reload, fewer workers): stay ready
            self.stop_now()
            return
        if referee.draining:
            return
        referee.draining = True
        drain = referee.settings.drain_seconds
        if drain <= 0:
            self.stop_now()
        else:
            self.stop_later(drain)

    def stop_now(self) -> None:
        self.alive = False

    def stop_later(self, seconds: float) -> None:
        raise NotImplementedError


class _WakesByPipe(_Lifecycle):
    """Stopping a worker that waits in select(): wake it through gunicorn's pipe."""

    PIPE: list[int]

    def stop_now(self) -> None:
        self.alive = False
        try:
            os.write(self.PIPE[1], b"1")  # wake the worker's select()
        except OSError:
            pass

    def stop_later(self, seconds: float) -> None:
        timer = threading.Timer(seconds, self.stop_now)
        timer.daemon = True
        timer.start()


class SyncWorker(_WakesByPipe, _GunicornSync):
    """gunicorn's sync worker with problem+json errors and the drain."""


class BufferingWorker(_WakesByPipe, _Buffering):
    """The buffering worker (:mod:`referee.service.buffering`) with problem+json errors and the drain."""


def _gevent_worker() -> type:
    import gevent
    from gunicorn.workers.base_async import AsyncWorker
    from gunicorn.workers.ggevent import GeventWorker as _GunicornGevent

    class GeventWorker(_Lifecycle, _GunicornGevent):
        """gunicorn's gevent worker with per-operation client deadlines, problem+json errors and the drain."""

        def handle(self, listener: Any, client: Any, addr: Any) -> None:
            client.settimeout(self.cfg.keepalive)  # each read or write must progress within it
            AsyncWorker.handle(self, listener, client, addr)

        def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
            # One request per connection, as sync workers do. A kept-alive connection would stay
            # with the worker that accepted it while its requests, CPU-bound and never yielding,
            # queue behind each other: with several workers the load piles onto some of them
            # (measured: p99 ×20 under wrk). Closed after each answer, every request goes to
            # whichever worker is free to accept, and a draining replica sheds its clients.
            req.must_close = True
            try:
                return super().handle_request(listener_name, req, sock, addr)
            except TimeoutError:  # the socket's deadline (socket.timeout)
                self.log.info("closed a connection whose client stopped reading or sending (%s)", addr)
                raise StopIteration() from None

        def stop_later(self, seconds: float) -> None:
            # In a signal handler under gevent: schedule, never block.
            gevent.spawn_later(seconds, self.stop_now)

    return GeventWorker


def __getattr__(name: str) -> Any:
    # gevent is imported only when the gevent worker is used.
    if name == "GeventWorker":
        cls = _gevent_worker()
        globals()[name] = cls
        return cls
    raise AttributeError(name)
