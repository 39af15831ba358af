"""The ledger (docs/api.md §11) and spectators (§12), in-process against a real SQLite file and a real Redis.

Each test gets its own database in a temporary directory. The tests hold the
key, so they can open tokens and compare; a client never can.
"""

from __future__ import annotations

import random
import sqlite3
import threading

import orjson
import pytest
from conftest import STATE_KEY, keep_or_random
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.private.tokens import Vault
from referee.service.config import ConfigError, Settings

VAULT = Vault(bytes.fromhex(STATE_KEY))


def post(client, path: str, body: dict):
    return client.post(path, data=orjson.dumps(body), content_type="application/json")


@pytest.fixture(scope="module")
def redis_cluster_url(tmp_path_factory):
    from tests.redis_server import RedisCluster

    cluster = RedisCluster(tmp_path_factory.mktemp("redis-cluster"))
    try:
        yield cluster.url
    finally:
        cluster.stop()


@pytest.fixture(params=["sqlite", "redis", "redis-cluster"])
def db_url(request, tmp_path) -> str:
    """Each test of the ledger runs on every store: a SQLite file of its own, a real Redis, and a real
    Redis Cluster of three nodes."""
    if request.param == "redis":
        return request.getfixturevalue("redis_url")
    if request.param == "redis-cluster":
        return request.getfixturevalue("redis_cluster_url")
    return f"sqlite:///{tmp_path / 'ledger.db'}"


@pytest.fixture
def sqlite_url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'ledger.db'}"


@pytest.fixture
def ledger_app(make_app, db_url):
    return make_app(state_key=STATE_KEY, ledger=db_url, ledger_timeout=0.2)


@pytest.fixture
def lc(ledger_app):
    return ledger_app.test_client()


class Game:
    """A private game through a client: its token, seats, watch key, and a policy for the next move."""

    def __init__(self, client, body: dict, seed: str = "ledger"):
        resp = post(client, "/v1/games", body)
        assert resp.status_code == 201, resp.get_json()
        answer = resp.get_json()
        self.client = client
        self.token, self.seats, self.watch = answer["state"], answer["seats"], answer["watch"]
        self.game_id = VAULT.open(self.token)["game_id"]
        self.rng = random.Random(seed)
        self.played: list[dict] = []  # the action of each seq after the deal (from play)

    def turn(self, token: str | None = None) -> tuple[int, list[dict]]:
        token = token or self.token
        for player in (0, 1):
            actions = post(self.client, "/v1/legal-actions", {"state": token, "seat": self.seats[player]}).get_json()[
                "actions"
            ]
            if any(a["type"] != "concede" for a in actions):
                return player, actions
        raise AssertionError("nobody may act")

    def apply(self, action: dict, token: str | None = None):
        token = token or self.token
        return post(self.client, "/v1/apply", {"state": token, "action": action, "seat": self.seats[action["player"]]})

    def play(self, steps: int) -> None:
        for _ in range(steps):
            _, actions = self.turn()
            action = keep_or_random(actions, self.rng)
            resp = self.apply(action)
            assert resp.status_code == 200, resp.get_json()
            self.token = resp.get_json()["state"]
            self.played.append(action)

    def seq(self, token: str | None = None) -> int:
        return VAULT.open(token or self.token)["seq"]


def two_actions(game: Game) -> tuple[dict, dict]:
    """Two different legal actions of whoever acts now (play on until there are two)."""
    while True:
        _, actions = game.turn()
        if len(actions) >= 2:
            return actions[0], actions[1]
        game.play(1)


# -- §11: the outcomes of /v1/apply ---------------------------------------------------------


def test_a_move_on_the_latest_token_is_applied_and_recorded(lc, private_game_body):
    game = Game(lc, private_game_body)
    game.play(3)
    latest = post(lc, "/v1/latest", {"game_id": game.game_id, "seat": game.seats[0]}).get_json()
    assert latest["state"] == game.token and latest["seq"] == 3 == latest["view"]["seq"]


