"""The ledger's answers are true after a timeout or a lost store (docs/ledger.md, "When the store does not
answer"; issue 39): a real redis-server paused with SIGSTOP and resumed, stopped and started again, and a
real SQLite file held by another connection's exclusive lock.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import time

import pytest

from tests.conftest import STATE_KEY
from tests.test_ledger import Game, post, two_actions


@pytest.fixture
def redis_server(tmp_path):
    from tests.redis_server import RedisServer

    server = RedisServer(tmp_path / "redis")
    try:
        yield server
    finally:
        if server.proc is not None and server.proc.poll() is None:
            os.kill(server.proc.pid, signal.SIGCONT)  # a test that failed while it was paused
        server.stop()


def latest_seq(client, game: Game) -> int:
    resp = post(client, "/v1/latest", {"game_id": game.game_id, "seat": game.seats[0]})
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()["seq"]


def wait_for_seq(client, game: Game, seq: int, seconds: float = 10) -> int:
    deadline = time.monotonic() + seconds
    while (found := latest_seq(client, game)) != seq and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def test_a_move_sent_to_a_paused_redis_is_answered_outcome_unknown_and_a_retry_gets_the_recorded_answer(
    make_app, redis_server, private_game_body
):
    """Given a game on a real Redis, when Redis is paused (SIGSTOP) and a move is sent, then the answer is
    503 ledger_outcome_unknown with Retry-After, not "nothing was applied": once Redis resumes it runs
    the script it had read, and the move is recorded. The same move sent again is the recorded answer
    (200, the same token); a different move on the old token is 409."""
    client = make_app(state_key=STATE_KEY, ledger=redis_server.url, ledger_timeout=0.3).test_client()
    game = Game(client, private_game_body)
    game.play(2)
    before = game.seq()
    move, other = two_actions(game)
    before = game.seq()
    os.kill(redis_server.proc.pid, signal.SIGSTOP)
    try:
        unknown = game.apply(move)
    finally:
        os.kill(redis_server.proc.pid, signal.SIGCONT)
    assert unknown.status_code == 503, unknown.get_json()
    assert unknown.get_json()["code"] == "ledger_outcome_unknown"
    assert unknown.headers["Retry-After"] == "1"
    assert "may be recorded" in unknown.get_json()["detail"]

    assert wait_for_seq(client, game, before + 1) == before + 1  # Redis ran the script after all
    again = game.apply(move)
    assert again.status_code == 200, again.get_json()
    assert game.seq(again.get_json()["state"]) == before + 1
    refused = game.apply(other)
    assert refused.status_code == 409 and refused.get_json()["latest_seq"] == before + 1


def test_a_move_to_a_stopped_redis_is_ledger_unavailable_and_truly_not_applied(
    make_app, redis_server, private_game_body
):
    """Given Redis stopped (the connection refused: nothing sent), then 503 ledger_unavailable, and once
    Redis is back the game is where it was: nothing was applied, as the answer said."""
    client = make_app(state_key=STATE_KEY, ledger=redis_server.url, ledger_timeout=0.3).test_client()
    game = Game(client, private_game_body)
    game.play(2)
    move, _ = two_actions(game)
    before = game.seq()
    redis_server.stop()
    try:
        refused = game.apply(move)
    finally:
        redis_server.start()
    assert refused.status_code == 503 and refused.get_json()["code"] == "ledger_unavailable", refused.get_json()
    assert "nothing was applied" in refused.get_json()["detail"]
    assert latest_seq(client, game) == before
    assert game.apply(move).status_code == 200


def test_a_move_while_another_connection_holds_sqlite_s_exclusive_lock_is_unavailable_and_not_applied(
    make_app, tmp_path, private_game_body
):
    """Given another connection holding BEGIN EXCLUSIVE on the SQLite file past the ledger's timeout,
    then 503 ledger_unavailable ("nothing was applied"), and after the lock is let go the game is at
    the same seq and the same move is applied."""
    path = tmp_path / "ledger.db"
    client = make_app(state_key=STATE_KEY, ledger=f"sqlite:///{path}", ledger_timeout=0.2).test_client()
    game = Game(client, private_game_body)
    game.play(2)
    move, _ = two_actions(game)
    before = game.seq()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        refused = game.apply(move)
        latest_while_held = post(client, "/v1/latest", {"game_id": game.game_id, "seat": game.seats[0]})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert refused.status_code == 503 and refused.get_json()["code"] == "ledger_unavailable", refused.get_json()
    assert "nothing was applied" in refused.get_json()["detail"]
    assert latest_while_held.status_code == 503
    assert latest_seq(client, game) == before
    applied = game.apply(move)
    assert applied.status_code == 200 and game.seq(applied.get_json()["state"]) == before + 1
