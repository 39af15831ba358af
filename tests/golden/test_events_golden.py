"""Pinned events (RULES 15): each is played again from its players, seed and results, and every round's
pairing, the standings, the ratings and the winner must be exactly the pinned ones (RULES 13.2: the same on
every machine). Regenerate on purpose with ``python -m tests.golden.test_events_golden``."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import orjson
import pytest

from referee import events

from .test_golden import first_difference

FOLDER = Path(__file__).resolve().parent / "events"
# name -> (players, best of, Swiss rounds, cut, drop after round 2)
EVENTS = {
    "friday-16-top4": (16, 3, 4, 4, True),
    "odd-7-best-of-1": (7, 1, None, 0, False),
    "league-33-top8-best-of-5": (33, 5, 5, 8, True),
}


def play(name: str) -> dict:
    """The event ``name`` played to its end with results drawn from its name: every answer on the way."""
    players, best_of, swiss, cut, drop = EVENTS[name]
    rng = random.Random(name)
    doc = events.new_event([f"{name[:3]}-{i:02d}" for i in range(players)], name, best_of, cut, swiss)
    need = (best_of + 1) // 2
    answers = []
    while True:
        try:
            answer = events.pair(doc)
        except events.EventRefusal as exc:
            assert exc.code == "event_over"
            break
        answers.append({k: v for k, v in answer.items() if k != "event"})
        doc = answer["event"]
        if answer.get("swiss_ended"):
            continue
        for pairing in doc["rounds"][-1]["pairings"]:
            if "players" in pairing:
                loser_games = rng.randrange(need)
                pairing["result"] = {"games": [need, loser_games] if rng.random() < 0.5 else [loser_games, need]}
        if drop and len(doc["rounds"]) == 2:
            doc["rounds"][-1]["drops"] = [doc["players"][3]["id"]]
    assert events.check(doc) == {"ok": True}
    return {"event": doc, "pairings": answers, "standings": events.standings(doc)}


@pytest.mark.parametrize("name", sorted(EVENTS))
def test_a_pinned_event_is_played_again_exactly(name: str) -> None:
    pinned = orjson.loads((FOLDER / f"{name}.json").read_bytes())
    played = orjson.loads(orjson.dumps(play(name)))
    assert played == pinned, first_difference(pinned, played)


if __name__ == "__main__":
    for event_name in sys.argv[1:] or EVENTS:
        path = FOLDER / f"{event_name}.json"
        path.write_bytes(orjson.dumps(play(event_name), option=orjson.OPT_INDENT_2) + b"\n")
        print(f"wrote {path}")
