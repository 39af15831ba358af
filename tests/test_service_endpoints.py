"""Every endpoint of docs/api.md §1 and every status code, through Flask's test client.

The engine is the real one; answers are checked against the marshmallow
schemas that document them (so openapi.yaml describes what is really sent).
"""

from __future__ import annotations

import copy
from collections import Counter

import orjson
import pytest

import referee_schemas as S
from referee.engine.rules_index import load_rules

PROBLEM_TYPE = "https://ace-file-referee.dev/problems/"


def problem(resp, status: int, code: str | None = None) -> dict:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json(force=True)
    assert S.PROBLEM.validate(body) == {}, body
    assert body["status"] == status
    assert body["type"].startswith(PROBLEM_TYPE)
    assert body["instance"] == resp.headers["X-Request-ID"]
    if code is not None:
        assert body["code"] == code, body
    return body


def ok(resp, schema, status: int = 200) -> dict:
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == "application/json"
    body = resp.get_json()
    assert schema.validate(body) == {}, schema.validate(body)
    return body


def post_raw(client, path: str, body: bytes, content_type: str = "application/json", **kw):
    return client.post(path, data=body, content_type=content_type, **kw)


# -- POST /v1/games -------------------------------------------------------------------


def test_new_game_201_deals_into_the_mulligan_phase(client, new_game_body):
    body = ok(client.post("/v1/games", json=new_game_body), S.GAME_RESPONSE, 201)
    state = body["state"]
    assert state["phase"] == "mulligan" and state["step"] == "mulligan"
    assert state["seed"] == new_game_body["seed"]
    assert len(state["cards"]) == 80
    assert all(len(p["hand"]) == 7 for p in state["players"])
    assert "seal" not in state
    assert body["events"] and all("type" in e for e in body["events"])


def test_new_game_is_deterministic_and_fills_a_random_seed(client, new_game_body):
    a = client.post("/v1/games", json=new_game_body).get_json()
    b = client.post("/v1/games", json=new_game_body).get_json()
    assert a == b
    unseeded = {k: v for k, v in new_game_body.items() if k != "seed"}
    state = ok(client.post("/v1/games", json=unseeded), S.GAME_RESPONSE, 201)["state"]
    assert isinstance(state["seed"], str) and state["seed"]


def test_new_game_400_schema(client):
    body = problem(client.post("/v1/games", json={"decks": "none", "colour": 1}), 400, "invalid_schema")
    assert set(body["errors"]) >= {"decks", "colour"}


def test_new_game_422_lists_every_deck_violation(client, new_game_body):
    bad = copy.deepcopy(new_game_body)
    bad["decks"][0] = ["AF-001"] * 40  # too many copies (3.2)
    bad["decks"][1] = ["AF-099"] + ["NOPE"]  # size (3.1), bonus (3.3), unknown (3.4)
    body = problem(client.post("/v1/games", json=bad), 422)
    assert body["type"] == PROBLEM_TYPE + "illegal-deck"
    rules = [v["rule"] for v in body["violations"]]
    assert {"3.1", "3.2", "3.3", "3.4"} <= set(rules)
    assert body["rule"] == body["violations"][0]["rule"]
    n = len(body["violations"])  # the detail counts them; each detail is said once, in the list
    assert body["detail"] == f"The decks break {n} deck rule(s); violations lists each."
    assert body["detail"] not in {v["detail"] for v in body["violations"]}
    assert all(S.VIOLATION.validate(v) == {} for v in body["violations"])
    by_deck = {(v["deck"], v["rule"]) for v in body["violations"]}  # which deck each problem is in
    assert by_deck == {(0, "3.2"), (1, "3.1"), (1, "3.3"), (1, "3.4")}


