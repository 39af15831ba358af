"""The buffering worker (``REFEREE_WORKER_CLASS=buffering``, the default) on the real server: requests
that arrive in pieces are read whole before they run, with their own deadlines (issue 8).

Behaviour only: each test bounds its own time and asserts what a client sees.
"""

from __future__ import annotations

import json
import socket
import time

import pytest

from tests.conftest import start_server
from tests.test_e2e_hostile import exchange, problem_of

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One buffering worker with a 2 s client timeout."""
    started: list = []
    server = start_server(
        tmp_path_factory.mktemp("buffering"),
        started,
        workers=1,
        env={"REFEREE_CLIENT_TIMEOUT": "2", "REFEREE_WORKER_CLASS": "buffering"},
    )
    yield server
    server.stop()


@pytest.fixture(scope="module")
def legal_body(catalog, new_game_body) -> bytes:
    from referee.engine import new_game

    state, _ = new_game(catalog, new_game_body)
    return json.dumps({"state": state}).encode()


def head(body_framing: bytes) -> bytes:
    return b"POST /v1/legal-actions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + body_framing + b"\r\n"


def send_in_pieces(url: str, pieces: list[bytes], pause: float = 0.3) -> bytes:
    """Send ``pieces`` with a pause between them (shorter than the deadlines), then read the answer."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        for piece in pieces:
            sock.sendall(piece)
            time.sleep(pause)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return data


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def test_a_request_sent_in_pieces_is_answered_once_whole(server, legal_body):
    """Given a head cut in two and a body in three pieces, each after a pause,
    when the last byte arrives, then the request runs and is answered 200."""
    whole = head(b"Content-Length: %d\r\n" % len(legal_body))
    third = len(legal_body) // 3
    pieces = [whole[:20], whole[20:], legal_body[:third], legal_body[third : 2 * third], legal_body[2 * third :]]
    answer = send_in_pieces(server.url, pieces)
    assert status_of(answer) == 200 and b'"actions"' in answer


def test_a_chunked_body_in_pieces_with_a_trailer_is_answered(server, legal_body):
    half = len(legal_body) // 2
    chunks = [b"%x\r\n%s\r\n" % (len(part), part) for part in (legal_body[:half], legal_body[half:])]
    pieces = [head(b"Transfer-Encoding: chunked\r\n"), *chunks, b"0\r\nX-Trailer: 1\r\n", b"\r\n"]
    answer = send_in_pieces(server.url, pieces)
    assert status_of(answer) == 200 and b'"actions"' in answer


def test_a_client_that_expects_100_continue_gets_it_before_sending_its_body(server, legal_body):
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(head(b"Content-Length: %d\r\nExpect: 100-continue\r\n" % len(legal_body)))
        assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(legal_body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert status_of(data) == 200 and b"100 Continue" not in data


def test_a_body_that_stalls_past_the_client_timeout_is_a_400(server, legal_body):
    """Given a head announcing 100 more bytes than are sent, when the client waits,
    then after the 2 s timeout it gets 400 unreadable_body (not silence, not a 500)."""
    raw = head(b"Content-Length: %d\r\n" % (len(legal_body) + 100)) + legal_body
    status, _, problem = problem_of(exchange(server.url, raw, timeout=15))
    assert status == 400 and problem["code"] == "unreadable_body"


def test_a_pipelined_second_request_gets_the_first_answer_only(server):
    raw = b"GET /livez HTTP/1.1\r\nHost: x\r\n\r\nGET /livez HTTP/1.1\r\nHost: x\r\n\r\n"
    answer = exchange(server.url, raw)
    assert answer.count(b"HTTP/1.1 200") == 1 and b"Connection: close" in answer