def test_the_same_action_again_gives_the_recorded_answer(lc, private_game_body):
    game = Game(lc, private_game_body)
    game.play(2)
    action, _ = two_actions(game)
    first = game.apply(action)
    again = game.apply({k: action[k] for k in reversed(list(action))})  # the same action, keys in another order
    assert first.status_code == again.status_code == 200
    assert again.get_json() == first.get_json()  # the same token, events and view


def test_a_fork_is_refused_with_the_latest_seq(lc, private_game_body):
    """The fork of issue 23: a move tried on a copy of the token is made; another from the original is 409."""
    game = Game(lc, private_game_body)
    game.play(4)
    tried, published = two_actions(game)
    assert game.apply(tried).status_code == 200
    resp = game.apply(published)
    assert resp.status_code == 409
    problem = resp.get_json()
    assert problem["code"] == "stale_state" and problem["latest_seq"] == game.seq() + 1


def test_a_rollback_to_an_older_token_is_refused(lc, private_game_body):
    """A cheater replays from seq 6 while the game is at seq 8: any move but the recorded one is refused."""
    game = Game(lc, private_game_body)
    game.play(6)
    old = game.token
    game.play(2)
    _, actions = game.turn(old)
    others = [a for a in actions if a != game.played[6]]
    assert others
    for action in others[:3]:
        resp = game.apply(action, old)
        assert resp.status_code == 409 and resp.get_json()["latest_seq"] == 8
    recorded = game.apply(game.played[6], old)  # the recorded move: seq 7's recorded answer, nothing new
    assert recorded.status_code == 200 and game.seq(recorded.get_json()["state"]) == 7


def test_an_illegal_move_on_a_stale_token_is_409_not_422(lc, private_game_body):
    game = Game(lc, private_game_body)
    game.play(3)
    old = game.token
    player, _ = game.turn(old)
    game.play(1)
    illegal = {"type": "recall", "player": player, "fairy": "no-such-fairy"}
    assert game.apply(illegal).status_code in (400, 422)  # on the latest token: the engine's answer
    resp = game.apply(illegal, old)
    assert resp.status_code == 409 and resp.get_json()["latest_seq"] == 4


def test_a_game_dealt_before_the_ledger_was_on_is_adopted_at_its_seq(make_app, lc, private_game_body):
    plain_private = make_app(state_key=STATE_KEY).test_client()  # the same key, no ledger
    game = Game(plain_private, private_game_body)
    game.play(3)
    game.client = lc
    assert post(lc, "/v1/latest", {"game_id": game.game_id, "seat": game.seats[0]}).status_code == 404
    fork, other = two_actions(game)
    assert game.apply(fork).status_code == 200
    assert game.apply(other).status_code == 409
    assert post(lc, "/v1/latest", {"game_id": game.game_id, "seat": game.seats[1]}).get_json()["seq"] == 4


def test_two_racing_moves_from_one_token_one_wins(ledger_app, private_game_body):
    client = ledger_app.test_client()
    game = Game(client, private_game_body)
    game.play(2)
    first, second = two_actions(game)
    statuses = []

    def send(action):
        statuses.append(post(ledger_app.test_client(), "/v1/apply", {**body, "action": action}).status_code)

    body = {"state": game.token, "seat": game.seats[first["player"]]}
    threads = [threading.Thread(target=send, args=(a,)) for a in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 409]


def test_moves_queued_while_a_transaction_commits_share_the_next_one():
    """The SQLite ledger's group commit: one transaction for every move that waited on the previous
    one, and each caller answered with its own outcome only after the transaction that held it."""
    import time

    from referee.private.ledger import GroupCommit

    batches: list[int] = []
    first_started, release = threading.Event(), threading.Event()

    def commit(batch) -> None:
        if not batches:
            first_started.set()
            release.wait(30)  # a slow fsync
        for item in batch:
            item.value = item.work(None)
        batches.append(len(batch))

    group = GroupCommit(commit)
    answers: dict[int, tuple[int, int]] = {}

    def call(n: int) -> None:
        answers[n] = (group.run(lambda db: n), len(batches))  # the outcome, and the batches committed by then

    threads = [threading.Thread(target=call, args=(n,)) for n in range(5)]
    threads[0].start()
    assert first_started.wait(30)
    for t in threads[1:]:
        t.start()
    deadline = time.monotonic() + 30
    while len(group._queue) < 4:  # the four later moves wait for the first commit
        assert time.monotonic() < deadline
        time.sleep(0.01)
    release.set()
    for t in threads:
        t.join()
    assert batches == [1, 4]
    assert answers[0][0] == 0 and answers[0][1] >= 1
    assert {n: answers[n] for n in range(1, 5)} == {1: (1, 2), 2: (2, 2), 3: (3, 2), 4: (4, 2)}


