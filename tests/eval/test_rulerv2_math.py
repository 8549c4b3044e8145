r"""Scoring RULERv2's math base tasks (Appendix D.2: GSM8K and MATH500 in multi-key NIAH) as NeMo-Skills does.

Source of truth: NVIDIA-NeMo/Skills ``nemo_skills/evaluation/evaluator/math.py`` (``MathEvaluatorConfig``
defaults: ``extract_from_boxed=True``, ``relaxed_extraction=False``, ``numeric_precision=15``,
``timeout=10``) and ``nemo_skills/evaluation/math_grader.py`` (``extract_answer``/``search_boxed``: the
last ``\boxed{...}``; ``math_equal``: multiple-choice letters, ``_additional_normalization``,
``latex2sympy2_extended.normalize_latex``, then math-verify's ``parse``/``verify``).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builders.rulerv2 import RulerV2Build, build
from eval.benchmarks import get_task, task_name_for_row
from eval.benchmarks.rulerv2.tasks import MATH_TASK_NAMES, RULER_MATH_METRIC
from eval.cli import main
from eval.release import open_release
from eval.scoring import official_math_answer, official_math_equal
from eval.task import TaskOptions
from needlework.errors import SpecError
from tests.support.openai_stub import Script, prompt_digest
from tests.support.releases import stub_server

OFFICIAL, LENIENT = TaskOptions(), TaskOptions(scoring="lenient")


# --- math_grader.extract_answer (search_boxed) --------------------------------------------------------


@pytest.mark.parametrize(("response", "expected"), [
    ("So the total is \\boxed{42}.", "42"),
    ("First \\boxed{3}, then correcting: \\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),  # the last box
    ("\\boxed{\\sqrt{\\frac{3}{4}}}", "\\sqrt{\\frac{3}{4}}"),  # nested braces
    ("The final answer is 42", None),  # no regex fallback: relaxed_extraction=False
    ("\\boxed{42", None),  # unclosed
    ("no answer", None),
])
def test_answer_is_the_last_box(response, expected):
    assert official_math_answer(response) == expected


# --- math_grader.math_equal ---------------------------------------------------------------------------


@pytest.mark.parametrize(("reference", "prediction", "equal"), [
    ("42", "42", True),
    ("42", "42.0", True),  # symbolic: math-verify
    ("42", "43", False),
    ("\\frac{1}{2}", "0.5", True),
    ("0.5", "\\frac{1}{2}", True),
    ("\\frac{1}{2}", "\\dfrac{1}{2}", True),  # normalize_latex
    ("\\frac{1}{2}", "\\frac{1}{3}", False),
    ("16", "016", True),  # leading zeros (math_grader's comment)
    ("50", "50\\%", True),  # _additional_normalization drops a lone percentage sign
    ("12", "12.", True),  # ... and a sentence's full stop
    ("1000", "1,000", True),
    ("B", "B", True),  # a one-letter reference compares as a multiple-choice option
    ("yes", "no", False),  # two plain-text answers that differ
    ("(1,2)", "(1, 2)", True),
    ("x^2+2x+1", "(x+1)^2", True),
    ("7", None, False),  # nothing extracted
])
def test_math_equal(reference, prediction, equal):
    assert official_math_equal(reference, prediction) is equal


def test_math_equal_runs_outside_the_main_thread():
    """math-verify's timeouts use signal.alarm (main thread only); elsewhere the comparison runs without them."""
    results = []
    worker = threading.Thread(target=lambda: results.append(official_math_equal("\\frac{1}{2}", "0.5")))
    worker.start()
    worker.join()
    assert results == [True]


# --- The tasks ------------------------------------------------------------------------------------------


def row(level: str, answer: str, base: str | None = "gsm8k", task: str = "mk_niah") -> dict[str, Any]:
    values = {"id": f"rulerv2/{task}_{level}/len=4096/i=0000", "task": task, "level": level, "answers": [answer],
              "input": "prompt", "answer_prefix": "", "needles": [], "target_tokens": 4096, "golden": False}
    return values if base is None else {**values, "base": base}


def score(row_: dict[str, Any], response: str, options: TaskOptions = OFFICIAL) -> float:
    task = get_task(task_name_for_row("rulerv2", row_), options)
    return task.score(task.extract(response), task.references(row_))


