"""HaystackCraft static NIAH in the report: the paper's tables (Appendices M, N, J, H) and Figures 3 and 4.

Everything is read from the ``scores.haystackcraft`` block of the results
(:func:`eval.benchmarks.haystackcraft.summary.haystackcraft_summary`):

- per ordering view, one table per run in the layout of Appendices M and N: one row per retrieval
  strategy, one column per context size (0 = no distractors, 8K, 16K, ...), F1 x 100 with two
  decimals as in the paper; the random view is the mean ± std over the three random orderings
  (Appendix N); the same tables in exact match follow;
- descending minus the random mean per strategy and size (Figure 4), as a table and a plot;
- the ordering ablation at the largest size: descending, ascending, random mean and middle per
  strategy (Appendix J, Table 3);
- F1 and EM by question hop count (Appendix H);
- the Appendix G baseline: a *No context* row in every table of a run with ``static-no-context``
  rows (the question without documents), and F1 by hop without context and with the needles alone
  (Figure 7's two conditions);
- beside a run scored ``--scoring official`` (the authors' reading, the default), the paper's
  published values (:mod:`eval.benchmarks.haystackcraft.paper`) in italics, marked *(paper, Table
  N)*: Appendix M under the descending F1 view, Appendix N under the random mean, Table 3 under
  the ablation at 128K with the hybrid retriever, for the strategies and sizes the runs have;
- ``haystackcraft_f1_<view>.png``: F1 against context size, one panel per run, one line per
  strategy: one colour per base retriever, solid without PPR and dashed with PPR (Figure 3), for
  each ordering present and the random mean; ``haystackcraft_descending_minus_random.png``
  (Figure 4).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eval.benchmarks.haystackcraft.paper import (
    ABLATION_SIZE,
    ABLATION_STRATEGY,
    DESCENDING,
    ORDERING_ABLATION,
    RANDOM,
    STRATEGY_NAMES,
    paper_cell,
)
from eval.benchmarks.haystackcraft.paper import SIZES as PAPER_SIZES
from eval.benchmarks.haystackcraft.tasks import is_random
from eval.report_runs import MISSING, Run, length_label, markdown_table, points
from generators.haystackcraft.spec import BENCHMARK

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

RANDOM_VIEW = "random-mean"
"""The view averaging the random orderings (Appendix N)."""
DIFFERENCE_PLOT = "haystackcraft_descending_minus_random.png"
RETRIEVER_NAMES: dict[str, str] = {"bm25": "BM25", "dense": "Dense", "hybrid": "Hybrid"}
RETRIEVER_COLOURS: dict[str, str] = {"bm25": "#1f77b4", "dense": "#d62728", "hybrid": "#2ca02c"}
"""One fixed colour per base retriever, the same in every panel and report (Figure 3)."""
VIEW_TITLES: dict[str, str] = {
    "descending": "Retriever-ranked descending ordering (Appendix M)",
    RANDOM_VIEW: "Mean ± std over the three random orderings (Appendix N)",
    "ascending": "Retriever-ranked ascending ordering",
    "middle": "Needles in the middle (Appendix J)",
}
SIZE_AXIS = "Context Size (# Tokens)"
NO_CONTEXT_LABEL = "No context (Appendix G baseline)"
NO_DISTRACTORS = "0\n(no distractors)"


def summary(run: Run) -> Mapping[str, Any]:
    """The run's ``scores.haystackcraft`` block (empty when the run has no HaystackCraft config)."""
    return run.scores.get(BENCHMARK) or {}


def haystackcraft_runs(runs: Sequence[Run]) -> list[Run]:
    """The runs with HaystackCraft scores, in report order."""
    return [run for run in runs if summary(run)]


def strategy_label(entry: Mapping[str, Any]) -> str:
    """``{"retriever": "bm25", "ppr": True}`` -> ``BM25 + PPR``."""
    name = RETRIEVER_NAMES.get(str(entry.get("retriever")), str(entry.get("retriever") or entry["strategy"]))
    return f"{name} + PPR" if entry.get("ppr") else name


