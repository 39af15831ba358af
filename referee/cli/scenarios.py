"""``referee check``, ``record``, ``replay``, ``recheck`` and ``expand``: scenario files and game archives
(the tooling is referee/scenarios/, the format docs/scenarios.md).

Exit status: 0 all good; 1 a scenario failed or an action was illegal; 2
malformed input (a scenario file, an actions file, a path, a catalog) or the
service could not be reached. Errors are one line each, never a traceback:
a :class:`~referee.cli.common.CommandError`, which names the option and its file once.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from referee.cli.common import (
    PROG,
    CommandError,
    check_writable,
    job_count,
    load_catalog,
    positive_int,
    positive_seconds,
    subcommand,
    write_file,
    write_output,
)

if TYPE_CHECKING:  # imported where a backend is built: a command that needs none loads no engine
    from referee.scenarios.backends import Backend


def _backend(args: argparse.Namespace) -> Backend:
    """The in-process engine (with ``--catalog``) or the service at ``--url``; raises CommandError to stop."""
    if getattr(args, "url", None):
        if args.catalog:
            raise CommandError("--catalog is for in-process runs; the service at --url uses its own catalog")
        from referee.client import RefereeClientError
        from referee.scenarios.backends import CatalogMismatch, Http, PrivateService

        try:
            return Http(args.url, timeout=args.timeout)
        except (RefereeClientError, CatalogMismatch, PrivateService) as exc:
            raise CommandError(f"--url {args.url}: {exc}") from None
    from referee.scenarios.backends import InProcess

    return InProcess(load_catalog(args.catalog))


def _out(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--out", "-o", metavar="FILE", help=f"write {what} to FILE")


def _common(p: argparse.ArgumentParser, url: bool = True) -> None:
    p.add_argument(
        "--catalog",
        metavar="FILE",
        help="catalog file (YAML or JSON, docs/api.md §8) for in-process runs; default the built-in af-ref",
    )
    if url:
        p.add_argument(
            "--url",
            metavar="URL",
            help="run against the referee service at URL (e.g. http://127.0.0.1:8000) instead of in-process",
        )
        p.add_argument(
            "--timeout",
            type=positive_seconds,
            default=30.0,
            metavar="SECONDS",
            help="HTTP timeout per request with --url (default 30)",
        )


# -- check -----------------------------------------------------------------------


def add_check(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommand(
        sub,
        "check",
        cmd_check,
        "run scenario files (rule regression tests) and report",
        (
            "Run every scenario file under the paths (directories are searched for *.yaml and "
            "*.yml) in-process, or against a running service with --url. Prints one line per "
            "scenario, the details of each failure, and a last line 'N passed, M failed' "
            "(', K malformed' added when a file could not be run). "
            "Exit 0 if all passed, 1 if any failed, 2 if a file is malformed. "
            "The format: docs/scenarios.md."
        ),
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="scenario files or directories")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML to FILE (for CI test reports)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only failures and the summary")
    _common(p)
    _spread(p, "files")


def _spread(p: argparse.ArgumentParser, what: str) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        "-j",
        type=job_count,
        metavar="N",
        help=f"check the {what} in N processes (default: one per core); the output is the same",
    )
    where.add_argument(
        "--dask",
        metavar="ADDRESS",
        help=f"check the {what} on the Dask cluster whose scheduler is at ADDRESS "
        "(e.g. tcp://scheduler:8786; needs ace-file-referee[dask] here and on the workers)",
    )


def _on_backend(args: argparse.Namespace, work: Callable[[Any], Any], *errors: type[Exception]) -> tuple[Any, Any]:
    """``(backend, work(backend))`` on the backend the options name, closed after; a :class:`CommandError`
    when it could not be done (a bad option, a lost service or cluster, ``errors``)."""
    from referee.client import RefereeConnectionError
    from referee.scenarios.parallel import PoolError

    backend = _backend(args)
    # a typed tuple: mypy reads no *errors inside an except clause
    caught: tuple[type[Exception], ...] = (RefereeConnectionError, PoolError, *errors)
    try:
        return backend, work(backend)
    except caught as exc:
        raise CommandError(str(exc)) from None
    finally:
        backend.close()


def _on_scenario(
    args: argparse.Namespace, load: Callable[[str], Any], work: Callable[[Any, Any], Any]
) -> tuple[Any, Any]:
    """``(scenario, work(scenario, backend))`` for the scenario ``load(args.file)`` reads; as :func:`_on_backend`."""
    from referee.scenarios.source import ScenarioError

    try:
        sc = load(args.file)
    except ScenarioError as exc:
        raise CommandError(str(exc)) from None
    return sc, _on_backend(args, lambda backend: work(sc, backend), ScenarioError)[1]


def cmd_check(args: argparse.Namespace) -> int:
    from referee.scenarios import junit
    from referee.scenarios.check import NothingToCheck, check, exit_code

    if args.junit:  # before the scenarios run, not after
        check_writable("--junit", args.junit)
    _, (results, seconds) = _on_backend(
        args,
        lambda backend: check(args.paths, backend, quiet=args.quiet, jobs=args.jobs, dask=args.dask),
        NothingToCheck,
    )
    if args.junit:
        write_file("--junit", args.junit, junit.to_xml(results, seconds=seconds))
    return exit_code(results)


# -- record ----------------------------------------------------------------------


def add_record(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommand(
        sub,
        "record",
        cmd_record,
        "play seeded games and write them as game records, scenarios or archive lines",
        (
            "Play a game in-process — random legal actions drawn from --seed, or the actions of "
            "--actions FILE — and write it as a scenario (a golden playthrough) whose 'then' pins the "
            "final state ('referee check' on that file fails the day a rule or a card plays "
            "differently), as a game record (--afr, or --out FILE.afr; docs/records.md), or as an "
            "archive line (--jsonl). --games N plays N random games (seeds SEED-1 ... SEED-N) into the "
            "directory --out (one file each), or into one archive with --jsonl."
        ),
    )
    p.add_argument(
        "--seed", help="the game's seed (decks, shuffle and random choices); default: the game's, else random"
    )
    p.add_argument(
        "--game",
        metavar="FILE",
        help="NewGame (JSON or YAML, docs/api.md §2; decks may use {top: [...]}); "
        "default: two random legal decks from the seed",
    )
    p.add_argument(
        "--actions",
        metavar="FILE",
        help="the actions to play: a JSON or YAML list (references like p0.hand.AF-001 allowed), a "
        "/v1/replay body {game, actions} (its game is played), or a game record (.afr); "
        "default: random legal actions",
    )
    p.add_argument("--max-actions", type=int, metavar="N", help="stop after N actions (default: the game's end)")
    p.add_argument("--games", type=positive_int, default=1, metavar="N", help="play N random games (default 1)")
    p.add_argument("--name", help="the scenario's name (default: 'recorded game, seed S')")
    _out(p, "the scenario or record (default: standard output); with --games N, a directory")
    form = p.add_mutually_exclusive_group()
    form.add_argument(
        "--afr", action="store_true", help="write a game record (docs/records.md); the default for --out *.afr"
    )
    form.add_argument(
        "--jsonl",
        action="store_true",
        help="write the game as one archive line (JSON Lines, for referee recheck) instead of a "
        "scenario; append many to make an archive",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=job_count,
        metavar="N",
        help="with --games, play them in N processes (default: one per core); the files are the same",
    )
    _common(p, url=False)


def _read_data(path: str, what: str) -> Any:
    from referee.scenarios.source import ScenarioError, load_documents

    try:
        docs = load_documents(path)
    except ScenarioError as exc:
        raise CommandError(f"{what} {exc}") from None
    if len(docs) != 1:
        raise CommandError(f"{what} {path}: expected one YAML/JSON document, found {len(docs)}")
    return docs[0].data


def _record_inputs(args: argparse.Namespace, catalog: Any) -> tuple[Any, Any]:
    """The NewGame (or None) and the actions (or None) that --game and --actions name."""
    from referee.scenarios.records_io import is_record, read_record_file
    from referee.scenarios.source import ScenarioError

    game = _read_data(args.game, "--game") if args.game else None
    if game is not None and not isinstance(game, dict):
        raise CommandError(f"--game {args.game}: a NewGame is a mapping with decks")
    if not args.actions:
        return game, None
    if is_record(args.actions):
        try:
            record = read_record_file(args.actions)
            played = record.new_game(catalog)
        except ScenarioError as exc:
            raise CommandError(f"--actions {exc}") from None
        except Exception as exc:  # RecordError: the record names a game this catalog cannot deal
            raise CommandError(f"--actions {args.actions}:{getattr(exc, 'line', 1)}: {exc}") from None
        if game is not None:
            raise CommandError(f"--actions {args.actions}: a game record names its game; give no --game")
        return played, record.actions
    actions = _read_data(args.actions, "--actions")
    if isinstance(actions, dict) and isinstance(actions.get("actions"), list):  # a /v1/replay body
        if "state" in actions:
            raise CommandError(f"--actions {args.actions}: a replay from a state cannot be recorded: give its game")
        if "game" in actions:
            if game is not None:
                raise CommandError(f"--actions {args.actions}: the replay body names its game; give no --game")
            if not isinstance(actions["game"], dict):
                raise CommandError(f"--actions {args.actions}: game: a NewGame is a mapping with decks")
            game = actions["game"]
        actions = actions["actions"]
    elif isinstance(actions, dict) and isinstance(actions.get("when"), list):  # a scenario's when
        actions = actions["when"]
    if not isinstance(actions, list):
        raise CommandError(f"--actions {args.actions}: expected a list of actions, a replay body or a record")
    return game, actions


def cmd_record(args: argparse.Namespace) -> int:
    import secrets

    from referee.scenarios.record import RecordError, record, recorded_text

    if args.max_actions is not None and args.max_actions < 0:
        raise CommandError("--max-actions must be 0 or more")
    form = "jsonl" if args.jsonl else "afr" if args.afr or (args.out or "").endswith(".afr") else "yaml"
    backend = _backend(args)
    game, actions = _record_inputs(args, backend.catalog)
    seed = args.seed or (game or {}).get("seed") or "s-" + secrets.token_hex(8)
    if args.games > 1:
        return _record_many(args, backend, form, game, actions, seed)
    try:
        rec = record(backend.catalog, seed, game, actions, args.max_actions)
    except RecordError as exc:
        print(f"{PROG}: {'illegal action' if exc.illegal else 'error'}: {exc}", file=sys.stderr)
        return 1 if exc.illegal else 2
    played = f"{len(rec.actions)} action(s), {'game over' if rec.over() else 'game not over'}"
    source = f"--actions {args.actions}" if args.actions else "random legal actions"
    text = recorded_text(backend.catalog, rec, form, seed, args.name, source)
    return write_output("--out", args.out, text, played)


def _record_many(args: argparse.Namespace, backend: Backend, form: str, game: Any, actions: Any, seed: str) -> int:
    """--games N: N random games, seeds SEED-1 ... SEED-N, into a directory (one file each) or one archive."""
    from pathlib import Path

    from referee.scenarios.parallel import BackendSpec, PoolError, open_pool
    from referee.scenarios.record import record_batch

    if actions is not None:
        raise CommandError("--games plays random games: give no --actions (a file is one game)")
    if form != "jsonl" and not args.out:
        raise CommandError("--games N writes N files: give the directory with --out")
    if form != "jsonl":
        folder = Path(args.out)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CommandError(f"--out {args.out}: cannot make the directory: {exc.strerror or exc}") from None
    elif args.out:
        check_writable("--out", args.out)
    seeds = [f"{seed}-{i}" for i in range(1, args.games + 1)]
    batches = [seeds[i : i + 8] for i in range(0, len(seeds), 8)]
    suffix = ".afr" if form == "afr" else ".yaml"
    lines: list[str] = []
    try:
        with open_pool(args.jobs, None, items=len(batches)) as pool:
            spec = BackendSpec.of(backend)
            for batch, texts in zip(batches, pool.map(record_batch, batches, spec, form, game, args.max_actions)):
                for one, text in zip(batch, texts):
                    if form == "jsonl":
                        lines.append(text)
                    else:
                        write_file("--out", str(Path(args.out) / f"game-{one}{suffix}"), text)
    except PoolError as exc:
        raise CommandError(str(exc)) from None
    except ValueError as exc:  # a NewGame the referee refuses: the same for every seed
        raise CommandError(f"--game {args.game}: {exc}") from None
    if form == "jsonl":
        return write_output("--out", args.out, "".join(lines), f"{args.games} game(s)")
    print(f"{PROG}: wrote {args.games} game(s) to {args.out}", file=sys.stderr)
    return 0


# -- replay ----------------------------------------------------------------------


def add_replay(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommand(
        sub,
        "replay",
        cmd_replay,
        "check a recorded game end to end; report the first illegal action",
        (
            "Check a recorded game: a game record (.afr, docs/records.md), the body of POST "
            "/v1/replay ({game or state, actions}, JSON or YAML) or a scenario file (its given and "
            "when). Every action must be legal; the first illegal one is reported with its index "
            "(a record's: its line) and rule (exit 1); a record's Result must be the game's."
        ),
    )
    p.add_argument("file", metavar="FILE", help="the recorded game")
    _out(p, "the final state (JSON)")
    _common(p)


def _player_name(state: dict[str, Any], i: Any) -> str:
    """A player by the name in the state, as the table and the referee's details name them."""
    try:
        return str(state["players"][i]["name"])
    except (KeyError, IndexError, TypeError):
        return f"Player {i + 1}" if isinstance(i, int) else str(i)


