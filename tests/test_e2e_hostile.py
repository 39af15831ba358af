"""Hostile clients against the real server (``referee serve``, gunicorn, loopback): slow sockets,
gunicorn-level errors, unreadable and oversized bodies, reload without unreadiness (issue 8, 9).

Behaviour only: each test bounds its own time generously and asserts what a
client sees, never how fast (speed is in benchmarks/slow_clients.py).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import time

import httpx
import pytest

from benchmarks.slow_clients import attacking
from tests.conftest import start_server

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server for the module (starting one costs seconds): 1 worker, a 2 s client timeout."""
    started: list = []
    server = start_server(tmp_path_factory.mktemp("hostile"), started, workers=1, env={"REFEREE_CLIENT_TIMEOUT": "2"})
    yield server
    server.stop()


def exchange(url: str, raw: bytes, half_close: bool = False, timeout: float = 10) -> bytes:
    """Send ``raw`` on a fresh connection and read until the server closes or one whole answer is in."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(raw)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not chunk:
                break
            data += chunk
            head, sep, body = data.partition(b"\r\n\r\n")
            length = [
                int(v)
                for k, _, v in (ln.partition(b":") for ln in head.split(b"\r\n"))
                if k.lower() == b"content-length"
            ]
            if sep and length and len(body) >= length[0]:
                break
        return data


def problem_of(answer: bytes) -> tuple[int, dict, dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    assert headers["content-type"] == "application/problem+json", answer[:300]
    return int(lines[0].split()[1]), headers, json.loads(body)


def test_a_normal_client_is_served_while_hostile_sockets_sit_on_the_server(server, new_game_body):
    """Given one worker and 20 idle, 20 trickled-header and 2 non-reading sockets on it,
    when a normal client plays, then every one of its requests is answered."""
    host, port = "127.0.0.1", int(server.url.rsplit(":", 1)[1])
    with attacking(host, port, idle=20, trickle=20, nonreading=2):
        time.sleep(1.0)  # the sockets are on the server
        with httpx.Client(base_url=server.url, timeout=10) as http:
            assert http.get("/livez").status_code == 200
            game = http.post("/v1/games", json=new_game_body)
            assert game.status_code == 201
            state = game.json()["state"]
            actions = http.post("/v1/legal-actions", json={"state": state}).json()["actions"]
            keep = next(a for a in actions if a["type"] == "keep")
            assert http.post("/v1/apply", json={"state": state, "action": keep}).status_code == 200
            assert http.get("/openapi.yaml").status_code == 200


def test_a_request_head_that_never_ends_is_closed_after_the_client_timeout(server):
    answer = exchange(server.url, b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Slow: abc", timeout=15)
    assert answer == b""  # closed, without an answer, well before the test's own bound


@pytest.mark.parametrize(
    "raw,status,code",
    [
        (b"GET /livez HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400, "bad_request"),
        (b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"),
        (
            b"GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 10000 + b"\r\n\r\n",
            431,
            "request_header_fields_too_large",
        ),
        (
            b"GET /livez HTTP/1.1\r\nHost: x\r\nContent-Length: " + str(2**64).encode() + b"\r\n\r\n",
            400,
            "bad_content_length",
        ),
        (
            b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            b"zz\r\nabc\r\n0\r\n\r\n",
            400,
            "unreadable_body",
        ),
    ],
)
def test_malformed_requests_get_problem_json_with_a_logged_request_id(server, raw, status, code):
    got, headers, problem = problem_of(exchange(server.url, raw))
    assert got == status == problem["status"] and problem["instance"] == headers["x-request-id"]
    assert problem["code"] == code
    deadline = time.monotonic() + 10
    while f'"request_id":"{problem["instance"]}"' not in server.output() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert f'"request_id":"{problem["instance"]}"' in server.output()
    assert "Traceback" not in server.output()


def test_a_chunked_body_cut_short_is_a_400(server):
    raw = (
        b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Transfer-Encoding: chunked\r\n\r\n10\r\n{"sta'
    )
    status, _, problem = problem_of(exchange(server.url, raw, half_close=True))
    assert status == 400 and problem["code"] == "unreadable_body"


@pytest.mark.parametrize("chunked", [False, True])
def test_an_oversized_body_sent_whole_before_reading_gets_its_413(server, chunked):
    """Issue 9: a client that writes 2 MiB, then reads, gets the 413 (not a reset), every time."""
    body = b"{" + b" " * (2 * 1024 * 1024 - 2) + b"}"
    if chunked:
        framing = b"Transfer-Encoding: chunked\r\n\r\n"
        payload = (
            b"".join(
                b"%x\r\n%s\r\n" % (len(body[i : i + 65536]), body[i : i + 65536]) for i in range(0, len(body), 65536)
            )
            + b"0\r\n\r\n"
        )
    else:
        framing = b"Content-Length: %d\r\n\r\n" % len(body)
        payload = body
    raw = (
        b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nConnection: close\r\n"
        + framing
        + payload
    )
    for _ in range(5):
        status, _, problem = problem_of(exchange(server.url, raw, timeout=20))
        assert status == 413 and problem["code"] == "payload_too_large"


def test_a_reload_never_reports_unready(serve):
    """Given a server with a drain time, when it reloads (SIGHUP), then /readyz stays 200."""
    server = serve(workers=1, env={"REFEREE_DRAIN_SECONDS": "2"})
    os.kill(server.pid, signal.SIGHUP)
    statuses = []
    deadline = time.monotonic() + 3  # the old worker would drain (503) for 2 s of it
    with httpx.Client(base_url=server.url, timeout=5) as http:
        while time.monotonic() < deadline:
            statuses.append(http.get("/readyz", headers={"Connection": "close"}).status_code)
            time.sleep(0.1)
    assert statuses and set(statuses) == {200}
    assert "Handling signal: hup" in server.output()


def test_gevent_workers_also_serve_a_normal_client_under_hostile_sockets(serve):
    """REFEREE_WORKER_CLASS=gevent, the other worker for running bare, holds the same line."""
    server = serve(workers=1, env={"REFEREE_WORKER_CLASS": "gevent", "REFEREE_CLIENT_TIMEOUT": "2"})
    host, port = "127.0.0.1", int(server.url.rsplit(":", 1)[1])
    with attacking(host, port, idle=20, trickle=20, nonreading=2):
        time.sleep(1.0)
        with httpx.Client(base_url=server.url, timeout=10) as http:
            assert [http.get("/livez").status_code for _ in range(3)] == [200, 200, 200]
            assert http.get("/openapi.yaml").status_code == 200
