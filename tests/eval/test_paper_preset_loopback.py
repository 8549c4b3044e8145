"""Releases built with ``--preset paper`` evaluate end to end: a model answering every row perfectly scores 100 %
on every config of both benchmarks, so eval reads the official layouts (RULERv2: 4x repeated multi-value
indices, official prompts, ``eval_generation``; NeedleBench: per-depth M-RT, official-style ATC) as built."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from builders.needlebench import NeedleBenchBuild
from builders.needlebench import build as build_needlebench
from builders.rulerv2 import RulerV2Build
from builders.rulerv2 import build as build_rulerv2
from eval.cli import main
from eval.release import open_release
from tests.support.openai_stub import Script, prompt_digest
from tests.support.releases import stub_server


def run_perfectly(release: Path, out: Path, answer: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    opened = open_release(str(release))
    configs = sorted(opened.manifest["configs"])
    rows = [row for config in configs for row in opened.iter_rows(config, "test")]
    answers = {prompt_digest([{"role": "user", "content": row["input"]}]): (row["id"], [answer(row)]) for row in rows}
    script = Script(answers=answers, keep_payloads=True)
    with stub_server(script) as server:
        result = CliRunner().invoke(main, ["run", "--dataset", str(release), "--config", ",".join(configs),
                                           "--backend", "openai", "--base-url", server.base_url, "--model", "stub",
                                           "--output-dir", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    return json.loads((out / "results.json").read_text(encoding="utf-8")), script.payloads


def test_a_perfect_model_scores_100_on_the_rulerv2_paper_preset(tmp_path, shared_data: Path, qwen):
    spec = RulerV2Build(preset="paper", lengths=(8192,), samples=2, mcq=str(shared_data / "mmlu"),
                        mcq_distractors=str(shared_data / "mmlu" / "dev"),
                        docqa=str(shared_data / "multihop_hipporag" / "hotpotqa_train.json"),
                        docqa_distractors=str(shared_data / "multihop_hipporag" / "hotpotqa_train.json"))
    build_rulerv2(spec, tmp_path / "release", tokens=qwen, progress=False)

    def perfect(row: dict[str, Any]) -> str:
        solve = row["task"] == "mk_niah" and row["level"] in ("medium", "hard")
        return f"\\boxed{{{row['answers'][0]}}}" if solve else "\n".join(row["answers"])

    results, payloads = run_perfectly(tmp_path / "release", tmp_path / "run", perfect)
    assert {c: s["score"] for c, s in results["scores"]["by"]["config"].items()} == dict.fromkeys(
        results["run"]["configs"], 1.0) and len(results["run"]["configs"]) == 12
    assert {p["max_tokens"] for p in payloads} == {16384}  # the preset's eval_generation, not a row reserve


def test_a_perfect_model_scores_100_on_the_needlebench_paper_preset(tmp_path, shared_data: Path, cl100k):
    spec = NeedleBenchBuild(preset="paper", lengths=(1000, 4000), repeats=1, mrt_repeats=1, atc_needles=(2, 4, 8))
    build_needlebench(spec, tmp_path / "release", tokens=cl100k, progress=False)

    def perfect(row: dict[str, Any]) -> str:
        if row["task"] in ("s-rt", "m-rt"):
            return "; ".join(row["answers"])
        return f"So the answer is \\boxed{{{row['answers'][0]}}}."

    results, _ = run_perfectly(tmp_path / "release", tmp_path / "run", perfect)
    scores = {c: s["score"] for c, s in results["scores"]["by"]["config"].items()}
    assert scores == dict.fromkeys(results["run"]["configs"], 1.0) and len(scores) == 8
    assert results["counts"]["errors"] == {}
