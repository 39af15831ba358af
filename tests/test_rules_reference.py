"""The project's rules reference keeps the specification's rule ids and text.

``referee/data/rules.md`` is the one rules reference of the project
(``docs/rules.md`` links to it) and the source the engine, the service and
these tests read; nothing here is skipped, whatever is checked out beside the
repository. It carries every rule of the specification's ``RULES.md`` with the
same id, in the same order, with the same text (citing the project's own
contract, docs/api.md, where the specification cites its own contract file):
:data:`SPEC_RULES_DIGEST` pins that content, taken from the specification when
the reference was last brought in line with it. A change to a rule's id or text
fails here until the pin is renewed on purpose (``python -m tests.test_rules_reference``
prints the reference's digest). The project's own ``> Note:`` paragraphs are not rules.
"""

from __future__ import annotations

import hashlib
import json
import os
from importlib import resources
from pathlib import Path

import pytest

from referee.engine.rules_index import load_rules, parse_rules, rule_ids, rule_text

REPO = Path(__file__).resolve().parents[1]
PACKAGED = REPO / "referee/data/rules.md"
# SHA-256 of [[id, text], ...] of the specification's RULES.md (its contract file cited as docs/api.md), 94 rules.
SPEC_RULES_DIGEST = "5ba141739aba3c243a54517f8a94b03a3a4fa31a864353ae187bfe06f22f0df2"


def rules_digest(rules: list[dict[str, str]]) -> str:
    """The digest of a rules document's ids and texts, in order."""
    pairs = [[r["id"], r["text"]] for r in rules]
    return hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode("utf-8")).hexdigest()


def test_given_the_reference_then_its_ids_and_texts_are_the_specifications_as_pinned():
    assert rules_digest(load_rules()) == SPEC_RULES_DIGEST, (
        "referee/data/rules.md no longer reads as the specification's rules: restore it, or renew the pin"
    )


def test_given_the_reference_then_its_ids_run_in_order_section_by_section():
    ids = [tuple(map(int, i.split("."))) for i in rule_ids()]
    assert ids == sorted(ids) and ids[0] == (1, 1) and len(ids) == 94


def test_given_docs_rules_md_when_resolved_then_it_is_the_packaged_file():
    docs = REPO / "docs/rules.md"
    assert docs.is_symlink(), "docs/rules.md must be a symlink, not a second copy"
    assert os.readlink(docs) == "../referee/data/rules.md"
    assert docs.resolve() == PACKAGED.resolve()
    packaged = resources.files("referee.data").joinpath("rules.md").read_text("utf-8")
    assert docs.read_text("utf-8") == packaged


def test_given_the_packaged_reference_when_loaded_then_it_never_points_at_the_shared_spec():
    text = PACKAGED.read_text("utf-8")
    assert "../shared" not in text and "../seed" not in text


def test_given_the_index_when_loaded_then_ids_are_unique_and_texts_carry_no_id_markup():
    rules = load_rules()
    assert len(rules) >= 70
    assert len({r["id"] for r in rules}) == len(rules)
    for rule in rules:
        assert rule["text"], rule["id"]
        assert f"**{rule['id']}**" not in rule["text"]
        assert "\n" not in rule["text"] and "  " not in rule["text"]
        assert "Note:" not in rule["text"]


def test_given_nested_items_when_parsed_then_sub_bullets_join_the_parent_and_ided_ones_stand_alone():
    ids = rule_ids()
    assert "10.2.1" in ids and "10.6.1" in ids and "10.6.3" in ids
    assert ids.index("10.6") < ids.index("10.6.1") < ids.index("10.6.2") < ids.index("10.6.3") < ids.index("11.1")
    text_94 = rule_text("9.4")
    assert "`auto` (default): only when the opponent holds a counter" in text_94
    assert "`strict`: whenever the opponent controls an unactioned case" in text_94
    assert rule_text("10.6") == "Power at least the level and every requirement holds: the case is **solved**."
    assert rule_text("1.1") == "Two players. Three or more players are not supported."


def test_given_an_unknown_id_when_looked_up_then_key_error():
    with pytest.raises(KeyError):
        rule_text("99.9")


def test_given_a_document_when_parsed_then_notes_headings_and_blank_lines_end_a_rule():
    doc = (
        "# Title\n"
        "- **1.1** First line\n"
        "  continued.\n"
        "\n"
        "> Note: not a rule,\n"
        "> still a note.\n"
        "\n"
        "## 2. Section\n"
        "- **2.1** Parent:\n"
        "  - a sub item\n"
        "    wrapped.\n"
        "  - **2.1.1** Own rule.\n"
        "- **2.2** Last.\n"
    )
    assert parse_rules(doc) == [
        {"id": "1.1", "text": "First line continued."},
        {"id": "2.1", "text": "Parent: a sub item wrapped."},
        {"id": "2.1.1", "text": "Own rule."},
        {"id": "2.2", "text": "Last."},
    ]


def test_given_a_duplicate_id_when_parsed_then_refused():
    with pytest.raises(ValueError, match=r"1\.1"):
        parse_rules("- **1.1** a\n- **1.1** b\n")


def test_given_load_rules_when_the_result_is_changed_then_the_index_is_not():
    first = load_rules()
    first[0]["text"] = "changed"
    first.clear()
    assert load_rules()[0]["text"] != "changed"


def test_given_the_engine_rules_when_checked_then_every_rule_they_declare_is_in_the_projects_reference():
    """Owned by the project, so never skipped: each ``@rule`` id is a rule of docs/rules.md."""
    import referee.engine  # noqa: F401  (loads every declaring module)
    from referee.engine.registry import DECLARED

    ids = set(rule_ids())
    assert ids and DECLARED and {d.rule for d in DECLARED} <= ids


if __name__ == "__main__":
    print(rules_digest(load_rules()))
