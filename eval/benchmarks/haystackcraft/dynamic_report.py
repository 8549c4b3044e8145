"""Dynamic NIAH's results block and report section: the paper's Tables 18-23 and F1 against rounds.

The block sits under ``scores.haystackcraft.dynamic`` (:func:`dynamic_summary`), beside the static block; the
section (:func:`dynamic_section`) lays it out as the paper does (Appendix O): a row per model (run) and number of
rounds (1, 2, 3 enforced, ``max 3`` variable) with a column per context size, BM25 + PPR before dense, for F1 x 100
(Tables 18/19), the single-hop subset (Table 22) and the Appendix D ablation (Table 23, its 1-round row the
official single round); the % of variable items that stopped early is a row per model (Tables 20/21). Each table is
titled with the release's own retrievers, and the paper's rows (:mod:`.paper_dynamic`) stand beside it, in italics,
where the setup matches: always for BM25 + PPR, for the dense strategy only when the release's dense model is the
paper's Qwen3-Embedding-0.6B. :func:`plot_f1_against_rounds` draws F1 against enforced rounds, one line per size.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eval.benchmarks.haystackcraft.dynamic import DYNAMIC
from eval.benchmarks.haystackcraft.paper_dynamic import (
    ABLATION_LABELS,
    EARLY_STOP,
    EARLY_STOP_INFO,
    ROUND_LABELS,
    paper_rows,
    paper_value,
)
from eval.report_runs import MISSING, Run, markdown_table
from eval.scored import ScoredSample, round_score, sample_stats
from generators.haystackcraft.dynamic import MODES
from generators.haystackcraft.spec import BENCHMARK

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PAPER_STRATEGIES: tuple[str, ...] = ("bm25+ppr", "dense")
"""The paper's dynamic strategies in its order (Tables 18, 19)."""
PAPER_DENSE_MODEL = "qwen3-embedding-0.6b"
"""The paper's dense model (Tables 19, 21, 23), matched case-insensitively in the release's dense model name."""
DEFAULT_DENSE_NAME = "all-MiniLM-L6-v2"
"""How the tables name the offline default dense model."""
ROUNDS_PLOT = "haystackcraft_dynamic_f1_against_rounds.png"


def _cell(samples: Sequence[ScoredSample]) -> dict[str, Any]:
    stats = sample_stats(samples)
    em = [0.0 if s.error_kind else float(s.extra.get("em", 0.0)) for s in samples]
    stops = [bool(s.metadata.get("early_stop")) for s in samples if s.metadata.get("early_stop") is not None]
    used = [int(s.metadata["rounds_used"]) for s in samples if s.metadata.get("rounds_used") is not None]
    return {"f1": stats["score"], "em": round_score(sum(em) / len(em)) if em else None, "n": stats["n"],
            "n_errors": stats["n_errors"], "f1_stderr": stats["stderr"],
            "early_stop": round_score(sum(stops) / len(stops)) if stops else None,
            "rounds_used": round_score(sum(used) / len(used)) if used else None}


