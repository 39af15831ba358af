"""The catalog loader (referee/engine/catalog.py) and the built-in catalog af-ref."""

from __future__ import annotations

import copy
import json
from collections import Counter

import pytest
import yaml

from referee.engine.catalog import (
    KINDS,
    RECOVER_KINDS,
    REQUIREMENTS,
    SERIES,
    TRIGGERS,
    Catalog,
)
from referee.engine.errors import CatalogError

# docs/api.md §8 / RULES.md term table, written out here independently of the loader.
ALIASES = {
    "case": "case",
    "fairy": "fairy",
    "evidence": "evidence",
    "spell": "spell",
    "counter": "counter",
    "bonus": "bonus",
    "character": "fairy",
    "deduction": "spell",
    "super_deduction": "counter",
    "事件": "case",
    "妖精": "fairy",
    "証拠": "evidence",
    "妖力": "spell",
    "魔気": "counter",
    "キャラクター": "fairy",
    "推理": "spell",
    "超推理": "counter",
    "ノーマル": "bonus",
}

# The smallest card of each kind, to build bad catalogs from.
MINIMAL = {
    "case": {"id": "X-1", "name": "事件", "kind": "case", "level": 2, "hit": 1},
    "fairy": {"id": "X-1", "name": "妖精", "kind": "fairy", "power": 1},
    "evidence": {"id": "X-1", "name": "証拠", "kind": "evidence", "power": 1},
    "spell": {"id": "X-1", "name": "妖力", "kind": "spell", "cost": 1, "effect": [{"draw": 1}]},
    "counter": {
        "id": "X-1",
        "name": "魔気",
        "kind": "counter",
        "cost": 1,
        "trigger": "investigate",
        "effect": [{"negate": True}],
    },
    "bonus": {"id": "X-1", "name": "ノーマルカード", "kind": "bonus"},
}


def catalog_of(*cards: dict) -> dict:
    return {"id": "test", "cards": [copy.deepcopy(c) for c in cards]}


def card(base: str, /, **changes) -> dict:
    """A minimal card of kind ``base`` with fields changed (``None`` removes one)."""
    out = copy.deepcopy(MINIMAL[base])
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def refused(data: dict) -> CatalogError:
    with pytest.raises(CatalogError) as info:
        Catalog.from_data(data)
    return info.value


@pytest.fixture(scope="module")
def builtin() -> Catalog:
    return Catalog.builtin()


def all_effects(cat: Catalog):
    """(card, source, effect) for every effect entry of the catalog."""
    for c in cat.cards.values():
        for e in c.effect:
            yield c, c.kind, e
        for a in c.abilities:
            for e in a.effect:
                yield c, "ability", e


# -- the built-in catalog ------------------------------------------------------


def test_given_the_package_when_loading_builtin_then_af_ref_loads_with_a_digest(builtin):
    assert builtin.id == "af-ref"
    assert builtin.ref == {"id": "af-ref", "digest": builtin.digest}
    assert builtin.digest.startswith("sha256:") and len(builtin.digest) == len("sha256:") + 64
    assert Catalog.builtin() is builtin


def test_given_builtin_when_counting_then_enough_distinct_cards_grouped_by_kind(builtin):
    assert len(builtin.cards) >= 44
    names = [c.name for c in builtin.cards.values()]
    assert len(set(names)) == len(names), "every reference card has its own name"
    for c in builtin.cards.values():
        assert c.id.startswith("AF-") and c.name and c.name_en and c.text and c.series in SERIES
    # ids are grouped by kind: sorted by id, each kind is one run.
    runs = [c.kind for c in sorted(builtin.cards.values(), key=lambda c: c.id)]
    collapsed = [k for i, k in enumerate(runs) if i == 0 or runs[i - 1] != k]
    assert len(collapsed) == len(set(collapsed))


def test_given_builtin_when_listing_kinds_and_series_then_every_one_is_present(builtin):
    assert {c.kind for c in builtin.cards.values()} == set(KINDS)
    series = Counter(c.series for c in builtin.cards.values())
    assert set(series) == set(SERIES)
    assert series["af99"] > len(builtin.cards) / 2


def test_given_builtin_when_listing_requirements_then_every_one_is_present_and_names_resolve(builtin):
    reqs = [r for c in builtin.cards.values() for r in c.requires]
    assert {r.kind for r in reqs} == set(REQUIREMENTS)
    names_by_kind = {k: {c.name for c in builtin.cards.values() if c.kind == k} for k in KINDS}
    for r in reqs:
        if r.kind == "fairy_named":
            assert r.value in names_by_kind["fairy"]
        if r.kind == "evidence_named":
            assert r.value in names_by_kind["evidence"]


