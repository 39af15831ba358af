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
| 400 ``no_ledger`` | :class:`NoLedger` (an ``InvalidRequest``) | ``code`` |
| 404 ``unknown_game`` | :class:`UnknownGame` (a ``NotFound``) | ``code`` |
| 409 ``stale_state`` | :class:`StaleState` | ``latest_seq``; from a private game ``latest``, ``view`` |
| 409 ``next_game_dealt`` | :class:`NextGameDealt` | ``game_id`` (join it through ``latest(...).next``) |
| 413 | :class:`PayloadTooLarge` | |
| 422 | :class:`RefereeRuleViolation` (alias ``RuleViolation``) | ``rule``, ``code``, ``detail``, ``index`` (replay), ``violations`` (decks) |
| 429 ``busy`` | :class:`Busy` (heavy work: a suggestion, a record from the ledger; not retried) | ``retry_after`` |
| 503 ``ledger_unavailable`` | :class:`LedgerUnavailable` (after the retries) | ``code`` |
| 503 ``ledger_outcome_unknown`` | :class:`LedgerOutcomeUnknown` (after the retries of the same move) | ``code`` |
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

**With a ledger** (docs/api.md §11), a move on a token that is not the game's latest raises
:class:`StaleState`; a :class:`PrivateGame` first fetches the latest token (``/v1/latest``),
takes it, and puts it on the error (``err.view``), so the player acts again on the latest state.
``game.latest()`` catches up a second device. A spectator polls with :class:`Spectator`
(:class:`AsyncSpectator`) and the game's ``watch`` key.

How it is built: each endpoint is written once (:mod:`referee.client.calls`), as a function that
returns a :class:`~referee.client.calls.Call` (what to send, and how to read the answer);
:class:`~referee.client.clients.Endpoint` makes it a method of both clients (:mod:`referee.client.clients`), which differ only in how they send
(``_send``: blocking or awaited; the retry decisions are :class:`_Tries`'s, the
same for both). A private game's methods are Calls too, whose reading checks
the view and keeps the token (:mod:`referee.client.private_game`), sent by the client it
holds: one copy of that logic for both.

**Typed answers**: a state is a :class:`StateDict`, an action an :class:`ActionDict`, a view a
:class:`ViewDict`, an event an ``EventDict`` (test its ``type`` to reach that type's keys), from
:mod:`referee.client.types`, generated from the referee's model and its events' schemas, so a
type checker checks every key a program reads of them.
"""

from __future__ import annotations

from referee.client.calls import Latest, NextGame, PrivateDeal, PrivateReplayed, PrivateStep, Replayed, Step, Suggestion
from referee.client.clients import AsyncRefereeClient, RefereeClient
from referee.client.errors import (
    Busy,
    GameNotOver,
    InvalidRequest,
    LedgerOutcomeUnknown,
    LedgerUnavailable,
    NextGameDealt,
    NoLedger,
    NotFound,
    NotInPrivateMode,
    PayloadTooLarge,
    PrivateModeOff,
    RefereeClientError,
    RefereeConnectionError,
    RefereeHTTPError,
    RefereeRuleViolation,
    RollbackDetected,
    RuleViolation,
    SealRejected,
    SeatRejected,
    StaleState,
    TokenRejected,
    UnknownGame,
)
from referee.client.private_game import AsyncPrivateGame, AsyncSpectator, PrivateGame, Spectator
from referee.client.types import ActionDict, EventDict, StateDict, ViewDict

__all__ = [
    "ActionDict",
    "AsyncPrivateGame",
    "AsyncRefereeClient",
    "AsyncSpectator",
    "Busy",
    "EventDict",
    "GameNotOver",
    "InvalidRequest",
    "Latest",
    "LedgerOutcomeUnknown",
    "LedgerUnavailable",
    "NextGame",
    "NextGameDealt",
    "NoLedger",
    "NotFound",
    "NotInPrivateMode",
    "PayloadTooLarge",
    "PrivateDeal",
    "PrivateGame",
    "PrivateModeOff",
    "PrivateReplayed",
    "PrivateStep",
    "RefereeClient",
    "RefereeClientError",
    "RefereeConnectionError",
    "RefereeHTTPError",
    "RefereeRuleViolation",
    "Replayed",
    "RollbackDetected",
    "RuleViolation",
    "SealRejected",
    "SeatRejected",
    "Spectator",
    "StaleState",
    "StateDict",
    "Step",
    "Suggestion",
    "TokenRejected",
    "UnknownGame",
    "ViewDict",
]
