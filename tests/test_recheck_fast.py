"""``referee recheck`` in-process plays each game on the engine's own states without checking each one
(as ``/v1/replay`` does), checks the state it ends on, and falls back to checking before every action
when that fails: the verdicts are those of the careful play.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from referee.engine import Catalog
from referee.scenarios.archive import line_for, parse_line
from referee.scenarios.backends import InProcess, Refusal
from referee.scenarios.recheck import _played, outcome_of, recheck_line
from referee.scenarios.record import record
from referee.scenarios.runner import execute

CATALOG = Catalog.builtin()


def _erratum(**changes: dict[str, Any]) -> Catalog:
    data = copy.deepcopy(CATALOG.canonical)
    for card in data["cards"]:
        card.update(changes.get(card["id"], {}))
    return Catalog.from_data(data)


# Catalogs under which recorded games change: outcomes and legality mid-game (Flash of Insight draws
# 40: deck-outs, and the actions after them refused), legality of the game itself (a deck limit of 1
# on two cards refuses the decks that hold two copies, RULES 3.2).
CATALOGS = [
    CATALOG,
    _erratum(**{"AF-060": {"effect": [{"draw": 40}]}}),
    _erratum(**{"AF-001": {"deck_limit": 1}, "AF-002": {"deck_limit": 1}}),
]
LINES = [
    line_for(f"fast-{i}", CATALOG, rec.game, rec.actions, rec.state)
    for i in range(12)
    for rec in [record(CATALOG, f"fast-{i}")]
]


def _verdict(ex) -> tuple:
    return (ex.at, outcome_of(ex), ex.refusal and ex.refusal.code, ex.ref_error, ex.state)


@pytest.mark.parametrize("catalog", CATALOGS, ids=["same", "draw-40", "deck-limit-1"])
def test_each_game_plays_as_it_does_checking_every_state(catalog):
    """Given recorded games and a catalog, when each is played again the fast way and the careful way,
    then both stop at the same action, with the same refusal, outcome and state."""
    backend = InProcess(catalog)
    for number, raw in enumerate(LINES, 1):
        scenario = parse_line("games.jsonl", number, raw).scenario
        assert _verdict(_played(scenario, backend)) == _verdict(execute(scenario, backend))


class _Counting(InProcess):
    """An in-process backend that counts the actions it plays checking each state, and whose trusting
    play can put a card in two places after the 5th action (standing in for an engine bug)."""

    def __init__(self, catalog: Catalog, corrupt: bool):
        super().__init__(catalog)
        self.corrupt = corrupt
        self.careful_actions = 0

    def apply(self, session, action):
        self.careful_actions += 1
        return super().apply(session, action)

    def trusting(self) -> InProcess:
        corrupt = self.corrupt

        class Trusting(InProcess):
            def apply(self, session, action):
                events = super().apply(session, action)
                state = session.game.state
                if corrupt and state["seq"] == 5:
                    state["players"][0]["trash"].append(state["players"][1]["file"][0])
                return events

        return Trusting(self.catalog, check_each_state=False)


def test_a_game_whose_state_stays_consistent_is_played_once_without_checking_each_state():
    backend = _Counting(CATALOG, corrupt=False)
    verdict = recheck_line(backend, "games.jsonl", 1, LINES[0])
    assert (verdict.status, backend.careful_actions) == ("unchanged", 0)


def test_a_game_that_ends_on_an_inconsistent_state_is_played_again_checking_each_state():
    """Given a trusting play that leaves a card in two places (RULES 13.1), when the game is rechecked,
    then the state it ends on is refused, and the game is played again checking the state before each
    action: its verdict (the game as recorded: the careful play has no such bug) is the one given."""
    backend = _Counting(CATALOG, corrupt=True)
    scenario = parse_line("games.jsonl", 1, LINES[0]).scenario
    ended = execute(scenario, backend.trusting())
    with pytest.raises(Refusal, match="41 cards"):
        backend.refuse_inconsistent(ended.state)
    verdict = recheck_line(backend, "games.jsonl", 1, LINES[0])
    assert backend.careful_actions == len(scenario.when)
    assert verdict.status == "unchanged"
