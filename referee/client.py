"""A Python client for the referee's HTTP API (docs/api.md), with typed errors and retries.

>>> from referee.client import RefereeClient, RefereeRuleViolation
>>> with RefereeClient("http://127.0.0.1:8000") as ref:           # doctest: +SKIP
...     state, events = ref.new_game({"decks": [deck0, deck1], "seed": "s-1"})
...     try:
...         state, events = ref.apply(state, {"type": "draw", "player": 0})
...     except RefereeRuleViolation as v:
...         print(v.rule, v.code, v.detail)

:class:`RefereeClient` (on ``httpx.Client``) and :class:`AsyncRefereeClient`
(on ``httpx.AsyncClient``; ``async with``, every method awaited) have the same
methods and raise the same errors. Every method maps to one endpoint and
returns plain JSON data (dicts and lists), the results that have two parts as
named tuples that unpack like the engine's own ``(state, events)``.

**Retries.** Every endpoint is a pure function of its body (docs/api.md §9),
so a request that got no answer, or a 502, 503 or 504 (a load balancer with no
replica ready, a replica restarting), is sent again: ``retries`` more times
(default 2), after ``backoff`` seconds (default 0.1) doubled each time up to
``max_backoff`` (default 2), each wait shortened by a random factor in
[0.5, 1] so many clients do not retry in step. ``retries=0`` turns it off. A
4xx or a 500 is never retried: the same body would get the same answer.
``ready()`` never retries (a 503 there is the answer).

A refusal raises:

| status | exception | what it carries |
| --- | --- | --- |
| 400 | :class:`InvalidRequest` | ``code``, ``errors`` (field path → messages) |
| 400 ``not_in_private_mode`` | :class:`NotInPrivateMode` (an ``InvalidRequest``) | ``code`` |
| 400 ``private_mode_off`` | :class:`PrivateModeOff` (an ``InvalidRequest``) | ``code`` |
| 403 | :class:`SealRejected` | ``code`` |
| 403 ``bad_token``, ``private_mode`` | :class:`TokenRejected` | ``code`` |
| 403 ``bad_seat``, ``not_your_seat`` | :class:`SeatRejected` | ``code`` |
| 403 ``game_not_over`` | :class:`GameNotOver` | ``code`` |
| 404 | :class:`NotFound` | ``code`` |
| 413 | :class:`PayloadTooLarge` | |
| 422 | :class:`RefereeRuleViolation` (alias ``RuleViolation``) | ``rule``, ``code``, ``detail``, ``index`` (replay), ``violations`` (decks) |
| other | :class:`RefereeHTTPError` | ``status``, ``body`` |
| no answer | :class:`RefereeConnectionError` | the transport error as ``__cause__`` |

All of them derive from :class:`RefereeClientError` and carry ``status``,
``code``, ``detail`` and the problem ``body`` (RFC 9457).

**Private play** (docs/api.md §10). :meth:`RefereeClient.new_private_game`
deals and returns the token, both seats and the commitment; the ``private_*``
methods send a token and a seat. Each player then plays through a
:class:`PrivateGame` (:class:`AsyncPrivateGame` with the async client), which
holds the latest token and that player's own seat only, and raises
:class:`RollbackDetected` when a token it is handed is older than one it has
seen (``seq`` went back):

>>> deal = ref.new_private_game({"decks": [deck0, deck1]})      # doctest: +SKIP
>>> aoi = PrivateGame(ref, deal.state, deal.seats[0])           # doctest: +SKIP
>>> aoi.apply({"type": "keep", "player": aoi.player}).view      # doctest: +SKIP
>>> ren = await AsyncPrivateGame.join(aref, deal.state, deal.seats[1])  # doctest: +SKIP

How it is built: each endpoint is written once, as a function that returns a
:class:`Call` (what to send, and how to read the answer); :class:`_Endpoint`
makes it a method of both clients, which differ only in how they send
(``_send``: blocking or awaited; the retry decisions are :class:`_Tries`'s, the
same for both). A private game's methods are Calls too, whose reading checks
the view and keeps the token (:class:`_PrivateSide`), sent by the client it
holds: one copy of that logic for both.
"""

