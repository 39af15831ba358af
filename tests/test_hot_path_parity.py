"""The lean path of the hot endpoints (referee.service.hot_path): its corpus, and what it takes from Flask.

The lean path is a shortcut of the service's registry (referee/service/shortcuts.py):
tests/test_service_shortcuts.py sends every request of the corpus below (and
mutated real positions) to an app with it and to one without it, and requires
the same status line, body bytes, headers in order, access-log line and metric
samples. The corpus covers every error status the hot endpoints answer (400 of
each kind, 403, 413, 415, 422), Japanese, X-Request-ID, sealing, private mode,
CORS and what the lean path leaves to Flask (other methods and a preflight,
405, paths that differ by a slash, a query string). Here: that it does, and
that Flask dispatches exactly the requests that are not a POST to a hot path.
"""

from __future__ import annotations

import copy
import io
import os
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from conftest import SECRET, STATE_KEY
from flask import Flask

from referee.private.tokens import Vault
from referee.service import hot_path, logs, metrics

HOT_PATHS = sorted(hot_path.HOT)
MAX_BODY = 32 * 1024


class Unreadable(io.RawIOBase):
    """A body the server cannot read (a connection cut mid-body)."""

    def read(self, size: int = -1) -> bytes:
        raise OSError("connection reset")


def environ_of(
    method: str, path: str, body: bytes | None, headers: dict[str, str], query: str = ""
) -> Callable[[], dict[str, Any]]:
    """A maker of fresh WSGI environs like gunicorn's (``wsgi.input_terminated``, CONTENT_* unprefixed)."""

    def make() -> dict[str, Any]:
        env: dict[str, Any] = {
            "REQUEST_METHOD": method,
            "PATH_INFO": path,
            "SCRIPT_NAME": "",
            "QUERY_STRING": query,
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8000",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REMOTE_ADDR": "127.0.0.1",
            "HTTP_HOST": "127.0.0.1:8000",
            "wsgi.url_scheme": "http",
            "wsgi.errors": io.StringIO(),
            "wsgi.multithread": False,
            "wsgi.multiprocess": True,
            "wsgi.run_once": False,
            "wsgi.version": (1, 0),
            "wsgi.input_terminated": True,
            "wsgi.input": Unreadable() if body is None else io.BytesIO(body),
        }
        if body is not None and "Transfer-Encoding" not in headers:
            env["CONTENT_LENGTH"] = str(len(body))
        for name, value in headers.items():
            key = name.upper().replace("-", "_")
            env[key if key in ("CONTENT_TYPE", "CONTENT_LENGTH") else "HTTP_" + key] = value
        return env

    return make


@pytest.fixture(scope="module")
def recorded():
    """Every access-log line and metric sample, in order (the apps bind them when made)."""
    seen: list[Any] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            logs, "access", lambda line: seen.append(("log", {k: v for k, v in line.items() if k != "duration_ms"}))
        )
        mp.setattr(
            metrics,
            "record",
            lambda endpoint, method, status, seconds, violation: seen.append(
                ("metric", endpoint, method, status, violation)
            ),
        )
        yield seen


@pytest.fixture(scope="module")
def apps(make_app, recorded) -> dict[str, Flask]:
    return {
        "plain": make_app(log_requests=True, max_body=MAX_BODY, cors_origins=("https://table.example",)),
        "sealed": make_app(log_requests=True, secret=SECRET, cors_origins=("*",)),
        "private": make_app(log_requests=True, state_key=STATE_KEY),
    }


def answer(wsgi: Callable, make: Callable[[], dict[str, Any]], recorded: list, mp: pytest.MonkeyPatch):
    """status, headers, body and what was logged and counted, with os.urandom made repeatable."""
    draws = iter(range(1, 1 << 20))
    mp.setattr(os, "urandom", lambda n: bytes([next(draws) % 256]) * n)
    del recorded[:]
    out: dict[str, Any] = {}

    def start_response(status: str, headers: list, exc_info: Any = None) -> None:
        out["status"], out["headers"] = status, list(headers)

    chunks = wsgi(make(), start_response)
    out["body"] = b"".join(chunks)
    getattr(chunks, "close", lambda: None)()
    out["recorded"] = list(recorded)
    return out


