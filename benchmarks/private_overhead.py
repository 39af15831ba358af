"""What private play (docs/api.md §10) adds to one ``/v1/apply``, in-process, robust to a busy machine.

    .venv/bin/python benchmarks/private_overhead.py

The same 64 mid-game positions as ``http_load.py``, sent through the WSGI app
(no network, no gunicorn) as plain bodies to a plain app and as token + seat
bodies to a private app, interleaved, best of several rounds each: a shared
machine slows both alike, and the best round is the least disturbed. Prints
microseconds per request for each, the ratio, and the parts (opening a token,
making one, checking a seat, the actor's view and events).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import orjson  # noqa: E402
from http_load import midgame_bodies, private_bodies  # noqa: E402

from referee.engine import Catalog, apply  # noqa: E402
from referee.engine.events import events_for  # noqa: E402
from referee.engine.views import view_of  # noqa: E402
from referee.private.tokens import Vault  # noqa: E402
from referee.service.app import create_app  # noqa: E402
from referee.service.config import Settings  # noqa: E402

ROUNDS = 7


def best_per_call(func, items, rounds: int = ROUNDS) -> float:
    """Microseconds per item, best round."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for item in items:
            func(item)
        best = min(best, (time.perf_counter() - start) / len(items))
    return best * 1e6


def main() -> int:
    key = os.urandom(32)
    plain = create_app(Settings(log_requests=False)).test_client()
    private = create_app(Settings(log_requests=False, state_key=key)).test_client()
    bodies = midgame_bodies(64)
    plain_bodies = [orjson.dumps(b) for b in bodies]
    secret_bodies = [orjson.dumps(b) for b in private_bodies(bodies, key)]

    def post(client):
        def send(body: bytes) -> None:
            resp = client.post("/v1/apply", data=body, content_type="application/json")
            assert resp.status_code == 200, resp.get_data(as_text=True)

        return send

    plain_us, private_us = float("inf"), float("inf")
    for _ in range(ROUNDS):  # interleaved: each round runs both
        plain_us = min(plain_us, best_per_call(post(plain), plain_bodies, 1))
        private_us = min(private_us, best_per_call(post(private), secret_bodies, 1))

    vault = Vault(key)
    positions = [(b["state"], b["action"]) for b in bodies]
    tokens = [vault.token({**s, "game_id": f"g-{i}"}) for i, (s, _) in enumerate(positions)]
    seats = [(vault.seat(f"g-{i}", a["player"]), f"g-{i}") for i, (_, a) in enumerate(positions)]
    catalog = Catalog.builtin()
    after = [(apply(catalog, s, a), a["player"]) for s, a in positions]
    plain_states = [orjson.dumps(s) for s, _ in positions]
    parts = {
        "parse a state": best_per_call(orjson.loads, plain_states),
        "open a token": best_per_call(vault.open, tokens),
        "make a token": best_per_call(lambda p: vault.token(p[0]), positions),
        "check a seat": best_per_call(lambda s: vault.seat_player(*s), seats),
        "view + events": best_per_call(lambda x: (view_of(x[0][0], x[1]), events_for(x[0][1], x[0][0], x[1])), after),
    }
    print(f"/v1/apply in-process, best of {ROUNDS} interleaved rounds over {len(plain_bodies)} positions:")
    print(f"  plain   {plain_us:8.1f} µs/request")
    print(
        f"  private {private_us:8.1f} µs/request  ({private_us / plain_us - 1:+.0%}; throughput "
        f"{plain_us / private_us:.0%} of plain)"
    )
    for name, us in parts.items():
        print(f"  {name:<14}{us:8.1f} µs")
    tokens = parts["open a token"] - parts["parse a state"] + parts["make a token"] + parts["check a seat"]
    print(
        f"  opening (beyond the JSON parse a plain body needs too) and making a token, checking the seat: "
        f"{tokens:.1f} µs = {tokens / plain_us:.1%} of a plain request"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
