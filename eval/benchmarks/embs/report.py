"""EverMemBench-S in the report: Table 3 and Table 4 layouts, score-against-scale curves, the paper beside the run.

- **Scales each model could take**: per run, the scales it took, took in part, and those over its window.
- **Evidence access** (Table 3 layout): R@1 / SR@10 / FR@10 per system and scale. Rows are the
  long-context models' localization (from the runs' ``scores.embs`` block), the retrievers of each
  run's release (its ``retrieval`` table, when the release can be opened), then the paper's
  published rows in italics, marked *(paper)*.
- **Generative QA** (Table 4 layout): the 0–5 judge mean per system and scale, with the model's
  window; ``over`` where the prompt exceeded the window (A.2: not evaluated, never truncated),
  ``not judged`` until ``python -m eval judge`` has run, and how many verdicts were unreadable (no
  bare 0–5 integer: left out of the mean, counted); then the paper's rows in italics.
- ``embs_access.png`` and ``embs_qa.png``: SR@10 and the judge score against scale, one solid
  line per system of the runs, the paper's rows dashed and grey.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eval.benchmarks.embs.judge import JUDGE_MAX, JUDGE_RUBRIC
from eval.benchmarks.embs.summary import system_of
from eval.benchmarks.embs.tasks import QA
from eval.release import open_release
from eval.report_runs import MISSING, Run, markdown_table
from eval.rubric import read_verdicts
from eval.store import RunDirectory
from generators.embs.paper import TABLE3, TABLE4
from generators.embs.spec import BENCHMARK, RERANK_SUFFIX, scale_sort_key
from needlework.errors import NeedleworkError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ACCESS_PLOT, QA_PLOT = "embs_access.png", "embs_qa.png"
ACCESS_VIEW, QA_VIEW = "embs_access", "embs_qa"


def summary(run: Run) -> Mapping[str, Any]:
    """The run's ``scores.embs`` block (empty without EMB-S samples)."""
    return run.scores.get(BENCHMARK) or {}


def embs_runs(runs: Sequence[Run]) -> list[Run]:
    """The runs with EMB-S samples, in report order."""
    return [run for run in runs if summary(run)]


def judged_cells(run: Run) -> dict[str, dict[str, dict[str, Any]]]:
    """``{system: {scale: {"judge": mean 0-5, "n", "unreadable"}}}`` from the run's judge log; empty when not judged."""
    directory = RunDirectory(run.directory)
    if not directory.has_judgements():
        return {}
    metadata = {e["key"]: e["metadata"] for e in directory.read_run()["expected"] if e["task"] == QA}
    grouped: dict[tuple[str, str], list[int | None]] = defaultdict(list)
    for key, verdict in read_verdicts(directory, JUDGE_RUBRIC).items():
        if key in metadata and verdict.error is None:
            grouped[(system_of(metadata[key]), str(metadata[key]["scale"]))].append(verdict.value)
    cells: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
    for (system, scale), values in grouped.items():
        read = [v for v in values if v is not None]
        cells[system][scale] = {"judge": sum(read) / len(read) if read else None, "n": len(read),
                                "unreadable": len(values) - len(read)}
    return dict(cells)


def release_access(runs: Sequence[Run]) -> dict[str, dict[str, Mapping[str, Any]]]:
    """``{retriever: {scale: retrieval row}}`` of the runs' releases (their ``retrieval`` tables).

    A release that cannot be opened here (a Hub release offline) is left out: the runs' own rows stay. Only EMB-S
    runs are read: a report over several benchmarks (a suite's) also holds HaystackCraft's, whose ``retrieval``
    table has another schema.
    """
    rows: dict[str, dict[str, Mapping[str, Any]]] = defaultdict(dict)
    for dataset, revision in dict.fromkeys((str(r.results["run"]["dataset"]), str(r.results["run"]["revision"]))
                                           for r in runs if r.results.get("provenance", {}).get("benchmark") == BENCHMARK):
        try:
            release = open_release(dataset, None if revision.startswith("sha256:") else revision)
            if "retrieval" not in release.manifest.get("configs", {}):
                continue
            for row in release.iter_rows("retrieval", "test"):
                rows[str(row["retriever"])][str(row["scale"])] = row
        except NeedleworkError:
            continue
    return dict(rows)


def _three(values: tuple[float | None, float | None, float | None] | None) -> list[str]:
    return [MISSING if v is None else f"{v:.3f}" for v in (values or (None, None, None))]


