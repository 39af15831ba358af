"""Strict marshmallow fields: JSON types only, no coercion.

Marshmallow's stock fields coerce (``"true"`` and ``1`` load as ``True``);
the referee's contract is JSON types exactly, as the engine's own parser
checks them. These fields are the schema side of that agreement, and
``tests/test_openapi_parity.py`` proves both sides accept and reject the same
inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate

from referee.engine.decklists import LIST_MAX_CHARS
from referee.engine.facts import DECK_MAX_ENTRIES
from referee.engine.formats import is_date


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false``: nothing else loads."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def instance_id(**kwargs: Any) -> fields.String:
    """A card instance id: an opaque, non-empty string."""
    kwargs.setdefault("metadata", {}).setdefault("description", "A card instance id (opaque, unique in the game).")
    return fields.String(validate=validate.Length(min=1), **kwargs)


def instance_ids(**kwargs: Any) -> fields.List[str]:
    return fields.List(instance_id(), **kwargs)


def player_index(**kwargs: Any) -> fields.Integer:
    """A player: 0 or 1 (not ``true``/``false``, not ``0.0``)."""
    return fields.Integer(strict=True, validate=validate.OneOf([0, 1]), **kwargs)


def natural(**kwargs: Any) -> fields.Integer:
    return fields.Integer(strict=True, validate=validate.Range(min=0), **kwargs)


class OneOfSchemas(fields.Field[Any]):
    """A JSON object that is one of several schemas, chosen by its ``type``.

    ``choices`` maps each ``type`` value to a schema *instance*. Unknown types
    are schema errors (docs/api.md §1: "an unknown action `type` included").
    Documented in OpenAPI as ``oneOf`` with a ``discriminator``.
    """

    def __init__(self, choices: dict[str, Any], discriminator: str = "type", **kwargs: Any):
        super().__init__(**kwargs)
        self.choices = choices
        self.discriminator = discriminator

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, dict):
            raise ValidationError("Must be an object.")
        kind = value.get(self.discriminator)
        schema = self.choices.get(kind) if isinstance(kind, str) else None
        if schema is None:
            msg = "Missing data for required field." if kind is None else f"Unknown {self.discriminator} {kind!r}."
            raise ValidationError({self.discriminator: [msg]})
        return schema.load(value)

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return value


class Grammars(fields.Field[Any]):
    """A JSON object that fits one of a registry's grammars (JSON schemas), e.g. an effect entry.

    Documented once, as the named OpenAPI component ``component`` (its ``oneOf``
    is ``grammars()``, read when the document is built), and referenced wherever
    the field appears. Loading checks only that the value is an object: the
    engine's registry is what reads an entry (``effect_types.py``, ``requirements.py``).
    """

    def __init__(self, component: str, grammars: Callable[[], list[dict[str, Any]]], description: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.component = component
        self.grammars = grammars
        self.description = description

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, dict):
            raise ValidationError("Not a valid mapping type.")
        return value

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return value


class Deck(fields.Field[Any]):
    """A deck: a list of catalog card ids, or an object of counts by card id (at most
    ``DECK_MAX_ENTRIES`` ids either way), or a deck list or deck code (a string; whether it reads is
    the engine's, with its catalog: docs/api.md §13)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str):
            if len(value) > LIST_MAX_CHARS:
                raise ValidationError(f"A deck list or code has at most {LIST_MAX_CHARS} characters.")
            return value
        if isinstance(value, (list, dict)) and len(value) > DECK_MAX_ENTRIES:
            raise ValidationError(f"A deck names at most {DECK_MAX_ENTRIES} card ids.")
        if isinstance(value, list):
            if all(isinstance(x, str) for x in value):
                return list(value)
            raise ValidationError("A deck list holds catalog card ids (strings).")
        if isinstance(value, dict):
            if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value.values()):
                return dict(value)
            raise ValidationError("A deck object maps catalog card ids to counts (integers ≥ 0).")
        raise ValidationError("A deck is a list of card ids, an object of counts, a deck list or a deck code.")

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return value


class FormatChoice(fields.Field[Any]):
    """A format named by a NewGame or a deck check (docs/api.md §13): its id (the latest revision), or
    ``{"id": id, "date": "YYYY-MM-DD"}`` (the revision in force that day)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if isinstance(value, str) and value:
            return value
        if (
            isinstance(value, dict)
            and set(value) <= {"id", "date"}
            and isinstance(value.get("id"), str)
            and value["id"]
        ):
            day = value.get("date")
            if day is None or is_date(day):
                return dict(value)
            raise ValidationError({"date": ["must be a date YYYY-MM-DD"]})
        raise ValidationError('must be a format id or an object {"id": id, "date": "YYYY-MM-DD"}')

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> Any:
        return value


def tagged_schema(kind: str, suffix: str, members: dict[str, Any], description: str) -> type[Schema]:
    """One member of a tagged union: a strict schema whose ``type`` is ``kind``, named after it
    (``play_case`` + ``Action`` → ``PlayCaseAction``)."""
    attrs: dict[str, Any] = {
        "type": fields.String(required=True, validate=validate.OneOf([kind])),
        **members,
        "Meta": type("Meta", (), {"unknown": RAISE, "description": description}),
    }
    name = "".join(part.capitalize() for part in kind.split("_")) + suffix
    return type(name, (Schema,), attrs)
