"""Every shortcut of the service's registry (referee/service/shortcuts.py) answers as its careful twin.

One property for all of them: the same request, as the same WSGI environ, sent
to an app built with the shortcut and to one built (and called) with it turned
off, in plain, sealed and private mode, gives the same status line, the same
headers in the same order, the same body bytes, and the same access-log line
and metric samples. ``os.urandom`` is made repeatable for each pair, so a
request id the referee draws and a token's nonce are equal too. The requests:
the hot path's corpus (tests/test_hot_path_parity.py: every error status,
Japanese, request ids, sealing, private mode, CORS, what the lean path leaves
to Flask), an unexpected error, real positions mutated at random, and real
tokens and seats with characters changed at random.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson
import pytest
from conftest import SECRET, STATE_KEY
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hot_path_parity import HOT_PATHS, MAX_BODY, answer, environ_of, recorded, requests_for  # noqa: F401
from test_openapi_parity import mutated

from referee.engine.shortcuts import Shortcut
from referee.private.tokens import Vault
from referee.service.shortcuts import SHORTCUTS

MODES: dict[str, dict[str, Any]] = {
    "plain": {"log_requests": True, "max_body": MAX_BODY, "cors_origins": ("https://table.example",)},
    "sealed": {"log_requests": True, "secret": SECRET, "cors_origins": ("*",)},
    "private": {"log_requests": True, "state_key": STATE_KEY},
}
URL_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"


@pytest.fixture(scope="module", params=SHORTCUTS, ids=lambda s: s.name.split(":")[0])
def twins(request, make_app, recorded) -> tuple[Shortcut, dict[str, Flask], dict[str, Flask]]:  # noqa: F811
    """The shortcut, and an app of each mode built with it and built without it."""
    shortcut: Shortcut = request.param
    fast = {mode: make_app(**kw) for mode, kw in MODES.items()}
    with shortcut.turned_off():
        careful = {mode: make_app(**kw) for mode, kw in MODES.items()}
    return shortcut, fast, careful


def assert_alike(twins, mode: str, make: Callable[[], dict[str, Any]], recorded, mp) -> dict[str, Any]:  # noqa: F811
    shortcut, fast, careful = twins
    with_it = answer(fast[mode], make, recorded, mp)
    with shortcut.turned_off():
        without = answer(careful[mode], make, recorded, mp)
    assert with_it == without
    return with_it


def test_given_each_request_of_the_corpus_then_it_is_answered_alike_with_and_without_the_shortcut(
    twins,
    midgame,
    catalog,
    recorded,  # noqa: F811
    monkeypatch,
):
    for name, mode, method, path, body, headers, query in requests_for(midgame, catalog):
        try:
            assert_alike(twins, mode, environ_of(method, path, body, headers, query), recorded, monkeypatch)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_given_an_unexpected_error_then_it_is_the_same_logged_500_with_and_without_the_shortcut(
    twins,
    midgame,
    recorded,  # noqa: F811
    monkeypatch,
):
    from referee import engine

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(engine, "apply", broken)
    state, action = midgame
    make = environ_of(
        "POST", "/v1/apply", orjson.dumps({"state": state, "action": action}), {"Content-Type": "application/json"}
    )
    out = assert_alike(twins, "plain", make, recorded, monkeypatch)
    assert out["status"] == "500 INTERNAL SERVER ERROR"
    assert orjson.loads(out["body"])["code"] == "internal_error"


BENT = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@BENT
@given(data=st.data())
def test_given_a_mutated_position_then_it_is_answered_alike_with_and_without_the_shortcut(
    twins,
    midgame,
    recorded,  # noqa: F811
    monkeypatch,
    data,
):
    state, action = midgame
    path = data.draw(st.sampled_from(HOT_PATHS))
    body = {"state": state, "action": action, "player": action["player"]}
    keys = {
        "/v1/apply": ("state", "action"),
        "/v1/validate": ("state", "action"),
        "/v1/legal-actions": ("state", "player"),
        "/v1/view": ("state", "player"),
    }[path]
    doc = data.draw(mutated({k: body[k] for k in keys}, extra_keys=["labels", "seal"]))
    make = environ_of("POST", path, orjson.dumps(doc), {"Content-Type": "application/json"})
    assert_alike(twins, data.draw(st.sampled_from(["plain", "sealed"])), make, recorded, monkeypatch)


def bent(text: str, data: st.DataObject) -> str:
    """``text`` with up to three characters changed, dropped or added, or cut short."""
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(text)))
        how = data.draw(st.sampled_from(["change", "drop", "add", "cut"]))
        char = data.draw(st.sampled_from(URL_DIGITS + "+/=.\\ é") | st.characters(codec="utf-8"))
        if how == "change":
            text = text[:i] + char + text[i + 1 :]
        elif how == "drop":
            text = text[:i] + text[i + 1 :]
        elif how == "add":
            text = text[:i] + char + text[i:]
        else:
            text = text[:i]
    return text


@BENT
@given(data=st.data())
def test_given_a_bent_token_or_seat_then_it_is_answered_alike_with_and_without_the_shortcut(
    twins,
    midgame,
    recorded,  # noqa: F811
    monkeypatch,
    data,
):
    state, action = midgame
    vault = Vault(bytes.fromhex(STATE_KEY))
    token = vault.token({**state, "game_id": "g-shortcuts"})
    seat = vault.seat("g-shortcuts", action["player"])
    if data.draw(st.booleans()):
        token = bent(token, data)
    else:
        seat = bent(seat, data)
    path = data.draw(st.sampled_from(HOT_PATHS))
    body: dict[str, Any] = {"state": token, "seat": seat}
    if path in ("/v1/apply", "/v1/validate"):
        body["action"] = action
    make = environ_of("POST", path, orjson.dumps(body), {"Content-Type": "application/json"})
    assert_alike(twins, "private", make, recorded, monkeypatch)
