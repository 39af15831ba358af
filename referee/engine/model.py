"""The state and action model: the one hand-written description of their shapes (docs/api.md §3, §6).

Everything else is derived from these declarations: the parser and the
error explanations (``parse.py``), the marshmallow schemas behind
``openapi.yaml`` (``schemas/derived.py``), the state table of ``docs/state.md``
(``model_doc.py``, ``make state-doc``) and the working state's TypedDicts
(``state_types.py``, ``make state-types``).

They are `msgspec <https://jcristharif.com/msgspec/>`_ Structs that refuse
unknown fields: ``msgspec.convert`` validates a whole state in one pass in C,
and the same declarations say what a client reads when it fails. Each field's error message
is declared beside its type with :func:`says`, so the explanation a client
reads comes from the same line as the check.

Actions are a tagged union on ``type``; :data:`ACTION_FIELDS` lists the fields
each action type takes and the Structs are generated from it.
"""

from __future__ import annotations

import functools
import operator
from typing import TYPE_CHECKING, Annotated, Any, Literal, NamedTuple

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType, field

from referee.engine.facts import (
    BEST_OF,
    CLOCK_INCREMENT,
    CLOCK_INITIAL,
    HAND_LIMIT,
    OPENING_HAND,
    PLAYERS,
    POWER_MAX,
    RNG_MAX,
    RULESET,
    SCHEMA,
    TURN_MAX,
    WATCH_DELAY,
    Phase,
    Reason,
    Step,
    WindowMode,
)


def says(error: str, *, missing: str = "missing", **meta: Any) -> Meta:
    """A type's constraints (``msgspec.Meta``) with the messages a client reads when it fails.

    ``missing`` is said when a required field is absent. Two markers shape
    the explanation: ``whole=True`` reports any problem inside as ``error``
    at the field itself (a value read as one piece, e.g. a list of ids);
    ``shape=True`` reports a non-object, an unknown key or a missing key that way.
    """
    flags: dict[str, Any] = {k: meta.pop(k) for k in ("whole", "shape", "entry") if k in meta}
    extra: dict[str, Any] = {"error": error, "missing": missing, **flags}
    return Meta(**meta, extra=extra)


def doc(text: str) -> Meta:
    """A field's description, as the OpenAPI document and docs/state.md show it."""
    return Meta(description=text)


class Model(Struct, forbid_unknown_fields=True, gc=False):
    """Base of the model: strict, unknown fields refused. Untracked by the garbage collector
    (``gc=False``): a parsed value is a tree, never a cycle, and lives only until it is copied out."""


PlayerIndex = Annotated[Literal[0, 1], says("must be 0 or 1")]  # RULES 1.1; facts.Player
Flag = Annotated[bool, says("must be true or false")]
Text = Annotated[str, says("must be a string")]
Count = Annotated[int, says("must be an integer ≥ 0", ge=0)]
# Bounded so that no arithmetic of the rules can leave 64 bits (facts.TURN_MAX ...).
Turn = Annotated[int, says(f"must be an integer from 0 to {TURN_MAX}", ge=0, le=TURN_MAX)]
RngCount = Annotated[int, says(f"must be an integer from 0 to {RNG_MAX}", ge=0, le=RNG_MAX)]
Power = Annotated[int, says(f"must be an integer from {-POWER_MAX} to {POWER_MAX}", ge=-POWER_MAX, le=POWER_MAX)]
AnyId = Annotated[str, Meta(min_length=1, description="A card instance id (opaque, unique in the game).")]
InstanceId = Annotated[AnyId, says("must be a card instance id", missing="must be a card instance id")]
Ids = Annotated[list[AnyId], says("must be a list of card instance ids", whole=True)]


# -- the state (docs/api.md §3; the optional fields and defaults of docs/state.md) ----------


class CatalogRef(Model):
    """The catalog a state was made with (docs/api.md §8)."""

    id: Annotated[str, Meta(examples=["af-ref"])]
    digest: Annotated[str, Meta(examples=["sha256:..."])]


