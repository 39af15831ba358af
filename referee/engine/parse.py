"""Reading a state or an action against the model (``model.py``).

``msgspec.convert`` reads the value against the model and ``msgspec.to_builtins``
returns the plain-dict working copy the rules mutate (a state's ``cards``, the
bulk of it, checked and copied apart: a shortcut of ``shortcuts.py``). Only
when the model refuses it does :func:`explain` walk the same model to list
*every* problem with its field path (``players.0.hand``) and the message the
model declares for it (``tests/test_state_parsers.py`` checks that the two
agree on what is well formed, error paths included).

>>> parse_action({"type": "draw", "player": 0})
{'type': 'draw', 'player': 0}
>>> parse_action({"type": "fly", "player": 0})
Traceback (most recent call last):
...
referee.engine.errors.InvalidInput: action.type: unknown action type 'fly'
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Annotated, Any, Literal, TypeVar, cast

import msgspec
import orjson
from msgspec import Meta, Struct, UnsetType

from referee.engine.errors import InvalidInput
from referee.engine.facts import PLAYERS
from referee.engine.model import (
    ACTION_STRUCTS,
    Action,
    CaseEntry,
    EvidenceEntry,
    FairyEntry,
    Model,
    PlayerState,
    State,
)
from referee.engine.model import fields as model_fields
from referee.engine.state_types import ActionDict, PlayerDict, StateDict

Errors = dict[str, list[str]]
_Action = TypeVar("_Action", dict[str, Any], ActionDict)  # an action read by the model, typed or not


# -- reading ------------------------------------------------------------------------


def parse_state(raw: Any, *, ids_checked_later: bool = False) -> StateDict:
    """A new, normalised copy of a well-formed state; :class:`InvalidInput` listing every problem if not.

    With ``ids_checked_later`` the entries of ``cards`` are copied without reading their types, and
    the instance ids in the zones are read as any strings (:data:`_IDS_CHECKED_LATER`): for a caller
    that then checks every key of ``cards`` against the zones, every value against the catalog and
    every id in the zones against ``cards``, and reads the state again without it before reporting
    any problem (``check_state``).
    """
    state = _plain_state(raw, ids_checked_later)  # a shortcut (shortcuts.py); None: the model reads it all
    if state is None:
        try:
            state = plain_copy(msgspec.convert(raw, State))
        except msgspec.ValidationError as exc:
            raise InvalidInput(explain(raw, State) or _as_errors(exc)) from None
    p0, p1 = players = state["players"]
    if "name" not in p0 or "name" not in p1:  # the default name, first as when given
        for i, p in enumerate(players):
            if "name" not in p:
                players[i] = cast(PlayerDict, {"name": f"Player {i + 1}", **p})
    if state["pending"] is not None:
        _normalise_action(state["pending"]["action"])
    return state


_NO_CARDS: dict[str, str] = {}
_EXACT_TYPES_ONLY = orjson.OPT_PASSTHROUGH_SUBCLASS  # a subclass of str (or of anything) is refused, not encoded


def _plain_str(value: Any) -> str:
    """What msgspec cannot copy but reads: a subclass of ``str`` (numpy's ``str_``, say) is the string it spells."""
    if isinstance(value, str):
        return str.__str__(value)  # not type(value).__str__, which a subclass may override
    raise TypeError(f"{type(value).__name__} is not a JSON value")  # never from a value msgspec has read


def plain_copy(value: Any) -> Any:
    """A plain-data copy of a value msgspec has read, or of a state the engine holds (the working copy the
    rules mutate; ``Session.snapshot``)."""
    try:
        return msgspec.to_builtins(value)
    except TypeError:  # a str subclass; copied again with the hook, which costs every call when given
        return msgspec.to_builtins(value, enc_hook=_plain_str)


def _plain_state(raw: Any, ids_checked_later: bool = False) -> StateDict | None:
    """The state read as the model reads it, with ``cards`` (the bulk of it) checked and copied at C speed; or
    ``None`` when this shortcut cannot tell (the general path then reads ``raw``, errors and all).

    msgspec spends half of a state's time on the 80 entries of ``cards``: as
    plain ``str`` to non-empty ``str`` they are exactly what the model accepts,
    so the rest is converted without them and they are copied by ``dict``.
    Two passes in C tell "plain str to str": orjson encodes the mapping only
    when every key is a ``str`` and every value a JSON type, none a subclass,
    and ``str.join`` takes the values only when all are ``str``. With
    ``ids_checked_later`` those two passes, and the zones' "non-empty", are
    left to the caller's own checks (see :func:`parse_state`).
    A shortcut of ``shortcuts.py``: ``tests/test_shortcuts.py`` holds it to the model's reading.
    """
    if type(raw) is not dict:
        return None
    cards = raw.get("cards")
    if type(cards) is not dict or "" in cards:
        return None
    if not ids_checked_later:
        try:
            orjson.dumps(cards, option=_EXACT_TYPES_ONLY)
            "".join(cards.values())
        except TypeError:  # orjson.JSONEncodeError is one
            return None
    rest = raw.copy()  # a clone of the table, cheaper than building a dict key by key
    rest["cards"] = _NO_CARDS
    try:
        state: StateDict = msgspec.to_builtins(
            msgspec.convert(rest, _IDS_CHECKED_LATER if ids_checked_later else State)
        )
    except (msgspec.ValidationError, TypeError):  # TypeError: a str subclass, which the general path copies
        return None
    state["cards"] = dict(cards)
    return state


def _list_of(item: Any) -> Any:
    """``list[item]`` for an item type made at run time (a checker reads ``list[...]`` as a type)."""
    return list[item]


def _relaxed(model: type[Struct], **types: Any) -> type[Struct]:
    """``model`` with the named fields' types replaced; its other fields, defaults and strictness kept."""

    def spec(f: msgspec.structs.FieldInfo) -> tuple[Any, ...]:
        kind = types.get(f.name, f.type)
        if f.default_factory is not msgspec.NODEFAULT:
            return f.name, kind, msgspec.field(default_factory=f.default_factory)
        if f.default is not msgspec.NODEFAULT:
            return f.name, kind, f.default
        return f.name, kind

    return msgspec.defstruct(model.__name__, [spec(f) for f in model_fields(model)], bases=(Model,), kw_only=True)


# The state as ``check_state`` reads it: the zones' instance ids as any strings, without the model's
# "non-empty" (msgspec's constrained strings cost a tenth of the read). Its consistency check takes
# each of them from ``cards``, whose keys are never empty (_plain_state leaves such a state to the
# model), so a state with an empty one is refused there and read again by the model, which says why.
# A fairy's ``case`` keeps its check: there the consistency check reads anything empty as standby.
_PlayerIds = _relaxed(
    PlayerState,
    file=list[str],
    hand=list[str],
    trash=list[str],
    cases=_list_of(_relaxed(CaseEntry, card=str)),
    fairies=_list_of(_relaxed(FairyEntry, card=str)),
    evidence=_list_of(_relaxed(EvidenceEntry, card=str, case=str)),
)
_IDS_CHECKED_LATER = _relaxed(
    State, players=Annotated[_list_of(_PlayerIds), Meta(min_length=PLAYERS, max_length=PLAYERS)]
)


def parse_action(raw: Any, path: str = "action") -> dict[str, Any]:
    """A normalised copy of a well-formed action (``targets`` defaults to ``[]``); errors under ``path``.

    Counts (how many targets, discards or payers) are rule matters, checked later.
    """
    try:
        read = msgspec.convert({"action": raw}, _OneAction).action
    except msgspec.ValidationError as exc:
        errors: Errors = {}
        _action(raw, path, errors)
        boxed = {path + where[len("action") :]: msgs for where, msgs in _as_errors(exc).items()}
        raise InvalidInput(errors or boxed) from None
    action: dict[str, Any] = plain_copy(read)
    return _normalise_action(action)


class _OneAction(Struct):
    """One action, boxed: msgspec keeps a Struct's validator, where it would build a bare Union's on every call."""

    action: Action


def _normalise_action(action: _Action) -> _Action:
    if "targets" in action and action["targets"] is None:
        action["targets"] = []
    return action


def _as_errors(exc: msgspec.ValidationError, prefix: str = "") -> Errors:
    """msgspec's own message, for a value the explanation finds nothing wrong with (e.g. a 2**70 integer)."""
    text = str(exc)
    message, _, where = text.partition(" - at `$")
    path = where.rstrip("`").replace("[", ".").replace("]", "").lstrip(".")
    return {".".join(p for p in (prefix, path) if p): [message[0].lower() + message[1:]]}


# -- the careful path: every problem, with the model's messages -------------------------


def explain(value: Any, model: Any, path: str = "") -> Errors:
    """Every way ``value`` fails ``model``, as field path → messages (empty when it fits)."""
    errors: Errors = {}
    _check(value, model, path, errors, {})
    return errors


def _err(errors: Errors, path: str, message: str) -> None:
    errors.setdefault(path, []).append(message)


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def _unpack(tp: Any) -> tuple[Any, dict[str, Any], list[Meta]]:
    """(the bare type, its declared messages, its msgspec constraints) of a possibly Annotated type."""
    says: dict[str, Any] = {}
    metas: list[Meta] = []
    while typing.get_origin(tp) is typing.Annotated:
        args = typing.get_args(tp)
        tp = args[0]
        for m in args[1:]:
            if isinstance(m, Meta):
                metas.append(m)
                says = {**(m.extra or {}), **says}
    return tp, says, metas


def _constraint(metas: list[Meta], name: str) -> Any:
    return next((getattr(m, name) for m in metas if getattr(m, name) is not None), None)


def _check(value: Any, tp: Any, path: str, errors: Errors, outer: dict[str, Any]) -> None:
    tp, says, metas = _unpack(tp)
    says = {**outer, **says}
    if says.get("whole"):
        inner: Errors = {}
        _check(value, tp, path, inner, {k: v for k, v in says.items() if k != "whole"})
        if inner:
            _err(errors, path, says["error"])
        return
    if tp is Action:
        _action(value, path, errors)
        return
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None) and a is not UnsetType]
        if value is None and type(None) in args:
            return
        _check(value, rest[0], path, errors, says)
        return
    message = says.get("error")
    if isinstance(tp, type) and issubclass(tp, Struct):
        _struct(value, tp, path, errors, says)
    elif typing.get_origin(tp) is list:
        _check_list(value, args[0], metas, path, errors, message)
    elif typing.get_origin(tp) is dict:
        _check_dict(value, args, path, errors, message, says)
    elif not _scalar_fits(value, tp, metas):
        _err(errors, path, message or _scalar_message(tp))


