"""Reports over finished evaluation runs: a Markdown summary and PNG plots.

:func:`write_report` reads ``results.json`` from each run directory and writes into one folder
``report.md`` (run summaries and comparison tables, one column per run), ``score_vs_length.png``
(score against context length, one subplot per config) and ``heatmap_<config>.png`` (score by
needle depth and context length) for every config whose cells carry a depth.

Scores are fractions in [0, 1] in ``results.json`` and percentages (one decimal) in the report.
Depths are depth-bin lower edges in percent of the context; lengths are in tokens. Output bytes
depend only on the inputs: no timestamps, sorted listings, PNGs saved without software metadata.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from generators.errors import InputError, SpecError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

RESULTS = "results.json"
REPORT = "report.md"
SCORE_VS_LENGTH = "score_vs_length.png"
COLORMAP = "RdYlGn"
MISSING = "—"
CELL_FIELDS = ("config", "length", "score", "n")
PNG_METADATA = {"Software": None}


@dataclass(frozen=True)
class ReportFiles:
    """The files :func:`write_report` wrote: the Markdown summary and every plot, in write order."""

    markdown: Path
    plots: tuple[Path, ...]


@dataclass(frozen=True)
class Run:
    """One run's ``results.json`` with the label that names it in tables and legends."""

    label: str
    directory: Path
    results: Mapping[str, Any]

    @property
    def scores(self) -> Mapping[str, Any]:
        """The ``scores`` object of ``results.json``."""
        return self.results["scores"]

    @property
    def cells(self) -> list[Mapping[str, Any]]:
        """The finest score cells: config x length x depth (depth ``None`` when not applicable)."""
        return list(self.scores.get("cells") or [])


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
    _write_atomic(plots[0], _png_bytes(plot_score_vs_length(runs)))
    heatmaps: dict[str, str] = {}
    for config in depth_configs(runs):
        path = out_dir / heatmap_name(config)
        _write_atomic(path, _png_bytes(plot_depth_heatmap(runs, config)))
        heatmaps[config] = path.name
        plots.append(path)
    markdown = out_dir / REPORT
    _write_atomic(markdown, render_markdown(runs, SCORE_VS_LENGTH, heatmaps).encode("utf-8"))
    return ReportFiles(markdown=markdown, plots=tuple(plots))


# Loading -----------------------------------------------------------------------------------------


def load_results(run_dir: Path) -> dict[str, Any]:
    """Read and check one run's ``results.json``.

    Args:
        run_dir: The run directory.

    Returns:
        The parsed results object.

    Raises:
        InputError: The file is missing, is not valid JSON, is not an object, lacks ``scores``,
            or has a score cell without one of the fields in :data:`CELL_FIELDS`.
    """
    path = Path(run_dir) / RESULTS
    if not path.is_file():
        raise InputError(str(path), None, None, f"no {RESULTS} in run directory {run_dir} (is the run finished?)")
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(str(path), None, None, f"not valid JSON: {exc.msg} at line {exc.lineno}") from exc
    if not isinstance(results, dict):
        raise InputError(str(path), None, None, f"expected a JSON object, got {type(results).__name__}")
    if not isinstance(results.get("scores"), dict):
        raise InputError(str(path), None, "scores", "missing or not an object")
    for index, cell in enumerate(results["scores"].get("cells") or []):
        for name in CELL_FIELDS:
            if not isinstance(cell, dict) or name not in cell:
                raise InputError(str(path), f"scores.cells[{index}]", name, "missing")
    return results


def load_runs(run_dirs: Sequence[Path]) -> list[Run]:
    """Load every run and label it by model, adding the directory name where models repeat.

    Args:
        run_dirs: Run directories, in report order.

    Returns:
        One :class:`Run` per directory, in the same order.
    """
    loaded = [(Path(d), load_results(Path(d))) for d in run_dirs]
    models = [str((results.get("run") or {}).get("model") or directory.name) for directory, results in loaded]
    labels = [f"{m} ({d.name})" if models.count(m) > 1 else m for m, (d, _) in zip(models, loaded)]
    # Directories with the same name under different parents still need distinct labels.
    labels = [f"{m} ({d})" if labels.count(lab) > 1 else lab for lab, m, (d, _) in zip(labels, models, loaded)]
    return [Run(label, directory, results) for label, (directory, results) in zip(labels, loaded)]


# Aggregation -------------------------------------------------------------------------------------


def pooled_score(cells: Iterable[Mapping[str, Any]]) -> tuple[float | None, int]:
    """The n-weighted mean score of some cells and their total n (``None`` when n is 0)."""
    total, n = 0.0, 0
    for cell in cells:
        if cell.get("score") is not None and cell.get("n"):
            total += float(cell["score"]) * int(cell["n"])
            n += int(cell["n"])
    return (total / n if n else None), n


def configs_of(runs: Sequence[Run]) -> list[str]:
    """Every config of the runs: declared order of the first runs first, then the rest sorted."""
    ordered: list[str] = []
    for run in runs:
        ordered += [c for c in (run.results.get("run") or {}).get("configs") or [] if c not in ordered]
    seen = {c for run in runs for c in run.scores.get("by", {}).get("config", {})}
    seen |= {cell["config"] for run in runs for cell in run.cells}
    return ordered + sorted(seen - set(ordered))


