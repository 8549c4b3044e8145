"""Scored samples and the statistics every summary shares.

A :class:`ScoredSample` is one expected sample after its task scored the saved record. The helpers
here (:func:`score_records`, :func:`sample_stats`, :func:`round_score`, :func:`value_order`,
:func:`mean_score`) are what the run-wide aggregation and each benchmark's own summary compute
with, so that a benchmark module can use them without importing the aggregation (which loops
over the benchmarks).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from eval.store import is_done
from eval.task import Task


@dataclass(frozen=True)
class ScoredSample:
    """One expected sample after scoring. ``score`` is None when it has no done record.

    ``extra`` holds the secondary scores of a task that reports some beside its metric
    (``secondary_scores``: HaystackCraft's exact match ``em``); empty otherwise and for errors.
    ``prediction`` is the extracted answer that was scored (None for an error or a missing sample).
    """

    key: str
    config: str
    task: str
    metadata: Mapping[str, Any]
    score: float | None
    error_kind: str | None
    extra: Mapping[str, float] = field(default_factory=dict)
    prediction: str | None = None


def score_records(expected: Sequence[Mapping[str, Any]], records: Mapping[str, Mapping[str, Any]],
                  task_for: Callable[[str], Task]) -> list[ScoredSample]:
    """Score every expected sample (``key``, ``config``, ``task``, ``metadata``) from its record.

    A sample that ended in a final error scores 0, one with only a transient error or no record
    has no score (missing).

    Args:
        expected: The run's expected samples, in order.
        records: The record that counts for each key.
        task_for: The task of a task name (called once per name).
    """
    tasks: dict[str, Task] = {}
    scored = []
    for item in expected:
        record = records.get(item["key"])
        score: float | None = None
        error_kind = None
        extra: dict[str, float] = {}
        prediction: str | None = None
        if record is not None:
            error = record.get("error")
            if error is not None:
                error_kind = error["kind"]
                score = 0.0 if is_done(record) else None
            else:
                task = tasks.get(record["task"]) or tasks.setdefault(record["task"], task_for(record["task"]))
                prediction = task.extract(record["text"])
                score = task.score(prediction, record["references"])
                if hasattr(task, "secondary_scores"):
                    extra = task.secondary_scores(prediction, record["references"])
        scored.append(ScoredSample(item["key"], item["config"], item["task"], item["metadata"], score, error_kind,
                                   extra, prediction))
    return scored


def sample_stats(samples: Sequence[ScoredSample]) -> dict[str, Any]:
    """Mean score (errors count 0), mean over answered samples, counts and standard error."""
    values = [0.0 if s.error_kind else float(s.score or 0.0) for s in samples]
    answered = [s.score for s in samples if s.score is not None and s.error_kind is None]
    n = len(values)
    mean = sum(values) / n if n else None
    stderr = statistics.stdev(values) / math.sqrt(n) if n > 1 else None
    return {
        "score": round_score(mean),
        "score_answered": round_score(sum(answered) / len(answered)) if answered else None,
        "n": n,
        "n_errors": sum(1 for s in samples if s.error_kind),
        "stderr": round_score(stderr),
    }


def round_score(value: float | None) -> float | None:
    """A score as results files keep it: six decimals (None stays None)."""
    return None if value is None else round(value, 6)


def mean_score(values: Iterable[float | None]) -> float | None:
    """The rounded mean of the values that are present; None when none is."""
    present = [v for v in values if v is not None]
    return round_score(sum(present) / len(present)) if present else None


def value_order(value: Any) -> tuple[int, float, str]:
    """Sort key of a breakdown value: numbers before strings, numbers numerically ('4096' < '16384'); None last."""
    if value is None:
        return (2, 0.0, "")
    try:
        return (0, float(value), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(value))
