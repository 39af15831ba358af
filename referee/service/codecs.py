"""How a mode carries states: one codec per mode, behind one interface, chosen once at start-up.

The game endpoints (:mod:`referee.service.answers`) are written once, for every
mode: each opens the body with the app's codec — the plain state the engine is
to work on, and whose seat asks — lets the engine decide, and has the codec
close the next state into the answer. The modes differ only here:

- :class:`PlainCodec` (docs/api.md §1–§9): the state travels as it is; the
  request names its player; a state returned carries no seal.
- :class:`SealedCodec` (``REFEREE_SECRET``, §4): the same, every state sent in
  checked against its seal first (403 ``seal-mismatch``) and every state
  returned sealed.
- :class:`~referee.service.private.PrivateCodec` (``REFEREE_STATE_KEY``, §10–§12):
  the state travels as a token, the seat names the player, answers hold only
  what that seat may know.

``/v1/reveal`` and ``/v1/latest`` belong to private play: the plain codecs
refuse them (400 ``private_mode_off``, ``no_ledger``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from marshmallow import Schema

import referee_schemas as S
from referee import engine
from referee.engine import StateDict
from referee.private.ledger import Ledger
from referee.private.sealing import Sealer
from referee.service.problems import Problem, schema_problem
from referee.service.reading import envelope, player_field

Body = dict[str, Any]


class Shape(Enum):
    """What a request that carries one state asks, and so which keys its body has besides the state."""

    ACT = "act"  # apply, validate: an action, whose player acts
    ASK = "ask"  # legal-actions: an optional player (and labels)
    LOOK = "look"  # view: whose view (null: a spectator's, docs/api.md §12)
    SUGGEST = "suggest"  # suggest: a bot's move for one player (docs/api.md §16)


# Bound once: a member read through its class costs a lookup on every request (docs/decisions.md).
ACT, ASK, LOOK, SUGGEST = Shape.ACT, Shape.ASK, Shape.LOOK, Shape.SUGGEST

# The documented bodies (schemas/bodies.py) of the requests that carry one state, by shape: plain mode's and
# private mode's. The endpoints' declarations document these (referee.service.endpoints) and the codecs
# check a body's keys against the same schemas, so a body's keys are written once.
BODIES: dict[Shape, tuple[type[Schema], type[Schema]]] = {
    ACT: (S.ApplyRequestSchema, S.PrivateActRequestSchema),
    ASK: (S.LegalActionsRequestSchema, S.PrivateLegalActionsRequestSchema),
    LOOK: (S.ViewRequestSchema, S.PrivateAskRequestSchema),
    SUGGEST: (S.SuggestRequestSchema, S.PrivateSuggestRequestSchema),
}


def keys_of(schema: type[Schema]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A documented body's keys for :func:`~referee.service.reading.envelope`: the required ones (the state
    first, so its refusal is named first), then the optional ones."""
    declared = {field.data_key or name: field for name, field in schema().fields.items()}
    names = sorted(declared, key=lambda name: name != "state")
    return tuple(n for n in names if declared[n].required), tuple(n for n in names if not declared[n].required)


PLAIN_KEYS = {shape: keys_of(plain) for shape, (plain, _) in BODIES.items()}
PRIVATE_KEYS = {shape: keys_of(private) for shape, (_, private) in BODIES.items()}


@dataclass(slots=True)
class Opened:
    """A request's body opened: the plain state the engine works on, and who acts or asks."""

    state: Any  # plain modes: as sent (the engine's parser checks it); private: what the token held
    player: int | None  # plain modes: as the body names it; private: the seat's (None: the spectator's)
    renewed: Body = field(default_factory=dict)  # private: {"seat": ...} under the current key, if renewed
    token: Any = None  # private: the token sent (the ledger adopts a game it does not hold at it)
    now: int | None = None  # a clocked move's time, by the ledger's clock (docs/api.md §15)


def no_ledger(
    detail: str = "POST /v1/latest needs a ledger (REFEREE_LEDGER, private mode); this referee keeps no games.",
) -> Problem:
    return Problem("no-ledger", "no_ledger", detail)


NO_CLOCK_HERE = (
    "A game with a clock needs a referee that records each move's time itself: private mode with a "
    "ledger (REFEREE_STATE_KEY and REFEREE_LEDGER, docs/api.md §15). This referee keeps no time."
)


NO_DELAY_HERE = (
    "watch_delay: spectators a few moves behind need a referee that holds every move of the game: private "
    "mode with a ledger (REFEREE_STATE_KEY and REFEREE_LEDGER, docs/api.md §12); here a spectator holding a "
    "later state would see it anyway."
)


