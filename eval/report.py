"""Reports over finished evaluation runs: a Markdown summary and PNG plots.

:func:`write_report` reads each run directory's results and writes into one folder ``report.md``
(run summaries and comparison tables, one column per run), ``score_vs_length.png`` (score against
context length, one subplot per config) and ``heatmap_<config>.png`` (score by needle depth and
context length) for every config whose cells carry a depth; then each benchmark of
:data:`eval.benchmarks.BENCHMARKS`, in that order, draws its plots and adds its section for the
runs that have it (RULERv2: scores by domain and level and ``levels.png``; NeedleBench: the
paper's tables, ``atc_curve.png`` and the reasoning heatmaps per needle count; HaystackCraft: the
F1 tables by strategy and context size and Figures 3 and 4; Sequential-NIAH: accuracy by group,
the noise analysis of Table 5 and the judge's agreement).

Scores are fractions in [0, 1] in the results and percentages, 0-100 (one decimal; two in the
papers' tables), everywhere in the report. Depths are in percent of the context (RULERv2: 10% bin
lower edges; NeedleBench: the requested depth); lengths are in tokens. Output bytes depend only on
the inputs: no timestamps, sorted listings, PNGs saved without software metadata. The runs are read
by :mod:`eval.report_runs` and drawn by :mod:`eval.report_plots`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.benchmarks import BENCHMARKS
from eval.report_plots import plot_depth_heatmap, plot_score_vs_length, png_bytes
from eval.report_runs import (
    MISSING,
    Run,
    cells_at,
    configs_of,
    depth_configs,
    length_label,
    lengths_of,
    load_runs,
    markdown_table,
    percent,
    pooled_score,
    score_by,
)
from needlework.atomic import atomic_write
from needlework.errors import SpecError

REPORT = "report.md"
SCORE_VS_LENGTH = "score_vs_length.png"


@dataclass(frozen=True)
class ReportFiles:
    """The files :func:`write_report` wrote: the Markdown summary and every plot, in write order."""

    markdown: Path
    plots: tuple[Path, ...]


def write_report(run_dirs: Sequence[Path], out_dir: Path) -> ReportFiles:
    """Write ``report.md`` and the PNG plots comparing the given runs into ``out_dir``.

    Args:
        run_dirs: Run directories, each holding its results; columns and legends follow this order.
        out_dir: Folder to write into; created if missing. Each file is written atomically.

    Returns:
        The paths of the Markdown summary and of every plot written.

    Raises:
        SpecError: No run directory was given.
        InputError: A run's results are missing, are not valid JSON, or lack ``scores``.
    """
    if not run_dirs:
        raise SpecError("write_report needs at least one run directory; got none")
    runs = load_runs(run_dirs)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plots = [out_dir / SCORE_VS_LENGTH]
    atomic_write(plots[0], png_bytes(plot_score_vs_length(runs)))
    heatmaps: dict[str, str] = {}
    for config in depth_configs(runs):
        path = out_dir / heatmap_name(config)
        atomic_write(path, png_bytes(plot_depth_heatmap(runs, config)))
        heatmaps[config] = path.name
        plots.append(path)
    sections: list[str] = []
    for benchmark in BENCHMARKS:
        drawn: dict[str, str] = {}
        for view, name, draw in benchmark.plots(runs) if benchmark.plots else []:
            plots.append(out_dir / name)
            atomic_write(plots[-1], png_bytes(draw()))
            drawn[view] = name
        if benchmark.section is not None:
            sections += benchmark.section(runs, drawn)
    markdown = out_dir / REPORT
    atomic_write(markdown, render_markdown(runs, SCORE_VS_LENGTH, heatmaps, sections).encode("utf-8"))
    return ReportFiles(markdown=markdown, plots=tuple(plots))


def heatmap_name(config: str) -> str:
    """File name of a config's heatmap, with characters unsafe in file names replaced by ``_``."""
    return f"heatmap_{re.sub(r'[^A-Za-z0-9_.-]', '_', config)}.png"


# Formatting --------------------------------------------------------------------------------------


def short_revision(revision: str | None) -> str:
    """A revision shortened to 12 hex digits, keeping an ``algo:`` prefix (``sha256:ab12...``)."""
    if not revision:
        return MISSING
    prefix, _, digest = str(revision).rpartition(":")
    return f"{prefix}:{digest[:12]}" if prefix else digest[:12]


