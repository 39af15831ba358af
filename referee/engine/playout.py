"""Seeded random decks and random legal play: for property tests, benchmarks and ``referee record``.

Deterministic: the same seed gives the same decks, the same choices and the
same game on every machine (the choices draw on :class:`SeededStream`, not on
Python's ``random``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from referee.engine.actions import passes
from referee.engine.board import Board
from referee.engine.cards import name_key
from referee.engine.catalog import Catalog
from referee.engine.facts import DECK_SIZE
from referee.engine.pipeline import open_rules
from referee.engine.session import Session
from referee.engine.setup import Played, SeededStream
from referee.engine.state_types import ActionDict, StateDict


def random_deck(catalog: Catalog, stream: SeededStream, played: Played | None = None) -> list[str]:
    """A legal 40-card deck: copies drawn at random within each name's limit (RULES 3); with ``played``, of
    the series the format allows (3.6), no name its revision bans (3.7), within its restrictions (3.8).
    Shorter than 40 where the cards allowed are too few (then not legal: the caller checks)."""
    fmt, revision = played if played is not None else (None, None)
    names: dict[str, list[str]] = {}
    for card in catalog.cards.values():
        if card.kind != "bonus" and (fmt is None or fmt.allows(card.series)):
            names.setdefault(name_key(card.name), []).append(card.id)  # one name as RULES 3.2.1 reads it
    if revision is not None:
        names = {name: ids for name, ids in names.items() if name not in revision.banned}
    room = {name: catalog.name_limit(name) for name in names}
    if revision is not None:
        room = {name: min(n, revision.restricted.get(name, n)) for name, n in room.items()}
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
    """A random action of a ``legal_actions`` list, conceding only when nothing else is legal."""
    playable = [a for a in actions if a["type"] != "concede"] or actions
    if playable[0]["type"] in ("mulligan", "keep") and stream.below(4):
        return next(a for a in playable if a["type"] == "keep")  # keep 3 times in 4
    return playable[stream.below(len(playable))]


def random_action(g: Board, stream: SeededStream) -> ActionDict:
    """A random legal action without listing them all: a random open type, then a random legal candidate.

    Not uniform over legal actions (each open type is equally likely), but
    several times cheaper than ``legal_actions``, and every action it returns
    is legal. Concedes only when nothing else is.
    """
    actor = g.who_acts()
    rules = list(open_rules(g, actor))
    if rules and rules[0].type == "mulligan" and stream.below(4):
        rules = rules[1:]  # keep 3 times in 4
    free = len(g.unactioned_cases(actor))
    while rules:
        rule = rules.pop(stream.below(len(rules)))
        candidates = list(rule.candidates(g, actor))
        while candidates:
            a = candidates.pop(stream.below(len(candidates)))
            if passes(g, rule, a, free):
                return a
    return {"type": "concede", "player": actor}


def random_new_game(catalog: Catalog, seed: str, **options: Any) -> dict[str, Any]:
    stream = SeededStream("decks:" + seed)
    return {"decks": [random_deck(catalog, stream), random_deck(catalog, stream)], "seed": seed, **options}


def play(
    catalog: Catalog, seed: str, max_actions: int = 5000, **options: Any
) -> Iterator[tuple[StateDict, ActionDict]]:
    """Play a random game from ``seed``; yields (state before, action) for each action.

    The state is updated in place after each yield: copy it to keep it.
    """
    session, _ = Session.new(catalog, random_new_game(catalog, seed, **options))
    stream = SeededStream("choices:" + seed)
    for _ in range(max_actions):
        if session.over:
            return
        action = random_action(session.board, stream)
        yield session.state, action
        session.apply_parsed(action)


def play_out(
    catalog: Catalog, seed: str, max_actions: int = 5000, **options: Any
) -> tuple[dict[str, Any], StateDict, list[ActionDict]]:
    """A whole random game: (NewGame, final state, actions in order)."""
    game = random_new_game(catalog, seed, **options)
    session, _ = Session.new(catalog, game)
    stream = SeededStream("choices:" + seed)
    actions: list[ActionDict] = []
    while not session.over and len(actions) < max_actions:
        action = random_action(session.board, stream)
        actions.append(action)
        session.apply_parsed(action)
    return game, session.state, actions
