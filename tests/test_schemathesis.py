"""Schemathesis against the committed openapi.yaml, through the WSGI app (no server).

Every operation, with examples generated from the document (valid and invalid
bodies): no server error, and every answer conforms to the document (status
code, content type, body schema).
"""

from __future__ import annotations

import resource
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from referee.service.app import create_app
from referee.service.config import Settings

ROOT = Path(__file__).resolve().parent.parent

APP = create_app(Settings(log_requests=False))
schema = schemathesis.openapi.from_path(str(ROOT / "openapi.yaml"))
schema.app = APP


@pytest.fixture(autouse=True)
def memory_cap():
    """Cap this process's address space while requests run, so a request that would eat the
    machine's memory fails here as a MemoryError (a 500, a failed check) instead."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = 4 << 30
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_document(case):
    # A well-formed request may still break a rule (422) or pose an inconsistent
    # position (400): game legality is not the schema's business, so schema-valid
    # bodies are not expected to succeed.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])
