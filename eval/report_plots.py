"""The report's generic PNG figures, and the rules every figure of a report follows.

Every drawing function returns a matplotlib ``Figure`` (imported lazily: matplotlib is only needed
for reports) and :func:`png_bytes` renders it without software metadata, so the bytes depend only
on the inputs. Scores are drawn as percentages; lengths in tokens on a log2 axis, length buckets as
categories. The benchmarks' own figures (:mod:`eval.benchmarks`) draw with the same helpers. Before
a figure is written, the report checks it with :func:`has_data` (a figure without data is not
written) and labels its bars with :func:`label_bars`.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eval.report_runs import (
    LengthSeries,
    Run,
    cells_at,
    format_length,
    length_label,
    pooled_score,
)
from needlework.errors import SpecError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

COLORMAP = "RdYlGn"
PNG_METADATA = {"Software": None}
ZERO_BAR_LINEWIDTH = 2.5
"""Points: the outline that keeps a bar of height 0 visible on the x axis."""
BAR_LABEL_POINTS = 24
"""Points: bars narrower than a label such as ``100.0`` (about 20 points wide) and a gap get their labels upright."""


def plot_score_vs_length(runs: Sequence[Run], series: Sequence[LengthSeries]) -> Figure:
    """Score (%) against context length, one subplot per config, one line per run.

    Token lengths are on a log2 axis; length buckets are categories in ascending order. Length 0
    (no haystack) is not drawn.

    Args:
        runs: The loaded runs; each becomes a line with its label in the legend.
        series: The configs to draw (:func:`eval.report_runs.length_series` of ``runs``), each
            :attr:`~eval.report_runs.LengthSeries.plottable`.

    Returns:
        The figure, not yet saved.

    Raises:
        SpecError: No series was given, or one has fewer than two lengths to draw.
    """
    from matplotlib.figure import Figure

    flat = [s.config for s in series if not s.plottable]
    if not series or flat:
        raise SpecError(f"a score-vs-length plot needs configs with two lengths or more; "
                        f"got {', '.join(flat) if flat else 'none'}")
    ncols = min(3, len(series))
    nrows = math.ceil(len(series) / ncols)
    fig = Figure(figsize=(4.6 * ncols, 3.4 * nrows + 0.5), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False, sharey=True)
    for index, ax in enumerate(axes.flat):
        if index >= len(series):
            ax.set_axis_off()
            continue
        _draw_length_lines(ax, runs, series[index])
        if index % ncols == 0:
            ax.set_ylabel("score (%)")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 4), frameon=False)
    fig.suptitle("Score against context length")
    return fig


def _draw_length_lines(ax: Axes, runs: Sequence[Run], series: LengthSeries) -> None:
    lengths = series.drawn
    positions = lengths if series.numeric else range(len(lengths))
    for index, (run, scores) in enumerate(zip(runs, series.scores)):
        points = [(x, 100 * scores[length][0]) for x, length in zip(positions, lengths) if length in scores]
        # Every run keeps its colour and legend entry even where it has no point in this config.
        xs, ys = zip(*points) if points else ((), ())
        ax.plot(xs, ys, marker="o", label=run.label, color=f"C{index % 10}")
    ax.set_title(series.config)
    ax.set_ylim(-3, 103)
    ax.grid(True, alpha=0.3)
    ax.set_xlabel(series.column.title if series.column else "context length")
    if series.numeric:
        log2_length_axis(ax, [int(length) for length in lengths])
    else:
        ax.set_xticks(range(len(lengths)), [format_length(length) for length in lengths])
        ax.set_xlim(-0.5, len(lengths) - 0.5)


def log2_length_axis(ax: Axes, lengths: Sequence[int]) -> None:
    """Context lengths (tokens, all > 0, ascending) on a log2 x axis, one labelled tick each."""
    ax.set_xscale("log", base=2)
    ax.set_xticks(lengths, [length_label(n) for n in lengths], rotation=45 if len(lengths) > 6 else 0)
    ax.minorticks_off()
    ax.set_xlim(lengths[0] / 1.3, lengths[-1] * 1.3)


def plot_depth_heatmap(runs: Sequence[Run], config: str, *, cells: Sequence[Sequence[Mapping[str, Any]]] | None = None,
                       title: str | None = None) -> Figure:
    """The needle heatmap of one config: depth (%) down, length across, colour and text = score (%).

    Every distinct depth in the cells is its own row, labelled as given (RULERv2 cells hold 10%
    bins, NeedleBench cells the requested depths 0..100, so 100 is a row of its own); the
    red-yellow-green colour scale (:data:`COLORMAP`) spans 0..100.

    Args:
        runs: The loaded runs; each gets a subplot titled with its label, sharing one colorbar.
        config: The config to draw; only its cells with a depth are used.
        cells: Each run's cells to draw instead of its ``scores.cells`` of ``config`` (the
            NeedleBench per-needle-count heatmaps pass one needle count's cells).
        title: First line of the figure title (default: the config).

    Returns:
        The figure, not yet saved.
    """
    from matplotlib.figure import Figure

    chosen = cells if cells is not None else [[c for c in r.cells if c["config"] == config] for r in runs]
    cells = [[c for c in run_cells if c.get("depth") is not None] for run_cells in chosen]
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
    fig.suptitle(f"{title or config}\nscore by needle depth and context length")
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


# Rules for every figure of a report -----------------------------------------------------------------


def has_data(fig: Figure) -> bool:
    """Whether any axes of the figure shows a value.

    A value is a line point in data coordinates (reference lines such as ``axhline`` do not count),
    a bar or other patch, a heatmap cell that is not masked, or a point of a collection (scatter).
    """
    import numpy as np

    for ax in fig.axes:
        for line in ax.get_lines():
            if line.get_transform() is ax.transData and _finite_points(line.get_xdata(), line.get_ydata()):
                return True
        if ax.patches:
            return True
        if any(np.ma.count(image.get_array()) for image in ax.get_images() if image.get_array() is not None):
            return True
        if any(len(collection.get_offsets()) for collection in ax.collections):
            return True
    return False


def _finite_points(xs: Any, ys: Any) -> bool:
    import numpy as np

    try:
        x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    except (TypeError, ValueError):  # categorical data: the points are there
        return len(xs) > 0
    return bool(x.size and y.size and np.isfinite(x).any() and np.isfinite(y).any())


def label_bars(fig: Figure) -> Figure:
    """Label every bar of the figure with its value and keep bars of height 0 visible.

    Each bar gets its height as a label above it (one decimal, the report's precision for
    percentages; ``n/a`` for a NaN height, a group without samples), turned upright where the bars are too narrow for it to fit across; a bar of
    height 0 is outlined in its own colour along the x axis. The y axis grows at the top when the
    labels would not fit under it.

    Args:
        fig: A drawn figure; its bar charts are changed in place.

    Returns:
        The same figure.
    """
    from matplotlib.container import BarContainer

    fig.draw_without_rendering()  # lay the figure out, so that bar widths are known
    for ax in fig.axes:
        bars = [bar for container in ax.containers if isinstance(container, BarContainer) for bar in container]
        if not bars:
            continue
        upright = _bar_width_points(ax, min(bar.get_width() for bar in bars)) < BAR_LABEL_POINTS
        for container in ax.containers:
            if isinstance(container, BarContainer):
                ax.bar_label(container, labels=[f"{bar.get_height():.1f}" for bar in container], padding=2,
                             fontsize=7, rotation=90 if upright else 0)
        for text in [t for t in ax.texts if not t.get_text()]:  # bar_label leaves NaN bars unlabelled
            text.remove()
        for bar in bars:
            if math.isnan(bar.get_height()):
                ax.annotate("n/a", (bar.get_x() + bar.get_width() / 2, 0.0), xytext=(0, 2), textcoords="offset points",
                            ha="center", va="bottom", fontsize=7, rotation=90 if upright else 0)
            elif bar.get_height() == 0:
                bar.set_edgecolor(bar.get_facecolor())
                bar.set_linewidth(ZERO_BAR_LINEWIDTH)
                bar.set_clip_on(False)  # drawn over the axis line, not cut in half by it
                bar.set_zorder(3)
        bottom, top = ax.get_ylim()
        room = (0.16 if upright else 0.08) * (top - bottom)
        highest = max((bar.get_height() for bar in bars if not math.isnan(bar.get_height())), default=0.0)
        if highest > top - room:
            ax.set_ylim(bottom, highest + room)
    return fig


def _bar_width_points(ax: Axes, width: float) -> float:
    """How wide, in points, a bar of ``width`` data units is drawn (once the figure's layout is done)."""
    (left, _), (right, _) = ax.transData.transform([(0.0, 0.0), (width, 0.0)])
    return abs(right - left) * 72 / ax.get_figure().dpi


def png_bytes(fig: Figure) -> bytes:
    """The figure as PNG bytes (110 dpi, no software metadata); the figure is cleared."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, metadata=PNG_METADATA)
    fig.clear()
    return buffer.getvalue()