from __future__ import annotations

import asyncio
import functools
import random
import time
from dataclasses import dataclass, replace
from typing import Any, Awaitable, Callable, Generic, NamedTuple, ParamSpec, TypeVar, overload
from urllib.parse import quote

import httpx

__all__ = [
    "RefereeClient", "AsyncRefereeClient", "Step", "Replayed", "RefereeClientError", "RefereeHTTPError",
    "InvalidRequest", "SealRejected", "NotFound", "PayloadTooLarge", "RefereeRuleViolation",
    "RuleViolation", "RefereeConnectionError",
    "PrivateDeal", "PrivateStep", "PrivateGame", "AsyncPrivateGame", "TokenRejected", "SeatRejected", "GameNotOver",
    "NotInPrivateMode", "PrivateModeOff", "RollbackDetected",
]

JSON = "application/json"


class Step(NamedTuple):
    """What ``new_game`` and ``apply`` return: the state and the events that led to it."""

    state: dict[str, Any]
    events: list[dict[str, Any]]


class Replayed(NamedTuple):
    """What ``replay`` returns: the final state and how many actions were applied."""

    state: dict[str, Any]
    applied: int


class RefereeClientError(Exception):
    """Base of every error the client raises."""

    status: int | None = None

    def __init__(self, detail: str, *, status: int | None = None, code: str | None = None,
                 body: dict[str, Any] | None = None):
        self.detail = detail
        self.code = code
        self.body = body or {}
        if status is not None:
            self.status = status
        super().__init__(detail)


class RefereeConnectionError(RefereeClientError):
    """The service could not be reached, or did not answer in time."""


class RefereeHTTPError(RefereeClientError):
    """An answer with an error status that has no more specific class (404, 405, 415, 5xx...)."""


class InvalidRequest(RefereeHTTPError):
    """400: not JSON, not of the schema, or an inconsistent state (RULES 13.1).

    ``errors`` maps field paths to messages (empty when the problem has none).
    """

    status = 400

    def __init__(self, detail: str, **kw: Any):
        super().__init__(detail, **kw)
        self.errors: dict[str, list[str]] = dict(self.body.get("errors") or {})


class SealRejected(RefereeHTTPError):
    """403: sealing is on and the state's seal is missing or wrong (docs/api.md §4)."""

    status = 403


class NotFound(RefereeHTTPError):
    """404: unknown path or card."""

    status = 404


class PayloadTooLarge(RefereeHTTPError):
    """413: the body is over the service's limit."""

    status = 413


class RefereeRuleViolation(RefereeHTTPError):
    """422: a well-formed action (or deck) breaks a rule (docs/api.md §7).

    ``rule`` is the RULES.md id, ``code`` the stable snake_case name,
    ``detail`` the human text, ``index`` the 0-based index of the illegal
    action of a replay (else ``None``), and ``violations`` every problem of an
    illegal deck (else ``[]``).
    """

    status = 422

    def __init__(self, detail: str, **kw: Any):
        super().__init__(detail, **kw)
        self.rule: str | None = self.body.get("rule")
        self.index: int | None = self.body.get("index")
        self.violations: list[dict[str, Any]] = list(self.body.get("violations") or [])

    @classmethod
    def from_json(cls, violation: dict[str, Any]) -> "RefereeRuleViolation":
        """A violation as ``/v1/validate`` returns it (not raised: a value)."""
        return cls(violation.get("detail", ""), status=422, code=violation.get("code"), body=violation)

    def __repr__(self) -> str:
        return f"RefereeRuleViolation(rule={self.rule!r}, code={self.code!r}, detail={self.detail!r})"


RuleViolation = RefereeRuleViolation  # the shorter name



