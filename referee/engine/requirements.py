"""docs/api.md §8's case requirements and RULES 10.5: every kind of requirement, declared once.

Each requirement is one class registered with :func:`requirement`: its key,
the JSON schema of its value, whether a value is valid, any check against the
rest of its case card, and whether it holds for an investigator's cards on the
case (given by their names: a requirement reads nothing else of the board). ``catalog_loader.py`` reads ``requires`` with it, ``investigation.py``
asks it (10.5), and the OpenAPI card schema lists :func:`grammars`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True, slots=True)
class Requirement:
    kind: str  # a key of REQUIREMENT_TYPES
    value: int | str


class RequirementType:
    """One kind of requirement; ``key`` is its entry's key, ``value`` its value's JSON schema."""

    key: ClassVar[str]
    value: ClassVar[dict[str, Any]]

    def valid(self, value: Any) -> bool:
        raise NotImplementedError

    def check_card(self, value: Any, case: dict[str, Any], fail: Callable[[str], Exception]) -> None:
        """Refuse a value the rest of the case card makes impossible (``fail(detail)``)."""

    def holds(self, fairies: list[str], evidence: list[str], value: Any) -> bool:
        raise NotImplementedError

    def grammar(self) -> dict[str, Any]:
        return {
            "type": "object",
            "description": " ".join((self.__doc__ or "").split()),
            "properties": {self.key: copy.deepcopy(self.value)},
            "required": [self.key],
            "additionalProperties": False,
        }


REQUIREMENT_TYPES: dict[str, RequirementType] = {}


def requirement(cls: type[RequirementType]) -> type[RequirementType]:
    assert cls.key not in REQUIREMENT_TYPES, cls.key
    REQUIREMENT_TYPES[cls.key] = cls()
    return cls


def grammars() -> list[dict[str, Any]]:
    """Every requirement entry's JSON schema, in registration order."""
    return [kind.grammar() for kind in REQUIREMENT_TYPES.values()]


class AtLeast(RequirementType):
    value: ClassVar[dict[str, Any]] = {"type": "integer", "minimum": 0, "maximum": 40}

    def valid(self, value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 40


class Named(RequirementType):
    value: ClassVar[dict[str, Any]] = {"type": "string", "minLength": 1}

    def valid(self, value: Any) -> bool:
        return isinstance(value, str) and bool(value)


@requirement
class EvidenceAtLeast(AtLeast):
    """`{evidence_at_least: n}`: the investigator has at least n evidence on the case."""

    key = "evidence_at_least"

    def holds(self, fairies: list[str], evidence: list[str], value: Any) -> bool:
        return len(evidence) >= int(value)


@requirement
class FairiesAtLeast(AtLeast):
    """`{fairies_at_least: n}`: the investigator has at least n fairies on the case (n ≤ its
    `dispatch_limit`)."""

    key = "fairies_at_least"

    def check_card(self, value: Any, case: dict[str, Any], fail: Callable[[str], Exception]) -> None:
        if value > case["dispatch_limit"]:
            raise fail(f"fairies_at_least {value} exceeds dispatch_limit {case['dispatch_limit']}")

    def holds(self, fairies: list[str], evidence: list[str], value: Any) -> bool:
        return len(fairies) >= int(value)


@requirement
class FairyNamed(Named):
    """`{fairy_named: name}`: one of the investigator's fairies on the case has that name."""

    key = "fairy_named"

    def holds(self, fairies: list[str], evidence: list[str], value: Any) -> bool:
        return value in fairies


@requirement
class EvidenceNamed(Named):
    """`{evidence_named: name}`: one of the investigator's evidence on the case has that name."""

    key = "evidence_named"

    def holds(self, fairies: list[str], evidence: list[str], value: Any) -> bool:
        return value in evidence