def test_given_builtin_when_listing_effects_then_every_op_and_kind_is_present(builtin):
    seen = {(e.op, e.kind) for _, _, e in all_effects(builtin)}
    ops = {op for op, _ in seen}
    assert {
        "draw",
        "mill",
        "power",
        "ready",
        "bounce",
        "trash",
        "reveal",
        "recover",
        "negate",
        "investigation_power",
    } <= ops
    assert ("bounce", "fairy") in seen
    assert {("trash", "fairy"), ("trash", "evidence"), ("reveal", "case")} <= seen
    assert {("recover", k) for k in RECOVER_KINDS} <= seen
    power_targets = {(source, e.kind) for _, source, e in all_effects(builtin) if e.op == "power"}
    assert any(kind == "fairy" for _, kind in power_targets)
    assert ("ability", "self") in power_targets
    assert all(source == "ability" for source, kind in power_targets if kind == "self")
    for c, _, e in all_effects(builtin):
        if e.op == "investigation_power":
            assert c.kind == "counter" and c.trigger == "investigate" and e.amount < 0


def test_given_builtin_when_listing_counters_then_every_trigger_has_one(builtin):
    for trigger in TRIGGERS:
        assert builtin.counters_by_trigger[trigger], f"no counter for trigger {trigger}"


def test_given_builtin_when_listing_abilities_then_fairies_and_evidence_have_some_once_per_turn(builtin):
    with_abilities = [c for c in builtin.cards.values() if c.abilities]
    assert {c.kind for c in with_abilities} == {"fairy", "evidence"}
    once = [a.once_per_turn for c in with_abilities for a in c.abilities]
    assert any(once) and not all(once)
    # No zero-cost ability can be used forever (random games must end).
    for c in with_abilities:
        for a in c.abilities:
            assert a.cost > 0 or a.once_per_turn, c.id


def test_given_builtin_when_reading_the_source_names_then_both_are_limited_game_cards(builtin):
    by_name = {c.name: c for c in builtin.cards.values()}
    north = by_name["北の妖精"]
    assert north.kind == "fairy" and north.deck_limit == 1
    vip = by_name["V.I.P.のカード"]
    assert vip.kind not in ("bonus", "case") and vip.deck_limit == 1
    assert {c.name for c in builtin.cards.values() if c.deck_limit < 3} == {"北の妖精", "V.I.P.のカード"}


def test_given_builtin_when_looking_for_bonus_and_multi_dispatch_then_both_exist(builtin):
    bonus = [c for c in builtin.cards.values() if c.kind == "bonus"]
    assert len(bonus) == 1 and bonus[0].series == "millennium"
    wide = [c for c in builtin.cards.values() if c.kind == "case" and c.dispatch_limit == 2]
    assert wide and any(r.kind == "fairies_at_least" and r.value == 2 for c in wide for r in c.requires)


def test_given_builtin_yaml_when_reading_kinds_then_sister_title_aliases_are_used():
    from importlib import resources

    raw = yaml.safe_load(resources.files("referee.data").joinpath("af-ref.yaml").read_text("utf-8"))
    used = {c["kind"] for c in raw["cards"]}
    assert {"character", "deduction", "super_deduction", "キャラクター", "推理", "超推理", "妖精", "事件"} <= used


def test_given_builtin_when_building_random_decks_then_games_can_progress(builtin):
    game = [c for c in builtin.cards.values() if c.kind != "bonus"]
    cases = [c for c in game if c.kind == "case"]
    assert len(cases) >= 12
    assert {c.level for c in cases} >= {1, 2, 3} and max(c.level for c in cases) <= 8
    assert {c.hit for c in cases} <= set(range(1, 6))
    fairy_powers = {c.power for c in game if c.kind == "fairy"}
    assert fairy_powers <= {1, 2, 3, 4} and {1, 4} <= fairy_powers
    assert {c.power for c in game if c.kind == "evidence"} <= {1, 2}
    # cases one or two fairies solve on their own
    easy = [c for c in cases if not c.requires and c.level <= 4]
    assert len(easy) >= 5
    costs = [c.cost for c in game if c.kind in ("spell", "counter")]
    costs += [a.cost for c in game for a in c.abilities]
    assert set(costs) <= {0, 1, 2}
    # A legal 40-card deck exists from the catalog's names (3 per name, deck_limit kept).
    assert sum(c.deck_limit for c in game) >= 40


