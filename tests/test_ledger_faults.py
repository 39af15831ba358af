"""The ledger's answers are true after a timeout or a lost store (docs/ledger.md, "When the store does not
answer"; issue 39): a real redis-server paused with SIGSTOP and resumed, stopped and started again, and a
real SQLite file held by another connection's exclusive lock.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import sqlite3
import time
from collections.abc import Iterator

import pytest

from referee.service.logs import JsonFormatter
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


def test_a_move_whose_redis_died_after_it_was_sent_is_outcome_unknown_though_the_retry_could_not_connect(
    make_app, redis_server, private_game_body
):
    """Given a move sent to a paused Redis that is then killed (SIGKILL) before it answers, the client's
    retry cannot connect ("Error 111 connecting to"), yet the first attempt was sent: the answer is
    ledger_outcome_unknown, not "nothing was applied". Redis, started again, holds the game where it
    was (it never ran the script), and the same move sent again is applied once."""
    import threading

    client = make_app(state_key=STATE_KEY, ledger=redis_server.url, ledger_timeout=2).test_client()
    game = Game(client, private_game_body)
    game.play(2)
    move, _ = two_actions(game)
    before = game.seq()
    os.kill(redis_server.proc.pid, signal.SIGSTOP)
    answers = []
    sender = threading.Thread(target=lambda: answers.append(game.apply(move)))
    sender.start()
    time.sleep(0.5)  # the script is sent, Redis has not read it
    redis_server.kill()
    sender.join(30)
    redis_server.start()
    (answer,) = answers
    assert answer.status_code == 503 and answer.get_json()["code"] == "ledger_outcome_unknown", answer.get_json()
    assert latest_seq(client, game) == before
    again = game.apply(move)
    assert again.status_code == 200 and game.seq(again.get_json()["state"]) == before + 1


class Collected(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


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
    logged = Collected()
    logging.getLogger("referee.ledger").addHandler(logged)
    try:
        refused = game.apply(move)
    finally:
        logging.getLogger("referee.ledger").removeHandler(logged)
        redis_server.start()
    assert refused.status_code == 503 and refused.get_json()["code"] == "ledger_unavailable", refused.get_json()
    # the operator's side: one line saying what failed (a JSON line once the service has set its logs up)
    failed = [r for r in logged.records if r.getMessage() == "ledger call failed"]
    assert failed and all(r.store == "redis" and "Connection" in r.error and not r.exc_info for r in failed)
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


def test_a_sqlite_ledger_on_a_disk_short_of_room_writes_again_by_itself_once_space_is_back(
    make_app, tmp_path, private_game_body
):
    """Given a SQLite ledger on a 3 MiB filesystem that another file fills but for 256 KiB, when moves
    are played until one is refused (503 ledger_unavailable, the failure one JSON line), and then 1 MiB
    is freed, then 150 moves more are all applied: the WAL (which SQLite checkpoints by itself only at
    4 MB) is copied into the database and truncated whenever it outgrows the free space, instead of
    eating the room freed and failing every write again."""
    from tests.test_e2e_ledger import fill, small_filesystem

    with small_filesystem(tmp_path / "disk", "3m") as disk:
        client = make_app(
            state_key=STATE_KEY, ledger=f"sqlite:///{disk / 'ledger.db'}", ledger_timeout=0.5
        ).test_client()
        filler = disk / "filler"
        fill(filler)
        os.truncate(filler, filler.stat().st_size - 256 * 1024)
        plays = Plays(client, private_game_body)
        with logged("referee.ledger") as records:
            assert plays.until_refused(2000).get_json()["code"] == "ledger_unavailable"
        failures = [JsonFormatter().format(r) for r in records if r.getMessage() == "ledger write failed"]
        assert failures and all(json.loads(line)["error"].endswith("database or disk is full") for line in failures)

        os.truncate(filler, filler.stat().st_size - 1024 * 1024)  # space is back
        for _ in range(150):
            resp = plays.next()
            assert resp.status_code == 200, (resp.get_json(), os.statvfs(disk).f_bavail)


@contextlib.contextmanager
def logged(name: str) -> Iterator[list[logging.LogRecord]]:
    """The records logged to ``name`` meanwhile (the service's loggers do not propagate to pytest's)."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)


class Plays:
    """Moves of private games one after the other (a new game when one is over), from the latest token."""

    def __init__(self, client, body: dict):
        self.client, self.body, self.games = client, body, 0
        self.game = self._deal()

    def _deal(self) -> Game:
        self.games += 1
        return Game(self.client, self.body, seed=f"room-{self.games}")

    def next(self):
        _, actions = self.game.turn()
        playable = [a for a in actions if a["type"] != "concede"] or actions
        resp = self.game.apply(playable[self.game.rng.randrange(len(playable))])
        if resp.status_code == 200:
            self.game.token = resp.get_json()["state"]
            if resp.get_json()["view"]["phase"] == "over":
                self.game = self._deal()
        return resp

    def until_refused(self, moves: int):
        for _ in range(moves):
            resp = self.next()
            if resp.status_code != 200:
                return resp
        raise AssertionError(f"{moves} moves and the disk never filled")
