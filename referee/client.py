"""A Python client for the referee's HTTP API (API.md), with typed errors.

>>> from referee.client import RefereeClient, RefereeRuleViolation
>>> with RefereeClient("http://127.0.0.1:8000") as ref:           # doctest: +SKIP
...     state, events = ref.new_game({"decks": [deck0, deck1], "seed": "s-1"})
...     try:
...         state, events = ref.apply(state, {"type": "draw", "player": 0})
...     except RefereeRuleViolation as v:
...         print(v.rule, v.code, v.detail)

Every method maps to one endpoint and returns plain JSON data (dicts and
lists), the results that have two parts as named tuples that unpack like the
engine's own ``(state, events)``. A refusal raises:

| status | exception | what it carries |
| --- | --- | --- |
| 400 | :class:`InvalidRequest` | ``code``, ``errors`` (field path → messages) |
| 403 | :class:`SealRejected` | ``code`` |
| 404 | :class:`NotFound` | ``code`` |
| 413 | :class:`PayloadTooLarge` | |
| 422 | :class:`RefereeRuleViolation` (alias ``RuleViolation``) | ``rule``, ``code``, ``detail``, ``index`` (replay), ``violations`` (decks) |
| other | :class:`RefereeHTTPError` | ``status``, ``body`` |
| no answer | :class:`RefereeConnectionError` | the transport error as ``__cause__`` |

All of them derive from :class:`RefereeClientError` and carry ``status``,
``code``, ``detail`` and the problem ``body`` (RFC 9457).
"""

from __future__ import annotations

from typing import Any, NamedTuple
from urllib.parse import quote

import httpx

