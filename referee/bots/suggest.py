"""A bot's move for one seat, from that seat's view only (``POST /v1/suggest``, docs/api.md §16).

The bot is handed what :func:`referee.bots.match.play_game` hands a bot: the
seat's view, its legal actions, and its own deck list (the cards the seat
owns: a player knows the deck they built). It is never handed the state: what
it does not see it samples (:func:`referee.bots.determinize.determinize`),
the opponent's deck from the catalog as a prior. So the answer cannot depend
on a card the seat may not know (tests/test_suggest.py swaps the opponent's
hidden cards and gets the same move).

Determinism (RULES 13.2 for a given request): the bot's randomness comes
from the state's ``seq`` and the request's ``seed`` alone. With
``iterations`` the bot does a fixed amount of work, so the same request gives
the same move on every machine; with a ``deadline`` (``budget_ms``) it
searches until then, and the move may differ with the machine's speed.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

from referee.bots.players import BOTS, Action, make_bot
from referee.engine import Catalog, FieldZone, IdZone, RuleViolation, Session, StateDict

__all__ = ["BOTS", "MAX_BUDGET_MS", "MAX_ITERATIONS", "UnknownBot", "may_suggest", "own_deck", "suggest"]

MAX_BUDGET_MS = 2000  # docs/api.md §16
# A fixed amount of work stays within about the largest budget: an ISMCTS iteration of the built-in catalog
# takes about 1 ms on one core (docs/performance.md, "Bots and fuzzing").
MAX_ITERATIONS = 1000
BUDGET_ITERATIONS = 10**9  # with a deadline, the deadline ends the search
ZONES: tuple[IdZone, ...] = ("hand", "trash")
FIELD: tuple[FieldZone, ...] = ("cases", "fairies", "evidence")


class UnknownBot(ValueError):
    """A bot name that is not one of :data:`BOTS`."""


def own_deck(state: StateDict, seat: int) -> Counter[str]:
    """The seat's own deck list: the catalog id of every card it owns, wherever it is (it built the deck)."""
    pl = state["players"][seat]
    owned = list(pl["file"]) + [i for z in ZONES for i in pl[z]] + [e["card"] for z in FIELD for e in pl[z]]
    return Counter(state["cards"][iid] for iid in owned)


def may_suggest(session: Session, seat: int) -> None:
    """Raises :class:`RuleViolation` (11.3, 12.2) when ``seat`` may not act now: there is no move to suggest."""
    if session.over:
        raise RuleViolation("game_over")
    actor = session.board.who_acts()
    if seat != actor:
        raise RuleViolation("not_your_turn", player=seat, actor=actor)


def suggest(
    catalog: Catalog,
    session: Session,
    seat: int,
    bot: str,
    *,
    seed: str = "",
    iterations: int | None = None,
    deadline: float | None = None,
) -> dict[str, Any]:
    """One of ``seat``'s legal actions in ``session``, chosen by ``bot`` from the seat's view (an ``ActionDict``,
    handed to the service as the plain dict it answers with).

    Raises :class:`RuleViolation` (11.3, 12.2) when the seat may not act now, :class:`UnknownBot` for a name
    not in :data:`BOTS`. Give ``iterations`` (fixed work) or ``deadline`` (a ``time.perf_counter()`` instant).
    """
    if bot not in BOTS:
        raise UnknownBot(bot)
    may_suggest(session, seat)
    state = session.state
    options = {"iterations": iterations or BUDGET_ITERATIONS} if bot == "ismcts" else {}
    player = make_bot(bot, catalog, seed=f"suggest:{seed}", **options)
    player.deadline = deadline if iterations is None else None
    decks: list[Any] = [None, None]
    decks[seat] = own_deck(state, seat)
    player.start(seat, decks, f"seq{state.get('seq', 0)}")
    chosen: Action = player.act(session.view(seat), [], session.legal_actions(seat))
    return cast(dict[str, Any], chosen)
