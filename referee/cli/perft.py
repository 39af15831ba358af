"""``referee perft``: golden counts of action sequences from a position (docs/perft.md)."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from referee.cli.common import CommandError, catalog_of, subcommand


def add_perft(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommand(
        sub,
        "perft",
        cmd_perft,
        "count the legal action sequences from a position to a depth (golden counts)",
        (
            "Count the distinct sequences of N legal actions from a position, as legal-actions lists "
            "them: response windows included, shuffles as the seed decides, a game over before N adds "
            "nothing. Another implementation of the rules checks itself against these counts "
            "(docs/perft.md). Prints the count, the seconds and the counts per second."
        ),
    )
    p.add_argument("--depth", type=int, default=3, metavar="N", help="how many actions deep (default 3)")
    p.add_argument(
        "--position",
        metavar="FILE",
        help="a game record (.afr: the position after its last move), or JSON/YAML: a state, a NewGame "
        "(its deal) or a /v1/replay body; default: the deal of docs/perft.md's opening",
    )
    p.add_argument("--divide", action="store_true", help="also print each legal action now with its own count")
    p.add_argument("--catalog", metavar="FILE", help="catalog file; default REFEREE_CATALOG, else the built-in af-ref")


def _position(path: str | None, catalog: Any) -> Any:
    from referee.engine import RefereeError, Session
    from referee.engine.perft import opening
    from referee.scenarios.records_io import is_record, read_record_file
    from referee.scenarios.source import ScenarioError, load_documents

    if path is None:
        return opening(catalog)
    try:
        if is_record(path):
            record = read_record_file(path)
            try:
                body: Any = record.replay_body(catalog)
            except RefereeError as exc:
                raise CommandError(
                    f"--position {path}:{getattr(exc, 'line', 1)}: {getattr(exc, 'message', exc)}"
                ) from None
        else:
            docs = load_documents(path)
            if len(docs) != 1:
                raise CommandError(f"--position {path}: expected one YAML/JSON document, found {len(docs)}")
            body = docs[0].data
    except ScenarioError as exc:
        raise CommandError(f"--position {exc}") from None
    if not isinstance(body, dict):
        raise CommandError(f"--position {path}: a state, a NewGame, a replay body or a record")
    try:
        if "actions" in body:
            start = {k: body[k] for k in ("game", "state") if k in body}
            session = (
                Session.new(catalog, start["game"])[0]
                if "game" in start
                else Session.from_state(catalog, start.get("state"))
            )
            session.replay(body["actions"])
            return session.state
        if "decks" in body:
            return Session.new(catalog, body)[0].state
        return Session.from_state(catalog, body).state
    except RefereeError as exc:
        raise CommandError(f"--position {path}: {exc}") from None


def cmd_perft(args: argparse.Namespace) -> int:
    from referee.engine.perft import divide, perft

    if not 0 <= args.depth <= 64:
        raise CommandError("--depth must be 0 to 64")
    catalog = catalog_of(args.catalog)
    state = _position(args.position, catalog)
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        rows = divide(catalog, state, args.depth)
        for action, count in rows:
            print(f"{json.dumps(action, ensure_ascii=False, separators=(',', ':'))} {count}")
        total = sum(count for _, count in rows)
    else:
        total = perft(catalog, state, args.depth)
    seconds = time.perf_counter() - start
    rate = f"{total / seconds:,.0f}/s" if seconds > 0 else "-"
    print(f"depth {args.depth}: {total} sequences ({seconds:.2f} s, {rate})")
    if total == 0:
        print(_why_none(state, args.depth))
    return 0


def _why_none(state: Any, depth: int) -> str:
    """Why a count is 0: the game is already over, or every line ends before ``depth`` actions."""
    result = state.get("result")
    if result is not None:
        return (
            f"the game is over (player {result['winner']} won, {result['reason']}): no action is legal "
            "after the end (RULES 11.3), so no sequence has even one action"
        )
    return f"every line of play ends (the game is over) before {depth} actions"
