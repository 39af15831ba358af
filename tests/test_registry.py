"""The effect and requirement registries (effect_types.py, requirements.py): one class per kind,
read by the catalog loader, the effect engine and the OpenAPI card schema."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from referee.engine import effect_types
from referee.engine.catalog import Catalog
from referee.engine.effect_types import EFFECTS, Effect, EffectType, Resolution, Targeted, effect, parse_entry
from referee.engine.errors import CatalogError
from referee.engine.requirements import REQUIREMENT_TYPES
from tests.test_catalog import all_effects, card, catalog_of

OPENAPI = yaml.safe_load((Path(__file__).parent.parent / "openapi.yaml").read_text(encoding="utf-8"))


def matches(schema: dict[str, Any], entry: dict[str, Any]) -> bool:
    """Whether ``entry`` fits one of the registry's grammars (the JSON schema subset they use)."""
    if set(entry) != set(schema["required"]):
        return False
    return all(_value_fits(schema["properties"][key], value) for key, value in entry.items())


def _value_fits(schema: dict[str, Any], value: Any) -> bool:
    types = {"integer": int, "string": str, "boolean": bool}
    if not isinstance(value, types[schema["type"]]) or (schema["type"] == "integer" and isinstance(value, bool)):
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if schema["type"] == "integer":
        return schema.get("minimum", value) <= value <= schema.get("maximum", value)
    return schema["type"] != "string" or len(value) >= schema.get("minLength", 0)


@pytest.fixture(scope="module")
def builtin() -> Catalog:
    return Catalog.builtin()


def test_given_builtin_when_each_effect_is_written_back_then_it_reads_as_the_same_effect(builtin):
    for _, source, e in all_effects(builtin):
        trigger = "investigate" if e.op == "investigation_power" else None
        assert parse_entry(e.to_json(), "effect.0", source, trigger, fail) == e


def fail(field: str, detail: str) -> CatalogError:
    return CatalogError(detail, field=field)


SCHEMAS = OPENAPI["components"]["schemas"]
EFFECT_REF, REQUIREMENT_REF = ({"$ref": f"#/components/schemas/{name}"} for name in ("EffectEntry", "RequirementEntry"))


def test_given_the_card_schema_then_its_effect_and_requirement_entries_are_the_registries_grammars():
    effect_grammars = SCHEMAS["EffectEntry"]["oneOf"]
    assert [next(iter(g["required"])) for g in effect_grammars] == [
        next(iter(kind.values)) for kind in EFFECTS.values()
    ]
    assert [g["required"] for g in SCHEMAS["RequirementEntry"]["oneOf"]] == [[key] for key in REQUIREMENT_TYPES]


def test_given_the_document_then_each_entry_grammar_is_one_named_component_referenced_wherever_entries_are():
    card, ability = SCHEMAS["Card"]["properties"], SCHEMAS["Ability"]["properties"]
    assert card["effect"]["items"] == ability["effect"]["items"] == EFFECT_REF
    assert card["requires"]["items"] == REQUIREMENT_REF
    text = (Path(__file__).parent.parent / "openapi.yaml").read_text(encoding="utf-8")
    assert text.count("required:\n        - draw\n") == 1 and text.count("- evidence_at_least\n") == 1


def test_given_builtin_when_matching_its_served_entries_then_each_fits_exactly_one_grammar(builtin):
    effects, requires = SCHEMAS["EffectEntry"]["oneOf"], SCHEMAS["RequirementEntry"]["oneOf"]
    for raw in (c.raw for c in builtin.cards.values()):
        entries = raw.get("effect", []) + [e for a in raw.get("abilities", []) for e in a["effect"]]
        for entry in entries:
            assert sum(matches(g, entry) for g in effects) == 1, (raw["id"], entry)
        for entry in raw.get("requires", []):
            assert sum(matches(g, entry) for g in requires) == 1, (raw["id"], entry)


def test_given_every_registered_effect_and_requirement_then_the_builtin_catalog_uses_it(builtin):
    assert {e.op for _, _, e in all_effects(builtin)} == set(EFFECTS)
    assert {r.kind for c in builtin.cards.values() for r in c.requires} == set(REQUIREMENT_TYPES)


@pytest.fixture
def scry():
    """A new effect, declared as one class the way effect_types.py declares its own; removed afterwards."""
    before = dict(EFFECTS), dict(effect_types._BY_KEYS)

    @effect
    class Scry(Targeted):
        """`{scry: case}`: a test effect that turns a case face up."""

        op, kinds = "scry", ("case",)

        def pool(self, g, player, e):
            return g.all_cases()

        def target_ok(self, g, player, e, iid):
            return g.case_in_play(iid) is not None

        def apply(self, r: Resolution, e: Effect, target: str | None) -> None:
            r.g.case_in_play(target)[1]["face_up"] = True

    yield Scry
    EFFECTS.clear(), EFFECTS.update(before[0])
    effect_types._BY_KEYS.clear(), effect_types._BY_KEYS.update(before[1])


def test_given_one_new_effect_class_then_catalogs_load_it_and_serve_it(scry):
    cat = Catalog.from_data(catalog_of(card("spell", id="S-9", effect=[{"scry": "case"}])))
    assert cat.cards["S-9"].effect == (Effect("scry", 0, "case", targeted=True),)
    assert cat.cards["S-9"].raw["effect"] == [{"scry": "case"}]
    assert any(g["required"] == ["scry"] for g in effect_types.grammars())


def test_given_one_new_effect_class_then_its_grammar_refuses_bad_values_by_field(scry):
    with pytest.raises(CatalogError) as info:
        Catalog.from_data(catalog_of(card("spell", id="S-9", effect=[{"scry": "fairy"}])))
    assert (info.value.card, info.value.field) == ("S-9", "effect.0.scry")


def test_given_two_effect_classes_with_one_key_set_then_registering_the_second_fails():
    class Again(EffectType):
        op, values = "draw_again", {"draw": {"type": "integer"}}

    with pytest.raises(AssertionError):
        effect(Again)