# Markdown ----------------------------------------------------------------------------------------


def render_markdown(runs: Sequence[Run], length_plot: str, heatmaps: Mapping[str, str],
                    sections: Sequence[str] = ()) -> str:
    """The text of ``report.md``.

    Args:
        runs: The loaded runs, one table column each.
        length_plot: Relative path of the score-vs-length plot.
        heatmaps: Relative path of each config's depth heatmap, by config.
        sections: The benchmarks' own sections (in :data:`eval.benchmarks.BENCHMARKS` order), placed
            after the generic comparison tables.

    Returns:
        Markdown ending in one newline.
    """
    lines = ["# needlework evaluation report", ""]
    metrics = sorted({str(r.scores.get("metric")) for r in runs if r.scores.get("metric")})
    lines += [f"Metric: {m}" for m in metrics] + ([""] if metrics else [])
    lines += ["Scores are percentages (0-100) throughout; `n` is the number of samples behind a score.", "",
              "## Runs", ""]
    for run in runs:
        lines += run_summary(run)
    lines += comparison_tables(runs, length_plot, heatmaps)
    lines += sections
    return "\n".join(lines).rstrip("\n") + "\n"


def run_summary(run: Run) -> list[str]:
    """Markdown lines describing one run: what was evaluated, its status, and its cost."""
    info = run.results.get("run") or {}
    counts, usage, timing = (run.results.get(k) or {} for k in ("counts", "usage", "timing"))
    errors = counts.get("errors") or {}
    error_detail = ", ".join(f"{kind} {errors[kind]}" for kind in sorted(errors))
    generation = ", ".join(f"{k}={v}" for k, v in sorted((info.get("generation") or {}).items()))
    lines = [
        f"### {run.label}",
        "",
        f"- model `{info.get('model', MISSING)}`, backend `{info.get('backend', MISSING)}`"
        + (f" ({generation})" if generation else ""),
        f"- dataset `{info.get('dataset', MISSING)}` at `{short_revision(info.get('revision'))}`, "
        f"split `{info.get('split', MISSING)}`, configs {', '.join(info.get('configs') or []) or MISSING}, "
        f"seed {info.get('seed', MISSING)}, limit {info.get('limit') if info.get('limit') is not None else 'none'}",
        f"- run directory `{run.directory.name}`",
        f"- status: {run_status(run.results)}",
        f"- samples: {counts.get('expected', MISSING)} expected, {counts.get('answered', MISSING)} answered, "
        f"{sum(errors.values())} errors" + (f" ({error_detail})" if error_detail else "")
        + f", {counts.get('missing', MISSING)} missing",
        f"- tokens: {_int(usage.get('prompt_tokens'))} prompt, {_int(usage.get('completion_tokens'))} completion, "
        f"{_int(usage.get('reasoning_tokens'))} reasoning",
        f"- time: {_seconds(timing.get('wall_s'))} wall, {_int(timing.get('requests'))} requests, latency "
        f"mean {_seconds(timing.get('mean_latency_s'))}, p50 {_seconds(timing.get('p50_latency_s'))}, "
        f"p95 {_seconds(timing.get('p95_latency_s'))}",
    ]
    lines += [f"- warning: {warning}" for warning in run.results.get("warnings") or []]
    return lines + [""]


def run_status(results: Mapping[str, Any]) -> str:
    """A run's status in plain words: how far it got, how to finish it, and whether it can be reported.

    Reads the fields :func:`eval.runner.score_run` writes (``complete``, ``stopped``, ``counts``,
    ``reportable``, ``not_reportable_because``); results without them count as complete and reportable.

    Examples:
        ``complete (all 300 samples answered); reportable``;
        ``complete (all 6 samples answered); not reportable: --limit 3: only the first rows of each config were run``;
        ``stopped after 12 of 40 samples: 10 of 20 samples failed (--max-error-rate 0.1); fix the cause and re-run
        the same command to resume``.
    """
    counts = results.get("counts") or {}
    expected, answered, missing = (counts.get(k) for k in ("expected", "answered", "missing"))
    known = all(isinstance(v, int) for v in (expected, answered, missing))
    complete = bool(results.get("complete", True))
    if complete:
        status = "complete"
        if known and answered == expected:
            status += f" (all {expected:,} samples answered)"
        elif known:
            failed = expected - answered
            status += f" ({answered:,} of {expected:,} samples answered; the other {failed:,} failed and score 0)"
    else:
        done = f"{expected - missing:,} of {expected:,} samples" if known else "some samples"
        stopped = str(results.get("stopped") or "").removeprefix("stopped: ")
        status = f"stopped after {done}: {stopped}" if stopped else f"incomplete: {done} done"
        if "re-run" not in stopped:
            status += "; re-run the same command to resume"
    reasons = [str(r) for r in results.get("not_reportable_because") or []]
    if not complete:  # the runner's reason for unanswered samples repeats the status
        reasons = [r for r in reasons if "no answer yet" not in r]
    if results.get("reportable", True):
        return f"{status}; reportable"
    return f"{status}; not reportable" + (f": {'; '.join(reasons)}" if reasons else "")


