"""How fast game records are written and read, and how fast ``referee perft`` counts (docs/records.md, docs/perft.md).

Plays random games to the end, then times the engine's one writer
(``record_text``: the game played and written, whole and as seat 0) and one
reader (``read``), the recovery of a game's moves from its states (a record
from the ledger, ``recover_moves``), and counts ``perft`` on the published positions. Measured,
never asserted; on a shared machine compare the rows of one run.

    .venv/bin/python benchmarks/records.py [--games 100]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from referee.engine import Catalog, Session
from referee.engine.perft import perft
from referee.engine.playout import play_out
from referee.engine.records import read, record_text, write
from referee.engine.recovery import recover_moves

ROOT = Path(__file__).resolve().parents[1]
PERFT = (("opening", 12), ("window", 12), ("targets", 4))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    args = parser.parse_args()
    cat = Catalog.builtin()
    games = [play_out(cat, f"bench-{i}") for i in range(args.games)]
    moves = sum(len(actions) for _, _, actions in games)

    start = time.perf_counter()
    texts = [record_text(cat, game, actions) for game, _, actions in games]
    written = time.perf_counter() - start
    start = time.perf_counter()
    for game, _, actions in games:
        record_text(cat, game, actions, seat=0)
    seat = time.perf_counter() - start
    start = time.perf_counter()
    records = [read(text) for text in texts]
    reading = time.perf_counter() - start
    start = time.perf_counter()
    for record in records:
        write(record)
    formatting = time.perf_counter() - start
    size = sum(len(text.encode()) for text in texts)
    print(f"{len(games)} games, {moves} moves, {size} bytes of records")
    print(f"record_text (played and written): {len(games) / written:,.0f} games/s, {moves / written:,.0f} moves/s")
    print(f"record_text, seat 0's record:     {len(games) / seat:,.0f} games/s")
    print(f"read:                             {moves / reading:,.0f} moves/s, {size / reading / 1e6:.1f} MB/s")
    print(f"write (the text alone):           {moves / formatting:,.0f} moves/s")
    recovered = games[: max(1, len(games) // 5)]
    lines = [states_of(cat, game, actions) for game, _, actions in recovered]
    start = time.perf_counter()
    for states in lines:
        recover_moves(cat, states)
    recovery = time.perf_counter() - start
    count = sum(len(states) - 1 for states in lines)
    print(f"recover_moves (from the states):  {count / recovery:,.0f} moves/s ({len(lines)} games)")
    for name, depth in PERFT:
        record = read((ROOT / "examples" / "perft" / f"{name}.afr").read_text("utf-8"))
        session = Session.new(cat, record.new_game(cat))[0]
        session.replay(record.actions)
        start = time.perf_counter()
        count = perft(cat, session.state, depth)
        seconds = time.perf_counter() - start
        print(f"perft {name} depth {depth}: {count} sequences in {seconds:.2f} s, {count / seconds:,.0f}/s")


def states_of(cat: Catalog, game: dict[str, Any], actions: list[Any]) -> list[dict[str, Any]]:
    """The state at every seq of a game: what the ledger's tokens hold."""
    session = Session.new(cat, game)[0]
    states: list[dict[str, Any]] = [dict(session.snapshot())]
    for action in actions:
        session.apply(action)
        states.append(dict(session.snapshot()))
    return states


if __name__ == "__main__":
    main()