def dynamic_summary(scored: Sequence[ScoredSample]) -> dict[str, Any] | None:
    """The dynamic NIAH block from the run's scored samples, None without any.

    ``cells``: ``{strategy: {mode: {size: {f1, em, n, n_errors, f1_stderr, early_stop, rounds_used}}}}`` (sizes as
    string keys; ``early_stop`` the fraction of items that stopped early, meaningful for variable modes); ``single_hop``:
    the same over 1-hop questions (Table 22); ``strategies``, ``modes``, ``sizes`` in report order.
    """
    samples = [s for s in scored if s.task == DYNAMIC and (s.score is not None or s.error_kind)]
    if not samples:
        return None
    groups: dict[tuple[str, str, int], list[ScoredSample]] = defaultdict(list)
    single: dict[tuple[str, str, int], list[ScoredSample]] = defaultdict(list)
    for sample in samples:
        meta = sample.metadata
        key = (str(meta["strategy"]), str(meta["mode"]), int(meta["size"]))
        groups[key].append(sample)
        if int(meta.get("hops", 0)) == 1:
            single[key].append(sample)

    def nest(source: Mapping[tuple[str, str, int], list[ScoredSample]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for (strategy, mode, size), members in sorted(source.items()):
            out.setdefault(strategy, {}).setdefault(mode, {})[str(size)] = _cell(members)
        return out

    return {
        "strategies": sorted({k[0] for k in groups}, key=_strategy_key),
        "modes": [m for m in MODES if any(k[1] == m for k in groups)],
        "sizes": sorted({k[2] for k in groups}),
        "cells": nest(groups),
        "single_hop": nest(single),
    }


def block_of(run: Run) -> Mapping[str, Any]:
    """The run's dynamic block (empty without one)."""
    return (run.scores.get(BENCHMARK) or {}).get("dynamic") or {}


def _value(cells: Mapping[str, Any], strategy: str, mode: str, size: int, metric: str) -> float | None:
    cell = ((cells.get(strategy) or {}).get(mode) or {}).get(str(size))
    return None if cell is None else cell.get(metric)


def _size_label(size: int) -> str:
    return "0" if size == 0 else f"{size // 1000}K" if size % 1000 == 0 else str(size)


def _f1(value: float | None, scale: float = 100.0) -> str:
    return MISSING if value is None else f"{value * scale:.2f}"


def _italic(text: str) -> str:
    return text if text in ("", MISSING) else f"*{text}*"


def dense_model(runs: Sequence[Run]) -> str:
    """The dense model of the runs' releases (their provenance's ``dense_model``), named for a title."""
    names = sorted({str((run.results.get("provenance") or {}).get("dense_model") or "") for run in runs})
    shown = [DEFAULT_DENSE_NAME if not n or "minilm" in n.lower() else n.rsplit("/", 1)[-1] for n in names]
    return ", ".join(dict.fromkeys(shown))


def strategy_title(strategy: str, runs: Sequence[Run]) -> str:
    """A strategy as the tables name it: ``BM25 + PPR``, ``dense (all-MiniLM-L6-v2)``; the release's own model."""
    if strategy == "bm25+ppr":
        return "BM25 + PPR"
    if strategy == "dense":
        return f"dense ({dense_model(runs)})"
    return strategy


def paper_matches(strategy: str, runs: Sequence[Run]) -> bool:
    """Whether the paper's rows for ``strategy`` measure the runs' setup: BM25 + PPR always, dense only with the
    paper's Qwen3-Embedding-0.6B."""
    return strategy == "bm25+ppr" or (strategy == "dense" and PAPER_DENSE_MODEL in dense_model(runs).lower())


def _rounds_table(runs: Sequence[Run], strategy: str, part: str, labels: Mapping[str, str], sizes: Sequence[int],
                  paper: tuple[int, Mapping[str, Mapping[str, tuple[float, ...]]]] | None) -> list[str]:
    """A Tables 18/19/22/23 layout: a row per run and round label, a column per size; the paper's rows after."""
    header = ["model", "# rounds", *(_size_label(size) for size in sizes)]
    rows: list[list[str]] = []
    for run in runs:
        cells = block_of(run).get(part) or {}
        for index, (label, mode) in enumerate(labels.items()):
            rows.append([run.label if index == 0 else "", label,
                         *(_f1(_value(cells, strategy, mode, size, "f1")) for size in sizes)])
    if paper is not None and any(paper_value(next(iter(paper[1].values()))["1"], size) is not None for size in sizes):
        number, table = paper
        for model, by_label in table.items():
            for index, (label, values) in enumerate(by_label.items()):
                shown = [MISSING if (v := paper_value(values, size)) is None else f"{v:.2f}" for size in sizes]
                rows.append([f"*{model} (paper, Table {number})*" if index == 0 else "", f"*{label}*",
                             *(_italic(v) for v in shown)])
    return markdown_table(header, rows)


def _early_stop_table(runs: Sequence[Run], strategy: str, sizes: Sequence[int], paper: int | None) -> list[str]:
    """Tables 20/21's layout: the % of variable-round items that stopped early, a row per run, a column per size."""
    header = ["model", *(_size_label(size) for size in sizes)]
    percent = lambda v: MISSING if v is None else f"{v * 100:.0f}%"  # noqa: E731
    rows = [[run.label, *(percent(_value(block_of(run).get("cells") or {}, strategy, "variable", size, "early_stop"))
                          for size in sizes)] for run in runs]
    if paper is not None and any(paper_value(next(iter(EARLY_STOP[paper].values())), s) is not None for s in sizes):
        for model, values in EARLY_STOP[paper].items():
            rows.append([f"*{model} (paper, Table {paper})*",
                         *(_italic(MISSING if (v := paper_value(values, s)) is None else f"{v:.0f}%") for s in sizes)])
    return markdown_table(header, rows)


def _strategy_key(strategy: str) -> tuple[int, str]:
    return (PAPER_STRATEGIES.index(strategy) if strategy in PAPER_STRATEGIES else len(PAPER_STRATEGIES), strategy)


def dynamic_section(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
    """The report's dynamic NIAH section (Tables 18-23 and the rounds plot); none without dynamic runs."""
    scored = [run for run in runs if block_of(run)]
    if not scored:
        return []
    strategies = sorted({s for run in scored for s in block_of(run)["strategies"]}, key=_strategy_key)
    modes = {m for run in scored for m in block_of(run)["modes"]}
    sizes = sorted({s for run in scored for s in block_of(run).get("sizes", [])})
    lines = ["## HaystackCraft dynamic NIAH", "",
             ("F1 x 100 of the final answer (MuSiQue's F1), descending retriever-ranked haystacks rebuilt each round "
              "from the model's refined question; rows: enforced rounds (1, 2, 3) and variable rounds (max 3); "
              "columns: context size in tokens (0 = no distractors). The paper's rows are in italics, at the sizes "
              "both have, where the setup matches (BM25 + PPR; dense only with Qwen3-Embedding-0.6B)."), ""]
    for strategy in strategies:
        title = strategy_title(strategy, scored)
        matches = paper_matches(strategy, scored)
        number = (paper_rows(strategy, "cells") or ("18/19",))[0]
        lines += [f"### F1, {title} (Table {number})", ""]
        if strategy == "dense" and not matches:
            lines += [f"The paper's Tables 19, 21 and 23 use Qwen3-Embedding-0.6B; this release's dense model is "
                      f"{dense_model(scored)}, so the paper's rows are not set beside it.", ""]
        lines += _rounds_table(scored, strategy, "cells", ROUND_LABELS, sizes,
                               paper_rows(strategy, "cells") if matches else None)
        if "variable" in modes:
            early = next((n for n, s in EARLY_STOP_INFO.items() if s == strategy), None)
            lines += [f"### % early stop in variable rounds, {title} (Table {early or '20/21'})", ""]
            lines += _early_stop_table(scored, strategy, sizes, early if matches else None)
        lines += [f"### F1 on single-hop questions, {title} (Table 22 layout)", ""]
        lines += _rounds_table(scored, strategy, "single_hop", ROUND_LABELS, sizes,
                               paper_rows(strategy, "single_hop") if matches else None)
        if modes & {"ablation-2", "ablation-3", "ablation-variable"}:
            lines += [f"### Appendix D ablation, {title} (Table 23 layout; its 1-round row is the official single "
                      "round)", ""]
            lines += _rounds_table(scored, strategy, "cells", ABLATION_LABELS, sizes,
                                   paper_rows(strategy, "cells", ablation=True) if matches else None)
    if "rounds" in plots:
        lines += [f"![F1 against enforced rounds per context size]({plots['rounds']})", ""]
    return lines


def dynamic_plots(runs: Sequence[Run]) -> list[tuple[str, str, Callable[[], Figure]]]:
    """The rounds plot when some run has enforced-round scores."""
    scored = [run for run in runs if block_of(run)]
    if not any(m.startswith("enforced-") for run in scored for m in block_of(run)["modes"]):
        return []
    return [("rounds", ROUNDS_PLOT, lambda: plot_f1_against_rounds(scored))]


def plot_f1_against_rounds(runs: Sequence[Run]) -> Figure:
    """F1 x 100 against enforced rounds (1, 2, 3): a panel per strategy, a line per (run, context size)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    strategies = sorted({s for run in runs for s in block_of(run)["strategies"]}, key=_strategy_key)
    figure = Figure(figsize=(5.0 * len(strategies), 3.8))
    axes = figure.subplots(1, len(strategies), squeeze=False)[0]
    styles = ("-", "--", ":", "-.")
    for ax, strategy in zip(axes, strategies):
        for index, run in enumerate(runs):
            block = block_of(run)
            for size in block["sizes"]:
                points = [(r, ((block["cells"].get(strategy) or {}).get(f"enforced-{r}") or {}).get(str(size)))
                          for r in (1, 2, 3)]
                xs = [r for r, cell in points if cell and cell.get("f1") is not None]
                ys = [cell["f1"] * 100 for _, cell in points if cell and cell.get("f1") is not None]
                if xs:
                    ax.plot(xs, ys, styles[index % len(styles)], marker="o",
                            label=f"{run.label}, {_size_label(size)}" if len(runs) > 1 else _size_label(size))
        ax.set_title(strategy_title(strategy, runs))
        ax.set_xlabel("Enforced rounds")
        ax.set_ylabel("F1 (x100)")
        ax.set_xticks([1, 2, 3])
        ax.legend(fontsize=7, title="context size")
    figure.tight_layout()
    return figure


def with_dynamic(static: Callable[[Sequence[ScoredSample]], dict[str, Any] | None]
                 ) -> Callable[[Sequence[ScoredSample]], dict[str, Any] | None]:
    """The benchmark's summarize: the static block with the dynamic one under ``dynamic``."""
    def summarize(scored: Sequence[ScoredSample]) -> dict[str, Any] | None:
        block = static(scored)
        dynamic = dynamic_summary(scored)
        if dynamic is None:
            return block
        return {**(block or {}), "dynamic": dynamic}
    return summarize


def _static_runs(runs: Sequence[Run]) -> list[Run]:
    return [run for run in runs if any(k != "dynamic" for k in (run.scores.get(BENCHMARK) or {}))]


def section_with_dynamic(static: Callable[[Sequence[Run], Mapping[str, str]], list[str]]
                         ) -> Callable[[Sequence[Run], Mapping[str, str]], list[str]]:
    """The benchmark's section: the static section over the runs with static scores, then the dynamic one."""
    def section(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
        return static(_static_runs(runs), plots) + dynamic_section(runs, plots)
    return section


def plots_with_dynamic(static: Callable[[Sequence[Run]], list[tuple[str, str, Callable[[], Figure]]]]
                       ) -> Callable[[Sequence[Run]], list[tuple[str, str, Callable[[], Figure]]]]:
    """The benchmark's plots: the static ones over the runs with static scores, then the rounds plot."""
    def plots(runs: Sequence[Run]) -> list[tuple[str, str, Callable[[], Figure]]]:
        return static(_static_runs(runs)) + dynamic_plots(runs)
    return plots
