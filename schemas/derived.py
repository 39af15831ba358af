"""Marshmallow schemas derived from the engine's model (``referee/engine/model.py``).

The state and the actions are described once, as msgspec Structs; the
schemas from which ``openapi.yaml`` is generated are built from them here
(as ``Schema.from_dict`` would, with a ``Meta`` for the description), field by field: each type becomes the strict
field of ``schemas/fields.py`` that accepts the same JSON, with the model's
description and default. ``tests/test_model.py`` checks that the derivation
is complete (every Struct field is a schema field, with the same
requiredness).
"""

from __future__ import annotations

import enum
import types
import typing
from typing import Any, Literal

import msgspec
from marshmallow import RAISE, Schema, fields, validate
from msgspec import Meta, Struct, UnsetType

from referee.engine import model
from referee_schemas.fields import OneOfSchemas, StrictBoolean

# The OpenAPI component names (a schema's name less "Schema") where they differ from the Struct's.
NAMES = {"PlayerState": "Player"}
_SCHEMAS: dict[type[Struct], type[Schema]] = {}


def schema_for(struct: type[Struct]) -> type[Schema]:
    """The marshmallow schema of a model Struct (built once), refusing unknown fields."""
    if struct not in _SCHEMAS:
        attrs = {
            f.encode_name: field_for(f.type, required=f.required, default=f.default)
            for f in msgspec.structs.fields(struct)
        }
        if struct.__struct_config__.tag is not None:  # an action: its type first
            tag = struct.__struct_config__.tag
            attrs = {
                typing.cast(str, struct.__struct_config__.tag_field): fields.String(
                    required=True, validate=validate.OneOf([tag])
                ),
                **attrs,
            }
        name = NAMES.get(struct.__name__, struct.__name__) + ("Action" if struct.__struct_config__.tag else "")
        meta = type("Meta", (), {"unknown": RAISE, "description": _description(struct)})
        _SCHEMAS[struct] = type(name + "Schema", (Schema,), {**attrs, "Meta": meta, "__module__": __name__})
    return _SCHEMAS[struct]


def _description(struct: type[Struct]) -> str:
    return " ".join((struct.__doc__ or "").split())


def _metas(tp: Any) -> tuple[Any, list[Meta]]:
    metas: list[Meta] = []
    while typing.get_origin(tp) is typing.Annotated:
        tp, *more = typing.get_args(tp)
        metas[:0] = [m for m in more if isinstance(m, Meta)]  # outer ones last: they win
    return tp, metas


def _last(metas: list[Meta], name: str) -> Any:
    return next((getattr(m, name) for m in reversed(metas) if getattr(m, name) is not None), None)


def field_for(
    tp: Any, *, required: bool = True, default: Any = msgspec.NODEFAULT, metas: list[Meta] | None = None
) -> fields.Field[Any]:
    """The strict marshmallow field that accepts what ``tp`` accepts."""
    tp, own = _metas(tp)
    metas = [*(metas or []), *own]
    args = typing.get_args(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType) and tp != model.Action:
        rest = [a for a in args if a not in (type(None), UnsetType)]
        return _optional(rest[0], args, required, default, metas)
    kwargs: dict[str, Any] = {"required": required}
    description = _last(metas, "description")
    examples = _last(metas, "examples")
    metadata = {
        **({"description": description} if description else {}),
        **({"example": examples[0]} if examples else {}),
    }
    if metadata:
        kwargs["metadata"] = metadata
    if (
        default is not msgspec.NODEFAULT
        and isinstance(default, (str, int, bool))
        and not isinstance(default, enum.Enum | type(None))
    ):
        kwargs["load_default"] = default
    elif isinstance(default, enum.Enum):
        kwargs["load_default"] = default.value
    return _field(tp, args, metas, kwargs)


def _optional(inner: Any, args: tuple[Any, ...], required: bool, default: Any, metas: list[Meta]) -> fields.Field[Any]:
    f = field_for(inner, required=required and UnsetType not in args, default=default, metas=metas)
    f.allow_none = type(None) in args
    return f


def _field(tp: Any, args: tuple[Any, ...], metas: list[Meta], kwargs: dict[str, Any]) -> fields.Field[Any]:
    if tp is model.Action:
        return action_field(**kwargs)
    if isinstance(tp, type) and issubclass(tp, Struct):
        return fields.Nested(schema_for(tp), **kwargs)
    origin = typing.get_origin(tp)
    if origin is list:
        low, high = _last(metas, "min_length"), _last(metas, "max_length")
        if low is not None:
            kwargs["validate"] = validate.Length(equal=low) if low == high else validate.Length(min=low, max=high)
        return fields.List(field_for(args[0]), **kwargs)
    if origin is dict:
        return fields.Dict(keys=field_for(args[0]), values=field_for(args[1]), **kwargs)
    if origin is Literal:
        if all(type(v) is int for v in args):
            return fields.Integer(strict=True, validate=validate.OneOf(list(args)), **kwargs)
        return fields.String(validate=validate.OneOf(list(args)), **kwargs)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return fields.String(validate=validate.OneOf([m.value for m in tp]), **kwargs)
    if tp is bool:
        return StrictBoolean(**kwargs)
    if tp is int:
        low, high = _last(metas, "ge"), _last(metas, "le")
        bounds = validate.Range(min=low, max=high) if low is not None or high is not None else None
        checks: dict[str, Any] = {"validate": bounds} if bounds else {}
        return fields.Integer(strict=True, **checks, **kwargs)
    if tp is str:
        low = _last(metas, "min_length")
        checks = {"validate": validate.Length(min=low)} if low else {}
        return fields.String(**checks, **kwargs)
    raise TypeError(f"no marshmallow field for {tp!r}")


ACTION_SCHEMAS: dict[str, type[Schema]] = {kind: schema_for(s) for kind, s in model.ACTION_STRUCTS.items()}
_ACTION_INSTANCES = {kind: cls() for kind, cls in ACTION_SCHEMAS.items()}


def action_field(**kwargs: Any) -> OneOfSchemas:
    """An action (docs/api.md §6): one of the action schemas, chosen by its ``type``."""
    kwargs.setdefault("metadata", {"description": "An action (docs/api.md §6), chosen by its `type`."})
    return OneOfSchemas(_ACTION_INSTANCES, **kwargs)


def _listed_schema(kind: str) -> type[Schema]:
    """The action as ``/v1/legal-actions`` lists it: with a readable ``label`` when asked for."""
    base = ACTION_SCHEMAS[kind]
    label = fields.String(
        metadata={
            "description": (
                'With `"labels": true`: the action in words, naming only what its player may see '
                "(English, or Japanese with `Accept-Language: ja`)."
            )
        }
    )
    meta = type(
        "Meta",
        (),
        {"unknown": RAISE, "description": _description(model.ACTION_STRUCTS[kind]) + " Listed, maybe labelled."},
    )
    return type("Listed" + base.__name__, (base,), {"label": label, "Meta": meta, "__module__": __name__})


_LISTED_INSTANCES = {kind: _listed_schema(kind)() for kind in ACTION_SCHEMAS}


def listed_action_field(**kwargs: Any) -> OneOfSchemas:
    """A legal action as ``/v1/legal-actions`` lists it, with its ``label`` when asked for."""
    kwargs.setdefault("metadata", {"description": "A legal action (docs/api.md §6), with its `label` when asked for."})
    return OneOfSchemas(_LISTED_INSTANCES, **kwargs)
