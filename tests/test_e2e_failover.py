"""The ledger across machines (docs/api.md §11, "Replicas and failover"; docs/ledger.md, "Running it across
machines"): a real Redis primary, two replicas and three sentinels on loopback, two ``referee serve``
replicas on ``redis+sentinel://…?replicas=1``, players in several threads, the replicas cut off from the
primary for 0.3 s and then a ``kill -9`` of the primary mid-game: every move answered 200 is on the promoted primary, play goes on through it on both referee
replicas without a restart, and nothing is ever a 500.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field

import httpx
import pytest

from tests.conftest import keep_or_random, private_replicas
from tests.redis_server import RedisCluster, RedisWithSentinels

pytestmark = pytest.mark.e2e

PLAYERS = 4
PLAY_BEFORE_KILL = 2.0  # seconds of play before the primary is killed
MOVES_AFTER = 3  # moves each player has answered 200 after the kill before the test stops
CUT_OFF = 0.3  # seconds the replicas are cut off from the primary before it is killed


@dataclass
class Player:
    """One thread's games: every move answered 200 (game id, seq, token), every status seen."""

    url: str
    rng: random.Random
    accepted: list[tuple[str, int, str]] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    after_kill: list[float] = field(default_factory=list)  # when each move after the kill was answered 200

    def play(self, catalog, stop: threading.Event, killed: list[float]) -> None:
        with httpx.Client(base_url=self.url, timeout=30) as http:
            while not stop.is_set():
                game = self.send(http, "/v1/games", new_game_body(catalog, self.rng), stop)
                if game is None:
                    return
                token, seats = game["state"], game["seats"]
                while not stop.is_set():
                    actions = self.actions(http, token, seats)
                    if actions is None:
                        break  # the game is over: the next one
                    action = keep_or_random(actions, self.rng)
                    body = {"state": token, "action": action, "seat": seats[action["player"]]}
                    answer = self.send(http, "/v1/apply", body, stop)
                    if answer is None:
                        return
                    token = answer["state"]
                    game_id = answer["view"]["game_id"]
                    self.accepted.append((game_id, answer["view"]["seq"], token))
                    if killed:
                        self.after_kill.append(time.monotonic())

    def send(self, http: httpx.Client, path: str, body: dict, stop: threading.Event) -> dict | None:
        """The answer to ``body``, sent again (the same request: safe, docs/api.md §11) after each 503."""
        while not stop.is_set():
            resp = http.post(path, json=body)
            self.statuses[resp.status_code] = self.statuses.get(resp.status_code, 0) + 1
            if resp.status_code in (200, 201):
                return dict(resp.json())
            assert resp.status_code == 503, resp.text  # never a 500, never a 409 for a move of one's own
            assert resp.json()["code"] in ("ledger_unavailable", "ledger_outcome_unknown"), resp.text
            time.sleep(0.1)
        return None

    @staticmethod
    def actions(http: httpx.Client, token: str, seats: list[str]) -> list[dict] | None:
        for player in (0, 1):
            resp = http.post("/v1/legal-actions", json={"state": token, "seat": seats[player]})
            assert resp.status_code == 200, resp.text
            actions = resp.json()["actions"]
            if any(a["type"] != "concede" for a in actions):
                return list(actions)
        return None


def new_game_body(catalog, rng: random.Random) -> dict:
    from referee.engine.playout import random_new_game

    body = random_new_game(catalog, f"failover-{rng.random()}")
    body.pop("seed")
    return body


def test_kill_9_of_the_primary_loses_no_move_answered_200_and_play_goes_on(tmp_path, catalog):
    redis = RedisWithSentinels(tmp_path / "redis")
    try:
        with private_replicas(tmp_path, redis.url + "?replicas=1", 2) as servers:
            old = redis.primary()
            players = play_through_a_kill(servers, catalog, old)
            new = redis.primary()
            assert new is not old
            lost = missing(new.port, [move for p in players for move in p.accepted])
            assert lost == [], f"{len(lost)} moves answered 200 are not on the new primary"
    finally:
        redis.stop()


def test_kill_9_of_a_cluster_primary_loses_no_move_answered_200_and_play_goes_on(tmp_path, catalog):
    """The same on a Redis Cluster of three primaries, each with a replica (cluster-node-timeout 1 s):
    one primary killed; its replica takes its slots. With ``?replicas=1`` that shard then accepts a write
    only once a replica holds it again: the killed node, started again 3 s later, rejoins as the new
    primary's replica (docs/ledger.md, "Running it across machines")."""
    cluster = RedisCluster(tmp_path / "cluster", replicas=1)
    try:
        with private_replicas(tmp_path, cluster.url + "?replicas=1", 2) as servers:
            old = cluster.nodes[0]  # a primary: redis-cli makes the first three the primaries
            players = play_through_a_kill(servers, catalog, old, revive_after=3)
            alive = next(node for node in cluster.nodes if node is not old)
            lost = missing(alive.port, [move for p in players for move in p.accepted], cluster=True)
            assert lost == [], f"{len(lost)} moves answered 200 are not in the cluster"
    finally:
        cluster.stop()


