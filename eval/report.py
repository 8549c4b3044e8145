"""Reports over finished evaluation runs: a Markdown summary and PNG plots.

:func:`write_report` reads each run directory's results and writes into one folder ``report.md``
(run summaries and comparison tables, one column per run), ``score_vs_length.png`` (score against
context length, one subplot per config whose samples have two lengths or more) and
``heatmap_<config>.png`` (score by needle depth and context length) for every config whose cells
carry a depth; then each benchmark of :data:`eval.benchmarks.BENCHMARKS`, in that order, draws its
plots and adds its section for the runs that have it (RULERv2: scores by domain and level and
``levels.png``; NeedleBench: the paper's tables, ``atc_curve.png`` and the reasoning heatmaps per
needle count; HaystackCraft: the F1 tables by strategy and context size and Figures 3 and 4;
Sequential-NIAH: accuracy by group, the noise analysis of Table 5 and the judge's agreement).

A plot without data is never written: ``report.md`` says in one sentence why it is missing
instead. Every bar of a bar chart is labelled with its value (:func:`eval.report_plots.label_bars`).

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
from typing import TYPE_CHECKING, Any

from eval.benchmarks import BENCHMARKS
from eval.report_html import write_html_report
from eval.report_plots import (
    has_data,
    label_bars,
    plot_depth_heatmap,
    plot_score_vs_length,
    png_bytes,
)
from eval.report_runs import (
    LENGTH_COLUMNS,
    MISSING,
    LengthSeries,
    Run,
    configs_of,
    depth_configs,
    format_length,
    length_label,
    length_series,
    load_runs,
    markdown_table,
    percent,
    score_by,
)
from needlework.atomic import atomic_write
from needlework.errors import SpecError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

REPORT = "report.md"
SCORE_VS_LENGTH = "score_vs_length.png"


@dataclass(frozen=True)
class ReportFiles:
    """The files :func:`write_report` wrote: the Markdown summary, every plot in write order, and the HTML page."""

    markdown: Path
    plots: tuple[Path, ...]
    html: Path | None = None


def write_report(run_dirs: Sequence[Path], out_dir: Path) -> ReportFiles:
    """Write ``report.md``, the PNG plots comparing the given runs and ``report.html`` (:mod:`eval.report_html`)
    into ``out_dir``.

    A plot that would show no data is not written; ``report.md`` says why instead.

    Args:
        run_dirs: Run directories, each holding its results; columns and legends follow this order.
        out_dir: Folder to write into; created if missing. Each file is written atomically.

    Returns:
        The paths of the Markdown summary, of every plot written and of the HTML page.

    Raises:
        SpecError: No run directory was given.
        InputError: A run's results are missing, are not valid JSON, or lack ``scores``.
    """
    if not run_dirs:
        raise SpecError("write_report needs at least one run directory; got none")
    runs = load_runs(run_dirs)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plots: list[Path] = []

    def write_plot(name: str, draw: Callable[[], Figure]) -> bool:
        figure = draw()
        if not has_data(figure):
            figure.clear()
            return False
        plots.append(out_dir / name)
        atomic_write(plots[-1], png_bytes(label_bars(figure)))
        return True

    length_plot = None
    drawn = [s for s in (length_series(runs, config) for config in configs_of(runs)) if s.plottable]
    if drawn and write_plot(SCORE_VS_LENGTH, lambda: plot_score_vs_length(runs, drawn)):
        length_plot = SCORE_VS_LENGTH
    heatmaps: dict[str, str] = {}
    for config in depth_configs(runs):
        if write_plot(heatmap_name(config), lambda config=config: plot_depth_heatmap(runs, config)):
            heatmaps[config] = heatmap_name(config)
    sections: list[str] = []
    for benchmark in BENCHMARKS:
        views: dict[str, str] = {}
        empty: list[str] = []
        for view, name, draw in benchmark.plots(runs) if benchmark.plots else []:
            if write_plot(name, draw):
                views[view] = name
            else:
                empty.append(name)
        if benchmark.section is not None:
            sections += benchmark.section(runs, views)
        sections += [line for name in empty for line in (f"No plot `{name}`: it would have no value to draw.", "")]
    markdown = out_dir / REPORT
    text = render_markdown(runs, length_plot, heatmaps, sections)
    atomic_write(markdown, text.encode("utf-8"))
    html = write_html_report(runs, out_dir, text)  # report.md's tables and plots, the leaderboard and the samples
    return ReportFiles(markdown=markdown, plots=tuple(plots), html=html)


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


def render_markdown(runs: Sequence[Run], length_plot: str | None, heatmaps: Mapping[str, str],
                    sections: Sequence[str] = ()) -> str:
    """The text of ``report.md``.

    Args:
        runs: The loaded runs, one table column each.
        length_plot: Relative path of the score-vs-length plot; None when it was not drawn.
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


