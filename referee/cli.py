"""The ``referee`` command: one subcommand per function.

    referee --version                                   the package version
    referee serve [--host H] [--port P] [--workers N]   run the HTTP service (gunicorn);
                  [--metrics-port P] [--catalog FILE]   `referee serve --help` lists every setting
    referee openapi [--output FILE]                     print the OpenAPI document
    referee check | record | replay | recheck ...       scenario files and game archives (docs/scenarios.md)
    referee fuzz CATALOG [--games N] ...                random games checking every invariant (docs/bots.md)
    referee play --bots A,B [--games N] ...             bot against bot (docs/bots.md)
    referee verify-deal REVEALED.json [--commitment C]  check a revealed private game's deal

Also ``python -m referee ...``. To add a subcommand, write ``_add_NAME(sub)``
(``p = subcommand(sub, "NAME", cmd_NAME, summary, description)``, then its
arguments) and ``cmd_NAME(args) -> int``, and list ``_add_NAME`` in
:data:`SUBCOMMANDS`. Errors an operator can fix raise :class:`CommandError`:
one line on stderr (``referee: error: ...``) and exit status 2, never a
traceback; a file is named once (``load_catalog``, ``write_file``).
"""

from __future__ import annotations

import argparse
import glob
import os
import socket
import sys
import tempfile
from collections.abc import Callable, MutableMapping, Sequence
from typing import Any

from referee.bots.cli import add_play
from referee.scenarios.cli import SUBCOMMANDS as SCENARIO_SUBCOMMANDS
from referee.scenarios.cli import CommandError, load_catalog, subcommand, write_file, write_output
from referee.scenarios.cli import positive_int as _positive
from referee.scenarios.fuzz_cli import add_fuzz

PROG = "referee"


# -- serve ---------------------------------------------------------------------


