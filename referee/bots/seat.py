"""What one seat is told: its view of the state and its share of the events (docs/api.md §5, §10).

A bot is handed these and nothing else. The view comes from the engine's
package face (``Session.view``); the events go through the same filter
private mode applies to every seat's answers.
"""

from __future__ import annotations

from collections.abc import Iterable

from referee.engine import EventDict, StateDict
from referee.engine.events import events_for  # the filter of private mode's answers


def seat_events(events: Iterable[EventDict], state: StateDict, seat: int) -> list[EventDict]:
    """``events`` (which led to ``state``) as ``seat`` may know them: no seed, no card it may not know."""
    return events_for(events, state, seat)
