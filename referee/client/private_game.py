"""A player's side of a private game (docs/api.md §10): the latest token and their own seat, nothing else."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Concatenate, Generic, overload

from referee.client import calls
from referee.client.calls import Call, Latest, Method, P, PrivateDeal, PrivateStep, T, sending
from referee.client.clients import AsyncRefereeClient, RefereeClient
from referee.client.errors import RefereeClientError, RefereeRuleViolation, RollbackDetected, StaleState
from referee.client.types import ActionDict, ClockViewDict, MatchDict, StateDict, ViewDict


class _GameEndpoint(Method[Callable[Concatenate[Any, P], Call[T]]], Generic[P, T]):
    """A method of a private game, as :class:`~referee.client.calls.Endpoint` is of a client: its
    function takes the game first and returns a :class:`Call`, which the game's client sends
    (a result from :class:`PrivateGame`, an awaitable from :class:`AsyncPrivateGame`)."""

    @overload
    def __get__(self, game: None, owner: type) -> _GameEndpoint[P, T]: ...
    @overload
    def __get__(self, game: PrivateGame, owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, game: AsyncPrivateGame, owner: type) -> Callable[P, Awaitable[T]]: ...
    @overload
    def __get__(self, game: Spectator, owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, game: AsyncSpectator, owner: type) -> Callable[P, Awaitable[T]]: ...

    def __get__(self, game: Any, owner: type) -> Any:
        if game is None:
            return self
        return sending(game, self.call, self.__name__, game)


class _PrivateSide:
    """What :class:`PrivateGame` and :class:`AsyncPrivateGame` share: the latest token, the player's
    own seat, and the checks of every view the referee answers (``seq`` never goes back, the
    ``commitment`` never changes; docs/api.md §10, "Rollback").

    Each method is a :class:`Call` whose reading makes those checks and keeps the new token, sent
    by the client the game holds (blocking or awaited), so the logic exists once. Made without
    I/O: the first view is taken by :meth:`receive` of the token dealt.
    """

    def __init__(self, client: Any, token: str, seat: str):
        self.client = client
        self.token = token
        self.seat = seat
        self.seq = -1
        self.commitment: str | None = None
        self.view: ViewDict | dict[str, Any] = {}  # {} until the first view is received

    @property
    def player(self) -> int:
        viewer = self.view["viewer"]
        if viewer is None:  # a seat's view names its player; only a spectator's does not
            raise RefereeClientError("this view is a spectator's: it names no player")
        return viewer

    def _send(self, call: Call[T]) -> Any:
        return self.client._send(call)

    def _renewing(self, call: Call[T]) -> Call[T]:
        """``call``, taking the renewed seat its answer may carry: during a key rotation every answer
        to a seat made under the previous key holds the same seat under the current one (a move, a
        view, legal actions, the latest state), so a player who only watches stays seated."""
        return replace(call, read=_taking_seat(self, "seat", call.read))

    def _see(self, view: ViewDict) -> None:
        if view["seq"] < self.seq:
            raise RollbackDetected(f"the state went back from seq {self.seq} to {view['seq']}")
        if self.commitment is None:
            self.commitment = view["commitment"]
        elif view["commitment"] != self.commitment:
            raise RollbackDetected("the commitment changed: this token is of another game")
        self.seq, self.view = view["seq"], view

    def _receive(self, token: str) -> Call[ViewDict]:
        """Take the token after the opponent's move; returns the new view
        (:class:`RollbackDetected`, and the token not taken, if it is older than one seen)."""
        call = self._renewing(calls.private_view(token, self.seat))

        def read(out: Any) -> ViewDict:
            view = call.read(out)
            self._see(view)
            self.token = token
            return view

        return replace(call, read=read)

    @property
    def game_id(self) -> str | None:
        """The game's id, which every private view carries (``/v1/latest`` takes it)."""
        return self.view.get("game_id")

    def _apply(self, action: ActionDict | dict[str, Any]) -> Call[PrivateStep]:
        """Act as this player: the next token is kept; returns the step (its events and view are this player's).

        With a ledger (docs/api.md §11), a move on a token that is not the game's latest raises
        :class:`StaleState`, after fetching the latest token, which the game takes (its view is
        ``err.view``): act again on it. Sending the same action again is safe (the recorded answer).
        """
        call = self._renewing(calls.private_apply(self.token, self.seat, action))

        def read(out: Any) -> PrivateStep:
            step = call.read(out)
            self._see(step.view)
            self.token = step.state
            return step

        def follow(err: RefereeClientError) -> Call[PrivateStep] | None:
            if not isinstance(err, StaleState) or self.game_id is None:
                return None
            latest = self._renewing(calls.latest(self.game_id, self.seat))
            return Call(
                latest.method, latest.path, lambda out: self._stale(err, latest.read(out)), latest.body, latest.retry
            )

        return replace(call, read=read, follow=follow)

    def _stale(self, err: StaleState, latest: Latest) -> PrivateStep:
        err.latest = latest
        self._see(latest.view)
        self.token = latest.state
        raise err

    def _latest(self) -> Call[Latest]:
        """Catch up (a referee with a ledger): the game's latest token, which the game takes."""
        call = self._renewing(calls.latest(self.game_id or "", self.seat))

        def read(out: Any) -> Latest:
            latest = call.read(out)
            self._see(latest.view)
            self.token = latest.state
            return latest

        return replace(call, read=read)

    def _legal_actions(self) -> Call[list[ActionDict]]:
        """This player's legal actions now."""
        return self._renewing(calls.private_legal_actions(self.token, self.seat))

    def _validate(self, action: ActionDict | dict[str, Any]) -> Call[RefereeRuleViolation | None]:
        """The violation ``action`` would raise (returned, not raised), or ``None`` when legal."""
        return calls.private_validate(self.token, self.seat, action)

    # -- clocks and matches (docs/api.md §15) ---------------------------------------------------

    @property
    def clock(self) -> ClockViewDict | None:
        """The game's clock as the last view showed it (``remaining``, ``running``, ``since``...), or None."""
        return self.view.get("clock")

    def time_left(self, now: datetime | None = None) -> list[int] | None:
        """Each player's milliseconds left at ``now`` (default: this machine's time), counted down from the
        last view without asking the referee, as a page does; never below 0. None without a clock.

        The referee charges by its ledger's clock, so this is an estimate between two views."""
        clock = self.clock
        if clock is None:
            return None
        left = list(clock["remaining"])
        running = clock["running"]
        if running is not None:
            since = datetime.fromisoformat(clock["since"])
            spent = int(((now or datetime.now(UTC)) - since).total_seconds() * 1000)
            left[running] = max(0, left[running] - max(0, spent))
        return left

    @property
    def match(self) -> MatchDict | None:
        """The match this game is part of (``best_of``, ``game``, ``wins``, ``winner``), or None."""
        return self.view.get("match")

    def _claim_time(self) -> Call[PrivateStep]:
        """Claim the game once the opponent's time has run out (RULES 11.5): the game is won on time."""
        return self._apply({"type": "claim_time", "player": self.player})

    def _next_game(self, first_player: int) -> Call[PrivateDeal]:
        """The match's next game, asked by the loser of the game that ended, who chooses ``first_player``
        (RULES 14.2): its token and both new seats (hand the opponent theirs). Join it with a new
        :class:`PrivateGame` on ``deal.state`` and ``deal.seats[game.player]``."""
        return calls.next_private_game(self.token, self.seat, first_player)

    def _reveal(self, their_seat: str) -> Call[StateDict]:
        """The whole state once the game is over (:class:`GameNotOver` before), with the opponent's
        seat, which they give at the end: revealing needs both players."""
        return calls.reveal(self.token, [self.seat, their_seat])

    receive = _GameEndpoint(_receive)
    apply = _GameEndpoint(_apply)
    legal_actions = _GameEndpoint(_legal_actions)
    validate = _GameEndpoint(_validate)
    reveal = _GameEndpoint(_reveal)
    latest = _GameEndpoint(_latest)
    claim_time = _GameEndpoint(_claim_time)
    next_game = _GameEndpoint(_next_game)


