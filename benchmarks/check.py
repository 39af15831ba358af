"""How fast ``referee check`` runs: 1,000 scenario files of 50 actions each, in-process, one core.

The files are golden playthroughs written by ``referee record --max-actions 50``
(one per seed): a NewGame with two 40-card decks, 50 actions with references
(``p0.hand.AF-005``), and a ``then`` pinning every zone of the state reached.
The target (issue 4) is under 10 seconds for the whole ``referee check`` run,
reading and validating the files included; it is measured, not asserted.

    .venv/bin/python benchmarks/check.py [--files 1000] [--actions 50] [--keep DIR]

Prints the time to write the files, then the time of ``referee check`` on
them (in this process, through the same entry point as the command line:
``referee.cli.main``), and per file and per action.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

from referee.cli import main as referee
from referee.engine import Catalog
from referee.scenarios.record import record, to_yaml


def write_files(folder: Path, files: int, actions: int) -> int:
    catalog = Catalog.builtin()
    total = 0
    for i in range(files):
        rec = record(catalog, f"bench-{i}", max_actions=actions)
        total += len(rec.actions)
        (folder / f"game-{i:04d}.yaml").write_text(
            to_yaml(rec, f"bench game {i}", f"benchmarks/check.py, seed bench-{i}"), "utf-8"
        )
    return total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=1000)
    ap.add_argument("--actions", type=int, default=50)
    ap.add_argument("--keep", metavar="DIR", help="write the files to DIR and keep them")
    ap.add_argument("--repeat", type=int, default=3, help="runs of referee check; the best is reported")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    with tempfile.TemporaryDirectory(prefix="referee-check-bench-") as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        total = write_files(folder, args.files, args.actions)
        t1 = time.perf_counter()
        size = sum(p.stat().st_size for p in folder.glob("*.yaml"))
        print(f"wrote {args.files} files, {total} actions, {size / 1e6:.1f} MB in {t1 - t0:.2f} s")
        best = None
        for _ in range(args.repeat):
            out = io.StringIO()
            start = time.perf_counter()
            with redirect_stdout(out):
                code = referee(["check", "-q", str(folder)])
            seconds = time.perf_counter() - start
            best = seconds if best is None else min(best, seconds)
            summary = out.getvalue().strip().splitlines()[-1]
            print(f"referee check: {seconds:.2f} s, exit {code}, '{summary}'")
            if code != 0:
                print(out.getvalue()[:4000], file=sys.stderr)
                return 1
        print(
            f"best: {best:.2f} s for {args.files} files = {best / args.files * 1000:.2f} ms per file, "
            f"{best / max(total, 1) * 1e6:.0f} us per action (target: < 10 s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
