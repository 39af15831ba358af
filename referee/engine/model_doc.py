"""docs/state.md's state table, derived from the model (``model.py``): field, type and default.

The model is the one description of the state's shape; the table's first three
columns are rendered from it here, and only the "meaning" column is prose
written in docs/state.md. ``tests/test_model.py`` fails when the document
drifts from :func:`state_table`; ``make state-doc`` rewrites the table,
keeping each field's meaning.

>>> type_text(model.Turn), type_text(model.RngCount), type_text(model.Result)
('int, 0 to 1,000,000', 'int, 0 to 2^53−1', '`{"winner", "reason"}`')
"""

from __future__ import annotations

import enum
import json
import types
import typing
from typing import Any, Literal

import msgspec
from msgspec import Meta, Struct, UnsetType

from referee.engine import model

OR = " \\| "  # a "|" inside a Markdown table cell


def _bare(tp: Any) -> tuple[Any, list[Meta]]:
    metas: list[Meta] = []
    while typing.get_origin(tp) is typing.Annotated:
        tp, *more = typing.get_args(tp)
        metas.extend(m for m in more if isinstance(m, Meta))
    return tp, metas


def _meta(metas: list[Meta], name: str) -> Any:
    return next((getattr(m, name) for m in metas if getattr(m, name) is not None), None)


def type_text(tp: Any, code: bool = False) -> str:
    """How the table writes a model type: ``int ≥ 0``, ``0 \\| 1``, ``list of `{"card", "power"}` ``...

    ``code``: inside a code span (a small object's values), where strings are written as JSON.
    """
    tp, metas = _bare(tp)
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        rest = [a for a in args if a not in (type(None), UnsetType)]
        inner = type_text(rest[0], code)
        return f"null or {inner}" if type(None) in args else inner
    if typing.get_origin(tp) is Literal:  # a constant: as JSON
        return OR.join(json.dumps(v) if code or not isinstance(v, str) else f"`{json.dumps(v)}`" for v in args)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):  # one of a few words
        return OR.join(json.dumps(m.value) if code else f"`{m.value}`" for m in tp)
    if isinstance(tp, type) and issubclass(tp, Struct):
        return _struct_text(tp)
    if typing.get_origin(tp) is list:
        low, high = _meta(metas, "min_length"), _meta(metas, "max_length")
        item = type_text(args[0])
        return f"{low} × {item}" if low is not None and low == high else f"list of {item}"
    if typing.get_origin(tp) is dict:
        return f"object of {type_text(args[0])} to {type_text(args[1])}"
    if tp is int:
        low, high = _meta(metas, "ge"), _meta(metas, "le")
        if high is not None:
            return f"int, {_number(low)} to {_number(high)}"
        return "int" if low is None else f"int ≥ {low}"
    if tp is str:
        return "non-empty string" if _meta(metas, "min_length") else "string"
    if tp is bool:
        return "bool"
    raise TypeError(f"no text for {tp!r}")


def _number(n: int) -> str:
    """``1,000,000``; a bound one below a large power of two as ``2^53−1``."""
    if n > 10**6 and (n + 1) & n == 0:
        return f"2^{(n + 1).bit_length() - 1}−1"
    return f"{n:,}"


def _struct_text(struct: type[Struct]) -> str:
    """Player and Pending by name (docs/state.md describes them below the table); a small object by its keys."""
    if struct in NAMED:
        return NAMED[struct]
    fields = model.fields(struct)
    if len(fields) == 1:
        return f'`{{"{fields[0].encode_name}": {type_text(fields[0].type, code=True)}}}`'
    return "`{" + ", ".join(f'"{f.encode_name}"' for f in fields) + "}`"


NAMED = {model.PlayerState: "Player", model.Pending: "Pending"}


