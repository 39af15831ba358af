"""RULES 4: zones and card states — files, hands, trashes, the field; secrecy; where cards go."""

from __future__ import annotations

import pytest

from referee import engine
from referee.engine import InconsistentState, InvalidInput

from .positions import CAT, Position, act, apply, normal, run


def test_4_1_a_view_hides_the_opponents_hand_and_both_files_but_not_the_trashes():
    """RULES 4.1: the file is secret to both, the hand to the opponent; the trash is public."""
    p = Position()
    my_hand = p.hand(0, "AF-004")
    their_hand = p.hand(1, "AF-070")
    my_trash = p.trash(0, "AF-060")
    their_trash = p.trash(1, "AF-062")
    my_top = p.file(0, "AF-006")
    their_top = p.file(1, "AF-051")
    state = p.build()

    seen = engine.view(CAT, state, 0)

    assert seen["players"][0]["file"] == 38 and seen["players"][1]["file"] == 38  # 40 - hand - trash
    assert my_hand in seen["cards"] and their_hand not in seen["cards"]
    assert my_trash in seen["cards"] and their_trash in seen["cards"]
    assert my_top not in seen["cards"] and their_top not in seen["cards"]
    assert not any(iid in seen["cards"] for pl in state["players"] for iid in pl["file"])
    assert "seed" not in seen and "rng" not in seen
    assert seen["players"][1]["trash"] == state["players"][1]["trash"]


def test_4_1_the_file_is_ordered_top_first():
    """RULES 4.1: the draw action takes the first card of the file list."""
    p = Position()
    p.case(0, "AF-042")
    top, second = p.file(0, "AF-006", "AF-051")
    state = p.build()

    after, _ = apply(state, act("draw", 0))

    assert after["players"][0]["hand"] == [top]
    assert after["players"][0]["file"][0] == second


def test_4_2_a_player_may_dispatch_a_fairy_to_the_opponents_case():
    """RULES 4.2: fairies may sit on the opponent's cases, next to the opponent's own."""
    p = Position()
    pay = p.case(0, "AF-042")
    theirs = p.case(1, "AF-047")
    their_fairy = p.fairy(1, "AF-004", on=theirs)
    mine = p.fairy(0, "AF-005")
    state = p.build()

    after, _ = apply(state, act("dispatch", 0, fairy=mine, case=theirs))

    expected = normal(state, applied=1)
    expected["players"][0]["cases"] = [{"card": pay, "face_up": False, "actioned": True}]
    expected["players"][0]["fairies"] = [{"card": mine, "case": theirs}]
    assert after == expected
    assert after["players"][1]["fairies"] == [{"card": their_fairy, "case": theirs}]


def test_4_2_a_fairy_dispatched_to_a_case_not_in_play_is_an_inconsistent_state():
    """RULES 4.2: a dispatched fairy is on exactly one case in play."""
    p = Position()
    gone = p.trash(1, "AF-047")
    p.fairy(0, "AF-004")
    state = p.build()
    state["players"][0]["fairies"][0]["case"] = gone
    with pytest.raises(InconsistentState) as caught:
        engine.check_state(CAT, state)
    assert caught.value.code == "dangling_reference"


def test_4_2_an_evidence_is_always_attached_to_a_case_in_play():
    """RULES 4.2: an evidence without a case is not of the schema."""
    p = Position()
    case = p.case(0, "AF-042")
    p.evidence(0, "AF-022", on=case)
    state = p.build()
    state["players"][0]["evidence"][0]["case"] = None
    with pytest.raises(InvalidInput) as caught:
        engine.check_state(CAT, state)
    assert "state.players.0.evidence.0.case" in caught.value.errors


def test_4_3_a_case_is_face_down_or_up_and_unactioned_or_actioned():
    """RULES 4.3: all four combinations of a case's two states are valid positions."""
    p = Position()
    for face_up in (False, True):
        for actioned in (False, True):
            p.case(0, "AF-045", face_up=face_up, actioned=actioned)
    state = normal(p.build())
    assert [(c["face_up"], c["actioned"]) for c in state["players"][0]["cases"]] == [
        (False, False),
        (False, True),
        (True, False),
        (True, True),
    ]


def test_4_3_only_cases_have_the_action_state():
    """RULES 4.3: a fairy carrying an ``actioned`` flag is not of the schema."""
    p = Position()
    p.fairy(0, "AF-004")
    state = p.build()
    state["players"][0]["fairies"][0]["actioned"] = True
    with pytest.raises(InvalidInput) as caught:
        engine.check_state(CAT, state)
    assert "state.players.0.fairies.0.actioned" in caught.value.errors


def test_4_4_a_face_down_case_is_secret_to_the_opponent_and_known_to_its_owner():
    """RULES 4.4: the view of player 1 omits player 0's face-down case; player 0's view has it."""
    p = Position()
    down = p.case(0, "AF-051")
    up = p.case(0, "AF-047", face_up=True)
    state = p.build()

    theirs = engine.view(CAT, state, 1)
    mine = engine.view(CAT, state, 0)

    assert down not in theirs["cards"] and theirs["cards"][up] == "AF-047"
    assert mine["cards"][down] == "AF-051"


