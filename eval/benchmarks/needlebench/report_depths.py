"""M-RT by needle depth in the report: the per-depth layout's table and heatmap per config.

Read from the ``m_rt_depth_cells`` block of ``scores.needlebench``
(:func:`eval.benchmarks.needlebench.summary.needlebench_summary`): for each M-RT config built with one needle
per depth (``--mrt-layout per-depth``, OpenCompass v2's ``NeedleBenchParallelDataset``), the share of the
needles at each depth that were found, per length, as OpenCompass's ``NeedleBenchParallelEvaluator`` reports
``Depth0`` ... ``Depth100`` per dataset (one length and language). The table's ``mean`` row is each length's
mean over the depths (OpenCompass's ``average_score``); its last cell the mean of every cell, which is the
config's M-RT score. The heatmap is drawn as the other heatmaps (:func:`eval.report_plots.plot_depth_heatmap`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eval.report_plots import plot_depth_heatmap
from eval.report_runs import MISSING, Run, configs_of, markdown_table, percent
from generators.needlebench.spec import BENCHMARK

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def depth_cells(run: Run, config: str | None = None) -> list[Mapping[str, Any]]:
    """The run's per-depth M-RT cells (of one config, or all)."""
    cells = (run.scores.get(BENCHMARK) or {}).get("m_rt_depth_cells") or []
    return [c for c in cells if config is None or c["config"] == config]


def depth_configs(runs: Sequence[Run]) -> list[str]:
    """The configs with per-depth M-RT cells, in report order."""
    present = {str(c["config"]) for run in runs for c in depth_cells(run)}
    order = {config: index for index, config in enumerate(configs_of(runs))}
    return sorted(present, key=lambda config: (order.get(config, len(order)), config))


def depth_heatmap_name(config: str) -> str:
    """``heatmap_m-rt-en_per_depth.png``: characters unsafe in file names replaced by ``_``."""
    return f"heatmap_{re.sub(r'[^A-Za-z0-9_.-]', '_', config)}_per_depth.png"


def depth_heatmap_view(config: str) -> str:
    """The view name of one per-depth M-RT heatmap among the section's plots."""
    return f"m-rt/{config}/per-depth"


def depth_plots(runs: Sequence[Run]) -> list[tuple[str, str, Callable[[], Figure]]]:
    """(view, file name, draw) of one heatmap per config with per-depth M-RT cells."""
    with_cells = [run for run in runs if depth_cells(run)]
    return [(depth_heatmap_view(config), depth_heatmap_name(config),
             lambda config=config: plot_depth_heatmap(with_cells, config,
                                                      cells=[depth_cells(r, config) for r in with_cells],
                                                      title=f"{config}, needles found at each depth"))
            for config in depth_configs(runs)]


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def depth_tables(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
    """Per run and per-depth M-RT config: depths down, lengths across, the share of needles found (%).

    Args:
        runs: Every run of the report; those without per-depth M-RT cells are left out.
        plots: Relative path of each plot drawn, by view (:func:`depth_heatmap_view`).

    Returns:
        Markdown lines; none when no run has per-depth M-RT cells.
    """
    configs = depth_configs(runs)
    if not configs:
        return []
    lines = [
        "### Multi-needle retrieval by needle depth",
        "",
        ("M-RT built with one needle at every depth (`--mrt-layout per-depth`, OpenCompass v2's parallel layout): "
         "the share (%) of the needles at each depth that the answers name, per context length, as OpenCompass's "
         "NeedleBenchParallelEvaluator scores each depth. `mean`: each length's mean over the depths; its last "
         "cell, the mean over every cell, is the config's M-RT score."),
        "",
    ]
    for config in configs:
        for run in runs:
            cells = depth_cells(run, config)
            if not cells:
                continue
            lengths = sorted({c["length"] for c in cells}, key=lambda n: (n is None, n or 0))
            depths = sorted({c["depth"] for c in cells}, key=float)
            score = {(c["length"], c["depth"]): float(c["score"]) for c in cells}
            rows: list[list[object]] = []
            for depth in depths:
                found = [score[(n, depth)] for n in lengths if (n, depth) in score]
                rows.append([f"{depth}", *(percent(score.get((n, depth))) for n in lengths), percent(_mean(found))])
            by_length = [_mean([score[(n, d)] for d in depths if (n, d) in score]) for n in lengths]
            rows.append(["mean", *map(percent, by_length), percent(_mean(list(score.values())))])
            header = ["depth (%)", *(MISSING if n is None else f"{int(n):,}" for n in lengths), "mean"]
            lines += [f"#### {config}, {run.label}", ""] + markdown_table(header, rows)
        if depth_heatmap_view(config) in plots:
            lines += [f"![{config}: needles found by depth and length]({plots[depth_heatmap_view(config)]})", ""]
    return lines
