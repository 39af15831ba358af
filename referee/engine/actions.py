"""The shape every action's rule takes, and the checks several rules share.

Each action type of docs/api.md §6 has one :class:`ActionRule`, listed in
``rulebook.py``. The pipeline in ``pipeline.py`` calls its hooks in the order RULES 13.3 fixes, so the first rule
an action breaks is the one reported:

1. ``allowed`` — the phase, step or window (5.4, 6.4–6.6, 8.1, 9.2, 9.3);
2. ``check`` — the cards and targets it names (12.3, 9.6), then its own rule;
3. ``cost`` — what it costs (paid and checked by ``costs.py``, 7.2, 7.3).

Then ``declare`` does what happens at once, and for a respondable action
(RULES 9.4) ``resolve`` (or ``negated``, RULES 9.5) when its window closes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from referee.engine.board import Board
from referee.engine.errors import RuleViolation
from referee.engine.facts import Step
from referee.engine.model import RESPONDABLE
from referee.engine.registry import rule
from referee.engine.state_types import ActionDict, CaseEntryDict, FairyEntryDict, PendingDict

# The enum members this module compares with, bound once: reading one through its class is an
# attribute lookup of the enum's metaclass on every read.
_MAIN = Step.MAIN

Action = ActionDict


class ActionRule:
    type: str = ""
    respondable: bool = False  # RULES 9.4: read from ``model.RESPONDABLE`` (the one list) when made

    def __init__(self) -> None:
        self.respondable = self.type in RESPONDABLE

    def allowed(self, g: Board, a: Action) -> None:
        """Raise if the action is not open in this phase, step or window.

        It may read only the phase, the step, the open window and who acts:
        ``pipeline.open_rules`` caches its answer on those (tests/test_open_rules.py checks it).
        """

    def check(self, g: Board, a: Action) -> None:
        """Raise if a named card or target is missing, or the action's own rule is broken."""

    def cost(self, g: Board, a: Action) -> int:
        return 0

    def declare(self, g: Board, a: Action) -> None:
        """What happens when the action is declared and paid."""

    def resolve(self, g: Board, a: Action, pending: PendingDict | None) -> None:
        """A respondable action takes effect (its window closed without negating it)."""

    def negated(self, g: Board, a: Action) -> None:
        """RULES 9.5: the cost stays paid; a card being played goes to its owner's trash."""

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        """Actions of this type worth checking for ``legal_actions`` (a superset of the legal ones)."""
        return iter(())

    def legal(self, g: Board, player: int, free: int) -> list[Action]:
        """The legal actions of this type for ``player`` (to whom the type is open now), paying with
        ``free`` unactioned cases, in ``candidates`` order.

        This is the careful answer: every candidate through ``check`` and ``cost``. A rule whose
        candidates pass some checks by construction overrides it to test only the rest (and to skip
        what cannot be paid): a shortcut of ``shortcuts.py``, which ``tests/test_shortcuts.py`` holds to this list.
        """
        return [a for a in self.candidates(g, player) if passes(g, self, a, free)]


def passes(g: Board, rule: ActionRule, a: Action, free: int) -> bool:
    """The rest of the pipeline's ``check`` for a candidate of an open type, paying with ``free`` cases."""
    try:
        rule.check(g, a)
    except RuleViolation:
        return False
    return rule.cost(g, a) <= free


class MainStepRule(ActionRule):
    """A main-step action (RULES 8.1): respondable (9.4); 1 action unless it says otherwise."""

    def affordable(self, g: Board, player: int, free: int) -> list[Action]:
        """For a rule costing 1 whose every candidate passes ``check`` by construction: its legal actions."""
        return list(self.candidates(g, player)) if free >= 1 else []

    def allowed(self, g: Board, a: Action) -> None:
        require_main_step(g, a)

    def cost(self, g: Board, a: Action) -> int:
        return 1


# -- checks several rules share -------------------------------------------------


@rule("8.1", "not_main_step", "main_action_in_window")
def require_main_step(g: Board, a: Action) -> None:
    """RULES 8.1: main-step actions are the active player's, in the main step, with no window open."""
    if g.s["pending"] is not None:
        raise RuleViolation("main_action_in_window", action=a["type"])
    if g.s["step"] != _MAIN or a["player"] != g.s["active"]:
        raise RuleViolation("not_main_step", action=a["type"])


@rule("12.3", "card_not_available")
def require_in_hand(g: Board, player: int, iid: str) -> None:
    """RULES 12.3: the card must be in the acting player's hand."""
    if iid not in g.s["players"][player]["hand"]:
        raise RuleViolation("card_not_available", player=player, card=iid, where="in hand")


@rule("12.3", "no_such_case")
def require_case_in_play(g: Board, case: str) -> tuple[int, CaseEntryDict]:
    """RULES 12.3: a case the action names must be in play."""
    found = g.case_in_play(case)
    if found is None:
        raise RuleViolation("no_such_case", case=case)
    return found


def require_own_fairy(g: Board, player: int, fairy: str) -> FairyEntryDict:
    """RULES 12.3: the fairy must be on the acting player's field."""
    entry: FairyEntryDict | None = g.own_entry(player, "fairies", fairy)
    if entry is None:
        raise RuleViolation("card_not_available", player=player, card=fairy, where="as a standby or dispatched fairy")
    return entry


def knows_case(g: Board, player: int, case: str) -> bool:
    """RULES 8.9.1 (and 4.4): whether ``player`` knows a case in play (:func:`knows`)."""
    found = g.case_in_play(case)
    return found is not None and knows(player, found[0], found[1])


def knows(player: int, owner: int, entry: CaseEntryDict) -> bool:
    """RULES 8.9.1 (and 4.4): a case's owner knows it; the opponent only once it is face up."""
    return owner == player or entry["face_up"]


@rule("8.9", "one_fairy_per_case")
@rule("8.9.1", "face_down_case_limit")
def require_dispatch_room(g: Board, player: int, case: str) -> None:
    """RULES 8.9: at most ``dispatch_limit`` (default 1) of a player's own fairies per case; RULES 8.9.1:
    one on an opponent's face-down case, whatever its limit, so the answer never tells which case it is."""
    count = len(g.fairies_on(player, case))
    if not knows_case(g, player, case):
        if count >= 1:
            raise RuleViolation("face_down_case_limit", player=player, case=case, count=count, limit=1)
        return
    limit = g.card(case).dispatch_limit
    if count >= limit:
        raise RuleViolation("one_fairy_per_case", player=player, case=case, count=count, limit=limit)


def simple(kind: str, player: int, **fields: Any) -> Action:
    """An action of ``kind`` with the fields its type takes (``model.ACTION_FIELDS``)."""
    return {"type": kind, "player": player, **fields}  # type: ignore[typeddict-item]
