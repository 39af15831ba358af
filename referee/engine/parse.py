"""Reading a state or an action against the model (``model.py``): one way each, and an explanation for errors.

``msgspec.convert`` reads the value against the model and ``msgspec.to_builtins``
returns the plain-dict working copy the rules mutate (a state's ``cards``, the
bulk of it, copied for RULES 13.1's check to judge: :func:`read_state`). Only
when a value is refused does :func:`explain` walk the same model to list
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
from typing import Any, Literal, TypeVar, cast

import msgspec
from msgspec import Meta, Struct, UnsetType

from referee.engine.errors import InvalidInput
from referee.engine.model import (
    ACTION_STRUCTS,
    Action,
    State,
)
from referee.engine.model import fields as model_fields
from referee.engine.state_types import ActionDict, PlayerDict, StateDict

Errors = dict[str, list[str]]
_Action = TypeVar("_Action", dict[str, Any], ActionDict)  # an action read by the model, typed or not


# -- reading ------------------------------------------------------------------------


def read_state(raw: Any) -> StateDict:
    """A state read by the model into a new, normalised working copy: the one way a state is read.

    The model reads every field but ``cards``; the 80 entries of ``cards`` (half of what msgspec
    would spend on a state) are copied as they are, for RULES 13.1's check to judge: it takes every
    instance id of the zones from ``cards`` and every catalog id against the catalog, so an entry
    that is not a non-empty id mapped to a catalog id string is refused there. Only
    :func:`check_state` calls this, and on any refusal it asks :func:`state_problem` what a client
    reads: a shape problem (with every path the model declares) before any inconsistency.

    Raises ``msgspec.ValidationError`` (or ``TypeError`` for a state or ``cards`` not an object).
    """
    if not isinstance(raw, dict) or not isinstance(cards := raw.get("cards"), dict):
        raise TypeError("a state is an object holding an object cards")
    rest = dict.copy(raw)  # a clone of the table, cheaper than building a dict key by key
    rest["cards"] = _NO_CARDS
    try:
        read = msgspec.convert(rest, State)
    except msgspec.ValidationError:
        # msgspec takes a str subclass for a string but not for a tag (an action's ``type``): read what it
        # spells (the decision "A subclass of str or int reads as the value it is"); only after a refusal
        read = msgspec.convert(plain_input(rest), State)
    state: StateDict = plain_copy(read)
    state["cards"] = dict(cards)
    p0, p1 = players = state["players"]
    if "name" not in p0 or "name" not in p1:  # the default name, first as when given
        for i, p in enumerate(players):
            if "name" not in p:
                players[i] = cast(PlayerDict, {"name": f"Player {i + 1}", **p})
    if state["pending"] is not None:
        _normalise_action(state["pending"]["action"])
    return state


def state_problem(raw: Any) -> InvalidInput | None:
    """What is malformed in a state the reading refused: every problem with its field path and the
    model's message (:func:`explain`), or msgspec's own; ``None`` when the model accepts it whole
    (then what was refused is an inconsistency, RULES 13.1). Built only after a refusal."""
    try:
        msgspec.convert(plain_input(raw), State)
    except msgspec.ValidationError as exc:
        return InvalidInput(explain(raw, State) or _as_errors(exc))
    except TypeError as exc:  # a value no JSON body holds (a set, an object): the explanation names where
        return InvalidInput(explain(raw, State) or {"": [str(exc)]})
    return None


_NO_CARDS: dict[str, str] = {}


def _plain_str(value: Any) -> str | int:
    """What msgspec cannot copy but reads: a subclass of ``str`` (numpy's ``str_``, say) is the string it spells."""
    if isinstance(value, str):
        return str.__str__(value)  # not type(value).__str__, which a subclass may override
    if isinstance(value, int):  # likewise an int subclass (numpy's ints are not; bool is read as itself)
        return int.__int__(value)
    raise TypeError(f"{type(value).__name__} is not a JSON value")  # never from a value msgspec has read


def plain_input(value: Any) -> Any:
    """A client's value with every ``str`` subclass as the string it spells: what msgspec reads as a string
    everywhere but in a tag (an action's ``type``). ``TypeError`` for a value that is no JSON value."""
    return msgspec.to_builtins(value, enc_hook=_plain_str)


def plain_copy(value: Any) -> Any:
    """A plain-data copy of a value msgspec has read, or of a state the engine holds (the working copy the
    rules mutate; ``Session.snapshot``)."""
    try:
        return msgspec.to_builtins(value)
    except TypeError:  # a str subclass; copied again with the hook, which costs every call when given
        return msgspec.to_builtins(value, enc_hook=_plain_str)


def parse_action(raw: Any, path: str = "action") -> ActionDict:
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
    action: ActionDict = plain_copy(read)
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
