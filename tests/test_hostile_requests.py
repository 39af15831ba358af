"""Requests an attacker can build, through Flask's test client: bounded metrics and replies,
no 500s, duplicate keys, integer ranges, key fingerprints (issue 8).

The real-socket cases (slow clients, gunicorn's own errors, chunked bodies,
oversized bodies) are in tests/test_e2e_hostile.py.
"""

from __future__ import annotations

import copy
import json
import re

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine.facts import DECK_MAX_ENTRIES, POWER_MAX, RNG_MAX, TURN_MAX, UNKNOWN_CARDS_LISTED
from referee.private.sealing import fingerprint
from referee.service.reading import duplicate_key_path, repeats_a_key
from tests.conftest import OTHER_SECRET, SECRET, post

JSON = {"Content-Type": "application/json"}


# -- metrics labels ----------------------------------------------------------------------


def _series(text: str) -> set[str]:
    return {line.split(" ")[0] for line in text.splitlines() if line.startswith("referee_requests_total{")}


def test_invented_methods_and_paths_add_no_metric_series(make_app):
    """Given 200 invented methods and 200 invented paths, then the request metric gains only
    series whose labels come from the fixed sets (the registry is the process's: compare
    before and after)."""
    app = make_app()
    client = app.test_client()
    endpoints = set(app.view_functions) | {"unmatched"}
    before = _series(client.get("/metrics").get_data(as_text=True))
    for i in range(200):
        client.open("/livez", method=f"X{i}METHOD")
        client.get(f"/invented/{i}")
        client.post(f"/v1/invented-{i}", data=b"{}", headers=JSON)
    added = _series(client.get("/metrics").get_data(as_text=True)) - before
    labels = [dict(re.findall(r'(\w+)="([^"]*)"', s)) for s in added]
    assert {lab["method"] for lab in labels} <= {"GET", "POST", "OPTIONS", "other"}
    assert {lab["endpoint"] for lab in labels} <= endpoints
    assert len(added) <= 8  # (unmatched, livez) × (GET, POST, other) × (404, 405, 200): nowhere near 600


# -- bounded replies --------------------------------------------------------------------


def test_unknown_card_ids_are_listed_up_to_a_bound_then_counted(client):
    """RULES 3.4: each distinct unknown id once, the first few listed, the rest one count."""
    deck = {f"NOPE-{i:03d}": 1 for i in range(DECK_MAX_ENTRIES)}
    resp = client.post("/v1/decks/validate", json={"deck": deck})
    violations = resp.get_json()["violations"]
    unknown = [v for v in violations if v["code"] == "unknown_card"]
    more = [v for v in violations if v["code"] == "more_unknown_cards"]
    assert len(unknown) == UNKNOWN_CARDS_LISTED and len(more) == 1 and more[0]["rule"] == "3.4"
    assert str(DECK_MAX_ENTRIES - UNKNOWN_CARDS_LISTED) in more[0]["detail"]


@pytest.mark.parametrize(
    "deck", [["AF-001"] * (DECK_MAX_ENTRIES + 1), {f"X-{i}": 1 for i in range(DECK_MAX_ENTRIES + 1)}]
)
def test_a_deck_past_the_entry_cap_is_a_400(client, deck):
    resp = client.post("/v1/games", json={"decks": [deck, deck]})
    assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_schema"
    assert "decks.0" in resp.get_json()["errors"]


def test_the_bounds_are_stated_in_the_openapi_document():
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "openapi.yaml").read_text("utf-8")
    assert f"maxItems: {DECK_MAX_ENTRIES}" in text and f"maxProperties: {DECK_MAX_ENTRIES}" in text
    assert "more_unknown_cards" in text
    assert f"maximum: {TURN_MAX}" in text and f"maximum: {RNG_MAX}" in text


# -- integer ranges -----------------------------------------------------------------------


@pytest.mark.parametrize("field,value", [("turn", 2**64 - 1), ("turn", TURN_MAX + 1), ("rng", 2**63), ("rng", -1)])
def test_state_integers_out_of_range_are_a_400(client, midgame, field, value):
    state, action = copy.deepcopy(midgame)
    state[field] = value
    resp = client.post("/v1/apply", json={"state": state, "action": action})
    assert resp.status_code == 400, resp.get_json()
    assert f"state.{field}" in resp.get_json()["errors"]


