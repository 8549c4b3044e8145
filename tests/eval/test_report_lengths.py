"""Reports draw score against length only where lengths vary, read from whichever length column rows carry,
and say in report.md why a plot is missing; no plot is ever written without data."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest

from eval.report import SCORE_VS_LENGTH, write_report
from eval.report_plots import plot_score_vs_length
from eval.report_runs import configs_of, length_series, load_runs
from eval.results import aggregate_scores, count_outcomes
from eval.scored import ScoredSample
from needlework.errors import SpecError

NO_PLOT = "No score-vs-length plot: "
PARTIAL = "Left out of the score-vs-length plot: "
NO_COLUMN = "carry no length column (length, context size or length bucket)"


def samples(config: str, metadata: Iterable[Mapping[str, Any]], scores: Iterable[float]) -> list[ScoredSample]:
    """One scored sample per (metadata, score), of a task no benchmark declares (no benchmark block)."""
    return [ScoredSample(f"{config}/{index}", config, "toy/task", dict(meta), score, None)
            for index, (meta, score) in enumerate(zip(metadata, scores))]


def write_run(root: Path, name: str, scored: list[ScoredSample], model: str = "toy-model") -> Path:
    """A run directory whose results.json aggregates ``scored`` as the runner does."""
    results = {"schema_version": 1, "complete": True, "reportable": True, "not_reportable_because": [],
               "run": {"dataset": "toy", "configs": list(dict.fromkeys(s.config for s in scored)), "split": "test",
                       "model": model},
               "counts": count_outcomes(scored), "scores": aggregate_scores(scored, "toy metric")}
    run_dir = root / name
    run_dir.mkdir(parents=True)
    (run_dir / "results.json").write_text(json.dumps(results), encoding="utf-8")
    return run_dir


def report_text(run_dirs: list[Path], out: Path) -> tuple[str, list[str]]:
    """report.md's text and the names of the files written."""
    files = write_report(run_dirs, out)
    assert sorted(p.name for p in out.iterdir()) == sorted(["report.html", "report.md", *(p.name for p in files.plots)])
    return files.markdown.read_text(encoding="utf-8"), [p.name for p in files.plots]


def test_one_length_everywhere_writes_no_plot_and_says_why(tmp_path: Path) -> None:
    run = write_run(tmp_path, "run", samples("single", [{"length": 8192}] * 4, [1, 0, 1, 1]))
    text, plots = report_text([run], tmp_path / "report")
    assert SCORE_VS_LENGTH not in plots and not (tmp_path / "report" / SCORE_VS_LENGTH).exists()
    assert SCORE_VS_LENGTH not in text
    assert f"{NO_PLOT}every sample of these runs has the same length (8,192 tokens).\n" in text
    assert "| context length (tokens) | toy-model |\n|---|---:|\n| 8K | 75.0 (n=4) |" in text


def test_rows_without_a_length_column_write_no_plot_and_say_why(tmp_path: Path) -> None:
    """ATC rows have no target length: their prompts grow with the needle count instead."""
    run = write_run(tmp_path, "run", samples("atc-en", [{"needle_count": 2}, {"needle_count": 4}], [1, 0]))
    text, plots = report_text([run], tmp_path / "report")
    assert plots == [] and SCORE_VS_LENGTH not in text
    assert f"{NO_PLOT}the rows of these runs {NO_COLUMN}.\n" in text
    assert f"### atc-en\n\nThe rows of this config {NO_COLUMN}.\n" in text


def test_golden_context_alone_has_no_length_to_draw(tmp_path: Path) -> None:
    run = write_run(tmp_path, "run", samples("mk_niah_basic", [{"length": 0}] * 2, [1, 1]))
    text, plots = report_text([run], tmp_path / "report")
    assert plots == [] and f"{NO_PLOT}every sample of these runs has length 0 (no haystack).\n" in text