def lengths_of(runs: Sequence[Run], config: str | None = None) -> list[int]:
    """The context lengths (tokens) in the runs' cells, ascending, optionally for one config."""
    cells = (c for r in runs for c in r.cells if config in (None, c["config"]) and c["length"] is not None)
    return sorted({int(c["length"]) for c in cells})


def cells_at(cells: Iterable[Mapping[str, Any]], config: str | None, length: int) -> list[Mapping[str, Any]]:
    """The cells at one context length (tokens), of one config or of any (``None``)."""
    return [
        c for c in cells if config in (None, c["config"]) and c["length"] is not None and int(c["length"]) == length
    ]


def depth_configs(runs: Sequence[Run]) -> list[str]:
    """The configs that have at least one cell with a needle depth, in :func:`configs_of` order."""
    with_depth = {c["config"] for r in runs for c in r.cells if c.get("depth") is not None}
    return [c for c in configs_of(runs) if c in with_depth]


def heatmap_name(config: str) -> str:
    """File name of a config's heatmap, with characters unsafe in file names replaced by ``_``."""
    return f"heatmap_{re.sub(r'[^A-Za-z0-9_.-]', '_', config)}.png"


# Formatting --------------------------------------------------------------------------------------


def percent(score: float | None) -> str:
    """A [0, 1] score as a percentage with one decimal (``0.9333`` -> ``93.3``), or a dash."""
    return MISSING if score is None else f"{100 * float(score):.1f}"


def length_label(tokens: int) -> str:
    """A context length for tick labels: 4096 -> ``4K``, 131072 -> ``128K``, 8000 -> ``8K``."""
    for unit, suffix in ((1024 * 1024, "M"), (1_000_000, "M"), (1024, "K"), (1000, "K")):
        if tokens >= unit and tokens % unit == 0:
            return f"{tokens // unit}{suffix}"
    return str(tokens)


def short_revision(revision: str | None) -> str:
    """A revision shortened to 12 hex digits, keeping an ``algo:`` prefix (``sha256:ab12...``)."""
    if not revision:
        return MISSING
    prefix, _, digest = str(revision).rpartition(":")
    return f"{prefix}:{digest[:12]}" if prefix else digest[:12]


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return lines + [""]


def _score_with_n(entry: Mapping[str, Any] | None) -> str:
    if not entry or entry.get("score") is None:
        return MISSING
    return f"{percent(entry['score'])} (n={entry.get('n', 0)})"


# Markdown ----------------------------------------------------------------------------------------


def render_markdown(runs: Sequence[Run], length_plot: str, heatmaps: Mapping[str, str]) -> str:
    """The text of ``report.md``.

    Args:
        runs: The loaded runs, one table column each.
        length_plot: Relative path of the score-vs-length plot.
        heatmaps: Relative path of each config's depth heatmap, by config.

    Returns:
        Markdown ending in one newline.
    """
    lines = ["# needlework evaluation report", ""]
    metrics = sorted({str(r.scores.get("metric")) for r in runs if r.scores.get("metric")})
    lines += [f"Metric: {m}" for m in metrics] + ([""] if metrics else [])
    lines += ["Scores are percentages (0-100); `n` is the number of samples behind a score.", "", "## Runs", ""]
    for run in runs:
        lines += run_summary(run)
    lines += comparison_tables(runs, length_plot, heatmaps)
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


def comparison_tables(runs: Sequence[Run], length_plot: str, heatmaps: Mapping[str, str]) -> list[str]:
    """Markdown lines of the tables that compare runs: overall, by config, length, depth, config x length."""
    labels = [r.label for r in runs]
    lines = ["## Overall", ""]
    overall = [r.scores.get("overall") or {} for r in runs]
    lines += _table(
        ["", *labels],
        [
            ["score", *(_score_and_stderr(o) for o in overall)],
            ["n", *(o.get("n", MISSING) for o in overall)],
            ["errors", *(o.get("n_errors", MISSING) for o in overall)],
        ],
    )
    configs = configs_of(runs)
    lines += ["## By config", ""]
    lines += _table(["config", *labels], [[c, *(_by(r, "config", c) for r in runs)] for c in configs])
    lines += _by_numeric_key(runs, "length", "length (tokens)", length_label)
    lines += [f"![score against context length]({length_plot})", ""]
    lines += _by_numeric_key(runs, "depth", "depth (%)", lambda d: f"{d}%")
    lines += ["## By config and length", ""]
    for config in configs:
        lines += [f"### {config}", ""]
        rows = []
        for length in lengths_of(runs, config):
            rows.append([length_label(length), *(_pooled_cell(cells_at(r.cells, config, length)) for r in runs)])
        lines += _table(["length", *labels], rows) if rows else ["No cells for this config.", ""]
        if config in heatmaps:
            lines += [f"![{config}: score by depth and length]({heatmaps[config]})", ""]
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
    return [f"## By {column}", ""] + _table([title, *(r.label for r in runs)], rows)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


