"""RULES 3.2.1 (names) and 3.6–3.9 (formats): given a deck, a deck list or a catalog's formats, when checked, then..."""

from __future__ import annotations

import pytest

from referee import engine
from referee.engine import Catalog, CatalogError, IllegalDeck
from referee.engine.errors import RefusedInput

from .positions import CAT, Position, act, assert_violation, legal_deck, new_game

AF99 = CAT.format_revision("af99")  # the latest revision: 閃き banned, 手帳 restricted to 1
AF99_FIRST = CAT.format_revision({"id": "af99", "date": "1999-07-01"})
MILLENNIUM = CAT.format_revision("millennium")
OPEN = CAT.format_revision("open")


def af99_only(deck: list[str]) -> list[str]:
    """``deck`` with its one millennium card (AF-009) swapped for an af99 fairy."""
    return ["AF-007" if cid == "AF-009" else cid for cid in deck]


def catalog(*cards: dict, formats: list | None = None) -> Catalog:
    data: dict = {"id": "t", "cards": list(cards)}
    if formats is not None:
        data["formats"] = formats
    return Catalog.from_data(data)


def fairy(cid: str, name: str, **more) -> dict:
    return {"id": cid, "name": name, "kind": "fairy", "power": 1, "series": "af99", **more}


# -- 3.2.1 names ----------------------------------------------------------------------------


def test_3_2_1_two_printings_whose_names_differ_only_in_width_count_together():
    """RULES 3.2.1: `Ｖ.Ｉ.Ｐ.のカード` is `V.I.P.のカード`: two printings, one name, limited to 1 (3.2)."""
    cat = catalog(fairy("X-1", "Ｖ.Ｉ.Ｐ.のカード"), fairy("X-2", " V.I.P.のカード "), fairy("X-3", "残り"))
    [violation] = engine.validate_deck(
        cat,
        {
            "X-1": 1,
            "X-2": 1,
            "X-3": 3,
        },
    )[1:]
    assert_violation(violation, "3.2", "too_many_copies")
    assert violation.params["limit"] == 1 and violation.params["count"] == 2


def test_3_2_1_a_deck_list_names_a_card_in_any_width_and_either_language():
    """RULES 3.2.1: a deck list's names are read NFKC-normalised and trimmed, in Japanese or English."""
    read = engine.validate_deck(CAT, "3　消えた上履き\n  2x The School Festival Mystery  \n1 ＡＦ-042\n")
    assert [v.params["count"] for v in read] == [6]  # only RULES 3.1: every line was read
    counts = engine.setup.deck_counts("3　消えた上履き\n2x The School Festival Mystery\n1 ＡＦ-042\n", catalog=CAT)
    assert counts == {"AF-040": 3, "AF-041": 2, "AF-042": 1}


def test_3_2_1_a_format_names_cards_as_the_catalog_does_in_any_width():
    """RULES 3.2.1: a format's banned name in full width bans the catalog's name."""
    cat = catalog(
        fairy("X-1", "ＡＢＣ"),
        fairy("X-2", "残り"),
        formats=[{"id": "f", "series": "all", "revisions": [{"from": "2000-01-01", "banned": ["ABC"]}]}],
    )
    [violation] = engine.validate_deck(cat, {"X-1": 1}, played=cat.format_revision("f"))[1:]
    assert_violation(violation, "3.7", "banned_card")


@pytest.mark.parametrize(
    ("word", "kind"), [("事件カード", "case"), ("キャラクターカード", "fairy"), ("超推理カード", "counter")]
)
def test_2_8_a_kind_word_is_read_with_or_without_its_trailing_card(word, kind):
    """RULES 2.8 (the term table's ruling): `事件カード` is `事件`, `キャラクターカード` is `キャラクター`."""
    cards = {
        "case": {"id": "X-1", "name": "n", "kind": word, "level": 1, "hit": 1},
        "fairy": {"id": "X-1", "name": "n", "kind": word, "power": 1},
        "counter": {"id": "X-1", "name": "n", "kind": word, "cost": 1, "trigger": "draw", "effect": [{"draw": 1}]},
    }
    assert catalog(cards[kind])["X-1"].kind == kind


# -- 3.6 series ---------------------------------------------------------------------------


def test_3_6_a_card_of_a_series_the_format_leaves_out_breaks_3_6():
    """RULES 3.6: af99 leaves the millennium line out: AF-009 (平安の妖精) breaks 3.6; millennium allows it."""
    deck = [cid for cid in legal_deck() if cid != "AF-060"] + ["AF-061"] * 3  # no banned name
    [violation] = engine.validate_deck(CAT, deck, played=AF99)
    assert_violation(violation, "3.6", "series_not_in_format")
    assert violation.params["card"] == "AF-009"
    assert violation.detail() == "平安の妖精 is of the series millennium, which format af99 leaves out."  # by name
    assert violation.detail("ja") == "「平安の妖精」はシリーズmillenniumで、フォーマットaf99では使えません。"
    assert engine.validate_deck(CAT, deck, played=MILLENNIUM) == []