__all__ = [
    "RefereeClient", "Step", "Replayed", "RefereeClientError", "RefereeHTTPError",
    "InvalidRequest", "SealRejected", "NotFound", "PayloadTooLarge", "RefereeRuleViolation",
    "RuleViolation", "RefereeConnectionError",
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
    """403: sealing is on and the state's seal is missing or wrong (API.md §4)."""

    status = 403


class NotFound(RefereeHTTPError):
    """404: unknown path or card."""

    status = 404


class PayloadTooLarge(RefereeHTTPError):
    """413: the body is over the service's limit."""

    status = 413


class RefereeRuleViolation(RefereeHTTPError):
    """422: a well-formed action (or deck) breaks a rule (API.md §7).

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


RuleViolation = RefereeRuleViolation  # the name the issue and API.md §7 use

_BY_STATUS: dict[int, type[RefereeHTTPError]] = {
    400: InvalidRequest, 403: SealRejected, 404: NotFound, 413: PayloadTooLarge, 422: RefereeRuleViolation,
}


class RefereeClient:
    """A client for one referee service.

    ``base_url`` is where it listens (``http://127.0.0.1:8000``); ``timeout``
    is in seconds; ``language`` (``"en"`` or ``"ja"``) is sent as
    ``Accept-Language`` so violations come in that language. ``transport``
    is handed to httpx (tests pass ``httpx.WSGITransport(app=...)``).
    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, base_url: str, *, timeout: float = 10.0, language: str | None = None,
                 headers: dict[str, str] | None = None, transport: httpx.BaseTransport | None = None):
        hdrs = {"Accept": f"{JSON}, application/problem+json"}
        if language:
            hdrs["Accept-Language"] = language
        hdrs.update(headers or {})
        self.base_url = base_url.rstrip("/")
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout, headers=hdrs, transport=transport)

    # -- plumbing ----------------------------------------------------------

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "RefereeClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _call(self, method: str, path: str, body: Any = None) -> Any:
        try:
            if body is None:
                resp = self._http.request(method, path)
            else:
                resp = self._http.request(method, path, json=body)
        except httpx.TimeoutException as exc:
            raise RefereeConnectionError(f"{method} {self.base_url}{path}: no answer in time ({exc})") from exc
        except httpx.TransportError as exc:
            raise RefereeConnectionError(f"{method} {self.base_url}{path}: cannot reach the referee ({exc})") from exc
        if resp.status_code < 400:
            try:
                return resp.json()
            except ValueError:
                raise RefereeHTTPError(f"{method} {path}: the answer is not JSON", status=resp.status_code) from None
        raise _error(method, path, resp)

    # -- the endpoints (API.md §1) ------------------------------------------

    def new_game(self, game: dict[str, Any]) -> Step:
        """``POST /v1/games``: check both decks, shuffle, deal (an illegal deck raises with ``violations``)."""
        out = self._call("POST", "/v1/games", game)
        return Step(out["state"], out.get("events", []))

    def apply(self, state: dict[str, Any], action: dict[str, Any]) -> Step:
        """``POST /v1/apply``: the next state and its events."""
        out = self._call("POST", "/v1/apply", {"state": state, "action": action})
        return Step(out["state"], out.get("events", []))

    def validate(self, state: dict[str, Any], action: dict[str, Any]) -> RefereeRuleViolation | None:
        """``POST /v1/validate``: the violation ``action`` would raise (returned, not raised), or ``None``."""
        out = self._call("POST", "/v1/validate", {"state": state, "action": action})
        if out.get("legal"):
            return None
        return RefereeRuleViolation.from_json(out.get("violation") or {})

    def legal_actions(self, state: dict[str, Any], player: int | None = None) -> list[dict[str, Any]]:
        """``POST /v1/legal-actions``: every legal action now (for ``player``, or whoever may act)."""
        body: dict[str, Any] = {"state": state}
        if player is not None:
            body["player"] = player
        return self._call("POST", "/v1/legal-actions", body)["actions"]

    def replay(self, actions: list[dict[str, Any]], *, game: dict[str, Any] | None = None,
               state: dict[str, Any] | None = None) -> Replayed:
        """``POST /v1/replay`` from a NewGame or a state; the first illegal action raises with ``index``."""
        if (game is None) == (state is None):
            raise ValueError("give exactly one of game= and state=")
        body: dict[str, Any] = {"actions": actions}
        body.update({"game": game} if game is not None else {"state": state})
        out = self._call("POST", "/v1/replay", body)
        return Replayed(out["state"], out["applied"])

    def view(self, state: dict[str, Any], player: int) -> dict[str, Any]:
        """``POST /v1/view``: what ``player`` may see (API.md §5)."""
        return self._call("POST", "/v1/view", {"state": state, "player": player})["view"]

    def validate_deck(self, deck: Any) -> list[RefereeRuleViolation]:
        """``POST /v1/decks/validate``: every violation of one deck (empty when legal)."""
        out = self._call("POST", "/v1/decks/validate", {"deck": deck})
        return [RefereeRuleViolation.from_json(v) for v in out.get("violations", [])]

    def cards(self) -> dict[str, Any]:
        """``GET /v1/cards``: ``{"catalog": {"id", "digest"}, "cards": [...]}``."""
        return self._call("GET", "/v1/cards")

    def card(self, card_id: str) -> dict[str, Any]:
        """``GET /v1/cards/{id}``: one card (:class:`NotFound` if there is none)."""
        return self._call("GET", f"/v1/cards/{quote(card_id, safe='')}")

    def rules(self) -> list[dict[str, str]]:
        """``GET /v1/rules``: ``[{"id": "10.4", "text": "..."}, ...]``."""
        return self._call("GET", "/v1/rules")["rules"]

    def ready(self) -> bool:
        """``GET /readyz``: whether the service takes requests now."""
        try:
            self._call("GET", "/readyz")
        except RefereeClientError:
            return False
        return True


def _error(method: str, path: str, resp: httpx.Response) -> RefereeHTTPError:
    try:
        body = resp.json()
    except ValueError:
        body = {}
    if not isinstance(body, dict):
        body = {}
    status = resp.status_code
    detail = str(body.get("detail") or body.get("title") or resp.reason_phrase or f"HTTP {status}")
    cls = _BY_STATUS.get(status, RefereeHTTPError)
    return cls(detail, status=status, code=body.get("code"), body=body)