def test_new_game_accepts_deck_objects_and_keeps_the_order_without_shuffle(client, catalog, new_game_body):
    deck = new_game_body["decks"][0]
    counts: dict[str, int] = {}
    for cid in deck:
        counts[cid] = counts.get(cid, 0) + 1
    game = {
        "decks": [counts, deck],
        "seed": "unshuffled",
        "shuffle": False,
        "first_player": 1,
        "players": ["Aoi", "Ren"],
        "options": {"response_windows": "strict"},
    }
    state = ok(client.post("/v1/games", json=game), S.GAME_RESPONSE, 201)["state"]
    p1 = state["players"][1]
    assert [state["cards"][i] for i in p1["hand"] + p1["file"]] == deck
    assert state["first_player"] == 1 and state["players"][0]["name"] == "Aoi"
    assert state["options"] == {"response_windows": "strict"}


# -- POST /v1/apply ---------------------------------------------------------------------


def test_apply_200_gives_the_next_state_and_events(client, midgame):
    state, action = midgame
    body = ok(client.post("/v1/apply", json={"state": state, "action": action}), S.GAME_RESPONSE)
    assert body["state"] != state and body["events"]


def test_apply_422_names_the_rule_and_changes_nothing(client, midgame):
    state, _ = midgame
    idle = 1 - state["active"]
    resp = client.post("/v1/apply", json={"state": state, "action": {"type": "draw", "player": idle}})
    body = problem(resp, 422, "not_your_turn")
    assert body["rule"] == "12.2" and body["type"] == PROBLEM_TYPE + "rule-violation"
    assert "Player" in body["detail"]


def test_apply_422_in_japanese(client, midgame):
    state, _ = midgame
    action = {"type": "draw", "player": 1 - state["active"]}
    for header in ("ja", "ja-JP,ja;q=0.9,en;q=0.5"):
        resp = client.post("/v1/apply", json={"state": state, "action": action}, headers={"Accept-Language": header})
        body = problem(resp, 422, "not_your_turn")
        assert "今は行動できません" in body["detail"]
        assert resp.headers["Content-Language"] == "ja"
    resp = client.post(
        "/v1/apply", json={"state": state, "action": action}, headers={"Accept-Language": "en-GB,ja;q=0.1"}
    )
    assert "may not act now" in problem(resp, 422)["detail"]


def test_a_refusal_names_the_players_by_the_names_in_the_state(client, midgame):
    """The detail says "Aoi", as the table does; the problem's own fields keep the indexes."""
    state = copy.deepcopy(midgame[0])
    state["players"][0]["name"], state["players"][1]["name"] = "Aoi", "Ren"
    mover = 1 - state["active"]
    action = {"type": "draw", "player": mover}
    for lang, words in (("en", "{} may not act now; {} acts."), ("ja", "{}は今は行動できません。行動するのは{}です。")):
        resp = client.post("/v1/apply", json={"state": state, "action": action}, headers={"Accept-Language": lang})
        body = problem(resp, 422, "not_your_turn")
        names = [state["players"][mover]["name"], state["players"][1 - mover]["name"]]
        assert body["detail"] == words.format(*names)
        assert (body["player"], body["actor"]) == (mover, 1 - mover)
        verdict = client.post(
            "/v1/validate", json={"state": state, "action": action}, headers={"Accept-Language": lang}
        )
        assert verdict.get_json()["violation"]["detail"] == body["detail"]


def test_a_refusal_names_a_card_not_its_instance_id(client, catalog, midgame):
    state, _ = midgame
    me = state["active"]
    card = state["players"][me]["hand"][0]
    action = {"type": "investigate", "player": me, "case": card}
    detail = problem(client.post("/v1/apply", json={"state": state, "action": action}), 422)["detail"]
    name = catalog.cards[state["cards"][card]]
    assert card not in detail and (name.name_en or name.name) in detail, detail


def test_apply_400_unknown_action_type(client, midgame):
    state, _ = midgame
    resp = client.post("/v1/apply", json={"state": state, "action": {"type": "fly", "player": 0}})
    body = problem(resp, 400, "invalid_schema")
    assert "action.type" in body["errors"]


