"""Every ledger write tells the truth, in time (docs/api.md §11, "Every write tells the truth"): each writing
endpoint — a deal, a move, a clocked move, a time claim, a match's next game — sent to a real redis-server
paused with SIGSTOP, at the default timeout (2 s) and at 0.5 s, and to a real SQLite file another
connection holds locked. An answer that says "nothing was written" (``ledger_unavailable``) must be true
once the store is back; one that says "it may have been" (``ledger_outcome_unknown``) must make the same
request again safe. Every answer comes within ``REFEREE_LEDGER_TIMEOUT`` of the request plus one second:
the one bound on time these tests check, the contract itself.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from tests.conftest import STATE_KEY
from tests.test_clocks import CLOCK, VAULT, Game, body_with, ledger_of, post
from tests.test_ledger_faults import redis_server as _a_real_redis  # noqa: F401 - the fixture redis_server

DEFAULT_TIMEOUT = 2.0  # referee/service/config.py's DEFAULT_LEDGER_TIMEOUT
WRITES = ("deal", "move", "clocked-move", "claim-time", "next-game")
MINUTES_10 = 600_000


@dataclass
class Write:
    """One writing request, ready to send; ``written()`` tells whether the store holds it (asked once the
    store is back), ``retried(answer, written)`` checks the same request sent again after an unknown outcome
    (``written``: whether the first one was, after all)."""

    send: Callable[[], Any]
    written: Callable[[], bool]
    retried: Callable[[Any, bool], None]


def a_write(kind: str, client, private_game_body, count_games: Callable[[], int]) -> Write:
    """The request of ``kind`` on a game set up for it (dealt and played up to it, with the store up)."""
    if kind == "deal":
        Game(client, body_with(private_game_body, clock=CLOCK))  # the replica has read the ledger's clock
        games = count_games()
        return Write(
            lambda: post(client, "/v1/games", body_with(private_game_body, clock=CLOCK)),
            lambda: count_games() == games + 1,
            lambda again, _: _status(again, 201),  # a deal again deals a game (the one before has no seat out)
        )
    game = Game(client, body_with(private_game_body, **({} if kind == "move" else {"clock": CLOCK})))
    if kind in ("move", "clocked-move"):
        action = next(a for a in game.ask("/v1/legal-actions", 0).get_json()["actions"] if a["type"] != "concede")
        return _move(game, action)
    if kind == "claim-time":
        ledger_of(client.application).ahead_ms += MINUTES_10 + 1_000  # player 0's time has run out
        return _move(game, {"type": "claim_time", "player": 1})
    raise AssertionError(kind)


def a_next_game(client, private_game_body) -> Write:
    game = Game(client, body_with(private_game_body, clock=CLOCK, match={"best_of": 3}))
    game.move({"type": "concede", "player": 0})
    body = {"state": game.token, "seats": [game.seats[0]], "first_player": 0}
    following = {"game_id": game.state["game_id"], "seat": game.seats[1]}

    def written() -> bool:
        return "next" in post(client, "/v1/latest", following).get_json()

    def retried(again, was_written: bool) -> None:
        if was_written:  # the next game it made, named
            assert again.status_code == 409 and again.get_json()["code"] == "next_game_dealt", again.get_json()
        else:
            _status(again, 201)

    return Write(lambda: post(client, "/v1/matches/next", body), written, retried)


def _move(game: Game, action: dict) -> Write:
    seq = game.state["seq"]

    def written() -> bool:
        latest = post(game.client, "/v1/latest", {"game_id": game.state["game_id"], "seat": game.seats[0]})
        return latest.get_json()["seq"] == seq + 1

    def retried(again, _: bool) -> None:
        _status(again, 200)
        assert VAULT.open(again.get_json()["state"])["seq"] == seq + 1  # the recorded answer, applied once
        assert game.send(action).get_json()["state"] == again.get_json()["state"]

    return Write(lambda: game.send(action), written, retried)


def _status(answer, status: int) -> None:
    assert answer.status_code == status, answer.get_json()


def prepared(kind: str, client, private_game_body, count_games: Callable[[], int]) -> Write:
    if kind == "next-game":
        return a_next_game(client, private_game_body)
    return a_write(kind, client, private_game_body, count_games)


def timed(send: Callable[[], Any]) -> tuple[Any, float]:
    started = time.monotonic()
    answer = send()
    return answer, time.monotonic() - started


def wait_until(condition: Callable[[], bool], seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def redis_games(url: str) -> Callable[[], int]:
    import redis

    def count() -> int:
        client = redis.Redis.from_url(url, socket_timeout=5)
        try:
            return sum(1 for _ in client.scan_iter(match="af:*"))
        finally:
            client.close()

    return count


@pytest.mark.parametrize("timeout", [DEFAULT_TIMEOUT, 0.5])
@pytest.mark.parametrize("kind", WRITES)
def test_a_write_to_a_paused_redis_is_outcome_unknown_in_time_and_the_same_request_again_is_safe(
    make_app, redis_server, private_game_body, kind, timeout
):
    """Given Redis paused (SIGSTOP) after it has read the request's script, the answer is 503
    ledger_outcome_unknown within the timeout plus 1 s, never "nothing was written": once Redis resumes it
    runs the script, and the write is there. The same request sent again is then the recorded answer
    (a move, a claim), the 409 naming the next game, or a new deal."""
    app = make_app(state_key=STATE_KEY, ledger=redis_server.url, ledger_timeout=timeout)
    client = app.test_client()
    write = prepared(kind, client, private_game_body, redis_games(redis_server.url))
    os.kill(redis_server.proc.pid, signal.SIGSTOP)
    try:
        answer, took = timed(write.send)
    finally:
        os.kill(redis_server.proc.pid, signal.SIGCONT)
    assert answer.status_code == 503, answer.get_json()
    assert answer.get_json()["code"] == "ledger_outcome_unknown", answer.get_json()
    assert took <= timeout + 1, took
    if kind not in ("clocked-move", "claim-time"):  # Redis ran the script it had read once it resumed
        assert wait_until(write.written)  # ("nothing written" would have lied); a move charged at a time
        # 2 s before Redis ran it is refused by the ledger's clock (docs/api.md §15), and made on the retry
    write.retried(write.send(), write.written())


def test_moves_in_line_behind_a_paused_redis_are_each_answered_truly_within_the_timeout(
    make_app, redis_server, private_game_body
):
    """Given six moves on six games sent at once to a paused Redis (a batch under way, the others queued
    behind it), each answer comes within the timeout plus 1 s, and each is true: a move answered
    ledger_unavailable is not recorded once Redis resumes."""
    timeout = 0.5
    app = make_app(state_key=STATE_KEY, ledger=redis_server.url, ledger_timeout=timeout)
    writes = [a_write("clocked-move", app.test_client(), private_game_body, lambda: 0) for _ in range(6)]
    answers: list[tuple[Write, Any, float]] = []

    def send(write: Write) -> None:
        answers.append((write, *timed(write.send)))

    os.kill(redis_server.proc.pid, signal.SIGSTOP)
    try:
        threads = [threading.Thread(target=send, args=(write,)) for write in writes]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    finally:
        os.kill(redis_server.proc.pid, signal.SIGCONT)
    assert len(answers) == len(writes)
    codes = [answer.get_json()["code"] for _, answer, _ in answers]
    assert set(codes) <= {"ledger_unavailable", "ledger_outcome_unknown"}, codes
    assert max(took for _, _, took in answers) <= timeout + 1
    wait_until(lambda: all(w.written() for w, a, _ in answers if a.get_json()["code"] == "ledger_outcome_unknown"))
    time.sleep(0.2)  # whatever Redis had read has run by now (the unknown ones above are written)
    for write, answer, _ in answers:
        if answer.get_json()["code"] == "ledger_unavailable":
            assert not write.written()


@pytest.mark.parametrize("kind", WRITES)
def test_a_write_to_a_locked_sqlite_file_is_unavailable_in_time_and_truly_not_written(
    make_app, tmp_path, private_game_body, kind
):
    """Given a real SQLite file another connection holds locked (BEGIN EXCLUSIVE) past the timeout, each
    writing endpoint answers 503 ledger_unavailable within the timeout plus 1 s, and nothing was written:
    once the lock is gone the same request is applied once."""
    path = tmp_path / "ledger.db"
    timeout = 0.5
    app = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{path}", ledger_timeout=timeout)
    client = app.test_client()

    def count_games() -> int:
        with sqlite3.connect(path) as db:
            return int(db.execute("SELECT count(*) FROM games").fetchone()[0])

    write = prepared(kind, client, private_game_body, count_games)
    blocker = sqlite3.connect(path, timeout=0, isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        answer, took = timed(write.send)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert answer.status_code == 503 and answer.get_json()["code"] == "ledger_unavailable", answer.get_json()
    assert took <= timeout + 1, took
    assert not write.written()
    again = write.send()
    assert again.status_code in (200, 201), again.get_json()
    assert write.written()
