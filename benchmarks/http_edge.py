"""The edge, measured: gunicorn's gevent workers direct, sync workers direct, and nginx in front of sync
workers, each serving ``/v1/apply`` beside the bare orjson echo under the same worker class, and
slow-client availability for the two ways to run it for real.

    .venv/bin/python benchmarks/http_edge.py                 # or: make bench-http
    .venv/bin/python benchmarks/http_edge.py --duration 5 --rounds 1 --slow 10 --json

**Throughput.** For each setup (``gevent``, ``sync``, ``nginx-sync``: deploy/compose/nginx.conf's
settings in front of the sync server), the same 2-worker server with ``REFEREE_BENCH_ECHO=1``;
``--rounds`` rounds, each driving the echo and ``/v1/apply`` (the mid-game bodies of
benchmarks/http_load.py, every action legal) for ``--duration`` seconds, in alternating order. It
prints requests/s, p50/p99 and the workers' CPU per request (from /proc; nginx's own CPU is shown
apart for ``nginx-sync``), and apply / echo in the same round.

**Availability** (``--slow`` seconds each, 0 to skip): ``gevent`` direct and ``nginx-sync`` with
40, then 1,000, hostile sockets, half idle and half trickling a head one byte every 0.5 s, and 2
that never read their answer
(benchmarks/slow_clients.py's attack), while a prober sends ``GET /livez`` and ``POST /v1/apply``
in turn every 50 ms on fresh connections and counts those answered (200) within 1 s.

Loopback only, bounded in time and sockets; every server and nginx is stopped when done.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bodies import midgame_bodies  # noqa: E402
from benchmarks.nginx import NGINX, Nginx, compose_config  # noqa: E402
from benchmarks.servers import run_python, run_wrk, start_server, stop_server, workers_cpu_seconds  # noqa: E402
from benchmarks.slow_clients import attacking, probe  # noqa: E402

SETUPS = ("gevent", "sync", "nginx-sync")
ENDPOINTS = (("echo", "/bench/echo"), ("apply", "/v1/apply"))


def process_cpu_seconds(pid: int) -> float:
    """utime + stime of one process (nginx's worker), from /proc."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def nginx_workers(nginx: Nginx) -> list[int]:
    children = Path(f"/proc/{nginx.proc.pid}/task/{nginx.proc.pid}/children").read_text().split()
    return [int(c) for c in children]


class Setup:
    """One way to run it: a server (and nginx in front), the URL a client uses, and CPU counters."""

    def __init__(self, name: str, workers: int, workdir: Path):
        self.name = name
        env = {"REFEREE_WORKER_CLASS": "gevent" if name == "gevent" else "sync", "REFEREE_LOG_REQUESTS": "0"}
        self.proc, self.server_url = start_server(workers, workdir / f"{name}.log", env)
        self.nginx: Nginx | None = None
        self.url = self.server_url
        if name == "nginx-sync":
            if NGINX is None:
                raise SystemExit("nginx is not installed (apt-get install nginx-light)")
            self.nginx = Nginx(workdir, [self.server_url.removeprefix("http://")], compose_config)
            self.url = self.nginx.url

    def cpu(self) -> tuple[float, float]:
        workers = workers_cpu_seconds(self.proc.pid)
        proxy = sum(process_cpu_seconds(p) for p in nginx_workers(self.nginx)) if self.nginx else 0.0
        return workers, proxy

    def stop(self) -> None:
        if self.nginx is not None:
            self.nginx.stop()
        stop_server(self.proc)


def drive(
    setup: Setup,
    path: str,
    seconds: float,
    args: argparse.Namespace,
    files: list[Path],
    bodies: list[bytes],
    workdir: Path,
    tool: str,
) -> dict[str, Any]:
    """One run against ``setup``: the load generator's figures and the CPU per request."""
    before = setup.cpu()
    if tool == "wrk":
        res = run_wrk(setup.url, path, files, seconds, args.connections, workdir)
    else:
        res = run_python(setup.url, path, bodies, seconds, args.connections)
    after = setup.cpu()
    n = max(res["requests"], 1)
    res["cpu_us"] = (after[0] - before[0]) / n * 1e6
    res["proxy_cpu_us"] = (after[1] - before[1]) / n * 1e6
    return res


def throughput(args: argparse.Namespace, workdir: Path, tool: str) -> dict[str, Any]:
    bodies = [orjson.dumps(b) for b in midgame_bodies(args.bodies)]
    files = []
    for n, blob in enumerate(bodies):
        path = workdir / f"body-{n}.json"
        path.write_bytes(blob)
        files.append(path)
    out: dict[str, Any] = {}
    for name in SETUPS:
        setup = Setup(name, args.workers, workdir)
        rounds = []
        try:
            for _, path in ENDPOINTS:
                drive(setup, path, args.warmup, args, files, bodies, workdir, tool)
            for i in range(args.rounds):
                order = ENDPOINTS if i % 2 == 0 else ENDPOINTS[::-1]
                runs = {
                    endpoint: drive(setup, path, args.duration, args, files, bodies, workdir, tool)
                    for endpoint, path in order
                }
                runs["apply"]["ratio"] = runs["apply"]["rps"] / runs["echo"]["rps"] if runs["echo"]["rps"] else 0.0
                rounds.append(runs)
        finally:
            setup.stop()
        out[name] = rounds
    return out


def availability(args: argparse.Namespace, workdir: Path, midgame: dict[str, Any]) -> list[dict[str, Any]]:
    body = orjson.dumps(midgame)
    requests = [
        b"GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        b"POST /v1/apply HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body,
    ]
    results = []
    for name in ("gevent", "nginx-sync"):
        for hostile in (40, 1000):
            idle = trickle = hostile // 2
            setup = Setup(name, args.workers, workdir)
            port = int(setup.url.rsplit(":", 1)[1])
            latencies: list[float | None] = []
            try:
                with attacking("127.0.0.1", port, idle=idle, trickle=trickle, nonreading=2):
                    time.sleep(1.0)
                    end = time.monotonic() + args.slow
                    while time.monotonic() < end:
                        started = time.monotonic()
                        latencies.append(probe("127.0.0.1", port, requests[len(latencies) % 2]))
                        time.sleep(max(0.0, 0.05 - (time.monotonic() - started)))
            finally:
                setup.stop()
            ok = sorted(x for x in latencies if x is not None)
            results.append(
                {
                    "setup": name,
                    "idle": idle,
                    "trickle": trickle,
                    "probes": len(latencies),
                    "answered": len(ok),
                    "availability_pct": round(100 * len(ok) / max(1, len(latencies)), 2),
                    "p50_ms": round(statistics.median(ok) * 1000, 1) if ok else None,
                    "p99_ms": round(ok[min(len(ok) - 1, int(0.99 * len(ok)))] * 1000, 1) if ok else None,
                }
            )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per endpoint and round (default 10)")
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--bodies", type=int, default=64)
    parser.add_argument("--slow", type=float, default=15.0, help="seconds of each availability run (0: none)")
    parser.add_argument("--tool", choices=("auto", "wrk", "python"), default="auto")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not 0 < args.duration <= 60 or not 1 <= args.rounds <= 5 or not 0 <= args.slow <= 60:
        parser.error("--duration 0-60 s, --rounds 1-5, --slow 0-60 s (the run is bounded)")
    tool = args.tool if args.tool != "auto" else ("wrk" if shutil.which("wrk") else "python")
    workdir = Path(tempfile.mkdtemp(prefix="referee-edge-"))
    workdir.chmod(0o777)
    try:
        results: dict[str, Any] = {"tool": tool, "workers": args.workers, "connections": args.connections}
        results["throughput"] = throughput(args, workdir, tool)
        if args.slow > 0:
            results["availability"] = availability(args, workdir, midgame_bodies(1)[0])
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{tool}, {args.workers} workers, {args.connections} connections, {args.duration:g} s per endpoint and round")
    print(
        f"{'setup':<12}{'round':<6}{'endpoint':<9}{'req/s':>9}{'p50 ms':>8}{'p99 ms':>8}{'failed':>7}"
        f"{'CPU us/req':>11}{'nginx us':>9}{'/ echo':>8}"
    )
    for name, rounds in results["throughput"].items():
        for i, runs in enumerate(rounds, 1):
            for endpoint, _ in ENDPOINTS:
                r = runs[endpoint]
                ratio = f"{r['ratio']:.2f}" if "ratio" in r else ""
                print(
                    f"{name:<12}{i:<6}{endpoint:<9}{r['rps']:>9.0f}{r['p50_ms']:>8.2f}{r['p99_ms']:>8.2f}"
                    f"{r['failed']:>7}{r['cpu_us']:>11.0f}{r['proxy_cpu_us']:>9.0f}{ratio:>8}"
                )
    for row in results.get("availability", []):
        print(
            f"availability {row['setup']:<11} {row['idle']} idle + {row['trickle']} trickling + 2 non-reading: "
            f"{row['answered']}/{row['probes']} probes within 1 s ({row['availability_pct']}%), "
            f"p50 {row['p50_ms']} ms, p99 {row['p99_ms']} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
