"""How fast ``referee recheck`` re-checks an archive: games per second with 1, 2 and N workers.

Writes an archive of random games played to the end (``referee record
--jsonl``, gzip), then times ``referee recheck`` on it (the same entry point
as the command line) with ``--jobs 1``, ``--jobs 2`` and ``--jobs N`` (N: the
cores this process may use), and with ``--dask ADDRESS`` when given (or on a
``LocalCluster`` of N worker processes with ``--local-cluster``). Measured,
never asserted; on a shared machine compare the rows of one run.

    .venv/bin/python benchmarks/recheck.py [--games 400] [--dask tcp://host:8786 | --local-cluster]
"""

from __future__ import annotations

import argparse
import gzip
import io
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

from referee.cli import main as referee
from referee.engine import Catalog
from referee.scenarios.archive import line_for
from referee.scenarios.parallel import cores
from referee.scenarios.record import record


def write_archive(path: Path, games: int) -> int:
    catalog = Catalog.builtin()
    actions = 0
    with gzip.open(path, "wb") as out:
        for i in range(games):
            rec = record(catalog, f"bench-{i}")
            actions += len(rec.actions)
            out.write(line_for(f"bench-{i}", catalog, rec.game, rec.actions, rec.state))
    return actions


def timed(archive: Path, games: int, actions: int, label: str, *where: str) -> None:
    out = io.StringIO()
    start = time.perf_counter()
    with redirect_stdout(out):
        code = referee(["recheck", str(archive), *where])
    seconds = time.perf_counter() - start
    summary = out.getvalue().strip().splitlines()[-1]
    print(
        f"{label:>22}: {games / seconds:8.0f} games/s  {actions / seconds:9.0f} actions/s  "
        f"({seconds:.2f} s, exit {code}: {summary})",
        flush=True,
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--dask", metavar="ADDRESS", help="also time the Dask cluster at ADDRESS")
    ap.add_argument("--local-cluster", action="store_true", help="also time a LocalCluster of N processes")
    args = ap.parse_args()
    n = cores()
    with tempfile.TemporaryDirectory(prefix="referee-recheck-bench-") as tmp:
        archive = Path(tmp) / "games.jsonl.gz"
        t0 = time.perf_counter()
        actions = write_archive(archive, args.games)
        print(
            f"archive: {args.games} games, {actions} actions, {archive.stat().st_size / 1e3:.0f} kB gzip, "
            f"written in {time.perf_counter() - t0:.1f} s; {n} core(s) here"
        )
        for jobs in sorted({1, 2, n}):
            timed(archive, args.games, actions, f"--jobs {jobs}", "--jobs", str(jobs))
        if args.dask:
            timed(archive, args.games, actions, "--dask", "--dask", args.dask)
        if args.local_cluster:
            from distributed import LocalCluster

            with LocalCluster(n_workers=n, threads_per_worker=1, host="127.0.0.1", dashboard_address=None) as c:
                timed(archive, args.games, actions, f"LocalCluster({n})", "--dask", c.scheduler_address)
    return 0


if __name__ == "__main__":
    sys.exit(main())
