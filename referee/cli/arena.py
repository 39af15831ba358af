"""``referee arena``: a round robin of bots in any language, with ratings (referee/bots/arena.py).

Exit status: 0 the arena ran to the end (whatever bots forfeited); 2 bad
input (fewer than two bots, an unknown built-in bot, a catalog that does not
load, an output folder that cannot be written): one line.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from referee.cli.common import CommandError, load_catalog, positive_int, subcommand


def add_arena(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from referee.bots.match import DEFAULT_MAX_ACTIONS

    p = subcommand(
        sub,
        "arena",
        cmd_arena,
        "a round robin of bots (built-in or programs in any language), with ratings",
        (
            "Every pair of BOTs plays --games games, each deal twice with the seats swapped. A BOT is "
            "builtin:random, builtin:greedy, builtin:ismcts (builtin:ismcts:N for N iterations a move), or a "
            "command that speaks the JSON-lines bot protocol on stdin/stdout (e.g. 'node "
            "examples/bots/random-bot.mjs'). Each bot is told only its own seat's view. A bot that crashes, "
            "runs out of --move-ms or answers an illegal index loses that game. Prints a table with "
            "Bradley-Terry ratings on Elo's scale and a 95%% interval; writes each game as a /v1/replay body. "
            "See docs/bots.md."
        ),
    )
    p.add_argument("bots", nargs="+", metavar="BOT", help="two or more bots")
    p.add_argument("--games", type=positive_int, default=2, metavar="N", help="games per pair of bots (default 2)")
    p.add_argument("--seed", default="arena", metavar="S", help="the seed of the decks and bots (default 'arena')")
    p.add_argument("--catalog", metavar="FILE", help="catalog file (default the built-in af-ref)")
    p.add_argument(
        "--move-ms", type=positive_int, default=1000, metavar="MS", help="each move's time limit (default 1000)"
    )
    p.add_argument(
        "--out", metavar="DIR", help="folder for the games' replay bodies, results.json and the bots' stderr logs"
    )
    p.add_argument(
        "--response-windows", choices=("auto", "strict"), default="strict", help="RULES 9.4 (default strict)"
    )
    p.add_argument(
        "--max-actions",
        type=positive_int,
        default=DEFAULT_MAX_ACTIONS,
        metavar="K",
        help=f"a game not over after K actions is a draw (default {DEFAULT_MAX_ACTIONS})",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the standings and games as one JSON document")


def cmd_arena(args: argparse.Namespace) -> int:
    from referee.bots.arena import check_spec, pairings, run_arena
    from referee.scenarios.progress import bar

    if len(args.bots) < 2:
        raise CommandError("name at least two bots, e.g. referee arena builtin:ismcts builtin:random")
    catalog = load_catalog(args.catalog)
    for spec in args.bots:
        try:
            check_spec(spec, catalog)
        except ValueError as exc:
            raise CommandError(f"bot {spec!r}: {exc}") from None
    out = Path(args.out) if args.out else None
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CommandError(f"--out {args.out}: {exc.strerror or exc}") from None
    total = sum(1 for _ in pairings(len(args.bots), args.games))
    with bar(total, "games", args.quiet) as progress:
        result = run_arena(
            catalog,
            args.bots,
            args.games,
            args.seed,
            move_seconds=args.move_ms / 1000,
            max_actions=args.max_actions,
            options={"response_windows": args.response_windows},
            out=out,
            on_game=lambda _: progress.update(1),
        )
    if args.json:
        print(json.dumps(result.to_json() | {"seed": args.seed}, ensure_ascii=False))
        return 0
    print(result.table())
    forfeits = [g for g in result.games if g.reason.startswith("forfeit")]
    for g in forfeits:
        loser = g.bots[1 - g.winner] if g.winner is not None else "?"
        print(f"game {g.number}: {loser} forfeited ({g.reason.split(': ')[1]}: {g.detail})")
    where = f"; replay bodies in {out}" if out is not None else ""
    print(f"{len(result.games)} game(s), seed {args.seed}{where}")
    return 0