class FormatRef(Model):
    """The format a game is played in and the revision in force at the deal (RULES 3.6–3.9, docs/api.md §13)."""

    id: Annotated[str, Meta(min_length=1, examples=["af99"])]
    revision: Annotated[str, Meta(pattern=r"^\d{4}-\d{2}-\d{2}$", examples=["2000-04-01"])]


class Options(Model):
    """Game options."""

    response_windows: Annotated[
        WindowMode, says("must be auto or strict"), doc("When a response window opens (RULES 9.4); default auto.")
    ] = WindowMode.AUTO


class CaseEntry(Model):
    """A case in play."""

    card: InstanceId
    face_up: Flag
    actioned: Flag


class FairyEntry(Model):
    """A fairy on the field: standby (case null) or dispatched to a case in play."""

    card: InstanceId
    case: Annotated[AnyId | None, says("must be null or a case instance id", missing="missing (null for standby)")]


class EvidenceEntry(Model):
    """An evidence on the field, attached to a case in play."""

    card: InstanceId
    case: Annotated[AnyId, says("must be a case instance id", missing="must be a case instance id")]


class PlayerState(Model, kw_only=True):
    """One player's zones (docs/state.md)."""

    name: Annotated[Text, doc('Default "Player 1" / "Player 2".')] | UnsetType = UNSET  # filled by the parser
    file: Annotated[Ids, doc("The file (deck), top first.")]
    hand: Ids
    trash: Annotated[Ids, doc("In the order the cards arrived.")]
    cases: Annotated[
        list[CaseEntry], says("must be a list"), doc("The cases this player controls, in the order played.")
    ]
    fairies: Annotated[list[FairyEntry], says("must be a list")]
    evidence: Annotated[list[EvidenceEntry], says("must be a list")]
    kept: Annotated[Flag, doc("The player has kept their hand (RULES 5.4).")]


class Modifier(Model):
    """An until-end-of-turn power change."""

    card: AnyId
    power: Power


class Used(Model):
    """A once-per-turn ability used this turn."""

    card: AnyId
    ability: Annotated[int, Meta(ge=0)]


class Result(Model):
    """How the game ended."""

    winner: PlayerIndex
    reason: Reason


Millis = Annotated[int, says(f"must be an integer from 0 to {RNG_MAX} (milliseconds)", ge=0, le=RNG_MAX)]


class Clock(Model, kw_only=True):
    """A game's clock (docs/api.md §15, RULES 11.5): Fischer time, charged at the ledger's recorded times."""

    initial: Annotated[
        int,
        says(
            f"must be seconds from {CLOCK_INITIAL[0]:,} to {CLOCK_INITIAL[1]:,}",
            ge=CLOCK_INITIAL[0],
            le=CLOCK_INITIAL[1],
        ),
        doc("Each player's time at the deal, in seconds."),
    ]
    increment: Annotated[
        int,
        says(
            f"must be seconds from {CLOCK_INCREMENT[0]} to {CLOCK_INCREMENT[1]:,}",
            ge=CLOCK_INCREMENT[0],
            le=CLOCK_INCREMENT[1],
        ),
        doc("Seconds added to a player's time after each move their time paid for (Fischer)."),
    ]
    remaining: Annotated[
        list[Millis],
        says("must be a list of two integers ≥ 0 (milliseconds)", min_length=PLAYERS, max_length=PLAYERS, whole=True),
        doc("Each player's time left at the last recorded move, in milliseconds."),
    ]
    started: Annotated[
        Millis, doc("When the game was dealt, in milliseconds since 1970 (UTC) by the ledger's clock; 0 in a replay.")
    ]
    last: Annotated[Millis, doc("When the last move was recorded, in milliseconds since the deal (0 at the deal).")]


