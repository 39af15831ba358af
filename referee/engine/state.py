"""The state's gate: the model's parser, then the consistency check of RULES 13.1.

:func:`check_state` is the one gate every state passes before anything else.
It reads the state against the model (``model.py``, via ``parse.py``), then
checks consistency, and returns a *new* state with defaults filled in: the
working copy the rules then mutate, so the caller's dict is never touched.

Shape errors raise :class:`InvalidInput` with field paths
(``players.0.hand``); a well-formed but impossible position raises
:class:`InconsistentState` with a specific ``code``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from referee.engine.catalog import Catalog
from referee.engine.consistency import check_consistency
from referee.engine.errors import InconsistentState
from referee.engine.parse import parse_action, read_state, state_problem
from referee.engine.state_types import StateDict

__all__ = ["check_state", "parse_action"]


def check_state(catalog: Catalog, raw: Any, path: str = "state") -> StateDict:
    """RULES 13.1: the shape, then the consistency of a state; a normalised copy.

    One reading (``parse.read_state``), then the consistency check. Only when
    either refuses is the state read again to say why: a shape problem, with
    every path, comes before an inconsistency. Error paths start with ``path``
    (the body field the state came in).

    >>> from referee.engine.catalog import Catalog
    >>> check_state(Catalog.builtin(), {"schema": "x"})
    Traceback (most recent call last):
    ...
    referee.engine.errors.InvalidInput: state.active: missing; state.cards: missing; ...
    """
    try:
        state = read_state(raw)
        check_consistency(catalog, state)
    except (msgspec.ValidationError, InconsistentState, TypeError) as refused:
        # TypeError: a state or cards not an object, or an unhashable value in cards
        malformed = state_problem(raw)
        if malformed is not None:
            raise malformed.under(path) from None
        if isinstance(refused, InconsistentState):  # well formed: an impossible position (RULES 13.1)
            raise refused.under(path) from None
        raise  # the model accepts what the reading refused: a fault of the engine's, never hidden
    return state
