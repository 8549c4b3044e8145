"""Score saved samples and aggregate them into ``results.json``.

Scores come from the saved records alone (response text, references, task name, metadata), so
``python -m eval score`` can re-score a run with no dataset and no model. A sample that ended in an
error scores 0 in ``score`` (a model must not gain by failing) and is left out of
``score_answered``; a sample with no record is missing and makes the run incomplete.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from eval.scoring import enl, weighted_average
from eval.store import is_done
from eval.tasks import TaskOptions, get_task
from eval.tasks.haystackcraft import TASK_NAMES as HAYSTACKCRAFT_TASKS
from eval.tasks.haystackcraft import is_random, ordering_order, strategy_order
from eval.tasks.needlebench import PAPER_LANGS, task_of
from generators.needlebench.spec import SPARSE_TASKS

SCHEMA_VERSION = 1
MEASURES = frozenset({"n_tokens"})
"""Metadata columns that are measurements, not categories: no ``by`` breakdown per value (a prompt's
token count takes a new value on almost every sample); summaries average them instead."""
IDENTIFIERS = frozenset({"qid", "original_id"})
"""Metadata columns that name one question: kept in the samples, never broken down by (one group per question)."""
ENL_TAU = 0.5
"""The accuracy threshold of ENL-50 (paper §3.2: tau = 50%)."""
SHORT_CONTEXT_TOKENS = 2000
"""ATC needle counts whose prompts average at most this many tokens form the paper's "<=2K" column."""


@dataclass(frozen=True)
class ScoredSample:
    """One expected sample after scoring. ``score`` is None when it has no done record.

    ``extra`` holds the secondary scores of a task that reports some beside its metric
    (``secondary_scores``: HaystackCraft's exact match ``em``); empty otherwise and for errors.
    """

    key: str
    config: str
    task: str
    metadata: Mapping[str, Any]
    score: float | None
    error_kind: str | None
    extra: Mapping[str, float] = field(default_factory=dict)


def score_samples(
    expected: Sequence[Mapping[str, Any]], records: Mapping[str, Mapping[str, Any]], options: TaskOptions
) -> list[ScoredSample]:
    """Score every expected sample (``key``, ``config``, ``task``, ``metadata``) from its record."""
    tasks: dict[str, Any] = {}
    scored = []
    for item in expected:
        record = records.get(item["key"])
        score: float | None = None
        error_kind = None
        extra: dict[str, float] = {}
        if record is not None:
            error = record.get("error")
            if error is not None:
                error_kind = error["kind"]
                score = 0.0 if is_done(record) else None
            else:
                task = tasks.get(record["task"]) or tasks.setdefault(record["task"], get_task(record["task"], options))
                prediction = task.extract(record["text"])
                score = task.score(prediction, record["references"])
                if hasattr(task, "secondary_scores"):
                    extra = task.secondary_scores(prediction, record["references"])
        scored.append(ScoredSample(item["key"], item["config"], item["task"], item["metadata"], score, error_kind,
                                   extra))
    return scored


def _stats(samples: Sequence[ScoredSample]) -> dict[str, Any]:
    """Mean score (errors count 0), mean over answered samples, counts and standard error."""
    values = [0.0 if s.error_kind else float(s.score or 0.0) for s in samples]
    answered = [s.score for s in samples if s.score is not None and s.error_kind is None]
    n = len(values)
    mean = sum(values) / n if n else None
    stderr = statistics.stdev(values) / math.sqrt(n) if n > 1 else None
    return {
        "score": _round(mean),
        "score_answered": _round(sum(answered) / len(answered)) if answered else None,
        "n": n,
        "n_errors": sum(1 for s in samples if s.error_kind),
        "stderr": _round(stderr),
    }


