"""The leaderboard: each run's headline score per benchmark, as the benchmark's paper reports it, with the
paper's published values beside it where the setups match.

A headline is read from the run's results (the blocks report.md's tables read), never recomputed:

- RULERv2: the task average, the unweighted mean of the configs' scores (the paper's Figure 2 averages
  over tasks and lengths; it prints no overall number, so no paper row stands beside it);
- NeedleBench: Overall, equation 3 (Tables 1-2), beside the rows of the table whose setting the run's
  lengths match when it has all three information-sparse tasks in both languages
  (:func:`eval.benchmarks.needlebench.report.sparse_setting`); and per language the ATC weighted
  average over every needle count, equation 4 (Table 3's "All"), beside Table 3 when it has all nine counts;
- HaystackCraft: F1 over the run's samples (the paper reports F1 per strategy and context size only:
  those, with the paper's values, are in the HaystackCraft tables);
- Sequential-NIAH: accuracy over the original rows, by the judge when judged (the paper's scorer), beside
  §5.2's two printed overall test accuracies under a run of the ``default`` test split;
- EverMemBench-S: SR@10 of the long-context localization at each ladder scale (Table 3's measure), beside
  Table 3's retriever rows at the same scale, for orientation.

Values are fractions in [0, 1] in the data and percentages with one decimal on the page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape

from eval.benchmarks import BENCHMARKS
from eval.benchmarks.needlebench.paper import SPARSE_TABLES, TABLE3_NEEDLES
from eval.benchmarks.needlebench.paper import TABLE3 as ATC_TABLE
from eval.benchmarks.needlebench.report import sparse_setting
from eval.benchmarks.needlebench.report import summary as needlebench_block
from eval.benchmarks.sequential_niah.paper import OVERALL_TEXT
from eval.benchmarks.sequential_niah.report import scored_by
from eval.benchmarks.sequential_niah.report import summary as sequential_block
from eval.report_runs import Run
from generators.embs.paper import TABLE3 as ACCESS_TABLE
from generators.embs.spec import scale_sort_key
from generators.needlebench.spec import SPARSE_TASKS

PAPER_LANGS = ("zh", "en")


@dataclass(frozen=True)
class Column:
    """A leaderboard column: one headline of one benchmark.

    Attributes:
        key: Unique id (``needlebench/overall``), the cells' ``data-column``.
        title: The heading.
        about: What the number is, shown on hover.
        order: Sort key: the benchmark's place in the registry, then the headline's within it.
    """

    key: str
    title: str
    about: str
    order: tuple[int, str]


@dataclass(frozen=True)
class Cell:
    """One run's headline: its value in [0, 1], how many samples, and notes for the hover."""

    column: Column
    value: float | None
    n: int | None
    note: str = ""


@dataclass(frozen=True)
class PaperCell:
    """One published value: the paper's model, the value in [0, 1] and where it is printed."""

    column: Column
    model: str
    value: float
    source: str


def benchmark_of(run: Run) -> str:
    """The run's benchmark id: its provenance's, else the benchmark whose block its scores hold, else ''."""
    named = str((run.results.get("provenance") or {}).get("benchmark") or "")
    if named:
        return named
    tasks = (run.scores.get("by") or {}).get("task") or {}
    for benchmark in BENCHMARKS:
        if benchmark.id in run.scores or any(str(task).startswith(f"{benchmark.id}/") for task in tasks):
            return benchmark.id
    return ""


def _order(benchmark: str, within: str) -> tuple[int, str]:
    ids = [b.id for b in BENCHMARKS]
    return (ids.index(benchmark) if benchmark in ids else len(ids), within)


def _split_suffix(run: Run) -> str:
    return "" if run.split == "test" else f" ({run.split} split)"


def _rulerv2(run: Run) -> tuple[list[Cell], list[PaperCell]]:
    average, overall = run.scores.get("task_average") or {}, run.scores.get("overall") or {}
    column = Column(f"rulerv2/task-average{_split_suffix(run)}", f"RULERv2{_split_suffix(run)} · task average",
                    "Unweighted mean of the configs' scores (%), each the mean over its samples; the paper averages "
                    "over tasks and lengths and prints no overall number.", _order("rulerv2", "0" + run.split))
    note = f"{average.get('n_configs', '?')} configs"
    return [Cell(column, average.get("score"), overall.get("n"), note)], []