def test_given_builtin_when_serving_cards_then_card_json_is_canonical(builtin):
    vip = next(c for c in builtin.cards.values() if c.name == "V.I.P.のカード")
    out = builtin.card_json(vip.id)
    assert out["kind"] == "evidence" and out["deck_limit"] == 1
    boy = next(c for c in builtin.cards.values() if c.name_en == "Boy Detective")
    assert builtin.card_json(boy.id)["kind"] == "fairy"


# -- digest --------------------------------------------------------------------


def test_given_one_catalog_when_loaded_twice_then_the_digest_is_stable():
    data = catalog_of(MINIMAL["fairy"], card("case", id="X-2"))
    assert Catalog.from_data(data).digest == Catalog.from_data(copy.deepcopy(data)).digest


def test_given_yaml_and_json_spellings_when_loaded_then_the_digests_are_equal():
    from importlib import resources

    text = resources.files("referee.data").joinpath("af-ref.yaml").read_text("utf-8")
    from_yaml = Catalog.from_text(text, "af-ref.yaml")
    data = yaml.safe_load(text)  # formats' dates as date objects: JSON writes them as the text they were
    for dumped in (
        json.dumps(data, ensure_ascii=False, default=str),
        json.dumps(data, ensure_ascii=True, indent=2, default=str),
    ):
        assert Catalog.from_text(dumped, "af-ref.json").digest == from_yaml.digest
    assert from_yaml.digest == Catalog.builtin().digest


def test_given_card_order_and_alias_spelling_when_changed_then_the_digest_is_not():
    a = catalog_of(card("fairy", id="X-1"), card("spell", id="X-2"))
    b = catalog_of(card("spell", id="X-2", kind="推理"), card("fairy", id="X-1", kind="character"))
    assert Catalog.from_data(a).digest == Catalog.from_data(b).digest


def test_given_a_changed_card_when_loaded_then_the_digest_changes():
    a = catalog_of(card("fairy"))
    b = catalog_of(card("fairy", power=2))
    assert Catalog.from_data(a).digest != Catalog.from_data(b).digest


# -- kind aliases ----------------------------------------------------------------


@pytest.mark.parametrize("alias, kind", sorted(ALIASES.items()))
def test_given_a_kind_alias_when_loaded_then_it_maps_to_the_canonical_kind(alias, kind):
    cat = Catalog.from_data(catalog_of(card(kind, kind=alias)))
    assert cat["X-1"].kind == kind
    assert cat.card_json("X-1")["kind"] == kind


# -- refusals ----------------------------------------------------------------------


def test_given_an_unknown_kind_when_loading_then_refused_naming_card_and_kind():
    err = refused(catalog_of(card("fairy", id="BAD-1", kind="monster")))
    assert (err.card, err.field) == ("BAD-1", "kind")


def test_given_an_unknown_field_when_loading_then_refused_naming_card_and_field():
    err = refused(catalog_of(card("fairy"), card("fairy", id="BAD-2", colour="red")))
    assert (err.card, err.field) == ("BAD-2", "colour")


def test_given_a_field_of_another_kind_when_loading_then_refused_as_unknown():
    err = refused(catalog_of(card("fairy", id="BAD-3", level=3)))
    assert (err.card, err.field) == ("BAD-3", "level")


def test_given_an_unknown_requirement_when_loading_then_refused_naming_requires():
    err = refused(catalog_of(card("case", id="BAD-4", requires=[{"moon_is_full": True}])))
    assert (err.card, err.field) == ("BAD-4", "requires")


def test_given_an_unknown_effect_when_loading_then_refused_naming_the_effect_entry():
    err = refused(catalog_of(card("spell", id="BAD-5", effect=[{"draw": 1}, {"explode": 3}])))
    assert err.card == "BAD-5" and err.field == "effect.1"


def test_given_an_unknown_effect_in_an_ability_when_loading_then_refused_naming_the_ability():
    err = refused(catalog_of(card("fairy", id="BAD-6", abilities=[{"cost": 1, "effect": [{"fly": 1}]}])))
    assert err.card == "BAD-6" and err.field == "abilities.0.effect.0"


def test_given_an_unknown_trigger_when_loading_then_refused_naming_trigger():
    err = refused(catalog_of(card("counter", id="BAD-7", trigger="end_turn")))
    assert (err.card, err.field) == ("BAD-7", "trigger")


def test_given_negate_on_a_spell_when_loading_then_refused():
    err = refused(catalog_of(card("spell", id="BAD-8", effect=[{"negate": True}])))
    assert err.card == "BAD-8" and err.field == "effect.0.negate"


def test_given_investigation_power_on_a_non_investigate_counter_when_loading_then_refused():
    err = refused(catalog_of(card("counter", id="BAD-9", trigger="dispatch", effect=[{"investigation_power": -2}])))
    assert err.card == "BAD-9" and err.field == "effect.0.investigation_power"


