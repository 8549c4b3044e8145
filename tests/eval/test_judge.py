"""The LLM judge is general: a benchmark that declares its own rubric (here a toy one grading 0-5, as
EverMemBench-S will) is run, judged through a scripted backend, resumed, and read back; a run of a
benchmark without a rubric is refused in one line that names the benchmarks that have one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import eval.benchmarks as registry
import eval.judge
import eval.results
import needlework.backends
from eval.benchmark import Benchmark
from eval.cli import main
from eval.judge import judge_run
from eval.rubric import LlmJudge, Verdict, read_verdicts
from eval.runner import RunSpec, run
from eval.store import RunDirectory
from needlework.backends.base import Outcome, SampleError
from needlework.errors import SpecError
from tests.support.releases import write_test_release
from tests.support.scripted import ScriptedBackend
from tests.support.toy_task import TOY_ROWS as ROWS
from tests.support.toy_task import TOY_SCHEMA as SCHEMA
from tests.support.toy_task import EchoTask, ScaleRubric


RUBRIC = ScaleRubric()
TOY = Benchmark(id="toy", tasks={"toy/echo": lambda options: EchoTask("toy/echo", options)},
                task_for_row=lambda row: "toy/echo", summarize=lambda samples: {"n": len(samples)}, judge=RUBRIC)


@pytest.fixture()
def registered(monkeypatch) -> Benchmark:
    """TOY added to the registry (its table and what is derived from it) for one test."""
    monkeypatch.setitem(registry.BY_ID, TOY.id, TOY)
    monkeypatch.setitem(registry.TASKS, "toy/echo", TOY.tasks["toy/echo"])
    monkeypatch.setitem(registry.BENCHMARK_OF_TASK, "toy/echo", TOY)
    for module in (eval.results, eval.judge):
        monkeypatch.setattr(module, "BENCHMARKS", (*registry.BENCHMARKS, TOY))
    return TOY


def model_answer(content: str) -> str | Outcome:
    index = int(content.split(".")[0].removeprefix("Context "))
    if index == 3:  # a sample without an answer is not judged
        return Outcome("", None, error=SampleError("bad_request", "rejected", 400))
    return f"<think>thinking about {index}</think>A{index}"


def grade(content: str) -> str:
    answer = content.split("Answer: ", 1)[1].split("\n", 1)[0]
    return {"A0": " 4\n", "A1": "4 or 5"}.get(answer, "5")


@pytest.fixture()
def toy_run(registered, tmp_path: Path) -> Path:
    release = write_test_release(tmp_path / "release", {"benchmark": "toy"}, SCHEMA, {"test": ROWS})
    spec = RunSpec(dataset=str(release), configs=("test",), model="toy-model", backend="vllm", output_dir=tmp_path / "run")
    outcome = run(spec, backend=ScriptedBackend(model_answer), progress=False)
    assert outcome.results["scores"]["toy"] == {"n": 4}  # the summary block of a registered benchmark
    assert outcome.results["counts"]["answered"] == 3
    return outcome.run_dir


def test_a_benchmark_with_its_own_rubric_is_judged_and_resumes(toy_run: Path):
    def first_pass(content: str) -> str | Outcome:
        if "Answer: A2" in content:  # a transient failure: retried by the next judge run
            return Outcome("", None, error=SampleError("timeout", "no answer in time"))
        return grade(content)

    judge = ScriptedBackend(first_pass)
    keys = {json.loads(line)["row_id"]: json.loads(line)["key"]
            for line in RunDirectory(toy_run).samples_file.read_text(encoding="utf-8").splitlines()}
    verdicts = judge_run(toy_run, judge)
    assert judge.closed == 1 and len(judge.prompts) == 3  # r3 has no answer: not judged
    assert "Question: Question 0?\nAnswer: A0\n" in judge.prompts[0]  # the extracted answer, reasoning removed
    assert verdicts[keys["r0"]] == Verdict(keys["r0"], " 4\n", 4, 0.8)
    assert verdicts[keys["r1"]] == Verdict(keys["r1"], "4 or 5", None, None)
    assert verdicts[keys["r2"]].error == "no answer in time" and verdicts[keys["r2"]].value is None
    records = [json.loads(line) for line in RunDirectory(toy_run).judge_file.read_text(encoding="utf-8").splitlines()]
    assert [sorted(r) for r in records] == [["config", "error", "key", "raw", "row_id", "verdict"]] * 3
    assert {r["row_id"]: r["verdict"] for r in records} == {"r0": 4, "r1": None, "r2": None}

    again = ScriptedBackend(grade)
    verdicts = judge_run(toy_run, again)
    assert again.prompts == ["Question: Question 2?\nAnswer: A2\nGrade 0-5."]  # only the transient failure
    assert verdicts[keys["r2"]] == Verdict(keys["r2"], "5", 5, 1.0)
    assert read_verdicts(RunDirectory(toy_run), RUBRIC) == verdicts
    done = ScriptedBackend(lambda content: pytest.fail("a judged sample was judged again"))
    assert judge_run(toy_run, done) == verdicts


def test_llm_judge_applies_any_rubric():
    judge = LlmJudge(RUBRIC, lambda messages: " 3 " if "Answer: yes" in messages[0]["content"] else "three")
    assert judge.judge({"question": "Q?"}, "yes", key="k") == Verdict("k", " 3 ", 3, 0.6)
    assert judge.score({"question": "Q?"}, "no") == 0.0  # unreadable: no verdict, scores 0


def test_judge_command_reports_the_rubric_s_verdicts(toy_run: Path, monkeypatch):
    monkeypatch.setattr(needlework.backends, "backend_for", lambda *args, **kwargs: ScriptedBackend(grade))
    result = CliRunner().invoke(main, ["judge", str(toy_run), "--model", "grader", "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 0, result.output
    assert result.output == f"{toy_run}: 3 judged, 1 correct (full marks), mean score 0.900 of 1, 1 without a verdict ({toy_run / 'judge.jsonl'})\n"


def test_a_run_of_a_benchmark_without_a_judge_is_refused_in_one_line(tmp_path: Path, monkeypatch):
    run_dir = tmp_path / "ruler-run"
    RunDirectory(run_dir).write_run({"run": {}, "provenance": {"benchmark": "rulerv2"}, "expected": []})
    with pytest.raises(SpecError) as caught:
        judge_run(run_dir, ScriptedBackend(lambda content: pytest.fail("nothing to judge")))
    assert str(caught.value) == f"{run_dir}: rulerv2 has no LLM judge; benchmarks with one: sequential-niah, embs"
    monkeypatch.setattr(needlework.backends, "backend_for", lambda *args, **kwargs: pytest.fail("no backend is needed"))
    result = CliRunner().invoke(main, ["judge", str(run_dir), "--model", "grader", "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "rulerv2 has no LLM judge; benchmarks with one: sequential-niah, embs" in result.output
