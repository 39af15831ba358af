"""The client's errors: one class per kind of refusal, each carrying the problem the referee answered.

::

    RefereeClientError                 status, code, detail, body (RFC 9457)
    ├── RefereeConnectionError         no answer (the transport error as __cause__)
    ├── RollbackDetected               a private game was handed an older token
    └── RefereeHTTPError               an error status with no more specific class
        ├── InvalidRequest             400; errors (field path → messages)
        │   ├── NotInPrivateMode       400 not_in_private_mode
        │   ├── PrivateModeOff         400 private_mode_off
        │   └── NoLedger               400 no_ledger
        ├── SealRejected               403 (sealing)
        ├── TokenRejected              403 bad_token, private_mode
        ├── SeatRejected               403 bad_seat, not_your_seat
        ├── GameNotOver                403 game_not_over
        ├── NotFound                   404
        │   └── UnknownGame            404 unknown_game
        ├── StaleState                 409 stale_state; latest_seq, and from a private game the latest
        │                              token and view (latest)
        ├── NextGameDealt              409 next_game_dealt; game_id (a match's next game, dealt already)
        ├── PayloadTooLarge            413
        ├── RefereeRuleViolation       422; rule, index, violations (alias RuleViolation)
        ├── Busy                       429 busy; retry_after (heavy work: a hint, a record; not retried)
        └── LedgerUnavailable          503 ledger_unavailable (retried first, as every 503)
            └── LedgerOutcomeUnknown   503 ledger_outcome_unknown (the same move: retried first, safely)
"""

from __future__ import annotations

from typing import Any

import httpx


class RefereeClientError(Exception):
    """Base of every error the client raises."""

    status: int | None = None

    def __init__(
        self, detail: str, *, status: int | None = None, code: str | None = None, body: dict[str, Any] | None = None
    ):
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

    ``rule`` is the RULES.md id (a 422 always carries one, docs/api.md §7; an
    answer that breaks that reads as ``""``), ``code`` the stable snake_case name,
    ``detail`` the human text, ``index`` the 0-based index of the illegal
    action of a replay (else ``None``), and ``violations`` every problem of an
    illegal deck (else ``[]``); an event's refusal (docs/api.md §17) names its
    ``round`` and ``table`` (1-based, else ``None``).
    """

    status = 422

    def __init__(self, detail: str, **kw: Any):
        super().__init__(detail, **kw)
        self.rule: str = str(self.body.get("rule") or "")
        self.index: int | None = self.body.get("index")
        self.round: int | None = self.body.get("round")
        self.table: int | None = self.body.get("table")
        self.violations: list[dict[str, Any]] = list(self.body.get("violations") or [])

    @classmethod
    def from_json(cls, violation: dict[str, Any]) -> RefereeRuleViolation:
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


class NoLedger(InvalidRequest):
    """400: ``/v1/latest`` asked of a referee without a ledger (``no_ledger``)."""


class UnknownGame(NotFound):
    """404: the ledger holds no such game (``unknown_game``: never recorded, or expired)."""


class StaleState(RefereeHTTPError):
    """409 (a referee with a ledger, docs/api.md §11): the token is not the game's latest; nothing was applied.

    ``latest_seq`` is the game's latest seq. Raised by a private game's ``apply``, it also carries
    ``latest`` (:class:`~referee.client.calls.Latest`: the latest token, seq and this seat's view),
    which the game has taken: act again on it.
    """

    status = 409

    def __init__(self, detail: str, **kw: Any):
        super().__init__(detail, **kw)
        self.latest_seq: int | None = self.body.get("latest_seq")
        self.latest: Any = None

    @property
    def view(self) -> dict[str, Any] | None:
        """The seat's view of the game's latest state (from a private game), else None."""
        return self.latest.view if self.latest is not None else None


class NextGameDealt(RefereeHTTPError):
    """409 (a referee with a ledger, docs/api.md §15): this match's next game was dealt already; nothing was dealt
    again. ``game_id`` is that game's: a seat of the game before joins it through ``latest(...).next``."""

    status = 409

    def __init__(self, detail: str, **kw: Any):
        super().__init__(detail, **kw)
        self.game_id: str | None = self.body.get("game_id")


class Busy(RefereeHTTPError):
    """429: heavy work (a suggestion, a record recovered from the ledger) could not start now, the referee's
    share for it being taken (``busy``); nothing was done. ``retry_after``: the seconds it asks to wait. Not
    retried by the client: a hint asked again later may be a hint for another position."""

    status = 429

    def __init__(self, detail: str, **kw: Any):
        super().__init__(detail, **kw)
        self.retry_after: float = 1.0


class LedgerUnavailable(RefereeHTTPError):
    """503: the referee's ledger cannot be reached now (``ledger_unavailable``); nothing was applied."""

    status = 503


class LedgerOutcomeUnknown(LedgerUnavailable):
    """503: the move reached the referee's ledger, which did not answer in time (``ledger_outcome_unknown``):
    it may be recorded or not. Sending the same move on the same token again is safe (a recorded move is
    answered as recorded), as is asking for the latest token."""


class RollbackDetected(RefereeClientError):
    """A :class:`PrivateGame` was handed a token older than one it has seen (``seq`` went back)."""


# Which class an error answer raises is read from the answer alone: its ``code`` where the code names
# a kind of its own, else its status (each class's ``status``). The client keeps no table of which
# error has which status: the referee's answer says.
BY_CODE: dict[str, type[RefereeHTTPError]] = {
    "bad_token": TokenRejected,
    "private_mode": TokenRejected,
    "bad_seat": SeatRejected,
    "not_your_seat": SeatRejected,
    "game_not_over": GameNotOver,
    "not_in_private_mode": NotInPrivateMode,
    "private_mode_off": PrivateModeOff,
    "no_ledger": NoLedger,
    "unknown_game": UnknownGame,
    "stale_state": StaleState,
    "next_game_dealt": NextGameDealt,
    "ledger_unavailable": LedgerUnavailable,
    "ledger_outcome_unknown": LedgerOutcomeUnknown,
}
BY_STATUS: dict[int, type[RefereeHTTPError]] = {
    cls.status: cls
    for cls in (InvalidRequest, SealRejected, NotFound, PayloadTooLarge, RefereeRuleViolation, Busy)
    if cls.status is not None
}


def error_of(method: str, path: str, resp: httpx.Response) -> RefereeHTTPError:
    """The error an answer with an error status raises: by its ``code`` where one is named, else by status."""
    try:
        body = resp.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    status = resp.status_code
    detail = str(body.get("detail") or body.get("title") or resp.reason_phrase or f"HTTP {status}")
    code = body.get("code")
    cls = (BY_CODE.get(code) if isinstance(code, str) else None) or BY_STATUS.get(status, RefereeHTTPError)
    error = cls(detail, status=status, code=body.get("code"), body=body)
    if isinstance(error, Busy):
        try:
            error.retry_after = max(0.0, float(resp.headers.get("Retry-After", "1")))
        except ValueError:  # an HTTP date: wait the default
            pass
    return error
