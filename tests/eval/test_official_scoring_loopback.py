"""Official scoring is the default, end to end: the same answers through ``python -m eval run`` score as the
official code does by default and as needlework's lenient reading only under ``--scoring lenient``.

Each response is written to separate the two rules (issue 23's audit):

- RULERv2 ``mdqa_medium`` copying the gold documents and giving no answer: NeMo-Skills ``eval_ruler2``
  ("part", ``nemo_skills/evaluation/evaluator/ruler.py``) removes copied ``Document N:`` blocks first
  (each up to a blank line, the generation read untrimmed), so it scores 0; the lenient reading
  found the answer inside the copies.
- RULERv2 ``mdqa_basic`` naming a wrong index first and the gold one later: official "part" finds
  the gold index anywhere (1); the lenient reading takes only the first number (0).
- RULERv2 ``mk_niah_hard`` saying "The answer is (X)" without a box: NeMo-Skills' multiple-choice
  evaluator (``nemo_skills/evaluation/evaluator/mcq.py``) reads no letter (0); the lenient one does (1).
- NeedleBench M-RS naming the ancestor without a box: OpenCompass v2 scores M-RS with the ATC
  evaluator (``needlebench_atc_postprocess_v2``, ``NeedleBenchATCEvaluator``: the last ``\\boxed{}``
  must equal the name), so 0; the lenient reading credits the name anywhere (1).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builders.needlebench import NeedleBenchBuild
from builders.needlebench import build as build_needlebench
from builders.rulerv2 import RulerV2Build, build
from eval.cli import main
from eval.release import open_release
from tests.support.openai_stub import Script, prompt_digest
from tests.support.releases import stub_server

CONFIGS = ("mdqa_medium", "mdqa_basic", "mk_niah_hard")
HOTPOTQA = "multihop_hipporag/hotpotqa_train.json"


def separating_response(row: dict[str, Any]) -> str:
    """A response the official and the lenient rules score differently (module docstring)."""
    if row["task"] == "mdqa" and row["level"] == "medium":
        return "\n\n".join(needle["text"] for needle in row["needles"]) + "\n\n"
    if row["task"] == "mdqa":
        return f"Not 1234567; the document is {row['answers'][0]}."
    return f"The answer is ({row['answers'][0]})."


@pytest.fixture(scope="module")
def runs(tmp_path_factory, shared_data: Path, qwen) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("official-loopback")
    spec = RulerV2Build(tasks=CONFIGS, tokenizer="qwen2.5", lengths=(4096,), samples=3, docqa=str(shared_data / HOTPOTQA))
    build(spec, root / "release", tokens=qwen, progress=False)
    opened = open_release(str(root / "release"))
    rows = [row for config in CONFIGS for row in opened.iter_rows(config, "test")]
    for row in rows:  # the copies hold the answer, so only the official removal of copied documents scores 0
        if row["task"] == "mdqa" and row["level"] == "medium":
            assert any(row["answers"][0].lower() in needle["text"].lower() for needle in row["needles"]), row["id"]
    answers = {prompt_digest([{"role": "user", "content": row["input"]}]): (row["id"], [separating_response(row)])
               for row in rows}
    results = {}
    for scoring in ("official", "lenient"):
        with stub_server(Script(answers=answers)) as server:
            result = CliRunner().invoke(main, ["run", "--dataset", str(root / "release"), "--config", ",".join(CONFIGS),
                                               "--backend", "openai", "--base-url", server.base_url, "--model", "stub",
                                               "--scoring", scoring, "--output-dir", str(root / scoring), "--no-progress"])
        assert result.exit_code == 0, result.output
        results[scoring] = json.loads((root / scoring / "results.json").read_text(encoding="utf-8"))
    return results


def config_scores(results: dict[str, Any]) -> dict[str, float]:
    return {config: stats["score_answered"] for config, stats in results["scores"]["by"]["config"].items()}


def test_official_scoring_is_the_default_and_separates_from_the_lenient_reading(runs):
    assert runs["official"]["run"]["task_options"]["scoring"] == "official"
    assert config_scores(runs["official"]) == {"mdqa_medium": 0.0, "mdqa_basic": 1.0, "mk_niah_hard": 0.0}
    assert config_scores(runs["lenient"]) == {"mdqa_medium": 1.0, "mdqa_basic": 0.0, "mk_niah_hard": 1.0}


@pytest.fixture(scope="module")
def needlebench_runs(tmp_path_factory, cl100k) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("official-needlebench")
    spec = NeedleBenchBuild(lengths=(2000,), depths=(50.0,), repeats=2, mrs_needles=(2, 3))
    build_needlebench(spec, root / "release", tokens=cl100k, progress=False)
    rows = list(open_release(str(root / "release")).iter_rows("m-rs-en", "test"))
    answers = {prompt_digest([{"role": "user", "content": row["input"]}]):
               (row["id"], [f"Tracing the chain, the eldest ancestor is {row['answers'][0]}."]) for row in rows}
    results = {}
    for scoring in ("official", "lenient"):
        with stub_server(Script(answers=answers)) as server:
            result = CliRunner().invoke(main, ["run", "--dataset", str(root / "release"), "--config", "m-rs-en",
                                               "--backend", "openai", "--base-url", server.base_url, "--model", "stub",
                                               "--scoring", scoring, "--output-dir", str(root / scoring), "--no-progress"])
        assert result.exit_code == 0, result.output
        results[scoring] = json.loads((root / scoring / "results.json").read_text(encoding="utf-8"))
    return results


def test_an_unboxed_multi_needle_reasoning_answer_scores_zero_by_default(needlebench_runs):
    assert needlebench_runs["official"]["run"]["task_options"]["scoring"] == "official"
    assert config_scores(needlebench_runs["official"]) == {"m-rs-en": 0.0}
    assert config_scores(needlebench_runs["lenient"]) == {"m-rs-en": 1.0}
