"""Clocks with real parts (docs/api.md §15): two ``referee serve`` replicas (gunicorn) sharing one real
``redis-server`` behind a real nginx. Each player's moves go through a different replica; every charge is
the ledger's (Redis's ``TIME``), so the replicas agree. This is the one test of the clocks that runs in
real time (a 10-second clock runs out: about 11 seconds); the others move the ledger's clock forward.
"""

from __future__ import annotations

import time
from datetime import datetime

import httpx
import pytest
import redis

from referee.private.ledger.redis import CLOCK_AHEAD
from tests.conftest import nginx_over, private_replicas

pytestmark = pytest.mark.e2e

CLOCK = {"initial": 10, "increment": 1}


@pytest.fixture(scope="module")
def replicas(tmp_path_factory, redis_server):
    with private_replicas(tmp_path_factory.mktemp("clock-replicas"), redis_server.url, 2) as servers:
        yield servers


@pytest.fixture
def nginx(tmp_path, replicas):
    with nginx_over(tmp_path, replicas) as balancer:
        yield balancer


def millis(since: str) -> int:
    return int(datetime.fromisoformat(since).timestamp() * 1000)


def redis_time(url: str) -> int:
    client = redis.Redis.from_url(url)
    try:
        seconds, micros = client.time()
        return seconds * 1000 + micros // 1000
    finally:
        client.close()


def test_a_clocked_game_across_two_replicas_charges_the_ledgers_time_and_ends_on_a_claim(
    nginx, replicas, redis_server, catalog
):
    from referee.engine.playout import random_new_game

    body = {k: v for k, v in random_new_game(catalog, "clocks-e2e").items() if k != "seed"}
    a, b = (httpx.Client(base_url=s.url, timeout=30) for s in replicas)
    with httpx.Client(base_url=nginx.url, timeout=30) as lb, a, b:
        dealt = lb.post("/v1/games", json={**body, "first_player": 0, "clock": CLOCK})
        assert dealt.status_code == 201, dealt.text
        token, seats = dealt.json()["state"], dealt.json()["seats"]
        via = {0: a, 1: b}  # player 0 plays on replica a, player 1 on replica b

        def move(player: int, kind: str) -> dict:
            resp = via[player].post(
                "/v1/apply", json={"state": token, "seat": seats[player], "action": {"type": kind, "player": player}}
            )
            assert resp.status_code == 200, resp.text
            return resp.json()

        start = millis(b.post("/v1/view", json={"state": token, "seat": seats[1]}).json()["view"]["clock"]["since"])
        time.sleep(1.2)
        before = redis_time(redis_server.url)
        first = move(0, "keep")
        after = redis_time(redis_server.url)
        token, clock = first["state"], first["view"]["clock"]
        # charged at Redis's clock as the replica reads it, which the record's script checked against TIME
        assert before - CLOCK_AHEAD <= millis(clock["since"]) <= after + CLOCK_AHEAD
        charged = millis(clock["since"]) - start
        assert charged >= 1_200 and clock["remaining"] == [10_000 - charged + 1_000, 10_000]
        # a retry through the other replica is the recorded answer: not charged twice
        again = b.post(
            "/v1/apply",
            json={"state": dealt.json()["state"], "seat": seats[0], "action": {"type": "keep", "player": 0}},
        )
        assert again.status_code == 200 and again.json()["state"] == token
        assert again.json()["view"]["clock"] == clock
        second = move(1, "keep")  # player 1's move, on replica b, charged from player 0's recorded time
        token = second["state"]
        assert second["view"]["clock"]["remaining"][0] == clock["remaining"][0]
        assert second["view"]["clock"]["running"] == 0
        # player 0's whole time runs out in real time; the move is refused and nothing recorded
        left = second["view"]["clock"]["remaining"][0]
        time.sleep(left / 1000 + 0.3)
        late = a.post(
            "/v1/apply", json={"state": token, "seat": seats[0], "action": {"type": "skip_case", "player": 0}}
        )
        assert late.status_code == 422 and (late.json()["rule"], late.json()["code"]) == ("11.5", "time_out")
        game_id = second["view"]["game_id"]
        latest = lb.post("/v1/latest", json={"game_id": game_id, "seat": seats[1]}).json()
        assert latest["seq"] == 2
        claim = b.post(
            "/v1/apply", json={"state": token, "seat": seats[1], "action": {"type": "claim_time", "player": 1}}
        )
        assert claim.status_code == 200, claim.text
        view = claim.json()["view"]
        assert view["result"] == {"winner": 1, "reason": "time"} and view["clock"]["remaining"][0] == 0


def test_a_kill_9_of_redis_mid_game_keeps_the_clocks(nginx, replicas, redis_server, catalog):
    """The clocks live in the recorded tokens: after Redis is killed and restarted from its append-only
    file, the latest token has the same clocks, and the next move is charged from the last recorded one."""
    from referee.engine.playout import random_new_game

    body = {k: v for k, v in random_new_game(catalog, "clocks-restart").items() if k != "seed"}
    with httpx.Client(base_url=nginx.url, timeout=30) as lb:
        dealt = lb.post("/v1/games", json={**body, "first_player": 0, "clock": {"initial": 600, "increment": 5}})
        token, seats = dealt.json()["state"], dealt.json()["seats"]
        moved = lb.post("/v1/apply", json={"state": token, "seat": seats[0], "action": {"type": "keep", "player": 0}})
        assert moved.status_code == 200, moved.text
        token, clock, game_id = moved.json()["state"], moved.json()["view"]["clock"], moved.json()["view"]["game_id"]
        redis_server.kill()
        redis_server.start()  # the same data directory: the append-only file
        deadline = time.monotonic() + 30
        while any(httpx.get(s.url + "/readyz").status_code != 200 for s in replicas):
            assert time.monotonic() < deadline, "the replicas did not become ready again"
            time.sleep(0.1)
        latest = lb.post("/v1/latest", json={"game_id": game_id, "seat": seats[1]}).json()
        assert latest["seq"] == 1 and latest["state"] == token and latest["view"]["clock"] == clock
        after = lb.post("/v1/apply", json={"state": token, "seat": seats[1], "action": {"type": "keep", "player": 1}})
        assert after.status_code == 200, after.text
        charged = millis(after.json()["view"]["clock"]["since"]) - millis(clock["since"])
        assert charged > 0 and after.json()["view"]["clock"]["remaining"] == [
            clock["remaining"][0],
            600_000 - charged + 5_000,
        ]
