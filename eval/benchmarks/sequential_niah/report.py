"""Sequential-NIAH in the report: accuracy by group (Figure 5), the noise analysis (Table 5) and the judge.

A run's block is the ``sequential-niah`` entry of its results' ``scores``
(:func:`eval.benchmarks.sequential_niah.summary.sequential_niah_summary`, written by the harness);
for older results without it, it is computed from the run directory's run file and samples
(:func:`scored_samples`). When the run directory holds LLM-judge verdicts
(:func:`eval.judge.judge_run`), a ``judge`` block adds the judge's accuracy on the originals and
its agreement with the rule scorer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eval.benchmarks.sequential_niah.judge import JUDGE_RUBRIC
from eval.benchmarks.sequential_niah.summary import (
    GROUP_COLUMNS,
    NOISE_LABELS,
    ORIGINAL,
    group_order,
    is_correct,
    sequential_niah_summary,
    type_order,
)
from eval.benchmarks.sequential_niah.task import TASK_NAMES, SequentialNiahTask
from eval.report_runs import Run, markdown_table, points
from eval.rubric import read_verdicts
from eval.scored import ScoredSample, score_records
from eval.store import RunDirectory
from eval.task import TaskOptions
from generators.sequential_niah.spec import BENCHMARK

if TYPE_CHECKING:
    from matplotlib.figure import Figure

GROUPS_PLOT = "sequential_niah_groups.png"


# The block of a run -------------------------------------------------------------------------------------


def scored_samples(run_dir: Path) -> list[ScoredSample]:
    """A run's Sequential-NIAH samples scored from its run file and samples (as ``python -m eval score`` does)."""
    directory = RunDirectory(run_dir)
    saved = directory.read_run()
    options = TaskOptions.from_record(saved["run"]["task_options"])
    expected = [e for e in saved["expected"] if e["task"] in TASK_NAMES]
    return score_records(expected, directory.latest_samples(), lambda name: SequentialNiahTask(name, options))


def judged_samples(rule: Sequence[ScoredSample], run_dir: Path) -> list[ScoredSample]:
    """The rule-scored samples with the LLM judge's verdicts from the run's judge log as their scores
    instead (1 for correct, 0 for incorrect or unreadable; no verdict: missing)."""
    verdicts = read_verdicts(RunDirectory(run_dir), JUDGE_RUBRIC)
    judged = []
    for sample in rule:
        if sample.task in TASK_NAMES and not sample.error_kind:
            verdict = verdicts.get(sample.key)
            sample = replace(sample, score=None if verdict is None or verdict.error else verdict.score or 0.0)
        judged.append(sample)
    return judged


