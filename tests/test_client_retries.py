"""The HTTP client's retries and its async twin, over real HTTP on loopback.

``FlakyServer`` is a real HTTP server (the standard library's wsgiref, in a
thread) in front of the real app: it answers its first requests with a
chosen 5xx, or closes the connection unanswered, then passes every request
to the app. It counts the requests it saw, so a test knows how many tries the
client made. ``AsyncRefereeClient`` is also run against ``referee serve``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import pytest

from referee.client import (
    AsyncRefereeClient,
    InvalidRequest,
    NotFound,
    RefereeClient,
    RefereeConnectionError,
    RefereeHTTPError,
    RefereeRuleViolation,
)

DROP = "drop"  # close the connection without an answer
FAST = {"backoff": 0.001, "max_backoff": 0.01}  # the waits are not what these tests are about


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


class FlakyServer:
    def __init__(self, app: Any):
        self.failures: list[int | str] = []
        self.seen = 0
        flaky = self

        class Server(WSGIServer):
            def verify_request(self, request: Any, client_address: Any) -> bool:
                if flaky.failures and flaky.failures[0] == DROP:
                    flaky.failures.pop(0)
                    flaky.seen += 1
                    return False  # socketserver closes the connection unanswered
                return True

        def front(environ: dict, start_response: Any) -> Any:
            self.seen += 1
            if self.failures:
                status = self.failures.pop(0)
                start_response(f"{status} Failing on purpose", [("Content-Type", "text/plain")])
                return [b"try again"]
            return app(environ, start_response)

        self.httpd = make_server("127.0.0.1", 0, front, server_class=Server, handler_class=_QuietHandler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def fail_next(self, *failures: int | str) -> None:
        self.failures = list(failures)
        self.seen = 0


@pytest.fixture(scope="module")
def flaky(make_app) -> Iterator[FlakyServer]:
    server = FlakyServer(make_app())
    server.thread.start()
    yield server
    server.httpd.shutdown()
    server.httpd.server_close()


@pytest.fixture
def ref(flaky) -> Iterator[RefereeClient]:
    with RefereeClient(flaky.url, retries=2, **FAST) as client:
        yield client


# -- retries --------------------------------------------------------------------------


@pytest.mark.parametrize("status", [502, 503, 504])
def test_a_gateway_error_is_retried_until_an_answer(flaky, ref, status):
    flaky.fail_next(status, status)
    assert ref.rules()[0]["id"] == "1.1"
    assert flaky.seen == 3


def test_a_dropped_connection_is_retried(flaky, ref):
    flaky.fail_next(DROP, 503)
    assert ref.card("AF-001")["name"] == "北の妖精"
    assert flaky.seen == 3


def test_retries_give_up_with_the_last_error(flaky, ref):
    flaky.fail_next(503, 503, 503, 503)
    with pytest.raises(RefereeHTTPError) as info:
        ref.cards()
    assert info.value.status == 503 and flaky.seen == 3


def test_a_dropped_connection_that_stays_dropped_is_a_connection_error(flaky, ref):
    flaky.fail_next(DROP, DROP, DROP)
    with pytest.raises(RefereeConnectionError):
        ref.cards()
    assert flaky.seen == 3


def test_a_4xx_is_never_retried(flaky, ref, positions):
    state, _ = positions[0]
    flaky.fail_next()
    with pytest.raises(RefereeRuleViolation):
        ref.apply(state, {"type": "keep", "player": 1 - state["active"]})
    with pytest.raises(NotFound):
        ref.card("AF-000")
    assert flaky.seen == 2


def test_a_500_is_not_retried(flaky, ref):
    flaky.fail_next(500)
    with pytest.raises(RefereeHTTPError) as info:
        ref.cards()
    assert info.value.status == 500 and flaky.seen == 1


def test_retries_can_be_turned_off(flaky):
    flaky.fail_next(503)
    with RefereeClient(flaky.url, retries=0) as once, pytest.raises(RefereeHTTPError):
        once.cards()
    assert flaky.seen == 1


def test_ready_is_never_retried(flaky, ref):
    flaky.fail_next(503)
    assert ref.ready() is False and flaky.seen == 1
    assert ref.ready() is True


def test_negative_retry_settings_are_refused():
    with pytest.raises(ValueError):
        RefereeClient("http://127.0.0.1:9", retries=-1)


# -- AsyncRefereeClient -----------------------------------------------------------------


def test_both_clients_have_the_same_methods():
    def public(cls: type) -> set[str]:
        return {name for name in dir(cls) if not name.startswith("_")}

    assert public(RefereeClient) - {"close"} == public(AsyncRefereeClient) - {"aclose"}


def test_async_client_plays_and_refuses_like_the_sync_one(flaky, new_game_body):
    async def play() -> None:
        async with AsyncRefereeClient(flaky.url, **FAST) as ref:
            state, events = await ref.new_game(new_game_body)
            assert events[0]["type"] == "game_started"
            actions = await ref.legal_actions(state)
            keep = next(a for a in actions if a["type"] == "keep")
            assert await ref.validate(state, keep) is None
            step = await ref.apply(state, keep)
            assert (await ref.view(step.state, 1))["players"][0]["file"] == 33
            final, applied = await ref.replay([keep], game=new_game_body)
            assert applied == 1 and final == step.state
            with pytest.raises(RefereeRuleViolation) as info:
                await ref.apply(step.state, keep)
            assert (info.value.rule, info.value.code) == ("12.2", "not_your_turn")
            with pytest.raises(InvalidRequest):
                await ref.apply(state, {"type": "fly", "player": 0})
            with pytest.raises(NotFound):
                await ref.card("AF-000")
            assert await ref.validate_deck(new_game_body["decks"][0]) == []
            assert (await ref.cards())["catalog"]["id"] == "af-ref"
            assert len(await ref.rules()) > 40 and await ref.ready() is True

    flaky.fail_next()
    asyncio.run(play())


def test_async_client_retries(flaky):
    async def fetch() -> dict:
        async with AsyncRefereeClient(flaky.url, retries=2, **FAST) as ref:
            return await ref.card("AF-001")

    flaky.fail_next(DROP, 502)
    assert asyncio.run(fetch())["id"] == "AF-001"
    assert flaky.seen == 3


def test_async_client_connection_error():
    async def fetch() -> None:
        async with AsyncRefereeClient("http://127.0.0.1:9", retries=1, **FAST) as dead:
            assert await dead.ready() is False
            await dead.cards()

    with pytest.raises(RefereeConnectionError):
        asyncio.run(fetch())


@pytest.mark.e2e
def test_async_client_against_referee_serve(serve, new_game_body):
    server = serve()

    async def play() -> None:
        async with AsyncRefereeClient(server.url) as ref:
            state, _ = await ref.new_game(new_game_body)
            with pytest.raises(RefereeRuleViolation) as info:
                await ref.apply(state, {"type": "keep", "player": 1 - state["active"]})
            assert info.value.rule == "12.2"

    asyncio.run(play())
