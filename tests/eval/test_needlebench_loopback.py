"""A built NeedleBench release (all eight configs) through ``python -m eval`` and back.

The release is built by the real builder on the embedded world; a loopback stub server answers
every prompt as a perfect model would, from the row alone (the keywords for retrieval, the boxed
answer for reasoning and ATC). The run must score 100% on every config, the ``needlebench`` block
must show 100 and an ENL-50 equal to the largest needle count, and the report must draw the ATC
curve and the heatmaps. A second run answers ATC wrongly from 8 needles on: ENL-50 must be 4.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builders.needlebench import NeedleBenchBuild, build
from eval.cli import main
from eval.release import open_release
from tests.support.releases import stub_server
from tests.support.openai_stub import Script, prompt_digest

LENGTHS = (4000, 8000)
DEPTHS = (0.0, 50.0, 100.0)
REPEATS = 2
ATC_NEEDLES = (2, 4, 8)
MRS_NEEDLES = (2, 3, 4, 5)
CONFIGS = ("s-rt-en", "s-rt-zh", "m-rt-en", "m-rt-zh", "m-rs-en", "m-rs-zh", "atc-en", "atc-zh")
WRONG_FROM = 8


def perfect_response(row: dict[str, Any]) -> str:
    """What a model that follows the prompt exactly answers, written from the row's own fields."""
    answers = row["answers"]
    if row["task"] in ("s-rt", "m-rt"):
        return "; ".join(answers)
    return f"Tracing the relationships step by step.\nSo the answer is \\boxed{{{answers[0]}}}."


def wrong_late_atc(row: dict[str, Any]) -> str:
    """Perfect, except ATC rows with at least :data:`WRONG_FROM` needles, answered with a name not in the text."""
    if row["task"] == "atc" and row["needle_count"] >= WRONG_FROM:
        return "\\boxed{Nobody Inparticular}"
    return perfect_response(row)


def run_cli(release: Path, run_dir: Path, answers: dict[str, tuple[str, list[str]]], configs: tuple[str, ...]) -> None:
    with stub_server(Script(answers=answers)) as server:
        result = CliRunner().invoke(main, [
            "run", "--dataset", str(release), "--config", ",".join(configs),
            "--backend", "openai", "--base-url", server.base_url, "--model", "stub-model",
            "--output-dir", str(run_dir), "--no-progress",
        ], env={"OPENAI_API_KEY": "test-key"})
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def loopback(tmp_path_factory, cl100k) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("needlebench-loopback")
    release = root / "needlebench"
    spec = NeedleBenchBuild(lengths=LENGTHS, depths=DEPTHS, repeats=REPEATS, atc_needles=ATC_NEEDLES)
    build(spec, release, tokens=cl100k, progress=False)
    opened = open_release(str(release))
    rows = [row for config in CONFIGS for row in opened.iter_rows(config, "test")]
    runs = {"perfect": root / "run-perfect", "wrong": root / "run-wrong"}
    for name, respond in (("perfect", perfect_response), ("wrong", wrong_late_atc)):
        answers = {prompt_digest([{"role": "user", "content": row["input"]}]): (row["id"], [respond(row)]) for row in rows}
        assert len(answers) == len(rows), "two rows share a prompt"
        configs = CONFIGS if name == "perfect" else ("atc-en", "atc-zh")
        run_cli(release, runs[name], answers, configs)
    report = CliRunner().invoke(main, ["report", str(runs["perfect"]), str(runs["wrong"]), "--out", str(root / "report")])
    assert report.exit_code == 0, report.output
    return {"runs": runs, "report": root / "report", "rows": len(rows)}


def results_of(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "results.json").read_text(encoding="utf-8"))


def test_every_config_scores_perfectly_on_a_built_release(loopback):
    scores = results_of(loopback["runs"]["perfect"])["scores"]
    assert sorted(scores["by"]["config"]) == sorted(CONFIGS)
    n_sparse = REPEATS * len(LENGTHS) * len(DEPTHS)
    expected_n = {"s-rt": n_sparse, "m-rt": n_sparse, "m-rs": n_sparse * len(MRS_NEEDLES), "atc": REPEATS * 4 * len(ATC_NEEDLES)}
    for config, stats in scores["by"]["config"].items():
        assert stats["score"] == 1.0 and stats["n"] == expected_n[config.rsplit("-", 1)[0]], (config, stats)
    assert scores["overall"]["score"] == 1.0 and scores["overall"]["n"] == loopback["rows"]
    assert set(scores["by"]["task"]) == {"needlebench/s-rt", "needlebench/m-rt", "needlebench/m-rs", "needlebench/atc"}


