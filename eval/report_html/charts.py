"""report.md's generic plots drawn for the page: depth x length heatmaps whose cells lead to their samples,
and score against context length as inline SVG; every point and cell says its exact value and n on hover.

Both read the same numbers as the PNG plots: the runs' score cells (config x length x depth,
:attr:`eval.report_runs.Run.cells`) and :func:`eval.report_runs.length_series`. A heatmap cell links to
``#samples?run=<i>&config=<c>&len=<length>&depth=<depth>``, the sample browser filtered to its samples
(length and depth as ``str`` of the cell's JSON values, as :func:`eval.report_html.samples.facets` writes them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from itertools import pairwise
from typing import Any
from urllib.parse import urlencode

from eval.report_runs import (
    Run,
    configs_of,
    depth_configs,
    format_length,
    length_series,
)

RUN_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
               "#17becf")
"""One colour per run, in report order (matplotlib's tab10, as the PNG plots)."""


def score_colour(score: float) -> str:
    """A [0, 1] score as a red-yellow-green colour (the PNG heatmaps' RdYlGn, in three stops)."""
    stops = ((0.0, (215, 48, 39)), (0.5, (254, 224, 139)), (1.0, (26, 152, 80)))
    score = min(1.0, max(0.0, float(score)))
    for (x0, c0), (x1, c1) in pairwise(stops):
        if score <= x1:
            t = (score - x0) / (x1 - x0)
            return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(c0, c1))
    return "#1a9850"


def _key(value: Any) -> str:
    return str(value)


def _order(value: Any) -> tuple[int, float, str]:
    try:
        return (0, float(value), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(value))


def heatmaps_html(runs: Sequence[Run]) -> str:
    """One heatmap per config with depths and run: depth rows, length columns, cells linking to their samples."""
    blocks = []
    for config in depth_configs(runs):
        tables = []
        for index, run in enumerate(runs):
            cells = [c for c in run.cells if c["config"] == config and c.get("depth") is not None
                     and c.get("length") is not None]
            if cells:
                tables.append(_heatmap(index, run, config, cells))
        blocks.append(f'<section class="heatmap" data-config="{escape(config)}"><h3>{escape(config)}</h3>'
                      f'<div class="hm-runs">{"".join(tables)}</div></section>')
    if not blocks:
        return "<p>No config of these runs has samples with a needle depth and a length.</p>"
    return ('<p class="note">Score (%) by needle depth (rows, % of the context) and context length (columns). '
            "Hover a cell for its exact score and n; click it to see its samples.</p>" + "".join(blocks))


def _heatmap(index: int, run: Run, config: str, cells: Sequence[Mapping[str, Any]]) -> str:
    lengths = sorted({c["length"] for c in cells}, key=_order)
    depths = sorted({c["depth"] for c in cells}, key=_order)
    by = {(_key(c["length"]), _key(c["depth"])): c for c in cells}
    head = "".join(f"<th>{escape(format_length(int(n)) if isinstance(n, int) else str(n))}</th>" for n in lengths)
    rows = []
    for depth in depths:
        tds = []
        for length in lengths:
            cell = by.get((_key(length), _key(depth)))
            if cell is None or cell.get("score") is None:
                tds.append('<td class="hm-empty"></td>')
                continue
            score = float(cell["score"])
            link = "#samples?" + urlencode({"run": index, "config": config, "len": _key(length), "depth": _key(depth)})
            tip = (f"{run.label} · {config} · length {length:,} tokens · depth {depth}%: "
                   f"{100 * score:.2f}% (n={cell['n']}" + (f", {cell['n_errors']} errors" if cell.get("n_errors") else "")
                   + ")") if isinstance(length, int) else f"{run.label} · {config}: {100 * score:.2f}% (n={cell['n']})"
            tds.append(f'<td class="hm-cell" style="background:{score_colour(score)}" data-tip="{escape(tip)}" '
                       f'data-value="{score:.6f}" data-n="{cell["n"]}"><a href="{escape(link)}">{100 * score:.0f}</a></td>')
        rows.append(f'<tr><th scope="row">{escape(str(depth))}%</th>{"".join(tds)}</tr>')
    return (f'<table class="hm" data-run="{index}"><caption>{escape(run.label)}</caption>'
            f'<thead><tr><th>depth \\ length</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def length_chart_svg(runs: Sequence[Run]) -> str:
    """Score against context length, one small chart per config with two lengths or more, one line per run."""
    charts = []
    for config in configs_of(runs):
        series = length_series(runs, config)
        if series.plottable:
            charts.append(_chart(runs, series))
    if not charts:
        return ""
    legend = "".join(f'<span class="key"><i style="background:{RUN_COLOURS[i % len(RUN_COLOURS)]}"></i>'
                     f'{escape(run.label)}</span>' for i, run in enumerate(runs))
    return (f'<h3>Score against context length</h3><p class="legend">{legend}</p>'
            f'<div class="charts">{"".join(charts)}</div>')


def _chart(runs: Sequence[Run], series: Any) -> str:
    width, height, left, right, top, bottom = 340, 210, 40, 12, 24, 34
    lengths = list(series.drawn)
    step = (width - left - right) / max(1, len(lengths) - 1)
    x = {length: left + i * step for i, length in enumerate(lengths)}

    def y(score: float) -> float:
        return top + (1 - score) * (height - top - bottom)

    parts = [f'<text x="{width / 2}" y="14" class="title">{escape(series.config)}</text>']
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(f'<line x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" class="grid"/>'
                     f'<text x="{left - 4}" y="{y(tick) + 4:.1f}" class="ytick">{100 * tick:.0f}</text>')
    for length in lengths:
        parts.append(f'<text x="{x[length]:.1f}" y="{height - bottom + 14}" class="xtick">'
                     f'{escape(format_length(length))}</text>')
    parts.append(f'<text x="{width / 2}" y="{height - 4}" class="axis">{escape(series.column.title if series.column else "")}'
                 "</text>")
    for index, (run, scores) in enumerate(zip(runs, series.scores)):
        colour = RUN_COLOURS[index % len(RUN_COLOURS)]
        points = [(length, scores[length]) for length in lengths if length in scores]
        if not points:
            continue
        path = " ".join(f"{x[length]:.1f},{y(score):.1f}" for length, (score, _) in points)
        parts.append(f'<polyline points="{path}" stroke="{colour}" class="line"/>')
        for length, (score, n) in points:
            shown = f"{length:,} tokens" if isinstance(length, int) else str(length)
            tip = f"{run.label} · {series.config} · {shown}: {100 * score:.2f}% (n={n})"
            parts.append(f'<circle cx="{x[length]:.1f}" cy="{y(score):.1f}" r="4" fill="{colour}" '
                         f'data-tip="{escape(tip)}" data-value="{score:.6f}"/>')
    return (f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" '
            f'aria-label="{escape(series.config)}: score against context length">{"".join(parts)}</svg>')
