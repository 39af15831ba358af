"""The working state's types, generated from the model (``model.py``) by ``make state-types``: do not edit.

The rules hold a state as plain dicts; these TypedDicts give those dicts the model's field names and
types, so mypy checks every key the rules read or write. ``tests/test_state_types.py`` fails when this
file drifts from the model. A field the model leaves absent when unset is ``NotRequired``; an action is
one TypedDict with every field an action type may take (``model.ACTION_FIELDS`` says which takes which).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict


class ActionDict(TypedDict):
    """Any action (docs/api.md §6)."""

    type: str
    player: int
    pay: NotRequired[list[str]]
    card: NotRequired[str]
    case: NotRequired[str]
    fairy: NotRequired[str]
    ability: NotRequired[int]
    targets: NotRequired[list[str]]
    cards: NotRequired[list[str]]


class CatalogRefDict(TypedDict):
    """The catalog a state was made with (docs/api.md §8)."""

    id: str
    digest: str


class FormatRefDict(TypedDict):
    """The format a game is played in and the revision in force at the deal (RULES 3.6–3.9, docs/api.md §13)."""

    id: str
    revision: str


class OptionsDict(TypedDict):
    """Game options."""

    response_windows: str


class CaseEntryDict(TypedDict):
    """A case in play."""

    card: str
    face_up: bool
    actioned: bool


class FairyEntryDict(TypedDict):
    """A fairy on the field: standby (case null) or dispatched to a case in play."""

    card: str
    case: str | None


class EvidenceEntryDict(TypedDict):
    """An evidence on the field, attached to a case in play."""

    card: str
    case: str


class PlayerDict(TypedDict):
    """One player's zones (docs/state.md)."""

    name: NotRequired[str]
    file: list[str]
    hand: list[str]
    trash: list[str]
    cases: list[CaseEntryDict]
    fairies: list[FairyEntryDict]
    evidence: list[EvidenceEntryDict]
    kept: bool


class ModifierDict(TypedDict):
    """An until-end-of-turn power change."""

    card: str
    power: int


class UsedDict(TypedDict):
    """A once-per-turn ability used this turn."""

    card: str
    ability: int


class ResultDict(TypedDict):
    """How the game ended."""

    winner: int
    reason: str


class PendingDict(TypedDict):
    """The action of an open response window (RULES 9.4)."""

    action: ActionDict
    responder: int
    negated: bool
    power: int
    counters: list[str]


class ClockDict(TypedDict):
    """A game's clock (docs/api.md §15, RULES 11.5): Fischer time, charged at the ledger's recorded times."""

    initial: int
    increment: int
    remaining: list[int]
    started: int
    last: int


class MatchDict(TypedDict):
    """The match a game belongs to (docs/api.md §15, RULES 14)."""

    best_of: int
    game: int
    wins: list[int]
    winner: int | None


class StateDict(TypedDict):
    """The full, authoritative game state (docs/api.md §3, docs/state.md). Opaque to clients apart from the documented fields; send it back exactly as received."""

    schema: str
    ruleset: str
    catalog: CatalogRefDict
    options: OptionsDict
    format: FormatRefDict | None
    seed: str
    rng: int
    turn: int
    phase: str
    step: str
    active: int
    first_player: int
    case_played: bool
    pending: PendingDict | None
    result: ResultDict | None
    cards: dict[str, str]
    players: list[PlayerDict]
    modifiers: list[ModifierDict]
    used: list[UsedDict]
    seq: int
    game_id: NotRequired[str]
    watch_delay: NotRequired[int]
    clock: ClockDict | None
    match: MatchDict | None
    seal: NotRequired[str]


# A player's zones: those that hold instance ids, and those that hold entries on the field.
IdZone = Literal["file", "hand", "trash"]
FieldZone = Literal["cases", "fairies", "evidence"]


class ViewPlayerDict(TypedDict):
    """One player's zones as a view shows them: the file as a count."""

    name: NotRequired[str]
    file: int
    hand: list[str]
    trash: list[str]
    cases: list[CaseEntryDict]
    fairies: list[FairyEntryDict]
    evidence: list[EvidenceEntryDict]
    kept: bool


class ClockViewDict(TypedDict):
    """The clock as a view shows it (docs/api.md §15): time left at the last move, whose runs, since when."""

    remaining: list[int]
    running: int | None
    since: str
    initial: int
    increment: int


class ViewDict(TypedDict):
    """What one player (or a spectator: ``None``) may see of a state (docs/api.md §5, §12)."""

    schema: str
    ruleset: str
    catalog: CatalogRefDict
    options: OptionsDict
    format: FormatRefDict | None
    turn: int
    phase: str
    step: str
    active: int
    first_player: int
    case_played: bool
    pending: PendingDict | None
    result: ResultDict | None
    cards: dict[str, str]
    players: list[ViewPlayerDict]
    modifiers: list[ModifierDict]
    used: list[UsedDict]
    seq: int
    game_id: NotRequired[str]
    watch_delay: NotRequired[int]
    clock: ClockViewDict | None
    match: MatchDict | None
    viewer: int | None
    player: int | None
    commitment: str