def refuse_without_ledger(game: Body) -> None:
    """A NewGame's clock or spectator delay, refused where no ledger keeps the game (400 ``no_ledger``)."""
    if game.get("clock") is not None:
        raise no_ledger(NO_CLOCK_HERE)
    if game.get("watch_delay") is not None:
        raise no_ledger(NO_DELAY_HERE)


NO_LEDGER_RECORD = (
    "POST /v1/records from a game id needs a ledger (REFEREE_LEDGER, private mode), which keeps each game's "
    "tokens; without one, send the deal's token and the actions."
)


@dataclass(frozen=True, slots=True)
class NextAsked:
    """``/v1/matches/next``'s body opened: the last game's state (as sent, or the token's), who plays first,
    and who chose (plain mode: the body's ``player``, None to trust the caller; private mode: None, and
    ``seat`` the loser's seat's player, checked once the engine has said the game is over)."""

    state: Any
    first: int
    chooser: int | None = None
    seat: int | None = None


@dataclass(slots=True)  # not frozen: a frozen dataclass's __init__ costs about 1 µs more, on every move
class Kept:
    """A move's next state as the mode keeps it (:func:`referee.service.moves.play` decides what follows).

    ``carried`` is what the answer carries: the state (sealed, in sealed mode) or its token; for a retry
    (``repeated``), the token recorded then. ``skewed_to``: the ledger's clock for a move whose time this
    replica read elsewhere (nothing was recorded: the move is to be made again at that time).
    """

    carried: Any
    repeated: bool = False
    skewed_to: int | None = None


@dataclass(frozen=True)
class LedgerGame:
    """A private game read back from the ledger: its deal's state, its actions and times, the record's seat."""

    dealt: Body
    actions: list[dict[str, Any]]
    times: list[int] | None
    seat: Any
    # records written of it, by (seat, moves): the worker keeps them with the moves (service/recovered.py)
    texts: dict[tuple[Any, int], str] = field(default_factory=dict)


def clocked(state: Any) -> bool:
    """Whether a state (as sent: the engine judges its shape later) carries a clock (docs/api.md §15)."""
    return isinstance(state, dict) and state.get("clock") is not None


def labels_field(body: Body) -> None:
    if type(body.get("labels", False)) is not bool:
        raise schema_problem({"labels": ["Not a valid boolean."]})


class Codec:
    """One mode's way of reading states from bodies and writing them into answers."""

    ledger: Ledger | None = None  # private mode's ledger (docs/api.md §11), if any

    def __init__(self, catalog: engine.Catalog):
        self.catalog = catalog

    def open(self, body: Body, shape: Shape) -> Opened:
        """The body's keys checked (400) and its state opened, with whose seat asks."""
        raise NotImplementedError

    def open_replay(self, body: Body) -> tuple[str, Any]:
        """Where ``/v1/replay`` starts: ``("state", state)`` or ``("game", NewGame)``."""
        raise NotImplementedError

    def open_record(self, game: Body, finished: bool) -> tuple[str, Any]:
        """Where ``/v1/replay {"record"}`` starts: the record's NewGame (``finished``: its Result is set)."""
        return "game", game

    def close_record(self, start: Any, state: Body, applied: int) -> Body:
        """``/v1/replay {"record"}``'s answer (``start``: where it started, as :meth:`open_record` said)."""
        return {"state": self.close_state(state), "applied": applied}

    def recorded(self, opened: Opened, action: Any, violation: engine.RuleViolation) -> Any:
        """An action the engine refused: what the ledger recorded for it, when it is the retry of a recorded
        move (the recorded token, answered in its place); a stale token raises its 409 (docs/api.md §11);
        None: the violation stands."""
        return None

    def recorded_time(self, carried: Any) -> int:
        """The time a recorded move was made at (the clock in its recorded token)."""
        raise NotImplementedError

    def now(self, state: Any, acting: bool) -> int | None:
        """The time a move on ``state`` is made at, for a clock (docs/api.md §15): None without a clock,
        or where no time is kept (a query in plain mode: no time has passed since the last move)."""
        if acting and clocked(state):
            engine.check_state(self.catalog, state)  # a malformed or inconsistent state is answered as such first
            raise no_ledger(NO_CLOCK_HERE)
        return None

    def keep(self, opened: Opened, action: Any, state: Body) -> Kept:
        """The move's next state kept as this mode keeps it (private mode with a ledger: recorded)."""
        return Kept(self.close_state(state))

    def answer(self, opened: Opened, carried: Any, state: Body, events: list[Body]) -> Body:
        """``/v1/apply``'s answer: the next state as kept, and the events as whoever acted may know them."""
        raise NotImplementedError

    def close_state(self, state: Body) -> Any:
        """A state as this mode returns it."""
        raise NotImplementedError

    def deal(self, body: Body) -> tuple[Body, list[Body]]:
        """A new game's state and events."""
        raise NotImplementedError

    def close_new(self, state: Body, events: list[Body], next_game: bool = False) -> Body:
        """``/v1/games``' answer (``/v1/matches/next``'s with ``next_game``: a match's next game, dealt once)."""
        raise NotImplementedError

    def may_write_whole(self, record: Any) -> None:
        """A whole record (seed included) may be answered: always, but in private mode only once the game is over."""

    def open_next(self, body: Body) -> NextAsked:
        """``/v1/matches/next``'s body: the last game's state and who asks (the engine then judges RULES 14)."""
        raise NotImplementedError

    def deal_next(self, last: StateDict, asked: NextAsked, game: Body, match: Any) -> tuple[Body, list[Body]]:
        """The match's next game (``game`` and ``match``, the engine's from ``last``, its checked state) dealt."""
        raise NotImplementedError

    def open_reveal(self, body: Body) -> Any:
        """``/v1/reveal``'s body: the state of a private game, with both its seats."""
        raise Problem(
            "private-mode-off",
            "private_mode_off",
            "POST /v1/reveal is for private play (REFEREE_STATE_KEY); this referee "
            "runs in plain mode, where every state is plain already.",
        )

    def reveal(self, state: StateDict) -> Body:
        """``/v1/reveal``'s answer: the whole (checked) state of a finished private game."""
        raise NotImplementedError  # open_reveal refused already

    def latest(self, body: Body) -> Body:
        """``/v1/latest``'s answer: a private game's latest token, from the ledger."""
        raise no_ledger()

    def ledger_game(self, body: Body) -> LedgerGame:
        """``/v1/records`` from a game id: the game's deal, its moves recovered from the ledger, and the seat."""
        raise no_ledger(NO_LEDGER_RECORD)


