"""Turning a scenario's ``given`` into what the referee takes: a NewGame or a State.

Three forms (docs/scenarios.md):

- ``game``: a NewGame (docs/api.md §2). A deck may be written ``{top: [ids...]}``:
  those cards first (the top of the file), the rest filled to 40 with
  *filler*. A scenario's game defaults to ``seed: scenario`` and
  ``first_player: 0`` (so it is the same on every run), and to
  ``shuffle: false`` when a deck uses ``top``.
- ``state``: a full State (docs/api.md §3), sent as it is.
- ``position``: a State written by catalog ids, zone by zone; everything not
  listed is filler, instance ids are ``a01``..``a40`` (player 0) and
  ``b01``..``b40`` (player 1), and references (``p0.cases.0``) name the case a
  fairy or evidence sits on.

Filler is the catalog's plainest cards, taken in a fixed order: fairies and
evidence without abilities, then with abilities, then spells, cases and, last
of all, counters (so a filler card in hand never opens a response window),
each id in id order and up to its name's deck limit (RULES 3.2).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.engine import Catalog
from referee.engine.cards import name_key
from referee.engine.facts import DECK_SIZE, OPENING_HAND, RULESET, SCHEMA, Phase, Step
from referee.engine.flow import dealt, deciding, turn_player
from referee.engine.model import PlayerState, State, build
from referee.scenarios.refs import RefError, looks_like_ref, resolve, resolve_action

STATE_SCHEMA = SCHEMA  # docs/api.md §3
DEFAULT_SEED = "scenario"
POSITION_SEED = "position"

_RANK = {"spell": 2, "case": 3, "counter": 4}
_POOLS: dict[str, tuple[list[str], dict[str, int], dict[str, str]]] = {}


class BuildError(Exception):
    """A ``given`` that cannot be built; ``path`` is the field (relative to ``given``)."""

    def __init__(self, path: tuple[str | int, ...], message: str):
        self.path = path
        self.message = message
        super().__init__(message)


def _pool(catalog: Catalog) -> tuple[list[str], dict[str, int], dict[str, str]]:
    """(filler ids in order, limit per name, name per id), once per catalog."""
    key = catalog.digest
    if key not in _POOLS:
        names: dict[str, str] = {}
        ranked = []
        for card in catalog.cards.values():
            names[card.id] = name_key(card.name)  # the key of catalog.name_limits (RULES 3.2.1)
            if card.kind == "bonus":
                continue
            if card.kind in ("fairy", "evidence"):
                rank = 1 if card.abilities else 0
            else:
                rank = _RANK.get(card.kind, 5)
            ranked.append((rank, card.id))
        _POOLS[key] = ([cid for _, cid in sorted(ranked)], catalog.name_limits, names)  # RULES 3.2
    return _POOLS[key]


def filler(catalog: Catalog, listed: list[str], count: int, strict: bool = True) -> list[str]:
    """``count`` filler cards to go with ``listed`` (catalog ids), within the deck limits.

    ``strict`` (decks): never beyond a name's limit, so the result may be
    short. Otherwise (positions, where no deck rule applies) the pool is used
    again from the start once the limits are spent.
    """
    if count <= 0:
        return []
    pool, limits, names = _pool(catalog)
    used: dict[str, int] = {}
    for cid in listed:
        name = names.get(cid)
        if name is not None:
            used[name] = used.get(name, 0) + 1
    out: list[str] = []
    for cid in pool:
        name = names[cid]
        while used.get(name, 0) < limits[name] and len(out) < count:
            out.append(cid)
            used[name] = used.get(name, 0) + 1
        if len(out) == count:
            return out
    while not strict and pool and len(out) < count:
        out.extend(pool[: count - len(out)])
    return out


def expand_game(catalog: Catalog, game: dict[str, Any]) -> dict[str, Any]:
    """The NewGame to send: ``top`` decks filled, the scenario defaults set."""
    out = dict(game)
    decks = out.get("decks")
    sugar = False
    if isinstance(decks, list):
        expanded = []
        for deck in decks:
            if isinstance(deck, dict) and "top" in deck:
                sugar = True
                top = list(deck.get("top") or [])
                size = deck.get("size", DECK_SIZE)
                expanded.append(top + filler(catalog, top, size - len(top), strict=True))
            else:
                expanded.append(deck)
        out["decks"] = expanded
    out.setdefault("seed", DEFAULT_SEED)
    out.setdefault("first_player", 0)
    if sugar:
        out.setdefault("shuffle", False)
    return out


# -- positions ----------------------------------------------------------------


def _entry_card(entry: Any) -> Any:
    return entry.get("card") if isinstance(entry, dict) else entry


# (path, entry, key) of a case reference that waits until every card has its id
_Later = list[tuple[tuple[str | int, ...], dict[str, Any], str]]


def build_position(catalog: Catalog, pos: dict[str, Any], catalog_ref: dict[str, str] | None = None) -> dict[str, Any]:
    """A State from a ``position`` (see the module doc); the referee then checks it like any state.

    What the position leaves out follows the turn flow (``referee.engine.flow``): in the mulligan
    phase, the dealt step, turn 0 and the deciding player; in a turn, turn 1's main step and
    the player whose turn it is.
    """
    phase = pos.get("phase", Phase.TURN.value)
    in_mulligan = phase == Phase.MULLIGAN
    first = pos.get("first_player", 0)
    turn = pos.get("turn", 0 if in_mulligan else 1)
    cards: dict[str, str] = {}
    later: _Later = []
    players = [_build_player(catalog, p, pos.get(f"p{p}") or {}, in_mulligan, cards, later) for p in (0, 1)]
    if in_mulligan:
        active = deciding(first, players[first]["kept"])
    else:
        active = turn_player(turn, first)
    state = build(
        State,
        schema=STATE_SCHEMA,
        ruleset=RULESET,
        catalog=dict(catalog_ref or catalog.ref),
        options=dict(pos.get("options", {"response_windows": "auto"})),
        seed=pos.get("seed", POSITION_SEED),
        rng=pos.get("rng", 0),
        turn=turn,
        phase=phase,
        step=pos.get("step", dealt()["step"] if in_mulligan else Step.MAIN.value),
        active=pos.get("active", active),
        first_player=first,
        case_played=pos.get("case_played", False),
        pending=None,
        result=pos.get("result"),
        cards=cards,
        players=players,
    )
    for path, entry, key in later:
        entry[key] = _field_card(state, entry[key], path)
    _resolve_pending(state, pos.get("pending"))
    for key in ("modifiers", "used"):
        state[key] = _resolve_card_entries(state, pos.get(key, []), key)
    return state


def _file_spec(file_spec: Any) -> tuple[list[Any], Any]:
    """The cards named on top of a player's file, and its size if given (``None``: whatever is left)."""
    if isinstance(file_spec, dict):
        return list(file_spec.get("top", [])), file_spec.get("count")
    if isinstance(file_spec, list):
        return list(file_spec), None
    return [], file_spec


