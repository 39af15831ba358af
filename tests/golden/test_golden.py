"""Replays every golden playthrough and compares it exactly (regenerate with ``make golden``)."""

from __future__ import annotations

import orjson
import pytest

from referee.engine import Catalog

from .playthrough import GAMES, path_for, record, transcript

CATALOG = Catalog.builtin()


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough_replays_exactly(name):
    """RULES 13.2: the same game gives the same states and events, step by step."""
    pinned = orjson.loads(path_for(name).read_bytes())
    assert pinned["catalog"] == CATALOG.ref, "catalog changed: run `make golden` if deliberate"
    actions = [s["action"] for s in pinned["steps"]]
    replayed = transcript(CATALOG, name, pinned["game"], actions)
    for i, (want, got) in enumerate(zip(pinned["steps"], replayed["steps"])):
        assert got == want, f"{name}: step {i} ({want['action']}) differs"
    assert replayed["final"] == pinned["final"]
    assert pinned["final"]["phase"] == "over", "a golden playthrough is a whole game"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough_is_what_the_seed_plays(name):
    """The random player with the pinned seed still plays the pinned game (deterministic dealing and choice)."""
    pinned = orjson.loads(path_for(name).read_bytes())
    assert record(CATALOG, name)["steps"] == pinned["steps"]
