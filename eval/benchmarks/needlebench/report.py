"""NeedleBench in the report: the paper's tables, the ATC curve and the reasoning heatmaps per needle count.

Everything is read from the ``scores.needlebench`` block of the results
(:func:`eval.benchmarks.needlebench.summary.needlebench_summary`):

- the information-sparse table in the layout of the paper's Tables 1 and 2: one row per run,
  S-RT, M-RT and M-RS each in Chinese, English and overall, then the overall score;
- per language, the ATC table in the layout of Table 3: accuracy per needle count (under it, the
  prompts' mean length), the weighted average over the counts up to 2K tokens and over all counts,
  and ENL-50;
- ``atc_curve.png``: ATC accuracy against needle count, one line per run and language, the ENL-50
  point starred and the 50% threshold dashed (the paper's Figure 6);
- multi-needle reasoning heatmaps, one per config and needle count (Figure 5), named by
  :func:`needle_heatmap_name` and drawn by :func:`eval.report_plots.plot_depth_heatmap`;
- the multiple-choice ATC's circular scores per needle count (:mod:`.report_choice`);
- M-RT of the per-depth layout by needle depth: a table and a heatmap per config (:mod:`.report_depths`).

The paper's tables give two decimals; so do these (per-needle accuracies one, as in Table 3).

Beside the runs, the paper's published rows (:mod:`eval.benchmarks.needlebench.paper`), in italics
and marked *(paper, ...)*, only where the setups match: Table 1's rows under a run whose
information-sparse lengths go up to 32K, Table 2's up to 128K (:func:`sparse_setting`), each cell
only for a task and language a run of that setting has; Table 3's rows at the needle counts of the
ATC tables, its weighted averages and ENL-50 only when the table has all nine counts. In the ATC
curve the paper's rows are thin dashed grey lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eval.benchmarks.needlebench.paper import (
    SPARSE_TABLES,
    TABLE3,
    TABLE3_LENGTHS,
    TABLE3_NEEDLES,
)
from eval.benchmarks.needlebench.report_choice import choice_tables
from eval.benchmarks.needlebench.report_depths import depth_plots, depth_tables
from eval.benchmarks.needlebench.tasks import PAPER_LANGS, TASK_TITLES
from eval.report_plots import plot_depth_heatmap
from eval.report_runs import MISSING, Run, configs_of, markdown_table, percent, points
from generators.needlebench.spec import BENCHMARK, SPARSE_TASKS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ATC_CURVE = "atc_curve.png"
ATC_VIEW = "atc"
TASK_LABELS: dict[str, str] = {"s-rt": "S-RT", "m-rt": "M-RT", "m-rs": "M-RS", "atc": "ATC"}
LANG_NAMES: dict[str, str] = {"zh": "Chinese", "en": "English"}
LANG_STYLES: dict[str, tuple[str, str]] = {"en": ("-", "o"), "zh": (":", "s")}
"""(line style, marker) per language in the ATC curve; the threshold alone is dashed."""
THRESHOLD_PERCENT = 50
PAPER_COLOUR = "0.7"
"""The paper's rows in the ATC curve: thin dashed lines in this grey."""
PAPER_GID = "paper"
"""The ``gid`` of every line drawn for a paper row, so the threshold stays the one other dashed line."""


def summary(run: Run) -> Mapping[str, Any]:
    """The run's ``scores.needlebench`` block (empty when the run has no NeedleBench config)."""
    return run.scores.get(BENCHMARK) or {}


def needlebench_runs(runs: Sequence[Run]) -> list[Run]:
    """The runs with NeedleBench scores, in report order."""
    return [run for run in runs if summary(run)]


def atc_runs(runs: Sequence[Run]) -> list[Run]:
    """The runs with ATC scores in at least one language."""
    return [run for run in runs if summary(run).get("atc")]


def kilo_tokens(tokens: float | None) -> str:
    """A mean prompt length as Table 3 prints it: ``437.5`` -> ``0.4K``, ``4992`` -> ``5K``."""
    if tokens is None:
        return MISSING
    return f"{float(tokens) / 1000:.1f}".removesuffix(".0") + "K"