class PrivateGame(_PrivateSide):
    """One player's side of a private game: the latest token and their own seat, nothing else.

    ``apply`` and ``legal_actions`` act and ask as that player; after the
    opponent moves, hand the new token to :meth:`receive`. Every view the
    referee answers is checked for ``seq`` (docs/api.md §10, "Rollback"): a token
    older than one already seen raises :class:`RollbackDetected`. The
    ``commitment`` of the seed is kept from the first view, and every later
    view must show the same one. Works with :class:`RefereeClient`; with
    :class:`AsyncRefereeClient`, use :class:`AsyncPrivateGame`.
    """

    def __init__(self, client: RefereeClient, token: str, seat: str):
        if not isinstance(client, RefereeClient):
            raise TypeError(
                "PrivateGame works with a RefereeClient; with an AsyncRefereeClient, "
                "use `await AsyncPrivateGame.join(client, token, seat)`"
            )
        super().__init__(client, token, seat)
        self.receive(token)


class AsyncPrivateGame(_PrivateSide):
    """:class:`PrivateGame` on :class:`AsyncRefereeClient`: the same methods and checks, each awaited.

    Join with ``game = await AsyncPrivateGame.join(client, token, seat)``, which takes the first
    view (made directly, a game has none until ``await game.receive(token)``).
    """

    @classmethod
    async def join(cls, client: AsyncRefereeClient, token: str, seat: str) -> AsyncPrivateGame:
        if not isinstance(client, AsyncRefereeClient):
            raise TypeError(
                "AsyncPrivateGame works with an AsyncRefereeClient; with a RefereeClient, "
                "use PrivateGame(client, token, seat)"
            )
        game = cls(client, token, seat)
        await game.receive(token)
        return game