class TokenRejected(RefereeHTTPError):
    """403 in private mode: the state token does not open (``bad_token``) or a plain State was sent (``private_mode``)."""

    status = 403


class SeatRejected(RefereeHTTPError):
    """403 in private mode: a seat is not of this game (``bad_seat``) or not the acting player's (``not_your_seat``)."""

    status = 403


class GameNotOver(RefereeHTTPError):
    """403: ``/v1/reveal`` of a private game that is not over (``game_not_over``)."""

    status = 403


class NotInPrivateMode(InvalidRequest):
    """400: a private referee deals itself: no ``seed``, no ``shuffle: false``, no replay from a ``game``."""


class PrivateModeOff(InvalidRequest):
    """400: ``/v1/reveal`` asked of a referee in plain mode (``private_mode_off``)."""


class RollbackDetected(RefereeClientError):
    """A :class:`PrivateGame` was handed a token older than one it has seen (``seq`` went back)."""


_BY_STATUS: dict[int, type[RefereeHTTPError]] = {
    400: InvalidRequest, 403: SealRejected, 404: NotFound, 413: PayloadTooLarge, 422: RefereeRuleViolation,
}
_BY_CODE: dict[tuple[int, str], type[RefereeHTTPError]] = {
    (403, "bad_token"): TokenRejected, (403, "private_mode"): TokenRejected,
    (403, "bad_seat"): SeatRejected, (403, "not_your_seat"): SeatRejected,
    (403, "game_not_over"): GameNotOver,
    (400, "not_in_private_mode"): NotInPrivateMode, (400, "private_mode_off"): PrivateModeOff,
}


# -- what each endpoint sends and how its answer is read (once for both clients) --------

T = TypeVar("T")
P = ParamSpec("P")

RETRY_STATUSES = frozenset({502, 503, 504})


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request: ``method`` and ``path``, the JSON ``body`` (``None``: none), ``read`` (the
    answer's JSON → the method's result), whether it may be ``retry``-ed, and ``when_refused``
    (an error → a result, instead of raising it)."""

    method: str
    path: str
    read: Callable[[Any], T]
    body: Any = None
    retry: bool = True
    when_refused: Callable[["RefereeClientError"], T] | None = None


def _step(out: Any) -> Step:
    return Step(out["state"], out.get("events", []))


def _new_game(game: dict[str, Any]) -> Call[Step]:
    """``POST /v1/games``: check both decks, shuffle, deal (an illegal deck raises with ``violations``)."""
    return Call("POST", "/v1/games", _step, game)


def _apply(state: dict[str, Any], action: dict[str, Any]) -> Call[Step]:
    """``POST /v1/apply``: the next state and its events."""
    return Call("POST", "/v1/apply", _step, {"state": state, "action": action})


def _validate(state: dict[str, Any], action: dict[str, Any]) -> Call[RefereeRuleViolation | None]:
    """``POST /v1/validate``: the violation ``action`` would raise (returned, not raised), or ``None``."""

    def read(out: Any) -> RefereeRuleViolation | None:
        return None if out.get("legal") else RefereeRuleViolation.from_json(out.get("violation") or {})

    return Call("POST", "/v1/validate", read, {"state": state, "action": action})


def _legal_actions(state: dict[str, Any], player: int | None = None) -> Call[list[dict[str, Any]]]:
    """``POST /v1/legal-actions``: every legal action now (for ``player``, or whoever may act)."""
    body: dict[str, Any] = {"state": state}
    if player is not None:
        body["player"] = player
    return Call("POST", "/v1/legal-actions", lambda out: out["actions"], body)


def _replay(actions: list[dict[str, Any]], *, game: dict[str, Any] | None = None,
            state: dict[str, Any] | None = None) -> Call[Replayed]:
    """``POST /v1/replay`` from a NewGame or a state; the first illegal action raises with ``index``."""
    if (game is None) == (state is None):
        raise ValueError("give exactly one of game= and state=")
    body: dict[str, Any] = {"actions": actions}
    body.update({"game": game} if game is not None else {"state": state})
    return Call("POST", "/v1/replay", lambda out: Replayed(out["state"], out["applied"]), body)


def _view(state: dict[str, Any], player: int) -> Call[dict[str, Any]]:
    """``POST /v1/view``: what ``player`` may see (docs/api.md §5)."""
    return Call("POST", "/v1/view", lambda out: out["view"], {"state": state, "player": player})


def _validate_deck(deck: Any) -> Call[list[RefereeRuleViolation]]:
    """``POST /v1/decks/validate``: every violation of one deck (empty when legal)."""
    return Call("POST", "/v1/decks/validate",
                lambda out: [RefereeRuleViolation.from_json(v) for v in out.get("violations", [])],
                {"deck": deck})


def _cards() -> Call[dict[str, Any]]:
    """``GET /v1/cards``: ``{"catalog": {"id", "digest"}, "cards": [...]}``."""
    return Call("GET", "/v1/cards", lambda out: out)


def _card(card_id: str) -> Call[dict[str, Any]]:
    """``GET /v1/cards/{id}``: one card (:class:`NotFound` if there is none)."""
    return Call("GET", f"/v1/cards/{quote(card_id, safe='')}", lambda out: out)


def _rules() -> Call[list[dict[str, str]]]:
    """``GET /v1/rules``: ``[{"id": "10.4", "text": "..."}, ...]``."""
    return Call("GET", "/v1/rules", lambda out: out["rules"])


# -- private play (docs/api.md §10) ---------------------------------------------------

class PrivateDeal(NamedTuple):
    """What ``new_private_game`` returns: the token, both seats (hand each player only theirs), the commitment."""

    state: str
    seats: list[str]
    commitment: str
    events: list[dict[str, Any]]


class PrivateStep(NamedTuple):
    """What a private ``apply`` returns: the next token, the actor's events and view, and a re-made seat or None."""

    state: str
    events: list[dict[str, Any]]
    view: dict[str, Any]
    seat: str | None


