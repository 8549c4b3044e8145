"""Sequential-NIAH in the report: accuracy by group (Figure 5), the noise analysis (Table 5), judge accuracy
(Tables 4 and 6), each beside the paper's published numbers (:mod:`.paper`) where the setups match.

A run's block is the ``sequential-niah`` entry of its results' ``scores``
(:func:`eval.benchmarks.sequential_niah.summary.sequential_niah_summary`, written by the harness);
for older results without it, it is computed from the run directory's run file and samples
(:func:`scored_samples`).

Which scorer makes the headline: the paper scores answers with an LLM judge (§4-5), so a run whose
answers were judged (``python -m eval judge``, verdicts in the run directory) is reported by the
judge's verdicts: the accuracy, the groups, Table 5 and the plot are the judge's, the rule matcher's
accuracy and its agreement with the judge stand beside them, and the run is said to be scored by
the judge model. A run never judged is scored by the order-aware rule matcher (:mod:`.items`),
the offline option, and says so. The paper's rows (italic) follow the runs' rows: §5.2's overall
test accuracies and Table 2's sample counts under a run of the ``default`` config, Table 5 under the
noise analysis, Tables 3, 4 and 6 under a judge's accuracy on ``judge-test``.
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
from eval.benchmarks.sequential_niah.judge_accuracy import accuracy_lines
from eval.benchmarks.sequential_niah.paper import (
    NOISE_COLUMNS,
    OVERALL_TEXT,
    TABLE2,
    TABLE5,
    TABLE5_ORIGINALS,
)
from eval.benchmarks.sequential_niah.summary import (
    GROUP_COLUMNS,
    NOISE_LABELS,
    ORIGINAL,
    group_order,
    is_correct,
    sample_summary,
    sequential_niah_summary,
    type_order,
)
from eval.benchmarks.sequential_niah.task import TASK_NAMES, SequentialNiahTask
from eval.report_runs import MISSING, Run, markdown_table, points
from eval.rubric import read_verdicts
from eval.scored import ScoredSample, score_records
from eval.store import RunDirectory
from eval.task import TaskOptions
from generators.sequential_niah.spec import BENCHMARK

if TYPE_CHECKING:
    from matplotlib.figure import Figure

GROUPS_PLOT = "sequential_niah_groups.png"
RULE_MATCHER = "rule matcher"
"""How the report names the offline scorer (:mod:`eval.benchmarks.sequential_niah.items`)."""
UNNAMED_JUDGE = "LLM judge (model not recorded)"
"""The scorer's name for verdicts written before the judge log named its model."""


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


def judge_models(run_dir: Path) -> list[str]:
    """The judge models named in a run directory's judge log (``judge_model`` of its records), sorted."""
    records = RunDirectory(run_dir).latest_judgements().values()
    return sorted({str(r["judge_model"]) for r in records if r.get("judge_model")})


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
        saved = dict(run.scores.get(BENCHMARK) or {})
        return {**saved, "scored_by": RULE_MATCHER} if "overall" in saved else saved
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
        judged = judged_samples(rule, Path(directory))
        agreement = judge_block(rule, judged)
        headline = sample_summary(judged)
        if agreement and headline:
            models = judge_models(Path(directory))
            rule_overall = block.get("overall") or {}
            return {**block, **headline, "scored_by": ", ".join(models) or UNNAMED_JUDGE, "judge": agreement,
                    "rule": {"accuracy": rule_overall.get("accuracy"), "n": rule_overall.get("n"),
                             "not_judged": (rule_overall.get("n") or 0) - headline["overall"]["n"]}}
    return {**block, "scored_by": RULE_MATCHER} if "overall" in block else block


def scored_by(block: Mapping[str, Any]) -> str:
    """Which scorer made a block's headline: the judge model(s), or :data:`RULE_MATCHER`."""
    return str(block.get("scored_by") or RULE_MATCHER)


# Markdown -------------------------------------------------------------------------------------------------


