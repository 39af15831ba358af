"""HTTP benchmark: ``/v1/apply`` and ``/v1/legal-actions`` against a bare orjson echo, on the real server.

    .venv/bin/python benchmarks/http_load.py            # or: make bench-http
    .venv/bin/python benchmarks/http_load.py --duration 20 --connections 8 --rounds 3 --json
    .venv/bin/python benchmarks/http_load.py --baseline 7bc43d9 --worker-classes sync,gevent
                                                        # other servers side by side: benchmarks/http_compare.py

Starts ``referee serve`` (gunicorn, 2 sync workers, the production config) on a
free loopback port with ``REFEREE_BENCH_ECHO=1``, which mounts ``POST
/bench/echo`` in front of the referee: a bare Flask app,
``orjson.loads(request.get_data())`` and ``return orjson.dumps(body)``, none
of the referee's hooks (the baseline of issue 11). Then it drives, for a
bounded time each, the same mid-game bodies (``{"state", "action"}`` of a
seeded random game, every action legal, ~3 KB; ``{"state"}`` for
legal-actions) against the echo, ``/v1/apply`` and ``/v1/legal-actions``, in
turn, ``--rounds`` times, with ``wrk`` when installed (``apt-get install
wrk``) or else a threaded Python client. It prints requests/s, p50 and p99 of
each run, each endpoint's throughput as a ratio of the echo's **in the same
round** (alternating keeps a shared machine's noise out of the ratio; every
other round runs in reverse order, so a drift weighs on both sides), and
each worker's RSS. It also prints the workers' CPU time per request (from
/proc) and the echo's as a ratio of each endpoint's: on a machine shared with
other work, throughput swings with the neighbours' load while CPU per request
does much less. Loopback only; it stops the server when done.

The private-mode row (docs/api.md §10) drives the same positions, in each
round right after plain ``/v1/apply``, as private requests (``{"state": token,
"action", "seat"}``; each answer a new token and the actor's events and view)
against a second server started with a random ``REFEREE_STATE_KEY``. Its
throughput and CPU per request are compared with plain ``/v1/apply``'s in the
same round: what opening and making tokens, checking the seat and the view
cost.

Aims (issue 11): apply ≥ 0.85 of the echo's throughput, legal-actions ≥ 0.75,
apply p99 < 20 ms, each worker < 100 MiB RSS; (issue 7) private apply ≥ 0.90
of plain apply.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bodies import midgame_bodies  # noqa: E402  (http_inprocess, slow_clients import it from here)
from benchmarks.servers import (  # noqa: E402
    run_python,
    run_wrk,
    start_server,
    stop_server,
    worker_rss_mib,
    workers_cpu_seconds,
)

# -- the bodies ----------------------------------------------------------------


def private_bodies(bodies: list[dict[str, Any]], key: bytes) -> list[dict[str, Any]]:
    """The same positions as private requests: a token, the action, the actor's seat."""
    from referee.private.tokens import Vault

    vault = Vault(key)
    out = []
    for n, body in enumerate(bodies):
        game_id = f"g-bench-{n}"
        state = {k: v for k, v in body["state"].items() if k != "seal"}
        out.append(
            {
                "state": vault.token({**state, "game_id": game_id}),
                "action": body["action"],
                "seat": vault.seat(game_id, body["action"]["player"]),
            }
        )
    return out


# -- the server -----------------------------------------------------------------


ENDPOINTS = (("echo", "/bench/echo"), ("apply", "/v1/apply"), ("legal-actions", "/v1/legal-actions"))
PRIVATE = ("private", "/v1/apply")  # on the second server, in private mode
AIMS = {"apply": 0.85, "legal-actions": 0.75}
PRIVATE_AIM = 0.90  # private apply / plain apply, same round


def round_order(index: int) -> tuple[tuple[str, str], ...]:
    """The endpoints of round ``index``: each compared pair side by side (echo and apply, apply and
    private), and every other round reversed, so that a machine slowing or speeding up during a
    run weighs on both sides of each ratio alike over an even number of rounds.

    >>> [name for name, _ in round_order(0)], [name for name, _ in round_order(1)]
    (['echo', 'apply', 'private', 'legal-actions'], ['legal-actions', 'private', 'apply', 'echo'])
    """
    order = (*ENDPOINTS[:2], PRIVATE, *ENDPOINTS[2:])
    return order if index % 2 == 0 else order[::-1]