def paper_table3(retrievers: Iterable[str]) -> dict[str, Mapping[str, tuple[float, float, float]]]:
    """The paper's Table 3 rows to show beside releases with ``retrievers``: the reranked ones (Qwen3-Reranker-8B)
    only when a release has a reranked system (``<retriever>+rerank``), so no row stands beside nothing like it."""
    reranked = any(name.endswith(RERANK_SUFFIX) for name in retrievers)
    return {system: rows for system, rows in TABLE3.items() if reranked or "Reranker" not in system}


def access_table(runs: Sequence[Run], retrievers: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[str]:
    """Table 3's layout: R@1 / SR@10 / FR@10 per scale for the runs' localization, the releases' retrievers and the paper."""
    model_rows = [(f"{run.label} ({system})", cells) for run in embs_runs(runs)
                  for system, cells in summary(run)["systems"].items() if any("localize" in c for c in cells.values())]
    scales = sorted({s for _, cells in model_rows for s in cells} | {s for r in retrievers.values() for s in r}
                    | {s for r in paper_table3(retrievers).values() for s in r}, key=scale_sort_key)
    header = ["system", *(f"{s} {m}" for s in scales for m in ("R@1", "SR@10", "FR@10"))]
    rows: list[list[str]] = []
    for label, cells in model_rows:
        row = [label]
        for scale in scales:
            cell = cells.get(scale, {})
            access = cell.get("localize")
            row += (["over"] * 3 if cell.get("window") == "over" else
                    _three((access["r1"], access["sr10"], access["fr10"]) if access else None))
        rows.append(row)
    for retriever, by_scale in sorted(retrievers.items()):
        rows.append([f"{retriever} (release)", *(v for s in scales for v in _three(
            (by_scale[s]["r1"], by_scale[s]["sr10"], by_scale[s]["fr10"]) if s in by_scale else None))])
    for system, by_scale in paper_table3(retrievers).items():
        rows.append([f"*{system} (paper)*", *(f"*{v}*" if v != MISSING else v
                                              for s in scales for v in _three(by_scale.get(s)))])
    return ["### Evidence access (Table 3 layout)", "",
            ("R@1 on single-source queries, SR@10 on all, FR@10 on multi-source (A.5). Long-context rows are the "
             "models' localization by document ID; *(release)* rows are the release's retrievers over the same corpora; "
             "italic *(paper)* rows are the paper's published values (483 queries, 326M-token bank), for orientation."), "",
            *markdown_table(header, rows)]


def qa_table(runs: Sequence[Run]) -> list[str]:
    """Table 4's layout: the 0–5 judge mean per system and scale with the model's window, then the paper's rows."""
    entries = []
    for run in embs_runs(runs):
        judged = judged_cells(run)
        window = (run.results.get("provenance") or {}).get("window")
        for system, cells in summary(run)["systems"].items():
            if any("qa" in c for c in cells.values()):
                entries.append((f"{run.label} ({system})", window, cells, judged.get(system, {})))
    if not entries:
        return []
    scales = sorted({s for *_, cells, _ in entries for s in cells} | {s for _, (_, r) in TABLE4.items() for s in r},
                    key=scale_sort_key)
    rows: list[list[str]] = []
    for label, window, cells, judged in entries:
        row = [label, f"{window:,}" if isinstance(window, int) else MISSING]
        for scale in scales:
            cell, verdicts = cells.get(scale), judged.get(scale)
            if cell is None or "qa" not in cell:
                row.append(MISSING)
            elif cell["window"] == "over":
                row.append("over")
            elif verdicts is None or verdicts["judge"] is None:
                row.append("not judged")
            else:
                notes = [note for note, shown in (("partial", cell["window"] == "partial"),
                                                  (f"{verdicts['unreadable']} unreadable", verdicts["unreadable"] > 0)) if shown]
                row.append(f"{verdicts['judge']:.2f}" + (f" ({', '.join(notes)})" if notes else ""))
        rows.append(row)
    for model, (window, by_scale) in TABLE4.items():
        rows.append([f"*{model} (paper)*", f"*{window}*",
                     *(f"*{by_scale[s]:.2f}*" if s in by_scale else MISSING for s in scales)])
    return ["### Generative QA (Table 4 layout)", "",
            (f"LLM-as-a-Judge score 0–{JUDGE_MAX} (Figure 6 prompt) per scale with the full corpus as context "
             "(long-context) or the retriever's top documents (rag). *over*: the prompt exceeded the model's window and "
             "was skipped, never truncated (A.2); italic *(paper)* rows: the paper's Grok-4-judged values."), "",
            *markdown_table(["system", "window", *scales], rows)]


def window_lines(runs: Sequence[Run]) -> list[str]:
    """Per run and system: the scales its model took whole, took in part, and could not take (A.2's window rule)."""
    lines = []
    for run in embs_runs(runs):
        window = (run.results.get("provenance") or {}).get("window")
        for system, cells in summary(run)["systems"].items():
            status: dict[str, list[str]] = defaultdict(list)
            for scale in sorted(cells, key=scale_sort_key):
                status[cells[scale]["window"]].append(scale)
            said = [f"{label} {', '.join(status[key])}" for key, label in
                    (("fits", "took"), ("partial", "took in part"), ("over", "over the window:")) if status[key]]
            lines.append(f"- {run.label} ({system}), window {f'{window:,}' if isinstance(window, int) else 'not known'}: "
                         + "; ".join(said))
    return ["### Scales each model could take (A.2)", "", *lines, ""] if lines else []


def embs_section(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
    """The report's EverMemBench-S section (module docstring); empty when no run has EMB-S samples."""
    if not embs_runs(runs):
        return []
    retrievers = release_access(runs)
    lines = ["## EverMemBench-S", "", *window_lines(runs), *access_table(runs, retrievers), *qa_table(runs)]
    for view, title in ((ACCESS_VIEW, "SR@10 against scale"), (QA_VIEW, "Judge score against scale")):
        if view in plots:
            lines += [f"![{title}]({plots[view]})", ""]
    return lines


def embs_plots(runs: Sequence[Run]) -> list[tuple[str, str, Callable[[], Figure]]]:
    """The two curves of the section, when there are runs with EMB-S samples."""
    if not embs_runs(runs):
        return []
    return [(ACCESS_VIEW, ACCESS_PLOT, lambda: plot_access(runs, release_access(runs))),
            (QA_VIEW, QA_PLOT, lambda: plot_qa(runs))]


def _scale_axis(ax: Any, scales: Sequence[str]) -> dict[str, int]:
    position = {scale: i for i, scale in enumerate(scales)}
    ax.set_xticks(range(len(scales)), scales)
    ax.set_xlabel("ladder scale (evidence pool, tokens)")
    ax.grid(True, alpha=0.3)
    return position


def plot_access(runs: Sequence[Run], retrievers: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> Figure:
    """SR@10 against scale: the runs' localization and the releases' retrievers solid, the paper's rows dashed grey."""
    ours: list[tuple[str, dict[str, float]]] = []
    for run in embs_runs(runs):
        for system, cells in summary(run)["systems"].items():
            points = {s: c["localize"]["sr10"] for s, c in cells.items()
                      if c.get("localize") and c["localize"]["sr10"] is not None}
            if points:
                ours.append((f"{run.label} ({system})", points))
    ours += [(f"{name} (release)", {s: r["sr10"] for s, r in by_scale.items() if r["sr10"] is not None})
             for name, by_scale in sorted(retrievers.items())]
    paper = [(f"{name} (paper)", {s: v[1] for s, v in by_scale.items()}) for name, by_scale in paper_table3(retrievers).items()]
    return _curves(ours, paper, "SR@10", (0.0, 1.02), "Evidence access against scale")


def plot_qa(runs: Sequence[Run]) -> Figure:
    """The judge's 0–5 mean against scale: the runs solid, the paper's Table 4 rows dashed grey."""
    ours = []
    for run in embs_runs(runs):
        for system, cells in judged_cells(run).items():
            points = {s: c["judge"] for s, c in cells.items() if c["judge"] is not None}
            if points:
                ours.append((f"{run.label} ({system})", points))
    paper = [(f"{model} (paper)", dict(by_scale)) for model, (_, by_scale) in TABLE4.items()]
    return _curves(ours, paper, f"judge score (0–{JUDGE_MAX})", (0.0, JUDGE_MAX + 0.1), "Generative QA against scale")


def _curves(ours: Sequence[tuple[str, Mapping[str, float]]], paper: Sequence[tuple[str, Mapping[str, float]]],
            ylabel: str, ylim: tuple[float, float], title: str) -> Figure:
    import matplotlib.pyplot as plt

    scales = sorted({s for _, p in [*ours, *paper] for s in p}, key=scale_sort_key)
    fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(scales) + 3), 4.5))
    position = _scale_axis(ax, scales)
    for name, points in paper:
        xs = sorted(points, key=scale_sort_key)
        ax.plot([position[s] for s in xs], [points[s] for s in xs], linestyle="--", color="0.7", linewidth=1, marker=".")
    for name, points in ours:
        xs = sorted(points, key=scale_sort_key)
        ax.plot([position[s] for s in xs], [points[s] for s in xs], marker="o", linewidth=2, label=name)
    if paper:
        ax.plot([], [], linestyle="--", color="0.7", label="paper (published rows)")
    ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    return fig
