"""Replicas behind a real nginx (Debian's package), with deploy/compose/nginx.conf's settings
(issue 9 "Multi-replica test", issue 8 "Rotation").

Three ``referee serve`` replicas with one secret on loopback behind nginx play
whole seeded games; every answer equals the single-process engine's (and its
seal the one the shared secret gives). A replica with another secret behind
the same balancer makes a sealed game fail with 403. The two-phase secret
rotation keeps a live game going at every step of both phases, while the
one-step rotation breaks it.
"""

from __future__ import annotations

import copy
import random
import shutil
from pathlib import Path

import httpx
import pytest

from benchmarks.nginx import NGINX, Nginx, sidecar_config
from referee.engine import apply, legal_actions, new_game
from referee.engine.playout import random_new_game
from referee.private.sealing import Sealer
from tests.conftest import (
    NGINX_MISSING,
    OTHER_SECRET,
    SECRET,
    keep_or_random,
    launch_server,
    need_program,
    stop_servers,
    wait_ready,
)

pytestmark = pytest.mark.e2e

need_program(NGINX, NGINX_MISSING, module_level=True)

NEW_SECRET = "rotated-secret-9f8e7d6c5b4a3210"


@pytest.fixture(scope="module")
def replicas(tmp_path_factory):
    """Replicas by role, started together: three with SECRET, one with another secret, and the
    two rotation phases' (old + new accepted, sealing with old; then sealing with new)."""
    logs = tmp_path_factory.mktemp("replicas")
    specs = {
        "a": {"REFEREE_SECRET": SECRET},
        "b": {"REFEREE_SECRET": SECRET},
        "c": {"REFEREE_SECRET": SECRET},
        "other": {"REFEREE_SECRET": OTHER_SECRET},
        "phase1": {"REFEREE_SECRET": SECRET, "REFEREE_SECRET_PREVIOUS": NEW_SECRET},
        "phase2": {"REFEREE_SECRET": NEW_SECRET, "REFEREE_SECRET_PREVIOUS": SECRET},
    }
    servers = {role: launch_server(logs, workers=1, env=env) for role, env in specs.items()}
    try:
        for server in servers.values():
            wait_ready(server)
        yield servers
    finally:
        stop_servers(servers.values())


@pytest.fixture
def balancer(tmp_path, replicas):
    """``balancer("a", "b", "c")``: nginx in front of those replicas."""
    started: list[Nginx] = []

    def start(*roles: str, config=None) -> Nginx:
        nginx = Nginx(tmp_path, [replicas[r].url.removeprefix("http://") for r in roles], config)
        started.append(nginx)
        return nginx

    yield start
    for nginx in started:
        nginx.stop()


def play(http: httpx.Client, catalog, seed: str, steps: int | None = None, start: dict | None = None):
    """Play a seeded game through ``http`` (at most ``steps`` actions), checking every answer
    against the single-process engine; yields each answer's status so callers can stop early."""
    seals = [Sealer(key.encode()) for key in (SECRET, NEW_SECRET)]  # either, mid-rotation
    rng = random.Random(seed)
    if start is None:
        body = random_new_game(catalog, seed)
        resp = http.post("/v1/games", json=body)
        yield resp.status_code
        expected, _ = new_game(catalog, body)
        state = resp.json()["state"]
        assert {k: v for k, v in state.items() if k != "seal"} == expected
        assert state["seal"] in {sealer.seal_of(expected) for sealer in seals}
    else:
        state = start
    count = 0
    while state["phase"] != "over" and (steps is None or count < steps):
        resp = http.post("/v1/legal-actions", json={"state": state})
        yield resp.status_code
        if resp.status_code != 200:
            return
        plain = {k: v for k, v in state.items() if k != "seal"}
        assert resp.json()["actions"] == legal_actions(catalog, copy.deepcopy(plain))
        action = keep_or_random(resp.json()["actions"], rng)
        resp = http.post("/v1/apply", json={"state": state, "action": action})
        yield resp.status_code
        if resp.status_code != 200:
            return
        expected, events = apply(catalog, copy.deepcopy(plain), action)
        assert resp.json()["events"] == events
        state = resp.json()["state"]
        assert {k: v for k, v in state.items() if k != "seal"} == expected
        count += 1
    play.last_state = state  # type: ignore[attr-defined]


