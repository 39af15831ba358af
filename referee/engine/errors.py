"""The referee's exceptions.

The tree::

    RefereeError                   base of everything the engine raises on purpose
    ├── InvalidInput               malformed: not of the schema (HTTP 400, code "invalid_schema")
    │   ├── InconsistentState      well formed but impossible (RULES 13.1; HTTP 400)
    │   └── RefusedInput           of the schema, but unreadable here: a deck list or code, a format (HTTP 400)
    ├── CatalogError               a catalog file that cannot be loaded (start-up / command line)
    └── RuleViolation              well formed, but breaks a game rule (HTTP 422)
        ├── IllegalDeck            a deck (or decks) that break RULES 3; carries every violation
        └── ReplayError            the action at ``index`` of a replay broke a rule

``InvalidInput`` is python-chess's ``InvalidMoveError`` (the request is not a
move at all); ``RuleViolation`` is its ``IllegalMoveError`` (a move the rules
forbid). Every ``RuleViolation`` names a rule id of RULES.md.
"""

from __future__ import annotations

from typing import Any

from referee.engine.messages import render
from referee.engine.registry import DECLARED, RULE_OF, Declaration, rule, rule_of

__all__ = [
    "DECLARED",
    "RULE_OF",
    "CatalogError",
    "Declaration",
    "IllegalDeck",
    "InconsistentState",
    "InvalidInput",
    "RefereeError",
    "RefusedInput",
    "ReplayError",
    "RuleViolation",
    "rule",
]


class RefereeError(Exception):
    """Base of every error the engine raises on purpose."""


class InvalidInput(RefereeError):
    """Raised when a request body, state or action does not have the schema's shape.

    ``errors`` maps a field path (dotted, list indexes as numbers, e.g.
    ``state.players.0.hand``) to a list of messages, as marshmallow does.
    """

    code = "invalid_schema"

    def __init__(self, errors: dict[str, list[str]], detail: str | None = None):
        self.errors = errors
        self.detail = detail or _summarise(errors)
        super().__init__(self.detail)

    def under(self, prefix: str) -> InvalidInput:
        """Move every path under ``prefix`` (the body field the object came in), in place.

        The engine's public functions report paths relative to the request
        body of docs/api.md §1: ``state.players.0.hand``, ``action.card``,
        ``game.decks.1``; an error about the whole object is at ``prefix``.
        """
        self.errors = {_join(prefix, path): msgs for path, msgs in self.errors.items()}
        self.detail = _summarise(self.errors)
        self.args = (self.detail,)
        return self


class InconsistentState(InvalidInput):
    """Raised when a well-formed state is not a possible game position (RULES 13.1).

    ``code`` names what is wrong (``card_not_conserved``, ``catalog_mismatch``...),
    ``path`` the field where it was found.
    """

    rule = "13.1"

    def __init__(self, code: str, detail: str, path: str = ""):
        self.code = code
        self.path = path
        super().__init__({path: [detail]}, detail)

    def under(self, prefix: str) -> InconsistentState:
        self.path = _join(prefix, self.path)
        self.errors = {self.path: self.errors.popitem()[1]}
        return self


class RefusedInput(InvalidInput):
    """Raised when a value has the schema's shape but the referee cannot read it with its catalog
    (docs/api.md §13): a deck list that does not parse (``bad_deck_list``), a deck code that is broken
    (``bad_deck_code``) or of another catalog (``wrong_catalog``), a format the catalog lacks
    (``unknown_format``) or that was not yet in force (``format_not_in_force``). ``errors`` as
    :class:`InvalidInput`'s: a deck list's bad lines at ``deck.line.N``.
    """

    def __init__(self, code: str, errors: dict[str, list[str]], detail: str | None = None):
        self.code = code
        super().__init__(errors, detail)


class CatalogError(RefereeError):
    """Raised when a catalog file cannot be loaded; names the card and the field.

    ``path`` is where in the catalog's data the problem is (``("cards", 3, "cost")``);
    once the file is known, :meth:`at` puts its name, line and column in front:
    ``cards.yaml:57: card AF-061, field cost: ...``.
    """

    def __init__(self, detail: str, card: str | None = None, field: str | None = None):
        self.card = card
        self.field = field
        self.path: tuple[str | int, ...] = (field,) if field else ()
        self.file: str | None = None
        self.line: int | None = None
        self.column: int | None = None
        where = ", ".join(p for p in (f"card {card}" if card else "", f"field {field}" if field else "") if p)
        self.detail = f"{where}: {detail}" if where else detail
        super().__init__(self.detail)

    def in_format(self, index: int, *path: str | int) -> CatalogError:
        """Where in the file: format number ``index`` of ``formats``, then ``path`` inside it."""
        self.path = ("formats", index, *path)
        return self

    def at(self, file: str, line: int | None = None, column: int | None = None) -> CatalogError:
        """Name the file (and line, column) the error is in, in place."""
        self.file, self.line, self.column = file, line, column
        where = ":".join(str(p) for p in (file, line, column) if p is not None)
        self.detail = f"{where}: {self.detail}"
        self.args = (self.detail,)
        return self


class RuleViolation(RefereeError):
    """Raised when a well-formed action (or deck) breaks a rule.

    ``rule`` is the RULES.md id, ``code`` a stable snake_case name, and
    ``detail(lang)`` the human text in English (``en``) or Japanese (``ja``).

    >>> v = RuleViolation("file_empty", player=0)
    >>> (v.rule, v.code)
    ('8.2', 'file_empty')
    """

    def __init__(self, code: str, **params: Any):
        # Rendering waits until asked: legal_actions raises thousands of these and reads none.
        super().__init__(code)
        self.code = code
        self.params = params
        self.rule = rule_of(code)

    def __str__(self) -> str:
        return self.detail("en")

    def detail(self, lang: str = "en") -> str:
        return render(self.code, lang, self.params)

    def to_dict(self, lang: str = "en") -> dict[str, Any]:
        out = {"rule": self.rule, "code": self.code, "detail": self.detail(lang)}
        if "deck" in self.params:  # which deck of a NewGame
            out["deck"] = self.params["deck"]
        if "line" in self.params:  # the deck list's line (docs/api.md §13)
            out["line"] = self.params["line"]
        return out


class IllegalDeck(RuleViolation):
    """Raised by ``new_game`` when a deck breaks RULES 3; ``violations`` lists every one."""

    def __init__(self, violations: list[RuleViolation]):
        first = violations[0]
        super().__init__(first.code, **first.params)
        self.violations = violations


class ReplayError(RuleViolation):
    """Raised by ``replay``: the action at ``index`` (0-based) broke ``violation``'s rule."""

    def __init__(self, index: int, violation: RuleViolation):
        super().__init__(violation.code, **violation.params)
        self.index = index
        self.violation = violation


def _join(prefix: str, path: str) -> str:
    """``prefix.path``; the whole object is ``prefix`` itself (``_schema`` at the top, as marshmallow says)."""
    if not path:
        return prefix or "_schema"
    return f"{prefix}.{path}" if prefix else path


def _summarise(errors: dict[str, list[str]]) -> str:
    parts = [f"{path}: {'; '.join(msgs)}" for path, msgs in sorted(errors.items())]
    return "; ".join(parts) if parts else "invalid request"
