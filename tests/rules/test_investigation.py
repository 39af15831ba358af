"""RULES 10: investigation — who may investigate, power, failure, requirements, solving."""

from __future__ import annotations

import pytest

from .positions import CAT, PLUS, Position, act, apply, assert_illegal, assert_legal, events_of, normal, run


def _outcome(events):
    [e] = events_of(events, "investigation")
    return e


# -- 10.1 ---------------------------------------------------------------------------------------


def test_10_1_investigating_needs_an_own_fairy_dispatched_to_the_case():
    """RULES 10.1: no fairy of the investigator on the case → no_fairy_on_case."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-045")
    p.fairy(0, "AF-004")  # standby
    state = p.build()
    v = assert_illegal(state, act("investigate", 0, case=case), "10.1", "no_fairy_on_case")
    assert v.params == {"player": 0, "case": case}


def test_10_1_the_opponents_fairy_on_the_case_does_not_let_the_player_investigate():
    """RULES 10.1: only one's own fairies count."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-045")
    p.fairy(1, "AF-004", on=case)
    state = p.build()
    assert_illegal(state, act("investigate", 0, case=case), "10.1", "no_fairy_on_case")


def test_10_1_a_player_may_investigate_their_own_case_or_the_opponents():
    """RULES 10.1: both are legal with an own fairy dispatched there."""
    p = Position()
    p.case(0, "AF-042")
    own = p.case(0, "AF-051")
    theirs = p.case(1, "AF-051")
    p.fairy(0, "AF-004", on=own)
    p.fairy(0, "AF-005", on=theirs)
    state = p.build()
    assert_legal(state, act("investigate", 0, case=own))
    assert_legal(state, act("investigate", 0, case=theirs))


def test_10_1_the_case_must_be_in_play():
    """RULES 10.1: a case in the trash cannot be investigated (12.3)."""
    p = Position()
    p.case(0, "AF-042")
    gone = p.trash(1, "AF-045")
    state = p.build()
    assert_illegal(state, act("investigate", 0, case=gone), "12.3", "no_such_case")


# -- 10.2 ---------------------------------------------------------------------------------------


def test_10_2_a_face_down_case_turns_face_up_on_declaration_before_the_window():
    """RULES 10.2: pay 1, the case is face up while the window is open."""
    p = Position()
    pay = p.case(0, "AF-042")
    case = p.case(1, "AF-051")  # level 8
    p.fairy(0, "AF-005", on=case)
    p.case(1, "AF-043")
    p.hand(1, "AF-071")
    state = p.build()

    after, events = apply(state, act("investigate", 0, case=case))

    assert after["pending"]["action"]["type"] == "investigate"
    assert after["players"][1]["cases"][0] == {"card": case, "face_up": True, "actioned": False}
    assert after["players"][0]["cases"] == [{"card": pay, "face_up": False, "actioned": True}]
    assert [e["type"] for e in events] == ["paid", "reveal", "window_opened"]
    assert events[1] == {"type": "reveal", "case": case, "card": "AF-051"}


def test_10_2_the_case_stays_face_up_after_a_failed_investigation():
    """RULES 10.2: level 8 against power 1: failed, and the case stays face up."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-051")
    p.fairy(0, "AF-005", on=case)
    state = p.build()
    after, events = apply(state, act("investigate", 0, case=case))
    assert _outcome(events)["outcome"] == "failed"
    assert after["players"][1]["cases"][0]["face_up"] is True


# -- 10.2.1 ---------------------------------------------------------------------------------------


def test_10_2_1_a_counter_that_removes_the_only_fairy_leaves_nothing_to_resolve():
    """RULES 10.2.1: 落とし穴 (AF-072) trashes the investigator's only fairy in the window; at resolution
    no own fairy is on the case, so nothing further happens: the evidence stays, no file is milled."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-045", actioned=True)  # level 3
    fairy = p.fairy(0, "AF-004", on=case)
    ev = p.evidence(0, "AF-023", on=case)
    p.case(1, "AF-043")
    p.case(1, "AF-044")
    pit = p.hand(1, "AF-072")
    state = p.build()
    state, _ = apply(state, act("investigate", 0, case=case))
    state, _ = apply(state, act("counter", 1, card=pit, targets=[fairy]))
    assert state["players"][0]["trash"][-1] == fairy
    before = state

    after, events = apply(state, act("pass", 1))

    expected = normal(before, applied=1)
    expected["pending"] = None
    assert after == expected
    assert after["players"][0]["evidence"] == [{"card": ev, "case": case}]
    assert _outcome(events) == {"type": "investigation", "player": 0, "case": case, "outcome": "abandoned"}