# -- the corpus -----------------------------------------------------------------------


def requests_for(midgame: tuple[dict, dict], catalog) -> list[tuple[str, str, str, str, bytes | None, dict, str]]:
    """(id, app, method, path, body, headers, query) for every case."""
    state, action = copy.deepcopy(midgame)
    other = 1 - action["player"]
    illegal = {**action, "player": other}
    bad_state = copy.deepcopy(state)
    bad_state["players"][0]["hand"].append(bad_state["players"][1]["hand"][0])
    json_ = {"Content-Type": "application/json"}
    ja = {**json_, "Accept-Language": "ja-JP,ja;q=0.9,en;q=0.5"}
    cases: list[tuple[str, str, str, str, bytes | None, dict, str]] = []

    def add(
        name: str,
        path: str,
        body: Any,
        headers: dict = json_,
        app: str = "plain",
        method: str = "POST",
        query: str = "",
    ) -> None:
        raw = body if body is None or isinstance(body, bytes) else orjson.dumps(body)
        cases.append((f"{app}:{method}:{path}:{name}", app, method, path, raw, headers, query))

    good = {
        "/v1/apply": {"state": state, "action": action},
        "/v1/validate": {"state": state, "action": action},
        "/v1/legal-actions": {"state": state},
        "/v1/view": {"state": state, "player": 0},
    }
    for path in HOT_PATHS:
        body = good[path]
        add("ok", path, body)
        add("ok-ja", path, body, ja)
        add("request-id", path, body, {**json_, "X-Request-ID": "client-id.1:2"})
        add("bad-request-id", path, body, {**json_, "X-Request-ID": "no spaces allowed"})
        add("charset", path, body, {"Content-Type": "Application/JSON; charset=utf-8"})
        add("query", path, body, query="x=1")
        add("cors", path, body, {**json_, "Origin": "https://table.example"})
        add("cors-other", path, body, {**json_, "Origin": "https://evil.example"})
        add("400-invalid-json", path, b'{"state": ')
        add("400-invalid-json-ja", path, b"[1, 2", ja)
        add("400-not-object", path, b"[1]")
        add("400-duplicate-key", path, b'{"state": {"a": 1, "a": 2}}')
        add("400-escaped-colon", path, b'{"st\\u003aate": 1, "state": 1}')
        add("400-unknown-field", path, {**body, "extra": 1})
        add("400-missing", path, {})
        add("400-schema", path, {**body, "state": {"players": 1}})
        add("400-inconsistent", path, {**body, "state": bad_state})
        add("400-inconsistent-ja", path, {**body, "state": bad_state}, ja)
        add("400-content-length", path, orjson.dumps(body), {**json_, "Content-Length": "1" * 19})
        add("400-unreadable", path, None, {**json_, "Content-Length": "100"})
        add("400-nonsense-length", path, orjson.dumps(body), {**json_, "Content-Length": "abc"})
        add("413", path, orjson.dumps({**body, "pad": "x" * MAX_BODY}))
        add(
            "413-chunked",
            path,
            orjson.dumps({**body, "pad": "x" * MAX_BODY}),
            {**json_, "Transfer-Encoding": "chunked"},
        )
        add("415", path, orjson.dumps(body), {"Content-Type": "text/plain"})
        add("415-none", path, orjson.dumps(body), {})
        add("405-get", path, None, {}, method="GET")
        add(
            "preflight",
            path,
            None,
            {"Origin": "https://table.example", "Access-Control-Request-Method": "POST"},
            method="OPTIONS",
        )
        add("trailing-slash", path + "/", body)
        add("double-slash", "/" + path, body)
        add("sealed-403-missing", path, body, app="sealed")
        add("sealed-403-mismatch", path, {**body, "state": {**state, "seal": "hmac-sha256:" + "0" * 64}}, app="sealed")
        add("sealed-cors-preflight", path, None, {"Origin": "https://x.example"}, app="sealed", method="OPTIONS")
    add("422", "/v1/apply", {"state": state, "action": illegal})
    add("422-ja", "/v1/apply", {"state": state, "action": illegal}, ja)
    add("422-cors", "/v1/apply", {"state": state, "action": illegal}, {**json_, "Origin": "https://table.example"})
    add("illegal", "/v1/validate", {"state": state, "action": illegal})
    add("illegal-ja", "/v1/validate", {"state": state, "action": illegal}, ja)
    add("player", "/v1/legal-actions", {"state": state, "player": other})
    add("labels", "/v1/legal-actions", {"state": state, "labels": True})
    add("labels-ja", "/v1/legal-actions", {"state": state, "labels": True}, ja)
    add(
        "labels-en-first",
        "/v1/legal-actions",
        {"state": state, "labels": True},
        {**json_, "Accept-Language": "en;q=0.9, ja;q=0.8"},
    )
    add("400-labels", "/v1/legal-actions", {"state": state, "labels": "yes"})
    add("400-player", "/v1/view", {"state": state, "player": 2})

    from referee.private.sealing import Sealer

    sealed = Sealer(SECRET.encode()).seal(copy.deepcopy(state))
    add("sealed-ok", "/v1/apply", {"state": sealed, "action": action}, app="sealed")
    add("sealed-422", "/v1/apply", {"state": sealed, "action": illegal}, app="sealed")
    add("sealed-ok", "/v1/legal-actions", {"state": sealed}, app="sealed")

    vault = Vault(bytes.fromhex(STATE_KEY))
    token = vault.token({**state, "game_id": "g-parity"})
    seat = vault.seat("g-parity", action["player"])
    other_seat = vault.seat("g-parity", other)
    add("private-ok", "/v1/apply", {"state": token, "action": action, "seat": seat}, app="private")
    add("private-422", "/v1/apply", {"state": token, "action": {**action, "type": "pass"}, "seat": seat}, app="private")
    add("private-not-your-seat", "/v1/apply", {"state": token, "action": action, "seat": other_seat}, app="private")
    add("private-bad-token", "/v1/apply", {"state": "afs1.nope", "action": action, "seat": seat}, app="private")
    add("private-plain-state", "/v1/apply", {"state": state, "action": action, "seat": seat}, app="private")
    add("private-ok", "/v1/validate", {"state": token, "action": action, "seat": seat}, app="private")
    add("private-ok", "/v1/legal-actions", {"state": token, "seat": seat, "labels": True}, ja, app="private")
    add("private-ok", "/v1/view", {"state": token, "seat": other_seat}, app="private")
    add("private-bad-seat", "/v1/view", {"state": token, "seat": "afk1.nope"}, app="private")
    return cases


