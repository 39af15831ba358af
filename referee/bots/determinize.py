"""Determinization: a full State consistent with everything one seat knows (for search bots).

OpenSpiel calls it ``resample_from_infostate``. Given one seat's view
(docs/api.md §5), what that seat has learnt earlier (:class:`Memory`) and the
deck lists, :func:`determinize` deals the cards the seat cannot see — the
opponent's hand, the opponent's face-down cases, and both files in their
order — from what the decks hold minus every card the seat knows. A deck
given as ``None`` (the opponent's list, which a seat does not know) is drawn
from the catalog as a prior: each unseen card uniformly among the catalog's
game cards (no bonus card, RULES 3.3) whose name still has room in a legal
deck (RULES 3.2), given the cards of that deck the seat has seen.

Every sample respects what the seat has inferred (tests/test_determinize.py
checks each over thousands of samples of random auto-window games):

- what it has seen: the cards of its view, a card revealed earlier, a fairy
  bounced back to the opponent's hand (:attr:`Memory.seen`); the counts of
  the decks;
- what the response windows of its own declarations told, under
  ``response_windows: auto`` (RULES 9.4: a window opens only when the
  responder holds a counter that fits it then: trigger, cost and targets).
  A window that opened: one of the opponent's hand cards then, held since,
  is a counter that fitted (:attr:`Memory.claims`; an open window before any
  counter is one of these). A window that did not open: none of the
  opponent's hand cards then, held since, is a counter that fitted
  (:attr:`Memory.denials`). Which counters fitted is asked of the engine
  when the seat declares (:func:`fitting_counters`), never re-judged here;
- the kinds the view implies: a face-down case and a pending ``play_case``'s
  card are cases, the fairy a pending move names (a counter may have bounced
  it to a hand since) a fairy, and a face-down case with two of one player's
  fairies on it allows two (RULES 8.9).

How a consistent sample is found quickly: the constraints bind only the few
hidden instances they name, so the rest is a plain shuffle. The named ones
are dealt as a bipartite matching (Kuhn's augmenting paths) between those
instances and the cards left, taken in the sample's shuffled order, so the
answer is random and found whenever one exists; a claim ("one of these is a
fitting counter") first picks its witness, by a depth-first search over the
claims whose every step is checked by the matching (:meth:`Constraints.witnesses`).
The true state satisfies every constraint, so with the true decks a matching
always exists; after :data:`WITNESS_TRIES` checks the claims are let go (never
seen in the tests). The sample is a consistent one, not one drawn exactly in
proportion to the posterior.

Guarantees (tests/test_determinize.py checks them with hypothesis):

- the sample's view for that seat is the given view (bar ``commitment``, the
  hash of the sample's own seed: a view never shows the seed it hides);
- the sample reads nothing hidden: it is a function of the view, the memory,
  the decks and the seed alone, so permuting the true state's hidden cards
  leaves it unchanged;
- the sample is a consistent state (RULES 13.1): the engine accepts it as input.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec

from referee.engine import (
    ActionDict,
    Catalog,
    EventDict,
    PlayerDict,
    RuleViolation,
    Session,
    ViewDict,
    ViewPlayerDict,
)
from referee.engine.setup import SeededStream

STATE_SCHEMA = "ace-file/state@1"
VIEW_ONLY = ("viewer", "player", "commitment", "schema")
WITNESS_TRIES = 64  # choices of the claims' witnesses tried before the claims are let go


@dataclass
class Window:
    """What one of the seat's own declarations told under auto windows (RULES 9.4): ``fits``, the catalog ids of
    the counters that could have answered it then; ``held``, the opponent's hand instances then that have not
    left the hand since."""

    fits: frozenset[str]
    held: list[str]


def auto_windows(view: ViewDict) -> bool:
    """Whether the game opens response windows only on demand (RULES 9.4 ``auto``, the default)."""
    options = view.get("options")
    return options is None or options.get("response_windows", "auto") == "auto"


class Memory:
    """What one seat has learnt so far beyond its view now: the instance → card identities it has seen, and
    what its own declarations' response windows told (RULES 9.4 auto).

    Feed it :meth:`declare` before each of the seat's own actions is applied, and :meth:`observe` with each
    view and the seat's share of the events since (``referee.bots.seat.seat_events``)."""

    __slots__ = ("claims", "declared", "denials", "seen")

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}
        self.claims: list[Window] = []  # a window opened: one of ``held`` is one of ``fits``
        self.denials: list[Window] = []  # no window opened: none of ``held`` is one of ``fits``
        # the seat's last declaration (catalog, view, action), until the events tell what it opened
        self.declared: tuple[Catalog, ViewDict, ActionDict | dict[str, Any]] | None = None

    def declare(self, catalog: Catalog, view: ViewDict, action: ActionDict | dict[str, Any]) -> None:
        """The seat is about to declare ``action`` from ``view``: what its window tells is worked out when the
        events that follow are observed (a bot asked for one move never pays for it)."""
        self.declared = None
        seat = view.get("viewer")
        if seat not in (0, 1) or not auto_windows(view) or not catalog.counter_ids_by_trigger.get(action["type"]):
            return
        if view["players"][1 - seat]["hand"]:
            self.declared = (catalog, msgspec.to_builtins(view), action)  # a view may share the state's lists

    def observe(self, view: ViewDict, events: list[EventDict] | None = None) -> None:
        self.seen.update(view.get("cards", {}))
        viewer = view.get("viewer")
        if viewer not in (0, 1):  # a spectator's view: nothing of a seat's to learn
            return
        opponent = 1 - viewer
        named: set[str] = set()  # every instance an event names may have left the hand (and come back)
        opened = False
        for event in events or ():
            if event["type"] == "reveal" and isinstance(event.get("card"), str):
                self.seen[event["case"]] = event["card"]
            elif event["type"] == "window_opened" and event["responder"] == opponent:
                opened = True  # only the seat's own declaration opens a window for the opponent
            named.update(v for v in event.values() if isinstance(v, str))
        if self.declared is not None and events is not None:
            catalog, before, action = self.declared
            self.declared = None
            fits = fitting_counters(catalog, before, action)
            if fits:
                held = list(before["players"][opponent]["hand"])
                (self.claims if opened else self.denials).append(Window(fits, held))
        self._forget_what_left(set(view["players"][opponent]["hand"]) - named)

    def _forget_what_left(self, still: set[str]) -> None:
        """Keep in each window only the instances ``still`` held; a claim is met once a card that may have been
        its counter (one of ``fits``, or unseen) has left the hand."""
        for w in self.denials:
            w.held = [h for h in w.held if h in still]
        self.denials = [w for w in self.denials if w.held]
        claims = []
        for w in self.claims:
            gone = [self.seen.get(h) for h in w.held if h not in still]
            w.held = [h for h in w.held if h in still]
            if w.held and not any(cid is None or cid in w.fits for cid in gone):
                claims.append(w)
        self.claims = claims


