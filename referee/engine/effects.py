"""RULES 9.1, 9.2, 9.6, 9.7 and docs/api.md §8's effect entries: targets and their effects.

A card's effects apply in the order it lists them (9.7). Each effect that
takes a target uses the next id of the action's ``targets``; targets must be
legal when declared and are skipped when no longer legal on application (9.6).
What each kind of effect targets and does is declared in ``effect_types.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from typing import Any

from referee.engine.actions import Action, MainStepRule, require_in_hand, simple
from referee.engine.board import Board
from referee.engine.effect_types import EFFECTS, Effect, Resolution
from referee.engine.errors import RuleViolation
from referee.engine.registry import rule
from referee.engine.state_types import PendingDict


def target_ok(g: Board, player: int, effect: Effect, iid: str) -> bool:
    """Whether ``iid`` is a legal target of ``effect`` for ``player`` now (effect_types.py decides)."""
    return EFFECTS[effect.op].target_ok(g, player, effect, iid)


def target_options(g: Board, player: int, effect: Effect) -> list[str]:
    """Every legal target of one effect, in a stable order."""
    kind = EFFECTS[effect.op]
    seen: list[str] = []
    for iid in kind.pool(g, player, effect):
        if iid not in seen and kind.target_ok(g, player, effect, iid):
            seen.append(iid)
    return seen


@rule("9.6", "wrong_target_count", "illegal_target")
def check_targets(g: Board, player: int, card: str, effects: tuple[Effect, ...], targets: list[str]) -> None:
    """RULES 9.6: one legal target per targeted effect, on declaration."""
    targeted = [e for e in effects if e.targeted]
    if len(targets) != len(targeted):
        raise RuleViolation("wrong_target_count", card=card, count=len(targeted), given=len(targets))
    for effect, iid in zip(targeted, targets):
        if not target_ok(g, player, effect, iid):
            raise RuleViolation("illegal_target", target=iid, effect=effect.op, card=card)


def target_choices(
    g: Board, player: int, effects: tuple[Effect, ...], known: dict[Effect, list[str]] | None = None
) -> Iterator[list[str]]:
    """Every combination of legal targets (for ``legal_actions``); ``known`` keeps each effect's
    options for the next card of the same listing (the board does not change in between)."""
    if known is None:
        known = {}
    options = []
    for e in effects:
        if e.targeted:
            if e not in known:
                known[e] = target_options(g, player, e)
            options.append(known[e])
    for combo in product(*options):
        yield list(combo)


def affordable_with_targets(
    g: Board, rule_type: str, player: int, cards: list[tuple[str, tuple[Effect, ...], int, dict[str, Any]]], free: int
) -> list[Action]:
    """The legal actions of a targeted play: each (card, effects, cost, fields) that ``free`` cases pay
    for, with every combination of legal targets (RULES 9.6; ``check_targets`` passes by construction)."""
    known: dict[Effect, list[str]] = {}
    return [
        simple(rule_type, player, card=iid, **fields, targets=targets)
        for iid, effects, cost, fields in cards
        if cost <= free
        for targets in target_choices(g, player, effects, known)
    ]


@rule("9.7")
def apply_effects(
    g: Board,
    player: int,
    source: str,
    effects: tuple[Effect, ...],
    targets: list[str],
    pending: PendingDict | None = None,
) -> None:
    """RULES 9.7: apply in order; a required draw from an empty file ends the game (11.1)."""
    queue = iter(targets)
    resolution = Resolution(g, player, source, pending)
    for effect in effects:
        if g.over:
            return
        kind = EFFECTS[effect.op]
        target = next(queue, None) if effect.targeted else None
        if effect.targeted and (target is None or not kind.target_ok(g, player, effect, target)):
            g.emit("skipped", effect=effect.op, target=target)  # RULES 9.6
            continue
        kind.apply(resolution, effect, target)


class UseAbility(MainStepRule):
    """RULES 9.1: an ability of one's own fairy or evidence on the field; its cost; once per turn."""

    type = "use_ability"

    @rule("9.1", "no_such_ability", "ability_used")
    def check(self, g: Board, a: Action) -> None:
        player, iid = a["player"], a["card"]
        if g.own_entry(player, "fairies", iid) is None and g.own_entry(player, "evidence", iid) is None:
            raise RuleViolation("card_not_available", player=player, card=iid, where="on the field")
        abilities = g.card(iid).abilities
        if a["ability"] >= len(abilities):
            raise RuleViolation("no_such_ability", card=iid, ability=a["ability"])
        ability = abilities[a["ability"]]
        check_targets(g, player, iid, ability.effect, a["targets"])
        if ability.once_per_turn and {"card": iid, "ability": a["ability"]} in g.s["used"]:
            raise RuleViolation("ability_used", card=iid, ability=a["ability"])

    def cost(self, g: Board, a: Action) -> int:
        return g.card(a["card"]).abilities[a["ability"]].cost

    def declare(self, g: Board, a: Action) -> None:
        if g.card(a["card"]).abilities[a["ability"]].once_per_turn:
            g.s["used"].append({"card": a["card"], "ability": a["ability"]})

    def resolve(self, g: Board, a: Action, pending: PendingDict | None) -> None:
        g.emit("ability", player=a["player"], card=a["card"], ability=a["ability"])
        effects = g.card(a["card"]).abilities[a["ability"]].effect
        apply_effects(g, a["player"], a["card"], effects, a["targets"])

    def legal(self, g: Board, player: int, free: int) -> list[Action]:
        # The candidates name an own fairy or evidence, one of its abilities and legal targets: left to
        # test are once per turn (RULES 9.1) and the cost, before the targets are enumerated.
        pl, used = g.player(player), g.s["used"]
        usable: list[tuple[str, tuple[Effect, ...], int, dict[str, Any]]] = [
            (iid, ability.effect, ability.cost, {"ability": index})
            for iid in [e["card"] for e in (*pl["fairies"], *pl["evidence"])]
            for index, ability in enumerate(g.card(iid).abilities)
            if not (ability.once_per_turn and {"card": iid, "ability": index} in used)
        ]
        return affordable_with_targets(g, self.type, player, usable, free)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        pl = g.player(player)
        for entry in [*pl["fairies"], *pl["evidence"]]:
            for index, ability in enumerate(g.card(entry["card"]).abilities):
                for targets in target_choices(g, player, ability.effect):
                    yield simple(self.type, player, card=entry["card"], ability=index, targets=targets)


