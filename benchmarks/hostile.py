"""What hostile request bodies cost, against ordinary bodies of the same size (issue 39).

    python benchmarks/hostile.py bodies [--size BYTES]       # in process: CPU and memory per body, per endpoint
    python benchmarks/hostile.py costliest                   # in process: the costliest request per KB, per endpoint
    python benchmarks/hostile.py labels [--games 30]         # labels on the most crowded position found
    python benchmarks/hostile.py load [--seconds 30] [--attackers 8] [--as-limit-mib 512] [--ordinary]

``bodies`` posts each hostile body of benchmarks/hostile_bodies.py and its ordinary twin (the same
text without the escape or the repeated key) to every endpoint through Flask's test client, and
prints the CPU time (best of 3) and tracemalloc's peak of each. ``costliest`` prints, per endpoint,
the costliest request we know per KB of body, with its body. ``load`` starts real gunicorn (2 gevent
workers) with every process's address space limited (RLIMIT_AS, inherited by the workers it forks),
has ``--attackers`` threads post the worst bodies at the body limit round the endpoints as fast as
they are answered, and one normal client post mid-game /v1/apply bodies, and reports the share of
the normal client's requests answered 200 within 1 s, the attackers' statuses, and the workers'
peak RSS and restarts.
"""

from __future__ import annotations

import argparse
import copy
import http.client
import json
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.hostile_bodies import BODY_PATHS, BUILDERS

JSON = {"Content-Type": "application/json"}
LIMIT = 1 << 20


def _app() -> Any:
    from referee.service.app import create_app
    from referee.service.config import Settings

    return create_app(Settings(log_requests=False))


def _cost(client: Any, path: str, body: bytes) -> tuple[float, float, int]:
    """(CPU ms, best of 3; tracemalloc peak MiB; status) of one POST."""
    cpu = []
    status = 0
    for _ in range(3):
        start = time.process_time()
        status = client.post(path, data=body, headers=JSON).status_code
        cpu.append(time.process_time() - start)
    tracemalloc.start()
    client.post(path, data=body, headers=JSON)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return min(cpu) * 1000, peak / (1 << 20), status


