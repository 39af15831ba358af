"""The pure game core of the Ace File '99 referee (no Flask, no I/O).

Everything takes the loaded :class:`Catalog` and plain JSON-able dicts, and
returns new dicts: the input state is never mutated. The public functions:

- :class:`Session` — one game checked once, then ``apply`` / ``validate`` /
  ``legal_actions`` / ``view`` on it; the functions below are one-call sessions.
- :func:`new_game` — RULES 5: check decks, shuffle, deal.
- :func:`apply` — the next state and its events, or a :class:`RuleViolation`.
- :func:`validate` — the violation an action would raise, or ``None`` (a query).
- :func:`legal_actions` — every legal action now.
- :func:`view` — what one player may see (docs/api.md §5).
- :func:`replay` — apply a list of actions in order.
- :func:`validate_deck` — every RULES 3 violation of one deck.
- :func:`next_game` — RULES 14: the NewGame of a match's next game.
- :func:`check_state` / :func:`parse_action` — the strict input parsers.

And the shapes a reader checks its keys against (mypy): :class:`StateDict` (``Session.state``),
:class:`ActionDict` (a legal action), :class:`ViewDict` (``Session.view``), ``EventDict`` (an event of
``Applied.events``; test its ``type`` to reach that type's keys), generated from the model and the
events' schemas (``make state-types``).
"""

from referee.engine import rulebook  # noqa: F401  (first: every rule's @rule declarations, RULES order)
from referee.engine.catalog import Ability, Card, Catalog, Effect, Requirement
from referee.engine.errors import (
    CatalogError,
    IllegalDeck,
    InconsistentState,
    InvalidInput,
    RefereeError,
    ReplayError,
    RuleViolation,
)
from referee.engine.event_types import EventDict
from referee.engine.matches import next_game
from referee.engine.session import Applied, Session, apply, legal_actions, replay, validate, view
from referee.engine.setup import new_game, validate_deck
from referee.engine.state import check_state, parse_action
from referee.engine.state_types import (
    ActionDict,
    CaseEntryDict,
    CatalogRefDict,
    ClockDict,
    ClockViewDict,
    EvidenceEntryDict,
    FairyEntryDict,
    FieldZone,
    FormatRefDict,
    IdZone,
    MatchDict,
    ModifierDict,
    OptionsDict,
    PendingDict,
    PlayerDict,
    ResultDict,
    StateDict,
    UsedDict,
    ViewDict,
    ViewPlayerDict,
)

__all__ = [
    "Ability",
    "ActionDict",
    "Applied",
    "Card",
    "CaseEntryDict",
    "Catalog",
    "CatalogError",
    "CatalogRefDict",
    "ClockDict",
    "ClockViewDict",
    "Effect",
    "EventDict",
    "EvidenceEntryDict",
    "FairyEntryDict",
    "FieldZone",
    "FormatRefDict",
    "IdZone",
    "IllegalDeck",
    "InconsistentState",
    "InvalidInput",
    "MatchDict",
    "ModifierDict",
    "OptionsDict",
    "PendingDict",
    "PlayerDict",
    "RefereeError",
    "ReplayError",
    "Requirement",
    "ResultDict",
    "RuleViolation",
    "Session",
    "StateDict",
    "UsedDict",
    "ViewDict",
    "ViewPlayerDict",
    "apply",
    "check_state",
    "legal_actions",
    "new_game",
    "next_game",
    "parse_action",
    "replay",
    "validate",
    "validate_deck",
    "view",
]
