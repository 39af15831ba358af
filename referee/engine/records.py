"""Game records (docs/records.md): a played game as text a person reads and every tool checks.

One reader and one writer, shared by the service (``POST /v1/records``,
``/v1/replay`` with a ``record``), the command line (``referee record``,
``replay``, ``check``, ``recheck``, ``perft``) and the tests; nothing else
parses a record. :func:`read` gives a :class:`Record` (its tags, its moves);
:func:`write` gives the text back, byte for byte, for any record it wrote;
:func:`record_text` plays a NewGame and its actions and writes their record,
whole or as one seat (or a spectator) may know it.

The reader is strict and bounded: every problem is a :class:`RecordError`
naming its line; lines are at most :data:`MAX_LINE` bytes and a record at
most :data:`MAX_MOVES` moves, so a 50 MB line or a million-line file is
refused after reading no more than that.

>>> cat = Catalog.builtin()
>>> from referee.engine.playout import random_new_game
>>> text = record_text(cat, random_new_game(cat, "doc"), [{"type": "concede", "player": 0}])
>>> text.splitlines()[-1]
'1. P0 concede'
>>> write(read(text)) == text
True
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any, Final

from referee.engine.catalog import Catalog
from referee.engine.decklists import DeckCodeError, counts_from_code, deck_code
from referee.engine.errors import InvalidInput, RefereeError, ReplayError, RuleViolation
from referee.engine.facts import commitment
from referee.engine.model import ACTION_FIELDS
from referee.engine.parse import plain_copy
from referee.engine.session import Session, parse_actions
from referee.engine.setup import deck_counts, deck_list, new_game
from referee.engine.state_types import ActionDict
from referee.engine.views import visible_cards

MAX_LINE: Final = 16 * 1024  # bytes of one line, its newline included: a move is ~100, a header tag ~300
MAX_MOVES: Final = 100_000  # far past any game of 40-card decks (a random game is ~150)
MAX_BYTES: Final = 24 * 1024 * 1024  # a whole record: its moves at their longest, and room for comments
MAX_TIME_MS: Final = 10**12  # ms since the deal: 31 years
WHOLE: Final = "whole"  # ``seat`` of a whole record; 0 or 1 a seat's, None a spectator's
SPECTATOR: Final = "spectator"
CODE_PREFIX: Final = "afd1."  # a deck code's (referee/engine/decklists.py)
DRAWN: Final = " drawn"  # after FirstPlayer's player: the seed chose them (the NewGame named none)

# The tags, in the order they are written; what each holds: docs/records.md.
TAGS: Final = (
    "Catalog",
    "Format",
    "Player0",
    "Player1",
    "Seat",
    "Deck0",
    "Deck1",
    "Seed",
    "Commitment",
    "FirstPlayer",
    "Shuffle",
    "Options",
    "Clock",
    "Match",
    "Result",
)
ALWAYS: Final = ("Catalog", "Player0", "Player1", "FirstPlayer", "Options", "Result")
# The fields of each action line, in order: docs/api.md §6, and a clocked game's claim_time (no fields).
LINE_FIELDS: Final[dict[str, tuple[str, ...]]] = {**ACTION_FIELDS, "claim_time": ()}
LIST_FIELDS: Final = frozenset(("targets", "cards", "pay"))
ID_FIELDS: Final = ("card", "case", "fairy", "targets", "cards", "pay")
EMPTY_LIST: Final = "-"

_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9]*) (".*")\]')
_ID = re.compile(r'[^\s;=@,\[\]"]+')
_DECK = re.compile(r"afd1\.[A-Za-z0-9_-]+|[^\s\"]+( [^\s\"]+){0,99}")
_INT = re.compile(r"0|[1-9][0-9]{0,12}")
_NAME_TOKEN = re.compile(r'[^\s\x00-\x1f\x7f;=@,\[\]"]+')  # no control character: a line holds none
_N = "(0|[1-9][0-9]{0,5})"  # a number of a tag, written without leading zeros (so it reads back byte for byte)
_VALUE_SYNTAX: dict[str, tuple[re.Pattern[str], str]] = {
    "Catalog": (re.compile(r"\S+ sha256:[0-9a-f]{64}"), "the catalog's id and digest: af-ref sha256:<64 hex digits>"),
    "Format": (re.compile(r"[^\s]+( [0-9]{4}-[0-9]{2}-[0-9]{2})?"), "a format id, and a date: af99 2000-04-01"),
    "Seat": (re.compile(r"[01]|spectator"), "0, 1 or spectator"),
    "Seed": (re.compile(r".+", re.S), "a non-empty seed"),
    "Commitment": (re.compile(r"sha256:[0-9a-f]{64}"), "sha256: and 64 hex digits"),
    "FirstPlayer": (re.compile(r"[01]( drawn)?"), "0 or 1, then ' drawn' when the seed chose (RULES 5.2)"),
    "Shuffle": (re.compile(r"false"), 'false (absent: the decks are shuffled); only "false" is written'),
    "Options": (re.compile(r"response_windows=(auto|strict)"), "response_windows=auto or response_windows=strict"),
    "Clock": (re.compile(r"(0|[1-9][0-9]{0,5})\+(0|[1-9][0-9]{0,5})"), "initial+increment in seconds: 600+10"),
    "Match": (re.compile(rf"[a-z_]+={_N}(-{_N})?( [a-z_]+={_N}(-{_N})?)*"), "best_of=3 game=2 wins=0-1"),
    "Result": (re.compile(r"\*|[01] [a-z_]+"), "* while the game goes on, else the winner and the reason: 0 deck_out"),
}


class RecordError(RefereeError):
    """A record that does not read, or names a game that cannot be: ``line`` (1-based) and what is wrong."""

    code = "bad_record"

    def __init__(self, line: int, message: str):
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True)
class Move:
    """One action line: the action, when it was accepted (ms since the deal, clocked games), its comment."""

    action: ActionDict | dict[str, Any]  # as read: checked by the replay
    time: int | None = None
    note: str = ""
    line: int = 0  # where it was read (0: made here)


@dataclass
class Record:
    """A record's tags (value by name) and its moves in order."""

    tags: dict[str, str]
    moves: list[Move] = field(default_factory=list)
    tag_lines: dict[str, int] = field(default_factory=dict)

    @property
    def actions(self) -> list[dict[str, Any]]:
        actions: list[Any] = [m.action for m in self.moves]  # plain dicts, as a body's actions are
        return actions

    @property
    def times(self) -> list[int] | None:
        if not self.moves or self.moves[0].time is None:
            return None
        return [m.time for m in self.moves if m.time is not None]

    @property
    def result(self) -> dict[str, Any] | None:
        """The ``Result`` tag as a state's ``result`` (``None`` while the game goes on)."""
        value = self.tags["Result"]
        if value == "*":
            return None
        winner, reason = value.split(" ")
        return {"winner": int(winner), "reason": reason}

    def line_of(self, index: int) -> int:
        """The line of move ``index`` (the last line when past the end)."""
        if 0 <= index < len(self.moves):
            return self.moves[index].line
        return self.moves[-1].line if self.moves else max(self.tag_lines.values(), default=1)

    def new_game(self, catalog: Catalog) -> dict[str, Any]:
        """The NewGame (docs/api.md §2) the record was dealt from; a :class:`RecordError` if there is none here."""
        tags, at = self.tags, self.tag_lines
        if "Seat" in tags:
            raise RecordError(
                at["Seat"],
                "a seat's record holds no seed and not both decks: it cannot be replayed (the whole record can)",
            )
        ref = f"{catalog.id} {catalog.digest}"
        if tags["Catalog"] != ref:
            raise RecordError(
                at["Catalog"], f"the game was played with catalog {tags['Catalog']}; this referee has {ref}"
            )
        shuffle = "Shuffle" not in tags
        decks: list[Any] = []
        for i in (0, 1):
            name = f"Deck{i}"
            value = tags[name]
            if value.startswith(CODE_PREFIX):
                try:
                    decks.append(counts_from_code(catalog, value))
                except DeckCodeError as exc:
                    message = getattr(exc, "message", None) or str(exc)
                    raise RecordError(at[name], f"{name}: {message} ({exc.code})") from None
            else:
                ids = value.split(" ")
                unknown = next((cid for cid in ids if cid not in catalog), None)
                if unknown is not None:
                    raise RecordError(at[name], f"{name}: {unknown} is not a card of catalog {catalog.id}")
                decks.append(ids)
        game: dict[str, Any] = {
            "decks": decks,
            "seed": tags["Seed"],
            "first_player": None if tags["FirstPlayer"].endswith(DRAWN) else int(tags["FirstPlayer"]),
            "players": [tags["Player0"], tags["Player1"]],
            "options": {"response_windows": tags["Options"].split("=", 1)[1]},
        }
        if game["first_player"] is None:
            del game["first_player"]
        if not shuffle:
            game["shuffle"] = False
        if "Format" in tags:
            fmt_id, _, date = tags["Format"].partition(" ")
            game["format"] = {"id": fmt_id, "date": date} if date else fmt_id
        if "Clock" in tags:
            initial, increment = tags["Clock"].split("+")
            game["clock"] = {"initial": int(initial), "increment": int(increment)}
        if "Match" in tags:
            game["match"] = {k: _match_value(v) for k, v in (pair.split("=") for pair in tags["Match"].split(" "))}
        return game

    def replay_body(self, catalog: Catalog) -> dict[str, Any]:
        """What ``POST /v1/replay`` takes for this record: ``{"game", "actions"}`` and ``times`` if it has them."""
        body: dict[str, Any] = {"game": self.new_game(catalog), "actions": self.actions}
        times = self.times
        if times is not None:
            body["times"] = times
        return body

    def check_result(self, result: Any) -> None:
        """The ``Result`` tag says how the game replayed ended (``result``: the final state's); else a RecordError."""
        said = self.result
        if said != result:
            got = "*" if result is None else f"{result['winner']} {result['reason']}"
            raise RecordError(
                self.tag_lines["Result"],
                f'the record says [Result "{self.tags["Result"]}"], the game replayed gives {got}',
            )


