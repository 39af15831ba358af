"""One table of problem types (referee/service/problems.py): every error answer's status is read there.

The service's problems, the seal's and the token's refusals, gunicorn's own
errors and werkzeug's take their status and title from :data:`PROBLEMS`; the
Python client picks its exception class from the answer alone, and each class it
picks by code is of the status the service answers that code with.
"""

from __future__ import annotations

import socket

import orjson
import pytest

from referee.client import errors as client_errors
from referee.private.sealing import SealError
from referee.private.tokens import TokenError
from referee.service import worker
from referee.service.problems import PROBLEMS, TYPE_BASE, Problem, refusal_problem, slug_of_status
from referee.service.reading import REQUEST_ID_PATTERN, RID_KEY, request_id


@pytest.mark.parametrize("slug", sorted(PROBLEMS))
def test_given_a_problem_type_then_its_answer_has_the_tables_status_title_and_link(slug):
    body = Problem(slug, "some_code", "Some detail.").body("rid-1")
    kind = PROBLEMS[slug]
    assert (body["status"], body["title"], body["type"]) == (kind.status, kind.title, TYPE_BASE + slug)
    assert body["instance"] == "rid-1" and body["code"] == "some_code"


def test_given_a_slug_outside_the_table_then_no_problem_is_made():
    with pytest.raises(KeyError):
        Problem("no-such-type", "x", "x")


def test_given_the_seal_and_token_refusals_then_they_are_answered_as_problems_of_the_table():
    seal, token, seat = (
        refusal_problem(SealError("seal_missing", "d")),
        refusal_problem(TokenError("bad_token", "d")),
        refusal_problem(TokenError("bad_seat", "d")),
    )
    assert (seal.slug, seal.code, seal.status) == ("seal-mismatch", "seal_missing", 403)
    assert (token.slug, token.status, seat.slug, seat.status) == ("bad-token", 403, "bad-seat", 403)
    assert seat.body("rid")["detail"] == "d"


@pytest.mark.parametrize(
    ("status", "slug"),
    [(400, "bad-request"), (403, "forbidden"), (414, "uri-too-long"), (431, "headers-too-large"), (418, "bad-request")]
    + [(501, "not-implemented"), (502, "internal-error")],
)
def test_given_a_status_the_server_decided_then_its_type_is_the_tables_generic_one(status, slug):
    assert slug_of_status(status) == slug
    problem = Problem.of_status(status, "c", "d")
    assert (problem.slug, problem.status) == (slug, status)


def test_given_gunicorns_own_refusal_then_it_is_answered_from_the_table():
    ours, theirs = socket.socketpair()
    try:
        worker.problem_write_error(ours, 431, "Request Header Fields Too Large", "too many headers")
        head, _, body = theirs.recv(65536).partition(b"\r\n\r\n")
    finally:
        ours.close()
        theirs.close()
    problem = orjson.loads(body)
    assert head.startswith(b"HTTP/1.1 431 ")
    assert (problem["type"], problem["title"]) == (TYPE_BASE + "headers-too-large", "Request header fields too large")
    assert REQUEST_ID_PATTERN.match(problem["instance"]) and f"X-Request-ID: {problem['instance']}".encode() in head


@pytest.mark.parametrize("code", sorted(client_errors.BY_CODE))
def test_given_a_code_the_client_names_then_its_class_has_the_status_the_service_answers_it_with(code):
    slug = code.replace("_", "-")
    assert slug in PROBLEMS, f"the client names {code!r}, which the service never answers"
    assert client_errors.BY_CODE[code].status == PROBLEMS[slug].status


@pytest.mark.parametrize(
    ("header", "kept"), [("abc-123", True), ("x" * 128, True), ("x" * 129, False), ("a b", False), (None, False)]
)
def test_given_a_request_then_its_id_is_the_clients_when_acceptable_else_one_minted_once(header, kept):
    environ = {} if header is None else {"HTTP_X_REQUEST_ID": header}
    rid = request_id(environ)
    assert (rid == header) is kept and REQUEST_ID_PATTERN.match(rid)
    assert request_id(environ) == rid == environ[RID_KEY]


def test_given_the_table_then_docs_operations_errors_table_lists_every_type_with_its_status():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "operations.md").read_text()
    start = doc.index("| status | `type` (after")
    rows = doc[start : doc.index("\n\n", start)].splitlines()[2:]
    for slug, kind in PROBLEMS.items():
        row = next((r for r in rows if f"`{slug}`" in r.split("|")[2]), None)
        assert row is not None, f"docs/operations.md's Errors table lists no {slug}"
        assert str(kind.status) in row.split("|")[1], (slug, row)
