"""Reports: Markdown tables from results.json, PNG plots, clear errors, byte-identical output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval.report import ReportFiles, percent, write_report
from eval.report_runs import length_label, load_runs
from needlework.errors import InputError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LENGTHS = (4096, 8192, 16384)
DEPTHS = (0, 50, 90)


def entry(score: float, n: int, n_errors: int = 0) -> dict[str, Any]:
    """One ``scores.by`` entry."""
    return {"score": score, "n": n, "n_errors": n_errors, "stderr": 0.03}


def results(model: str, overall: float, *, drop: float, reportable: bool = True) -> dict[str, Any]:
    """A results.json with mk_niah_basic cells at depths and mv_niah_basic cells without depth.

    ``drop`` lowers every cell's score per doubling of the length, so runs differ cell by cell.
    """
    cells = []
    for step, length in enumerate(LENGTHS):
        for depth in DEPTHS:
            cells.append({"config": "mk_niah_basic", "length": length, "depth": depth,
                          "score": max(0.0, 1.0 - drop * step - depth / 1000), "n": 2, "n_errors": 0})
        cells.append({"config": "mv_niah_basic", "length": length, "depth": None,
                      "score": max(0.0, 0.75 - drop * step), "n": 10, "n_errors": 0})
    return {
        "schema_version": 1,
        "complete": True,
        "reportable": reportable,
        "not_reportable_because": [] if reportable else ["limit=5 evaluates a subset of the split"],
        "run": {"dataset": "demo-releases/rulerv2", "revision": "sha256:ab12cd34ef56ab12cd34ef56",
                "configs": ["mk_niah_basic", "mv_niah_basic"], "split": "test", "model": model,
                "backend": "openai", "generation": {"temperature": 0}, "seed": 0, "limit": None},
        "provenance": {"needlework_version": "0.1.0", "manifest_sha256": "00ff", "base_url": "http://127.0.0.1:8000/v1",
                       "chat_template_sha256": None},
        "counts": {"expected": 48, "answered": 46, "errors": {"context_length": 2}, "missing": 0},
        "usage": {"prompt_tokens": 123456, "completion_tokens": 789, "reasoning_tokens": 0},
        "timing": {"wall_s": 12.5, "requests": 46, "mean_latency_s": 0.8, "p50_latency_s": 0.7, "p95_latency_s": 1.9},
        "scores": {
            "metric": "RULERv2: per reference max(string match, 1 - WER), mean over references for multi-value",
            "overall": entry(overall, 48, 2),
            "by": {
                "config": {"mk_niah_basic": entry(1 - drop, 18, 1), "mv_niah_basic": entry(0.75 - drop, 30, 1)},
                "task": {"rulerv2/mk_niah": entry(0.9, 18), "rulerv2/mv_niah": entry(0.55, 30)},
                "length": {str(n): entry(0.8, 16) for n in LENGTHS},
                "depth": {str(d): entry(0.9, 6) for d in DEPTHS},
            },
            "cells": cells,
        },
    }


def write_run(root: Path, name: str, data: dict[str, Any]) -> Path:
    """A run directory holding ``data`` as its results.json."""
    run_dir = root / name
    run_dir.mkdir(parents=True)
    (run_dir / "results.json").write_text(json.dumps(data), encoding="utf-8")
    return run_dir


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """A reportable run and a not-reportable one, of different models with known scores."""
    root = tmp_path_factory.mktemp("runs")
    return [
        write_run(root, "a", results("smollm2-135m", 0.9333, drop=0.1)),
        write_run(root, "b", results("qwen2.5-0.5b", 0.5, drop=0.3, reportable=False)),
    ]


@pytest.fixture(scope="module")
def report(two_runs: list[Path], tmp_path_factory: pytest.TempPathFactory) -> ReportFiles:
    """The report of :func:`two_runs`, written once for the module."""
    return write_report(two_runs, tmp_path_factory.mktemp("report"))


def test_markdown_names_runs_scores_and_reasons(report: ReportFiles) -> None:
    text = report.markdown.read_text(encoding="utf-8")
    assert "| score (mean over samples ± standard error) | 93.3 ± 3.0 | 50.0 ± 3.0 |" in text
    assert "## By config: score (%)\n\n| config | smollm2-135m | qwen2.5-0.5b |" in text
    assert "| mk_niah_basic | 90.0 (n=18) | 70.0 (n=18) |" in text
    assert "### smollm2-135m" in text and "### qwen2.5-0.5b" in text
    assert "- status: complete (46 of 48 samples answered; the other 2 failed and score 0); reportable\n" in text
    assert ("- status: complete (46 of 48 samples answered; the other 2 failed and score 0); not reportable: "
            "limit=5 evaluates a subset of the split\n") in text
    assert "reportable: **no**" not in text
    assert "`sha256:ab12cd34ef56`" in text and "ab12cd34ef56ab" not in text
    assert "2 errors (context_length 2)" in text
    # mk_niah_basic at 16K pools depths 0, 50, 90: run a 0.8 - (0, .05, .09) -> 75.3; run b 0.4 - ... -> 35.3.
    assert "| 16K | 75.3 (n=6) | 35.3 (n=6) |" in text
    assert "![score against context length](score_vs_length.png)" in text
    assert "](heatmap_mk_niah_basic.png)" in text


def test_plots_are_pngs_and_only_configs_with_depth_get_heatmaps(report: ReportFiles) -> None:
    from matplotlib.image import imread

    out, files = report.markdown.parent, report
    assert files == ReportFiles(out / "report.md", (out / "score_vs_length.png", out / "heatmap_mk_niah_basic.png",
                                                     out / "levels.png"), out / "report.html")
    for plot in files.plots:
        assert plot.read_bytes().startswith(PNG_SIGNATURE)
        height, width, _ = imread(plot).shape
        assert height > 100 and width > 100
    assert not (out / "heatmap_mv_niah_basic.png").exists()
    assert sorted(p.name for p in out.iterdir()) == ["heatmap_mk_niah_basic.png", "levels.png", "report.html",
                                                     "report.md", "score_vs_length.png"]


def test_same_inputs_give_identical_bytes(two_runs: list[Path], report: ReportFiles, tmp_path: Path) -> None:
    again = write_report(two_runs, tmp_path / "again")
    assert report.markdown.read_bytes() == again.markdown.read_bytes()
    assert len(again.plots) == len(report.plots)
    for a, b in zip(report.plots, again.plots):
        assert a.read_bytes() == b.read_bytes()


def test_runs_of_the_same_model_are_told_apart_by_directory(tmp_path: Path) -> None:
    dirs = [write_run(tmp_path, name, results("smollm2-135m", 0.5, drop=0.1)) for name in ("t0", "t1")]
    assert [run.label for run in load_runs(dirs)] == ["smollm2-135m (t0)", "smollm2-135m (t1)"]


def test_missing_results_names_the_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty-run"
    empty.mkdir()
    with pytest.raises(InputError, match="empty-run/results.json"):
        write_report([empty], tmp_path / "report")
    assert not (tmp_path / "report").exists()


@pytest.mark.parametrize(
    ("content", "problem"),
    [("{not json", "not valid JSON"), (json.dumps({"schema_version": 1}), "field 'scores'")],
)
def test_bad_results_name_the_file_and_problem(tmp_path: Path, content: str, problem: str) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "results.json").write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        write_report([run_dir], tmp_path / "report")
    assert str(run_dir / "results.json") in str(caught.value) and problem in str(caught.value)


def test_formatting() -> None:
    assert [percent(0.9333), percent(1.0), percent(None)] == ["93.3", "100.0", "—"]
    lengths = (4096, 131072, 8000, 1048576, 3000, 1500, 128000, 256000)
    assert [length_label(n) for n in lengths] == ["4K", "128K", "8K", "1M", "3K", "1500", "128K", "256K"]


def test_uneven_runs_still_render(tmp_path: Path) -> None:
    """One length only, and a config that one run lacks: a dash in tables, an empty heatmap panel."""
    full = results("smollm2-135m", 0.5, drop=0.1)
    full["scores"]["cells"] = [c for c in full["scores"]["cells"] if c["length"] == 4096]
    partial = results("qwen2.5-0.5b", 0.5, drop=0.1)
    partial["scores"]["cells"] = [c for c in partial["scores"]["cells"] if c["config"] == "mv_niah_basic"]
    del partial["scores"]["by"]["config"]["mk_niah_basic"]
    dirs = [write_run(tmp_path, "full", full), write_run(tmp_path, "partial", partial)]
    files = write_report(dirs, tmp_path / "report")
    text = files.markdown.read_text(encoding="utf-8")
    assert "| mk_niah_basic | 90.0 (n=18) | — |" in text
    assert "| 4K | 95.3 (n=6) | — |" in text
    assert [p.name for p in files.plots] == ["score_vs_length.png", "heatmap_mk_niah_basic.png", "levels.png"]
    # mv_niah_basic has three lengths over the two runs; mk_niah_basic one, so it has no line to draw.
    assert ("Left out of the score-vs-length plot: every sample of mk_niah_basic has the same length "
            "(4,096 tokens).") in text


# --- RULERv2 levels and golden-context pairing ----------------------------------------------------

RULER_LENGTHS = (8192, 16384)
LEVEL_SCORE = {"basic": 0.9, "easy": 0.8, "medium": 0.6, "hard": 0.4}


def ruler_results(model: str, split: str, *, revision: str = "sha256:ab12cd34ef56ab12cd34ef56",
                  n: int = 4) -> dict[str, Any]:
    """A results.json over all 12 RULERv2 configs; a golden split has only length-0 cells.

    Cell scores: the level's :data:`LEVEL_SCORE`, minus 0.1 per doubling of the length; golden
    cells score the level's score plus 0.05.
    """
    base = results(model, 0.7, drop=0.1)
    golden = split == "golden"
    configs = [f"{domain}_{level}" for domain in ("mk_niah", "mv_niah", "mdqa") for level in LEVEL_SCORE]
    cells = []
    for config in configs:
        level = config.rsplit("_", 1)[1]
        for step, length in enumerate((0,) if golden else RULER_LENGTHS):
            score = LEVEL_SCORE[level] + 0.05 if golden else LEVEL_SCORE[level] - 0.1 * step
            cells.append({"config": config, "length": length, "depth": None, "score": round(score, 6), "n": n,
                          "n_errors": 0})
    base["run"].update({"configs": configs, "split": split, "revision": revision})
    base["provenance"]["dataset_identity"] = "file:rulerv2"
    base["scores"]["cells"] = cells
    base["scores"]["by"] = {
        "config": {c: entry(0.7, n * (1 if golden else 2)) for c in configs},
        "domain": {"mdqa": entry(0.5, 8), "mk_niah": entry(0.75, 8), "mv_niah": entry(0.7, 8)},
        "level": {level: entry(score, 6) for level, score in LEVEL_SCORE.items()},
    }
    base["scores"]["task_average"] = {"score": 0.6875, "n_configs": 12}
    return base


@pytest.fixture()
def level_run_dirs(tmp_path: Path) -> list[Path]:
    """A test run, its golden run, a golden run of another model and one of another revision."""
    return [
        write_run(tmp_path, "test", ruler_results("qwen", "test")),
        write_run(tmp_path, "golden-other-model", ruler_results("llama", "golden")),
        write_run(tmp_path, "golden-other-revision", ruler_results("qwen", "golden", revision="sha256:ffff")),
        write_run(tmp_path, "golden", ruler_results("qwen", "golden")),
    ]


def test_golden_partner_is_the_same_release_revision_and_model(level_run_dirs: list[Path]) -> None:
    from eval.benchmarks.rulerv2.report import golden_partner, level_runs

    runs = load_runs(level_run_dirs)
    test, _, _, golden = runs
    assert golden_partner(test, runs) is golden
    assert golden_partner(test, [test, *runs[1:3]]) is None
    assert level_runs(runs) == [test]


def test_levels_plot_draws_each_level_and_its_golden_score_dashed(level_run_dirs: list[Path]) -> None:
    from eval.benchmarks.rulerv2.report import LEVEL_COLOURS, plot_levels

    figure = plot_levels(load_runs(level_run_dirs))
    axes = [ax for ax in figure.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["multi-key NIAH", "multi-value NIAH", "multi-doc QA"]
    for ax in axes:
        solid = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
        dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
        assert [line.get_color() for line in solid] == list(LEVEL_COLOURS.values())
        assert [list(line.get_xdata()) for line in solid] == [list(RULER_LENGTHS)] * 4
        assert [line.get_ydata()[1] for line in solid] == pytest.approx([100 * (s - 0.1) for s in LEVEL_SCORE.values()])
        assert [line.get_color() for line in dashed] == list(LEVEL_COLOURS.values())
        assert [line.get_ydata()[0] for line in dashed] == pytest.approx([100 * (s + 0.05) for s in LEVEL_SCORE.values()])


def test_report_links_levels_plot_names_the_golden_run_and_shows_task_average(
        level_run_dirs: list[Path], tmp_path: Path) -> None:
    files = write_report(level_run_dirs, tmp_path / "report")
    assert files.plots[-1] == tmp_path / "report" / "levels.png"
    assert files.plots[-1].read_bytes().startswith(PNG_SIGNATURE)
    text = files.markdown.read_text(encoding="utf-8")
    assert "![RULERv2: score by level against context length](levels.png)" in text
    assert "- qwen (test): golden context from qwen (golden)" in text
    assert "| task average (unweighted mean over configs) | 68.8 (12 configs) |" in text
    assert "| multi-key NIAH | 75.0 (n=8) |" in text
    assert "| hard | 40.0 (n=6) |" in text
    # the generic tables first, then RULERv2's section: its domain and level tables and the levels plot
    order = ["## Overall: score (%)", "## By config: score (%)", "## By config and length", "## RULERv2",
             "### By domain", "### By level", "](levels.png)"]
    assert [text.index(heading) for heading in order] == sorted(text.index(heading) for heading in order)
    # mk_niah_basic by length: golden runs have one cell per config, at length 0.
    assert "| 0 | — | 95.0 (n=4) | 95.0 (n=4) | 95.0 (n=4) |\n| 8K | 90.0 (n=4) | — | — | — |" in text


def test_levels_plot_without_a_golden_run_and_none_without_ruler_configs(tmp_path: Path) -> None:
    alone = write_run(tmp_path, "alone", ruler_results("qwen", "test"))
    files = write_report([alone], tmp_path / "report")
    assert "- qwen: no golden-context run given" in files.markdown.read_text(encoding="utf-8")
    other = results("qwen", 0.5, drop=0.1)
    for cell in other["scores"]["cells"]:
        cell["config"] = "custom_" + cell["config"]
    files = write_report([write_run(tmp_path, "other", other)], tmp_path / "report-other")
    assert "levels.png" not in [p.name for p in files.plots]
    assert "levels.png" not in files.markdown.read_text(encoding="utf-8")


def test_each_registered_benchmark_draws_its_plots_and_adds_its_section(two_runs: list[Path], tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The report loops over the registry: a new benchmark's plots are written and its section appended,
    after the generic tables and the sections before it, given the file name of each plot drawn."""
    import eval.report
    from eval.benchmark import Benchmark
    from eval.benchmarks import BENCHMARKS
    from eval.report_plots import plot_score_vs_length
    from eval.report_runs import length_series

    def plots(runs):
        return [("curve", "toy_curve.png", lambda: plot_score_vs_length(runs, [length_series(runs, "mk_niah_basic")]))]

    def section(runs, drawn):
        return ["## Toy", "", f"{len(runs)} runs, plots {drawn}", ""]

    toy = Benchmark(id="toy", tasks={}, task_for_row=lambda row: "toy/x", plots=plots, section=section)
    monkeypatch.setattr(eval.report, "BENCHMARKS", (*BENCHMARKS, toy))
    files = write_report(two_runs, tmp_path / "report")
    assert files.plots[-1] == tmp_path / "report" / "toy_curve.png"
    assert files.plots[-1].read_bytes().startswith(PNG_SIGNATURE)
    text = files.markdown.read_text(encoding="utf-8")
    assert text.endswith("## Toy\n\n2 runs, plots {'curve': 'toy_curve.png'}\n")
    assert text.index("## By config and length") < text.index("## RULERv2") < text.index("## Toy")
