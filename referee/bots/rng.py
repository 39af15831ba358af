"""A seeded stream of random choices that is the same on every machine and Python version.

Bots, the determinization and the fuzzer draw on it rather than on Python's
``random``, whose algorithms a release may change: the same seed gives the
same choices, the same samples and the same games everywhere (docs/bots.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")


class Stream:
    """64-bit draws: BLAKE2b of the seed and a counter."""

    __slots__ = ("_count", "_seed")

    def __init__(self, seed: str):
        self._seed = seed.encode("utf-8")
        self._count = 0

    def next64(self) -> int:
        digest = hashlib.blake2b(self._seed + self._count.to_bytes(8, "big"), digest_size=8).digest()
        self._count += 1
        return int.from_bytes(digest, "big")

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling: no modulo bias)."""
        if n <= 0:
            raise ValueError("below() needs n >= 1")
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self.next64()
            if x < limit:
                return x % n

    def random(self) -> float:
        """A float in ``[0, 1)``."""
        return (self.next64() >> 11) / float(1 << 53)

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: list[T]) -> None:
        """Fisher-Yates, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def weighted(self, weights: Sequence[float]) -> int:
        """An index drawn with probability proportional to its (non-negative) weight."""
        total = sum(weights)
        x = self.random() * total
        for i, w in enumerate(weights):
            x -= w
            if x < 0:
                return i
        return len(weights) - 1
