"""``referee deck``: check deck lists and convert between lists and codes (docs/formats.md).

    referee deck validate FILE... [--format F] [--catalog C]   every problem, as FILE:LINE: ...
    referee deck code FILE [--catalog C]                         the deck code of a deck list
    referee deck list CODE [--catalog C]                         the deck list of a deck code

``validate`` exits 0 when every deck is legal, 1 when one is not, 2 when a file cannot be read
(the other files are still checked). A FILE of ``-`` is standard input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from referee.cli.common import CommandError, catalog_of, read_text, subcommand

EXIT_ILLEGAL = 1
EXIT_UNREADABLE = 2


def add_deck(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommand(
        sub,
        "deck",
        _no_action,
        "check deck lists, convert lists and codes",
        "Deck lists and deck codes (docs/api.md §13): check them, convert between them.",
    )
    actions = p.add_subparsers(dest="deck_command", metavar="ACTION", required=True)
    v = subcommand(
        actions,
        "validate",
        cmd_validate,
        "every problem of each deck list, as FILE:LINE",
        "Check deck lists against RULES 3 (and a format's 3.6–3.8). Exit 0: all legal; 1: a deck is "
        "illegal or does not read; 2: a file cannot be read.",
    )
    v.add_argument("files", nargs="+", metavar="FILE", help="deck list files (or deck codes in a file); - for stdin")
    v.add_argument("--format", metavar="F", help="a format id, or ID@YYYY-MM-DD for the revision in force that day")
    v.add_argument("--catalog", metavar="C", help="catalog file (default: REFEREE_CATALOG, else the built-in one)")
    c = subcommand(actions, "code", cmd_code, "the deck code of a deck list", "Print the deck code of a deck list.")
    c.add_argument("file", metavar="FILE", help="a deck list file; - for stdin")
    c.add_argument("--catalog", metavar="C", help="catalog file (default: REFEREE_CATALOG, else the built-in one)")
    ls = subcommand(actions, "list", cmd_list, "the deck list of a deck code", "Print the deck list of a deck code.")
    ls.add_argument("code", metavar="CODE", help="a deck code (afd1.…)")
    ls.add_argument("--catalog", metavar="C", help="catalog file (default: REFEREE_CATALOG, else the built-in one)")


def _no_action(args: argparse.Namespace) -> int:  # pragma: no cover - argparse requires an action
    raise CommandError("deck: name an action (validate, code, list)")


def _format_of(catalog: Any, text: str | None) -> Any:
    if not text:
        return None
    fid, _, day = text.partition("@")
    from referee.engine import InvalidInput

    try:
        return catalog.format_revision({"id": fid, "date": day} if day else fid, "--format")
    except InvalidInput as exc:
        raise CommandError("--format " + " ".join(m for msgs in exc.errors.values() for m in msgs)) from None


def _problems(catalog: Any, text: str, played: Any) -> list[tuple[int | None, str]]:
    """(line or None, message) for every problem of one deck: its bad lines, or its rule violations."""
    from referee.engine import InvalidInput
    from referee.engine.decklists import read_deck
    from referee.engine.setup import deck_violations

    try:
        deck = read_deck(catalog, text, "")
    except InvalidInput as exc:
        out: list[tuple[int | None, str]] = []
        for path, messages in exc.errors.items():
            line = int(path.rsplit(".", 1)[-1]) if path.startswith("line.") else None
            out.extend((line, m) for m in messages)
        return out
    return [
        (v.params.get("line"), f"RULES {v.rule} ({v.code}): {v.detail('en')}")
        for v in deck_violations(catalog, deck, played)
    ]


def cmd_validate(args: argparse.Namespace) -> int:
    catalog = catalog_of(args.catalog)
    played = _format_of(catalog, args.format)
    status = 0
    for path in args.files:
        try:
            text = read_text(path)
        except CommandError as exc:
            print(f"referee: error: {exc}", file=sys.stderr)
            status = EXIT_UNREADABLE
            continue
        problems = _problems(catalog, text, played)
        for line, message in problems:
            print(f"{path}:{line}: {message}" if line else f"{path}: {message}")
        if problems and status == 0:
            status = EXIT_ILLEGAL
        if not problems:
            print(f"{path}: legal")
    return status


def _counts_of(catalog: Any, text: str, where: str) -> dict[str, int]:
    from referee.engine import InvalidInput
    from referee.engine.decklists import read_deck

    try:
        return dict(read_deck(catalog, text, "").counts)
    except InvalidInput as exc:
        path, messages = next(iter(exc.errors.items()))
        line = path.rsplit(".", 1)[-1] if path.startswith("line.") else None
        more = f" (and {len(exc.errors) - 1} more)" if len(exc.errors) > 1 else ""
        raise CommandError(f"{where}{':' + line if line else ''}: {messages[0]}{more}") from None


def cmd_code(args: argparse.Namespace) -> int:
    from referee.engine.decklists import deck_code

    catalog = catalog_of(args.catalog)
    counts = _counts_of(catalog, read_text(args.file), args.file)
    try:
        print(deck_code(catalog, counts))
    except ValueError as exc:
        raise CommandError(f"{args.file}: no deck code: {exc}") from None
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from referee.engine import InvalidInput
    from referee.engine.decklists import counts_from_code, deck_list_text

    catalog = catalog_of(args.catalog)
    try:
        counts = counts_from_code(catalog, args.code)
    except InvalidInput as exc:
        raise CommandError(f"deck code: {exc.detail}") from None
    sys.stdout.write(deck_list_text(catalog, counts) or "")
    return 0
