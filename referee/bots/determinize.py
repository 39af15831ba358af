"""Determinization: a full State consistent with everything one seat knows (for search bots).

OpenSpiel calls it ``resample_from_infostate``. Given one seat's view
(docs/api.md §5), the cards that seat has seen earlier (:class:`Memory`: a
fairy bounced back to the opponent's hand stays known) and the deck lists,
:func:`determinize` deals the cards the seat cannot see — the opponent's
hand, the opponent's face-down cases, and both files in their order — from
what the decks hold minus every card the seat knows. A deck given as
``None`` (the opponent's list, which a seat does not know) is drawn from the
catalog as a prior: its unseen cards are drawn one by one, uniformly among the
catalog's game cards (no bonus card, RULES 3.3) whose name still has room in
a legal deck (RULES 3.2), given the cards of that deck the seat has seen; and
what open response windows told (:class:`Memory`'s claims, RULES 9.4 auto)
holds in every sample. Guarantees
(tests/test_determinize.py checks them with hypothesis):

- the sample's view for that seat is the given view (bar ``commitment``, the
  hash of the sample's own seed: a view never shows the seed it hides);
- the sample reads nothing hidden: it is a function of the view, the memory,
  the decks and the seed alone, so permuting the true state's hidden cards
  leaves it unchanged;
- the sample is a consistent state (RULES 13.1): the engine accepts it as input.

A face-down case and a pending ``play_case``'s card are drawn from the case
cards left, the fairy a pending move names (a counter may have bounced it to
a hand since) from the fairies left (a face-down case with two of one player's fairies on it, from
those whose ``dispatch_limit`` allows two: RULES 8.9); everything else from
all cards left.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any

from referee.engine import Catalog, EventDict, PlayerDict, ViewDict, ViewPlayerDict
from referee.engine.setup import SeededStream

STATE_SCHEMA = "ace-file/state@1"
VIEW_ONLY = ("viewer", "player", "commitment", "schema")


class Memory:
    """What one seat has learnt so far beyond its view now: the instance → card identities it has seen, and
    what open response windows told it.

    ``claims``: under ``response_windows: auto`` (RULES 9.4) a window opened for the opponent only because
    they held a counter that could be played in it. When they passed without playing one, they still hold
    it: ``claims[trigger]`` lists the opponent's hand (instances) then, one of which is that counter, until
    a counter of that trigger is seen leaving their hand (:func:`determinize` checks that with the catalog).
    Only the trigger is kept: that the counter's cost and targets fitted then is not.
    """

    __slots__ = ("claims", "open", "seen")

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}
        self.claims: dict[str, list[str]] = {}
        self.open: list[Any] | None = None  # [trigger, countered] of a window the opponent responds to

    def observe(self, view: ViewDict, events: list[EventDict] | None = None) -> None:
        self.seen.update(view.get("cards", {}))
        viewer = view.get("viewer")
        if viewer not in (0, 1):  # a spectator's view: nothing of a seat's to learn
            return
        seat: int = viewer
        options = view.get("options")
        auto = options is None or options.get("response_windows", "auto") == "auto"
        opponent_hand = list(view["players"][1 - seat]["hand"])
        for event in events or ():
            if event["type"] == "reveal":
                card = event.get("card")
                if isinstance(card, str):
                    self.seen[event["case"]] = card
            elif event["type"] == "window_opened" and auto and event["responder"] == 1 - seat:
                self.open = [event["action"], False]
            elif event["type"] == "counter" and self.open is not None and event["player"] == 1 - seat:
                self.open[1] = True
            elif event["type"] == "window_closed" and self.open is not None:
                trigger, countered = self.open
                self.open = None
                if not countered and isinstance(trigger, str):
                    self.claims.setdefault(trigger, opponent_hand)


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


def _fits(card: Any, kind: str, fairies: int) -> bool:
    """A card of ``kind`` (``counter:TRIGGER``: a counter of that trigger); a case that may hold ``fairies`` of
    one player's fairies (RULES 8.9)."""
    base, _, trigger = kind.partition(":")
    return (
        card.kind == base
        and (base != "case" or card.dispatch_limit >= fairies)
        and (not trigger or card.trigger == trigger)
    )


def _claimed(catalog: Catalog, memory: Memory | None, hand: list[str], hidden: set[str]) -> dict[str, str]:
    """Hidden instances of the opponent's hand that must be counters (``counter:TRIGGER``), one for each claim
    of ``memory`` still standing: no counter of its trigger left the hand since, and one of the instances it
    names is still there and hidden (the first, in the hand's order: the seat cannot tell them apart)."""
    out: dict[str, str] = {}
    if memory is None:
        return out
    in_hand = set(hand)
    for trigger in sorted(memory.claims):
        named = memory.claims[trigger]
        gone = [memory.seen.get(iid) for iid in named if iid not in in_hand]
        if any(cid in catalog and _fits(catalog[cid], f"counter:{trigger}", 0) for cid in gone if cid):
            continue  # the counter may have been that one
        free = [iid for iid in hand if iid in named and iid in hidden and iid not in out]
        if free:
            out[free[0]] = f"counter:{trigger}"
    return out


