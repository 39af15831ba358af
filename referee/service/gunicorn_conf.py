"""Gunicorn configuration of ``referee serve`` (``gunicorn -c python:referee.service.gunicorn_conf``).

Read from the environment that ``referee serve`` prepares (and checks, with
:class:`referee.service.config.Settings`): ``REFEREE_BIND``
(``127.0.0.1:8000``), ``REFEREE_METRICS_BIND`` (unset), ``REFEREE_WORKERS`` (2), ``REFEREE_WORKER_CLASS``
(``buffering``), ``REFEREE_CLIENT_TIMEOUT`` (10 s), ``REFEREE_TIMEOUT`` (30 s),
``REFEREE_DRAIN_SECONDS`` (5) and ``PROMETHEUS_MULTIPROC_DIR``.

- Workers (:mod:`referee.service.worker`): each request is read whole and
  each answer written in an event loop (:mod:`referee.service.buffering`), so
  idle, trickling or non-reading sockets cannot hold a worker; each request
  is short and CPU-bound and runs to its end as under sync workers. Scale
  with workers (≈ one per core) and replicas.
- ``preload_app``: the catalog and the OpenAPI document are built once, in
  the master, before forking; a bad catalog stops the start-up.
- Shutdown: SIGTERM to the master marks the shutdown for the workers, which
  turn ``/readyz`` to 503, keep serving for ``REFEREE_DRAIN_SECONDS`` (so a
  load balancer can take the replica out of rotation), then finish their
  requests and exit. A reload (SIGHUP) replaces workers without ever
  reporting unready. SIGINT/SIGQUIT stop at once.
- Metrics: dead workers are marked (``child_exit``) in the Prometheus
  multiprocess directory (``referee serve`` empties it before starting
  gunicorn), which is removed at exit when ``referee serve`` created it.
- Logs: JSON lines on stderr; gunicorn's access log is off because the app
  writes its own line per request (with the request id). Off for real: with
  a ``logconfig_dict`` gunicorn's own logger would build every request's
  access-log atoms only to drop them (4% of a request's time), so
  :class:`QuietAccessLogger` skips that.
"""

import os
import shutil

from gunicorn.glogging import Logger

from referee.service import worker as referee_worker
from referee.service.config import DEFAULT_CLIENT_TIMEOUT, DEFAULT_DRAIN

bind = [os.environ.get("REFEREE_BIND", "127.0.0.1:8000")]
if os.environ.get("REFEREE_METRICS_BIND"):  # REFEREE_METRICS_PORT: /metrics alone on a second listener
    bind.append(os.environ["REFEREE_METRICS_BIND"])
workers = int(os.environ.get("REFEREE_WORKERS", "2"))
worker_class = {
    "buffering": "referee.service.worker.BufferingWorker",
    "gevent": "referee.service.worker.GeventWorker",
    "sync": "referee.service.worker.SyncWorker",
}[os.environ.get("REFEREE_WORKER_CLASS", "").strip().lower() or "buffering"]
worker_connections = 1000  # per buffering or gevent worker; more wait in the backlog
# The client deadline: the whole head within it, then the whole body (buffering; gevent: each body read).
keepalive = max(1, round(float(os.environ.get("REFEREE_CLIENT_TIMEOUT", "") or DEFAULT_CLIENT_TIMEOUT)))
wsgi_app = "referee.service.wsgi:app"
preload_app = True
timeout = int(os.environ.get("REFEREE_TIMEOUT", "30"))
_drain = float(os.environ.get("REFEREE_DRAIN_SECONDS", "") or DEFAULT_DRAIN)
graceful_timeout = int(_drain) + 30
backlog = 2048
limit_request_line = 4094
limit_request_fields = 100
control_socket_disable = True  # gunicorn ≥ 23's admin socket: not needed, and $HOME may be read-only
accesslog = None


class QuietAccessLogger(Logger):
    """Gunicorn's logger with no access log at all (the app writes the request's line itself)."""

    access_log_enabled = False  # gunicorn ≥ 25 asks this before building a line

    def access(self, resp, req, environ, request_time):  # older gunicorns
        return None


logger_class = QuietAccessLogger
errorlog = "-"
loglevel = os.environ.get("REFEREE_LOG_LEVEL", "info").lower()
proc_name = "referee"
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
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


def _metrics_dir():
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def when_ready(server):
    server.log.info("referee ready: %s, %d worker(s)", ", ".join(bind), workers)
    handle_term = server.handle_term

    def stopping():  # SIGTERM to the master: tell the workers it is a shutdown, not a reload
        referee_worker.mark_shutting_down()
        handle_term()

    server.handle_term = stopping


def post_worker_init(worker):
    referee = worker.wsgi.extensions["referee"]
    from referee.service import metrics

    metrics.publish_config(referee.catalog, referee.fingerprints())  # this worker's samples


def child_exit(server, worker):
    if _metrics_dir():
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    path = _metrics_dir()
    if path and os.environ.get("REFEREE_METRICS_DIR_OWNED") == "1":
        shutil.rmtree(path, ignore_errors=True)
