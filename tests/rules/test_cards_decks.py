"""RULES 1 (the game), 2 (cards) and 3 (decks): given a position or a deck, when acting, then..."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from referee import engine
from referee.engine import Catalog, CatalogError, IllegalDeck, InconsistentState, InvalidInput
from referee.engine.catalog import KINDS

from .positions import CAT, Position, act, apply, assert_illegal, assert_violation, legal_deck, new_game, normal, run

# -- 1. The game -----------------------------------------------------------------------


def test_1_1_a_game_request_with_three_decks_is_refused():
    """RULES 1.1: two players; a NewGame naming three decks is not a game the referee plays."""
    deck = legal_deck()
    with pytest.raises(InvalidInput) as caught:
        engine.new_game(CAT, {"decks": [deck, deck, deck], "seed": "three"})
    assert "decks" in caught.value.errors


def test_1_1_a_state_with_a_third_player_is_refused():
    """RULES 1.1: a state holds exactly two players."""
    state = Position().build()
    state["players"].append(copy.deepcopy(state["players"][0]))
    with pytest.raises(InvalidInput) as caught:
        engine.check_state(CAT, state)
    assert "state.players" in caught.value.errors


def test_1_1_a_new_game_seats_two_players():
    """RULES 1.1: a game is dealt to exactly two players, 40 cards each."""
    state, _ = new_game()
    assert len(state["players"]) == 2
    assert len(state["cards"]) == 80


def test_1_2_the_opponent_must_draw_from_an_empty_file_so_the_player_wins():
    """RULES 1.2: player 0 ends the turn; player 1 must draw (6.3) from an empty file; player 0 wins."""
    p = Position(active=0)
    p.file_size(1, 0)
    state = p.build()

    after, events = apply(state, act("end_turn", 0))

    assert after["phase"] == "over"
    assert after["result"] == {"winner": 0, "reason": "deck_out"}
    assert events[-1] == {"type": "game_over", "winner": 0, "reason": "deck_out"}


def test_1_2_the_opponent_concedes_so_the_player_wins():
    """RULES 1.2: when player 1 concedes, player 0 wins."""
    state = Position().build()
    after, _ = apply(state, act("concede", 1))
    assert after["result"] == {"winner": 0, "reason": "concede"}


# -- 2. Cards ----------------------------------------------------------------------------


def test_2_1_every_catalog_card_has_one_of_the_six_kinds():
    """RULES 2.1: case, fairy, evidence, spell, counter or bonus — and af-ref has each of them."""
    kinds = {card.kind for card in CAT.cards.values()}
    assert kinds == set(KINDS) == {"case", "fairy", "evidence", "spell", "counter", "bonus"}


def test_2_1_a_card_of_an_unknown_kind_is_refused_by_the_catalog_loader():
    """RULES 2.1: a kind outside the six (and their aliases, 2.8) is not a card."""
    with pytest.raises(CatalogError) as caught:
        Catalog.from_data({"id": "x", "cards": [{"id": "X-1", "name": "謎", "kind": "monster"}]})
    assert caught.value.card == "X-1" and caught.value.field == "kind"


def test_2_1_a_card_sits_only_in_the_field_zone_of_its_kind():
    """RULES 2.1: the kind decides the zone — a fairy card listed among the cases is an inconsistent state."""
    p = Position()
    p.fairy(0, "AF-004")
    state = p.build()
    state["players"][0]["cases"].append(
        {"card": state["players"][0]["fairies"][0]["card"], "face_up": True, "actioned": False}
    )
    state["players"][0]["fairies"] = []
    with pytest.raises(InconsistentState) as caught:
        engine.check_state(CAT, state)
    assert caught.value.code == "wrong_zone_kind"


def test_2_2_playing_a_case_costs_nothing_and_it_stays_on_the_field():
    """RULES 2.2: in the case step a case is played with every own case already actioned (no cost)."""
    p = Position(step="case")
    old = p.case(0, "AF-042", actioned=True)
    new = p.hand(0, "AF-047")
    state = p.build()

    after, _ = apply(state, act("play_case", 0, card=new))

    expected = normal(state, applied=1)
    expected["players"][0]["hand"] = []
    expected["players"][0]["cases"] = [
        {"card": old, "face_up": False, "actioned": True},
        {"card": new, "face_up": False, "actioned": False},
    ]
    expected["case_played"] = True
    expected["step"] = "main"
    assert after == expected


def test_2_2_an_unsolved_case_gives_its_controller_an_action():
    """RULES 2.2: the case played this turn pays for the draw action (7.1) right away."""
    p = Position(step="case")
    case = p.hand(0, "AF-047")
    state = p.build()

    after, _ = run(state, act("play_case", 0, card=case), act("draw", 0))

    assert after["players"][0]["cases"] == [{"card": case, "face_up": False, "actioned": True}]
    assert len(after["players"][0]["hand"]) == 1


def test_2_3_playing_a_fairy_costs_one_action_and_it_stays_on_the_field_standby():
    """RULES 2.3: one case turns actioned; the fairy enters the field standby."""
    p = Position()
    c1 = p.case(0, "AF-042")
    c2 = p.case(0, "AF-043")
    fairy = p.hand(0, "AF-004")
    state = p.build()

    after, _ = apply(state, act("play_fairy", 0, card=fairy))

    expected = normal(state, applied=1)
    expected["players"][0]["hand"] = []
    expected["players"][0]["cases"][0]["actioned"] = True
    expected["players"][0]["fairies"] = [{"card": fairy, "case": None}]
    assert after == expected
    assert [c["card"] for c in after["players"][0]["cases"]] == [c1, c2]


def test_2_4_playing_an_evidence_costs_one_action_and_it_attaches_to_either_players_case():
    """RULES 2.4: an evidence goes onto the opponent's case, paid with one own case."""
    p = Position()
    mine = p.case(0, "AF-042")
    theirs = p.case(1, "AF-047")
    ev = p.hand(0, "AF-023")
    state = p.build()

    after, _ = apply(state, act("play_evidence", 0, card=ev, case=theirs))

    expected = normal(state, applied=1)
    expected["players"][0]["hand"] = []
    expected["players"][0]["cases"] = [{"card": mine, "face_up": False, "actioned": True}]
    expected["players"][0]["evidence"] = [{"card": ev, "case": theirs}]
    assert after == expected