def cmd_replay(args: argparse.Namespace) -> int:
    from referee.scenarios.assertions import flow, legend
    from referee.scenarios.record import load_replay
    from referee.scenarios.records_io import is_record
    from referee.scenarios.runner import execute

    record = is_record(args.file)
    load: Callable[[str], Any] = load_replay
    if record:  # read against the catalog of the run (its Catalog tag and deck codes are checked)
        catalog = _on_backend(args, lambda backend: backend.catalog)[1]
        load = lambda path: load_replay(path, catalog)  # noqa: E731
    sc, ex = _on_scenario(args, load, lambda sc, backend: execute(sc, backend, fast=False))
    n = len(sc.when)
    if ex.ref_error is not None:
        print(f"{args.file}: action {ex.at} (line {sc.line_of('when', ex.at)}): {ex.ref_error}")
        return 1
    if ex.refusal is not None:
        r = ex.refusal
        if ex.at == "given":
            print(f"{args.file}: the {sc.given_kind} is refused: {r.describe()}")
            return 1 if r.kind == "violation" else 2
        what = f"rule {r.rule} ({r.code})" if r.kind == "violation" else f"error {r.status} ({r.code})"
        if record:
            print(f"{args.file}:{sc.line_of('when', ex.at)}: move {ex.at + 1} of {n} is illegal: {what}: {r.detail}")
        else:
            print(f"{args.file}: action {ex.at} of {n} is illegal: {what}: {r.detail}")
        print(f"  action (line {sc.line_of('when', ex.at)}): {flow(sc.when[ex.at])}")
        key = legend(r.detail, ex.state)
        if key:
            print(f"  ({key})")
        if r.errors:
            for k, v in sorted(r.errors.items()):
                print(f"  {k}: {'; '.join(v)}")
        print(f"{ex.at} of {n} action(s) applied before it")
        return 1 if r.kind == "violation" else 2
    state = ex.state or {}
    res = state.get("result")
    if record and res != sc.then.get("result"):
        said = sc.then.get("result")
        told = "*" if said is None else f"{said['winner']} {said['reason']}"
        got = "*" if res is None else f"{res['winner']} {res['reason']}"
        print(f'{args.file}: all {n} move(s) legal, but the record says [Result "{told}"] and the game gives {got}')
        return 1
    end = (
        f"game over: {_player_name(state, res['winner'])} wins ({res['reason']})"
        if res
        else f"game not over: turn {state.get('turn')}, {state.get('step')} step, "
        f"{_player_name(state, state.get('active'))} to act"
    )
    print(f"{args.file}: all {n} action(s) legal; {end}")
    if args.out:
        write_file("--out", args.out, json.dumps(state, ensure_ascii=False, indent=1) + "\n")
    return 0


