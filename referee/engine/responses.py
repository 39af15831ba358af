"""RULES 9.3–9.5: response windows, counters, passing, and resolving the pending action."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from referee.engine.actions import Action, ActionRule, require_in_hand, simple
from referee.engine.board import Board
from referee.engine.effect_types import Effect
from referee.engine.effects import affordable_with_targets, apply_effects, check_targets, target_choices, target_options
from referee.engine.errors import RuleViolation
from referee.engine.facts import WindowMode, other
from referee.engine.registry import rule

# The enum members this module compares with, bound once: reading one through its class is an
# attribute lookup of the enum's metaclass on every read.
_STRICT_WINDOWS = WindowMode.STRICT


def counter_playable(g: Board, player: int, iid: str, trigger: str) -> bool:
    """A counter ``player`` could play now: trigger, cost and a target for each effect (9.4 auto)."""
    card = g.card(iid)
    if card.kind != "counter" or card.trigger != trigger:
        return False
    if len(g.unactioned_cases(player)) < card.cost:
        return False
    return all(target_options(g, player, e) for e in card.effect if e.targeted)


def window_opens(g: Board, a: Action) -> bool:
    """RULES 9.4: whether declaring ``a`` opens a response window, by the game's option."""
    responder = other(a["player"])
    if not g.catalog.counters_by_trigger[a["type"]]:
        return False
    if g.s["options"]["response_windows"] == _STRICT_WINDOWS:
        return bool(g.unactioned_cases(responder))
    answering, cards, hand = g.catalog.counter_ids_by_trigger[a["type"]], g.s["cards"], g.player(responder)["hand"]
    return any(counter_playable(g, responder, iid, a["type"]) for iid in hand if cards[iid] in answering)


@rule("9.4")
def open_or_resolve(g: Board, rule: ActionRule, a: Action) -> None:
    """RULES 9.4: after a respondable action is declared and paid, a response window opens
    (or, when none would be useful in auto mode, the action resolves at once)."""
    if not rule.respondable or g.over:
        return
    if window_opens(g, a):
        g.s["pending"] = {"action": a, "responder": other(a["player"]), "negated": False, "power": 0, "counters": []}
        g.emit("window_opened", responder=other(a["player"]), action=a["type"])
    else:
        rule.resolve(g, a, None)


class Counter(ActionRule):
    """RULES 9.3: a counter from hand, in a window whose pending action has its trigger."""

    type = "counter"

    @rule("9.3", "no_window")
    def allowed(self, g: Board, a: Action) -> None:
        pen = g.s["pending"]
        if pen is None or pen["responder"] != a["player"]:
            raise RuleViolation("no_window")

    @rule("9.3", "not_a_counter", "wrong_trigger")
    def check(self, g: Board, a: Action) -> None:
        require_in_hand(g, a["player"], a["card"])
        card = g.card(a["card"])
        if card.kind != "counter":
            raise RuleViolation("not_a_counter", card=a["card"])
        pen = g.s["pending"]
        assert pen is not None  # allowed(): a window is open
        pending_type = pen["action"]["type"]
        if card.trigger != pending_type:
            raise RuleViolation("wrong_trigger", card=a["card"], trigger=card.trigger, pending=pending_type)
        check_targets(g, a["player"], a["card"], card.effect, a["targets"])

    def cost(self, g: Board, a: Action) -> int:
        return g.card(a["card"]).cost

    def declare(self, g: Board, a: Action) -> None:
        player, pen = a["player"], g.s["pending"]
        assert pen is not None  # allowed(): a window is open
        g.player(player)["hand"].remove(a["card"])
        pen["counters"].append(a["card"])
        g.emit("counter", player=player, card=a["card"])
        apply_effects(g, player, a["card"], g.card(a["card"]).effect, a["targets"], pen)
        g.to_trash(player, a["card"])

    def legal(self, g: Board, player: int, free: int) -> list[Action]:
        # The candidates are counters in hand with legal targets: left to test are the trigger and the cost.
        pen = g.s["pending"]
        assert pen is not None  # the type is open: a window is
        trigger = pen["action"]["type"]
        answering: list[tuple[str, tuple[Effect, ...], int, dict[str, Any]]] = [
            (iid, card.effect, card.cost, {})
            for iid in g.hand_of_kind(player, "counter")
            for card in (g.card(iid),)
            if card.trigger == trigger
        ]
        return affordable_with_targets(g, self.type, player, answering, free)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        for iid in g.hand_of_kind(player, "counter"):
            for targets in target_choices(g, player, g.card(iid).effect):
                yield simple(self.type, player, card=iid, targets=targets)


class Pass(ActionRule):
    """RULES 9.4: the responder passes; the pending action resolves unless negated (9.5)."""

    type = "pass"

    def __init__(self, rule_of: Callable[[str], ActionRule]):
        """``rule_of`` finds the pending action's rule (the rulebook, which lists this rule too)."""
        super().__init__()
        self.rule_of = rule_of

    @rule("9.4", "no_window_to_pass")
    def allowed(self, g: Board, a: Action) -> None:
        if g.s["pending"] is None:
            raise RuleViolation("no_window_to_pass")

    @rule("9.5")
    def declare(self, g: Board, a: Action) -> None:
        pen = g.s["pending"]
        assert pen is not None  # allowed(): a window is open
        g.s["pending"] = None
        g.emit("window_closed", negated=pen["negated"])
        rule = self.rule_of(pen["action"]["type"])
        if pen["negated"]:
            rule.negated(g, pen["action"])
        else:
            rule.resolve(g, pen["action"], pen)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        yield simple(self.type, player)
