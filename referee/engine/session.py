"""The engine's public session: one game, checked once, then acted on.

A :class:`Session` holds a working state that passed RULES 13.1 (or was
dealt by RULES 5) and applies actions to it through the pipeline of
``pipeline.py``; a refused action changes nothing. Results are immutable
(:class:`Applied`: the events as a tuple); :meth:`Session.snapshot` gives a
copy of the state to keep. The service's endpoints, ``referee check``'s
in-process backend, ``referee record`` and the random player all go through
it, so a game played any of these ways is played the same way.

>>> from referee.engine.playout import random_new_game
>>> session, dealt = Session.new(Catalog.builtin(), random_new_game(Catalog.builtin(), "doc"))
>>> session.apply({"type": "keep", "player": session.state["active"]}).events[0]["type"]
'keep'
>>> session.apply({"type": "draw", "player": 0})
Traceback (most recent call last):
...
referee.engine.errors.RuleViolation: The game is in the mulligan phase: mulligan or keep.
"""

from __future__ import annotations

from typing import Any, NamedTuple, cast

from referee.engine import setup
from referee.engine.board import Board
from referee.engine.catalog import Catalog
from referee.engine.errors import InvalidInput, ReplayError, RuleViolation
from referee.engine.facts import CLOCK_TIME_MAX, Outcome, Player, Reason
from referee.engine.parse import plain_copy
from referee.engine.pipeline import actions_for, check, step
from referee.engine.state import check_state, parse_action
from referee.engine.state_types import ActionDict, StateDict
from referee.engine.views import view_of

State = dict[str, Any]
Event = dict[str, Any]


class Applied(NamedTuple):
    """What one legal action did: its events, in order."""

    events: tuple[Event, ...]


class Session:
    """One game: a checked working state and the actions applied to it."""

    __slots__ = ("_board", "catalog")

    def __init__(self, catalog: Catalog, checked_state: State | StateDict):
        """Wrap a state that already passed ``check_state`` (or was just dealt); see :meth:`from_state`."""
        self.catalog = catalog
        self._board = Board(catalog, cast(StateDict, checked_state))  # RULES 13.1 held: the model's shape

    @classmethod
    def from_state(cls, catalog: Catalog, state: Any, path: str = "state") -> Session:
        """A session from a client's state: parsed and checked in full (RULES 13.1), the caller's dict untouched."""
        return cls(catalog, check_state(catalog, state, path))

    @classmethod
    def new(cls, catalog: Catalog, game: Any, path: str = "") -> tuple[Session, tuple[Event, ...]]:
        """A dealt game (RULES 5) from a NewGame body, and the events of the deal."""
        state, events = setup.new_game(catalog, game, path)
        return cls(catalog, state), tuple(events)

    # -- queries ---------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The working state (owned by the session: read it, or :meth:`snapshot` it to keep it)."""
        return cast(State, self._board.s)

    @property
    def board(self) -> Board:
        """The board the rules act on (for the engine's own tools, e.g. the random player)."""
        return self._board

    def snapshot(self) -> State:
        """A copy of the state, independent of later actions."""
        copy: State = plain_copy(self._board.s)
        return copy

    @property
    def over(self) -> bool:
        return self._board.over

    @property
    def outcome(self) -> Outcome | None:
        result = self._board.s["result"]
        return None if result is None else Outcome(Reason(result["reason"]), result["winner"])

    def legal_actions(self, player: Any = None, now: int | None = None) -> list[dict[str, Any]]:
        """Every legal action at ``now`` (a clock's time, ``clocks.py``), for ``player`` (0 or 1) or for whoever may act."""
        if player is not None:
            Player.check(player)
        self._board.now = now
        return cast(list[dict[str, Any]], actions_for(self._board, player))

    def validate(self, action: Any, path: str = "action", now: int | None = None) -> RuleViolation | None:
        """The violation ``action`` would raise at ``now``, or ``None`` when it is legal (a query: nothing changes)."""
        self._board.now = now
        try:
            check(self._board, cast(ActionDict, parse_action(action, path)))
        except RuleViolation as violation:
            return violation
        return None

    def view(self, player: Any) -> State:
        """The state as ``player`` may see it (docs/api.md §5); ``None``: a spectator (§12)."""
        return view_of(self._board.s, None if player is None else Player.check(player))

    # -- commands --------------------------------------------------------------------

    def apply(self, action: Any, path: str = "action", now: int | None = None) -> Applied:
        """Apply one action, recorded at ``now`` (a clock's time, ``clocks.py``); raises ``RuleViolation`` (or
        ``InvalidInput``) and changes nothing if it is refused."""
        return self.apply_parsed(parse_action(action, path), now)

    def apply_parsed(self, action: dict[str, Any], now: int | None = None) -> Applied:
        """Apply an action already read by ``parse_action`` (a replay reads them all first)."""
        board = self._board
        board.events = []
        board.now = now
        step(board, cast(ActionDict, action))
        return Applied(tuple(board.events))

    def replay(self, actions: Any, times: Any = None) -> int:
        """Apply ``actions`` in order; raises ``ReplayError`` (with its index) at the first illegal one.

        ``times`` (docs/api.md §15): when each action was recorded, in milliseconds since the deal, one
        per action; a game with a clock needs them, and charges each move exactly as it was charged.
        """
        if not isinstance(actions, list):
            raise InvalidInput({"actions": ["must be a list of actions"]})
        moments = self._moments(actions, times)
        parsed, errors = [], {}
        for i, a in enumerate(actions):  # every malformed action is named, as the schema names them
            try:
                parsed.append(parse_action(a, f"actions.{i}"))
            except InvalidInput as exc:
                errors.update(exc.errors)
        if errors:
            raise InvalidInput(errors)
        for index, a in enumerate(parsed):
            try:
                self.apply_parsed(a, moments[index])
            except RuleViolation as violation:
                raise ReplayError(index, violation) from None
        return len(parsed)

    def _moments(self, actions: list[Any], times: Any) -> list[int | None]:
        """Each action's ``now``: the deal's time plus its recorded time (``None`` for a game without a clock)."""
        clock = self._board.s["clock"]
        if times is None:
            if clock is not None:
                raise InvalidInput({"times": ["a game with a clock replays from its moves' times (one per action)"]})
            return [None] * len(actions)
        if not (isinstance(times, list) and len(times) == len(actions) and all(_is_time(t) for t in times)):
            raise InvalidInput(
                {"times": [f"must be a list of {len(actions)} integers from 0 to {CLOCK_TIME_MAX} (one per action)"]}
            )
        return [None if clock is None else clock["started"] + t for t in times]


