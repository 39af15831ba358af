"""Bots that see only their seat: ``random``, ``greedy`` and ``ismcts`` (docs/bots.md).

A bot is told, at each decision, its seat's view (docs/api.md §5), the
events its seat may know since its last decision, and its legal actions; it
answers one of those actions. It never gets the state: what it does not see
it samples (:func:`referee.bots.determinize.determinize`), from the two deck
lists given at :meth:`Bot.start`.

- ``random``: a uniform legal action (it keeps its opening hand 3 times in 4
  and concedes only when nothing else is legal).
- ``greedy``: one ply on one determinization. Each legal action is applied to
  the sample, any response window it opens is closed by passes, and the state
  reached is scored by :func:`score`; the best wins (ties: the first listed).
- ``ismcts``: single-observer information-set Monte Carlo tree search over
  the seat's own decisions of this turn (or window). Each iteration deals a
  new determinization (or, with ``samples``, one of that many dealt once),
  walks the tree by UCB1 over the actions legal in that sample
  (availability counts, as Cowling et al. 2012; the opponent's windows on
  them close with a pass), adds one node, plays ``rollout`` more moves of
  the turn greedily (each the best by :func:`one_ply`), ends the turn
  (``end_turn``, the discard owed) and scores the state reached, the
  opponent's draw step included, with ``tanh(score / 4)``: every leaf is
  scored at the same point of the game. With ``widening`` the root's
  actions are ordered once by their one-ply score and only the best
  ``ceil(widening * sqrt(visits + 1))`` are open to the search (progressive
  widening, the best first), so a budget smaller than the legal actions
  still goes deep on the likely ones. Budget: ``iterations`` per decision
  (without widening, at least one per legal action), or ``seconds`` when
  given. The most visited legal action is played, the best on average among
  equals. The named levels people are offered (:data:`LEVELS`) are fixed
  settings of these.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import msgspec

from referee.bots.determinize import Memory, determinize
from referee.engine import ActionDict, Catalog, EventDict, PlayerDict, RuleViolation, Session, StateDict, ViewDict
from referee.engine.parse import plain_copy
from referee.engine.setup import SeededStream

Action = ActionDict


def score(state: StateDict, me: int) -> float:
    """How good ``state`` is for ``me``: a win 100, a loss -100; else, for each side, minus the cards in its
    trash (a card there is one the player has lost: milled by a solved case, worked a failed investigation,
    discarded, spent), plus 0.5 for each fairy on the field, 0.4 more for each one dispatched, 0.3 for each
    evidence, 0.2 for each case, 0.25 for each card in the file (an empty file loses) and 0.05 for each card in
    hand; mine minus the opponent's. A draw moves a card from the file to the hand and costs 0.2: a voluntary
    draw must buy more than that, and whose draw step came last counts little."""
    result = state["result"]
    if result is not None:
        return 100.0 if result["winner"] == me else -100.0

    def side(pl: PlayerDict) -> float:
        fairies = pl["fairies"]
        return (
            -len(pl["trash"])
            + 0.5 * len(fairies)
            + 0.4 * sum(1 for f in fairies if f["case"] is not None)
            + 0.3 * len(pl["evidence"])
            + 0.2 * len(pl["cases"])
            + 0.25 * len(pl["file"])
            + 0.05 * len(pl["hand"])
        )

    players = state["players"]
    return side(players[me]) - side(players[1 - me])


def _key(action: Action) -> bytes:
    return _encode({k: v for k, v in action.items() if k != "pay"})


_encode = msgspec.json.Encoder(order="sorted").encode


def _actor(state: StateDict) -> int:
    pending = state["pending"]
    return pending["responder"] if pending is not None else state["active"]


def settle(session: Session) -> None:
    """Close an open response window by passing (the responder plays no counter)."""
    for _ in range(4):
        pending = session.state["pending"]
        if pending is None or session.over:
            return
        session.apply({"type": "pass", "player": pending["responder"]})


def _time_left(start: float, deadline: float, done: int) -> bool:
    """Whether one more iteration, as long as the mean of the ``done`` ones so far, ends by ``deadline``."""
    now = time.perf_counter()
    mean = (now - start) / done if done else 0.0
    return now + mean <= deadline


class Bot:
    """The interface: :meth:`start` once per game, then :meth:`act` at each of the seat's decisions.

    ``deadline`` (a ``time.perf_counter()`` instant, or None): when set, a bot that searches stops in time to
    answer by then (``POST /v1/suggest``'s ``budget_ms``, the arena's time for a move), or sooner when its fixed
    amount of work is done."""

    name = "bot"

    def __init__(self, catalog: Catalog | None = None, seed: str = "bot"):
        self.catalog = catalog or Catalog.builtin()
        self.seed = seed
        self.deadline: float | None = None

    def start(self, seat: int, decks: list[Any], game_seed: str) -> None:
        self.seat = seat
        self.decks = decks
        self.memory = Memory()
        self.stream = SeededStream(f"{self.name}:{self.seed}:{game_seed}:{seat}")
        self.decisions = 0

    def act(self, view: ViewDict, events: list[EventDict], legal: list[Action]) -> Action:
        self.memory.observe(view, events)
        self.decisions += 1
        playable = [a for a in legal if a["type"] != "concede"]
        if not playable:
            return legal[0]
        action = playable[0] if len(playable) == 1 else self.choose(view, playable)
        self.memory.declare(self.catalog, view, action)  # what its response window will tell (RULES 9.4)
        return action

    def choose(self, view: ViewDict, playable: list[Action]) -> Action:
        raise NotImplementedError

    def sample(self, view: ViewDict, salt: str) -> Session:
        state = determinize(self.catalog, view, self.decks, f"{self.seed}:{self.decisions}:{salt}", self.memory)
        return Session(self.catalog, state)  # consistent by construction (tests/test_determinize.py)


class RandomBot(Bot):
    name = "random"

    def choose(self, view: ViewDict, playable: list[Action]) -> Action:
        if playable[0]["type"] in ("mulligan", "keep") and self.stream.below(4):
            return next(a for a in playable if a["type"] == "keep")
        return playable[self.stream.below(len(playable))]


def one_ply(catalog: Catalog, session: Session, actions: list[Action], me: int) -> list[float]:
    """Each action's :func:`score` for ``me`` once applied to a copy of ``session`` and any window it opens
    closed by passes (``-inf`` for one the sample refuses)."""
    base = session.snapshot()
    out = []
    for a in actions:
        trial = Session(catalog, plain_copy(base))
        try:
            trial.apply(a)
            settle(trial)
        except RuleViolation:
            out.append(-math.inf)
            continue
        out.append(score(trial.state, me))
    return out


class GreedyBot(Bot):
    name = "greedy"

    def choose(self, view: ViewDict, playable: list[Action]) -> Action:
        if playable[0]["type"] in ("mulligan", "keep"):
            return next(a for a in playable if a["type"] == "keep")
        base = self.sample(view, "greedy")
        best, best_value = playable[0], -math.inf
        start = time.perf_counter()
        for done, a in enumerate(playable):
            if self.deadline is not None and not _time_left(start, self.deadline, done):
                break  # the best found so far
            (value,) = one_ply(self.catalog, base, [a], self.seat)
            if value > best_value:
                best, best_value = a, value
        return best


class _Node:
    __slots__ = ("actor", "available", "children", "order", "value", "visits")

    def __init__(self, actor: int):
        self.actor = actor  # who chose the action that leads here
        self.children: dict[bytes, _Node] = {}
        self.visits = 0
        self.value = 0.0  # summed from ``actor``'s side
        self.available = 0
        self.order: list[bytes] | None = None  # the actions by their one-ply score, best first (widening)


class ISMCTSBot(Bot):
    name = "ismcts"

    def __init__(
        self,
        catalog: Catalog | None = None,
        seed: str = "bot",
        iterations: int = 64,
        seconds: float | None = None,
        exploration: float = 0.7,
        widening: float = 0.0,
        rollout: int = 0,
        samples: int = 0,
    ):
        super().__init__(catalog, seed)
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration
        self.widening = widening  # > 0: progressive widening over the actions ordered by their one-ply score
        self.rollout = rollout  # greedy moves played after the new node before the turn is ended
        self.samples = samples  # > 0: that many determinizations, dealt once and reused in turn

    def choose(self, view: ViewDict, playable: list[Action]) -> Action:
        root = _Node(self.seat)
        wanted = {_key(a): a for a in playable}
        start = time.perf_counter()
        deadline = self.deadline if self.seconds is None else start + self.seconds
        i = 0
        budget = self.iterations if self.widening else max(self.iterations, len(playable))  # each tried once
        dealt: list[StateDict] = []
        while i < budget and (deadline is None or _time_left(start, deadline, i)):
            session = self._deal(view, i, dealt)
            i += 1
            path = self._descend(root, session, wanted)
            self._play_greedily(session)
            self._finish_turn(session)
            value = math.tanh(score(session.state, self.seat) / 4)
            for n in path:
                n.visits += 1
                n.value += value
        best = max(wanted, key=lambda k: self._rank(root.children.get(k)))
        return wanted[best]

    def _deal(self, view: ViewDict, i: int, dealt: list[StateDict]) -> Session:
        """Iteration ``i``'s determinization: a new one, or with ``samples`` one of that many, in turn."""
        if not self.samples:
            return self.sample(view, f"it{i}")
        if len(dealt) < self.samples:
            dealt.append(self.sample(view, f"it{i}").snapshot())
        return Session(self.catalog, plain_copy(dealt[i % self.samples]))

    def _descend(self, root: _Node, session: Session, wanted: dict[bytes, Action]) -> list[_Node]:
        """Walk the tree on ``session`` (UCB1 over the actions legal in it) and add one node: the path."""
        node, path = root, [root]
        while True:
            self._opponent_passes(session)
            if session.over or _actor(session.state) != self.seat:
                return path
            options = {_key(a): a for a in session.legal_actions(self.seat) if a["type"] != "concede"}
            if node is root:
                options = {k: a for k, a in options.items() if k in wanted} or options
            if not options:
                return path
            for k in options:
                child = node.children.get(k)
                if child is not None:
                    child.available += 1
            candidates = self._widened(node, session, options) if node is root else list(options)
            untried = [k for k in candidates if k not in node.children]
            if untried:
                k = untried[0] if self.widening and node is root else untried[self.stream.below(len(untried))]
                child = node.children[k] = _Node(self.seat)
                child.available = 1
                session.apply(options[k])
                path.append(child)
                return path
            k = max(candidates, key=lambda k: self._ucb(node.children[k]))
            session.apply(options[k])
            node = node.children[k]
            path.append(node)

    def _widened(self, node: _Node, session: Session, options: dict[bytes, Action]) -> list[bytes]:
        """The actions the search may take at ``node`` (the root: deeper, the actions of a sample are few): all
        of them, or with ``widening`` the best ``ceil(widening * sqrt(visits + 1))`` by their one-ply score
        (ordered once, on the first sample)."""
        if not self.widening:
            return list(options)
        if node.order is None:
            keys = list(options)
            values = one_ply(self.catalog, session, list(options.values()), self.seat)
            node.order = [k for _, k in sorted(zip(values, keys, strict=True), key=lambda vk: -vk[0])]
        width = math.ceil(self.widening * math.sqrt(node.visits + 1))
        ranked = [k for k in node.order if k in options] + [k for k in options if k not in node.order]
        return ranked[:width]

    def _play_greedily(self, session: Session) -> None:
        """``rollout`` more of my moves this turn, each the best by its one-ply score (none once ending the turn
        is the best)."""
        for _ in range(self.rollout):
            self._opponent_passes(session)
            if session.over or _actor(session.state) != self.seat:
                return
            legal = [a for a in session.legal_actions(self.seat) if a["type"] != "concede"]
            if not legal:
                return
            values = one_ply(self.catalog, session, legal, self.seat)
            best = legal[values.index(max(values))]
            if best["type"] == "end_turn":
                return
            session.apply(best)

    @staticmethod
    def _rank(n: _Node | None) -> tuple[int, float]:
        """The most visited, then the best on average (every legal action is tried once before any twice)."""
        return (-1, 0.0) if n is None else (n.visits, n.value / n.visits)

    def _opponent_passes(self, session: Session) -> None:
        """The opponent's response windows on my actions close with a pass (the sample's counters unplayed)."""
        while not session.over and (pending := session.state["pending"]) is not None:
            responder = pending["responder"]
            if responder == self.seat:
                return
            session.apply({"type": "pass", "player": responder})

    def _finish_turn(self, session: Session) -> None:
        """End the turn from where the search stopped (end_turn, the discard owed, pass): every leaf is scored
        at the same point, the opponent's draw step included."""
        for _ in range(8):
            self._opponent_passes(session)
            if session.over or _actor(session.state) != self.seat:
                return
            legal = {a["type"]: a for a in session.legal_actions(self.seat)}
            for kind in ("end_turn", "discard", "skip_case", "pass", "keep"):
                if kind in legal:
                    session.apply(legal[kind])
                    break
            else:
                return

    def _ucb(self, n: _Node) -> float:
        return n.value / n.visits + self.exploration * math.sqrt(math.log(max(n.available, 1)) / n.visits)


BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "ismcts": ISMCTSBot}


@dataclass(frozen=True)
class Level:
    """A strength offered to people: a bot and its fixed work a move (the same move on every machine)."""

    bot: str
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def iterations(self) -> int | None:
        """The ISMCTS iterations a move (``/v1/suggest``'s ``iterations``), or None for a bot that does not search."""
        return self.options.get("iterations")


# The levels, weakest first: each measured against the one below (docs/bots.md, "Levels").
LEVELS: dict[str, Level] = {
    "beginner": Level("greedy"),
    "club": Level("ismcts", {"iterations": 64}),
    "expert": Level("ismcts", {"iterations": 256}),
}


def make_bot(name: str, catalog: Catalog | None = None, seed: str = "bot", **options: Any) -> Bot:
    """A bot by name (``random``, ``greedy``, ``ismcts``; ``ismcts:200`` for 200 iterations per decision) or by
    level (``beginner``, ``club``, ``expert``: :data:`LEVELS`)."""
    if name in LEVELS:
        level = LEVELS[name]
        return BOTS[level.bot](catalog, seed, **(level.options | options))
    base, _, budget = name.partition(":")
    if base not in BOTS:
        raise ValueError(f"unknown bot {name!r}: one of {', '.join([*BOTS, *LEVELS])}")
    if budget:
        if base != "ismcts" or not budget.isdecimal() or int(budget) < 1:
            raise ValueError(f"bot {name!r}: only ismcts takes a budget, ismcts:N with N >= 1 iterations")
        options["iterations"] = int(budget)
    return BOTS[base](catalog, seed, **options)
