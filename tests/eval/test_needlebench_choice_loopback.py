"""A built release with the multiple-choice ATC and per-depth M-RT through ``python -m eval`` and back.

A loopback stub answers every multiple-choice prompt ``The answer is: A`` (a model that always picks the first
option) and names, in each per-depth M-RT prompt, only the needles at depths 0 and 50. OpenCompass's
``CircularEvaluator`` (``opencompass/openicl/icl_evaluator/icl_circular_evaluator.py``) gives such a model
``acc_1`` 100 (the ``ABCD`` rotation's answer is always ``A``), ``acc_4`` 25 and ``perf_4`` 0: the circular score
is what exposes it. ``NeedleBenchParallelEvaluator`` (``opencompass/datasets/needlebench_v2/parallel.py``) gives
``Depth0`` = ``Depth50`` = 100 and ``Depth100`` = 0 at every length, ``average_score`` 66.67.
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
from tests.support.openai_stub import Script, prompt_digest
from tests.support.releases import stub_server

LENGTHS = (1000, 2000)
CONFIGS = ("m-rt-en", "m-rt-zh", "atc-choice-en", "atc-choice-zh")


@pytest.fixture(scope="module")
def loopback(tmp_path_factory, cl100k) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("needlebench-choice-loopback")
    release = root / "needlebench"
    spec = NeedleBenchBuild(tasks=("m-rt", "atc-choice"), lengths=LENGTHS, depths=(0.0, 50.0, 100.0), repeats=2,
                            mrt_needles=3, mrt_layout="per-depth", choice_needles=(2, 5))
    build(spec, release, tokens=cl100k, progress=False)
    opened = open_release(str(release))
    mrt = [row for config in CONFIGS[:2] for row in opened.iter_rows(config, "test")]
    # Every multiple-choice prompt starts with the same few-shot turn: the stub's default answers them all.
    answers = {prompt_digest([{"role": "user", "content": row["input"]}]): (row["id"], ["; ".join(row["answers"][:2])])
               for row in mrt}
    script = Script(answers=answers, default="The answer is: A", keep_payloads=True)
    run_dir = root / "run"
    with stub_server(script) as server:
        result = CliRunner().invoke(main, [
            "run", "--dataset", str(release), "--config", ",".join(CONFIGS), "--backend", "openai",
            "--base-url", server.base_url, "--model", "stub-model", "--output-dir", str(run_dir), "--no-progress",
        ], env={"OPENAI_API_KEY": "test-key"})
    assert result.exit_code == 0, result.output
    report = CliRunner().invoke(main, ["report", str(run_dir), "--out", str(root / "report")])
    assert report.exit_code == 0, report.output
    return {"run": run_dir, "report": root / "report", "payloads": script.payloads}


def scores(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "results.json").read_text(encoding="utf-8"))["scores"]


def test_choice_prompts_go_out_as_the_few_shot_conversation(loopback):
    choice = [p for p in loopback["payloads"] if len(p["messages"]) > 1]
    assert len(choice) == 2 * 2 * 2 * 4  # languages x needle counts x repeats x rotations
    for payload in choice:
        roles = [m["role"] for m in payload["messages"]]
        assert roles == ["user", "assistant"] * 4 + ["user"]
        assert payload["messages"][-1]["content"].startswith(("Question: ", "问题: "))


def test_always_a_scores_100_on_abcd_25_per_rotation_and_0_circular(loopback):
    block = scores(loopback["run"])["needlebench"]["atc_choice"]["atc-choice"]
    for lang in ("zh", "en"):
        assert (block[lang]["circular"], block[lang]["accuracy"], block[lang]["accuracy_abcd"]) == (0.0, 0.25, 1.0)
        assert {n: (s["circular"], s["n_questions"], s["n"]) for n, s in block[lang]["by_needles"].items()} == {
            "2": (0.0, 2, 8), "5": (0.0, 2, 8)}


def test_per_depth_cells_and_their_mean_is_the_m_rt_score(loopback):
    result = scores(loopback["run"])
    cells = result["needlebench"]["m_rt_depth_cells"]
    assert {(c["config"], c["length"], c["depth"]): (c["score"], c["n"]) for c in cells} == {
        (f"m-rt-{lang}", length, depth): (0.0 if depth == 100 else 1.0, 2)
        for lang in ("en", "zh") for length in LENGTHS for depth in (0, 50, 100)}
    for lang in ("en", "zh"):
        mine = [c["score"] for c in cells if c["config"] == f"m-rt-{lang}"]
        assert sum(mine) / len(mine) == pytest.approx(result["needlebench"]["tasks"]["m-rt"][lang]["score"])


def test_rescoring_reproduces_the_results(loopback):
    before = scores(loopback["run"])
    result = CliRunner().invoke(main, ["score", str(loopback["run"])])
    assert result.exit_code == 0, result.output
    assert scores(loopback["run"]) == before


def test_report_has_the_choice_tables_the_depth_tables_and_heatmaps(loopback):
    markdown = (loopback["report"] / "report.md").read_text(encoding="utf-8")
    assert markdown.count("| stub-model · circular | 0.0 | 0.0 | 0.0 |") == 2
    assert markdown.count("| stub-model · per rotation | 25.0 | 25.0 | 25.0 |") == 2
    assert markdown.count("| mean | 66.7 | 66.7 | 66.7 |") == 2
    for lang in ("en", "zh"):
        name = f"heatmap_m-rt-{lang}_per_depth.png"
        assert (loopback["report"] / name).is_file() and f"]({name})" in markdown
