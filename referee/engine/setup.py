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
from referee.engine.catalog import Catalog
from referee.engine.clocks import new_clock
from referee.engine.errors import IllegalDeck, InvalidInput, RuleViolation
from referee.engine.facts import (
    BEST_OF,
    CLOCK_INCREMENT,
    CLOCK_INITIAL,
    DECK_MAX_ENTRIES,
    DECK_SIZE,
    OPENING_HAND,
    PLAYERS,
    RULESET,
    SCHEMA,
    UNKNOWN_CARDS_LISTED,
    Player,
    WindowMode,
)
from referee.engine.flow import dealt
from referee.engine.model import PlayerState, State, build
from referee.engine.registry import rule
from referee.engine.state_types import MatchDict, StateDict

_NEW_GAME_KEYS = frozenset(("decks", "seed", "first_player", "shuffle", "players", "options", "clock", "match"))


# -- RULES 3: decks ------------------------------------------------------------


def deck_counts(deck: Any, path: str = "deck") -> Counter[str]:
    """A Deck (docs/api.md §2: a list of ids, or an object of counts) as counts per catalog id.

    Counts are never expanded here, so ``{"AF-001": 10**12}`` costs nothing
    and is simply a RULES 3.1 violation. More than ``DECK_MAX_ENTRIES`` ids
    (list items or object keys) is not a deck at all: 400, so a reply stays small.
    """
    if isinstance(deck, (list, dict)) and len(deck) > DECK_MAX_ENTRIES:
        raise InvalidInput({path: [f"a deck names at most {DECK_MAX_ENTRIES} card ids (a legal deck has 40)"]})
    if isinstance(deck, list) and all(isinstance(c, str) for c in deck):
        return Counter(deck)
    if isinstance(deck, dict) and all(
        isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0 for k, v in deck.items()
    ):
        return Counter({k: v for k, v in deck.items() if v})
    raise InvalidInput({path: ["must be a list of card ids or an object of card id → count (integer ≥ 0)"]})


def deck_list(deck: Any) -> list[str]:
    """A deck already checked (40 cards) as its list of catalog ids, in the order given."""
    if isinstance(deck, list):
        return list(deck)
    return [cid for cid, n in deck.items() for _ in range(n)]


@rule("3.1", "deck_size")
@rule("3.2", "too_many_copies")
@rule("3.3", "bonus_card")
@rule("3.4", "unknown_card", "more_unknown_cards")
def validate_deck(catalog: Catalog, deck: Any, path: str = "deck") -> list[RuleViolation]:
    """Every RULES 3 violation of one deck (empty when legal), in rule order.

    >>> validate_deck(Catalog.builtin(), ["AF-001"] * 40)[0].rule
    '3.2'
    """
    counts = deck_counts(deck, path)
    found: list[RuleViolation] = []
    total = sum(counts.values())
    if total != DECK_SIZE:  # RULES 3.1
        found.append(RuleViolation("deck_size", count=total))
    by_name: dict[str, list[str]] = {}
    for cid in counts:
        card = catalog.get(cid)
        if card is not None:
            by_name.setdefault(card.name, []).append(cid)
    for name, printings in by_name.items():  # RULES 3.2: by name, not id
        count = sum(counts[c] for c in printings)
        limit = catalog.name_limit(name)
        if count > limit:
            found.append(RuleViolation("too_many_copies", name=name, count=count, limit=limit))
    for cid in counts:
        card = catalog.get(cid)
        if card is not None and card.kind == "bonus":  # RULES 3.3
            found.append(RuleViolation("bonus_card", card=cid))
    unknown = [cid for cid in counts if cid not in catalog]  # RULES 3.4: each distinct id once
    found.extend(RuleViolation("unknown_card", card=cid) for cid in unknown[:UNKNOWN_CARDS_LISTED])
    if len(unknown) > UNKNOWN_CARDS_LISTED:
        found.append(RuleViolation("more_unknown_cards", count=len(unknown) - UNKNOWN_CARDS_LISTED))
    return found


# -- the seeded random stream --------------------------------------------------


T = TypeVar("T")


class SeededStream:
    """Deterministic 64-bit numbers from ``seed`` and a counter (the state's ``rng``)."""

    def __init__(self, seed: str, counter: int = 0):
        self.seed = seed.encode("utf-8")
        self.counter = counter

    def next64(self) -> int:
        digest = hashlib.sha256(self.seed + b"\x00" + str(self.counter).encode()).digest()
        self.counter += 1
        return int.from_bytes(digest[:8], "big")

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
        req = _parse_new_game(request)
    except InvalidInput as exc:  # paths relative to the body the NewGame came in
        raise exc.under(path) from None
    violations = []
    for i, deck in enumerate(req["decks"]):
        for v in validate_deck(catalog, deck, f"decks.{i}"):
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
        order = deck_list(deck)
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
        clock=None if req["clock"] is None else new_clock(req["clock"]["initial"], req["clock"]["increment"], now or 0),
        match=match if match is not None else req["match"],
    )
    g = Board(catalog, cast(StateDict, state))  # built field by field from the model (model.build)
    g.emit("game_started", first_player=first, seed=req["seed"])
    for i in (0, 1):
        g.draw(i, OPENING_HAND, required=True)
    return state, g.events


def _parse_new_game(raw: Any) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise InvalidInput({"": ["must be an object"]})
    errors: dict[str, list[str]] = {}
    for name in sorted(set(raw) - _NEW_GAME_KEYS):
        errors[name] = ["unknown field"]
    decks = raw.get("decks")
    if not isinstance(decks, list) or len(decks) != PLAYERS:
        errors["decks"] = ["must be a list of exactly two decks (RULES 1.1)"]
    else:
        for i, deck in enumerate(decks):
            try:
                deck_counts(deck, f"decks.{i}")
            except InvalidInput as exc:
                errors.update(exc.errors)
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
    options = raw.get("options", {})
    if not isinstance(options, dict) or set(options) - {"response_windows"}:
        errors["options"] = ["must be an object with only response_windows"]
    elif options.get("response_windows", "auto") not in tuple(WindowMode):
        errors["options.response_windows"] = ["must be auto or strict"]
    if errors:
        raise InvalidInput(errors)
    return {
        "decks": decks,
        "seed": seed,
        "first_player": first,
        "shuffle": shuffle,
        "players": list(names),
        "options": {"response_windows": options.get("response_windows", "auto")},
        "clock": clock,
        "match": match,
    }


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
    """NewGame's ``match`` (RULES 14.1): ``{"best_of": 1, 3 or 5}``, or absent; the match's first game."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) != {"best_of"}:
        errors["match"] = ['must be an object {"best_of": 1, 3 or 5}']
        return None
    if type(raw["best_of"]) is not int or raw["best_of"] not in BEST_OF:
        errors["match.best_of"] = ["must be 1, 3 or 5 (RULES 14.1)"]
        return None
    return {"best_of": raw["best_of"], "game": 1, "wins": [0, 0], "winner": None}
