"""Scoring RULERv2's multi-key NIAH over MBPP (Appendix D.2) by running the model's code against the problem's tests.

Sources of truth: NVIDIA-NeMo/Skills ``nemo_skills/evaluation/evaluator/code.py`` ``preprocess_code``
(the code is the last ```python block, else the last bare fence, up to the next fence; an unclosed
block or an unclosed ``<think>`` leaves no code; no fence: the whole text, stripped), and MBPP's
protocol (Austin et al. 2021; evalplus's base tests): the solution, then the
problem's setup code and every ``test_list`` assert; 1 if all pass, else 0. Running model output is
opt-in (``--allow-code-execution``), refused before any request is sent.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from builders.rulerv2 import RulerV2Build, build
from eval import code_execution
from eval.benchmarks import get_task, task_name_for_row
from eval.benchmarks.rulerv2.tasks import CODE_TASK_NAMES, RULER_CODE_METRIC, code_block
from eval.cli import main
from eval.code_execution import (
    OUTCOMES,
    program_of_tests,
    refuse_code_execution,
    run_solution,
)
from eval.release import open_release
from eval.results import score_samples
from eval.runner import score_run
from eval.store import RunDirectory
from eval.task import TaskOptions
from needlework.errors import SpecError
from tests.builders.test_rulerv2_mbpp import MBPP_FULL, SANITIZED_82, by_id, mbpp_file
from tests.support.openai_stub import Script, prompt_digest
from tests.support.releases import stub_server

ALLOWED = TaskOptions(allow_code_execution=True, code_timeout_s=2.0)
FAST = TaskOptions(allow_code_execution=True, code_timeout_s=0.5)
REMOVE_OCC = by_id(11)
GOOD = "def remove_Occ(s, ch):\n    s = s.replace(ch, '', 1)\n    i = s.rfind(ch)\n    return s if i < 0 else s[:i] + s[i + 1:]"


def fenced(code: str) -> str:
    return f"Here is my solution.\n```python\n{code}\n```\nIt removes both occurrences."


# --- preprocess_code -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("response", "code"), [
    ("```python\nx = 1\n```", "x = 1"),
    ("First try:\n```python\nx = 1\n```\nBetter:\n```python\nx = 2\n```\nDone.", "x = 2"),  # the last block
    ("```\ny = 3\n```", ""),  # the last bare fence is the closing one: nothing after it is closed
    ("```python\nx = 1\n```\nthen\n```\nplain\n```", "x = 1"),  # a python block wins over later bare ones
    ("```python\nx = 1\n", ""),  # opened, never closed: a cut-off generation
    ("def f():\n    return 1", "def f():\n    return 1"),  # no fence: the whole text
    ("<think>let me see\n```python\nx = 1\n```", ""),  # an unclosed reasoning block
    ("<think>```python\nx = 0\n```</think>```python\nx = 1\n```", "x = 1"),  # after the reasoning
    ("```python\r\nx = 1\r\n```", "x = 1"),
    ("", ""),
])
def test_code_is_read_as_nemo_skills_does(response, code):
    assert code_block(response) == code


def test_reasoning_before_the_marker_is_dropped_first():
    task = get_task("rulerv2/mk_niah_hard/mbpp", ALLOWED)
    assert task.extract("<think>```python\nx = 0\n```</think>\n```python\nx = 1\n```") == "x = 1"
    assert task.extract("[reasoning]```python\nx = 0\n```[/reasoning]\nno code") == "x = 0"  # another marker
    custom = get_task("rulerv2/mk_niah_hard/mbpp", TaskOptions(thinking_end="[/reasoning]", allow_code_execution=True))
    assert custom.extract("[reasoning]```python\nx = 0\n```[/reasoning]\n```python\nx = 1\n```") == "x = 1"


# --- Running the tests ---------------------------------------------------------------------------------


@pytest.mark.parametrize("record", MBPP_FULL, ids=lambda r: str(r["task_id"]))
def test_reference_solutions_pass_their_own_tests(record):
    """Every real record's reference code passes its asserts in the sandbox (MBPP's own check)."""
    tests = program_of_tests(record["test_setup_code"], record["test_list"])
    assert run_solution(record["code"].replace("\r\n", "\n"), tests, timeout_s=5.0).outcome == "passed"


def test_setup_code_runs_before_the_tests():
    """sanitized-mbpp.json's ``test_imports`` (``import math``) is what the asserts' ``math.isclose`` needs."""
    code = "def volume_sphere(r):\n    return 4 / 3 * 3.141592653589793 * r ** 3"
    with_setup = program_of_tests("\n".join(SANITIZED_82["test_imports"]), SANITIZED_82["test_list"])
    assert run_solution(code, with_setup).outcome == "passed"
    without = run_solution(code, program_of_tests("", SANITIZED_82["test_list"]))
    assert without.outcome == "error" and "NameError" in without.detail


def row(level: str, record: dict[str, Any] = REMOVE_OCC) -> dict[str, Any]:
    return {"id": f"rulerv2/mk_niah_{level}/len=4096/i=0000", "task": "mk_niah", "level": level, "base": "mbpp",
            "answers": [record["code"]], "input": "prompt", "answer_prefix": "", "needles": [], "target_tokens": 4096,
            "golden": False, "test_list": record["test_list"], "test_setup_code": record["test_setup_code"]}


def scored(response: str, options: TaskOptions = ALLOWED, level: str = "hard") -> tuple[float, dict[str, float]]:
    task = get_task(task_name_for_row("rulerv2", row(level)), options)
    prediction, references = task.extract(response), task.references(row(level))
    return task.score(prediction, references), task.secondary_scores(prediction, references)


@pytest.mark.parametrize(("response", "score", "outcome"), [
    (fenced(GOOD), 1.0, "passed"),
    (fenced("def remove_Occ(s, ch):\n    return s.replace(ch, '')"), 1.0, "passed"),  # passes MBPP's three asserts
    (fenced("def remove_Occ(s, ch):\n    return s.replace(ch, '', 1)"), 0.0, "assertion"),  # first occurrence only
    (fenced("def remove_occ(s, ch):\n    return s"), 0.0, "error"),  # wrong name: NameError in the tests
    (fenced("def remove_Occ(s, ch):\n    return s[1:-1]\nraise SystemExit(0)"), 0.0, "error"),  # exits before the tests
    (fenced("import os\ndef remove_Occ(s, ch):\n    return s\nos._exit(0)"), 0.0, "error"),  # status 0 but no token
    (fenced("def remove_Occ(s, ch)\n    return s"), 0.0, "syntax_error"),
    ("I would remove the first and the last occurrence with str.replace.", 0.0, "syntax_error"),  # prose is run as code
    ("```python\ndef remove_Occ(s, ch):\n    return s", 0.0, "no_code"),  # cut off inside the block
    ("", 0.0, "no_code"),
])
def test_solve_levels_score_by_running_the_tests(response, score, outcome):
    for level in ("medium", "hard"):
        assert scored(response, level=level) == (score, {name: float(name == outcome) for name in OUTCOMES})


def test_an_infinite_loop_times_out_and_scores_0():
    assert scored(fenced("def remove_Occ(s, ch):\n    while True:\n        pass"), FAST) == (
        0.0, {name: float(name == "timeout") for name in OUTCOMES})


def test_the_environment_holds_no_secrets(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    code = GOOD + "\nimport os\nassert 'OPENAI_API_KEY' not in os.environ and 'sk-secret' not in repr(dict(os.environ))"
    assert scored(fenced(code))[0] == 1.0


def test_the_copy_level_keeps_its_rule_and_runs_nothing():
    task = get_task(task_name_for_row("rulerv2", row("easy")), TaskOptions())
    question = '"""\nWrite a python function to remove first and last occurrence of a given character from the string.\n"""'
    easy = {**row("easy"), "answers": [question]}
    assert not task.executes_code and task.references(easy) == [question]
    assert task.score(task.extract(f"Question 1234567: {question}"), task.references(easy)) == 1.0
    assert task.secondary_scores("", [question]) == {}


def test_tasks_and_metric():
    assert CODE_TASK_NAMES == ("rulerv2/mk_niah_easy/mbpp", "rulerv2/mk_niah_medium/mbpp", "rulerv2/mk_niah_hard/mbpp")
    task = get_task("rulerv2/mk_niah_medium/mbpp", TaskOptions(scoring="lenient"))
    assert (task.domain, task.level, task.metric, task.executes_code) == ("mk_niah", "medium", RULER_CODE_METRIC, True)
    assert task.references(row("medium")) == ["\n".join(REMOVE_OCC["test_list"])]


# --- Opt-in ---------------------------------------------------------------------------------------------


def test_running_code_needs_permission():
    """Without ``allow_code_execution`` the task refuses to score, and a run or re-scoring stops first."""
    task = get_task("rulerv2/mk_niah_hard/mbpp", TaskOptions())
    with pytest.raises(SpecError, match="--allow-code-execution"):
        task.score(GOOD, task.references(row("hard")))
    with pytest.raises(SpecError, match=r"^rulerv2/mk_niah_hard/mbpp scores answers by running the model's code"):
        refuse_code_execution([get_task("rulerv2/mk_niah_easy/mbpp", TaskOptions()), task], allowed=False)
    refuse_code_execution([task], allowed=True)
    refuse_code_execution([get_task("rulerv2/mk_niah_easy/mbpp", TaskOptions())], allowed=False)


def test_permission_is_never_read_back_from_a_run_file():
    record = asdict(TaskOptions(allow_code_execution=True, code_timeout_s=3.0))
    assert record["allow_code_execution"] is True  # recorded, as provenance
    restored = TaskOptions.from_record(record)
    assert restored.allow_code_execution is False and restored.code_timeout_s == 3.0


# --- A built release through python -m eval ------------------------------------------------------------


@pytest.fixture(scope="module")
def release(tmp_path_factory, cl100k) -> Path:
    root = tmp_path_factory.mktemp("mbpp-eval")
    out = root / "rulerv2"
    spec = RulerV2Build(tasks=("mk_niah_medium", "mk_niah_hard"), lengths=(640,), generation_reserve=40, samples=2,
                        shots=1, mk_base="mbpp", mk_source=str(mbpp_file(root / "mbpp.jsonl")))
    build(spec, out, tokens=cl100k, progress=False)
    return out


def script_for(release: Path) -> Script:
    """Even rows answer with the reference code in a python block, odd rows with a function that never returns."""
    answers = {}
    for config in ("mk_niah_medium", "mk_niah_hard"):
        for i, row_ in enumerate(open_release(str(release)).iter_rows(config, "test")):
            name = row_["test_list"][0].split()[1].split("(")[0]
            wrong = f"def {name}(*args):\n    while True:\n        pass"
            reply = fenced(row_["answers"][0] if i % 2 == 0 else wrong)
            answers[prompt_digest([{"role": "user", "content": row_["input"]}])] = (row_["id"], [reply])
    return Script(answers=answers)


def run_args(release: Path, server_url: str, out: Path, *extra: str) -> list[str]:
    return ["run", "--dataset", str(release), "--config", "mk_niah_medium,mk_niah_hard", "--split", "test",
            "--backend", "openai", "--base-url", server_url, "--model", "stub-model", "--output-dir", str(out),
            "--no-progress", *extra]


def test_a_run_without_permission_sends_nothing(release, tmp_path):
    script = script_for(release)
    with stub_server(script) as server:
        result = CliRunner().invoke(main, run_args(release, server.base_url, tmp_path / "run"),
                                    env={"OPENAI_API_KEY": "test-key"})
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        "error: rulerv2/mk_niah_hard/mbpp scores answers by running the model's code: pass --allow-code-execution to "
        "run it (a separate Python process with a timeout and resource limits; not a security sandbox)")
    assert sum(script.attempts.values()) == 0 and not (tmp_path / "run" / "samples.jsonl").exists()


def test_an_mbpp_release_scores_through_eval(release, tmp_path):
    """Reference code passes (1), a function that never returns times out (0); ``score`` re-runs the tests
    only with the flag again; each sample's outcome is its secondary scores."""
    out = tmp_path / "run"
    with stub_server(script_for(release)) as server:
        result = CliRunner().invoke(main, run_args(release, server.base_url, out, "--allow-code-execution",
                                                   "--code-timeout", "0.5"), env={"OPENAI_API_KEY": "test-key"})
    assert result.exit_code == 0, result.output
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert {c: s["score"] for c, s in results["scores"]["by"]["config"].items()} == {"mk_niah_medium": 0.5,
                                                                                     "mk_niah_hard": 0.5}
    assert set(results["scores"]["by"]["task"]) == {"rulerv2/mk_niah_medium/mbpp", "rulerv2/mk_niah_hard/mbpp"}
    assert results["scores"]["metric"] == RULER_CODE_METRIC
    assert results["run"]["task_options"]["code_timeout_s"] == 0.5

    refused = CliRunner().invoke(main, ["score", str(out)])
    assert refused.exit_code == 2 and "--allow-code-execution" in refused.output
    rescored = CliRunner().invoke(main, ["score", str(out), "--allow-code-execution"])
    assert rescored.exit_code == 0, rescored.output
    assert json.loads((out / "results.json").read_text(encoding="utf-8"))["scores"]["overall"] == results["scores"]["overall"]

    directory = RunDirectory(out)
    saved = directory.read_run()
    samples = score_samples(saved["expected"], directory.latest_samples(), FAST)
    outcomes = sorted(next(name for name, flag in s.extra.items() if flag == 1.0) for s in samples)
    assert outcomes == ["passed"] * 2 + ["timeout"] * 2


