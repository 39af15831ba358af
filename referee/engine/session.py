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
from referee.engine.event_types import EventDict
from referee.engine.facts import CLOCK_TIME_MAX, Outcome, Player, Reason
from referee.engine.parse import plain_copy
from referee.engine.pipeline import actions_for, check, step
from referee.engine.state import check_state, parse_action
from referee.engine.state_types import ActionDict, StateDict, ViewDict
from referee.engine.views import view_of


class Applied(NamedTuple):
    """What one legal action did: its events, in order."""

    events: tuple[EventDict, ...]


class Session:
    """One game: a checked working state and the actions applied to it."""

    __slots__ = ("_board", "catalog")

    def __init__(self, catalog: Catalog, checked_state: dict[str, Any] | StateDict):
        """Wrap a state that already passed ``check_state`` (or was just dealt); see :meth:`from_state`."""
        self.catalog = catalog
        self._board = Board(catalog, cast(StateDict, checked_state))  # RULES 13.1 held: the model's shape

    @classmethod
    def from_state(cls, catalog: Catalog, state: Any, path: str = "state") -> Session:
        """A session from a client's state: parsed and checked in full (RULES 13.1), the caller's dict untouched."""
        return cls(catalog, check_state(catalog, state, path))

    @classmethod
    def new(cls, catalog: Catalog, game: Any, path: str = "") -> tuple[Session, tuple[EventDict, ...]]:
        """A dealt game (RULES 5) from a NewGame body, and the events of the deal."""
        state, events = setup.new_game(catalog, game, path)
        dealt: list[Any] = events  # the deal's events, of the shapes EventDict names
        return cls(catalog, state), tuple(dealt)

    # -- queries ---------------------------------------------------------------------

    @property
    def state(self) -> StateDict:
        """The working state (owned by the session: read it, or :meth:`snapshot` it to keep it)."""
        return self._board.s

    @property
    def board(self) -> Board:
        """The board the rules act on (for the engine's own tools, e.g. the random player)."""
        return self._board

    def snapshot(self) -> StateDict:
        """A copy of the state, independent of later actions."""
        copy: StateDict = plain_copy(self._board.s)
        return copy

    @property
    def over(self) -> bool:
        return self._board.over

    @property
    def outcome(self) -> Outcome | None:
        result = self._board.s["result"]
        return None if result is None else Outcome(Reason(result["reason"]), result["winner"])

    def legal_actions(self, player: Any = None, now: int | None = None) -> list[ActionDict]:
        """Every legal action at ``now`` (a clock's time, ``clocks.py``), for ``player`` (0 or 1, judged here:
        the engine's one check) or for whoever may act."""
        if player is not None:
            Player.check(player)
        self._board.now = now
        return actions_for(self._board, player)

    def validate(self, action: Any, path: str = "action", now: int | None = None) -> RuleViolation | None:
        """The violation ``action`` would raise at ``now``, or ``None`` when it is legal (a query: nothing changes)."""
        self._board.now = now
        try:
            check(self._board, parse_action(action, path))
        except RuleViolation as violation:
            return violation
        return None

    def view(self, player: Any) -> ViewDict:
        """The state as ``player`` may see it (docs/api.md §5); ``None``: a spectator (§12)."""
        return view_of(self._board.s, None if player is None else Player.check(player))

    # -- commands --------------------------------------------------------------------

    def apply(self, action: Any, path: str = "action", now: int | None = None) -> Applied:
        """Apply one action, recorded at ``now`` (a clock's time, ``clocks.py``); raises ``RuleViolation`` (or
        ``InvalidInput``) and changes nothing if it is refused."""
        return self.apply_parsed(parse_action(action, path), now)

    def apply_parsed(self, action: ActionDict | dict[str, Any], now: int | None = None) -> Applied:
        """Apply an action already read by ``parse_action`` (a replay reads them all first)."""
        return Applied(tuple(self._act(action, now)))

    def _act(self, action: ActionDict | dict[str, Any], now: int | None = None) -> list[EventDict]:
        """The one application of an action (``apply``, ``apply_parsed``, ``replay`` and the engine's ``apply``):
        the pipeline's step on this session's board at ``now``; the events it made, in a new list."""
        board = self._board
        board.events = []
        board.now = now
        step(board, cast(ActionDict, action))
        return board.events

    def replay(self, actions: Any, times: Any = None) -> int:
        """Apply ``actions`` in order; raises ``ReplayError`` (with its index, and the position it was
        refused in: this session's state, which the refused action left as it was) at the first illegal one.

        ``times`` (docs/api.md §15): when each action was recorded, in milliseconds since the deal, one
        per action; a game with a clock needs them, and charges each move exactly as it was charged.
        """
        parsed = parse_actions(actions)
        moments = self.moments(parsed, times)
        for index, a in enumerate(parsed):
            try:
                self._act(a, moments[index])
            except RuleViolation as violation:
                raise ReplayError(index, violation, self.state) from None
        return len(parsed)

    def moments(self, actions: list[Any], times: Any) -> list[int | None]:
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


