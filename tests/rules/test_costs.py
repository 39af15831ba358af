"""RULES 7: actions, the cost unit — paid by turning one's own unactioned cases sideways."""

from __future__ import annotations

import pytest

from referee.engine import Catalog, CatalogError

from .positions import Position, act, apply, assert_illegal, normal, run


def test_7_1_one_action_is_paid_by_turning_an_unactioned_case_sideways():
    """RULES 7.1: the draw action turns the paying case actioned, and nothing else pays."""
    p = Position()
    case = p.case(0, "AF-042")
    state = p.build()

    after, events = apply(state, act("draw", 0))

    expected = normal(state, applied=1)
    expected["players"][0]["cases"] = [{"card": case, "face_up": False, "actioned": True}]
    expected["players"][0]["hand"] = state["players"][0]["file"][:1]
    expected["players"][0]["file"] = state["players"][0]["file"][1:]
    assert after == expected
    assert events[0] == {"type": "paid", "player": 0, "cases": [case]}


def test_7_1_a_face_down_case_pays_and_stays_face_down():
    """RULES 7.1: face-down cases pay too; paying does not reveal them."""
    p = Position()
    case = p.case(0, "AF-051", face_up=False)
    state = p.build()
    after, _ = apply(state, act("draw", 0))
    assert after["players"][0]["cases"] == [{"card": case, "face_up": False, "actioned": True}]


def test_7_1_the_opponents_cases_and_fairies_are_no_source_of_actions():
    """RULES 7.1: with only actioned cases of one's own, the opponent's unactioned cases do not pay."""
    p = Position()
    p.case(0, "AF-042", actioned=True)
    p.case(1, "AF-043")
    p.fairy(0, "AF-006")
    state = p.build()
    assert_illegal(state, act("draw", 0), "7.2", "cannot_pay")


def test_7_2_a_player_who_cannot_pay_may_not_declare_the_action():
    """RULES 7.2: 追い払い costs 2; one unactioned case is not enough."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043", actioned=True)
    fairy = p.fairy(1, "AF-004")
    spell = p.hand(0, "AF-064")
    state = p.build()
    violation = assert_illegal(state, act("cast_spell", 0, card=spell, targets=[fairy]), "7.2", "cannot_pay")
    assert violation.params == {"player": 0, "cost": 2, "available": 1}


def test_7_2_the_cost_is_paid_in_full_when_the_action_is_declared():
    """RULES 7.2: while the window is open the paying case is already actioned and named in pending."""
    p = Position()
    case = p.case(0, "AF-042")
    p.case(1, "AF-047")
    p.hand(1, "AF-074")
    state = p.build()

    after, _ = apply(state, act("draw", 0))

    assert after["pending"]["action"] == {"type": "draw", "player": 0, "pay": [case]}
    assert after["players"][0]["cases"] == [{"card": case, "face_up": False, "actioned": True}]
    assert after["players"][0]["hand"] == []  # the draw itself waits for the window


def test_7_3_the_player_may_name_the_paying_case():
    """RULES 7.3: pay names the newer case; the older one stays unactioned."""
    p = Position()
    old = p.case(0, "AF-042")
    new = p.case(0, "AF-043")
    state = p.build()
    after, _ = apply(state, act("draw", 0, pay=[new]))
    assert after["players"][0]["cases"] == [
        {"card": old, "face_up": False, "actioned": False},
        {"card": new, "face_up": False, "actioned": True},
    ]


def test_7_3_without_pay_the_cases_controlled_longest_pay():
    """RULES 7.3: a cost of 2 with three unactioned cases: the two played first pay."""
    p = Position()
    first = p.case(0, "AF-042")
    second = p.case(0, "AF-043")
    third = p.case(0, "AF-044")
    victim = p.fairy(1, "AF-004")
    spell = p.hand(0, "AF-064")
    state = p.build()
    after, events = apply(state, act("cast_spell", 0, card=spell, targets=[victim]))
    assert [c["actioned"] for c in after["players"][0]["cases"]] == [True, True, False]
    assert events[0] == {"type": "paid", "player": 0, "cases": [first, second]}
    assert third == after["players"][0]["cases"][2]["card"]


def test_7_3_skipping_an_actioned_case_the_longest_held_unactioned_ones_pay():
    """RULES 7.3: the oldest case is already actioned, so the next oldest pays."""
    p = Position()
    p.case(0, "AF-042", actioned=True)
    second = p.case(0, "AF-043")
    p.case(0, "AF-044")
    state = p.build()
    _, events = apply(state, act("draw", 0))
    assert events[0] == {"type": "paid", "player": 0, "cases": [second]}


def test_7_3_naming_the_wrong_number_of_cases_is_illegal():
    """RULES 7.3: a 1-action draw paid with two cases, or with none, is wrong_pay_count."""
    p = Position()
    a = p.case(0, "AF-042")
    b = p.case(0, "AF-043")
    state = p.build()
    assert_illegal(state, act("draw", 0, pay=[a, b]), "7.3", "wrong_pay_count")
    assert_illegal(state, act("draw", 0, pay=[]), "7.3", "wrong_pay_count")


def test_7_3_a_free_action_names_no_payer():
    """RULES 7.3: play_case costs nothing (2.2): naming a case to pay is the wrong number."""
    p = Position(step="case")
    mine = p.case(0, "AF-042")
    new = p.hand(0, "AF-043")
    state = p.build()
    assert_illegal(state, act("play_case", 0, card=new, pay=[mine]), "7.3", "wrong_pay_count")
    after, _ = apply(state, act("play_case", 0, card=new, pay=[]))
    assert after["players"][0]["cases"][0]["actioned"] is False


def test_7_3_naming_the_opponents_case_is_illegal():
    """RULES 7.3: a case that is not theirs cannot pay."""
    p = Position()
    p.case(0, "AF-042")
    theirs = p.case(1, "AF-043")
    state = p.build()
    v = assert_illegal(state, act("draw", 0, pay=[theirs]), "7.3", "bad_payer")
    assert v.params == {"case": theirs, "why": "not theirs"}


def test_7_3_naming_a_case_not_in_play_is_illegal():
    """RULES 7.3: a case in hand (or an unknown id) cannot pay."""
    p = Position()
    p.case(0, "AF-042")
    in_hand = p.hand(0, "AF-043")
    state = p.build()
    v = assert_illegal(state, act("draw", 0, pay=[in_hand]), "7.3", "bad_payer")
    assert v.params == {"case": in_hand, "why": "not in play"}
    v = assert_illegal(state, act("draw", 0, pay=["zz99"]), "7.3", "bad_payer")
    assert v.params["why"] == "not in play"


def test_7_3_naming_an_actioned_case_is_illegal():
    """RULES 7.3: an already actioned case cannot pay."""
    p = Position()
    p.case(0, "AF-042")
    tired = p.case(0, "AF-043", actioned=True)
    state = p.build()
    v = assert_illegal(state, act("draw", 0, pay=[tired]), "7.3", "bad_payer")
    assert v.params == {"case": tired, "why": "already actioned"}


def test_7_3_naming_one_case_twice_is_illegal():
    """RULES 7.3: a cost of 2 paid by one case named twice."""
    p = Position()
    a = p.case(0, "AF-042")
    p.case(0, "AF-043")
    victim = p.fairy(1, "AF-004")
    spell = p.hand(0, "AF-064")
    state = p.build()
    v = assert_illegal(state, act("cast_spell", 0, card=spell, targets=[victim], pay=[a, a]), "7.3", "bad_payer")
    assert v.params == {"case": a, "why": "named twice"}


def test_7_4_cases_left_unactioned_pay_for_a_counter_in_the_opponents_turn():
    """RULES 7.4: player 0 ends turn 1 with an unactioned case; in turn 2 it is still unactioned and
    pays for 邪魔 (AF-070) against player 1's investigation."""
    p = Position(active=0)
    spare = p.case(0, "AF-042")
    negate = p.hand(0, "AF-070")
    theirs = p.case(1, "AF-045")
    p.fairy(1, "AF-004", on=theirs)
    state = p.build()

    state, _ = run(state, act("end_turn", 0), act("skip_case", 1))
    assert state["players"][0]["cases"] == [{"card": spare, "face_up": False, "actioned": False}]
    state, _ = apply(state, act("investigate", 1, case=theirs))
    after, _ = apply(state, act("counter", 0, card=negate, targets=[], pay=[spare]))

    assert after["players"][0]["cases"] == [{"card": spare, "face_up": False, "actioned": True}]
    assert after["pending"]["negated"] is True