def test_huge_modifiers_are_a_400_not_an_overflow(client, midgame):
    """Two modifiers of 2^63 − 1 once summed past 64 bits; now each is bounded."""
    state, action = copy.deepcopy(midgame)
    card = state["players"][0]["hand"][0]
    state["modifiers"] = [{"card": card, "power": 2**63 - 1}, {"card": card, "power": 2**63 - 1}]
    resp = client.post("/v1/apply", json={"state": state, "action": action})
    assert resp.status_code == 400
    errors = resp.get_json()["errors"]
    assert any(
        path.startswith("state.modifiers.0") and str(POWER_MAX) in " ".join(msgs) for path, msgs in errors.items()
    ), errors


def test_the_last_turn_in_range_ends_without_overflow(client, positions):
    """Given the highest turn allowed, when the turn ends, then the answer is a state or a
    4xx — never a 500."""
    state = next(copy.deepcopy(s) for s, a in positions if a is not None and a["type"] == "end_turn")
    state["turn"] = TURN_MAX - (state["turn"] % 2 != TURN_MAX % 2)
    resp = client.post("/v1/apply", json={"state": state, "action": {"type": "end_turn", "player": state["active"]}})
    assert resp.status_code < 500


# -- no 500 from a header --------------------------------------------------------------------


def test_an_absurd_content_length_is_a_400_on_any_path(client):
    for path in ("/livez", "/v1/apply", "/nope"):
        resp = client.get(path, environ_overrides={"CONTENT_LENGTH": str(2**64)})
        assert resp.status_code == 400 and resp.mimetype == "application/problem+json"
        assert resp.get_json()["code"] == "bad_content_length"


# -- duplicate keys ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body,path",
    [
        (b'{"state": {}, "state": {}, "action": {}}', "state"),
        (b'{"state": {"turn": 1, "players": [{"name": "a", "name": "b"}]}, "action": {}}', "state.players.0.name"),
        (b'{"action": {"type": "draw", "player": 0, "player": 1}, "state": {}}', "action.player"),
        (b'{"a\\u003a": 1, "a:": 2}', "a:"),
    ],
)
def test_a_repeated_key_is_a_400_naming_its_path(client, body, path):
    resp = post(client, "/v1/apply", body)
    assert resp.status_code == 400
    problem = resp.get_json()
    assert problem["code"] == "duplicate_key" and problem["errors"] == {path: ["Duplicate key."]}


def test_sealed_states_with_colons_are_not_mistaken_for_duplicates(sealed_client, midgame):
    state, action = midgame
    state = sealed_client.post("/v1/replay", json={"state": _sealed(state), "actions": []}).get_json()["state"]
    assert ":" in state["seal"]
    resp = post(sealed_client, "/v1/apply", orjson.dumps({"state": state, "action": action}))
    assert resp.status_code == 200, resp.get_json()


def _sealed(state):
    from referee.private.sealing import Sealer

    return Sealer(SECRET.encode()).seal(copy.deepcopy(state))


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.text(alphabet=':a"\\ b', max_size=4),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet="ab:", max_size=2), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None)
@given(value=st.dictionaries(st.text(alphabet="ab:", max_size=2), _json, max_size=4), key=st.text("ab:", max_size=2))
def test_the_fast_check_never_misses_a_repeated_key(value, key):
    """Property: a body without a repeated key is never refused; one with a repeated key,
    at the top or nested, is always caught and its path found."""
    clean = json.dumps(value).encode()
    assert not repeats_a_key(clean, orjson.loads(clean)) and duplicate_key_path(clean) is None
    k = json.dumps(key).encode()
    rest = b", " + clean[1:-1] if value else b""
    for repeated in (b"{%s: 1, %s: 2%s}" % (k, k, rest), b'{"n": [{%s: 1, %s: 2}]%s}' % (k, k, rest)):
        assert repeats_a_key(repeated, orjson.loads(repeated))
        assert duplicate_key_path(repeated) is not None


# -- fingerprints -------------------------------------------------------------------------------


def test_readyz_and_metrics_show_the_key_fingerprints_never_the_keys(make_app):
    app = make_app(secret=SECRET, previous_secret=OTHER_SECRET)
    client = app.test_client()
    ready = client.get("/readyz").get_json()
    assert ready["keys"] == {"current": fingerprint(SECRET.encode()), "previous": fingerprint(OTHER_SECRET.encode())}
    assert ready["catalog"] == app.extensions["referee"].catalog.ref
    text = client.get("/metrics").get_data(as_text=True)
    assert f'referee_key_info{{fingerprint="{fingerprint(SECRET.encode())}",role="current"}} 1.0' in text
    assert SECRET not in text and SECRET not in json.dumps(ready)


def test_fingerprints_differ_between_keys():
    assert fingerprint(SECRET.encode()) != fingerprint(OTHER_SECRET.encode())
    assert re.fullmatch(r"[0-9a-f]{16}", fingerprint(SECRET.encode()))