def test_4_4_a_case_that_turns_face_up_stays_face_up():
    """RULES 4.4: an investigation negated by 邪魔 (AF-070) leaves the revealed case face up."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-051")
    p.case(1, "AF-042")
    p.fairy(0, "AF-004", on=case)
    negate = p.hand(1, "AF-070")
    state = p.build()

    after, _ = run(state, act("investigate", 0, case=case), act("counter", 1, card=negate, targets=[]), act("pass", 1))

    # (the case also paid for the counter: it was player 1's longest-held unactioned case)
    assert after["players"][1]["cases"][0] == {"card": case, "face_up": True, "actioned": True}
    assert engine.view(CAT, after, 0)["cards"][case] == "AF-051"


def test_4_5_a_card_goes_to_its_owners_trash():
    """RULES 4.5: player 0's デーモン退治 (AF-067) trashes player 1's fairy into player 1's trash."""
    p = Position()
    p.case(0, "AF-042")
    p.case(0, "AF-043")
    victim = p.fairy(1, "AF-006")
    spell = p.hand(0, "AF-067")
    state = p.build()

    after, _ = apply(state, act("cast_spell", 0, card=spell, targets=[victim]))

    assert after["players"][1]["trash"][-1] == victim
    assert victim not in after["players"][0]["trash"]
    assert after["players"][0]["trash"][-1] == spell


def test_4_5_evidence_on_the_opponents_solved_case_goes_to_its_owners_trash():
    """RULES 4.5: player 0's evidence on player 1's solved case lands in player 0's trash."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-045")  # level 3
    p.fairy(0, "AF-004", on=case)  # power 3
    mine = p.evidence(0, "AF-022", on=case)
    state = p.build()

    after, _ = apply(state, act("investigate", 0, case=case))

    assert after["players"][0]["trash"][-1] == mine
    assert case == after["players"][1]["trash"][-1]


def test_4_6_when_a_case_leaves_evidence_on_it_is_trashed_and_fairies_become_standby():
    """RULES 4.6: solving a case trashes both players' evidence on it and makes every fairy standby."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-045")  # level 3, hit 2
    other = p.case(1, "AF-046")
    mine = p.fairy(0, "AF-004", on=case)
    theirs = p.fairy(1, "AF-005", on=case)
    elsewhere = p.fairy(1, "AF-009", on=other)
    my_ev = p.evidence(0, "AF-022", on=case)
    their_ev = p.evidence(1, "AF-023", on=case)
    kept_ev = p.evidence(1, "AF-026", on=other)
    state = p.build()

    after, _ = apply(state, act("investigate", 0, case=case))

    assert after["players"][0]["fairies"] == [{"card": mine, "case": None}]
    assert after["players"][1]["fairies"] == [{"card": theirs, "case": None}, {"card": elsewhere, "case": other}]
    assert after["players"][0]["evidence"] == []
    assert after["players"][1]["evidence"] == [{"card": kept_ev, "case": other}]
    assert my_ev in after["players"][0]["trash"] and their_ev in after["players"][1]["trash"]


def test_4_7_cards_trashed_at_once_go_file_first_then_case_then_evidence_in_attach_order():
    """RULES 4.7: solving player 1's case: player 1's trash gets the milled cards (top first), the
    case, then player 1's evidence in the order attached."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-053")  # level 4, hit 3
    p.fairy(0, "AF-006", on=case)  # power 4
    ev_first = p.evidence(1, "AF-023", on=case)
    ev_second = p.evidence(1, "AF-026", on=case)
    top = p.file(1, "AF-051", "AF-047", "AF-046", "AF-045")
    state = p.build()
    # Attach order is the list order: make the later-placed card the earlier-attached one.
    evs = state["players"][1]["evidence"]
    evs.reverse()
    assert [e["card"] for e in evs] == [ev_second, ev_first]
    trash_before = list(state["players"][1]["trash"])

    after, _ = apply(state, act("investigate", 0, case=case))

    assert after["players"][1]["trash"] == trash_before + top[:3] + [case, ev_second, ev_first]
    assert after["players"][1]["file"][0] == top[3]


def test_4_7_a_failed_investigation_trashes_evidence_in_attach_order_then_fairies_in_dispatch_order():
    """RULES 4.7: on 学園祭の怪 (AF-041, two fairies each) the fairy dispatched last goes to the trash last,
    whatever order the fairies entered the field in."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-041")  # level 7
    early = p.fairy(0, "AF-005", on=case)
    late = p.fairy(0, "AF-009", on=case)
    ev_a = p.evidence(0, "AF-022", on=case)
    ev_b = p.evidence(0, "AF-026", on=case)
    state = p.build()
    # The fairy list is in dispatch order: ``late`` was dispatched before ``early``.
    state["players"][0]["fairies"] = [{"card": late, "case": case}, {"card": early, "case": case}]
    trash_before = list(state["players"][0]["trash"])

    after, events = apply(state, act("investigate", 0, case=case))

    assert next(e for e in events if e["type"] == "investigation")["outcome"] == "failed"
    assert after["players"][0]["trash"] == trash_before + [ev_a, ev_b, late, early]
