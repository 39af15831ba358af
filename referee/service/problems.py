"""RFC 9457 problem details: every error the service answers.

A problem is raised anywhere in a request as :class:`Problem` and rendered
once, by the app's error handler, as ``application/problem+json`` with
``type``, ``title``, ``status``, ``code``, ``detail`` and ``instance`` (the
request id), plus ``errors`` (400 schema errors), ``rule`` (422), ``index``
(``/v1/replay`` 422) or ``violations`` (deck 422s).
"""

from __future__ import annotations

from typing import Any

from referee.engine.errors import RuleViolation

TYPE_BASE = "https://ace-file-referee.dev/problems/"

# The problem types: slug -> title. Documented in docs/operations.md.
TITLES = {
    "invalid-json": "Body is not JSON",
    "invalid-schema": "Request does not match the schema",
    "inconsistent-state": "Inconsistent state",
    "seal-mismatch": "State seal missing or wrong",
    "not-found": "Not found",
    "method-not-allowed": "Method not allowed",
    "payload-too-large": "Request body too large",
    "unsupported-media-type": "Unsupported media type",
    "rule-violation": "Rule violation",
    "illegal-deck": "Illegal deck",
    "not-acceptable": "Not acceptable",
    "bad-request": "Bad request",
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


def violation_json(v: RuleViolation, lang: str) -> dict[str, Any]:
    """A violation in docs/api.md §7's shape (also the body of a 422)."""
    return {
        "type": TYPE_BASE + "rule-violation",
        "title": TITLES["rule-violation"],
        "status": 422,
        **v.to_dict(lang),  # rule, code, detail (and deck: which deck of a NewGame)
    }
