"""Gunicorn configuration of ``referee serve`` (``gunicorn -c python:referee.service.gunicorn_conf``).

Read from the environment that ``referee serve`` prepares:
``REFEREE_BIND`` (``127.0.0.1:8000``), ``REFEREE_METRICS_BIND`` (unset),
``REFEREE_WORKERS`` (2),
``REFEREE_TIMEOUT`` (30 s), ``REFEREE_DRAIN_SECONDS`` (0) and
``PROMETHEUS_MULTIPROC_DIR``.

- Sync workers: every request is short and CPU-bound, so one request per
  worker process at a time is the fastest model; scale with workers (≈ one
  per core) and replicas.
- ``preload_app``: the catalog and the OpenAPI document are built once, in
  the master, before forking; a bad catalog stops the start-up.
- Shutdown: on SIGTERM a worker turns ``/readyz`` to 503, keeps serving for
  ``REFEREE_DRAIN_SECONDS`` (so a load balancer can take it out of rotation),
  then finishes its request and exits. SIGINT/SIGQUIT stop at once.
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
import signal
import threading

from gunicorn.glogging import Logger

bind = [os.environ.get("REFEREE_BIND", "127.0.0.1:8000")]
if os.environ.get("REFEREE_METRICS_BIND"):  # REFEREE_METRICS_PORT: /metrics alone on a second listener
    bind.append(os.environ["REFEREE_METRICS_BIND"])
workers = int(os.environ.get("REFEREE_WORKERS", "2"))
worker_class = "sync"
wsgi_app = "referee.service.wsgi:app"
preload_app = True
timeout = int(os.environ.get("REFEREE_TIMEOUT", "30"))
_drain = float(os.environ.get("REFEREE_DRAIN_SECONDS", "0") or 0)
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


def post_worker_init(worker):
    """SIGTERM: /readyz 503 at once, keep serving for the drain time, then stop."""
    referee = worker.wsgi.extensions["referee"]
    from referee.service import metrics

    metrics.CATALOG.labels(referee.catalog.id, referee.catalog.digest).set(1)  # this worker's sample

    def stop():
        worker.alive = False
        try:
            os.write(worker.PIPE[1], b"1")  # wake the worker's select()
        except OSError:
            pass

    def on_term(signum, frame):
        if referee.draining:
            return
        referee.draining = True
        if _drain <= 0:
            stop()
            return
        timer = threading.Timer(_drain, stop)
        timer.daemon = True
        timer.start()

    signal.signal(signal.SIGTERM, on_term)
    signal.siginterrupt(signal.SIGTERM, False)


def child_exit(server, worker):
    if _metrics_dir():
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    path = _metrics_dir()
    if path and os.environ.get("REFEREE_METRICS_DIR_OWNED") == "1":
        shutil.rmtree(path, ignore_errors=True)