def test_after_a_batch_of_several_the_next_leader_waits_for_as_many():
    """Given a batch of 2, when a move finds no batch running, then the writer waits (up to the linger) until
    a second move has queued, and both go as one batch; after a batch of 1 a move never waits."""
    from referee.private.ledger import GroupCommit

    batches: list[int] = []
    release = threading.Event()

    def commit(batch) -> None:
        if not batches:
            release.wait(30)  # the first write is slow: two moves queue behind it
        for item in batch:
            item.value = item.work(None)
        batches.append(len(batch))

    group = GroupCommit(commit, linger=3600)
    threads = [threading.Thread(target=group.run, args=(lambda db: None,)) for _ in range(5)]
    threads[0].start()
    wait_for(lambda: group._busy and not group._queue)  # the first move has taken its batch
    threads[1].start()
    threads[2].start()
    wait_for(lambda: len(group._queue) == 2)
    release.set()
    for t in threads[:3]:
        t.join(30)
    assert batches == [1, 2]  # the lead after a batch of 1 did not wait
    threads[3].start()
    wait_for(lambda: not group._busy and len(group._queue) == 1)  # the writer waits for a second move
    threads[4].start()
    for t in threads[3:]:
        t.join(30)
    assert batches == [1, 2, 2]


def test_after_a_batch_of_one_a_move_does_not_wait_for_others():
    from referee.private.ledger import GroupCommit

    group = GroupCommit(lambda batch: [setattr(item, "value", 7) for item in batch], linger=3600)
    answers: list[int] = []
    thread = threading.Thread(target=lambda: answers.extend([group.run(None), group.run(None)]))
    thread.start()
    thread.join(30)
    assert answers == [7, 7]


def test_a_group_commit_tells_whom_it_is_given_of_each_batch_even_one_that_fails():
    """The ledger counts nothing itself: the service gives it its metrics' ``ledger_batch`` to call."""
    from referee.private.ledger import GroupCommit

    told: list[tuple[int, float]] = []

    def commit(batch):
        if batch[0].work == "fail":
            raise OSError("the disk is gone")
        for item in batch:
            item.value = item.work

    group = GroupCommit(commit, linger=0, on_batch=lambda size, seconds: told.append((size, seconds)))
    assert group.run("ok") == "ok"
    with pytest.raises(OSError):
        group.run("fail")
    assert [size for size, _ in told] == [1, 1] and all(seconds >= 0 for _, seconds in told)


def test_redis_sends_the_calls_that_queue_during_a_round_trip_as_one_script(redis_url):
    """Given a Redis that holds its answers (CLIENT PAUSE) while 1 move is under way and 15 more queue,
    when it answers, then the 15 go as one script: two EVALSHA for 16 moves, each move applied."""
    import redis

    from referee.private.ledger import APPLIED, RedisLedger

    ledger = RedisLedger(redis_url, 60, 5)
    admin = redis.Redis.from_url(redis_url)
    games = [f"g-batch-{n}" for n in range(16)]
    for game in games:
        ledger.start(game, "afs1.token0")
    admin.config_resetstat()
    admin.execute_command("CLIENT", "PAUSE", 10_000, "WRITE")
    outcomes: dict[str, object] = {}

    def move(game: str) -> None:
        outcomes[game] = ledger.record(game, 0, "sha256:d", "afs1.token1", "")

    threads = [threading.Thread(target=move, args=(g,)) for g in games]
    try:
        threads[0].start()
        # the first move has taken its batch (it alone) and waits for Redis
        wait_for(lambda: ledger._group is not None and ledger._group._busy and not ledger._group._queue)
        for t in threads[1:]:
            t.start()
        wait_for(lambda: len(ledger._group._queue) == 15)
    finally:
        admin.execute_command("CLIENT", "UNPAUSE")
    for t in threads:
        t.join(30)
    assert {g: (o.kind, o.latest) for g, o in outcomes.items()} == dict.fromkeys(games, (APPLIED, 1))
    assert admin.info("commandstats")["cmdstat_evalsha"]["calls"] == 2