def _from_prior(
    catalog: Catalog, known: Counter[str], wanted: list[tuple[str, int]], count: int, stream: SeededStream
) -> list[str]:
    """``count`` catalog ids for a deck whose list is not known, ``known`` of it seen: first one for each
    ``(kind, fairies)`` in ``wanted`` (an instance that must be of that kind), then any card; each uniformly
    among the ids whose name is below its limit (RULES 3.2) in the deck so far."""
    room: dict[str, int] = {}
    for cid in catalog.cards:
        name = catalog[cid].name
        room[name] = catalog.name_limit(name)
    for cid, n in known.items():
        room[catalog[cid].name] -= n
    ids = sorted(cid for cid in catalog.game_card_ids if room[catalog[cid].name] > 0)  # no bonus card (RULES 3.3)
    out: list[str] = []

    def take(cid: str) -> None:
        nonlocal ids
        name = catalog[cid].name
        room[name] -= 1
        out.append(cid)
        if room[name] == 0:
            ids = [c for c in ids if catalog[c].name != name]

    for kind, fairies in wanted:
        fitting = [cid for cid in ids if _fits(catalog[cid], kind, fairies)]
        if not fitting and kind.startswith("counter:"):
            continue  # a window's claim no legal deck can meet now: not kept
        if not fitting:
            raise CannotDeal(f"the catalog has no {kind} left for a legal deck")
        take(fitting[stream.below(len(fitting))])
    while len(out) < count:
        if not ids:
            raise CannotDeal("the catalog has too few cards left for a legal deck")
        take(ids[stream.below(len(ids))])
    return out


def determinize(  # noqa: C901 -- one pass over every hidden zone
    catalog: Catalog,
    view: ViewDict,
    decks: list[Any],
    seed: str,
    memory: Memory | dict[str, str] | None = None,
) -> dict[str, Any]:
    """A full State consistent with ``view`` (one seat's), ``memory`` and ``decks``, drawn from ``seed``.

    ``decks[p]`` is a deck list, or ``None`` when it is not known (drawn from the catalog as a prior)."""
    seen = dict(memory.seen if isinstance(memory, Memory) else memory or {})
    seen.update(view["cards"])
    seat = view.get("viewer")
    stream = SeededStream("determinize:" + seed)
    pending = view.get("pending")
    kind_of = {e["card"]: "case" for pl in view["players"] for e in pl["cases"]}  # what a hidden instance must be
    if pending and pending["action"]["type"] == "play_case":
        kind_of[pending["action"]["card"]] = "case"
    fairy = pending["action"].get("fairy") if pending else None
    if isinstance(fairy, str):  # bounced to a hand by a counter since
        kind_of[fairy] = "fairy"
    if seat in (0, 1) and isinstance(memory, Memory):  # what auto response windows told (RULES 9.4)
        hand = view["players"][1 - seat]["hand"]
        kind_of.update(_claimed(catalog, memory, hand, {i for i in hand if i not in seen}))
    cards: dict[str, str] = {}
    files: list[list[str]] = []
    room: Counter[tuple[str, int]] = Counter(
        (e["case"], p) for p, pl in enumerate(view["players"]) for e in pl["fairies"] if e["case"] is not None
    )
    need = {case: n for (case, _), n in room.items()}  # the largest count of one player's fairies on each case
    for (case, _), n in room.items():
        need[case] = max(need[case], n)
    taken = {iid for pl in view["players"] for iid in _zones(pl)}
    for p, pl in enumerate(view["players"]):
        present = _zones(pl)
        known: Counter[str] = Counter()
        hidden = []
        for iid in present:
            cid = seen.get(iid)
            if cid is None:
                hidden.append(iid)
                continue
            cards[iid] = cid
            known[cid] += 1
        if decks[p] is None:
            wanted = sorted(((kind_of[i], need.get(i, 0)) for i in hidden if i in kind_of), key=lambda w: -w[1])
            left = sorted(_from_prior(catalog, known, wanted, len(hidden) + pl["file"], stream))
        else:
            pool = deck_counts(decks[p])
            pool.subtract(known)
            short = sorted(cid for cid, n in pool.items() if n < 0)
            if short:
                raise CannotDeal(f"player {p}'s deck holds fewer {short[0]} than the view shows")
            left = sorted(pool.elements())  # the multiset alone decides the draw, never how it was stored
        if len(left) != len(hidden) + pl["file"]:
            raise CannotDeal(f"player {p}'s deck leaves {len(left)} unseen cards for {len(hidden) + pl['file']} places")
        stream.shuffle(left)
        # The instances of a known kind first, the most constrained (fairies on a face-down case) first of all.
        for iid in sorted((i for i in hidden if i in kind_of), key=lambda i: -need.get(i, 0)):
            if iid in kind_of:
                kind = kind_of[iid]
                at = next((i for i, cid in enumerate(left) if _fits(catalog[cid], kind, need.get(iid, 0))), None)
                if at is None and kind.startswith("counter:"):
                    at = len(left) - 1  # a window's claim the deck cannot meet: told wrong, so not kept
                if at is None:
                    raise CannotDeal(f"player {p}'s deck has no {kind} left for {iid}")
                cards[iid] = left.pop(at)
        for iid in hidden:
            if iid not in kind_of:
                cards[iid] = left.pop()
        file_ids = []
        n = 0
        for cid in left:
            while f"{'ab'[p]}~{n:02d}" in taken:
                n += 1
            iid = f"{'ab'[p]}~{n:02d}"
            taken.add(iid)
            cards[iid] = cid
            file_ids.append(iid)
        files.append(file_ids)
    state: dict[str, Any] = copy.deepcopy(
        {k: v for k, v in view.items() if k not in VIEW_ONLY}
    )  # a view may share lists
    state["schema"] = STATE_SCHEMA
    state["seed"] = "determinized:" + seed
    state["rng"] = 0
    # A view's clock is the page's countdown (remaining, running, since), not a state's (started, last): the
    # sampled games a bot plays out keep no time (a time claim is the referee's to judge, never a bot's).
    state["clock"] = None
    state["cards"] = cards
    state["players"] = [{**pl, "file": files[p]} for p, pl in enumerate(state["players"])]
    return state
