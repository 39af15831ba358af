"""`referee fuzz` games per second on the built-in catalog: one process, then --jobs 2.

    python benchmarks/fuzz.py [--games 60]

Whole-process figures (start-up included), from `referee fuzz --json`'s own clock and the process's CPU time.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import referee

BUILTIN = str(Path(referee.__file__).parent / "data" / "af-ref.yaml")


def run(games: int, jobs: int) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee",
            "fuzz",
            BUILTIN,
            "--games",
            str(games),
            "--seed",
            "bench",
            "--jobs",
            str(jobs),
            "--json",
            "--quiet",
            "--out",
            "/tmp/referee-bench-fuzz",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    doc = json.loads(out)
    return {
        "jobs": jobs,
        "games": doc["games"],
        "actions": doc["actions"],
        "failures": len(doc["failures"]),
        "wall_seconds": round(wall, 2),
        "games_per_second": round(doc["games"] / wall, 2),
        "games_per_cpu_second": round(doc["games"] / cpu, 2),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=60)
    args = p.parse_args()
    for jobs in (1, 2):
        print(json.dumps(run(args.games, jobs)), flush=True)


if __name__ == "__main__":
    main()