def _build_player(
    catalog: Catalog, p: int, spec: dict[str, Any], in_mulligan: bool, cards: dict[str, str], later: _Later
) -> dict[str, Any]:
    """Player ``p``'s zones from its spec, filled to a whole deck; each card's instance id goes into ``cards``.

    The fairies' and evidence's cases are left as written, and noted in ``later`` to resolve once
    every card of both players has its id.
    """
    base = ("position", f"p{p}")
    hand = list(spec.get("hand", []))
    trash = list(spec.get("trash", []))
    cases = [e if isinstance(e, dict) else {"card": e} for e in spec.get("cases", [])]
    fairies = [e if isinstance(e, dict) else {"card": e, "case": None} for e in spec.get("fairies", [])]
    evidence = [e if isinstance(e, dict) else {"card": e} for e in spec.get("evidence", [])]
    top, file_count = _file_spec(spec.get("file"))
    listed = [*hand, *(_entry_card(e) for e in [*cases, *fairies, *evidence]), *trash, *top]
    if in_mulligan and "hand" not in spec:  # RULES 5.3: every hand holds 7 while deciding
        hand = filler(catalog, [c for c in listed if isinstance(c, str)], OPENING_HAND, strict=False)
        listed = hand + listed
    room = DECK_SIZE - len(listed)
    if room < 0:
        raise BuildError(base, f"player {p} is given {len(listed)} cards; a player has exactly {DECK_SIZE}")
    if file_count is not None and not len(top) <= file_count <= len(top) + room:
        raise BuildError(
            base + ("file",),
            f"player {p}'s file cannot hold {file_count} card(s): "
            f"{len(listed)} are listed, so at most {len(top) + room} fit",
        )
    extra = filler(catalog, [c for c in listed if isinstance(c, str)], room, strict=False)
    if file_count is None:
        file_cids = top + extra
    else:
        n = file_count - len(top)
        file_cids = top + extra[:n]
        trash = trash + extra[n:]
    new_id = _id_maker("ab"[p], cards)
    pl: dict[str, Any] = {"name": spec.get("name", f"Player {p + 1}")}
    pl["hand"] = [new_id(c) for c in hand]
    pl["cases"] = [
        {"card": new_id(e.get("card")), "face_up": e.get("face_up", False), "actioned": e.get("actioned", False)}
        for e in cases
    ]
    for zone, entries in (("fairies", fairies), ("evidence", evidence)):
        pl[zone] = []
        for j, e in enumerate(entries):
            entry = {"card": new_id(e.get("card")), "case": e.get("case")}
            pl[zone].append(entry)
            later.append((base + (zone, j, "case"), entry, "case"))
    pl["trash"] = [new_id(c) for c in trash]
    pl["file"] = [new_id(c) for c in file_cids]
    pl["kept"] = spec.get("kept", not in_mulligan)
    return build(PlayerState, **pl)


