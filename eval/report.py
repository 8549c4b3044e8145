"""Reports over finished evaluation runs: a Markdown summary and PNG plots.

:func:`write_report` reads ``results.json`` from each run directory and writes into one folder
``report.md`` (run summaries and comparison tables, one column per run), ``score_vs_length.png``
(score against context length, one subplot per config), ``heatmap_<config>.png`` (score by
needle depth and context length) for every config whose cells carry a depth, and, when a run has
RULERv2 configs, ``levels.png`` (score against length per domain, one line per level, with the
golden-context baseline of the same release and model dashed when that run is given too). Runs
with NeedleBench configs add the paper's tables, ``atc_curve.png`` and the multi-needle reasoning
heatmaps per needle count (:mod:`eval.report_needlebench`); runs with HaystackCraft static NIAH
configs add the paper's F1 tables by strategy and context size and its Figures 3 and 4
(:mod:`eval.report_haystackcraft`); runs with Sequential-NIAH samples add accuracy by group
(Figure 5), the noise analysis of Table 5 and the judge's agreement (:mod:`eval.report_sequential_niah`).

Scores are fractions in [0, 1] in ``results.json`` and percentages (one decimal; two in the
NeedleBench tables, as in the paper) in the report. Depths are in percent of the context (RULERv2:
10% bin lower edges; NeedleBench: the requested depth); lengths are in tokens. Output bytes depend
only on the inputs: no timestamps, sorted listings, PNGs saved without software metadata.
The runs are read by :mod:`eval.report_runs` and drawn by :mod:`eval.report_plots`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.report_haystackcraft import haystackcraft_plots, haystackcraft_section
from eval.report_sequential_niah import sequential_niah_plots, sequential_niah_section
from eval.report_plots import plot_depth_heatmap, plot_levels, plot_score_vs_length, png_bytes
from eval.report_needlebench import (
    ATC_CURVE,
    atc_runs,
    needle_cells,
    needle_heatmap_keys,
    needle_heatmap_name,
    needlebench_section,
    plot_atc_curve,
)
from eval.report_runs import (
    MISSING,
    Run,
    cells_at,
    configs_of,
    depth_configs,
    golden_partner,
    length_label,
    lengths_of,
    level_runs,
    load_runs,
    markdown_table,
    percent,
    pooled_score,
)
from eval.tasks.rulerv2 import DOMAINS, LEVELS
from needlework.atomic import atomic_write
from needlework.errors import SpecError

REPORT = "report.md"
SCORE_VS_LENGTH = "score_vs_length.png"
LEVELS_PLOT = "levels.png"
PlotDraws = Callable[[Sequence[Run]], list[tuple[str, str, Callable[[], Any]]]]
SectionLines = Callable[[Sequence[Run], Mapping[str, str]], list[str]]
BENCHMARK_SECTIONS: tuple[tuple[PlotDraws, SectionLines], ...] = (
    (haystackcraft_plots, haystackcraft_section),
    (sequential_niah_plots, sequential_niah_section),
)
"""Benchmarks whose report section comes with its own plots: (plots to draw as ``(view, file, draw)``,
section given the runs and each drawn view's file). A section is empty for runs without its benchmark."""


@dataclass(frozen=True)
class ReportFiles:
    """The files :func:`write_report` wrote: the Markdown summary and every plot, in write order."""

    markdown: Path
    plots: tuple[Path, ...]


def write_report(run_dirs: Sequence[Path], out_dir: Path) -> ReportFiles:
    """Write ``report.md`` and the PNG plots comparing the given runs into ``out_dir``.

    Args:
        run_dirs: Run directories, each holding a ``results.json``; columns and legends follow
            this order.
        out_dir: Folder to write into; created if missing. Each file is written atomically.

    Returns:
        The paths of the Markdown summary and of every plot written.

    Raises:
        SpecError: No run directory was given.
        InputError: A ``results.json`` is missing, is not valid JSON, or lacks ``scores``.
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
    levels_plot = None
    if level_runs(runs):
        plots.append(out_dir / LEVELS_PLOT)
        atomic_write(plots[-1], png_bytes(plot_levels(runs)))
        levels_plot = LEVELS_PLOT
    atc_curve = None
    if atc_runs(runs):
        plots.append(out_dir / ATC_CURVE)
        atomic_write(plots[-1], png_bytes(plot_atc_curve(runs)))
        atc_curve = ATC_CURVE
    needle_heatmaps: dict[tuple[str, int], str] = {}
    for config, count in needle_heatmap_keys(runs):
        plots.append(out_dir / needle_heatmap_name(config, count))
        figure = plot_depth_heatmap(runs, config, cells=[needle_cells(r, config, count) for r in runs],
                                    title=f"{config}, {count} needles")
        atomic_write(plots[-1], png_bytes(figure))
        needle_heatmaps[(config, count)] = plots[-1].name
    sections = list(needlebench_section(runs, atc_curve, needle_heatmaps))
    for draw_plots, section in BENCHMARK_SECTIONS:
        drawn: dict[str, str] = {}
        for view, name, draw in draw_plots(runs):
            plots.append(out_dir / name)
            atomic_write(plots[-1], png_bytes(draw()))
            drawn[view] = name
        sections += section(runs, drawn)
    markdown = out_dir / REPORT
    atomic_write(markdown, render_markdown(runs, SCORE_VS_LENGTH, heatmaps, levels_plot, sections).encode("utf-8"))
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


def _score_with_n(entry: Mapping[str, Any] | None) -> str:
    if not entry or entry.get("score") is None:
        return MISSING
    return f"{percent(entry['score'])} (n={entry.get('n', 0)})"


# Markdown ----------------------------------------------------------------------------------------


def render_markdown(runs: Sequence[Run], length_plot: str, heatmaps: Mapping[str, str],
                    levels_plot: str | None = None, sections: Sequence[str] = ()) -> str:
    """The text of ``report.md``.

    Args:
        runs: The loaded runs, one table column each.
        length_plot: Relative path of the score-vs-length plot.
        heatmaps: Relative path of each config's depth heatmap, by config.
        levels_plot: Relative path of the RULERv2 levels plot, if one was drawn.
        sections: The benchmarks' own sections (NeedleBench, then :data:`BENCHMARK_SECTIONS`),
            placed after the run summaries, before the generic comparison tables.

    Returns:
        Markdown ending in one newline.
    """
    lines = ["# needlework evaluation report", ""]
    metrics = sorted({str(r.scores.get("metric")) for r in runs if r.scores.get("metric")})
    lines += [f"Metric: {m}" for m in metrics] + ([""] if metrics else [])
    lines += ["Scores are percentages (0-100); `n` is the number of samples behind a score.", "", "## Runs", ""]
    for run in runs:
        lines += run_summary(run)
    lines += sections
    lines += comparison_tables(runs, length_plot, heatmaps, levels_plot)
    return "\n".join(lines).rstrip("\n") + "\n"


def run_summary(run: Run) -> list[str]:
    """Markdown lines describing one run: what was evaluated, whether it counts, and its cost."""
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
        "- " + _reportable_line(run.results),
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


def _reportable_line(results: Mapping[str, Any]) -> str:
    state = "complete" if results.get("complete", True) else "**incomplete**"
    if results.get("reportable", True):
        return f"reportable: yes ({state})"
    reasons = "; ".join(str(r) for r in results.get("not_reportable_because") or []) or "no reason recorded"
    return f"reportable: **no** ({state}): {reasons}"


def _int(value: object) -> str:
    return f"{int(value):,}" if isinstance(value, (int, float)) else MISSING


def _seconds(value: object) -> str:
    return f"{float(value):,.2f} s" if isinstance(value, (int, float)) else MISSING


def comparison_tables(runs: Sequence[Run], length_plot: str, heatmaps: Mapping[str, str],
                      levels_plot: str | None = None) -> list[str]:
    """Markdown lines of the tables that compare runs.

    Overall (sample mean and task average), by config, by RULERv2 domain and level (with the
    levels plot), by length and depth, and config x length.
    """
    labels = [r.label for r in runs]
    lines = ["## Overall", ""]
    overall = [r.scores.get("overall") or {} for r in runs]
    lines += markdown_table(
        ["", *labels],
        [
            ["score (mean over samples)", *(_score_and_stderr(o) for o in overall)],
            ["task average (unweighted mean over configs)", *(_task_average(r) for r in runs)],
            ["n", *(o.get("n", MISSING) for o in overall)],
            ["errors", *(o.get("n_errors", MISSING) for o in overall)],
        ],
    )
    configs = configs_of(runs)
    lines += ["## By config", ""]
    lines += markdown_table(["config", *labels], [[c, *(_by(r, "config", c) for r in runs)] for c in configs])
    lines += _by_named_key(runs, "domain", list(DOMAINS.items()))
    lines += _by_named_key(runs, "level", [(level, level) for level in LEVELS])
    if levels_plot:
        lines += _levels_section(runs, levels_plot)
    lines += _by_numeric_key(runs, "length", "length (tokens)", length_label)
    lines += [f"![score against context length]({length_plot})", ""]
    lines += _by_numeric_key(runs, "depth", "depth (%)", lambda d: f"{d}%")
    lines += ["## By config and length", ""]
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
    return f"{percent(average['score'])} ({average.get('n_configs', MISSING)} configs)"


def _by_named_key(runs: Sequence[Run], column: str, keys: Sequence[tuple[str, str]]) -> list[str]:
    """A "By <column>" table over ``keys`` ((value, label) pairs, in order); none without the column."""
    present = {k for r in runs for k in (r.scores.get("by") or {}).get(column, {})}
    rows = [[label, *(_by(r, column, key) for r in runs)] for key, label in keys if key in present]
    return [f"## By {column}", ""] + markdown_table([column, *(r.label for r in runs)], rows) if rows else []


def _levels_section(runs: Sequence[Run], levels_plot: str) -> list[str]:
    """The levels plot and which golden-context run, if any, gives each run its dashed baselines."""
    lines = [f"![RULERv2: score by level against context length]({levels_plot})", ""]
    for run in level_runs(runs):
        partner = golden_partner(run, runs)
        baseline = f"golden context from {partner.label}" if partner else "no golden-context run given"
        lines.append(f"- {run.label}: {baseline}")
    lines += ["", "Dashed lines: each level's golden-context score (split `golden`: the same questions "
              "without distractors) from a run of the same release, revision and model.", ""]
    return lines


def _score_and_stderr(entry: Mapping[str, Any]) -> str:
    stderr = entry.get("stderr")
    suffix = f" ± {100 * float(stderr):.1f}" if isinstance(stderr, (int, float)) else ""
    return percent(entry.get("score")) + suffix if entry.get("score") is not None else MISSING


def _by(run: Run, column: str, key: str) -> str:
    return _score_with_n((run.scores.get("by") or {}).get(column, {}).get(key))


def _pooled_cell(cells: list[Mapping[str, Any]]) -> str:
    score, n = pooled_score(cells)
    return MISSING if score is None else f"{percent(score)} (n={n})"


def _by_numeric_key(runs: Sequence[Run], column: str, title: str, label: Callable[[int], str]) -> list[str]:
    keys = {k for r in runs for k in (r.scores.get("by") or {}).get(column, {})}
    if not keys:
        return []
    ordered = sorted(keys, key=lambda k: (float(k), k) if _is_number(k) else (math.inf, k))
    rows = [[label(int(k)) if k.isdigit() else k, *(_by(r, column, k) for r in runs)] for k in ordered]
    return [f"## By {column}", ""] + markdown_table([title, *(r.label for r in runs)], rows)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
