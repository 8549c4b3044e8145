"""Cheap scalar draws from a seeded numpy Generator.

Building a world makes millions of small choices; one numpy call per choice would cost more than
the choices themselves, so uniforms are fetched in blocks and handed out one by one. The stream
is still a pure function of the generator's seed.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from typing import Sequence, TypeVar

import numpy as np

from generators.seeding import rng_for
from generators.world.spec import BENCHMARK

T = TypeVar("T")
BLOCK = 64


class Draws:
    """Uniform floats in [0, 1) from ``rng``, and the small choices built on them."""

    __slots__ = ("_rng", "_buf", "_i")

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._buf: list[float] = []
        self._i = 0

    @classmethod
    def keyed(cls, seed: int, task: str, key: str | int) -> "Draws":
        """Draws for one key of the world (``rng_for(seed, "world", task, key)``)."""
        return cls(rng_for(seed, BENCHMARK, task, key))

    def u(self) -> float:
        """The next uniform float in [0, 1)."""
        if self._i == len(self._buf):
            self._buf = self._rng.random(BLOCK).tolist()
            self._i = 0
        value = self._buf[self._i]
        self._i += 1
        return value

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; ``n`` must be positive."""
        return min(int(self.u() * n), n - 1)

    def between(self, lo: int, hi: int) -> int:
        """A uniform integer in ``[lo, hi]`` (inclusive)."""
        return lo + self.below(hi - lo + 1)

    def chance(self, p: float) -> bool:
        """True with probability ``p``."""
        return self.u() < p

    def choice(self, items: Sequence[T]) -> T:
        """A uniform element of a non-empty sequence."""
        return items[self.below(len(items))]

    def skewed(self, n: int, power: float) -> int:
        """An integer in ``[0, n)`` favouring small values: ``floor(n * u**power)``.

        With ``power > 1`` early (older) entities are picked more often, which gives the link
        graph the hubs real encyclopedias have.
        """
        return min(int(n * self.u() ** power), n - 1)

    def weighted(self, cumulative: Sequence[float]) -> int:
        """Index drawn with probabilities given as a cumulative sum ending at the total weight."""
        return min(bisect_right(cumulative, self.u() * cumulative[-1]), len(cumulative) - 1)

    def normal(self) -> float:
        """A standard normal value (Box-Muller on two uniforms)."""
        return math.sqrt(-2.0 * math.log(1.0 - self.u())) * math.cos(2.0 * math.pi * self.u())

    def poisson(self, mean: float) -> int:
        """A Poisson count (Knuth's product method; fine for the small means used here)."""
        limit, k, p = math.exp(-mean), 0, self.u()
        while p > limit:
            k += 1
            p *= self.u()
        return k


def cumulative(weights: Sequence[float]) -> list[float]:
    """Running sums of ``weights``, for :meth:`Draws.weighted`."""
    out, total = [], 0.0
    for w in weights:
        total += w
        out.append(total)
    return out
