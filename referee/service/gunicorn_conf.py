"""Gunicorn configuration of ``referee serve`` (``gunicorn -c python:referee.service.gunicorn_conf``).

Every value comes from the one settings table, :mod:`referee.service.config`
(:meth:`Settings.from_env`, which ``referee serve`` has already checked), and
from the two addresses ``referee serve`` prepares: ``REFEREE_BIND``
(``127.0.0.1:8000``) and ``REFEREE_METRICS_BIND`` (unset). No default is
written twice.

- Workers (:mod:`referee.service.worker`): gunicorn's own ``gevent`` (the
  default: a greenlet per connection, up to ``REFEREE_WORKER_CONNECTIONS``
  each, so idle, trickling or non-reading sockets cannot hold a worker) or
  ``sync`` (only behind a buffering proxy). Each request is short and
  CPU-bound and runs to its end. Scale with workers (≈ one per core) and
  replicas.
- ``preload_app``: the catalog and the OpenAPI document are built once, in
  the master, before forking; a bad catalog stops the start-up.
- Shutdown: SIGTERM to the master marks the shutdown for the workers, which
  turn ``/readyz`` to 503, keep serving for ``REFEREE_DRAIN_SECONDS`` (so a
  load balancer can take the replica out of rotation), then finish their
  requests and exit. A reload (SIGHUP) replaces workers without ever
  reporting unready. SIGINT/SIGQUIT stop at once. A worker holds these stop
  signals blocked from its fork until its own handlers are in place
  (``WORKER_STOP_SIGNALS``), so one sent as it boots is not lost.
- Metrics: dead workers are marked (``child_exit``,
  ``prometheus_client.multiprocess.mark_process_dead``) in the Prometheus
  multiprocess directory (``referee serve`` empties it before starting
  gunicorn), so a replaced worker leaves no live-gauge file behind; the
  directory is removed at exit when ``referee serve`` created it.
- Garbage collection: the master freezes what it has loaded (``gc.freeze``
  before each fork: the catalog, the app, the modules), and each worker
  collects its young objects every ``GC_YOUNG`` allocations instead of
  CPython's 700. A request that waits for the ledger keeps its parsed state
  alive meanwhile; with a few dozen waiting, the young generation passed 700
  every few requests, and each collection walked live objects it could not
  free, and promoted them, until a full collection walked everything loaded
  as well: 18 µs a request with a SQLite ledger at 32 connections, 0.4 µs
  now (docs/decisions.md, "The gunicorn master freezes; young collections every 3,000").
- Logs: JSON lines on stderr; gunicorn's access log is off because the app
  writes its own line per request (with the request id). Off for real: with
  a ``logconfig_dict`` gunicorn's own logger would build every request's
  access-log atoms only to drop them (4% of a request's time), so
  :class:`QuietAccessLogger` skips that.
"""

import gc
import os
import shutil
import signal
from typing import Any

from gunicorn.glogging import Logger

from referee.service import worker as referee_worker
from referee.service.config import Settings

_settings = Settings.from_env()

bind = [os.environ.get("REFEREE_BIND", "127.0.0.1:8000")]
if os.environ.get("REFEREE_METRICS_BIND"):  # REFEREE_METRICS_PORT: /metrics alone on a second listener
    bind.append(os.environ["REFEREE_METRICS_BIND"])
workers = _settings.workers
worker_class = {
    "gevent": "referee.service.worker.GeventWorker",
    "sync": "referee.service.worker.SyncWorker",
}[_settings.worker_class]
worker_connections = _settings.worker_connections  # per gevent worker; more wait in the backlog
# The client deadline: the whole head within it (gevent), each body read and answer write within it.
keepalive = max(1, round(_settings.client_timeout))
wsgi_app = "referee.service.wsgi:app"
preload_app = True
timeout = _settings.worker_timeout
graceful_timeout = int(_settings.drain_seconds) + 30
backlog = 2048
limit_request_line = 4094
limit_request_fields = 100
control_socket_disable = True  # gunicorn ≥ 23's admin socket: not needed, and $HOME may be read-only
accesslog = None


class QuietAccessLogger(Logger):
    """Gunicorn's logger with no access log at all (the app writes the request's line itself)."""

    access_log_enabled = False  # gunicorn ≥ 25 asks this before building a line

    def access(self, resp: Any, req: Any, environ: Any, request_time: Any) -> None:  # older gunicorns
        return None


logger_class = QuietAccessLogger
errorlog = "-"
loglevel = _settings.log_level
proc_name = "referee"
forwarded_allow_ips = _settings.forwarded_allow_ips
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "referee.service.logs.JsonFormatter"}},
    "handlers": {
        "stderr": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"},
    },
    "root": {"handlers": ["stderr"], "level": "WARNING"},
    "loggers": {
        "gunicorn.error": {"handlers": ["stderr"], "level": loglevel.upper(), "propagate": False},
        "gunicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
    },
}


def _metrics_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


# Young objects between two collections in a worker (CPython's default is 700; 3.13's, 2,000).
GC_YOUNG = 3000


# The signals a worker stops on (the master sends them; SIGINT also comes from a terminal). From its
# fork until post_worker_init a worker holds them blocked, so that one sent meanwhile waits for the
# worker's own handler. Unblocked, it reached the master's handler that the fork had copied, which
# dropped it: a SIGTERM to the master just after it started a worker left that worker serving, and
# the master waited its whole graceful timeout before killing it.
WORKER_STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGQUIT, signal.SIGINT})
_forking_a_worker = False


def pre_fork(server: Any, worker: Any) -> None:
    global _forking_a_worker
    gc.freeze()  # what the master loaded is never garbage: no worker's collection walks it again
    signal.pthread_sigmask(signal.SIG_BLOCK, WORKER_STOP_SIGNALS)
    _forking_a_worker = True


def _after_fork_in_master() -> None:
    global _forking_a_worker
    if _forking_a_worker:  # gunicorn's fork of a worker, not another fork of this process
        _forking_a_worker = False
        signal.pthread_sigmask(signal.SIG_UNBLOCK, WORKER_STOP_SIGNALS)


os.register_at_fork(after_in_parent=_after_fork_in_master)


def post_fork(server: Any, worker: Any) -> None:
    gc.set_threshold(GC_YOUNG, *gc.get_threshold()[1:])


def when_ready(server: Any) -> None:
    server.log.info("referee ready: %s, %d worker(s)", ", ".join(bind), workers)
    handle_term = server.handle_term

    def stopping() -> None:  # SIGTERM to the master: tell the workers it is a shutdown, not a reload
        referee_worker.mark_shutting_down()
        handle_term()

    server.handle_term = stopping


def post_worker_init(worker: Any) -> None:
    referee = worker.wsgi.extensions["referee"]
    from referee.service import metrics

    metrics.publish_config(referee.catalog, referee.fingerprints())  # this worker's samples
    referee.heavy.helpers.start()  # heavy work's helpers import now, not in the first hint's budget
    # Its handlers are in place and its app loaded: a stop signal sent since its fork arrives now.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, WORKER_STOP_SIGNALS)


def child_exit(server: Any, worker: Any) -> None:
    if _metrics_dir():
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def on_exit(server: Any) -> None:
    path = _metrics_dir()
    if path and os.environ.get("REFEREE_METRICS_DIR_OWNED") == "1":
        shutil.rmtree(path, ignore_errors=True)
