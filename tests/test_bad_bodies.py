"""Bodies any HTTP server passes on, and the answers they get (issue 19, point 3): JSON nested too deeply,
error answers bounded whatever the request, encoded bodies.

Through Flask's test client; every server and worker class reads bodies the same way
(referee/service/reading.py).
"""

from __future__ import annotations

import gzip

import orjson
import pytest

from referee.service.problems import MAX_ERROR_ANSWER, MAX_LISTED_ERRORS

JSON = {"Content-Type": "application/json"}
POST_ENDPOINTS = [
    "/v1/games",
    "/v1/apply",
    "/v1/validate",
    "/v1/legal-actions",
    "/v1/replay",
    "/v1/view",
    "/v1/decks/validate",
]


def nested(depth: int) -> bytes:
    return b'{"a":' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize("depth", [256, 300, 1024, 1100])
@pytest.mark.parametrize("path", POST_ENDPOINTS)
def test_a_body_nested_too_deeply_is_a_400_that_says_so(client, path, depth):
    """Given a JSON object holding arrays nested 256 to 1,100 deep, when posted, then 400 too_deeply_nested."""
    answer = client.post(path, data=nested(depth), headers=JSON)
    assert answer.status_code == 400, answer.data[:300]
    assert answer.get_json()["code"] == "too_deeply_nested"


def test_a_body_nested_deep_with_an_escaped_colon_is_refused_the_same_way(client):
    body = b'{"k\\u003a":' + b"[" * 300 + b"]" * 300 + b"}"
    answer = client.post("/v1/apply", data=body, headers=JSON)
    assert answer.status_code == 400 and answer.get_json()["code"] == "too_deeply_nested"


@pytest.mark.parametrize("mode", ["plain", "private"])
def test_a_body_nested_too_deeply_is_a_400_in_private_mode_too(client, private_client, mode):
    http = client if mode == "plain" else private_client
    answer = http.post("/v1/view", data=nested(300), headers=JSON)
    assert answer.status_code == 400 and answer.get_json()["code"] == "too_deeply_nested"


def test_a_body_nested_as_deep_as_orjson_writes_is_read(client):
    """254 levels (the limit: an object holding 253 arrays) is still a body: its answer is about its keys, not its depth."""
    answer = client.post("/v1/apply", data=b'{"a":' + b"[" * 253 + b"]" * 253 + b"}", headers=JSON)
    assert answer.status_code == 400 and answer.get_json()["code"] == "invalid_schema"


# -- bounded error answers -------------------------------------------------------------------


@pytest.mark.parametrize("bad", [{}, {"type": "nope"}, "x", {"type": "keep", "player": 7}])
def test_a_replay_of_330000_malformed_actions_lists_the_first_few_and_a_count(client, new_game_body, bad):
    """Given /v1/replay with up to 330,000 malformed actions (the review's 24 MB answer; as many as 1 MiB
    holds, and objects as many as it may hold: 60,000 under the 65,536 of too_many_containers), then
    the 400 lists the first 10 in the body's order, counts them all, and stays small."""
    count = min(330_000 if isinstance(bad, str) else 60_000, 1_000_000 // (len(orjson.dumps(bad)) + 1))
    actions = [bad] * count
    answer = client.post("/v1/replay", data=orjson.dumps({"game": new_game_body, "actions": actions}), headers=JSON)
    assert answer.status_code == 400
    assert len(answer.data) < 4096
    problem = answer.get_json()
    assert problem["code"] == "invalid_schema"
    assert problem["errors_total"] == count
    assert len(problem["errors"]) == MAX_LISTED_ERRORS
    assert [path.split(".")[1] for path in problem["errors"]] == [str(i) for i in range(MAX_LISTED_ERRORS)]
    assert f"{count} in all" in problem["detail"]


def test_an_error_that_quotes_a_huge_value_quotes_only_its_start(client, midgame):
    state, _ = midgame
    body = {"state": state, "action": {"type": "x" * 500_000, "player": 0}}
    answer = client.post("/v1/apply", data=orjson.dumps(body), headers=JSON)
    assert answer.status_code == 400 and len(answer.data) < 4096


def test_few_errors_are_listed_whole_without_a_count(client, midgame):
    state, _ = midgame
    answer = client.post("/v1/apply", data=orjson.dumps({"state": state, "action": {}}), headers=JSON)
    problem = answer.get_json()
    assert answer.status_code == 400 and problem["errors"] and "errors_total" not in problem


def test_no_error_answer_exceeds_64_kib(client):
    """The last guard, whatever a problem holds: 2,000 unknown keys each named by a long key."""
    body = {f"k{i:04d}" + "y" * 250: 1 for i in range(2000)}
    answer = client.post("/v1/apply", data=orjson.dumps(body), headers=JSON)
    assert answer.status_code == 400 and len(answer.data) <= MAX_ERROR_ANSWER


# -- encoded bodies --------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "GZIP", "gzip, identity"])
def test_an_encoded_body_is_a_415_that_says_encodings_are_not_accepted(client, midgame, encoding):
    state, action = midgame
    data = gzip.compress(orjson.dumps({"state": state, "action": action}))
    answer = client.post("/v1/apply", data=data, headers={**JSON, "Content-Encoding": encoding})
    assert answer.status_code == 415
    problem = answer.get_json()
    assert problem["code"] == "encoded_body" and "Content-Encoding" in problem["detail"]


def test_identity_encoding_is_plain_json(client, midgame):
    state, action = midgame
    data = orjson.dumps({"state": state, "action": action})
    answer = client.post("/v1/apply", data=data, headers={**JSON, "Content-Encoding": "identity"})
    assert answer.status_code == 200


@pytest.mark.parametrize("path", POST_ENDPOINTS)
def test_unknown_fields_named_by_digits_int_cannot_read_are_a_400(client, midgame, path):
    """Found by tests/test_openapi_parity.py as a 500: two errors are listed in path order, and a field named
    ``²`` (a digit to str.isdigit, which int() refuses) broke the sort. Now a 400 naming each field."""
    state, action = midgame
    body = {"state": state, "action": action, "²": 1, "x": 2}
    resp = client.post(path, data=orjson.dumps(body), content_type="application/json")
    assert resp.status_code == 400, resp.get_data(as_text=True)
    assert {"²", "x"} <= set(resp.get_json()["errors"])
