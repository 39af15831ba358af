"""Private play (docs/api.md §10): the game endpoints when the service has ``REFEREE_STATE_KEY``.

States travel as tokens (:mod:`referee.service.private_tokens`) and players
act through seats. Each request is checked in this order, before any rule:
the body's keys (400), the state token (403 ``private_mode`` for a plain
State, ``bad_token`` for anything that does not open), the seat (403
``bad_seat``: not a seat of this game), the player the request names (403
``not_your_seat``). Then the engine decides, exactly as in plain mode, and
every answer carries a new token, never a plain state, and only what the
seat's player may know (their view, their events).

A seat made under the previous key (during a rotation) is answered with
``seat``, the same seat made under the current key, by every endpoint that
takes one seat (apply, validate aside, legal-actions, view), so clients can
replace it before the previous key is dropped.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

import orjson

from referee import engine
from referee.engine.events import events_for
from referee.engine.facts import Player
from referee.engine.fair_deal import commitment, private_deal
from referee.engine.labels import names_for
from referee.engine.views import view_of, visible_cards
from referee.service.ledger import REPEATED, STALE, Ledger, LedgerUnavailable
from referee.service.private_tokens import WATCH, TokenError, Vault
from referee.service.problems import Problem
from referee.service.reading import envelope, player_field, schema_problem

Body = dict[str, Any]


def refused(exc: TokenError) -> Problem:
    slug = "bad-seat" if exc.code == "bad_seat" else "bad-token"
    return Problem(403, slug, exc.code, exc.detail)


def not_in_private_mode(field: str, why: str) -> Problem:
    return Problem(
        400,
        "not-in-private-mode",
        "not_in_private_mode",
        f"{field}: {why} This referee deals private games itself (docs/api.md §10).",
    )


MAX_GAME_ID = 64  # game ids are "g-" and 22 characters; anything much longer is not one


def ledger_unavailable(exc: LedgerUnavailable) -> Problem:
    problem = Problem(
        503,
        "ledger-unavailable",
        "ledger_unavailable",
        "The ledger of private games cannot be reached now; nothing was applied. Try again shortly.",
    )
    problem.headers = [("Retry-After", "1")]
    return problem


def not_your_seat(detail: str) -> Problem:
    return Problem(403, "not-your-seat", "not_your_seat", detail)


WATCH_CANNOT_ACT = "This is the game's spectator key (watch): it views the game (/v1/view, /v1/latest), it never acts."


def action_digest(action: Any) -> str:
    """The digest the ledger keeps of an action: the same action, however its keys are ordered, gives one digest."""
    return "sha256:" + hashlib.sha256(orjson.dumps(action, option=orjson.OPT_SORT_KEYS)).hexdigest()


def stale_state(seq: int, latest: int) -> Problem:
    return Problem(
        409,
        "stale-state",
        "stale_state",
        f"The token is at seq {seq}, but this game's line of play is at seq {latest}: nothing was "
        "applied. Fetch the latest token (POST /v1/latest) and act on it.",
        latest_seq=latest,
    )


def no_ledger() -> Problem:
    return Problem(
        400,
        "no-ledger",
        "no_ledger",
        "POST /v1/latest needs a ledger (REFEREE_LEDGER, private mode); this referee keeps no games.",
    )


class PrivatePlay:
    """The game endpoints' private-mode answers, as plain JSON-able dicts."""

    def __init__(self, catalog: engine.Catalog, vault: Vault, ledger: Ledger | None = None):
        self.catalog = catalog
        self.vault = vault
        self.ledger = ledger  # docs/api.md §11, when REFEREE_LEDGER is set

    # -- reading -------------------------------------------------------------------

    def state_in(self, body: Body, key: str = "state") -> dict[str, Any]:
        """The plain state inside the body's token."""
        token = body[key]
        if isinstance(token, dict):
            raise Problem(
                403,
                "private-mode",
                "private_mode",
                "This referee plays privately: send the state token it gave (afs1.…), not a plain State.",
            )
        if not isinstance(token, str):
            raise schema_problem({key: ["Must be a state token (a string afs1.…)."]})
        try:
            return self.vault.open(token)
        except TokenError as exc:
            raise refused(exc) from None

    def seat_in(self, body: Body, state: dict[str, Any], key: str = "seat") -> tuple[int, bool]:
        """The seat's player, and whether the seat was made under the current key."""
        seat = body[key]
        if not isinstance(seat, str):
            raise schema_problem({key: ["Must be a seat (a string afk1.…)."]})
        try:
            return self.vault.seat_player(seat, state.get("game_id"))
        except TokenError as exc:
            raise refused(exc) from None

    @staticmethod
    def same_player(seat_player: int, named: Any, what: str) -> None:
        if named != seat_player:
            raise Problem(
                403,
                "not-your-seat",
                "not_your_seat",
                f"The seat is player {seat_player}'s; {what} names player {named}.",
            )

    def acting(self, body: Body) -> tuple[dict[str, Any], int, bool]:
        """state, the seat's player, current-key flag: for a body of ``state``, ``action``, ``seat``."""
        envelope(body, ("state", "action", "seat"))
        state = self.state_in(body)
        player, current = self.seat_in(body, state)
        if player == WATCH:
            raise not_your_seat(WATCH_CANNOT_ACT)
        action = body["action"]
        named = action.get("player") if isinstance(action, dict) else None
        if Player.is_valid(named):  # a malformed player is the engine's 400
            self.same_player(player, named, "the action")
        return state, player, current

    def asking(
        self, body: Body, optional: tuple[str, ...] = (), watch: bool = False
    ) -> tuple[dict[str, Any], int | None, bool]:
        """state, the seat's player, current-key flag: for a body of ``state``, ``seat`` and an optional
        ``player``.

        With ``watch``, the game's spectator key is good too: its player is None (docs/api.md §12).
        """
        envelope(body, ("state", "seat"), ("player", *optional))
        named = None if watch and body.get("player", 0) is None else player_field(body)
        state = self.state_in(body)
        player, current = self.seat_in(body, state)
        if player == WATCH:
            if not watch:
                raise not_your_seat(WATCH_CANNOT_ACT)
            if named is not None:
                raise not_your_seat(f"The key is the game's spectator key; the request names player {named}.")
            return state, None, current
        if named is not None or "player" in body:  # a spectator's null from a seat is not its player either
            self.same_player(player, named, "the request")
        return state, player, current

    def renewed(self, state: dict[str, Any], player: int, current: bool) -> Body:
        """``{"seat": ...}``, the seat under the current key, when the one sent was under the previous key.

        Every answer to a seat renews it (a move, a view, a question), so a player who only watches
        during a rotation holds a current seat before the previous key is dropped.
        """
        return {} if current else {"seat": self.vault.seat(state["game_id"], player)}

    # -- the endpoints ------------------------------------------------------------

    def new_game(self, body: Body) -> Body:
        if body.get("seed") is not None:
            raise not_in_private_mode(
                "seed", "a private game's seed is drawn by the referee and revealed when the game is over."
            )
        if body.get("shuffle") is False:
            raise not_in_private_mode("shuffle", "a private game is always shuffled.")
        seed = "p-" + secrets.token_urlsafe(32)
        game_id = "g-" + secrets.token_urlsafe(16)
        state, events = private_deal(self.catalog, body, seed, game_id)
        token = self.vault.token(state)
        if self.ledger is not None:
            try:
                self.ledger.start(game_id, token)
            except LedgerUnavailable as exc:
                raise ledger_unavailable(exc) from None
        return {
            "state": token,
            "seats": [self.vault.seat(game_id, p) for p in (0, 1)],
            "watch": self.vault.seat(game_id, WATCH),
            "commitment": commitment(seed),
            "events": events_for(events, state, None),
        }

    def apply(self, body: Body) -> Body:
        state, player, current = self.acting(body)
        before = state
        try:
            state, events = engine.apply(self.catalog, state, body["action"])
        except engine.RuleViolation as exc:
            if self.ledger is not None:  # a stale token is a 409 whatever its action (docs/api.md §11)
                self.refuse_if_stale(before, body["action"])
            raise self.named(exc, before, player) from None
        token = self.vault.token(state)
        if self.ledger is not None:
            token = self.record(before, body, token)
        known = visible_cards(state, player)  # once, for the view and the events
        out = {
            "state": token,
            "events": events_for(events, state, player, known),
            "view": view_of(state, player, known),
        }
        out.update(self.renewed(state, player, current))
        return out

    # -- the ledger (docs/api.md §11) -------------------------------------------------

    def record(self, before: dict[str, Any], body: Body, token: str) -> str:
        """The token to answer with: ``token``, recorded as the game's next; the recorded one for a retry."""
        assert self.ledger is not None
        seq = before.get("seq", 0)
        try:
            outcome = self.ledger.record(before["game_id"], seq, action_digest(body["action"]), token, body["state"])
        except LedgerUnavailable as exc:
            raise ledger_unavailable(exc) from None
        if outcome.kind == STALE:
            raise stale_state(seq, outcome.latest)
        if outcome.kind == REPEATED:
            assert outcome.token is not None
            return outcome.token  # the engine is deterministic: the events and view are the recorded answer's
        return token

    def refuse_if_stale(self, before: dict[str, Any], action: Any) -> None:
        assert self.ledger is not None
        seq = before.get("seq", 0)
        try:
            latest = self.ledger.stale(before["game_id"], seq, action_digest(action))
        except LedgerUnavailable as exc:
            raise ledger_unavailable(exc) from None
        if latest is not None:
            raise stale_state(seq, latest)

    def latest(self, body: Body) -> Body:
        """The game's latest token and the seat's (or the spectator's) view of it."""
        if self.ledger is None:
            raise no_ledger()
        envelope(body, ("game_id", "seat"))
        game_id = body["game_id"]
        if not isinstance(game_id, str) or not 0 < len(game_id) <= MAX_GAME_ID:
            raise schema_problem({"game_id": [f"Must be a game id (a string of at most {MAX_GAME_ID} characters)."]})
        seat = body["seat"]
        if not isinstance(seat, str):
            raise schema_problem({"seat": ["Must be a seat or the game's watch key (a string afk1.…)."]})
        try:
            player, current = self.vault.seat_player(seat, game_id)
        except TokenError as exc:
            raise refused(exc) from None
        try:
            found = self.ledger.latest(game_id)
        except LedgerUnavailable as exc:
            raise ledger_unavailable(exc) from None
        if found is None:
            raise Problem(
                404,
                "unknown-game",
                "unknown_game",
                f"The ledger holds no game {game_id!r} (never recorded, or expired after REFEREE_LEDGER_TTL).",
            )
        seq, token = found
        state = self.vault.open(token)
        viewer = None if player == WATCH else player
        return {"state": token, "seq": seq, "view": view_of(state, viewer), **self.renewed(state, player, current)}

    # -- the other endpoints ----------------------------------------------------------

    def validate(self, body: Body) -> engine.RuleViolation | None:
        state, player, _ = self.acting(body)
        violation = engine.validate(self.catalog, state, body["action"])
        return None if violation is None else self.named(violation, state, player)

    def named(self, violation: engine.RuleViolation, state: dict[str, Any], player: int) -> engine.RuleViolation:
        """The refusal, its detail naming players by the state's names and cards as the seat's player
        sees them (as in plain mode): the names are the game's, the cards what that seat may know."""
        namers = names_for(self.catalog, state, player)
        if namers is not None:
            violation.params["_names"] = namers
        return violation

    def legal_actions(self, body: Body) -> tuple[dict[str, Any], list[dict[str, Any]], Body]:
        """The plain state (for labels, which name only what the seat's player may see), the actions, and
        the renewed seat if any (:meth:`renewed`)."""
        state, player, current = self.asking(body, ("labels",))
        if type(body.get("labels", False)) is not bool:
            raise schema_problem({"labels": ["Not a valid boolean."]})
        return state, engine.legal_actions(self.catalog, state, player), self.renewed(state, player, current)

    def view(self, body: Body) -> Body:
        state, player, current = self.asking(body, watch=True)
        role = WATCH if player is None else player  # a spectator key is renewed like a seat
        return {"view": engine.view(self.catalog, state, player), **self.renewed(state, role, current)}

    def replay(self, body: Body) -> Body:
        envelope(body, ("actions",), ("game", "state", "seats"))
        if "game" in body:
            raise not_in_private_mode("game", "a private game starts at POST /v1/games; replay from its token.")
        envelope(body, ("actions", "state", "seats"))
        state = self.state_in(body)
        self.both_seats(body, state, "A replay applies actions for both players")
        state, applied = engine.replay(self.catalog, body["actions"], state=state)
        return {"state": self.vault.token(state), "applied": applied}

    def both_seats(self, body: Body, state: dict[str, Any], why: str) -> None:
        """``body["seats"]`` holds the game's two seats, one per player."""
        seats = body["seats"]
        if not isinstance(seats, list) or len(seats) != 2:
            raise schema_problem({"seats": ["Must be the game's two seats."]})
        players = {self.seat_in({"seat": s}, state)[0] for s in seats}
        if players != {0, 1}:
            raise Problem(
                403, "not-your-seat", "not_your_seat", f"{why}: it needs both seats of the game, one of each player."
            )

    def reveal(self, body: Body) -> Body:
        """The whole state of a finished game, with both seats.

        Both, because the referee cannot tell the game's last token from a
        fork: a player could concede on a copy of the current token and
        reveal that, then play on from the copy knowing every card. With both
        seats needed, only both players together (or whoever they both gave
        their seat to) can reveal anything.
        """
        envelope(body, ("state", "seats"))
        state = engine.check_state(self.catalog, self.state_in(body))
        self.both_seats(body, state, "Revealing a game shows both players' cards")
        if state["phase"] != "over":
            raise Problem(
                403,
                "game-not-over",
                "game_not_over",
                "A private game is revealed only once it is over (docs/api.md §10).",
            )
        return {"state": state}