def _add_serve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from referee.service.config import settings_help

    env = os.environ
    p = subcommand(
        sub,
        "serve",
        cmd_serve,
        "run the HTTP service under gunicorn",
        (
            "Run the referee's HTTP service under gunicorn with its checked-in config\n"
            "(referee/service/gunicorn_conf.py). A bad setting stops it with one line."
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=settings_help(),
    )
    # String defaults go through `type` when the flag is absent, so a bad variable is a usage error.
    p.add_argument(
        "--host",
        default=env.get("REFEREE_HOST", "127.0.0.1"),
        help="address to listen on (default 127.0.0.1; 0.0.0.0 in a container)",
    )
    p.add_argument(
        "--port", type=_port, default=env.get("REFEREE_PORT", "8000"), help="port to listen on (default 8000)"
    )
    p.add_argument(
        "--workers",
        type=_positive,
        default=env.get("REFEREE_WORKERS", "2"),
        help="worker processes (default 2; about one per core)",
    )
    p.add_argument(
        "--metrics-port",
        type=_port,
        default=env.get("REFEREE_METRICS_PORT") or None,
        metavar="PORT",
        help="serve /metrics on this port only (default: on the API port)",
    )
    p.add_argument(
        "--catalog",
        metavar="FILE",
        help="catalog file, YAML or JSON (docs/api.md §8); default REFEREE_CATALOG, else the built-in af-ref",
    )


def cmd_serve(args: argparse.Namespace) -> int:
    env = os.environ
    _apply_flags(args, env)
    settings, catalog = _load_settings(args)
    _check_bind(args.host, args.port)
    env["REFEREE_BIND"] = _bind(args.host, args.port)
    if settings.metrics_port is not None:
        if settings.metrics_port == args.port:
            raise CommandError(f"--metrics-port {settings.metrics_port}: the API's port; give another one")
        _check_bind(args.host, settings.metrics_port)
        env["REFEREE_METRICS_BIND"] = _bind(args.host, settings.metrics_port)
    env["REFEREE_WORKERS"] = str(args.workers)
    _prepare_metrics_dir(env)
    _raise_open_files_limit()
    metrics = f", /metrics on port {settings.metrics_port}" if settings.metrics_port is not None else ""
    print(
        f"{PROG}: serving catalog {catalog.id} ({catalog.digest[:19]}...) on "
        f"http://{env['REFEREE_BIND']} with {args.workers} worker(s), sealing "
        f"{'on' if settings.secret else 'off'}, private play {'on' if settings.private else 'off'}{metrics}",
        file=sys.stderr,
        flush=True,
    )
    argv = [sys.executable, "-m", "gunicorn", "--config", "python:referee.service.gunicorn_conf"]
    os.execv(sys.executable, argv)  # keeps the PID: stopping it stops the server
    return 0  # pragma: no cover


def _apply_flags(args: argparse.Namespace, env: MutableMapping[str, str]) -> None:
    """The flags that are also settings of the app, passed on to it (and to gunicorn's workers)."""
    if args.catalog is not None:
        env["REFEREE_CATALOG"] = args.catalog
    if args.metrics_port is None:
        env.pop("REFEREE_METRICS_PORT", None)
    else:
        env["REFEREE_METRICS_PORT"] = str(args.metrics_port)


def _load_settings(args: argparse.Namespace) -> tuple[Any, Any]:
    """The app's settings and catalog, or a one-line error naming the flag or variable."""
    from referee.service.config import ConfigError, Settings

    catalog = _catalog(args.catalog)  # first, so that its error names the flag or the variable
    try:
        return Settings.from_env(), catalog
    except ConfigError as exc:
        raise CommandError(str(exc)) from None


def _catalog(flag: str | None) -> Any:
    """The catalog of ``--catalog``, else of ``REFEREE_CATALOG``, else the built-in one; an error names which."""
    if flag:
        return load_catalog(flag, "--catalog ")
    return load_catalog(os.environ.get("REFEREE_CATALOG") or None, "REFEREE_CATALOG=")


def _prepare_metrics_dir(env: MutableMapping[str, str]) -> None:
    """The directory where the workers share metrics: made if missing, emptied of a previous run's samples.

    Containers mount a fresh ``/tmp`` (compose tmpfs, Kubernetes emptyDir), so the
    image's ``/tmp/referee-metrics`` does not exist at start: it is created here.
    """
    path = env.get("PROMETHEUS_MULTIPROC_DIR")
    if not path:
        env["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="referee-metrics-")
        env["REFEREE_METRICS_DIR_OWNED"] = "1"
        return
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"PROMETHEUS_MULTIPROC_DIR={path}: cannot create it ({exc.strerror})") from None
    if not (os.path.isdir(path) and os.access(path, os.W_OK)):
        raise CommandError(f"PROMETHEUS_MULTIPROC_DIR={path}: not a writable directory")
    for stale in glob.glob(os.path.join(path, "*.db")):
        os.remove(stale)


def _raise_open_files_limit() -> None:
    """Every connection a gevent worker holds is a file descriptor: take the soft limit up to the hard one
    (``ulimit -n`` is often 1,024 soft); an operator's lower hard limit stays, and the workers survive it."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass


def _bind(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _check_bind(host: str, port: int) -> None:
    """Fail now, in one line, if the address cannot be listened on."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise CommandError(f"--host {host}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise CommandError(f"cannot listen on {_bind(host, port)}: {exc.strerror}") from None


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}")
    return value


# -- openapi -------------------------------------------------------------------


def _add_openapi(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subcommand(
        sub,
        "openapi",
        cmd_openapi,
        "print the OpenAPI document (what `make openapi` writes to openapi.yaml)",
        "Print the OpenAPI document generated from the marshmallow schemas.",
    )
    p.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of standard output")


def cmd_openapi(args: argparse.Namespace) -> int:
    from referee.service.app import create_app, openapi_yaml
    from referee.service.config import Settings

    text = openapi_yaml(create_app(Settings(log_requests=False)))
    return write_output("--output", args.output, text)


# -- verify-deal ---------------------------------------------------------------


def _add_verify_deal(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    state = doc.get("state", doc) if isinstance(doc, dict) else doc
    catalog = _catalog(args.catalog)
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


# -- the dispatcher ------------------------------------------------------------

# check, record, replay, recheck, expand: scenario files and archives for users' CI
# (referee/scenarios/cli.py, docs/scenarios.md).
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = [
    _add_serve,
    _add_openapi,
    *SCENARIO_SUBCOMMANDS,
    add_fuzz,  # referee/scenarios/fuzz_cli.py
    add_play,  # referee/bots/cli.py
    _add_verify_deal,
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