def _check_list(value: Any, item_tp: Any, metas: list[Meta], path: str, errors: Errors, message: str | None) -> None:
    """A list field: its type, then its length bounds, then each item."""
    if type(value) is not list:
        _err(errors, path, message or "must be a list")
        return
    low, high = _constraint(metas, "min_length"), _constraint(metas, "max_length")
    if (low is not None and len(value) < low) or (high is not None and len(value) > high):
        _err(errors, path, message or f"must hold {low} to {high} items")
        return
    for i, item in enumerate(value):
        _check(item, item_tp, _join(path, i), errors, {})


def _check_dict(
    value: Any, args: tuple[Any, ...], path: str, errors: Errors, message: str | None, says: dict[str, Any]
) -> None:
    """A mapping field: its type, then each entry, a bad one named by its key with the field's ``entry`` text."""
    if type(value) is not dict:
        _err(errors, path, message or "must be an object")
        return
    for key, item in value.items():
        if explain(key, args[0]) or explain(item, args[1]):
            _err(errors, _join(path, key), says["entry"])


def _kind(value: Any) -> type:
    """The type msgspec reads ``value`` as: a subclass of ``str`` or ``int`` as its base, ``bool`` apart."""
    kind = type(value)
    if kind is bool or kind is str or kind is int:
        return kind
    return str if isinstance(value, str) else int if isinstance(value, int) else kind