@pytest.mark.parametrize("bad_type", [[], {}, 3, None, True])
def test_apply_400_action_type_of_any_json_type(client, midgame, bad_type):
    state, _ = midgame
    resp = client.post("/v1/apply", json={"state": state, "action": {"type": bad_type, "player": 0}})
    problem(resp, 400, "invalid_schema")


def test_apply_400_schema_paths_are_relative_to_the_body(client, midgame):
    state, action = midgame
    bad = copy.deepcopy(state)
    bad["players"][0]["hand"] = "many"
    bad["turn"] = -1
    body = problem(client.post("/v1/apply", json={"state": bad, "action": action}), 400, "invalid_schema")
    assert {"state.players.0.hand", "state.turn"} <= set(body["errors"])
    body = problem(
        client.post("/v1/apply", json={"state": state, "action": {**action, "colour": 1}}), 400, "invalid_schema"
    )
    assert list(body["errors"]) == ["action.colour"]
    # A state's own unknown field spelled like the action is still the state's.
    body = problem(client.post("/v1/apply", json={"state": {**state, "action": 1}, "action": action}), 400)
    assert list(body["errors"]) == ["state.action"]


def test_apply_400_inconsistent_state(client, midgame):
    state, action = midgame
    bad = copy.deepcopy(state)
    bad["players"][0]["hand"].append(bad["players"][1]["hand"][0])
    body = problem(client.post("/v1/apply", json={"state": bad, "action": action}), 400)
    assert body["type"] == PROBLEM_TYPE + "inconsistent-state"
    assert body["code"] in ("card_not_conserved", "duplicate_card")
    assert all(path.startswith("state") for path in body["errors"])


def test_apply_400_catalog_mismatch(client, midgame):
    state, action = midgame
    bad = {**state, "catalog": {"id": "af-ref", "digest": "sha256:" + "0" * 64}}
    body = problem(client.post("/v1/apply", json={"state": bad, "action": action}), 400, "catalog_mismatch")
    assert "state.catalog" in body["errors"]


def test_apply_400_envelope(client, midgame):
    state, action = midgame
    body = problem(client.post("/v1/apply", json={"state": state}), 400, "invalid_schema")
    assert body["errors"] == {"action": ["Missing data for required field."]}
    body = problem(client.post("/v1/apply", json={"state": state, "action": action, "x": 1}), 400)
    assert body["errors"] == {"x": ["Unknown field."]}
    body = problem(client.post("/v1/apply", json={"state": [], "action": action}), 400, "invalid_schema")
    assert "state" in body["errors"]


@pytest.mark.parametrize("raw", [b"", b"{", b"[1,", b"\xff\xfe", b"NaN", b'{"a": 1} x'])
def test_400_not_json(client, raw):
    problem(post_raw(client, "/v1/apply", raw), 400, "invalid_json")


@pytest.mark.parametrize("raw", [b"[]", b"1", b'"state"', b"null"])
def test_400_json_but_not_an_object(client, raw):
    body = problem(post_raw(client, "/v1/apply", raw), 400, "invalid_schema")
    assert "_schema" in body["errors"]


@pytest.mark.parametrize(
    "path",
    ["/v1/games", "/v1/apply", "/v1/validate", "/v1/legal-actions", "/v1/replay", "/v1/view", "/v1/decks/validate"],
)
def test_415_413_405_on_every_post_endpoint(make_app, path):
    client = make_app(max_body=4096).test_client()
    problem(post_raw(client, path, b"{}", "text/plain"), 415, "unsupported_media_type")
    problem(client.post(path, data=b"{}"), 415)  # no Content-Type at all
    problem(post_raw(client, path, b" " * 5000), 413, "payload_too_large")
    resp = client.get(path)
    problem(resp, 405, "method_not_allowed")
    assert "POST" in resp.headers["Allow"]


