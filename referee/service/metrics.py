"""Prometheus metrics, correct under several gunicorn workers.

``referee serve`` sets ``PROMETHEUS_MULTIPROC_DIR`` (a fresh temporary
directory unless the operator gives one) before gunicorn starts, so every
worker writes its samples to memory-mapped files there and ``/metrics``, in
whichever worker answers, aggregates them all. Only prometheus_client's public
API writes them (``labels()``, ``inc()``, ``observe()``, ``set()``): about
3.3 µs per request against 1.3–1.7 µs for the slot writes this module once
made into the client's private mmap layout, well under 1% of a request's
CPU (docs/performance.md, "HTTP"). The gunicorn config calls
``multiprocess.mark_process_dead`` for every worker that exits
(``child_exit``): the info gauges are ``livemax``, so a dead or replaced
worker leaves no gauge file behind (its counters' files stay, as they must:
the totals include what it counted). Without the variable (tests, a single
process) the default registry is used.

Metrics:

Every label value comes from a fixed set, never from the client: ``method``
is GET, POST, OPTIONS or ``other``; ``endpoint`` an endpoint of the route
table or ``unmatched``; ``status`` a status the service answers.

- ``referee_requests_total{endpoint,method,status}``
- ``referee_request_duration_seconds{endpoint}`` (histogram)
- ``referee_violations_total{rule,code}``: 422s and ``/v1/validate`` answers
  with a violation, by RULES.md id
- ``referee_suggest_cpu_seconds{bot}`` (histogram): the CPU time of each ``/v1/suggest`` answer's bot
  (its requests are counted apart too, under their own ``endpoint``)
- ``referee_catalog_info{catalog,digest}``: 1 for the loaded catalog
- ``referee_key_info{role,fingerprint}``: 1 for each configured key (``role``
  ``current`` or ``previous``; the fingerprint of :mod:`referee.private.sealing`,
  never the key), so a replica with another secret shows

The ledger of private games (docs/ledger.md), in a referee that has one:

- ``referee_ledger_store_seconds`` (histogram): one write to the store, the
  batch of a group commit (a SQLite transaction and its commit, or one Redis
  round trip), failed ones included
- ``referee_ledger_batch_size`` (histogram): the calls that write carried
- ``referee_ledger_refusals_total{status,code}``: the answers the ledger
  caused, ``503`` ``ledger_unavailable`` (the store cannot be reached, on any
  path, ``/readyz`` too) and ``409`` ``stale_state`` (a move on a token that is
  not the game's latest)

``REFEREE_METRICS_PORT`` moves ``/metrics`` to a listener of its own
(:func:`metrics_listener`), away from the public API port.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

REQUESTS = Counter("referee_requests_total", "HTTP requests answered.", ("endpoint", "method", "status"))
LATENCY = Histogram(
    "referee_request_duration_seconds",
    "Time to answer a request, in the worker.",
    ("endpoint",),
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
VIOLATIONS = Counter(
    "referee_violations_total", "Rule violations found (422s and validate answers), by rule id.", ("rule", "code")
)
SUGGEST_CPU = Histogram(
    "referee_suggest_cpu_seconds",
    "CPU time a /v1/suggest answer's bot used, in its helper process.",
    ("bot",),
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 2.5, 5.0),
)
CATALOG = Gauge(
    "referee_catalog_info", "The catalog loaded (value 1).", ("catalog", "digest"), multiprocess_mode="livemax"
)

KEYS = Gauge(
    "referee_key_info",
    "The keys configured (value 1), by fingerprint: never the key.",
    ("role", "fingerprint"),
    multiprocess_mode="livemax",
)

LEDGER_STORE = Histogram(
    "referee_ledger_store_seconds",
    "Time of one write to the ledger's store: a group commit's batch (SQLite transaction, or Redis round trip).",
    buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
LEDGER_BATCH = Histogram(
    "referee_ledger_batch_size",
    "Calls carried by one write to the ledger's store (a group commit's batch).",
    buckets=(1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128),
)
LEDGER_REFUSALS = Counter(
    "referee_ledger_refusals_total",
    "Answers the ledger caused: 503 ledger_unavailable and 409 stale_state.",
    ("status", "code"),
)

HEAVY_JOBS = Counter(
    "referee_heavy_jobs_total",
    "Heavy jobs (docs/api.md §16) by job, and what became of them: done, busy (refused, no slot free), "
    "timeout (ended past its time).",
    ("job", "outcome"),
)
RECOVERED_MOVES = Counter(
    "referee_recovered_moves_total",
    "Moves found again from the ledger's tokens for records (a repeat of a game kept by the worker finds none).",
)

METHODS = {"GET": "GET", "POST": "POST", "OPTIONS": "OPTIONS"}  # anything else counts as "other"

_REQUESTS: dict[tuple[str, str, int], Any] = {}
_LATENCY: dict[str, Any] = {}
_VIOLATIONS: dict[tuple[str, str], Any] = {}

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def record(endpoint: str, method: str, status: int, seconds: float, violation: tuple[str, str] | None) -> None:
    """Count one answered request, through prometheus_client's public API only (labelled children
    cached: ``labels()`` is not free; the children survive a fork, and prometheus_client moves
    each to the child's own file itself)."""
    key = (endpoint, METHODS.get(method, "other"), status)
    inc = _REQUESTS.get(key)
    if inc is None:
        inc = _REQUESTS[key] = REQUESTS.labels(key[0], key[1], str(status)).inc
    inc()
    observe = _LATENCY.get(endpoint)
    if observe is None:
        observe = _LATENCY[endpoint] = LATENCY.labels(endpoint).observe
    observe(seconds)
    if violation is not None:
        inc = _VIOLATIONS.get(violation)
        if inc is None:
            inc = _VIOLATIONS[violation] = VIOLATIONS.labels(*violation).inc
        inc()


