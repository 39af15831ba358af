"""RULES 6: the turn — reset, draw, case, main and end steps — concession (11.2) and a time claim (11.5)."""

from __future__ import annotations

from collections.abc import Iterator

from referee.engine.actions import Action, ActionRule, require_in_hand, simple
from referee.engine.board import Board
from referee.engine.clocks import out_of_time
from referee.engine.errors import RuleViolation
from referee.engine.facts import HAND_LIMIT, TURN_MAX, Reason, Step, other
from referee.engine.flow import Edge, advance
from referee.engine.registry import rule
from referee.engine.state_types import PendingDict

# The enum members this module compares with, bound once: reading one through its class is an
# attribute lookup of the enum's metaclass on every read.
_CONCEDE = Reason.CONCEDE
_TIME = Reason.TIME
_CASE = Step.CASE
_END = Step.END
_MAIN = Step.MAIN


@rule("6.2")
@rule("6.3")
@rule("6.7")
def start_turn(g: Board, turn: int, player: int) -> None:
    """A new turn: until-end-of-turn effects end (6.7), reset (6.2), draw (6.3), case step."""
    s = g.s
    s["turn"] = turn
    s["active"] = player
    s["case_played"] = False
    s["modifiers"] = []
    s["used"] = []
    for case in g.player(player)["cases"]:  # RULES 6.2
        case["actioned"] = False
    g.emit("turn_started", turn=turn, player=player)
    g.draw(player, 1, required=True)  # RULES 6.3: an empty file loses (11.1)
    if not g.over:
        advance(s, Edge.TURN_BEGINS)


@rule("6.6")
def pass_turn(g: Board) -> None:
    """RULES 6.6: the turn passes to the opponent."""
    start_turn(g, g.s["turn"] + 1, other(g.s["active"]))


@rule("13.1", "turn_limit")
def require_turn_can_pass(g: Board) -> None:
    """RULES 13.1: a state's turn is at most ``TURN_MAX``, so the last turn cannot pass (the answer
    would be a state the referee refuses as input); the action that would pass it is refused."""
    if g.s["turn"] >= TURN_MAX:
        raise RuleViolation("turn_limit", turn=g.s["turn"])


class _CaseStepRule(ActionRule):
    @rule("6.4", "not_case_step")
    def allowed(self, g: Board, a: Action) -> None:
        if g.s["step"] != _CASE or g.s["pending"] is not None:
            raise RuleViolation("not_case_step")


class PlayCase(_CaseStepRule):
    """RULES 6.4: one case from hand, face down and unactioned; it costs nothing (2.2)."""

    type = "play_case"

    @rule("6.4", "not_a_case")
    def check(self, g: Board, a: Action) -> None:
        require_in_hand(g, a["player"], a["card"])
        if g.kind(a["card"]) != "case":
            raise RuleViolation("not_a_case", card=a["card"])

    def declare(self, g: Board, a: Action) -> None:
        g.s["case_played"] = True

    def resolve(self, g: Board, a: Action, pending: PendingDict | None) -> None:
        pl = g.player(a["player"])
        pl["hand"].remove(a["card"])
        pl["cases"].append({"card": a["card"], "face_up": False, "actioned": False})
        g.emit("case_played", player=a["player"], case=a["card"])
        advance(g.s, Edge.CASE_STEP_ENDS)

    def negated(self, g: Board, a: Action) -> None:  # RULES 9.5; the case step still ends (6.4)
        g.hand_to_trash(a["player"], a["card"])
        advance(g.s, Edge.CASE_STEP_ENDS)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        for iid in g.hand_of_kind(player, "case"):
            yield simple(self.type, player, card=iid)


class SkipCase(_CaseStepRule):
    """RULES 6.4: skip the case step."""

    type = "skip_case"

    def declare(self, g: Board, a: Action) -> None:
        advance(g.s, Edge.CASE_STEP_ENDS)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        yield simple(self.type, player)


class EndTurn(ActionRule):
    """RULES 6.5: declared from the main step with no window open; then the end step (6.6)."""

    type = "end_turn"

    @rule("6.5", "window_open", "not_main_step_end")
    def allowed(self, g: Board, a: Action) -> None:
        if g.s["pending"] is not None:
            raise RuleViolation("window_open")
        if g.s["step"] != _MAIN:
            raise RuleViolation("not_main_step_end")

    def check(self, g: Board, a: Action) -> None:
        if len(g.player(a["player"])["hand"]) <= HAND_LIMIT:  # the turn passes now (6.6)
            require_turn_can_pass(g)

    def declare(self, g: Board, a: Action) -> None:
        hand = g.player(a["player"])["hand"]
        if len(hand) > HAND_LIMIT:
            advance(g.s, Edge.DISCARDS_OWED)
            g.emit("discard_owed", player=a["player"], count=len(hand) - HAND_LIMIT)
            return
        pass_turn(g)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        yield simple(self.type, player)


class Discard(ActionRule):
    """RULES 6.6: discard exactly the excess over 7, cards of the player's choice."""

    type = "discard"

    @rule("6.6", "not_end_step")
    def allowed(self, g: Board, a: Action) -> None:
        if g.s["step"] != _END:
            raise RuleViolation("not_end_step")

    @rule("6.6", "duplicate_discard", "wrong_discard_count")
    def check(self, g: Board, a: Action) -> None:
        for iid in a["cards"]:  # RULES 13.3: every card named is checked (12.3) before any own rule
            require_in_hand(g, a["player"], iid)
        seen: set[str] = set()
        for iid in a["cards"]:
            if iid in seen:
                raise RuleViolation("duplicate_discard", card=iid)
            seen.add(iid)
        excess = len(g.player(a["player"])["hand"]) - HAND_LIMIT
        if len(a["cards"]) != excess:
            raise RuleViolation("wrong_discard_count", count=excess, given=len(a["cards"]))
        require_turn_can_pass(g)

    def declare(self, g: Board, a: Action) -> None:
        pl = g.player(a["player"])
        for iid in a["cards"]:
            pl["hand"].remove(iid)
            pl["trash"].append(iid)
        g.emit("discard", player=a["player"], cards=list(a["cards"]))
        pass_turn(g)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        hand = g.player(player)["hand"]
        excess = len(hand) - HAND_LIMIT
        if excess > 0:  # docs/api.md §6: listed once, with the last cards of the hand
            yield simple(self.type, player, cards=hand[-excess:])


class Concede(ActionRule):
    """RULES 11.2: either player, at any moment the game is not over."""

    type = "concede"

    @rule("11.2")
    def declare(self, g: Board, a: Action) -> None:
        g.lose(a["player"], _CONCEDE)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        yield simple(self.type, player)


class ClaimTime(ActionRule):
    """RULES 11.5, 12.1: at any moment, the player whose opponent's time has run out claims the game.

    Who may claim is the whole of its check (13.3's second group): open at any
    moment, like a concession, so the pipeline's gates of turn and phase pass it.
    """

    type = "claim_time"

    @rule("11.5", "no_clock")
    @rule("12.1", "time_not_out")
    def check(self, g: Board, a: Action) -> None:
        if g.s["clock"] is None:
            raise RuleViolation("no_clock")
        if not out_of_time(g.s, other(a["player"]), g.now):
            raise RuleViolation("time_not_out", player=a["player"])

    @rule("11.5")
    def declare(self, g: Board, a: Action) -> None:
        g.lose(other(a["player"]), _TIME)

    def candidates(self, g: Board, player: int) -> Iterator[Action]:
        yield simple(self.type, player)