def _id_maker(prefix: str, cards: dict[str, str]) -> Callable[[Any], str]:
    """Gives each card the next instance id of a player (``a01``, ``a02``, …) and notes it in ``cards``."""
    counter = iter(range(1, DECK_SIZE + 1))

    def new_id(cid: Any) -> str:
        iid = f"{prefix}{next(counter):02d}"
        cards[iid] = cid
        return iid

    return new_id


def _resolve_pending(state: dict[str, Any], pen: Any) -> None:
    """The position's pending action, its references resolved against the built state."""
    if pen is None:
        return
    pen = dict(pen)
    try:
        pen["action"] = resolve_action(state, pen.get("action"))
    except RefError as exc:
        raise BuildError(("position", "pending", "action"), str(exc)) from None
    if isinstance(pen.get("counters"), list):
        pen["counters"] = [
            _field_card(state, c, ("position", "pending", "counters", j)) for j, c in enumerate(pen["counters"])
        ]
    state["pending"] = pen


def _resolve_card_entries(state: dict[str, Any], given: list[Any], key: str) -> list[dict[str, Any]]:
    """The position's ``modifiers`` or ``used``: each entry's ``card`` resolved to its instance id."""
    entries = []
    for j, m in enumerate(given):
        m = dict(m)
        m["card"] = _field_card(state, m.get("card"), ("position", key, j, "card"))
        entries.append(m)
    return entries


def _field_card(state: dict[str, Any], value: Any, path: tuple[str | int, ...]) -> Any:
    """A reference, or a catalog id naming exactly one card on the field, as its instance id.

    Anything else is kept as written, so a position can also pose a broken
    state on purpose (a dangling reference is the referee's 400 to give).
    """
    if value is None or not isinstance(value, str):
        return value
    if looks_like_ref(value):
        try:
            return resolve(state, value)
        except RefError as exc:
            raise BuildError(path, str(exc)) from None
    if value in state["cards"]:
        return value
    on_field = [
        e["card"]
        for pl in state["players"]
        for z in ("cases", "fairies", "evidence")
        for e in pl[z]
        if state["cards"][e["card"]] == value
    ]
    if len(on_field) == 1:
        return on_field[0]
    if len(on_field) > 1:
        raise BuildError(
            path,
            f"{value} names {len(on_field)} cards on the field; use a reference "
            f"such as p0.cases.{value}#1 to say which",
        )
    return value  # an instance id, right or wrong: the referee judges it (RULES 13.1)
