"""The hot path does not run marshmallow, so prove it needs not: the engine's strict
parsers and the documented schemas (hence openapi.yaml) accept and reject exactly
the same inputs, and where they refuse, they name the same fields.

The state and action schemas are derived from the engine's model
(``schemas/derived.py``), so for them one check suffices: the derivation is
complete. NewGames, decks and whole request bodies are compared on real values
with random mutations: a field removed, added, nulled, replaced by any JSON
value or by a value of the same kind, at any depth.

Every example reaches an assertion. A refusal is compared by its error paths
(:func:`same_fields`): the engine names exactly the fields the schema names,
or the field enclosing them when it reads that field as one piece (a NewGame's
``players`` for the schema's ``players.1``; a state's ``cards.X`` for
``cards.X.value``). Measured with ``--hypothesis-show-statistics`` (the
``event`` lines) over 1,000 examples each: NewGames 76% refused and
compared by path, 24% accepted; decks 61% refused, 39% accepted; service
bodies (every body endpoint) 80% refused and compared by path, 17% accepted (a
200 or a 422), 3% an inconsistent state (RULES 13.1, compared as below).

"Accepted" means, for the engine, anything but a schema error (an inconsistent
state is well formed: RULES 13.1 is not the schema's business); for the
service, any answer but a 400 ``invalid_schema`` / ``invalid_json``. The
service checks a body in the order of docs/api.md §1 and answers the first
failing part (the body's keys, then the state, then the action): its
``errors`` then name exactly the schema's errors in the parts it names.
"""

from __future__ import annotations

import copy
import typing
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_state_parsers import mutated_states

import referee_schemas as S
from referee import engine
from referee.engine import InconsistentState, InvalidInput, RuleViolation, model, new_game, validate_deck
from referee.engine.errors import RefusedInput
from referee.engine.parse import explain
from referee_schemas.derived import schema_for

SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)

LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 3),
    st.sampled_from([0.5, -1.0, 0.0, 1.0, 2**40]),
    st.sampled_from(
        [
            "",
            "x",
            "auto",
            "strict",
            "draw",
            "keep",
            "mulligan",
            "turn",
            "main",
            "over",
            "deck_out",
            "ace-file/state@1",
            "ace-file-99",
            "AF-001",
        ]
    ),
    st.text(max_size=3),
)
JSON = st.recursive(
    LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


def _same_kind(value: Any, extra_values: Any) -> st.SearchStrategy:
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.integers(0, 3)
    if isinstance(value, str):
        return st.sampled_from([v for v in extra_values if isinstance(v, str)] or ["x"])
    return st.just(copy.deepcopy(value))


@st.composite
def mutated(draw, base: Any, extra_values: list[Any] = (), extra_keys: list[str] = ()) -> Any:
    """``base`` with one to three random edits at random depths."""
    doc = copy.deepcopy(base)
    values = st.one_of(JSON, st.sampled_from(list(extra_values)).map(copy.deepcopy)) if extra_values else JSON
    keys = st.one_of(st.text(max_size=6), st.sampled_from(list(extra_keys))) if extra_keys else st.text(max_size=6)
    for _ in range(draw(st.integers(1, 3))):
        parent, key, node = None, None, doc
        while True:
            if isinstance(node, dict) and node and draw(st.integers(0, 3)):
                k = draw(st.sampled_from(sorted(node)))
            elif isinstance(node, list) and node and draw(st.integers(0, 3)):
                k = draw(st.integers(0, len(node) - 1))
            else:
                break
            parent, key, node = node, k, node[k]
        op = draw(st.sampled_from(["replace", "delete", "add", "null", "same", "same", "same"]))
        if op == "same" and parent is not None:  # a value of the same JSON kind: often still valid
            parent[key] = draw(_same_kind(node, extra_values))
        elif op == "add" and isinstance(node, dict):
            node[draw(keys)] = draw(values)
        elif op == "add" and isinstance(node, list):
            node.append(draw(values))
        elif op == "delete" and parent is not None:
            del parent[key]
        elif parent is None:
            doc = draw(values)
        else:
            parent[key] = None if op == "null" else draw(values)
    return doc


def huge_count(value: Any) -> bool:
    """Whether ``value`` holds an integer over 1000 anywhere (a deck count the engine would expand)."""
    if isinstance(value, dict):
        return any(huge_count(v) for v in value.values())
    if isinstance(value, list):
        return any(huge_count(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and value > 1000


def schema_paths(errors: Any, prefix: str = "") -> set[str]:
    """A marshmallow error dict's paths, written as the referee writes them: ``decks.0``, ``state.players.1.hand``;
    an error about a whole object is at the object's path (``_schema`` for the body itself)."""
    if not isinstance(errors, dict):
        return {prefix or "_schema"}
    out: set[str] = set()
    for key, inner in errors.items():
        where = (prefix or "_schema") if key == "_schema" else f"{prefix}.{key}" if prefix else str(key)
        out |= schema_paths(inner, where)
    return out


def _top(path: str) -> str:
    """The body field a path is in; an unknown field named "" is the body's own ``_schema``, as the engine says."""
    return path.split(".")[0] or "_schema"


def _within(path: str, outer: str) -> bool:
    return path == outer or path.startswith(outer + ".")


def same_fields(named: set[str], expected: set[str]) -> bool:
    """Whether the refusal ``named`` names the fields the schema's ``expected`` does: each expected path is, or
    lies inside, a named one, and each named one holds an expected one (a field read as one piece may be named
    whole where the schema names what inside it is wrong)."""
    named = {p if p else "_schema" for p in named}
    expected = {p if p else "_schema" for p in expected}
    return all(any(_within(e, n) for n in named) for e in expected) and all(
        any(_within(e, n) for e in expected) for n in named
    )


def engine_refusal(parse, value: Any) -> dict[str, list[str]]:
    """The engine's schema errors for ``value`` (empty when it accepts it)."""
    try:
        parse(value)
    except InconsistentState:
        return {}  # well formed, but not a possible position
    except RefusedInput:
        return {}  # of the schema, but a deck list, code or format this catalog cannot read (docs/api.md §13)
    except InvalidInput as exc:
        assert exc.errors, value
        return exc.errors
    return {}


def compare(schema_errors: dict, engine_errors: dict) -> None:
    """One assertion for either verdict: both accept, or both refuse naming the same fields."""
    expected = schema_paths(schema_errors) if schema_errors else set()
    event("refused: paths compared" if expected else "accepted by the schema")
    assert bool(engine_errors) == bool(expected), (expected, engine_errors)
    assert same_fields(set(engine_errors), expected), (expected, engine_errors)


@pytest.fixture(scope="module")
def bases(positions) -> list[dict]:
    """Positions of every kind: the deal, windows, end steps, the end, and a spread of the rest."""
    states = [s for s, _ in positions]
    picked = states[:: max(1, len(states) // 12)] + [states[-1]]
    picked += [s for s in states if s["pending"] is not None][:3]
    picked += [s for s in states if s["step"] == "end"][:2]
    out = []
    for s in picked:
        s = copy.deepcopy(s)
        s.setdefault("modifiers", [])
        s.setdefault("used", [])
        out.append(s)
    with_extras = copy.deepcopy(out[len(out) // 2])
    with_extras["modifiers"] = [{"card": "x1", "power": 2}]
    with_extras["used"] = [{"card": "x1", "ability": 0}]
    with_extras["seal"] = "hmac-sha256:00"
    with_extras["pending"] = {
        "action": {"type": "draw", "player": 0, "pay": ["c1"]},
        "responder": 1,
        "negated": False,
        "power": 0,
        "counters": [],
    }
    out.append(with_extras)
    return out


# -- the state and action schemas are derived from the model: check the derivation is complete ---


def _structs(root) -> set:
    """Every model Struct reachable from ``root``'s fields."""
    found, todo = set(), [root]
    while todo:
        struct = todo.pop()
        if struct in found:
            continue
        found.add(struct)
        for f in msgspec.structs.fields(struct):
            todo.extend(t for t in _types_in(f.type) if isinstance(t, type) and issubclass(t, msgspec.Struct))
    return found


def _types_in(tp):
    yield tp
    for arg in typing.get_args(tp):
        yield from _types_in(arg)


def test_every_model_struct_has_a_complete_schema():
    structs = _structs(model.State) | set(model.ACTION_STRUCTS.values())
    assert model.PlayerState in structs and model.ACTION_STRUCTS["discard"] in structs
    for struct in structs:
        declared = schema_for(struct)._declared_fields
        tag = struct.__struct_config__.tag_field if struct.__struct_config__.tag else None
        assert set(declared) - {tag} == {f.encode_name for f in msgspec.structs.fields(struct)}, struct
        for f in msgspec.structs.fields(struct):
            nullable = type(None) in typing.get_args(
                typing.get_args(f.type)[0] if typing.get_origin(f.type) is typing.Annotated else f.type
            )
            assert declared[f.encode_name].required == f.required, (struct, f.name)
            assert declared[f.encode_name].allow_none == nullable, (struct, f.name)
    assert S.STATE.__class__ is schema_for(model.State)


def test_the_view_schema_is_the_model_state_less_its_secrets(catalog, positions):
    """docs/api.md §5: a view has the state's fields but ``seed``, ``rng`` and ``seal``, plus ``viewer`` (also as ``player``, docs/api.md §12) and
    ``commitment``; its players have the Player fields (``file`` as a count). The view schema is written by
    hand, so a field added to the model must appear here too, and every view the engine makes fits it."""
    from referee_schemas.game import ViewPlayerSchema

    state_fields = {f.encode_name for f in msgspec.structs.fields(model.State)}
    assert set(S.ViewSchema._declared_fields) == state_fields - {"seed", "rng", "seal"} | {
        "viewer",
        "player",
        "commitment",
    }
    assert set(ViewPlayerSchema._declared_fields) == {f.encode_name for f in msgspec.structs.fields(model.PlayerState)}
    for state, _ in positions[::10]:
        for viewer in (0, 1, None):
            assert S.ViewSchema().validate(engine.view(catalog, state, viewer)) == {}


@settings(max_examples=150, deadline=None)
@given(mutated_states())
def test_the_model_and_the_derived_schema_accept_the_same_states(state):
    """Both sides are reached on every example; about a third of them are well formed (test_state_parsers)."""
    assert (S.STATE.validate(state) == {}) == (explain(state, model.State) == {}), state


@SETTINGS
@given(data=st.data())
def test_new_game_parser_and_schema_agree(new_game_body, catalog, data):
    counts: dict[str, int] = {}
    for cid in new_game_body["decks"][1]:
        counts[cid] = counts.get(cid, 0) + 1
    base = {
        **new_game_body,
        "decks": [new_game_body["decks"][0], counts],
        "first_player": 1,
        "shuffle": True,
        "players": ["Aoi", "Ren"],
        "options": {"response_windows": "strict"},
    }
    game = data.draw(
        mutated(
            base,
            extra_values=["AF-001", 40, "auto", "af99", {"id": "af99", "date": "2000-02-30"}],
            extra_keys=["seed", "first_player", "shuffle", "players", "options", "format"],
        ).filter(lambda g: not huge_count(g))
    )  # test_service_endpoints.py: huge counts are cheap
    schema_errors = S.NEW_GAME.validate(game) if isinstance(game, dict) else {"_schema": ["not an object"]}

    def parse(g):
        try:
            new_game(catalog, g)
        except RuleViolation:
            pass  # an illegal deck is well formed

    compare(schema_errors, engine_refusal(parse, game))


@SETTINGS
@given(data=st.data())
def test_deck_parser_and_schema_agree(new_game_body, catalog, data):
    base = data.draw(st.sampled_from([new_game_body["decks"][0], {"AF-001": 1, "AF-002": 3}]))
    deck = data.draw(mutated(base, extra_values=["AF-001", 2, -1, ""]).filter(lambda d: not huge_count(d)))
    compare(S.DECK_VALIDATE_REQUEST.validate({"deck": deck}), engine_refusal(lambda d: validate_deck(catalog, d), deck))


# -- the service's answers against the request schemas --------------------------------------


def service_agrees(resp, errors: dict) -> None:
    """The answer agrees with the schema's ``errors`` for the body.

    A refusal for the schema names, in each body field it names, exactly the
    schema's errors there (it answers the first failing part: docs/api.md §1).
    A state is checked for consistency before the action and the player, so an
    inconsistent state may hide a malformed action or player: then only those
    may be wrong in the schema's eyes.
    """
    assert resp.status_code != 500, resp.get_data(as_text=True)
    expected = schema_paths(errors) if errors else set()
    answer = resp.get_json()
    if resp.status_code == 400 and answer["code"] in ("invalid_schema", "invalid_json"):
        event("refused: paths compared")
        named = set(answer["errors"])
        parts = {_top(p) for p in named}
        wanted = {p for p in expected if _top(p) in parts}
        if answer.get("errors_total", len(named)) > len(named):
            # an answer lists the first problems only (docs/api.md §1): each listed one is the schema's
            event("refused: the first paths compared")
            listed = {n or "_schema" for n in named}  # an unknown field named "" is the body's own, as in same_fields
            assert listed and all(any(_within(e, n) or _within(n, e) for e in wanted) for n in listed), (wanted, named)
        else:
            assert named and same_fields(named, wanted), (expected, named)
    elif resp.status_code == 400:
        event("inconsistent state")
        # the engine judges the action and the player after the state (docs/decisions.md, "A player index is 0 or 1 exactly")
        assert {_top(p) for p in expected} <= {"action", "actions", "player"}, (expected, answer)
    else:
        event("accepted")
        assert not expected, (expected, resp.status_code)


ENDPOINTS = {
    "/v1/apply": S.APPLY_REQUEST,
    "/v1/validate": S.APPLY_REQUEST,
    "/v1/legal-actions": S.LEGAL_ACTIONS_REQUEST,
    "/v1/view": S.VIEW_REQUEST,
    "/v1/replay": S.REPLAY_REQUEST,
    "/v1/games": S.NEW_GAME,
    "/v1/decks/validate": S.DECK_VALIDATE_REQUEST,
}


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_service_and_request_schemas_agree(app, bases, positions, new_game_body, data):
    client = app.test_client()
    path = data.draw(st.sampled_from(sorted(ENDPOINTS)))
    state = data.draw(st.sampled_from(bases))
    action = (
        next(a for s, a in positions if s["turn"] == state["turn"] and a is not None)
        if state["phase"] != "over"
        else {"type": "concede", "player": 0}
    )
    base = {
        "/v1/apply": {"state": state, "action": action},
        "/v1/validate": {"state": state, "action": action},
        "/v1/legal-actions": {"state": state, "player": 0},
        "/v1/view": {"state": state, "player": 1},
        "/v1/replay": {"state": state, "actions": [action]},
        "/v1/games": new_game_body,
        "/v1/decks/validate": {"deck": new_game_body["decks"][0]},
    }[path]
    body = data.draw(
        mutated(
            base,
            extra_values=[0, 1, action, state, [], "AF-001"],
            extra_keys=["state", "action", "actions", "player", "game", "deck", "seed"],
        ).filter(lambda b: not huge_count(b))
    )
    resp = client.post(path, data=orjson.dumps(body), content_type="application/json")
    errors = ENDPOINTS[path].validate(body) if isinstance(body, dict) else {"_schema": ["not an object"]}
    service_agrees(resp, errors)


# -- one judgement of "is this a player index", wherever a player is named ------------------

NOT_PLAYERS = [1.0, 0.0, True, False, "1", 2, -1, None]


@pytest.mark.parametrize("value", NOT_PLAYERS, ids=repr)
def test_a_value_that_is_not_a_player_index_is_refused_at_its_path_by_engine_schema_and_service(
    app, catalog, new_game_body, midgame, value
):
    """RULES 1.1: 0 or 1 and nothing else (not 1.0, not true), by every public function and endpoint alike."""
    state, action = midgame
    cases = [  # (engine call, HTTP path, body, the path named)
        (lambda: engine.view(catalog, state, value), "/v1/view", {"state": state, "player": value}, "player"),
        (
            lambda: engine.legal_actions(catalog, state, value),
            "/v1/legal-actions",
            {"state": state, "player": value},
            "player",
        ),
        (
            lambda: engine.apply(catalog, state, {**action, "player": value}),
            "/v1/apply",
            {"state": state, "action": {**action, "player": value}},
            "action.player",
        ),
        (
            lambda: new_game(catalog, {**new_game_body, "first_player": value}),
            "/v1/games",
            {**new_game_body, "first_player": value},
            "first_player",
        ),
    ]
    client = app.test_client()
    for call, path, body, where in cases:
        if value is None and path in ("/v1/legal-actions", "/v1/games", "/v1/view"):
            # None is the Python for absent: whoever may act; the first player drawn from the seed (5.2);
            # on /v1/view, a spectator (docs/api.md §12, tests/test_ledger.py)
            continue
        with pytest.raises(InvalidInput) as caught:
            call()
        assert set(caught.value.errors) == {where}, (path, caught.value.errors)
        resp = client.post(path, data=orjson.dumps(body), content_type="application/json")
        assert resp.status_code == 400 and set(resp.get_json()["errors"]) == {where}, (path, resp.get_json())
        assert schema_paths(ENDPOINTS[path].validate(body)) == {where}, path
