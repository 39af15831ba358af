"""The buffering worker of ``referee serve``: nginx's model inside a gunicorn worker.

One event loop (``selectors``) per worker holds every connection while it is
slow: it reads each request **whole** — head, then body — without blocking,
runs it synchronously once it is complete (the referee's requests are short,
CPU-bound and never wait on I/O), and hands the answer back to the loop to
write without blocking. An idle, trickling or non-reading socket costs a
buffer and a deadline, never the worker; a normal request costs what it
costs under gunicorn's sync worker: no greenlets, no monkey-patching, no
timer per socket operation (see docs/operations.md, "Slow and hostile
clients", for why gevent was dropped).

Deadlines (``REFEREE_CLIENT_TIMEOUT``, gunicorn's ``keepalive``): the head
must be complete within it from the connection, then the body within it
from the head; the answer must keep moving (each write progresses within
it). A connection past its deadline is closed. One request per connection,
as with sync workers; at most ``worker_connections`` connections a worker.

The framing is gunicorn's own parser, run on the buffered bytes: errors in
the head get gunicorn's error answer (problem+json, :mod:`referee.service.worker`),
errors in a body reach the app as they do under sync workers. A body is
waited for up to :data:`BODY_CAP_FACTOR` × ``REFEREE_MAX_BODY`` (the app
reads and drops that much before its 413); past it, the request runs with
what has arrived.
"""

from __future__ import annotations

import os
import selectors
import socket
import time
from datetime import datetime
from typing import Any

from gunicorn import http, util
from gunicorn.http import wsgi
from gunicorn.http.errors import NoMoreData
from gunicorn.workers.base import Worker

from referee.service.buffers import HEAD_END, ChunkScan, Connection, Reply

HEAD_PARSE_AT = 32 * 1024  # a head this long with no end yet: parse it anyway (its limits answer 414/431)
BODY_CAP_FACTOR = 4  # = referee.service.reading.DISCARD_FACTOR: what the app reads before its 413
BUDGET_FACTOR = 32  # a worker holds at most 32 × REFEREE_MAX_BODY of unfinished requests
RECV_SIZE = 256 * 1024
SWEEP_EVERY = 0.25  # seconds between two looks at the deadlines
LINGER = 2.0  # seconds an answered client may still send the body the app did not take


