"""The one reading of a state (msgspec), the explanation of a refusal, and the model agree.

For any value, ``msgspec.convert`` accepts it exactly when ``parse.explain``
finds nothing wrong, and when it refuses, the path msgspec stops at is one
``explain`` reports (or lies inside a value ``explain`` reports as a whole,
such as a list of ids); ``check_state`` refuses a malformed state with exactly
the explanation, whatever part of the reading tripped over it. Every example reaches an assertion; the mutations are
balanced so that about a third of them stay well formed (measured over 2,000
examples: 37% accepted, 63% refused), so both sides of the equivalence are
exercised.
"""

from __future__ import annotations

import copy
import re

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import Catalog, InconsistentState, InvalidInput, check_state
from referee.engine.model import Action, State
from referee.engine.parse import explain, parse_action, plain_input
from referee.engine.playout import play, play_out

CATALOG = Catalog.builtin()
_, FINAL, _ = play_out(CATALOG, "parsers-1")


def _samples() -> list[dict]:
    """Positions of a strict-windows game: some with a window open, some mid-turn, the end."""
    out, seen_pending = [], 0
    for state, _ in play(CATALOG, "parsers-2", options={"response_windows": "strict"}):
        if state["pending"] is not None and seen_pending < 3:
            seen_pending += 1
            out.append(copy.deepcopy(state))
        elif len(out) < 6 and state["turn"] in (3, 9) and state["step"] == "main":
            out.append(copy.deepcopy(state))
    return out + [FINAL]


SAMPLES = _samples()

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "auto", "main", "a000001"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["card", "case", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from paths(v, prefix + (i,))


def _same_kind(value):
    """A different value of the same JSON kind, which often keeps the state well formed."""
    if isinstance(value, bool):
        return st.booleans()
    if isinstance(value, int):
        return st.integers(0, 3)
    if isinstance(value, str):
        return st.sampled_from(["x", "a000001", "auto", "strict", "main", "over"])
    return st.just(copy.deepcopy(value))


class _Text(str):
    """A str subclass (as numpy's ``str_`` is): msgspec reads it as a string, and so must the explanation."""


class _Number(int):
    """An int subclass, likewise."""


def _subclassed(value):
    """The same value as an instance of a subclass of its type (``bool``, which int's subclass is, apart)."""
    if isinstance(value, str):
        return st.just(_Text(value))
    if isinstance(value, int) and not isinstance(value, bool):
        return st.just(_Number(value))
    return st.just(copy.deepcopy(value))


@st.composite
def mutated_states(draw):
    """A real position with up to three fields deleted, replaced by any JSON, by a value of the same kind, or
    by the same value of a subclass of its type."""
    state = copy.deepcopy(draw(st.sampled_from(SAMPLES)))
    for _ in range(draw(st.integers(0, 3))):
        options = [p for p in paths(state) if p]
        path = draw(st.sampled_from(options))
        parent = state
        for key in path[:-1]:
            parent = parent[key]
        how = draw(st.sampled_from(["delete", "any", "same", "same", "subclass"]))
        if how == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif how == "any":
            parent[path[-1]] = draw(json_values)
        elif how == "subclass":
            parent[path[-1]] = draw(_subclassed(parent[path[-1]]))
        else:
            parent[path[-1]] = draw(_same_kind(parent[path[-1]]))
    return state


def _msgspec_path(exc: msgspec.ValidationError) -> str:
    """``$.players[0].hand[3]`` as the referee writes it: ``players.0.hand.3``.

    A missing or unknown field's own name is added; ``*`` stands for a dict key msgspec does not name.
    """
    message, _, where = str(exc).partition(" - at `$")
    path = where.rstrip("`").replace("[...]", ".*")
    path = re.sub(r"\[(\d+)\]", r".\1", path)
    named = re.match(r"Object (?:missing required|contains unknown) field `(.*)`$", message)
    return (path + "." + named[1] if named else path).lstrip(".")


def _inside(path: str, reported: dict) -> bool:
    """Whether ``path`` is a reported path or lies inside one (a value reported as a whole)."""
    segments = path.split(".")
    for p in reported:
        given = p.split(".") if p else []
        if len(given) <= len(segments) and all(s in ("*", g) for s, g in zip(segments, given)):
            return True
    return False


@settings(max_examples=400, deadline=None)
@given(mutated_states())
def test_the_fast_path_accepts_exactly_what_the_explanation_finds_no_fault_with(raw):
    reported = explain(raw, State)
    try:
        msgspec.convert(plain_input(raw), State)  # str subclasses as the strings they spell, as the reader does
    except msgspec.ValidationError as exc:
        assert reported, f"msgspec refused ({exc}) what the explanation accepts"
        assert _inside(_msgspec_path(exc), reported), (str(exc), reported)
    else:
        assert reported == {}


@settings(max_examples=400, deadline=None)
@given(mutated_states())
def test_a_state_is_refused_with_the_explanation_or_read_into_a_copy(raw):
    """The one reading of a state (check_state): a malformed state is refused with exactly what the
    explanation finds; an inconsistent one only when the explanation finds nothing; an accepted one is
    well formed and read into a new copy that reads as itself."""
    try:
        checked = check_state(CATALOG, raw)
    except InconsistentState:
        assert explain(raw, State) == {}
    except InvalidInput as exc:
        assert exc.errors == InvalidInput(explain(raw, State)).under("state").errors
    else:
        assert explain(raw, State) == {}
        assert checked is not raw and check_state(CATALOG, checked) == checked  # normalised: a fixed point


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["type", "player", "card", "case", "fairy", "ability", "targets", "cards", "pay", "x"]),
        json_values
        | st.sampled_from(["draw", "use_ability", "discard", 0, 1])
        | st.builds(_Text, st.sampled_from(["a", "draw"]))
        | st.builds(_Number, st.integers(0, 1))
        | st.lists(st.sampled_from(["a", "b"]), max_size=2),
        max_size=6,
    )
)
def test_actions_are_read_the_same_way(raw):
    try:
        msgspec.convert(raw, Action)
    except msgspec.ValidationError:
        try:
            parse_action(raw)
        except InvalidInput as exc:
            assert exc.errors
        else:  # only a null targets is read by the explanation and not by msgspec
            raise AssertionError(raw)
    else:
        assert parse_action(raw)["type"] == raw["type"]


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["type", "player", "pay", "card"]),
        st.sampled_from(
            ["end_turn", "pass", "keep", "draw", "discard", "fly", "", 0, 1, 2, -1, True, False, 0.0, None, ["a"]]
        ),
        min_size=1,
        max_size=3,
    )
)
def test_an_action_with_no_fields_is_read_as_the_model_reads_it(raw):
    """parse_action reads {type, player} (and near misses) exactly as the model does, or refuses it."""
    try:
        careful = orjson.dumps(msgspec.to_builtins(msgspec.convert(raw, Action)))
    except msgspec.ValidationError:
        careful = None
    try:
        fast = orjson.dumps(parse_action(raw))
    except InvalidInput:
        fast = None
    assert fast == careful