def fitting_counters(catalog: Catalog, view: ViewDict, action: ActionDict | dict[str, Any]) -> frozenset[str]:
    """The counters that could answer ``action`` declared from ``view`` (RULES 9.4 auto: trigger, cost and
    targets all fit), asked of the engine: for each counter of the action's trigger, a sample of ``view`` whose
    responder holds that counter and otherwise no counter, does declaring ``action`` open a window? Whether one
    fits reads only what is public (the responder's unactioned cases, the field, their trash) and the card."""
    candidates = sorted(catalog.counter_ids_by_trigger.get(action["type"], ()))
    hand = view["players"][1 - action["player"]]["hand"]
    if not candidates or not hand:
        return frozenset()
    try:
        base = determinize(catalog, view, [None, None], "fits")
    except CannotDeal:  # a view no legal decks make (a catalog other than the game's): nothing to learn
        return frozenset()
    filler = next(cid for cid in catalog.game_card_ids if catalog[cid].kind != "counter")
    fits = set()
    for cid in candidates:
        trial = copy.deepcopy(base)
        trial["cards"].update(dict.fromkeys(hand, filler))
        trial["cards"][hand[0]] = cid
        try:
            events = Session(catalog, trial).apply(action).events
        except RuleViolation:  # not legal in a sample of this view: nothing to learn
            return frozenset()
        if any(e["type"] == "window_opened" for e in events):
            fits.add(cid)
    return frozenset(fits)


def deck_counts(deck: Any) -> Counter[str]:
    """A deck list (40 ids) or an object of counts, as a multiset."""
    return Counter(deck) if isinstance(deck, list) else Counter({k: int(v) for k, v in dict(deck).items()})


class CannotDeal(ValueError):
    """The decks cannot have made the view (a card seen that the deck lacks, or too few cards)."""


def _zones(pl: ViewPlayerDict | PlayerDict) -> list[str]:
    return (
        list(pl["hand"])
        + [e["card"] for e in pl["cases"]]
        + [e["card"] for e in pl["fairies"]]
        + [e["card"] for e in pl["evidence"]]
        + list(pl["trash"])
    )


# -- what each hidden instance may be ------------------------------------------------------------


