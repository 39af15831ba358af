"""RULES 11.5 and docs/api.md §15: a game's clock, charged at the times its moves were recorded.

The engine keeps no time of its own: whoever applies a move gives the time at
which it was accepted (``now``, milliseconds since 1970 by the ledger's clock,
docs/ledger.md; in a replay, the deal's time plus the move's recorded time).
A move charges the player who may act (RULES 12.1) the time since the last
recorded move (or the deal), and then, if that player made it, adds the
increment (Fischer). The state keeps each player's time left at the last
move and when that move was recorded, so the same moves at the same times
give the same clocks on every machine (RULES 13.2).

``now`` is ``None`` where no time is given (a query in plain mode): no time
has passed since the last recorded move.

>>> s = {"clock": new_clock(600, 10, 0), "phase": "turn", "pending": None, "active": 0}
>>> charge(s, 0, 0, 5_000); s["clock"]["remaining"], s["clock"]["last"]
([605000, 600000], 5000)
>>> left(s, 1, 700_000), out_of_time(s, 1, 700_000), out_of_time(s, 0, 700_000)
(600000, False, True)
>>> clock_view(s)["since"]
'1970-01-01T00:00:05.000Z'
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from referee.engine.facts import CLOCK_TIME_MAX, PLAYERS, RNG_MAX, Phase
from referee.engine.flow import who_acts
from referee.engine.state_types import ClockDict

Game = Mapping[str, Any]  # a checked state (StateDict), or one a token held (the same shape)

_OVER = Phase.OVER
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
SECOND = 1000  # milliseconds
DAY = 86_400 * SECOND


def new_clock(initial: int, increment: int, started: int) -> ClockDict:
    """A clock at the deal (RULES 11.5): both players' whole time, dealt at ``started``."""
    return {
        "initial": initial,
        "increment": increment,
        "remaining": [initial * SECOND] * PLAYERS,
        "started": started,
        "last": 0,
    }


def running(s: Game) -> int | None:
    """Whose time runs now: the player who may act (RULES 12.1); None without a clock or once the game is over."""
    if s.get("clock") is None or s["phase"] == _OVER:
        return None
    return who_acts(s)


def elapsed(clock: ClockDict, now: int | None) -> int:
    """Milliseconds since the last recorded move (never below 0: a clock that went back charges nothing)."""
    if now is None:
        return 0
    return max(0, now - clock["started"] - clock["last"])


def left(s: Game, player: int, now: int | None) -> int:
    """``player``'s time left at ``now`` (milliseconds, may be below 0 once it has run out)."""
    clock: ClockDict = s["clock"]
    remaining: int = clock["remaining"][player]
    return remaining - elapsed(clock, now) if running(s) == player else remaining


def out_of_time(s: Game, player: int, now: int | None) -> bool:
    """RULES 11.5: ``player``'s time has run out at ``now`` (never, in a game without a clock)."""
    return s.get("clock") is not None and left(s, player, now) <= 0


def charge(s: Game, charged: int, mover: int, now: int | None) -> None:
    """A move recorded at ``now``: ``charged`` (who might act before it) pays the time since the last
    move, down to 0, plus the increment if they made it in time (a concession after the time ran out
    gains none); the move becomes the last recorded one."""
    clock: ClockDict = s["clock"]
    spent = elapsed(clock, now)
    remaining = clock["remaining"]
    left_then = remaining[charged] - spent
    gained = clock["increment"] * SECOND if mover == charged and left_then > 0 else 0  # a move in time only
    remaining[charged] = min(RNG_MAX, max(0, left_then) + gained)
    clock["last"] = min(CLOCK_TIME_MAX - clock["started"], clock["last"] + spent)  # a time RFC 3339 can write


def rfc3339(ms: int) -> str:
    """Milliseconds since 1970 as an RFC 3339 UTC time, to the millisecond (``2026-12-05T10:00:00.000Z``).

    >>> rfc3339(253_402_300_799_999)
    '9999-12-31T23:59:59.999Z'
    """
    days, of_day = divmod(ms, DAY)
    seconds, milli = divmod(of_day, SECOND)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{_date(days)}T{hours:02d}:{minutes:02d}:{seconds:02d}.{milli:03d}Z"


@functools.lru_cache(maxsize=16)
def _date(days: int) -> str:
    """The date ``days`` after 1970-01-01 (a view's since falls on few days: each is written once)."""
    return (_EPOCH + timedelta(days=days)).date().isoformat()


def clock_view(s: Game) -> dict[str, Any]:
    """The clock as every view shows it (docs/api.md §15): each player's time left at the last move,
    whose time runs since when, from which a page counts down without asking."""
    clock: ClockDict = s["clock"]
    return {
        "remaining": list(clock["remaining"]),
        "running": running(s),
        "since": rfc3339(clock["started"] + clock["last"]),
        "initial": clock["initial"],
        "increment": clock["increment"],
    }