def test_different_reasons_name_their_configs(tmp_path: Path) -> None:
    scored = samples("atc-en", [{"needle_count": 2}], [1]) + samples("s-rt-en", [{"length": 4096}], [1])
    text, plots = report_text([write_run(tmp_path, "run", scored)], tmp_path / "report")
    assert plots == []
    assert (f"{NO_PLOT}the rows of atc-en {NO_COLUMN}; every sample of s-rt-en has the same length "
            "(4,096 tokens).\n") in text


def test_varying_lengths_are_drawn_and_flat_configs_left_out_with_a_reason(tmp_path: Path) -> None:
    scored = (samples("s-rt-en", [{"length": n} for n in (2000, 4000, 8000, 8000)], [1, 1, 0, 1])
              + samples("atc-en", [{"needle_count": 2}], [1]))
    text, plots = report_text([write_run(tmp_path, "run", scored)], tmp_path / "report")
    assert plots == [SCORE_VS_LENGTH]
    assert f"![score against context length]({SCORE_VS_LENGTH})\n\n{PARTIAL}the rows of atc-en {NO_COLUMN}.\n" in text
    figure = plot_score_vs_length(*_runs_and_series([tmp_path / "run"]))
    (ax,) = [ax for ax in figure.axes if ax.get_title()]
    assert ax.get_title() == "s-rt-en" and ax.get_xscale() == "log"
    (line,) = ax.get_lines()
    assert list(line.get_xdata()) == [2000, 4000, 8000] and list(line.get_ydata()) == [100, 100, 50]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["2K", "4K", "8K"]


def test_context_sizes_and_length_buckets_are_lengths(tmp_path: Path) -> None:
    """HaystackCraft rows give a haystack ``size`` (0: the needles alone, not drawn); Sequential-NIAH rows a
    ``length_bucket``, drawn as categories in ascending order."""
    haystack = samples("static-descending", [{"size": n} for n in (0, 8000, 16000, 128000)], [1, 1, 0, 0])
    buckets = samples("default", [{"length_bucket": b} for b in ("16k-32k", "8k-16k", "4k-7k", "8k-16k")],
                      [0, 1, 1, 0])
    run = write_run(tmp_path, "run", haystack + buckets)
    text, plots = report_text([run], tmp_path / "report")
    assert plots == [SCORE_VS_LENGTH] and PARTIAL not in text and NO_PLOT not in text
    assert "| context size (tokens) | toy-model |\n|---|---:|\n| 0 | 100.0 (n=1) |\n| 8K | 100.0 (n=1) |\n" \
           "| 16K | 0.0 (n=1) |\n| 128K | 0.0 (n=1) |" in text
    assert "| length bucket (tokens) | toy-model |\n|---|---:|\n| 4k-7k | 100.0 (n=1) |\n| 8k-16k | 50.0 (n=2) |\n" \
           "| 16k-32k | 0.0 (n=1) |" in text
    figure = plot_score_vs_length(*_runs_and_series([run]))
    sizes, bucket_ax = [ax for ax in figure.axes if ax.get_title()]
    assert (sizes.get_title(), sizes.get_xlabel()) == ("static-descending", "context size (tokens)")
    assert list(sizes.get_lines()[0].get_xdata()) == [8000, 16000, 128000]
    assert [t.get_text() for t in sizes.get_xticklabels()] == ["8K", "16K", "128K"]
    assert (bucket_ax.get_title(), bucket_ax.get_xlabel()) == ("default", "length bucket (tokens)")
    assert [t.get_text() for t in bucket_ax.get_xticklabels()] == ["4k-7k", "8k-16k", "16k-32k"]
    assert list(bucket_ax.get_lines()[0].get_ydata()) == [100, 50, 0]


def test_one_size_besides_the_needles_alone_is_not_drawn(tmp_path: Path) -> None:
    run = write_run(tmp_path, "run", samples("static-descending", [{"size": 0}, {"size": 8000}], [1, 0]))
    text, plots = report_text([run], tmp_path / "report")
    assert plots == []
    assert (f"{NO_PLOT}every sample of these runs has the same context size (8,000 tokens) besides context "
            "size 0 (no haystack).\n") in text


