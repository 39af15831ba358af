"""What each endpoint sends and how its answer is read, written once for both clients.

Each function returns a :class:`Call`; :class:`Endpoint` makes it a method of
:class:`~referee.client.RefereeClient` and :class:`~referee.client.AsyncRefereeClient`
(and, bound to a game, of :class:`~referee.client.PrivateGame`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Generic, Literal, NamedTuple, ParamSpec, TypeVar
from urllib.parse import quote

from referee.client.errors import RefereeClientError, RefereeRuleViolation
from referee.client.types import ActionDict, EventDict, StateDict, ViewDict

JSON = "application/json"


class Step(NamedTuple):
    """What ``new_game`` and ``apply`` return: the state and the events that led to it."""

    state: StateDict
    events: list[EventDict]


class Replayed(NamedTuple):
    """What ``replay`` returns: the final state and how many actions were applied."""

    state: StateDict
    applied: int


class PrivateReplayed(NamedTuple):
    """What ``private_replay`` returns: the final state's token and how many actions were applied."""

    state: str
    applied: int


T = TypeVar("T")
P = ParamSpec("P")


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request: ``method`` and ``path``, the JSON ``body`` (``None``: none), ``read`` (the
    answer's JSON → the method's result), whether it may be ``retry``-ed, and ``when_refused``
    (an error → a result, instead of raising it), and ``follow`` (an error → another Call to send)."""

    method: str
    path: str
    read: Callable[[Any], T]
    body: Any = None
    retry: bool = True
    when_refused: Callable[[RefereeClientError], T] | None = None
    # an error → a second request to send in its place (None: raise the error), e.g. a stale
    # move's latest state, fetched so that the error raised carries it
    follow: Callable[[RefereeClientError], Call[T] | None] | None = None
    text: bool = False  # the answer is text (a game record), handed to ``read`` as a str, not JSON


def _step(out: Any) -> Step:
    return Step(out["state"], out.get("events", []))


def new_game(game: dict[str, Any]) -> Call[Step]:
    """``POST /v1/games``: check both decks, shuffle, deal (an illegal deck raises with ``violations``)."""
    return Call("POST", "/v1/games", _step, game)


def apply(state: StateDict | dict[str, Any], action: ActionDict | dict[str, Any]) -> Call[Step]:
    """``POST /v1/apply``: the next state and its events."""
    return Call("POST", "/v1/apply", _step, {"state": state, "action": action})


def validate(
    state: StateDict | dict[str, Any], action: ActionDict | dict[str, Any]
) -> Call[RefereeRuleViolation | None]:
    """``POST /v1/validate``: the violation ``action`` would raise (returned, not raised), or ``None``."""

    def read(out: Any) -> RefereeRuleViolation | None:
        return None if out.get("legal") else RefereeRuleViolation.from_json(out.get("violation") or {})

    return Call("POST", "/v1/validate", read, {"state": state, "action": action})


def legal_actions(state: StateDict | dict[str, Any], player: int | None = None) -> Call[list[ActionDict]]:
    """``POST /v1/legal-actions``: every legal action now (for ``player``, or whoever may act)."""
    body: dict[str, Any] = {"state": state}
    if player is not None:
        body["player"] = player
    return Call("POST", "/v1/legal-actions", lambda out: out["actions"], body)


def _game_body(actions: Any, game: Any, state: Any, record: str | None) -> dict[str, Any]:
    """The body that names a game for ``/v1/replay`` and ``/v1/records``: a NewGame or a state with its
    actions, or a record's text alone."""
    if sum(x is not None for x in (game, state, record)) != 1:
        raise ValueError("give exactly one of game=, state= and record=")
    if (record is None) == (actions is None):
        raise ValueError("give actions with game= or state=, and none with record= (its moves are the actions)")
    if record is not None:
        return {"record": record}
    return {"actions": actions} | ({"game": game} if game is not None else {"state": state})


def replay(
    actions: list[ActionDict] | list[dict[str, Any]] | None = None,
    *,
    game: dict[str, Any] | None = None,
    state: StateDict | dict[str, Any] | None = None,
    record: str | None = None,
) -> Call[Replayed]:
    """``POST /v1/replay`` from a NewGame or a state and ``actions``, or a game record's text (docs/records.md)
    alone; the first illegal action raises with ``index`` (and, from a record, ``line`` in its ``body``)."""
    body = _game_body(actions, game, state, record)
    return Call("POST", "/v1/replay", lambda out: Replayed(out["state"], out["applied"]), body)


WHOLE: Final = "whole"
"""``player=WHOLE`` (the default) asks ``record`` for the whole record; a seat's number for that seat's, and
``None`` for a spectator's, as the API's ``player`` (docs/api.md §14)."""


