"""Results, points and standings: RULES 15.2, 15.3 and 15.4, counted exactly (fractions, never floats)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from fractions import Fraction

from referee.events.document import Event, Pairing, Result
from referee.events.rules import EventRefusal, rule

THIRD = Fraction(1, 3)
MATCH_WIN = 3  # match points of a win (15.3); a loss gives none
GAME_WIN = 3  # game points of a game won


@rule("15.2", "not_a_match_score")
def is_match_score(games: tuple[int, int], best_of: int) -> bool:
    """RULES 15.2: one side won the match's games (2–0 or 2–1 in best of 3...), the other fewer."""
    need = (best_of + 1) // 2
    return max(games) == need and min(games) < need


@rule("15.2")
def games_of(result: Result, best_of: int) -> tuple[int, int]:
    """The games each side won; a forfeit is a loss 0–2 (0–1, 0–3) for the side that forfeits."""
    if result.games is not None:
        return result.games
    need = (best_of + 1) // 2
    return (0, need) if result.forfeit == 0 else (need, 0)


def winner_side(result: Result, best_of: int) -> int:
    """0 or 1: the side that won the match."""
    a, b = games_of(result, best_of)
    return 0 if a > b else 1


def check_result(pairing: Pairing, best_of: int, round_no: int, table: int) -> None:
    """Refuse a result that is not a match score (RULES 15.2)."""
    result = pairing.result
    if result is not None and result.games is not None and not is_match_score(result.games, best_of):
        a, b = result.games
        raise EventRefusal("not_a_match_score", f"{a}–{b} is not a match score in best of {best_of}.", round_no, table)


@dataclass(slots=True)
class Tally:
    """One player's Swiss record so far (RULES 15.3)."""

    match_points: int = 0
    rounds: int = 0  # rounds paired in (with a result) or with a bye
    wins: int = 0
    losses: int = 0
    byes: int = 0
    game_points: int = 0
    games: int = 0  # games played; a bye's count as played and won
    opponents: list[int] = field(default_factory=list)  # every opponent met with a result, byes left out

    @property
    def mw(self) -> Fraction:
        return max(THIRD, Fraction(self.match_points, MATCH_WIN * self.rounds)) if self.rounds else THIRD

    @property
    def gw(self) -> Fraction:
        return max(THIRD, Fraction(self.game_points, GAME_WIN * self.games)) if self.games else THIRD


@rule("15.3")
def tally(event: Event) -> list[Tally]:
    """Every player's points over the Swiss rounds (the cut's results change no standing, 15.6)."""
    tallies = [Tally() for _ in event.ids]
    need = event.wins_needed
    for rnd in event.swiss:
        for pairing in rnd.pairings:
            if pairing.bye:
                _count(tallies[pairing.players[0]], won=True, games=(need, 0), opponent=None)
            elif pairing.result is not None:
                a, b = games_of(pairing.result, event.best_of)
                first, second = pairing.players
                _count(tallies[first], won=a > b, games=(a, b), opponent=second)
                _count(tallies[second], won=b > a, games=(b, a), opponent=first)
    return tallies


def _count(t: Tally, won: bool, games: tuple[int, int], opponent: int | None) -> None:
    t.rounds += 1
    t.games += games[0] + games[1]
    t.game_points += GAME_WIN * games[0]
    if won:
        t.match_points += MATCH_WIN
        t.wins += 1
    else:
        t.losses += 1
    if opponent is None:
        t.byes += 1
    else:
        t.opponents.append(opponent)


def seeded_order(event: Event) -> list[int]:
    """The players in the order drawn from the event's seed (RULES 15.4, 15.5): by SHA-256 of the seed and
    the player's id, the same on every machine and every Python."""

    def draw(i: int) -> bytes:
        return hashlib.sha256(f"{event.seed}\x00{event.ids[i]}".encode()).digest()

    return sorted(range(len(event.ids)), key=draw)


@dataclass(frozen=True, slots=True)
class Standing:
    player: int
    tally: Tally
    omw: Fraction
    ogw: Fraction


def _mean(values: list[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values) if values else THIRD


@rule("15.4")
def ranked(event: Event, tallies: list[Tally] | None = None) -> list[Standing]:
    """Every player (the dropped too, with their results) in the order of RULES 15.4: match points, OMW,
    GW, OGW, then the seed's order; compared exactly."""
    tallies = tally(event) if tallies is None else tallies
    mws = [t.mw for t in tallies]
    gws = [t.gw for t in tallies]
    drawn = {p: i for i, p in enumerate(seeded_order(event))}
    rows = [
        Standing(p, t, _mean([mws[o] for o in t.opponents]), _mean([gws[o] for o in t.opponents]))
        for p, t in enumerate(tallies)
    ]
    rows.sort(key=lambda s: (-s.tally.match_points, -s.omw, -s.tally.gw, -s.ogw, drawn[s.player]))
    return rows


def dropped_players(event: Event) -> set[int]:
    return {p for rnd in event.rounds for p in rnd.drops}


def four_places(rate: Fraction) -> float:
    """A rate for display: rounded to 4 decimal places, exactly (half to even), then a float."""
    return float(round(rate, 4))