def test_json_content_type_parameters_are_accepted(client, new_game_body):
    resp = post_raw(client, "/v1/games", orjson.dumps(new_game_body), "application/json; charset=utf-8")
    assert resp.status_code == 201


def test_413_for_a_chunked_body_over_the_limit(make_app):
    import io

    client = make_app(max_body=4096).test_client()
    # No Content-Length: the server reads until the (chunked) body ends, and stops at the limit.
    resp = client.post(
        "/v1/apply",
        input_stream=io.BytesIO(b" " * 10000),
        content_type="application/json",
        environ_overrides={"wsgi.input_terminated": True, "CONTENT_LENGTH": ""},
        headers={"Transfer-Encoding": "chunked"},
    )
    assert resp.request.content_length is None
    problem(resp, 413, "payload_too_large")


# -- POST /v1/validate -------------------------------------------------------------------


def test_validate_legal(client, midgame):
    state, action = midgame
    body = ok(client.post("/v1/validate", json={"state": state, "action": action}), S.VALIDATE_RESPONSE)
    assert body == {"legal": True, "violation": None}


def test_validate_illegal_is_200_with_the_violation(client, midgame):
    state, _ = midgame
    action = {"type": "end_turn", "player": 1 - state["active"]}
    resp = client.post("/v1/validate", json={"state": state, "action": action}, headers={"Accept-Language": "ja"})
    assert resp.headers["Content-Language"] == "ja"
    body = ok(resp, S.VALIDATE_RESPONSE)
    assert body["legal"] is False
    v = body["violation"]
    assert (v["rule"], v["code"], v["status"]) == ("12.2", "not_your_turn", 422)
    assert "今は行動できません" in v["detail"]


def test_validate_400(client, midgame):
    state, _ = midgame
    problem(client.post("/v1/validate", json={"state": state, "action": {"type": "draw"}}), 400, "invalid_schema")


# -- POST /v1/legal-actions -----------------------------------------------------------------


def test_legal_actions(client, midgame, catalog):
    from referee.engine import legal_actions

    state, action = midgame
    body = ok(client.post("/v1/legal-actions", json={"state": state}), S.LEGAL_ACTIONS_RESPONSE)
    assert body["actions"] == legal_actions(catalog, state)
    assert action in body["actions"]
    assert all("pay" not in a for a in body["actions"])
    idle = 1 - state["active"]
    body = ok(client.post("/v1/legal-actions", json={"state": state, "player": idle}), S.LEGAL_ACTIONS_RESPONSE)
    assert body["actions"] == [{"type": "concede", "player": idle}]


@pytest.mark.parametrize("player", [2, -1, True, "0", None, 0.0])
def test_legal_actions_400_player(client, midgame, player):
    state, _ = midgame
    body = problem(client.post("/v1/legal-actions", json={"state": state, "player": player}), 400, "invalid_schema")
    assert body["errors"] == {"player": ["must be 0 or 1"]}  # worded as every other message (the engine's)


# -- POST /v1/replay --------------------------------------------------------------------------


def test_replay_from_game_and_from_state(client, positions, new_game_body):
    actions = [a for _, a in positions[:12]]
    body = ok(client.post("/v1/replay", json={"game": new_game_body, "actions": actions}), S.REPLAY_RESPONSE)
    assert body["applied"] == 12
    assert body["state"] == positions[12][0]
    body = ok(client.post("/v1/replay", json={"state": positions[5][0], "actions": actions[5:]}), S.REPLAY_RESPONSE)
    assert body == {"state": positions[12][0], "applied": 7}
    body = ok(client.post("/v1/replay", json={"state": positions[5][0], "actions": []}), S.REPLAY_RESPONSE)
    assert body["applied"] == 0


