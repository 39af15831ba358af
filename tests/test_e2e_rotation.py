"""A live rolling rotation of the state key (issue 19, point 4): three private-mode replicas behind
real nginx (deploy/compose/nginx.conf, taking a failed replica back after 1 s, not 5), games in
flight the whole time, every replica replaced in turn for each of the three steps of
docs/operations.md ("Rotating a secret or a state key"):

1. ``REFEREE_STATE_KEY=old``, ``REFEREE_STATE_KEY_PREVIOUS=new`` (the new key accepted everywhere);
2. ``REFEREE_STATE_KEY=new``, ``REFEREE_STATE_KEY_PREVIOUS=old`` (the new key used);
3. ``REFEREE_STATE_KEY=new`` (the old key dropped).

No game fails: every request of every game is answered 200 (201 for the deal). Each player keeps
the seat an answer renews (``seat``), on a move, a view or a question.
"""

from __future__ import annotations

import random
import threading
import time

import httpx
import pytest

from benchmarks.nginx import NGINX, Nginx, compose_config
from tests.conftest import (
    NGINX_MISSING,
    OTHER_STATE_KEY,
    STATE_KEY,
    keep_or_random,
    launch_server,
    need_program,
    stop_servers,
    wait_ready,
)

pytestmark = pytest.mark.e2e

need_program(NGINX, NGINX_MISSING, module_level=True)

OLD, NEW = STATE_KEY, OTHER_STATE_KEY
# deploy/compose/nginx.conf has max_fails=1 fail_timeout=5s; this test's copy waits 1 s, so that its
# nine replacements, each waiting for nginx to take the replica back, take 15 s rather than 50.
SHIPPED_FAIL_TIMEOUT = "fail_timeout=5s"
NGINX_FAIL_TIMEOUT = 1.0
SYNC = {"REFEREE_WORKER_CLASS": "sync"}  # as every shipped deployment runs behind nginx
STEPS = [
    {**SYNC, "REFEREE_STATE_KEY": OLD, "REFEREE_STATE_KEY_PREVIOUS": NEW},
    {**SYNC, "REFEREE_STATE_KEY": NEW, "REFEREE_STATE_KEY_PREVIOUS": OLD},
    {**SYNC, "REFEREE_STATE_KEY": NEW},
]


class Table(threading.Thread):
    """Plays private games through ``url`` one after another until stopped; counts games and failures."""

    def __init__(self, url: str, game: dict, seed: int):
        super().__init__(daemon=True)
        self.url, self.game, self.rng = url, game, random.Random(seed)
        self.stopping = threading.Event()
        self.finished = self.moves = self.renewals = 0
        self.failures: list[str] = []

    def run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=15) as http:
            while not self.stopping.is_set():
                try:
                    self.play(http)
                except Failure as exc:
                    self.failures.append(str(exc))

    def call(self, http: httpx.Client, path: str, body: dict, expect: int = 200) -> dict:
        answer = http.post(path, json=body)
        if answer.status_code != expect:
            raise Failure(f"{path}: {answer.status_code} {answer.text[:200]}")
        return answer.json()

    def play(self, http: httpx.Client) -> None:
        deal = self.call(http, "/v1/games", self.game, 201)
        token, seats = deal["state"], list(deal["seats"])
        while not self.stopping.is_set():
            moves = {}
            for player in (0, 1):
                out = self.call(http, "/v1/legal-actions", {"state": token, "seat": seats[player]})
                seats[player] = self.renewed(out, seats[player])
                if out["actions"]:
                    moves[player] = out["actions"]
            if not moves:
                raise Failure("nobody may act")
            player = self.rng.choice(sorted(moves))
            out = self.call(
                http,
                "/v1/apply",
                {"state": token, "seat": seats[player], "action": keep_or_random(moves[player], self.rng)},
            )
            token, seats[player] = out["state"], self.renewed(out, seats[player])
            self.moves += 1
            watcher = 1 - player  # the other player only looks
            view = self.call(http, "/v1/view", {"state": token, "seat": seats[watcher]})
            seats[watcher] = self.renewed(view, seats[watcher])
            if view["view"]["phase"] == "over":
                self.finished += 1
                return

    def renewed(self, answer: dict, seat: str) -> str:
        if "seat" in answer:
            self.renewals += 1
            return answer["seat"]
        return seat


class Failure(Exception):
    pass


def quicker_compose_config(upstreams: list[str], port: int) -> str:
    """The shipped compose config, nginx taking a failed replica back after NGINX_FAIL_TIMEOUT."""
    text = compose_config(upstreams, port)
    assert text.count(SHIPPED_FAIL_TIMEOUT) == 3
    return text.replace(SHIPPED_FAIL_TIMEOUT, f"fail_timeout={NGINX_FAIL_TIMEOUT:g}s")


def test_a_rolling_two_phase_state_key_rotation_fails_no_game(tmp_path, private_game_body):
    """Given three replicas on the old key behind nginx and four tables playing, when every replica is
    replaced in turn for each step (new key accepted, new key used, old key dropped), then no request
    of any game fails and games keep finishing."""
    replicas = [wait_ready(launch_server(tmp_path, env={**SYNC, "REFEREE_STATE_KEY": OLD})) for _ in range(3)]
    ports = [int(r.url.rsplit(":", 1)[1]) for r in replicas]
    nginx = Nginx(tmp_path, [r.url.removeprefix("http://") for r in replicas], quicker_compose_config)
    tables = [Table(nginx.url, private_game_body, seed) for seed in range(4)]
    try:
        for table in tables:
            table.start()
        time.sleep(1.0)
        for env in STEPS:
            for i, port in enumerate(ports):
                stopped = time.monotonic()
                replicas[i].stop()  # SIGTERM: gunicorn finishes its requests; nginx tries the next replica
                replicas[i] = wait_ready(launch_server(tmp_path, env=env, port=port))
                # One replica out at a time, as a rolling update waits for the new pod to be ready:
                # nginx takes a replica back once its fail_timeout (5 s) since the last error is over.
                time.sleep(max(0.5, NGINX_FAIL_TIMEOUT + 0.5 - (time.monotonic() - stopped)))
        time.sleep(1.0)  # and on the new key alone
    finally:
        for table in tables:
            table.stopping.set()
        for table in tables:
            table.join(30)
        nginx.stop()
        stop_servers(replicas)
    failures = [f for table in tables for f in table.failures]
    assert failures == []
    assert sum(t.moves for t in tables) > 50
    assert sum(t.renewals for t in tables) > 0  # seats made under the old key were renewed on the way
