"""Score saved samples and aggregate them into a run's results.

Scores come from the saved records alone (response text, references, task name, metadata), so
``python -m eval score`` can re-score a run with no dataset and no model. A sample that ended in an
error scores 0 in ``score`` (a model must not gain by failing) and is left out of
``score_answered``; a sample with no record is missing and makes the run incomplete.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from eval.benchmarks import BENCHMARK_OF_TASK, BENCHMARKS, get_task
from eval.scored import (
    ScoredSample,
    mean_score,
    round_score,
    sample_stats,
    score_records,
    value_order,
)
from eval.task import TaskOptions

SCHEMA_VERSION = 1
MEASURES = frozenset({"n_tokens", "context_tokens"})
"""Metadata columns that are measurements, not categories: no ``by`` breakdown per value (a prompt's
token count takes a new value on almost every sample); summaries average them instead."""
IDENTIFIERS = frozenset({"qid", "original_id"})
"""Metadata columns that name one question: kept in the samples, never broken down by (one group per question)."""


def score_samples(
    expected: Sequence[Mapping[str, Any]], records: Mapping[str, Mapping[str, Any]], options: TaskOptions
) -> list[ScoredSample]:
    """Score every expected sample (``key``, ``config``, ``task``, ``metadata``) from its record, with
    the registered tasks (:func:`eval.scored.score_records`)."""
    return score_records(expected, records, lambda name: get_task(name, options))


def _unweighted_mean(groups: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The mean of the groups' scores, each group counting once, and how many groups had a score."""
    scores = [g["score"] for g in groups.values() if g["score"] is not None]
    return {"score": round_score(sum(scores) / len(scores)) if scores else None, "n_configs": len(scores)}


def aggregate_scores(scored: Sequence[ScoredSample], metric: str) -> dict[str, Any]:
    """Overall scores, the task average, scores by config, task and each metadata column, and cells.

    ``overall`` is the mean over samples; ``task_average`` is the unweighted mean of the per-config
    scores (RULERv2 averages over its tasks). The two agree when every config has as many samples.
    ``by`` breaks the run down by each metadata column, ``by_config`` does the same within each
    config (``{config: {column: {value: stats}}}``); neither breaks down by a :data:`MEASURES`
    column (nor by an :data:`IDENTIFIERS` column). Cells are config x length x depth. Each benchmark
    of :data:`eval.benchmarks.BENCHMARKS` with a ``summarize`` and samples in the run adds its block
    under its id (``needlebench``, ``haystackcraft``, ``sequential-niah``), computed from its own samples.
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
        "overall": sample_stats(counted),
        "task_average": _unweighted_mean(by_stats.get("config", {})),
        "by": by_stats,
        "by_config": {config: _grouped_stats(columns) for config, columns in sorted(by_config.items())},
        "cells": [
            {"config": c, "length": length, "depth": depth, **sample_stats(group)}
            for (c, length, depth), group in sorted(cells.items(), key=lambda kv: (kv[0][0], value_order(kv[0][1]), value_order(kv[0][2])))
        ],
    }
    by_benchmark: dict[str, list[ScoredSample]] = defaultdict(list)
    for sample in counted:
        if sample.task in BENCHMARK_OF_TASK:
            by_benchmark[BENCHMARK_OF_TASK[sample.task].id].append(sample)
    for benchmark in BENCHMARKS:
        if benchmark.summarize is not None and by_benchmark.get(benchmark.id):
            block = benchmark.summarize(by_benchmark[benchmark.id])
            if block is not None:
                scores[benchmark.id] = block
    return scores


def _grouped_stats(groups: Mapping[str, Mapping[str, Sequence[ScoredSample]]]) -> dict[str, dict[str, Any]]:
    """``{column: {value: stats}}``, columns sorted by name, values in :func:`eval.scored.value_order`."""
    return {
        column: {value: sample_stats(group) for value, group in sorted(values.items(), key=lambda kv: value_order(kv[0]))}
        for column, values in sorted(groups.items())
    }


def count_outcomes(scored: Sequence[ScoredSample]) -> dict[str, Any]:
    """Expected, answered, errors by kind, and missing (no record, or only a transient error) counts."""
    errors = Counter(s.error_kind for s in scored if s.error_kind)
    return {
        "expected": len(scored),
        "answered": sum(1 for s in scored if s.score is not None and s.error_kind is None),
        "errors": dict(sorted(errors.items())),
        "missing": sum(1 for s in scored if s.score is None),
    }


def stopped_at_max_tokens(records: Iterable[Mapping[str, Any]]) -> int:
    """Answers the backend ended because they reached ``max_tokens`` (``finish_reason == "length"``).

    Such an answer may be cut off before it states its answer (a model that reasons before its
    ``\\boxed{}``), so its score says as much about ``max_tokens`` as about the model.
    """
    return sum(1 for r in records if r.get("error") is None and r.get("finish_reason") == "length")


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


def width_scores(expected: Sequence[Mapping[str, Any]], scored: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """Scaling width (RULERv2 Appendix D.3, Figure 7 bottom): mean, max and majority over 1..k responses per row.

    For each k, over the rows whose first k responses are all done: ``average`` is the mean of their
    scores, ``maximum`` the best of them, ``majority`` the score of the most frequent extracted
    answer among them (ties: the one given first; a failed response has no answer and scores 0);
    each averaged over those rows. None when rows were asked once.

    Args:
        expected: The run's expected samples; several responses of a row carry ``generation`` 0..k-1.
        scored: The samples scored, aligned with ``expected`` (their ``prediction`` is the answer voted on).
    """
    rows: dict[tuple[str, str], dict[int, tuple[float, str | None]]] = defaultdict(dict)
    for entry, sample in zip(expected, scored):
        if entry.get("generation") is not None and sample.score is not None:
            rows[(entry["config"], entry["row_id"])][int(entry["generation"])] = (float(sample.score), sample.prediction)
    if not rows:
        return None
    widest = max(1 + max(done) for done in rows.values())
    curves: dict[str, list[float | None]] = {"average": [], "maximum": [], "majority": []}
    counted: list[int] = []
    for k in range(1, widest + 1):
        firsts = [[done[i] for i in range(k)] for done in rows.values() if all(i in done for i in range(k))]
        counted.append(len(firsts))
        curves["average"].append(mean_score(sum(score for score, _ in f) / k for f in firsts))
        curves["maximum"].append(mean_score(max(score for score, _ in f) for f in firsts))
        curves["majority"].append(mean_score(_majority(f) for f in firsts))
    return {"k": list(range(1, widest + 1)), **curves, "rows": counted}


def _majority(responses: Sequence[tuple[float, str | None]]) -> float:
    """The score of the most frequent answer among ``responses`` (the earliest of tied ones; none: 0)."""
    answers = Counter(answer for _, answer in responses if answer is not None)
    if not answers:
        return 0.0
    top = max(answers.values())
    winner = next(answer for _, answer in responses if answer is not None and answers[answer] == top)
    return next(score for score, answer in responses if answer == winner)
