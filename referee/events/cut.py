"""The top cut (RULES 15.6): single elimination among the first 2, 4 or 8 of the Swiss standings."""

from __future__ import annotations

from referee.events.document import Event, Result, Round
from referee.events.rules import rule
from referee.events.scoring import winner_side

# The first round of a cut by seed (1-based): the winners of tables 1 and 2 meet next, then 3 and 4's.
BRACKETS = {2: ((1, 2),), 4: ((1, 4), (2, 3)), 8: ((1, 8), (4, 5), (2, 7), (3, 6))}

Slot = int | None  # a player in the bracket, or no one (a seed nobody holds, a winner who dropped)


@rule("15.6")
def cut_size(event: Event, active: int) -> int:
    """The cut the event plays: its own, or, when fewer players are left in the event than it names, the
    largest of 8, 4 and 2 they fill (0: none; docs/events.md)."""
    if event.cut <= active:
        return event.cut
    return next((size for size in (8, 4, 2) if size <= active), 0)


def cut_rounds_needed(size: int) -> int:
    return {0: 0, 2: 1, 4: 2, 8: 3}[size]


@rule("15.6")
def next_cut_round(seeds: list[int], played: tuple[Round, ...], best_of: int, dropped: set[int]) -> list[Slot]:
    """The next cut round as a list of slots, two a match in table order, the higher-placed first.

    ``seeds``: the cut's players in standings order. The first round follows the bracket; each later one
    pairs the winners of tables 1 and 2, 3 and 4... of the round before. A player who dropped leaves an
    empty slot: the other has a bye."""
    place = {p: i for i, p in enumerate(seeds)}
    if not played:
        slots: list[Slot] = [seeds[s - 1] for pair in BRACKETS[len(seeds)] for s in pair]
    else:
        winners = [_advances(p.players, p.result, best_of) for p in played[-1].pairings]
        slots = []
        for a, b in zip(winners[::2], winners[1::2], strict=True):
            first, second = sorted((a, b), key=lambda p: place[p])
            slots += [first, second]
    return [None if s is not None and s in dropped else s for s in slots]


def _advances(players: tuple[int, ...], result: Result | None, best_of: int) -> int:
    """Who goes on from a cut pairing: a bye's player, or the match's winner (its result is in)."""
    if len(players) == 1 or result is None:
        return players[0]
    return players[winner_side(result, best_of)]


def cut_winner(event: Event, size: int) -> int | None:
    """The winner of the cut's final (of a cut of ``size``), once its result is in."""
    rounds = event.cut_rounds
    if not size or len(rounds) < cut_rounds_needed(size) or not rounds[-1].pairings:
        return None
    final = rounds[-1].pairings[0]
    if final.bye:
        return final.players[0]
    return None if final.result is None else final.players[winner_side(final.result, event.best_of)]