class Match(Model, kw_only=True):
    """The match a game belongs to (docs/api.md §15, RULES 14)."""

    best_of: Annotated[Literal[BEST_OF], says("must be 1, 3 or 5")]  # type: ignore[valid-type]
    game: Annotated[
        int, says("must be a game number from 1 to 5", ge=1, le=max(BEST_OF)), doc("This game's number, from 1.")
    ]
    wins: Annotated[
        list[Annotated[int, Meta(ge=0, le=max(BEST_OF) // 2 + 1)]],
        says("must be a list of two win counts", min_length=PLAYERS, max_length=PLAYERS, whole=True),
        doc("Games each player has won, this one included once it is over."),
    ]
    winner: Annotated[
        PlayerIndex | None, doc("The match's winner once a player has won a majority (RULES 14.3), else null.")
    ] = None


# -- actions (docs/api.md §6) ---------------------------------------------------------------


def _action_says(error: str) -> Meta:
    return says(error, missing=error)  # an action's field says the same whether absent or wrong


ActionId = Annotated[AnyId, _action_says("must be a card instance id (non-empty string)")]
ActionIds = Annotated[list[AnyId], _action_says("must be a list of card instance ids"), Meta(extra={"whole": True})]
# The type of each field an action may take, besides ``type``, ``player`` and ``pay``.
ACTION_FIELD_TYPES: dict[str, Any] = {
    "card": Annotated[ActionId, doc("The card instance the action uses.")],
    "case": Annotated[ActionId, doc("A case instance in play.")],
    "fairy": Annotated[ActionId, doc("A fairy instance on the field.")],
    "ability": Annotated[
        int,
        _action_says("must be an ability index (integer ≥ 0)"),
        Meta(ge=0),
        doc("The index of the ability on the card (0-based)."),
    ],
    "targets": Annotated[
        ActionIds | None,
        doc(  # null is read as []
            "One instance id per effect that takes a target, in the card's order; absent or null means []."
        ),
    ],
    "cards": Annotated[
        ActionIds,
        doc(f"The cards discarded: exactly the excess over {HAND_LIMIT} (the count is a rule matter, RULES 6.6)."),
    ],
}
ACTION_DEFAULTS: dict[str, Any] = {"targets": []}
Pay = Annotated[
    list[AnyId],
    says("must be a list of case instance ids", whole=True),
    doc("The case instances that pay the cost (RULES 7.3); absent: the cases controlled longest."),
]


class ActionKind(NamedTuple):
    """One action type of docs/api.md §6: the fields it takes (besides type, player and pay), its rule, what it does."""

    fields: tuple[str, ...]
    rule: str
    summary: str


ACTIONS: dict[str, ActionKind] = {
    kind: ActionKind(*spec)
    for kind, spec in {
        "mulligan": ((), "5.4", f"Trash the whole hand and draw {OPENING_HAND} (mulligan phase)."),
        "keep": ((), "5.4", "Keep the hand (mulligan phase)."),
        "play_case": (("card",), "6.4", "Play a case from hand, face down (case step)."),
        "skip_case": ((), "6.4", "Play no case this turn (case step)."),
        "draw": ((), "8.2", "Draw 1 card (main step, 1 action)."),
        "play_fairy": (("card",), "8.3", "Play a fairy from hand, standby."),
        "play_evidence": (("card", "case"), "8.4", "Play an evidence from hand onto a case in play."),
        "dispatch": (("fairy", "case"), "8.5", "Dispatch a standby fairy to a case in play."),
        "redispatch": (("fairy", "case"), "8.6", "Move a dispatched fairy to another case in play."),
        "recall": (("fairy",), "8.7", "Recall a dispatched fairy: it becomes standby."),
        "investigate": (("case",), "10", "Investigate a case one of your fairies is dispatched to."),
        "use_ability": (
            ("card", "ability", "targets"),
            "9.1",
            "Use ability number `ability` of a fairy or evidence you control.",
        ),
        "cast_spell": (("card", "targets"), "9.2", "Cast a spell from hand."),
        "counter": (("card", "targets"), "9.3", "Play a counter from hand in a response window."),
        "pass": ((), "9.4", "Close the response window (the responder)."),
        "end_turn": ((), "6.5", "End the turn (main step, no window open)."),
        "discard": (("cards",), "6.6", f"Discard exactly the excess over {HAND_LIMIT} cards (end step)."),
        "concede": ((), "11.2", "Concede the game (either player, any time before it is over)."),
        "claim_time": ((), "11.5", "Claim the game: the opponent's time has run out (a game with a clock)."),
    }.items()
}
# RULES 9.4: the actions a response window may follow (6.4, 8.2–8.8, 9.1, 9.2); a counter's ``trigger`` names one
# (docs/api.md §8). The one list: ``ActionRule.respondable`` and the catalog's triggers are read from it.
RESPONDABLE: tuple[str, ...] = (
    "play_case",
    "draw",
    "play_fairy",
    "play_evidence",
    "dispatch",
    "redispatch",
    "recall",
    "investigate",
    "use_ability",
    "cast_spell",
)
ACTION_FIELDS: dict[str, tuple[str, ...]] = {kind: spec.fields for kind, spec in ACTIONS.items()}
ACTION_TYPES = tuple(ACTIONS)


def _field(name: str) -> tuple[Any, ...]:
    if name in ACTION_DEFAULTS:
        return (name, ACTION_FIELD_TYPES[name], field(default_factory=lambda: list(ACTION_DEFAULTS[name])))
    return (name, ACTION_FIELD_TYPES[name])


def _action_struct(kind: str) -> type[Struct]:
    spec = ACTIONS[kind]
    fields = [
        ("player", Annotated[PlayerIndex, doc("Who acts.")]),
        *map(_field, spec.fields),
        ("pay", Pay | UnsetType, UNSET),
    ]
    cls = msgspec.defstruct(
        "".join(part.title() for part in kind.split("_")),
        fields,
        bases=(Model,),
        kw_only=True,
        tag_field="type",
        tag=kind,
        module=__name__,
    )
    cls.__doc__ = f"{spec.summary} (RULES {spec.rule})"
    return cls


ACTION_STRUCTS: dict[str, type[Struct]] = {kind: _action_struct(kind) for kind in ACTION_TYPES}
if TYPE_CHECKING:
    Action = Struct  # the union of ACTION_STRUCTS, made at run time: a checker sees their base
else:
    Action = functools.reduce(operator.or_, ACTION_STRUCTS.values())


class Pending(Model, kw_only=True):
    """The action of an open response window (RULES 9.4)."""

    action: Annotated[
        Action,
        says("must be an object", missing="must be an object"),
        doc("The declared action, `pay` filled in as paid."),
    ]
    responder: PlayerIndex
    negated: Annotated[Flag, doc("A counter negated it (RULES 9.5). Default false.")] = False
    power: Annotated[Power, doc("Investigation modifiers from counters. Default 0.")] = 0
    counters: Annotated[Ids, doc("Counters played in this window. Default [].")] = field(default_factory=list)


class State(Model, kw_only=True):
    """The full, authoritative game state (docs/api.md §3, docs/state.md). Opaque to clients apart from the documented fields; send it back exactly as received."""

    schema: Literal[SCHEMA]  # type: ignore[valid-type]  # mypy reads no Final name inside Literal
    ruleset: Literal[RULESET]  # type: ignore[valid-type]
    catalog: Annotated[CatalogRef, says("must be an object with string fields id and digest", whole=True)]
    options: Annotated[
        Options,
        says("must be an object with only response_windows", shape=True),
        doc('Default {"response_windows": "auto"}.'),
    ] = field(default_factory=Options)
    format: Annotated[
        FormatRef | None,
        says('must be null or an object {"id": format id, "revision": "YYYY-MM-DD"}', whole=True),
        doc("The game's format and its revision, fixed at the deal (RULES 3.9); null: none. Default null."),
    ] = None
    seed: Text
    rng: Annotated[RngCount, doc("How many random draws were made from the seed.")]
    turn: Annotated[Turn, doc("0 in the mulligan phase, then 1, 2, ...")]
    phase: Phase
    step: Step
    active: Annotated[PlayerIndex, doc("Whose turn; in the mulligan phase, who decides.")]
    first_player: PlayerIndex
    case_played: Flag
    pending: Annotated[Pending | None, says("must be null or an object")]
    result: Annotated[Result | None, says("must be null or an object with winner and reason", shape=True)]
    cards: Annotated[
        dict[Annotated[str, Meta(min_length=1)], str],
        says(
            "must be an object mapping instance ids to catalog ids",
            entry="must map a non-empty instance id to a catalog id string",
        ),
        doc("Every card instance id (80) to its catalog id."),
    ]
    players: Annotated[
        list[PlayerState],
        says(f"must be a list of exactly {PLAYERS} players (RULES 1.1)", min_length=PLAYERS, max_length=PLAYERS),
    ]
    modifiers: Annotated[
        list[
            Annotated[
                Modifier,
                says(f"must be an object {{card: id, power: integer from {-POWER_MAX} to {POWER_MAX}}}", whole=True),
            ]
        ],
        says("must be a list"),
        doc("Default []."),
    ] = field(default_factory=list)
    used: Annotated[
        list[Annotated[Used, says("must be an object {card: id, ability: index}", whole=True)]],
        says("must be a list"),
        doc("Default []."),
    ] = field(default_factory=list)
    seq: Annotated[
        RngCount,
        doc(
            "How many actions were applied since the deal (0 at the deal). Default 0. Whoever stores the game "
            "keeps the state with the highest seq; a player sees a rollback as seq going back."
        ),
    ] = 0
    game_id: (
        Annotated[
            Annotated[str, Meta(min_length=1)],
            says("must be a non-empty string"),
            doc(
                "The game's random id, set at the deal in private mode (docs/api.md §10); the seats are made for it. "
                "Absent in plain mode."
            ),
        ]
        | UnsetType
    ) = UNSET
    watch_delay: (
        Annotated[
            Annotated[int, Meta(ge=WATCH_DELAY[0], le=WATCH_DELAY[1])],
            says(f"must be a whole number of moves from {WATCH_DELAY[0]} to {WATCH_DELAY[1]}"),
            doc(
                "How many moves behind the latest a spectator sees the game while it goes on (docs/api.md §12), "
                "set at a private deal with a ledger. Absent: 0."
            ),
        ]
        | UnsetType
    ) = UNSET
    clock: Annotated[
        Clock | None,
        says("must be null or a clock object", shape=True),
        doc("The game's clock (docs/api.md §15), or null: no clock. Default null."),
    ] = None
    match: Annotated[
        Match | None,
        says("must be null or an object with best_of, game and wins", shape=True),
        doc("The match this game is part of (docs/api.md §15), or null. Default null."),
    ] = None
    seal: (
        Annotated[
            Text, doc("A MAC over the rest of the state, present when the service runs with a secret (docs/api.md §4).")
        ]
        | UnsetType
    ) = UNSET


@functools.cache
def fields(model: type[Struct]) -> tuple[msgspec.structs.FieldInfo, ...]:
    """``msgspec.structs.fields``, once per Struct: it re-reads the annotations on every call."""
    return msgspec.structs.fields(model)


def build(model: type[Struct], **values: Any) -> dict[str, Any]:
    """A plain dict of ``model``'s fields in the model's order, defaults filled (an optional field
    without a default, like ``seal``, is left out); for the position builders (setup, scenarios, tests).

    >>> list(build(Options))
    ['response_windows']
    >>> build(Result, winner=0, reason="concede", loser=1)
    Traceback (most recent call last):
    ...
    TypeError: Result has no field loser
    """
    unknown = set(values) - set(model.__struct_fields__)
    if unknown:
        raise TypeError(f"{model.__name__} has no field {', '.join(sorted(unknown))}")
    out: dict[str, Any] = {}
    for f in fields(model):
        if f.encode_name in values:
            out[f.encode_name] = values[f.encode_name]
        elif f.default_factory is not msgspec.NODEFAULT:
            out[f.encode_name] = msgspec.to_builtins(f.default_factory())
        elif f.default is not msgspec.NODEFAULT and f.default is not UNSET:
            out[f.encode_name] = msgspec.to_builtins(f.default)
        elif f.required:
            raise TypeError(f"{model.__name__} needs {f.encode_name}")
    return out