class PlainCodec(Codec):
    """Plain mode: states travel as they are; the body names its player."""

    def state_in(self, state: Any) -> Any:
        return state

    def open(self, body: Body, shape: Shape) -> Opened:
        envelope(body, *PLAIN_KEYS[shape])
        if shape is ACT:
            action = body["action"]
            player = action.get("player") if isinstance(action, dict) else None  # the engine judges it
        elif shape is ASK:
            player = body.get("player")  # absent: whoever may act; the engine judges an index (Player.check)
            if player is None and "player" in body:  # null names no one here (on /v1/view, a spectator)
                raise schema_problem({"player": ["must be 0 or 1"]})  # the engine's words
            labels_field(body)
        elif shape is SUGGEST:
            player = player_field(body)
        else:
            player = body["player"]  # None: a spectator; an index the engine judges
        return Opened(self.state_in(body["state"]), player)

    def open_replay(self, body: Body) -> tuple[str, Any]:
        envelope(body, ("actions",), ("game", "state", "times"))
        if ("game" in body) == ("state" in body):
            raise schema_problem({"_schema": ["Give exactly one of game and state."]})
        key = "state" if "state" in body else "game"
        if body[key] is None:
            raise schema_problem({key: ["Field may not be null."]})
        return key, self.state_in(body["state"]) if key == "state" else body["game"]

    def answer(self, opened: Opened, carried: Any, state: Body, events: list[Body]) -> Body:
        return {"state": carried, "events": events}

    def close_state(self, state: Body) -> Any:
        state.pop("seal", None)
        return state

    def deal(self, body: Body) -> tuple[Body, list[Body]]:
        refuse_without_ledger(body)
        return engine.new_game(self.catalog, body)

    def open_next(self, body: Body) -> NextAsked:
        """Plain mode trusts its caller (docs/api.md §15): ``player``, if sent, is who chooses (RULES 14.2)."""
        envelope(body, ("state", "first_player"), ("player",))
        first = player_field(body, "first_player")
        assert first is not None  # a required key (envelope)
        chooser = None if body.get("player") is None else player_field(body)
        return NextAsked(self.state_in(body["state"]), first, chooser)

    def deal_next(self, last: StateDict, asked: NextAsked, game: Body, match: Any) -> tuple[Body, list[Body]]:
        refuse_without_ledger(game)
        return engine.new_game(self.catalog, game, match=match)

    def close_new(self, state: Body, events: list[Body], next_game: bool = False) -> Body:
        return {"state": self.close_state(state), "events": events}


class SealedCodec(PlainCodec):
    """Sealed mode (docs/api.md §4): plain states, each checked against its seal before anything else."""

    def __init__(self, catalog: engine.Catalog, sealer: Sealer):
        super().__init__(catalog)
        self.sealer = sealer

    def state_in(self, state: Any) -> Any:
        if isinstance(state, dict):  # anything else is the engine's 400
            self.sealer.check(state)
        return state

    def close_state(self, state: Body) -> Any:
        return self.sealer.seal(state)