def test_rows_with_a_math_base_get_the_math_tasks():
    assert task_name_for_row("rulerv2", row("hard", "42")) == "rulerv2/mk_niah_hard/gsm8k"
    assert task_name_for_row("rulerv2", row("medium", "\\frac12", "math500")) == "rulerv2/mk_niah_medium/math500"
    assert task_name_for_row("rulerv2", row("hard", "B", None)) == "rulerv2/mk_niah_hard"
    assert task_name_for_row("rulerv2", row("hard", "B", "mmlu")) == "rulerv2/mk_niah_hard"
    assert len(MATH_TASK_NAMES) == 6
    task = get_task("rulerv2/mk_niah_hard/math500", OFFICIAL)
    assert (task.domain, task.level, task.metric) == ("mk_niah", "hard", RULER_MATH_METRIC)
    with pytest.raises(SpecError, match="no math rule"):
        task_name_for_row("rulerv2", row("hard", "x", "gsm8k", task="mv_niah"))
    with pytest.raises(SpecError, match="no math rule"):
        task_name_for_row("rulerv2", row("hard", "x", "humaneval"))


@pytest.mark.parametrize("options", [OFFICIAL, LENIENT], ids=["official", "lenient"])
@pytest.mark.parametrize(("answer", "response", "expected"), [
    ("42", "Question 1234567: ...\nThe farmer has 42 hens.\n\\boxed{42}", 1.0),
    ("42", "\\boxed{42.0}", 1.0),
    ("42", "I think \\boxed{41} ... no wait, \\boxed{42}", 1.0),
    ("42", "\\boxed{42} ... on reflection \\boxed{41}", 0.0),  # the last box counts
    ("42", "The answer is 42.", 0.0),  # no box
    ("\\frac{1}{2}", "\\boxed{0.5}", 1.0),
    ("\\frac{1}{2}", "\\boxed{\\frac{1}{2}}", 1.0),
    ("0.5", "\\boxed{\\dfrac12}", 1.0),
    ("\\frac{1}{2}", "\\boxed{\\frac{2}{3}}", 0.0),
])
def test_solve_levels_score_the_boxed_answer(options, answer, response, expected):
    for level in ("medium", "hard"):
        assert score(row(level, answer), response, options) == expected


def test_copy_level_keeps_its_rule():
    """Multi-key easy asks for a copy of the problem, scored by the official RULERv2 string match as before."""
    question = "A farm has 3 pens with 5 hens each. How many hens?"
    assert score(row("easy", question), f"Question 1234567: {question}") == 1.0
    assert score(row("easy", question), "\\boxed{15}") < 0.5


def test_thinking_is_removed_before_reading_the_box():
    options = TaskOptions(thinking_end="</think>")
    assert score(row("hard", "42"), "<think>maybe \\boxed{42}</think>\\boxed{41}", options) == 0.0
    assert score(row("hard", "42"), "<think>maybe \\boxed{41}</think>\\boxed{42}", options) == 1.0


# --- A built release through python -m eval ------------------------------------------------------------


def gsm8k_file(path: Path) -> Path:
    records = [{"question": f"A farm has {i + 3} pens with {2 * i + 5} hens each and sells {i} hens at the market on "
                            f"Sunday morning before the farmer has breakfast. How many hens are left on the farm now?",
                "answer": f"{i + 3}*{2 * i + 5} = <<{i + 3}*{2 * i + 5}>>\n#### {(i + 3) * (2 * i + 5) * 100 - i:,}"}
               for i in range(12)]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_gsm8k_release_scores_through_eval(tmp_path, cl100k):
    """Boxed answers in another form (``1,500.0``) score 1, wrong ones 0, and the run names the math tasks."""
    release = tmp_path / "rulerv2"
    configs = ("mk_niah_medium", "mk_niah_hard")
    spec = RulerV2Build(tasks=configs, lengths=(600,), generation_reserve=30, samples=2, shots=1, mk_base="gsm8k",
                        mk_source=str(gsm8k_file(tmp_path / "test.jsonl")))
    build(spec, release, tokens=cl100k, progress=False)
    opened = open_release(str(release))
    answers = {}
    for config in configs:
        for i, row_ in enumerate(opened.iter_rows(config, "test")):
            value = row_["answers"][0]
            reply = f"\\boxed{{{int(value):,}.0}}" if i % 2 == 0 else f"\\boxed{{{int(value) + 1}}}"
            answers[prompt_digest([{"role": "user", "content": row_["input"]}])] = (row_["id"], [reply])
    with stub_server(Script(answers=answers)) as server:
        result = CliRunner().invoke(main, [
            "run", "--dataset", str(release), "--config", ",".join(configs), "--split", "test",
            "--backend", "openai", "--base-url", server.base_url, "--model", "stub-model",
            "--output-dir", str(tmp_path / "run"), "--no-progress",
        ], env={"OPENAI_API_KEY": "test-key"})
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))
    by_config = results["scores"]["by"]["config"]
    assert {config: stats["score"] for config, stats in by_config.items()} == {config: 0.5 for config in configs}
    assert set(results["scores"]["by"]["task"]) == {f"rulerv2/{c}/gsm8k" for c in configs}