def test_10_2_1_a_counter_that_bounces_the_only_fairy_leaves_nothing_to_resolve():
    """RULES 10.2.1: a counter (test catalog PLUS, T-01: bounce a fairy on investigate) returns the
    investigator's only fairy to hand; at resolution the case has none of theirs: nothing happens —
    the evidence that would have reached level 1 alone is not counted, nothing is milled or trashed."""
    p = Position(catalog=PLUS)
    p.case(0, "AF-042")
    case = p.case(1, "AF-042", actioned=True)  # level 1, hit 1
    fairy = p.fairy(0, "AF-004", on=case)
    ev = p.evidence(0, "AF-023", on=case)
    p.case(1, "AF-043")
    bounce = p.hand(1, "T-01")
    state = p.build()
    state, _ = apply(state, act("investigate", 0, case=case))
    state, _ = apply(state, act("counter", 1, card=bounce, targets=[fairy]))
    assert state["players"][0]["hand"] == [fairy] and state["players"][0]["fairies"] == []
    before = state

    after, events = apply(state, act("pass", 1))

    expected = normal(before, applied=1)
    expected["pending"] = None
    assert after == expected
    assert after["players"][0]["evidence"] == [{"card": ev, "case": case}]
    assert after["players"][1]["cases"][0]["card"] == case
    assert _outcome(events)["outcome"] == "abandoned"


def test_10_2_1_a_bounced_only_fairy_leaves_nothing_to_resolve():
    """RULES 10.2.1: a pending investigation whose only fairy a counter bounced back to hand (a hand-built
    window): the pass changes nothing — no failure trashes the evidence, no solve mills the file."""
    p = Position()
    pay = p.case(0, "AF-042", actioned=True)
    case = p.case(1, "AF-042", face_up=True)  # level 1: the evidence alone would reach it
    bounced = p.hand(0, "AF-004")
    p.evidence(0, "AF-023", on=case)
    p.pending(act("investigate", 0, case=case, pay=[pay]))
    state = p.build()

    after, events = apply(state, act("pass", 1))

    expected = normal(state, applied=1)
    expected["pending"] = None
    assert after == expected
    assert bounced in after["players"][0]["hand"]
    assert _outcome(events)["outcome"] == "abandoned"


def test_10_2_1_another_own_fairy_still_on_the_case_keeps_the_investigation_going():
    """RULES 10.2.1: on 学園祭の怪 (two fairies each), trashing one of them leaves the other: it resolves."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-041", actioned=True)  # level 7
    a = p.fairy(0, "AF-006", on=case)  # 4
    b = p.fairy(0, "AF-004", on=case)  # 3
    p.case(1, "AF-043")
    p.case(1, "AF-044")
    pit = p.hand(1, "AF-072")
    state = p.build()
    after, events = run(
        state, act("investigate", 0, case=case), act("counter", 1, card=pit, targets=[a]), act("pass", 1)
    )
    assert _outcome(events)["outcome"] == "failed"  # 3 < 7: b worked the case and is trashed
    assert b in after["players"][0]["trash"]


# -- 10.3 ---------------------------------------------------------------------------------------


def test_10_3_power_is_own_fairies_plus_own_evidence():
    """RULES 10.3: fairy 2 + evidence 2 = 4 solves 理科室の異臭 (AF-047, level 4)."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-047")
    p.fairy(0, "AF-002", on=case)
    p.evidence(0, "AF-023", on=case)
    state = p.build()
    _, events = apply(state, act("investigate", 0, case=case))
    assert _outcome(events)["power"] == 4 and _outcome(events)["outcome"] == "solved"


def test_10_3_the_opponents_cards_on_the_case_never_count():
    """RULES 10.3: player 1's power-4 fairy and power-2 evidence on the case add nothing to player 0's 3."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-047")  # level 4
    p.fairy(0, "AF-002", on=case)  # 2
    p.evidence(0, "AF-022", on=case)  # 1
    p.fairy(1, "AF-006", on=case)
    p.evidence(1, "AF-023", on=case)
    state = p.build()
    _, events = apply(state, act("investigate", 0, case=case))
    assert (_outcome(events)["power"], _outcome(events)["outcome"]) == (3, "failed")


def test_10_3_until_end_of_turn_modifiers_count():
    """RULES 10.3: 物知りの妖精 (1) with its +2 reaches level 3."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-045")  # level 3
    wise = p.fairy(0, "AF-008", on=case)
    state = p.build()
    _after, events = run(
        state, act("use_ability", 0, card=wise, ability=0, targets=[]), act("investigate", 0, case=case)
    )
    assert (_outcome(events)["power"], _outcome(events)["outcome"]) == (3, "solved")


