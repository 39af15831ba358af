"""The gunicorn workers of ``referee serve``: gunicorn's own ``gevent`` and ``sync`` classes.

Nothing here parses HTTP: gunicorn reads every request line, header and chunk.

- :class:`GeventWorker` (the default, ``REFEREE_WORKER_CLASS=gevent``): every
  connection is a greenlet, so a socket that idles, trickles its headers or
  never reads its reply waits on its own while the worker serves everyone
  else, up to ``REFEREE_WORKER_CONNECTIONS`` connections per worker (more
  wait in the listen backlog). Deadlines (``REFEREE_CLIENT_TIMEOUT``): a
  request's head must be complete within it (gunicorn's keep-alive timeout
  bounds the whole head read), and each body read or reply write must
  progress within it. One request per connection, as with sync workers (see
  ``handle_request``). An accept error (``EMFILE`` when the process is out of
  file descriptors) makes gevent's server pause accepting and retry; the
  worker stays up.
- :class:`SyncWorker` (``REFEREE_WORKER_CLASS=sync``): gunicorn's sync worker,
  one connection per worker: only behind a buffering proxy (nginx, as every
  shipped deployment runs it). An accept error for want of resources is
  logged and retried after a pause instead of ending the worker.

Both write gunicorn's own errors (a bad request line, header or chunk size, a
URI or header over the limits) as problem+json with a request id, logged like
any request, instead of gunicorn's HTML page, and close the connection only
after the client has had the answer (a lingering close, as nginx does).

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

import errno
import mmap
import os
import socket
import threading
import time
from typing import Any

import orjson
from gunicorn import util
from gunicorn.workers.sync import SyncWorker as _GunicornSync

from referee.service import logs
from referee.service.problems import Problem
from referee.service.reading import new_request_id

# One shared byte, mapped before gunicorn forks: 1 once the master is stopping.
_SHUTTING_DOWN = mmap.mmap(-1, 1)


def mark_shutting_down() -> None:
    """Called in the master on SIGTERM, before it signals the workers."""
    _SHUTTING_DOWN[0] = 1


def shutting_down() -> bool:
    return _SHUTTING_DOWN[0] == 1


# -- gunicorn's own errors as problem+json -------------------------------------------


def problem_write_error(sock: Any, status: int, reason: str, message: str) -> None:
    """gunicorn's ``util.write_error``, answering problem+json and logging the request id."""
    rid = new_request_id()
    code = reason.lower().replace(" ", "_")
    body = orjson.dumps(Problem.of_status(status, code, message or reason).body(rid))
    head = (
        f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\nX-Request-ID: {rid}\r\nX-Content-Type-Options: nosniff\r\n\r\n"
    )
    logs.access({"request_id": rid, "endpoint": "unparsed", "status": status, "code": code, "detail": message[:200]})
    util.write_nonblock(sock, head.encode("latin-1") + body)
    linger(sock)


LINGER_SECONDS = 1.0
LINGER_BYTES = 1024 * 1024


def linger(sock: Any) -> None:
    """Read and drop what the client still sends, for a moment, before gunicorn closes the socket.

    A socket closed with unread bytes in it resets the connection, and a reset
    can reach the client before it has read the answer (a head over the limit
    would get no 431 at all). Half-closing first tells the client the answer
    is complete; nginx's lingering close does the same.
    """
    deadline = time.monotonic() + LINGER_SECONDS
    left = LINGER_BYTES
    try:
        sock.shutdown(socket.SHUT_WR)
        while left > 0:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            sock.settimeout(remaining)
            chunk = sock.recv(65536)
            if not chunk:
                return
            left -= len(chunk)
    except OSError:  # reset, timed out, or already closed: nothing more to wait for
        return


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


# accept() errors that say the process or the system is short of something (file descriptors,
# buffers), not that the listener is broken: wait and retry, never end the worker.
RESOURCE_ERRORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
ACCEPT_PAUSE = 0.1
WARN_EVERY = 10.0


class SyncWorker(_WakesByPipe, _GunicornSync):
    """gunicorn's sync worker with problem+json errors, the drain, and accept errors survived."""

    _warned_at = -WARN_EVERY

    def accept(self, listener: Any) -> None:
        try:
            super().accept(listener)
        except OSError as exc:
            if exc.errno not in RESOURCE_ERRORS:
                raise
            now = time.monotonic()
            if now - self._warned_at >= WARN_EVERY:
                self._warned_at = now
                self.log.warning("cannot accept a connection (%s); retrying", exc.strerror)
            time.sleep(ACCEPT_PAUSE)  # the listener stays readable: do not spin on it
            raise BlockingIOError(errno.EAGAIN, "no connection accepted") from None


def _gevent_worker() -> type:
    import gevent
    from gunicorn.workers.base_async import AsyncWorker
    from gunicorn.workers.ggevent import GeventWorker as _GunicornGevent

    class GeventWorker(_Lifecycle, _GunicornGevent):
        """gunicorn's gevent worker with per-operation client deadlines, problem+json errors and the drain."""

        _warned_at = -WARN_EVERY

        def run(self) -> None:
            # gevent's server already survives an accept error: it pauses accepting and retries
            # (10 ms, doubling to 1 s). It also prints each one's traceback; say it in one line.
            hub = gevent.get_hub()
            report = hub.handle_error

            def handle_error(context: Any, kind: Any, value: Any, tb: Any) -> None:
                if isinstance(value, OSError) and value.errno in RESOURCE_ERRORS:
                    now = time.monotonic()
                    if now - self._warned_at >= WARN_EVERY:
                        self._warned_at = now
                        self.log.warning("cannot accept a connection (%s); retrying", value.strerror)
                    return
                report(context, kind, value, tb)

            hub.handle_error = handle_error
            super().run()

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