_FITTING: dict[tuple[str, str | None, int, frozenset[str] | None, frozenset[str] | None], frozenset[str]] = {}


@dataclass
class Constraints:
    """What the hidden instances may be: ``kind`` (``case`` or ``fairy``), ``need`` (a face-down case with that
    many of one player's fairies, RULES 8.9), ``barred`` (counters a window that did not open rules out) and
    ``claims`` (windows that opened: one of ``held`` is one of ``fits``)."""

    catalog: Catalog
    kind: dict[str, str] = field(default_factory=dict)
    need: dict[str, int] = field(default_factory=dict)
    barred: dict[str, frozenset[str]] = field(default_factory=dict)
    claims: list[Window] = field(default_factory=list)

    def fitting(self, iid: str, only: frozenset[str] | None = None) -> frozenset[str]:
        """Every catalog id instance ``iid`` may be (:meth:`allows`); computed once for each set of constraints."""
        kind = self.kind.get(iid)
        key = (self.catalog.digest, kind, self.need.get(iid, 0) if kind == "case" else 0, self.barred.get(iid), only)
        found = _FITTING.get(key)
        if found is None:
            if len(_FITTING) > 4096:  # a long-lived process meets few distinct sets; keep it bounded anyway
                _FITTING.clear()
            found = _FITTING[key] = frozenset(c for c in self.catalog.cards if self.allows(iid, c, only))
        return found

    def binds(self, iid: str) -> bool:
        return iid in self.kind or iid in self.barred

    def allows(self, iid: str, cid: str, only: frozenset[str] | None = None) -> bool:
        """Whether instance ``iid`` may be card ``cid`` (one of ``only`` when it witnesses claims)."""
        if only is not None and cid not in only:
            return False
        if cid in self.barred.get(iid, ()):
            return False
        kind = self.kind.get(iid)
        if kind is None:
            return True
        card = self.catalog[cid]
        return card.kind == kind and (kind != "case" or card.dispatch_limit >= self.need.get(iid, 0))

    def order(self, iids: list[str], witnesses: dict[str, frozenset[str]]) -> list[str]:
        """The bound instances among ``iids``, the most constrained first (witnesses, then crowded cases)."""
        bound = [i for i in iids if self.binds(i) or i in witnesses]
        return sorted(bound, key=lambda i: (i not in witnesses, -self.need.get(i, 0)))

    def witnesses(
        self, hidden: list[str], stream: SeededStream, feasible: Callable[[dict[str, frozenset[str]]], bool]
    ) -> dict[str, frozenset[str]]:
        """A witness for each claim on ``hidden`` (an instance that must be one of the claim's counters, shared
        by claims whose counters overlap), such that ``feasible(witnesses)``: a depth-first search, the claims
        with the fewest candidates first, each claim's candidates in a shuffled order (a witness already chosen
        first), every choice checked at once so that a dead end is left early. The true state meets every claim,
        so one exists; after :data:`WITNESS_TRIES` checks the claims are let go (``{}``)."""
        claims = []
        for w in self.claims:
            held = [h for h in w.held if h in hidden]
            if held:
                stream.shuffle(held)
                claims.append((w.fits, held))
        claims.sort(key=lambda c: len(c[1]))
        tries = WITNESS_TRIES

        def search(k: int, chosen: dict[str, frozenset[str]]) -> dict[str, frozenset[str]] | None:
            nonlocal tries
            if k == len(claims):
                return chosen
            fits, held = claims[k]
            shared = [h for h in held if h in chosen and chosen[h] & fits]
            for iid in shared + [h for h in held if h not in chosen]:
                if tries == 0:
                    return None
                tries -= 1
                trial = {**chosen, iid: chosen.get(iid, fits) & fits}
                if feasible(trial) and (found := search(k + 1, trial)) is not None:
                    return found
            return None

        return search(0, {}) or {}


def constraints(catalog: Catalog, view: ViewDict, memory: Memory | None, seen: dict[str, str]) -> Constraints:
    """Everything the view and the memory say about the hidden instances."""
    out = Constraints(catalog)
    out.kind = {e["card"]: "case" for pl in view["players"] for e in pl["cases"]}
    pending = view.get("pending")
    if pending and pending["action"]["type"] == "play_case":
        out.kind[pending["action"]["card"]] = "case"
    fairy = pending["action"].get("fairy") if pending else None
    if isinstance(fairy, str):  # bounced to a hand by a counter since
        out.kind[fairy] = "fairy"
    crowd = Counter(
        (e["case"], p) for p, pl in enumerate(view["players"]) for e in pl["fairies"] if e["case"] is not None
    )
    for (case, _), n in crowd.items():
        out.need[case] = max(out.need.get(case, 0), n)
    seat = view.get("viewer")
    if memory is None or seat not in (0, 1):
        return out
    hidden_hand = {i for i in view["players"][1 - seat]["hand"] if i not in seen}
    for w in memory.denials:
        for iid in hidden_hand.intersection(w.held):
            out.barred[iid] = out.barred.get(iid, frozenset()) | w.fits
    for w in memory.claims:
        if any(seen.get(h) in w.fits for h in w.held):
            continue  # met by a card the seat knows
        held = [h for h in w.held if h in hidden_hand]
        if held:
            out.claims.append(Window(w.fits, held))
    return out


