"""RULES 3 (decks) and 5.1–5.3 (setup): deck checks, the seeded shuffle, dealing (mulligans: ``mulligan.py``).

Randomness draws only on the state's ``seed`` and ``rng`` (docs/api.md §9): each
random 64-bit number is the first 8 bytes of SHA-256(seed, rng), and ``rng``
then counts up. No Python ``random`` involved, so every machine and Python
version deals the same game.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import Counter
from collections.abc import Sequence
from typing import Any, TypeVar, cast

from referee.engine.board import Board
from referee.engine.cards import name_key
from referee.engine.catalog import Catalog, Format, Revision
from referee.engine.clocks import new_clock
from referee.engine.decklists import DeckRead, read_deck
from referee.engine.errors import IllegalDeck, InvalidInput, RefusedInput, RuleViolation
from referee.engine.facts import (
    BEST_OF,
    CLOCK_INCREMENT,
    CLOCK_INITIAL,
    DECK_SIZE,
    OPENING_HAND,
    PLAYERS,
    RULESET,
    SCHEMA,
    UNKNOWN_CARDS_LISTED,
    WATCH_DELAY,
    Player,
    WindowMode,
    majority,
)
from referee.engine.flow import dealt
from referee.engine.model import PlayerState, State, build
from referee.engine.registry import rule
from referee.engine.state_types import MatchDict, StateDict

_NEW_GAME_KEYS = frozenset(
    ("decks", "seed", "first_player", "shuffle", "players", "options", "format", "clock", "match", "watch_delay")
)
Played = tuple[Format, Revision]  # a game's format and the revision in force (RULES 3.9)


# -- RULES 3: decks ------------------------------------------------------------


def deck_counts(deck: Any, path: str = "deck", catalog: Catalog | None = None) -> Counter[str]:
    """A Deck (docs/api.md §2, §13) as counts per catalog id; a deck list or code needs ``catalog``.

    Counts are never expanded here, so ``{"AF-001": 10**12}`` costs nothing
    and is simply a RULES 3.1 violation. More than ``DECK_MAX_ENTRIES`` ids
    (list items or object keys) is not a deck at all: 400, so a reply stays small.
    """
    return read_deck(catalog, deck, path).counts


def deck_list(deck: Any, catalog: Catalog | None = None) -> list[str]:
    """A deck already checked (40 cards) as its list of catalog ids, in the order given."""
    return read_deck(catalog, deck).in_order()


@rule("3.1", "deck_size")
@rule("3.2", "too_many_copies")
@rule("3.3", "bonus_card")
@rule("3.4", "unknown_card", "more_unknown_cards")
def validate_deck(catalog: Catalog, deck: Any, path: str = "deck", played: Played | None = None) -> list[RuleViolation]:
    """Every RULES 3 violation of one deck (empty when legal), in rule order; ``played``: the game's format
    and revision (3.6–3.8; without one, 3.9: every series, nothing banned). A violation from a deck list
    carries the ``line`` of its card (the first line of its name).

    >>> validate_deck(Catalog.builtin(), ["AF-001"] * 40)[0].rule
    '3.2'
    """
    return deck_violations(catalog, read_deck(catalog, deck, path), played)


def deck_violations(catalog: Catalog, deck: DeckRead, played: Played | None = None) -> list[RuleViolation]:
    """:func:`validate_deck` of a deck already read."""
    counts = deck.counts
    found: list[RuleViolation] = []
    later: list[RuleViolation] = []  # RULES 3.8, listed after 3.4, 3.6 and 3.7
    total = sum(counts.values())
    if total != DECK_SIZE:  # RULES 3.1
        found.append(RuleViolation("deck_size", count=total))
    by_name: dict[str, list[str]] = {}
    for cid in counts:
        card = catalog.get(cid)
        if card is not None:
            by_name.setdefault(name_key(card.name), []).append(cid)
    banned: list[RuleViolation] = []
    revision = played[1] if played else None
    for key, printings in by_name.items():  # RULES 3.2: by name (3.2.1), not id
        count = sum(counts[c] for c in printings)
        name = catalog[printings[0]].name
        at = _line(deck, printings)
        limit = catalog.name_limit(name)
        restricted = revision.restricted.get(key, limit) if revision else limit
        if count > limit and restricted >= limit:
            found.append(RuleViolation("too_many_copies", name=name, count=count, limit=limit, **at))
        elif count > restricted:  # RULES 3.8: cited only where the format's limit is the lower
            later.append(_restricted(played, name, count, restricted, at))
        if revision and key in revision.banned:
            banned.append(_banned(played, name, at))
    for cid in counts:
        card = catalog.get(cid)
        if card is not None and card.kind == "bonus":  # RULES 3.3
            found.append(RuleViolation("bonus_card", card=cid, name=card.name, **_line(deck, [cid])))
    unknown = [cid for cid in counts if cid not in catalog]  # RULES 3.4: each distinct id once
    found.extend(RuleViolation("unknown_card", card=cid) for cid in unknown[:UNKNOWN_CARDS_LISTED])
    if len(unknown) > UNKNOWN_CARDS_LISTED:
        found.append(RuleViolation("more_unknown_cards", count=len(unknown) - UNKNOWN_CARDS_LISTED))
    if played:
        found.extend(_series_left_out(catalog, deck, played[0]))
    return sorted(found + banned + later, key=_line_number)


def _line_number(violation: RuleViolation) -> int:
    """A deck list's problems in line order (docs/api.md §13); those of no line (3.1) first, the rest as found."""
    line = violation.params.get("line", 0)
    return line if isinstance(line, int) else 0


