"""The seeded stream of random choices that bots, the determinization and the fuzzer draw on.

It is the engine's own shuffle stream (:class:`SeededStream`: SHA-256 of the seed and a
counter, the same on every machine and Python version, unlike Python's ``random``) with
the few choices bots need on top: the same seed gives the same choices, samples and games
everywhere (docs/bots.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from referee.engine.setup import SeededStream

T = TypeVar("T")


class Stream(SeededStream):
    """:class:`SeededStream` with a float, a choice and a weighted index."""

    def random(self) -> float:
        """A float in ``[0, 1)``."""
        return (self.next64() >> 11) / float(1 << 53)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def weighted(self, weights: Sequence[float]) -> int:
        """An index drawn with probability proportional to its (non-negative) weight."""
        total = sum(weights)
        x = self.random() * total
        for i, w in enumerate(weights):
            x -= w
            if x < 0:
                return i
        return len(weights) - 1