def _is_time(value: Any) -> bool:
    """Milliseconds since the deal, a whole number (not ``True``, not ``1.0``), up to the year 9999."""
    return type(value) is int and 0 <= value <= CLOCK_TIME_MAX


# -- the engine's functions: one call, one session ---------------------------------------


def apply(catalog: Catalog, state: Any, action: Any, now: int | None = None) -> tuple[State, list[Event]]:
    """The next state and its events; raises ``RuleViolation`` and changes nothing if illegal.

    ``now``: when the move is recorded, for a game with a clock (``clocks.py``; milliseconds since 1970).

    The input is never mutated: the board works on its own checked copy. This is
    ``Session.from_state(...).apply(action)`` without the session around the one
    action (the same gate, parser and pipeline; no objects the caller does not get).
    """
    board = Board(catalog, check_state(catalog, state), now)
    step(board, cast(ActionDict, parse_action(action)))
    return cast(State, board.s), board.events


def validate(catalog: Catalog, state: Any, action: Any, now: int | None = None) -> RuleViolation | None:
    """The violation ``action`` would raise at ``now``, or ``None`` when it is legal (a query; no copy kept)."""
    return Session.from_state(catalog, state).validate(action, now=now)


def legal_actions(catalog: Catalog, state: Any, player: Any = None, now: int | None = None) -> list[dict[str, Any]]:
    """Every legal action at ``now``, for ``player`` or for whoever may act (``pay`` omitted)."""
    if player is not None:
        Player.check(player)
    return Session.from_state(catalog, state).legal_actions(player, now)


def view(catalog: Catalog, state: Any, player: Any) -> State:
    """The state as ``player`` may see it (docs/api.md §5); ``None``: a spectator (§12)."""
    if player is not None:
        Player.check(player)
    return Session.from_state(catalog, state).view(player)


def replay(
    catalog: Catalog, actions: Any, *, state: Any = None, game: Any = None, times: Any = None
) -> tuple[State, int]:
    """Apply ``actions`` in order from a state or a NewGame, at ``times`` (a clock's, ms since the deal);
    raises ``ReplayError`` at the first illegal one."""
    if (state is None) == (game is None):
        raise InvalidInput({"state": ["give exactly one of state or game"]})
    if not isinstance(actions, list):
        raise InvalidInput({"actions": ["must be a list of actions"]})
    session = Session.new(catalog, game, "game")[0] if game is not None else Session.from_state(catalog, state)
    return session.state, session.replay(actions, times)
