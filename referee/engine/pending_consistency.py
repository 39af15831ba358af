"""RULES 13.1 for an open response window: its pending action could have been declared, paid and
countered as the state says (RULES 7, 9.3–9.5, 10.2).

Run by ``consistency.check_consistency`` only while a window is open; each check
raises :class:`InconsistentState` with a specific ``code`` (docs/state.md lists them).
"""

from __future__ import annotations

from typing import Any, Literal

from referee.engine.board import Board
from referee.engine.catalog import Ability, Catalog
from referee.engine.effect_types import Effect
from referee.engine.errors import InconsistentState as _fail  # (code, detail, path): what each check raises
from referee.engine.facts import Phase, Step, other
from referee.engine.rulebook import RULEBOOK
from referee.engine.state_types import ActionDict, PendingDict, StateDict

# The enum members this module compares with, bound once: reading one through its class is an
# attribute lookup of the enum's metaclass on every read.
_TURN = Phase.TURN
_CASE = Step.CASE
_MAIN = Step.MAIN


def check_pending(catalog: Catalog, s: StateDict) -> None:
    """RULES 7, 9.3–9.5, 10.2: the open window's pending action could have been declared, paid and
    countered as the state says (called only while a window is open)."""
    pen = s["pending"]
    assert pen is not None  # called only while a window is open
    act = pen["action"]
    if "pay" not in act:  # docs/api.md §3: the cost is paid on declaration, so the referee always fills it in
        raise _fail(
            "pending_pay_missing",
            "pending.action.pay is missing: a pending action's cost is already paid, so pay names the cases "
            "that paid ([] for a free one; docs/api.md §3)",
            "pending.action.pay",
        )
    active = s["active"]
    if s["phase"] != _TURN or not RULEBOOK[act["type"]].respondable:
        raise _fail("inconsistent_pending", "only a respondable action of a turn can be pending", "pending.action")
    if act["player"] != active or pen["responder"] != other(active):
        raise _fail("inconsistent_pending", "the active player declares; the opponent responds", "pending")
    want_step = _CASE if act["type"] == "play_case" else _MAIN
    if s["step"] != want_step:
        raise _fail("inconsistent_pending", f"a pending {act['type']} belongs to the {want_step} step", "step")
    if act["type"] == "play_case" and not s["case_played"]:
        raise _fail("inconsistent_pending", "a pending play_case sets case_played", "case_played")
    cards = s["cards"]
    for name in ("card", "case", "fairy"):
        if name in act and act[name] not in cards:
            raise _fail(
                "dangling_reference", f"the pending action names unknown card {act[name]}", f"pending.action.{name}"
            )
    for iid in [*act.get("targets", []), *act.get("pay", []), *pen["counters"]]:
        if iid not in cards:
            raise _fail("dangling_reference", f"the pending action names unknown card {iid}", "pending")
    if act["type"] in _PLAYED_KIND:
        if act["card"] not in s["players"][active]["hand"]:
            raise _fail(
                "inconsistent_pending",
                f"the card being played ({act['card']}) stays in hand until it resolves",
                "pending.action.card",
            )
        kind = _PLAYED_KIND[act["type"]]
        if catalog[cards[act["card"]]].kind != kind:  # it could never have been declared (6.4, 8.3, 8.4, 9.2)
            raise _fail(
                "inconsistent_pending",
                f"a pending {act['type']} names {act['card']}, which is not a {kind} card",
                "pending.action.card",
            )
    if act["type"] == "use_ability" and act["ability"] >= len(catalog[cards[act["card"]]].abilities):
        raise _fail(
            "inconsistent_pending",
            f"card {act['card']} has no ability {act['ability']} (RULES 9.1)",
            "pending.action.ability",
        )
    if not catalog.counters_by_trigger[act["type"]]:  # RULES 9.4: both modes need a counter that could answer
        raise _fail(
            "no_counter_for_trigger",
            f"no counter of the catalog answers {act['type']}, so declaring it opens no window (RULES 9.4)",
            "pending.action.type",
        )
    _check_pending_names(catalog, s, act)
    _check_counters(catalog, s, pen)
    _check_payment(catalog, s, act)


def _check_pending_names(catalog: Catalog, s: StateDict, act: ActionDict) -> None:
    """What the declaration named was legal then and, where no counter can change it, still is."""
    kind, cards, players = act["type"], s["cards"], s["players"]
    if "case" in act:  # no effect takes a case off the field inside a window (8.4–8.6, 10.1)
        entry = next((e for pl in players for e in pl["cases"] if e["card"] == act["case"]), None)
        if entry is None:
            raise _fail(
                "dangling_reference",
                f"the pending {kind} names {act['case']}, which is not a case in play",
                "pending.action.case",
            )
        if kind == "investigate" and not entry["face_up"]:  # RULES 10.2: it turned face up on declaration
            raise _fail(
                "investigated_case_face_down",
                f"case {act['case']} is being investigated, so it is face up (RULES 10.2)",
                "pending.action.case",
            )
    own = _NAMED_OWN.get(kind)
    if own is not None:  # a counter may have bounced or trashed it since, but it stays its owner's
        field_name, kinds = own
        iid = act[field_name]
        pl = players[act["player"]]
        held = (
            iid in pl["hand"]
            or iid in pl["trash"]
            or any(e["card"] == iid for zone in ("fairies", "evidence") for e in pl[zone])
        )
        if catalog[cards[iid]].kind not in kinds or not held:
            raise _fail(
                "inconsistent_pending",
                f"a pending {kind} names {iid}, which is not a {' or '.join(kinds)} of player {act['player']}",
                f"pending.action.{field_name}",
            )
    effects = _declared_effects(catalog, cards, act)
    if effects is not None and len(act["targets"]) != sum(1 for e in effects if e.targeted):  # RULES 9.6
        raise _fail(
            "inconsistent_pending",
            f"a pending {kind} names one target per effect that takes one (RULES 9.6)",
            "pending.action.targets",
        )
    if effects is not None:
        _check_no_target_readied_by_its_own_payment(effects, act)
    if (
        kind == "use_ability"
        and catalog[cards[act["card"]]].abilities[act["ability"]].once_per_turn
        and {"card": act["card"], "ability": act["ability"]} not in s["used"]
    ):
        raise _fail(
            "ability_use_not_recorded",
            f"the pending once-per-turn ability {act['ability']} of {act['card']} counts as used when "
            "declared, but used does not list it (RULES 9.1)",
            "used",
        )