def ledger_batch(size: int, seconds: float) -> None:
    """One write of the ledger's group commit: how many calls it carried and how long the store took."""
    LEDGER_BATCH.observe(size)
    LEDGER_STORE.observe(seconds)


def ledger_refusal(status: int, code: str) -> None:
    """One answer the ledger caused (503 ``ledger_unavailable``, 409 ``stale_state``)."""
    LEDGER_REFUSALS.labels(str(status), code).inc()


def record_suggest(bot: str, cpu_seconds: float) -> None:
    """The CPU one ``/v1/suggest`` answer's bot used (``bot`` is one of the project's bots, a fixed set)."""
    SUGGEST_CPU.labels(bot).observe(cpu_seconds)


def heavy_job(job: str, outcome: str) -> None:
    """One heavy job's outcome (``job``: ``suggestion``, ``recovery``, ``event``; a fixed set)."""
    HEAVY_JOBS.labels(job, outcome).inc()


def moves_recovered(count: int) -> None:
    RECOVERED_MOVES.inc(count)


def publish_config(catalog: Any, fingerprints: dict[str, str]) -> None:
    """The info gauges of this process: catalog and key fingerprints (called in every worker)."""
    CATALOG.labels(catalog.id, catalog.digest).set(1)
    for role, fingerprint in fingerprints.items():
        KEYS.labels(role, fingerprint).set(1)


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def exposition() -> tuple[bytes, str]:
    """The text exposition of every worker's metrics, and its content type."""
    if multiprocess_dir():
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    from prometheus_client import REGISTRY

    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def metrics_listener(app: WSGIApp, port: int) -> WSGIApp:
    """WSGI middleware for ``REFEREE_METRICS_PORT``: a request that came in on ``port`` gets
    ``GET /metrics`` and nothing else; every other request goes to ``app``.

    Gunicorn listens on both ports with the same workers and sets ``SERVER_PORT``
    from the socket the request arrived on (not from the ``Host`` header), so a
    client of the API port cannot reach the metrics by naming the other port.
    Scrapes on the metrics port are neither logged nor counted.
    """
    own_port = str(port)

    def dispatch(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("SERVER_PORT") != own_port:
            return app(environ, start_response)
        if environ.get("PATH_INFO") == "/metrics" and environ.get("REQUEST_METHOD") == "GET":
            data, content_type = exposition()
            start_response("200 OK", [("Content-Type", content_type), ("Content-Length", str(len(data)))])
            return [data]
        body = b"Only GET /metrics is served on this port.\n"
        start_response(
            "404 Not Found", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", str(len(body)))]
        )
        return [body]

    return dispatch
