"""The shapes of actions and states: constants, the action parser and small predicates.

Shared by the state parser (``state_parser.py``), the consistency check
(``consistency.py``) and the rules.
"""

from __future__ import annotations

from typing import Any

from referee.engine.errors import InvalidInput

SCHEMA = "ace-file/state@1"
RULESET = "ace-file-99"
DECK_SIZE = 40  # RULES 3.1
OPENING_HAND = 7  # RULES 5.3, 5.4
PHASES = ("mulligan", "turn", "over")
STEPS = ("mulligan", "case", "main", "end")
WINDOW_MODES = ("auto", "strict")
RESULT_REASONS = ("deck_out", "concede")

# docs/api.md §6: the fields each action type takes (besides type, player, pay).
ACTION_FIELDS: dict[str, tuple[str, ...]] = {
    "mulligan": (),
    "keep": (),
    "play_case": ("card",),
    "skip_case": (),
    "draw": (),
    "play_fairy": ("card",),
    "play_evidence": ("card", "case"),
    "dispatch": ("fairy", "case"),
    "redispatch": ("fairy", "case"),
    "recall": ("fairy",),
    "investigate": ("case",),
    "use_ability": ("card", "ability", "targets"),
    "cast_spell": ("card", "targets"),
    "counter": ("card", "targets"),
    "pass": (),
    "end_turn": (),
    "discard": ("cards",),
    "concede": (),
}
ACTION_TYPES = tuple(ACTION_FIELDS)
# RULES 9.4: the actions that open a response window when declared.
RESPONDABLE = (
    "play_case", "draw", "play_fairy", "play_evidence", "dispatch",
    "redispatch", "recall", "investigate", "use_ability", "cast_spell",
)
_ID_FIELDS = ("card", "case", "fairy")
STATE_KEYS = frozenset((
    "schema", "ruleset", "catalog", "options", "seed", "rng", "turn", "phase",
    "step", "active", "first_player", "case_played", "pending", "result",
    "cards", "players", "modifiers", "used", "seal",
))
PLAYER_KEYS = frozenset(("name", "file", "hand", "trash", "cases", "fairies", "evidence", "kept"))
PENDING_KEYS = frozenset(("action", "responder", "negated", "power", "counters"))


def other(player: int) -> int:
    return 1 - player


# -- actions -------------------------------------------------------------------

def parse_action(raw: Any, path: str = "action") -> dict[str, Any]:
    """Check an action's shape and return a normalised copy.

    ``targets`` defaults to ``[]``; counts (how many targets, discards or
    payers) are rule matters, checked later.

    >>> parse_action({"type": "draw", "player": 0})
    {'type': 'draw', 'player': 0}
    >>> parse_action({"type": "fly", "player": 0})
    Traceback (most recent call last):
    ...
    referee.engine.errors.InvalidInput: action.type: unknown action type 'fly'
    """
    errors: dict[str, list[str]] = {}
    if not isinstance(raw, dict):
        raise InvalidInput({path: ["must be an object"]})
    kind = raw.get("type")
    if not isinstance(kind, str) or kind not in ACTION_FIELDS:
        msg = "missing" if kind is None else f"unknown action type {kind!r}"
        raise InvalidInput({f"{path}.type": [msg]})
    fields = ACTION_FIELDS[kind]
    out: dict[str, Any] = {"type": kind}
    player = raw.get("player")
    if not is_player(player):
        errors[f"{path}.player"] = ["must be 0 or 1"]
    out["player"] = player
    for name in fields:
        value = raw.get(name)
        if name in _ID_FIELDS:
            if not is_id(value):
                errors[f"{path}.{name}"] = ["must be a card instance id (non-empty string)"]
        elif name == "ability":
            if not is_int(value) or value < 0:
                errors[f"{path}.ability"] = ["must be an ability index (integer ≥ 0)"]
        elif name == "targets":
            if value is None:
                value = []
            elif not is_id_list(value):
                errors[f"{path}.targets"] = ["must be a list of card instance ids"]
        elif name == "cards":
            if not is_id_list(value):
                errors[f"{path}.cards"] = ["must be a list of card instance ids"]
        out[name] = list(value) if isinstance(value, list) else value
    if "pay" in raw:
        if not is_id_list(raw["pay"]):
            errors[f"{path}.pay"] = ["must be a list of case instance ids"]
        else:
            out["pay"] = list(raw["pay"])
    extra = set(raw) - {"type", "player", "pay", *fields}
    for name in sorted(extra):
        errors[f"{path}.{name}"] = [f"unknown field for a {kind} action"]
    if errors:
        raise InvalidInput(errors)
    return out


# -- small predicates -----------------------------------------------------------

def is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_player(v: Any) -> bool:
    return v in (0, 1) and not isinstance(v, bool) and isinstance(v, int)


def is_id(v: Any) -> bool:
    return isinstance(v, str) and v != ""


STR_ONLY = frozenset((str,))


def types_of(values: Any) -> set[type]:
    return set(map(type, values))


def is_id_list(v: Any) -> bool:
    return isinstance(v, list) and types_of(v) <= STR_ONLY and "" not in v
