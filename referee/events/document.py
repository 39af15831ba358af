"""The event document of docs/api.md §17, read exactly: a JSON value in, an :class:`Event` out.

Players are referred to by their position in ``players`` from here on (the ids
are the document's own). Whatever is not an event — a wrong type, an unknown or
repeated player id, a player paired twice in a round or after dropping, a game
count out of range, the limits of 4,096 players and 64 rounds — is refused as
:class:`~referee.events.rules.EventInputError` with each bad field's path, like
any schema error (400). A well-formed event that breaks a rule (a result that
is not a match score, a round not finished) is a rule's refusal, decided later.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from referee.events.rules import EventInputError, rule

MAX_PLAYERS = 4096
MIN_PLAYERS = 2
MAX_ROUNDS = 64
MAX_ID = 64  # characters of a player id
MAX_TEXT = 200  # characters of a name or a seed
BEST_OF = (1, 3, 5)
CUTS = (0, 2, 4, 8)
MAX_ERRORS = 50  # a document is read to its 50th problem, no further (the answer lists 10)
# Bounds of a player's starting rating (docs/events.md): Glicko-2 stays finite within them.
RATING_BOUNDS = {"rating": (0.0, 5000.0), "rd": (1.0, 500.0), "volatility": (0.0001, 1.0)}
DEFAULT_RATING = (1500.0, 350.0, 0.06)  # RULES 15.7

EVENT_KEYS = frozenset({"name", "seed", "best_of", "swiss_rounds", "cut", "swiss_ended", "players", "rounds"})
PLAYER_KEYS = frozenset({"id", "name", "rating"})
ROUND_KEYS = frozenset({"pairings", "drops", "cut"})
MATCH_KEYS = frozenset({"players", "result", "table"})
BYE_KEYS = frozenset({"bye", "table"})


@dataclass(frozen=True, slots=True)
class Result:
    """A match's result: the games each side won (in the pairing's order), or which side forfeited."""

    games: tuple[int, int] | None = None
    forfeit: int | None = None  # 0 or 1: the side that forfeits (RULES 15.2)


@dataclass(frozen=True, slots=True)
class Pairing:
    """One entry of a round: a match of two players (``bye`` False), or one player's bye."""

    players: tuple[int, ...]  # two players' positions, or the bye's one
    result: Result | None = None

    @property
    def bye(self) -> bool:
        return len(self.players) == 1


@dataclass(frozen=True, slots=True)
class Round:
    pairings: tuple[Pairing, ...]
    drops: tuple[int, ...] = ()
    cut: bool = False


@dataclass(frozen=True, slots=True)
class Event:
    """An event read: its options (``swiss_rounds`` resolved to its default), its players' ids and starting
    ratings, its rounds, and the document it was read from (answers echo it)."""

    seed: str
    best_of: int
    swiss_rounds: int
    cut: int
    swiss_ended: bool
    ids: tuple[str, ...]
    ratings: tuple[tuple[float, float, float], ...]
    rounds: tuple[Round, ...]
    document: dict[str, Any] = field(compare=False)

    @property
    def wins_needed(self) -> int:
        return (self.best_of + 1) // 2

    @property
    def swiss(self) -> tuple[Round, ...]:
        return tuple(r for r in self.rounds if not r.cut)

    @property
    def cut_rounds(self) -> tuple[Round, ...]:
        return tuple(r for r in self.rounds if r.cut)


@rule("15.1")
def default_swiss_rounds(players: int) -> int:
    """RULES 15.1: ⌈log₂ players⌉ Swiss rounds, at least 1."""
    return max(1, math.ceil(math.log2(players)))