# -- writing ---------------------------------------------------------------------------


def quote(value: str) -> str:
    """A tag's value as written: a JSON string (``"``, ``\\`` and control characters escaped)."""
    return json.dumps(value, ensure_ascii=False)


def actor_tokens(names: tuple[str, str]) -> tuple[str, str]:
    """How action lines name the players: their names when each is one plain word and they differ, else P0, P1."""
    a, b = names
    plain = all(
        _NAME_TOKEN.fullmatch(n) and not re.fullmatch(r"P[01]|[0-9]+\.", n) and n not in LINE_FIELDS for n in names
    )
    return (a, b) if plain and a != b else ("P0", "P1")


def _value(name: str, value: Any) -> str:
    if name in LIST_FIELDS:
        return ",".join(value) if value else EMPTY_LIST
    return str(value)


def move_line(number: int, actor: str, move: Move) -> str:
    """``12. Aoi play_evidence card=a1 case=b2 pay=a3 @83021 ; note``."""
    action = move.action
    kind = action["type"]
    parts = [f"{number}.", actor, kind]
    for name in LINE_FIELDS.get(kind, ()):
        value = action.get(name)
        if name == "targets" and not value:
            continue  # absent and [] read the same (docs/api.md §6)
        parts.append(f"{name}={_value(name, value)}")
    if "pay" in action:
        parts.append(f"pay={_value('pay', action['pay'])}")
    if move.time is not None:
        parts.append(f"@{move.time}")
    if move.note:
        parts.append(f"; {move.note}")
    return " ".join(parts)