def test_2_5_a_spell_pays_its_cost_applies_its_effect_and_goes_to_its_owners_trash():
    """RULES 2.5: 追い払い (AF-064, cost 2) bounces a fairy, then lies in its owner's trash."""
    p = Position()
    c1 = p.case(0, "AF-042")
    c2 = p.case(0, "AF-043")
    target_case = p.case(1, "AF-047")
    theirs = p.fairy(1, "AF-004", on=target_case)
    spell = p.hand(0, "AF-064")
    state = p.build()

    after, _ = apply(state, act("cast_spell", 0, card=spell, targets=[theirs]))

    expected = normal(state, applied=1)
    expected["players"][0]["hand"] = []
    expected["players"][0]["trash"].append(spell)
    expected["players"][0]["cases"] = [
        {"card": c1, "face_up": False, "actioned": True},
        {"card": c2, "face_up": False, "actioned": True},
    ]
    expected["players"][1]["fairies"] = []
    expected["players"][1]["hand"] = [theirs]
    assert after == expected


def test_2_5_a_spell_is_not_cast_outside_its_owners_main_step():
    """RULES 2.5: in the case step, casting a spell is refused (a main-step action, 8.1)."""
    p = Position(step="case")
    p.case(0, "AF-042")
    spell = p.hand(0, "AF-060")
    state = p.build()
    assert_illegal(state, act("cast_spell", 0, card=spell, targets=[]), "8.1", "not_main_step")


def test_2_6_a_counter_is_used_in_the_opponents_turn_paid_and_goes_to_its_owners_trash():
    """RULES 2.6: 盗み見 (AF-074) answers the draw action: its owner pays 1 and draws 1."""
    p = Position()
    p.case(0, "AF-042")
    own_case = p.case(1, "AF-047")
    counter = p.hand(1, "AF-074")
    state = p.build()
    state, _ = apply(state, act("draw", 0))
    assert state["pending"]["action"]["type"] == "draw"

    after, _ = apply(state, act("counter", 1, card=counter, targets=[]))

    pl = after["players"][1]
    assert pl["trash"][-1] == counter
    assert counter not in pl["hand"] and len(pl["hand"]) == 1  # the counter left, one card drawn
    assert pl["cases"] == [{"card": own_case, "face_up": False, "actioned": True}]