def test_given_investigation_power_on_an_investigate_counter_when_loading_then_accepted():
    cat = Catalog.from_data(catalog_of(card("counter", effect=[{"investigation_power": -2}])))
    assert cat["X-1"].effect[0].amount == -2


def test_given_power_on_self_outside_an_ability_when_loading_then_refused():
    err = refused(catalog_of(card("spell", id="BAD-10", effect=[{"power": 1, "target": "self"}])))
    assert err.card == "BAD-10" and err.field == "effect.0.target"


def test_given_fairies_at_least_above_dispatch_limit_when_loading_then_refused():
    err = refused(catalog_of(card("case", id="BAD-11", requires=[{"fairies_at_least": 2}])))
    assert (err.card, err.field) == ("BAD-11", "requires")
    ok = Catalog.from_data(catalog_of(card("case", dispatch_limit=2, requires=[{"fairies_at_least": 2}])))
    assert ok["X-1"].dispatch_limit == 2


def test_given_a_duplicate_id_when_loading_then_refused_naming_the_id():
    err = refused(catalog_of(card("fairy", id="DUP-1"), card("evidence", id="DUP-1")))
    assert (err.card, err.field) == ("DUP-1", "id")


@pytest.mark.parametrize("limit", [0, -1, 41, "1", True])
def test_given_a_dispatch_limit_outside_1_to_40_when_loading_then_refused(limit):
    """RULES 8.9: every case takes at least one fairy per player (the consistency check's one-pass
    field check relies on it) and at most a deck's worth."""
    err = refused(catalog_of(card("case", id="BAD-13", dispatch_limit=limit)))
    assert (err.card, err.field) == ("BAD-13", "dispatch_limit")


@pytest.mark.parametrize("limit", [0, 4, "1", True])
def test_given_a_deck_limit_outside_1_to_3_when_loading_then_refused(limit):
    err = refused(catalog_of(card("fairy", id="BAD-12", deck_limit=limit)))
    assert (err.card, err.field) == ("BAD-12", "deck_limit")


def test_given_text_that_is_not_yaml_when_loading_then_refused():
    with pytest.raises(CatalogError) as info:
        Catalog.from_text("id: [unclosed\ncards: {", "broken.yaml")
    assert "broken.yaml" in str(info.value)


def test_given_yaml_that_is_not_a_catalog_when_loading_then_refused():
    for text in ("just a sentence", "- a\n- list", "id: x\ncards: []", "cards: [{id: A}]"):
        with pytest.raises(CatalogError):
            Catalog.from_text(text)


def test_given_a_case_without_level_when_loading_then_refused_naming_level():
    err = refused(catalog_of(card("case", id="BAD-13", level=None)))
    assert (err.card, err.field) == ("BAD-13", "level")


@pytest.mark.parametrize(
    "kind, missing",
    [
        ("case", "hit"),
        ("fairy", "power"),
        ("evidence", "power"),
        ("spell", "effect"),
        ("counter", "trigger"),
        ("counter", "cost"),
        ("bonus", "name"),
    ],
)
def test_given_a_card_without_a_required_field_when_loading_then_refused_naming_it(kind, missing):
    err = refused(catalog_of(card(kind, id="BAD-14", **{missing: None})))
    assert (err.card, err.field) == ("BAD-14", missing)


def test_given_a_card_without_id_when_loading_then_refused_naming_its_position():
    err = refused(catalog_of(card("fairy"), card("fairy", id=None)))
    assert (err.card, err.field) == ("#1", "id")


def test_given_keys_of_mixed_types_when_loading_then_refused_not_crashed():
    texts = [
        "id: x\n1: 2\nzz: 3\ncards: [{id: A, name: a, kind: bonus}]",
        "id: x\ncards: [{id: A, name: a, kind: fairy, power: 1, 1: x, zz: 2}]",
        "id: x\ncards: [{id: A, name: a, kind: fairy, power: 1, abilities: [{cost: 1, effect: [{draw: 1}], 3: 1, q: 2}]}]",
        "id: x\ncards: [{id: A, name: a, kind: spell, cost: 1, effect: [{1: 2, q: 1}]}]",
    ]
    for text in texts:
        with pytest.raises(CatalogError):
            Catalog.from_text(text)


