"""Seeded random decks and random legal play: for property tests, benchmarks and ``referee record``.

Deterministic: the same seed gives the same decks, the same choices and the
same game on every machine (the choices draw on :class:`SeededStream`, not on
Python's ``random``).
"""

from __future__ import annotations

from typing import Any, Iterator

from referee.engine.board import Game
from referee.engine.catalog import Catalog
from referee.engine.game import actions_for, step
from referee.engine.setup import SeededStream, new_game
from referee.engine.state import DECK_SIZE


def random_deck(catalog: Catalog, stream: SeededStream) -> list[str]:
    """A legal 40-card deck: copies drawn at random within each name's limit (RULES 3)."""
    names: dict[str, list[str]] = {}
    for card in catalog.cards.values():
        if card.kind != "bonus":
            names.setdefault(card.name, []).append(card.id)
    room = {name: min(catalog[c].deck_limit for c in ids) for name, ids in names.items()}
    deck: list[str] = []
    pool = sorted(names)
    while len(deck) < DECK_SIZE and pool:
        name = pool[stream.below(len(pool))]
        ids = names[name]
        deck.append(ids[stream.below(len(ids))])
        room[name] -= 1
        if room[name] == 0:
            pool.remove(name)
    return deck


def choose(actions: list[dict[str, Any]], stream: SeededStream) -> dict[str, Any]:
    """A random action, conceding only when nothing else is legal."""
    playable = [a for a in actions if a["type"] != "concede"] or actions
    return playable[stream.below(len(playable))]


def random_new_game(catalog: Catalog, seed: str, **options: Any) -> dict[str, Any]:
    stream = SeededStream("decks:" + seed)
    return {"decks": [random_deck(catalog, stream), random_deck(catalog, stream)],
            "seed": seed, **options}


def play(catalog: Catalog, seed: str, max_actions: int = 5000,
         **options: Any) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """Play a random game from ``seed``; yields (state before, action) for each action."""
    state, _ = new_game(catalog, random_new_game(catalog, seed, **options))
    stream = SeededStream("choices:" + seed)
    g = Game(catalog, state)
    for _ in range(max_actions):
        if g.over:
            return
        action = choose(actions_for(g), stream)
        yield state, action
        g.events = []
        step(g, action)