def _unweighted_mean(groups: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The mean of the groups' scores, each group counting once, and how many groups had a score."""
    scores = [g["score"] for g in groups.values() if g["score"] is not None]
    return {"score": _round(sum(scores) / len(scores)) if scores else None, "n_configs": len(scores)}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def aggregate_scores(scored: Sequence[ScoredSample], metric: str) -> dict[str, Any]:
    """Overall scores, the task average, scores by config, task and each metadata column, and cells.

    ``overall`` is the mean over samples; ``task_average`` is the unweighted mean of the per-config
    scores (RULERv2 averages over its tasks). The two agree when every config has as many samples.
    ``by`` breaks the run down by each metadata column, ``by_config`` does the same within each
    config (``{config: {column: {value: stats}}}``); neither breaks down by a :data:`MEASURES`
    column (nor by an :data:`IDENTIFIERS` column). Cells are config x length x depth. A run with
    NeedleBench samples also gets a ``needlebench`` block (:func:`needlebench_summary`), one with
    HaystackCraft samples a ``haystackcraft`` block (:func:`haystackcraft_summary`).
    """
    counted = [s for s in scored if s.score is not None or s.error_kind]
    by: dict[str, dict[str, list[ScoredSample]]] = defaultdict(lambda: defaultdict(list))
    by_config: dict[str, dict[str, dict[str, list[ScoredSample]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    cells: dict[tuple[str, Any, Any], list[ScoredSample]] = defaultdict(list)
    for sample in counted:
        by["config"][sample.config].append(sample)
        by["task"][sample.task].append(sample)
        for column, value in sample.metadata.items():
            if value is not None and column not in MEASURES and column not in IDENTIFIERS:
                by[column][str(value)].append(sample)
                by_config[sample.config][column][str(value)].append(sample)
        cells[(sample.config, sample.metadata.get("length"), sample.metadata.get("depth"))].append(sample)
    by_stats = _grouped_stats(by)
    scores = {
        "metric": metric,
        "overall": _stats(counted),
        "task_average": _unweighted_mean(by_stats.get("config", {})),
        "by": by_stats,
        "by_config": {config: _grouped_stats(columns) for config, columns in sorted(by_config.items())},
        "cells": [
            {"config": c, "length": length, "depth": depth, **_stats(group)}
            for (c, length, depth), group in sorted(cells.items(), key=lambda kv: (kv[0][0], _order(kv[0][1]), _order(kv[0][2])))
        ],
    }
    summary = needlebench_summary(counted)
    if summary is not None:
        scores["needlebench"] = summary
    static = haystackcraft_summary(counted)
    if static is not None:
        scores["haystackcraft"] = static
    return scores


def _grouped_stats(groups: Mapping[str, Mapping[str, Sequence[ScoredSample]]]) -> dict[str, dict[str, Any]]:
    """``{column: {value: stats}}``, columns sorted by name, values in :func:`_order`."""
    return {
        column: {value: _stats(group) for value, group in sorted(values.items(), key=lambda kv: _order(kv[0]))}
        for column, values in sorted(groups.items())
    }


def _order(value: Any) -> tuple[int, float, str]:
    """Numbers before strings, numbers numerically: '4096' < '16384'; None last."""
    if value is None:
        return (2, 0.0, "")
    try:
        return (0, float(value), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(value))


# NeedleBench -----------------------------------------------------------------------------------------


def needlebench_summary(scored: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """The NeedleBench scores of the paper's tables, from the NeedleBench samples among ``scored``.

    Scores are fractions in [0, 1]; a sample that ended in an error counts 0, as in ``overall``.

    - ``tasks``: per task (``s-rt``, ``m-rt``, ``m-rs``, ``atc``) and language the task score,
      equation 2: the mean over every sample of the config (all lengths, depths and repeats),
      with its counts; ``overall`` is the mean of the languages present (Tables 1-2).
    - ``overall``: equation 3, the mean of the task overalls of the information-sparse tasks
      present (``tasks`` lists them); None when the run has none.
    - ``atc``: per language, ``by_needles`` (accuracy ``P_N`` per needle count with
      ``mean_n_tokens``, the prompts' mean length in tokens), ``weighted_all`` (equation 4 over
      every count), ``weighted_short`` (equation 4 over the counts whose ``mean_n_tokens`` is at
      most :data:`SHORT_CONTEXT_TOKENS`, listed in ``short_needle_counts``: the paper's "<=2K"
      column; None when there is none) and ``enl_50`` (equation 4, tau = :data:`ENL_TAU`).
    - ``m_rs_cells``: multi-needle reasoning cells per config x needle count x length x depth
      (the paper's Figure 5 heatmaps, one per needle count).

    Returns:
        The block, or None when no sample is a NeedleBench task.
    """
    samples = [(task_of(s.task), s) for s in scored]
    samples = [(task, s) for task, s in samples if task is not None]
    if not samples:
        return None
    by_task: dict[str, dict[str, list[ScoredSample]]] = defaultdict(lambda: defaultdict(list))
    for task, sample in samples:
        by_task[task][str(sample.metadata.get("lang"))].append(sample)
    tasks: dict[str, dict[str, Any]] = {}
    for task in sorted(by_task, key=_task_order):
        langs = {lang: _stats(group) for lang, group in sorted(by_task[task].items(), key=lambda kv: _lang_order(kv[0]))}
        tasks[task] = {**langs, "overall": _mean(stats["score"] for stats in langs.values())}
    sparse = [task for task in tasks if task in SPARSE_TASKS]
    return {
        "tasks": tasks,
        "overall": {"score": _mean(tasks[t]["overall"] for t in sparse), "tasks": sparse},
        "atc": {lang: _atc_summary(group) for lang, group in sorted(by_task.get("atc", {}).items(),
                                                                   key=lambda kv: _lang_order(kv[0]))},
        "m_rs_cells": _needle_cells([s for task, s in samples if task == "m-rs"]),
    }


def _atc_summary(samples: Sequence[ScoredSample]) -> dict[str, Any]:
    """One language's ATC accuracy per needle count, weighted averages and ENL-50."""
    by_needles: dict[int, list[ScoredSample]] = defaultdict(list)
    for sample in samples:
        by_needles[int(sample.metadata["needle_count"])].append(sample)
    rows: dict[str, dict[str, Any]] = {}
    accuracy: dict[int, float] = {}
    short: list[int] = []
    for count in sorted(by_needles):
        group = by_needles[count]
        tokens = [float(s.metadata["n_tokens"]) for s in group if s.metadata.get("n_tokens") is not None]
        mean_tokens = sum(tokens) / len(tokens) if tokens else None
        rows[str(count)] = {**_stats(group), "mean_n_tokens": None if mean_tokens is None else round(mean_tokens, 1)}
        # Unrounded, as _stats computes it before rounding: equation 4 and ENL see exact accuracies.
        accuracy[count] = sum(0.0 if s.error_kind else float(s.score or 0.0) for s in group) / len(group)
        if mean_tokens is not None and mean_tokens <= SHORT_CONTEXT_TOKENS:
            short.append(count)
    return {
        "by_needles": rows,
        "weighted_all": _round(weighted_average(accuracy)) if accuracy else None,
        "weighted_short": _round(weighted_average({n: accuracy[n] for n in short})) if short else None,
        "short_needle_counts": short,
        "enl_50": enl(accuracy, ENL_TAU),
    }


def _needle_cells(samples: Sequence[ScoredSample]) -> list[dict[str, Any]]:
    """Cells config x needle count x length x depth, in that order."""
    cells: dict[tuple[str, Any, Any, Any], list[ScoredSample]] = defaultdict(list)
    for sample in samples:
        meta = sample.metadata
        cells[(sample.config, meta.get("needle_count"), meta.get("length"), meta.get("depth"))].append(sample)
    ordered = sorted(cells.items(), key=lambda kv: (kv[0][0], *(_order(v) for v in kv[0][1:])))
    return [{"config": c, "needle_count": n, "length": length, "depth": depth, **_stats(group)}
            for (c, n, length, depth), group in ordered]


def _task_order(task: str) -> tuple[int, str]:
    order = [*SPARSE_TASKS, "atc"]
    return (order.index(task) if task in order else len(order), task)


def _lang_order(lang: str) -> tuple[int, str]:
    return (PAPER_LANGS.index(lang) if lang in PAPER_LANGS else len(PAPER_LANGS), lang)


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return _round(sum(present) / len(present)) if present else None


# HaystackCraft ---------------------------------------------------------------------------------------

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

    Returns:
        The block, or None when no sample is a HaystackCraft task.
    """
    samples = [s for s in scored if s.task in HAYSTACKCRAFT_TASKS]
    if not samples:
        return None
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
        "random": {name: {str(n): {k: v if k == "orderings" else _round(v) for k, v in r.items()}
                          for n, r in random[name].items() if r is not None} for name in names},
        "descending_minus_random": {name: {str(n): _difference(means.get((name, "descending", n)), random[name][n])
                                           for n in sizes} for name in names},
        "ordering_ablation": {"size": largest, "strategies": {
            name: {**{o: _pair(means.get((name, o, largest))) for o in ("descending", "ascending")},
                   "random": _pair(random[name][largest]), "middle": _pair(means.get((name, "middle", largest)))}
            for name in names if any(c[0] == name and c[2] == largest for c in groups)}},
    }


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
    stats = _stats(samples)
    return {**{k: _round(v) for k, v in _f1_em(samples).items()}, "n": stats["n"], "n_errors": stats["n_errors"],
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
    return {metric: _round(left[metric] - right[metric]) for metric in ("f1", "em")}


def _pair(means: Mapping[str, Any] | None) -> dict[str, float | None]:
    return {metric: None if means is None else _round(means[metric]) for metric in ("f1", "em")}


def count_outcomes(scored: Sequence[ScoredSample]) -> dict[str, Any]:
    """Expected, answered, errors by kind, and missing (no record, or only a transient error) counts."""
    errors = Counter(s.error_kind for s in scored if s.error_kind)
    return {
        "expected": len(scored),
        "answered": sum(1 for s in scored if s.score is not None and s.error_kind is None),
        "errors": dict(sorted(errors.items())),
        "missing": sum(1 for s in scored if s.score is None),
    }


def usage_and_timing(records: Iterable[Mapping[str, Any]]) -> tuple[dict[str, int], dict[str, Any]]:
    """Token totals over the given records; latency statistics over the answered ones."""
    usage = Counter({"prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0})
    latencies, attempts, requests = [], 0, 0
    for record in records:
        requests += 1
        usage.update({k: int(v) for k, v in (record.get("usage") or {}).items() if k in usage})
        if record.get("error") is None:  # an instant rejection is not a latency
            latencies.append(float(record.get("latency_s") or 0.0))
        attempts += int(record.get("attempts") or 1)
    latencies.sort()

    def quantile(q: float) -> float | None:
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))], 4) if latencies else None

    timing = {
        "requests": requests,
        "attempts": attempts,
        "mean_latency_s": round(sum(latencies) / len(latencies), 4) if latencies else None,
        "p50_latency_s": quantile(0.5),
        "p95_latency_s": quantile(0.95),
    }
    return dict(usage), timing
