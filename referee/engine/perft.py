"""Golden counts (perft): how many distinct action sequences lead from a position to a given depth.

As chess engines count move paths to check their move generators against each
other, ``perft(catalog, state, n)`` counts the sequences of ``n`` actions that
``legal_actions`` lists, one after the other, from ``state``: response windows
included (``pass`` and each counter are actions), shuffles drawn as the state's
seed decides, ``pay`` left to the rules' default, an end-step ``discard``
counted once (docs/api.md §6 lists it once). A game that ends before depth
``n`` adds nothing. docs/perft.md publishes counts that another implementation
of these rules can check itself against.

>>> cat = Catalog.builtin()
>>> perft(cat, opening(cat), 1)  # mulligan, keep, and either player's concede
4
"""

from __future__ import annotations

from typing import Any

from referee.engine.catalog import Catalog
from referee.engine.parse import plain_copy
from referee.engine.playout import random_new_game
from referee.engine.session import Session
from referee.engine.setup import new_game
from referee.engine.state import check_state
from referee.engine.state_types import ActionDict

OPENING_SEED = "perft"


def opening_game(catalog: Catalog) -> dict[str, Any]:
    """The NewGame of the default position: the seed ``perft``'s random decks, as counts in card-id order."""
    game = random_new_game(catalog, OPENING_SEED)
    game["decks"] = [{cid: deck.count(cid) for cid in sorted(set(deck))} for deck in game["decks"]]
    game["players"] = ["Aoi", "Ren"]
    return game


def opening(catalog: Catalog) -> dict[str, Any]:
    """The default position: the deal of :func:`opening_game` (docs/perft.md's ``opening.afr``)."""
    return new_game(catalog, opening_game(catalog))[0]


def perft(catalog: Catalog, state: Any, depth: int) -> int:
    """The number of legal action sequences of length ``depth`` from ``state`` (checked once, RULES 13.1)."""
    if depth < 0:
        raise ValueError("depth is 0 or more")
    return _count(catalog, check_state(catalog, state), depth)


def divide(catalog: Catalog, state: Any, depth: int) -> list[tuple[ActionDict, int]]:
    """Each legal action now, with the count of sequences of length ``depth`` that start with it."""
    if depth < 1:
        raise ValueError("depth is 1 or more")
    checked = check_state(catalog, state)
    return [(a, _count(catalog, _after(catalog, checked, a), depth - 1)) for a in _actions(catalog, checked)]


def _actions(catalog: Catalog, state: Any) -> list[ActionDict]:
    return Session(catalog, state).legal_actions()


def _after(catalog: Catalog, state: Any, action: ActionDict) -> Any:
    session = Session(catalog, plain_copy(state))
    session.apply(action)
    return session.state


def _count(catalog: Catalog, state: Any, depth: int) -> int:
    if depth == 0:
        return 1
    actions = _actions(catalog, state)
    if depth == 1:
        return len(actions)
    return sum(_count(catalog, _after(catalog, state, a), depth - 1) for a in actions)
