"""Replays every golden playthrough and compares it exactly (regenerate with ``make golden``)."""

from __future__ import annotations

import orjson
import pytest

from referee.engine import Catalog

from .playthrough import GAMES, path_for, record, transcript

CATALOG = Catalog.builtin()


def first_difference(want, got, path: str = "") -> str:
    """The first field where ``got`` differs from ``want``, e.g. ``state.players.0.hand.3: 'a1' != 'a2'``."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in [*want, *(k for k in got if k not in want)]:
            if want.get(key, _ABSENT) != got.get(key, _ABSENT):
                return first_difference(want.get(key, _ABSENT), got.get(key, _ABSENT), f"{path}.{key}".lstrip("."))
    if isinstance(want, list) and isinstance(got, list):
        for i, (w, g) in enumerate(zip(want, got)):
            if w != g:
                return first_difference(w, g, f"{path}.{i}".lstrip("."))
        if len(want) != len(got):
            return f"{path}: {len(want)} items pinned, {len(got)} replayed"
    return f"{path or '(the whole value)'}: pinned {want!r}, replayed {got!r}"


_ABSENT = "<absent>"


def test_a_mismatch_names_the_first_differing_field():
    pinned = {"state": {"players": [{"hand": ["a1", "a2"]}], "turn": 3}}
    replayed = {"state": {"players": [{"hand": ["a1", "b9"]}], "turn": 4}}
    assert first_difference(pinned, replayed) == "state.players.0.hand.1: pinned 'a2', replayed 'b9'"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough_replays_exactly(name):
    """RULES 13.2: the same game gives the same states and events, step by step."""
    pinned = orjson.loads(path_for(name).read_bytes())
    assert pinned["catalog"] == CATALOG.ref, "catalog changed: run `make golden` if deliberate"
    actions = [s["action"] for s in pinned["steps"]]
    replayed = transcript(CATALOG, name, pinned["game"], actions)
    for i, (want, got) in enumerate(zip(pinned["steps"], replayed["steps"])):
        assert got == want, f"{name}: step {i} ({want['action']}) differs: {first_difference(want, got)}"
    assert replayed["final"] == pinned["final"], first_difference(pinned["final"], replayed["final"])
    assert pinned["final"]["phase"] == "over", "a golden playthrough is a whole game"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough_is_what_the_seed_plays(name):
    """The random player with the pinned seed still plays the pinned game (deterministic dealing and choice)."""
    pinned = orjson.loads(path_for(name).read_bytes())
    assert record(CATALOG, name)["steps"] == pinned["steps"]
