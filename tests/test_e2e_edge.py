"""The edge (issue 19): the requests that used to stop a worker, sent to ``referee serve`` as shipped
(gunicorn's ``gevent`` workers, nothing in front) and to real nginx in front of ``sync`` workers
(deploy/compose/nginx.conf).

Each attack gets a 4xx or a clean close within 2 s; a normal client keeps ≥ 99%
of its ``/livez`` and ``/v1/apply`` probes answered within 1 s while 40, then
1,000, idle sockets and the attacks sit on the server; a worker out of file
descriptors (``EMFILE`` on accept) stays up and serves again once it has some.
Bounded: every socket has a timeout, every server is stopped by its PID.
"""

from __future__ import annotations

import gzip
import json
import re
import resource
import socket
import threading
import time

import pytest

from benchmarks.nginx import NGINX, Nginx, compose_config
from benchmarks.slow_clients import attacking, probe
from tests.conftest import NGINX_MISSING, launch_server, need_program, wait_ready

pytestmark = pytest.mark.e2e

HEAD = b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"


def one_byte_chunks(body: bytes) -> bytes:
    return HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + b"".join(b"1\r\n%c\r\n" % c for c in body) + b"0\r\n\r\n"


def _body_of(size: int) -> bytes:
    return b'{"a":"' + b"x" * (size - 8) + b'"}'


_DEEP = b'{"a":' + b"[" * 300 + b"]" * 300 + b"}"
_GZIP = gzip.compress(b'{"state": {}, "action": {}}')

# name → the raw request; each is sent and then the connection is left open, as the attacker did.
ATTACKS = {
    # A negative chunk size: the old worker's scan stood still and spun at 100% CPU.
    "negative_chunk_size": HEAD + b"Transfer-Encoding: chunked\r\n\r\n-6\r\n",
    # 600 KB of one-byte chunks (100,000 chunks): quadratic in the old worker.
    "one_byte_chunks": one_byte_chunks(_body_of(100_000)),
    # Lines ended by a bare LF: refused (gunicorn) or read as lines (nginx, RFC 9112 §2.2 allows it);
    # either way answered at once, never left waiting.
    "bare_lf": b"GET /livez HTTP/1.1\nHost: x\n\n",
    # "100-continue" in a header other than Expect, the body already sent.
    "continue_in_another_header": HEAD + b"X-Note: 100-continue\r\nContent-Length: 2\r\n\r\n{}",
    # A request head over 32 KB: its 431 (or the proxy's 400) must arrive, not a reset.
    "head_over_32k": b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40_000 + b"\r\n\r\n",
    "header_line_over_limit": b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 10_000 + b"\r\n\r\n",
    "bad_content_length": b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
    "bad_chunk_size": HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
    # The application's own: JSON nested 300 deep (was a 500), a gzip body (was 400 invalid_json).
    "deep_json": HEAD + b"Content-Length: %d\r\n\r\n" % len(_DEEP) + _DEEP,
    "gzip_body": HEAD + b"Content-Encoding: gzip\r\nContent-Length: %d\r\n\r\n" % len(_GZIP) + _GZIP,
}


# Attacks a server may also read as a valid request and answer: their answer must simply come.
MAY_BE_SERVED = {"bare_lf"}