@pytest.fixture(scope="module")
def corpus(midgame, catalog):
    return {case[0]: case for case in requests_for(midgame, catalog)}


def test_the_corpus_covers_every_error_status_and_both_paths(apps, corpus, recorded, monkeypatch):
    """Given the corpus, then it has every status the hot endpoints answer, and most go the lean way."""
    statuses, lean = set(), 0
    for _, app, method, path, body, headers, query in corpus.values():
        out = answer(apps[app], environ_of(method, path, body, headers, query), recorded, monkeypatch)
        statuses.add(int(out["status"].split()[0]))
        lean += method == "POST" and path in hot_path.HOT
    assert {200, 400, 403, 405, 413, 415, 422} <= statuses
    assert lean > len(corpus) / 2


def test_only_the_hot_endpoints_posts_skip_flask(apps, corpus, recorded, monkeypatch):
    """Given the corpus, then Flask dispatches exactly the requests that are not a POST to a hot path."""
    from flask import request_started

    app = apps["plain"]
    for _, _name, method, path, body, headers, query in (c for c in corpus.values() if c[1] == "plain"):
        dispatched: list[Any] = []

        def seen(sender: Any, **extra: Any) -> None:
            dispatched.append(sender)  # noqa: B023 (connected only inside this iteration)

        with request_started.connected_to(seen, app):
            answer(app, environ_of(method, path, body, headers, query), recorded, monkeypatch)
        assert bool(dispatched) == (method != "POST" or path not in hot_path.HOT), (method, path)