def _line(deck: DeckRead, printings: list[str]) -> dict[str, int]:
    """``{"line": n}``: the first line of a deck list naming one of ``printings`` (nothing for other decks)."""
    lines = [deck.lines[c] for c in printings if c in deck.lines]
    return {"line": min(lines)} if lines else {}


@rule("3.6", "series_not_in_format")
def _series_left_out(catalog: Catalog, deck: DeckRead, fmt: Format) -> list[RuleViolation]:
    """RULES 3.6: each card of a series the format leaves out."""
    out = []
    for cid in deck.counts:
        card = catalog.get(cid)
        if card is not None and card.kind != "bonus" and not fmt.allows(card.series):
            series = card.series or "none"
            out.append(
                RuleViolation(
                    "series_not_in_format",
                    card=cid,
                    name=card.name,
                    series=series,
                    format=fmt.id,
                    **_line(deck, [cid]),
                )
            )
    return out


@rule("3.7", "banned_card")
def _banned(played: Played | None, name: str, at: dict[str, int]) -> RuleViolation:
    """RULES 3.7: a name the format's revision bans."""
    assert played is not None
    return RuleViolation("banned_card", name=name, format=played[0].id, revision=played[1].start, **at)


@rule("3.8", "restricted_card")
def _restricted(played: Played | None, name: str, count: int, limit: int, at: dict[str, int]) -> RuleViolation:
    """RULES 3.8: more copies of a name than the format's revision allows, where that is lower than 3.2's."""
    assert played is not None
    fid, rev = played[0].id, played[1].start
    return RuleViolation("restricted_card", name=name, count=count, limit=limit, format=fid, revision=rev, **at)


# -- the seeded random stream --------------------------------------------------


T = TypeVar("T")


class SeededStream:
    """Deterministic 64-bit numbers from ``seed`` and a counter (the state's ``rng``)."""

    def __init__(self, seed: str, counter: int = 0):
        self.seed = seed.encode("utf-8")
        self.counter = counter
        self._prefix = hashlib.sha256(self.seed + b"\x00")  # fed once; each number hashes a copy of it

    def next64(self) -> int:
        """The SHA-256 of the seed, a zero byte and the counter in decimal: its first 8 bytes, big-endian."""
        h = self._prefix.copy()
        h.update(b"%d" % self.counter)
        self.counter += 1
        return int.from_bytes(h.digest()[:8], "big")

    def below(self, n: int) -> int:
        """Uniform in ``range(n)`` by rejection sampling (no modulo bias)."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def shuffle(self, items: list[Any]) -> None:
        """Fisher–Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    # The choices bots, the determinization and the fuzzer draw (docs/bots.md), on the same stream.

    def random(self) -> float:
        """A float in ``[0, 1)``."""
        return (self.next64() >> 11) / float(1 << 53)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def weighted(self, weights: Sequence[float]) -> int:
        """An index drawn with probability proportional to its (non-negative) weight."""
        x = self.random() * sum(weights)
        for i, w in enumerate(weights):
            x -= w
            if x < 0:
                return i
        return len(weights) - 1


def _instance_ids(stream: SeededStream, prefix: str, count: int, taken: set[str]) -> list[str]:
    """Random-looking ids: they say whose card it is, never which card or where it was."""
    out: list[str] = []
    while len(out) < count:
        iid = f"{prefix}{stream.next64() & 0xFFFFFF:06x}"
        if iid not in taken:
            taken.add(iid)
            out.append(iid)
    return out


# -- RULES 5: a new game ---------------------------------------------------------


