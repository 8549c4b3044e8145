"""Dynamic NIAH's results block and report section: the paper's Tables 18-23 and F1 against rounds.

The block sits under ``scores.haystackcraft.dynamic`` (:func:`dynamic_summary`), beside the static block; the
section (:func:`dynamic_section`) lays it out as the paper does (Appendix O): F1 x 100 per model (run) with a column
per context size x {1, 2, 3 rounds, variable} for each strategy (Tables 18/19), the % of variable items that stopped
early (Tables 20/21), the single-hop subset (Table 22) and the Appendix D ablation beside the official workflow
(Table 23). :func:`plot_f1_against_rounds` draws F1 against enforced rounds, one line per size.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from eval.benchmarks.haystackcraft.dynamic import DYNAMIC
from eval.benchmarks.haystackcraft.tasks import strategy_order
from eval.report_runs import MISSING, Run, markdown_table
from eval.scored import ScoredSample, round_score, sample_stats
from generators.haystackcraft.dynamic import MODES
from generators.haystackcraft.spec import BENCHMARK

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ROUND_COLUMNS: tuple[tuple[str, str], ...] = (("enforced-1", "1"), ("enforced-2", "2"), ("enforced-3", "3"),
                                              ("variable", "Var"))
"""Tables 18/19's columns within a size: 1, 2, 3 enforced rounds and variable rounds."""
ABLATION_COLUMNS: tuple[tuple[str, str], ...] = (("enforced-2", "2"), ("ablation-2", "2 (abl.)"),
                                                 ("enforced-3", "3"), ("ablation-3", "3 (abl.)"),
                                                 ("variable", "Var"), ("ablation-variable", "Var (abl.)"))
"""Table 23's columns within a size: each official setting beside its Appendix D ablation."""
STRATEGY_TITLES: dict[str, str] = {"bm25+ppr": "BM25 + PPR", "dense": "Qwen3-0.6B (dense)"}
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
        "strategies": sorted({k[0] for k in groups}, key=strategy_order),
        "modes": [m for m in MODES if any(k[1] == m for k in groups)],
        "sizes": sorted({k[2] for k in groups}),
        "cells": nest(groups),
        "single_hop": nest(single),
    }


def block_of(run: Run) -> Mapping[str, Any]:
    """The run's dynamic block (empty without one)."""
    return (run.scores.get(BENCHMARK) or {}).get("dynamic") or {}


def _value(cells: Mapping[str, Any], strategy: str, mode: str, size: int, metric: str, scale: float = 100.0) -> str:
    cell = ((cells.get(strategy) or {}).get(mode) or {}).get(str(size))
    value = None if cell is None else cell.get(metric)
    return MISSING if value is None else f"{value * scale:.2f}"


def _size_label(size: int) -> str:
    return "0" if size == 0 else f"{size // 1000}K" if size % 1000 == 0 else str(size)


def _grid_table(runs: Sequence[Run], strategy: str, part: str, columns: Sequence[tuple[str, str]],
                metric: str = "f1") -> list[str]:
    sizes = sorted({s for run in runs for s in block_of(run).get("sizes", [])})
    header = ["model"] + [f"{_size_label(size)} {label}" for size in sizes for _, label in columns]
    rows = [[run.label] + [_value(block_of(run).get(part) or {}, strategy, mode, size, metric)
                           for size in sizes for mode, _ in columns] for run in runs]
    return markdown_table(header, rows)


def dynamic_section(runs: Sequence[Run], plots: Mapping[str, str]) -> list[str]:
    """The report's dynamic NIAH section (Tables 18-23 and the rounds plot); none without dynamic runs."""
    scored = [run for run in runs if block_of(run)]
    if not scored:
        return []
    strategies = sorted({s for run in scored for s in block_of(run)["strategies"]}, key=strategy_order)
    modes = {m for run in scored for m in block_of(run)["modes"]}
    lines = ["## HaystackCraft dynamic NIAH", "",
             ("F1 x 100 of the final answer (MuSiQue's F1), descending retriever-ranked haystacks rebuilt each round "
              "from the model's refined question; columns: context size (0 = no distractors) x enforced rounds "
              "(1, 2, 3) and variable rounds (Var, max 3)."), ""]
    for strategy in strategies:
        title = STRATEGY_TITLES.get(strategy, strategy)
        lines += [f"### F1, {title} (Tables 18/19)", ""] + _grid_table(scored, strategy, "cells", ROUND_COLUMNS)
        if "variable" in modes:
            lines += [f"### % early stop in variable rounds, {title} (Tables 20/21)", ""]
            lines += _grid_table(scored, strategy, "cells", (("variable", "% stop"),), "early_stop")
        lines += [f"### F1 on single-hop questions, {title} (Table 22)", ""]
        lines += _grid_table(scored, strategy, "single_hop", ROUND_COLUMNS)
        if modes & {"ablation-2", "ablation-3", "ablation-variable"}:
            lines += [f"### Appendix D ablation beside the official workflow, {title} (Table 23)", ""]
            lines += _grid_table(scored, strategy, "cells", ABLATION_COLUMNS)
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

    strategies = sorted({s for run in runs for s in block_of(run)["strategies"]}, key=strategy_order)
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
        ax.set_title(STRATEGY_TITLES.get(strategy, strategy))
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
