"""The generated TypedDicts must not drift (``make state-types``): the engine's ``state_types.py`` (from the
model), its ``event_types.py`` (from the events' schemas) and the client's own ``types.py`` (both, since the
client imports only itself); and they say what the engine really gives: a view's keys, each event's keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.engine import model
from referee.engine.model_doc import TYPED_DICTS, typed_dicts_source
from referee_schemas.typed import client_types_source, event_types_source

ROOT = Path(__file__).resolve().parent.parent
GENERATED = ROOT / "referee" / "engine" / "state_types.py"


def _formatted(source: str) -> str:
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", "generated.py", "-"],
        input=source,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.mark.parametrize(
    "path, source",
    [
        ("referee/engine/state_types.py", typed_dicts_source),
        ("referee/engine/event_types.py", event_types_source),
        ("referee/client/types.py", client_types_source),
    ],
)
def test_given_the_model_and_the_event_schemas_then_the_typed_dicts_are_generated_from_them(path, source):
    assert (ROOT / path).read_text(encoding="utf-8") == _formatted(source()), f"{path} drifted: run `make state-types`"


def test_given_every_event_type_then_its_typed_dict_has_the_schema_fields_and_its_type():
    import typing

    from referee.engine import event_types
    from referee_schemas.events import EVENTS
    from referee_schemas.typed import event_class

    members = typing.get_args(event_types.EventDict)
    assert [m.__name__ for m in members] == [event_class(kind) for kind in EVENTS]
    for kind, (_, _, makers) in EVENTS.items():
        typed = getattr(event_types, event_class(kind))
        assert set(typed.__annotations__) == {"type", *makers}
        assert required(typed) == {"type"} | {name for name, make in makers.items() if make().required}


def required(typed: type) -> set[str]:
    """The keys a TypedDict requires (``__required_keys__`` cannot see ``NotRequired`` in a module's string
    annotations before Python 3.13)."""
    import typing

    hints = typing.get_type_hints(typed, include_extras=True)
    return {k for k, hint in hints.items() if typing.get_origin(hint) is not typing.NotRequired}


def _played(catalog, seed: str, clock: bool):
    """A random game's session, some way in (with a clock: its view shows one)."""
    from referee.engine import Session
    from referee.engine.playout import random_action, random_new_game
    from referee.engine.setup import SeededStream

    game = random_new_game(catalog, seed)
    if clock:
        game["clock"] = {"initial": 600, "increment": 5}
    session, dealt = Session.new(catalog, game)
    events = list(dealt)
    stream = SeededStream(seed)
    for _ in range(40):
        if session.over:
            break
        events += session.apply_parsed(random_action(session.board, stream)).events
    return session, events


@pytest.mark.parametrize("clock", [False, True])
def test_given_a_view_then_it_has_exactly_the_keys_view_dict_names(clock):
    from referee.engine import Catalog, ClockViewDict, ViewDict, ViewPlayerDict

    session, _ = _played(Catalog.builtin(), "typed-view", clock)
    for seat in (0, 1, None):
        view = session.view(seat)
        assert required(ViewDict) <= set(view) <= set(ViewDict.__annotations__)
        for pl in view["players"]:
            assert required(ViewPlayerDict) <= set(pl) <= set(ViewPlayerDict.__annotations__)
        if clock:
            assert set(view["clock"]) == set(ClockViewDict.__annotations__)


def test_given_the_events_of_a_game_then_each_has_the_keys_of_its_typed_dict():
    from referee.engine import Catalog, event_types
    from referee_schemas.typed import event_class

    _, events = _played(Catalog.builtin(), "typed-events", False)
    assert len({e["type"] for e in events}) > 3
    for event in events:
        typed = getattr(event_types, event_class(event["type"]))
        assert required(typed) <= set(event) <= set(typed.__annotations__), event


def test_given_every_struct_of_the_state_then_it_has_its_typed_dict():
    from referee.engine import state_types

    reachable = {model.State, model.PlayerState, model.Pending, model.Result, model.Options, model.CatalogRef}
    reachable |= {model.FormatRef}
    reachable |= {model.CaseEntry, model.FairyEntry, model.EvidenceEntry, model.Modifier, model.Used}
    reachable |= {model.Clock, model.Match}
    assert set(TYPED_DICTS) == reachable
    for struct, name in TYPED_DICTS.items():
        typed = getattr(state_types, name)
        assert set(typed.__annotations__) == {f.encode_name for f in model.fields(struct)}
