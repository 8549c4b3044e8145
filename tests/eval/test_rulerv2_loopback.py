"""A built RULERv2 release (all 12 tasks, test and golden splits) through ``python -m eval`` and back.

The release is built by the real builder on the embedded world; a loopback stub server answers
every prompt as a perfect model would, from the row alone (copies of the gold items, boxed
letters, indices, answers). The run must score 100% on every task, and the report must draw the
per-level plot with the golden baseline.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from builders.rulerv2 import RulerV2Build, build
from eval.cli import main
from eval.release import open_release
from tests.support.releases import stub_server
from generators.rulerv2.spec import TASKS
from tests.support.openai_stub import Script, prompt_digest

LENGTHS = (4096, 8192)
SAMPLES = 2


def perfect_response(row: dict[str, Any]) -> str:
    """What a model that follows the prompt exactly answers, written from the row's own fields."""
    level, task = row["level"], row["task"]
    gold = [n["text"] for n in row["needles"]]
    answers = row["answers"]
    if level == "basic" and task != "mdqa":
        return ", ".join(answers)
    if task == "mk_niah":
        return {"easy": gold[0], "medium": f"{gold[0]}\nSolution: \\boxed{{{answers[0]}}}."}.get(level, f"\\boxed{{{answers[0]}}}")
    if task == "mv_niah":
        k = row["order"]
        return {"easy": "\n".join(gold), "medium": "\n".join([*gold, gold[k - 1] if k else ""])}.get(level, gold[(k or 1) - 1])
    if level in ("basic", "easy"):
        return answers[0]
    return "\n".join(gold) + f"\nAnswer: {answers[0]}" if level == "medium" else answers[0]


@pytest.fixture(scope="module")
def loopback(tmp_path_factory, qwen) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("rulerv2-loopback")
    release = root / "rulerv2"
    build(RulerV2Build(lengths=LENGTHS, samples=SAMPLES, golden=True), release, tokens=qwen, progress=False)
    opened = open_release(str(release))
    answers = {}
    for config in TASKS:
        for split in ("test", "golden"):
            for row in opened.iter_rows(config, split):
                answers[prompt_digest([{"role": "user", "content": row["input"]}])] = (row["id"], [perfect_response(row)])
    runs = {}
    with stub_server(Script(answers=answers)) as server:
        for split in ("test", "golden"):
            runs[split] = root / f"run-{split}"
            result = CliRunner().invoke(main, [
                "run", "--dataset", str(release), "--config", ",".join(TASKS), "--split", split,
                "--backend", "openai", "--base-url", server.base_url, "--model", "stub-model",
                "--output-dir", str(runs[split]), "--no-progress",
            ], env={"OPENAI_API_KEY": "test-key"})
            assert result.exit_code == 0, result.output
    report = CliRunner().invoke(main, ["report", str(runs["test"]), str(runs["golden"]), "--out", str(root / "report")])
    assert report.exit_code == 0, report.output
    return {"runs": runs, "report": root / "report", "rows": len(answers)}


def test_every_task_scores_perfectly_on_a_built_release(loopback):
    for split, run_dir in loopback["runs"].items():
        results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
        by_config = results["scores"]["by"]["config"]
        assert sorted(by_config) == sorted(TASKS), split
        expected_n = SAMPLES * (len(LENGTHS) if split == "test" else 1)
        for config, stats in by_config.items():
            assert stats["n"] == expected_n and stats["score"] == 1.0, (split, config, stats)
        assert results["scores"]["overall"]["score"] == 1.0


def test_report_shows_the_per_level_plot_with_golden_baselines(loopback):
    report = loopback["report"]
    markdown = (report / "report.md").read_text(encoding="utf-8")
    assert (report / "levels.png").stat().st_size > 10_000
    assert "levels.png" in markdown
    assert "run-golden" in markdown or "golden" in markdown
