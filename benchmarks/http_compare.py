"""Throughput and workers' CPU per request of several servers in one run: worker classes, a baseline revision.

    .venv/bin/python benchmarks/http_compare.py --baseline 7bc43d9              # that revision vs this code
    .venv/bin/python benchmarks/http_compare.py --worker-classes sync,gevent
    .venv/bin/python benchmarks/http_compare.py --baseline 7bc43d9 --worker-classes sync,gevent
    (also: benchmarks/http_load.py --baseline REV / --worker-classes A,B)

Starts one ``referee serve`` (2 workers, the production config, loopback) per
side: this code with each ``--worker-classes`` entry (``REFEREE_WORKER_CLASS``;
default: the default class), and with ``--baseline REV`` that revision too,
extracted with ``git archive`` into a temporary directory and run with this
venv (``PYTHONPATH``). Each side gets bodies made by its own engine (the
baseline's in a subprocess, ``benchmarks/bodies.py`` with its ``PYTHONPATH``):
the same seeded positions, in the state format that revision reads.

Each round drives ``/bench/echo`` and ``/v1/apply`` with ``wrk`` (4
connections, ``--duration`` s) on every side in turn, the order rotating
between rounds, so a shared machine's load falls on every side alike. It
prints each side's requests/s and workers' CPU per request (``/proc``) per
round, and the medians of the per-round ratios to the first side (the
baseline when given, else the first worker class): throughput ``side / ref``
and CPU ``ref / side`` (above 1 = cheaper); when ``sync`` is among the
worker classes, a second table gives the ratios to it. Aim (issue 8): every
side within 5% of each reference or better (both ratios ≥ 0.95). A
baseline's ``/bench/echo`` is that revision's echo (7bc43d9's ran through
the referee's hooks): compare ``/v1/apply`` across revisions, both
endpoints across worker classes. Bounded: ≤ 10 rounds of ≤ 60 s.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.servers import run_wrk, start_server, stop_server, workers_cpu_seconds  # noqa: E402

ENDPOINTS = (("echo", "/bench/echo"), ("apply", "/v1/apply"))
AIM = 0.95
SYNC = "this:sync"  # when run, a second reference: gunicorn's sync workers on this code


@dataclass
class Side:
    label: str
    env: dict[str, str]
    tree: Path | None = None  # another revision's source tree
    files: list[Path] = field(default_factory=list)
    proc: Any = None
    url: str = ""


def baseline_tree(rev: str, workdir: Path) -> Path:
    """``rev``'s files in ``workdir/baseline`` (git archive: no worktree, nothing left in the repository)."""
    tree = workdir / "baseline"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def write_bodies(side: Side, count: int, workdir: Path) -> None:
    """The side's bodies, made by its own engine (a subprocess on its tree for a baseline)."""
    out = workdir / f"{side.label}-bodies.json"
    env = {"PYTHONPATH": str(side.tree or ROOT), "PATH": "/usr/bin:/bin"}
    subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bodies.py"), str(count), str(out)],
        env=env,
        cwd=side.tree or ROOT,
        check=True,
    )
    for n, body in enumerate(orjson.loads(out.read_bytes())):
        path = workdir / f"{side.label}-{n}.json"
        path.write_bytes(orjson.dumps(body))
        side.files.append(path)


def drive(side: Side, path: str, seconds: float, connections: int, workdir: Path) -> dict[str, Any]:
    cpu = workers_cpu_seconds(side.proc.pid)
    res = run_wrk(side.url, path, side.files, seconds, connections, workdir)
    res["cpu_us"] = (workers_cpu_seconds(side.proc.pid) - cpu) / max(res["requests"], 1) * 1e6
    return res


def compare(
    sides: list[Side], rounds: int, duration: float, warmup: float, connections: int, workers: int, bodies: int
) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="referee-compare-"))
    results: dict[str, Any] = {"sides": [s.label for s in sides], "rounds": []}
    try:
        for side in sides:
            write_bodies(side, bodies, workdir)
            side.proc, side.url = start_server(workers, workdir / f"{side.label}.log", side.env, side.tree)
        for side in sides:
            for _, path in ENDPOINTS:
                drive(side, path, warmup, connections, workdir)
        for n in range(rounds):
            order = sides[n % len(sides) :] + sides[: n % len(sides)]
            rnd: dict[str, dict[str, Any]] = {s.label: {} for s in sides}
            for name, path in ENDPOINTS:
                for side in order:
                    rnd[side.label][name] = drive(side, path, duration, connections, workdir)
            results["rounds"].append(rnd)
            print_round(n + 1, rnd)
    finally:
        for side in sides:
            if side.proc is not None:
                stop_server(side.proc)
        shutil.rmtree(workdir, ignore_errors=True)
    labels = [s.label for s in sides]
    refs = [labels[0]] + [label for label in labels[1:] if label == SYNC]
    results["ratios"] = {ref: ratios(results["rounds"], labels, ref) for ref in refs}
    return results