# -- dealing one player's hidden cards --------------------------------------------------------------


def _match(
    rules: Constraints, slots: list[str], witnesses: dict[str, frozenset[str]], pool: list[str]
) -> dict[str, int] | None:
    """A card of ``pool`` (by index) for each of ``slots`` that allows it, or None: Kuhn's augmenting paths over
    the pool in its (shuffled) order."""
    allowed = {s: [i for i, cid in enumerate(pool) if cid in rules.fitting(s, witnesses.get(s))] for s in slots}
    owner: dict[int, str] = {}

    def augment(slot: str, visited: set[int]) -> bool:
        for i in allowed[slot]:
            if i not in visited:
                visited.add(i)
                if i not in owner or augment(owner[i], visited):
                    owner[i] = slot
                    return True
        return False

    if all(augment(s, set()) for s in slots):
        return {slot: i for i, slot in owner.items()}
    return None


def _deal_from_deck(
    rules: Constraints, pool: list[str], hidden: list[str], stream: SeededStream
) -> tuple[dict[str, str], list[str]]:
    """The hidden instances' cards from ``pool`` (shuffled), and the cards left for the file, in order."""
    stream.shuffle(pool)

    def placing(witnesses: dict[str, frozenset[str]]) -> dict[str, int] | None:
        return _match(rules, rules.order(hidden, witnesses), witnesses, pool)

    placed = placing(rules.witnesses(hidden, stream, lambda w: placing(w) is not None))
    if placed is None:
        raise CannotDeal(f"the deck has no cards left to fit {', '.join(rules.order(hidden, {}))}")
    cards = {iid: pool[i] for iid, i in placed.items()}
    left = [cid for i, cid in enumerate(pool) if i not in placed.values()]
    for iid in hidden:
        if iid not in cards:
            cards[iid] = left.pop()
    return cards, left


_PRIOR: dict[str, tuple[list[str], dict[str, int]]] = {}  # a catalog's game card ids, sorted, and names' limits


class _Prior:
    """Draws for a deck whose list is not known: each card uniformly among the catalog's game cards (RULES 3.3)
    whose name still has room in a legal deck (RULES 3.2), given the cards of it drawn or seen so far."""

    def __init__(self, catalog: Catalog, known: Counter[str], stream: SeededStream):
        self.catalog, self.stream = catalog, stream
        ids, limits = _PRIOR.get(catalog.digest) or _PRIOR.setdefault(
            catalog.digest,
            (
                sorted(catalog.game_card_ids),
                {catalog[cid].name: catalog.name_limit(catalog[cid].name) for cid in catalog.game_card_ids},
            ),
        )
        self.room = dict(limits)
        for cid, n in known.items():
            self.room[catalog[cid].name] = self.room.get(catalog[cid].name, 0) - n
        self.ids = [cid for cid in ids if self.room[catalog[cid].name] > 0]

    def draw(self, only: frozenset[str] | None = None) -> str | None:
        ids = self.ids if only is None else [c for c in self.ids if c in only]
        if not ids:
            return None
        cid = ids[self.stream.below(len(ids))]
        name = self.catalog[cid].name
        self.room[name] -= 1
        if self.room[name] == 0:
            self.ids = [c for c in self.ids if self.catalog[c].name != name]
        return cid


