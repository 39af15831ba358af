"""Hand-built positions and the given/when/then helpers of the rule scenario tests.

A :class:`Position` is a consistent game state (RULES 13.1) built by hand: both
players hold 40 cards of the reference catalog ``af-ref``, the game is in the
turn phase, main step, turn 1, player 0 active — unless told otherwise. A test
places the named catalog cards it needs and gets their instance ids back::

    p = Position()
    case = p.case(1, "AF-047", face_up=False)         # player 1's face-down case
    fairy = p.fairy(0, "AF-004", on=case)              # player 0's fairy dispatched to it
    payer = p.case(0, "AF-042")                        # an unactioned case to pay with
    state = p.build()

Every card not placed fills the file (a plain evidence, ``FILLER``), after the
cards put on top with :meth:`Position.file`. :meth:`Position.file_size` caps the
file; the rest of the filler then sits in the trash. ``build`` checks the result
with ``referee.engine.check_state`` and returns a plain JSON-able dict.

Instance ids are readable: ``a01``… for player 0, ``b01``… for player 1, in
the order the cards were placed, then the filler.

``Position(catalog=PLUS)`` builds on ``af-ref-plus``: af-ref with four
test-only counters for situations af-ref cannot produce (a bounce answering an
investigation; a negate for redispatch, recall and the draw action). The
helpers find a state's catalog by its digest.

The helpers at the bottom (:func:`act`, :func:`apply`, :func:`run`,
:func:`normal`, :func:`assert_illegal`) keep each test to its given, when and then.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from referee import engine
from referee.engine import Catalog, RuleViolation, check_state, model
from referee.engine.facts import RULESET, SCHEMA

State = dict[str, Any]
Action = dict[str, Any]

CAT = Catalog.builtin()


def _plus() -> Catalog:
    """af-ref plus four test-only counters for what af-ref leaves out: a bounce on ``investigate`` and a
    ``negate`` for each of ``redispatch``, ``recall`` and ``draw``. Its own catalog id and digest."""
    extra = [
        {
            "id": "T-01",
            "name": "神隠し",
            "kind": "counter",
            "cost": 1,
            "trigger": "investigate",
            "effect": [{"bounce": "fairy"}],
        },
        {
            "id": "T-02",
            "name": "回り道",
            "kind": "counter",
            "cost": 1,
            "trigger": "redispatch",
            "effect": [{"negate": True}],
        },
        {
            "id": "T-03",
            "name": "引き止め",
            "kind": "counter",
            "cost": 1,
            "trigger": "recall",
            "effect": [{"negate": True}],
        },
        {"id": "T-04", "name": "空振り", "kind": "counter", "cost": 1, "trigger": "draw", "effect": [{"negate": True}]},
    ]
    return Catalog.from_data({"id": "af-ref-plus", "cards": [dict(c) for c in CAT.canonical["cards"]] + extra})


PLUS = _plus()
_CATALOGS = {c.digest: c for c in (CAT, PLUS)}


def catalog_of(state: State) -> Catalog:
    """The catalog a (test) state was built with: af-ref, or PLUS."""
    return _CATALOGS[state["catalog"]["digest"]]


DECK = 40
FILLER = "AF-022"  # 虫眼鏡, a plain evidence without abilities: never opens a window, never acts


class Position:
    """A builder for one hand-made, consistent state."""

    def __init__(
        self,
        *,
        active: int = 0,
        step: str = "main",
        turn: int | None = None,
        first_player: int = 0,
        windows: str = "auto",
        phase: str = "turn",
        case_played: bool | None = None,
        catalog: Catalog = CAT,
    ):
        self.catalog = catalog
        self.phase = phase
        self.step = "mulligan" if phase == "mulligan" else step
        self.active = active
        self.first_player = first_player
        if turn is None:
            turn = 0 if phase == "mulligan" else (1 if active == first_player else 2)
        self.turn = turn
        self.windows = windows
        # Default: no case declared this turn (in the main step: the case step was skipped).
        self.case_played = False if case_played is None else case_played
        self.result: dict[str, Any] | None = None
        self.pending_: dict[str, Any] | None = None
        self.modifiers: list[dict[str, Any]] = []
        self.used_: list[dict[str, Any]] = []
        self.kept_ = [phase != "mulligan"] * 2
        self.cards: dict[str, str] = {}
        self.zones = [{"file": [], "hand": [], "trash": [], "cases": [], "fairies": [], "evidence": []} for _ in (0, 1)]
        self.file_sizes: list[int | None] = [None, None]
        self._count = [0, 0]

    # -- placing cards ---------------------------------------------------------

    def _new(self, player: int, cid: str) -> str:
        if cid not in self.catalog:
            raise ValueError(f"{cid} is not in catalog {self.catalog.id}")
        self._count[player] += 1
        if self._count[player] > DECK:
            raise ValueError(f"player {player} has only {DECK} cards")
        iid = f"{'ab'[player]}{self._count[player]:02d}"
        self.cards[iid] = cid
        return iid

    def _many(self, player: int, zone: str, cids: tuple[str, ...]) -> Any:
        ids = [self._new(player, cid) for cid in cids]
        self.zones[player][zone].extend(ids)
        return ids[0] if len(ids) == 1 else ids

    def hand(self, player: int, *cids: str) -> Any:
        """Cards in ``player``'s hand (one id, or a list for several)."""
        return self._many(player, "hand", cids)

    def trash(self, player: int, *cids: str) -> Any:
        """Cards in ``player``'s trash, oldest first."""
        return self._many(player, "trash", cids)

    def file(self, player: int, *cids: str) -> Any:
        """Cards on top of ``player``'s file, top first (the filler comes under them)."""
        return self._many(player, "file", cids)

    def file_size(self, player: int, size: int) -> Position:
        """Leave exactly ``size`` cards in the file; the rest of the filler goes to the trash."""
        self.file_sizes[player] = size
        return self

    def case(self, player: int, cid: str, *, face_up: bool = False, actioned: bool = False) -> str:
        """A case ``player`` controls, in play (cases are listed in the order played)."""
        iid = self._new(player, cid)
        self.zones[player]["cases"].append({"card": iid, "face_up": face_up, "actioned": actioned})
        return iid

    def fairy(self, player: int, cid: str, *, on: str | None = None) -> str:
        """A fairy of ``player``: standby, or dispatched ``on`` a case in play."""
        iid = self._new(player, cid)
        self.zones[player]["fairies"].append({"card": iid, "case": on})
        return iid

    def evidence(self, player: int, cid: str, *, on: str) -> str:
        """An evidence of ``player`` attached to the case ``on``."""
        iid = self._new(player, cid)
        self.zones[player]["evidence"].append({"card": iid, "case": on})
        return iid

    # -- the rest of the state ---------------------------------------------------

    def pending(
        self, action: Action, *, negated: bool = False, power: int = 0, counters: list[str] | None = None
    ) -> Position:
        """An open response window on ``action`` (declared by the active player)."""
        self.pending_ = {
            "action": action,
            "responder": 1 - self.active,
            "negated": negated,
            "power": power,
            "counters": list(counters or []),
        }
        return self

    def modifier(self, card: str, power: int) -> Position:
        """An until-end-of-turn power change."""
        self.modifiers.append({"card": card, "power": power})
        return self

    def used(self, card: str, ability: int = 0) -> Position:
        """A once-per-turn ability already used this turn."""
        self.used_.append({"card": card, "ability": ability})
        return self

    def kept(self, player: int) -> Position:
        """In the mulligan phase: ``player`` has kept."""
        self.kept_[player] = True
        return self

    def over(self, winner: int, reason: str = "concede") -> Position:
        self.phase = "over"
        self.result = {"winner": winner, "reason": reason}
        return self

    def build(self) -> State:
        """The state as a plain dict; it passes ``check_state`` (RULES 13.1) or this raises."""
        cards = dict(self.cards)
        players = []
        for i in (0, 1):
            z = copy.deepcopy(self.zones[i])
            filler = [f"{'ab'[i]}{n:02d}" for n in range(self._count[i] + 1, DECK + 1)]
            cards.update((iid, FILLER) for iid in filler)
            size = self.file_sizes[i]
            if size is None:
                z["file"] += filler
            else:
                room = size - len(z["file"])
                if room < 0 or room > len(filler):
                    raise ValueError(f"player {i}: cannot leave {size} cards in the file")
                z["trash"] = filler[room:] + z["trash"]
                z["file"] += filler[:room]
            players.append(model.build(model.PlayerState, name=f"Player {i + 1}", **z, kept=self.kept_[i]))
        state = model.build(
            model.State,
            schema=SCHEMA,
            ruleset=RULESET,
            catalog=self.catalog.ref,
            options={"response_windows": self.windows},
            seed="rules-tests",
            rng=0,
            turn=self.turn,
            phase=self.phase,
            step=self.step,
            active=self.active,
            first_player=self.first_player,
            case_played=self.case_played,
            pending=copy.deepcopy(self.pending_),
            result=copy.deepcopy(self.result),
            cards=dict(sorted(cards.items())),
            players=players,
            modifiers=copy.deepcopy(self.modifiers),
            used=copy.deepcopy(self.used_),
        )
        check_state(self.catalog, state)  # RULES 13.1: a hand-built position must be consistent
        return state


