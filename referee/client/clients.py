"""The two clients: :class:`RefereeClient` (blocking) and :class:`AsyncRefereeClient` (awaited).

They differ only in how they send (``_send``); what to send and how to read
the answer is :mod:`referee.client.calls`', and when to try again is
:class:`_Tries`', the same for both.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, overload

import httpx

from referee.client import calls
from referee.client.calls import JSON, Call, Method, P, T, sending
from referee.client.errors import RefereeClientError, RefereeConnectionError, RefereeHTTPError, error_of

RETRY_STATUSES = frozenset({502, 503, 504})


class Endpoint(Method[Callable[P, Call[T]]], Generic[P, T]):
    """A :class:`Call` function as a method: ``client.apply(state, action)`` sends
    ``calls.apply(state, action)`` with that client's ``_send`` — a result from
    :class:`RefereeClient`, an awaitable from :class:`AsyncRefereeClient`."""

    @overload
    def __get__(self, client: None, owner: type) -> Endpoint[P, T]: ...
    @overload
    def __get__(self, client: RefereeClient, owner: type) -> Callable[P, T]: ...
    @overload
    def __get__(self, client: AsyncRefereeClient, owner: type) -> Callable[P, Awaitable[T]]: ...

    def __get__(self, client: Any, owner: type) -> Any:
        if client is None:
            return self
        return sending(client, self.call, self.__name__)


@dataclass(frozen=True)
class _Retry:
    retries: int
    backoff: float
    max_backoff: float

    def __post_init__(self) -> None:
        if self.retries < 0 or self.backoff < 0 or self.max_backoff < 0:
            raise ValueError("retries, backoff and max_backoff must not be negative")

    def wait(self, call: Call[Any], outcome: Outcome, attempt: int) -> float | None:
        """Seconds to wait before trying ``call`` again after ``outcome``, or ``None``: it stands."""
        if not call.retry or attempt >= self.retries:
            return None
        if isinstance(outcome, httpx.Response) and outcome.status_code not in RETRY_STATUSES:
            return None
        return min(self.max_backoff, self.backoff * 2.0**attempt) * random.uniform(0.5, 1.0)


Outcome = httpx.Response | httpx.TransportError  # what one try gives


class _Tries:
    """The tries of one call, without their I/O (the same for both clients): after each try,
    ``again(outcome)`` is the seconds to wait before the next one, or ``None`` once ``outcome``
    stands (then it is :attr:`last`)."""

    def __init__(self, call: Call[Any], retry: _Retry):
        self.call, self.retry, self.attempt = call, retry, 0
        self._last: Outcome | None = None

    def again(self, outcome: Outcome) -> float | None:
        self._last = outcome
        wait = self.retry.wait(self.call, outcome, self.attempt)
        self.attempt += 1
        return wait

    @property
    def last(self) -> Outcome:
        """The outcome of the last try (there is one: a call is tried at least once)."""
        if self._last is None:
            raise RuntimeError("no try yet")
        return self._last


class _ClientBase:
    """What both clients share: settings, the endpoints, and turning an answer into a result."""

    _http_class: type[httpx.Client] | type[httpx.AsyncClient]

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = 10.0,
        language: str | None = None,
        headers: dict[str, str] | None = None,
        transport: Any = None,
        retries: int = 2,
        backoff: float = 0.1,
        max_backoff: float = 2.0,
    ):
        self.base_url = base_url.rstrip("/")
        sent = {"Accept": f"{JSON}, application/problem+json"}
        if language:
            sent["Accept-Language"] = language
        sent.update(headers or {})
        self._retry = _Retry(retries, backoff, max_backoff)
        self._http: Any = self._http_class(base_url=self.base_url, timeout=timeout, headers=sent, transport=transport)

    new_game = Endpoint(calls.new_game)
    next_game = Endpoint(calls.next_game)
    apply = Endpoint(calls.apply)
    validate = Endpoint(calls.validate)
    legal_actions = Endpoint(calls.legal_actions)
    replay = Endpoint(calls.replay)
    record = Endpoint(calls.record)
    view = Endpoint(calls.view)
    suggest = Endpoint(calls.suggest)
    pair = Endpoint(calls.pair)
    standings = Endpoint(calls.standings)
    check_event = Endpoint(calls.check_event)
    validate_deck = Endpoint(calls.validate_deck)
    check_deck = Endpoint(calls.check_deck)
    formats = Endpoint(calls.formats)
    cards = Endpoint(calls.cards)
    card = Endpoint(calls.card)
    rules = Endpoint(calls.rules)
    ready = Endpoint(calls.ready)
    new_private_game = Endpoint(calls.new_private_game)
    next_private_game = Endpoint(calls.next_private_game)
    private_apply = Endpoint(calls.private_apply)
    private_validate = Endpoint(calls.private_validate)
    private_legal_actions = Endpoint(calls.private_legal_actions)
    private_view = Endpoint(calls.private_view)
    private_suggest = Endpoint(calls.private_suggest)
    private_replay = Endpoint(calls.private_replay)
    reveal = Endpoint(calls.reveal)
    private_record = Endpoint(calls.private_record)
    game_record = Endpoint(calls.game_record)
    latest = Endpoint(calls.latest)

    def _conclude(self, call: Call[T], outcome: Outcome) -> T:
        """The result of ``call`` from its last ``outcome``, or the error it raises."""
        try:
            return call.read(self._answer(call, outcome))
        except RefereeClientError as err:
            if call.when_refused is None:
                raise
            return call.when_refused(err)

    @staticmethod
    def _follow_up(call: Call[T], err: RefereeClientError) -> Call[T]:
        """The call a refusal of ``call`` leads to (a stale move: fetch the latest state), else ``err``."""
        follow = call.follow(err) if call.follow is not None else None
        if follow is None:
            raise err
        return follow

    def _answer(self, call: Call[Any], outcome: Outcome) -> Any:
        where = f"{call.method} {self.base_url}{call.path}"
        if isinstance(outcome, httpx.TimeoutException):
            raise RefereeConnectionError(f"{where}: no answer in time ({outcome})") from outcome
        if isinstance(outcome, httpx.TransportError):
            raise RefereeConnectionError(f"{where}: cannot reach the referee ({outcome})") from outcome
        if outcome.status_code >= 400:
            raise error_of(call.method, call.path, outcome)
        if call.text:
            return outcome.text
        try:
            return outcome.json()
        except ValueError:
            raise RefereeHTTPError(
                f"{call.method} {call.path}: the answer is not JSON", status=outcome.status_code
            ) from None


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
    _http: httpx.Client

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RefereeClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _send(self, call: Call[T]) -> T:
        tries = _Tries(call, self._retry)
        while (wait := tries.again(self._try(call))) is not None:
            time.sleep(wait)
        try:
            return self._conclude(call, tries.last)
        except RefereeClientError as err:
            return self._send(self._follow_up(call, err))

    def _try(self, call: Call[Any]) -> Outcome:
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
    _http: httpx.AsyncClient

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncRefereeClient:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def _send(self, call: Call[T]) -> T:
        tries = _Tries(call, self._retry)
        while (wait := tries.again(await self._try(call))) is not None:
            await asyncio.sleep(wait)
        try:
            return self._conclude(call, tries.last)
        except RefereeClientError as err:
            return await self._send(self._follow_up(call, err))

    async def _try(self, call: Call[Any]) -> Outcome:
        try:
            return await self._http.request(call.method, call.path, json=call.body)
        except httpx.TransportError as exc:
            return exc
