"""A private game's moves recovered from the ledger once (docs/records.md, "A record from the ledger").

The ledger keeps each seq's token and the digest of its action, never the action: a record is written
from moves found again by the engine (:mod:`referee.engine.recovery`), some 1.5 ms of CPU a move. That is
heavy work (docs/api.md §16): it runs in a helper (:mod:`referee.service.heavy`), and what it found is
kept, so that a game's record costs its recovery once per worker. A later call recovers only the moves
made since; a repeat of an unchanged game costs one ledger read.

The work of one call is bounded: a game too long to recover within half of ``REFEREE_HEAVY_MAX_SECONDS``
is answered 429 ``busy`` with its progress, which is kept; asking again goes on from there.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.service import jobs, metrics
from referee.service.heavy import HeavyTimeout, HeavyWork, busy, heavy_timeout
from referee.service.problems import Problem

# (digest of the action, token) of each seq asked for, None where the ledger does not hold it
ReadMoves = Callable[[int, int], list["tuple[str, str] | None"]]

KEPT_GAMES = 128  # per worker: about 0.2 MB a game of 500 moves
# The longest one move's recovery may take past the job's share: MAX_TRIES applications of ~0.1 ms, and room.
STEP_SECONDS = 5.0


def not_recoverable(why: str) -> Problem:
    return Problem(
        "not-recoverable", "not_recoverable", f"The game's moves cannot be recovered from the ledger: {why}."
    )


@dataclass
class Progress:
    """What is recovered of one game: its deal, the actions of seqs 1.. and their times, the token of the
    last seq recovered (a later call checks it is still the game's line), and the records written of it
    (a repeat of a record is a read too)."""

    dealt: dict[str, Any]
    actions: list[dict[str, Any]]
    times: list[int | None]
    token: str
    texts: dict[tuple[Any, int], str] = field(default_factory=dict)  # records written of it, by (seat, moves)


class RecoveredGames:
    """The games this worker has recovered, the most recently used :data:`KEPT_GAMES` of them."""

    def __init__(self, heavy: HeavyWork, digest: Callable[[Mapping[str, Any]], str]):
        self.heavy = heavy
        self.digest = digest  # the ledger's digest of an action
        self._games: OrderedDict[str, Progress] = OrderedDict()

    def moves(self, game_id: str, latest: int, read: ReadMoves, open_token: Callable[[str], Any]) -> Progress:
        """The game's moves up to seq ``latest`` at the least (the caller reads its prefix); raises 409
        ``not_recoverable``, 429 ``busy``."""
        known = self._still_known(game_id, read)
        start = len(known.actions) if known is not None else 0
        if known is not None and start >= latest:  # a spectator held behind reads a prefix (docs/api.md §12)
            return known
        kept = read(start, latest)
        if any(move is None for move in kept):
            first = start + max(k for k, move in enumerate(kept) if move is None) + 1
            raise not_recoverable(f"the ledger holds this game from seq {first} only (it adopted the game there)")
        moves: list[tuple[str, str]] = [move for move in kept if move is not None]
        states = [open_token(token) for _, token in moves]
        digests = [digest for digest, _ in moves[1:]]
        share = self.heavy.max_seconds / 2  # the job stops itself after its share, between two moves
        try:
            (steps, error), _ = self.heavy.run(
                "a record's recovery",
                jobs.recovery,
                states,
                digests,
                self.digest,
                share,
                seconds=share + STEP_SECONDS,
            )
        except HeavyTimeout:
            raise heavy_timeout("The record's recovery") from None
        progress = Progress(
            known.dealt if known is not None else states[0],
            (known.actions if known is not None else []) + [action for action, _ in steps],
            (known.times if known is not None else []) + [at for _, at in steps],
            moves[len(steps)][1],
        )
        self._keep(game_id, progress)
        metrics.moves_recovered(len(steps))
        if error is not None:
            raise not_recoverable(error)
        if len(progress.actions) < latest:
            raise busy(
                "a record's recovery",
                f"This game's record is being recovered: {len(progress.actions)} of {latest} moves so far, kept. "
                "Ask again after Retry-After seconds to go on.",
            )
        return progress

    def _still_known(self, game_id: str, read: ReadMoves) -> Progress | None:
        """The game's progress, if it is kept and the ledger still holds the same token at its last seq."""
        known = self._games.get(game_id)
        if known is None:
            return None
        at = read(len(known.actions), len(known.actions))[0]
        if at is None or at[1] != known.token:
            del self._games[game_id]
            return None
        self._games.move_to_end(game_id)
        return known

    def _keep(self, game_id: str, progress: Progress) -> None:
        self._games[game_id] = progress
        self._games.move_to_end(game_id)
        while len(self._games) > KEPT_GAMES:
            self._games.popitem(last=False)
