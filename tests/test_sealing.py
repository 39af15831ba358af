"""Sealing (docs/api.md §4): the MAC itself, and every endpoint that takes or returns a state."""

from __future__ import annotations

import copy
import hashlib
import hmac

import orjson
import pytest

from referee.private.sealing import PREFIX, Sealer, SealError, canonical

SECRET = "test-secret-0123456789abcdef"  # the secret of conftest's sealed_app
OTHER_SECRET = "another-secret-0123456789abcdef"


@pytest.fixture(scope="module")
def sealer():
    return Sealer(SECRET.encode())


def test_canonical_form_sorts_keys_and_drops_the_seal():
    a = {"b": 1, "a": {"y": [1, 2], "x": "é"}, "seal": "whatever"}
    b = {"a": {"x": "é", "y": [1, 2]}, "b": 1}
    assert canonical(a) == canonical(b) == '{"a":{"x":"é","y":[1,2]},"b":1}'.encode()


def test_seal_is_hmac_sha256_of_the_canonical_form(sealer):
    state = {"turn": 3, "players": [{"hand": ["a1"]}]}
    expected = hmac.new(SECRET.encode(), orjson.dumps(state, option=orjson.OPT_SORT_KEYS), hashlib.sha256)
    sealed = sealer.seal(dict(state))
    assert sealed["seal"] == PREFIX + expected.hexdigest()
    sealer.check(sealed)
    sealer.check(dict(reversed(list(sealed.items()))))  # key order does not matter


@pytest.mark.parametrize(
    "tamper",
    [
        lambda s: s.update(turn=4),
        lambda s: s["players"][0]["hand"].append("a2"),
        lambda s: s.update(seal=s["seal"][:-1] + ("0" if s["seal"][-1] != "0" else "1")),
        lambda s: s.update(seal=s["seal"].upper()),
        lambda s: s.update(seal=5),
        lambda s: s.pop("seal"),
    ],
)
def test_any_change_breaks_the_seal(sealer, tamper):
    sealed = sealer.seal({"turn": 3, "players": [{"hand": ["a1"]}]})
    bad = copy.deepcopy(sealed)
    tamper(bad)
    with pytest.raises(SealError) as info:
        sealer.check(bad)
    assert info.value.code == ("seal_missing" if "seal" not in bad else "seal_mismatch")


def test_another_secret_does_not_match_and_rotation_accepts_the_previous_one(sealer):
    sealed = sealer.seal({"turn": 1})
    with pytest.raises(SealError):
        Sealer(OTHER_SECRET.encode()).check(sealed)
    rotating = Sealer(OTHER_SECRET.encode(), previous=SECRET.encode())
    rotating.check(sealed)
    assert rotating.seal({"turn": 1})["seal"] == Sealer(OTHER_SECRET.encode()).seal({"turn": 1})["seal"]


# -- through the service ----------------------------------------------------------


def _sealed_game(sealed_client, new_game_body):
    resp = sealed_client.post("/v1/games", json=new_game_body)
    assert resp.status_code == 201
    return resp.get_json()["state"]


def test_every_returned_state_is_sealed(sealed_client, new_game_body, sealer):
    state = _sealed_game(sealed_client, new_game_body)
    assert state["seal"].startswith(PREFIX)
    sealer.check(state)
    action = sealed_client.post("/v1/legal-actions", json={"state": state}).get_json()["actions"][0]
    nxt = sealed_client.post("/v1/apply", json={"state": state, "action": action}).get_json()["state"]
    sealer.check(nxt)
    replayed = sealed_client.post("/v1/replay", json={"state": state, "actions": [action]}).get_json()["state"]
    assert replayed == nxt
    from_game = sealed_client.post("/v1/replay", json={"game": new_game_body, "actions": [action]}).get_json()
    assert from_game["state"] == nxt


def test_views_are_never_sealed(sealed_client, new_game_body):
    state = _sealed_game(sealed_client, new_game_body)
    view = sealed_client.post("/v1/view", json={"state": state, "player": 0}).get_json()["view"]
    assert "seal" not in view


@pytest.mark.parametrize(
    "path,extra",
    [
        ("/v1/apply", {"action": {"type": "concede", "player": 0}}),
        ("/v1/validate", {"action": {"type": "concede", "player": 0}}),
        ("/v1/legal-actions", {}),
        ("/v1/view", {"player": 0}),
        ("/v1/replay", {"actions": []}),
    ],
)
def test_every_endpoint_that_takes_a_state_refuses_a_bad_seal(sealed_client, new_game_body, path, extra):
    state = _sealed_game(sealed_client, new_game_body)
    assert sealed_client.post(path, json={"state": state, **extra}).status_code == 200
    unsealed = {k: v for k, v in state.items() if k != "seal"}
    tampered = {**state, "seed": state["seed"] + "x"}
    for bad, code in ((unsealed, "seal_missing"), (tampered, "seal_mismatch")):
        resp = sealed_client.post(path, json={"state": bad, **extra})
        assert resp.status_code == 403, resp.get_json()
        body = resp.get_json()
        assert body["code"] == code
        assert body["type"] == "https://ace-file-referee.dev/problems/seal-mismatch"


def test_the_seal_is_checked_before_consistency(sealed_client, new_game_body):
    state = _sealed_game(sealed_client, new_game_body)
    broken = copy.deepcopy(state)
    broken["players"][0]["hand"] = []  # inconsistent (RULES 13.1) and no longer matching its seal
    resp = sealed_client.post("/v1/legal-actions", json={"state": broken})
    assert resp.status_code == 403


def test_a_replica_with_another_secret_refuses_and_one_with_the_same_accepts(make_app, sealed_client, new_game_body):
    state = _sealed_game(sealed_client, new_game_body)
    same = make_app(secret=SECRET).test_client()
    other = make_app(secret=OTHER_SECRET).test_client()
    assert same.post("/v1/legal-actions", json={"state": state}).status_code == 200
    assert other.post("/v1/legal-actions", json={"state": state}).status_code == 403
    rotating = make_app(secret=OTHER_SECRET, previous_secret=SECRET).test_client()
    resp = rotating.post("/v1/apply", json={"state": state, "action": {"type": "concede", "player": 0}})
    assert resp.status_code == 200
    Sealer(OTHER_SECRET.encode()).check(resp.get_json()["state"])  # re-sealed under the new secret


def test_without_a_secret_seals_are_ignored_and_never_emitted(client, sealed_client, new_game_body):
    state = _sealed_game(sealed_client, new_game_body)
    forged = {**state, "seal": PREFIX + "0" * 64}
    resp = client.post("/v1/apply", json={"state": forged, "action": {"type": "concede", "player": 0}})
    assert resp.status_code == 200
    assert "seal" not in resp.get_json()["state"]
    resp = client.post("/v1/apply", json={"state": {**state, "seal": 5}, "action": {"type": "concede", "player": 0}})
    assert resp.status_code == 400 and "state.seal" in resp.get_json()["errors"]
