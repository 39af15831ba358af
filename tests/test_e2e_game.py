"""The real server (``referee serve``: gunicorn, 2 workers) on a loopback port, over real HTTP."""

from __future__ import annotations

import os
import random
import signal
import time
from pathlib import Path

import httpx
import pytest

import referee_schemas as S
from tests.conftest import launch_server

pytestmark = pytest.mark.e2e


def test_a_whole_seeded_game_over_http(serve, new_game_body, play_policy):
    server = serve(workers=2)
    rng = random.Random("e2e")
    with httpx.Client(base_url=server.url, timeout=10) as http:
        resp = http.post("/v1/games", json=new_game_body)
        assert resp.status_code == 201
        assert S.GAME_RESPONSE.validate(resp.json()) == {}
        state = resp.json()["state"]
        applied = 0
        while state["phase"] != "over":
            actions = http.post("/v1/legal-actions", json={"state": state}).json()["actions"]
            action = play_policy(actions, rng)
            if applied % 25 == 0:  # now and then, the other endpoints on the same position
                assert http.post("/v1/validate", json={"state": state, "action": action}).json() == {
                    "legal": True,
                    "violation": None,
                }
                view = http.post("/v1/view", json={"state": state, "player": 0}).json()["view"]
                assert isinstance(view["players"][1]["file"], int)
            resp = http.post(
                "/v1/apply", json={"state": state, "action": action}, headers={"X-Request-ID": f"e2e-{applied}"}
            )
            assert resp.status_code == 200, resp.text
            assert resp.headers["X-Request-ID"] == f"e2e-{applied}"
            state = resp.json()["state"]
            applied += 1
            assert applied < 3000, "the game should have ended"
        assert state["result"]["reason"] == "deck_out"
        assert http.post("/v1/legal-actions", json={"state": state}).json() == {"actions": []}
        over = http.post("/v1/apply", json={"state": state, "action": {"type": "concede", "player": 0}})
        assert over.status_code == 422 and over.json()["rule"] == "11.3"
        assert over.headers["content-type"] == "application/problem+json"

        # Both workers' requests are in /metrics, whichever worker answers.
        text = http.get("/metrics").text
        line = next(
            ln
            for ln in text.splitlines()
            if ln.startswith('referee_requests_total{endpoint="game.apply",method="POST",status="200"}')
        )
        assert float(line.split()[-1]) == applied
        assert 'referee_violations_total{code="game_over",rule="11.3"} 1.0' in text

    assert server.stop() == 0
    assert server.proc.poll() is not None
    log = server.output()
    assert '"request_id":"e2e-0"' in log and "Traceback" not in log


def test_sigterm_drains_then_stops(serve):
    server = serve(workers=1, env={"REFEREE_DRAIN_SECONDS": "3"}, module=True)  # python -m referee serve
    assert httpx.get(server.url + "/readyz").status_code == 200
    os.kill(server.pid, signal.SIGTERM)
    time.sleep(0.3)
    ready = httpx.get(server.url + "/readyz")
    assert ready.status_code == 503 and ready.json()["code"] == "shutting_down"
    assert httpx.get(server.url + "/livez").status_code == 200  # still serving while draining
    assert server.proc.wait(15) == 0
    with pytest.raises(httpx.TransportError):
        httpx.get(server.url + "/livez", timeout=1)


def forked_workers(master: int) -> list[int]:
    """The master's children now, booted or still booting."""
    return [int(pid) for pid in Path(f"/proc/{master}/task/{master}/children").read_text().split()]


def test_a_sigterm_as_the_master_forks_a_worker_stops_that_worker_too(tmp_path):
    """Given a server whose master has just forked its second worker (still booting),
    when the master gets SIGTERM, then every worker stops and the master exits at once, not
    after its 30 s graceful timeout: a worker holds its stop signals from its fork until its
    own handlers are in place, instead of losing them to the master's handlers it inherited."""
    server = launch_server(tmp_path, workers=2)  # REFEREE_DRAIN_SECONDS=0: stop at once
    try:
        deadline = time.monotonic() + 60
        while len(forked_workers(server.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.0005)
        os.kill(server.pid, signal.SIGTERM)
        assert server.proc.wait(15) == 0, server.output()
    finally:
        server.stop()


def test_bad_requests_over_real_http(serve):
    server = serve(workers=1, env={"REFEREE_MAX_BODY": "4KiB"})
    with httpx.Client(base_url=server.url, timeout=10) as http:
        resp = http.post("/v1/apply", content=b"{" + b" " * 8000 + b"}", headers={"content-type": "application/json"})
        assert resp.status_code == 413
        chunked = http.post(
            "/v1/apply", content=iter([b"{", b" " * 8000, b"}"]), headers={"content-type": "application/json"}
        )
        assert chunked.status_code == 413
        assert http.post("/v1/apply", content=b"{}", headers={"content-type": "text/plain"}).status_code == 415
        assert http.post("/v1/apply", content=b"{", headers={"content-type": "application/json"}).status_code == 400
        assert http.put("/v1/apply").status_code == 405
        assert http.get("/nope").status_code == 404
        assert http.get("/docs").status_code == 200
