"""``referee fuzz``: the subcommand; the fuzzer is referee/scenarios/fuzz.py.

Exit status: 0 every invariant held in every game; 1 one failed (the failing
game written into ``--out`` as a scenario file); 2 bad input (a catalog that
does not load, a bad option, a cluster that cannot be reached): one line.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from referee.cli.common import CommandError, job_count, load_catalog, positive_int, subcommand


def add_fuzz(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from referee.scenarios.fuzz import DEFAULT_MAX_ACTIONS

    p = subcommand(
        sub,
        "fuzz",
        cmd_fuzz,
        "play seeded random games on a catalog, checking every invariant at every step",
        (
            "Play --games seeded random games on CATALOG.yaml (policies: uniform, biased towards "
            "responses, investigations and the end of the file, and the engine's own random player; "
            "illegal candidates of every action type at every step) and check at every step: listed "
            "actions are accepted by validate and apply; refused candidates name a rule and change "
            "nothing; the state round-trips through JSON and the consistency check; each seat's view "
            "and events name no card it may not know; the same seed plays byte for byte the same; the "
            "game ends within --max-actions. Exit 0 when all hold, 1 when one fails (the failing game "
            "written into --out as a scenario file for referee check, cut to the shortest failing "
            "prefix), 2 on bad input. The format: docs/scenarios.md."
        ),
    )
    p.add_argument("catalog", metavar="CATALOG.yaml", help="the catalog to fuzz (YAML or JSON, docs/api.md §8)")
    p.add_argument("--games", type=positive_int, default=100, metavar="N", help="games to play (default 100)")
    p.add_argument("--seed", default="fuzz", metavar="S", help="the seed of the whole run (default 'fuzz')")
    p.add_argument("--out", metavar="DIR", default="fuzz-failures", help="where the failing game's scenario goes")
    p.add_argument(
        "--max-actions",
        type=positive_int,
        default=DEFAULT_MAX_ACTIONS,
        metavar="K",
        help=f"a game must be over within K actions (default {DEFAULT_MAX_ACTIONS})",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument("--jobs", "-j", type=job_count, metavar="N", help="play in N processes (default 1)")
    where.add_argument("--dask", metavar="ADDRESS", help="play on the Dask cluster whose scheduler is at ADDRESS")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar; print only failures and the summary")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON document")


def cmd_fuzz(args: argparse.Namespace) -> int:
    from referee.scenarios.fuzz import fuzz
    from referee.scenarios.parallel import PoolError
    from referee.scenarios.progress import bar

    catalog = load_catalog(args.catalog, "")
    _check_decks_can_be_built(catalog, args.catalog)
    with bar(args.games, "games", args.quiet) as progress:
        try:
            summary = fuzz(
                catalog,
                args.games,
                args.seed,
                max_actions=args.max_actions,
                jobs=args.jobs or 1,
                dask=args.dask,
                out_dir=args.out,
                on_game=lambda _: progress.update(1),
            )
        except PoolError as exc:
            raise CommandError(str(exc)) from None
    rate = summary.games / summary.seconds if summary.seconds else 0.0
    if args.json:
        doc = {
            "catalog": {"id": catalog.id, "digest": catalog.digest},
            "seed": args.seed,
            "games": summary.games,
            "actions": summary.actions,
            "seconds": round(summary.seconds, 3),
            "games_per_second": round(rate, 2),
            "failures": [r.to_json() for r in summary.failures],
            "scenarios": summary.scenarios,
        }
        print(json.dumps(doc, ensure_ascii=False))
        return summary.exit_code()
    paths: list[str | None] = list(summary.scenarios) if summary.scenarios else [None] * len(summary.failures)
    for report, path in zip(summary.failures, paths):
        f = report.failure
        assert f is not None  # a report in failures has failed
        print(
            f"FAIL game {report.index} (seed {report.seed}, {report.policy}): {f.invariant} at action {f.step}: {f.detail}"
        )
        if path:
            print(f"  scenario: {path} (referee check {path})")
    state = "every invariant held" if not summary.failures else f"{len(summary.failures)} failed"
    print(
        f"{summary.games} game(s) fuzzed, {summary.actions} action(s), {rate:.1f} games/s: {state}",
        file=sys.stdout,
    )
    return summary.exit_code()


def _check_decks_can_be_built(catalog: Any, path: str) -> None:
    """Stop with one line when the catalog cannot make the legal 40-card decks every game is dealt
    (a catalog of only cases, of too few names): no game could start, and each would say so."""
    from referee.engine import IllegalDeck, new_game
    from referee.engine.playout import random_new_game

    try:
        new_game(catalog, random_new_game(catalog, "fuzz-decks"))
    except IllegalDeck as exc:
        raise CommandError(f"{path}: cannot make a legal deck of its cards to fuzz with: {exc}") from None
