"""Bot against bot: seeded games in-process, or through a running referee (``referee play``, docs/bots.md).

Game ``i`` deals from seed ``S:i//2``: two random legal decks, player 0 first.
Bot A sits at seat ``i % 2``, so every deal is played twice, each bot on each
side, and each bot goes first half the time. A bot is told only its own
seat's view, events and legal actions, and its own deck list: in-process through the engine's
views; with ``--url`` through the service (in private mode through its seat,
so the service itself tells each bot only its own seat's answers).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.bots.players import Bot
from referee.bots.seat import seat_events
from referee.engine import ActionDict, Catalog, EventDict, Session, ViewDict

DEFAULT_MAX_ACTIONS = 3000


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass
class MatchResult:
    names: tuple[str, str]
    games: int = 0
    wins: list[int] = field(default_factory=lambda: [0, 0])
    draws: int = 0
    actions: int = 0
    first_wins: int = 0  # games won by the player who went first

    def to_json(self) -> dict[str, Any]:
        a, b = self.names
        key_a, key_b = (a, b) if a != b else (f"{a} (A)", f"{b} (B)")
        return {
            "games": self.games,
            "wins": {key_a: self.wins[0], key_b: self.wins[1]},
            "draws": self.draws,
            "win_rate": {key_a: self._rate(0), key_b: self._rate(1)},
            "interval95": {
                key_a: list(map(_r, wilson(self.wins[0], self.games))),
                key_b: list(map(_r, wilson(self.wins[1], self.games))),
            },
            "actions": self.actions,
        }

    def _rate(self, i: int) -> float:
        return _r(self.wins[i] / self.games) if self.games else 0.0


def _r(x: float) -> float:
    return round(x, 4)


def own_deck_only(decks: list[Any], seat: int) -> list[Any]:
    """What a seat knows of the two deck lists: its own (it built the deck); the opponent's is ``None``, drawn
    from the catalog as a prior when the bot samples (:func:`referee.bots.determinize.determinize`)."""
    return [deck if p == seat else None for p, deck in enumerate(decks)]


def game_for(catalog: Catalog, seed: str, index: int, options: dict[str, Any] | None = None) -> dict[str, Any]:
    from referee.engine.playout import random_new_game

    game = random_new_game(catalog, f"{seed}:{index // 2}", **({"options": options} if options else {}))
    game["first_player"] = 0
    return game


def play_game(
    catalog: Catalog,
    bots: list[Bot],
    game: dict[str, Any],
    max_actions: int = DEFAULT_MAX_ACTIONS,
    moves: list[ActionDict] | None = None,
) -> tuple[int | None, int]:
    """One game in-process, ``bots[p]`` at seat ``p``: (the winner's seat or None, actions played); each
    action is also appended to ``moves``, if given (for the game's record)."""
    session, events = Session.new(catalog, game)
    for p, bot in enumerate(bots):
        bot.start(p, own_deck_only(game["decks"], p), game["seed"])
    inbox: list[list[EventDict]] = [seat_events(events, session.state, p) for p in (0, 1)]
    n = 0
    while not session.over and n < max_actions:
        state = session.state
        seat = pending["responder"] if (pending := state["pending"]) is not None else state["active"]
        legal = session.legal_actions(seat)
        action = bots[seat].act(copy.deepcopy(session.view(seat)), inbox[seat], legal)  # the bot's own copy
        inbox[seat] = []
        applied = session.apply(action).events
        n += 1
        if moves is not None:
            moves.append(action)
        for p in (0, 1):
            inbox[p].extend(seat_events(applied, session.state, p))
    result = session.state["result"]
    return (None if result is None else result["winner"]), n


def seat_names(names: tuple[str, str], seat_a: int) -> list[str]:
    """The players' names of a game of A against B with A at ``seat_a``: the bots' (``A (A)``, ``A (B)`` when
    the two bots are one)."""
    a, b = names if names[0] != names[1] else (f"{names[0]} (A)", f"{names[1]} (B)")
    return [a, b] if seat_a == 0 else [b, a]


def write_record(folder: Path, number: int, text: str) -> Path:
    """Game ``number``'s record (docs/records.md) as ``folder/game-NNNN.afr``: named by the game's place in
    the run, so the same run writes the same files. Bytes, not text: a record's lines end with LF only."""
    path = folder / f"game-{number:04d}.afr"
    path.write_bytes(text.encode("utf-8"))
    return path


def play_match(
    catalog: Catalog,
    make: Callable[[int], tuple[Bot, Bot]],
    names: tuple[str, str],
    games: int,
    seed: str,
    *,
    max_actions: int = DEFAULT_MAX_ACTIONS,
    options: dict[str, Any] | None = None,
    runner: Callable[..., tuple[int | None, int]] | None = None,
    on_game: Callable[[int], None] | None = None,
) -> MatchResult:
    """``games`` games of A against B (``make(i)`` builds the pair for game ``i``)."""
    out = MatchResult(names)
    runner = runner or (lambda bots, game: play_game(catalog, bots, game, max_actions))
    for i in range(games):
        a, b = make(i)
        seat_a = i % 2
        bots = [a, b] if seat_a == 0 else [b, a]
        game = game_for(catalog, seed, i, options)
        game["players"] = seat_names(names, seat_a)  # a name tells no card, and a record reads better by it
        winner, n = runner(bots, game)
        out.games += 1
        out.actions += n
        if winner is None:
            out.draws += 1
        else:
            out.wins[0 if winner == seat_a else 1] += 1
            out.first_wins += winner == game["first_player"]
        if on_game:
            on_game(i)
    return out


# -- through a running referee ---------------------------------------------------------------------


class Remote:
    """A referee service at ``url``: plain mode (the runner holds the state and asks for each seat's view),
    or private mode (the state is a token; each bot acts and sees through its own seat)."""

    def __init__(self, url: str, timeout: float = 30.0):
        import httpx

        self.http = httpx.Client(base_url=url.rstrip("/"), timeout=timeout)
        self.dealt: dict[str, Any] = {}  # the last game's deal: its token, and its seats in private mode

    def close(self) -> None:
        self.http.close()

    def catalog(self) -> Catalog:
        """The service's catalog (``GET /v1/cards``), so the bots sample from the cards it plays with."""
        import httpx

        try:
            r = self.http.get("/v1/cards")
            formats = self.http.get("/v1/formats")  # the digest covers them (docs/api.md §13); 404 from an older one
        except httpx.HTTPError as exc:
            raise RemoteError(f"cannot reach the service: {exc}") from None
        if r.status_code != 200:
            raise RemoteError(f"GET /v1/cards: {r.status_code}")
        body = r.json()
        api_only = ("name_deck_limit",)  # what the API adds to a card of the catalog file (docs/api.md §8)
        cards = [{k: v for k, v in card.items() if k not in api_only} for card in body["cards"]]
        data: dict[str, Any] = {"id": body["catalog"]["id"], "cards": cards}
        if formats.status_code == 200 and formats.json().get("formats"):
            data["formats"] = formats.json()["formats"]
        try:
            catalog = Catalog.from_data(data)
        except Exception as exc:
            raise RemoteError(f"GET /v1/cards: the service's catalog does not load here: {exc}") from None
        if catalog.digest != body["catalog"]["digest"]:
            raise RemoteError("GET /v1/cards: the cards do not give the service's catalog digest")
        return catalog

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        answer: dict[str, Any] = self._send(path, body).json()
        return answer

    def _send(self, path: str, body: dict[str, Any]) -> Any:
        import httpx

        try:
            r = self.http.post(path, json=body)
        except httpx.HTTPError as exc:
            raise RemoteError(f"POST {path}: {exc}") from None
        if r.status_code >= 400:
            try:
                problem = r.json()
            except ValueError:
                problem = {}
            raise RemoteError(f"POST {path}: {r.status_code} {problem.get('code', '')}: {problem.get('detail', '')}")
        return r

    def record(self, game: dict[str, Any], actions: list[ActionDict]) -> str | None:
        """The whole record of the last game played (``POST /v1/records``, docs/api.md §14), written by the
        service: from its NewGame, or in private mode from the token it was dealt and both seats. ``None``
        for a private game not over: until the end its whole record, which names the seed, is the service's
        secret (403 ``game_not_over``)."""
        seats = self.dealt.get("seats")
        body = {"game": game} if seats is None else {"state": self.dealt["state"], "seats": seats}
        try:
            text: str = self._send("/v1/records", {**body, "actions": actions}).text
        except RemoteError as exc:
            if seats is not None and "game_not_over" in str(exc):
                return None
            raise
        return text

    def play(
        self,
        bots: list[Bot],
        game: dict[str, Any],
        max_actions: int = DEFAULT_MAX_ACTIONS,
        moves: list[ActionDict] | None = None,
    ) -> tuple[int | None, int]:
        """As :func:`play_game`, through the service."""
        try:
            dealt = self._post("/v1/games", game)
        except RemoteError as exc:
            if "not_in_private_mode" not in str(exc):
                raise
            dealt = self._post("/v1/games", {k: v for k, v in game.items() if k != "seed"})  # the service deals
        token, seats = dealt["state"], dealt.get("seats")
        self.dealt = {"state": token, "seats": seats}
        for p, bot in enumerate(bots):
            bot.start(p, own_deck_only(game["decks"], p), game.get("seed", "remote"))
        inbox: list[list[EventDict]] = [[], []]
        n = 0
        while n < max_actions:
            views = [self._view(token, seats, p) for p in (0, 1)]
            v = views[0]
            if v["phase"] == "over" and (result := v["result"]) is not None:  # the one follows from the other
                return result["winner"], n
            seat = pending["responder"] if (pending := v["pending"]) is not None else v["active"]
            body = {"state": token, "player": seat} if seats is None else {"state": token, "seat": seats[seat]}
            legal = self._post("/v1/legal-actions", body)["actions"]
            action = bots[seat].act(views[seat], inbox[seat], legal)
            inbox[seat] = []
            body = {"state": token, "action": action} | ({} if seats is None else {"seat": seats[seat]})
            out = self._post("/v1/apply", body)
            token = out["state"]
            n += 1
            if moves is not None:
                moves.append(action)
            if seats is None:  # plain mode: each seat's share of the events, as private mode would give it
                for p in (0, 1):
                    inbox[p].extend(seat_events(out["events"], token, p))
            else:  # private mode: the service answers the acting seat only
                inbox[seat].extend(out["events"])
        return None, n

    def _view(self, token: Any, seats: list[str] | None, p: int) -> ViewDict:
        body = {"state": token, "player": p} if seats is None else {"state": token, "seat": seats[p]}
        view: ViewDict = self._post("/v1/view", body)["view"]  # the service's view (docs/api.md §5)
        return view


class RemoteError(Exception):
    """The service refused or failed a request of the match (one line)."""