def ratios(rounds: list[dict], labels: list[str], ref: str) -> dict[str, dict[str, dict[str, float]]]:
    """Per side and endpoint: medians of rps and CPU, and of the same-round ratios to ``ref``."""
    out: dict[str, dict[str, dict[str, float]]] = {}
    for label in labels:
        out[label] = {}
        for name, _ in ENDPOINTS:
            runs = [(r[label][name], r[ref][name]) for r in rounds]
            out[label][name] = {
                "rps": statistics.median(s["rps"] for s, _ in runs),
                "cpu_us": statistics.median(s["cpu_us"] for s, _ in runs),
                "rps_ratio": statistics.median(s["rps"] / b["rps"] for s, b in runs if b["rps"]),
                "cpu_ratio": statistics.median(b["cpu_us"] / s["cpu_us"] for s, b in runs if s["cpu_us"]),
                "failed": sum(s["failed"] for s, _ in runs),
            }
    return out


def print_round(n: int, rnd: dict[str, dict[str, Any]]) -> None:
    for label, by_endpoint in rnd.items():
        cells = "  ".join(
            f"{name} {r['rps']:7.0f} req/s {r['cpu_us']:6.0f} us CPU/req" for name, r in by_endpoint.items()
        )
        print(f"round {n}  {label:<22}{cells}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    parser.add_argument("--rounds", type=int, default=3, help="rounds over every side (default 3)")
    parser.add_argument("--duration", type=float, default=8.0, help="seconds per side, endpoint and round (default 8)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of warm-up per side and endpoint")
    parser.add_argument("--json", action="store_true")
    return run(parser.parse_args(argv), parser)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="also run this git revision's server (e.g. 7bc43d9), the reference of the ratios",
    )
    parser.add_argument(
        "--worker-classes",
        metavar="A,B",
        help="this code's worker classes to run (gevent, sync; default: the default class)",
    )


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    rounds, duration = getattr(args, "rounds", 3), getattr(args, "duration", 8.0)
    if not 1 <= rounds <= 10 or not 0 < duration <= 60:
        parser.error("--rounds is 1-10 and --duration at most 60 s here (the run is bounded)")
    classes = [c.strip() for c in (args.worker_classes or "").split(",") if c.strip()]
    sides = [Side(f"this:{c}", {"REFEREE_WORKER_CLASS": c}) for c in classes] or [Side("this", {})]
    workdir = Path(tempfile.mkdtemp(prefix="referee-baseline-"))
    try:
        if args.baseline:
            sides.insert(0, Side(f"baseline:{args.baseline}", {}, baseline_tree(args.baseline, workdir)))
        results = compare(
            sides,
            rounds,
            duration,
            getattr(args, "warmup", 2.0),
            getattr(args, "connections", 4),
            getattr(args, "workers", 2),
            min(getattr(args, "bodies", 64), 64),
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    ok = report(results, rounds, duration, getattr(args, "json", False))
    return 0 if ok else 1


def report(results: dict[str, Any], rounds: int, duration: float, as_json: bool) -> bool:
    """Each reference's table; True when every other side is within 5% of (or better than) each."""
    if as_json:
        print(json.dumps(results, indent=2))
    met = True
    for ref, table in results["ratios"].items():
        others = [
            label for label in results["sides"] if label != ref and not (ref == SYNC and label.startswith("baseline:"))
        ]  # against sync: this code's classes
        ok = all(
            v["rps_ratio"] >= AIM and v["cpu_ratio"] >= AIM and not v["failed"]
            for label in others
            for v in table[label].values()
        )
        met = met and ok
        if as_json:
            continue
        print(f"\nmedians of {rounds} rounds of {duration:g} s (wrk, sides alternated); ratios to {ref}, same round:")
        print(
            f"{'side':<22}{'endpoint':<8}{'req/s':>8}{'CPU us/req':>12}{'req/s ratio':>13}{'CPU ratio':>11}"
            f"{'failed':>8}"
        )
        for label in results["sides"]:
            for name, v in table[label].items():
                print(
                    f"{label:<22}{name:<8}{v['rps']:>8.0f}{v['cpu_us']:>12.0f}{v['rps_ratio']:>13.3f}"
                    f"{v['cpu_ratio']:>11.3f}{v['failed']:>8}"
                )
        print(f"  {'ok  ' if ok else 'MISS'} every side within 5% of {ref} or better (throughput and CPU per request)")
    return met


if __name__ == "__main__":
    sys.exit(main())