@pytest.mark.parametrize(
    "effect, field",
    [
        ({"ready": True}, "effect.0.ready"),
        ({"ready": 2}, "effect.0.ready"),
        ({"bounce": "evidence"}, "effect.0.bounce"),
        ({"trash": "case"}, "effect.0.trash"),
        ({"recover": "case"}, "effect.0.recover"),
        ({"negate": 1}, "effect.0.negate"),
        ({"draw": -1}, "effect.0.draw"),
        ({"power": 1}, "effect.0"),
    ],
)
def test_given_a_malformed_effect_value_when_loading_then_refused(effect, field):
    err = refused(catalog_of(card("counter", id="BAD-15", effect=[effect])))
    assert (err.card, err.field) == ("BAD-15", field)


def test_given_a_catalog_file_when_loading_from_path_then_yaml_and_json_work(tmp_path):
    data = catalog_of(card("fairy"), card("case", id="X-2"))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), "utf-8")
    (tmp_path / "c.json").write_text(json.dumps(data), "utf-8")
    assert Catalog.from_path(tmp_path / "c.yaml").digest == Catalog.from_path(tmp_path / "c.json").digest
    with pytest.raises(CatalogError):
        Catalog.from_path(tmp_path / "missing.yaml")


# -- the YAML reader: duplicate keys, file, line and column -------------------------


def load_file(tmp_path, text: str, name: str = "cards.yaml") -> CatalogError:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    with pytest.raises(CatalogError) as info:
        Catalog.from_path(path)
    return info.value


def test_given_a_card_with_a_key_written_twice_when_loading_then_refused_with_file_line_and_column(tmp_path):
    text = "id: x\ncards:\n  - id: A\n    name: a\n    kind: fairy\n    power: 1\n    power: 3\n"
    err = load_file(tmp_path, text)
    assert (err.file, err.line, err.column) == (str(tmp_path / "cards.yaml"), 7, 5)
    assert str(err).startswith(f"{tmp_path / 'cards.yaml'}:7:5: ")
    assert "cards.0.power" in str(err) and "appears twice" in str(err)


def test_given_a_top_level_key_written_twice_when_loading_then_refused(tmp_path):
    err = load_file(tmp_path, "id: x\nid: y\ncards: [{id: A, name: a, kind: bonus}]\n")
    assert err.line == 2 and "appears twice" in str(err)


def test_given_json_with_a_key_written_twice_when_loading_then_refused(tmp_path):
    err = load_file(
        tmp_path, '{"id": "x",\n "cards": [{"id": "A", "name": "a", "kind": "bonus", "id": "B"}]}\n', "cards.json"
    )
    assert err.line == 2 and "appears twice" in str(err) and str(err).startswith(str(tmp_path / "cards.json"))


def test_given_a_yaml_syntax_error_when_loading_then_the_file_line_and_column_are_named_on_one_line(tmp_path):
    err = load_file(tmp_path, "id: x\ncards:\n  - {id: A, name: a\n  - {id: B}\n")
    assert err.file == str(tmp_path / "cards.yaml") and err.line is not None and err.column is not None
    assert str(err).startswith(f"{tmp_path / 'cards.yaml'}:{err.line}:{err.column}: not valid YAML")
    assert "<unicode string>" not in str(err) and "\n" not in str(err)


def test_given_a_bad_field_when_loading_a_file_then_the_error_names_its_line_card_and_field(tmp_path):
    text = (
        "id: x\ncards:\n  - {id: A, name: a, kind: fairy, power: 1}\n"
        "  - id: B\n    name: b\n    kind: fairy\n    power: 1\n    abilities:\n"
        "      - {cost: 1, effect: [{draw: 1}]}\n      - {cost: -1, effect: [{draw: 1}]}\n"
    )
    err = load_file(tmp_path, text)
    assert (err.card, err.field, err.line) == ("B", "abilities.1.cost", 10)
    assert str(err).startswith(f"{tmp_path / 'cards.yaml'}:10: card B, field abilities.1.cost: ")


def test_given_a_duplicate_card_id_when_loading_a_file_then_the_second_card_is_named(tmp_path):
    err = load_file(tmp_path, "id: x\ncards:\n  - {id: A, name: a, kind: bonus}\n  - {id: A, name: b, kind: bonus}\n")
    assert (err.card, err.field, err.line) == ("A", "id", 4)


def test_given_two_yaml_documents_when_loading_then_refused(tmp_path):
    err = load_file(tmp_path, "id: x\ncards: [{id: A, name: a, kind: bonus}]\n---\nid: y\n")
    assert "more than one YAML document" in str(err) and err.line == 4


def test_given_catalogs_and_scenarios_then_one_yaml_reader_serves_both():
    from referee.engine import catalog as catalog_module
    from referee.engine import yaml_text
    from referee.scenarios import source

    assert source.parse_documents is yaml_text.parse_documents
    assert catalog_module.parse_document is yaml_text.parse_document
