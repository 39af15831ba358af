"""``pipeline.open_rules`` caches which action types are open per (phase, step, window open): its assumption, enforced.

That is right only while every ``ActionRule.allowed`` (and the gates before it)
depends on nothing else for whoever may act; this test enforces it on every
position of two whole games (auto and strict windows), against the uncached
computation.
"""

from __future__ import annotations

import pytest

from referee.engine import Catalog
from referee.engine.board import Board
from referee.engine.model import ACTION_TYPES
from referee.engine.pipeline import _open_now, open_rules
from referee.engine.playout import play
from referee.engine.rulebook import RULEBOOK

CATALOG = Catalog.builtin()


@pytest.mark.parametrize("windows", ["auto", "strict"])
def test_the_cached_open_types_equal_the_uncached_ones_in_every_position(windows):
    seen = 0
    for state, _ in play(CATALOG, f"open-rules-{windows}", options={"response_windows": windows}):
        g = Board(CATALOG, state)
        actor = g.who_acts()
        uncached = tuple(
            RULEBOOK[kind]
            for kind in ACTION_TYPES
            if kind != "concede" and _open_now(g, RULEBOOK[kind], {"type": kind, "player": actor})
        )
        assert open_rules(g, actor) == uncached, (state["phase"], state["step"], state["pending"])
        seen += 1
    assert seen > 100


class _Reads(dict):
    """A state that records which of its fields are read."""

    def __init__(self, state: dict):
        super().__init__(state)
        self.read: set[str] = set()

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)


@pytest.mark.parametrize("windows", ["auto", "strict"])
def test_the_open_checks_read_nothing_of_the_state_but_the_cache_key_and_who_acts(windows):
    """The cache's assumption, checked where it could break: the checks before ``check`` read the phase, the
    step and the window (the key), who acts (the probe's player is the actor, so that cannot change the
    verdict) and, only for the end step's refusal text, the hand. A check reading any other field fails here."""
    for state, _ in play(CATALOG, f"open-reads-{windows}", options={"response_windows": windows}):
        reads = _Reads(state)
        g = Board(CATALOG, reads)
        actor = g.who_acts()
        reads.read.clear()
        for kind in ACTION_TYPES:
            _open_now(g, RULEBOOK[kind], {"type": kind, "player": actor})
        allowed = {"phase", "step", "pending", "active"} | ({"players"} if state["step"] == "end" else set())
        assert reads.read <= allowed, (state["phase"], state["step"], reads.read - allowed)
