"""RULERv2 scoring against NeMo-Skills' own functions, response for response (issue 38).

The verdicts in ``tests/eval/data/rulerv2_nemo_skills_verdicts.json`` were computed outside the repository by
running NVIDIA/NeMo-Skills' scoring functions on the responses of :func:`tests.support.crafted_rulerv2.crafted_responses`
over the rows of :func:`paper_rows` (the ``paper`` preset on the shared MMLU and HotpotQA slices, 4K, two rows per
task):

* ``nemo_skills/evaluation/evaluator/ruler.py`` ``eval_ruler2`` at 645cf567ff08c0ae9cc3fc8e1edbb975b3067816 (the
  copy sgl-project/sgl-eval vendors), with each task's match type ("all"; multi-value medium "2steps"; QA "part");
* ``nemo_skills/evaluation/evaluator/mcq.py`` ``eval_mcq`` with its config defaults and
  ``nemo_skills/evaluation/math_grader.py`` ``extract_answer`` at 0b012df8a09cd4730d31b16e90a0d8f13d145fb8, for
  multi-key medium and hard (``symbolic_correct``);
* each response scored twice: as generated (``official``), and after ``nemo_skills/utils.py``
  ``parse_reasoning`` (0b012df8; ``official_reasoning``), which NeMo-Skills applies in its reasoning mode.

needlework's default reads the text after ``</think>`` as ``parse_reasoning`` does and a response without it as
generated, so its verdict is compared with ``official_reasoning`` when the response holds ``</think>`` and with
``official`` otherwise; ``--reasoning required`` with ``official_reasoning`` everywhere; ``--thinking-end ''`` with
``official`` everywhere.

Lower-case and full-width letters and boxes padded with or holding only whitespace are covered as mcq.py at 0b012df8
reads them (a one-character box as written: ``\\boxed{d}`` is not D). Not covered: NeMo-Skills versions after
0b012df8 (none that scores multiple choice could be run here); math, code and golden rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import datasets
import pytest

from builders.rulerv2 import RulerV2Build, build
from eval.benchmarks.rulerv2.tasks import RulerTask
from eval.task import TaskOptions
from generators.rulerv2.spec import TASKS
from tests.support.crafted_rulerv2 import crafted_responses
from tests.support.verdicts import verdict_cases

VERDICTS = Path(__file__).parent / "data" / "rulerv2_nemo_skills_verdicts.json"
ROWS_PER_TASK = 2


@pytest.fixture(scope="module")
def paper_rows(tmp_path_factory, shared_data, qwen) -> dict[str, list[tuple[str, list[str]]]]:
    """Task -> ``(task, references)`` of its first rows in a ``paper``-preset release on the shared slices."""
    hotpot = str(shared_data / "multihop_hipporag" / "hotpotqa_train.json")
    spec = RulerV2Build(preset="paper", lengths=(4096,), samples=ROWS_PER_TASK, mcq=str(shared_data / "mmlu"),
                        mcq_distractors=str(shared_data / "mmlu" / "dev"), docqa=hotpot, docqa_distractors=hotpot)
    out = tmp_path_factory.mktemp("rulerv2-paper") / "release"
    build(spec, out, tokens=qwen, progress=False)
    return {task: [(task, list(row["answers"])) for row in datasets.load_dataset(str(out), task, split="test")]
            for task in TASKS}


@pytest.fixture(scope="module")
def cases(paper_rows) -> list[dict[str, Any]]:
    """Every crafted response with the row it answers and NeMo-Skills' two verdicts."""
    return verdict_cases(VERDICTS, paper_rows, crafted_responses, ("official", "official_reasoning"))


def needlework_score(case: dict[str, Any], options: TaskOptions) -> float:
    task = RulerTask(f"rulerv2/{case['task']}", options)
    return task.score(task.extract(case["response"]), case["references"])


def disagreements(cases: list[dict[str, Any]], options: TaskOptions, expected: str) -> list[str]:
    wrong = []
    for case in cases:
        want = case[expected] if expected != "by_marker" else (
            case["official_reasoning"] if "</think>" in case["response"] else case["official"])
        got = needlework_score(case, options)
        if abs(got - want) > 1e-9:
            wrong.append(f"{case['key']}: needlework {got}, NeMo-Skills {want}, response {case['response']!r}")
    return wrong


def test_the_table_covers_every_task_with_at_least_300_responses(cases):
    assert len(cases) >= 300
    assert {case["task"] for case in cases} == set(TASKS)
    kinds = {case["key"].split("/")[-1] for case in cases}
    assert {"think_closed", "think_unclosed", "trailing_ws", "close_only"} <= kinds
    assert {case["official"] for case in cases} >= {0.0, 1.0} and any(0 < case["official"] < 1 for case in cases)


@pytest.mark.parametrize(("options", "expected"), [
    (TaskOptions(), "by_marker"),
    (TaskOptions(reasoning="required"), "official_reasoning"),
    (TaskOptions(thinking_end=None), "official"),
], ids=["default", "reasoning-required", "no-thinking-marker"])
def test_needlework_scores_every_crafted_response_as_nemo_skills_does(cases, options, expected):
    wrong = disagreements(cases, options, expected)
    assert not wrong, f"{len(wrong)} of {len(cases)} disagree:\n" + "\n".join(wrong[:15])


def test_an_empty_box_falls_through_to_the_final_answer_sentence():
    """``extract_answer(relaxed=True)`` is ``search_boxed(s) or search_regex(s)``: an empty box is falsy."""
    task = RulerTask("rulerv2/mk_niah_medium", TaskOptions())
    assert task.score(task.extract("\\boxed{}\nThe final answer is D"), ["D"]) == 1.0
    assert task.score(task.extract("\\boxed{}"), ["D"]) == 0.0


def test_reasoning_required_scores_a_response_that_never_closed_its_thinking_as_empty():
    required, auto = (RulerTask("rulerv2/mk_niah_basic", TaskOptions(reasoning=mode)) for mode in ("required", "auto"))
    response = "<think>the value is 1234567"
    assert required.extract(response) == "" and required.score("", ["1234567"]) == 0.0
    assert auto.score(auto.extract(response), ["1234567"]) == 1.0
    with pytest.raises(ValueError, match="needs a thinking_end marker"):
        TaskOptions(thinking_end=None, reasoning="required")
