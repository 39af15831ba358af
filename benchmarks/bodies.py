"""The HTTP benchmarks' request bodies: mid-game ``{"state", "action"}`` pairs of seeded random games.

    python benchmarks/bodies.py COUNT OUT.json     # what http_compare.py runs with an old revision's engine

Imports nothing but ``referee.engine`` (whichever ``referee`` is first on the
path), so another revision can make bodies in its own state format: run as a
script with ``PYTHONPATH`` set to that revision's tree.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any


def midgame_bodies(count: int, seed: str = "bench-http", secret: str | None = None) -> list[dict[str, Any]]:
    """``count`` {"state", "action"} bodies from the middle of seeded games: main-step
    positions with a legal action that is not the end of the turn (states sealed
    under ``secret`` when the server seals)."""
    from referee.engine import Catalog, apply, legal_actions, new_game
    from referee.engine.playout import random_new_game

    sealer = None
    if secret:
        from referee.private.sealing import Sealer

        sealer = Sealer(secret.encode())
    catalog = Catalog.builtin()
    rng = random.Random(seed)
    bodies: list[dict[str, Any]] = []
    game_no = 0
    while len(bodies) < count:
        state, _ = new_game(catalog, random_new_game(catalog, f"{seed}-{game_no}"))
        game_no += 1
        while state["phase"] != "over" and len(bodies) < count:
            actions = legal_actions(catalog, state)
            keep = [a for a in actions if a["type"] == "keep"]
            pool = keep or [a for a in actions if a["type"] != "concede"] or actions
            action = rng.choice(pool)
            if state["turn"] >= 6 and state["step"] == "main" and action["type"] not in ("end_turn", "concede"):
                sent = sealer.seal(dict(state)) if sealer else state
                bodies.append({"state": sent, "action": action})
            state, _ = apply(catalog, state, action)
    return bodies


if __name__ == "__main__":
    import orjson

    Path(sys.argv[2]).write_bytes(orjson.dumps(midgame_bodies(int(sys.argv[1]))))