def write(record: Record) -> str:
    """The record's text: the tags in :data:`TAGS` order, a blank line, one line per move."""
    lines = [f"[{name} {quote(record.tags[name])}]" for name in TAGS if name in record.tags]
    lines.append("")
    tokens = actor_tokens((record.tags["Player0"], record.tags["Player1"]))
    lines.extend(move_line(i, tokens[m.action["player"]], m) for i, m in enumerate(record.moves, 1))
    return "\n".join(lines) + "\n"


def _known(state: Mapping[str, Any], seat: Any) -> set[str] | None:
    """The instance ids ``seat`` may know now (None: every one, for a whole record)."""
    return None if seat == WHOLE else visible_cards(state, seat)  # type: ignore[arg-type]


def _note(catalog: Catalog, cards: Mapping[str, str], action: Mapping[str, Any], known: set[str] | None) -> str:
    """The comment naming, for people, each card of the action its reader may know: ``card: Fairy of the North (AF-001)``."""
    parts = []
    for name in ID_FIELDS:
        value = action.get(name)
        ids = value if isinstance(value, list) else [value] if value is not None else []
        named = []
        for iid in ids:
            cid = cards.get(iid)
            if cid is not None and (known is None or iid in known):
                card = catalog.get(cid)
                label = (card.name_en or card.name) if card is not None else cid
                named.append(f"{label} ({cid})")
        if named:
            parts.append(f"{name}: {', '.join(named)}")
    return "; ".join(parts)


