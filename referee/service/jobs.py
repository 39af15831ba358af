"""The heavy jobs, as a helper process runs them (:mod:`referee.service.heavy`): ``job(catalog, *args)``,
plain data in and out (it crosses a pipe), every refusal decided before the job is sent."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from referee.bots import suggest as bots
from referee.engine import Catalog, Session
from referee.engine.recovery import RecoveryError, recovered_steps

# (actions found, each one's time for a clocked game), and the step that could not be recovered
Steps = list[tuple[dict[str, Any], "int | None"]]


def suggestion(
    catalog: Catalog,
    state: Any,
    seat: int,
    bot: str,
    seed: str,
    iterations: int | None,
    deadline: float | None,
) -> dict[str, Any]:
    """The bot's move (``/v1/suggest``): the service has checked that ``seat`` may act."""
    session = Session.from_state(catalog, state)
    return bots.suggest(catalog, session, seat, bot, seed=seed, iterations=iterations, deadline=deadline)


def recovery(
    catalog: Catalog,
    states: list[Any],
    digests: list[str],
    digest: Callable[[Mapping[str, Any]], str],
    seconds: float,
) -> tuple[Steps, str | None]:
    """The moves of ``states`` (consecutive seqs of one game) found within ``seconds`` (one at the least),
    ``digests`` the ledger's of their actions, made by ``digest``; and why the next could not be found, if
    it could not (``RecoveryError``'s message)."""
    stop_at = time.perf_counter() + seconds
    found: Steps = []
    try:
        for step in recovered_steps(catalog, states, digests, digest):
            found.append(step)
            if time.perf_counter() >= stop_at:
                break
    except RecoveryError as exc:
        return found, str(exc)
    return found, None


def event(catalog: Catalog, question: Callable[[Any], Any], document: Any) -> Any:
    """An event's pairing, standings or check (``referee.events``' pure calls, docs/api.md §17): its
    refusals (``EventRefusal``, ``EventInputError``) cross back to the worker, which answers them."""
    return question(document)
