"""Two real replicas with one secret accept each other's sealed states; a third, with another, refuses."""

from __future__ import annotations

import random

import httpx
import pytest

pytestmark = pytest.mark.e2e

SECRET = "test-secret-0123456789abcdef"
OTHER_SECRET = "another-secret-0123456789abcdef"


def test_replicas_sharing_a_secret_accept_each_others_states(serve, new_game_body, play_policy):
    a = serve(env={"REFEREE_SECRET": SECRET})
    b = serve(env={"REFEREE_SECRET": SECRET})
    c = serve(env={"REFEREE_SECRET": OTHER_SECRET})
    rng = random.Random("replicas")
    state = httpx.post(a.url + "/v1/games", json=new_game_body).json()["state"]
    assert state["seal"].startswith("hmac-sha256:")
    for turn in range(30):  # alternate replicas, as a load balancer would
        here = (a, b)[turn % 2]
        actions = httpx.post(here.url + "/v1/legal-actions", json={"state": state}).json()["actions"]
        resp = httpx.post(here.url + "/v1/apply", json={"state": state, "action": play_policy(actions, rng)})
        assert resp.status_code == 200, resp.text
        state = resp.json()["state"]
    for path, body in (
        ("/v1/legal-actions", {"state": state}),
        ("/v1/apply", {"state": state, "action": {"type": "concede", "player": 0}}),
        ("/v1/view", {"state": state, "player": 1}),
    ):
        assert httpx.post(a.url + path, json=body).status_code == 200
        refused = httpx.post(c.url + path, json=body)
        assert refused.status_code == 403 and refused.json()["code"] == "seal_mismatch"
    # c's own states are refused by a and b just the same.
    theirs = httpx.post(c.url + "/v1/games", json=new_game_body).json()["state"]
    assert httpx.post(b.url + "/v1/legal-actions", json={"state": theirs}).status_code == 403
    assert theirs["seal"] != httpx.post(a.url + "/v1/games", json=new_game_body).json()["state"]["seal"]
