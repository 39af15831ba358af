"""referee.env: the PettingZoo AEC environment passes PettingZoo's own API test, replays a seed, and shows
each agent only its own seat."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test

from referee.env import env


def test_pettingzoos_api_test_passes():
    api_test(env(seed=3), num_cycles=300)


def play(e, seed, steps=200):
    """Play the first legal index each time; the observations and rewards on the way."""
    e.reset(seed=seed)
    trail = []
    for agent in e.agent_iter(steps):
        obs, reward, term, trunc, _ = e.last()
        trail.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward))
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    return trail


def test_a_seeded_reset_is_reproducible():
    assert play(env(), 11) == play(env(), 11)
    assert play(env(), 11) != play(env(), 12)


def test_the_mask_is_the_referees_legal_actions_and_an_unmasked_index_is_refused():
    e = env(seed=5)
    e.reset(seed=5)
    obs, *_ = e.last()
    legal = e.infos[e.agent_selection]["legal"]
    assert set(np.flatnonzero(obs["action_mask"])) == set(legal)
    assert {a["type"] for a in legal.values()} == {"mulligan", "keep", "concede"}
    with pytest.raises(ValueError, match="not legal"):
        e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


def test_an_agent_observes_only_its_own_seat():
    e = env(seed=8)
    e.reset(seed=8)
    hand_block = e.encoder.layout()[2]
    mine = e.observe("player_0")["observation"][hand_block[0] : hand_block[1]]
    theirs = e.observe("player_1")["observation"][hand_block[0] : hand_block[1]]
    state = e.session.state
    assert mine.sum() == len(state["players"][0]["hand"]) and theirs.sum() == len(state["players"][1]["hand"])
    text = e.render()
    assert "you are player 0" in text and text.count("hand:") == 1  # the opponent's hand is a count