# Heatmaps per needle count --------------------------------------------------------------------------


def needle_heatmap_keys(runs: Sequence[Run]) -> list[tuple[str, int]]:
    """(config, needle count) of every multi-needle reasoning heatmap: configs in report order, counts ascending."""
    keys = {(str(c["config"]), int(c["needle_count"])) for run in runs for c in summary(run).get("m_rs_cells") or []
            if c.get("depth") is not None}
    order = {config: index for index, config in enumerate(configs_of(runs))}
    return sorted(keys, key=lambda key: (order.get(key[0], len(order)), key[0], key[1]))


def needle_cells(run: Run, config: str, needle_count: int) -> list[Mapping[str, Any]]:
    """One run's multi-needle reasoning cells (length x depth) of one config at one needle count."""
    return [c for c in summary(run).get("m_rs_cells") or []
            if c["config"] == config and int(c["needle_count"]) == needle_count]


def needle_heatmap_name(config: str, needle_count: int) -> str:
    """``heatmap_m-rs-en_needles=3.png``: characters unsafe in file names replaced by ``_``."""
    return f"heatmap_{re.sub(r'[^A-Za-z0-9_.-]', '_', config)}_needles={needle_count}.png"


def needle_heatmap_view(config: str, needle_count: int) -> str:
    """The view name of one multi-needle reasoning heatmap among the section's plots."""
    return f"m-rs/{config}/needles={needle_count}"


def needlebench_plots(runs: Sequence[Run]) -> list[tuple[str, str, Callable[[], Figure]]]:
    """(view, file name, draw) of the NeedleBench plots, in write order: the ATC curve when a run has
    ATC scores, then one multi-needle reasoning heatmap per config and needle count, then one per-depth M-RT
    heatmap per config (:func:`eval.benchmarks.needlebench.report_depths.depth_plots`)."""
    plots: list[tuple[str, str, Callable[[], Figure]]] = []
    if atc_runs(runs):
        plots.append((ATC_VIEW, ATC_CURVE, lambda: plot_atc_curve(runs)))
    for config, count in needle_heatmap_keys(runs):
        plots.append((needle_heatmap_view(config, count), needle_heatmap_name(config, count),
                      lambda config=config, count=count: plot_depth_heatmap(
                          runs, config, cells=[needle_cells(r, config, count) for r in runs],
                          title=f"{config}, {count} needles")))
    return plots + depth_plots(runs)


# Markdown --------------------------------------------------------------------------------------------