def judge_block(rule: Sequence[ScoredSample], judged: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """The judge's accuracy on the original rows and its agreement with the rule scorer there."""
    by_key = {s.key: s for s in rule}
    pairs = [(by_key[s.key], s) for s in judged if s.task in TASK_NAMES and s.score is not None and not s.error_kind
             and str(s.metadata.get("variant") or ORIGINAL) == ORIGINAL]
    if not pairs:
        return None
    return {"accuracy": round(sum(is_correct(j) for _, j in pairs) / len(pairs), 6),
            "agreement": round(sum(is_correct(r) == is_correct(j) for r, j in pairs) / len(pairs), 6), "n": len(pairs)}


def summary(run: Run) -> Mapping[str, Any]:
    """The run's Sequential-NIAH block: its entry in ``scores`` (under the benchmark's id), else computed
    from its samples; with a ``judge`` block when the run directory holds judge verdicts. Empty for other runs."""
    tasks = (run.scores.get("by") or {}).get("task") or {}
    if not any(task in TASK_NAMES for task in tasks):
        return {}
    directory = RunDirectory(run.directory)
    if not directory.is_run():
        return dict(run.scores.get(BENCHMARK) or {})
    return _computed(str(directory.path.resolve()), directory.stamp(),
                     json.dumps(run.scores.get(BENCHMARK), sort_keys=True))


@lru_cache(maxsize=8)
def _computed(directory: str, _stamps: tuple[tuple[int, int], ...], saved: str) -> dict[str, Any]:
    """The block of a run directory, cached while its files are unchanged (the section and the plot share it)."""
    block = dict(json.loads(saved) or {})
    rule: list[ScoredSample] | None = None
    if not block:
        rule = scored_samples(Path(directory))
        block = dict(sequential_niah_summary(rule) or {})
    if block and RunDirectory(directory).has_judgements():
        rule = rule if rule is not None else scored_samples(Path(directory))
        block["judge"] = judge_block(rule, judged_samples(rule, Path(directory)))
    return block


# Markdown -------------------------------------------------------------------------------------------------


def sequential_niah_section(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
    """The report's Sequential-NIAH section: overall and group accuracy, Table 5, the judge.

    Args:
        runs: Every run of the report; those without Sequential-NIAH samples are left out.
        plots: Relative path of each plot drawn, by view (``"groups"``).

    Returns:
        Markdown lines; none when no run has Sequential-NIAH samples.
    """
    blocks = [(run, summary(run)) for run in runs]
    blocks = [(run, block) for run, block in blocks if block]
    if not blocks:
        return []
    lines = ["## Sequential-NIAH", "",
             ("Accuracy (%) over the original rows: an answer is correct when its items match every reference item, "
              "with no extra item and, where the question asks for order, in reference order (rule scorer)."), ""]
    lines += markdown_table(["run", "accuracy", "n", "errors"],
                            [[run.label, points(b["overall"]["accuracy"]), b["overall"]["n"], b["overall"]["n_errors"]]
                             for run, b in blocks])
    for column, title in GROUP_COLUMNS.items():
        values = _values(blocks, column)
        if not values:
            continue
        panel, name = title.split(" ", 1)
        rows = []
        for run, block in blocks:
            by_value = (block.get("by") or {}).get(column) or {}
            rows.append([run.label, *(points((by_value.get(v) or {}).get("accuracy")) for v in values)])
        lines += [f"### By {name} (Figure 5{panel})", "", *markdown_table(["run", *values], rows)]
    if "groups" in plots:
        lines += [f"![Sequential-NIAH accuracy by group]({plots['groups']})", ""]
    lines += noise_table(blocks)
    lines += judge_table(blocks)
    return lines


def _values(blocks: Sequence[tuple[Run, Mapping[str, Any]]], column: str) -> list[str]:
    values = {v for _, b in blocks for v in (b.get("by") or {}).get(column, {})}
    return sorted(values, key=lambda v: group_order(column, v))


def noise_table(blocks: Sequence[tuple[Run, Mapping[str, Any]]]) -> list[str]:
    """Table 5: per run, Acc. and Cons. (%) under each noise type and all together, with Ref."""
    noisy = [(run, b["noise"]) for run, b in blocks if b.get("noise")]
    if not noisy:
        return []
    types = sorted({t for _, n in noisy for t in n["types"]}, key=type_order)
    header = ["model", "metric", "Ref.", *(NOISE_LABELS.get(t, t) for t in types), "All"]
    rows: list[list[object]] = []
    for run, noise in noisy:
        for metric, name in (("acc", "Acc."), ("cons", "Cons.")):
            ref = points(noise["ref"]) if metric == "acc" else "-"
            rows.append([run.label, name, ref, *(points((noise["by_type"].get(t) or {}).get(metric)) for t in types),
                         points(noise["all"][metric])])
    counts = []
    for run, noise in noisy:
        orphans = noise["orphan_variants"]
        left_out = f", {orphans} variants without their original left out" if orphans else ""
        counts.append(f"{run.label}: {noise['n_originals']} originals{left_out}")
    return ["### Noise analysis (Table 5)", "",
            ("Acc.: mean accuracy over the original rows and their noisy variants of the type (Ref.: the originals "
             "alone); Cons.: share of originals whose correctness is the same in every variant of the type; All: "
             f"every type together. {'; '.join(counts)}."), "", *markdown_table(header, rows)]


def judge_table(blocks: Sequence[tuple[Run, Mapping[str, Any]]]) -> list[str]:
    """The LLM judge's accuracy on the originals and its agreement with the rule scorer, per run judged."""
    judged = [(run, b["judge"]) for run, b in blocks if b.get("judge")]
    if not judged:
        return []
    rows = [[run.label, points(j["accuracy"]), points(j["agreement"]), j["n"]] for run, j in judged]
    return ["### LLM judge (Figures 10 and 11)", "",
            ("Accuracy (%) under the paper's judge prompts and agreement (%) with the rule scorer, on the originals "
             "judged."), "", *markdown_table(["run", "judge accuracy", "agreement", "n"], rows)]


# Plot --------------------------------------------------------------------------------------------------------


def sequential_niah_plots(runs: Sequence[Run]) -> list[tuple[str, str, Callable[[], Figure]]]:
    """(view, file name, draw) of the Sequential-NIAH plots: Figure 5 when a run has Sequential-NIAH samples."""
    blocks = [(run, summary(run)) for run in runs]
    blocks = [(run, block) for run, block in blocks if block]
    return [("groups", GROUPS_PLOT, lambda: plot_groups(blocks))] if blocks else []


def plot_groups(blocks: Sequence[tuple[Run, Mapping[str, Any]]]) -> Figure:
    """Figure 5: accuracy (%) by length bucket, needle count, pipeline and language, one bar per run.

    A group a run has no sample in gets no bar (a NaN height, labelled ``n/a`` when the report
    labels every bar with :func:`eval.report_plots.label_bars`), so that it is not read as an
    accuracy of 0.
    """
    from matplotlib.figure import Figure

    fig = Figure(figsize=(11.0, 7.4), layout="constrained")
    axes = fig.subplots(2, 2).flat
    width = 0.8 / max(len(blocks), 1)
    for ax, (column, title) in zip(axes, GROUP_COLUMNS.items()):
        values = _values(blocks, column)
        for index, (run, block) in enumerate(blocks):
            heights = [_percent(((block["by"].get(column) or {}).get(v) or {}).get("accuracy")) for v in values]
            ax.bar([x + (index - (len(blocks) - 1) / 2) * width for x in range(len(values))], heights, width,
                   label=run.label, color=f"C{index % 10}")
        ax.set_xticks(range(len(values)), values, rotation=20 if column == "pipeline" else 0)
        ax.set_ylim(0, 100)
        ax.set_ylabel("accuracy (%)")
        ax.set_title(title)
        ax.grid(True, axis="y", alpha=0.3)
    handles, labels = fig.axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 6), frameon=False)
    fig.suptitle("Sequential-NIAH: accuracy across groups")
    return fig


def _percent(accuracy: float | None) -> float:
    """An accuracy as a bar height in percent; NaN (no bar) when the group has no sample."""
    return math.nan if accuracy is None else 100 * float(accuracy)
