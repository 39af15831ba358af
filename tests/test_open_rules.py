"""``pipeline.open_rules`` caches which action types are open per (phase, step, window open): its assumption, enforced.

That is right only while every ``ActionRule.allowed`` (and the gates before it)
depends on nothing else for whoever may act. ``tests/test_shortcuts.py`` compares
the cache with the uncached answer; this test checks the assumption itself, on
every position of two whole games (auto and strict windows), by what the checks read.
"""

from __future__ import annotations

import pytest

from referee.engine import Catalog
from referee.engine.board import Board
from referee.engine.model import ACTION_TYPES
from referee.engine.pipeline import _open_now
from referee.engine.playout import play
from referee.engine.rulebook import RULEBOOK

CATALOG = Catalog.builtin()


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
