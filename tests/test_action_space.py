"""The action space (referee/bots/actions.py): every listed action has an index of its own, on two catalogs.

Over random play, at every decision: the map from the actor's listed legal actions to indices is one-to-one,
every index is inside the space, and back from an index the action is the one listed.
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.bots.actions import ActionSpace
from referee.engine import Catalog, Session
from referee.engine.playout import random_new_game

BUILTIN = Catalog.builtin()


def erratum(**changes: dict) -> Catalog:
    data = copy.deepcopy(BUILTIN.canonical)
    for card in data["cards"]:
        card.update(changes.get(card["id"], {}))
    return Catalog.from_data(data)


# The test catalog: cards with two targeted effects (a fairy and a case; a card of the trash and a fairy),
# two abilities on one fairy, and a name limited to one copy, so every kind of coordinate is exercised.
TEST_CATALOG = erratum(
    **{
        "AF-063": {"effect": [{"power": 2, "target": "fairy"}, {"ready": 1}]},
        "AF-060": {"effect": [{"recover": "any"}, {"bounce": "fairy"}]},
        "AF-001": {"deck_limit": 1},
    }
)
CATALOGS = {"builtin": BUILTIN, "test": TEST_CATALOG}
PLAY = settings(max_examples=5, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def test_the_test_catalog_has_multi_target_cards():
    targeted = [sum(e.targeted for e in c.effect) for c in TEST_CATALOG.cards.values()]
    assert max(targeted) == 2


def check_every_decision(catalog: Catalog, seed: int, strict: bool, max_steps: int = 600) -> int:
    space = ActionSpace(catalog)
    options = {"options": {"response_windows": "strict"}} if strict else {}
    session, _ = Session.new(catalog, random_new_game(catalog, f"space-{seed}", **options))
    rng = random.Random(seed)
    checked = 0
    for _ in range(max_steps):
        if session.over:
            break
        seat = session.board.who_acts()
        listed = session.legal_actions(seat)
        by_index = space.legal(listed, session.view(seat))  # raises on two actions sharing an index
        assert len(by_index) == len(listed)
        assert all(0 <= i < space.n for i in by_index)
        assert sorted(map(repr, by_index.values())) == sorted(map(repr, listed))
        checked += len(listed)
        playable = [a for a in listed if a["type"] != "concede"] or listed
        session.apply(rng.choice(playable))
    return checked


@pytest.mark.parametrize("name", sorted(CATALOGS))
@PLAY
@given(seed=st.integers(0, 10**6), strict=st.booleans())
def test_every_listed_action_has_its_own_index(name, seed, strict):
    assert check_every_decision(CATALOGS[name], seed, strict) > 0


def test_targets_of_one_card_are_told_apart():
    """A spell with several legal targets: one index per target, where the old space had one for all."""
    found = 0
    for seed in range(40):
        space = ActionSpace(BUILTIN)
        session, _ = Session.new(BUILTIN, random_new_game(BUILTIN, f"targets-{seed}"))
        rng = random.Random(seed)
        while not session.over and found < 3:
            seat = session.board.who_acts()
            listed = session.legal_actions(seat)
            targeted = [a for a in listed if a.get("targets")]
            heads = {(a["type"], a["card"]) for a in targeted}
            if any(sum((a["type"], a["card"]) == h for a in targeted) > 1 for h in heads):
                indices = space.legal(listed, session.view(seat))
                assert len(indices) == len(listed)
                found += 1
            session.apply(rng.choice([a for a in listed if a["type"] != "concede"] or listed))
        if found >= 3:
            return
    pytest.fail("no position with two targets of one card in 40 games")


def test_the_layout_depends_on_the_catalog_alone():
    assert ActionSpace(BUILTIN).describe() == ActionSpace(erratum()).describe()
    assert ActionSpace(BUILTIN).n != ActionSpace(TEST_CATALOG).n
