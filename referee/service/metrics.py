"""Prometheus metrics, correct under several gunicorn workers.

``referee serve`` sets ``PROMETHEUS_MULTIPROC_DIR`` (a fresh temporary
directory unless the operator gives one) before gunicorn starts, so every
worker writes its samples to memory-mapped files there and ``/metrics``, in
whichever worker answers, aggregates them all. The gunicorn config marks dead
workers (``child_exit``) so their live gauges go away. Without the variable
(tests, a single process) the default registry is used.

Metrics:

- ``referee_requests_total{endpoint,method,status}``
- ``referee_request_duration_seconds{endpoint}`` (histogram)
- ``referee_violations_total{rule,code}``: 422s and ``/v1/validate`` answers
  with a violation, by RULES.md id
- ``referee_catalog_info{catalog,digest}``: 1 for the loaded catalog

``REFEREE_METRICS_PORT`` moves ``/metrics`` to a listener of its own
(:func:`metrics_listener`), away from the public API port.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)

REQUESTS = Counter(
    "referee_requests_total", "HTTP requests answered.", ("endpoint", "method", "status"))
LATENCY = Histogram(
    "referee_request_duration_seconds", "Time to answer a request, in the worker.", ("endpoint",),
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5))
VIOLATIONS = Counter(
    "referee_violations_total", "Rule violations found (422s and validate answers), by rule id.",
    ("rule", "code"))
CATALOG = Gauge(
    "referee_catalog_info", "The catalog loaded (value 1).", ("catalog", "digest"),
    multiprocess_mode="max")


_REQUESTS: dict[tuple[str, str, int], Any] = {}
_LATENCY: dict[str, Any] = {}
_VIOLATIONS: dict[tuple[str, str], Any] = {}


def record(endpoint: str, method: str, status: int, seconds: float, violation: tuple[str, str] | None) -> None:
    """Count one answered request (labelled children cached: ``labels()`` is not free)."""
    key = (endpoint, method, status)
    child = _REQUESTS.get(key)
    if child is None:
        child = _REQUESTS[key] = REQUESTS.labels(endpoint, method, str(status))
    child.inc()
    hist = _LATENCY.get(endpoint)
    if hist is None:
        hist = _LATENCY[endpoint] = LATENCY.labels(endpoint)
    hist.observe(seconds)
    if violation is not None:
        counter = _VIOLATIONS.get(violation)
        if counter is None:
            counter = _VIOLATIONS[violation] = VIOLATIONS.labels(*violation)
        counter.inc()


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
        start_response("404 Not Found", [("Content-Type", "text/plain; charset=utf-8"),
                                         ("Content-Length", str(len(body)))])
        return [body]

    return dispatch
