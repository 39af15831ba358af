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


def schema_problem(errors: dict[str, list[str]], detail: str | None = None) -> Problem:
    if detail is None:
        detail = "; ".join(f"{path}: {' '.join(msgs)}" for path, msgs in sorted(errors.items()))
    return Problem(400, "invalid-schema", "invalid_schema", detail, errors=errors)


def problem_for(exc: RefereeError, lang: str = "en") -> Problem:
    """The problem an engine error is answered with: 400 for input (schema, RULES 13.1), 422 for a rule."""
    if isinstance(exc, InconsistentState):
        return Problem(400, "inconsistent-state", exc.code, exc.detail, errors=exc.errors)
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