def size_label(size: int) -> str:
    """A context size as the paper's tables print it: ``0``, ``8K``, ``128K``.

    HaystackCraft sizes are decimal (128,000 tokens is 128K, not 125 x 1024); other sizes read as
    :func:`eval.report_runs.length_label` (8192 -> ``8K``).
    """
    size = int(size)
    if size == 0:
        return "0"
    return f"{size // 1000}K" if size % 1000 == 0 else length_label(size)


def view_cells(block: Mapping[str, Any], strategy: str, view: str) -> Mapping[str, Mapping[str, Any]]:
    """``{size: stats}`` of one strategy in one view (an ordering, or :data:`RANDOM_VIEW`)."""
    if view == RANDOM_VIEW:
        return (block.get("random") or {}).get(strategy) or {}
    return ((block.get("cells") or {}).get(strategy) or {}).get(view) or {}


def views_of(runs: Sequence[Run]) -> list[str]:
    """Ordering views present: descending, the random mean, ascending, middle, then each random ordering."""
    orderings: list[str] = []
    for run in runs:
        orderings += [o for o in summary(run).get("orderings") or [] if o not in orderings]
    views = [v for v in ("descending",) if v in orderings]
    views += [RANDOM_VIEW] if any(is_random(o) for o in orderings) else []
    views += [o for o in orderings if o not in views and not is_random(o)]
    return views + [o for o in orderings if is_random(o)]


def plot_name(view: str) -> str:
    """``haystackcraft_f1_descending.png``, ``haystackcraft_f1_random-mean.png``..."""
    return f"haystackcraft_f1_{view}.png"


# Markdown --------------------------------------------------------------------------------------------