class _Reader:
    """Collects each bad field's path and message; raises them all (up to :data:`MAX_ERRORS`) at the end."""

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}

    def bad(self, path: str, message: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.setdefault(path, []).append(message)

    def keys(self, value: dict[str, Any], allowed: frozenset[str], path: str, required: tuple[str, ...]) -> None:
        for key in value:
            if key not in allowed:
                self.bad(_join(path, str(key)), "Unknown field.")
        for key in required:
            if key not in value:
                self.bad(_join(path, key), "Missing data for required field.")

    def text(self, value: Any, path: str, low: int, high: int) -> str | None:
        if not isinstance(value, str):
            self.bad(path, "Not a valid string.")
            return None
        if not low <= len(value) <= high:
            self.bad(path, f"Length must be between {low} and {high}.")
            return None
        return value

    def choice(self, value: Any, path: str, allowed: tuple[int, ...]) -> int | None:
        if type(value) is not int or value not in allowed:
            self.bad(path, f"Must be one of: {', '.join(map(str, allowed))}.")
            return None
        return value

    def obj(self, value: Any, path: str) -> dict[str, Any] | None:
        if not isinstance(value, dict):
            self.bad(path, "Not a valid object.")
            return None
        return value

    def array(self, value: Any, path: str, high: int, low: int = 0) -> list[Any] | None:
        if not isinstance(value, list):
            self.bad(path, "Not a valid list.")
            return None
        if not low <= len(value) <= high:
            self.bad(path, f"Length must be between {low} and {high}.")
            return None
        return value


def _join(path: str, key: str | int) -> str:
    return f"{path}.{key}" if path else str(key)


def read_event(document: Any) -> Event:
    """The event of ``document`` (docs/api.md §17), or :class:`EventInputError` naming every bad field."""
    reader = _Reader()
    doc = reader.obj(document, "_schema")
    if doc is None:
        raise EventInputError(reader.errors)
    reader.keys(doc, EVENT_KEYS, "", ("seed", "best_of", "players", "rounds"))
    seed = reader.text(doc.get("seed", ""), "seed", 0, MAX_TEXT)
    best_of = reader.choice(doc.get("best_of", 3), "best_of", BEST_OF)
    cut = reader.choice(doc.get("cut", 0), "cut", CUTS)
    if "name" in doc:
        reader.text(doc["name"], "name", 0, MAX_TEXT)
    swiss_ended = doc.get("swiss_ended", False)
    if not isinstance(swiss_ended, bool):
        reader.bad("swiss_ended", "Not a valid boolean.")
    ids, ratings = _read_players(reader, doc.get("players", []))
    swiss_rounds = _read_swiss_rounds(reader, doc, len(ids))
    if cut is not None and cut > len(ids) >= MIN_PLAYERS:
        reader.bad("cut", f"A cut of {cut} needs at least {cut} players.")
    rounds: tuple[Round, ...] = ()
    if not reader.errors:  # rounds name players: read them once the players are known
        rounds = _read_rounds(reader, doc.get("rounds"), ids, best_of or 3, cut or 0)
    if reader.errors:
        raise EventInputError(reader.errors)
    assert seed is not None and best_of is not None and cut is not None
    return Event(seed, best_of, swiss_rounds, cut, bool(swiss_ended), ids, ratings, rounds, doc)


def _read_swiss_rounds(reader: _Reader, doc: dict[str, Any], players: int) -> int:
    if "swiss_rounds" not in doc:
        return default_swiss_rounds(max(players, MIN_PLAYERS))
    value = doc["swiss_rounds"]
    if type(value) is not int or not 1 <= value <= MAX_ROUNDS:
        reader.bad("swiss_rounds", f"Must be an integer from 1 to {MAX_ROUNDS}.")
        return 1
    return value


def _read_players(reader: _Reader, value: Any) -> tuple[tuple[str, ...], tuple[tuple[float, float, float], ...]]:
    players = reader.array(value, "players", MAX_PLAYERS, MIN_PLAYERS)
    if players is None:
        return (), ()
    ids: list[str] = []
    ratings: list[tuple[float, float, float]] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(players):
        path = f"players.{i}"
        player = reader.obj(item, path)
        if player is None:
            continue
        reader.keys(player, PLAYER_KEYS, path, ("id",))
        pid = reader.text(player.get("id", ""), f"{path}.id", 1, MAX_ID)
        if "name" in player:
            reader.text(player["name"], f"{path}.name", 0, MAX_TEXT)
        if pid is not None:
            if pid in seen:
                reader.bad(f"{path}.id", f"Duplicate player id (also players.{seen[pid]}).")
            seen.setdefault(pid, i)
            ids.append(pid)
        ratings.append(
            _read_rating(reader, player["rating"], f"{path}.rating") if "rating" in player else DEFAULT_RATING
        )
    return tuple(ids), tuple(ratings)


def _read_rating(reader: _Reader, value: Any, path: str) -> tuple[float, float, float]:
    rating = reader.obj(value, path)
    if rating is None:
        return DEFAULT_RATING
    reader.keys(rating, frozenset(RATING_BOUNDS), path, tuple(RATING_BOUNDS))
    out = []
    for key, (low, high) in RATING_BOUNDS.items():
        number = rating.get(key, 0)
        if type(number) not in (int, float) or not low <= number <= high:
            reader.bad(f"{path}.{key}", f"Must be a number from {low:g} to {high:g}.")
            number = low
        out.append(float(number))
    return out[0], out[1], out[2]


def _read_rounds(reader: _Reader, value: Any, ids: tuple[str, ...], best_of: int, cut: int) -> tuple[Round, ...]:
    rounds = reader.array(value, "rounds", MAX_ROUNDS)
    if rounds is None:
        return ()
    index = {pid: i for i, pid in enumerate(ids)}
    dropped: dict[int, int] = {}  # player -> the round (1-based) after which they left
    out: list[Round] = []
    in_cut = False
    for r, item in enumerate(rounds):
        path = f"rounds.{r}"
        data = reader.obj(item, path)
        if data is None:
            continue
        reader.keys(data, ROUND_KEYS, path, ("pairings",))
        is_cut = data.get("cut", False)
        if not isinstance(is_cut, bool):
            reader.bad(f"{path}.cut", "Not a valid boolean.")
            is_cut = False
        if is_cut and not cut:
            reader.bad(f"{path}.cut", "A cut round in an event without a cut.")
        if in_cut and not is_cut:
            reader.bad(f"{path}.cut", "A Swiss round after the cut.")
        in_cut = in_cut or is_cut
        pairings = _read_pairings(reader, data.get("pairings"), f"{path}.pairings", index, dropped, best_of, is_cut)
        drops = _read_drops(reader, data.get("drops", []), f"{path}.drops", index, dropped, r + 1)
        out.append(Round(pairings, drops, is_cut))
    return tuple(out)


def _player(reader: _Reader, value: Any, path: str, index: dict[str, int]) -> int | None:
    if not isinstance(value, str):
        reader.bad(path, "Not a valid string.")
        return None
    if value not in index:
        reader.bad(path, f"Unknown player id {value[:MAX_ID]!r}.")
        return None
    return index[value]


def _read_pairings(
    reader: _Reader,
    value: Any,
    path: str,
    index: dict[str, int],
    dropped: dict[int, int],
    best_of: int,
    is_cut: bool,
) -> tuple[Pairing, ...]:
    items = reader.array(value, path, len(index))
    if items is None:
        return ()
    seen: dict[int, int] = {}
    out: list[Pairing] = []
    for t, item in enumerate(items):
        where = f"{path}.{t}"
        data = reader.obj(item, where)
        if data is None:
            continue
        if "table" in data and (type(data["table"]) is not int or not 1 <= data["table"] <= len(items)):
            reader.bad(f"{where}.table", f"Must be an integer from 1 to {len(items)}.")
        if "bye" in data:
            reader.keys(data, BYE_KEYS, where, ())
            found = [_player(reader, data["bye"], f"{where}.bye", index)]
            paths = [f"{where}.bye"]
        else:
            reader.keys(data, MATCH_KEYS, where, ("players",))
            pair = reader.array(data.get("players", []), f"{where}.players", 2, 2)
            if pair is None:
                continue
            paths = [f"{where}.players.{i}" for i in range(2)]
            found = [_player(reader, p, at, index) for p, at in zip(pair, paths, strict=True)]
        for player, at in zip(found, paths, strict=True):
            if player is None:
                continue
            if player in seen:
                reader.bad(at, f"Paired twice in this round (also table {seen[player] + 1}).")
            elif player in dropped:
                reader.bad(at, f"Dropped after round {dropped[player]}: never paired again (RULES 15.1).")
            seen.setdefault(player, t)
        if None in found:
            continue
        players = tuple(p for p in found if p is not None)
        if len(players) == 2 and players[0] == players[1]:
            continue  # reported above as paired twice
        result = None
        if "result" in data:
            result = _read_result(reader, data["result"], f"{where}.result", players, index, best_of)
        out.append(Pairing(players, result))
    return tuple(out)


def _read_result(
    reader: _Reader, value: Any, path: str, players: tuple[int, ...], index: dict[str, int], best_of: int
) -> Result | None:
    data = reader.obj(value, path)
    if data is None:
        return None
    if len(data) != 1 or not ({"games"} >= data.keys() or {"forfeit"} >= data.keys()):
        reader.bad(path, "Give exactly one of games and forfeit.")
        return None
    if "forfeit" in data:
        who = _player(reader, data["forfeit"], f"{path}.forfeit", index)
        if who is None:
            return None
        if who not in players:
            reader.bad(f"{path}.forfeit", "Not a player of this match.")
            return None
        return Result(forfeit=players.index(who))
    games = reader.array(data["games"], f"{path}.games", 2, 2)
    if games is None:
        return None
    most = (best_of + 1) // 2
    if not all(type(g) is int and 0 <= g <= most for g in games):
        reader.bad(f"{path}.games", f"Each must be an integer from 0 to {most} (best of {best_of}).")
        return None
    return Result(games=(games[0], games[1]))


def _read_drops(
    reader: _Reader, value: Any, path: str, index: dict[str, int], dropped: dict[int, int], round_no: int
) -> tuple[int, ...]:
    items = reader.array(value, path, len(index))
    if items is None:
        return ()
    out: list[int] = []
    for i, item in enumerate(items):
        player = _player(reader, item, f"{path}.{i}", index)
        if player is None:
            continue
        if player in dropped:
            reader.bad(f"{path}.{i}", f"Dropped already (after round {dropped[player]}).")
            continue
        dropped[player] = round_no
        out.append(player)
    return tuple(out)