def test_2_6_a_counter_is_not_used_in_its_owners_own_turn():
    """RULES 2.6: in one's own turn there is no window to play a counter into (9.3)."""
    p = Position()
    p.case(0, "AF-042")
    counter = p.hand(0, "AF-070")
    state = p.build()
    assert_illegal(state, act("counter", 0, card=counter, targets=[]), "9.3", "no_window")


def test_2_7_a_bonus_card_is_never_legal_in_a_deck():
    """RULES 2.7: the Millennium bonus card AF-099 in a deck is a violation of 3.3."""
    deck = legal_deck()[:39] + ["AF-099"]
    [violation] = engine.validate_deck(CAT, deck)
    assert_violation(violation, "3.3", "bonus_card")


def test_2_7_a_bonus_card_never_appears_in_a_game_state():
    """RULES 2.7: a state whose cards include a bonus card is refused."""
    state = Position().build()
    state["cards"][state["players"][0]["file"][-1]] = "AF-099"
    with pytest.raises(InconsistentState) as caught:
        engine.check_state(CAT, state)
    assert caught.value.code == "bonus_card_in_game"


def test_2_8_sister_title_kinds_are_read_through_the_alias_table():
    """RULES 2.8: character → fairy, deduction/推理 → spell, super_deduction/超推理 → counter, 事件 → case."""
    assert CAT["AF-011"].kind == "fairy"  # kind: character
    assert CAT["AF-010"].kind == "fairy"  # kind: キャラクター
    assert CAT["AF-068"].kind == "spell"  # kind: deduction
    assert CAT["AF-069"].kind == "spell"  # kind: 推理
    assert CAT["AF-083"].kind == "counter"  # kind: super_deduction
    assert CAT["AF-084"].kind == "counter"  # kind: 超推理
    assert CAT["AF-052"].kind == "case"  # kind: 事件