def cmd_bodies(args: argparse.Namespace) -> None:
    client = _app().test_client()
    print(
        f"| body ({args.size} B) | endpoint | hostile CPU ms | ordinary CPU ms | ratio | hostile peak MiB | ordinary peak MiB |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, build in BUILDERS.items():
        hostile, ordinary = build(args.size)
        for path in args.paths or BODY_PATHS:
            h_cpu, h_mem, h_status = _cost(client, path, hostile)
            o_cpu, o_mem, _ = _cost(client, path, ordinary)
            print(
                f"| {name} | {path} ({h_status}) | {h_cpu:.1f} | {o_cpu:.1f} | {h_cpu / max(o_cpu, 0.01):.2f} "
                f"| {h_mem:.1f} | {o_mem:.1f} |"
            )


def _heavy_requests() -> dict[str, list[tuple[str, bytes]]]:
    """Per endpoint, the costliest ordinary requests we know: (what, body)."""
    import orjson

    from benchmarks.bodies import midgame_bodies
    from referee.engine import Catalog, legal_actions
    from referee.engine.playout import play, play_out

    catalog = Catalog.builtin()
    crowded = max(
        (orjson.loads(orjson.dumps(s)) for g in range(12) for s, _ in play(catalog, f"crowded-{g}", 300)),
        key=lambda s: len(legal_actions(catalog, s)),
    )
    game, _, actions = play_out(catalog, "long-replay", max_actions=2000)
    wrong = {"type": "end_turn", "player": 1 - actions[-1]["player"]}
    mid = midgame_bodies(1)[0]
    new_game = {"decks": game["decks"], "seed": "x"}
    dumps = orjson.dumps
    return {
        "/v1/legal-actions": [
            (
                f"labels on a crowded position ({len(legal_actions(catalog, crowded))} actions)",
                dumps({"state": crowded, "labels": True}),
            ),
            ("no labels, the same position", dumps({"state": crowded})),
        ],
        "/v1/replay": [
            (
                f"a whole game ({len(actions)} actions), refused at its last",
                dumps({"game": game, "actions": [*actions, wrong]}),
            ),
            (f"a whole game ({len(actions)} actions)", dumps({"game": game, "actions": actions})),
        ],
        "/v1/apply": [("a mid-game move", dumps(mid))],
        "/v1/validate": [("a mid-game move", dumps(mid))],
        "/v1/view": [("a mid-game state", dumps({"state": mid["state"], "player": 0}))],
        "/v1/games": [("a deal", dumps(new_game))],
        "/v1/decks/validate": [("a deck", dumps({"deck": game["decks"][0]}))],
    }


def cmd_costliest(args: argparse.Namespace) -> None:
    client = _app().test_client()
    rows = []
    for path, requests in _heavy_requests().items():
        for what, body in requests:
            cpu, _, status = _cost(client, path, body)
            rows.append((path, what, len(body) / 1024, status, cpu))
    for name, build in BUILDERS.items():  # the hostile bodies, at the limit, on every endpoint
        hostile, _ = build(LIMIT)
        for path in BODY_PATHS:
            cpu, _, status = _cost(client, path, hostile)
            rows.append((path, f"hostile: {name}", len(hostile) / 1024, status, cpu))
    header = "| endpoint | request | body KB | status | CPU ms | CPU ms per KB |\n| --- | --- | --- | --- | --- | --- |"
    print("Every request measured:\n" + header)
    for path, what, kb, status, cpu in rows:
        print(f"| {path} | {what} | {kb:.1f} | {status} | {cpu:.2f} | {cpu / kb:.3f} |")
    print("\nThe costliest per KB, per endpoint:\n" + header)
    best: dict[str, tuple[str, float, int, float]] = {}
    for path, what, kb, status, cpu in rows:
        if path not in best or cpu / kb > best[path][3] / best[path][1]:
            best[path] = (what, kb, status, cpu)
    for path, (what, kb, status, cpu) in sorted(best.items()):
        print(f"| {path} | {what} | {kb:.1f} | {status} | {cpu:.2f} | {cpu / kb:.3f} |")


def cmd_labels(args: argparse.Namespace) -> None:
    """legal_actions alone and with labels, on the most crowded position of ``--games`` seeded games."""
    from referee.engine import Catalog, legal_actions
    from referee.engine.labels import labelled
    from referee.engine.playout import play

    catalog = Catalog.builtin()
    crowded = max(
        (copy.deepcopy(s) for g in range(args.games) for s, _ in play(catalog, f"crowded-{g}", 400)),
        key=lambda s: len(legal_actions(catalog, s)),
    )
    actions = legal_actions(catalog, crowded)

    def best_of(run: Any) -> float:
        times = []
        for _ in range(5):
            start = time.process_time()
            for _ in range(20):
                run()
            times.append((time.process_time() - start) / 20)
        return min(times) * 1000

    bare = best_of(lambda: legal_actions(catalog, crowded))
    named = best_of(lambda: labelled(catalog, crowded, actions, "en"))
    print(
        f"{len(actions)} actions: legal_actions {bare:.2f} ms, labels {named:.2f} ms ({named / len(actions) * 1000:.1f} µs per action)"
    )


# -- load ------------------------------------------------------------------------------


def _post(
    conn: http.client.HTTPConnection | None, host: str, port: int, path: str, body: bytes, timeout: float
) -> tuple[Any, int, float]:
    start = time.perf_counter()
    try:
        conn = conn or http.client.HTTPConnection(host, port, timeout=timeout)
        conn.request("POST", path, body, JSON)
        resp = conn.getresponse()
        resp.read()
        if resp.getheader("Connection", "").lower() == "close":
            conn.close()
            conn = None
        return conn, resp.status, time.perf_counter() - start
    except (OSError, http.client.HTTPException):
        if conn is not None:
            conn.close()
        return None, 0, time.perf_counter() - start


def _workers(master: int) -> dict[int, float]:
    """pid -> VmRSS MiB of the master's children."""
    out = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                if int(f.read().rsplit(")", 1)[1].split()[1]) != master:
                    continue
            with open(f"/proc/{entry}/status") as f:
                rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
            out[int(entry)] = rss / 1024
        except (OSError, ValueError, IndexError, StopIteration):
            continue
    return out


def cmd_load(args: argparse.Namespace) -> None:
    import orjson

    from benchmarks.bodies import midgame_bodies
    from benchmarks.servers import start_server, stop_server

    limit = args.as_limit_mib << 20
    workdir = Path(tempfile.mkdtemp(prefix="hostile-"))
    proc, url = start_server(2, workdir / "server.log", {"REFEREE_LOG_REQUESTS": "0"})
    host, port = url.removeprefix("http://").split(":")
    try:
        # The limit on the master and on each worker; a worker forked later inherits the master's.
        for pid in [proc.pid, *_workers(proc.pid)]:
            resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
        normal = [orjson.dumps(b) for b in midgame_bodies(20)]
        hostile = [build(LIMIT)[1 if args.ordinary else 0] for build in BUILDERS.values()]
        deadline = time.monotonic() + args.seconds
        attacks: dict[int, int] = {}
        latencies: list[float] = []
        statuses: dict[int, int] = {}
        seen: set[int] = set(_workers(proc.pid))
        peak = 0.0
        lock = threading.Lock()

        def attacker(n: int) -> None:
            conn = None
            i = n
            while time.monotonic() < deadline:
                path = BODY_PATHS[i % len(BODY_PATHS)]
                conn, status, _ = _post(conn, host, int(port), path, hostile[i % len(hostile)], 10)
                i += 1
                with lock:
                    attacks[status] = attacks.get(status, 0) + 1

        def client() -> None:
            conn = None
            i = 0
            while time.monotonic() < deadline:
                conn, status, seconds = _post(conn, host, int(port), "/v1/apply", normal[i % len(normal)], 10)
                i += 1
                latencies.append(seconds if status == 200 else float("inf"))
                statuses[status] = statuses.get(status, 0) + 1

        threads = [threading.Thread(target=attacker, args=(n,)) for n in range(args.attackers)]
        threads.append(threading.Thread(target=client))
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            workers = _workers(proc.pid)
            seen |= set(workers)
            peak = max([peak, *workers.values()])
            time.sleep(0.2)
        within = sum(1 for s in latencies if s <= 1.0)
        finite = sorted(s for s in latencies if s != float("inf"))
        q = statistics.quantiles(finite, n=100) if len(finite) > 1 else [0.0] * 99
        print(
            json.dumps(
                {
                    "seconds": args.seconds,
                    "attackers": args.attackers,
                    "bodies": "ordinary twins" if args.ordinary else "hostile",
                    "address_space_limit_mib": args.as_limit_mib,
                    "normal_requests": len(latencies),
                    "normal_answered_200_within_1s": round(within / max(1, len(latencies)), 4),
                    "normal_p50_ms": round(q[49] * 1000, 2),
                    "normal_p99_ms": round(q[98] * 1000, 2),
                    "normal_statuses": statuses,
                    "attack_statuses": attacks,
                    "worker_peak_rss_mib": round(peak, 1),
                    "workers_started": len(seen),
                    "server_5xx_or_reset": sum(v for k, v in attacks.items() if k == 0 or k >= 500),
                },
                indent=1,
            )
        )
    finally:
        stop_server(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    bodies = sub.add_parser("bodies")
    bodies.add_argument("--size", type=int, default=LIMIT)
    bodies.add_argument("--paths", nargs="*")
    sub.add_parser("costliest")
    labels = sub.add_parser("labels")
    labels.add_argument("--games", type=int, default=30)
    load = sub.add_parser("load")
    load.add_argument("--seconds", type=float, default=30)
    load.add_argument("--attackers", type=int, default=8)
    load.add_argument("--as-limit-mib", type=int, default=512)
    load.add_argument("--ordinary", action="store_true", help="the attackers send the ordinary twins (the baseline)")
    args = parser.parse_args()
    {"bodies": cmd_bodies, "costliest": cmd_costliest, "labels": cmd_labels, "load": cmd_load}[args.command](args)


if __name__ == "__main__":
    main()
