"""Per-sample random generators derived from (seed, benchmark, task, sample key).

Every random choice in needlework draws from a generator made here, so a row depends only on its
own key and the build seed: never on the order rows are produced in, on parallelism, on the global
random state, on Python's per-process salted string hashing or on the clock.
"""

from __future__ import annotations

import hashlib

import numpy as np


def derive_seed(seed: int, *parts: str | int) -> int:
    """A 256-bit integer derived from ``seed`` and the key parts through sha256.

    Parts are joined with an unambiguous separator (a unit separator that never occurs in
    keys), so ``("a", "bc")`` and ``("ab", "c")`` give different seeds.
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    payload = "\x1f".join([str(seed), *map(str, parts)]).encode("utf-8")
    return int.from_bytes(hashlib.sha256(payload).digest(), "big")


def rng_for(seed: int, benchmark: str, task: str, key: str | int) -> np.random.Generator:
    """The random generator for one sample: PCG64 seeded from sha256(seed, benchmark, task, key).

    Args:
        seed: The build seed given by the user.
        benchmark: Benchmark name, e.g. ``"rulerv2"``.
        task: Task (config) name, e.g. ``"mk_niah_basic"``.
        key: The sample key within the task, e.g. ``"8192/017"``.
    """
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(derive_seed(seed, benchmark, task, key))))