def _new_private_game(game: dict[str, Any]) -> Call[PrivateDeal]:
    """``POST /v1/games`` on a private referee: a token, both seats and the seed's commitment."""
    return Call("POST", "/v1/games",
                lambda out: PrivateDeal(out["state"], list(out["seats"]), out["commitment"], out.get("events", [])),
                game)


def _private_apply(token: str, seat: str, action: dict[str, Any]) -> Call[PrivateStep]:
    """``POST /v1/apply`` with a seat: the next token, and the events and view of the seat's player."""
    return Call("POST", "/v1/apply",
                lambda out: PrivateStep(out["state"], out.get("events", []), out["view"], out.get("seat")),
                {"state": token, "action": action, "seat": seat})


def _private_validate(token: str, seat: str, action: dict[str, Any]) -> Call[RefereeRuleViolation | None]:
    """``POST /v1/validate`` with a seat (the violation returned, not raised), or ``None`` when legal."""
    call = _validate(token, action)  # type: ignore[arg-type]
    return Call(call.method, call.path, call.read, {**call.body, "seat": seat})


def _private_legal_actions(token: str, seat: str) -> Call[list[dict[str, Any]]]:
    """``POST /v1/legal-actions`` with a seat: the seat player's legal actions."""
    return Call("POST", "/v1/legal-actions", lambda out: out["actions"], {"state": token, "seat": seat})


def _private_view(token: str, seat: str) -> Call[dict[str, Any]]:
    """``POST /v1/view`` with a seat: what the seat's player may see."""
    return Call("POST", "/v1/view", lambda out: out["view"], {"state": token, "seat": seat})


def _private_replay(token: str, seats: list[str], actions: list[dict[str, Any]]) -> Call[Replayed]:
    """``POST /v1/replay`` from a token; needs both seats."""
    return Call("POST", "/v1/replay", lambda out: Replayed(out["state"], out["applied"]),
                {"state": token, "seats": seats, "actions": actions})


