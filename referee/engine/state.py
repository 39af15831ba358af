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

from referee.engine.catalog import Catalog
from referee.engine.consistency import check_consistency
from referee.engine.errors import InconsistentState, InvalidInput
from referee.engine.parse import parse_action, parse_state
from referee.engine.state_types import StateDict

__all__ = ["check_state", "parse_action", "parse_state"]


def check_state(catalog: Catalog, raw: Any, path: str = "state") -> StateDict:
    """RULES 13.1: the shape, then the consistency of a state; a normalised copy.

    Error paths start with ``path`` (the body field the state came in).

    >>> from referee.engine.catalog import Catalog
    >>> check_state(Catalog.builtin(), {"schema": "x"})
    Traceback (most recent call last):
    ...
    referee.engine.errors.InvalidInput: state.active: missing; state.cards: missing; ...
    """
    try:
        try:
            # The zones' ids are read as any strings (a shortcut of shortcuts.py): the consistency
            # check takes each of them from ``cards``; on any problem the model reads the state again.
            state = parse_state(raw, ids_checked_later=True)
            check_consistency(catalog, state)
        except (InconsistentState, TypeError):  # TypeError: an unhashable value in cards
            parse_state(raw)  # a shape error comes first, as it would have without the shortcut
            raise
    except InvalidInput as exc:
        raise exc.under(path) from None
    return state