def play_through_a_kill(servers, catalog, primary, revive_after: float | None = None) -> list[Player]:
    """Players on ``servers`` (each thread its own games), the primary's replicas cut off, the primary
    killed -9, play on until every player has had ``MOVES_AFTER`` moves answered 200 since: the players,
    once no answer was a 500 and the first accepted move came within 10 s of the kill. With
    ``revive_after``, the killed node is started again that many seconds after the kill (it rejoins as a
    replica of the node that took its place)."""
    players = [Player(servers[n % 2].url, random.Random(n)) for n in range(PLAYERS)]
    stop, killed = threading.Event(), []
    errors: list[BaseException] = []

    def run(player: Player) -> None:
        try:
            player.play(catalog, stop, killed)
        except BaseException as exc:  # an assertion in a thread: failed in the test's thread
            errors.append(exc)
            stop.set()

    threads = [threading.Thread(target=run, args=(p,)) for p in players]
    for thread in threads:
        thread.start()
    started = time.monotonic()  # a fresh cluster's replicas may still be syncing: ?replicas=1 waits for them
    while not any(p.accepted for p in players) and not errors and time.monotonic() - started < 30:
        time.sleep(0.1)
    time.sleep(PLAY_BEFORE_KILL)
    before = sum(len(p.accepted) for p in players)
    cut_off_replicas(primary)
    time.sleep(CUT_OFF)  # the moves of these 0.3 s reach no replica before the primary dies
    primary.kill()
    killed.append(time.monotonic())
    if revive_after is not None:
        reviver = threading.Timer(revive_after, primary.start)
        reviver.start()
    waiting = readiness_while_failing_over(servers, stop, players)
    stop.set()
    for thread in threads:
        thread.join(60)
    if revive_after is not None:
        reviver.join(60)
    assert not errors, errors
    assert before > 0 and all(len(p.after_kill) >= MOVES_AFTER for p in players), [len(p.after_kill) for p in players]
    assert all(500 not in p.statuses for p in players)
    assert all("ledger" in why for why in waiting), waiting  # /readyz says what it waits for
    first = min(min(p.after_kill) for p in players if p.after_kill) - killed[0]
    print(f"failover: first move accepted {first:.1f} s after the kill; statuses {merged(players)}")
    assert first < 10
    return players


def cut_off_replicas(primary) -> None:
    """The primary drops its replicas' connections (what it had not sent them is lost with it): they
    reconnect within about a second, by which time it is dead."""
    import redis

    client = redis.Redis(host="127.0.0.1", port=primary.port, socket_timeout=5)
    try:
        client.client_kill_filter(_type="replica")
    finally:
        client.close()


def readiness_while_failing_over(servers, stop: threading.Event, players: list[Player]) -> list[str]:
    """Each referee replica's ``/readyz`` polled until every player has moved ``MOVES_AFTER`` times since the
    kill (at most 30 s): the ``waiting_for`` of each 503 seen."""
    waiting: list[str] = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not stop.is_set():
        if all(len(p.after_kill) >= MOVES_AFTER for p in players):
            break
        for server in servers:
            resp = httpx.get(server.url + "/readyz", timeout=10)
            if resp.status_code == 503:
                waiting.append(resp.json().get("waiting_for", ""))
        time.sleep(0.1)
    return waiting


def missing(port: int, accepted: list[tuple[str, int, str]], cluster: bool = False) -> list[tuple[str, int]]:
    """The moves of ``accepted`` whose token the primary on ``port`` (or the cluster it is a node of) does not
    hold at their seq."""
    import redis
    import redis.cluster

    kind = redis.cluster.RedisCluster if cluster else redis.Redis
    client = kind(host="127.0.0.1", port=port, socket_timeout=5, decode_responses=True)
    try:
        return [
            (game_id, seq)
            for game_id, seq, token in accepted
            if client.hget("af:{" + game_id + "}", f"t:{seq}") != token
        ]
    finally:
        client.close()


def merged(players: list[Player]) -> dict[int, int]:
    out: dict[int, int] = {}
    for player in players:
        for status, count in player.statuses.items():
            out[status] = out.get(status, 0) + count
    return out


def test_with_replicas_1_a_write_no_replica_confirms_is_outcome_unknown_and_the_retry_is_applied(
    tmp_path, make_app, private_game_body
):
    """Given a primary whose one replica is paused (SIGSTOP), a move on ``?replicas=1`` is 503
    ledger_outcome_unknown (the primary holds it, no replica confirmed it in time), and the same move again
    once the replica is back is the recorded answer; without ``?replicas`` it is answered 200 at once."""
    import os
    import signal

    from tests.conftest import STATE_KEY
    from tests.redis_server import RedisServer
    from tests.test_clocks import Game, body_with

    primary = RedisServer(tmp_path / "primary")
    replica = RedisServer(tmp_path / "replica", ("--replicaof", "127.0.0.1", str(primary.port)))
    try:
        RedisWithSentinels._wait(lambda: RedisWithSentinels.role(primary) == ("master", 1), "the replica did not sync")
        waiting = make_app(state_key=STATE_KEY, ledger=primary.url + "?replicas=1", ledger_timeout=0.5).test_client()
        at_once = make_app(state_key=STATE_KEY, ledger=primary.url, ledger_timeout=0.5).test_client()
        games = [Game(client, body_with(private_game_body)) for client in (waiting, at_once)]
        moves = [
            next(a for a in g.ask("/v1/legal-actions", 0).get_json()["actions"] if a["type"] != "concede")
            for g in games
        ]
        os.kill(replica.proc.pid, signal.SIGSTOP)
        try:
            unconfirmed = games[0].send(moves[0])
            unwaited = games[1].send(moves[1])
        finally:
            os.kill(replica.proc.pid, signal.SIGCONT)
        assert unconfirmed.status_code == 503, unconfirmed.get_json()
        assert unconfirmed.get_json()["code"] == "ledger_outcome_unknown"
        assert unwaited.status_code == 200, unwaited.get_json()
        again = games[0].send(moves[0])
        assert again.status_code == 200, again.get_json()
        assert games[0].send(moves[0]).get_json()["state"] == again.get_json()["state"]  # recorded once
    finally:
        replica.stop()
        primary.stop()