def _needlebench(run: Run) -> tuple[list[Cell], list[PaperCell]]:
    block = needlebench_block(run)
    cells: list[Cell] = []
    papers: list[PaperCell] = []
    overall = (block.get("overall") or {}).get("score")
    if overall is not None:
        column = Column("needlebench/overall", "NeedleBench · Overall (eq. 3)",
                        "Mean of the information-sparse tasks' overalls (S-RT, M-RT, M-RS), each the mean of its "
                        "languages (Tables 1-2).", _order("needlebench", "0"))
        tasks = block.get("tasks") or {}
        n = sum(int((tasks.get(t, {}).get(lang) or {}).get("n") or 0) for t in SPARSE_TASKS for lang in PAPER_LANGS)
        cells.append(Cell(column, overall, n, f"tasks: {', '.join((block.get('overall') or {}).get('tasks') or [])}"))
        setting, _ = sparse_setting(run)
        complete = all((tasks.get(t, {}).get(lang) or {}).get("score") is not None
                       for t in SPARSE_TASKS for lang in PAPER_LANGS)
        if setting is not None and complete:
            table, _, rows = SPARSE_TABLES[setting]
            papers += [PaperCell(column, model, row.overall / 100, f"{table}, NeedleBench {setting}")
                       for model, row in rows.items()]
    for lang, atc in sorted((block.get("atc") or {}).items()):
        if atc.get("weighted_all") is None:
            continue
        column = Column(f"needlebench/atc-{lang}", f"NeedleBench · ATC {lang} weighted (eq. 4)",
                        "ATC accuracy averaged over every needle count, each weighted by its number of needles "
                        "(Table 3's 'All').", _order("needlebench", f"1{lang}"))
        by_needles = atc.get("by_needles") or {}
        cells.append(Cell(column, atc["weighted_all"], sum(int(c.get("n") or 0) for c in by_needles.values()),
                          f"ENL-50 {atc.get('enl_50')}"))
        if tuple(sorted(int(n) for n in by_needles)) == TABLE3_NEEDLES:
            papers += [PaperCell(column, model, row.weighted_all / 100, "Table 3") for model, row in ATC_TABLE.items()]
    return cells, papers


def _haystackcraft(run: Run) -> tuple[list[Cell], list[PaperCell]]:
    overall = run.scores.get("overall") or {}
    scoring = str(((run.results.get("run") or {}).get("task_options") or {}).get("scoring", "lenient"))
    column = Column("haystackcraft/f1", "HaystackCraft · F1",
                    "Token F1 (%) over the run's samples, every strategy, ordering and size together; the paper "
                    "reports F1 per strategy and context size (see the HaystackCraft tables).",
                    _order("haystackcraft", "0"))
    return [Cell(column, overall.get("score"), overall.get("n"), f"{scoring} scoring")], []


def _sequential(run: Run) -> tuple[list[Cell], list[PaperCell]]:
    block = sequential_block(run)
    overall = block.get("overall") or {}
    if overall.get("accuracy") is None:
        return [], []
    column = Column(f"sequential-niah/accuracy{_split_suffix(run)}", f"Sequential-NIAH{_split_suffix(run)} · accuracy",
                    "Accuracy (%) over the original rows, by the judge's verdicts when the run was judged (the "
                    "paper's scorer), else by the order-aware rule matcher.", _order("sequential-niah", "0" + run.split))
    cells = [Cell(column, overall["accuracy"], overall.get("n"), f"scored by {scored_by(block)}")]
    covers = "default" in ((run.results.get("run") or {}).get("configs") or [])
    papers = [PaperCell(column, model, value / 100, "§5.2") for model, value in OVERALL_TEXT.items()] \
        if covers and run.split == "test" else []
    return cells, papers


def _embs(run: Run) -> tuple[list[Cell], list[PaperCell]]:
    systems = (run.scores.get("embs") or {}).get("systems") or {}
    cells: list[Cell] = []
    papers: list[PaperCell] = []
    for scale, cell in sorted((systems.get("long-context") or {}).items(), key=lambda kv: scale_sort_key(kv[0])):
        access = cell.get("localize") or {}
        if cell.get("window") == "over" or access.get("sr10") is None:
            continue
        column = Column(f"embs/sr10@{scale}", f"EMB-S · SR@10 at {scale}",
                        "Share of the RefList among the first 10 document IDs the model lists, long context (A.5).",
                        _order("embs", f"{scale_sort_key(scale)}"))
        cells.append(Cell(column, access["sr10"], access.get("n"), f"window: {cell.get('window')}"))
        papers += [PaperCell(column, f"{system} (retriever)", rows[scale][1], "Table 3")
                   for system, rows in ACCESS_TABLE.items() if scale in rows and "Reranker" not in system]
    return cells, papers