def test_lengths_vary_across_runs(tmp_path: Path) -> None:
    """Each run has one length, the two runs together two: one line point each, on one drawn subplot."""
    first = write_run(tmp_path, "a", samples("c", [{"length": 4096}], [1]), model="a")
    second = write_run(tmp_path, "b", samples("c", [{"length": 8192}], [0]), model="b")
    text, plots = report_text([first, second], tmp_path / "report")
    assert plots == [SCORE_VS_LENGTH] and NO_PLOT not in text and PARTIAL not in text
    figure = plot_score_vs_length(*_runs_and_series([first, second]))
    assert [list(line.get_xdata()) for line in figure.axes[0].get_lines()] == [[4096], [8192]]


def test_a_flat_series_is_refused_by_the_plot(tmp_path: Path) -> None:
    runs = load_runs([write_run(tmp_path, "run", samples("c", [{"length": 4096}], [1]))])
    with pytest.raises(SpecError, match="two lengths or more; got c"):
        plot_score_vs_length(runs, [length_series(runs, "c")])
    with pytest.raises(SpecError, match="got none"):
        plot_score_vs_length(runs, [])


def test_depth_cells_without_a_length_get_no_heatmap(tmp_path: Path) -> None:
    scored = samples("depths", [{"depth": 0}, {"depth": 50}], [1, 0])
    text, plots = report_text([write_run(tmp_path, "run", scored)], tmp_path / "report")
    assert plots == [] and "heatmap_" not in text
    assert "No depth heatmap: no cell of this config with a needle depth has a length and a score." in text


def test_by_length_tells_apart_lengths_with_the_same_short_label(tmp_path: Path) -> None:
    scored = samples("s-rt-en", [{"length": 4000}, {"length": 8000}], [1, 1])
    scored += samples("mk_niah_basic", [{"length": 4096}, {"length": 8192}], [0, 0])
    text, _ = report_text([write_run(tmp_path, "run", scored)], tmp_path / "report")
    assert "| 4,000 | 100.0 (n=1) |\n| 4,096 | 0.0 (n=1) |\n| 8,000 | 100.0 (n=1) |\n| 8,192 | 0.0 (n=1) |" in text


def test_a_benchmark_plot_without_data_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The report checks every figure: an empty one is dropped, its section is not given it, and report.md says so."""
    from matplotlib.figure import Figure

    import eval.report
    from eval.benchmark import Benchmark
    from eval.benchmarks import BENCHMARKS

    def empty() -> Figure:
        figure = Figure()
        ax = figure.subplots()
        ax.plot([], [], label="no points")
        ax.axhline(50, linestyle="--")  # a reference line is not data
        return figure

    def section(runs, drawn):
        return ["## Toy", "", f"drawn: {dict(drawn)}", ""]

    toy = Benchmark(id="toy", tasks={}, task_for_row=lambda row: "toy/x",
                    plots=lambda runs: [("empty", "toy_empty.png", empty)], section=section)
    monkeypatch.setattr(eval.report, "BENCHMARKS", (*BENCHMARKS, toy))
    run = write_run(tmp_path, "run", samples("c", [{"length": 4096}, {"length": 8192}], [1, 0]))
    text, plots = report_text([run], tmp_path / "report")
    assert plots == [SCORE_VS_LENGTH]
    assert text.endswith("## Toy\n\ndrawn: {}\n\nNo plot `toy_empty.png`: it would have no value to draw.\n")


def _runs_and_series(run_dirs: list[Path]) -> tuple[list[Any], list[Any]]:
    """The loaded runs and the length series the report would draw for them."""
    runs = load_runs(run_dirs)
    return runs, [s for s in (length_series(runs, c) for c in configs_of(runs)) if s.plottable]
