"""The pipeline every action goes through (:func:`check`, then :func:`step`), and the listing of legal actions.

It reads the rules from the rulebook (``rulebook.py``); the session (``session.py``) runs it.

The checks run in the order of RULES 13.3, so the violation reported is the
first rule broken: game over (11.3); who may act (12.1, 12.2); the phase,
step or window; the cards and targets named (12.3, 9.6); the action's own
rule; last, the cost (7.2, 7.3). Nothing is changed before every check passed.
"""

from __future__ import annotations

from referee.engine.actions import Action, ActionRule
from referee.engine.board import Board
from referee.engine.clocks import charge, out_of_time
from referee.engine.costs import pay, payers
from referee.engine.errors import RuleViolation
from referee.engine.facts import HAND_LIMIT, RNG_MAX, Phase, Step
from referee.engine.model import ACTION_TYPES
from referee.engine.registry import rule
from referee.engine.responses import open_or_resolve
from referee.engine.rulebook import RULEBOOK

# The enum members this module compares with, bound once: reading one through its class is an
# attribute lookup of the enum's metaclass on every read.
_MULLIGAN_PHASE = Phase.MULLIGAN
_OVER = Phase.OVER
_TURN = Phase.TURN
_END = Step.END

# -- the checks ------------------------------------------------------------------


# Open at any moment to either player (RULES 11.2, 12.1): no turn, phase or window gate applies to them.
_ANY_MOMENT = frozenset(("concede", "claim_time"))


@rule("12.1", "responder_acts")
@rule("12.2", "not_your_turn")
def _who_may_act(g: Board, a: Action) -> None:
    """RULES 12.1/12.2 (concede is open to both, 11.2; a time claim is its rule's own check, 11.5)."""
    if a["type"] in _ANY_MOMENT:
        return
    s = g.s
    if s["pending"] is not None and a["player"] != s["pending"]["responder"]:
        raise RuleViolation("responder_acts", actor=s["pending"]["responder"])
    if a["player"] != g.who_acts():
        raise RuleViolation("not_your_turn", player=a["player"], actor=g.who_acts())


@rule("5.4", "mulligan_phase")
@rule("6.6", "end_step")
def _phase_gate(g: Board, a: Action) -> None:
    """The phase-wide gates: the mulligan phase (5.4) and the end step's discard (6.6)."""
    kind, s = a["type"], g.s
    if kind in _ANY_MOMENT:
        return
    if s["phase"] == _MULLIGAN_PHASE and kind not in ("mulligan", "keep"):
        raise RuleViolation("mulligan_phase")
    if s["step"] == _END and s["phase"] == _TURN and kind != "discard":
        excess = len(g.player(s["active"])["hand"]) - HAND_LIMIT
        raise RuleViolation("end_step", player=s["active"], count=excess)


@rule("11.5", "time_out")
def _in_time(g: Board, a: Action) -> None:
    """RULES 11.5: a player whose time has run out may take no action but concede (a claim is the opponent's)."""
    if a["type"] not in _ANY_MOMENT and out_of_time(g.s, a["player"], g.now):
        raise RuleViolation("time_out", player=a["player"])


def _open_now(g: Board, rule: ActionRule, probe: Action) -> bool:
    """Whether actions of ``probe``'s type are open to its player now (the checks before ``check``).

    They depend on the type and the player only, so ``legal_actions`` runs them once per type.
    """
    try:
        _who_may_act(g, probe)
        _phase_gate(g, probe)
        rule.allowed(g, probe)
    except RuleViolation:
        return False
    return True


@rule("13.3")
@rule("11.3", "game_over")
def check(g: Board, a: Action) -> list[str]:
    """Every check of RULES 13.3, in order; returns the cases that will pay."""
    return _checked(g, a)[1]


def _checked(g: Board, a: Action) -> tuple[ActionRule, list[str]]:
    """:func:`check`, giving the action's rule too (so that :func:`step` looks it up once)."""
    if g.s["phase"] == _OVER:  # RULES 11.3
        raise RuleViolation("game_over")
    _who_may_act(g, a)
    if g.s["clock"] is not None:
        _in_time(g, a)
    _phase_gate(g, a)
    rule = RULEBOOK[a["type"]]
    rule.allowed(g, a)
    rule.check(g, a)
    return rule, payers(g, a["player"], rule.cost(g, a), a.get("pay"))  # RULES 7.2: the actor's cases pay


def step(g: Board, a: Action) -> None:
    """Check then perform one parsed action on a checked state, in place: pay (RULES 7.1), declare,
    then the response window of RULES 9.4 (``responses.open_or_resolve``).

    In a game with a clock the player who might act pays the time since the last move (RULES 11.5,
    ``clocks.charge``), at the board's ``now``.

    ``seq`` counts the actions applied since the deal (docs/api.md §3), so a player
    sees a rollback as ``seq`` going back. It stops at its bound (``RNG_MAX``, 2**53 - 1,
    far past any real game) so an answer never leaves the range its input must keep.
    """
    rule, paying = _checked(g, a)
    s = g.s
    charged = g.who_acts()  # RULES 11.5: whose time ran until this move
    if rule.respondable or paying:
        a = {**a, "pay": paying}
        pay(g, a["player"], paying)
    rule.declare(g, a)
    open_or_resolve(g, rule, a)
    if s["clock"] is not None:
        charge(s, charged, a["player"], g.now)
    if s["seq"] < RNG_MAX:
        s["seq"] += 1


# -- queries legal_actions and the random player share ---------------------------------

_OPEN_CACHE: dict[tuple[str, str, bool], tuple[ActionRule, ...]] = {}


def open_rules(g: Board, actor: int) -> tuple[ActionRule, ...]:
    """The rules of the action types (concede and a time claim aside) open to ``actor`` now, in API order.

    ``actor`` is whoever may act; then the answer depends only on the phase,
    the step and whether a window is open, so it is computed once per situation.
    """
    s = g.s
    key = (s["phase"], s["step"], s["pending"] is None)
    rules = _OPEN_CACHE.get(key)
    if rules is None:
        rules = _OPEN_CACHE[key] = open_rules_now(g, actor)
    return rules


def open_rules_now(g: Board, actor: int) -> tuple[ActionRule, ...]:
    """:func:`open_rules` asked of every rule now, without the cache."""
    return tuple(
        RULEBOOK[kind]
        for kind in ACTION_TYPES
        if kind not in _ANY_MOMENT and _open_now(g, RULEBOOK[kind], {"type": kind, "player": actor})
    )


def actions_for(g: Board, player: int | None = None) -> list[Action]:
    if g.over:
        return []
    actor = g.who_acts()
    late = g.s["clock"] is not None and out_of_time(g.s, actor, g.now)  # RULES 11.5: only concede, or the claim
    out: list[Action] = []
    if (player is None or player == actor) and not late:
        free = len(g.unactioned_cases(actor))
        for rule in open_rules(g, actor):
            out.extend(rule.legal(g, actor, free))
    for p in (0, 1) if player is None else (player,):
        if late and p != actor:
            out.append({"type": "claim_time", "player": p})
        out.append({"type": "concede", "player": p})
    return out
