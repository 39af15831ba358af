"""The ledger with real parts (docs/api.md §11, docs/ledger.md): ``referee serve`` (gunicorn) on a SQLite
file with 2 workers; three replicas behind a real nginx sharing one real ``redis-server``; and a
``kill -9`` of that Redis mid-game.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import random
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import (
    STATE_KEY,
    keep_or_random,
    launch_server,
    nginx_over,
    private_replicas,
    stop_servers,
    wait_ready,
)
from tests.redis_server import RedisCluster

pytestmark = pytest.mark.e2e


def new_game_body(catalog) -> dict:
    from referee.engine.playout import random_new_game

    body = random_new_game(catalog, "ledger-e2e")
    body.pop("seed")
    return body


def deal(http: httpx.Client, catalog) -> dict:
    resp = http.post("/v1/games", json=new_game_body(catalog))
    assert resp.status_code == 201, resp.text
    return resp.json()


def turn(http: httpx.Client, token: str, seats: list[str]) -> tuple[int, list[dict]]:
    for player in (0, 1):
        resp = http.post("/v1/legal-actions", json={"state": token, "seat": seats[player]})
        assert resp.status_code == 200, resp.text
        actions = resp.json()["actions"]
        if any(a["type"] != "concede" for a in actions):
            return player, actions
    raise AssertionError("nobody may act")


def apply(http: httpx.Client, token: str, seats: list[str], action: dict) -> httpx.Response:
    return http.post("/v1/apply", json={"state": token, "action": action, "seat": seats[action["player"]]})


def race(urls: tuple[str, str], token: str, seat: str, actions: tuple[dict, dict]) -> list[httpx.Response]:
    """Two different moves from one token, sent at the same moment to ``urls`` (one each)."""
    barrier = threading.Barrier(2)
    out: list[httpx.Response] = [None, None]  # type: ignore[list-item]

    def send(i: int) -> None:
        with httpx.Client(base_url=urls[i], timeout=30) as http:
            http.get("/livez")  # connected before the barrier: the two moves leave together
            barrier.wait()
            out[i] = http.post("/v1/apply", json={"state": token, "action": actions[i], "seat": seat})

    threads = [threading.Thread(target=send, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def racing_rounds(urls: tuple[str, str], catalog, rounds: int) -> None:
    """``rounds`` races of two moves from one token: each time exactly one is applied, the other 409."""
    rng = random.Random("race")
    with httpx.Client(base_url=urls[0], timeout=30) as http:
        game = deal(http, catalog)
        token, seats = game["state"], game["seats"]
        done = 0
        while done < rounds:
            player, actions = turn(http, token, seats)
            if len(actions) < 2:
                resp = apply(http, token, seats, actions[0])
                if resp.status_code != 200:  # the game is over (a forced last move)
                    game = deal(http, catalog)
                    token, seats = game["state"], game["seats"]
                    continue
                token = resp.json()["state"]
                continue
            pair = tuple(rng.sample(actions, 2))
            answers = race(urls, token, seats[player], pair)  # type: ignore[arg-type]
            statuses = sorted(r.status_code for r in answers)
            assert statuses == [200, 409], [r.text[:300] for r in answers]
            winner = next(r for r in answers if r.status_code == 200)
            loser = next(r for r in answers if r.status_code == 409)
            token = winner.json()["state"]
            assert loser.json()["code"] == "stale_state" and loser.json()["latest_seq"] == winner.json()["view"]["seq"]
            if winner.json()["view"]["phase"] == "over":
                game = deal(http, catalog)
                token, seats = game["state"], game["seats"]
            done += 1


# -- SQLite, one machine, 2 gunicorn workers -----------------------------------------------------


def test_sqlite_with_two_workers_keeps_one_line_of_play(serve, tmp_path, catalog):
    db = tmp_path / "ledger.db"
    server = serve(workers=2, env={"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": f"sqlite:///{db}"})
    racing_rounds((server.url, server.url), catalog, 20)  # the two moves land on both workers
    assert db.exists() and (tmp_path / "ledger.db-wal").exists()  # WAL mode
    assert httpx.get(server.url + "/readyz").status_code == 200


def answered_while_a_move_waits(server_url: str, catalog, hold, release) -> None:
    """With one gevent worker: a move waits on its ledger (``hold`` keeps the store from answering); the
    worker answers /livez meanwhile, so the wait is off its event loop; after ``release`` the move is applied."""
    with httpx.Client(base_url=server_url, timeout=30) as http:
        game = deal(http, catalog)
        token, seats = game["state"], game["seats"]
        _, actions = turn(http, token, seats)
        answers: list[httpx.Response] = []
        hold()
        try:
            mover = threading.Thread(target=lambda: answers.append(apply(http, token, seats, actions[0])))
            mover.start()
            time.sleep(0.3)  # the move reaches the ledger and waits there
            with httpx.Client(base_url=server_url, timeout=30) as other:
                assert other.get("/livez").status_code == 200
            assert mover.is_alive() and not answers, "the move did not wait on the ledger"
        finally:
            release()
        mover.join(30)
        assert answers and answers[0].status_code == 200, answers[0].text if answers else "no answer"


def test_a_move_waiting_for_sqlites_lock_leaves_the_worker_serving(serve, tmp_path, catalog):
    import sqlite3

    db = tmp_path / "ledger.db"
    env = {"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": f"sqlite:///{db}", "REFEREE_LEDGER_TIMEOUT": "10"}
    server = serve(workers=1, env=env)
    blocker = sqlite3.connect(db, isolation_level=None)  # another process holding the write lock
    answered_while_a_move_waits(
        server.url, catalog, lambda: blocker.execute("BEGIN EXCLUSIVE"), lambda: blocker.execute("ROLLBACK")
    )
    blocker.close()


def test_an_unreachable_ledger_at_start_is_one_clear_line(tmp_path):
    from tests.conftest import free_port

    server = launch_server(
        tmp_path,
        env={"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": f"redis://127.0.0.1:{free_port()}/0"},
    )
    try:
        assert server.proc.wait(60) != 0
    finally:
        server.stop()
    lines = [line for line in server.output().splitlines() if "REFEREE_LEDGER" in line]
    assert len(lines) == 1 and "unreachable at start-up" in lines[0], server.output()
    assert "Traceback" not in server.output()


# -- three replicas behind nginx, one Redis ---------------------------------------------------


@pytest.fixture(scope="module")
def redis_replicas(tmp_path_factory, redis_server):
    with private_replicas(tmp_path_factory.mktemp("ledger-replicas"), redis_server.url, 3) as servers:
        yield servers


@pytest.fixture
def nginx(tmp_path, redis_replicas):
    with nginx_over(tmp_path, redis_replicas) as balancer:
        yield balancer


def test_a_fork_sent_to_another_replica_is_refused(nginx, redis_replicas, catalog):
    a, b, c = (httpx.Client(base_url=s.url, timeout=30) for s in redis_replicas)
    with httpx.Client(base_url=nginx.url, timeout=30) as lb, a, b, c:
        game = deal(lb, catalog)
        token, seats = game["state"], game["seats"]
        rng = random.Random("fork")
        for _ in range(6):
            _, actions = turn(lb, token, seats)
            resp = apply(lb, token, seats, keep_or_random(actions, rng))
            assert resp.status_code == 200
            token = resp.json()["state"]
        while len(turn(lb, token, seats)[1]) < 2:
            token = apply(lb, token, seats, turn(lb, token, seats)[1][0]).json()["state"]
        _, actions = turn(lb, token, seats)
        tried = apply(a, token, seats, actions[0])  # tried on a copy, on replica a
        assert tried.status_code == 200
        for replica in (b, c):  # published from the original, on the others
            refused = apply(replica, token, seats, actions[1])
            assert refused.status_code == 409 and refused.json()["latest_seq"] == tried.json()["view"]["seq"]
            assert apply(replica, token, seats, actions[0]).json()["state"] == tried.json()["state"]  # a retry
        latest = c.post("/v1/latest", json={"game_id": game_id(tried), "seat": game["watch"]}).json()
        assert latest["state"] == tried.json()["state"] and latest["view"]["viewer"] is None


def game_id(resp: httpx.Response) -> str:
    return resp.json()["view"]["game_id"]


def test_two_racing_moves_on_two_replicas_one_wins_50_times(redis_replicas, catalog):
    racing_rounds((redis_replicas[0].url, redis_replicas[1].url), catalog, 50)


def test_a_move_waiting_for_redis_leaves_the_worker_serving(serve, redis_server, catalog):
    import redis

    env = {"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": redis_server.url, "REFEREE_LEDGER_TIMEOUT": "10"}
    server = serve(workers=1, env=env)
    admin = redis.Redis.from_url(redis_server.url)
    # CLIENT PAUSE ... WRITE holds every script (the move's compare-and-set) until UNPAUSE.
    answered_while_a_move_waits(
        server.url, catalog, lambda: admin.client_pause(20_000, all=False), admin.client_unpause
    )
    admin.close()


def test_kill_9_of_redis_mid_game_then_restart_loses_no_accepted_move(nginx, redis_replicas, redis_server, catalog):
    rng = random.Random("kill")
    with httpx.Client(base_url=nginx.url, timeout=30) as lb:
        game = deal(lb, catalog)
        token, seats = game["state"], game["seats"]
        accepted = []
        for _ in range(10):
            _, actions = turn(lb, token, seats)
            resp = apply(lb, token, seats, keep_or_random(actions, rng))
            assert resp.status_code == 200
            token = resp.json()["state"]
            accepted.append(token)
        gid = game_id(resp)
        _, actions = turn(lb, token, seats)
        redis_server.kill()
        try:
            for server in redis_replicas:  # every replica: 503, never a 500, never a move unrecorded
                with httpx.Client(base_url=server.url, timeout=30) as http:
                    refused = apply(http, token, seats, actions[0])
                    assert refused.status_code == 503 and refused.json()["code"] == "ledger_unavailable"
                    assert refused.headers["Retry-After"] == "1"
                    assert http.get("/readyz").status_code == 503
                    assert http.post("/v1/latest", json={"game_id": gid, "seat": seats[0]}).status_code == 503
        finally:
            redis_server.start()  # the same data directory: the append-only file
        deadline = time.monotonic() + 30
        while any(httpx.get(s.url + "/readyz").status_code != 200 for s in redis_replicas):
            assert time.monotonic() < deadline, "the replicas did not become ready again"
            time.sleep(0.1)
        latest = lb.post("/v1/latest", json={"game_id": gid, "seat": seats[1]}).json()
        assert latest["seq"] == 10 and latest["state"] == accepted[-1]  # the last accepted move survived
        stale = apply(lb, accepted[-2], seats, turn(lb, accepted[-2], seats)[1][-1])
        assert stale.status_code in (200, 409)  # 200 only if it was the very move recorded
        for _ in range(5):  # play continues from the latest token
            _, actions = turn(lb, token, seats)
            resp = apply(lb, token, seats, keep_or_random(actions, rng))
            assert resp.status_code == 200, resp.text
            token = resp.json()["state"]


# -- two replicas on a Redis Cluster of three nodes ---------------------------------------------------


def test_replicas_on_a_redis_cluster_keep_one_line_of_play_with_games_on_every_node(tmp_path, catalog):
    cluster = RedisCluster(tmp_path / "cluster")
    servers = []
    try:
        env = {"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": cluster.url, "REFEREE_LEDGER_TIMEOUT": "1"}
        servers = [launch_server(tmp_path, workers=1, env=env) for _ in range(2)]
        for server in servers:
            wait_ready(server)
        racing_rounds((servers[0].url, servers[1].url), catalog, 10)
        with httpx.Client(base_url=servers[1].url, timeout=30) as http:
            for _ in range(40):  # a node left without any of 40 games: (2/3)**40, about 1e-7
                deal(http, catalog)
        # Each game is one key, hashed by its id to one of the 16384 slots the three nodes share.
        assert all(count > 0 for count in cluster.keys_per_node()), cluster.keys_per_node()
    finally:
        stop_servers(servers)
        cluster.stop()


# -- a full disk: 503, never a move unrecorded, and play on once there is room --------------------


@contextlib.contextmanager
def small_filesystem(path: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` mounted at ``path`` (root only), unmounted afterwards."""
    path.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs is not permitted here (needs root and mount): the full-disk test did not run")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"mount -t tmpfs was refused ({mounted.stderr.decode().strip()}): the full-disk test did not run")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(path: Path) -> None:
    """Write ``path`` until the filesystem has no byte left."""
    with open(path, "wb", buffering=0) as f:
        for chunk in (1 << 20, 4096, 1):
            try:
                while True:
                    f.write(b"\0" * chunk)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise


def test_a_full_disk_is_503_and_readyz_503_then_play_goes_on_from_the_latest_token(serve, tmp_path, catalog):
    with small_filesystem(tmp_path / "disk", "4m") as disk:
        env = {"REFEREE_STATE_KEY": STATE_KEY, "REFEREE_LEDGER": f"sqlite:///{disk / 'ledger.db'}"}
        server = serve(workers=2, env={**env, "REFEREE_LEDGER_TIMEOUT": "1"})
        try:
            play_through_a_full_disk(server.url, disk, catalog)
        finally:
            server.stop()  # before the filesystem goes
        # Each failed write is one JSON line, not a traceback of gevent's thread pool (issue 39).
        log = server.output()
        failed = [line for line in log.splitlines() if '"ledger write failed"' in line]
        assert failed and all(json.loads(line)["logger"] == "referee.ledger" for line in failed), log[-3000:]
        assert "Traceback" not in log, log[-3000:]


def play_through_a_full_disk(url: str, disk: Path, catalog) -> None:
    rng = random.Random("full")
    with httpx.Client(base_url=url, timeout=30) as http:
        game = deal(http, catalog)
        token, seats = game["state"], game["seats"]
        for _ in range(4):
            _, actions = turn(http, token, seats)
            resp = apply(http, token, seats, keep_or_random(actions, rng))
            assert resp.status_code == 200, resp.text
            token, gid = resp.json()["state"], game_id(resp)
        _, actions = turn(http, token, seats)
        fill(disk / "filler")
        try:
            for _ in range(4):  # both workers, whichever takes each request
                refused = apply(http, token, seats, actions[0])
                assert refused.status_code == 503, refused.text
                assert refused.json()["code"] == "ledger_unavailable" and refused.headers["Retry-After"] == "1"
                assert http.get("/readyz").status_code == 503
            assert http.post("/v1/games", json=new_game_body(catalog)).status_code == 503
        finally:
            (disk / "filler").unlink()
        assert http.get("/readyz").status_code == 200
        latest = http.post("/v1/latest", json={"game_id": gid, "seat": seats[0]}).json()
        assert latest["seq"] == 4 and latest["state"] == token  # nothing of the refused moves was recorded
        for _ in range(3):  # play goes on from the latest token
            _, actions = turn(http, token, seats)
            resp = apply(http, token, seats, keep_or_random(actions, rng))
            assert resp.status_code == 200, resp.text
            token = resp.json()["state"]
