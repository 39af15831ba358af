"""``referee play``: bot against bot (the bots are referee/bots/players.py).

Exit status: 0 the games were played; 2 bad input (an unknown bot, a catalog
that does not load, a service that cannot be reached or refuses): one line.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.cli.common import PROG, CommandError, load_catalog, positive_int, subcommand

if TYPE_CHECKING:
    from referee.bots.players import Bot
    from referee.engine import ActionDict


def add_play(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from referee.bots.match import DEFAULT_MAX_ACTIONS

    p = subcommand(
        sub,
        "play",
        cmd_play,
        "play bot against bot (random, greedy, ismcts) and print each bot's wins with a 95%% interval",
        (
            "Play --games seeded games of bot A against bot B, in-process or through the referee at --url "
            "(in private mode through seats: each bot is told only its own seat's answers). Every deal is "
            "played twice, each bot on each side, so each goes first half the time. Bots: random, greedy, "
            "ismcts (ismcts:N for N iterations per decision, default 64). See docs/bots.md."
        ),
    )
    p.add_argument("--bots", required=True, metavar="A,B", help="the two bots, e.g. ismcts,random")
    p.add_argument("--games", type=positive_int, default=20, metavar="N", help="games to play (default 20)")
    p.add_argument("--seed", default="play", metavar="S", help="the seed of the decks and the bots (default 'play')")
    p.add_argument("--catalog", metavar="FILE", help="catalog file for in-process play (default the built-in af-ref)")
    p.add_argument("--url", metavar="URL", help="play through the referee service at URL instead of in-process")
    p.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS", help="HTTP timeout with --url")
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
    p.add_argument(
        "--records",
        metavar="DIR",
        help="write each game's record into DIR as game-NNNN.afr (docs/records.md; with --url the service writes it)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print the result as one JSON document")


def cmd_play(args: argparse.Namespace) -> int:
    from referee.bots.match import Remote, RemoteError, play_game, play_match, wilson
    from referee.bots.players import make_bot
    from referee.scenarios.progress import bar

    names = [n.strip() for n in args.bots.split(",")]
    if len(names) != 2 or not all(names):
        raise CommandError(f"--bots {args.bots}: name two bots, e.g. --bots ismcts,random")
    remote = None
    if args.url:
        if args.catalog:
            raise CommandError("--catalog is for in-process play; the service at --url uses its own catalog")
        try:
            remote = Remote(args.url, args.timeout)
            catalog = remote.catalog()
        except RemoteError as exc:
            raise CommandError(f"--url {args.url}: {exc}") from None
    else:
        catalog = load_catalog(args.catalog)
    try:
        for n in names:
            make_bot(n, catalog)
    except ValueError as exc:
        raise CommandError(f"--bots: {exc}") from None

    def pair(i: int) -> tuple[Bot, Bot]:  # fresh bots for every game, each with its own seed
        return make_bot(names[0], catalog, seed=f"{args.seed}:A"), make_bot(names[1], catalog, seed=f"{args.seed}:B")

    folder = _records_folder(args.records)
    numbers = itertools.count()  # play_match plays its games in order: the n-th run is game n

    def runner(bots: list[Bot], game: dict[str, Any]) -> tuple[int | None, int]:
        moves: list[ActionDict] = []
        if remote is None:
            winner, n = play_game(catalog, bots, game, args.max_actions, moves)
        else:
            winner, n = remote.play(bots, game, args.max_actions, moves)
        if folder is not None:
            _save_record(folder, next(numbers), catalog, remote, game, moves)
        return winner, n

    with bar(args.games, "games", args.quiet) as progress:
        try:
            result = play_match(
                catalog,
                pair,
                (names[0], names[1]),
                args.games,
                args.seed,
                options={"response_windows": args.response_windows},
                runner=runner,
                on_game=lambda _: progress.update(1),
            )
        except RemoteError as exc:
            raise CommandError(f"--url {args.url}: {exc}") from None
        finally:
            if remote is not None:
                remote.close()
    if args.json:
        doc = result.to_json() | {"seed": args.seed, "bots": names, "referee": args.url or "in-process"}
        doc |= {"records": args.records} if args.records else {}
        print(json.dumps(doc, ensure_ascii=False))
        return 0
    for i, name in enumerate(names):
        lo, hi = wilson(result.wins[i], result.games)
        label = name if names[0] != names[1] else f"{name} ({'AB'[i]})"
        print(
            f"{label}: {result.wins[i]} of {result.games} won ({result.wins[i] / result.games:.1%}; 95% {lo:.1%}–{hi:.1%})"
        )
    where = f"; records in {args.records}" if args.records else ""
    print(f"{result.draws} draw(s); {result.actions} action(s); seed {args.seed}; {args.url or 'in-process'}{where}")
    return 0


def _records_folder(option: str | None) -> Path | None:
    """The folder of ``--records``, made now (before any game is played); a CommandError if it cannot be."""
    if option is None:
        return None
    folder = Path(option)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"--records {option}: {exc.strerror or exc}") from None
    return folder


def _save_record(
    folder: Path, number: int, catalog: Any, remote: Any, game: dict[str, Any], moves: list[ActionDict]
) -> None:
    """Game ``number``'s record into ``folder``: written here from the game played, or by the service at --url."""
    from referee.bots.match import write_record
    from referee.engine.records import record_text

    text = record_text(catalog, game, moves) if remote is None else remote.record(game, moves)
    if text is None:
        print(
            f"{PROG}: game {number} is not over: a private referee gives its record only after the end; not written",
            file=sys.stderr,
        )
        return
    try:
        write_record(folder, number, text)
    except OSError as exc:
        raise CommandError(f"--records {folder}: cannot write: {exc.strerror or exc}") from None
