"""The pairing checker (``POST /v1/events/check``): every round of a document against RULES 15.1, 15.2,
15.5 and the cut's 15.6; the first rule broken, with its round and table (a 1-based position in the
round's ``pairings``)."""

from __future__ import annotations

from typing import Any

from referee.events.cut import cut_rounds_needed, next_cut_round
from referee.events.document import Event, Round, read_event
from referee.events.pairing import cost, first_round, pair_round
from referee.events.rules import EventRefusal, rule
from referee.events.scoring import check_result, seeded_order
from referee.events.tournament import Field, _cut_seeds, field_of, prefix


def check(document: Any) -> dict[str, Any]:
    """``{"ok": True}``, or :class:`EventRefusal` naming the first rule a round breaks."""
    event = read_event(document)
    swiss = 0
    for r, rnd in enumerate(event.rounds, start=1):
        before = prefix(event, r - 1)
        field = field_of(before)
        if rnd.cut:
            check_cut_round(before, field, rnd, r)
        else:
            swiss += 1
            check_round_count(event, swiss, r)
            check_everyone_paired(field, rnd, r)
            if swiss == 1:
                check_first_round(before, rnd, r)
            else:
                check_swiss_round(field, rnd, r)
        for t, pairing in enumerate(rnd.pairings, start=1):
            check_result(pairing, event.best_of, r, t)
            if not pairing.bye and pairing.result is None and r < len(event.rounds):
                raise EventRefusal("round_not_finished", f"Round {r} table {t} has no result.", r, t)
    return {"ok": True}


@rule("15.1", "too_many_rounds")
def check_round_count(event: Event, swiss: int, r: int) -> None:
    if swiss > event.swiss_rounds:
        raise EventRefusal(
            "too_many_rounds", f"The event has {event.swiss_rounds} Swiss rounds; round {r} is one more.", r
        )


@rule("15.1", "player_not_paired")
def check_everyone_paired(field: Field, rnd: Round, r: int) -> None:
    paired = {p for pairing in rnd.pairings for p in pairing.players}
    missing = [p for p in field.order if p not in paired]
    if missing:
        raise EventRefusal("player_not_paired", f"A player still in the event is not paired in round {r}.", r)


def _first_difference(actual: list[frozenset[int]], expected: set[frozenset[int]]) -> int:
    return next(t for t, pair in enumerate(actual, start=1) if pair not in expected)


@rule("15.5", "round_one_order")
def check_first_round(event: Event, rnd: Round, r: int) -> None:
    """Round 1 is the seeded order paired in twos (the last has the bye)."""
    pairs, bye = first_round(seeded_order(event))
    expected = {frozenset(p) for p in pairs} | ({frozenset([bye])} if bye is not None else set())
    actual = [frozenset(p.players) for p in rnd.pairings]
    if set(actual) != expected:
        raise EventRefusal(
            "round_one_order",
            "Round 1 is not the event's seeded order paired first with second, third with fourth...",
            r,
            _first_difference(actual, expected),
        )


@rule("15.5", "rematch", "wrong_bye", "pairing_cost")
def check_swiss_round(field: Field, rnd: Round, r: int) -> None:
    """No rematch, the bye where the rule puts it, and no pairing cheaper than the round's."""
    for t, pairing in enumerate(rnd.pairings, start=1):
        if not pairing.bye and pairing.players[1] in field.met[pairing.players[0]]:
            raise EventRefusal("rematch", f"Round {r} table {t} pairs two players who have met.", r, t)
    byes = [(p.players[0], t) for t, p in enumerate(rnd.pairings, start=1) if p.bye]
    best = pair_round(field.order, field.points, field.met, field.byes)
    due = None if best is None else best[1]
    given = byes[0][0] if byes else None
    if len(byes) > 1 or given != due or best is None:
        table = byes[-1][1] if byes else None
        raise EventRefusal("wrong_bye", f"Round {r}'s bye is not the one RULES 15.5 gives.", r, table)
    pairs = [(p.players[0], p.players[1]) for p in rnd.pairings if not p.bye]
    least = cost(best[0], field.points)
    if cost(pairs, field.points) > least:
        table = next(
            (
                t
                for t, p in enumerate(rnd.pairings, start=1)
                if not p.bye and len({field.points[q] for q in p.players}) > 1
            ),
            None,
        )
        raise EventRefusal(
            "pairing_cost",
            f"Round {r}'s pairing costs {cost(pairs, field.points)}; {least} is possible (RULES 15.5).",
            r,
            table,
        )


@rule("15.6", "cut_pairing")
def check_cut_round(event: Event, field: Field, rnd: Round, r: int) -> None:
    """A cut round pairs the bracket of RULES 15.6."""
    seeds = _cut_seeds(event, field.rows)
    if len(event.cut_rounds) >= cut_rounds_needed(len(seeds)):
        raise EventRefusal("cut_pairing", f"Round {r} is a cut round after the cut's final.", r)
    slots = next_cut_round(seeds, event.cut_rounds, event.best_of, field.dropped)
    expected = [frozenset(s for s in slots[i : i + 2] if s is not None) for i in range(0, len(slots), 2)]
    actual = [frozenset(p.players) for p in rnd.pairings]
    wanted = {pair for pair in expected if pair}
    if set(actual) != wanted:
        raise EventRefusal(
            "cut_pairing",
            f"Round {r} is not the cut's bracket (RULES 15.6).",
            r,
            _first_difference(actual, wanted) if set(actual) - wanted else None,
        )
