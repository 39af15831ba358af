"""openapi.yaml: generated from the schemas, committed, served, and complete for docs/api.md §1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from referee.service.app import openapi_yaml

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "openapi.yaml"

# docs/api.md §1: path -> method -> the status codes it documents at least.
CONTRACT = {
    "/v1/games": ("post", {"201", "400", "413", "415", "422"}),
    "/v1/apply": ("post", {"200", "400", "403", "413", "415", "422"}),
    "/v1/validate": ("post", {"200", "400", "403", "413", "415"}),
    "/v1/legal-actions": ("post", {"200", "400", "403", "413", "415"}),
    "/v1/replay": ("post", {"200", "400", "403", "413", "415", "422"}),
    "/v1/view": ("post", {"200", "400", "403", "413", "415"}),
    "/v1/decks/validate": ("post", {"200", "400", "413", "415"}),
    "/v1/cards": ("get", {"200"}),
    "/v1/cards/{id}": ("get", {"200", "404"}),
    "/v1/rules": ("get", {"200"}),
    "/livez": ("get", {"200"}),
    "/readyz": ("get", {"200", "503"}),
    "/openapi.yaml": ("get", {"200"}),
}


@pytest.fixture(scope="module")
def generated(app) -> str:
    return openapi_yaml(app)


def test_committed_openapi_is_the_generated_one(generated):
    """Fails when the schemas change without `make openapi`."""
    assert COMMITTED.read_text("utf-8") == generated, "openapi.yaml is stale: run `make openapi`"


def test_served_openapi_is_the_committed_one(client):
    resp = client.get("/openapi.yaml")
    assert resp.status_code == 200
    assert resp.get_data(as_text=True) == COMMITTED.read_text("utf-8")


def test_the_cli_prints_the_same_document():
    out = subprocess.run(
        [sys.executable, "-m", "referee", "openapi"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "REFEREE_CATALOG": "/nonexistent"},
    )
    assert out.stdout == COMMITTED.read_text("utf-8")


def test_every_endpoint_of_the_contract_is_documented_with_its_status_codes():
    spec = yaml.safe_load(COMMITTED.read_text("utf-8"))
    assert spec["openapi"].startswith("3.0")
    for path, (method, statuses) in CONTRACT.items():
        op = spec["paths"][path][method]
        assert statuses <= set(op["responses"]), (path, set(op["responses"]))
        assert "default" in op["responses"]
        if method == "post":
            assert op["requestBody"]["required"] is True
            assert list(op["requestBody"]["content"]) == ["application/json"]
    assert "/bench/echo" not in spec["paths"]


def test_errors_are_problem_json_and_the_422_has_rule():
    spec = yaml.safe_load(COMMITTED.read_text("utf-8"))
    responses = spec["components"]["responses"]
    for name in (
        "BadRequest",
        "SealRefused",
        "NotFound",
        "PayloadTooLarge",
        "UnsupportedMediaType",
        "RuleViolation",
        "Error",
    ):
        assert list(responses[name]["content"]) == ["application/problem+json"]
    problem = spec["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "code", "detail", "instance"} <= set(problem["required"])
    assert {"errors", "rule", "index", "violations"} <= set(problem["properties"])


def test_actions_are_a_tagged_union_of_every_type():
    from referee.engine.model import ACTION_TYPES

    spec = yaml.safe_load(COMMITTED.read_text("utf-8"))
    action = spec["components"]["schemas"]["ApplyRequest"]["properties"]["action"]
    assert set(action["discriminator"]["mapping"]) == set(ACTION_TYPES)
    assert len(action["oneOf"]) == len(ACTION_TYPES)


def test_the_document_loads_in_schemathesis():
    import schemathesis

    schema = schemathesis.openapi.from_path(str(COMMITTED))
    operations = {(op.ok().method.upper(), op.ok().path) for op in schema.get_all_operations()}
    assert ("POST", "/v1/apply") in operations and ("GET", "/v1/cards/{id}") in operations
