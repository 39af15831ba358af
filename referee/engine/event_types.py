"""The events' types, generated from their documented schemas (``schemas/events.py``) by ``make state-types``:
do not edit.

One TypedDict per event type, its ``type`` a ``Literal``; ``EventDict`` is any of them, so a reader that
tests ``event["type"] == "reveal"`` has mypy check the keys it reads of a ``reveal``.
``tests/test_state_types.py`` fails when this file drifts from the schemas.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict


class GameStartedEvent(TypedDict):
    """The decks were shuffled and the game dealt (RULES 5)."""

    type: Literal["game_started"]
    first_player: int
    seed: NotRequired[str]
    commitment: NotRequired[str]


class DrawEvent(TypedDict):
    """A player drew cards from the top of their file (RULES 8.2, 9.7, 5.3)."""

    type: Literal["draw"]
    player: int
    cards: int


class MulliganEvent(TypedDict):
    """A player trashed their hand to draw again (RULES 5.4, 5.5)."""

    type: Literal["mulligan"]
    player: int
    cards: int


class KeepEvent(TypedDict):
    """A player kept their hand (RULES 5.4)."""

    type: Literal["keep"]
    player: int


class TurnStartedEvent(TypedDict):
    """A turn began (RULES 6.1)."""

    type: Literal["turn_started"]
    turn: int
    player: int


class CasePlayedEvent(TypedDict):
    """A case was played face down (RULES 6.4)."""

    type: Literal["case_played"]
    player: int
    case: str


class DiscardOwedEvent(TypedDict):
    """The active player must discard down to 7 (RULES 6.6)."""

    type: Literal["discard_owed"]
    player: int
    count: int


class DiscardEvent(TypedDict):
    """Cards were discarded to the trash (RULES 6.6)."""

    type: Literal["discard"]
    player: int
    cards: list[str]


class PaidEvent(TypedDict):
    """Cases were actioned to pay a cost (RULES 7.3)."""

    type: Literal["paid"]
    player: int
    cases: list[str]


class WindowOpenedEvent(TypedDict):
    """A response window opened on a declared action (RULES 9.4)."""

    type: Literal["window_opened"]
    responder: int
    action: str


class CounterEvent(TypedDict):
    """A counter was played in the window (RULES 9.3)."""

    type: Literal["counter"]
    player: int
    card: str


class WindowClosedEvent(TypedDict):
    """The response window closed and the action resolved or not (RULES 9.4, 9.5)."""

    type: Literal["window_closed"]
    negated: bool


class NegatedEvent(TypedDict):
    """A counter negated the pending action (RULES 9.5)."""

    type: Literal["negated"]
    action: str
    by: str


class InvestigationPowerEvent(TypedDict):
    """A counter changed an investigation's power."""

    type: Literal["investigation_power"]
    amount: int
    by: str


class GameOverEvent(TypedDict):
    """The game ended (RULES 11)."""

    type: Literal["game_over"]
    winner: int
    reason: str


class MillEvent(TypedDict):
    """The top cards of a file went to the trash (docs/api.md §8 `mill`)."""

    type: Literal["mill"]
    player: int
    cards: int


class SkippedEvent(TypedDict):
    """An effect lost its target, or an action lost its case, and did nothing (RULES 9.6)."""

    type: Literal["skipped"]
    effect: NotRequired[str]
    target: NotRequired[str]
    action: NotRequired[str]
    reason: NotRequired[str]


class PowerEvent(TypedDict):
    """A fairy's power changed until end of turn."""

    type: Literal["power"]
    card: str
    amount: int


class ReadyEvent(TypedDict):
    """A case became unactioned."""

    type: Literal["ready"]
    case: str


class BounceEvent(TypedDict):
    """A fairy returned to its owner's hand."""

    type: Literal["bounce"]
    fairy: str
    to: int


class TrashEvent(TypedDict):
    """A card on the field went to its owner's trash."""

    type: Literal["trash"]
    card: str
    player: int


class RevealEvent(TypedDict):
    """A face-down case turned face up (RULES 10, docs/api.md §8 `reveal`)."""

    type: Literal["reveal"]
    case: str
    card: NotRequired[str]


class RecoverEvent(TypedDict):
    """A card returned from its owner's trash to their hand."""

    type: Literal["recover"]
    player: int
    card: str


class AbilityEvent(TypedDict):
    """An ability was used (RULES 9.1)."""

    type: Literal["ability"]
    player: int
    card: str
    ability: int


class SpellEvent(TypedDict):
    """A spell was cast (RULES 9.2)."""

    type: Literal["spell"]
    player: int
    card: str


class InvestigationEvent(TypedDict):
    """An investigation was made (RULES 10)."""

    type: Literal["investigation"]
    player: int
    case: str
    outcome: str
    power: NotRequired[int]
    level: NotRequired[int]


class SolvedEvent(TypedDict):
    """A case was solved (RULES 10.4)."""

    type: Literal["solved"]
    case: str
    by: int
    hit: int


class FairyPlayedEvent(TypedDict):
    """A fairy was played, standby (RULES 8.3)."""

    type: Literal["fairy_played"]
    player: int
    fairy: str


class EvidencePlayedEvent(TypedDict):
    """An evidence was played onto a case (RULES 8.4)."""

    type: Literal["evidence_played"]
    player: int
    evidence: str
    case: str


class DispatchEvent(TypedDict):
    """A fairy was dispatched to a case (RULES 8.5)."""

    type: Literal["dispatch"]
    player: int
    fairy: str
    case: str


class RedispatchEvent(TypedDict):
    """A fairy moved to another case (RULES 8.6)."""

    type: Literal["redispatch"]
    player: int
    fairy: str
    case: str


class RecallEvent(TypedDict):
    """A dispatched fairy became standby (RULES 8.7)."""

    type: Literal["recall"]
    player: int
    fairy: str
    case: str | None


# Any event: a reader tests its ``type`` to reach the keys of that type.
EventDict = (
    GameStartedEvent
    | DrawEvent
    | MulliganEvent
    | KeepEvent
    | TurnStartedEvent
    | CasePlayedEvent
    | DiscardOwedEvent
    | DiscardEvent
    | PaidEvent
    | WindowOpenedEvent
    | CounterEvent
    | WindowClosedEvent
    | NegatedEvent
    | InvestigationPowerEvent
    | GameOverEvent
    | MillEvent
    | SkippedEvent
    | PowerEvent
    | ReadyEvent
    | BounceEvent
    | TrashEvent
    | RevealEvent
    | RecoverEvent
    | AbilityEvent
    | SpellEvent
    | InvestigationEvent
    | SolvedEvent
    | FairyPlayedEvent
    | EvidencePlayedEvent
    | DispatchEvent
    | RedispatchEvent
    | RecallEvent
)