# -- given / when / then helpers ----------------------------------------------------


def act(kind: str, player: int, **fields: Any) -> Action:
    """An action of docs/api.md §6: ``act("dispatch", 0, fairy=f, case=c)``."""
    return {"type": kind, "player": player, **fields}


def apply(state: State, action: Action) -> tuple[State, list[dict[str, Any]]]:
    """Apply one action; the input state must come back untouched."""
    before = copy.deepcopy(state)
    after, events = engine.apply(catalog_of(state), state, action)
    assert state == before, "apply mutated its input"
    return after, events


def run(state: State, *actions: Action) -> tuple[State, list[dict[str, Any]]]:
    """Apply several legal actions in order; the final state and every event."""
    events: list[dict[str, Any]] = []
    for a in actions:
        state, evs = apply(state, a)
        events += evs
    return state, events


def normal(state: State, applied: int = 0) -> State:
    """The state with every optional field filled in: the starting point of an expected state.

    ``applied``: how many actions the expected state is after (``seq`` counts them, docs/api.md §3).
    """
    out = check_state(catalog_of(state), state)
    out["seq"] += applied
    return out


def legal(state: State, player: int | None = None) -> list[Action]:
    return engine.legal_actions(catalog_of(state), state, player)


# (rule id, code) of every violation a test has asserted, for the meta-test's probe
# (test_every_rule_is_tested.py): a code no passing test asserts is untested.
EXERCISED: set[tuple[str, str]] = set()
FAILED: list[str] = []  # rules tests that failed in this session (tests/rules/conftest.py)