def wait_for(condition, seconds: float = 30) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


def test_a_call_that_fails_in_a_redis_batch_fails_alone(redis_url):
    """Given a batch of three moves, the middle one on a key that is not a game's hash (Redis refuses
    its HGET: WRONGTYPE), when the batch is sent, then that move alone is LedgerUnavailable and writes
    nothing, and the two others are applied."""
    import redis

    from referee.private.ledger import APPLIED, LedgerUnavailable, RedisLedger
    from referee.private.ledger.base import Work
    from referee.private.ledger.redis import game_key

    ledger = RedisLedger(redis_url, 60, 5)
    redis.Redis.from_url(redis_url).set(game_key("g-not-a-hash"), "x")
    for game in ("g-first", "g-last"):
        ledger.start(game, "afs1.token0")
    ledger._client()
    batch = [
        Work((game_key(g), ("record", 0, "sha256:d", "afs1.token1", 60, "")))
        for g in ("g-first", "g-not-a-hash", "g-last")
    ]
    ledger._send(batch)
    assert [w.value[0] if w.error is None else None for w in batch] == [1, None, 1]
    assert isinstance(batch[1].error, LedgerUnavailable) and "WRONGTYPE" in str(batch[1].error)
    assert redis.Redis.from_url(redis_url).get(game_key("g-not-a-hash")) == b"x"
    assert ledger.record("g-last", 1, "sha256:e", "afs1.token2", "").kind == APPLIED


def test_a_batch_on_a_cluster_is_one_script_per_slot_and_every_move_is_applied(redis_cluster_url):
    """Given 12 games spread over a cluster's three nodes, when one batch holds a move of each (and a
    second move of one of them), then each move gets its own outcome: the first of each game applied,
    the second one on the same seq stale."""
    from redis.crc import key_slot

    from referee.private.ledger import RedisLedger
    from referee.private.ledger.base import Work
    from referee.private.ledger.redis import game_key

    ledger = RedisLedger(redis_cluster_url, 60, 5)
    games = [f"g-spread-{n}" for n in range(12)]
    assert len({key_slot(game_key(g).encode()) for g in games}) == 12
    for game in games:
        ledger.start(game, "afs1.token0")
    batch = [Work((game_key(g), ("record", 0, "sha256:d", "afs1.token1", 60, ""))) for g in games]
    batch.append(Work((game_key(games[0]), ("record", 0, "sha256:other", "afs1.token9", 60, ""))))
    ledger._send(batch)
    assert [w.error for w in batch] == [None] * 13
    assert [w.value for w in batch] == [[1, 1, ""]] * 12 + [[0, 1, ""]]
    assert [ledger.latest(g) for g in games] == [(1, "afs1.token1")] * 12


def test_a_redis_that_lost_its_scripts_is_given_them_again(redis_url):
    """Given a game under way, when Redis forgets its scripts (SCRIPT FLUSH: what a restart does), then
    the next move is still applied (the script is loaded again and the move sent once more)."""
    import redis

    from referee.private.ledger import APPLIED, RedisLedger

    ledger = RedisLedger(redis_url, 60, 5)
    ledger.start("g-flushed", "afs1.token0")
    assert ledger.record("g-flushed", 0, "sha256:d", "afs1.token1", "").kind == APPLIED
    redis.Redis.from_url(redis_url).script_flush()
    assert ledger.record("g-flushed", 1, "sha256:e", "afs1.token2", "").kind == APPLIED
    assert ledger.latest("g-flushed") == (2, "afs1.token2")