@rule("5.1")
@rule("5.2")
@rule("5.3")
def new_game(
    catalog: Catalog,
    request: Any,
    path: str = "",
    *,
    game_id: str | None = None,
    now: int | None = None,
    match: MatchDict | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Check both decks (5.1), shuffle, deal 7 each (5.3); the state is in the mulligan phase.

    ``game_id`` (private play, docs/api.md §10) is stored in the state as ``game_id``;
    the deal itself never depends on it. A NewGame's ``clock`` starts at ``now``
    (the ledger's time, milliseconds since 1970; 0 when none is given: a replay).
    ``match`` continues a match (``matches.next_game``) instead of the NewGame's own.

    >>> deck = {"AF-001": 1}
    >>> new_game(Catalog.builtin(), {"decks": [deck, deck]})
    Traceback (most recent call last):
    ...
    referee.engine.errors.IllegalDeck: Deck has 1 card(s); a deck is exactly 40.
    """
    try:
        req = _parse_new_game(catalog, request)
    except InvalidInput as exc:  # paths relative to the body the NewGame came in
        raise exc.under(path) from None
    played: Played | None = req["format"]
    violations = []
    for i, deck in enumerate(req["decks"]):
        for v in deck_violations(catalog, deck, played):
            v.params["deck"] = i
            violations.append(v)
    if violations:
        raise IllegalDeck(violations)
    stream = SeededStream(req["seed"])
    first = req["first_player"]
    if first is None:  # RULES 5.2
        first = stream.below(2)
    cards: dict[str, str] = {}
    taken: set[str] = set()
    players = []
    for i, deck in enumerate(req["decks"]):
        order = deck.in_order()
        if req["shuffle"]:
            stream.shuffle(order)
        ids = _instance_ids(stream, "ab"[i], DECK_SIZE, taken)
        cards.update(zip(ids, order))
        players.append(
            build(
                PlayerState,
                name=req["players"][i],
                file=ids,
                hand=[],
                trash=[],
                cases=[],
                fairies=[],
                evidence=[],
                kept=False,
            )
        )
    state = build(
        State,
        schema=SCHEMA,
        ruleset=RULESET,
        catalog=catalog.ref,
        options=req["options"],
        format=None if played is None else {"id": played[0].id, "revision": played[1].start},
        seed=req["seed"],
        rng=stream.counter,
        turn=0,
        **dealt(),  # RULES 5.3: the mulligan phase
        active=first,
        first_player=first,
        case_played=False,
        pending=None,
        result=None,
        cards=dict(sorted(cards.items())),
        players=players,
        **({} if game_id is None else {"game_id": game_id}),
        **({} if req["watch_delay"] is None else {"watch_delay": req["watch_delay"]}),
        clock=None if req["clock"] is None else new_clock(req["clock"]["initial"], req["clock"]["increment"], now or 0),
        match=match if match is not None else req["match"],
    )
    g = Board(catalog, cast(StateDict, state))  # built field by field from the model (model.build)
    g.emit("game_started", first_player=first, seed=req["seed"])
    for i in (0, 1):
        g.draw(i, OPENING_HAND, required=True)
    events: list[Any] = g.events  # the face's plain dicts (the service's)
    return state, events


def _parse_new_game(catalog: Catalog, raw: Any) -> dict[str, Any]:
    """A NewGame's fields read and checked: every malformed field in one 400 (``InvalidInput``) before a deck
    list, code or format the catalog cannot read (``RefusedInput``, docs/api.md §13)."""
    if not isinstance(raw, dict):
        raise InvalidInput({"": ["must be an object"]})
    errors: dict[str, list[str]] = {name: ["unknown field"] for name in sorted(set(raw) - _NEW_GAME_KEYS)}
    refusals: list[RefusedInput] = []
    read = _decks_of(catalog, raw.get("decks"), errors, refusals)
    played = _format_of(catalog, raw.get("format"), errors, refusals)
    seed = raw.get("seed")
    if seed is None:
        seed = "s-" + secrets.token_hex(8)
    elif not isinstance(seed, str) or not seed:
        errors["seed"] = ["must be a non-empty string"]
    first = raw.get("first_player")
    if first is not None and not Player.is_valid(first):  # 1.0 and True are not players
        errors["first_player"] = ["must be 0 or 1"]
    shuffle = raw.get("shuffle", True)
    if not isinstance(shuffle, bool):
        errors["shuffle"] = ["must be true or false"]
    names = raw.get("players", ["Player 1", "Player 2"])
    if not (isinstance(names, list) and len(names) == PLAYERS and all(isinstance(n, str) for n in names)):
        errors["players"] = ["must be a list of two names"]
    clock = _clock_of(raw.get("clock"), errors)
    match = _match_of(raw.get("match"), errors)
    watch_delay = raw.get("watch_delay")
    if watch_delay is not None and not _whole(watch_delay, *WATCH_DELAY):
        errors["watch_delay"] = [f"must be a whole number of moves from {WATCH_DELAY[0]} to {WATCH_DELAY[1]}"]
    windows = _windows_of(raw.get("options", {}), errors)
    if errors:
        raise InvalidInput(errors)
    if refusals:
        raise RefusedInput(refusals[0].code, refusals[0].errors)
    return {
        "decks": read,
        "format": played,
        "seed": seed,
        "first_player": first,
        "shuffle": shuffle,
        "players": list(names),
        "options": {"response_windows": windows},
        "clock": clock,
        "match": match,
        "watch_delay": watch_delay,
    }


def _decks_of(
    catalog: Catalog, decks: Any, errors: dict[str, list[str]], refusals: list[RefusedInput]
) -> list[DeckRead]:
    """Both decks read (ids, counts, a deck list or a code); a malformed one's errors into ``errors``, a list
    or code the catalog cannot read into ``refusals`` (both decks' bad lines in one answer)."""
    if not isinstance(decks, list) or len(decks) != PLAYERS:
        errors["decks"] = ["must be a list of exactly two decks (RULES 1.1)"]
        return []
    read: list[DeckRead] = []
    for i, deck in enumerate(decks):
        try:
            read.append(read_deck(catalog, deck, f"decks.{i}"))
        except RefusedInput as exc:
            if not refusals:
                refusals.append(exc)
            elif refusals[0].code == exc.code:
                refusals[0].errors.update(exc.errors)
        except InvalidInput as exc:
            errors.update(exc.errors)
    return read


def _format_of(
    catalog: Catalog, chosen: Any, errors: dict[str, list[str]], refusals: list[RefusedInput]
) -> Played | None:
    """The format and revision a NewGame names (RULES 3.9), or None for none."""
    if chosen is None:
        return None
    try:
        return catalog.format_revision(chosen)
    except RefusedInput as exc:
        refusals.append(exc)
    except InvalidInput as exc:
        errors.update(exc.errors)
    return None


def _windows_of(options: Any, errors: dict[str, list[str]]) -> str:
    """The ``response_windows`` option (RULES 9.4), ``auto`` by default."""
    if not isinstance(options, dict) or set(options) - {"response_windows"}:
        errors["options"] = ["must be an object with only response_windows"]
        return "auto"
    windows = options.get("response_windows", "auto")
    if windows not in tuple(WindowMode):
        errors["options.response_windows"] = ["must be auto or strict"]
    return str(windows)


def _whole(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def _clock_of(raw: Any, errors: dict[str, list[str]]) -> dict[str, int] | None:
    """NewGame's ``clock`` (docs/api.md §15): ``{"initial": seconds, "increment": seconds}``, or absent."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) != {"initial", "increment"}:
        errors["clock"] = ['must be an object {"initial": seconds, "increment": seconds}']
        return None
    for name, (low, high) in (("initial", CLOCK_INITIAL), ("increment", CLOCK_INCREMENT)):
        if not _whole(raw[name], low, high):
            errors[f"clock.{name}"] = [f"must be whole seconds from {low:,} to {high:,}"]
    return {"initial": raw["initial"], "increment": raw["increment"]}


def _match_of(raw: Any, errors: dict[str, list[str]]) -> MatchDict | None:
    """NewGame's ``match`` (RULES 14.1): ``{"best_of": 1, 3 or 5}``, the match's first game, or absent; with
    ``game`` and ``wins`` a later game of it, as its record names it (docs/records.md): the wins so far, none a
    majority (14.3), one game won for each game before (games are never drawn)."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or "best_of" not in raw or not set(raw) <= {"best_of", "game", "wins"}:
        errors["match"] = ['must be an object {"best_of": 1, 3 or 5}, with "game" and "wins" for a later game']
        return None
    best_of = raw["best_of"]
    if type(best_of) is not int or best_of not in BEST_OF:
        errors["match.best_of"] = ["must be 1, 3 or 5 (RULES 14.1)"]
        return None
    game, wins = raw.get("game", 1), raw.get("wins", [0, 0])
    if type(game) is not int or not 1 <= game <= best_of:
        errors["match.game"] = [f"must be a game of the match, from 1 to {best_of}"]
    elif not (isinstance(wins, list) and len(wins) == PLAYERS and all(type(w) is int and w >= 0 for w in wins)):
        errors["match.wins"] = ["must be two whole numbers: the games each player has won"]
    elif sum(wins) != game - 1 or max(wins) >= majority(best_of):
        errors["match.wins"] = [
            f"must add up to the {game - 1} game(s) before this one, none of them a majority of {best_of} "
            "(RULES 14.1, 14.3: the match would be over)"
        ]
    else:
        return {"best_of": best_of, "game": game, "wins": list(wins), "winner": None}
    return None
