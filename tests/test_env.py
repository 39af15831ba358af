"""referee.bots.env: PettingZoo's own API, seed and render tests pass with each option; a seeded reset replays;
each agent observes only its own seat; the extra's absence is one clear line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, render_test, seed_test

import referee
from referee.bots.env import env

OPTIONS = [
    {},
    {"allow_concede": True},
    {"response_windows": "auto"},
    {"max_actions": 40},
    {"infostate": True},
    {"infostate": True, "response_windows": "auto", "allow_concede": True},
]
BUILTIN_PATH = Path(referee.__file__).parent / "data" / "af-ref.yaml"


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
def test_pettingzoos_api_seed_and_render_tests_pass(options):
    api_test(env(seed=3, **options), num_cycles=300)
    seed_test(lambda **kw: env(**options, **kw), num_cycles=200)
    render_test(lambda **kw: env(**options, **kw))


def play(e, seed, steps=200):
    """Play the first legal index each time; the observations and rewards on the way."""
    e.reset(seed=seed)
    trail = []
    for agent in e.agent_iter(steps):
        obs, reward, term, trunc, _ = e.last()
        trail.append((agent, *(v.tobytes() for v in obs.values()), reward))
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    return trail


def test_a_seeded_reset_is_reproducible():
    assert play(env(), 11) == play(env(), 11)
    assert play(env(), 11) != play(env(), 12)
    assert play(env(infostate=True), 11) == play(env(infostate=True), 11)


def test_the_mask_is_the_referees_legal_actions_and_an_unmasked_index_is_refused():
    e = env(seed=5)
    e.reset(seed=5)
    obs, *_ = e.last()
    legal = e.infos[e.agent_selection]["legal"]
    assert set(np.flatnonzero(obs["action_mask"])) == set(legal)
    assert {a["type"] for a in legal.values()} == {"mulligan", "keep"}  # concede is off by default
    with pytest.raises(ValueError, match="not legal"):
        e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


def test_allow_concede_puts_concede_in_the_mask():
    e = env(seed=5, allow_concede=True)
    e.reset(seed=5)
    assert {a["type"] for a in e.infos[e.agent_selection]["legal"].values()} == {"mulligan", "keep", "concede"}


def test_max_actions_truncates_the_game_for_both():
    e, rng = env(seed=2, max_actions=30), np.random.default_rng(0)
    e.reset(seed=2)
    truncated = set()
    for agent in e.agent_iter(100):
        obs, _, term, trunc, _ = e.last()
        assert not term
        truncated |= {agent} if trunc else set()
        e.step(None if trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert truncated == {"player_0", "player_1"} and e.steps == 30


def test_the_catalog_may_be_a_path_and_anything_else_is_a_clear_error():
    assert env(catalog=BUILTIN_PATH).catalog.digest == env().catalog.digest
    assert env(catalog=str(BUILTIN_PATH)).catalog.digest == env().catalog.digest
    with pytest.raises(TypeError, match=r"a referee\.engine\.Catalog or the path of a catalog file"):
        env(catalog=42)
    with pytest.raises(ValueError, match="response_windows"):
        env(response_windows="sometimes")


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


def test_observe_never_changes_with_the_cards_the_seat_cannot_see():
    """The opponent's hand and file dealt otherwise (and the seat's own file reordered): the seat's observation
    and information state are the same; state() (which sees everything) is not."""
    e, rng = env(seed=4, infostate=True), np.random.default_rng(4)
    e.reset(seed=4)
    for _ in e.agent_iter(120):
        e.step(int(rng.choice(np.flatnonzero(e.last()[0]["action_mask"]))))
    assert not e.session.over
    seat = 0
    before = {k: v.copy() for k, v in e.observe("player_0").items()}
    central = e.state().copy()
    s = e.session.state
    opp = s["players"][1 - seat]
    hidden = list(opp["hand"]) + list(opp["file"])
    ids = [s["cards"][i] for i in hidden]
    for iid, cid in zip(hidden, ids[1:] + ids[:1], strict=True):
        s["cards"][iid] = cid
    s["players"][seat]["file"].reverse()
    e._views = {}
    after = e.observe("player_0")
    assert all(np.array_equal(before[k], after[k]) for k in before)
    assert not np.array_equal(central, e.state())


@pytest.mark.parametrize("module", ["referee.env", "referee.bots.env"])
def test_without_the_extra_the_import_says_which_extra_to_install(module):
    code = f"import sys; sys.modules['numpy'] = None; import referee.bots, referee.bots.suggest; import {module}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 1
    last = out.stderr.strip().splitlines()[-1]
    assert "pip install -e '.[bots]'" in last and "numpy" in last