def test_3_6_a_format_of_every_series_allows_the_sister_titles():
    """RULES 3.6: `open` takes every series: a conan card (AF-011) is legal in it, not in millennium."""
    deck = [cid if cid != "AF-009" else "AF-011" for cid in legal_deck()]
    assert engine.validate_deck(CAT, deck, played=OPEN) == []
    assert [v.code for v in engine.validate_deck(CAT, deck, played=MILLENNIUM)] == ["series_not_in_format"]


def test_3_6_a_violation_from_a_deck_list_carries_its_line():
    """RULES 3.6: the violation of a deck list names the line of the card."""
    text = "# af99 deck\n3 消えた上履き\n\n1 平安の妖精\n"
    found = engine.validate_deck(CAT, text, played=AF99)
    violation = assert_violation(found[1], "3.6", "series_not_in_format")
    assert violation.to_dict()["line"] == 4


# -- 3.7 banned -------------------------------------------------------------------------------


def test_3_7_a_name_the_revision_bans_breaks_3_7_and_the_earlier_revision_did_not_ban_it():
    """RULES 3.7: af99's 2000-04-01 revision bans 閃き (AF-060); its 1999-07-01 revision did not."""
    deck = af99_only(legal_deck())
    [violation] = engine.validate_deck(CAT, deck, played=AF99)
    assert_violation(violation, "3.7", "banned_card")
    assert violation.params["name"] == "閃き" and violation.params["revision"] == "2000-04-01"
    assert engine.validate_deck(CAT, deck, played=AF99_FIRST) == []


# -- 3.8 restricted ---------------------------------------------------------------------------


def test_3_8_more_copies_than_the_format_restricts_breaks_3_8_not_3_2():
    """RULES 3.8: 手帳 restricted to 1 in af99; three copies break 3.8 (the lower limit), not 3.2."""
    deck = af99_only([cid for cid in legal_deck() if cid != "AF-060"]) + ["AF-061"] * 3
    deck = [cid for cid in deck if cid != "AF-022"] + ["AF-020"] * 3
    [violation] = engine.validate_deck(CAT, deck, played=AF99)
    assert_violation(violation, "3.8", "restricted_card")
    assert (violation.params["count"], violation.params["limit"]) == (3, 1)
    assert engine.validate_deck(CAT, deck, played=AF99_FIRST) == []


def test_3_8_is_not_cited_when_3_2s_limit_is_the_lower():
    """RULES 3.8: a format restricting 北の妖精 to 2 cannot raise 3.2's 1: two copies break 3.2."""
    cards = [fairy("X-1", "北の妖精"), fairy("X-2", "残り")]
    cat = catalog(
        *cards,
        formats=[{"id": "f", "series": "all", "revisions": [{"from": "2000-01-01", "restricted": {"北の妖精": 2}}]}],
    )
    [size, violation] = engine.validate_deck(cat, {"X-1": 2, "X-2": 3}, played=cat.format_revision("f"))
    assert size.code == "deck_size"
    assert_violation(violation, "3.2", "too_many_copies")


def test_3_8_violations_follow_3_x_in_rule_order():
    """RULES 3.8: every violation of a deck, in rule order: 3.1, 3.2, 3.3, 3.6, 3.7, 3.8."""
    text = "3 北の妖精\n1 ノーマルカード\n1 平安の妖精\n3 閃き\n3 手帳\n"
    found = engine.validate_deck(CAT, text, played=AF99)
    assert [v.rule for v in found] == ["3.1", "3.2", "3.3", "3.6", "3.7", "3.8"]
    assert [v.to_dict().get("line") for v in found] == [None, 1, 2, 3, 4, 5]


def test_3_6_a_deck_lists_violations_come_in_line_order():
    """RULES 3.6–3.8 (docs/api.md §13): a deck list's problems in the order of its lines, whatever their rules:
    3.8's 手帳 on line 2 before 3.6's 平安の妖精 on line 6; the count (3.1, no line) first."""
    text = "3 閃き\n3 手帳\n\n# a comment\n3 消えた上履き\n1 平安の妖精\n"
    found = engine.validate_deck(CAT, text, played=AF99)
    assert [(v.rule, v.to_dict().get("line")) for v in found] == [("3.1", None), ("3.7", 1), ("3.8", 2), ("3.6", 6)]


# -- 3.9 no format; the format fixed at the deal -------------------------------------------------


def test_3_9_a_game_without_a_format_allows_every_series_and_bans_nothing():
    """RULES 3.9: without a format, the millennium card and 閃き are legal; the state's format is null."""
    state, _ = new_game()
    assert state["format"] is None
    assert engine.validate_deck(CAT, legal_deck()) == []


def test_3_9_the_format_and_its_revision_are_fixed_at_the_deal():
    """RULES 3.9: the state, every view and a replay carry the format and the revision in force that day."""
    deck = af99_only(legal_deck())
    state, _ = new_game(decks=[deck, deck], format={"id": "af99", "date": "2000-03-31"})
    assert state["format"] == {"id": "af99", "revision": "1999-07-01"}
    for seat in (0, 1, None):
        assert engine.view(CAT, state, seat)["format"] == state["format"]
    game = {"decks": [deck, deck], "seed": "rules", "format": {"id": "af99", "date": "2000-03-31"}}
    replayed, _ = engine.replay(CAT, [], game=game)
    assert replayed["format"] == state["format"]