def _record_call(body: dict[str, Any], times: list[int] | None, player: int | Literal["whole"] | None) -> Call[str]:
    if times is not None:
        body["times"] = times
    if player != WHOLE:
        body["player"] = player
    return Call("POST", "/v1/records", str, body, text=True)


def record(
    actions: list[dict[str, Any]] | None = None,
    *,
    game: dict[str, Any] | None = None,
    state: dict[str, Any] | None = None,
    record: str | None = None,
    times: list[int] | None = None,
    player: int | Literal["whole"] | None = WHOLE,
) -> Call[str]:
    """``POST /v1/records``: the game record (docs/records.md) of a NewGame (or the state of its deal) and
    ``actions``, or of a record's text; whole, or as ``player`` may know it (``None``: a spectator). The
    first illegal action raises with ``index``; a record that does not read, ``InvalidRequest`` ``bad_record``."""
    body = _game_body(actions, game, state, record)
    return _record_call(body, times, player)


def view(state: StateDict | dict[str, Any], player: int) -> Call[ViewDict]:
    """``POST /v1/view``: what ``player`` may see (docs/api.md §5)."""
    return Call("POST", "/v1/view", lambda out: out["view"], {"state": state, "player": player})


class Suggestion(NamedTuple):
    """``POST /v1/suggest``'s answer: one of the player's legal actions, and its label."""

    action: ActionDict
    label: str


def _bot_body(bot: str, budget_ms: int | None, iterations: int | None, seed: str | None) -> dict[str, Any]:
    if (budget_ms is None) == (iterations is None):
        raise ValueError("give exactly one of budget_ms= and iterations=")
    body: dict[str, Any] = {"bot": bot}
    body.update({"budget_ms": budget_ms} if budget_ms is not None else {"iterations": iterations})
    if seed is not None:
        body["seed"] = seed
    return body


def suggest(
    state: StateDict | dict[str, Any],
    player: int,
    bot: str,
    *,
    budget_ms: int | None = None,
    iterations: int | None = None,
    seed: str | None = None,
) -> Call[Suggestion]:
    """``POST /v1/suggest``: ``bot``'s move for ``player`` from that player's view (docs/api.md §16); give
    ``budget_ms`` (at most 2000) or ``iterations`` (the same move on every machine)."""
    body = {"state": state, "player": player, **_bot_body(bot, budget_ms, iterations, seed)}
    return Call("POST", "/v1/suggest", lambda out: Suggestion(out["action"], out["label"]), body)


def _answer(out: Any) -> Any:
    return out


def pair(event: dict[str, Any]) -> Call[dict[str, Any]]:
    """``POST /v1/events/pair``: ``{"event", "round", "pairings"}``, the event with its next round appended
    (docs/api.md §17), or ``"swiss_ended": true``; a round missing a result, or an event over, raises
    :class:`RefereeRuleViolation` (``round``, ``table``)."""
    return Call("POST", "/v1/events/pair", _answer, {"event": event})


def standings(event: dict[str, Any]) -> Call[dict[str, Any]]:
    """``POST /v1/events/standings``: ``{"standings", "ratings", "winner"?}`` of an event (docs/api.md §17)."""
    return Call("POST", "/v1/events/standings", _answer, {"event": event})


def check_event(event: dict[str, Any]) -> Call[bool]:
    """``POST /v1/events/check``: True when every round obeys RULES 15; else :class:`RefereeRuleViolation`
    naming the first rule broken, its ``round`` and ``table``."""
    return Call("POST", "/v1/events/check", lambda out: bool(out["ok"]), {"event": event})


def _deck_body(deck: Any, format: str | dict[str, str] | None) -> dict[str, Any]:
    body: dict[str, Any] = {"deck": deck}
    if format is not None:
        body["format"] = format
    return body


def validate_deck(deck: Any, format: str | dict[str, str] | None = None) -> Call[list[RefereeRuleViolation]]:
    """``POST /v1/decks/validate``: every violation of one deck (empty when legal), in ``format`` if given.

    ``deck``: ids, counts, a deck list (text) or a deck code (docs/api.md §13); ``format``: an id or
    ``{"id": id, "date": "YYYY-MM-DD"}``.
    """
    return Call(
        "POST",
        "/v1/decks/validate",
        lambda out: [RefereeRuleViolation.from_json(v) for v in out.get("violations", [])],
        _deck_body(deck, format),
    )