def answer_to(port: int, raw: bytes, within: float = 2.0) -> tuple[bytes, str]:
    """Send ``raw``, keep the connection open, and read for ``within`` seconds: the bytes answered,
    and how it ended (``closed``: a FIN after them; ``reset``; ``timeout``)."""
    deadline = time.monotonic() + within
    with socket.create_connection(("127.0.0.1", port), timeout=within) as sock:
        try:
            sock.sendall(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server answered and closed before taking it all: read what it said
        data = b""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return data, "timeout"
            sock.settimeout(left)
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                return data, "reset"
            except TimeoutError:
                return data, "timeout"
            if not chunk:
                return data, "closed"
            data += chunk


def status_of(data: bytes) -> int | None:
    match = re.match(rb"HTTP/1\.[01] (\d{3}) ", data)
    return int(match[1]) if match else None


class Target:
    """Where the client connects: ``port``; and the referee server behind it."""

    def __init__(self, name: str, port: int, server, nginx=None):
        self.name, self.port, self.server, self.nginx = name, port, server, nginx


@pytest.fixture(scope="module", params=["gevent", "nginx-sync"])
def target(request, tmp_path_factory):
    """``referee serve`` as the image runs it (2 gevent workers, default settings), or nginx with the
    compose config in front of 2 sync workers."""
    logs = tmp_path_factory.mktemp(f"edge-{request.param}")
    if request.param == "gevent":
        server = wait_ready(launch_server(logs, workers=2))
        yield Target("gevent", int(server.url.rsplit(":", 1)[1]), server)
        server.stop()
        return
    need_program(NGINX, NGINX_MISSING)
    server = wait_ready(launch_server(logs, workers=2, env={"REFEREE_WORKER_CLASS": "sync"}))
    nginx = Nginx(logs, [server.url.removeprefix("http://")], compose_config)
    try:
        yield Target("nginx-sync", nginx.port, server, nginx)
    finally:
        nginx.stop()
        server.stop()


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_each_attack_gets_a_4xx_or_a_clean_close_within_2_s(target, attack):
    data, end = answer_to(target.port, ATTACKS[attack])
    status = status_of(data)
    assert end != "reset" or status is not None, f"{attack}: reset before any answer"
    answered = status is not None and (400 <= status < 500 or (attack in MAY_BE_SERVED and status == 200))
    assert answered or (data == b"" and end == "closed"), f"{attack} via {target.name}: {end}, {data[:200]!r}"
    if status is not None:
        assert end in ("closed", "timeout") and b"100 Continue" not in data
    assert "Traceback" not in target.server.output()


def test_3_6_mb_of_one_byte_chunks_is_answered_within_2_s(target):
    """600,000 one-byte chunks: gunicorn would parse them for seconds, so the referee cuts a chunked body
    off after REFEREE_CHUNKED_BODY_TIMEOUT (1 s) with 408 ``body_timeout``; a fast machine may parse it
    whole before then, and nginx de-chunks it itself and sends the whole body on: both answered 400 (not
    a state). Either way an answer within 2 s (the deadline itself: the next test)."""
    data, _ = answer_to(target.port, one_byte_chunks(_body_of(600_000)))
    status = status_of(data)
    assert status in ((400, 408) if target.name == "gevent" else (400,)), data[:300]
    if status == 408:
        assert b'"code":"body_timeout"' in data


def test_a_chunked_body_still_arriving_after_the_deadline_is_408(target):
    """Given a chunked body whose last chunks come 1.3 s after its first (past REFEREE_CHUNKED_BODY_TIMEOUT,
    1 s), when the rest arrives, then the referee answers 408 ``body_timeout`` at once, whatever the
    machine's speed; nginx reads the whole body itself and sends it on, answered 400 (not a state)."""
    chunks = one_byte_chunks(_body_of(2_000)).replace(HEAD, HEAD + b"Connection: close\r\n", 1)
    half = len(chunks) // 2
    with socket.create_connection(("127.0.0.1", target.port), timeout=5) as sock:
        sock.sendall(chunks[:half])
        time.sleep(1.3)
        sock.sendall(chunks[half:])
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert status_of(data) == (408 if target.name == "gevent" else 400), data[:300]
    if target.name == "gevent":
        assert b'"code":"body_timeout"' in data


def test_a_header_that_mentions_100_continue_gets_no_interim_answer(target):
    """Only ``Expect: 100-continue`` asks for a 100; a body sent with the head is answered once."""
    data, _ = answer_to(target.port, ATTACKS["continue_in_another_header"])
    assert data.count(b"HTTP/1.1 ") == 1 and b"100 Continue" not in data


def apply_request(midgame) -> bytes:
    state, action = midgame
    body = json.dumps({"state": state, "action": action}).encode()
    return (
        HEAD + b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body  # a legal move: 200
    )


LIVEZ = b"GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


class Attacker(threading.Thread):
    """Sends every attack again and again, each on its own connection, until stopped."""

    def __init__(self, port: int):
        super().__init__(daemon=True)
        self.port, self.stopping, self.sent = port, threading.Event(), 0

    def run(self) -> None:
        while not self.stopping.is_set():
            for raw in ATTACKS.values():
                try:
                    answer_to(self.port, raw, within=2.0)
                except OSError:
                    pass
                self.sent += 1
                if self.stopping.wait(0.05):
                    return


@pytest.mark.parametrize("idle", [40, 1000])
def test_a_normal_client_keeps_99_percent_of_its_probes_while_idle_sockets_and_attacks_sit_on_it(target, midgame, idle):
    """Given ``idle`` idle sockets held open and every attack sent again and again, when a client
    probes /livez and /v1/apply in turn, then at least 99% of its probes are answered 200 within 1 s."""
    requests = [LIVEZ, apply_request(midgame)]
    attacker = Attacker(target.port)
    with attacking("127.0.0.1", target.port, idle=idle, trickle=0, nonreading=0):
        time.sleep(1.0)  # the sockets are on the server
        attacker.start()
        try:
            results = []
            for i in range(200):
                results.append(probe("127.0.0.1", target.port, requests[i % 2], timeout=1.0))
                time.sleep(0.01)
        finally:
            attacker.stopping.set()
            attacker.join(5)
    answered = sum(r is not None for r in results)
    assert attacker.sent > 0
    assert answered >= 0.99 * len(results), f"{answered}/{len(results)} probes answered within 1 s via {target.name}"


# -- out of file descriptors --------------------------------------------------------------


def worker_pids(server, booted: int = 1) -> list[int]:
    """Every worker the server has booted (its log's lines), once at least ``booted`` have: gunicorn
    starts its workers up to 0.1 s apart, so the first may answer /livez before the last has booted."""
    deadline = time.monotonic() + 30
    while True:
        pids = [int(pid) for pid in re.findall(r"Booting worker with pid: (\d+)", server.output())]
        if len(pids) >= booted or time.monotonic() > deadline:
            return pids
        time.sleep(0.05)


def lowest_free_fd(pid: int) -> int:
    """The descriptor number the process's next accept() would get: a limit of it makes accept fail."""
    import os

    used = {int(fd) for fd in os.listdir(f"/proc/{pid}/fd")}
    return next(n for n in range(len(used) + 1) if n not in used)


def settled_lowest_free_fd(pid: int) -> int:
    """:func:`lowest_free_fd` once it has stayed the same for 0.3 s (a socket just answered closes late)."""
    last = -1
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        now = lowest_free_fd(pid)
        if now == last:
            return now
        last = now
        time.sleep(0.3)
    return last


@pytest.mark.parametrize("worker_class", ["gevent", "sync"])
def test_a_worker_out_of_file_descriptors_survives_and_serves_again(tmp_path, worker_class):
    """Given a worker whose open files are at its limit, when clients connect (accept fails with EMFILE),
    then the worker is not replaced, and once it may open files again it answers."""
    server = wait_ready(launch_server(tmp_path, workers=1, env={"REFEREE_WORKER_CLASS": worker_class}))
    try:
        [pid] = worker_pids(server)
        _, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
        limit = settled_lowest_free_fd(pid)  # once wait_ready's own connection is closed
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (limit, hard))  # the next accept: EMFILE
        port = int(server.url.rsplit(":", 1)[1])
        sockets = [socket.create_connection(("127.0.0.1", port), timeout=2) for _ in range(20)]
        try:
            assert probe("127.0.0.1", port, LIVEZ, timeout=1.5) is None  # it cannot take the connection
            time.sleep(0.5)
            assert worker_pids(server) == [pid] and server.proc.poll() is None
        finally:
            for sock in sockets:
                sock.close()
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (hard, hard))
        deadline = time.monotonic() + 10
        while probe("127.0.0.1", port, LIVEZ, timeout=1.0) is None:
            assert time.monotonic() < deadline, server.output()[-2000:]
        assert worker_pids(server) == [pid], "the worker was replaced"
        assert "Traceback" not in server.output()
        assert "cannot accept a connection" in server.output()
    finally:
        server.stop()


def test_gevent_under_a_low_ulimit_with_many_idle_sockets_keeps_its_workers(tmp_path):
    """``ulimit -n 128`` and 400 idle sockets: accepts fail with EMFILE, no worker crashes, and once the
    idle sockets are gone (closed by the client timeout) the server answers."""

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    server = launch_server(tmp_path, workers=2, env={"REFEREE_CLIENT_TIMEOUT": "2"}, preexec_fn=low_limit)
    wait_ready(server)
    try:
        pids = worker_pids(server, booted=2)
        port = int(server.url.rsplit(":", 1)[1])
        with attacking("127.0.0.1", port, idle=400, trickle=0, nonreading=0):
            time.sleep(3.0)
            assert server.proc.poll() is None
        deadline = time.monotonic() + 15
        while probe("127.0.0.1", port, LIVEZ, timeout=1.0) is None:
            assert time.monotonic() < deadline, server.output()[-2000:]
        assert sorted(worker_pids(server)) == sorted(pids), "a worker was replaced"
        assert "Traceback" not in server.output()
    finally:
        server.stop()
