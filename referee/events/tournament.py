"""The event's three questions, each one pure call (a JSON document in, a JSON-able answer out): the next
round (:func:`pair`), the standings and ratings (:func:`standings`), and the check of every round
(:func:`check`); and a new document (:func:`new_event`). docs/api.md §17, RULES 15."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.events.cut import cut_rounds_needed, cut_size, cut_winner, next_cut_round
from referee.events.document import Event, read_event
from referee.events.glicko import Rating, update
from referee.events.pairing import Pairs, first_round, pair_round
from referee.events.rules import EventRefusal, rule
from referee.events.scoring import (
    Standing,
    Tally,
    check_result,
    four_places,
    ranked,
    seeded_order,
    tally,
    winner_side,
)


@dataclass(frozen=True, slots=True)
class Field:
    """An event between rounds: its tallies and standings, who has left, and what the next Swiss round's
    pairing needs (the players still in, in standings order; their points, opponents met and byes)."""

    tallies: list[Tally]
    rows: list[Standing]
    dropped: set[int]
    order: list[int]
    points: dict[int, int]
    met: dict[int, set[int]]
    byes: dict[int, int]


def field_of(event: Event) -> Field:
    tallies = tally(event)
    rows = ranked(event, tallies)
    dropped = {p for rnd in event.rounds for p in rnd.drops}
    order = [row.player for row in rows if row.player not in dropped]
    met: dict[int, set[int]] = {p: set() for p in range(len(event.ids))}
    for rnd in event.swiss:
        for pairing in rnd.pairings:
            if not pairing.bye:
                a, b = pairing.players
                met[a].add(b)
                met[b].add(a)
    points = {p: t.match_points for p, t in enumerate(tallies)}
    return Field(tallies, rows, dropped, order, points, met, {p: t.byes for p, t in enumerate(tallies)})


@rule("15.2", "round_not_finished")
def check_results(event: Event, last_may_be_open: bool) -> None:
    """Every result a match score, and every round's results in before the next round (the last may be
    open when ``last_may_be_open``)."""
    for r, rnd in enumerate(event.rounds, start=1):
        for t, pairing in enumerate(rnd.pairings, start=1):
            check_result(pairing, event.best_of, r, t)
            if not pairing.bye and pairing.result is None and (r < len(event.rounds) or not last_may_be_open):
                raise EventRefusal(
                    "round_not_finished", f"Round {r} table {t} has no result: it must be in first.", r, t
                )


def swiss_done(event: Event) -> bool:
    return event.swiss_ended or len(event.swiss) >= event.swiss_rounds


def _cut_seeds(event: Event, rows: list[Standing]) -> list[int]:
    """The cut's players: the first in the Swiss standings who had not dropped when the Swiss rounds ended."""
    left_swiss = {p for rnd in event.swiss for p in rnd.drops}
    active = [row.player for row in rows if row.player not in left_swiss]
    return active[: cut_size(event, len(active))]


def pair(document: Any) -> dict[str, Any]:
    """``POST /v1/events/pair``: the event with its next round appended, the round's number and pairings;
    or the Swiss rounds ended (``swiss_ended``) when no pairing without a rematch exists."""
    event = read_event(document)
    check_results(event, last_may_be_open=False)
    field = field_of(event)
    if not swiss_done(event):
        if not event.swiss:
            pairs, bye = first_round(seeded_order(event))
        else:
            found = pair_round(field.order, field.points, field.met, field.byes)
            if found is None:
                return {
                    "event": {**event.document, "swiss_ended": True},
                    "round": None,
                    "pairings": [],
                    "swiss_ended": True,
                }
            pairs, bye = found
        return _appended(event, pairs, [] if bye is None else [bye], cut=False)
    return _pair_cut(event, field)