def check_deck(deck: Any, format: str | dict[str, str] | None = None) -> Call[dict[str, Any]]:
    """``POST /v1/decks/validate``'s whole answer: ``legal``, ``violations`` and the deck's canonical
    ``deck`` forms (``counts``, ``list``, ``code``), to convert a deck list to a code and back."""
    return Call("POST", "/v1/decks/validate", lambda out: out, _deck_body(deck, format))


def formats() -> Call[list[dict[str, Any]]]:
    """``GET /v1/formats``: the catalog's formats, each with its dated revisions."""
    return Call("GET", "/v1/formats", lambda out: out["formats"])


def cards() -> Call[dict[str, Any]]:
    """``GET /v1/cards``: ``{"catalog": {"id", "digest"}, "cards": [...]}``."""
    return Call("GET", "/v1/cards", lambda out: out)


def card(card_id: str) -> Call[dict[str, Any]]:
    """``GET /v1/cards/{id}``: one card (:class:`NotFound` if there is none)."""
    return Call("GET", f"/v1/cards/{quote(card_id, safe='')}", lambda out: out)


def rules() -> Call[list[dict[str, str]]]:
    """``GET /v1/rules``: ``[{"id": "10.4", "text": "..."}, ...]``."""
    return Call("GET", "/v1/rules", lambda out: out["rules"])


# -- private play (docs/api.md §10) ---------------------------------------------------


class PrivateDeal(NamedTuple):
    """What ``new_private_game`` returns: the token, both seats (hand each player only theirs), the commitment."""

    state: str
    seats: list[str]
    commitment: str
    events: list[EventDict]
    watch: str | None = None  # the spectator key (docs/api.md §12)


class PrivateStep(NamedTuple):
    """What a private ``apply`` returns: the next token, the actor's events and view, and a re-made seat or None."""

    state: str
    events: list[EventDict]
    view: ViewDict
    seat: str | None


class NextGame(NamedTuple):
    """A match's next game as a seat of the game before follows it (docs/api.md §15): its id and the seat (the
    same player's, or the spectator key's) to join it with: ``latest(next.game_id, next.seat)``."""

    game_id: str
    seat: str


class Latest(NamedTuple):
    """What ``latest`` returns: a game's latest token, its seq, and the view of it for the key sent; ``next``,
    for a finished game of a match that goes on, the next game once the loser has dealt it (else None)."""

    state: str
    seq: int
    view: ViewDict
    next: NextGame | None = None


def new_private_game(game: dict[str, Any]) -> Call[PrivateDeal]:
    """``POST /v1/games`` on a private referee: a token, both seats and the seed's commitment."""
    return Call(
        "POST",
        "/v1/games",
        lambda out: PrivateDeal(
            out["state"], list(out["seats"]), out["commitment"], out.get("events", []), out.get("watch")
        ),
        game,
    )


def next_private_game(token: str, seat: str, first_player: int) -> Call[PrivateDeal]:
    """``POST /v1/matches/next`` on a private referee (docs/api.md §15): the next game of a match, from the
    final token of the game that ended and the loser's seat; ``first_player`` is the loser's choice (RULES 14.2).
    New seats for both players (the loser hands the opponent theirs), a new commitment."""
    return Call(
        "POST",
        "/v1/matches/next",
        lambda out: PrivateDeal(
            out["state"], list(out["seats"]), out["commitment"], out.get("events", []), out.get("watch")
        ),
        {"state": token, "seats": [seat], "first_player": first_player},
    )


def next_game(state: StateDict | dict[str, Any], first_player: int, player: int | None = None) -> Call[Step]:
    """``POST /v1/matches/next`` (plain mode): the next game of a match from the final state of the game that
    ended; ``player``, if given, is who chose ``first_player`` (the loser, RULES 14.2)."""
    body: dict[str, Any] = {"state": state, "first_player": first_player}
    if player is not None:
        body["player"] = player
    return Call("POST", "/v1/matches/next", _step, body)


def private_apply(token: str, seat: str, action: ActionDict | dict[str, Any]) -> Call[PrivateStep]:
    """``POST /v1/apply`` with a seat: the next token, and the events and view of the seat's player."""
    return Call(
        "POST",
        "/v1/apply",
        lambda out: PrivateStep(out["state"], out.get("events", []), out["view"], out.get("seat")),
        {"state": token, "action": action, "seat": seat},
    )


def private_validate(token: str, seat: str, action: ActionDict | dict[str, Any]) -> Call[RefereeRuleViolation | None]:
    """``POST /v1/validate`` with a seat (the violation returned, not raised), or ``None`` when legal."""
    call = validate(token, action)  # type: ignore[arg-type]
    return Call(call.method, call.path, call.read, {**call.body, "seat": seat})