class _SpectatorSide:
    """What :class:`Spectator` and :class:`AsyncSpectator` share: a game id and its watch key."""

    def __init__(self, client: Any, game_id: str, watch: str):
        self.client = client
        self.game_id = game_id
        self.watch = watch
        self.seq = -1
        self.view: ViewDict | dict[str, Any] = {}  # {} until the first view is received

    def _send(self, call: Call[T]) -> Any:
        return self.client._send(call)

    def _latest(self) -> Call[Latest]:
        """The game's latest token, seq and spectator view (``seq`` never goes back: :class:`RollbackDetected`)."""
        plain = calls.latest(self.game_id, self.watch)
        call = replace(plain, read=_taking_seat(self, "watch", plain.read))

        def read(out: Any) -> Latest:
            latest = call.read(out)
            if latest.seq < self.seq:
                raise RollbackDetected(f"the game went back from seq {self.seq} to {latest.seq}")
            self.seq, self.view = latest.seq, latest.view
            return latest

        return replace(call, read=read)

    latest = _GameEndpoint(_latest)


class Spectator(_SpectatorSide):
    """A spectator of a private game (docs/api.md §12), with the ``watch`` key its NewGame gave:
    :meth:`latest` polls the ledger's latest state (a referee with a ledger) and keeps its view,
    which names only the cards both players may know. It can never act.

    >>> watcher = Spectator(ref, game_id, deal.watch)    # doctest: +SKIP
    >>> watcher.latest().view["seq"]                     # doctest: +SKIP
    """

    def __init__(self, client: RefereeClient, game_id: str, watch: str):
        if not isinstance(client, RefereeClient):
            raise TypeError("Spectator works with a RefereeClient; with an AsyncRefereeClient, use AsyncSpectator")
        super().__init__(client, game_id, watch)


class AsyncSpectator(_SpectatorSide):
    """:class:`Spectator` on :class:`AsyncRefereeClient`: ``await watcher.latest()``."""

    def __init__(self, client: AsyncRefereeClient, game_id: str, watch: str):
        if not isinstance(client, AsyncRefereeClient):
            raise TypeError("AsyncSpectator works with an AsyncRefereeClient; with a RefereeClient, use Spectator")
        super().__init__(client, game_id, watch)


def _taking_seat(side: Any, attribute: str, read: Callable[[Any], T]) -> Callable[[Any], T]:
    """``read``, first keeping the answer's renewed seat (if any) as ``side.<attribute>``."""

    def taking(out: Any) -> T:
        value = read(out)
        renewed = out.get("seat") if isinstance(out, dict) else None
        if isinstance(renewed, str):
            setattr(side, attribute, renewed)
        return value

    return taking