def haystackcraft_section(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
    """The report's HaystackCraft section: the paper's tables and links to its plots.

    Args:
        runs: Every run of the report; those without HaystackCraft scores are left out.
        plots: Relative path of each plot drawn, by view (an ordering or :data:`RANDOM_VIEW`)
            and ``"difference"`` for Figure 4.

    Returns:
        Markdown lines; none when no run has HaystackCraft scores.
    """
    scored = haystackcraft_runs(runs)
    if not scored:
        return []
    lines = ["## HaystackCraft static NIAH", "",
             ("F1 and exact match (EM) x 100, two decimals as in the paper's tables: MuSiQue's answer F1 (the best "
              "token F1 over the answer and its aliases, SQuAD v1.1 normalization). Rows are retrieval strategies, "
              "columns target context sizes in tokens; 0 = the needles alone, no distractors."), ""]
    lines += scoring_lines(scored)
    views = [v for v in views_of(scored) if not is_random(v)]
    for metric, title in (("f1", "F1"), ("em", "Exact match")):
        for view in views:
            lines += [f"### {title}: {VIEW_TITLES.get(view, view)}", ""]
            for run in scored:
                lines += [f"**{run.label}**", ""] + view_table(summary(run), view, metric)
            if metric == "f1":
                lines += paper_tables(scored, view)
            if metric == "f1" and view in plots:
                lines += [f"![F1 against context size, {view}]({plots[view]})", ""]
    random_plots = [v for v in views_of(scored) if is_random(v) and v in plots]
    if random_plots:
        lines += ["Each random ordering on its own: " + ", ".join(f"[{v}]({plots[v]})" for v in random_plots), ""]
    lines += difference_tables(scored, plots.get("difference"))
    lines += ablation_tables(scored)
    lines += hop_tables(scored)
    lines += no_context_tables(scored)
    return lines


def scoring_of(run: Run) -> str:
    """How the run read answers: ``official`` or ``lenient`` (a run recorded before ``--scoring`` existed was
    lenient, :meth:`eval.task.TaskOptions.from_record`)."""
    options = (run.results.get("run") or {}).get("task_options") or {}
    return str(options.get("scoring", "lenient"))


def scoring_lines(runs: Sequence[Run]) -> list[str]:
    """One line per run saying which reading scored it."""
    said = {"official": "official (the authors' reading: the first \"The correct answer is\", no match = 0; "
                        "comparable with the paper)",
            "lenient": "lenient (needlework's reading: last match and fall-backs; not comparable with the paper)"}
    return ["Scoring: " + "; ".join(f"{run.label}: {said.get(scoring_of(run), scoring_of(run))}" for run in runs), ""]


def _italic(text: str) -> str:
    return f"*{text}*" if text and text != MISSING else text


def paper_tables(runs: Sequence[Run], view: str) -> list[str]:
    """The paper's Appendix M (``descending``) or N (:data:`RANDOM_VIEW`) tables, in italics, for the
    strategies and sizes of the runs scored officially; nothing for other views or without such a run."""
    official = [run for run in runs if scoring_of(run) == "official"]
    if view not in ("descending", RANDOM_VIEW) or not official:
        return []
    strategies = [e["strategy"] for run in official for e in summary(run).get("strategies") or []]
    sizes = sorted({int(n) for run in official for n in summary(run).get("sizes") or []} & set(PAPER_SIZES))
    tables = DESCENDING if view == "descending" else RANDOM
    names = [name for name in dict.fromkeys(strategies) if name in tables]
    if not names or not sizes:
        return []
    appendix = "M" if view == "descending" else "N"
    lines = [(f"Italic *(paper, Table N)* rows: the paper's published F1 (Appendix {appendix}) for its own models at "
              "the sizes the runs share with it. The paper counts a size as the whole prompt in the Qwen2.5-1M "
              "tokenizer (needlework's --preset paper) and its dense retriever is Qwen3-Embedding-0.6B."), ""]
    for name in names:
        table = tables[name]
        rows = []
        for model in table.rows:
            cells = [paper_cell(view, name, model, n) for n in sizes]
            rows.append([_italic(f"{model} (paper, Table {table.number})"),
                         *(_italic(MISSING if c is None else f"{c[0]:.2f}" + ("" if c[1] is None else f" ± {c[1]:.2f}"))
                           for c in cells)])
        label = strategy_label({"strategy": name, "retriever": name.split("+")[0], "ppr": name.endswith("+ppr")})
        lines += [f"*Paper, {label} ({STRATEGY_NAMES[name]}, Table {table.number})*", ""]
        lines += markdown_table([SIZE_AXIS, *(size_label(n) for n in sizes)], rows)
    return lines


def no_context_tables(runs: Sequence[Run]) -> list[str]:
    """Appendix G (Figure 7): F1 by hop count without context and with the needles alone (size 0)."""
    with_baseline = [run for run in runs if summary(run).get("no_context")]
    if not with_baseline:
        return []
    lines = ["### Without context vs the needles alone, by hop count (Appendix G)", "",
             ("F1 x 100 of the static-no-context rows (the question alone: parametric knowledge) and of the size-0 "
              "rows (the supporting documents alone, every strategy and ordering). The paper draws these as "
              "Figure 7 and prints no table, so no paper values here."), ""]
    for run in with_baseline:
        block = summary(run)
        none, gold = block["no_context"], block.get("gold_context") or {}
        hops = sorted({*none.get("by_hops", {}), *gold.get("by_hops", {})}, key=int)
        rows = [[f"{h}-hop", points((none["by_hops"].get(h) or {}).get("f1")),
                 points((gold.get("by_hops", {}).get(h) or {}).get("f1")), (none["by_hops"].get(h) or {}).get("n", MISSING)]
                for h in hops]
        rows.append(["all", points(none.get("f1")), points(gold.get("f1")), none.get("n", MISSING)])
        lines += [f"**{run.label}**", ""] + markdown_table(["hops", "No context", "Needles only (size 0)", "n"], rows)
    return lines


def view_table(block: Mapping[str, Any], view: str, metric: str) -> list[str]:
    """Appendix M/N layout: one row per strategy, one column per size; the random view as mean ± std.

    With ``static-no-context`` rows, the first row is the Appendix G baseline: the question without
    documents, one value repeated in every column (it does not depend on the size)."""
    sizes = [int(n) for n in block.get("sizes") or []]
    rows = []
    baseline = block.get("no_context")
    if baseline:
        rows.append([NO_CONTEXT_LABEL, *([points(baseline.get(metric))] * len(sizes))])
    for entry in block.get("strategies") or []:
        cells = view_cells(block, entry["strategy"], view)
        rows.append([strategy_label(entry), *(_value(cells.get(str(n)), metric, view) for n in sizes)])
    return markdown_table([SIZE_AXIS, *(size_label(n) for n in sizes)], rows)


def _value(cell: Mapping[str, Any] | None, metric: str, view: str) -> str:
    if not cell or cell.get(metric) is None:
        return MISSING
    std = cell.get(f"{metric}_std") if view == RANDOM_VIEW else None
    return points(cell[metric]) + ("" if std is None else f" ± {points(std)}")


def _signed(value: float | None) -> str:
    return MISSING if value is None else f"{100 * float(value):+.2f}"


def difference_tables(runs: Sequence[Run], plot: str | None) -> list[str]:
    """Figure 4 as tables: descending minus the random mean, F1 x 100, per strategy and size."""
    lines = ["### Descending minus random (Figure 4)", "",
             ("F1 of the retriever-ranked descending ordering minus the mean F1 over the random orderings; "
              "positive: the model gains from retriever-ranked input."), ""]
    for run in runs:
        block = summary(run)
        sizes = [int(n) for n in block.get("sizes") or []]
        differences = block.get("descending_minus_random") or {}
        rows = [[strategy_label(entry),
                 *(_signed((differences.get(entry["strategy"], {}).get(str(n)) or {}).get("f1")) for n in sizes)]
                for entry in block.get("strategies") or []]
        lines += [f"**{run.label}**", ""] + markdown_table([SIZE_AXIS, *(size_label(n) for n in sizes)], rows)
    return lines + ([f"![F1 difference, descending minus random]({plot})", ""] if plot else [])


def ablation_tables(runs: Sequence[Run]) -> list[str]:
    """Appendix J, Table 3: F1 per ordering at the largest size, one row per strategy; under a run scored
    officially whose largest size is 128K with the hybrid strategy, Table 3's rows in italics."""
    lines: list[str] = []
    for run in runs:
        ablation = summary(run).get("ordering_ablation") or {}
        if not ablation.get("strategies"):
            continue
        by_name = {e["strategy"]: e for e in summary(run).get("strategies") or []}
        rows = [[strategy_label(by_name.get(name, {"strategy": name})),
                 *(points(scores.get(view, {}).get("f1")) for view in ("descending", "ascending", "random", "middle"))]
                for name, scores in ablation["strategies"].items()]
        if (scoring_of(run) == "official" and int(ablation["size"]) == ABLATION_SIZE
                and ABLATION_STRATEGY in ablation["strategies"]):
            rows += [[_italic(f"{model} (paper, Table 3, Hybrid)"),
                      *(_italic(f"{values[view]:.2f}") for view in ("descending", "ascending", "random", "middle"))]
                     for model, values in ORDERING_ABLATION.items()]
        if not lines:
            lines = [f"### Haystack ordering ablation at {size_label(ablation['size'])} tokens (Appendix J)", "",
                     ("F1 x 100 per ordering; Random is the mean over the random orderings; Middle puts the "
                      "needles at the centre of the context."), ""]
        lines += [f"**{run.label}**", ""]
        lines += markdown_table(["strategy", "Descending", "Ascending", "Random", "Middle"], rows)
    return lines


def hop_tables(runs: Sequence[Run]) -> list[str]:
    """F1 and EM by question hop count over every sample of the run (Appendix H)."""
    lines = ["### By hop count (Appendix H)", "", "Over every strategy, ordering and size of the run.", ""]
    for run in runs:
        by_hops = summary(run).get("by_hops") or {}
        rows = [[f"{hops}-hop", points(s.get("f1")), points(s.get("em")), s.get("n", MISSING)]
                for hops, s in sorted(by_hops.items(), key=lambda kv: int(kv[0]))]
        lines += [f"**{run.label}**", ""] + markdown_table(["hops", "F1", "EM", "n"], rows)
    return lines


# Plots -----------------------------------------------------------------------------------------------


def haystackcraft_plots(runs: Sequence[Run]) -> list[tuple[str, str, Callable[[], Figure]]]:
    """(view, file name, draw) of every HaystackCraft plot, in write order: one per view, then Figure 4.

    Figure 4 is drawn when at least one run has a descending and a random score at some size.
    """
    scored = haystackcraft_runs(runs)
    if not scored:
        return []
    plots: list[tuple[str, str, Callable[[], Figure]]] = [
        (view, plot_name(view), lambda view=view: plot_f1_against_size(scored, view)) for view in views_of(scored)]
    if any(d.get("f1") is not None for run in scored
           for by_size in (summary(run).get("descending_minus_random") or {}).values() for d in by_size.values()):
        plots.append(("difference", DIFFERENCE_PLOT, lambda: plot_ordering_difference(scored)))
    return plots


def plot_f1_against_size(runs: Sequence[Run], view: str) -> Figure:
    """Figure 3: F1 (%) against context size, one panel per run, one line per strategy.

    Lines take their base retriever's colour (:data:`RETRIEVER_COLOURS`); solid without PPR,
    dashed with PPR. Sizes are equally spaced categories, 0 labelled "no distractors".

    Args:
        runs: Runs with HaystackCraft scores; each gets a panel titled with its label.
        view: An ordering, or :data:`RANDOM_VIEW` for the mean over the random orderings.

    Returns:
        The figure, not yet saved.
    """
    title = VIEW_TITLES.get(view, f"{view} ordering")

    def series(block: Mapping[str, Any], entry: Mapping[str, Any]) -> list[tuple[int, Any]]:
        return [(int(n), c.get("f1")) for n, c in view_cells(block, entry["strategy"], view).items()]

    return _panels(runs, series, "F1 (%)", f"HaystackCraft static NIAH: F1 against context size\n{title}", (-3, 103))


def plot_ordering_difference(runs: Sequence[Run]) -> Figure:
    """Figure 4: F1 of descending minus the random mean (percentage points) against context size."""
    def series(block: Mapping[str, Any], entry: Mapping[str, Any]) -> list[tuple[int, Any]]:
        by_size = (block.get("descending_minus_random") or {}).get(entry["strategy"]) or {}
        return [(int(n), d.get("f1")) for n, d in by_size.items()]

    figure = _panels(runs, series, "F1 difference (points)", "HaystackCraft: F1 of descending minus random ordering",
                     None)
    for ax in figure.axes:
        ax.axhline(0, color="#555555", linestyle=":", linewidth=1.0)
    return figure


def _panels(runs: Sequence[Run], series: Callable[[Mapping[str, Any], Mapping[str, Any]], list[tuple[int, Any]]],
            ylabel: str, title: str, ylim: tuple[float, float] | None) -> Figure:
    """One panel per run, one line per strategy of ``series(block, strategy entry)`` ((size, fraction) pairs)."""
    from matplotlib.figure import Figure

    ncols = min(3, len(runs))
    nrows = math.ceil(len(runs) / ncols)
    fig = Figure(figsize=(5.0 * ncols, 3.8 * nrows + 0.8), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    handles: dict[str, Any] = {}
    for index, ax in enumerate(axes.flat):
        if index >= len(runs):
            ax.set_axis_off()
            continue
        block = summary(runs[index])
        sizes = [int(n) for n in block.get("sizes") or []]
        for entry in block.get("strategies") or []:
            pairs = sorted((n, 100 * float(v)) for n, v in series(block, entry) if v is not None)
            if not pairs:
                continue
            xs = [sizes.index(n) for n, _ in pairs]
            (line,) = ax.plot(xs, [v for _, v in pairs], marker="o", label=strategy_label(entry),
                              color=RETRIEVER_COLOURS.get(str(entry.get("retriever")), "#7f7f7f"),
                              linestyle="--" if entry.get("ppr") else "-")
            handles.setdefault(strategy_label(entry), line)
        _size_axis(ax, sizes)
        ax.set_title(runs[index].label)
        ax.set_ylabel(ylabel)
        if ylim is not None:
            ax.set_ylim(*ylim)
        ax.grid(True, alpha=0.3)
    if handles:
        fig.legend(list(handles.values()), list(handles), loc="outside lower center", ncols=min(len(handles), 6),
                   frameon=False)
    fig.suptitle(title)
    return fig


def _size_axis(ax: Axes, sizes: Sequence[int]) -> None:
    """Sizes as equally spaced categories (the paper's 0, 8K, ..., 128K), 0 = no distractors."""
    ax.set_xticks(range(len(sizes)), [NO_DISTRACTORS if n == 0 else size_label(n) for n in sizes])
    ax.set_xlabel(SIZE_AXIS)
    if sizes:
        ax.set_xlim(-0.3, len(sizes) - 0.7)
