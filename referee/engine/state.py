"""The state: its strict parser and the consistency check of RULES 13.1.

:func:`check_state` is the one gate every state passes before anything else.
It checks the shape (docs/api.md §3 plus the optional fields of docs/state.md),
then consistency, and returns a *new* state with defaults filled in: the
working copy the rules then mutate, so the caller's dict is never touched.

Shape errors raise :class:`InvalidInput` with field paths
(``players.0.hand.3``); a well-formed but impossible position raises
:class:`InconsistentState` with a specific ``code``.
"""

from __future__ import annotations

from typing import Any

from referee.engine.catalog import Catalog
from referee.engine.consistency import check_consistency
from referee.engine.errors import InvalidInput
from referee.engine.schema import (  # noqa: F401  (re-exported: the rules import these from here)
    ACTION_FIELDS, ACTION_TYPES, DECK_SIZE, OPENING_HAND, PHASES, RESPONDABLE, RESULT_REASONS, RULESET, SCHEMA,
    STEPS, WINDOW_MODES, other, parse_action,
)
from referee.engine.state_parser import parse_state
from referee.engine.state_fast import fast_parse_state


def check_state(catalog: Catalog, raw: Any, path: str = "state") -> dict[str, Any]:
    """RULES 13.1: the shape, then the consistency of a state; a normalised copy.

    Error paths start with ``path`` (the body field the state came in).

    >>> from referee.engine.catalog import Catalog
    >>> check_state(Catalog.builtin(), {"schema": "x"})
    Traceback (most recent call last):
    ...
    referee.engine.errors.InvalidInput: state.cards: missing; ...
    """
    try:
        state = fast_parse_state(raw)
        if state is None:  # something is off: the careful parser says what (or takes a rare shape)
            state = parse_state(raw)
        check_consistency(catalog, state)
    except InvalidInput as exc:
        raise exc.under(path) from None
    return state
