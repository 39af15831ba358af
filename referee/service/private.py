"""Private play (docs/api.md §10–§12): the codec of a service started with ``REFEREE_STATE_KEY``.

States travel as tokens (:mod:`referee.private.tokens`) and players
act through seats. Each request is opened in this order, before any rule:
the body's keys (400), the state token (403 ``private_mode`` for a plain
State, ``bad_token`` for anything that does not open), the seat (403
``bad_seat``: not a seat of this game), the player the request names (403
``not_your_seat``). Then the engine decides, exactly as in plain mode (the
endpoints are :mod:`referee.service.answers`', one for every mode), and every
answer carries a new token, never a plain state, and only what the seat's
player may know (their view, their events).

A seat made under the previous key (during a rotation) is answered with
``seat``, the same seat made under the current key, by every endpoint that
takes one seat (apply, validate aside, legal-actions, view), so clients can
replace it before the previous key is dropped.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

import orjson

from referee import engine
from referee.engine import records
from referee.engine.events import events_for
from referee.engine.facts import Player, other
from referee.engine.fair_deal import commitment, private_deal
from referee.engine.state_types import MatchDict, StateDict
from referee.engine.views import view_of, visible_cards
from referee.private.ledger import REPEATED, SKEWED, STALE, Ledger, LedgerOutcomeUnknown, LedgerUnavailable, Outcome
from referee.private.tokens import WATCH, Vault
from referee.service import metrics
from referee.service.codecs import (
    ACT,
    ACTION_KEYS,
    ASK,
    ASK_OPTIONAL,
    LOOK,
    NO_CLOCK_HERE,
    NO_LEDGER_RECORD,
    SUGGEST,
    SUGGEST_KEYS,
    SUGGEST_OPTIONAL,
    Body,
    Codec,
    LedgerGame,
    Opened,
    Shape,
    clocked,
    labels_field,
    no_ledger,
    refuse_without_ledger,
)
from referee.service.heavy import HeavyWork
from referee.service.problems import Problem, schema_problem
from referee.service.reading import envelope, player_field
from referee.service.recovered import RecoveredGames, not_recoverable

REPLAY_ID_PREFIX = "r-"  # the id of a finished game's record replayed in private mode (open_record)


def not_in_private_mode(field: str, why: str) -> Problem:
    return Problem(
        "not-in-private-mode",
        "not_in_private_mode",
        f"{field}: {why} This referee deals private games itself (docs/api.md §10).",
    )


T = TypeVar("T")
MAX_GAME_ID = 64  # game ids are "g-" and 22 characters; anything much longer is not one


def ledger_unavailable(exc: LedgerUnavailable) -> Problem:
    if isinstance(exc, LedgerOutcomeUnknown):
        metrics.ledger_refusal(503, "ledger_outcome_unknown")  # made only to be raised: counted here, once
        problem = Problem(
            "ledger-outcome-unknown",
            "ledger_outcome_unknown",
            "The write was sent to the ledger of private games, which did not confirm it in time: it may be "
            "recorded, or not. Send the same request again: a recorded move is answered as recorded, never "
            "applied twice; a match's next game already dealt is 409 next_game_dealt, naming it; or ask "
            "/v1/latest.",
        )
    else:
        metrics.ledger_refusal(503, "ledger_unavailable")  # made only to be raised: counted here, once for every path
        problem = Problem(
            "ledger-unavailable",
            "ledger_unavailable",
            "The ledger of private games cannot be reached now; nothing was applied. Try again shortly.",
        )
    problem.headers = [("Retry-After", "1")]
    return problem


def game_id_field(body: Body) -> str:
    game_id = body["game_id"]
    if not isinstance(game_id, str) or not 0 < len(game_id) <= MAX_GAME_ID:
        raise schema_problem({"game_id": [f"Must be a game id (a string of at most {MAX_GAME_ID} characters)."]})
    return game_id


def not_your_seat(detail: str) -> Problem:
    return Problem("not-your-seat", "not_your_seat", detail)


WATCH_CANNOT_ACT = "This is the game's spectator key (watch): it views the game (/v1/view, /v1/latest), it never acts."


def action_digest(action: Any) -> str:
    """The digest the ledger keeps of an action: the same action, however its keys are ordered, gives one digest."""
    return "sha256:" + hashlib.sha256(orjson.dumps(action, option=orjson.OPT_SORT_KEYS)).hexdigest()


def next_game_id(game_id: str) -> str:
    """The id of the next game of a match whose game was ``game_id`` (docs/api.md §15), derived rather than drawn:
    a seat of the game before finds it in the ledger (``/v1/latest``'s ``next``), and the next game is dealt
    once (a second deal is 409 ``next_game_dealt``, never a second game). Game ids are not secrets: seats are."""
    digest = hashlib.sha256(b"next-game:" + game_id.encode("utf-8")).digest()
    return "g-" + base64.urlsafe_b64encode(digest[:16]).rstrip(b"=").decode("ascii")


def next_game_dealt(game_id: str) -> Problem:
    return Problem(
        "next-game-dealt",
        "next_game_dealt",
        f"This match's next game, {game_id!r}, was dealt already: nothing was dealt again. Each seat of the game "
        "before finds it as `next` in POST /v1/latest.",
        game_id=game_id,
    )


def stale_state(seq: int, latest: int) -> Problem:
    metrics.ledger_refusal(409, "stale_state")  # made only to be raised: counted here, once for every path
    return Problem(
        "stale-state",
        "stale_state",
        f"The token is at seq {seq}, but this game's line of play is at seq {latest}: nothing was "
        "applied. Fetch the latest token (POST /v1/latest) and act on it.",
        latest_seq=latest,
    )


class PrivateCodec(Codec):
    """Private mode: states as tokens, players by their seats, answers as the seat's player may know them."""

    def __init__(self, catalog: engine.Catalog, vault: Vault, ledger: Ledger | None, heavy: HeavyWork):
        super().__init__(catalog)
        self.vault = vault
        self.ledger = ledger  # docs/api.md §11, when REFEREE_LEDGER is set
        self.recovered = RecoveredGames(heavy, action_digest)  # records from the ledger (docs/api.md §14, §16)

    # -- reading -------------------------------------------------------------------

    def state_in(self, body: Body, key: str = "state") -> Body:
        """The plain state inside the body's token."""
        token = body[key]
        if isinstance(token, dict):
            raise Problem(
                "private-mode",
                "private_mode",
                "This referee plays privately: send the state token it gave (afs1.…), not a plain State.",
            )
        if not isinstance(token, str):
            raise schema_problem({key: ["Must be a state token (a string afs1.…)."]})
        return self.vault.open(token)

    def seat_in(self, seat: Any, game_id: Any, key: str = "seat") -> tuple[int, bool]:
        """The seat's player (or :data:`WATCH`), and whether the seat was made under the current key."""
        if not isinstance(seat, str):
            raise schema_problem({key: ["Must be a seat (a string afk1.…)."]})
        return self.vault.seat_player(seat, game_id)

    @staticmethod
    def same_player(seat_player: int, named: Any, what: str) -> None:
        if named != seat_player:
            raise not_your_seat(f"The seat is player {seat_player}'s; {what} names player {named}.")

    def open(self, body: Body, shape: Shape) -> Opened:
        """The state and the seat's player, for a body of the state, the seat and what ``shape`` names.

        A spectator key opens only to look (``/v1/view``): its player is None (docs/api.md §12).
        """
        look = shape is LOOK
        if shape is ACT:
            envelope(body, ("state", *ACTION_KEYS, "seat"))
        elif shape is SUGGEST:
            envelope(body, ("state", "seat", *SUGGEST_KEYS), ("player", *SUGGEST_OPTIONAL))
        else:
            envelope(body, ("state", "seat"), ("player",) if look else ASK_OPTIONAL)
        if shape is ACT:
            named = body["action"].get("player") if isinstance(body["action"], dict) else None
        else:
            named = None if look and body.get("player", 0) is None else player_field(body)
            if shape is ASK:
                labels_field(body)
        state = self.state_in(body)
        player, current = self.seat_in(body["seat"], state.get("game_id"))
        if player == WATCH:
            if not look:
                raise not_your_seat(WATCH_CANNOT_ACT)
            if named is not None:
                raise not_your_seat(f"The key is the game's spectator key; the request names player {named}.")
            if state.get("watch_delay"):  # docs/api.md §12: never later than the ledger's latest less the delay
                _, token, shown = self.watched(state["game_id"], state["seq"])
                return Opened(dict(shown), None, self.renewed(state["game_id"], WATCH, current), token)
            return Opened(state, None, self.renewed(state["game_id"], WATCH, current), body["state"])
        if shape is ACT:
            if Player.is_valid(named):  # a malformed player is the engine's 400
                self.same_player(player, named, "the action")
        elif named is not None or "player" in body:  # a spectator's null from a seat is not its player either
            self.same_player(player, named, "the request")
        return Opened(state, player, self.renewed(state["game_id"], player, current), body["state"])

    def renewed(self, game_id: str, role: int, current: bool) -> Body:
        """``{"seat": ...}``, the seat under the current key, when the one sent was under the previous key.

        Every answer to a seat renews it (a move, a view, a question), so a player who only watches
        during a rotation holds a current seat before the previous key is dropped.
        """
        return {} if current else {"seat": self.vault.seat(game_id, role)}

    def open_replay(self, body: Body) -> tuple[str, Any]:
        envelope(body, ("actions",), ("game", "state", "seats", "times"))
        if "game" in body:
            raise not_in_private_mode("game", "a private game starts at POST /v1/games; replay from its token.")
        envelope(body, ("actions", "state", "seats"), ("times",))
        state = self.state_in(body)
        self.both_seats(body, state, "A replay applies actions for both players")
        return "state", state

    def open_record(self, game: Body, finished: bool) -> tuple[str, Any]:
        """A finished game's whole record replays here too (docs/api.md §14): it names the seed, which a game
        that is over reveals anyway (§10), so the replay tells nothing the record does not. It is dealt as a
        game of its own, under an id derived from its seed (``r-``), so that its seats open its positions."""
        if not finished:
            raise not_in_private_mode(
                "record",
                "this referee replays the whole record of a game that is over (its Result); "
                "a game going on replays from its token with both seats.",
            )
        seed = game.get("seed") if isinstance(game, dict) else None
        game_id = REPLAY_ID_PREFIX + commitment(str(seed)).removeprefix("sha256:")[:24]
        state, _ = engine.new_game(self.catalog, game, game_id=game_id)
        return "state", state

    def close_record(self, start: Any, state: Body, applied: int) -> Body:
        """The replayed game's last position and its deal as tokens, and its two seats: the replay viewer
        steps through it with ``/v1/replay`` from ``start`` (docs/api.md §14)."""
        game_id = state["game_id"]
        return {
            "state": self.vault.token(state),
            "applied": applied,
            "start": self.vault.token(start),
            "seats": [self.vault.seat(game_id, p) for p in (0, 1)],
        }

    def both_seats(self, body: Body, state: Mapping[str, object], why: str) -> None:
        """``body["seats"]`` holds the game's two seats, one per player."""
        seats = body["seats"]
        if not isinstance(seats, list) or len(seats) != 2:
            raise schema_problem({"seats": ["Must be the game's two seats."]})
        players = {self.seat_in(s, state.get("game_id"))[0] for s in seats}
        if players != {0, 1}:
            raise not_your_seat(f"{why}: it needs both seats of the game, one of each player.")

    # -- writing -------------------------------------------------------------------

    def close(self, opened: Opened, action: Any, state: Body, events: list[Body]) -> Body:
        token = self.vault.token(state)
        if self.ledger is None:
            return self.answer(opened, token, state, events)
        outcome = self.record(opened, action, token)
        if outcome.kind == SKEWED:  # the ledger's clock is not where this replica read it: once more, at its time
            opened.now = outcome.latest
            state, events = engine.apply(self.catalog, opened.state, action, opened.now)
            token = self.vault.token(state)
            outcome = self.record(opened, action, token)
            if outcome.kind == SKEWED:
                raise ledger_unavailable(LedgerUnavailable("the ledger's clock moved while the move was made"))
        if outcome.kind == REPEATED:
            assert outcome.token is not None
            if state.get("clock") is not None:
                return self.recorded_answer(opened, action, outcome.token)  # a retry: the clock as recorded then
            token = outcome.token  # the engine is deterministic: the events and view are the recorded answer's
        return self.answer(opened, token, state, events)

    def answer(self, opened: Opened, token: str, state: Body, events: list[Body]) -> Body:
        """``/v1/apply``'s answer: the token, the events and the view as the seat's player may know them."""
        player = opened.player
        checked = cast(StateDict, state)  # the engine's own answer: a checked state
        known = visible_cards(checked, player)  # once, for the view and the events
        return {
            "state": token,
            "events": events_for(events, checked, player, known),
            "view": view_of(checked, player, known),
            **opened.renewed,
        }

    def recorded_answer(self, opened: Opened, action: Any, token: str) -> Body:
        """The answer a retried move of a clocked game was given: the move made again at the time the ledger
        recorded it (the time in its recorded token), so it is charged once, exactly as then."""
        clock = self.vault.open(token)["clock"]
        state, events = engine.apply(self.catalog, opened.state, action, clock["started"] + clock["last"])
        return self.answer(opened, token, state, events)

    def close_state(self, state: Body) -> Any:
        return self.vault.token(state)

    def now(self, state: Any, acting: bool) -> int | None:
        """The ledger's clock for a move (or a question) on a clocked game (docs/api.md §15)."""
        if not clocked(state) or (self.ledger is None and not acting):
            return None
        return self.ledger_time(state["game_id"])

    def ledger_time(self, game_id: str) -> int:
        """The ledger's clock for ``game_id`` (Redis's TIME on the game's node, or the machine's for SQLite)."""
        if self.ledger is None:
            raise no_ledger(NO_CLOCK_HERE)
        try:
            return self.ledger.now(game_id)
        except LedgerUnavailable as exc:
            raise ledger_unavailable(exc) from None

    def deal(self, body: Body) -> tuple[Body, list[Body]]:
        if self.ledger is None:
            refuse_without_ledger(body)
        if body.get("seed") is not None:
            raise not_in_private_mode(
                "seed", "a private game's seed is drawn by the referee and revealed when the game is over."
            )
        if body.get("shuffle") is False:
            raise not_in_private_mode("shuffle", "a private game is always shuffled.")
        match = body.get("match")
        if isinstance(match, dict) and ("game" in match or "wins" in match):
            raise not_in_private_mode(
                "match", "a private match's later games are dealt by POST /v1/matches/next from the game before."
            )
        return self.dealt(body)

    def dealt(self, game: Body, match: MatchDict | None = None, game_id: str | None = None) -> tuple[Body, list[Body]]:
        """A private deal: a seed drawn here and committed, a new game id (unless given); a clock starts at the
        ledger's time."""
        seed = "p-" + secrets.token_urlsafe(32)
        game_id = game_id or "g-" + secrets.token_urlsafe(16)
        now = self.ledger_time(game_id) if game.get("clock") is not None else None
        return private_deal(self.catalog, game, seed, game_id, now=now, match=match)

    def deal_next(self, body: Body) -> tuple[Body, list[Body]]:
        """The next game of a match from the last game's token, asked by the loser's seat (RULES 14.2)."""
        envelope(body, ("state", "seats", "first_player"))
        first = player_field(body, "first_player")
        assert first is not None  # a required key (envelope)
        state = engine.check_state(self.catalog, self.state_in(body))
        seats = body["seats"]
        if not isinstance(seats, list) or len(seats) != 1:
            raise schema_problem({"seats": ["Must be a list of one seat: the loser's of the game that ended."]})
        player, _ = self.seat_in(seats[0], state.get("game_id"), "seats.0")
        if player == WATCH:
            raise not_your_seat(WATCH_CANNOT_ACT)
        game, match = engine.next_game(state, first)  # RULES 14.1, 14.3: a match's game that is over
        assert state["result"] is not None
        loser = other(state["result"]["winner"])
        if player != loser:
            raise not_your_seat(f"The seat is player {player}'s; the loser, player {loser}, chooses who plays first.")
        # With a ledger the next game's id is the game before's, derived: its seats find it (``latest``'s ``next``).
        return self.dealt(game, match, None if self.ledger is None else next_game_id(state["game_id"]))

    def close_new(self, state: Body, events: list[Body], next_game: bool = False) -> Body:
        game_id = state["game_id"]
        token = self.vault.token(state)
        if self.ledger is not None:
            try:
                started = self.ledger.start(game_id, token, only_new=next_game)
            except LedgerUnavailable as exc:
                raise ledger_unavailable(exc) from None
            if not started:
                raise next_game_dealt(game_id)
        return {
            "state": token,
            "seats": [self.vault.seat(game_id, p) for p in (0, 1)],
            "watch": self.vault.seat(game_id, WATCH),
            "commitment": commitment(state["seed"]),
            "events": events_for(events, state, None),
        }

    # -- the ledger (docs/api.md §11) -------------------------------------------------

    def record(self, opened: Opened, action: Any, token: str) -> Outcome:
        """``token`` recorded as the game's next (at ``opened.now``, a clocked move's time): applied, repeated
        (a retry: the recorded token) or skewed (docs/api.md §15); a stale token is the 409."""
        assert self.ledger is not None
        before = opened.state
        seq = before.get("seq", 0)
        try:
            outcome = self.ledger.record(before["game_id"], seq, action_digest(action), token, opened.token, opened.now)
        except LedgerUnavailable as exc:
            raise ledger_unavailable(exc) from None
        if outcome.kind == STALE:
            raise stale_state(seq, outcome.latest)
        return outcome

    def refused(self, opened: Opened, action: Any, violation: engine.RuleViolation) -> Body | None:
        """A stale token is a 409 whatever its action (docs/api.md §11); a retried move of a clocked game
        that came after the player's time ran out (11.5) is the recorded answer still."""
        if self.ledger is None:
            return None
        before = opened.state
        seq = before.get("seq", 0)
        if violation.code == "time_out":
            try:
                found = self.ledger.move(before["game_id"], seq + 1)
            except LedgerUnavailable as exc:
                raise ledger_unavailable(exc) from None
            if found is not None and found[0] == action_digest(action):
                return self.recorded_answer(opened, action, found[1])
        try:
            latest = self.ledger.stale(before["game_id"], seq, action_digest(action))
        except LedgerUnavailable as exc:
            raise ledger_unavailable(exc) from None
        if latest is not None:
            raise stale_state(seq, latest)
        return None

    def latest(self, body: Body) -> Body:
        """The game's latest token and the seat's (or the spectator's) view of it."""
        if self.ledger is None:
            raise no_ledger()
        envelope(body, ("game_id", "seat"))
        game_id = game_id_field(body)
        player, current = self.one_seat(body, game_id)
        seq, token = self.latest_of(game_id)
        state = cast(StateDict, self.vault.open(token))  # a token the referee made holds a checked state
        if player == WATCH and state.get("watch_delay"):
            seq, token, state = self.watched(game_id, seq)
        viewer = None if player == WATCH else player
        answer = {"state": token, "seq": seq, "view": view_of(state, viewer), **self.renewed(game_id, player, current)}
        following = self.next_of(state, player)
        if following is not None:
            answer["next"] = following
        return answer

    def watched(self, game_id: str, asked: int) -> tuple[int, str, StateDict]:
        """docs/api.md §12 "Delay": the game as a spectator may see it, at seq ``min(asked, latest - n)`` (not
        below 0) while it goes on, and at its latest once it is over. The delay is in every token of the game
        (set at the deal), so every replica reads it; the tokens are the ledger's, one a seq."""
        if self.ledger is None:  # a delay is dealt with a ledger only; a token cannot be taken elsewhere
            raise no_ledger()
        latest, token = self.latest_of(game_id)
        state = cast(StateDict, self.vault.open(token))
        if state["result"] is not None:
            return latest, token, state
        shown = min(asked, max(0, latest - state.get("watch_delay", 0)))
        if shown == latest:
            return latest, token, state
        held = self.ledger_read(lambda ledger: ledger.move(game_id, shown))
        if held is None:  # a game adopted at a later seq: nothing as old is held, and nothing later is shown
            raise Problem(
                "unknown-game",
                "unknown_game",
                f"The ledger holds game {game_id!r} only from a later move than a spectator may see yet "
                f"(seq {shown}, {state.get('watch_delay')} moves behind the latest).",
            )
        return shown, held[1], cast(StateDict, self.vault.open(held[1]))

    def next_of(self, state: StateDict, player: int) -> Body | None:
        """For a finished game of a match that goes on: its next game, once dealt (the loser deals it, RULES
        14.2), with this seat's player's seat in it (the watch key's, for a spectator): docs/api.md §15."""
        match = state["match"]
        if state["result"] is None or match is None or match.get("winner") is not None:
            return None
        following = next_game_id(state["game_id"])
        if self.ledger_read(lambda ledger: ledger.latest(following)) is None:
            return None
        return {"game_id": following, "seat": self.vault.seat(following, player)}

    def one_seat(self, body: Body, game_id: str) -> tuple[int, bool]:
        """The player of the body's ``seat`` (or :data:`WATCH`), and whether it was made under the current key."""
        seat = body["seat"]
        if not isinstance(seat, str):
            raise schema_problem({"seat": ["Must be a seat or the game's watch key (a string afk1.…)."]})
        return self.vault.seat_player(seat, game_id)

    def latest_of(self, game_id: str) -> tuple[int, str]:
        """The game's latest seq and token in the ledger (404 ``unknown_game`` for a game it does not hold)."""
        found = self.ledger_read(lambda ledger: ledger.latest(game_id))
        if found is None:
            raise Problem(
                "unknown-game",
                "unknown_game",
                f"The ledger holds no game {game_id!r} (never recorded, or expired after REFEREE_LEDGER_TTL).",
            )
        return found

    def ledger_read(self, read: Callable[[Ledger], T]) -> T:
        """What ``read`` reads from the ledger (503 when it cannot be reached)."""
        assert self.ledger is not None
        try:
            return read(self.ledger)
        except LedgerUnavailable as exc:
            raise ledger_unavailable(exc) from None

    # -- a record from the ledger (docs/api.md §14) --------------------------------------

    def ledger_game(self, body: Body) -> LedgerGame:
        """The game's deal and its moves, recovered from every token the ledger keeps of it (``recovery``):
        with both seats for the whole record (once the game is over), with one seat or the watch key for
        that seat's or a spectator's record (any time)."""
        if self.ledger is None:
            raise no_ledger(NO_LEDGER_RECORD)
        envelope(body, ("game_id",), ("seats", "seat"))
        game_id = game_id_field(body)
        if ("seats" in body) == ("seat" in body):
            raise schema_problem({"seats": ["Send both seats (the whole record) or one seat (its record), not both."]})
        seat: Any = records.WHOLE
        if "seat" in body:
            player, _ = self.one_seat(body, game_id)
            seat = None if player == WATCH else player
        else:
            self.both_seats(body, {"game_id": game_id}, "The whole record shows both players' cards")
        latest, token = self.latest_of(game_id)
        if seat is None:  # the watch key's record ends where its view does (docs/api.md §12 "Delay")
            latest = self.watched(game_id, latest)[0]
        if seat == records.WHOLE and self.vault.open(token)["phase"] != "over":
            raise Problem(
                "game-not-over",
                "game_not_over",
                "A private game's whole record (its seed) is written only once it is over (docs/api.md §10); "
                'a seat\'s record ("seat") any time.',
            )
        if latest > records.MAX_MOVES:
            raise not_recoverable(f"the game is at seq {latest}; a record holds at most {records.MAX_MOVES} moves")
        progress = self.recovered.moves(
            game_id,
            latest,
            lambda first, last: self.ledger_read(
                lambda ledger: [ledger.move(game_id, s) for s in range(first, last + 1)]
            ),
            self.vault.open,
        )
        times = None if progress.dealt.get("clock") is None else [int(at or 0) for at in progress.times[:latest]]
        return LedgerGame(progress.dealt, progress.actions[:latest], times, seat, progress.texts)

    # -- revealing (docs/api.md §10) -----------------------------------------------

    def may_write_whole(self, record: Any) -> None:
        """A whole record names the seed: as :meth:`reveal`, only once the game is over (both seats were checked)."""
        if record.result is None:
            raise Problem(
                "game-not-over",
                "game_not_over",
                "A private game's whole record (its seed) is written only once it is over (docs/api.md §10); "
                'a seat\'s record ("player") any time.',
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
                "game-not-over",
                "game_not_over",
                "A private game is revealed only once it is over (docs/api.md §10).",
            )
        return {"state": state}
