"""A game's moves recovered from its states (docs/records.md, "A record from the ledger").

The ledger of private games (docs/api.md §11) keeps, for each seq of a game, the
token of the state it reached and a digest of the action, never the action
itself. The engine is deterministic, so the action is the one, among those the
player could make in state k, whose application gives exactly state k+1: this
module finds it, and the move's time for a game with a clock (the time the
state k+1's clock recorded it at).

The candidates of a step: the legal actions of state k (``legal_actions`` at the
move's time), plus what that list leaves out (docs/api.md §6): every explicit
``pay`` of an action with a cost (each ordered choice of the player's
unactioned cases: the order is kept in a respondable action's pending entry),
and every ``discard`` of the exact excess (ordered too: the trash keeps the
order). The discard the next state's trash shows is tried first, so a step
costs one application for a discard as for any move.

Several candidates can give the same state (an explicit ``pay`` naming the
cases the default pays): the ledger's digest of the action tells them apart
when the caller gives it (``digests`` and the function that made them).

Bounded work: a step tries at most :data:`MAX_TRIES` candidates, each one
application to a copy of state k; a step above it is refused
(:class:`RecoveryError`), never a long search.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any, Final

from referee.engine.catalog import Catalog
from referee.engine.errors import RefereeError, RuleViolation
from referee.engine.parse import plain_copy
from referee.engine.rulebook import RULEBOOK
from referee.engine.session import Session
from referee.engine.state import check_state

MAX_TRIES: Final = 5_000  # candidates tried for one step: a discard of 3 from 10 cards is 720 orders


class RecoveryError(RefereeError):
    """No move of state ``seq - 1`` gives state ``seq`` (or finding it would take more than :data:`MAX_TRIES`)."""

    def __init__(self, seq: int, message: str):
        super().__init__(f"seq {seq}: {message}")
        self.seq = seq
        self.message = message


@dataclass(frozen=True)
class Recovered:
    """The actions from the deal, and for a game with a clock each one's time (ms since the deal)."""

    actions: list[dict[str, Any]]
    times: list[int] | None


Digest = Callable[[Mapping[str, Any]], str]


def recover_moves(
    catalog: Catalog,
    states: Sequence[Any],
    digests: Sequence[str] | None = None,
    digest: Digest | None = None,
) -> Recovered:
    """The action of each step of ``states`` (seq 0..n of one game), and their times for a clocked game.

    ``digests[k]``, made by ``digest``, is the ledger's digest of the action that gave ``states[k + 1]``:
    among actions giving the same state, the one of that digest. Raises :class:`RecoveryError`.
    """
    steps = list(recovered_steps(catalog, states, digests, digest))
    clocked = bool(states) and check_state(catalog, states[0])["clock"] is not None
    return Recovered([action for action, _ in steps], [int(at or 0) for _, at in steps] if clocked else None)


def recovered_steps(
    catalog: Catalog,
    states: Sequence[Any],
    digests: Sequence[str] | None = None,
    digest: Digest | None = None,
) -> Iterator[tuple[dict[str, Any], int | None]]:
    """Each step's action and, for a clocked game, its time, one step at a time: a caller bounding its work
    stops between two (the service's recovery keeps what it found and goes on from there later). ``states``
    may start at any seq: a step reads only the state before and after it."""
    if not states:
        return
    before = check_state(catalog, states[0])
    clocked = before["clock"] is not None
    for k in range(1, len(states)):
        after = check_state(catalog, states[k])
        wanted = None if digests is None or digest is None else digests[k - 1]
        yield _step(catalog, before, after, wanted, digest), _since_deal(after) if clocked else None
        before = after


def _since_deal(after: Mapping[str, Any]) -> int:
    """A clocked move's time, in milliseconds since the deal: its clock's last recorded move."""
    return int(after["clock"]["last"])


def _moment(after: Mapping[str, Any]) -> int | None:
    """The time the move was charged at: the one its clock recorded as the last move's."""
    clock = after["clock"]
    return None if clock is None else int(clock["started"] + clock["last"])


def _step(catalog: Catalog, before: Any, after: Any, wanted: str | None, digest: Digest | None) -> dict[str, Any]:
    """The action that takes ``before`` to ``after`` (of digest ``wanted`` among equals, when given)."""
    now = _moment(after)
    seq = int(after.get("seq", 0))
    matched: dict[str, Any] | None = None
    for tried, action in enumerate(_candidates(catalog, before, after, now)):
        if tried >= MAX_TRIES:
            break
        if matched is not None and _without_pay(action) != _without_pay(matched):
            continue  # only a pay differs between actions of one state
        if not _gives(catalog, before, action, now, after):
            continue
        if wanted is None or digest is None or any(digest(s) == wanted for s in _spellings(action)):
            return action
        matched = matched or action
    if matched is not None:
        return matched
    raise RecoveryError(seq, f"no move of seq {seq - 1} found that gives it (tried at most {MAX_TRIES})")


def _gives(catalog: Catalog, before: Any, action: dict[str, Any], now: int | None, after: Any) -> bool:
    session = Session(catalog, plain_copy(before))
    try:
        session.apply_parsed(action, now)
    except RuleViolation:
        return False
    return bool(session.state == after)


def _candidates(catalog: Catalog, before: Any, after: Any, now: int | None) -> Iterator[dict[str, Any]]:
    """Every action of ``before`` worth trying: the legal ones, each explicit pay, each discard."""
    session = Session(catalog, plain_copy(before))
    board = session.board
    for listed in session.legal_actions(None, now):
        action: dict[str, Any] = dict(listed)
        if action["type"] == "discard":
            yield from _discards(before, after, action)
            continue
        yield action
        board.now = now
        cost = RULEBOOK[action["type"]].cost(board, listed)
        if cost:
            for cases in permutations(board.unactioned_cases(action["player"]), cost):
                yield {**action, "pay": list(cases)}


def _discards(before: Any, after: Any, listed: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The discard ``after``'s trash shows first, then every ordered choice of the excess from the hand."""
    player = listed["player"]
    hand = before["players"][player]["hand"]
    excess = len(listed["cards"])
    start = len(before["players"][player]["trash"])
    shown = after["players"][player]["trash"][start : start + excess]
    yield {**listed, "cards": list(shown)}
    for cards in permutations(hand, excess):
        yield {**listed, "cards": list(cards)}


def _without_pay(action: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k != "pay"}


def _spellings(action: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The ways a client may have sent ``action``: ``targets`` given as [] or left out (docs/api.md §6)."""
    yield action
    if action.get("targets") == []:
        yield {k: v for k, v in action.items() if k != "targets"}
    elif "targets" not in action:
        yield {**action, "targets": []}
