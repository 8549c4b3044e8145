"""HaystackCraft's block of the results: the static NIAH scores of the paper's figures and tables.

:func:`haystackcraft_summary` is the benchmark's ``summarize``; the report section
(:mod:`eval.benchmarks.haystackcraft.report`) reads the block it writes under ``scores.haystackcraft``.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from eval.benchmarks.haystackcraft.tasks import (
    TASK_NAMES,
    is_random,
    ordering_order,
    strategy_order,
)
from eval.scored import ScoredSample, round_score, sample_stats
from generators.haystackcraft.spec import NO_CONTEXT

Cell = tuple[str, str, int]
"""(strategy, ordering, size in tokens)."""


def haystackcraft_summary(scored: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """The HaystackCraft static NIAH scores of the paper's figures and tables, from its samples in ``scored``.

    F1 (the task's score, MuSiQue's answer F1) and EM (exact match, the sample's ``extra["em"]``)
    are fractions in [0, 1]; a sample that ended in an error counts 0 in both. Sizes are target
    haystack tokens (0 = needles only), as string keys.

    - ``strategies``: each strategy with its base retriever and PPR flag (without PPR first, then
      BM25, dense, hybrid); ``orderings`` and ``sizes`` present, in report order.
    - ``cells``: ``{strategy: {ordering: {size: {f1, em, n, n_errors, f1_stderr}}}}``.
    - ``by_hops``: ``{hops: stats}`` over every sample; ``hop_cells``: the same per cell
      ``{strategy: {ordering: {size: {hops: stats}}}}`` (Appendix H, Figure 8).
    - ``random``: ``{strategy: {size: {f1, f1_std, em, em_std, orderings}}}``, the mean over the
      random orderings present (``random-0..2``) of their cell means, and the population standard
      deviation across them (None with fewer than two): the paper's Appendix N "mean ± std".
    - ``descending_minus_random``: ``{strategy: {size: {f1, em}}}``, descending minus that random
      mean (Figure 4); None where either side is missing.
    - ``ordering_ablation``: at the largest size, per strategy, F1 and EM of ``descending``,
      ``ascending``, ``random`` (the mean above) and ``middle`` (Appendix J, Table 3).
    - ``no_context``: the Appendix G baseline, the ``static-no-context`` rows (strategy
      :data:`generators.haystackcraft.spec.NO_CONTEXT`: the question without documents), as stats
      with ``by_hops``; None without such rows. They are left out of every entry above.
    - ``gold_context``: Appendix G's other condition, the needles alone (size 0) over every
      strategy and ordering, as stats with ``by_hops``; None without size-0 rows.

    Returns:
        The block, or None when no sample is a HaystackCraft task.
    """
    every = [s for s in scored if s.task in TASK_NAMES]
    if not every:
        return None
    baseline = [s for s in every if s.metadata.get("strategy") == NO_CONTEXT]
    samples = [s for s in every if s.metadata.get("strategy") != NO_CONTEXT]
    appendix_g = {"no_context": _with_hops(baseline),
                  "gold_context": _with_hops([s for s in samples if int(s.metadata["size"]) == 0])}
    if not samples:
        return {"strategies": [], "orderings": [], "sizes": [], "cells": {}, "by_hops": {}, "hop_cells": {},
                "random": {}, "descending_minus_random": {}, "ordering_ablation": {}, **appendix_g}
    groups: dict[Cell, list[ScoredSample]] = defaultdict(list)
    by_hops: dict[int, list[ScoredSample]] = defaultdict(list)
    hop_groups: dict[tuple[str, str, int, int], list[ScoredSample]] = defaultdict(list)
    strategies: dict[str, dict[str, Any]] = {}
    for sample in samples:
        meta = sample.metadata
        cell = (str(meta["strategy"]), str(meta["ordering"]), int(meta["size"]))
        groups[cell].append(sample)
        by_hops[int(meta["hops"])].append(sample)
        hop_groups[(*cell, int(meta["hops"]))].append(sample)
        strategies.setdefault(cell[0], {"strategy": cell[0], "retriever": meta.get("retriever"),
                                        "ppr": meta.get("ppr")})
    names = sorted(strategies, key=strategy_order)
    orderings = sorted({c[1] for c in groups}, key=ordering_order)
    sizes = sorted({c[2] for c in groups})
    means = {cell: _f1_em(group) for cell, group in groups.items()}
    random = {name: {size: _random_mean(means, name, orderings, size) for size in sizes} for name in names}
    largest = sizes[-1]
    return {
        "strategies": [strategies[name] for name in names],
        "orderings": orderings,
        "sizes": sizes,
        "cells": _nest(groups, (strategy_order, ordering_order, int)),
        "by_hops": {str(h): _static_stats(by_hops[h]) for h in sorted(by_hops)},
        "hop_cells": _nest(hop_groups, (strategy_order, ordering_order, int, int)),
        "random": {name: {str(n): {k: v if k == "orderings" else round_score(v) for k, v in r.items()}
                          for n, r in random[name].items() if r is not None} for name in names},
        "descending_minus_random": {name: {str(n): _difference(means.get((name, "descending", n)), random[name][n])
                                           for n in sizes} for name in names},
        "ordering_ablation": {"size": largest, "strategies": {
            name: {**{o: _pair(means.get((name, o, largest))) for o in ("descending", "ascending")},
                   "random": _pair(random[name][largest]), "middle": _pair(means.get((name, "middle", largest)))}
            for name in names if any(c[0] == name and c[2] == largest for c in groups)}},
        **appendix_g,
    }


def _with_hops(samples: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """Stats of some samples and ``by_hops`` (hop count -> stats); None without samples."""
    if not samples:
        return None
    by_hops: dict[int, list[ScoredSample]] = defaultdict(list)
    for sample in samples:
        by_hops[int(sample.metadata["hops"])].append(sample)
    return {**_static_stats(samples), "by_hops": {str(h): _static_stats(by_hops[h]) for h in sorted(by_hops)}}


def _nest(groups: Mapping[tuple[Any, ...], Sequence[ScoredSample]], orders: Sequence[Callable[[Any], Any]]
          ) -> dict[str, Any]:
    """``{key[0]: {key[1]: ... stats}}`` from groups keyed by tuples; string keys, each level in its order."""
    nested: dict[str, Any] = {}
    for key in sorted(groups, key=lambda k: tuple(order(part) for order, part in zip(orders, k))):
        node = nested
        for part in key[:-1]:
            node = node.setdefault(str(part), {})
        node[str(key[-1])] = _static_stats(groups[key])
    return nested


def _f1_em(samples: Sequence[ScoredSample]) -> dict[str, float]:
    """Unrounded mean F1 and EM of some samples (errors count 0)."""
    f1 = [0.0 if s.error_kind else float(s.score or 0.0) for s in samples]
    em = [0.0 if s.error_kind else float(s.extra.get("em", 0.0)) for s in samples]
    return {"f1": sum(f1) / len(f1), "em": sum(em) / len(em)}


def _static_stats(samples: Sequence[ScoredSample]) -> dict[str, Any]:
    stats = sample_stats(samples)
    return {**{k: round_score(v) for k, v in _f1_em(samples).items()}, "n": stats["n"], "n_errors": stats["n_errors"],
            "f1_stderr": stats["stderr"]}


def _random_mean(means: Mapping[Cell, Mapping[str, float]], strategy: str, orderings: Sequence[str],
                 size: int) -> dict[str, Any] | None:
    """Mean and population std over the random orderings' cell means, or None when there is none."""
    present = [o for o in orderings if is_random(o) and (strategy, o, size) in means]
    if not present:
        return None
    block: dict[str, Any] = {"orderings": present}
    for metric in ("f1", "em"):
        values = [means[(strategy, o, size)][metric] for o in present]
        block[metric] = sum(values) / len(values)
        block[f"{metric}_std"] = statistics.pstdev(values) if len(values) > 1 else None
    return block


def _difference(left: Mapping[str, Any] | None, right: Mapping[str, Any] | None) -> dict[str, float | None]:
    if left is None or right is None:
        return {"f1": None, "em": None}
    return {metric: round_score(left[metric] - right[metric]) for metric in ("f1", "em")}


def _pair(means: Mapping[str, Any] | None) -> dict[str, float | None]:
    return {metric: None if means is None else round_score(means[metric]) for metric in ("f1", "em")}
