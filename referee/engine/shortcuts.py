"""The engine's shortcuts, in one registry: each beside the careful implementation it shadows.

A fact has one implementation, the careful one. A shortcut stays only while it
wins at least 10% of a public endpoint's measured time: an HTTP endpoint, or a
public function of the engine (``referee.engine.apply``, what in-process users
call). ``benchmarks/shortcuts.py`` measures each one turned off; the gains below
are its figures (docs/performance.md, "Engine"; measured again 2026-12-05 after dispatch's rooms
came to be found in one pass over the cases).
Each entry says what the shortcut is, the careful code it shadows, its gain, and
how to turn it off: the attributes to put the careful twin in its place. One
property test (``tests/test_shortcuts.py``) plays the engine's public functions
with each shortcut on and off and requires the same answers, errors included.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from referee.engine import consistency, pipeline
from referee.engine.actions import ActionRule
from referee.engine.effects import CastSpell, UseAbility
from referee.engine.investigation import Investigate
from referee.engine.main_actions import Dispatch, Draw, PlayEvidence, PlayFairy, Recall, Redispatch
from referee.engine.responses import Counter

_ABSENT = object()


@dataclass(frozen=True, slots=True)
class Shortcut:
    """One shortcut: ``name``, the careful code it ``shadows``, its measured ``gain``, and ``off``:
    (owner, attribute, the careful twin) for each attribute that turns it off when replaced."""

    name: str
    shadows: str
    gain: str
    off: tuple[tuple[Any, str, Any], ...]

    @contextmanager
    def turned_off(self) -> Iterator[None]:
        """The engine without this shortcut, until the block ends (for the test and the benchmark)."""
        saved = [(owner, attr, vars(owner).get(attr, _ABSENT)) for owner, attr, _ in self.off]
        try:
            for owner, attr, careful in self.off:
                setattr(owner, attr, careful)
            yield
        finally:
            for owner, attr, value in reversed(saved):
                if value is _ABSENT:
                    delattr(owner, attr)
                else:
                    setattr(owner, attr, value)


def _not_sure(catalog: Any, state: Any) -> bool:
    """``consistency._cards_and_field_are_sound`` turned off: the four careful checks always run."""
    return False


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut(
        name="consistency._cards_and_field_are_sound: cards, conservation, zone kinds and references in one pass",
        shadows="consistency._check_cards, _check_conservation, _check_zone_kinds and _check_references",
        gain="engine.validate +60%, engine.apply +47%, engine.legal_actions +33%; /v1/validate +20%, /v1/apply +17%, /v1/legal-actions +15% without it",
        off=((consistency, "_cards_and_field_are_sound", _not_sure),),
    ),
    Shortcut(
        name="the rules' own legal(): candidates built to pass some checks are tested only on the rest",
        shadows="ActionRule.legal: every candidate through check and cost",
        gain="engine.legal_actions +50%, /v1/legal-actions +23% without them",
        off=tuple(
            (rule, "legal", ActionRule.legal)
            for rule in (Draw, PlayFairy, PlayEvidence, Dispatch, Redispatch, Recall, Investigate, UseAbility)
        )
        + ((CastSpell, "legal", ActionRule.legal), (Counter, "legal", ActionRule.legal)),
    ),
    Shortcut(
        name="pipeline.open_rules: the action types open now, cached per (phase, step, window open)",
        shadows="pipeline.open_rules_now: every rule's allowed() asked",
        gain="engine.legal_actions +54%, /v1/legal-actions +25% without it",
        off=((pipeline, "open_rules", pipeline.open_rules_now),),
    ),
)
