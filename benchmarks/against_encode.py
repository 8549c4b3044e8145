"""Generation time beside one encode of what was generated: the measure the generator benchmarks share."""

from __future__ import annotations

import gc
import time
from typing import Any, Callable, Iterable

from needlework.tokens import TokenCounter


def measure_against_encode(make: Callable[[], Iterable[dict[str, Any]]], tokens: TokenCounter, repeats: int) -> dict[str, Any]:
    """Rounds of ``make()`` (rows with ``input`` and ``n_tokens``), each followed by one encode of every ``input``.

    Best-of times are compared (``ratio``: generation over encoding; 1.0 means generation costs
    nothing beside the one encode every row needs), with the median of the per-round ratios,
    which a noisy host moves less.
    """
    gen_times: list[float] = []
    enc_times: list[float] = []
    rows: list[dict[str, Any]] = []
    for _ in range(repeats):
        rows = []  # free the previous round's rows outside the clock
        gc.collect()
        begin = time.perf_counter()
        rows = list(make())
        gen_times.append(time.perf_counter() - begin)
        begin = time.perf_counter()
        for row in rows:
            tokens.encode(row["input"])
        enc_times.append(time.perf_counter() - begin)
    gen, enc = min(gen_times), min(enc_times)
    paired = sorted(g / e for g, e in zip(gen_times, enc_times))
    n = len(rows)
    return {
        "samples": n,
        "mean_prompt_tokens": round(sum(r["n_tokens"] for r in rows) / n),
        "samples_per_s": round(n / gen, 2),
        "generate_s_per_sample": round(gen / n, 4),
        "one_encode_s_per_sample": round(enc / n, 4),
        "ratio": round(gen / enc, 3),
        "median_paired_ratio": round(paired[len(paired) // 2], 3),
    }
