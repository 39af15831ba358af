"""The rulebook: one :class:`~referee.engine.actions.ActionRule` per action type, listed in RULES order.

Nothing registers itself: what the referee enforces is this list, and the
package imports it first, so every ``@rule`` declaration of the rule modules
is in the registry (``registry.py``) before any violation is raised.
``legal_actions`` lists actions in the API's order (``model.ACTION_TYPES``),
which is a fact of the API, not of this list.
"""

from __future__ import annotations

from referee.engine.actions import ActionRule
from referee.engine.effects import CastSpell, UseAbility
from referee.engine.investigation import Investigate
from referee.engine.main_actions import Dispatch, Draw, PlayEvidence, PlayFairy, Recall, Redispatch
from referee.engine.model import ACTION_TYPES
from referee.engine.mulligan import Keep, Mulligan
from referee.engine.responses import Counter, Pass
from referee.engine.turn import ClaimTime, Concede, Discard, EndTurn, PlayCase, SkipCase


def _rule_of(kind: str) -> ActionRule:
    return RULEBOOK[kind]


RULES_IN_ORDER: tuple[ActionRule, ...] = (
    Mulligan(),  # 5.4, 5.5
    Keep(),  # 5.4, 5.6
    PlayCase(),  # 6.4
    SkipCase(),  # 6.4
    EndTurn(),  # 6.5
    Discard(),  # 6.6
    Draw(),  # 8.2
    PlayFairy(),  # 8.3
    PlayEvidence(),  # 8.4
    Dispatch(),  # 8.5
    Redispatch(),  # 8.6
    Recall(),  # 8.7
    Investigate(),  # 8.8, 10
    UseAbility(),  # 9.1
    CastSpell(),  # 9.2
    Counter(),  # 9.3
    Pass(_rule_of),  # 9.4, 9.5
    Concede(),  # 11.2
    ClaimTime(),  # 11.5
)
RULEBOOK: dict[str, ActionRule] = {r.type: r for r in RULES_IN_ORDER}
assert set(RULEBOOK) == set(ACTION_TYPES) and len(RULEBOOK) == len(RULES_IN_ORDER), "one rule per action type"