def assert_violation(v: RuleViolation, rule: str, code: str) -> RuleViolation:
    """``v`` cites ``rule`` with ``code``; recorded as exercised."""
    assert (v.rule, v.code) == (rule, code), f"got RULES {v.rule} {v.code}: {v.detail()}"
    EXERCISED.add((rule, code))
    return v


def assert_illegal(state: State, action: Action, rule: str, code: str) -> RuleViolation:
    """The action is refused citing ``rule`` and ``code``, and nothing changed (RULES 13.3).

    Checks ``apply`` raises, the input state is unchanged, ``validate`` reports
    the same violation, and ``legal_actions`` does not list the action.
    """
    before = copy.deepcopy(state)
    catalog = catalog_of(state)
    with pytest.raises(RuleViolation) as caught:
        engine.apply(catalog, state, action)
    v = caught.value
    assert (v.rule, v.code) == (rule, code), f"got RULES {v.rule} {v.code}: {v.detail()}"
    assert state == before, "an illegal action changed the state"
    again = engine.validate(catalog, state, action)
    assert again is not None and (again.rule, again.code) == (rule, code)
    assert state == before
    if "pay" not in action:
        assert action not in legal(state), "legal_actions lists an illegal action"
    return assert_violation(v, rule, code)


def assert_legal(state: State, action: Action) -> None:
    assert engine.validate(catalog_of(state), state, action) is None
    if "pay" not in action and action["type"] != "discard":
        assert action in legal(state), "legal_actions misses a legal action"


def events_of(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


# -- decks for seeded games ------------------------------------------------------------


def legal_deck() -> list[str]:
    """A legal 40-card deck in a known order (``shuffle: false`` keeps it: the first card is the top).

    Top 7 (the opening hand): three cases, two fairies, an evidence, a spell.
    """
    top = ["AF-042", "AF-043", "AF-044", "AF-004", "AF-005", "AF-023", "AF-060"]
    rest = (
        ["AF-042", "AF-043", "AF-044"] * 2
        + ["AF-045", "AF-046", "AF-047"] * 3
        + ["AF-004", "AF-005"] * 2
        + ["AF-002", "AF-003"] * 3
        + ["AF-009"]
        + ["AF-023"] * 2
        + ["AF-022"] * 3
        + ["AF-060"] * 2
    )
    deck = top + rest
    assert len(deck) == DECK
    return deck


def new_game(**request: Any) -> tuple[State, list[dict[str, Any]]]:
    """A seeded game of two :func:`legal_deck` decks, unshuffled, player 0 first, unless told otherwise."""
    game = {"decks": [legal_deck(), legal_deck()], "seed": "rules", "first_player": 0, "shuffle": False}
    game.update(request)
    if game.get("first_player", 0) is None:
        del game["first_player"]
    return engine.new_game(CAT, game)


def started_game(**request: Any) -> State:
    """:func:`new_game`, both players keep: turn 1, the first player's case step."""
    state, _ = new_game(**request)
    first = state["first_player"]
    state, _ = run(state, act("keep", first), act("keep", 1 - first))
    return state