def test_3_9_a_deck_the_format_refuses_is_not_dealt():
    """RULES 3.9: in af99 as it stands, both decks' 3.7 violations are listed, each with its deck."""
    deck = af99_only(legal_deck())
    with pytest.raises(IllegalDeck) as caught:
        new_game(decks=[deck, deck], format="af99")
    assert [(v.rule, v.params["deck"]) for v in caught.value.violations] == [("3.7", 0), ("3.7", 1)]


@pytest.mark.parametrize(
    ("fmt", "code"),
    [("nope", "unknown_format"), ({"id": "af99", "date": "1999-06-30"}, "format_not_in_force")],
)
def test_3_9_a_format_the_catalog_has_not_then_is_refused(fmt, code):
    """RULES 3.9: an unknown format, or a day before its first revision, is no game (400)."""
    with pytest.raises(RefusedInput) as caught:
        new_game(format=fmt)
    assert caught.value.code == code and "format" in caught.value.errors


@pytest.mark.parametrize(
    ("formats", "where"),
    [
        ([{"id": "f", "series": ["nope"], "revisions": [{"from": "2000-01-01"}]}], "format f, field series.0"),
        (
            [{"id": "f", "series": "all", "revisions": [{"from": "2000-01-01", "banned": ["誰"]}]}],
            "format f, field revisions.0.banned.0",
        ),
        (
            [{"id": "f", "series": "all", "revisions": [{"from": "2000-01-01"}, {"from": "1999-01-01"}]}],
            "format f, field revisions.1.from",
        ),
        ([{"id": "f", "series": "all", "revisions": [{"from": "2000-13-01"}]}], "format f, field revisions.0.from"),
    ],
)
def test_3_6_a_catalog_whose_format_is_wrong_is_refused_naming_format_and_field(formats, where):
    """RULES 3.6: a format naming an unknown series or name is refused at start-up, naming format and field."""
    with pytest.raises(CatalogError) as caught:
        catalog(fairy("X-1", "一"), formats=formats)
    assert where in str(caught.value)


def test_3_6_a_catalog_file_error_in_a_format_names_its_line():
    """RULES 3.6: the loader's error for a format in a file names the file and the line."""
    text = "id: t\ncards:\n  - {id: X-1, name: 一, kind: fairy, power: 1}\nformats:\n  - id: f\n    series: [zz]\n    revisions: [{from: 2000-01-01}]\n"
    with pytest.raises(CatalogError) as caught:
        Catalog.from_text(text, "t.yaml")
    assert str(caught.value).startswith("t.yaml:6: format f, field series.0")


@pytest.mark.parametrize("played", [{"id": "nope", "revision": "1999-07-01"}, {"id": "af99", "revision": "2000-01-01"}])
def test_3_9_a_state_whose_format_the_catalog_lacks_is_refused(played):
    """RULES 3.9: the format is fixed at the deal; a state naming a format or revision the catalog lacks is
    not one the referee dealt (RULES 13.1)."""
    state, _ = new_game()
    state["format"] = played
    with pytest.raises(engine.InconsistentState) as caught:
        engine.check_state(CAT, state)
    assert caught.value.code == "format_not_in_catalog" and caught.value.path == "state.format"
    state["format"] = {"id": "af99", "revision": "1999-07-01"}
    engine.check_state(CAT, state)


def test_3_8_a_name_over_both_limits_is_cited_once_under_the_lower():
    """RULES 3.8: four 手帳 in af99 break 3.2's 3 and the format's 1: cited once, under 3.8 (the lower)."""
    found = engine.validate_deck(CAT, {"AF-020": 4}, played=AF99)
    assert [v.rule for v in found] == ["3.1", "3.8"]
    assert_violation(found[1], "3.8", "restricted_card")
    assert [v.rule for v in engine.validate_deck(CAT, {"AF-020": 4})] == ["3.1", "3.2"]


def test_3_2_1_a_requirement_names_a_fairy_as_rules_3_2_1_reads_names():
    """RULES 3.2.1: a case requiring `fairy_named: "　南の妖精 "` (full-width space, trailing space) is
    met by 南の妖精: the catalog's names compare after NFKC and trimming (10.5)."""
    case_card = {"id": "X-1", "name": "名前の謎", "kind": "case", "level": 1, "hit": 1}
    cat = Catalog.from_data(
        {
            "id": "req",
            "cards": [*CAT.canonical["cards"], {**case_card, "requires": [{"fairy_named": "\u3000南の妖精 "}]}],
        }
    )
    p = Position(catalog=cat)
    p.case(0, "AF-043")
    case = p.case(1, "X-1")
    p.fairy(0, "AF-002", on=case)  # 南の妖精
    state = p.build()
    _, events = engine.apply(cat, state, act("investigate", 0, case=case))
    assert [e for e in events if e["type"] == "solved"]