class BufferingWorker(Worker):
    """A gunicorn worker that buffers each request and answer in an event loop (module docstring)."""

    def init_process(self) -> None:
        self.selector = selectors.DefaultSelector()
        self.connections: dict[int, Connection] = {}
        self.accepting = False
        self.next_sweep = 0.0
        self.buffered = 0  # bytes of unfinished requests held, all connections together
        super().init_process()  # loads the app, then run()

    # -- the loop --------------------------------------------------------------------------

    def run(self) -> None:
        max_body = self.wsgi.extensions["referee"].settings.max_body  # REFEREE_MAX_BODY
        self.body_cap, self.budget = BODY_CAP_FACTOR * max_body, BUDGET_FACTOR * max_body
        for listener in self.sockets:
            listener.setblocking(False)
        self.selector.register(self.PIPE[0], selectors.EVENT_READ, self.on_wakeup)
        self.set_accepting(True)
        while self.alive:
            self.notify()
            if self.ppid != os.getppid():
                self.log.info("Parent changed, shutting down: %s", self)
                break
            self.set_accepting(len(self.connections) < self.cfg.worker_connections)
            self.tick(1.0)
        self.finish()

    def tick(self, timeout: float) -> None:
        try:
            events = self.selector.select(timeout)
        except InterruptedError:
            events = []
        for key, mask in events:
            key.data(key.fileobj, mask)
        now = time.monotonic()
        if now >= self.next_sweep:
            self.next_sweep = now + SWEEP_EVERY
            for conn in [c for c in self.connections.values() if c.deadline <= now]:
                self.expire(conn)

    def expire(self, conn: Connection) -> None:
        """Past its deadline: a body that stalled is served as it is (the app answers 400
        ``unreadable_body``); a head that never ended or an answer never read is closed."""
        if conn.head_end >= 0 and not conn.out and not conn.lingering:
            conn.eof = True
            self.unwatch(conn)
            self.serve(conn)
            return
        if not conn.lingering:
            self.log.info("closed a connection whose client stopped reading or sending (%s)", conn.addr)
        self.close(conn)

    def finish(self) -> None:
        """Stopping: take no more connections, drop the incomplete requests, finish the answers."""
        self.set_accepting(False)
        for conn in [c for c in self.connections.values() if not c.out]:
            self.close(conn)
        limit = time.monotonic() + self.cfg.graceful_timeout
        while self.connections and time.monotonic() < limit:
            self.notify()
            self.tick(0.5)
        for conn in list(self.connections.values()):
            self.close(conn)

    def on_wakeup(self, fd: int, mask: int) -> None:
        try:
            os.read(fd, 4096)  # a signal (set_wakeup_fd) or stop_now
        except OSError:
            pass

    def set_accepting(self, on: bool) -> None:
        if on == self.accepting:
            return
        for listener in self.sockets:
            if on:
                self.selector.register(listener, selectors.EVENT_READ, self.on_accept)
            else:
                self.selector.unregister(listener)
        self.accepting = on

    def on_accept(self, listener: Any, mask: int) -> None:
        # One connection per wake-up when several workers share the socket, as gunicorn's sync
        # worker does: the next one goes to whichever worker is free first.
        for _ in range(1 if self.cfg.workers > 1 else 16):
            try:
                sock, addr = listener.accept()
            except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                return
            sock.setblocking(False)
            conn = Connection(sock, addr, listener, time.monotonic() + self.cfg.keepalive)
            self.connections[sock.fileno()] = conn
            self.on_readable(conn)  # the request is usually there already
            if not self.alive:
                return

    # -- reading -------------------------------------------------------------------------

    def on_event(self, sock: socket.socket, mask: int) -> None:
        conn = self.connections.get(sock.fileno())
        if conn is None:
            return
        if conn.out:
            self.on_writable(conn)
        elif conn.lingering:
            self.on_lingering(conn)
        else:
            self.on_readable(conn)

    def on_readable(self, conn: Connection) -> None:
        try:
            chunk = conn.sock.recv(RECV_SIZE)
        except (BlockingIOError, InterruptedError):
            chunk = None
        except OSError:
            self.close(conn)
            return
        if chunk == b"":
            conn.eof = True
        elif chunk:
            conn.data += chunk
            self.buffered += len(chunk)
            if self.buffered > self.budget:  # many large bodies at once: shed the one that brings more
                self.log.warning(
                    "closed a connection: unfinished requests hold %d bytes (%s)", self.buffered, conn.addr
                )
                self.close(conn)
                return
        if self.is_complete(conn):
            self.unwatch(conn)
            self.serve(conn)
        elif conn.eof:
            self.close(conn)  # gone before its head was whole
        else:
            self.watch(conn, selectors.EVENT_READ)

    def is_complete(self, conn: Connection) -> bool:
        """Whether the request can run: whole, or as whole as it will get."""
        data = conn.data
        if conn.head_end < 0:
            end = data.find(HEAD_END, max(0, conn.scanned - 3))
            conn.scanned = len(data)
            if end < 0:
                return len(data) >= HEAD_PARSE_AT
            conn.head_end = end + 4
            if not self.frame_body(conn):
                return True  # no body, or a head the parser will refuse
            conn.deadline = time.monotonic() + self.cfg.keepalive  # the body's own deadline
            self.send_continue(conn)
        if conn.eof or len(data) - conn.head_end > self.body_cap:
            return True
        if conn.chunks is not None:
            return conn.chunks.advance(data)
        return conn.need is not None and len(data) >= conn.need

    def frame_body(self, conn: Connection) -> bool:
        """Read the body's framing from the head; False when there is nothing more to wait for."""
        head = bytes(conn.data[: conn.head_end]).lower()
        if b"\r\ntransfer-encoding:" in head:
            coding = head.rsplit(b"\r\ntransfer-encoding:", 1)[1].split(b"\r\n", 1)[0]
            if coding.strip().endswith(b"chunked"):
                conn.chunks = ChunkScan(conn.head_end)
                return not conn.chunks.advance(conn.data)
            return False  # the parser refuses it
        at = head.find(b"\r\ncontent-length:")
        if at < 0 or head.find(b"\r\ncontent-length:", at + 1) >= 0:
            return False  # no body, or two lengths (the parser refuses them)
        length = head[at + 17 :].split(b"\r\n", 1)[0].strip()
        if not length.isdigit() or len(length) > 18:
            return False  # the parser (or the app) refuses it
        conn.need = conn.head_end + int(length)
        return len(conn.data) < conn.need and int(length) <= self.body_cap

    def send_continue(self, conn: Connection) -> None:
        """A client that waits for "100 Continue" before its body gets it now, not after the body."""
        head = bytes(conn.data[: conn.head_end])
        request_line, _, fields = head.partition(b"\r\n")
        if request_line.endswith(b"HTTP/1.1") and b"100-continue" in fields.lower():
            try:
                conn.sock.send(b"HTTP/1.1 100 Continue\r\n\r\n")
                conn.continued = True
            except OSError:
                pass

    # -- serving ----------------------------------------------------------------------------

    def serve(self, conn: Connection) -> None:
        """Run the request, now whole, and start writing its answer."""
        req = None
        reply = Reply()
        try:
            parser = http.get_parser(self.cfg, self.source(conn), conn.addr)
            req = next(parser)
            if conn.continued:
                req._expected_100_continue = False
            self.handle_request(conn, req, reply)
        except NoMoreData:
            self.close(conn)  # the head was never whole: nothing to answer
            return
        except StopIteration:
            pass
        except Exception as exc:  # gunicorn's parse errors: its error answer (problem+json)
            reply.take()
            try:
                self.handle_error(req, conn.sock, conn.addr, exc)
            except OSError:
                pass
            self.close(conn)
            return
        conn.out = reply.take()
        conn.lingering = not conn.eof and not self.body_received(conn)
        conn.scanned = 0  # now: the body bytes dropped while lingering
        self.release(conn)
        conn.deadline = time.monotonic() + self.cfg.keepalive  # the answer's first write
        self.write(conn)

    @staticmethod
    def body_received(conn: Connection) -> bool:
        if conn.chunks is not None:
            return conn.chunks.done
        return conn.need is None or len(conn.data) >= conn.need

    @staticmethod
    def source(conn: Connection) -> Any:
        """The request's bytes for gunicorn's parser. A body shorter than its Content-Length (the
        client stalled or half-closed) fails when read past its end, so the app answers 400
        ``unreadable_body`` instead of reading a truncated body as a whole one."""
        data = bytes(conn.data)
        if conn.need is None or len(data) >= conn.need:
            return [data]

        def cut_short() -> Any:
            yield data
            raise NoMoreData(b"")

        return cut_short()

    def handle_request(self, conn: Connection, req: Any, reply: Reply) -> None:
        environ: dict = {}
        resp = None
        try:
            self.cfg.pre_request(self, req)
            request_start = datetime.now()
            resp, environ = wsgi.create(req, reply, conn.addr, conn.listener.getsockname(), self.cfg)
            resp.force_close()  # one request per connection (worker.py, GeventWorker.handle_request)
            self.nr += 1
            if self.nr >= self.max_requests:
                self.log.info("Autorestarting worker after current request.")
                self.alive = False
            respiter = self.wsgi(environ, resp.start_response)
            try:
                for item in respiter:
                    resp.write(item)
                resp.close()
            finally:
                self.log.access(resp, req, environ, datetime.now() - request_start)
                if hasattr(respiter, "close"):
                    respiter.close()
        finally:
            try:
                self.cfg.post_request(self, req, environ, resp)
            except Exception:
                self.log.exception("Exception in post_request hook")

    # -- writing ----------------------------------------------------------------------------

    def write(self, conn: Connection) -> None:
        try:
            while conn.out:
                sent = conn.sock.send(conn.out)
                conn.out = conn.out[sent:]
                conn.deadline = time.monotonic() + self.cfg.keepalive  # it moved
        except (BlockingIOError, InterruptedError):
            self.watch(conn, selectors.EVENT_WRITE)
            return
        except OSError:
            self.close(conn)
            return
        self.done(conn)

    def done(self, conn: Connection) -> None:
        """Answered. A client still sending a body the app never took would get a reset for it,
        which can cut the answer, so its bytes are read and dropped until it closes (nginx's
        lingering close), for at most LINGER seconds and the body cap."""
        if not conn.lingering:
            self.close(conn)
            return
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            self.close(conn)
            return
        conn.deadline = time.monotonic() + LINGER
        self.watch(conn, selectors.EVENT_READ)

    def on_lingering(self, conn: Connection) -> None:
        try:
            dropped = len(conn.sock.recv(RECV_SIZE))
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            dropped = 0
        conn.scanned += dropped
        if not dropped or conn.scanned > self.body_cap:
            self.close(conn)

    def on_writable(self, conn: Connection) -> None:
        self.write(conn)

    # -- bookkeeping --------------------------------------------------------------------------

    def watch(self, conn: Connection, events: int) -> None:
        if conn.watched == events:
            return
        if conn.watched:
            self.selector.modify(conn.sock, events, self.on_event)
        else:
            self.selector.register(conn.sock, events, self.on_event)
        conn.watched = events

    def unwatch(self, conn: Connection) -> None:
        if conn.watched:
            self.selector.unregister(conn.sock)
            conn.watched = 0

    def release(self, conn: Connection) -> None:
        self.buffered -= len(conn.data)
        conn.data = bytearray()

    def close(self, conn: Connection) -> None:
        self.release(conn)
        self.unwatch(conn)
        self.connections.pop(conn.sock.fileno(), None)
        util.close(conn.sock)