# -- §11: /v1/latest ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "game_id",
    [7, None, ["g-1"], {"id": "g-1"}, "", "g-" + "x" * 10_000],
    ids=["int", "null", "list", "object", "empty", "huge"],
)
def test_latest_refuses_a_game_id_that_is_not_one(lc, private_game_body, game_id):
    game = Game(lc, private_game_body)
    resp = post(lc, "/v1/latest", {"game_id": game_id, "seat": game.seats[0]})
    assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_schema"


def test_latest_of_an_unknown_game_is_404(lc):
    resp = post(lc, "/v1/latest", {"game_id": "g-unknown", "seat": VAULT.seat("g-unknown", 0)})
    assert resp.status_code == 404 and resp.get_json()["code"] == "unknown_game"


def test_latest_with_a_seat_of_another_game_is_403(lc, private_game_body):
    one, two = Game(lc, private_game_body), Game(lc, private_game_body)
    resp = post(lc, "/v1/latest", {"game_id": one.game_id, "seat": two.seats[0]})
    assert resp.status_code == 403 and resp.get_json()["code"] == "bad_seat"


def test_latest_without_a_ledger_is_400(private_client, client):
    for c in (private_client, client):
        resp = post(c, "/v1/latest", {"game_id": "g-1", "seat": VAULT.seat("g-1", 0)})
        assert resp.status_code == 400 and resp.get_json()["code"] == "no_ledger"


def test_every_private_view_carries_the_game_id(lc, private_game_body):
    game = Game(lc, private_game_body)
    view = post(lc, "/v1/view", {"state": game.token, "seat": game.seats[1]}).get_json()["view"]
    _, actions = game.turn()
    applied = game.apply(keep_or_random(actions, game.rng)).get_json()["view"]
    assert view["game_id"] == applied["game_id"] == game.game_id


# -- §12: spectators ------------------------------------------------------------------------


def test_the_watch_key_views_and_never_acts(lc, private_game_body):
    game = Game(lc, private_game_body)
    game.play(2)
    player, actions = game.turn()
    acting = {"state": game.token, "seat": game.watch}
    for path, body in (
        ("/v1/apply", {**acting, "action": actions[0]}),
        ("/v1/validate", {**acting, "action": actions[0]}),
        ("/v1/legal-actions", acting),
    ):
        resp = post(lc, path, body)
        assert resp.status_code == 403 and resp.get_json()["code"] == "not_your_seat", path
    view = post(lc, "/v1/view", acting).get_json()["view"]
    latest = post(lc, "/v1/latest", {"game_id": game.game_id, "seat": game.watch}).get_json()
    assert view["viewer"] is None and latest["view"] == view and latest["seq"] == 2
    assert post(lc, "/v1/view", {**acting, "player": player}).get_json()["code"] == "not_your_seat"


def test_a_seat_never_asks_for_the_spectator_view(lc, private_game_body):
    game = Game(lc, private_game_body)
    resp = post(lc, "/v1/view", {"state": game.token, "seat": game.seats[0], "player": None})
    assert resp.status_code == 403 and resp.get_json()["code"] == "not_your_seat"


def test_a_watch_key_is_not_both_seats_of_a_replay_or_reveal(lc, private_game_body):
    game = Game(lc, private_game_body)
    for path, extra in (("/v1/replay", {"actions": []}), ("/v1/reveal", {})):
        resp = post(lc, path, {"state": game.token, "seats": [game.seats[0], game.watch], **extra})
        assert resp.status_code == 403 and resp.get_json()["code"] == "not_your_seat", path