def test_rescoring_answers_executed_code_from_the_runs_log(release, tmp_path, monkeypatch):
    """The run directory's ``executions.jsonl`` remembers how each solution ran, so re-scoring runs only the
    timed-out ones again (a timeout may be the machine's load), and scores the same; without the log, all run."""
    out = tmp_path / "run"
    with stub_server(script_for(release)) as server:
        result = CliRunner().invoke(main, run_args(release, server.base_url, out, "--allow-code-execution",
                                                   "--code-timeout", "0.5"), env={"OPENAI_API_KEY": "test-key"})
    assert result.exit_code == 0, result.output
    log = [json.loads(line) for line in (out / "executions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert log and {record["outcome"] for record in log} == {"passed"}
    first = json.loads((out / "results.json").read_text(encoding="utf-8"))["scores"]
    directory = RunDirectory(out)
    samples = score_samples(directory.read_run()["expected"], directory.latest_samples(), FAST)
    ran: list[str] = []
    real = code_execution._execute
    monkeypatch.setattr(code_execution, "_execute", lambda code, tests, timeout: ran.append(code) or real(code, tests, timeout))
    assert score_run(out, allow_code_execution=True)["scores"] == first
    assert sorted(ran) == sorted(s.prediction for s in samples if s.extra["timeout"] == 1.0) and len(ran) == 2
    (out / "executions.jsonl").unlink()
    ran.clear()
    assert score_run(out, allow_code_execution=True)["scores"] == first
    assert len(ran) == len(samples) == 4


def test_counting_prompts_runs_no_code_and_needs_no_permission(release):
    """``python -m eval count`` only renders prompts, so an MBPP release counts without the flag."""
    result = CliRunner().invoke(main, ["count", "--dataset", str(release), "--config", "mk_niah_medium,mk_niah_hard"])
    assert result.exit_code == 0, result.output
    assert "mk_niah_hard" in result.output and "total" in result.output