def _times(times: Any, count: int) -> list[int] | None:
    if times is None:
        return None
    ok = isinstance(times, list) and len(times) == count
    ok = ok and all(type(t) is int and 0 <= t <= MAX_TIME_MS for t in times)
    ok = ok and all(a <= b for a, b in pairwise(times))
    if not ok:
        raise InvalidInput(
            {"times": [f"must be one time per action: integers from 0 to {MAX_TIME_MS}, never decreasing"]}
        )
    return list(times)


def record_text(
    catalog: Catalog,
    game: Any,
    actions: Any,
    *,
    times: Any = None,
    seat: Any = WHOLE,
    path: str = "game",
    dealt: Any = None,
) -> str:
    """Play ``game`` (a NewGame) and ``actions`` and write their record, whole or as ``seat`` may know it.

    ``dealt`` in place of ``game``: a checked state at its deal (:func:`deal_game` found no NewGame for it),
    for a seat's or a spectator's record, which names no NewGame. Raises as ``replay`` does:
    ``InvalidInput`` (a malformed NewGame, action or ``times``), ``IllegalDeck``, ``ReplayError`` at the
    first illegal action.
    """
    if not isinstance(actions, list):
        raise InvalidInput({"actions": ["must be a list of actions"]})
    if game is None:
        if seat == WHOLE:
            raise ValueError("a whole record needs the NewGame")
        session = Session(catalog, plain_copy(dealt))
        game = {"decks": [_counts_at_deal(session.state, i) for i in (0, 1)], "first_player": dealt["first_player"]}
    else:
        session, _ = Session.new(catalog, game, path)
    head = _header(catalog, game, session.state, seat)
    parsed = parse_actions(actions)
    if len(parsed) > MAX_MOVES:
        raise InvalidInput({"actions": [f"a record holds at most {MAX_MOVES} moves"]})
    at = _times(times, len(parsed))
    moments = session.moments(parsed, at)  # a clocked game charges each move at its recorded time
    moves = []
    for index, action in enumerate(parsed):
        before = _known(session.state, seat)
        try:
            session.apply_parsed(action, moments[index])
        except RuleViolation as violation:
            raise ReplayError(index, violation, session.state) from None
        after = _known(session.state, seat)
        known = None if before is None or after is None else before | after
        note = _note(catalog, session.state["cards"], action, known)
        moves.append(Move(action, None if at is None else at[index], note))
    result = session.state["result"]
    head["Result"] = "*" if result is None else f"{result['winner']} {result['reason']}"
    text = write(Record(head, moves))
    if max(len(line.encode("utf-8")) + 1 for line in text.split("\n")) > MAX_LINE:  # what the reader refuses
        raise InvalidInput(
            {path: [f"a record's lines are at most {MAX_LINE} bytes: a player's name or the seed is longer"]}
        )
    return text


def at_deal(state: Mapping[str, Any]) -> bool:
    """Whether a checked state is a game just dealt: the mulligan phase, nothing kept, nothing trashed."""
    players = state["players"]
    return state["turn"] == 0 and state.get("seq", 0) == 0 and not any(p["kept"] or p["trash"] for p in players)


def _counts_at_deal(state: Mapping[str, Any], player: int) -> dict[str, int]:
    pl = state["players"][player]
    cards = state["cards"]
    counts = Counter(cards[iid] for iid in (*pl["hand"], *pl["file"]))
    return dict(sorted(counts.items()))


def deal_game(catalog: Catalog, state: Mapping[str, Any]) -> dict[str, Any] | None:
    """The NewGame that deals exactly ``state`` (checked, at its deal), if a record can name one: its decks as
    counts in card-id order, the seed choosing the first player or not; ``None`` when neither deals it (the
    decks were given in another order, which the state no longer holds)."""
    if not at_deal(state):
        return None
    players = state["players"]
    base: dict[str, Any] = {
        "decks": [_counts_at_deal(state, i) for i in (0, 1)],
        "seed": state["seed"],
        "players": [p["name"] for p in players],
        "options": dict(state["options"]),
        **_dealt_with(state),
    }
    for game in (base, {**base, "first_player": state["first_player"]}):
        again = new_game(catalog, game)[0]
        if again["cards"] == state["cards"] and again["players"] == players and again["rng"] == state["rng"]:
            return game
    return None


