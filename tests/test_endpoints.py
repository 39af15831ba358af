"""Every endpoint declared once (referee/service/endpoints.py): what is derived from the declarations is what
the app serves, and what cannot import them (the Python client, the table's API module) is checked against them.
"""

from __future__ import annotations

import ast
import inspect
import re

import orjson
import pytest
from conftest import ROOT
from werkzeug.test import EnvironBuilder

from referee.service import answers, hot_path
from referee.service.context import Referee
from referee.service.endpoints import ENDPOINTS, Endpoint

DECLARED = {(e.method, e.path): e for e in ENDPOINTS}
# Declared endpoints a client has no call for, and why (a new endpoint gets a call, or a line here).
NOT_IN_THE_PYTHON_CLIENT = {
    ("POST", "/v1/records/read"): "the table's replay viewer reads records; Python reads them itself"
}
NOT_IN_THE_TABLE = {
    ("POST", "/v1/reveal"): "the table shows a finished private game's record, not its state",
    ("GET", "/v1/rules"): "the table links to docs/rules.md",
    ("GET", "/v1/cards/<id>"): "the table reads the whole catalog once (/v1/cards)",
}


def declared(method: str, path: str) -> Endpoint:
    """The declaration serving ``path`` (a concrete path matches ``<id>``)."""
    for (m, pattern), endpoint in DECLARED.items():
        if m == method and re.fullmatch(re.sub(r"<\w+>", "[^/]+", pattern), path):
            return endpoint
    raise AssertionError(f"{method} {path} is not declared in referee/service/endpoints.py")


# -- the app: routes, metrics names and the hot path derived ------------------------------------------


def test_every_declared_endpoint_is_routed_under_its_metrics_name_and_nothing_else_is(app):
    routed = {
        (method, rule.rule): rule.endpoint
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("game.")
        for method in rule.methods - {"HEAD", "OPTIONS"}
    }
    assert routed == {(e.method, e.path): e.metrics_name for e in ENDPOINTS}


def test_the_openapi_document_has_one_operation_per_declaration_with_its_errors(app):
    import yaml

    from referee.service.app import openapi_yaml
    from referee.service.openapi import ERROR_RESPONSES

    paths = yaml.safe_load(openapi_yaml(app))["paths"]
    for e in ENDPOINTS:
        operation = paths[re.sub(r"<(\w+)>", r"{\1}", e.path)][e.method.lower()]
        assert operation["operationId"] == e.operation_id
        statuses = {str(ERROR_RESPONSES[name][1]) for name in e.errors}
        assert statuses | {str(e.status)} <= set(operation["responses"]), e.name


def test_the_hot_path_answers_exactly_the_hot_declarations():
    assert set(hot_path.HOT) == {e.path for e in ENDPOINTS if e.hot}
    assert all(e.method == "POST" and e.shape is not None for e in ENDPOINTS if e.hot)


def test_each_handler_opens_its_body_with_its_declared_shape():
    """The codec shape of a declaration is the one its handler opens the body with (and only those open one)."""
    for e in ENDPOINTS:
        opens = re.findall(r"codec\.open\(body, (\w+)\)", inspect.getsource(e.handler))
        assert opens == ([e.shape.name] if e.shape is not None else []), e.name


def test_a_handler_is_a_plain_function_a_test_calls_alone(app, positions):
    """No Flask, no table of closures: the handler of /v1/view, given the app's Referee and an environ."""
    ref: Referee = app.extensions["referee"]
    state, _ = positions[0]
    environ = EnvironBuilder(method="POST", path="/v1/view", json={"state": state, "player": 0}).get_environ()
    status, body, lang = answers.view(ref, environ)
    assert (status, lang) == (200, None)
    assert orjson.loads(body)["view"]["viewer"] == 0


# -- the clients, which cannot import the declarations, checked against them ----------------------------


def client_calls() -> list[tuple[str, str, bool]]:
    """Every ``Call(method, path, ...)`` of referee/client/calls.py: method, path (an f-string's holes as
    ``x``) and whether it reads text."""
    tree = ast.parse((ROOT / "referee/client/calls.py").read_text(encoding="utf-8"))
    calls = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Call":
            method, path = node.args[0], node.args[1]
            if ast.unparse(method) == "call.method":  # a Call remade from another (a seat added): checked there
                continue
            assert isinstance(method, ast.Constant), ast.unparse(node)
            if isinstance(path, ast.JoinedStr):
                text = "".join(v.value if isinstance(v, ast.Constant) else "x" for v in path.values)
            else:
                assert isinstance(path, ast.Constant), ast.unparse(node)
                text = path.value
            is_text = any(k.arg == "text" and ast.literal_eval(k.value) for k in node.keywords)
            if text.startswith("/v1/"):  # the operational endpoints (/readyz, ...) are ops.py's, not declared
                calls.append((method.value, text, is_text))
    return calls


def reached(calls: list[tuple[str, str, bool]]) -> set[tuple[str, str]]:
    """The declared endpoints ``calls`` reach, each call checked: a declared path and method, and its answer
    read as text exactly where the endpoint answers text."""
    found = set()
    for method, path, is_text in calls:
        endpoint = declared(method, path)
        assert is_text == (endpoint.response is None), f"{method} {path}: text={is_text}"
        found.add((endpoint.method, endpoint.path))
    return found


def test_the_python_clients_calls_are_declared_endpoints_read_as_their_answers_are():
    calls = client_calls()
    assert len(calls) > 20
    assert set(DECLARED) - reached(calls) == set(NOT_IN_THE_PYTHON_CLIENT)


def table_calls() -> list[tuple[str, str, bool]]:
    """Every ``call("/v1/…", body?)`` and ``callText(…)`` of the table's API module: method, path, text."""
    source = (ROOT / "referee/service/table/api.js").read_text(encoding="utf-8")
    found = re.findall(r"\b(call|callText)\(\s*\"(/v1/[^\"]*)\"\s*(,)?", source)
    return [("POST" if comma or kind == "callText" else "GET", path, kind == "callText") for kind, path, comma in found]


def test_the_tables_api_module_calls_declared_endpoints_read_as_their_answers_are():
    calls = table_calls()
    assert len(calls) > 10
    assert set(DECLARED) - reached(calls) == set(NOT_IN_THE_TABLE)


@pytest.mark.parametrize("method, path", [("POST", "/v1/nowhere"), ("GET", "/v1/apply")])
def test_a_call_of_no_declared_endpoint_is_caught(method, path):
    with pytest.raises(AssertionError, match="is not declared"):
        declared(method, path)