def judge(results: dict[str, Any]) -> None:
    """Add each round's ratios (to the echo; the private row's to plain apply), their medians and the aims."""
    for rnd in results["rounds"]:
        for name in AIMS:
            rnd[name]["ratio"] = rnd[name]["rps"] / rnd["echo"]["rps"] if rnd["echo"]["rps"] else 0.0
            rnd[name]["cpu_ratio"] = rnd["echo"]["cpu_us"] / rnd[name]["cpu_us"] if rnd[name]["cpu_us"] else 0.0
        private, plain = rnd["private"], rnd["apply"]
        private["ratio"] = private["rps"] / plain["rps"] if plain["rps"] else 0.0
        private["cpu_ratio"] = plain["cpu_us"] / private["cpu_us"] if private["cpu_us"] else 0.0
    ratios = {name: statistics.median(r[name]["ratio"] for r in results["rounds"]) for name in AIMS}
    results["private_ratio"] = statistics.median(r["private"]["ratio"] for r in results["rounds"])
    results["private_cpu_ratio"] = statistics.median(r["private"]["cpu_ratio"] for r in results["rounds"])
    results["ratio"] = ratios
    results["cpu_ratio"] = {name: statistics.median(r[name]["cpu_ratio"] for r in results["rounds"]) for name in AIMS}
    p99 = max(r["apply"]["p99_ms"] for r in results["rounds"])
    results["aims"] = {
        **{f"{name}_at_least_{aim:.2f}_of_echo": ratios[name] >= aim for name, aim in AIMS.items()},
        "apply_p99_under_20ms": p99 < 20,
        "worker_rss_under_100mib": all(x < 100 for x in results["worker_rss_mib"]),
        f"private_apply_at_least_{PRIVATE_AIM:.2f}_of_apply": results["private_ratio"] >= PRIVATE_AIM,
        "no_failed_requests": all(r[n]["failed"] == 0 for r in results["rounds"] for n, _ in ENDPOINTS + (PRIVATE,)),
    }