SPECTATOR_GAMES = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@SPECTATOR_GAMES
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 80))
def test_the_spectator_view_is_exactly_what_both_players_see(client, catalog, seed, moves):
    """§12 against the seats' own views (§5): the spectator's cards are exactly their intersection."""
    from referee.engine import apply, legal_actions, new_game
    from referee.engine.playout import random_new_game

    state, _ = new_game(catalog, random_new_game(catalog, f"spectator-{seed}"))
    rng = random.Random(seed)
    for _ in range(moves):
        if state["phase"] == "over":
            break
        state, _ = apply(catalog, state, keep_or_random(legal_actions(catalog, state), rng))
    views = [post(client, "/v1/view", {"state": state, "player": p}).get_json()["view"] for p in (0, 1, None)]
    seat0, seat1, spectator = views
    assert spectator["viewer"] is None and "seed" not in spectator and "rng" not in spectator
    assert spectator["cards"] == {i: c for i, c in seat0["cards"].items() if i in seat1["cards"]}
    for i, pl in enumerate(state["players"]):  # nothing either player may not know, zone by zone
        hidden = set(pl["hand"]) | {e["card"] for e in pl["cases"] if not e["face_up"]}
        assert not hidden & set(spectator["cards"]) - _declared(state)
        assert spectator["players"][i]["file"] == len(pl["file"])
        assert spectator["players"][i]["hand"] == pl["hand"]


def _declared(state: dict) -> set[str]:
    """The card of a pending action (not a play_case): its declaration revealed it to both (§5)."""
    pending = state["pending"]
    if pending is None or pending["action"]["type"] == "play_case" or "card" not in pending["action"]:
        return set()
    return {pending["action"]["card"]}


def test_a_plain_view_for_null_is_the_spectator_view(client, new_game_body):
    state = post(client, "/v1/games", new_game_body).get_json()["state"]
    view = post(client, "/v1/view", {"state": state, "player": None}).get_json()["view"]
    assert view["viewer"] is None and view["cards"] == {}  # at the deal, both hands are hidden


# -- SQLite's layout: what a move writes, how long a game is kept -------------------------------