def _scalar_fits(value: Any, tp: Any, metas: list[Meta]) -> bool:
    if typing.get_origin(tp) is Literal:
        return any(_kind(value) is type(v) and value == v for v in typing.get_args(tp))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _kind(value) is str and value in tp._value2member_map_
    if _kind(value) is not tp:
        return False
    low, min_length = _constraint(metas, "ge"), _constraint(metas, "min_length")
    return (low is None or value >= low) and (min_length is None or len(value) >= min_length)


def _scalar_message(tp: Any) -> str:
    values = typing.get_args(tp)
    if typing.get_origin(tp) is Literal and len(values) == 1:
        return f"must be {values[0]!r}"
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return "must be one of " + ", ".join(m.value for m in tp)
    return {str: "must be a string", int: "must be an integer", bool: "must be true or false"}.get(tp, "invalid")


def _struct(value: Any, model: type[Struct], path: str, errors: Errors, says: dict[str, Any]) -> None:
    if type(value) is not dict:
        _err(errors, path, says.get("error") or "must be an object")
        return
    fields = model_fields(model)
    names = {f.encode_name for f in fields}
    unknown = sorted(set(value) - names)
    if says.get("shape") and (unknown or any(f.required and f.encode_name not in value for f in fields)):
        _err(errors, path, says["error"])
        return
    for name in unknown:
        _err(errors, _join(path, name), "unknown field")
    for f in fields:
        where = _join(path, f.encode_name)
        if f.encode_name in value:
            _check(value[f.encode_name], f.type, where, errors, {})
        elif f.required:
            _err(errors, where, _unpack(f.type)[1].get("missing", "missing"))


def _action(value: Any, path: str, errors: Errors) -> None:
    """An action's problems: its type first (nothing more is said without a known one), unknown fields last."""
    if type(value) is not dict:
        _err(errors, path, "must be an object")
        return
    kind = value.get("type")
    if kind is None or not isinstance(kind, str) or kind not in ACTION_STRUCTS:  # a str subclass spells its value
        _err(errors, _join(path, "type"), "missing" if kind is None else f"unknown action type {kind!r}")
        return
    fields = model_fields(ACTION_STRUCTS[kind])
    for f in fields:
        where = _join(path, f.encode_name)
        if f.encode_name in value:
            _check(value[f.encode_name], f.type, where, errors, {})
        elif f.required:  # an action's required field says the same whether absent or wrong
            _err(errors, where, _unpack(f.type)[1]["error"])
    for name in sorted(set(value) - {"type", *(f.encode_name for f in fields)}):
        _err(errors, _join(path, name), f"unknown field for a {kind} action")