def test_10_3_a_counters_investigation_power_counts():
    """RULES 10.3: 目くらまし (−2) turns power 3 against level 3 into a failure."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-045", actioned=True)
    fairy = p.fairy(0, "AF-004", on=case)
    p.case(1, "AF-043")
    smoke = p.hand(1, "AF-071")
    state = p.build()
    after, events = run(
        state, act("investigate", 0, case=case), act("counter", 1, card=smoke, targets=[]), act("pass", 1)
    )
    assert (_outcome(events)["power"], _outcome(events)["outcome"]) == (1, "failed")
    assert fairy in after["players"][0]["trash"]


# -- 10.4 ---------------------------------------------------------------------------------------


def test_10_4_a_failed_investigation_trashes_the_investigators_fairies_and_evidence_only():
    """RULES 10.4: power 2 < level 8: player 0's fairy and evidence on the case go to player 0's trash;
    player 1's cards on it stay; the case stays (face up); nothing else happens."""
    p = Position()
    pay = p.case(0, "AF-042")
    case = p.case(1, "AF-051")  # level 8
    elsewhere = p.case(1, "AF-043")
    mine = p.fairy(0, "AF-005", on=case)
    mine_ev = p.evidence(0, "AF-022", on=case)
    safe = p.fairy(0, "AF-004", on=elsewhere)
    theirs = p.fairy(1, "AF-006", on=case)
    their_ev = p.evidence(1, "AF-023", on=case)
    state = p.build()

    after, _ = apply(state, act("investigate", 0, case=case))

    expected = normal(state, applied=1)
    expected["players"][0]["cases"] = [{"card": pay, "face_up": False, "actioned": True}]
    expected["players"][0]["fairies"] = [{"card": safe, "case": elsewhere}]
    expected["players"][0]["evidence"] = []
    expected["players"][0]["trash"] += [mine_ev, mine]
    expected["players"][1]["cases"][0]["face_up"] = True
    assert after == expected
    assert after["players"][1]["fairies"] == [{"card": theirs, "case": case}]
    assert after["players"][1]["evidence"] == [{"card": their_ev, "case": case}]


# -- 10.5 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cid",
    [
        "AF-040",  # level 4, needs 1 own evidence: none there
        "AF-041",  # level 7, needs 2 own fairies: one there
        "AF-048",  # level 5, needs an own 南の妖精: 妖精天国の使者 there
        "AF-049",  # level 5, needs an own 手帳: other evidence there
    ],
)
def test_10_5_enough_power_but_a_failed_requirement_changes_nothing(cid):
    """RULES 10.5: power ≥ level, a requirement fails: the case stays face up, every card stays."""
    p = Position()
    pay = p.case(0, "AF-042")
    case = p.case(1, cid)
    p.fairy(0, "AF-006", on=case)  # 4
    if cid in ("AF-041", "AF-048", "AF-049"):
        p.evidence(0, "AF-023", on=case)  # 2
        p.evidence(0, "AF-024", on=case)  # 1 → 7 in all
    state = p.build()

    after, events = apply(state, act("investigate", 0, case=case))

    assert _outcome(events)["outcome"] == "continues"
    assert _outcome(events)["power"] >= _outcome(events)["level"]
    expected = normal(state, applied=1)
    expected["players"][0]["cases"] = [{"card": pay, "face_up": False, "actioned": True}]
    expected["players"][1]["cases"][0]["face_up"] = True
    assert after == expected


