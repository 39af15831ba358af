"""``referee verify-deal``: check the deal of a revealed private game (docs/api.md §10).

Exit status: 0 the deal checks; 1 it does not; 2 the file cannot be read (one line).
"""

from __future__ import annotations

import argparse
import sys

from referee.cli.common import PROG, CommandError, catalog_of, subcommand, write_file


def add_verify_deal(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommand(
        sub,
        "verify-deal",
        cmd_verify_deal,
        "check the deal of a revealed private game (docs/api.md §10)",
        (
            "Check a private game revealed by POST /v1/reveal: the seed matches the commitment "
            "shown at the deal, dealing again from that seed and the two decks gives the same "
            "cards, and each file at the end is the untouched rest of the file dealt. Exit 0 "
            "when it checks, 1 when it does not, 2 when the file cannot be read."
        ),
    )
    p.add_argument(
        "revealed", metavar="REVEALED.json", help='the answer of POST /v1/reveal ({"state": ...}) or the state alone'
    )
    p.add_argument(
        "--commitment", metavar="sha256:HEX", help="the commitment you were shown at the deal (and in every view)"
    )
    p.add_argument(
        "--catalog",
        metavar="FILE",
        help="the catalog the game was played with (default: REFEREE_CATALOG, else the built-in)",
    )
    p.add_argument("--out", metavar="FILE", help="write the re-dealt first state to FILE (JSON)")


def cmd_verify_deal(args: argparse.Namespace) -> int:
    import json

    from referee.engine.fair_deal import DealMismatch, commitment, verify_deal
    from referee.scenarios.source import ScenarioError, read_text

    try:
        doc = json.loads(read_text(args.revealed))
    except ScenarioError as exc:  # names the file: cannot read it, or not UTF-8
        raise CommandError(str(exc)) from None
    except ValueError as exc:
        raise CommandError(f"{args.revealed}: not JSON ({exc})") from None
    except RecursionError:  # json reads nesting by recursion: far deeper than any state
        raise CommandError(f"{args.revealed}: nested too deep to be a game's state") from None
    state = doc.get("state", doc) if isinstance(doc, dict) else doc
    catalog = catalog_of(args.catalog)
    try:
        first = verify_deal(catalog, state, args.commitment)
    except DealMismatch as exc:
        print(f"{PROG} verify-deal: {args.revealed}: FAILED: {exc}", file=sys.stderr)
        return 1
    if args.out:
        write_file("--out", args.out, json.dumps(first, ensure_ascii=False, indent=2))
    seen = "matches the commitment given" if args.commitment else "compare it with the one you were shown"
    print(
        f"deal verified: seed commitment {commitment(state['seed'])} ({seen}); dealing again from the "
        f"seed and both decks gives the game's {len(first['cards'])} cards and first player; both files "
        f"are the untouched rest of the deal"
    )
    return 0
