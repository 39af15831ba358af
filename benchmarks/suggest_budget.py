"""POST /v1/suggest keeps to budget_ms: each request's time (in-process, through the WSGI app) over its budget.

    python benchmarks/suggest_budget.py [--positions 12] [--budgets 50 200 1000 2000] [--bots ismcts greedy random]

For each budget, ISMCTS on main-step positions of a seeded game: the slowest answer's time and the mean, as a
share of the budget (the promise: at most 1.10), and the mean CPU per answer. One JSON line per budget.
"""

from __future__ import annotations

import argparse
import json
import random
import time

import orjson

from referee.engine import Catalog, apply, legal_actions, new_game
from referee.engine.playout import random_new_game
from referee.service.app import create_app
from referee.service.config import Settings


def positions(catalog: Catalog, count: int) -> list[dict]:
    state, _ = new_game(catalog, random_new_game(catalog, "budget"))
    rng, out = random.Random(0), []
    while state["phase"] != "over" and len(out) < count:
        listed = legal_actions(catalog, state)
        if state["step"] == "main" and state["pending"] is None and len(listed) > 3:
            out.append(state)
        keep = [a for a in listed if a["type"] == "keep"]
        state, _ = apply(catalog, state, keep[0] if keep else rng.choice([a for a in listed if a["type"] != "concede"]))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--positions", type=int, default=12)
    p.add_argument("--budgets", type=int, nargs="+", default=[50, 200, 1000, 2000])
    p.add_argument("--bots", nargs="+", default=["ismcts"], help="the bots to ask (default: ismcts)")
    args = p.parse_args()
    catalog = Catalog.builtin()
    client = create_app(Settings(log_requests=False), catalog).test_client()
    states = positions(catalog, args.positions)
    warm = {"state": states[0], "player": states[0]["active"], "bot": "ismcts", "iterations": 4}
    client.post("/v1/suggest", data=orjson.dumps(warm), content_type="application/json")  # first-call costs
    for bot, budget in [(bot, budget) for bot in args.bots for budget in args.budgets]:
        times, cpus = [], []
        for state in states:
            body = orjson.dumps({"state": state, "player": state["active"], "bot": bot, "budget_ms": budget})
            start, cpu = time.perf_counter(), time.process_time()
            resp = client.post("/v1/suggest", data=body, content_type="application/json")
            times.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
            assert resp.status_code == 200, resp.get_json()
        print(
            json.dumps(
                {
                    "bot": bot,
                    "budget_ms": budget,
                    "answers": len(times),
                    "answers_per_s": round(len(times) / sum(times), 1),
                    "slowest_over_budget": round(max(times) * 1000 / budget, 3),
                    "mean_over_budget": round(sum(times) * 1000 / budget / len(times), 3),
                    "mean_cpu_ms": round(sum(cpus) * 1000 / len(cpus), 1),
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
