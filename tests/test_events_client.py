"""The Python client's event calls (``pair``, ``standings``, ``check_event``) against the real app."""

from __future__ import annotations

import copy

import pytest
from test_client import make_client

from referee.client import RefereeRuleViolation
from referee.service.openapi import EVENT_EXAMPLE


@pytest.fixture(scope="module")
def ref():
    with make_client() as client:
        yield client


def test_an_event_played_through_the_client(ref) -> None:
    event = copy.deepcopy(EVENT_EXAMPLE["event"])
    assert ref.check_event(event) is True
    paired = ref.pair(event)
    assert paired["round"] == 2
    event = paired["event"]
    for pairing in event["rounds"][-1]["pairings"]:
        pairing["result"] = {"games": [2, 0]}
    table = ref.standings(event)
    assert table["winner"] == table["standings"][0]["player"]  # two Swiss rounds for four players, no cut
    with pytest.raises(RefereeRuleViolation) as over:
        ref.pair(event)
    assert (over.value.rule, over.value.code) == ("15.6", "event_over")


def test_a_refusal_names_its_round_and_table(ref) -> None:
    event = copy.deepcopy(EVENT_EXAMPLE["event"])
    event["rounds"].append({"pairings": [{"players": ["ren", "aoi"]}, {"players": ["kai", "mio"]}]})
    with pytest.raises(RefereeRuleViolation) as refused:
        ref.check_event(event)
    assert (refused.value.rule, refused.value.code, refused.value.round, refused.value.table) == (
        "15.5",
        "rematch",
        2,
        1,
    )