def _dealt_with(state: Mapping[str, Any]) -> dict[str, Any]:
    """What the NewGame of a deal named beside its decks, as its state keeps it: the format (the revision in
    force, as a date), the clock and the match (its first game's: a later one is dealt by /v1/matches/next)."""
    out: dict[str, Any] = {}
    fmt, clock, match = state.get("format"), state.get("clock"), state.get("match")
    if fmt:
        out["format"] = {"id": fmt["id"], "date": fmt["revision"]}
    if clock:
        out["clock"] = {"initial": clock["initial"], "increment": clock["increment"]}
    if match and match.get("game") == 1:
        out["match"] = {"best_of": match["best_of"]}
    elif match:  # a later game: the match as it stood when it was dealt (NewGame names it so, docs/api.md §15)
        out["match"] = {"best_of": match["best_of"], "game": match["game"], "wins": list(match["wins"])}
    return out


def _deck_tag(catalog: Catalog, deck: Any, shuffle: bool) -> str:
    """A deck code when the deck was given in card-id order (as a code reads back), else its ids in the
    order given: the shuffle starts from that order, so a code would deal another game."""
    ids = deck_list(deck)
    counts = deck_counts(deck)
    if shuffle and ids == [cid for cid in sorted(counts) for _ in range(counts[cid])]:
        return deck_code(catalog, counts)
    return " ".join(ids)


def _header(catalog: Catalog, game: Mapping[str, Any], state: Mapping[str, Any], seat: Any) -> dict[str, str]:
    """Every tag but ``Result``, from the NewGame and the state it dealt."""
    players = state["players"]
    shuffle = game.get("shuffle", True)
    tags: dict[str, str] = {"Catalog": f"{catalog.id} {catalog.digest}"}
    fmt = state.get("format") or game.get("format")
    if isinstance(fmt, Mapping):
        tags["Format"] = " ".join(str(fmt[k]) for k in ("id", "revision", "date") if fmt.get(k))
    elif isinstance(fmt, str):
        tags["Format"] = fmt
    tags["Player0"], tags["Player1"] = players[0]["name"], players[1]["name"]
    if seat != WHOLE:
        tags["Seat"] = SPECTATOR if seat is None else str(seat)
    for i, deck in enumerate(game["decks"]):
        if seat in (WHOLE, i):
            tags[f"Deck{i}"] = _deck_tag(catalog, deck, shuffle)
    if seat == WHOLE:
        tags["Seed"] = state["seed"]
    else:
        tags["Commitment"] = commitment(state["seed"])
    drawn = game.get("first_player") is None  # RULES 5.2: drawn from the seed, which moves the shuffle's stream
    tags["FirstPlayer"] = f"{state['first_player']}{DRAWN if drawn else ''}"
    if not shuffle:
        tags["Shuffle"] = "false"
    tags["Options"] = f"response_windows={state['options']['response_windows']}"
    clock = game.get("clock")
    if isinstance(clock, Mapping):
        tags["Clock"] = f"{clock['initial']}+{clock['increment']}"
    match = game.get("match")
    if isinstance(match, Mapping):  # wins as A-B: `best_of=3 game=2 wins=0-1`
        tags["Match"] = " ".join(
            f"{k}={'-'.join(map(str, v)) if isinstance(v, list) else v}" for k, v in sorted(match.items())
        )
    return tags


def _match_value(text: str) -> int | list[int]:
    """A ``Match`` tag's value: a number, or two joined by ``-`` (a later game's ``wins``)."""
    return [int(n) for n in text.split("-")] if "-" in text else int(text)


# -- reading ---------------------------------------------------------------------------


def read(text: str | bytes) -> Record:
    """The record ``text`` holds; a :class:`RecordError` naming the first line that is wrong."""
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    return read_lines(data.splitlines(keepends=True))