def default_text(f: msgspec.structs.FieldInfo) -> str:
    """``required``, ``absent`` (optional, no default) or the default as JSON in backticks."""
    if f.default_factory is not msgspec.NODEFAULT:
        value = msgspec.to_builtins(f.default_factory())
    elif f.default is msgspec.NODEFAULT:
        return "required"
    elif f.default is msgspec.UNSET:
        return "absent"
    else:
        value = msgspec.to_builtins(f.default)
    return f"`{json.dumps(value, ensure_ascii=False, separators=(', ', ': '))}`"


def state_table(meanings: dict[str, str]) -> list[str]:
    """The state table's lines (header included), each field's meaning taken from ``meanings``."""
    lines = ["| field | type | default | meaning |", "| --- | --- | --- | --- |"]
    for f in model.fields(model.State):
        lines.append(
            f"| `{f.encode_name}` | {type_text(f.type)} | {default_text(f)} | "
            f"{meanings.get(f.encode_name, '')} |".replace(" |  |", " | |")
        )
    return lines


# -- the working state's types (referee/engine/state_types.py) ------------------------------------

# The model's Structs, by the TypedDict that describes the plain dict the rules hold for each.
TYPED_DICTS: dict[type[Struct], str] = {
    model.CatalogRef: "CatalogRefDict",
    model.FormatRef: "FormatRefDict",
    model.Options: "OptionsDict",
    model.CaseEntry: "CaseEntryDict",
    model.FairyEntry: "FairyEntryDict",
    model.EvidenceEntry: "EvidenceEntryDict",
    model.PlayerState: "PlayerDict",
    model.Modifier: "ModifierDict",
    model.Used: "UsedDict",
    model.Result: "ResultDict",
    model.Pending: "PendingDict",
    model.Clock: "ClockDict",
    model.Match: "MatchDict",
    model.State: "StateDict",
}


def python_type(tp: Any) -> str:
    """The type of a model field's value in the plain working state, as Python source.

    >>> python_type(typing.get_type_hints(model.State, include_extras=True)["pending"]), python_type(model.Ids)
    ('PendingDict | None', 'list[str]')
    """
    tp, _ = _bare(tp)
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        rest = [python_type(a) for a in args if a not in (type(None), UnsetType)]
        if tp is model.Action or all(isinstance(a, type) and issubclass(a, Struct) for a in args):
            return "ActionDict"
        return " | ".join(rest + (["None"] if type(None) in args else []))
    if typing.get_origin(tp) is Literal:
        return type(args[0]).__name__
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return "str"  # a plain dict holds the member's value
    if isinstance(tp, type) and issubclass(tp, Struct):
        return "ActionDict" if tp in model.ACTION_STRUCTS.values() else TYPED_DICTS[tp]
    if typing.get_origin(tp) is list:
        return f"list[{python_type(args[0])}]"
    if typing.get_origin(tp) is dict:
        return f"dict[{python_type(args[0])}, {python_type(args[1])}]"
    if tp in (int, str, bool):
        name: str = tp.__name__
        return name
    raise TypeError(f"no Python type for {tp!r}")


def _field_lines(struct: type[Struct]) -> list[str]:
    hints = typing.get_type_hints(struct, include_extras=True)
    lines = []
    for f in model.fields(struct):
        kind = python_type(hints[f.name])
        optional = f.default is msgspec.UNSET or f.name in _ACTION_OPTIONAL
        lines.append(f"    {f.encode_name}: {f'NotRequired[{kind}]' if optional else kind}")
    return lines


_ACTION_OPTIONAL: frozenset[str] = frozenset()
# An action's fields as the parser leaves them for the rules: ``targets: null`` is read as ``[]``.
_WORKING = {"targets": "list[str]"}