def _deal_from_prior(
    rules: Constraints, known: Counter[str], hidden: list[str], file: int, stream: SeededStream
) -> tuple[dict[str, str], list[str]]:
    """The hidden instances' cards and the file's, drawn from the catalog for a deck whose list is not known
    (``known`` of it seen): the bound instances first, the most constrained first."""
    ids = _Prior(rules.catalog, known, stream).ids

    def feasible(witnesses: dict[str, frozenset[str]]) -> bool:  # each bound instance has a card with room
        return all(not rules.fitting(i, witnesses.get(i)).isdisjoint(ids) for i in rules.order(hidden, witnesses))

    def bound(witnesses: dict[str, frozenset[str]]) -> tuple[_Prior, dict[str, str]] | None:
        prior, cards = _Prior(rules.catalog, known, stream), {}
        for iid in rules.order(hidden, witnesses):
            cid = prior.draw(rules.fitting(iid, witnesses.get(iid)))
            if cid is None:
                return None
            cards[iid] = cid
        return prior, cards

    dealt = bound(rules.witnesses(hidden, stream, feasible)) or bound({})  # the names' room may run out: no claims
    if dealt is None:
        raise CannotDeal(f"the catalog has no legal deck with cards to fit {', '.join(rules.order(hidden, {}))}")
    prior, cards = dealt
    rest = []
    for _ in range(len(hidden) - len(cards) + file):
        cid = prior.draw()
        if cid is None:
            raise CannotDeal("the catalog has too few cards left for a legal deck")
        rest.append(cid)
    stream.shuffle(rest)
    for iid in hidden:
        if iid not in cards:
            cards[iid] = rest.pop()
    return cards, rest


def _deal_player(
    rules: Constraints, p: int, pl: ViewPlayerDict, deck: Any, seen: dict[str, str], stream: SeededStream
) -> tuple[dict[str, str], list[str]]:
    """Player ``p``'s cards: the known ones, the hidden ones dealt, and the file's in order."""
    cards: dict[str, str] = {}
    known: Counter[str] = Counter()
    hidden = []
    for iid in _zones(pl):
        cid = seen.get(iid)
        if cid is None:
            hidden.append(iid)
        else:
            cards[iid] = cid
            known[cid] += 1
    if deck is None:
        dealt, file = _deal_from_prior(rules, known, hidden, pl["file"], stream)
    else:
        pool = deck_counts(deck)
        pool.subtract(known)
        short = sorted(cid for cid, n in pool.items() if n < 0)
        if short:
            raise CannotDeal(f"player {p}'s deck holds fewer {short[0]} than the view shows")
        left = sorted(pool.elements())  # the multiset alone decides the draw, never how it was stored
        if len(left) != len(hidden) + pl["file"]:
            raise CannotDeal(f"player {p}'s deck leaves {len(left)} unseen cards for {len(hidden) + pl['file']} places")
        dealt, file = _deal_from_deck(rules, left, hidden, stream)
    return cards | dealt, file


def _state(view: ViewDict, seed: str, cards: dict[str, str], files: list[list[str]]) -> dict[str, Any]:
    state: dict[str, Any] = msgspec.to_builtins({k: v for k, v in view.items() if k not in VIEW_ONLY})  # a copy
    state["schema"] = STATE_SCHEMA
    state["seed"] = "determinized:" + seed
    state["rng"] = 0
    # A view's clock is the page's countdown (remaining, running, since), not a state's (started, last): the
    # sampled games a bot plays out keep no time (a time claim is the referee's to judge, never a bot's).
    state["clock"] = None
    state["cards"] = cards
    state["players"] = [{**pl, "file": files[p]} for p, pl in enumerate(state["players"])]
    return state


def determinize(
    catalog: Catalog,
    view: ViewDict,
    decks: list[Any],
    seed: str,
    memory: Memory | dict[str, str] | None = None,
) -> dict[str, Any]:
    """A full State consistent with ``view`` (one seat's), ``memory`` and ``decks``, drawn from ``seed``.

    ``decks[p]`` is a deck list, or ``None`` when it is not known (drawn from the catalog as a prior);
    ``memory`` a :class:`Memory`, or only the identities seen."""
    seen = dict(memory.seen if isinstance(memory, Memory) else memory or {})
    seen.update(view["cards"])
    rules = constraints(catalog, view, memory if isinstance(memory, Memory) else None, seen)
    stream = SeededStream("determinize:" + seed)
    cards: dict[str, str] = {}
    files: list[list[str]] = []
    taken = {iid for pl in view["players"] for iid in _zones(pl)}
    for p, pl in enumerate(view["players"]):
        dealt, file = _deal_player(rules, p, pl, decks[p], seen, stream)
        cards.update(dealt)
        files.append(_name_file(p, file, taken, cards))
    return _state(view, seed, cards, files)


def _name_file(p: int, file: list[str], taken: set[str], cards: dict[str, str]) -> list[str]:
    """Instance ids for player ``p``'s file cards (the view shows only how many), none already in use."""
    ids = []
    n = 0
    for cid in file:
        while f"{'ab'[p]}~{n:02d}" in taken:
            n += 1
        iid = f"{'ab'[p]}~{n:02d}"
        taken.add(iid)
        cards[iid] = cid
        ids.append(iid)
    return ids