@pytest.mark.parametrize(
    "kind, extra",
    [
        ("spell", {}),
        ("counter", {"trigger": "investigate"}),
        ("super_deduction", {"trigger": "draw"}),  # a sister title's counter, by its alias (RULES 2.8)
    ],
)
def test_7_5_a_catalog_with_a_spell_or_counter_below_one_action_is_refused_at_load(kind, extra):
    """RULES 7.5: a spell or a counter costs at least 1 action; a catalog saying less names the card and field."""
    data = {
        "id": "cheap",
        "cards": [{"id": "C-1", "name": "Free Lunch", "kind": kind, "cost": 0, "effect": [{"draw": 1}], **extra}],
    }
    with pytest.raises(CatalogError) as caught:
        Catalog.from_data(data)
    assert (caught.value.card, caught.value.field) == ("C-1", "cost")
    assert "RULES 7.5" in str(caught.value) and "at least 1" in str(caught.value)


def test_7_5_a_spell_costing_one_action_loads():
    """RULES 7.5: cost 1 is the least a spell may cost, and it loads."""
    cat = Catalog.from_data(
        {"id": "ok", "cards": [{"id": "C-1", "name": "Hint", "kind": "spell", "cost": 1, "effect": [{"draw": 1}]}]}
    )
    assert cat["C-1"].cost == 1


def test_7_5_every_spell_and_counter_of_the_builtin_catalog_costs_at_least_one():
    """RULES 7.5: the built-in catalog keeps the ruling (妖精の羽ばたき, AF-061, costs 1)."""
    cat = Catalog.builtin()
    costs = {c.id: c.cost for c in cat.cards.values() if c.kind in ("spell", "counter")}
    assert costs and min(costs.values()) >= 1
    assert costs["AF-061"] == 1


def test_7_5_a_spell_cannot_be_cast_without_an_action_to_pay():
    """RULES 7.5: with every case actioned, even the cheapest spell is refused for want of an action (7.2)."""
    p = Position()
    tired = p.case(0, "AF-042", actioned=True)
    spell = p.hand(0, "AF-061")
    state = p.build()
    assert_illegal(state, act("cast_spell", 0, card=spell, targets=[tired]), "7.2", "cannot_pay")


def test_7_5_an_ability_may_cost_zero_actions():
    """RULES 7.5: an ability costs what its card says, which may be 0: 物知りの妖精's (AF-008) +2 is used
    with every case actioned."""
    p = Position()
    p.case(0, "AF-042", actioned=True)
    fairy = p.fairy(0, "AF-008")
    state = p.build()
    after, _events = apply(state, act("use_ability", 0, card=fairy, ability=0, targets=[]))
    assert after["players"][0]["cases"][0]["actioned"] is True
    assert {"card": fairy, "power": 2} in after["modifiers"]
