"""The event rules' registry and refusals (RULES 15, docs/rules.md): which rule each check enforces.

``@rule("15.5", "rematch")`` stands beside the check that enforces RULES 15.5 by
refusing with the code ``rematch``, as the engine's registry does for the game
rules (its own copy: this package imports nothing of the project). A refusal
(:class:`EventRefusal`) finds its rule id here and names the round and the
table; a document that is not an event (:class:`EventInputError`) names each
bad field by its path, like any schema error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

_T = TypeVar("_T")

RULE_OF: dict[str, str] = {}  # refusal code -> the rule id it was declared with
DECLARED: list[tuple[str, tuple[str, ...], str]] = []  # (rule id, codes, where), in declaration order


def rule(rule_id: str, *codes: str) -> Callable[[_T], _T]:
    """Declare that the decorated check enforces ``rule_id`` by refusing with ``codes`` (none: it carries
    the rule out)."""

    def declare(target: _T) -> _T:
        for code in codes:
            assert code not in RULE_OF, f"{code} is declared twice"
            RULE_OF[code] = rule_id
        DECLARED.append((rule_id, codes, getattr(target, "__qualname__", repr(target))))
        return target

    return declare


class EventRefusal(Exception):
    """A well-formed event that breaks a rule of RULES 15: its ``code`` (whose rule id is declared with
    ``@rule``), a ``detail`` in English, and the ``round`` and ``table`` (1-based; ``None`` when the
    refusal is the whole event's or round's). Picklable: its arguments are its ``args``."""

    def __init__(self, code: str, detail: str, round: int | None = None, table: int | None = None):
        super().__init__(code, detail, round, table)
        self.code = code
        self.rule = RULE_OF[code]
        self.detail = detail
        self.round = round
        self.table = table

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "code": self.code, "detail": self.detail, "round": self.round, "table": self.table}


class EventInputError(Exception):
    """A document that is not an event (docs/api.md §17): ``errors`` maps each bad field's path
    (``rounds.2.pairings.0.players.1``) to its messages. Picklable: its argument is its ``args``."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(errors)
        self.errors = errors

    @property
    def detail(self) -> str:
        return "; ".join(f"{path}: {' '.join(messages)}" for path, messages in self.errors.items())
