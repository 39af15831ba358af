"""Invariants over random play (hypothesis): RULES 13.1–13.3 and docs/api.md §5, §9.

A stateful machine deals a random game and then interleaves legal actions
(drawn from ``legal_actions``) with arbitrary, mostly illegal ones.
"""

from __future__ import annotations

import copy

import orjson
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from referee.engine import (
    Catalog,
    RuleViolation,
    apply,
    check_state,
    legal_actions,
    new_game,
    replay,
    validate,
    view,
)
from referee.engine.model import ACTION_FIELDS, ACTION_TYPES
from referee.engine.playout import play_out, random_new_game

CATALOG = Catalog.builtin()


def canonical(obj) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def hidden_from(state: dict, viewer: int) -> set[str]:
    """The instances ``viewer`` must not be told about (RULES 4.1, 4.4): files, the opponent's hand
    and face-down cases, unless a pending action shows its card."""
    opp = state["players"][1 - viewer]
    hidden = set(opp["hand"]) | {c["card"] for c in opp["cases"] if not c["face_up"]}
    for pl in state["players"]:
        hidden |= set(pl["file"])
    pen = state["pending"]
    if pen and pen["action"]["type"] != "play_case" and "card" in pen["action"]:
        hidden.discard(pen["action"]["card"])
    return hidden


def same_action(listed: dict, tried: dict) -> bool:
    """``tried`` is ``listed`` up to ``pay`` and, for discards, the choice of cards (docs/api.md §6)."""
    a = {k: v for k, v in tried.items() if k != "pay"}
    if a["type"] == "discard":
        return listed["type"] == "discard" and listed["player"] == a["player"]
    return listed == a


@st.composite
def arbitrary_actions(draw, state):
    ids = sorted(state["cards"]) + ["nope"]
    kind = draw(st.sampled_from(ACTION_TYPES))
    action = {"type": kind, "player": draw(st.sampled_from([0, 1]))}
    for name in ACTION_FIELDS[kind]:
        if name == "ability":
            action[name] = draw(st.integers(0, 2))
        elif name in ("targets", "cards"):
            action[name] = draw(st.lists(st.sampled_from(ids), max_size=3))
        else:
            action[name] = draw(st.sampled_from(ids))
    if draw(st.booleans()):
        cases = [c["card"] for pl in state["players"] for c in pl["cases"]] + ["nope"]
        action["pay"] = draw(st.lists(st.sampled_from(cases), max_size=2))
    return action


class RandomPlay(RuleBasedStateMachine):
    @initialize(seed=st.text(min_size=1, max_size=12), mode=st.sampled_from(["auto", "strict"]))
    def deal(self, seed, mode):
        game = random_new_game(CATALOG, seed, options={"response_windows": mode})
        self.state, _ = new_game(CATALOG, game)
        again, _ = new_game(CATALOG, game)
        assert canonical(again) == canonical(self.state)  # RULES 13.2 / docs/api.md §9

    @rule(data=st.data())
    def a_listed_action_applies(self, data):
        actions = legal_actions(CATALOG, self.state)
        if not actions:
            assert self.state["phase"] == "over"
            return
        non_concede = [a for a in actions if a["type"] != "concede"] or actions
        action = data.draw(st.sampled_from(non_concede))
        assert validate(CATALOG, self.state, action) is None
        before = canonical(self.state)
        nxt, events = apply(CATALOG, self.state, action)
        assert canonical(self.state) == before, "apply mutated its input"
        again, _ = apply(CATALOG, self.state, action)
        assert canonical(again) == canonical(nxt), "same state and action, different answer"
        assert isinstance(events, list)
        self.state = nxt

    @rule(data=st.data())
    def an_arbitrary_action_is_refused_or_listed(self, data):
        action = data.draw(arbitrary_actions(self.state))
        snapshot = copy.deepcopy(self.state)
        violation = validate(CATALOG, self.state, action)
        if violation is not None:
            with pytest.raises(RuleViolation) as refused:
                apply(CATALOG, self.state, action)
            assert (refused.value.rule, refused.value.code) == (violation.rule, violation.code)
            assert refused.value.rule  # every refusal names a rule id
            assert self.state == snapshot, "an illegal action changed the state"
            return
        if "pay" not in action:  # pay is never listed; a legal action without it must be
            listed = legal_actions(CATALOG, self.state, action["player"])
            assert any(same_action(a, action) for a in listed), f"legal but not listed: {action}"
        self.state, _ = apply(CATALOG, self.state, action)

    @invariant()
    def cards_are_conserved_and_consistent(self):
        if hasattr(self, "state"):
            check_state(CATALOG, self.state)  # RULES 13.1: raises if anything is off

    @invariant()
    def json_round_trip_is_identity(self):
        if hasattr(self, "state"):
            assert orjson.loads(orjson.dumps(self.state)) == self.state

    @invariant()
    def views_hide_what_they_must(self):
        if not hasattr(self, "state"):
            return
        for viewer in (0, 1):
            v = view(CATALOG, self.state, viewer)
            assert "seed" not in v and "rng" not in v
            assert all(isinstance(p["file"], int) for p in v["players"])
            leaked = set(v["cards"]) & hidden_from(self.state, viewer)
            assert not leaked, f"view for {viewer} leaks {leaked}"
            text = orjson.dumps(v).decode()
            for iid in hidden_from(self.state, viewer):
                assert f'"{iid}":"' not in text


RandomPlay.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestRandomPlay = RandomPlay.TestCase


@pytest.mark.parametrize("mode", ["auto", "strict"])
def test_every_random_game_ends(mode):
    """RULES 11.1/11.4: random legal play always ends, by deck-out or concession, and replays exactly."""
    for n in range(40):
        game, final, actions = play_out(CATALOG, f"end-{mode}-{n}", options={"response_windows": mode})
        assert final["phase"] == "over", f"game {n} did not end in {len(actions)} actions"
        assert final["result"]["reason"] in ("deck_out", "concede")
        replayed, applied = replay(CATALOG, actions, game=game)
        assert applied == len(actions)
        assert canonical(replayed) == canonical(final)
