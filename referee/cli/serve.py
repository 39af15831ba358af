"""``referee serve`` (the HTTP service under gunicorn) and ``referee openapi`` (its OpenAPI document)."""

from __future__ import annotations

import argparse
import glob
import os
import socket
import sys
import tempfile
from collections.abc import MutableMapping
from typing import Any

from referee.cli.common import PROG, CommandError, catalog_of, subcommand, write_output
from referee.cli.common import positive_int as _positive

# -- serve ---------------------------------------------------------------------


def add_serve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
        f"{'on' if settings.secret else 'off'}, private play {_private_play(settings)}{metrics}",
        file=sys.stderr,
        flush=True,
    )
    argv = [sys.executable, "-m", "gunicorn", "--config", "python:referee.service.gunicorn_conf"]
    try:
        os.execv(sys.executable, argv)  # keeps the PID: stopping it stops the server
    except OSError as exc:  # the interpreter cannot be run (permissions, a removed venv)
        raise CommandError(f"cannot start gunicorn with {sys.executable}: {exc.strerror or exc}") from None
    return 0  # pragma: no cover


def _private_play(settings: Any) -> str:
    """``on, ledger sqlite`` / ``on, no ledger`` / ``off``: the ledger's kind (its URL's scheme) only, since the
    URL may hold a password."""
    if not settings.private:
        return "off"
    if settings.ledger is None:
        return "on, no ledger"
    return f"on, ledger {settings.ledger.split(':', 1)[0]}"


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

    catalog = catalog_of(args.catalog)  # first, so that its error names the flag or the variable
    try:
        return Settings.from_env(), catalog
    except ConfigError as exc:
        raise CommandError(str(exc)) from None


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


def add_openapi(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
