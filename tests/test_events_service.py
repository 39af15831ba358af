"""The event endpoints of docs/api.md §17 (RULES 15) through Flask's test client: answers of the documented
schemas, 400 with field paths, 422 with rule, round and table, the same in plain and private mode, and
never a 500 for any body."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_service_endpoints import ok, problem

import referee_schemas as S
from referee.service.openapi import EVENT_EXAMPLE

PAIR = S.PairResponseSchema()
STANDINGS = S.StandingsResponseSchema()
CHECK = S.EventCheckResponseSchema()


def event(**changes) -> dict:
    doc = copy.deepcopy(EVENT_EXAMPLE["event"])
    doc.update(changes)
    return doc


def post(client, path: str, doc) -> object:
    return client.post(f"/v1/events/{path}", json={"event": doc})


@pytest.mark.parametrize("mode", ["client", "private_client"])
def test_pair_standings_check_in_both_modes(mode, request) -> None:
    client = request.getfixturevalue(mode)
    paired = ok(post(client, "pair", event()), PAIR)
    assert paired["round"] == 2
    assert [p["table"] for p in paired["pairings"]] == [1, 2]
    assert paired["event"]["rounds"][-1]["pairings"] == paired["pairings"]
    # 15.5: the two winners meet, the two losers meet
    assert {frozenset(p["players"]) for p in paired["pairings"]} == {
        frozenset({"ren", "kai"}),
        frozenset({"aoi", "mio"}),
    }
    table = ok(post(client, "standings", event()), STANDINGS)
    assert [row["player"] for row in table["standings"][:2]] == ["ren", "kai"]  # 15.4: ren 2–0 games, kai 2–1
    assert table["standings"][0] == {
        "rank": 1,
        "player": "ren",
        "match_points": 3,
        "record": "1-0",
        "mw": 1.0,
        "omw": 0.3333,
        "gw": 1.0,
        "ogw": 0.3333,
        "dropped": False,
    }
    assert set(table["ratings"]) == {"aoi", "ren", "mio", "kai"}
    assert ok(post(client, "check", event()), CHECK) == {"ok": True}


def test_round_not_finished_is_a_422_naming_15_2(client) -> None:
    doc = ok(post(client, "pair", event()), PAIR)["event"]
    body = problem(post(client, "pair", doc), 422, "round_not_finished")
    assert (body["rule"], body["round"], body["table"]) == ("15.2", 2, 1)


def test_event_over_is_a_422_naming_15_6(client) -> None:
    doc = event(swiss_rounds=1)
    body = problem(post(client, "pair", doc), 422, "event_over")
    assert body["rule"] == "15.6"


def test_not_a_match_score_names_round_and_table(client) -> None:
    doc = event()
    doc["rounds"][0]["pairings"][1]["result"] = {"games": [1, 1]}
    for path in ("pair", "standings", "check"):
        body = problem(post(client, path, doc), 422, "not_a_match_score")
        assert (body["rule"], body["round"], body["table"]) == ("15.2", 1, 2)


def test_check_names_a_rematch(client) -> None:
    doc = event()
    doc["rounds"].append({"pairings": [{"players": ["ren", "aoi"]}, {"players": ["kai", "mio"]}]})
    body = problem(post(client, "check", doc), 422, "rematch")
    assert (body["rule"], body["round"], body["table"]) == ("15.5", 2, 1)


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda d: d["players"].append({"id": "aoi"}), "event.players.4.id"),
        (
            lambda d: d["rounds"][0]["pairings"][0]["players"].__setitem__(1, "zed"),
            "event.rounds.0.pairings.0.players.1",
        ),
        (
            lambda d: d["rounds"][0]["pairings"][1]["players"].__setitem__(0, "aoi"),
            "event.rounds.0.pairings.1.players.0",
        ),
        (lambda d: d["players"].__setitem__(0, {"id": "x" * 65}), "event.players.0.id"),
        (lambda d: d.update(best_of=2), "event.best_of"),
        (
            lambda d: d["rounds"][0]["pairings"][0]["result"].update(games=[2, 9]),
            "event.rounds.0.pairings.0.result.games",
        ),
    ],
)
def test_not_an_event_is_a_400_with_the_field_path(client, change, path) -> None:
    doc = event()
    change(doc)
    body = problem(post(client, "pair", doc), 400, "invalid_schema")
    assert path in body["errors"], body


def test_paired_after_dropping_is_a_400(client) -> None:
    doc = event()
    doc["rounds"][0]["drops"] = ["aoi"]
    doc["rounds"].append({"pairings": [{"players": ["aoi", "mio"]}, {"players": ["ren", "kai"]}]})
    body = problem(post(client, "check", doc), 400, "invalid_schema")
    assert "event.rounds.1.pairings.0.players.0" in body["errors"]


def test_the_body_needs_an_event(client) -> None:
    body = problem(client.post("/v1/events/pair", json={"events": {}}), 400, "invalid_schema")
    assert set(body["errors"]) == {"event", "events"}
    body = problem(client.post("/v1/events/pair", json={"event": []}), 400, "invalid_schema")
    assert "event" in body["errors"]


JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 70) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def _mutated(draw_path: list, value, doc):
    """``doc`` with the value at ``draw_path`` replaced."""
    target = doc
    for key in draw_path[:-1]:
        target = target[key]
    target[draw_path[-1]] = value
    return doc


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


PATHS = [p for p in _paths(EVENT_EXAMPLE["event"]) if p]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(PATHS), value=JSON, endpoint=st.sampled_from(["pair", "standings", "check"]))
def test_no_body_is_answered_with_a_500(client, path, value, endpoint) -> None:
    doc = _mutated(list(path), value, event())
    resp = post(client, endpoint, doc)
    assert resp.status_code in (200, 400, 422), resp.get_data(as_text=True)
    if resp.status_code != 200:
        problem(resp, resp.status_code)


@pytest.mark.parametrize("field", ["swiss_rounds", "cut", "swiss_ended", "name"])
def test_an_optional_field_sent_as_null_is_a_400(client, field) -> None:
    """What the schema leaves optional is absent or of its type, never null (as openapi.yaml says)."""
    body = problem(post(client, "pair", event(**{field: None})), 400, "invalid_schema")
    assert f"event.{field}" in body["errors"]
    doc = event()
    doc["players"][0]["rating"] = None
    assert "event.players.0.rating" in problem(post(client, "pair", doc), 400, "invalid_schema")["errors"]
