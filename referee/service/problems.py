"""RFC 9457 problem details: every error the service answers, and the one table of their types.

:data:`PROBLEMS` maps each problem type's slug to its status and title (its
documentation link is its ``type``, ``TYPE_BASE`` + slug): a :class:`Problem`
is made from a slug, and its status is read there, never written at the site
that raises it. The seal's and the tokens' refusals (``SealError``,
``TokenError``, :mod:`referee.private`, which knows no HTTP) become problems in
one place too (:func:`refusal_problem`); an error whose status the HTTP server
decided (gunicorn's own refusals, werkzeug's routing) keeps that status under
the table's type for it (:meth:`Problem.of_status`).

A problem is raised anywhere in a request and rendered once, by the one error
mapping (:func:`referee.service.hooks.error_answer`), as
``application/problem+json`` with ``type``, ``title``, ``status``, ``code``,
``detail`` and ``instance`` (the request id), plus ``errors`` (400 schema
errors), ``rule`` (422), ``index`` (``/v1/replay`` 422) or ``violations``
(deck 422s).

:func:`problem_for` is the one mapping of the engine's errors to problems,
used by the error mapping and by ``referee check``'s in-process backend (so a
scenario sees the same refusal either way). This module imports no Flask.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.engine import IllegalDeck, InconsistentState, InvalidInput, RefereeError, RuleViolation
from referee.engine.errors import RefusedInput
from referee.engine.messages import illegal_decks_detail
from referee.events import EventInputError, EventRefusal
from referee.private.sealing import SealError
from referee.private.tokens import TokenError

TYPE_BASE = "https://ace-file-referee.dev/problems/"


@dataclass(frozen=True, slots=True)
class ProblemType:
    """One kind of error answer: the status it is answered with, its title, and its documentation link
    (the problem's ``type``, a page of docs/operations.md's "Errors" table)."""

    status: int
    title: str
    generic: bool = False  # the type of an error of this status that the HTTP server decided

    def link(self, slug: str) -> str:
        return TYPE_BASE + slug


# The one table of problem types, slug -> status and title: every error answer's status is read here,
# gunicorn's own refusals included (worker.py). Documented in docs/operations.md, "Errors".
PROBLEMS: dict[str, ProblemType] = {
    "invalid-json": ProblemType(400, "Body is not JSON"),
    "invalid-schema": ProblemType(400, "Request does not match the schema"),
    "bad-record": ProblemType(400, "Game record does not read"),
    "record-needs-game": ProblemType(400, "A record starts at the deal"),
    "inconsistent-state": ProblemType(400, "Inconsistent state"),
    "not-in-private-mode": ProblemType(400, "Not allowed in private mode"),
    "private-mode-off": ProblemType(400, "Private play is off"),
    "no-ledger": ProblemType(400, "No ledger"),
    "unknown-bot": ProblemType(400, "Unknown bot"),
    "bad-request": ProblemType(400, "Bad request", generic=True),
    "duplicate-key": ProblemType(400, "Duplicate key in JSON"),
    "bad-deck-list": ProblemType(400, "Deck list does not read"),
    "bad-deck-code": ProblemType(400, "Deck code does not read"),
    "wrong-catalog": ProblemType(400, "Deck code of another catalog"),
    "unknown-format": ProblemType(400, "Unknown format"),
    "format-not-in-force": ProblemType(400, "Format not in force on that date"),
    "too-deeply-nested": ProblemType(400, "JSON nested too deeply"),
    "too-many-containers": ProblemType(400, "Too many JSON arrays and objects"),
    "unreadable-body": ProblemType(400, "Request body could not be read"),
    "seal-mismatch": ProblemType(403, "State seal missing or wrong"),
    "bad-token": ProblemType(403, "State token refused"),
    "private-mode": ProblemType(403, "Plain state sent to a private referee"),
    "bad-seat": ProblemType(403, "Seat refused"),
    "not-your-seat": ProblemType(403, "Not your seat"),
    "game-not-over": ProblemType(403, "Game not over"),
    "forbidden": ProblemType(403, "Forbidden", generic=True),
    "not-found": ProblemType(404, "Not found", generic=True),
    "unknown-game": ProblemType(404, "Unknown game"),
    "method-not-allowed": ProblemType(405, "Method not allowed", generic=True),
    "not-acceptable": ProblemType(406, "Not acceptable", generic=True),
    "request-timeout": ProblemType(408, "Request timeout", generic=True),  # from the nginx in front (deploy/)
    "stale-state": ProblemType(409, "Not the game's latest state"),
    "next-game-dealt": ProblemType(409, "The match's next game is dealt already"),
    "not-recoverable": ProblemType(409, "Game's moves not recoverable from the ledger"),
    "payload-too-large": ProblemType(413, "Request body too large", generic=True),
    "uri-too-long": ProblemType(414, "URI too long", generic=True),
    "unsupported-media-type": ProblemType(415, "Unsupported media type", generic=True),
    "encoded-body": ProblemType(415, "Encoded body not accepted"),
    "expectation-failed": ProblemType(417, "Expectation failed", generic=True),
    "rule-violation": ProblemType(422, "Rule violation"),
    "illegal-deck": ProblemType(422, "Illegal deck"),
    "busy": ProblemType(429, "Busy: heavy work refused"),
    "headers-too-large": ProblemType(431, "Request header fields too large", generic=True),
    "internal-error": ProblemType(500, "Internal error", generic=True),
    "not-implemented": ProblemType(501, "Not implemented", generic=True),
    "service-unavailable": ProblemType(503, "Service unavailable", generic=True),
    "ledger-unavailable": ProblemType(503, "Ledger unavailable"),
    "ledger-outcome-unknown": ProblemType(503, "Ledger outcome unknown"),
    "heavy-timeout": ProblemType(503, "Heavy work ran past its time"),
}


def slug_of_status(status: int) -> str:
    """The slug of an error whose status the HTTP server decided (gunicorn's, werkzeug's): the table's
    generic type of that status, else the generic one of its class (4xx, 5xx)."""
    return _GENERIC.get(status) or _GENERIC[400 if status < 500 else 500]


_GENERIC = {kind.status: slug for slug, kind in PROBLEMS.items() if kind.generic}


class Problem(Exception):
    """An error answer of type ``slug`` (its status and title from :data:`PROBLEMS`); ``extra`` holds the
    extension members (errors, rule, index...), ``headers`` extra answer headers (a 503's Retry-After)."""

    def __init__(self, slug: str, code: str, detail: str, **extra: Any):
        self.slug = slug
        self.status = PROBLEMS[slug].status
        self.code = code
        self.detail = detail
        self.extra = extra
        self.headers: list[tuple[str, str]] = []
        super().__init__(detail)

    @classmethod
    def of_status(cls, status: int, code: str, detail: str) -> Problem:
        """An error whose status the HTTP server decided: kept, under the type :func:`slug_of_status` names."""
        problem = cls(slug_of_status(status), code, detail)
        problem.status = status
        return problem

    def body(self, instance: str) -> dict[str, Any]:
        kind = PROBLEMS[self.slug]
        return {
            "type": kind.link(self.slug),
            "title": kind.title,
            "status": self.status,
            "code": self.code,
            "detail": self.detail,
            "instance": instance,
            **self.extra,
        }


# The players a detail names by name, kept as indexes in the problem's own fields.
PLAYER_FIELDS = ("player", "actor")


def players_of(v: RuleViolation) -> dict[str, int]:
    """``{"player": 0}`` (and ``actor``): the player indexes behind the names in ``detail``."""
    return {k: v.params[k] for k in PLAYER_FIELDS if type(v.params.get(k)) is int}


def violation_json(v: RuleViolation, lang: str) -> dict[str, Any]:
    """A violation in docs/api.md §7's shape (also the body of a 422)."""
    return {
        "type": PROBLEMS["rule-violation"].link("rule-violation"),
        "title": PROBLEMS["rule-violation"].title,
        "status": 422,
        **v.to_dict(lang),  # rule, code, detail (and deck: which deck of a NewGame)
        **players_of(v),
    }


# A bad request is answered in a few hundred bytes, however bad: the first problems (in the
# body's order) and how many there are, never one line per element of a 300,000-action replay.
MAX_LISTED_ERRORS = 10
MAX_MESSAGE = 300  # characters of one message (a message may quote what the client sent)
MAX_ERROR_ANSWER = 64 * 1024  # bytes of any error answer (hooks.error_answer holds every answer to it)


def _path_order(path: str) -> tuple[tuple[int, int, str], ...]:
    """``actions.2`` before ``actions.10``: indices by number (isdecimal: ``²`` is a digit, not a number, to
    int()), names by text."""
    return tuple((0, int(part), "") if part.isdecimal() else (1, 0, part) for part in path.split("."))


def _short(message: Any) -> Any:
    if isinstance(message, str) and len(message) > MAX_MESSAGE:
        return message[: MAX_MESSAGE - 1] + "…"
    return message


def capped_errors(errors: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The first :data:`MAX_LISTED_ERRORS` entries of ``errors`` in the body's order, each message
    cut to :data:`MAX_MESSAGE` characters, and how many entries there were in all."""
    paths = sorted(errors, key=_path_order) if len(errors) > 1 else list(errors)
    listed = {}
    for path in paths[:MAX_LISTED_ERRORS]:
        messages = errors[path]
        listed[_short(path)] = [_short(m) for m in messages[:3]] if isinstance(messages, list) else _short(messages)
    return listed, len(errors)


def _errors_detail(errors: dict[str, Any], total: int) -> str:
    detail = "; ".join(
        f"{path}: {' '.join(map(str, msgs)) if isinstance(msgs, list) else msgs}" for path, msgs in errors.items()
    )
    if total > len(errors):
        detail += f"; and {total - len(errors)} more ({total} in all, errors_total)"
    return detail


def schema_problem(errors: dict[str, Any], detail: str | None = None) -> Problem:
    listed, total = capped_errors(errors)
    if detail is None or total > len(listed) or len(detail) > MAX_MESSAGE * MAX_LISTED_ERRORS:
        detail = _errors_detail(listed, total)
    extra: dict[str, Any] = {"errors": listed}
    if total > len(listed):
        extra["errors_total"] = total
    return Problem("invalid-schema", "invalid_schema", detail, **extra)


def cut_to_size(body: dict[str, Any]) -> dict[str, Any]:
    """An error answer over :data:`MAX_ERROR_ANSWER` bytes, cut down: its members without the lists, its
    detail shortened (a last guard; every problem above is already small)."""
    small = {k: v for k, v in body.items() if not isinstance(v, (list, dict))}
    small["detail"] = _short(str(body.get("detail", "")))
    return small


def problem_for(exc: RefereeError, lang: str = "en") -> Problem:
    """The problem an engine error is answered with: 400 for input (schema, RULES 13.1), 422 for a rule."""
    if isinstance(exc, InconsistentState):
        errors, total = capped_errors(exc.errors)
        members: dict[str, Any] = {"errors": errors}
        if total > len(errors):
            members["errors_total"] = total
        detail = exc.detail if len(exc.detail) <= MAX_MESSAGE * MAX_LISTED_ERRORS else _errors_detail(errors, total)
        return Problem("inconsistent-state", exc.code, detail, **members)
    if isinstance(exc, RefusedInput):  # docs/api.md §13: its own code, its errors (a list's bad lines)
        errors, total = capped_errors(exc.errors)
        members = {"errors": errors}
        if total > len(errors):
            members["errors_total"] = total
        detail = exc.detail if len(exc.detail) <= MAX_MESSAGE * MAX_LISTED_ERRORS else _errors_detail(errors, total)
        return Problem(exc.code.replace("_", "-"), exc.code, detail, **members)
    if isinstance(exc, InvalidInput):
        return schema_problem(exc.errors, exc.detail)
    if not isinstance(exc, RuleViolation):
        raise TypeError(f"no problem for {exc!r}")  # CatalogError: a start-up or command-line matter
    extra: dict[str, Any] = {"rule": exc.rule, **players_of(exc)}
    if isinstance(exc, IllegalDeck):  # the first problem's rule and code; its detail once, in the list
        extra["violations"] = [violation_json(v, lang) for v in exc.violations]
        return Problem("illegal-deck", exc.code, illegal_decks_detail(len(exc.violations), lang), **extra)
    index = getattr(exc, "index", None)
    if index is not None:
        extra["index"] = index
    return Problem("rule-violation", exc.code, exc.detail(lang), **extra)


def event_problem(exc: EventInputError | EventRefusal, field: str = "event") -> Problem:
    """The problem an event's refusal is answered with (docs/api.md §17): a document that is not an event is
    a 400 naming each bad field under ``field``; a rule broken a 422 with its rule, round and table."""
    if isinstance(exc, EventInputError):
        return schema_problem({field if path == "_schema" else f"{field}.{path}": m for path, m in exc.errors.items()})
    return Problem("rule-violation", exc.code, exc.detail, rule=exc.rule, round=exc.round, table=exc.table)


def refusal_problem(exc: SealError | TokenError) -> Problem:
    """The problem private play's refusal is answered with: ``seal-mismatch`` for a seal (either code),
    ``bad-token`` or ``bad-seat`` for a token or a seat (all 403)."""
    slug = "seal-mismatch" if isinstance(exc, SealError) else exc.code.replace("_", "-")
    return Problem(slug, exc.code, exc.detail)
