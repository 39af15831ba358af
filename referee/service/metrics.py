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
"""

from __future__ import annotations

import os
from typing import Any

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