def test_replay_422_has_the_index(client, positions, new_game_body):
    actions = [a for _, a in positions[:6]]
    actions.insert(4, {"type": "concede", "player": 0})
    actions.insert(5, {"type": "keep", "player": 0})
    body = problem(client.post("/v1/replay", json={"game": new_game_body, "actions": actions}), 422, "game_over")
    assert body["index"] == 5 and body["rule"] == "11.3"


def test_replay_422_for_an_illegal_deck(client, new_game_body):
    game = {**new_game_body, "decks": [["AF-001"] * 40, new_game_body["decks"][1]]}
    body = problem(client.post("/v1/replay", json={"game": game, "actions": []}), 422, "too_many_copies")
    assert body["violations"] and "index" not in body


def test_replay_400(client, positions, new_game_body):
    state = positions[3][0]
    for bad in ({"actions": []}, {"game": new_game_body, "state": state, "actions": []}):
        body = problem(client.post("/v1/replay", json=bad), 400, "invalid_schema")
        assert "_schema" in body["errors"]
    body = problem(client.post("/v1/replay", json={"state": state, "actions": [{"type": "keep"}]}), 400)
    assert list(body["errors"]) == ["actions.0.player"]
    body = problem(client.post("/v1/replay", json={"game": {**new_game_body, "seed": 5}, "actions": []}), 400)
    assert list(body["errors"]) == ["game.seed"]
    body = problem(client.post("/v1/replay", json={"state": None, "actions": []}), 400)
    assert "state" in body["errors"]
    problem(client.post("/v1/replay", json={"game": new_game_body, "actions": {}}), 400, "invalid_schema")


# -- POST /v1/view --------------------------------------------------------------------------------


def test_view_hides_what_the_player_may_not_see(client, midgame):
    state, _ = midgame
    for player in (0, 1):
        view = ok(client.post("/v1/view", json={"state": state, "player": player}), S.VIEW_RESPONSE)["view"]
        assert "seed" not in view and "rng" not in view and "seal" not in view
        assert [p["file"] for p in view["players"]] == [len(p["file"]) for p in state["players"]]
        opponent = state["players"][1 - player]
        assert not set(opponent["hand"]) & set(view["cards"])
        assert set(state["players"][player]["hand"]) <= set(view["cards"])


def test_view_400(client, midgame):
    state, _ = midgame
    problem(client.post("/v1/view", json={"state": state}), 400, "invalid_schema")
    problem(client.post("/v1/view", json={"state": state, "player": 3}), 400, "invalid_schema")
    view = client.post("/v1/view", json={"state": state, "player": 0}).get_json()["view"]
    # A view is not a state.
    problem(client.post("/v1/view", json={"state": view, "player": 0}), 400)
    problem(client.post("/v1/apply", json={"state": view, "action": {"type": "concede", "player": 0}}), 400)


# -- POST /v1/decks/validate -----------------------------------------------------------------------


def test_decks_validate(client, new_game_body):
    body = ok(client.post("/v1/decks/validate", json={"deck": new_game_body["decks"][0]}), S.DECK_VALIDATE_RESPONSE)
    assert body["legal"] is True and body["violations"] == []
    assert body["deck"]["counts"] == dict(sorted(Counter(new_game_body["decks"][0]).items()))
    body = ok(
        client.post("/v1/decks/validate", json={"deck": {"AF-001": 2, "AF-099": 1, "XX-1": 1}}),
        S.DECK_VALIDATE_RESPONSE,
    )
    assert body["legal"] is False
    assert [v["rule"] for v in body["violations"]] == ["3.1", "3.2", "3.3", "3.4"]


def test_decks_validate_400(client):
    for bad in ({"deck": 7}, {"deck": {"AF-001": -1}}, {"deck": [1, 2]}, {}, {"deck": [], "x": 1}):
        problem(client.post("/v1/decks/validate", json=bad), 400, "invalid_schema")


# -- GET /v1/cards, /v1/cards/{id}, /v1/rules -----------------------------------------------------------


