"""RULERv2 in the report: scores by domain and level, and the levels plot with golden-context baselines.

RULERv2 runs are read by domain and level (their configs are named ``{domain}_{level}``), and a
run over the ``golden`` split (the golden-context baseline: the same questions without
distractors) is paired with the runs of the same release and model it is a baseline for.

- "By domain" and "By level": each run's ``scores.by.domain`` and ``scores.by.level``, in the
  paper's order (:data:`generators.rulerv2.spec.DOMAINS`, :data:`generators.rulerv2.spec.LEVELS`);
- ``levels.png``: score against length per domain, one line per level, with the golden-context
  baseline of the same release and model dashed when that run is given too;
- "Beside the paper": each run's score on the tasks the paper states a number for, then the
  paper's values in italics, marked *(paper, ...)* (:mod:`eval.benchmarks.rulerv2.paper`), only
  when a run has the task at the paper's five lengths (:func:`paper_grid`). The paper prints no
  table of scores (its results are figures), so these are the values its text states; they are not
  drawn in the levels plot, which has a score per length where the paper gives one mean.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eval.benchmarks.rulerv2.paper import PAPER_LENGTHS_K, STATED
from eval.benchmarks.rulerv2.tasks import domain_and_level
from eval.report_plots import log2_length_axis
from eval.report_runs import (
    MISSING,
    Run,
    markdown_table,
    percent,
    pooled_score,
    score_by,
)
from generators.rulerv2.spec import DOMAINS, LEVELS, TASKS

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

GOLDEN_SPLIT = "golden"
LEVELS_PLOT = "levels.png"
DOMAIN_NAMES: dict[str, str] = {"mk_niah": "multi-key NIAH", "mv_niah": "multi-value NIAH", "mdqa": "multi-doc QA"}
"""Domain (the rows' ``task`` column, :data:`generators.rulerv2.spec.DOMAINS`) -> its name in the paper."""
LEVEL_COLOURS: dict[str, str] = {"basic": "#1f77b4", "easy": "#2ca02c", "medium": "#ff7f0e", "hard": "#d62728"}
"""One fixed colour per RULERv2 level, the same in every subplot and report."""


# Runs by domain and level -----------------------------------------------------------------------


def level_scores(run: Run) -> dict[tuple[str, str], dict[int, float]]:
    """A RULERv2 run's score at each length (tokens), by (domain, level), pooled over depths.

    Only configs named as RULERv2 tasks (``mk_niah_easy``...) count; other configs are left out.
    """
    cells: dict[tuple[str, str], dict[int, list[Mapping[str, Any]]]] = {}
    for cell in run.cells:
        task = domain_and_level(str(cell["config"]))
        if task is not None and cell["length"] is not None:
            cells.setdefault(task, {}).setdefault(int(cell["length"]), []).append(cell)
    scores: dict[tuple[str, str], dict[int, float]] = {}
    for task, by_length in cells.items():
        for length, group in by_length.items():
            score, _ = pooled_score(group)
            if score is not None:
                scores.setdefault(task, {})[length] = score
    return scores


def golden_levels(run: Run) -> dict[tuple[str, str], float]:
    """A golden-context run's score by (domain, level), pooled over all its cells (all at length 0)."""
    pooled: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for cell in run.cells:
        task = domain_and_level(str(cell["config"]))
        if task is not None:
            pooled.setdefault(task, []).append(cell)
    scores = {task: pooled_score(cells)[0] for task, cells in pooled.items()}
    return {task: score for task, score in scores.items() if score is not None}


def level_runs(runs: Sequence[Run]) -> list[Run]:
    """The runs that get a row of the levels plot: not golden, with at least one RULERv2 config."""
    return [run for run in runs if run.split != GOLDEN_SPLIT and level_scores(run)]


def golden_partner(run: Run, runs: Sequence[Run]) -> Run | None:
    """The first of ``runs`` over the ``golden`` split of ``run``'s release (identity and revision) and model.

    The golden split ships in the same release as the test split, so the pair shares the dataset
    identity, the revision and the model; generation settings are not compared.
    """
    for other in runs:
        if other is not run and other.split == GOLDEN_SPLIT and other.release_and_model == run.release_and_model:
            return other
    return None


# Markdown ----------------------------------------------------------------------------------------


def rulerv2_section(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
    """The report's RULERv2 section: scores by domain and by level, and the levels plot.

    Args:
        runs: Every run of the report.
        plots: Relative path of each plot drawn, by view (``"levels"``).

    Returns:
        Markdown lines; none when no run has RULERv2 domains, levels or configs.
    """
    lines = _by_named_key(runs, "domain", [(domain, DOMAIN_NAMES.get(domain, domain)) for domain in DOMAINS])
    lines += _by_named_key(runs, "level", [(level, level) for level in LEVELS])
    lines += paper_lines(runs)
    if "levels" in plots:
        lines += _levels_lines(runs, plots["levels"])
    return ["## RULERv2", "", *lines] if lines else []


def _by_named_key(runs: Sequence[Run], column: str, keys: Sequence[tuple[str, str]]) -> list[str]:
    """A "By <column>" table over ``keys`` ((value, label) pairs, in order); none without the column."""
    present = {k for r in runs for k in (r.scores.get("by") or {}).get(column, {})}
    rows = [[label, *(score_by(r, column, key) for r in runs)] for key, label in keys if key in present]
    return [f"### By {column}", ""] + markdown_table([column, *(r.label for r in runs)], rows) if rows else []


def paper_grid(lengths: Sequence[int]) -> bool:
    """Whether ``lengths`` (tokens) are the paper's five, 8k ... 110k, read in 1,024s or in thousands."""
    return any(sorted(round(n / unit) for n in lengths) == list(PAPER_LENGTHS_K) for unit in (1024, 1000))


def task_scores(run: Run) -> dict[str, tuple[float | None, list[int]]]:
    """A run's score per RULERv2 task (``{domain}_{level}``), pooled over its lengths, with those lengths."""
    cells: dict[str, list[Mapping[str, Any]]] = {}
    for cell in run.cells:
        task = domain_and_level(str(cell["config"]))
        if task is not None and cell["length"]:
            cells.setdefault("_".join(task), []).append(cell)
    return {task: (pooled_score(group)[0], sorted({int(c["length"]) for c in group})) for task, group in cells.items()}


def paper_lines(runs: Sequence[Run]) -> list[str]:
    """The "Beside the paper" table: the runs' scores on the tasks the paper states, then the paper's values.

    A paper value is shown when at least one run has its task at the paper's lengths (:func:`paper_grid`);
    the lines under the table say, per run, whether its lengths are the paper's.
    """
    tasks = [task for task in TASKS if any(stated.task == task for stated in STATED)]
    scored = [(run, task_scores(run)) for run in level_runs(runs)]
    scored = [(run, scores) for run, scores in scored if any(task in scores for task in tasks)]
    if not scored:
        return []
    matched = {task for _, scores in scored for task in tasks if task in scores and paper_grid(scores[task][1])}
    rows: list[list[str]] = [[run.label, *(percent(scores[t][0]) if t in scores else MISSING for t in tasks)]
                             for run, scores in scored]
    for stated in STATED:
        if stated.task in matched:
            rows.append([f"*{stated.model} (paper, text)*",
                         *(f"*{stated.score:.1f}*" if t == stated.task else MISSING for t in tasks)])
    said = []
    for run, scores in scored:
        lengths = sorted({n for t in tasks if t in scores for n in scores[t][1]})
        grid = ", ".join(f"{n:,}" for n in lengths)
        said.append(f"- {run.label}: lengths {grid}" + (" (the paper's five)" if all(
            paper_grid(scores[t][1]) for t in tasks if t in scores) else " (not the paper's 8k, 16k, 32k, 64k, 110k)"))
    return ["### Beside the paper", "",
            ("Score (%) per task, the mean over the run's lengths. The paper prints no table of scores (its results "
             "are figures); the italic *(paper, text)* rows are the values its text states (Figures 3 and 6: GPT4.1 "
             "on multi-value NIAH hard, 58%; its 7B instruct model on multi-value NIAH basic, 48.6%), for MMLU "
             "5-shot needles, four values per key and 100 samples at each of 8k, 16k, 32k, 64k and 110k tokens. "
             "They are shown only when a run has the task at those five lengths."), "",
            *markdown_table(["run", *tasks], rows), *said, ""]


def _levels_lines(runs: Sequence[Run], levels_plot: str) -> list[str]:
    """The levels plot and which golden-context run, if any, gives each run its dashed baselines."""
    lines = [f"![RULERv2: score by level against context length]({levels_plot})", ""]
    for run in level_runs(runs):
        partner = golden_partner(run, runs)
        baseline = f"golden context from {partner.label}" if partner else "no golden-context run given"
        lines.append(f"- {run.label}: {baseline}")
    lines += ["", ("Dashed lines: each level's golden-context score (split `golden`: the same questions "
                   "without distractors) from a run of the same release, revision and model."), ""]
    return lines


# Plot --------------------------------------------------------------------------------------------


def rulerv2_plots(runs: Sequence[Run]) -> list[tuple[str, str, Callable[[], Figure]]]:
    """(view, file name, draw) of the RULERv2 plots: the levels plot when a run has RULERv2 configs."""
    return [("levels", LEVELS_PLOT, lambda: plot_levels(runs))] if level_runs(runs) else []


def plot_levels(runs: Sequence[Run]) -> Figure:
    """RULERv2 score (%) against context length by level: one row per run, one column per domain.

    Each level is a line in its fixed colour (:data:`LEVEL_COLOURS`). When the golden-context run
    of the same release and model is among ``runs`` (:func:`golden_partner`), each level's golden
    score is a dashed horizontal line in that level's colour: the score without distractors.

    Args:
        runs: Every run of the report. Rows are drawn for :func:`level_runs` (at least one is
            needed); golden runs are only drawn as the dashed lines of their partners.

    Returns:
        The figure, not yet saved.
    """
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    rows = level_runs(runs)
    fig = Figure(figsize=(4.6 * len(DOMAINS), 3.3 * len(rows) + 0.9), layout="constrained")
    axes = fig.subplots(len(rows), len(DOMAINS), squeeze=False, sharey=True)
    any_golden = False
    for row_axes, run in zip(axes, rows):
        partner = golden_partner(run, runs)
        golden = golden_levels(partner) if partner is not None else {}
        any_golden = any_golden or bool(golden)
        scores = level_scores(run)
        lengths = sorted({n for by_length in scores.values() for n in by_length if n > 0})
        for ax, domain in zip(row_axes, DOMAINS):
            _draw_levels(ax, scores, golden, domain, lengths)
            ax.set_title(DOMAIN_NAMES.get(domain, domain))
        row_axes[0].set_ylabel(f"{run.label}\nscore (%)")
    handles = [Line2D([], [], color=LEVEL_COLOURS[level], marker="o", label=level) for level in LEVELS]
    if any_golden:
        handles.append(Line2D([], [], color="#555555", linestyle="--", label="golden context"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False)
    fig.suptitle("RULERv2: score by level against context length")
    return fig


def _draw_levels(ax: Axes, scores: Mapping[tuple[str, str], Mapping[int, float]],
                 golden: Mapping[tuple[str, str], float], domain: str, lengths: Sequence[int]) -> None:
    for level in LEVELS:
        points = sorted((n, 100 * score) for n, score in scores.get((domain, level), {}).items() if n > 0)
        if points:
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker="o", color=LEVEL_COLOURS[level])
        if (domain, level) in golden:
            ax.axhline(100 * golden[(domain, level)], color=LEVEL_COLOURS[level], linestyle="--", linewidth=1.2)
    ax.set_ylim(-3, 103)
    ax.grid(True, alpha=0.3)
    ax.set_xlabel("context length (tokens)")
    if lengths:
        log2_length_axis(ax, lengths)