def _other(run: Run) -> tuple[list[Cell], list[PaperCell]]:
    overall = run.scores.get("overall") or {}
    column = Column("other/overall", "score", str(run.scores.get("metric") or ""), _order("", "0"))
    return [Cell(column, overall.get("score"), overall.get("n"))], []


HEADLINES = {"rulerv2": _rulerv2, "needlebench": _needlebench, "haystackcraft": _haystackcraft,
             "sequential-niah": _sequential, "embs": _embs}
"""Benchmark id -> the run's headline cells and the paper cells that stand beside them."""


def headlines(run: Run) -> tuple[list[Cell], list[PaperCell]]:
    """The run's headline cells and the paper's values where the setups match (module docstring)."""
    return HEADLINES.get(benchmark_of(run), _other)(run)


def _percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * float(value):.1f}"


def leaderboard_html(runs: Sequence[Run]) -> str:
    """The leaderboard table: one row per model (its runs' headlines), then the paper's rows in italics."""
    by_model: dict[str, list[tuple[Run, Cell]]] = {}
    columns: dict[str, Column] = {}
    papers: dict[tuple[str, str, str], PaperCell] = {}
    for run in runs:
        model = str((run.results.get("run") or {}).get("model") or run.label)
        cells, paper = headlines(run)
        by_model.setdefault(model, [])
        for cell in cells:
            columns.setdefault(cell.column.key, cell.column)
            by_model[model].append((run, cell))
        for entry in paper:
            papers.setdefault((entry.model, entry.source, entry.column.key), entry)
    ordered = sorted(columns.values(), key=lambda c: c.order)
    if not ordered:
        return "<p>No run has a headline score.</p>"
    head = "".join(f'<th scope="col" data-column="{escape(c.key)}" title="{escape(c.about)}">{escape(c.title)}</th>'
                   for c in ordered)
    body = [_model_row(model, entries, ordered) for model, entries in by_model.items()]
    paper_rows = _paper_rows(papers.values(), ordered)
    paper_body = (f'<tbody class="paper">{"".join(paper_rows)}</tbody>' if paper_rows else "")
    note = ("<p class=\"note\">Italic rows are the papers' published values for their own models, shown only where "
            "the run's setup matches the paper's (hover a heading for what the number is).</p>" if paper_rows else "")
    return (f'<table class="leaderboard"><thead><tr><th scope="col">model</th>{head}</tr></thead>'
            f'<tbody class="runs">{"".join(body)}</tbody>{paper_body}</table>{note}')


def _model_row(model: str, entries: Sequence[tuple[Run, Cell]], columns: Sequence[Column]) -> str:
    tds = []
    for column in columns:
        mine = [(run, cell) for run, cell in entries if cell.column.key == column.key]
        parts = []
        for run, cell in mine:
            tip = f"{run.label}: {_percent(cell.value)}" + (f", n={cell.n}" if cell.n is not None else "") \
                + (f"; {cell.note}" if cell.note else "")
            flag = "" if run.results.get("reportable", True) else ' <span class="flag" title="not reportable: ' + escape(
                "; ".join(map(str, run.results.get("not_reportable_because") or []))) + '">not reportable</span>'
            label = f'<span class="which">{escape(run.label)}</span>' if len(mine) > 1 else ""
            value = "" if cell.value is None else f"{float(cell.value):.6f}"
            parts.append(f'<div class="score" data-run="{escape(run.label)}" data-value="{value}" data-tip="{escape(tip)}">'
                         f'{label}{_percent(cell.value)}<small>{"" if cell.n is None else f"n={cell.n}"}</small>{flag}</div>')
        tds.append(f'<td data-column="{escape(column.key)}">{"".join(parts) or "—"}</td>')
    return f'<tr><th scope="row">{escape(model)}</th>{"".join(tds)}</tr>'


def _paper_rows(cells: Iterable[PaperCell], columns: Sequence[Column]) -> list[str]:
    rows: dict[tuple[str, str], dict[str, PaperCell]] = {}
    for cell in cells:
        rows.setdefault((cell.model, cell.source), {})[cell.column.key] = cell
    html = []
    for (model, source), by_column in rows.items():
        tds = "".join(
            f'<td data-column="{escape(c.key)}"><em data-value="{by_column[c.key].value:.6f}">'
            f'{_percent(by_column[c.key].value)}</em></td>' if c.key in by_column else f'<td data-column="{escape(c.key)}"></td>'
            for c in columns)
        html.append(f'<tr><th scope="row"><em>{escape(model)} (paper, {escape(source)})</em></th>{tds}</tr>')
    return html


__all__ = ["Cell", "Column", "PaperCell", "benchmark_of", "headlines", "leaderboard_html"]