def test_cards(client, catalog):
    body = ok(client.get("/v1/cards"), S.CARDS_RESPONSE)
    assert body["catalog"] == catalog.ref
    assert [c["id"] for c in body["cards"]] == list(catalog.cards)
    assert body["cards"][0] == catalog.card_json(body["cards"][0]["id"])


def test_card_and_404(client, catalog):
    card_id = next(iter(catalog.cards))
    assert ok(client.get(f"/v1/cards/{card_id}"), S.CARD) == catalog.card_json(card_id)
    problem(client.get("/v1/cards/AF-000"), 404, "card_not_found")


LIMITS_CATALOG = """
id: limits
cards:
  - {id: F-1, name: 花, kind: fairy, power: 1}
  - {id: F-2, name: 花, kind: fairy, power: 2, deck_limit: 2}
  - {id: F-3, name: 北の妖精, kind: fairy, power: 2}
  - {id: F-4, name: 草, kind: fairy, power: 1}
  - {id: C-1, name: 事件, kind: case, level: 1, hit: 1}
"""


@pytest.fixture(scope="module")
def limits_client():
    from referee.engine import Catalog
    from referee.service.app import create_app
    from referee.service.config import Settings

    return create_app(Settings(log_requests=False), Catalog.from_text(LIMITS_CATALOG, "limits.yaml")).test_client()


def test_cards_show_the_limit_rules_3_2_applies_to_each_name(limits_client):
    """RULES 3.2: the lowest deck_limit among a name's printings; 北の妖精 is 1 whatever the catalog says."""
    cards = {c["id"]: c for c in ok(limits_client.get("/v1/cards"), S.CARDS_RESPONSE)["cards"]}
    assert {cid: c["name_deck_limit"] for cid, c in cards.items()} == {"F-1": 2, "F-2": 2, "F-3": 1, "F-4": 3, "C-1": 3}
    assert {cid: c["deck_limit"] for cid, c in cards.items()} == {"F-1": 3, "F-2": 2, "F-3": 3, "F-4": 3, "C-1": 3}
    for cid, card in cards.items():
        assert ok(limits_client.get(f"/v1/cards/{cid}"), S.CARD) == card


@pytest.mark.parametrize("card", ["F-1", "F-3", "F-4"])
def test_a_deck_over_a_cards_name_deck_limit_is_refused_at_that_limit(limits_client, card):
    limit = limits_client.get(f"/v1/cards/{card}").get_json()["name_deck_limit"]
    for count, legal in ((limit, True), (limit + 1, False)):
        body = limits_client.post("/v1/decks/validate", json={"deck": {card: count}}).get_json()
        copies = [v for v in body["violations"] if v["rule"] == "3.2"]
        assert (copies == []) is legal and all(f"at most {limit}" in v["detail"] for v in copies)


def test_rules(client):
    body = ok(client.get("/v1/rules"), S.RULES_RESPONSE)
    assert body["rules"] == load_rules()
    assert {"10.4", "13.1"} <= {r["id"] for r in body["rules"]}


# -- operations ---------------------------------------------------------------------------------------


def test_livez_readyz(make_app):
    app = make_app()
    client = app.test_client()
    from referee import __version__

    assert ok(client.get("/livez"), S.HEALTH) == {"status": "ok", "version": __version__}
    ready = ok(client.get("/readyz"), S.ReadinessSchema())
    assert ready == {"status": "ready", "catalog": app.extensions["referee"].catalog.ref, "keys": {}, "ledger": False}
    app.extensions["referee"].draining = True
    problem(client.get("/readyz"), 503, "shutting_down")
    assert client.get("/livez").status_code == 200


def test_404_and_405_are_problems(client):
    problem(client.get("/v2/apply"), 404, "not_found")
    problem(client.get("/v1/games/"), 404)
    resp = client.delete("/v1/cards")
    problem(resp, 405, "method_not_allowed")
    assert "GET" in resp.headers["Allow"]