def _reveal(token: str, seats: list[str]) -> Call[dict[str, Any]]:
    """``POST /v1/reveal`` with both seats: the whole plain state of a finished private game
    (:class:`GameNotOver` before)."""
    return Call("POST", "/v1/reveal", lambda out: out["state"], {"state": token, "seats": seats})


def _ready() -> Call[bool]:
    """``GET /readyz``: whether the service takes requests now (never retried)."""
    return Call("GET", "/readyz", lambda out: True, retry=False, when_refused=lambda err: False)


class _Endpoint(Generic[P, T]):
    """A :class:`Call` function as a method: ``client.apply(state, action)`` sends
    ``_apply(state, action)`` with that client's ``_send`` — a result from
    :class:`RefereeClient`, an awaitable from :class:`AsyncRefereeClient`.
    On a private game (``bound``) the function takes the game first, and the game's client sends."""

    bound = False

    def __init__(self, call: Callable[P, Call[T]]):
        self.call = call
        self.__doc__ = call.__doc__
        self.__wrapped__ = call

    def __set_name__(self, owner: type, name: str) -> None:
        self.__name__ = name

    @overload
    def __get__(self, client: None, owner: type) -> "_Endpoint[P, T]": ...
    @overload
    def __get__(self, client: "RefereeClient", owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, client: "AsyncRefereeClient", owner: type) -> Callable[P, Awaitable[T]]: ...

    def __get__(self, client: Any, owner: type) -> Any:
        if client is None:
            return self
        call = self.call
        first = (client,) if self.bound else ()

        @functools.wraps(call)
        def method(*args: Any, **kwargs: Any) -> Any:
            return client._send(call(*first, *args, **kwargs))

        method.__name__ = self.__name__
        return method


# -- the clients ----------------------------------------------------------------------

@dataclass(frozen=True)
class _Retry:
    retries: int
    backoff: float
    max_backoff: float

    def __post_init__(self) -> None:
        if self.retries < 0 or self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("retries, backoff and max_backoff must not be negative")

    def wait(self, call: Call[Any], outcome: httpx.Response | httpx.TransportError, attempt: int) -> float | None:
        """Seconds to wait before trying ``call`` again after ``outcome``, or ``None``: it stands."""
        if not call.retry or attempt >= self.retries:
            return None
        if isinstance(outcome, httpx.Response) and outcome.status_code not in RETRY_STATUSES:
            return None
        return min(self.max_backoff, self.backoff * 2 ** attempt) * random.uniform(0.5, 1.0)


class _Tries:
    """The tries of one call, without their I/O (the same for both clients): after each try,
    ``again(outcome)`` is the seconds to wait before the next one, or ``None`` once ``outcome``
    stands (then it is :attr:`last`)."""

    def __init__(self, call: Call[Any], retry: _Retry):
        self.call, self.retry, self.attempt = call, retry, 0
        self.last: httpx.Response | httpx.TransportError | None = None

    def again(self, outcome: httpx.Response | httpx.TransportError) -> float | None:
        self.last = outcome
        wait = self.retry.wait(self.call, outcome, self.attempt)
        self.attempt += 1
        return wait


