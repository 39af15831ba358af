"""``game.open_rules`` caches which action types are open per (phase, step, window open).

That is right only while every ``ActionRule.allowed`` (and the gates before it)
depends on nothing else for whoever may act; this test enforces it on every
position of two whole games (auto and strict windows), against the uncached
computation.
"""

from __future__ import annotations

import pytest

from referee.engine import Catalog
from referee.engine.actions import RULEBOOK
from referee.engine.board import Game
from referee.engine.game import _open_now, open_rules
from referee.engine.model import ACTION_TYPES
from referee.engine.playout import play

CATALOG = Catalog.builtin()


@pytest.mark.parametrize("windows", ["auto", "strict"])
def test_the_cached_open_types_equal_the_uncached_ones_in_every_position(windows):
    seen = 0
    for state, _ in play(CATALOG, f"open-rules-{windows}", options={"response_windows": windows}):
        g = Game(CATALOG, state)
        actor = g.who_acts()
        uncached = tuple(RULEBOOK[kind] for kind in ACTION_TYPES
                         if kind != "concede" and _open_now(g, RULEBOOK[kind], {"type": kind, "player": actor}))
        assert open_rules(g, actor) == uncached, (state["phase"], state["step"], state["pending"])
        seen += 1
    assert seen > 100
