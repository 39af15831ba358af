"""Events (tournaments): RULES 15 and docs/api.md §17, pure (no HTTP, no I/O, no game rule).

Each question is one call, a JSON document in and a JSON-able answer out, so that the service can run
it anywhere (a pool of processes for heavy work): :func:`pair`, :func:`standings`, :func:`check`, and
:func:`new_event`. Refusals are :class:`EventRefusal` (a rule broken: 422) and :class:`EventInputError`
(not an event: 400 with each field's path).
"""

from referee.events.check import check
from referee.events.document import MAX_PLAYERS, MAX_ROUNDS, read_event
from referee.events.rules import DECLARED, RULE_OF, EventInputError, EventRefusal
from referee.events.tournament import new_event, pair, standings

__all__ = [
    "DECLARED",
    "MAX_PLAYERS",
    "MAX_ROUNDS",
    "RULE_OF",
    "EventInputError",
    "EventRefusal",
    "check",
    "new_event",
    "pair",
    "read_event",
    "standings",
]
