"""``referee arena``: a round robin of bots in any language, with ratings (docs/bots.md).

Every pair of bots plays ``games`` games; game ``k`` of a pair deals from
seed ``S:k//2`` (two random legal decks of the catalog, player 0 first) with
the pair's first bot at seat ``k % 2``: every deal is played twice, each bot
on each side. A bot is told only its own seat's share
(:mod:`referee.bots.protocol`): its view, its events, its legal actions and its
own deck. A bot that crashes, runs out of its time for a move or answers an
illegal index loses that game (a *forfeit*), and the arena goes on. A game not
over after ``max_actions`` actions is a draw. Each game is written as a
``/v1/replay`` body (``{"game", "actions"}``) and as a game record
(``.afr``, docs/records.md; a forfeit is no result of the rules, so its
record ends ``*``); the ratings are Bradley–Terry's (Elo's scale) with a
bootstrap 95% interval.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.bots.actions import ActionSpace
from referee.bots.determinize import deck_counts
from referee.bots.match import DEFAULT_MAX_ACTIONS, game_for, write_record
from referee.bots.protocol import PROTOCOL, Forfeit, InProcessBot, Player, ProcessBot, legal_entries
from referee.bots.seat import seat_events
from referee.engine import Catalog, Session
from referee.engine.labels import label
from referee.engine.records import record_text

BUILTIN = "builtin:"


@dataclass
class GameRecord:
    """One game of the arena: who sat where, how it ended, and its replay body."""

    number: int
    bots: tuple[str, str]  # seat 0's, seat 1's
    entrants: tuple[int, int]  # their places in the arena's list of bots
    winner: int | None
    reason: str  # the game's result reason, "forfeit: <crash|timeout|illegal>", or "max_actions"
    detail: str
    replay: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.number,
            "bots": list(self.bots),
            "winner": self.winner,
            "reason": self.reason,
            "detail": self.detail,
            "actions": len(self.replay["actions"]),
        }


def make_player(spec: str, catalog: Catalog, seed: str, log: Path | None) -> Player:
    """``builtin:NAME`` (one of the project's bots, ``builtin:ismcts:N`` for N iterations), else a command."""
    if spec.startswith(BUILTIN):
        return InProcessBot(spec[len(BUILTIN) :], catalog, seed)
    return ProcessBot(spec, log)


def check_spec(spec: str, catalog: Catalog) -> None:
    """``ValueError`` for a built-in bot that does not exist (a command is only known to fail when run)."""
    if spec.startswith(BUILTIN):
        InProcessBot(spec[len(BUILTIN) :], catalog, "check")
    elif not spec.strip():
        raise ValueError("an empty bot command")


def play_arena_game(
    catalog: Catalog,
    players: list[Player],
    game: dict[str, Any],
    move_seconds: float,
    max_actions: int = DEFAULT_MAX_ACTIONS,
    name: str = "game",
) -> tuple[int | None, str, str, list[dict[str, Any]]]:
    """One game, ``players[p]`` at seat ``p``: (winner, reason, detail, the actions played).

    ``name`` names the game to the bots (their randomness may start from it); never the deal's seed, which
    with a bot's own deck list would tell it the order of its file."""
    space = ActionSpace(catalog)
    session, events = Session.new(catalog, game)
    actions: list[dict[str, Any]] = []
    inbox = [seat_events(events, session.state, p) for p in (0, 1)]
    winner: int | None = None
    reason = detail = ""
    try:
        for p, player in enumerate(players):
            start = {
                "type": "start",
                "protocol": PROTOCOL,
                "seat": p,
                "catalog": catalog.ref,
                "deck": dict(sorted(deck_counts(game["decks"][p]).items())),
                "options": game.get("options", {}),
                "move_ms": round(move_seconds * 1000),
                "game": f"{name}:{p}",
            }
            try:
                player.start(start)
            except Forfeit as exc:
                winner, reason, detail = 1 - p, f"forfeit: {exc.reason}", exc.detail
                return winner, reason, detail, actions
        while not session.over and len(actions) < max_actions:
            seat = session.board.who_acts()
            view = session.view(seat)
            listed = session.legal_actions(seat)
            board = session.board
            labelled = [{**a, "label": label(board, a)} for a in listed]
            entries = legal_entries(space, view, labelled)
            message = {
                "type": "act",
                "view": view,
                "events": inbox[seat],
                "legal": entries,
                "time_left_ms": round(move_seconds * 1000),
            }
            try:
                index = players[seat].act(message, time.perf_counter() + move_seconds)
            except Forfeit as exc:
                winner, reason, detail = 1 - seat, f"forfeit: {exc.reason}", exc.detail
                return winner, reason, detail, actions
            inbox[seat] = []
            action = next(e["action"] for e in entries if e["index"] == index)
            applied = session.apply(action).events
            actions.append(action)
            for p in (0, 1):
                inbox[p].extend(seat_events(applied, session.state, p))
        result = session.state["result"]
        if result is None:
            return None, "max_actions", f"not over after {max_actions} actions", actions
        return result["winner"], result["reason"], "", actions
    finally:
        final = session.state["result"]
        for p, player in enumerate(players):
            verdict = {"winner": winner, "reason": reason} if reason.startswith("forfeit") else final
            player.end({"type": "end", "result": verdict, "you": p})


@dataclass
class Standing:
    name: str
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    forfeits: int = 0
    rating: float = 0.0
    low: float = 0.0
    high: float = 0.0

    @property
    def score(self) -> float:
        return self.wins + 0.5 * self.draws


@dataclass
class ArenaResult:
    bots: list[str]
    games: list[GameRecord] = field(default_factory=list)
    standings: list[Standing] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "bots": self.bots,
            "standings": [
                {
                    "bot": s.name,
                    "games": s.games,
                    "wins": s.wins,
                    "losses": s.losses,
                    "draws": s.draws,
                    "forfeits": s.forfeits,
                    "rating": round(s.rating),
                    "interval95": [round(s.low), round(s.high)],
                }
                for s in self.standings
            ],
            "games": [g.to_json() for g in self.games],
        }

    def table(self) -> str:
        rows = [("rank", "bot", "rating", "95% interval", "games", "won", "lost", "drawn", "forfeits")]
        for rank, s in enumerate(self.standings, 1):
            rows.append(
                (
                    str(rank),
                    s.name,
                    f"{s.rating:.0f}",
                    f"{s.low:.0f} to {s.high:.0f}",
                    str(s.games),
                    str(s.wins),
                    str(s.losses),
                    str(s.draws),
                    str(s.forfeits),
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def pairings(n: int, games: int) -> Iterator[tuple[int, int, int]]:
    """(first bot, second bot, game number within the pair) of the round robin, in order."""
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(games):
                yield i, j, k


def run_arena(
    catalog: Catalog,
    specs: list[str],
    games: int,
    seed: str,
    *,
    move_seconds: float = 1.0,
    max_actions: int = DEFAULT_MAX_ACTIONS,
    options: dict[str, Any] | None = None,
    out: Path | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
) -> ArenaResult:
    """The round robin of ``specs`` (``games`` per pair), each game's replay body and record written into ``out``."""
    result = ArenaResult(list(specs))
    logs = out / "logs" if out is not None else None
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    if logs is not None:
        logs.mkdir(exist_ok=True)
    for number, (i, j, k) in enumerate(pairings(len(specs), games)):
        game = game_for(catalog, f"{seed}:{i}-{j}", k, options)
        seats = (i, j) if k % 2 == 0 else (j, i)
        players = [
            make_player(
                specs[b],
                catalog,
                f"{seed}:{b}",
                None if logs is None else logs / f"bot{b}.stderr.log",
            )
            for b in seats
        ]
        winner, reason, detail, actions = play_arena_game(
            catalog, players, game, move_seconds, max_actions, f"game-{number}"
        )
        replay = {"game": game, "actions": actions}
        record = GameRecord(number, (specs[seats[0]], specs[seats[1]]), seats, winner, reason, detail, replay)
        result.games.append(record)
        if out is not None:
            (out / f"game-{number:04d}.json").write_text(json.dumps(replay, ensure_ascii=False) + "\n")
            write_record(out, number, record_text(catalog, game, actions))
        if on_game is not None:
            on_game(record)
    result.standings = standings(specs, result.games, seed)
    if out is not None:
        (out / "results.json").write_text(json.dumps(result.to_json(), ensure_ascii=False, indent=1) + "\n")
    return result


# -- ratings -----------------------------------------------------------------------------------

ELO = 400 / math.log(10)  # Elo points per natural-log unit of Bradley-Terry strength
BOOTSTRAP = 200


def bradley_terry(n: int, outcomes: list[tuple[int, int, float]], iterations: int = 200) -> list[float]:
    """Elo-scale ratings (mean 0) maximising the Bradley-Terry likelihood of ``outcomes`` ((a, b, a's score):
    1 a win, 0.5 a draw, 0 a loss), each pair also given one virtual draw so that a bot that won every game
    still has a finite rating (minorisation-maximisation, Hunter 2004)."""
    wins = [0.0] * n
    meetings: dict[tuple[int, int], float] = {}
    for a, b, score in outcomes:
        wins[a] += score
        wins[b] += 1 - score
        key = (min(a, b), max(a, b))
        meetings[key] = meetings.get(key, 0.0) + 1
    for a in range(n):
        for b in range(a + 1, n):
            wins[a] += 0.5
            wins[b] += 0.5
            meetings[(a, b)] = meetings.get((a, b), 0.0) + 1
    strength = [1.0] * n
    for _ in range(iterations):
        new = []
        for a in range(n):
            denominator = sum(
                m / (strength[a] + strength[b if a == x else x]) for (x, b), m in meetings.items() if a in (x, b)
            )
            new.append(wins[a] / denominator if denominator else strength[a])
        mean_log = sum(math.log(s) for s in new) / n
        strength = [s / math.exp(mean_log) for s in new]
    return [ELO * math.log(s) for s in strength]


def standings(specs: list[str], records: list[GameRecord], seed: str) -> list[Standing]:
    """Each bot's games and ratings, best first (ties: by name); the interval is a seeded bootstrap over games."""
    table = [Standing(s) for s in specs]
    outcomes = []
    for g in records:
        a, b = g.entrants
        score = 0.5 if g.winner is None else (1.0 if g.winner == 0 else 0.0)
        outcomes.append((a, b, score))
        for seat, bot in ((0, a), (1, b)):
            row = table[bot]
            row.games += 1
            if g.winner is None:
                row.draws += 1
            elif g.winner == seat:
                row.wins += 1
            else:
                row.losses += 1
                row.forfeits += g.reason.startswith("forfeit")
    ratings = bradley_terry(len(specs), outcomes)
    rng = random.Random(f"arena-bootstrap:{seed}")
    samples: list[list[float]] = [[] for _ in specs]
    for _ in range(BOOTSTRAP if outcomes else 0):
        drawn = [outcomes[rng.randrange(len(outcomes))] for _ in outcomes]
        for i, r in enumerate(bradley_terry(len(specs), drawn, iterations=60)):
            samples[i].append(r)
    for i, row in enumerate(table):
        row.rating = ratings[i]
        ordered = sorted(samples[i]) or [ratings[i]]
        row.low = ordered[int(0.025 * (len(ordered) - 1))]
        row.high = ordered[int(0.975 * (len(ordered) - 1))]
    return sorted(table, key=lambda s: (-s.rating, s.name))