def sqlite_rows(path, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(sql, args).fetchall()


def test_a_move_writes_its_row_and_leaves_the_games_table_alone(tmp_path):
    """Given a game touched less than TTL_SLACK of the TTL ago, when a move is recorded, then its row is
    in moves and games is as it was: the game's latest seq is its highest move."""
    from referee.private.ledger import APPLIED, SqliteLedger

    path = str(tmp_path / "ledger.db")
    ledger = SqliteLedger(path, ttl=86400, timeout=1)
    ledger.start("g-1", "token-0")
    touched = sqlite_rows(path, "SELECT touched FROM games")
    assert ledger.record("g-1", 0, "sha256:a", "token-1", "").kind == APPLIED
    assert sqlite_rows(path, "SELECT touched FROM games") == touched
    assert sqlite_rows(path, "SELECT seq, digest, token FROM moves ORDER BY seq") == [
        (0, None, "token-0"),
        (1, "sha256:a", "token-1"),
    ]
    assert ledger.latest("g-1") == (1, "token-1")


def test_a_game_is_kept_the_ttl_after_its_last_move_not_after_its_first(tmp_path):
    """Given a TTL of 1 s, when a move comes 0.6 s after the deal, then the game is still held 1.2 s after
    the deal, and no longer 1.1 s after that move (the sweep then deletes its rows)."""
    import time

    from referee.private.ledger.sqlite import TTL_SLACK, SqliteLedger

    path = str(tmp_path / "ledger.db")
    ledger = SqliteLedger(path, ttl=1.0, timeout=1)
    ledger.start("g-1", "token-0")
    time.sleep(0.6)
    ledger.record("g-1", 0, "sha256:a", "token-1", "")
    time.sleep(0.6)
    assert ledger.latest("g-1") == (1, "token-1")
    time.sleep(0.5 + 2 * TTL_SLACK)
    assert ledger.latest("g-1") is None
    ledger._run(ledger._expire)
    assert sqlite_rows(path, "SELECT count(*) FROM moves") == [(0,)]
    assert sqlite_rows(path, "SELECT count(*) FROM games") == [(0,)]


def test_an_expired_game_is_adopted_afresh_at_the_token_seq(tmp_path):
    import time

    from referee.private.ledger import APPLIED, SqliteLedger

    ledger = SqliteLedger(str(tmp_path / "ledger.db"), ttl=0.2, timeout=1)
    ledger.start("g-1", "token-0")
    ledger.record("g-1", 0, "sha256:a", "token-1", "")
    time.sleep(0.3)
    outcome = ledger.record("g-1", 5, "sha256:b", "token-6", "token-5")
    assert (outcome.kind, outcome.latest) == (APPLIED, 6)
    assert ledger.latest("g-1") == (6, "token-6")


def test_a_file_of_the_earlier_layout_is_read_and_written(tmp_path):
    """Given a file whose games table still keeps each game's latest seq (the layout before 2026-12-02),
    when a worker opens it, then that column is dropped (a worker of the earlier code fails its moves
    rather than read a seq no longer kept), its games are held at their highest move, and play goes on."""
    from referee.private.ledger import APPLIED, STALE, SqliteLedger

    path = str(tmp_path / "ledger.db")
    with sqlite3.connect(path) as db:
        db.executescript(
            """
            CREATE TABLE games (game_id TEXT PRIMARY KEY, latest INTEGER NOT NULL, touched REAL NOT NULL);
            CREATE TABLE moves (game_id TEXT NOT NULL, seq INTEGER NOT NULL, digest TEXT, token TEXT NOT NULL,
                PRIMARY KEY (game_id, seq));
            CREATE INDEX games_touched ON games (touched);
            """
        )
        db.execute("INSERT INTO games VALUES ('g-1', 2, strftime('%s', 'now'))")
        db.executemany(
            "INSERT INTO moves VALUES ('g-1', ?, ?, ?)",
            [(0, None, "token-0"), (1, "sha256:a", "token-1"), (2, "sha256:b", "token-2")],
        )
    ledger = SqliteLedger(path, ttl=86400, timeout=1)
    assert ledger.latest("g-1") == (2, "token-2")
    assert [c[1] for c in sqlite_rows(path, "PRAGMA table_info(games)")] == ["game_id", "touched"]
    assert ledger.record("g-1", 1, "sha256:x", "token-x", "").kind == STALE
    assert ledger.record("g-1", 2, "sha256:c", "token-3", "").kind == APPLIED
    assert ledger.latest("g-1") == (3, "token-3")


# -- unreachable: 503, never a move unrecorded ------------------------------------------------


def test_a_locked_database_is_503_with_retry_after_and_readyz_503(make_app, private_game_body, sqlite_url):
    lc = make_app(state_key=STATE_KEY, ledger=sqlite_url, ledger_timeout=0.2).test_client()
    db_url = sqlite_url
    game = Game(lc, private_game_body)
    game.play(2)
    _, actions = game.turn()
    blocker = sqlite3.connect(db_url.removeprefix("sqlite://"), isolation_level=None)
    blocker.execute("BEGIN EXCLUSIVE")  # another process holding the file longer than REFEREE_LEDGER_TIMEOUT
    try:
        resp = game.apply(actions[0])
        assert resp.status_code == 503 and resp.get_json()["code"] == "ledger_unavailable"
        assert resp.headers["Retry-After"] == "1"
        waiting = lc.get("/readyz")
        assert waiting.status_code == 503
        assert "database is locked" in waiting.get_json()["waiting_for"]  # what it waits for, in the store's words
        assert post(lc, "/v1/games", private_game_body).status_code == 503
        assert post(lc, "/v1/latest", {"game_id": game.game_id, "seat": game.seats[0]}).status_code == 503
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    ready = lc.get("/readyz")
    assert ready.status_code == 200 and ready.get_json()["ledger"] is True  # the table reads this (docs/table.md)
    assert post(lc, "/v1/latest", {"game_id": game.game_id, "seat": game.seats[0]}).get_json()["seq"] == 2
    assert game.apply(actions[0]).status_code == 200  # nothing was recorded by the refused move


# -- settings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"REFEREE_LEDGER": "sqlite:///tmp/x.db"}, "without REFEREE_STATE_KEY"),
        ({"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": "sqlite://relative.db"}, "absolute"),
        ({"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": "sqlite:///x.db?mode=ro"}, "synchronous=normal"),
        ({"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": "redis://localhost:notaport/0"}, "redis://host:port/db"),
        ({"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": "mysql://x/y"}, "use sqlite:///"),
        ({"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": "redis+cluster://h:1/2"}, r"redis\+cluster://host:port"),
        ({"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": "redis+cluster://h:x"}, r"redis\+cluster://host:port"),
        ({"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": "sqlite:///x.db", "REFEREE_LEDGER_TIMEOUT": "0"}, "0.05"),
    ],
)
def test_bad_ledger_settings_are_one_line_errors(env, message):
    with pytest.raises(ConfigError, match=message) as err:
        Settings.from_env(env)
    assert "\n" not in str(err.value)


