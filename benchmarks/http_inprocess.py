"""The service's cost per request without the network: the production app called as WSGI, in this process.

    .venv/bin/python benchmarks/http_inprocess.py [--requests 3000] [--profile apply] [--breakdown]

Builds the app as ``referee serve`` does (request log on, written to
/dev/null; Prometheus in multiprocess mode in a temporary directory, as under
gunicorn; the bare echo mounted), then calls it with ready-made WSGI environs,
alternating the endpoints in rounds so a shared machine's noise falls on all
of them alike, and prints the CPU time (``time.process_time``) per request of
each, and its ratio to the echo's. What gunicorn adds per request (reading
the socket, parsing HTTP, writing the answer) is the same for every endpoint
and is not in these figures: ``make bench-http`` measures the whole. With
``--profile ENDPOINT`` it prints a cProfile of that endpoint's requests.

With ``--breakdown`` it also times each piece of a request on its own, the
same number of times, in the same rounds (CPU per call, median of rounds):
reading the body, the orjson parse, the duplicate-key check, the engine,
the orjson dump of the answer, the request's start (clock, id) and finish
(metrics, log line, headers); what the whole request costs beyond them is the
path's own (routing, the WSGI answer). For the echo, everything beyond its
parse and dump is Flask's. This is the table of docs/operations.md, "The hot
path".
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

from http_load import midgame_bodies


def make_app() -> Any:
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="referee-bench-metrics-"))
    os.environ["REFEREE_BENCH_ECHO"] = "1"
    from referee.service.app import create_app
    from referee.service.config import Settings

    return create_app(Settings.from_env())


def caller(app: Any, path: str, body: bytes) -> Callable[[], int]:
    base = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    status: list[str] = []

    def start_response(s: str, headers: Any, exc_info: Any = None) -> None:
        status.append(s)

    def call() -> int:
        environ = dict(base)
        environ["wsgi.input"] = io.BytesIO(body)
        out = app(environ, start_response)
        size = sum(len(chunk) for chunk in out)
        getattr(out, "close", lambda: None)()
        if not status[-1].startswith("200"):
            raise SystemExit(f"{path}: {status[-1]}")
        return size

    return call


def pieces(app: Any, bodies: list[dict[str, Any]]) -> dict[str, Callable[[int], Any]]:
    """Each piece of an apply / legal-actions request as a callable of the body's index."""
    from referee import engine
    from referee.service import hooks, metrics
    from referee.service.reading import BodyLimits, _read_raw, repeats_a_key

    ref = app.extensions["referee"]
    catalog = ref.catalog
    limits = BodyLimits(ref.settings.max_body, ref.settings.chunked_body_timeout)
    finish = hooks.finisher(ref)
    raw = [orjson.dumps(b) for b in bodies]
    parsed = [orjson.loads(r) for r in raw]
    applied = [engine.apply(catalog, b["state"], b["action"]) for b in parsed]
    listed = [engine.legal_actions(catalog, b["state"]) for b in parsed]
    envs = [{"CONTENT_LENGTH": str(len(r)), "wsgi.input_terminated": True, "REMOTE_ADDR": "127.0.0.1"} for r in raw]

    def read(i: int) -> Any:
        env = dict(envs[i])
        env["wsgi.input"] = io.BytesIO(raw[i])
        return _read_raw(env, limits)

    def begin_finish(i: int) -> Any:
        env = dict(envs[i])
        hooks.begin(env)
        return finish(env, "game.apply", "POST", "/v1/apply", 200, 3500)

    def start_only(i: int) -> Any:
        return hooks.begin(dict(envs[i]))

    return {
        "read the body": read,
        "orjson.loads": lambda i: orjson.loads(raw[i]),
        "duplicate-key check": lambda i: repeats_a_key(raw[i], parsed[i]),
        "engine.apply (check_state, rule, copy)": lambda i: engine.apply(
            catalog, parsed[i]["state"], parsed[i]["action"]
        ),
        "orjson.dumps of the apply answer": lambda i: orjson.dumps({"state": applied[i][0], "events": applied[i][1]}),
        "engine.legal_actions": lambda i: engine.legal_actions(catalog, parsed[i]["state"]),
        "orjson.dumps of the legal-actions answer": lambda i: orjson.dumps({"actions": listed[i]}),
        "start (clock, request id)": start_only,
        "start + finish (metrics, log line, headers)": begin_finish,
        "metrics.record": lambda i: metrics.record("game.apply", "POST", 200, 0.001, None),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=3000, help="requests per endpoint (default 3000)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--profile", metavar="ENDPOINT", help="print a cProfile of echo, apply or legal-actions")
    ap.add_argument("--breakdown", action="store_true", help="also time each piece of a request on its own")
    args = ap.parse_args()
    devnull = os.open(os.devnull, os.O_WRONLY)
    saved_stderr = os.dup(2)
    bodies = midgame_bodies(64)
    app = make_app()
    calls = {
        "echo": [caller(app, "/bench/echo", orjson.dumps(b)) for b in bodies],
        "apply": [caller(app, "/v1/apply", orjson.dumps(b)) for b in bodies],
        "legal-actions": [caller(app, "/v1/legal-actions", orjson.dumps({"state": b["state"]})) for b in bodies],
    }
    if args.breakdown:
        for name, piece in pieces(app, bodies).items():
            calls[name] = [(lambda f, i: lambda: f(i))(piece, i) for i in range(len(bodies))]  # noqa: B023 (bound by the outer lambda)
    per_round = max(1, args.requests // args.rounds)
    cpu: dict[str, list[float]] = {name: [] for name in calls}
    os.dup2(devnull, 2)  # the request log lines
    try:
        for name in calls:  # warm up
            for f in calls[name]:
                f()
        for _ in range(args.rounds):
            for name, fs in calls.items():
                start = time.process_time()
                for i in range(per_round):
                    fs[i % len(fs)]()
                cpu[name].append((time.process_time() - start) / per_round * 1e6)
        profile = None
        if args.profile:
            profile = cProfile.Profile()
            fs = calls[args.profile]
            profile.enable()
            for i in range(per_round):
                fs[i % len(fs)]()
            profile.disable()
    finally:
        os.dup2(saved_stderr, 2)
    echo = statistics.median(cpu["echo"])
    print(
        f"CPU per request, in-process WSGI, median of {args.rounds} rounds of {per_round} requests "
        f"(log on, multiprocess metrics):"
    )
    for name, values in cpu.items():
        med = statistics.median(values)
        print(
            f"  {name:<44} {med:7.1f} us   x{med / echo:4.2f} the echo's"
            f"   (rounds: {', '.join(f'{v:.0f}' for v in values)})"
        )
    if profile is not None:
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(35)
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
