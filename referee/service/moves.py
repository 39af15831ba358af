"""A move, from the request to the answer: the engine applies it and the mode's codec keeps it.

``POST /v1/apply``'s handler (:func:`referee.service.answers.apply`) calls
:func:`play`; every decision of the move's protocol is here, in one place, and
the codec (:mod:`referee.service.codecs`, :mod:`referee.service.private`) only
reads bodies, writes answers and talks to the ledger. In plain and sealed mode
a move is applied and answered. In private mode with a ledger (docs/api.md §11,
§15) the next token is also recorded as the game's next, and three outcomes
make the move again:

- the ledger's clock is not where this replica read it (``skewed``): the move
  is made once more at the ledger's time and recorded again; skewed twice is
  a 503 (the ledger's clock moved meanwhile);
- the move was recorded already (a retry, ``repeated``): the answer is the
  recorded token's; a clocked game's move is made again at the time recorded
  then, so it is charged once, exactly as then;
- the engine refused the move, but it is the retry of a recorded one that
  came after the player's time ran out (RULES 11.5): the recorded answer still.
  A stale token is a 409 whatever its action.
"""

from __future__ import annotations

from typing import Any

from referee import engine
from referee.engine import RuleViolation
from referee.engine.labels import names_for
from referee.private.ledger import LedgerUnavailable
from referee.service.codecs import Body, Opened
from referee.service.context import Referee
from referee.service.private import ledger_unavailable


def named(catalog: engine.Catalog, violation: RuleViolation, state: Any, player: Any) -> RuleViolation:
    """The refusal, its detail to name players and cards from ``state`` as ``player`` sees them."""
    namers = names_for(catalog, state, player)
    if namers is not None:
        violation.params["_names"] = namers
    return violation


def play(ref: Referee, opened: Opened, action: Any) -> Body:
    """``action`` made on the opened state, kept by the mode, and answered (the module's protocol)."""
    catalog, codec = ref.catalog, ref.codec
    now = opened.now = codec.now(opened.state, acting=True)  # a clock's time (docs/api.md §15), or None
    try:
        state, events = engine.apply(catalog, opened.state, action, now)
    except RuleViolation as exc:
        recorded = codec.recorded(opened, action, exc)  # a stale token raises its 409 here
        if recorded is not None:
            return as_recorded(ref, opened, action, recorded)
        raise named(catalog, exc, opened.state, opened.player) from None
    kept = codec.keep(opened, action, state)
    if kept.skewed_to is not None:  # the ledger's clock is not where this replica read it: once more, at its time
        opened.now = kept.skewed_to
        state, events = engine.apply(catalog, opened.state, action, opened.now)
        kept = codec.keep(opened, action, state)
        if kept.skewed_to is not None:
            raise ledger_unavailable(LedgerUnavailable("the ledger's clock moved while the move was made"))
    if kept.repeated and state.get("clock") is not None:
        return as_recorded(ref, opened, action, kept.carried)  # a retry: the clock as recorded then
    # a retry of an unclocked game: the engine is deterministic, the events and view are the recorded answer's
    return codec.answer(opened, kept.carried, state, events)


def as_recorded(ref: Referee, opened: Opened, action: Any, recorded: Any) -> Body:
    """The answer a retried move of a clocked game was given: the move made again at the time the ledger
    recorded it (the time in its recorded token), so it is charged once, exactly as then."""
    state, events = engine.apply(ref.catalog, opened.state, action, ref.codec.recorded_time(recorded))
    return ref.codec.answer(opened, recorded, state, events)
