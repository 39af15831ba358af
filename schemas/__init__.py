"""Marshmallow schemas: the documented shape of every body of docs/api.md.

They generate ``openapi.yaml`` (``make openapi``). Instances are created once,
here. The service's hot path does not run them (docs/operations.md); the
parity tests prove they accept exactly what the engine's strict parser does.
"""

from referee_schemas.bodies import (
    ApplyRequestSchema,
    CardsResponseSchema,
    DeckValidateRequestSchema,
    DeckValidateResponseSchema,
    FormatsResponseSchema,
    GameResponseSchema,
    HealthSchema,
    LatestRequestSchema,
    LatestResponseSchema,
    LedgerRecordRequestSchema,
    LegalActionsRequestSchema,
    LegalActionsResponseSchema,
    NextGameRequestSchema,
    PrivateActRequestSchema,
    PrivateApplyResponseSchema,
    PrivateAskRequestSchema,
    PrivateGameResponseSchema,
    PrivateLegalActionsRequestSchema,
    PrivateNextGameRequestSchema,
    PrivateRecordsRequestSchema,
    PrivateReplayRequestSchema,
    PrivateReplayResponseSchema,
    PrivateSuggestRequestSchema,
    ProblemSchema,
    ReadinessSchema,
    RecordFromRecordRequestSchema,
    RecordReadResponseSchema,
    RecordsRequestSchema,
    ReplayRecordRequestSchema,
    ReplayRequestSchema,
    ReplayResponseSchema,
    RevealRequestSchema,
    RevealResponseSchema,
    RuleSchema,
    RulesResponseSchema,
    SuggestRequestSchema,
    SuggestResponseSchema,
    ValidateResponseSchema,
    ViewRequestSchema,
    ViewResponseSchema,
    either,
)
from referee_schemas.events import EVENT_SCHEMAS
from referee_schemas.game import (
    ACTION_SCHEMAS,
    ActionSchema,
    CardSchema,
    NewGameSchema,
    StateSchema,
    ViewSchema,
    ViolationSchema,
)
from referee_schemas.tournaments import (
    EventCheckResponseSchema,
    EventRequestSchema,
    EventSchema,
    PairResponseSchema,
    StandingsResponseSchema,
)

STATE = StateSchema()
ACTION = ActionSchema()
NEW_GAME = NewGameSchema()
APPLY_REQUEST = ApplyRequestSchema()
LEGAL_ACTIONS_REQUEST = LegalActionsRequestSchema()
REPLAY_REQUEST = ReplayRequestSchema()
VIEW_REQUEST = ViewRequestSchema()
DECK_VALIDATE_REQUEST = DeckValidateRequestSchema()
GAME_RESPONSE = GameResponseSchema()
VALIDATE_RESPONSE = ValidateResponseSchema()
LEGAL_ACTIONS_RESPONSE = LegalActionsResponseSchema()
REPLAY_RESPONSE = ReplayResponseSchema()
VIEW_RESPONSE = ViewResponseSchema()
DECK_VALIDATE_RESPONSE = DeckValidateResponseSchema()
CARDS_RESPONSE = CardsResponseSchema()
CARD = CardSchema()
RULES_RESPONSE = RulesResponseSchema()
HEALTH = HealthSchema()
PROBLEM = ProblemSchema()
VIOLATION = ViolationSchema()

__all__ = [
    "ACTION",
    "ACTION_SCHEMAS",
    "APPLY_REQUEST",
    "CARD",
    "CARDS_RESPONSE",
    "DECK_VALIDATE_REQUEST",
    "DECK_VALIDATE_RESPONSE",
    "EVENT_SCHEMAS",
    "GAME_RESPONSE",
    "HEALTH",
    "LEGAL_ACTIONS_REQUEST",
    "LEGAL_ACTIONS_RESPONSE",
    "NEW_GAME",
    "PROBLEM",
    "REPLAY_REQUEST",
    "REPLAY_RESPONSE",
    "RULES_RESPONSE",
    "STATE",
    "VALIDATE_RESPONSE",
    "VIEW_REQUEST",
    "VIEW_RESPONSE",
    "VIOLATION",
    "ActionSchema",
    "ApplyRequestSchema",
    "CardSchema",
    "CardsResponseSchema",
    "DeckValidateRequestSchema",
    "DeckValidateResponseSchema",
    "EventCheckResponseSchema",
    "EventRequestSchema",
    "EventSchema",
    "FormatsResponseSchema",
    "GameResponseSchema",
    "HealthSchema",
    "LatestRequestSchema",
    "LatestResponseSchema",
    "LedgerRecordRequestSchema",
    "LegalActionsRequestSchema",
    "LegalActionsResponseSchema",
    "NewGameSchema",
    "NextGameRequestSchema",
    "PairResponseSchema",
    "PrivateActRequestSchema",
    "PrivateApplyResponseSchema",
    "PrivateAskRequestSchema",
    "PrivateGameResponseSchema",
    "PrivateLegalActionsRequestSchema",
    "PrivateNextGameRequestSchema",
    "PrivateRecordsRequestSchema",
    "PrivateReplayRequestSchema",
    "PrivateReplayResponseSchema",
    "PrivateSuggestRequestSchema",
    "ProblemSchema",
    "ReadinessSchema",
    "RecordFromRecordRequestSchema",
    "RecordReadResponseSchema",
    "RecordsRequestSchema",
    "ReplayRecordRequestSchema",
    "ReplayRequestSchema",
    "ReplayResponseSchema",
    "RevealRequestSchema",
    "RevealResponseSchema",
    "RuleSchema",
    "RulesResponseSchema",
    "StandingsResponseSchema",
    "StateSchema",
    "SuggestRequestSchema",
    "SuggestResponseSchema",
    "ValidateResponseSchema",
    "ViewRequestSchema",
    "ViewResponseSchema",
    "ViewSchema",
    "ViolationSchema",
    "either",
]