# -- recheck ---------------------------------------------------------------------


def add_recheck(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommand(
        sub,
        "recheck",
        cmd_recheck,
        "re-apply every game of an archive; report those whose outcome or legality changes",
        (
            "Play every game of a JSON Lines archive (one 'referee record --jsonl' game per line, "
            "optionally gzip), or of a directory of game records (*.afr, docs/records.md), again with the given catalog (or service), and report each game "
            "whose legality (an action now refused, or no longer) or outcome (the result) differs "
            "from the one recorded, then a summary line. Exit 0 if none changed, 1 if some did, "
            "2 if a line is malformed or the archive cannot be read. The format: docs/scenarios.md."
        ),
    )
    p.add_argument(
        "archive", metavar="ARCHIVE", help="the archive: .jsonl, gzip (.jsonl.gz), or a directory of .afr records"
    )
    p.add_argument("--report", metavar="FILE", help="also write the report as JSON to FILE")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar on a terminal")
    _common(p)
    _spread(p, "games")


def cmd_recheck(args: argparse.Namespace) -> int:
    from referee.scenarios.archive import ArchiveError
    from referee.scenarios.recheck import recheck, report_json

    backend, summary = _on_backend(
        args,
        lambda backend: recheck(args.archive, backend, jobs=args.jobs, dask=args.dask, quiet=args.quiet),
        ArchiveError,
    )
    if args.report:
        write_file("--report", args.report, report_json(args.archive, backend, summary))
    status: int = summary.exit_code()
    return status


# -- expand ----------------------------------------------------------------------


def add_expand(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommand(
        sub,
        "expand",
        cmd_expand,
        "write a scenario or recorded game as a replay file for the table page",
        (
            "Run a scenario file (FILE, or FILE#N for its N-th document), a referee record file or "
            "a /v1/replay body in-process and write what the table page's Replay loads: the game or "
            "state it starts from, every action with instance ids (references resolved; the refused "
            "one included) and 'focus', the action to look at. Open the table page (/table of a running "
            "referee), Replay, and load the file."
        ),
    )
    p.add_argument("file", metavar="FILE", help="a scenario file (FILE#N: its N-th document) or a recorded game")
    _out(p, "it (default: standard output)")
    _common(p, url=False)


def cmd_expand(args: argparse.Namespace) -> int:
    from referee.scenarios.expand import expand, load

    _, replay = _on_scenario(args, load, expand)
    return write_output(
        "--out",
        args.out,
        json.dumps(replay, ensure_ascii=False, indent=1) + "\n",
        "load it in Replay on the table page (/table of a running referee)",
    )
