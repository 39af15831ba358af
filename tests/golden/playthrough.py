"""Golden playthroughs (in OpenSpiel's manner): whole seeded games pinned in files.

Each file holds the NewGame, every action with the SHA-256 of the state after
it and the events it produced, and the final state. The test replays the
game through the public ``new_game`` / ``apply`` and compares exactly; when a
rule deliberately changes, ``make golden`` rewrites the files and the diff
shows what changed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

from referee.engine import Catalog, apply, new_game
from referee.engine.playout import play_out

HERE = Path(__file__).parent
GAMES = {
    "auto-windows": {"seed": "golden-1", "options": {"response_windows": "auto"}},
    "strict-windows": {"seed": "golden-2", "options": {"response_windows": "strict"}},
    "second-player-first": {"seed": "golden-3", "first_player": 1, "options": {"response_windows": "auto"}},
    "long-game": {"seed": "golden-7", "options": {"response_windows": "strict"}},
}


def digest(state: dict) -> str:
    return hashlib.sha256(orjson.dumps(state, option=orjson.OPT_SORT_KEYS)).hexdigest()


def record(catalog: Catalog, name: str) -> dict:
    spec = dict(GAMES[name])
    seed = spec.pop("seed")
    game, _, actions = play_out(catalog, seed, **spec)
    return transcript(catalog, name, game, actions)


def transcript(catalog: Catalog, name: str, game: dict, actions: list[dict]) -> dict:
    """Play ``actions`` through the public API, recording each step."""
    state, events = new_game(catalog, game)
    steps = []
    for action in actions:
        state, events = apply(catalog, state, action)
        steps.append({"action": action, "state_sha256": digest(state), "events": events})
    return {"name": name, "catalog": catalog.ref, "game": game, "steps": steps, "final": state}


def path_for(name: str) -> Path:
    return HERE / f"{name}.json"


def write_all() -> None:
    catalog = Catalog.builtin()
    for name in GAMES:
        data = record(catalog, name)
        path_for(name).write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
        print(f"wrote {path_for(name).name}: {len(data['steps'])} actions, result {data['final']['result']}")


if __name__ == "__main__":
    write_all()