class _ClientBase:
    """What both clients share: settings, the endpoints, and turning an answer into a result."""

    _http_class: type[httpx.Client] | type[httpx.AsyncClient]

    def __init__(self, base_url: str, *, timeout: float = 10.0, language: str | None = None,
                 headers: dict[str, str] | None = None, transport: Any = None,
                 retries: int = 2, backoff: float = 0.1, max_backoff: float = 2.0):
        self.base_url = base_url.rstrip("/")
        sent = {"Accept": f"{JSON}, application/problem+json"}
        if language:
            sent["Accept-Language"] = language
        sent.update(headers or {})
        self._retry = _Retry(retries, backoff, max_backoff)
        self._http: Any = self._http_class(base_url=self.base_url, timeout=timeout, headers=sent,
                                           transport=transport)

    new_game = _Endpoint(_new_game)
    apply = _Endpoint(_apply)
    validate = _Endpoint(_validate)
    legal_actions = _Endpoint(_legal_actions)
    replay = _Endpoint(_replay)
    view = _Endpoint(_view)
    validate_deck = _Endpoint(_validate_deck)
    cards = _Endpoint(_cards)
    card = _Endpoint(_card)
    rules = _Endpoint(_rules)
    ready = _Endpoint(_ready)
    new_private_game = _Endpoint(_new_private_game)
    private_apply = _Endpoint(_private_apply)
    private_validate = _Endpoint(_private_validate)
    private_legal_actions = _Endpoint(_private_legal_actions)
    private_view = _Endpoint(_private_view)
    private_replay = _Endpoint(_private_replay)
    reveal = _Endpoint(_reveal)

    def _conclude(self, call: Call[T], outcome: httpx.Response | httpx.TransportError) -> T:
        """The result of ``call`` from its last ``outcome``, or the error it raises."""
        try:
            return call.read(self._answer(call, outcome))
        except RefereeClientError as err:
            if call.when_refused is None:
                raise
            return call.when_refused(err)

    def _answer(self, call: Call[Any], outcome: httpx.Response | httpx.TransportError) -> Any:
        where = f"{call.method} {self.base_url}{call.path}"
        if isinstance(outcome, httpx.TimeoutException):
            raise RefereeConnectionError(f"{where}: no answer in time ({outcome})") from outcome
        if isinstance(outcome, httpx.TransportError):
            raise RefereeConnectionError(f"{where}: cannot reach the referee ({outcome})") from outcome
        if outcome.status_code >= 400:
            raise _error(call.method, call.path, outcome)
        try:
            return outcome.json()
        except ValueError:
            raise RefereeHTTPError(f"{call.method} {call.path}: the answer is not JSON",
                                   status=outcome.status_code) from None


class RefereeClient(_ClientBase):
    """A client for one referee service.

    ``base_url`` is where it listens (``http://127.0.0.1:8000``); ``timeout``
    is in seconds, per try; ``language`` (``"en"`` or ``"ja"``) is sent as
    ``Accept-Language`` so violations come in that language; ``retries``,
    ``backoff`` and ``max_backoff`` as in the module's docstring.
    ``transport`` is handed to httpx (tests pass ``httpx.WSGITransport(app=...)``).
    Use it as a context manager, or call :meth:`close`.
    """

    _http_class = httpx.Client

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "RefereeClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _send(self, call: Call[T]) -> T:
        tries = _Tries(call, self._retry)
        while (wait := tries.again(self._try(call))) is not None:
            time.sleep(wait)
        return self._conclude(call, tries.last)

    def _try(self, call: Call[Any]) -> httpx.Response | httpx.TransportError:
        try:
            return self._http.request(call.method, call.path, json=call.body)
        except httpx.TransportError as exc:
            return exc


class AsyncRefereeClient(_ClientBase):
    """:class:`RefereeClient` on ``httpx.AsyncClient``: the same arguments, methods and errors,
    each method awaited. ``transport`` is an ``httpx.AsyncBaseTransport``.
    Use ``async with``, or call :meth:`aclose`.
    """

    _http_class = httpx.AsyncClient

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncRefereeClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def _send(self, call: Call[T]) -> T:
        tries = _Tries(call, self._retry)
        while (wait := tries.again(await self._try(call))) is not None:
            await asyncio.sleep(wait)
        return self._conclude(call, tries.last)

    async def _try(self, call: Call[Any]) -> httpx.Response | httpx.TransportError:
        try:
            return await self._http.request(call.method, call.path, json=call.body)
        except httpx.TransportError as exc:
            return exc