def test_2_8_a_character_card_plays_as_a_fairy_and_investigates():
    """RULES 2.8: 少年探偵 (AF-011, a Conan character) is played, dispatched and solves a level-1 case."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043")
    p.case(0, "AF-045")
    target = p.case(1, "AF-042")
    boy = p.hand(0, "AF-011")
    state = p.build()

    after, events = run(
        state,
        act("play_fairy", 0, card=boy),
        act("dispatch", 0, fairy=boy, case=target),
        act("investigate", 0, case=target),
    )

    assert {"type": "solved", "case": target, "by": 0, "hit": 1} in events
    assert after["players"][0]["fairies"] == [{"card": boy, "case": None}]


@pytest.mark.parametrize(
    "written, read",
    [
        ({"trash": "妖精カード"}, {"trash": "fairy"}),
        ({"trash": "証拠"}, {"trash": "evidence"}),
        ({"bounce": "キャラクター"}, {"bounce": "fairy"}),
        ({"recover": "推理カード"}, {"recover": "spell"}),
        ({"recover": "deduction"}, {"recover": "spell"}),
        ({"power": 1, "target": "character"}, {"power": 1, "target": "fairy"}),
        ({"reveal": "事件カード"}, {"reveal": "case"}),
    ],
    ids=repr,
)
def test_2_8_an_effect_target_reads_a_kind_written_in_any_word_of_the_term_table(written, read):
    """RULES 2.8 and the term table (ruling 2026-12-05): wherever a card kind is written, each word of the table
    is that kind, with or without カード; the catalog reads it as the canonical kind (same digest)."""
    data = copy.deepcopy(CAT.canonical)
    spell = next(c for c in data["cards"] if c["kind"] == "spell")
    spell["effect"] = [read]
    canonical = Catalog.from_data(data)
    spell["effect"] = [written]
    assert Catalog.from_data(data).digest == canonical.digest


@pytest.mark.parametrize(
    "word",
    [
        "ノーマル トレーディングカード",
        "ノーマル トレーディング",
        "ノーマル\u3000トレーディングカード",  # an ideographic space: NFKC makes it a space (3.2.1)
        " ノーマルトレーディングカード ",
        "ﾉｰﾏﾙ ﾄﾚｰﾃﾞｨﾝｸﾞｶｰﾄﾞ",  # half-width katakana, NFKC-equal
    ],
)
def test_2_1_the_bonus_rows_word_loads_as_a_bonus_card(word):
    """RULES 2.1 and the term table (ruling 2026-12-07): the bonus row's word, with or without カード, is the
    kind bonus wherever a kind is written, read as 3.2.1 reads names (NFKC, white space trimmed)."""
    data = {"id": "t", "cards": [{"id": "X-1", "name": "ノーマルカード", "kind": word}]}
    assert Catalog.from_data(data)["X-1"].kind == "bonus"


def test_2_1_a_word_near_the_bonus_rows_is_not_a_kind():
    with pytest.raises(CatalogError, match="unknown kind"):
        Catalog.from_data({"id": "t", "cards": [{"id": "X-1", "name": "n", "kind": "トレーディングカード"}]})


@pytest.mark.parametrize("written", [{"trash": "spell"}, {"trash": "妖力カード"}, {"bounce": "fairies"}])
def test_2_8_an_effect_target_of_a_kind_it_cannot_take_is_refused(written):
    """RULES 2.8: a word of the table is read as its kind, and that kind must still be one the effect takes."""
    data = copy.deepcopy(CAT.canonical)
    next(c for c in data["cards"] if c["kind"] == "spell")["effect"] = [written]
    with pytest.raises(CatalogError, match="must be one of"):
        Catalog.from_data(data)


def test_2_8_a_deck_mixing_every_series_is_legal():
    """RULES 2.8: cards of the sister titles are legal alongside af99 cards."""
    deck = legal_deck()[:33] + ["AF-011", "AF-012", "AF-009", "AF-026", "AF-052", "AF-068", "AF-084"]
    assert {CAT[c].series for c in deck} >= {"af99", "millennium", "conan", "conan-movies"}
    assert engine.validate_deck(CAT, deck) == []


# -- 3. Decks ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [39, 41])
def test_3_1_a_deck_is_exactly_40_cards(size):
    """RULES 3.1: 39 or 41 cards is a deck_size violation naming the count."""
    deck = (legal_deck() + ["AF-051"])[:size]
    [violation] = engine.validate_deck(CAT, deck)
    assert_violation(violation, "3.1", "deck_size")
    assert violation.params["count"] == size


def test_3_1_a_deck_of_one_card_is_worded_without_a_wrong_plural():
    """RULES 3.1: the detail of a one-card deck does not read "1 cards"."""
    [violation] = engine.validate_deck(CAT, ["AF-051"])
    assert assert_violation(violation, "3.1", "deck_size").detail("en") == "Deck has 1 card(s); a deck is exactly 40."


def test_3_1_forty_cards_as_a_list_or_as_counts_is_legal():
    """RULES 3.1: the same 40 cards are legal in both Deck forms of docs/api.md §2."""
    assert engine.validate_deck(CAT, legal_deck()) == []
    assert engine.validate_deck(CAT, dict(Counter(legal_deck()))) == []


def test_3_2_at_most_three_cards_of_one_name():
    """RULES 3.2: a fourth 西の妖精 (AF-004) is too many."""
    deck = legal_deck()
    deck[deck.index("AF-060")] = "AF-004"
    [violation] = engine.validate_deck(CAT, deck)
    assert_violation(violation, "3.2", "too_many_copies")
    assert violation.params == {"name": "西の妖精", "count": 4, "limit": 3}


@pytest.mark.parametrize("cid, name", [("AF-001", "北の妖精"), ("AF-021", "V.I.P.のカード")])
def test_3_2_the_two_named_cards_are_limited_to_one(cid, name):
    """RULES 3.2: 北の妖精 and V.I.P.のカード carry deck_limit 1: two copies break it, one does not."""
    one = legal_deck()[:39] + [cid]
    assert engine.validate_deck(CAT, one) == []
    two = legal_deck()[:38] + [cid, cid]
    [violation] = engine.validate_deck(CAT, two)
    assert_violation(violation, "3.2", "too_many_copies")
    assert violation.params == {"name": name, "count": 2, "limit": 1}


def test_3_2_two_printings_of_one_name_count_together():
    """RULES 3.2: by name, not id — 2 + 2 copies of two printings named alike are 4 of one name."""
    cards = [
        {"id": "P-1", "name": "同じ妖精", "kind": "fairy", "power": 1},
        {"id": "P-2", "name": "同じ妖精", "kind": "fairy", "power": 2},
    ]
    cards += [{"id": f"F-{i:02d}", "name": f"妖精{i}", "kind": "fairy", "power": 1} for i in range(13)]
    catalog = Catalog.from_data({"id": "printings", "cards": cards})
    filler = [f"F-{i:02d}" for i in range(12) for _ in range(3)]
    deck = ["P-1", "P-1", "P-2", "P-2"] + filler
    [violation] = engine.validate_deck(catalog, deck)
    assert_violation(violation, "3.2", "too_many_copies")
    assert violation.params == {"name": "同じ妖精", "count": 4, "limit": 3}
    three = ["P-1", "P-1", "P-2", "F-12"] + filler  # 3 of the name, and a 13th plain fairy
    assert engine.validate_deck(catalog, three) == []


def _printings_catalog(*named: dict) -> tuple[Catalog, list[str]]:
    """A catalog of ``named`` cards plus 13 plain fairies, and 36 of those fairies (3 each of 12)."""
    cards = [*named, *({"id": f"F-{i:02d}", "name": f"妖精{i}", "kind": "fairy", "power": 1} for i in range(13))]
    return Catalog.from_data({"id": "printings", "cards": cards}), [f"F-{i:02d}" for i in range(12) for _ in range(3)]


def test_3_2_a_names_limit_is_the_lowest_of_all_its_printings_even_those_not_in_the_deck():
    """RULES 3.2 (ruling): P-2 sets deck_limit 1 for the name; a deck of 2 P-1 alone breaks it."""
    catalog, filler = _printings_catalog(
        {"id": "P-1", "name": "同じ妖精", "kind": "fairy", "power": 1},
        {"id": "P-2", "name": "同じ妖精", "kind": "fairy", "power": 2, "deck_limit": 1},
    )
    deck = ["P-1", "P-1", "F-12", "F-12"] + filler
    [violation] = engine.validate_deck(catalog, deck)
    assert (violation.rule, violation.code) == ("3.2", "too_many_copies")
    assert violation.params == {"name": "同じ妖精", "count": 2, "limit": 1}
    assert engine.validate_deck(catalog, ["P-1", "F-12", "F-12", "F-12"] + filler) == []
    assert catalog.name_limit("同じ妖精") == 1 and catalog.name_limit("妖精0") == 3


@pytest.mark.parametrize("name", ["北の妖精", "V.I.P.のカード"])
def test_3_2_the_two_named_cards_are_limited_to_one_whatever_the_catalog_says(name):
    """RULES 3.2 (ruling): a catalog that gives 北の妖精 or V.I.P.のカード no deck_limit (3) still allows 1."""
    catalog, filler = _printings_catalog({"id": "N-1", "name": name, "kind": "fairy", "power": 2})
    assert catalog.name_limit(name) == 1
    two = ["N-1", "N-1", "F-12", "F-12"] + filler
    [violation] = engine.validate_deck(catalog, two)
    assert (violation.rule, violation.code) == ("3.2", "too_many_copies")
    assert violation.params == {"name": name, "count": 2, "limit": 1}
    assert engine.validate_deck(catalog, ["N-1", "F-12", "F-12", "F-12"] + filler) == []


def test_3_2_the_scenario_filler_and_random_decks_keep_the_same_limits():
    """RULES 3.2 (ruling): the scenario filler and the seeded random decks use the engine's limit per name,
    so a deck they fill is one the engine accepts."""
    from referee.engine.playout import random_deck
    from referee.engine.setup import SeededStream
    from referee.scenarios.build import filler

    cards = [{"id": f"F-{i:02d}", "name": f"妖精{i}", "kind": "fairy", "power": 1} for i in range(12)]
    cards += [
        {"id": "N-1", "name": "北の妖精", "kind": "fairy", "power": 2},
        {"id": "P-1", "name": "同じ妖精", "kind": "fairy", "power": 1},
        {"id": "P-2", "name": "同じ妖精", "kind": "spell", "cost": 1, "effect": [{"draw": 1}], "deck_limit": 2},
        {"id": "C-1", "name": "事件", "kind": "case", "level": 1, "hit": 1},
    ]
    catalog = Catalog.from_data({"id": "limits", "cards": cards})
    filled = filler(catalog, [], 40)
    assert (filled.count("N-1"), filled.count("P-1") + filled.count("P-2"), filled.count("C-1")) == (1, 2, 1)
    assert engine.validate_deck(catalog, filled) == []
    for n in range(5):
        deck = random_deck(catalog, SeededStream(f"limits-{n}"))
        assert engine.validate_deck(catalog, deck) == []


def test_3_3_no_bonus_cards():
    """RULES 3.3: the bonus card AF-099 is reported as bonus_card."""
    deck = legal_deck()[:39] + ["AF-099"]
    assert [(v.rule, v.code) for v in engine.validate_deck(CAT, deck)] == [("3.3", "bonus_card")]


def test_3_4_every_card_must_be_in_the_catalog():
    """RULES 3.4: an id the catalog does not know is unknown_card."""
    deck = legal_deck()[:39] + ["AF-999"]
    [violation] = engine.validate_deck(CAT, deck)
    assert_violation(violation, "3.4", "unknown_card")
    assert violation.params == {"card": "AF-999"}


def test_3_4_many_unknown_ids_are_listed_up_to_a_bound_then_counted():
    """RULES 3.4: each distinct unknown id once; past the first few, one more_unknown_cards
    with the count, so a deck of invented ids cannot make a huge reply."""
    from referee.engine.facts import UNKNOWN_CARDS_LISTED

    deck = [f"NOPE-{i:02d}" for i in range(25)] * 2
    found = engine.validate_deck(CAT, deck)
    assert [(v.rule, v.code) for v in found[:-1]] == [("3.1", "deck_size")] + [
        ("3.4", "unknown_card")
    ] * UNKNOWN_CARDS_LISTED
    assert assert_violation(found[-1], "3.4", "more_unknown_cards").params == {"count": 25 - UNKNOWN_CARDS_LISTED}


def test_3_4_a_new_game_with_illegal_decks_lists_every_violation_with_its_deck():
    """RULES 3.4 (and 3.1–3.3): new_game refuses and names each problem and which deck has it."""
    bad0 = legal_deck()[:38] + ["AF-999", "AF-099"]
    bad1 = legal_deck()[:39]
    with pytest.raises(IllegalDeck) as caught:
        engine.new_game(CAT, {"decks": [bad0, bad1], "seed": "bad"})
    found = [(v.params["deck"], v.rule, v.code) for v in caught.value.violations]
    assert found == [(0, "3.3", "bonus_card"), (0, "3.4", "unknown_card"), (1, "3.1", "deck_size")]


def test_3_5_a_game_request_has_no_sideboard():
    """RULES 3.5: there is no sideboard — a NewGame carrying one is not of the schema."""
    with pytest.raises(InvalidInput) as caught:
        engine.new_game(CAT, {"decks": [legal_deck(), legal_deck()], "sideboard": [["AF-051"], []]})
    assert "sideboard" in caught.value.errors


def test_3_5_each_player_plays_exactly_their_own_40_cards():
    """RULES 3.5: no exchange — each player's 40 instances are exactly the cards of their own deck."""
    deck0 = legal_deck()
    deck1 = list(reversed(legal_deck()))
    state, _ = engine.new_game(CAT, {"decks": [deck0, deck1], "seed": "own", "shuffle": True})
    for pl, deck in zip(state["players"], (deck0, deck1)):
        ids = pl["file"] + pl["hand"]
        assert Counter(state["cards"][i] for i in ids) == Counter(deck)