def test_whole_games_through_nginx_equal_the_single_process_engine(balancer, replicas, catalog):
    nginx = balancer("a", "b", "c")
    with httpx.Client(base_url=nginx.url, timeout=30) as http:
        statuses = list(play(http, catalog, "nginx-1"))  # a whole game, to its end
        assert set(statuses) == {200, 201} and len(statuses) > 50, statuses
    for role in ("a", "b", "c"):  # the balancer spread the game over every replica
        assert '"endpoint":"game.apply"' in replicas[role].output()


def test_a_replica_with_another_secret_makes_sealed_games_fail_with_403(balancer, catalog):
    nginx = balancer("a", "b", "other")
    with httpx.Client(base_url=nginx.url, timeout=30) as http:
        statuses = list(play(http, catalog, "nginx-other", steps=12))
    assert 403 in statuses


def test_two_phase_rotation_keeps_a_live_game_going(balancer, replicas, catalog):
    """docs/operations.md, "Rotating the secret": at each point of both rollouts the replicas
    behind the balancer accept each other's states. The states sealed in phase 2 carry the
    new secret's seal."""
    rollout = [
        ("a", "b", "c"),
        ("a", "b", "phase1"),
        ("b", "phase1"),  # phase 1 rolls out
        ("phase1", "phase2"),
        ("phase2",),
    ]  # phase 2 rolls out
    state = None
    for roles in rollout:
        nginx = balancer(*roles)
        with httpx.Client(base_url=nginx.url, timeout=30) as http:
            if state is None:
                statuses = list(play(http, catalog, "rotation", steps=4))
            else:
                statuses = list(play(http, catalog, "rotation", steps=4, start=state))
            assert 403 not in statuses, (roles, statuses)
            state = play.last_state  # type: ignore[attr-defined]
        nginx.stop()
    assert state["seal"] == Sealer(NEW_SECRET.encode()).seal_of(state)


def test_one_step_rotation_breaks_live_games(balancer, catalog):
    """The order the two phases avoid: a replica sealing with the new secret beside one that
    only knows the old one."""
    nginx = balancer("a", "phase2")
    with httpx.Client(base_url=nginx.url, timeout=30) as http:
        statuses = list(play(http, catalog, "one-step", steps=12))
    assert 403 in statuses


def test_the_kubernetes_sidecar_proxies_readiness_and_games(balancer, replicas, catalog):
    """deploy/kubernetes/nginx.conf in front of one replica: readiness and play go through it,
    and a body over the limit is refused by nginx, as problem+json, before the referee sees it."""
    nginx = balancer("a", config=sidecar_config)
    try:
        with httpx.Client(base_url=nginx.url, timeout=30) as http:
            ready = http.get("/readyz")
            assert ready.status_code == 200 and ready.json()["keys"]["current"]
            assert http.get("/nginx-livez").status_code == 200
            assert set(play(http, catalog, "sidecar", steps=3)) == {200, 201}
            too_big = http.post(
                "/v1/apply",
                content=b"{" + b" " * (2 * 1024 * 1024) + b"}",
                headers={"Content-Type": "application/json"},
            )
            assert too_big.status_code == 413 and too_big.json()["code"] == "payload_too_large"
            assert too_big.headers["content-type"] == "application/problem+json"
            assert too_big.json()["instance"] == too_big.headers["x-request-id"]
    finally:
        for leftover in Path("/tmp").glob(f"referee-test-{nginx.port}-nginx-*"):
            shutil.rmtree(leftover, ignore_errors=True)