def comparison_tables(runs: Sequence[Run], length_plot: str | None, heatmaps: Mapping[str, str]) -> list[str]:
    """Markdown lines of the tables that compare runs, scores in percent.

    Overall (sample mean and task average), by config, by length and depth, and config x length
    (lengths from :func:`eval.report_runs.length_series`), with the plots drawn and a sentence for
    each plot that was not.
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
    series = [length_series(runs, config) for config in configs]
    if length_plot is not None:
        lines += [f"![score against context length]({length_plot})", ""]
    lines += length_plot_note(series, drawn=length_plot is not None)
    lines += _by_numeric_key(runs, "depth", "depth (%)", lambda d: f"{d}%")
    lines += ["## By config and length: score (%)", ""]
    with_depth = {c["config"] for r in runs for c in r.cells if c.get("depth") is not None}
    for config_series in series:
        config = config_series.config
        lines += [f"### {config}", ""]
        lines += _length_table(config_series, labels)
        if config in heatmaps:
            lines += [f"![{config}: score by depth and length]({heatmaps[config]})", ""]
        elif config in with_depth:
            lines += ["No depth heatmap: no cell of this config with a needle depth has a length and a score.", ""]
    return lines


def _length_table(series: LengthSeries, labels: Sequence[str]) -> list[str]:
    if series.column is None:
        return [f"The rows of this config carry no length column ({_or([c.noun for c in LENGTH_COLUMNS])}).", ""]
    rows = []
    for length in series.lengths:
        cells = [by_length.get(length) for by_length in series.scores]
        rows.append([format_length(length), *(MISSING if c is None else f"{percent(c[0])} (n={c[1]})" for c in cells)])
    return markdown_table([series.column.title, *labels], rows)


def length_plot_note(series: Sequence[LengthSeries], *, drawn: bool) -> list[str]:
    """Why configs are not in the score-vs-length plot, or why there is no such plot: one sentence.

    Args:
        series: Every config's lengths (:func:`eval.report_runs.length_series`), in report order.
        drawn: Whether the plot was written.

    Returns:
        The sentence and a blank line; nothing when the plot was drawn with every config.
    """
    flat: dict[str, list[str]] = {}
    for config_series in series:
        if not config_series.plottable:
            flat.setdefault(_why_flat(config_series), []).append(config_series.config)
    if drawn and not flat:
        return []
    every = len(series)
    clauses = [reason.replace("{subject}", "these runs" if len(group) == every else _and(group))
               for reason, group in flat.items()] or ["no config has a score to draw"]
    head = "Left out of the score-vs-length plot" if drawn else "No score-vs-length plot"
    return [f"{head}: {'; '.join(clauses)}.", ""]


def _why_flat(series: LengthSeries) -> str:
    """Why a config has no score-vs-length line, with ``{subject}`` where its configs are named."""
    if series.column is None:
        return "the rows of {subject} carry no length column (" + _or([c.noun for c in LENGTH_COLUMNS]) + ")"
    noun = series.column.noun
    if not series.drawn:
        return f"every sample of {{subject}} has {noun} 0 (no haystack)"
    (length,) = series.drawn
    shown = f"{length:,} tokens" if isinstance(length, int) else length
    besides = f" besides {noun} 0 (no haystack)" if 0 in series.lengths else ""
    return f"every sample of {{subject}} has the same {noun} ({shown}){besides}"


def _and(names: Sequence[str], conjunction: str = "and") -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {conjunction} {names[-1]}"


def _or(names: Sequence[str]) -> str:
    return _and(names, "or")


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


def _by_numeric_key(runs: Sequence[Run], column: str, title: str, label: Callable[[int], str]) -> list[str]:
    keys = {k for r in runs for k in (r.scores.get("by") or {}).get(column, {})}
    if not keys:
        return []
    ordered = sorted(keys, key=lambda k: (float(k), k) if _is_number(k) else (math.inf, k))
    shown = [label(int(k)) if k.isdigit() else k for k in ordered]
    # 4,000 and 4,096 tokens are both "4K": where short labels collide, the exact numbers tell them apart.
    shown = [f"{int(k):,}" if k.isdigit() and shown.count(s) > 1 else s for k, s in zip(ordered, shown)]
    rows = [[s, *(score_by(r, column, k) for r in runs)] for k, s in zip(ordered, shown)]
    return [f"## By {column}: score (%)", ""] + markdown_table([title, *(r.label for r in runs)], rows)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