def sequential_niah_section(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
    """The report's Sequential-NIAH section: overall and group accuracy (saying which scorer made it), Table 5,
    and a judge's accuracy on ``judge-test`` (Tables 4 and 6), each with the paper's rows in italics.

    Args:
        runs: Every run of the report; those without Sequential-NIAH samples are left out.
        plots: Relative path of each plot drawn, by view (``"groups"``).

    Returns:
        Markdown lines; none when no run has Sequential-NIAH samples.
    """
    blocks = [(run, summary(run)) for run in runs]
    blocks = [(run, block) for run, block in blocks if block]
    judges = [(run, (run.scores.get(BENCHMARK) or {}).get("judge_accuracy")) for run in runs]
    judges = [(run, block) for run, block in judges if block]
    if not blocks and not judges:
        return []
    lines = ["## Sequential-NIAH", ""]
    if blocks:
        lines += headline_table(blocks)
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
        lines += samples_table(blocks)
        lines += noise_table(blocks)
    if judges:
        lines += accuracy_lines([(run.label, block) for run, block in judges])
    return lines


def _covers_default(run: Run) -> bool:
    """Whether the run asked the ``default`` config: its originals are the benchmark's samples (Tables 1-2)."""
    return "default" in ((run.results.get("run") or {}).get("configs") or [])


def headline_table(blocks: Sequence[tuple[Run, Mapping[str, Any]]]) -> list[str]:
    """Accuracy over the original rows per run, the scorer that made it, and the rule matcher beside a judge's;
    §5.2's two printed overall test accuracies in italics under a run of the ``default`` test split."""
    rows: list[list[object]] = []
    for run, b in blocks:
        rule, judge = b.get("rule") or {}, b.get("judge") or {}
        rows.append([run.label, scored_by(b), points(b["overall"]["accuracy"]), b["overall"]["n"],
                     b["overall"]["n_errors"], points(rule["accuracy"]) if rule else MISSING,
                     points(judge["agreement"]) if judge else MISSING, rule.get("not_judged", MISSING)])
    paper = any(_covers_default(run) and run.split == "test" for run, _ in blocks)
    if paper:
        rows += [[f"*{model} (paper, §5.2)*", "*the paper's evaluation model*", f"*{value:.2f}*",
                  f"*{TABLE2['test'][2]:,}*", MISSING, MISSING, MISSING, MISSING]
                 for model, value in OVERALL_TEXT.items()]
    return ["Accuracy (%) over the original rows. The paper scores answers with an LLM judge (§4-5): a run judged "
            "with `python -m eval judge` is scored by the judge's verdicts (its model is named under *scored by*; "
            "unreadable verdicts count as wrong, samples without a verdict are left out and counted under *not "
            "judged*), with the rule matcher's accuracy and its agreement with the judge beside it. A run not judged "
            "is scored by the order-aware rule matcher (every reference item matched, no extra item and, where the "
            "question asks for order, in reference order), the offline option."
            + (" Italic rows: the overall test accuracies §5.2 prints (Figure 4), judged by the paper's own model."
               if paper else ""), "",
            *markdown_table(["run", "scored by", "accuracy", "n", "errors", "rule matcher", "agreement", "not judged"],
                            rows)]


def samples_table(blocks: Sequence[tuple[Run, Mapping[str, Any]]]) -> list[str]:
    """Original rows per language (Table 2's columns) per run of the ``default`` config, with Table 2's row
    of the run's split in italics."""
    rows: list[list[object]] = []
    splits: list[str] = []
    for run, b in blocks:
        if not _covers_default(run):
            continue
        by_lang = (b.get("by") or {}).get("lang") or {}
        rows.append([f"{run.label} ({run.split})", *((by_lang.get(lang) or {}).get("n", 0) for lang in ("en", "zh")),
                     b["overall"]["n"]])
        if run.split in TABLE2 and run.split not in splits:
            splits.append(run.split)
    if not rows:
        return []
    rows += [[f"*{split} (paper, Table 2)*", *(f"*{v:,}*" for v in TABLE2[split])] for split in splits]
    return ["### Samples (Table 2)", "", "Original rows scored per language; italic: the paper's split sizes.", "",
            *markdown_table(["run (split)", "English", "Chinese", "Total"], rows)]


def noise_table(blocks: Sequence[tuple[Run, Mapping[str, Any]]]) -> list[str]:
    """Table 5: per run, Acc. and Cons. (%) under each noise type and all together, with Ref.; the paper's
    Table 5 rows in italics."""
    noisy = [(run, b, b["noise"]) for run, b in blocks if b.get("noise")]
    if not noisy:
        return []
    types = sorted({t for _, _, n in noisy for t in n["types"]} | set(NOISE_COLUMNS[1:-1]), key=type_order)
    header = ["model", "scored by", "metric", "Ref.", *(NOISE_LABELS.get(t, t) for t in types), "All"]
    rows: list[list[object]] = []
    for run, block, noise in noisy:
        for metric, name in (("acc", "Acc."), ("cons", "Cons.")):
            ref = points(noise["ref"]) if metric == "acc" else "-"
            rows.append([run.label, scored_by(block), name, ref,
                         *(points((noise["by_type"].get(t) or {}).get(metric)) for t in types),
                         points(noise["all"][metric])])
    for model, metrics in TABLE5.items():
        for metric, name in (("acc", "Acc."), ("cons", "Cons.")):
            values = metrics[metric]
            rows.append([f"*{model} (paper)*", "*the paper's evaluation model*", f"*{name}*",
                         *(_paper_percent(values.get(column)) for column in ("ref", *types, "all"))])
    counts = []
    for run, _, noise in noisy:
        orphans = noise["orphan_variants"]
        left_out = f", {orphans} variants without their original left out" if orphans else ""
        counts.append(f"{run.label}: {noise['n_originals']} originals{left_out}")
    return ["### Noise analysis (Table 5)", "",
            ("Acc.: mean accuracy over the original rows and their noisy variants of the type (Ref.: the originals "
             "alone); Cons.: share of originals whose correctness is the same in every variant of the type; All: "
             f"every type together. {'; '.join(counts)}. Italic rows: the paper's Table 5 ({TABLE5_ORIGINALS} test "
             "samples, three variations per noise type)."), "", *markdown_table(header, rows)]


def _paper_percent(value: float | None) -> str:
    return "*-*" if value is None else f"*{value:.2f}*"


def _values(blocks: Sequence[tuple[Run, Mapping[str, Any]]], column: str) -> list[str]:
    values = {v for _, b in blocks for v in (b.get("by") or {}).get(column, {})}
    return sorted(values, key=lambda v: group_order(column, v))


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
