"""Prometheus metrics, correct under several gunicorn workers.

``referee serve`` sets ``PROMETHEUS_MULTIPROC_DIR`` (a fresh temporary
directory unless the operator gives one) before gunicorn starts, so every
worker writes its samples to memory-mapped files there and ``/metrics``, in
whichever worker answers, aggregates them all. The gunicorn config marks dead
workers (``child_exit``) so their live gauges go away. Without the variable
(tests, a single process) the default registry is used.

Metrics:

Every label value comes from a fixed set, never from the client: ``method``
is GET, POST, OPTIONS or ``other``; ``endpoint`` an endpoint of the route
table or ``unmatched``; ``status`` a status the service answers.

- ``referee_requests_total{endpoint,method,status}``
- ``referee_request_duration_seconds{endpoint}`` (histogram)
- ``referee_violations_total{rule,code}``: 422s and ``/v1/validate`` answers
  with a violation, by RULES.md id
- ``referee_catalog_info{catalog,digest}``: 1 for the loaded catalog
- ``referee_key_info{role,fingerprint}``: 1 for each configured key (``role``
  ``current`` or ``previous``; the fingerprint of :mod:`referee.service.sealing`,
  never the key), so a replica with another secret shows

``REFEREE_METRICS_PORT`` moves ``/metrics`` to a listener of its own
(:func:`metrics_listener`), away from the public API port.
"""

from __future__ import annotations

import os
from bisect import bisect_left
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
CATALOG = Gauge("referee_catalog_info", "The catalog loaded (value 1).", ("catalog", "digest"), multiprocess_mode="max")

KEYS = Gauge(
    "referee_key_info",
    "The keys configured (value 1), by fingerprint: never the key.",
    ("role", "fingerprint"),
    multiprocess_mode="max",
)

METHODS = {"GET": "GET", "POST": "POST", "OPTIONS": "OPTIONS"}  # anything else counts as "other"

_REQUESTS: dict[tuple[str, str, int], Any] = {}
_LATENCY: dict[str, Any] = {}
_VIOLATIONS: dict[tuple[str, str], Any] = {}

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


def record(endpoint: str, method: str, status: int, seconds: float, violation: tuple[str, str] | None) -> None:
    """Count one answered request (labelled children cached: ``labels()`` is not free)."""
    key = (endpoint, METHODS.get(method, "other"), status)
    inc = _REQUESTS.get(key)
    if inc is None:
        inc = _REQUESTS[key] = incrementer(REQUESTS.labels(key[0], key[1], str(status)))
    inc(1.0)
    observe = _LATENCY.get(endpoint)
    if observe is None:
        observe = _LATENCY[endpoint] = observer(LATENCY.labels(endpoint))
    observe(seconds)
    if violation is not None:
        inc = _VIOLATIONS.get(violation)
        if inc is None:
            inc = _VIOLATIONS[violation] = incrementer(VIOLATIONS.labels(*violation))
        inc(1.0)


# -- the per-sample fast path --------------------------------------------------------
#
# In multiprocess mode each inc() of prometheus_client takes a lock, checks for a
# fork, and finds the sample's slot in the worker's memory-mapped file by its key:
# about a third of what our per-request hooks cost. The samples a request touches are
# few and fixed, so we look each slot up once and then write the new value straight
# into it — the same file, the same layout, so /metrics (MultiProcessCollector) reads
# it as before, from every worker, exactly. If prometheus_client's internals are not
# the ones this relies on, the public inc()/observe() are used instead. No lock: a
# worker answers one request at a time (sync or gevent workers, never threads), and
# an uncontended lock still cost more than the write itself.


def _slot(value: Any) -> Callable[[float], None] | None:
    """A writer of ``value`` (a prometheus_client ``MmapedValue``) straight into its slot, or None."""
    try:
        from prometheus_client.mmap_dict import _pack_two_doubles

        if not getattr(value, "_multiprocess", False):
            return None
        value.get()  # the client's own fork check: value._file is this process's file now
        file, key = value._file, value._key
        pos = file._positions[key]
        file._m  # noqa: B018 - present, or this is not the layout we know
    except (ImportError, AttributeError, KeyError):
        return None

    def add(amount: float) -> None:
        value._value += amount
        _pack_two_doubles(file._m, pos, value._value, 0.0)  # file._m: it is remapped as the file grows

    return add


def incrementer(counter: Any) -> Callable[[float], None]:
    """``inc(amount)`` for a labelled counter child."""
    return _slot(counter._value) or counter.inc


def observer(histogram: Any) -> Callable[[float], None]:
    """``observe(seconds)`` for a labelled histogram child: its sum and its bucket."""
    try:
        bounds = list(histogram._upper_bounds)
        add_sum = _slot(histogram._sum)
        add_bucket = [_slot(b) for b in histogram._buckets]
    except AttributeError:
        return histogram.observe
    if add_sum is None or None in add_bucket:
        return histogram.observe

    def observe(seconds: float) -> None:
        add_sum(seconds)
        add_bucket[bisect_left(bounds, seconds)](1.0)  # the first bound >= seconds; the last is +Inf

    return observe


def _forget_slots() -> None:
    """After a fork the child writes its own file: look every slot up again."""
    _REQUESTS.clear()
    _LATENCY.clear()
    _VIOLATIONS.clear()


os.register_at_fork(after_in_child=_forget_slots)


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
        multiprocess.MultiProcessCollector(registry)
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