def _error(method: str, path: str, resp: httpx.Response) -> RefereeHTTPError:
    try:
        body = resp.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    status = resp.status_code
    detail = str(body.get("detail") or body.get("title") or resp.reason_phrase or f"HTTP {status}")
    cls = _BY_CODE.get((status, body.get("code")), None) or _BY_STATUS.get(status, RefereeHTTPError)
    return cls(detail, status=status, code=body.get("code"), body=body)


# -- a player's side of a private game (docs/api.md §10) -----------------------------

class _GameEndpoint(_Endpoint[P, T]):
    """An :class:`_Endpoint` of a private game: its function takes the game first."""

    bound = True


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
        self.view: dict[str, Any] = {}

    @property
    def player(self) -> int:
        return self.view["viewer"]

    def _send(self, call: Call[T]) -> Any:
        return self.client._send(call)

    def _see(self, view: dict[str, Any]) -> None:
        if view["seq"] < self.seq:
            raise RollbackDetected(f"the state went back from seq {self.seq} to {view['seq']}")
        if self.commitment is None:
            self.commitment = view["commitment"]
        elif view["commitment"] != self.commitment:
            raise RollbackDetected("the commitment changed: this token is of another game")
        self.seq, self.view = view["seq"], view

    def _receive(self, token: str) -> Call[dict[str, Any]]:
        """Take the token after the opponent's move; returns the new view
        (:class:`RollbackDetected`, and the token not taken, if it is older than one seen)."""
        call = _private_view(token, self.seat)

        def read(out: Any) -> dict[str, Any]:
            view = call.read(out)
            self._see(view)
            self.token = token
            return view

        return replace(call, read=read)

    def _apply(self, action: dict[str, Any]) -> Call[PrivateStep]:
        """Act as this player: the next token is kept; returns the step (its events and view are this player's)."""
        call = _private_apply(self.token, self.seat, action)

        def read(out: Any) -> PrivateStep:
            step = call.read(out)
            self._see(step.view)
            self.token = step.state
            if step.seat is not None:  # made under the referee's new key (rotation)
                self.seat = step.seat
            return step

        return replace(call, read=read)

    def _legal_actions(self) -> Call[list[dict[str, Any]]]:
        """This player's legal actions now."""
        return _private_legal_actions(self.token, self.seat)

    def _validate(self, action: dict[str, Any]) -> Call[RefereeRuleViolation | None]:
        """The violation ``action`` would raise (returned, not raised), or ``None`` when legal."""
        return _private_validate(self.token, self.seat, action)

    def _reveal(self, their_seat: str) -> Call[dict[str, Any]]:
        """The whole state once the game is over (:class:`GameNotOver` before), with the opponent's
        seat, which they give at the end: revealing needs both players."""
        return _reveal(self.token, [self.seat, their_seat])

    receive = _GameEndpoint(_receive)
    apply = _GameEndpoint(_apply)
    legal_actions = _GameEndpoint(_legal_actions)
    validate = _GameEndpoint(_validate)
    reveal = _GameEndpoint(_reveal)


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
            raise TypeError("PrivateGame works with a RefereeClient; with an AsyncRefereeClient, "
                            "use `await AsyncPrivateGame.join(client, token, seat)`")
        super().__init__(client, token, seat)
        self.receive(token)


class AsyncPrivateGame(_PrivateSide):
    """:class:`PrivateGame` on :class:`AsyncRefereeClient`: the same methods and checks, each awaited.

    Join with ``game = await AsyncPrivateGame.join(client, token, seat)``, which takes the first
    view (made directly, a game has none until ``await game.receive(token)``).
    """

    @classmethod
    async def join(cls, client: AsyncRefereeClient, token: str, seat: str) -> "AsyncPrivateGame":
        if not isinstance(client, AsyncRefereeClient):
            raise TypeError("AsyncPrivateGame works with an AsyncRefereeClient; with a RefereeClient, "
                            "use PrivateGame(client, token, seat)")
        game = cls(client, token, seat)
        await game.receive(token)
        return game
