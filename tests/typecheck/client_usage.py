"""What a type checker sees of ``referee.client`` (checked by tests/test_client_types.py, never run).

The package ships ``py.typed``, so these are the types our users' checkers infer:
each endpoint's result, plain from the blocking client and a private game,
awaitable from the async ones; and a state's, a view's, an action's and an event's keys
(``referee.client.types``), so a key the referee never sends is an error in a user's program.
"""

from __future__ import annotations

from typing import Any, assert_type

from referee.client import (
    ActionDict,
    AsyncPrivateGame,
    AsyncRefereeClient,
    AsyncSpectator,
    EventDict,
    Latest,
    PrivateDeal,
    PrivateGame,
    PrivateReplayed,
    PrivateStep,
    RefereeClient,
    RefereeRuleViolation,
    Replayed,
    Spectator,
    StateDict,
    Step,
    ViewDict,
)
from referee.client.types import PendingDict

State = dict[str, Any]


def blocking(ref: RefereeClient, game: PrivateGame, state: State, action: State) -> None:
    assert_type(ref.new_game({"decks": []}), Step)
    assert_type(ref.apply(state, action), Step)
    assert_type(ref.validate(state, action), RefereeRuleViolation | None)
    assert_type(ref.legal_actions(state, 0), list[ActionDict])
    assert_type(ref.replay([action], state=state), Replayed)
    assert_type(ref.replay(record="[Catalog ...]"), Replayed)
    assert_type(ref.record([action], game=state, player=0), str)
    assert_type(ref.private_record("afs1.token", ["afk1.a", "afk1.b"], [action], player=None), str)
    assert_type(ref.ready(), bool)
    assert_type(ref.new_private_game({"decks": []}), PrivateDeal)
    assert_type(game.apply(action), PrivateStep)
    assert_type(game.receive("afs1.token"), ViewDict)
    assert_type(game.legal_actions(), list[ActionDict])
    assert_type(game.validate(action), RefereeRuleViolation | None)
    assert_type(game.reveal("afk1.seat"), StateDict)
    assert_type(ref.private_replay("afs1.token", ["afk1.a", "afk1.b"], [action]), PrivateReplayed)
    assert_type(game.latest(), Latest)
    assert_type(ref.latest("g-1", "afk1.seat"), Latest)
    assert_type(Spectator(ref, "g-1", "afk1.watch").latest(), Latest)


def keys(ref: RefereeClient, state: State, action: State) -> None:
    step = ref.apply(state, action)
    assert_type(step.state["players"][0]["hand"], list[str])
    assert_type(step.state["pending"], PendingDict | None)
    assert_type(ref.view(step.state, 0)["players"][1]["file"], int)  # a view counts a file
    event: EventDict = step.events[0]
    if event["type"] == "draw":
        assert_type(event["cards"], int)  # how many, never which
    elif event["type"] == "discard":
        assert_type(event["cards"], list[str])
    for listed in ref.legal_actions(step.state):
        assert_type(listed["type"], str)


def violation(v: RefereeRuleViolation) -> None:
    assert_type(v.rule, str)  # a 422 always names its rule (docs/api.md §7)


async def awaited(ref: AsyncRefereeClient, game: AsyncPrivateGame, state: State, action: State) -> None:
    assert_type(await ref.apply(state, action), Step)
    assert_type(await ref.legal_actions(state), list[ActionDict])
    assert_type(await ref.record(record="[Catalog ...]"), str)
    assert_type(await ref.private_apply("afs1.token", "afk1.seat", action), PrivateStep)
    assert_type(await game.apply(action), PrivateStep)
    assert_type(await game.receive("afs1.token"), ViewDict)
    assert_type(await AsyncPrivateGame.join(ref, "afs1.token", "afk1.seat"), AsyncPrivateGame)
    assert_type(await game.latest(), Latest)
    assert_type(await AsyncSpectator(ref, "g-1", "afk1.watch").latest(), Latest)