class CastSpell(MainStepRule):
    """RULES 9.2: a spell from hand in its owner's main step; then it goes to the trash."""

    type = "cast_spell"

    @rule("9.2", "not_a_spell")
    def check(self, g: Board, a: Action) -> None:
        require_in_hand(g, a["player"], a["card"])
        card = g.card(a["card"])
        if card.kind != "spell":
            raise RuleViolation("not_a_spell", card=a["card"])
        check_targets(g, a["player"], a["card"], card.effect, a["targets"])

    def cost(self, g: Board, a: Action) -> int:
        return g.card(a["card"]).cost

    def resolve(self, g: Board, a: Action, pending: PendingDict | None) -> None:
        player = a["player"]
        g.player(player)["hand"].remove(a["card"])
        g.emit("spell", player=player, card=a["card"])
        apply_effects(g, player, a["card"], g.card(a["card"]).effect, a["targets"])
        g.to_trash(player, a["card"])

    def negated(self, g: Board, a: Action) -> None:  # RULES 9.5
        g.hand_to_trash(a["player"], a["card"])

    def legal(self, g: Board, player: int, free: int) -> list[Action]:
        # The candidates are spells in hand with legal targets: only the cost is left to test.
        spells: list[tuple[str, tuple[Effect, ...], int, dict[str, Any]]] = [
            (iid, card.effect, card.cost, {}) for iid in g.hand_of_kind(player, "spell") for card in (g.card(iid),)
        ]
        return affordable_with_targets(g, self.type, player, spells, free)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        for iid in g.hand_of_kind(player, "spell"):
            for targets in target_choices(g, player, g.card(iid).effect):
                yield simple(self.type, player, card=iid, targets=targets)