# Plots -------------------------------------------------------------------------------------------


def plot_score_vs_length(runs: Sequence[Run]) -> Figure:
    """Score (%) against context length (log2 axis), one subplot per config, one line per run.

    Args:
        runs: The loaded runs; each becomes a line with its label in the legend.

    Returns:
        The figure, not yet saved.
    """
    from matplotlib.figure import Figure

    configs = configs_of(runs) or ["(no configs)"]
    ncols = min(3, len(configs))
    nrows = math.ceil(len(configs) / ncols)
    fig = Figure(figsize=(4.6 * ncols, 3.4 * nrows + 0.5), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
    for index, ax in enumerate(axes.flat):
        if index >= len(configs):
            ax.set_axis_off()
            continue
        _draw_length_lines(ax, runs, configs[index])
        ax.set_xlabel("context length (tokens)")
        if index % ncols == 0:
            ax.set_ylabel("score (%)")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 4), frameon=False)
    fig.suptitle("Score against context length")
    return fig


def _draw_length_lines(ax: Axes, runs: Sequence[Run], config: str) -> None:
    lengths = lengths_of(runs, config)
    for index, run in enumerate(runs):
        points = []
        for length in lengths:
            score, _ = pooled_score(cells_at(run.cells, config, length))
            if score is not None:
                points.append((length, 100 * score))
        # Every run keeps its colour and legend entry even where it has no point in this config.
        xs, ys = zip(*points) if points else ((), ())
        ax.plot(xs, ys, marker="o", label=run.label, color=f"C{index % 10}")
    ax.set_title(config)
    ax.set_ylim(-3, 103)
    ax.grid(True, alpha=0.3)
    if lengths:
        ax.set_xscale("log", base=2)
        ax.set_xticks(lengths, [length_label(n) for n in lengths], rotation=45 if len(lengths) > 6 else 0)
        ax.minorticks_off()
        ax.set_xlim(lengths[0] / 1.3, lengths[-1] * 1.3)


def plot_depth_heatmap(runs: Sequence[Run], config: str) -> Figure:
    """The needle heatmap of one config: depth (%) down, length across, colour and text = score (%).

    Args:
        runs: The loaded runs; each gets a subplot titled with its label, sharing one colorbar.
        config: The config to draw; only its cells with a depth are used.

    Returns:
        The figure, not yet saved.
    """
    from matplotlib.figure import Figure

    cells = [[c for c in r.cells if c["config"] == config and c.get("depth") is not None] for r in runs]
    lengths = sorted({int(c["length"]) for run_cells in cells for c in run_cells if c["length"] is not None})
    depths = sorted({float(c["depth"]) for run_cells in cells for c in run_cells})
    width = max(3.2, 0.62 * len(lengths) + 1.4)
    fig = Figure(figsize=(width * len(runs) + 1.2, 0.42 * len(depths) + 1.9), layout="constrained")
    axes = fig.subplots(1, len(runs), squeeze=False, sharey=True)[0]
    image = None
    for ax, run, run_cells in zip(axes, runs, cells):
        image = _draw_heatmap(ax, run_cells, lengths, depths)
        ax.set_title(run.label)
        ax.set_xlabel("context length (tokens)")
    axes[0].set_ylabel("needle depth (%)")
    fig.colorbar(image, ax=list(axes), label="score (%)", fraction=0.05, pad=0.02)
    fig.suptitle(f"{config}\nscore by needle depth and context length")
    return fig


def _draw_heatmap(ax: Axes, cells: list[Mapping[str, Any]], lengths: list[int], depths: list[float]) -> Any:
    import numpy as np
    from matplotlib import colormaps

    grid = np.full((len(depths), len(lengths)), np.nan)
    for row, depth in enumerate(depths):
        for col, length in enumerate(lengths):
            score, _ = pooled_score(c for c in cells_at(cells, None, length) if float(c["depth"]) == depth)
            if score is not None:
                grid[row, col] = 100 * score
    cmap = colormaps[COLORMAP].with_extremes(bad="#dddddd")
    image = ax.imshow(np.ma.masked_invalid(grid), cmap=cmap, vmin=0, vmax=100, aspect="auto")
    for (row, col), value in np.ndenumerate(grid):
        if not np.isnan(value):
            red, green, blue, _ = cmap(value / 100)
            dark = 0.299 * red + 0.587 * green + 0.114 * blue < 0.5
            ax.text(col, row, f"{value:.0f}", ha="center", va="center", fontsize=8, color="white" if dark else "black")
    if np.isnan(grid).all():
        ax.text(0.5, 0.5, "no cells with a depth", transform=ax.transAxes, ha="center", va="center", color="#555555")
    ax.set_xticks(range(len(lengths)), [length_label(n) for n in lengths], rotation=45 if len(lengths) > 6 else 0)
    ax.set_yticks(range(len(depths)), [f"{d:g}" for d in depths])
    return image


def _png_bytes(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, metadata=PNG_METADATA)
    fig.clear()
    return buffer.getvalue()


def _write_atomic(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.chmod(temporary, 0o644)  # mkstemp makes it private; a report is meant to be shared
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
