"""POST /v1/suggest (docs/api.md §16): a bot's move for one seat, from that seat's view only."""

from __future__ import annotations

import copy

import orjson
import pytest
from conftest import STATE_KEY, post

import referee_schemas.bodies as bodies
from referee.bots import suggest as bots
from referee.engine import legal_actions

ITERATIONS = 24


def suggest(client, body: dict, **headers):
    return post(client, "/v1/suggest", body, **headers)


def actor(state: dict) -> int:
    return state["pending"]["responder"] if state["pending"] is not None else state["active"]


def ask(state: dict, bot: str = "ismcts", **extra) -> dict:
    return {"state": state, "player": actor(state), "bot": bot, "iterations": ITERATIONS} | extra


def without_label(action: dict) -> dict:
    return {k: v for k, v in action.items() if k != "label"}


@pytest.mark.parametrize("bot", ["random", "greedy", "ismcts"])
def test_the_suggestion_is_one_of_the_seats_legal_actions_with_its_label(client, catalog, midgame, bot):
    state, _ = midgame
    resp = suggest(client, ask(state, bot))
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert set(body) == {"action", "label"}
    assert body["action"] in legal_actions(catalog, state, actor(state))
    assert isinstance(body["label"], str) and body["label"]


def test_the_same_request_gives_the_same_move_and_the_seed_is_its_randomness(client, positions):
    mains = [s for s, a in positions if a is not None and s["step"] == "main" and s["pending"] is None]
    answers = {}
    for state in mains[::6]:
        first = suggest(client, ask(state, seed="s1")).get_json()["action"]
        assert suggest(client, ask(state, seed="s1")).get_json()["action"] == first
        answers[state["seq"]] = first
    assert len(answers) > 3


def hide_differently(state: dict, seat: int) -> dict:
    """``state`` with every card ``seat`` may not know dealt otherwise: the opponent's hand and file rotated
    among themselves (so cards move between the two), and the seat's own file reversed."""
    out = copy.deepcopy(state)
    opp = out["players"][1 - seat]
    hidden = list(opp["hand"]) + list(opp["file"])
    ids = [out["cards"][i] for i in hidden]
    for iid, cid in zip(hidden, ids[1:] + ids[:1], strict=True):
        out["cards"][iid] = cid
    out["players"][seat]["file"] = list(reversed(out["players"][seat]["file"]))
    out["seed"] = "another-seed"
    return out


def test_swapping_the_cards_the_seat_cannot_see_does_not_change_the_suggestion(client, positions):
    mains = [s for s, a in positions if a is not None and s["step"] == "main" and s["pending"] is None]
    compared = 0
    for state in mains[::5]:
        seat = actor(state)
        other = hide_differently(state, seat)
        if other["cards"] == state["cards"]:
            continue
        for bot in ("greedy", "ismcts"):
            before = suggest(client, ask(state, bot, seed="x"))
            after = suggest(client, ask(other, bot, seed="x"))
            assert after.status_code == 200, after.get_json()
            assert after.get_json() == before.get_json()
        compared += 1
    assert compared >= 3


def test_a_seat_that_may_not_act_now_is_a_422_citing_rule_12_2(client, midgame):
    state, _ = midgame
    resp = suggest(client, ask(state) | {"player": 1 - actor(state)})
    assert resp.status_code == 422
    assert (resp.get_json()["rule"], resp.get_json()["code"]) == ("12.2", "not_your_turn")


def test_a_game_over_is_a_422_citing_rule_11_3(client, positions):
    final, _ = positions[-1]
    resp = suggest(client, {"state": final, "player": 0, "bot": "random", "budget_ms": 100})
    assert (resp.status_code, resp.get_json()["rule"]) == (422, "11.3")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"budget_ms": 2001, "iterations": None}, "budget_ms"),
        ({"budget_ms": 0, "iterations": None}, "budget_ms"),
        ({"budget_ms": True, "iterations": None}, "budget_ms"),
        ({"iterations": bots.MAX_ITERATIONS + 1}, "iterations"),
        ({"budget_ms": 100}, "_schema"),  # both
        ({"iterations": None}, "_schema"),  # neither
        ({"seed": 7}, "seed"),
        ({"bot": 3}, "bot"),
        ({"player": None}, "player"),
        ({"labels": True}, "labels"),
    ],
)
def test_a_malformed_request_is_a_400_naming_the_field(client, midgame, change, field):
    state, _ = midgame
    body = {k: v for k, v in (ask(state) | change).items() if v is not None or k == "player"}
    resp = suggest(client, body)
    assert resp.status_code == 400, resp.get_json()
    assert field in resp.get_json()["errors"]


def test_an_unknown_bot_is_a_400_listing_the_known_bots(client, midgame):
    state, _ = midgame
    resp = suggest(client, ask(state, "alphazero"))
    assert resp.status_code == 400
    problem = resp.get_json()
    assert problem["code"] == "unknown_bot"
    assert problem["bots"] == ["greedy", "ismcts", "random"]
    assert "ismcts" in problem["detail"]