def parse_actions(actions: Any) -> list[ActionDict]:
    """A list of actions read, each at ``actions.i``: every malformed one named at once, as the schema names them."""
    if not isinstance(actions, list):
        raise InvalidInput({"actions": ["must be a list of actions"]})
    parsed, errors = [], {}
    for i, a in enumerate(actions):
        try:
            parsed.append(parse_action(a, f"actions.{i}"))
        except InvalidInput as exc:
            errors.update(exc.errors)
    if errors:
        raise InvalidInput(errors)
    return parsed


def _is_time(value: Any) -> bool:
    """Milliseconds since the deal, a whole number (not ``True``, not ``1.0``), up to the year 9999."""
    return type(value) is int and 0 <= value <= CLOCK_TIME_MAX


# -- the engine's functions: one call, one session ---------------------------------------


def apply(
    catalog: Catalog, state: Any, action: Any, now: int | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The next state and its events; raises ``RuleViolation`` and changes nothing if illegal.

    ``now``: when the move is recorded, for a game with a clock (``clocks.py``; milliseconds since 1970).

    ``Session.from_state(...).apply(action)``: the input is never mutated, the session works on its
    own checked copy, which it hands over.
    """
    session = Session(catalog, check_state(catalog, state))
    events: list[Any] = session._act(parse_action(action), now)  # Session.apply without the immutable Applied
    return cast(dict[str, Any], session._board.s), events


def validate(catalog: Catalog, state: Any, action: Any, now: int | None = None) -> RuleViolation | None:
    """The violation ``action`` would raise at ``now``, or ``None`` when it is legal (a query; no copy kept)."""
    return Session.from_state(catalog, state).validate(action, now=now)


def legal_actions(catalog: Catalog, state: Any, player: Any = None, now: int | None = None) -> list[dict[str, Any]]:
    """Every legal action at ``now``, for ``player`` or for whoever may act (``pay`` omitted)."""
    actions: list[Any] = Session.from_state(catalog, state).legal_actions(player, now)
    return actions


def view(catalog: Catalog, state: Any, player: Any) -> ViewDict:
    """The state as ``player`` may see it (docs/api.md §5); ``None``: a spectator (§12)."""
    return Session.from_state(catalog, state).view(player)


def replay(
    catalog: Catalog, actions: Any, *, state: Any = None, game: Any = None, times: Any = None
) -> tuple[dict[str, Any], int]:
    """Apply ``actions`` in order from a state or a NewGame, at ``times`` (a clock's, ms since the deal);
    raises ``ReplayError`` at the first illegal one."""
    if (state is None) == (game is None):
        raise InvalidInput({"state": ["give exactly one of state or game"]})
    if not isinstance(actions, list):
        raise InvalidInput({"actions": ["must be a list of actions"]})
    session = Session.new(catalog, game, "game")[0] if game is not None else Session.from_state(catalog, state)
    applied = session.replay(actions, times)
    return cast(dict[str, Any], session.state), applied