def needlebench_section(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
    """The report's NeedleBench section: the paper's tables and links to its plots.

    Args:
        runs: Every run of the report; those without NeedleBench scores are left out.
        plots: Relative path of each plot drawn, by view (:data:`ATC_VIEW` for the ATC curve,
            :func:`needle_heatmap_view` for each multi-needle reasoning heatmap, ``depth_heatmap_view`` of
            :mod:`.report_depths` for each per-depth M-RT heatmap).

    Returns:
        Markdown lines; none when no run has NeedleBench scores.
    """
    scored = needlebench_runs(runs)
    if not scored:
        return []
    lines = ["## NeedleBench", ""]
    lines += sparse_table(scored)
    lines += atc_tables(scored)
    if ATC_VIEW in plots:
        lines += [f"![ATC accuracy against needle count]({plots[ATC_VIEW]})", ""]
    lines += choice_tables(scored)
    heatmaps = [(config, count, plots[needle_heatmap_view(config, count)]) for config, count in needle_heatmap_keys(runs)
                if needle_heatmap_view(config, count) in plots]
    if heatmaps:
        lines += ["### Multi-needle reasoning by needle count", ""]
        for config, count, name in heatmaps:
            lines += [f"![{config}, {count} needles: score by depth and length]({name})", ""]
    return lines + depth_tables(scored, plots)


def sparse_config_task(config: str) -> str | None:
    """The information-sparse task of a config (``m-rs-en`` -> ``m-rs``), or None for ATC and others."""
    return next((task for task in SPARSE_TASKS if config == task or config.startswith(f"{task}-")), None)


def sparse_setting(run: Run) -> tuple[str | None, int | None]:
    """(the paper's setting its lengths match, the run's largest information-sparse length in tokens).

    The paper names its settings by their largest length ("NeedleBench 32K", "128K") and does not
    print the grid, so a run matches a setting when its largest length is that many thousand
    tokens, counted in thousands or in 1,024s (32,000 to 32,768; 128,000 to 131,072).
    """
    lengths = [int(cell["length"]) for cell in run.cells
               if cell.get("length") is not None and sparse_config_task(str(cell["config"])) is not None]
    if not lengths:
        return None, None
    top = max(lengths)
    return next((name for name, (_, kilo, _) in SPARSE_TABLES.items() if 1000 * kilo <= top <= 1024 * kilo), None), top


def _italic(text: str) -> str:
    return text if text == MISSING else f"*{text}*"


def sparse_table(runs: Sequence[Run]) -> list[str]:
    """Tables 1-2: per run with an information-sparse task, each such task present in Chinese, English
    and overall, and Overall (a run with ATC alone has no row); then the rows of the paper's table
    for each setting a run matches (:func:`sparse_setting`), in italics."""
    with_sparse = [run for run in runs if any(t in summary(run).get("tasks", {}) for t in SPARSE_TASKS)]
    tasks = [t for t in SPARSE_TASKS if any(t in summary(run).get("tasks", {}) for run in with_sparse)]
    if not tasks:
        return []
    header = ["run", *(f"{TASK_LABELS[t]} {column}" for t in tasks for column in (*PAPER_LANGS, "overall")), "Overall"]
    rows = []
    for run in with_sparse:
        by_task = summary(run).get("tasks", {})
        row: list[str] = [run.label]
        for task in tasks:
            scores = by_task.get(task, {})
            row += [points((scores.get(lang) or {}).get("score")) for lang in PAPER_LANGS]
            row.append(points(scores.get("overall")))
        rows.append([*row, points((summary(run).get("overall") or {}).get("score"))])
    paper_rows, settings = _paper_sparse_rows(with_sparse, tasks)
    names = ", ".join(f"{TASK_LABELS[t]} = {TASK_TITLES[t]}" for t in tasks)
    return [
        "### Information-sparse tasks",
        "",
        (f"Scores (%) as in the paper's Tables 1-2 ({names}). A task's score in a language is the mean "
         "over its samples (equation 2); its overall is the mean of its languages; Overall is the mean "
         "of the tasks' overalls (equation 3)."),
        "",
        *markdown_table(header, rows + paper_rows),
        *settings,
    ]


def _paper_sparse_rows(runs: Sequence[Run], tasks: Sequence[str]) -> tuple[list[list[str]], list[str]]:
    """The paper's rows for the settings the runs match, and the lines that say which setting each run is."""
    matched: dict[str, list[Run]] = {}
    said = []
    for run in runs:
        setting, top = sparse_setting(run)
        if setting is None:
            said.append(f"- {run.label}: lengths up to {f'{top:,}' if top else 'unknown'} tokens; the paper has no "
                        "table for this grid (Table 1 is NeedleBench 32K, Table 2 128K), so no paper rows beside it.")
            continue
        table = SPARSE_TABLES[setting][0]
        matched.setdefault(setting, []).append(run)
        said.append(f"- {run.label}: lengths up to {top:,} tokens, the paper's NeedleBench {setting} setting: "
                    f"beside it the *(paper, {table}, {setting})* rows.")
    rows: list[list[str]] = []
    for setting, (table, _, paper) in SPARSE_TABLES.items():
        if setting not in matched:
            continue
        covered = {(task, lang) for run in matched[setting] for task, block in summary(run).get("tasks", {}).items()
                   for lang in PAPER_LANGS if (block.get(lang) or {}).get("score") is not None}
        for model, row in paper.items():
            cells = [f"{model} (paper, {table}, {setting})"]
            for task in tasks:
                zh, en, overall = row.tasks[task]
                shown = [(task, lang) in covered for lang in PAPER_LANGS]
                cells += [f"{value:.2f}" if ok else MISSING for value, ok in zip((zh, en), shown)]
                cells.append(f"{overall:.2f}" if all(shown) else MISSING)
            cells.append(f"{row.overall:.2f}" if tuple(tasks) == SPARSE_TASKS and all(
                (t, lang) in covered for t in SPARSE_TASKS for lang in PAPER_LANGS) else MISSING)
            rows.append([_italic(cell) for cell in cells])
    if not said:
        return rows, []
    note = ("Italic *(paper, ...)* rows: the paper's published values for its own models, each cell only "
            "for a task and language a run of that setting has (Overall only with all three tasks in both "
            "languages). The paper names a setting by its largest length and does not print its length grid, "
            "depths or filler sources beyond the text; compare with care.")
    return rows, [*said, "", note, ""]


def atc_tables(runs: Sequence[Run]) -> list[str]:
    """Table 3 per language: accuracy (%) per needle count, weighted averages and ENL-50."""
    with_atc = atc_runs(runs)
    if not with_atc:
        return []
    lines = [
        "### Ancestral Trace Challenge",
        "",
        ("Exact-match accuracy (%) per needle count, as in the paper's Table 3; the first row is the prompts' "
         "mean length. Weighted: equation 4 (each count weighted by its number of needles) over the counts "
         "whose prompts average at most 2K tokens (≤2K) and over all counts; ENL-50: the largest count "
         "with an accuracy of at least 50%."),
        "",
    ]
    langs = sorted({lang for run in with_atc for lang in summary(run)["atc"]},
                   key=lambda lang: (PAPER_LANGS.index(lang) if lang in PAPER_LANGS else len(PAPER_LANGS), lang))
    for lang in langs:
        blocks = [(run, summary(run)["atc"].get(lang) or {}) for run in with_atc]
        counts = sorted({int(n) for _, block in blocks for n in block.get("by_needles", {})})
        lengths = [next((b["by_needles"][str(n)].get("mean_n_tokens") for _, b in blocks
                         if str(n) in b.get("by_needles", {})), None) for n in counts]
        rows: list[list[object]] = [["length (tokens)", *(kilo_tokens(t) for t in lengths), "", "", ""]]
        for run, block in blocks:
            by_needles = block.get("by_needles", {})
            accuracy = [percent((by_needles.get(str(n)) or {}).get("score")) for n in counts]
            enl = block.get("enl_50")
            rows.append([run.label, *accuracy, points(block.get("weighted_short")), points(block.get("weighted_all")),
                         MISSING if enl is None else enl])
        lines += [f"#### ATC, {LANG_NAMES.get(lang, lang)} ({lang})", ""]
        lines += markdown_table(["needles", *map(str, counts), "weighted ≤2K", "weighted all", "ENL-50"],
                                rows + paper_atc_rows(counts))
    if paper_counts(with_atc):
        lines += [("Italic *(paper, Table 3)* rows: the paper's published ATC values for its own models, at the needle "
                   "counts of the table (its prompts' mean lengths in the italic length row); its weighted averages "
                   "and ENL-50 only when the table has all nine counts 2 ... 512. The paper does not say which "
                   "language Table 3 is in, so its rows stand under each language."), ""]
    return lines


def paper_counts(runs: Sequence[Run]) -> list[int]:
    """The needle counts of the runs' ATC tables that Table 3 has, ascending."""
    return sorted({int(n) for run in runs for block in (summary(run).get("atc") or {}).values()
                   for n in block.get("by_needles", {}) if int(n) in TABLE3_NEEDLES})


def paper_atc_rows(counts: Sequence[int]) -> list[list[object]]:
    """Table 3's length row and model rows over ``counts``, in italics; none when no count is Table 3's."""
    if not any(n in TABLE3_NEEDLES for n in counts):
        return []
    whole = tuple(counts) == TABLE3_NEEDLES
    rows: list[list[object]] = [[_italic(cell) for cell in ["length (paper, Table 3)",
                                                             *(TABLE3_LENGTHS.get(n, MISSING) for n in counts)]]
                                + ["", "", ""]]
    for model, row in TABLE3.items():
        accuracy = row.by_needles()
        cells = [f"{model} (paper, Table 3)", *(f"{accuracy[n]:.1f}" if n in accuracy else MISSING for n in counts),
                 *((f"{row.weighted_short:.2f}", f"{row.weighted_all:.2f}", str(row.enl_50)) if whole
                   else (MISSING,) * 3)]
        rows.append([_italic(cell) for cell in cells])
    return rows


# ATC curve -------------------------------------------------------------------------------------------


def atc_series(run: Run, lang: str) -> list[tuple[int, float]]:
    """(needle count, accuracy %) of one run in one language, counts ascending."""
    by_needles = ((summary(run).get("atc") or {}).get(lang) or {}).get("by_needles", {})
    return sorted((int(n), 100 * float(s["score"])) for n, s in by_needles.items() if s.get("score") is not None)


def plot_atc_curve(runs: Sequence[Run]) -> Figure:
    """ATC accuracy (%) against needle count (log2 axis), one line per run and language.

    A run keeps one colour; languages differ in line style and marker (:data:`LANG_STYLES`). Each
    line's ENL-50 point is a star; the 50% threshold is dashed. Behind them, the paper's Table 3 rows
    at the runs' needle counts are thin dashed grey lines (``gid`` :data:`PAPER_GID`), with one
    legend entry for all of them.

    Args:
        runs: The loaded runs; those without ATC scores are left out.

    Returns:
        The figure, not yet saved.
    """
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    fig = Figure(figsize=(7.2, 4.6), layout="constrained")
    ax = fig.subplots()
    counts: set[int] = {int(n) for run in runs for block in (summary(run).get("atc") or {}).values()
                        for n, cell in block.get("by_needles", {}).items() if cell.get("score") is not None}
    shared = sorted(counts & set(TABLE3_NEEDLES))
    for model, row in TABLE3.items() if shared else ():
        accuracy = row.by_needles()
        ax.plot(shared, [accuracy[n] for n in shared], linestyle="--", color=PAPER_COLOUR, linewidth=0.8,
                marker=".", markersize=3, zorder=1, gid=PAPER_GID, label=f"_{model} (paper)")
    for index, run in enumerate(runs):
        for lang, block in sorted((summary(run).get("atc") or {}).items()):
            series = atc_series(run, lang)
            if not series:
                continue
            colour = f"C{index % 10}"
            style, marker = LANG_STYLES.get(lang, ("-.", "^"))
            xs, ys = zip(*series)
            ax.plot(xs, ys, linestyle=style, marker=marker, color=colour, label=f"{run.label} · {lang}")
            enl = int(block.get("enl_50") or 0)
            if enl in xs:
                ax.plot([enl], [ys[xs.index(enl)]], linestyle="none", marker="*", markersize=15, color=colour,
                        markeredgecolor="black", zorder=5)
    ax.axhline(THRESHOLD_PERCENT, color="#555555", linestyle="--", linewidth=1.2)
    ax.set_ylim(-3, 103)
    ax.set_xlabel("needle count")
    ax.set_ylabel("exact-match accuracy (%)")
    ax.grid(True, alpha=0.3)
    if counts:
        ticks = sorted(counts)
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks, [str(n) for n in ticks])
        ax.minorticks_off()
        ax.set_xlim(ticks[0] / 1.3, ticks[-1] * 1.3)
    handles, _ = ax.get_legend_handles_labels()
    handles += [Line2D([], [], linestyle="none", marker="*", markersize=12, color="#999999", markeredgecolor="black",
                       label="ENL-50"),
                Line2D([], [], color="#555555", linestyle="--", label=f"{THRESHOLD_PERCENT}% threshold")]
    if shared:
        handles.append(Line2D([], [], color=PAPER_COLOUR, linestyle="--", linewidth=0.8, label="paper, Table 3"))
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 4), fontsize=8, frameon=False)
    ax.set_title("Ancestral Trace Challenge: accuracy against needle count")
    return fig
