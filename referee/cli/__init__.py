"""The ``referee`` command: one subcommand per function.

    referee --version                                   the package version
    referee serve [--host H] [--port P] [--workers N]   run the HTTP service (gunicorn);
                  [--metrics-port P] [--catalog FILE]   `referee serve --help` lists every setting
    referee openapi [--output FILE]                     print the OpenAPI document
    referee check | record | replay | recheck ...       scenario files and game archives (docs/scenarios.md)
    referee fuzz CATALOG [--games N] ...                random games checking every invariant (docs/bots.md)
    referee play --bots A,B [--games N] ...             bot against bot (docs/bots.md)
    referee arena BOT... [--games N] [--seed S] ...     a round robin of bots in any language (docs/bots.md)
    referee verify-deal REVEALED.json [--commitment C]  check a revealed private game's deal
    referee deck validate|code|list ...                 deck lists and deck codes (docs/formats.md)
    referee event new|pair|standings|check ...          events: Swiss rounds, standings, a cut (docs/events.md)

Also ``python -m referee ...``. Every command-line entry lives in this package, one module per
command group (``serve``: serve and openapi; ``scenarios``: check, record, replay, recheck, expand;
``fuzz``; ``play``; ``arena``; ``verify_deal``; ``deck``; ``event``); the folders below hold the logic and no argparse. What the
subcommands share (the one-line :class:`~referee.cli.common.CommandError`, ``subcommand``,
``load_catalog``, ``write_file``) is :mod:`referee.cli.common`.

To add a subcommand, write ``add_NAME(sub)`` (``p = subcommand(sub, "NAME", cmd_NAME, summary,
description)``, then its arguments) and ``cmd_NAME(args) -> int`` in its group's module, and list
``add_NAME`` in :data:`SUBCOMMANDS`. Errors an operator can fix raise ``CommandError``: one line on
stderr (``referee: error: ...``) and exit status 2, never a traceback; a file is named once.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from referee.cli.arena import add_arena
from referee.cli.common import PROG, CommandError
from referee.cli.deck import add_deck
from referee.cli.event import add_event
from referee.cli.fuzz import add_fuzz
from referee.cli.perft import add_perft
from referee.cli.play import add_play
from referee.cli.scenarios import add_check, add_expand, add_recheck, add_record, add_replay
from referee.cli.serve import add_openapi, add_serve
from referee.cli.verify_deal import add_verify_deal

__all__ = ["SUBCOMMANDS", "build_parser", "main"]

# -- the dispatcher ------------------------------------------------------------

# In the order `referee --help` lists them.
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    add_serve,
    add_openapi,
    add_check,  # scenario files and archives for users' CI (docs/scenarios.md)
    add_record,
    add_replay,
    add_recheck,
    add_expand,
    add_fuzz,
    add_perft,
    add_play,
    add_arena,
    add_verify_deal,
    add_deck,
    add_event,
]


def build_parser() -> argparse.ArgumentParser:
    from referee import __version__

    parser = argparse.ArgumentParser(prog=PROG, description="Ace File '99 rules referee.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int = args.func(args)
        return status
    except CommandError as exc:
        print(f"{PROG}: error: {' '.join(str(exc).split())}", file=sys.stderr)  # one line
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