def test_10_5_the_requirement_counts_the_investigators_cards_only():
    """RULES 10.5: 消えた上履き (AF-040) needs the investigator's own evidence: player 1's does not do."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-040")  # level 4
    p.fairy(0, "AF-006", on=case)  # 4
    p.evidence(1, "AF-023", on=case)
    state = p.build()
    _, events = apply(state, act("investigate", 0, case=case))
    assert _outcome(events)["outcome"] == "continues"


# -- 10.6 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cid, fairies, evidence",
    [
        ("AF-040", ["AF-006"], ["AF-022"]),  # evidence_at_least 1 (level 4)
        ("AF-041", ["AF-006", "AF-004"], []),  # fairies_at_least 2 (level 7)
        ("AF-048", ["AF-002"], ["AF-023", "AF-022"]),  # fairy_named 南の妖精 (level 5)
        ("AF-049", ["AF-006"], ["AF-020"]),  # evidence_named 手帳 (level 5)
        ("AF-042", ["AF-005"], []),  # no requirement (level 1)
    ],
)
def test_10_6_power_at_least_the_level_and_every_requirement_holds_solves_the_case(cid, fairies, evidence):
    """RULES 10.6: each kind of requirement, met: the case is solved."""
    p = Position()
    p.case(0, "AF-043")
    case = p.case(1, cid)
    for f in fairies:
        p.fairy(0, f, on=case)
    for e in evidence:
        p.evidence(0, e, on=case)
    state = p.build()

    after, events = apply(state, act("investigate", 0, case=case))

    assert _outcome(events)["outcome"] == "solved"
    assert events_of(events, "solved") == [{"type": "solved", "case": case, "by": 0, "hit": CAT[cid].hit}]
    assert case not in [c["card"] for c in after["players"][1]["cases"]]


def test_10_6_1_the_investigators_opponent_trashes_hit_cards_from_the_top_of_their_file():
    """RULES 10.6.1: 密室の謎 (AF-053, hit 3) solved by player 0 on their own case: player 1 trashes 3."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(0, "AF-053")  # level 4, hit 3
    p.fairy(0, "AF-006", on=case)
    top = p.file(1, "AF-051", "AF-050", "AF-049", "AF-048")
    state = p.build()

    after, events = apply(state, act("investigate", 0, case=case))

    assert after["players"][1]["trash"] == state["players"][1]["trash"] + top[:3]
    assert after["players"][1]["file"] == state["players"][1]["file"][3:]
    assert after["players"][0]["file"] == state["players"][0]["file"]
    assert events_of(events, "mill") == [{"type": "mill", "player": 1, "cards": 3}]


def test_10_6_1_with_fewer_cards_than_the_hit_the_whole_file_is_trashed_and_the_game_goes_on():
    """RULES 10.6.1: hit 5 against 2 cards: both are trashed; not yet a loss (11.4)."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-051")  # level 8, hit 5
    p.fairy(0, "AF-006", on=case)
    p.evidence(0, "AF-023", on=case)
    p.evidence(0, "AF-021", on=case)  # power 4 + 2 + 2 = 8
    p.file_size(1, 2)
    state = p.build()

    after, events = apply(state, act("investigate", 0, case=case))

    assert _outcome(events)["outcome"] == "solved"
    assert after["players"][1]["file"] == [] and after["phase"] == "turn" and after["result"] is None
    assert events_of(events, "mill") == [{"type": "mill", "player": 1, "cards": 2}]


def test_10_6_2_the_solved_case_goes_to_its_owners_trash_with_every_evidence_on_it():
    """RULES 10.6.2: player 0 solves player 1's case: the case and player 1's evidence go to player 1's
    trash, player 0's evidence to player 0's."""
    p = Position()
    p.case(0, "AF-042")
    case = p.case(1, "AF-045", face_up=True)  # level 3, hit 2
    p.fairy(0, "AF-004", on=case)
    mine = p.evidence(0, "AF-022", on=case)
    theirs = p.evidence(1, "AF-026", on=case)
    state = p.build()

    after, _ = apply(state, act("investigate", 0, case=case))

    assert after["players"][1]["cases"] == []
    assert after["players"][1]["trash"][-2:] == [case, theirs]
    assert after["players"][0]["trash"][-1:] == [mine]
    assert after["players"][0]["evidence"] == after["players"][1]["evidence"] == []


def test_10_6_3_every_fairy_dispatched_to_the_solved_case_becomes_standby():
    """RULES 10.6.3: both players' fairies on it become standby and stay on the field."""
    p = Position()
    pay = p.case(0, "AF-042")
    case = p.case(1, "AF-045")
    mine = p.fairy(0, "AF-004", on=case)
    theirs = p.fairy(1, "AF-006", on=case)
    state = p.build()

    after, _ = apply(state, act("investigate", 0, case=case))

    expected = normal(state, applied=1)
    expected["players"][0]["cases"] = [{"card": pay, "face_up": False, "actioned": True}]
    expected["players"][0]["fairies"] = [{"card": mine, "case": None}]
    expected["players"][1]["fairies"] = [{"card": theirs, "case": None}]
    expected["players"][1]["cases"] = []
    milled = state["players"][1]["file"][:2]
    expected["players"][1]["file"] = state["players"][1]["file"][2:]
    expected["players"][1]["trash"] = state["players"][1]["trash"] + milled + [case]
    assert after == expected