def report(results: dict[str, Any], args: argparse.Namespace) -> None:
    """Print the rounds, the medians and each aim, met or missed."""
    ratios = results["ratio"]
    bodies = results["bodies"]
    print(
        f"{results['tool']}, {args.workers} workers, {args.connections} connections, {args.duration:g} s per endpoint "
        f"and round, {bodies} mid-game bodies of ~{results['body_bytes_mean']} B"
    )
    print(
        f"{'round':<6}{'endpoint':<15}{'req/s':>10}{'p50 ms':>10}{'p99 ms':>10}{'failed':>8}{'/ echo':>9}"
        f"{'CPU us/req':>12}{'echo/it':>9}"
    )
    for i, rnd in enumerate(results["rounds"], 1):
        for name, _ in ENDPOINTS + (PRIVATE,):
            r = rnd[name]
            ratio = f"{r['ratio']:.2f}" if "ratio" in r else ""
            cpu_ratio = f"{r['cpu_ratio']:.2f}" if "cpu_ratio" in r else ""
            print(
                f"{i:<6}{name:<15}{r['rps']:>10.0f}{r['p50_ms']:>10.2f}{r['p99_ms']:>10.2f}{r['failed']:>8}"
                f"{ratio:>9}{r['cpu_us']:>12.0f}{cpu_ratio:>9}"
            )
    print(
        "throughput / echo's in the same round (median of rounds): "
        + ", ".join(f"{name} {ratio:.2f}" for name, ratio in ratios.items())
    )
    print(
        "workers' CPU per request, echo's / the endpoint's (median of rounds; steadier on a shared "
        "machine): " + ", ".join(f"{name} {ratio:.2f}" for name, ratio in results["cpu_ratio"].items())
    )
    print(
        f"private apply / plain apply (the private row's ratios are to apply's, same round; median): "
        f"throughput {results['private_ratio']:.2f}, CPU per request {results['private_cpu_ratio']:.2f}"
    )
    print(f"worker RSS (MiB): {', '.join(str(x) for x in results['worker_rss_mib'])}")
    for aim, met in results["aims"].items():
        print(f"  {'ok  ' if met else 'MISS'} {aim}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per endpoint and round (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of warm-up per endpoint (default 2)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of echo, apply, legal-actions (default 2)")
    parser.add_argument("--connections", type=int, default=4, help="concurrent connections (default 4)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--bodies", type=int, default=64, help="distinct mid-game bodies (default 64)")
    parser.add_argument(
        "--tool", choices=("auto", "wrk", "python"), default="auto", help="load generator (default: wrk if installed)"
    )
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a setting for the server, e.g. REFEREE_SECRET=... or REFEREE_LOG_REQUESTS=0",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    from benchmarks import http_compare

    http_compare.add_arguments(parser)  # --baseline REV, --worker-classes A,B: benchmarks/http_compare.py
    args = parser.parse_args(argv)
    if args.baseline or args.worker_classes:
        return http_compare.run(args, parser)
    if not 0 < args.duration <= 120 or not 0 <= args.warmup <= 30 or not 1 <= args.rounds <= 10:
        parser.error("--duration is 0-120 s, --warmup 0-30 s and --rounds 1-10 (the run is bounded)")
    tool = args.tool if args.tool != "auto" else ("wrk" if shutil.which("wrk") else "python")

    extra_env = dict(item.split("=", 1) for item in args.server_env)
    bodies = midgame_bodies(args.bodies, secret=extra_env.get("REFEREE_SECRET"))
    state_key = os.urandom(32)
    payloads = {
        "echo": [orjson.dumps(b) for b in bodies],
        "apply": [orjson.dumps(b) for b in bodies],
        "legal-actions": [orjson.dumps({"state": b["state"]}) for b in bodies],
        "private": [orjson.dumps(b) for b in private_bodies(bodies, state_key)],
    }
    workdir = Path(tempfile.mkdtemp(prefix="referee-bench-"))
    files: dict[str, list[Path]] = {}
    for name, blobs in payloads.items():
        files[name] = [workdir / f"{name}-{n}.json" for n in range(len(blobs))]
        for path, blob in zip(files[name], blobs):
            path.write_bytes(blob)
    proc, url = start_server(args.workers, workdir / "server.log", extra_env)
    private_env = {k: v for k, v in extra_env.items() if not k.startswith("REFEREE_SECRET")}
    private_env["REFEREE_STATE_KEY"] = state_key.hex()
    private_proc, private_url = start_server(args.workers, workdir / "private.log", private_env)
    results: dict[str, Any] = {
        "tool": tool,
        "workers": args.workers,
        "connections": args.connections,
        "duration_s": args.duration,
        "bodies": len(bodies),
        "body_bytes_mean": round(statistics.fmean(len(b) for b in payloads["apply"])),
        "server_env": sorted(extra_env),
        "rounds": [],
    }

    def drive(name: str, path: str, seconds: float) -> dict[str, Any]:
        master, target = (private_proc.pid, private_url) if name == "private" else (proc.pid, url)
        cpu = workers_cpu_seconds(master)
        if tool == "wrk":
            res = run_wrk(target, path, files[name], seconds, args.connections, workdir)
        else:
            res = run_python(target, path, payloads[name], seconds, args.connections)
        res["cpu_us"] = (workers_cpu_seconds(master) - cpu) / max(res["requests"], 1) * 1e6
        return res

    try:
        if args.warmup > 0:
            for name, path in ENDPOINTS + (PRIVATE,):
                drive(name, path, args.warmup)
        for i in range(args.rounds):
            runs = {name: drive(name, path, args.duration) for name, path in round_order(i)}
            results["rounds"].append({name: runs[name] for name, _ in ENDPOINTS + (PRIVATE,)})
        results["worker_rss_mib"] = [round(x, 1) for x in worker_rss_mib(proc.pid)]
    finally:
        for server in (proc, private_proc):
            stop_server(server)
        shutil.rmtree(workdir, ignore_errors=True)

    judge(results)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        report(results, args)
    return 0 if all(results["aims"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