def test_the_schemas_bounds_are_the_bots(client):
    assert (bodies.MAX_BUDGET_MS, bodies.MAX_ITERATIONS) == (bots.MAX_BUDGET_MS, bots.MAX_ITERATIONS)


def test_a_budget_answer_is_one_of_the_legal_actions(client, catalog, midgame):
    state, _ = midgame
    body = {"state": state, "player": actor(state), "bot": "ismcts", "budget_ms": 30}
    resp = suggest(client, body, **{"Accept-Language": "ja"})
    assert resp.status_code == 200
    assert resp.get_json()["action"] in legal_actions(catalog, state, actor(state))
    assert resp.headers["Content-Language"] == "ja"


def test_suggest_is_counted_apart_in_the_metrics(client, midgame):
    state, _ = midgame
    assert suggest(client, ask(state, "greedy")).status_code == 200
    text = client.get("/metrics").get_data(as_text=True)
    assert 'referee_suggest_cpu_seconds_count{bot="greedy"}' in text
    assert any("endpoint=" in line and "suggest" in line for line in text.splitlines())


# -- private mode --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def private_game(private_app, private_game_body) -> dict:
    client = private_app.test_client()
    resp = client.post("/v1/games", data=orjson.dumps(private_game_body), content_type="application/json")
    assert resp.status_code == 201
    return resp.get_json()


def test_private_mode_suggests_for_the_seat_from_its_token(private_client, private_game, catalog):
    from referee.private.tokens import Vault

    state = Vault(bytes.fromhex(STATE_KEY)).open(private_game["state"])
    seat = state["active"]
    body = {"state": private_game["state"], "seat": private_game["seats"][seat], "bot": "ismcts", "iterations": 8}
    resp = suggest(private_client, body)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["action"] in legal_actions(catalog, state, seat)
    assert suggest(private_client, body).get_json() == resp.get_json()  # a fresh token each time; the same move
    other = body | {"seat": private_game["seats"][1 - seat]}
    refused = suggest(private_client, other)
    assert (refused.status_code, refused.get_json()["rule"]) == (422, "12.2")


def test_private_mode_refuses_a_plain_state_the_spectator_key_and_another_player(private_client, private_game, midgame):
    seat = private_game["seats"][0]
    plain = suggest(private_client, {"state": midgame[0], "seat": seat, "bot": "random", "iterations": 1})
    assert (plain.status_code, plain.get_json()["code"]) == (403, "private_mode")
    watch = {"state": private_game["state"], "seat": private_game["watch"], "bot": "random", "iterations": 1}
    assert suggest(private_client, watch).get_json()["code"] == "not_your_seat"
    named = {"state": private_game["state"], "seat": seat, "player": 1, "bot": "random", "iterations": 1}
    assert suggest(private_client, named).get_json()["code"] == "not_your_seat"


@pytest.mark.e2e
def test_a_real_server_suggests_within_its_budget_and_counts_the_cpu_apart(serve, midgame):
    """Through `referee serve` (gunicorn, two workers, the multiprocess metrics): the answer and its metrics.
    (How well answers keep to budget_ms is measured, not tested: benchmarks/suggest_budget.py.)"""
    import httpx

    server = serve(workers=2)
    state, _ = midgame
    body = {"state": state, "player": actor(state), "bot": "ismcts", "budget_ms": 300}
    resp = httpx.post(server.url + "/v1/suggest", json=body, timeout=10)
    assert resp.status_code == 200, resp.text
    fixed = {k: v for k, v in body.items() if k != "budget_ms"} | {"iterations": 20}
    answers = {orjson.dumps(httpx.post(server.url + "/v1/suggest", json=fixed, timeout=10).json()) for _ in range(4)}
    assert len(answers) == 1  # whichever worker answers
    text = httpx.get(server.url + "/metrics", timeout=5).text
    assert 'referee_suggest_cpu_seconds_count{bot="ismcts"} 5.0' in text
    assert 'endpoint="game.suggest"' in text


def test_the_operator_lowers_the_cap_with_referee_suggest_max_ms(make_app, midgame):
    from referee.service.config import ConfigError, Settings

    client = make_app(suggest_max_ms=200).test_client()
    state, _ = midgame
    over = suggest(client, {"state": state, "player": actor(state), "bot": "random", "budget_ms": 201})
    assert over.status_code == 400 and "1 to 200" in over.get_json()["errors"]["budget_ms"][0]
    assert suggest(client, ask(state, "random") | {"iterations": 101}).status_code == 400  # 1000 x 200 / 2000
    assert suggest(client, ask(state, "random") | {"iterations": 100}).status_code == 200
    assert Settings.from_env({"REFEREE_SUGGEST_MAX_MS": "500"}).suggest_max_ms == 500
    with pytest.raises(ConfigError, match="REFEREE_SUGGEST_MAX_MS"):
        Settings.from_env({"REFEREE_SUGGEST_MAX_MS": "2001"})
