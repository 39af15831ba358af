"""Engine speed: median µs of apply, legal_actions and the consistency check on
seeded mid-game states, in-process replay, and whole random games per second.

    make bench            # = .venv/bin/python benchmarks/engine.py --baseline 7bc43d9
    .venv/bin/python benchmarks/engine.py [--states N] [--games N] [--baseline REV [--rounds N]]

With ``--baseline REV`` it also times REV (a detached git worktree in a temp
dir, imported through PYTHONPATH) against the current code with the same
script (``engine_timing.py``), in alternating subprocess rounds (A B, B A, ...;
medians), and prints each ratio beside issue 11's engine targets calibrated to
this machine: its absolute figures (apply ≤ 20 µs, legal_actions ≤ 50 µs,
replay ≥ 50,000 actions/s) were set where the baseline's apply took 40 µs and
its legal_actions 65 µs, so here apply must take ≤ 0.50× the baseline's,
legal_actions ≤ 0.77×, and replay must reach 50,000 × 40 µs / (the baseline's
apply here). Ratios measured in one run hold on a shared machine; absolute
figures do not. The targets' figures were taken by 7bc43d9's own ``make
bench``, which times each state 20 times in a row, one function at a time; the
first row of each function is timed that way, and the verdict is on it, since
a ratio against a figure holds only when both are measured alike. Below it,
for information: "interleaved", the median of single calls with the three
functions taken in turn on each state (each call cold, after another function:
that adds the same few microseconds to both versions, so it raises the ratio),
and "interleaved, best", the median over states of each state's fastest such
call (a busy host adds time to every call, and the same microseconds to a
short call as to a long one, so the plain medians' ratio drifts up with load
while the best calls' drifts less). Not a test: no thresholds enforced, just
numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine_timing import median_us, mid_game_positions, replay_rate

from referee.engine import Catalog, apply, check_state, legal_actions, new_game
from referee.engine.board import Board
from referee.engine.pipeline import actions_for, step  # the raw pipeline, to time it apart from the session
from referee.engine.playout import choose, play_out, random_new_game
from referee.engine.setup import SeededStream

ROOT = Path(__file__).resolve().parent.parent
TIMING = Path(__file__).resolve().parent / "engine_timing.py"
# Where issue 11's absolute targets were set, the baseline's apply took 40 µs and its legal_actions 65 µs.
TARGETS = {"apply_us": 20 / 40, "legal_actions_us": 50 / 65}
REPLAY_TARGET, REFERENCE_APPLY_US = 50_000, 40


def games_per_second(catalog: Catalog, games: int, enumerate_all: bool) -> tuple[float, float]:
    """Whole random games from deal to the end; returns (games/s, actions per game)."""
    total_actions = 0
    t0 = time.perf_counter()
    for n in range(games):
        seed = f"speed-{n}"
        if not enumerate_all:
            total_actions += len(play_out(catalog, seed)[2])
            continue
        state, _ = new_game(catalog, random_new_game(catalog, seed))
        g, stream = Board(catalog, state), SeededStream("choices:" + seed)
        while not g.over:
            step(g, choose(actions_for(g), stream))
            total_actions += 1
    elapsed = time.perf_counter() - t0
    return games / elapsed, total_actions / games


def absolute(args: argparse.Namespace) -> None:
    """The current code's figures, pinned to one core."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    catalog = Catalog.builtin()
    positions = mid_game_positions(catalog, args.states)
    print(f"{len(positions)} mid-game states, {args.repeat} runs each")
    rows = [
        ("apply (check + rules + copy)", lambda p: apply(catalog, p[0], p[1])),
        ("consistency check (check_state)", lambda p: check_state(catalog, p[0])),
        ("legal_actions", lambda p: legal_actions(catalog, p[0])),
    ]
    for label, fn in rows:
        print(f"  {label:34s} median {median_us(fn, positions, args.repeat):8.1f} µs")
    print(f"  in-process replay                  {replay_rate(catalog, max(10, args.games // 10)):8.0f} actions/s")
    rate, length = games_per_second(catalog, args.games, enumerate_all=False)
    print(f"  random full games (fast policy)    {rate:8.1f} games/s  ({length:.0f} actions/game)")
    rate, length = games_per_second(catalog, max(20, args.games // 5), enumerate_all=True)
    print(f"  random full games (legal_actions)  {rate:8.1f} games/s  ({length:.0f} actions/game)")


# -- against a baseline revision ------------------------------------------------------------


def timing_round(code_root: Path, args: argparse.Namespace) -> dict[str, float]:
    """One run of engine_timing.py importing ``referee`` from ``code_root``."""
    env = {**os.environ, "PYTHONPATH": str(code_root)}
    out = subprocess.run(
        [
            sys.executable,
            str(TIMING),
            "--states",
            str(args.states),
            "--repeat",
            str(args.repeat),
            "--replay-games",
            str(args.replay_games),
            "--expect-root",
            str(code_root),
        ],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def alternate(baseline_root: Path, args: argparse.Namespace) -> tuple[list[dict], list[dict]]:
    """Rounds of (baseline, current), the order swapped every round so neither side always runs first."""
    base, current = [], []
    for r in range(args.rounds):
        sides = [(base, baseline_root), (current, ROOT)]
        for runs, root in sides if r % 2 == 0 else sides[::-1]:
            runs.append(timing_round(root, args))
        print(f"  round {r + 1}: baseline {_brief(base[-1])} | current {_brief(current[-1])}", flush=True)
    return base, current


def _brief(m: dict[str, float]) -> str:
    return (
        f"apply {m['apply_us']:.0f} µs, check_state {m['check_state_us']:.0f} µs, "
        f"legal_actions {m['legal_actions_us']:.0f} µs, replay {m['replay_actions_per_s']:,.0f}/s"
    )


def report(base: list[dict], current: list[dict]) -> None:
    med = {
        side: {k: statistics.median(run[k] for run in runs) for k in runs[0]}
        for side, runs in (("baseline", base), ("current", current))
    }
    # Each round's ratio, then their median: both sides of a round ran in the same minutes.
    ratio = {k: statistics.median(c[k] / b[k] for b, c in zip(base, current)) for k in current[0]}
    print(f"\n{'':24s}{'baseline':>12s}{'current':>12s}{'ratio':>9s}   calibrated target")
    for key, label in (
        ("apply_us", "apply µs"),
        ("check_state_us", "check_state µs"),
        ("legal_actions_us", "legal_actions µs"),
    ):
        for stat, name in (("_hot", label), ("", "  interleaved"), ("_best", "  interleaved, best")):
            k = key.replace("_us", stat + "_us")
            target = TARGETS.get(key) if stat == "_hot" else None
            verdict = f"≤ {target:.2f}×  {'met' if ratio[k] <= target else 'NOT met'}" if target else ""
            print(f"  {name:22s}{med['baseline'][k]:12.1f}{med['current'][k]:12.1f}{ratio[k]:8.2f}×   {verdict}")
    need = REPLAY_TARGET * REFERENCE_APPLY_US / med["baseline"]["apply_hot_us"]
    got = med["current"]["replay_actions_per_s"]
    print(
        f"  {'replay actions/s':22s}{med['baseline']['replay_actions_per_s']:12,.0f}{got:12,.0f}"
        f"{ratio['replay_actions_per_s']:8.2f}×   ≥ {need:,.0f}/s (50,000 × 40 µs / baseline apply)  "
        f"{'met' if got >= need else 'NOT met'}"
    )


def compare(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="engine-baseline-") as tmp:
        checkout = Path(tmp) / "baseline"
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--quiet", "--detach", str(checkout), args.baseline], check=True
        )
        try:
            print(
                f"baseline {args.baseline} against the working tree: {args.rounds} alternating rounds, "
                f"{args.states} states × {args.repeat} runs, load average {os.getloadavg()[0]:.1f}"
            )
            base, current = alternate(checkout, args)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(checkout)], check=True)
    report(base, current)
    print(f"  (load average at the end {os.getloadavg()[0]:.1f}; medians of {args.rounds} rounds)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=60)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument(
        "--baseline", metavar="REV", help="also time this git revision, alternating with the current code"
    )
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds against the baseline")
    parser.add_argument("--replay-games", type=int, default=30)
    args = parser.parse_args()
    if args.baseline:
        compare(args)
    else:
        absolute(args)


if __name__ == "__main__":
    main()
