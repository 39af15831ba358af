"""The observation and the information state (referee/bots/encoding.py) hold what docs/bots.md's layout says,
block by block.

Each position is read back from the seat's view the plain way (one item at a time), over random play on two
catalogs, from both seats, and must equal the vector the encoder wrote.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numpy")

import numpy as np

from referee.bots.encoding import (
    CARD_KEYS,
    CASE_FEATURES,
    CASE_SLOTS_PER_PLAYER,
    EVENT_TYPES,
    PER_CARD,
    RECENT_EVENTS,
    SCALARS,
    InfoState,
    Observation,
)
from referee.engine import Catalog, Session
from referee.engine.facts import Phase, Step
from referee.engine.model import RESPONDABLE
from referee.engine.playout import random_new_game
from tests.test_action_space import CATALOGS


def expected(enc: Observation, catalog: Catalog, view: dict) -> np.ndarray:
    """The vector the layout describes, written one item at a time from the view."""
    seat, cards = view["viewer"], view["cards"]
    me, opp = view["players"][seat], view["players"][1 - seat]
    pending = view["pending"]
    v = np.zeros(enc.size, dtype=np.float32)
    v[0] = view["turn"] / 50
    v[1 + list(Phase).index(view["phase"])] = 1
    v[4 + list(Step).index(view["step"])] = 1
    v[8], v[9], v[10] = view["active"] == seat, view["first_player"] == seat, view["case_played"]
    v[11] = pending is not None
    v[12] = pending is not None and pending["responder"] == seat
    v[13], v[14], v[15], v[16] = me["file"] / 40, opp["file"] / 40, len(me["hand"]) / 10, len(opp["hand"]) / 10
    if pending is not None and pending["action"]["type"] in RESPONDABLE:
        v[SCALARS + RESPONDABLE.index(pending["action"]["type"])] = 1
    on_field = [[e["card"] for zone in ("cases", "fairies", "evidence") for e in pl[zone]] for pl in (me, opp)]
    blocks = (me["hand"], me["trash"], opp["trash"], *on_field)
    start = SCALARS + len(RESPONDABLE)
    for b, iids in enumerate(blocks):
        for iid in iids:
            if iid in cards:
                v[start + b * enc.c + enc.card_ids.index(cards[iid])] += 1
    bonus = {}
    for m in view["modifiers"]:
        bonus[m["card"]] = bonus.get(m["card"], 0) + m["power"]
    slots = start + len(PER_CARD) * enc.c
    for k, pl in enumerate((me, opp)):
        for j, case in enumerate(pl["cases"][:CASE_SLOTS_PER_PLAYER]):
            iid = case["card"]
            mine = [e["card"] for zone in ("fairies", "evidence") for e in me[zone] if e["case"] == iid]
            power = sum(catalog[cards[c]].power + bonus.get(c, 0) for c in mine)
            o = slots + (k * CASE_SLOTS_PER_PLAYER + j) * CASE_FEATURES
            v[o : o + CASE_FEATURES] = (
                1,
                case["face_up"],
                case["actioned"],
                catalog[cards[iid]].level / 10 if iid in cards else 0,
                sum(f["case"] == iid for f in me["fairies"]),
                power / 10,
            )
    return v


@pytest.mark.parametrize("name", sorted(CATALOGS))
def test_every_position_of_the_observation_is_what_the_layout_says(name):
    catalog = CATALOGS[name]
    enc, rng = Observation(catalog), random.Random(name)
    seen_pending = seen_face_down = False
    for game in range(4):
        new_game = random_new_game(catalog, f"layout-{game}", options={"response_windows": "strict"})
        session, _ = Session.new(catalog, new_game)
        while not session.over:
            for seat in (0, 1):
                view = session.view(seat)
                assert np.array_equal(enc.encode(view), expected(enc, catalog, view)), (game, seat, view["seq"])
                seen_pending |= view["pending"] is not None
                seen_face_down |= any(e["card"] not in view["cards"] for e in view["players"][1 - seat]["cases"])
            listed = session.legal_actions(session.board.who_acts())
            session.apply(rng.choice([a for a in listed if a["type"] != "concede"] or listed))
    assert seen_pending and seen_face_down  # the games went through windows and hidden cases


def expected_infostate(
    info: InfoState, observation: np.ndarray, seat: int, seen: dict, told, known: dict
) -> np.ndarray:
    """The information state its layout describes: the observation, the opponent's cards seen / 3, the events."""
    v = np.zeros(info.size, dtype=np.float32)
    v[: info.view.size] = observation
    for cid in seen.values():
        v[info.view.size + info.view.card_ids.index(cid)] += 1 / 3
    start = info.view.size + info.c
    for k, event in enumerate(list(told)[:RECENT_EVENTS]):
        o = start + k * info.per_event
        if event["type"] in EVENT_TYPES:
            v[o + EVENT_TYPES.index(event["type"])] = 1
        if event.get("player") in (0, 1):
            v[o + len(EVENT_TYPES) + (event["player"] != seat)] = 1
        named = [known[event[key]] for key in CARD_KEYS if isinstance(event.get(key), str) and event[key] in known]
        if named:
            v[o + len(EVENT_TYPES) + 2 + info.view.card_ids.index(named[0])] = 1
    return v


@pytest.mark.parametrize("name", sorted(CATALOGS))
def test_every_position_of_the_information_state_is_what_the_layout_says(name):
    pytest.importorskip("pettingzoo")
    from referee.bots.env import env

    e, rng = env(catalog=CATALOGS[name], seed=3, infostate=True), random.Random(name)
    checked = 0
    for game in range(3):
        e.reset(seed=game)
        for agent in e.agent_iter():
            obs, _, term, trunc, info = e.last()
            seat = int(agent[-1])
            want = expected_infostate(
                e.info_encoder, obs["observation"], seat, e.opponent_seen[seat], e.told[seat], e.known[seat]
            )
            assert np.array_equal(obs["infostate"], want), (game, e.steps)
            checked += 1
            e.step(None if term or trunc else rng.choice(list(info["legal"])))
    assert checked > 300