def read_lines(lines: Iterable[bytes]) -> Record:
    """A record from its lines (each with its newline, as a binary file yields them; the caller bounds each
    to :data:`MAX_LINE` + 1 bytes so that a longer one is seen here and refused)."""
    return _Reader().read(lines)


class _Reader:
    def __init__(self) -> None:
        self.tags: dict[str, str] = {}
        self.tag_lines: dict[str, int] = {}
        self.moves: list[Move] = []
        self.tokens: tuple[str, str] | None = None

    def read(self, lines: Iterable[bytes]) -> Record:
        number = 0
        for number, text in self._texts(lines):
            self._line(number, text)
        if number == 0:
            raise RecordError(1, "the record is empty: it starts with its tags, [Catalog ...] first")
        self._header_done(number)
        return Record(self.tags, self.moves, self.tag_lines)

    def _texts(self, lines: Iterable[bytes]) -> Iterator[tuple[int, str]]:
        """Each line's text without its newline; the bytes checked: UTF-8, LF endings, bounded."""
        last = b""
        number = size = 0
        for number, raw in enumerate(lines, 1):
            if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raise RecordError(1, "the record starts with a byte order mark: save it as UTF-8 without one")
            if len(raw) > MAX_LINE:
                raise RecordError(number, f"the line is longer than {MAX_LINE} bytes")
            size += len(raw)
            if size > MAX_BYTES:
                raise RecordError(number, f"the record is longer than {MAX_BYTES} bytes")
            body = raw[:-1] if raw.endswith(b"\n") else raw
            if body.endswith(b"\r"):
                raise RecordError(number, "the line ends with CR LF: a record's lines end with LF only")
            if b"\r" in body or b"\x00" in body:
                raise RecordError(number, "the line holds a carriage return or a NUL byte")
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise RecordError(number, f"the line is not UTF-8 (byte {exc.start + 1})") from None
            last = raw
            yield number, text
        if number and not last.endswith(b"\n"):
            raise RecordError(number, "the last line has no newline: the record is cut short")

    def _line(self, number: int, text: str) -> None:
        stripped = text.strip(" \t")
        if not stripped or stripped.startswith(";"):
            return
        if stripped.startswith("["):
            if self.moves:
                raise RecordError(number, "a tag after the moves: every tag comes before the first move")
            self._tag(number, stripped)
            return
        if self.tokens is None:
            self._header_done(number)
        if len(self.moves) >= MAX_MOVES:
            raise RecordError(number, f"a record holds at most {MAX_MOVES} moves")
        self.moves.append(self._move(number, stripped))

    def _tag(self, number: int, text: str) -> None:
        m = _TAG.fullmatch(text)
        if m is None:
            raise RecordError(number, 'a tag is [Name "value"], the value a JSON string on the same line')
        name, quoted = m.group(1), m.group(2)
        if name not in TAGS:
            raise RecordError(number, f"unknown tag {name} (the tags: {', '.join(TAGS)})")
        if name in self.tags:
            raise RecordError(number, f"the tag {name} is repeated (first on line {self.tag_lines[name]})")
        try:
            value = json.loads(quoted)
        except ValueError:
            value = None
        if not isinstance(value, str) or quote(value) != quoted:
            raise RecordError(number, f"{name}: the value is not a JSON string written as the writer writes it")
        syntax = _VALUE_SYNTAX.get(name)
        if syntax is not None and not syntax[0].fullmatch(value):
            raise RecordError(number, f"{name}: {value[:60]!r} is not {syntax[1]}")
        self.tags[name] = value
        self.tag_lines[name] = number

    def _header_done(self, number: int) -> None:
        tags = self.tags
        missing = [n for n in ALWAYS if n not in tags]
        seat = tags.get("Seat")
        if seat is None:
            missing += [n for n in ("Deck0", "Deck1", "Seed") if n not in tags]
            extra = [n for n in ("Commitment",) if n in tags]
        else:
            missing += [n for n in ("Commitment",) if n not in tags]
            if seat in "01":
                missing += [n for n in (f"Deck{seat}",) if n not in tags]
            extra = [n for n in ("Seed", *(f"Deck{i}" for i in "01" if i != seat)) if n in tags]
        if missing:
            raise RecordError(number, f"the tag {missing[0]} is missing before the moves")
        if extra:
            what = "a whole record" if seat is None else "a seat's record"
            raise RecordError(self.tag_lines[extra[0]], f"{what} has no tag {extra[0]}")
        for i in "01":
            deck = tags.get(f"Deck{i}")
            if deck is not None and not _DECK.fullmatch(deck):
                raise RecordError(
                    self.tag_lines[f"Deck{i}"],
                    f"Deck{i}: a deck code afd1.…, or the card ids in order, one space apart",
                )
        self.tokens = actor_tokens((tags["Player0"], tags["Player1"]))

    def _move(self, number: int, text: str) -> Move:
        body, _, note = text.partition(";")
        note = note.strip(" \t")
        tokens = body.split()
        expected = f"{len(self.moves) + 1}."
        if not tokens or tokens[0] != expected:
            raise RecordError(number, f"a move starts with its number: expected {expected!r}")
        if len(tokens) < 3:
            raise RecordError(number, "a move is: number, player, action type, fields (the line is cut short?)")
        assert self.tokens is not None
        if tokens[1] not in self.tokens:
            raise RecordError(number, f"the player is {self.tokens[0]} or {self.tokens[1]}, not {tokens[1][:40]!r}")
        player = self.tokens.index(tokens[1])
        kind = tokens[2]
        if kind not in LINE_FIELDS:
            raise RecordError(number, f"unknown action type {kind[:40]!r}")
        rest = tokens[3:]
        time = None
        if rest and rest[-1].startswith("@"):
            stamp = rest.pop()[1:]
            if not _INT.fullmatch(stamp) or int(stamp) > MAX_TIME_MS:
                raise RecordError(number, f"a time is @ and the milliseconds since the deal (0 to {MAX_TIME_MS})")
            time = int(stamp)
        action = self._fields(number, kind, player, rest)
        self._check_time(number, time)
        return Move(action, time, note, number)

    def _fields(self, number: int, kind: str, player: int, tokens: list[str]) -> dict[str, Any]:
        allowed = LINE_FIELDS[kind]
        values: dict[str, Any] = {}
        for token in tokens:
            name, eq, raw = token.partition("=")
            if not eq or (name not in allowed and name != "pay"):
                fields = ", ".join(f"{f}=" for f in (*allowed, "pay"))
                raise RecordError(number, f"{kind} takes {fields}; not {token[:40]!r}")
            if name in values:
                raise RecordError(number, f"{name}= is repeated")
            values[name] = self._field_value(number, name, raw)
        action: dict[str, Any] = {"type": kind, "player": player}
        for name in allowed:
            if name in values:
                action[name] = values[name]
            elif name == "targets":
                action[name] = []
            else:
                raise RecordError(number, f"{kind} needs {name}= (the line is cut short?)")
        if "pay" in values:
            action["pay"] = values["pay"]
        return action

    def _field_value(self, number: int, name: str, raw: str) -> Any:
        if name == "ability":
            if not _INT.fullmatch(raw):
                raise RecordError(number, f"ability= is an ability's index, 0 or more, not {raw[:40]!r}")
            return int(raw)
        if name in LIST_FIELDS:
            if raw == EMPTY_LIST and name != "targets":
                return []
            ids = raw.split(",")
        else:
            ids = [raw]
        if not all(_ID.fullmatch(i) and i != EMPTY_LIST for i in ids):
            raise RecordError(number, f"{name}= holds card instance ids as the state names them, not {raw[:40]!r}")
        return ids if name in LIST_FIELDS else ids[0]

    def _check_time(self, number: int, time: int | None) -> None:
        if self.moves and (self.moves[0].time is None) != (time is None):
            raise RecordError(number, "every move has a time (@ms) or none does")
        if not self.moves and time is None and "Clock" in self.tags:
            raise RecordError(number, "a clocked game's moves each have their time (@ms since the deal)")
        previous = self.moves[-1].time if self.moves else None
        if time is not None and previous is not None and time < previous:
            raise RecordError(number, f"the time goes back: @{time} after @{previous}")


__all__ = [
    "MAX_BYTES",
    "MAX_LINE",
    "MAX_MOVES",
    "SPECTATOR",
    "WHOLE",
    "Move",
    "Record",
    "RecordError",
    "at_deal",
    "deal_game",
    "read",
    "read_lines",
    "record_text",
    "write",
]