def test_breakdowns_keep_requested_depths_and_needle_counts_per_config(loopback):
    scores = results_of(loopback["runs"]["perfect"])["scores"]
    assert set(scores["by"]["depth"]) == {"0", "50", "100"}
    assert "n_tokens" not in scores["by"]
    mrs = scores["by_config"]["m-rs-en"]
    assert set(mrs["needle_count"]) == {str(n) for n in MRS_NEEDLES}
    assert all(stats["n"] == REPEATS * len(LENGTHS) * len(DEPTHS) for stats in mrs["needle_count"].values())
    atc = scores["by_config"]["atc-zh"]
    assert set(atc["needle_count"]) == {str(n) for n in ATC_NEEDLES} and "depth" not in atc and "length" not in atc
    assert set(atc["question_type"]) == {"eldest_ancestor", "nth_ancestor", "nth_descendant", "relationship_distance"}
    depths = {cell["depth"] for cell in scores["cells"] if cell["config"] == "s-rt-en"}
    assert depths == {0, 50, 100}


def test_needlebench_block_shows_100_and_enl_at_the_largest_count(loopback):
    block = results_of(loopback["runs"]["perfect"])["scores"]["needlebench"]
    for task in ("s-rt", "m-rt", "m-rs", "atc"):
        assert block["tasks"][task]["zh"]["score"] == block["tasks"][task]["en"]["score"] == 1.0
        assert block["tasks"][task]["overall"] == 1.0
    assert block["overall"] == {"score": 1.0, "tasks": ["s-rt", "m-rt", "m-rs"]}
    for lang in ("zh", "en"):
        atc = block["atc"][lang]
        assert sorted(atc["by_needles"], key=int) == [str(n) for n in ATC_NEEDLES]
        assert atc["weighted_all"] == 1.0 and atc["weighted_short"] == 1.0
        assert atc["short_needle_counts"] == list(ATC_NEEDLES)  # every ATC prompt here is under 2K tokens
        assert atc["enl_50"] == max(ATC_NEEDLES)
    cells = block["m_rs_cells"]
    assert {(c["config"], c["needle_count"]) for c in cells} == {(f"m-rs-{lang}", n) for lang in ("en", "zh") for n in MRS_NEEDLES}
    assert all(c["score"] == 1.0 and c["n"] == REPEATS for c in cells)


def test_wrong_answers_from_8_needles_give_enl_4(loopback):
    scores = results_of(loopback["runs"]["wrong"])["scores"]
    for lang in ("zh", "en"):
        atc = scores["needlebench"]["atc"][lang]
        assert {n: s["score"] for n, s in atc["by_needles"].items()} == {"2": 1.0, "4": 1.0, "8": 0.0}
        assert atc["enl_50"] == 4
        assert atc["weighted_all"] == round((2 + 4) / (2 + 4 + 8), 6)
    assert scores["needlebench"]["overall"] == {"score": None, "tasks": []}


def test_rescoring_reproduces_the_results(loopback):
    for run_dir in loopback["runs"].values():
        before = results_of(run_dir)["scores"]
        result = CliRunner().invoke(main, ["score", str(run_dir)])
        assert result.exit_code == 0, result.output
        assert results_of(run_dir)["scores"] == before


def test_report_has_the_paper_tables_the_atc_curve_and_heatmaps(loopback):
    report = loopback["report"]
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert (report / "atc_curve.png").stat().st_size > 10_000
    assert "](atc_curve.png)" in markdown
    for config in CONFIGS[:6]:
        assert (report / f"heatmap_{config}.png").is_file(), config
    for lang in ("en", "zh"):
        for count in MRS_NEEDLES:
            name = f"heatmap_m-rs-{lang}_needles={count}.png"
            assert (report / name).is_file() and f"]({name})" in markdown
    assert not (report / "heatmap_atc-en.png").exists()
    perfect = "| stub-model (run-perfect) | " + " | ".join(["100.00"] * 10) + " |"
    assert perfect in markdown
    assert "| stub-model (run-perfect) | 100.0 | 100.0 | 100.0 | 100.00 | 100.00 | 8 |" in markdown
    assert "| stub-model (run-wrong) | 100.0 | 100.0 | 0.0 | 42.86 | 42.86 | 4 |" in markdown
