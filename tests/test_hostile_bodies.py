"""The costliest bodies we can build, up to the body limit, on every endpoint that reads one (issue 39):
the memory and the steps each costs are bounded by those of an ordinary body of the same size and
shape (benchmarks/hostile_bodies.py builds both). Work and memory are counted, never timed:
tracemalloc's peak, and the Python calls made (``sys.setprofile``).
"""

from __future__ import annotations

import json
import sys
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
from conftest import post
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.hostile_bodies import BODY_PATHS, BUILDERS, issue_escape
from referee.service.reading import MAX_DEPTH, SMALL_BODY, duplicate_key_path, repeats_a_key

LIMIT = 1 << 20  # the default REFEREE_MAX_BODY
MiB = 1 << 20


def peak_bytes(run: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def calls(run: Callable[[], Any]) -> int:
    """How many Python and C functions ``run`` calls: a count of steps that does not depend on the machine."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


# Every endpoint at a quarter of the limit (past SMALL_BODY: the larger bodies' check), /v1/apply at the limit.
SIZES = [(path, LIMIT // 4) for path in BODY_PATHS] + [("/v1/apply", LIMIT)]


@pytest.mark.parametrize("path,size", SIZES)
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_a_hostile_body_costs_no_more_memory_than_an_ordinary_one_of_its_size(client, path, size, name):
    """Given the worst body of a kind and an ordinary one of the same size, when each is posted,
    then each is a 400 and the hostile one's peak memory is within 1.25 times the ordinary
    one's plus 4 MiB (the reported body took 800 MB), and under 64 bytes per byte of body."""
    hostile, ordinary = BUILDERS[name](size)
    post(client, path, ordinary)  # warm: first-call caches are not the body's cost
    answers: list[Any] = []
    ordinary_peak = peak_bytes(lambda: answers.append(post(client, path, ordinary)))
    hostile_peak = peak_bytes(lambda: answers.append(post(client, path, hostile)))
    assert [a.status_code for a in answers] == [400, 400], [a.get_json() for a in answers]
    assert hostile_peak <= 1.25 * ordinary_peak + 4 * MiB, (hostile_peak, ordinary_peak)
    assert hostile_peak <= 64 * len(hostile), hostile_peak  # the parse itself: 1M empty lists are 48 MB


def test_the_reported_body_is_answered_on_the_fast_path_with_a_few_steps(client):
    """The issue's 116 KB body (an escaped colon, 8,000 zeros 100 objects deep): answered 400 in
    as many steps as the same body without the escape, give or take a few."""
    hostile, ordinary = issue_escape(116_000)
    post(client, "/v1/apply", ordinary)
    steps_ordinary = calls(lambda: post(client, "/v1/apply", ordinary))
    steps_hostile = calls(lambda: post(client, "/v1/apply", hostile))
    assert steps_hostile <= steps_ordinary + 20, (steps_hostile, steps_ordinary)


@pytest.mark.parametrize("name", ["deep_repeat", "nested_arrays", "wide_repeats", "many_escapes"])
def test_naming_a_repeated_key_takes_steps_linear_in_the_body(name):
    """Given a hostile body at half and at the whole limit, the steps to find its repeated key's path
    at most double (plus a constant): no step grows with depth times size."""
    half, _ = BUILDERS[name](LIMIT // 2)
    whole, _ = BUILDERS[name](LIMIT)
    steps_half = calls(lambda: duplicate_key_path(half))
    steps_whole = calls(lambda: duplicate_key_path(whole))
    assert steps_whole <= 2.1 * steps_half + 100, (steps_half, steps_whole)
    assert steps_whole <= 4 * len(whole)  # a few calls per object or array, each two bytes or more


@pytest.mark.parametrize("name", sorted(set(BUILDERS) - {"issue_escape"}))
def test_the_path_named_is_the_repeated_key_s(name):
    hostile, ordinary = BUILDERS[name](200_000)
    path = duplicate_key_path(hostile)
    assert path and path.split(".")[-1] in ("a", "a:", "k0"), path
    assert duplicate_key_path(ordinary) is None


def test_a_large_body_nested_too_deeply_is_refused_by_its_text():
    """Past SMALL_BODY the depth is read from the text (brackets in strings do not count)."""
    from referee.service.problems import Problem

    filler = b'"' + b"[" * SMALL_BODY + b'"'
    deep = b'{"a":' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b',"b":' + filler + b"}"
    just = b'{"a":' + b"[" * (MAX_DEPTH - 1) + b"]" * (MAX_DEPTH - 1) + b',"b":' + filler + b"}"
    with pytest.raises(Problem) as refused:
        repeats_a_key(deep, json.loads(deep))
    assert refused.value.code == "too_deeply_nested"
    assert repeats_a_key(just, json.loads(just)) is False


# -- the count of colons, against a plain reading that keeps every pair ----------------------------


def _naive_path(data: bytes) -> str | None:
    """The first repeated key's path, in document order: a simple, slow oracle."""

    def walk(node: Any, path: str) -> str | None:
        if isinstance(node, list) and node and isinstance(node[0], tuple) and node[0][0] == "__pairs__":
            pairs = node[1:]
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    return f"{path}.{key}" if path else key
                seen.add(key)
            for key, value in pairs:
                found = walk(value, f"{path}.{key}" if path else key)
                if found is not None:
                    return found
        elif isinstance(node, list):
            for i, value in enumerate(node):
                found = walk(value, f"{path}.{i}" if path else str(i))
                if found is not None:
                    return found
        return None

    return walk(json.loads(data, object_pairs_hook=lambda p: [("__pairs__", None), *p]), "")


_text = st.text(alphabet=':a"\\ bu03A', max_size=6)
_json = st.recursive(
    st.none() | st.integers(-10, 10) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", ":"]), inner, max_size=3),
    max_leaves=10,
)


def _repeat_somewhere(draw: Any) -> bytes:
    """A JSON text whose objects may repeat a key: pairs written out by hand, keys escaped or not."""

    def write(node: Any) -> str:
        if isinstance(node, dict):
            pairs = [(k, write(v)) for k, v in node.items()]
            if pairs and draw(st.booleans()):
                pairs.insert(draw(st.integers(0, len(pairs))), (draw(st.sampled_from(list(node))), "0"))
            keys = [json.dumps(k).replace(":", "\\u003a" if draw(st.booleans()) else ":") for k, _ in pairs]
            return "{" + ",".join(f"{k}:{v}" for k, (_, v) in zip(keys, pairs, strict=True)) + "}"
        if isinstance(node, list):
            return "[" + ",".join(write(v) for v in node) + "]"
        return json.dumps(node)

    return write({"s": draw(_json), "t": draw(_json)}).encode()


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_repeated_key_is_found_exactly_and_named_as_a_plain_reading_names_it(data):
    import orjson

    text = _repeat_somewhere(data.draw)
    expected = _naive_path(text)
    assert repeats_a_key(text, orjson.loads(text)) is (expected is not None)
    assert duplicate_key_path(text) == expected
    padded = b'{"pad":"' + b"x" * SMALL_BODY + b'",' + text[1:]  # past SMALL_BODY: written by msgspec
    assert repeats_a_key(padded, orjson.loads(padded)) is (expected is not None)
    assert duplicate_key_path(padded) == expected


def test_a_body_of_more_containers_than_the_limit_allows_is_refused_before_any_parse(client):
    """A megabyte of empty arrays was 350,000 lists for orjson to make (0.3 s, 48 MB): refused on two byte
    counts, its peak memory within twice the body's."""
    body = b'{"state":[' + b"[]," * ((LIMIT - 20) // 3) + b"[]]}"
    answers: list[Any] = []
    peak = peak_bytes(lambda: answers.append(post(client, "/v1/apply", body)))
    assert answers[0].status_code == 400 and answers[0].get_json()["code"] == "too_many_containers"
    assert peak <= 3 * len(body), peak


def test_the_densest_ordinary_request_is_within_the_count_of_containers(client, catalog):
    """A replay of 30,000 of the shortest actions (one container per 27 bytes) is read, not refused."""
    import orjson

    from referee.engine.playout import random_new_game

    body = orjson.dumps(
        {"game": random_new_game(catalog, "dense"), "actions": [{"type": "keep", "player": 0}] * 30_000}
    )
    assert LIMIT // 2 < len(body) <= LIMIT
    answer = post(client, "/v1/replay", body)
    assert answer.get_json().get("code") != "too_many_containers", answer.get_json()


def test_every_endpoint_that_takes_a_body_is_among_the_hostile_bodies_targets(app):
    """A new POST endpoint is bounded only if the hostile bodies reach it: the list is the app's own."""
    posts = {rule.rule for rule in app.url_map.iter_rules() if "POST" in (rule.methods or ())}
    assert posts == set(BODY_PATHS)