def test_request_id_is_echoed_or_made(client):
    resp = client.get("/livez", headers={"X-Request-ID": "abc-123.x:y_z"})
    assert resp.headers["X-Request-ID"] == "abc-123.x:y_z"
    resp = client.get("/nope", headers={"X-Request-ID": "bad id\twith spaces"})
    rid = resp.headers["X-Request-ID"]
    assert rid != "bad id\twith spaces" and len(rid) == 32
    assert resp.get_json()["instance"] == rid
    assert client.get("/livez").headers["X-Request-ID"] != client.get("/livez").headers["X-Request-ID"]


def test_500_is_a_problem_and_logged(make_app, caplog):
    app = make_app()

    @app.get("/boom")
    def boom():
        raise RuntimeError("kaboom")

    with caplog.at_level("ERROR", logger="referee"):
        body = problem(app.test_client().get("/boom", headers={"X-Request-ID": "r-500"}), 500, "internal_error")
    assert body["instance"] == "r-500"
    assert "kaboom" not in body["detail"]


def test_metrics_count_requests_and_violations(client, midgame):
    state, _ = midgame
    client.post("/v1/apply", json={"state": state, "action": {"type": "draw", "player": 1 - state["active"]}})
    client.get("/livez")
    resp = client.get("/metrics")
    assert resp.status_code == 200 and resp.mimetype == "text/plain"
    text = resp.get_data(as_text=True)
    assert 'referee_requests_total{endpoint="game.apply",method="POST",status="422"}' in text
    assert 'referee_violations_total{code="not_your_turn",rule="12.2"}' in text
    assert 'referee_request_duration_seconds_bucket{endpoint="operations.livez",le="0.005"}' in text
    assert "referee_catalog_info{" in text


def test_request_log_line(make_app, capfd):
    import json

    app = make_app(log_requests=True)
    capfd.readouterr()
    app.test_client().get("/v1/cards/AF-000", headers={"X-Request-ID": "log-1"})
    lines = [json.loads(ln) for ln in capfd.readouterr().err.splitlines() if ln.startswith("{")]
    line = next(ln for ln in lines if ln.get("request_id") == "log-1")
    assert line["msg"] == "request" and line["logger"] == "referee.access" and line["level"] == "info"
    assert line["status"] == 404 and line["path"] == "/v1/cards/AF-000" and line["method"] == "GET"
    assert line["endpoint"] == "game.card" and line["duration_ms"] >= 0 and line["ts"].endswith("Z")


def test_openapi_and_docs_are_served(client):
    resp = client.get("/openapi.yaml")
    assert resp.status_code == 200 and resp.mimetype == "application/yaml"
    html = client.get("/docs")
    assert html.status_code == 200 and html.mimetype == "text/html"
    text = html.get_data(as_text=True)
    assert "//" not in text.replace("http://", "").replace("https://", "") or "cdn" not in text.lower()
    assert "https://" not in text and "http://" not in text  # no CDN: every asset is served here
    for asset in (
        "/docs/init.js",
        "/docs/static/swagger-ui-bundle.js",
        "/docs/static/swagger-ui.css",
        "/docs/static/swagger-ui-standalone-preset.js",
    ):
        assert client.get(asset).status_code == 200, asset
    problem(client.get("/docs/static/../../etc/passwd"), 404)
    problem(client.get("/docs/static/index.html"), 404)


def test_bench_echo_only_when_enabled(make_app, client):
    problem(client.post("/bench/echo", json={"a": 1}), 404)
    echo = make_app(bench_echo=True).test_client()
    resp = echo.post("/bench/echo", json={"a": [1, "b"]})
    assert resp.data == b'{"a":[1,"b"]}'
    assert "X-Request-ID" not in resp.headers  # the bare baseline: none of the referee's hooks
    assert post_raw(echo, "/bench/echo", b"{").status_code == 400
    assert echo.post("/v1/legal-actions", json={}).status_code == 400  # the referee is still behind it