def _check_no_target_readied_by_its_own_payment(effects: tuple[Effect, ...], act: ActionDict) -> None:
    """RULES 9.6: targets are judged on the state before the cost is paid. A case that paid was unactioned
    then, so it was no target of ``ready`` (an own actioned case): such a window was never opened."""
    paid = set(act.get("pay", []))
    targeted = [e for e in effects if e.targeted]
    for j, (effect, target) in enumerate(zip(targeted, act["targets"])):
        if effect.op == "ready" and target in paid:
            raise _fail(
                "inconsistent_pending",
                f"the pending {act['type']} readies {target}, which paid for it: a case actioned only by "
                "paying for this action is no target (RULES 9.6)",
                f"pending.action.targets.{j}",
            )


# The fairy or evidence a pending action names besides a played card: (field, the kinds it may be).
_NAMED_OWN: dict[str, tuple[Literal["fairy", "card"], tuple[str, ...]]] = {
    "dispatch": ("fairy", ("fairy",)),
    "redispatch": ("fairy", ("fairy",)),
    "recall": ("fairy", ("fairy",)),
    "use_ability": ("card", ("fairy", "evidence")),
}


def _declared_effects(catalog: Catalog, cards: dict[str, Any], act: ActionDict) -> tuple[Effect, ...] | None:
    """The effects a pending spell or ability will apply (the ones its ``targets`` are for)."""
    if act["type"] == "cast_spell":
        return catalog[cards[act["card"]]].effect
    if act["type"] == "use_ability":
        ability: Ability = catalog[cards[act["card"]]].abilities[act["ability"]]
        return ability.effect
    return None


def _check_counters(catalog: Catalog, s: StateDict, pen: PendingDict) -> None:
    """RULES 9.3, 9.5: ``counters``, ``negated`` and ``power`` are what the counters played made them."""
    trigger = pen["action"]["type"]
    responder = s["players"][pen["responder"]]
    negates, power = False, 0
    for j, iid in enumerate(pen["counters"]):
        card = catalog[s["cards"][iid]]
        # Played from the responder's hand, it went to their trash (a later counter may recover it).
        if (
            card.kind != "counter"
            or card.trigger != trigger
            or (iid not in responder["trash"] and iid not in responder["hand"])
        ):
            raise _fail(
                "pending_counter_mismatch",
                f"{iid} is not a counter of player {pen['responder']} that answers {trigger} (RULES 9.3)",
                f"pending.counters.{j}",
            )
        for effect in card.effect:
            if effect.op == "negate":
                negates = True
            elif effect.op == "investigation_power":
                power += effect.amount
    if pen["negated"] and not negates:
        raise _fail(
            "negated_without_counter",
            "the pending action is negated, but no counter played against it negates (RULES 9.5)",
            "pending.negated",
        )
    if negates and not pen["negated"]:
        raise _fail(
            "negation_not_recorded",
            "a counter played against the pending action negates it, but negated is false (RULES 9.5)",
            "pending.negated",
        )
    if pen["power"] != power:
        raise _fail(
            "investigation_power_mismatch",
            f"the counters played give investigation power {power:+d}, not {pen['power']:+d} (docs/api.md §8)",
            "pending.power",
        )


def _check_payment(catalog: Catalog, s: StateDict, act: ActionDict) -> None:
    """RULES 7.1–7.3: the cases that paid are the declarer's, turned sideways, as many as the cost."""
    paid = act.get("pay", [])
    own = {e["card"]: e for e in s["players"][act["player"]]["cases"]}
    seen: set[str] = set()
    for j, case in enumerate(paid):
        entry = own.get(case)
        if entry is None or case in seen:
            raise _fail(
                "payer_not_own",
                f"case {case} paid for the pending action, but it is not player {act['player']}'s case "
                "in play, or is named twice (RULES 7.3)",
                f"pending.action.pay.{j}",
            )
        if not entry["actioned"]:
            raise _fail(
                "unactioned_payer",
                f"case {case} paid for the pending action, so it is actioned (RULES 7.1)",
                f"pending.action.pay.{j}",
            )
        seen.add(case)
    cost = RULEBOOK[act["type"]].cost(Board(catalog, s), act)  # each action's cost, as its rule computes it
    if len(paid) != cost:
        raise _fail(
            "pay_count_mismatch",
            f"the pending {act['type']} costs {cost} action(s), but {len(paid)} case(s) paid (RULES 7.2)",
            "pending.action.pay",
        )


# The card a pending action plays, by action type: it must be of this kind.
_PLAYED_KIND = {"play_case": "case", "play_fairy": "fairy", "play_evidence": "evidence", "cast_spell": "spell"}