@rule("15.6", "event_over")
def _pair_cut(event: Event, field: Field) -> dict[str, Any]:
    seeds = _cut_seeds(event, field.rows)
    if len(event.cut_rounds) >= cut_rounds_needed(len(seeds)):
        raise EventRefusal("event_over", "The event is over: its Swiss rounds and its cut are all played.")
    slots = next_cut_round(seeds, event.cut_rounds, event.best_of, field.dropped)
    pairs: Pairs = []
    byes: list[int] = []
    for a, b in zip(slots[::2], slots[1::2], strict=True):
        if a is not None and b is not None:
            pairs.append((a, b))
        elif a is not None or b is not None:
            byes.append(a if a is not None else b)  # type: ignore[arg-type]
    return _appended(event, pairs, byes, cut=True)


def _appended(event: Event, pairs: Pairs, byes: list[int], cut: bool) -> dict[str, Any]:
    ids = event.ids
    pairings: list[dict[str, Any]] = [
        {"table": t, "players": [ids[a], ids[b]]} for t, (a, b) in enumerate(pairs, start=1)
    ]
    pairings += [{"bye": ids[p]} for p in byes]
    new_round: dict[str, Any] = {"pairings": pairings, **({"cut": True} if cut else {})}
    document = {**event.document, "rounds": [*event.document["rounds"], new_round]}
    return {"event": document, "round": len(event.rounds) + 1, "pairings": pairings}


def ratings(event: Event) -> list[Rating]:
    """Every player's rating after each finished round (RULES 15.7): a forfeit and a bye rate nothing."""
    current = [Rating(*start) for start in event.ratings]
    for rnd in event.rounds:
        if any(not p.bye and p.result is None for p in rnd.pairings):
            break  # the round being played: rated once its results are in
        games: list[list[tuple[Rating, float]]] = [[] for _ in current]
        for pairing in rnd.pairings:
            result = pairing.result
            if pairing.bye or result is None or result.games is None:
                continue
            a, b = pairing.players
            first_won = winner_side(result, event.best_of) == 0
            games[a].append((current[b], 1.0 if first_won else 0.0))
            games[b].append((current[a], 0.0 if first_won else 1.0))
        current = [update(rating, played) for rating, played in zip(current, games, strict=True)]
    return current


def standings(document: Any) -> dict[str, Any]:
    """``POST /v1/events/standings``: the standings (RULES 15.4), the ratings (15.7), and the winner once
    there is one."""
    event = read_event(document)
    check_results(event, last_may_be_open=True)
    field = field_of(event)
    ids = event.ids
    rows = [
        {
            "rank": rank,
            "player": ids[row.player],
            "match_points": row.tally.match_points,
            "record": f"{row.tally.wins}-{row.tally.losses}",
            "mw": four_places(row.tally.mw),
            "omw": four_places(row.omw),
            "gw": four_places(row.tally.gw),
            "ogw": four_places(row.ogw),
            "dropped": row.player in field.dropped,
        }
        for rank, row in enumerate(field.rows, start=1)
    ]
    out: dict[str, Any] = {
        "standings": rows,
        "ratings": {
            ids[p]: {"rating": round(r.rating, 2), "rd": round(r.rd, 2), "volatility": round(r.volatility, 6)}
            for p, r in enumerate(ratings(event))
        },
    }
    winner = _winner(event, field)
    if winner is not None:
        out["winner"] = ids[winner]
    return out


def _winner(event: Event, field: Field) -> int | None:
    """The cut final's winner; without a cut, the first in the standings once the last Swiss round is in."""
    if not swiss_done(event) or any(not p.bye and p.result is None for r in event.swiss for p in r.pairings):
        return None
    seeds = _cut_seeds(event, field.rows)
    if seeds:
        return cut_winner(event, len(seeds))
    return field.rows[0].player


def new_event(
    names: Sequence[str], seed: str, best_of: int = 3, cut: int = 0, swiss_rounds: int | None = None
) -> dict[str, Any]:
    """A new event's document: each name a player (its id), no round yet; read back to check it."""
    document: dict[str, Any] = {"seed": seed, "best_of": best_of, "cut": cut, "players": [], "rounds": []}
    document["players"] = [{"id": name} for name in names]
    if swiss_rounds is not None:
        document["swiss_rounds"] = swiss_rounds
    read_event(document)
    return document


def prefix(event: Event, rounds: int) -> Event:
    """The event as it was before round ``rounds + 1``."""
    return dataclasses.replace(event, rounds=event.rounds[:rounds])