def typed_dicts_source() -> str:
    """``referee/engine/state_types.py``: a TypedDict for each Struct of the model, and one for any action."""
    out = [
        '"""The working state\'s types, generated from the model (``model.py``) by ``make state-types``: do not edit.',
        "",
        "The rules hold a state as plain dicts; these TypedDicts give those dicts the model's field names and",
        "types, so mypy checks every key the rules read or write. ``tests/test_state_types.py`` fails when this",
        "file drifts from the model. A field the model leaves absent when unset is ``NotRequired``; an action is",
        "one TypedDict with every field an action type may take (``model.ACTION_FIELDS`` says which takes which).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Literal, NotRequired, TypedDict",
    ]
    fields: dict[str, str] = {}
    for struct in model.ACTION_STRUCTS.values():
        hints = typing.get_type_hints(struct, include_extras=True)
        for f in model.fields(struct):
            fields.setdefault(f.encode_name, _WORKING.get(f.encode_name) or python_type(hints[f.name]))
    out += ["", "", "class ActionDict(TypedDict):", '    """Any action (docs/api.md §6)."""', "", "    type: str"]
    out += ["    player: int"] + [
        f"    {name}: NotRequired[{kind}]" for name, kind in fields.items() if name != "player"
    ]
    for struct, name in TYPED_DICTS.items():
        doc = (struct.__doc__ or "").strip().splitlines()[0]
        out += ["", "", f"class {name}(TypedDict):", f'    """{doc}"""', "", *_field_lines(struct)]
    hints = typing.get_type_hints(model.PlayerState, include_extras=True)
    zones = [f.encode_name for f in model.fields(model.PlayerState) if python_type(hints[f.name]).startswith("list[")]
    on_field = [z for z in zones if python_type(hints[z]) != "list[str]"]
    out += ["", "", "# A player's zones: those that hold instance ids, and those that hold entries on the field."]
    out += [f"IdZone = Literal[{', '.join(repr(z) for z in zones if z not in on_field)}]".replace("'", '"')]
    out += [f"FieldZone = Literal[{', '.join(repr(z) for z in on_field)}]".replace("'", '"')]
    return "\n".join(out + _view_lines()) + "\n"


# -- a view (docs/api.md §5, §12, §15): the state's fields, with what a player may not see taken out ---------

VIEW_HIDDEN = ("seed", "rng", "seal")  # not in a view at all (views.NOT_IN_VIEW; the rest are shown filtered)
VIEW_FIELDS = {  # what a view has in place of the state's, or besides them
    "viewer": "int | None",
    "player": "int | None",
    "commitment": "str",
    "players": "list[ViewPlayerDict]",
    "clock": "ClockViewDict | None",
}
CLOCK_VIEW = {"remaining": "list[int]", "running": "int | None", "since": "str", "initial": "int", "increment": "int"}


def _view_lines() -> list[str]:
    """``ViewDict`` (what ``Session.view`` answers), its players (a file is a count) and its clock."""
    player = [line.replace(" file: list[str]", " file: int") for line in _field_lines(model.PlayerState)]
    state: list[str] = []
    for line in _field_lines(model.State):
        name = line.split(":")[0].strip()
        if name not in VIEW_HIDDEN:
            state.append(f"    {name}: {VIEW_FIELDS[name]}" if name in VIEW_FIELDS else line)
    state += [f"    {name}: {kind}" for name, kind in VIEW_FIELDS.items() if f"    {name}: " not in "\n".join(state)]
    out = [
        "",
        "",
        "class ViewPlayerDict(TypedDict):",
        '    """One player\'s zones as a view shows them: the file as a count."""',
    ]
    out += ["", *player, "", "", "class ClockViewDict(TypedDict):"]
    out += [
        '    """The clock as a view shows it (docs/api.md §15): time left at the last move, whose runs, since when."""'
    ]
    out += ["", *(f"    {name}: {kind}" for name, kind in CLOCK_VIEW.items())]
    out += [
        "",
        "",
        "class ViewDict(TypedDict):",
        '    """What one player (or a spectator: ``None``) may see of a state (docs/api.md §5, §12)."""',
    ]
    return out + ["", *state]