def _int(value: object) -> str:
    return f"{int(value):,}" if isinstance(value, (int, float)) else MISSING


def _seconds(value: object) -> str:
    return f"{float(value):,.2f} s" if isinstance(value, (int, float)) else MISSING


def comparison_tables(runs: Sequence[Run], length_plot: str, heatmaps: Mapping[str, str]) -> list[str]:
    """Markdown lines of the tables that compare runs, scores in percent.

    Overall (sample mean and task average), by config, by length and depth, and config x length.
    """
    labels = [r.label for r in runs]
    lines = ["## Overall: score (%)", ""]
    overall = [r.scores.get("overall") or {} for r in runs]
    lines += markdown_table(
        ["", *labels],
        [
            ["score (mean over samples ± standard error)", *(_score_and_stderr(o) for o in overall)],
            ["task average (unweighted mean over configs)", *(_task_average(r) for r in runs)],
            ["n", *(o.get("n", MISSING) for o in overall)],
            ["errors", *(o.get("n_errors", MISSING) for o in overall)],
        ],
    )
    configs = configs_of(runs)
    lines += ["## By config: score (%)", ""]
    lines += markdown_table(["config", *labels], [[c, *(score_by(r, "config", c) for r in runs)] for c in configs])
    lines += _by_numeric_key(runs, "length", "length (tokens)", length_label)
    lines += [f"![score against context length]({length_plot})", ""]
    lines += _by_numeric_key(runs, "depth", "depth (%)", lambda d: f"{d}%")
    lines += ["## By config and length: score (%)", ""]
    for config in configs:
        lines += [f"### {config}", ""]
        rows = []
        for length in lengths_of(runs, config):
            rows.append([length_label(length), *(_pooled_cell(cells_at(r.cells, config, length)) for r in runs)])
        lines += markdown_table(["length", *labels], rows) if rows else ["No cells for this config.", ""]
        if config in heatmaps:
            lines += [f"![{config}: score by depth and length]({heatmaps[config]})", ""]
    return lines


def _task_average(run: Run) -> str:
    average = run.scores.get("task_average") or {}
    if average.get("score") is None:
        return MISSING
    count = average.get("n_configs", MISSING)
    return f"{percent(average['score'])} ({count} config{'' if count == 1 else 's'})"


def _score_and_stderr(entry: Mapping[str, Any]) -> str:
    stderr = entry.get("stderr")
    suffix = f" ± {100 * float(stderr):.1f}" if isinstance(stderr, (int, float)) else ""
    return percent(entry.get("score")) + suffix if entry.get("score") is not None else MISSING


def _pooled_cell(cells: list[Mapping[str, Any]]) -> str:
    score, n = pooled_score(cells)
    return MISSING if score is None else f"{percent(score)} (n={n})"


def _by_numeric_key(runs: Sequence[Run], column: str, title: str, label: Callable[[int], str]) -> list[str]:
    keys = {k for r in runs for k in (r.scores.get("by") or {}).get(column, {})}
    if not keys:
        return []
    ordered = sorted(keys, key=lambda k: (float(k), k) if _is_number(k) else (math.inf, k))
    rows = [[label(int(k)) if k.isdigit() else k, *(score_by(r, column, k) for r in runs)] for k in ordered]
    return [f"## By {column}: score (%)", ""] + markdown_table([title, *(r.label for r in runs)], rows)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