def private_legal_actions(token: str, seat: str) -> Call[list[ActionDict]]:
    """``POST /v1/legal-actions`` with a seat: the seat player's legal actions."""
    return Call("POST", "/v1/legal-actions", lambda out: out["actions"], {"state": token, "seat": seat})


def private_suggest(
    token: str,
    seat: str,
    bot: str,
    *,
    budget_ms: int | None = None,
    iterations: int | None = None,
    seed: str | None = None,
) -> Call[Suggestion]:
    """``POST /v1/suggest`` with a seat: ``bot``'s move for the seat's player, from its view only."""
    body = {"state": token, "seat": seat, **_bot_body(bot, budget_ms, iterations, seed)}
    return Call("POST", "/v1/suggest", lambda out: Suggestion(out["action"], out["label"]), body)


def private_view(token: str, seat: str) -> Call[ViewDict]:
    """``POST /v1/view`` with a seat: what the seat's player may see."""
    return Call("POST", "/v1/view", lambda out: out["view"], {"state": token, "seat": seat})


def private_replay(
    token: str, seats: list[str], actions: list[ActionDict] | list[dict[str, Any]]
) -> Call[PrivateReplayed]:
    """``POST /v1/replay`` from a token; needs both seats."""
    return Call(
        "POST",
        "/v1/replay",
        lambda out: PrivateReplayed(out["state"], out["applied"]),
        {"state": token, "seats": seats, "actions": actions},
    )


def reveal(token: str, seats: list[str]) -> Call[StateDict]:
    """``POST /v1/reveal`` with both seats: the whole plain state of a finished private game
    (:class:`GameNotOver` before)."""
    return Call("POST", "/v1/reveal", lambda out: out["state"], {"state": token, "seats": seats})


def private_record(
    token: str,
    seats: list[str],
    actions: list[dict[str, Any]],
    *,
    times: list[int] | None = None,
    player: int | Literal["whole"] | None = WHOLE,
) -> Call[str]:
    """``POST /v1/records`` of a private game: the token it was dealt, both seats and every action since.
    A seat's (``player=0`` or ``1``) or a spectator's (``None``) record at any time; the whole record, which
    names the seed, once the game is over (:class:`GameNotOver` before), as :meth:`reveal`."""
    return _record_call({"state": token, "seats": seats, "actions": actions}, times, player)


def game_record(game_id: str, *, seats: list[str] | None = None, seat: str | None = None) -> Call[str]:
    """``POST /v1/records`` of a private game from its id alone (a referee with a ledger, docs/api.md §14): the
    moves recovered from the ledger, so a two-device game is saved whole. ``seats`` (both): the whole record,
    once the game is over (:class:`GameNotOver` before); ``seat`` (one, or the watch key): its record, any time."""
    if (seats is None) == (seat is None):
        raise ValueError("game_record takes seats (both: the whole record) or seat (one seat's record)")
    which: dict[str, Any] = {"seats": seats} if seats is not None else {"seat": seat}
    return Call("POST", "/v1/records", str, {"game_id": game_id, **which}, text=True)


def latest(game_id: str, seat: str) -> Call[Latest]:
    """``POST /v1/latest`` (a referee with a ledger, docs/api.md §11): the game's latest token, its seq,
    and the seat's view of it (the spectator view for the watch key); for a finished game of a match, the
    next game once dealt (``next``, docs/api.md §15)."""
    return Call(
        "POST",
        "/v1/latest",
        lambda out: Latest(
            out["state"], out["seq"], out["view"], NextGame(**out["next"]) if out.get("next") is not None else None
        ),
        {"game_id": game_id, "seat": seat},
    )


def ready() -> Call[bool]:
    """``GET /readyz``: whether the service takes requests now (never retried)."""
    return Call("GET", "/readyz", lambda out: True, retry=False, when_refused=lambda err: False)


F = TypeVar("F", bound=Callable[..., Any])


class Method(Generic[F]):
    """What a descriptor that makes a :class:`Call` function a method keeps: the function, its
    doc, and the name it is set under. Each kind says in its ``__get__`` who sends."""

    def __init__(self, call: F):
        self.call = call
        self.__doc__ = call.__doc__
        self.__wrapped__ = call

    def __set_name__(self, owner: type, name: str) -> None:
        self.__name__ = name


def sending(sender: Any, call: Callable[..., Call[Any]], name: str, *first: Any) -> Callable[..., Any]:
    """``call`` as a method named ``name`` whose Call ``sender._send``-s; ``first`` goes before the arguments."""

    @functools.wraps(call)
    def method(*args: Any, **kwargs: Any) -> Any:
        return sender._send(call(*first, *args, **kwargs))

    method.__name__ = name
    return method