def test_a_deck_of_huge_counts_is_cheap(tmp_path):
    """A tiny body must not cost the server gigabytes: ``{"AF-001": 10**12}`` is a 3.1 violation.

    Run in a child process whose address space is capped at 1 GiB, so a regression
    fails this test instead of exhausting the machine.
    """
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        from referee.service.app import create_app
        from referee.service.config import Settings
        client = create_app(Settings(log_requests=False)).test_client()
        for path, body in (("/v1/decks/validate", {"deck": {"AF-001": 10**12}}),
                           ("/v1/games", {"decks": [{"AF-001": 10**12}, {"AF-002": 40}]})):
            resp = client.post(path, json=body)
            print(path, resp.status_code, resp.get_json().get("code"), resp.get_json().get("legal"))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.split("\n")
    assert lines[0] == "/v1/decks/validate 200 None False", out.stdout
    assert lines[1].startswith("/v1/games 422 "), out.stdout


def test_the_readme_example_game_is_legal(client):
    """examples/http/new-game.json is the README's curl walkthrough: two legal decks, seeded."""
    from pathlib import Path

    body = (Path(__file__).resolve().parent.parent / "examples" / "http" / "new-game.json").read_bytes()
    resp = post_raw(client, "/v1/games", body)
    state = ok(resp, S.GAME_RESPONSE, 201)["state"]
    assert state["seed"] == "readme-1" and [p["name"] for p in state["players"]] == ["Aoi", "Ren"]
    for deck in orjson.loads(body)["decks"]:
        assert client.post("/v1/decks/validate", json={"deck": deck}).get_json()["legal"] is True
    from referee.service.openapi import NEW_GAME_EXAMPLE

    assert orjson.loads(body) == NEW_GAME_EXAMPLE  # the example of POST /v1/games in openapi.yaml


def test_cors_is_off_by_default_and_on_for_the_configured_origins(client, make_app):
    assert "Access-Control-Allow-Origin" not in client.get("/v1/cards", headers={"Origin": "https://a.example"}).headers
    app = make_app(cors_origins=("https://table.example",)).test_client()
    resp = app.options(
        "/v1/apply",
        headers={
            "Origin": "https://table.example",
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type",
        },
    )
    assert resp.status_code == 200
    assert resp.headers["Access-Control-Allow-Origin"] == "https://table.example"
    assert "POST" in resp.headers["Access-Control-Allow-Methods"]
    assert "Content-Type" in resp.headers["Access-Control-Allow-Headers"]
    resp = app.get("/v1/cards/AF-000", headers={"Origin": "https://table.example"})
    assert resp.headers["Access-Control-Allow-Origin"] == "https://table.example"
    assert "X-Request-ID" in resp.headers["Access-Control-Expose-Headers"]
    assert "Access-Control-Allow-Origin" not in app.get("/livez", headers={"Origin": "https://evil.example"}).headers
    star = make_app(cors_origins=("*",)).test_client()
    assert star.get("/livez", headers={"Origin": "https://x.example"}).headers["Access-Control-Allow-Origin"] == "*"


def test_apply_at_the_last_turn_refuses_to_pass_it_with_rule_13_1(client):
    """RULES 13.1: ending turn TURN_MAX would answer a state the referee refuses; it is a 422 instead."""
    from rules.positions import Position

    from referee.engine.facts import TURN_MAX

    state = Position(turn=TURN_MAX, first_player=1).build()
    body = problem(
        client.post("/v1/apply", json={"state": state, "action": {"type": "end_turn", "player": 0}}), 422, "turn_limit"
    )
    assert body["rule"] == "13.1" and str(TURN_MAX) in body["detail"]
    conceded = ok(
        client.post("/v1/apply", json={"state": state, "action": {"type": "concede", "player": 0}}), S.GAME_RESPONSE
    )
    assert conceded["state"]["result"] == {"winner": 1, "reason": "concede"}
