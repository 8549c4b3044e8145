"""NeedleBench's block of the results: the scores of the paper's tables (equations 2-4).

:func:`needlebench_summary` is the benchmark's ``summarize``; the report section
(:mod:`eval.benchmarks.needlebench.report`) reads the block it writes under ``scores.needlebench``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from eval.benchmarks.needlebench.choice import circular_scores
from eval.benchmarks.needlebench.tasks import PAPER_LANGS, task_of
from eval.scored import ScoredSample, mean_score, round_score, sample_stats, value_order
from eval.scoring import enl, weighted_average
from generators.needlebench.spec import CHOICE_TASKS, SPARSE_TASKS, TASKS

ENL_TAU = 0.5
"""The accuracy threshold of ENL-50 (paper §3.2: tau = 50%)."""
SHORT_CONTEXT_TOKENS = 2000
"""ATC needle counts whose prompts average at most this many tokens form the paper's "<=2K" column."""


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
    - ``atc_choice``: per multiple-choice ATC task (``atc-choice``, ``atc-choice-reasoning``) and language,
      OpenCompass's ``CircularEvaluator`` scores (:func:`eval.benchmarks.needlebench.choice.circular_scores`):
      per needle count and overall the circular score (every rotation of a question right), the accuracy over
      rotations and over the ``ABCD`` rotation alone. (``tasks`` holds these tasks' plain mean over rotations.)
    - ``m_rt_depth_cells``: M-RT rows of the ``per-depth`` layout scored per needle depth, as OpenCompass v2's
      ``NeedleBenchParallelEvaluator`` (``opencompass/datasets/needlebench_v2/parallel.py``) scores each depth:
      per config x length x depth the share of the needles at that depth that were found (``n``: needles).
      Every row holds one needle per depth, so the mean over a config's depths and lengths is its M-RT score.

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
        langs = {lang: sample_stats(group)
                 for lang, group in sorted(by_task[task].items(), key=lambda kv: _lang_order(kv[0]))}
        tasks[task] = {**langs, "overall": mean_score(stats["score"] for stats in langs.values())}
    sparse = [task for task in tasks if task in SPARSE_TASKS]
    return {
        "tasks": tasks,
        "overall": {"score": mean_score(tasks[t]["overall"] for t in sparse), "tasks": sparse},
        "atc": {lang: _atc_summary(group) for lang, group in sorted(by_task.get("atc", {}).items(),
                                                                   key=lambda kv: _lang_order(kv[0]))},
        "m_rs_cells": _needle_cells([s for task, s in samples if task == "m-rs"]),
        "atc_choice": {task: {lang: circular_scores(group) for lang, group in sorted(by_task[task].items(),
                                                                                 key=lambda kv: _lang_order(kv[0]))}
                       for task in CHOICE_TASKS if task in by_task},
        "m_rt_depth_cells": _depth_cells([s for task, s in samples if task == "m-rt"]),
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
        rows[str(count)] = {**sample_stats(group), "mean_n_tokens": None if mean_tokens is None else round(mean_tokens, 1)}
        # Unrounded, as sample_stats computes it before rounding: equation 4 and ENL see exact accuracies.
        accuracy[count] = sum(0.0 if s.error_kind else float(s.score or 0.0) for s in group) / len(group)
        if mean_tokens is not None and mean_tokens <= SHORT_CONTEXT_TOKENS:
            short.append(count)
    return {
        "by_needles": rows,
        "weighted_all": round_score(weighted_average(accuracy)) if accuracy else None,
        "weighted_short": round_score(weighted_average({n: accuracy[n] for n in short})) if short else None,
        "short_needle_counts": short,
        "enl_50": enl(accuracy, ENL_TAU),
    }


def _needle_cells(samples: Sequence[ScoredSample]) -> list[dict[str, Any]]:
    """Cells config x needle count x length x depth, in that order."""
    cells: dict[tuple[str, Any, Any, Any], list[ScoredSample]] = defaultdict(list)
    for sample in samples:
        meta = sample.metadata
        cells[(sample.config, meta.get("needle_count"), meta.get("length"), meta.get("depth"))].append(sample)
    ordered = sorted(cells.items(), key=lambda kv: (kv[0][0], *(value_order(v) for v in kv[0][1:])))
    return [{"config": c, "needle_count": n, "length": length, "depth": depth, **sample_stats(group)}
            for (c, n, length, depth), group in ordered]


def _depth_cells(samples: Sequence[ScoredSample]) -> list[dict[str, Any]]:
    """Per config x length x needle depth of the per-depth M-RT samples: the share of needles found there.

    A sample's ``needle_depths`` metadata gives each needle's depth, its ``needle_<i>`` secondary scores
    whether needle ``i`` was found (:meth:`eval.benchmarks.needlebench.tasks.NeedleBenchTask.secondary_scores`);
    a sample that ended in an error, or has no answer, found none. Samples without ``needle_depths`` (the
    ``spread`` layout, whose rows have a depth) are left out.
    """
    cells: dict[tuple[str, Any, Any], list[float]] = defaultdict(list)
    for sample in samples:
        for i, depth in enumerate(sample.metadata.get("needle_depths") or ()):
            hit = 0.0 if sample.error_kind else float(sample.extra.get(f"needle_{i}", 0.0))
            cells[(sample.config, sample.metadata.get("length"), depth)].append(hit)
    ordered = sorted(cells.items(), key=lambda kv: (kv[0][0], *(value_order(v) for v in kv[0][1:])))
    return [{"config": c, "length": length, "depth": depth, "score": round_score(sum(hits) / len(hits)), "n": len(hits)}
            for (c, length, depth), hits in ordered]


def _task_order(task: str) -> tuple[int, str]:
    return (TASKS.index(task) if task in TASKS else len(TASKS), task)


def _lang_order(lang: str) -> tuple[int, str]:
    return (PAPER_LANGS.index(lang) if lang in PAPER_LANGS else len(PAPER_LANGS), lang)
