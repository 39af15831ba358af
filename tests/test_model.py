"""The model is the one description of the state: docs/state.md and the facts agree with it.

Given the msgspec model (``referee/engine/model.py``), the state table of
docs/state.md is rendered from it (field, type, default; ``model_doc.py``),
its Player and Pending paragraphs name every field, and a player index is
checked once (``facts.Player``) everywhere.
"""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest
import state_doc

from referee.engine import Catalog, InvalidInput, legal_actions, new_game, validate, view
from referee.engine.facts import Outcome, Player, Reason
from referee.engine.model import Pending, PlayerState, State

STATE_MD = (Path(__file__).parent.parent / "docs" / "state.md").read_text(encoding="utf-8")
CATALOG = Catalog.builtin()


def test_the_state_table_is_rendered_from_the_model():
    """Field, type and default of each row come from the model (``make state-doc`` rewrites them)."""
    assert state_doc.rendered(STATE_MD) == STATE_MD, "docs/state.md's state table drifted: run `make state-doc`"
    rows = state_doc.meanings(state_doc.split(STATE_MD)[1])
    assert list(rows) == [f.encode_name for f in msgspec.structs.fields(State)]


@pytest.mark.parametrize("struct, heading", [(PlayerState, "Player:"), (Pending, "Pending:")])
def test_the_player_and_pending_paragraphs_name_every_field(struct, heading):
    paragraph = STATE_MD.split("\n" + heading, 1)[1].split("\n\n", 1)[0]
    assert {f.encode_name for f in msgspec.structs.fields(struct)} <= set(re.findall(r"`(\w+)`", paragraph))


@pytest.fixture(scope="module")
def fresh_state(new_game_body):
    return new_game(CATALOG, new_game_body)[0]


@pytest.mark.parametrize("bad", [1.0, True, 2, -1, "1"])
@pytest.mark.parametrize("query", [view, legal_actions])
def test_a_player_that_is_not_0_or_1_is_refused_by_every_query(query, bad, fresh_state):
    with pytest.raises(InvalidInput) as caught:
        query(CATALOG, fresh_state, bad)
    assert caught.value.errors == {"player": ["must be 0 or 1"]}


def test_view_with_no_player_is_the_spectators(fresh_state):
    """docs/api.md §12: None is a spectator, who sees only what both players may know."""
    spectator = view(CATALOG, fresh_state, None)
    assert spectator["viewer"] is None
    assert set(spectator["cards"]) == set(view(CATALOG, fresh_state, 0)["cards"]) & set(
        view(CATALOG, fresh_state, 1)["cards"]
    )


def test_an_action_by_a_float_player_is_a_schema_error(fresh_state):
    with pytest.raises(InvalidInput) as caught:
        validate(CATALOG, fresh_state, {"type": "keep", "player": 1.0})
    assert caught.value.errors == {"action.player": ["must be 0 or 1"]}


def test_player_check_takes_exactly_0_and_1():
    assert [Player.is_valid(v) for v in (0, 1, 1.0, True, 2)] == [True, True, False, False, False]


def test_an_outcome_is_serialised_as_the_state_result():
    assert Outcome(Reason.CONCEDE, 1).json() == {"winner": 1, "reason": "concede"}


def test_the_position_builders_build_from_the_model(fresh_state):
    """setup.new_game, the rules tests' Position and scenario positions all lay a state out as the model does."""
    from rules.positions import Position

    from referee.scenarios.build import build_position

    order = [f for f in State.__struct_fields__ if f not in ("seal", "game_id", "watch_delay")]  # optional, no default
    player_order = list(PlayerState.__struct_fields__)
    built = [fresh_state, Position().build(), build_position(CATALOG, {})]
    for state in built:
        assert list(state) == order
        assert [list(p) for p in state["players"]] == [player_order, player_order]


def test_a_refused_replay_carries_the_position_it_was_refused_in():
    """ReplayError.state is the state the refused action met (what the service names players and cards
    from), the actions before it applied: no second replay is needed to find it."""
    from referee.engine import ReplayError, replay
    from referee.engine.playout import play_out

    game, _, actions = play_out(CATALOG, "refused-replay")
    before, _ = replay(CATALOG, actions[:7], game=game)
    stranger = {"type": "investigate", "player": 0, "case": "zz-stranger"}  # no such card: never legal
    with pytest.raises(ReplayError) as caught:
        replay(CATALOG, [*actions[:7], stranger], game=game)
    assert caught.value.index == 7 and caught.value.state == before
