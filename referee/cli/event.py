"""``referee event``: events (tournaments) on the command line (docs/events.md, docs/api.md §17).

    referee event new --players NAMES.txt --seed S [--best-of 3] [--cut N] [--swiss-rounds N] [--output F]
    referee event pair FILE [--write] [--json]      the next round's pairings (--write: into FILE)
    referee event standings FILE [--json]           the standings as a table (--json: the whole answer)
    referee event check FILE                        every round against RULES 15: exit 0, or 1 and the rule

FILE is an event document in JSON or YAML (``.yaml``/``.yml``); ``-`` is standard input. Whatever
is not an event, or a refusal of ``pair``, is one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import orjson
import yaml

from referee import events
from referee.cli.common import CommandError, positive_int, read_text, subcommand, write_file, write_output
from referee.engine.yaml_text import YamlTextError, parse_document

EXIT_BROKEN = 1  # `check`: a rule is broken


def add_event(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommand(
        sub,
        "event",
        _no_action,
        "events: pair rounds, standings, check pairings",
        "Events (tournaments, RULES 15): start a document, pair its next round, print its standings, "
        "check its pairings. FILE is JSON or YAML (.yaml, .yml); - is standard input.",
    )
    actions = p.add_subparsers(dest="event_command", metavar="ACTION", required=True)
    new = subcommand(
        actions, "new", cmd_new, "a new event's document", "Print a new event's document, one player a name."
    )
    new.add_argument("--players", required=True, metavar="NAMES", help="a text file, one player's name a line")
    new.add_argument("--seed", required=True, metavar="S", help="the event's seed (round 1's order, RULES 15.5)")
    new.add_argument("--best-of", type=int, choices=(1, 3, 5), default=3, help="games a match (default 3)")
    new.add_argument("--cut", type=int, choices=(0, 2, 4, 8), default=0, help="the top cut (default 0: none)")
    new.add_argument("--swiss-rounds", type=positive_int, metavar="N", help="default ⌈log₂ players⌉")
    new.add_argument("--output", metavar="FILE", help="write the document there (default: standard output)")
    pair = subcommand(actions, "pair", cmd_pair, "the next round's pairings", "Pair the event's next round.")
    pair.add_argument("file", metavar="FILE")
    pair.add_argument("--write", action="store_true", help="write the event with its new round back into FILE")
    pair.add_argument("--json", action="store_true", help="print the whole answer as JSON")
    table = subcommand(actions, "standings", cmd_standings, "the standings", "Print the standings and ratings.")
    table.add_argument("file", metavar="FILE")
    table.add_argument("--json", action="store_true", help="print the answer as JSON")
    check = subcommand(
        actions,
        "check",
        cmd_check,
        "check every round against RULES 15",
        "Check every round's pairings and results: exit 0 when all obey RULES 15, 1 naming the first rule "
        "broken (round and table), 2 when FILE is not an event.",
    )
    check.add_argument("file", metavar="FILE")


def _no_action(args: argparse.Namespace) -> int:  # pragma: no cover - argparse requires an action
    raise CommandError("event: name an action (new, pair, standings, check)")


def _is_yaml(path: str) -> bool:
    return path.endswith((".yaml", ".yml"))


def read_document(path: str) -> Any:
    """The JSON or YAML document of ``path``; a :class:`CommandError` naming the file when it does not read."""
    text = read_text(path)
    try:
        if _is_yaml(path):
            return parse_document(text, path).data
        return orjson.loads(text)
    except YamlTextError as exc:
        raise CommandError(str(exc)) from None
    except orjson.JSONDecodeError as exc:
        raise CommandError(f"{path}: not JSON: {exc}") from None


def _asked(path: str, work: Any) -> Any:
    """``work`` on the document of ``path``; its refusal one line naming the file."""
    document = read_document(path)
    try:
        return work(document)
    except events.EventInputError as exc:
        raise CommandError(f"{path}: not an event: {exc.detail}") from None
    except events.EventRefusal as exc:
        raise CommandError(f"{path}: {_refusal(exc)}") from None


def _refusal(exc: events.EventRefusal) -> str:
    where = "".join(f" {k} {v}" for k, v in (("round", exc.round), ("table", exc.table)) if v is not None)
    return f"{where.strip() + ': ' if where else ''}RULES {exc.rule} ({exc.code}): {exc.detail}"


def _dumps(value: Any, as_yaml: bool) -> str:
    if as_yaml:
        return str(yaml.safe_dump(value, allow_unicode=True, sort_keys=False))
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n"


def cmd_new(args: argparse.Namespace) -> int:
    names = [line.strip() for line in read_text(args.players).splitlines() if line.strip()]
    try:
        document = events.new_event(names, args.seed, args.best_of, args.cut, args.swiss_rounds)
    except events.EventInputError as exc:
        raise CommandError(f"{args.players}: {exc.detail}") from None
    return write_output("--output", args.output, _dumps(document, bool(args.output and _is_yaml(args.output))))


def cmd_pair(args: argparse.Namespace) -> int:
    answer = _asked(args.file, events.pair)
    if args.write:
        if args.file == "-":
            raise CommandError("--write needs a FILE, not standard input")
        write_file("--write", args.file, _dumps(answer["event"], _is_yaml(args.file)))
    if args.json:
        sys.stdout.write(_dumps(answer, False))
    elif answer.get("swiss_ended"):
        print("No pairing without a rematch is left: the Swiss rounds end (RULES 15.5).")
    else:
        print(f"Round {answer['round']}")
        for pairing in answer["pairings"]:
            if "bye" in pairing:
                print(f"  bye       {pairing['bye']}")
            else:
                print(f"  table {pairing['table']:<3} {pairing['players'][0]} – {pairing['players'][1]}")
    return 0


COLUMNS = ("rank", "player", "match_points", "record", "omw", "gw", "ogw", "rating")
HEADINGS = ("#", "player", "points", "record", "OMW", "GW", "OGW", "rating")


def standings_table(answer: dict[str, Any]) -> str:
    """The standings as aligned text: rank, player, points, record, OMW, GW, OGW, rating; the winner below."""
    rows = [list(HEADINGS)]
    for row in answer["standings"]:
        rating = answer["ratings"][row["player"]]
        cells = {**row, "rating": f"{rating['rating']:.0f} ±{rating['rd']:.0f}"}
        cells.update({k: f"{row[k]:.4f}" for k in ("omw", "gw", "ogw")})
        name = row["player"] + (" (dropped)" if row["dropped"] else "")
        rows.append([str(cells[c]) if c != "player" else name for c in COLUMNS])
    widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
    lines = [
        "  ".join(cell.ljust(w) if i == 1 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths, strict=True)))
        for r in rows
    ]
    if "winner" in answer:
        lines.append(f"Winner: {answer['winner']}")
    return "\n".join(line.rstrip() for line in lines) + "\n"


def cmd_standings(args: argparse.Namespace) -> int:
    answer = _asked(args.file, events.standings)
    sys.stdout.write(_dumps(answer, False) if args.json else standings_table(answer))
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    document = read_document(args.file)
    try:
        events.check(document)
    except events.EventInputError as exc:
        raise CommandError(f"{args.file}: not an event: {exc.detail}") from None
    except events.EventRefusal as exc:
        print(f"{args.file}: {_refusal(exc)}")
        return EXIT_BROKEN
    print(f"{args.file}: ok")
    return 0
