"""The rule registry, on the engine's ground floor: which rule of RULES.md each check enforces.

``@rule("8.2", "file_empty")`` beside a check says that the check enforces
RULES 8.2 by raising the violation code ``file_empty``; with no codes, that the
decorated handler carries the rule out. Every code takes its rule id from
here, once, and nothing is wrapped (no cost per call). The registry is full
once the rulebook (``rulebook.py``) is imported, which the package does
first, so a :class:`~referee.engine.errors.RuleViolation` always finds its rule.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from referee.engine.messages import MESSAGES

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Declaration:
    """One ``@rule``: a rule id of RULES.md, the violation codes it raises (none for a handler that
    carries a rule out rather than refusing), and the function or class that enforces it."""

    rule: str
    codes: tuple[str, ...]
    where: str
    target: Any


DECLARED: list[Declaration] = []
RULE_OF: dict[str, str] = {}  # violation code -> the rule id it was declared with


def rule(rule_id: str, *codes: str) -> Callable[[_T], _T]:
    """Declare that the decorated check (function, method or class) enforces ``rule_id`` by raising
    ``codes`` (or, with no codes, that the decorated handler carries the rule out).

    >>> @rule("99.1", "doc_example")
    ... def check(): ...
    Traceback (most recent call last):
    AssertionError: doc_example has no text in messages.py
    """

    def declare(target: _T) -> _T:
        for code in codes:
            assert code in MESSAGES, f"{code} has no text in messages.py"
            assert code not in RULE_OF, f"{code} is declared twice (RULES {RULE_OF[code]} and {rule_id})"
            RULE_OF[code] = rule_id
        DECLARED.append(Declaration(rule_id, codes, getattr(target, "__qualname__", repr(target)), target))
        return target

    return declare


def rule_of(code: str) -> str:
    """The rule id ``code`` was declared with; a code nobody declared is a bug of the engine."""
    try:
        return RULE_OF[code]
    except KeyError:
        raise LookupError(f"violation code {code!r} is declared by no @rule") from None