def test_every_ordinary_state_is_taken_as_it_is():
    assert any(s["pending"] for s in SAMPLES)
    for state in SAMPLES:
        assert check_state(CATALOG, state) == state


def test_defaults_are_filled_in_the_order_of_the_model():
    state = copy.deepcopy(SAMPLES[0])
    del state["players"][1]["name"], state["options"], state["modifiers"]
    parsed = check_state(CATALOG, state)
    assert next(iter(parsed["players"][1])) == "name" and parsed["players"][1]["name"] == "Player 2"
    assert parsed["options"] == {"response_windows": "auto"} and parsed["modifiers"] == []
    assert list(parsed) == [k for k in State.__struct_fields__ if k in parsed]


def test_a_bad_value_deep_in_a_player_is_reported_at_its_path():
    state = copy.deepcopy(SAMPLES[0])
    state["players"][0]["cases"].append({"card": "", "face_up": 1, "actioned": False})
    j = len(state["players"][0]["cases"]) - 1
    assert explain(state, State) == {
        f"players.0.cases.{j}.card": ["must be a card instance id"],
        f"players.0.cases.{j}.face_up": ["must be true or false"],
    }


def test_given_str_subclasses_in_an_action_and_a_state_when_read_then_they_are_the_strings_they_spell():
    """A caller's strings may be a subclass of ``str`` (numpy's ``str_``, say): msgspec reads them and the
    copy the rules work on holds plain ``str`` (no TypeError from the copy)."""
    action = parse_action({"type": "play_case", "player": _Number(0), "card": _Text("a07")})
    assert action == {"type": "play_case", "player": 0, "card": "a07"}
    assert type(action["card"]) is str and type(action["player"]) is int
    state = copy.deepcopy(SAMPLES[0])
    state["seed"], state["players"][0]["hand"][0] = _Text(state["seed"]), _Text(state["players"][0]["hand"][0])
    parsed = check_state(CATALOG, state)
    assert parsed == SAMPLES[0]
    assert type(parsed["seed"]) is str and type(parsed["players"][0]["hand"][0]) is str


def test_given_a_str_subclass_in_cards_when_a_session_snapshots_then_the_copy_is_plain():
    """check_state copies ``cards`` as given (its values are checked, not rewritten), so a session's own
    copy must take a str subclass too."""
    from referee.engine import Session

    state = copy.deepcopy(SAMPLES[0])
    iid = next(iter(state["cards"]))
    state["cards"][iid] = _Text(state["cards"][iid])
    snapshot = Session.from_state(CATALOG, state).snapshot()
    assert snapshot == SAMPLES[0] and type(snapshot["cards"][iid]) is str


@pytest.mark.parametrize(
    ("bend", "path", "message"),
    [
        ("value 0", "state.cards.{iid}", "must map a non-empty instance id to a catalog id string"),
        ("value None", "state.cards.{iid}", "must map a non-empty instance id to a catalog id string"),
        ("value list", "state.cards.{iid}", "must map a non-empty instance id to a catalog id string"),
        ("empty key", "state.cards.", "must map a non-empty instance id to a catalog id string"),
        ("not an object", "state.cards", "must be an object mapping instance ids to catalog ids"),
    ],
)
def test_given_an_odd_entry_of_cards_then_the_state_is_malformed_with_the_models_words(bend, path, message):
    """The reading copies ``cards`` for RULES 13.1's check to judge (parse.read_state); a client still reads
    a shape error at the entry's path, never an inconsistency, whatever the check tripped over."""
    state = copy.deepcopy(SAMPLES[0])
    iid = next(iter(state["cards"]))
    if bend == "empty key":
        state["cards"][""] = state["cards"].pop(iid)
    elif bend == "not an object":
        state["cards"] = list(state["cards"])
    else:
        state["cards"][iid] = {"value 0": 0, "value None": None, "value list": ["a"]}[bend]
    with pytest.raises(InvalidInput) as caught:
        check_state(CATALOG, state)
    assert type(caught.value) is InvalidInput
    assert caught.value.errors == {path.format(iid=iid): [message]}