def test_an_unreachable_ledger_is_a_start_up_error(make_app, tmp_path):
    with pytest.raises(ConfigError, match="unreachable at start-up"):
        make_app(state_key=STATE_KEY, ledger=f"sqlite:///{tmp_path}/no/such/dir/ledger.db")


def test_the_shipped_redis_config_fsyncs_every_move_and_never_evicts():
    """docs/ledger.md, "Durability": what the tests' redis-server runs with (tests/redis_server.py)."""
    from tests.redis_server import CONFIG

    lines = dict(line.split(None, 1) for line in CONFIG.read_text("utf-8").splitlines() if line and line[0] != "#")
    assert lines["appendonly"] == "yes" and lines["appendfsync"] == "always"
    assert lines["maxmemory-policy"] == "noeviction"


def test_a_peek_by_drawing_on_a_copy_is_the_move_made(lc, private_game_body):
    """The peek of issue 23: a voluntary draw on a copy shows the next card; with a ledger that draw
    is the move, and any other move from the original token is refused."""
    game = Game(lc, private_game_body, seed="peek")
    for _ in range(200):
        _, actions = game.turn()
        draws = [a for a in actions if a["type"] == "draw"]
        others = [a for a in actions if a["type"] not in ("draw", "concede")]
        if draws and others:
            break
        game.play(1)
    else:
        pytest.skip("no position with a voluntary draw beside another move")
    peek = game.apply(draws[0])
    assert peek.status_code == 200
    resp = game.apply(others[0])
    assert resp.status_code == 409 and resp.get_json()["latest_seq"] == game.seq(peek.get_json()["state"])


def test_a_call_still_queued_at_its_deadline_is_unavailable_and_a_write_under_way_outcome_unknown():
    """The group commit's callers wait with a deadline (docs/api.md §11): given a batch stuck in the store,
    the write in it is answered LedgerOutcomeUnknown and a read in it LedgerUnavailable once the deadline
    and the grace have passed, and a call queued behind it LedgerUnavailable, taken out of the queue: it is
    never sent, so "nothing was written" is true of it."""
    import math
    import time

    from referee.private.ledger import GroupCommit, LedgerOutcomeUnknown, LedgerUnavailable
    from referee.private.ledger.base import GRACE

    stuck, release, sent = threading.Event(), threading.Event(), []

    def commit(batch) -> None:
        sent.extend(item.work for item in batch)
        stuck.set()
        release.wait(30)
        for item in batch:
            item.value = item.work

    group = GroupCommit(commit, linger=0)
    outcomes: dict[str, object] = {}

    def call(name: str, writes: bool, due: float) -> None:
        try:
            outcomes[name] = group.run(name, due, writes)
        except LedgerUnavailable as exc:
            outcomes[name] = type(exc)

    soon = time.monotonic() + 0.5
    first = threading.Thread(target=call, args=("write", True, soon))
    first.start()
    assert stuck.wait(30)
    queued = threading.Thread(target=call, args=("queued", True, soon))
    queued.start()
    wait_for(lambda: len(group._queue) == 1)
    for thread in (first, queued):
        thread.join(30)
    assert outcomes == {"write": LedgerOutcomeUnknown, "queued": LedgerUnavailable}
    assert group._queue == []  # taken out: never sent
    release.set()
    wait_for(lambda: not group._busy)
    assert sent == ["write"]
    assert group.run("read", math.inf, False) == "read"  # the writer goes on
    assert GRACE <= 1  # the contract's "plus at most one second"
