"""RFC 9457 problem details: every error the service answers.

A problem is raised anywhere in a request as :class:`Problem` and rendered
once, by the app's error handler, as ``application/problem+json`` with
``type``, ``title``, ``status``, ``code``, ``detail`` and ``instance`` (the
request id), plus ``errors`` (400 schema errors), ``rule`` (422), ``index``
(``/v1/replay`` 422) or ``violations`` (deck 422s).

:func:`problem_for` is the one mapping of the engine's errors to problems,
used by the service's error handlers and by ``referee check``'s in-process
backend (so a scenario sees the same refusal either way). This module imports
no Flask.
"""

from __future__ import annotations

from typing import Any

from referee.engine.errors import IllegalDeck, InconsistentState, InvalidInput, RefereeError, RuleViolation

TYPE_BASE = "https://ace-file-referee.dev/problems/"

# The problem types: slug -> title. Documented in docs/operations.md.
TITLES = {
    "invalid-json": "Body is not JSON",
    "invalid-schema": "Request does not match the schema",
    "inconsistent-state": "Inconsistent state",
    "seal-mismatch": "State seal missing or wrong",
    "bad-token": "State token refused",
    "private-mode": "Plain state sent to a private referee",
    "bad-seat": "Seat refused",
    "not-your-seat": "Not your seat",
    "not-in-private-mode": "Not allowed in private mode",
    "game-not-over": "Game not over",
    "private-mode-off": "Private play is off",
    "stale-state": "Not the game's latest state",
    "unknown-game": "Unknown game",
    "no-ledger": "No ledger",
    "ledger-unavailable": "Ledger unavailable",
    "not-found": "Not found",
    "method-not-allowed": "Method not allowed",
    "payload-too-large": "Request body too large",
    "unsupported-media-type": "Unsupported media type",
    "rule-violation": "Rule violation",
    "illegal-deck": "Illegal deck",
    "not-acceptable": "Not acceptable",
    "bad-request": "Bad request",
    "duplicate-key": "Duplicate key in JSON",
    "too-deeply-nested": "JSON nested too deeply",
    "encoded-body": "Encoded body not accepted",
    "unreadable-body": "Request body could not be read",
    "forbidden": "Forbidden",
    "uri-too-long": "URI too long",
    "expectation-failed": "Expectation failed",
    "headers-too-large": "Request header fields too large",
    "request-timeout": "Request timeout",  # from the nginx in front (deploy/)
    "not-implemented": "Not implemented",
    "service-unavailable": "Service unavailable",
    "internal-error": "Internal error",
}


class Problem(Exception):
    """An error answer; ``extra`` holds the extension members (errors, rule, index...)."""

    def __init__(self, status: int, slug: str, code: str, detail: str, **extra: Any):
        self.status = status
        self.slug = slug
        self.code = code
        self.detail = detail
        self.extra = extra
        self.headers: list[tuple[str, str]] = []  # extra answer headers (a 503's Retry-After)
        super().__init__(detail)

    def body(self, instance: str) -> dict[str, Any]:
        return {
            "type": TYPE_BASE + self.slug,
            "title": TITLES[self.slug],
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
        "type": TYPE_BASE + "rule-violation",
        "title": TITLES["rule-violation"],
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
    """``actions.2`` before ``actions.10``: indices by number, names by text."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in path.split("."))


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
    return Problem(400, "invalid-schema", "invalid_schema", detail, **extra)


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
        return Problem(400, "inconsistent-state", exc.code, detail, **members)
    if isinstance(exc, InvalidInput):
        return schema_problem(exc.errors, exc.detail)
    if not isinstance(exc, RuleViolation):
        raise TypeError(f"no problem for {exc!r}")  # CatalogError: a start-up or command-line matter
    extra: dict[str, Any] = {"rule": exc.rule, **players_of(exc)}
    slug = "rule-violation"
    if isinstance(exc, IllegalDeck):
        slug = "illegal-deck"
        extra["violations"] = [violation_json(v, lang) for v in exc.violations]
    index = getattr(exc, "index", None)
    if index is not None:
        extra["index"] = index
    return Problem(422, slug, exc.code, exc.detail(lang), **extra)
