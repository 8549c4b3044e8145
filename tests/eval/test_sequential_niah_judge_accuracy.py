"""``python -m eval judge-accuracy`` (paper §5.1, Tables 4 and 6): a scripted judge on loopback over a BUILT
``judge-test`` config gets exactly the accuracy table its script implies, computed here from the script's rule
and the release's labels alone; an interrupted measurement resumes; the report and the printout show Tables 3, 4
and 6 beside the paper's.

The scripted judge answers in the paper's Figure 10/11 JSON (``eval_label``, 正确/错误 in Chinese). Its rule: a
candidate with as many items as the reference is "correct", else "incorrect" (a judge that counts and never reads
order or content); about one candidate in seven (by a hash of its id) gets a reply without a label; one candidate's
request is refused for good (HTTP 400). The official repository (miraclefish/Sequential-NIAH-Benchmark) publishes
no judge code; the prompts and the labels' rule are the paper's (Figures 10-11, Appendix A)."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from click.testing import CliRunner

from builders.sequential_niah import SequentialNiahBuild, build
from eval.benchmarks.sequential_niah.judge_accuracy import JUDGE_TASK
from eval.cli import main
from eval.judge_accuracy import judge_accuracy
from eval.release import open_release
from eval.runner import RunSpec
from eval.store import RunDirectory
from needlework.errors import SpecError
from tests.support.releases import serve_app

JUDGE = "scripted-judge"
UNREADABLE = "I have read both answers and will not commit to a verdict."
PAPER_TABLE4 = {"| Temporal order | GT |": "| *241* | *85.06* | *90.87* | *95.85* |",
                "| Logical order | Incorrect |": "| *246* | *82.11* | *100.00* | *100.00* |",
                "| Total/Avg. |": "| *1,960* | *87.09* | *96.07* | *99.49* |"}
"""Row start -> the paper's Table 4 cells ending that row (No., Claude-3.5, GPT-4o, Ours)."""


def scripted_verdict(row: Mapping[str, Any]) -> str:
    """The script's rule: "unreadable" for about one candidate in seven, else the item-count verdict."""
    if int(hashlib.sha256(row["id"].encode("utf-8")).hexdigest(), 16) % 7 == 3:
        return "unreadable"
    return "correct" if len(row["candidate_items"]) == len(row["answers"]) else "incorrect"


def reply(row: Mapping[str, Any], verdict: str) -> str:
    """The judge's text for a verdict, in the Figure 10/11 JSON of the row's language."""
    if verdict == "unreadable":
        return UNREADABLE
    label = {"correct": "正确", "incorrect": "错误"}[verdict] if row["lang"] == "zh" else verdict
    order = '"order_analysis": "checked", ' if row["order_type"] == "temporal" else ""
    return f'```json\n{{{order}"eval_analysis": "I counted the items.", "eval_label": "{label}"}}\n```'


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small Sequential-NIAH release on the synthetic world with 48 judge-test candidates."""
    spec = SequentialNiahBuild(size=12, buckets=("4k-7k",), noise_samples=1, judge_train=8, judge_test=48,
                               world_docs=200, seed=3)
    out = tmp_path_factory.mktemp("seq-judge") / "sequential-niah"
    build(spec, out, progress=False)
    return out


@pytest.fixture(scope="module")
def rows(release: Path) -> list[dict[str, Any]]:
    return list(open_release(str(release)).iter_rows("judge-test", "test"))


class Judge:
    """The scripted judge's state: which prompts it saw, which rows are down (503) or refused (400)."""

    def __init__(self, rows: Sequence[Mapping[str, Any]]) -> None:
        self.by_prompt = {hashlib.sha256(r["prompt"].encode("utf-8")).hexdigest(): r for r in rows}
        self.refused = min(r["id"] for r in rows)
        self.down: set[str] = set()
        self.asked: list[str] = []

    def app(self) -> web.Application:
        async def chat(request: web.Request) -> web.Response:
            payload = await request.json()
            content = payload["messages"][-1]["content"]
            row = self.by_prompt.get(hashlib.sha256(content.encode("utf-8")).hexdigest())
            if row is None:  # not the release's judge prompt: the judge was asked something else
                return web.json_response({"error": {"message": "unknown prompt"}}, status=422)
            self.asked.append(row["id"])
            if row["id"] == self.refused:
                return web.json_response({"error": {"message": "the judge refuses this one"}}, status=400)
            if row["id"] in self.down:
                return web.json_response({"error": {"message": "overloaded"}}, status=503)
            text = reply(row, scripted_verdict(row))
            return web.json_response({"id": "x", "object": "chat.completion", "model": payload["model"],
                                      "choices": [{"index": 0, "finish_reason": "stop",
                                                   "message": {"role": "assistant", "content": text}}],
                                      "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", chat)
        return app


@contextmanager
def serving(judge: Judge) -> Iterator[str]:
    with serve_app(judge.app()) as base_url:
        yield base_url


def expected_tables(rows: Sequence[Mapping[str, Any]], refused: str) -> dict[str, Any]:
    """Tables 4 and 6 worked out from the script's rule and the labels, without the code under test."""
    cells: dict[tuple[str, bool, str, bool], Counter] = defaultdict(Counter)
    table4: dict[tuple[str, str], Counter] = defaultdict(Counter)
    langs: dict[str, Counter] = defaultdict(Counter)
    for row in rows:
        verdict = "errors" if row["id"] == refused else scripted_verdict(row)
        right = verdict == row["label"]
        cells[(row["order_type"], row["ordered"], row["group"], row["shuffled"])].update({verdict: 1, "n": 1})
        for counter in (table4[(row["order_type"], row["group"])], langs[row["lang"]]):
            counter.update({"n": 1, "right": int(right)})
    right = sum(c["right"] for c in table4.values())
    return {
        "cells": {key: (c["n"], c["incorrect"], c["correct"], c["unreadable"], c["errors"]) for key, c in cells.items()},
        "table4": {key: (c["n"], c["right"], round(c["right"] / c["n"], 6)) for key, c in table4.items()},
        "overall": (len(rows), right, round(right / len(rows), 6),
                    sum(c["unreadable"] for c in cells.values()), 1),
        "langs": {lang: (c["n"], c["right"]) for lang, c in langs.items()},
    }


def as_expected(block: Mapping[str, Any]) -> dict[str, Any]:
    """The code's block in the shape of :func:`expected_tables`."""
    return {
        "cells": {(c["order_type"], c["ordered"], c["group"], c["shuffled"]):
                  (c["n"], c["incorrect"], c["correct"], c["unreadable"], c["errors"]) for c in block["table6"]},
        "table4": {(r["order_type"], r["group"]): (r["n"], r["right"], r["accuracy"]) for r in block["table4"]},
        "overall": tuple(block["overall"][k] for k in ("n", "right", "accuracy", "unreadable", "errors")),
        "langs": {lang: (v["n"], v["right"]) for lang, v in block["by_lang"].items()},
    }


def spec_for(release: Path, base_url: str, out: Path, **overrides: Any) -> RunSpec:
    """The run ``python -m eval judge-accuracy`` makes for these options (same sample keys)."""
    return RunSpec(dataset=str(release), configs=("judge-test",), model=JUDGE, base_url=base_url, split="test",
                   output_dir=out, **overrides)


@pytest.fixture(scope="module")
def measured(release: Path, rows: list[dict[str, Any]], tmp_path_factory) -> dict[str, Any]:
    """A first pass with three candidates' requests failing (503, not retried), then the CLI resuming it."""
    judge = Judge(rows)
    judge.down = {r["id"] for r in rows[5:8]}
    out = tmp_path_factory.mktemp("judge-run") / "run"
    with serving(judge) as base_url:
        first = judge_accuracy(spec_for(release, base_url, out, max_retries=0, max_error_rate=1.0), progress=False)
        first_asked = list(judge.asked)
        judge.down, judge.asked = set(), []
        result = CliRunner().invoke(main, ["judge-accuracy", "--dataset", str(release), "--model", JUDGE,
                                           "--base-url", base_url, "--output-dir", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    return {"first": first, "first_asked": first_asked, "resumed_asked": judge.asked, "output": result.output,
            "out": out, "refused": judge.refused}


def test_the_fixture_exercises_every_kind_of_verdict(rows):
    """The built judge-test has both labels, shuffled and unshuffled GT, both needle types and both languages, and
    the script gives correct, incorrect and unreadable verdicts and misjudges some candidates."""
    verdicts = Counter(scripted_verdict(r) for r in rows)
    assert len(rows) == 48 and set(verdicts) == {"correct", "incorrect", "unreadable"}
    assert {r["label"] for r in rows} == {"correct", "incorrect"} and {r["lang"] for r in rows} == {"en", "zh"}
    assert {r["order_type"] for r in rows} == {"temporal", "logical"}
    assert {(r["group"], r["shuffled"]) for r in rows if r["group"] == "gt"} == {("gt", False), ("gt", True)}
    assert any(scripted_verdict(r) == "correct" and r["label"] == "incorrect" for r in rows)


def test_a_scripted_judge_gets_exactly_the_table_its_script_implies(measured, rows):
    results = RunDirectory(measured["out"]).read_results()
    block = results["scores"]["sequential-niah"]["judge_accuracy"]
    assert as_expected(block) == expected_tables(rows, measured["refused"])
    assert results["complete"] and results["reportable"]
    assert set(results["scores"]["by"]["task"]) == {JUDGE_TASK}


def test_the_judge_is_asked_the_release_prompts_and_an_interrupted_run_resumes(measured, rows):
    """Every candidate is asked once with the release's own Figure 10/11 prompt (an unknown prompt would be a 422
    and fail the table); the resumed run asks only the three that failed transiently."""
    assert sorted(measured["first_asked"]) == sorted(r["id"] for r in rows)
    assert sorted(measured["resumed_asked"]) == sorted(r["id"] for r in rows[5:8])
    first = measured["first"].block
    # before the resume the three count as failed requests (misjudged), as a run's errors count 0 until retried
    assert (first["overall"]["n"], first["overall"]["errors"]) == (len(rows), 1 + 3)


def test_the_command_prints_and_writes_tables_4_and_6_beside_the_paper(measured, rows):
    expected = expected_tables(rows, measured["refused"])
    n, right, accuracy, unreadable, _ = expected["overall"]
    output = measured["output"]
    assert output.startswith(f"judge {JUDGE}: accuracy {100 * accuracy:.2f}% on {n} labelled candidates ({right} "
                             f"verdicts equal to the label; {unreadable} unreadable, 1 failed requests)")
    for (order_type, group), (cell_n, _, cell_accuracy) in expected["table4"].items():
        line = (f"| {order_type.capitalize()} order | {group.upper() if group == 'gt' else group.capitalize()} | {cell_n} "
                f"| {100 * cell_accuracy:.2f} |")
        assert line in output, line
    for start, paper in PAPER_TABLE4.items():
        assert any(line.startswith(start) and line.endswith(paper) for line in output.splitlines()), start
    assert "| *Ours (paper)* | *Temporal order* | *w/o order* | *0 / 48* | *8 / 44* |" in output
    report = (measured["out"] / "report.md").read_text(encoding="utf-8")
    assert "### Judge accuracy on labelled candidates (Tables 3, 4 and 6)" in report
    assert "| *test (paper, Table 3)* | *984* | *967* | *1,960* |" in report
    en, zh = expected["langs"]["en"][0], expected["langs"]["zh"][0]
    assert f"| {JUDGE} | {en} | {zh} | {n} |" in report
    assert str(RunDirectory(measured["out"]).results_file) in output and str(measured["out"] / "report.md") in output


def test_table_6_marks_misjudged_counts_and_unreadable_verdicts(measured, rows):
    """A cell's misjudged side is bold (the paper's red font); unreadable verdicts and refusals are said apart."""
    expected = expected_tables(rows, measured["refused"])
    labels = {(r["order_type"], r["ordered"], r["group"], r["shuffled"]): r["label"] for r in rows}
    for key, (_, incorrect, correct, unreadable, errors) in expected["cells"].items():
        misjudged = "correct" if labels[key] == "incorrect" else "incorrect"
        shown = [f"**{count}**" if side == misjudged and count else str(count)
                 for side, count in (("incorrect", incorrect), ("correct", correct))]
        notes = [f"{unreadable} unreadable"] * bool(unreadable) + [f"{errors} failed"] * bool(errors)
        suffix = f" ({', '.join(notes)})" if notes else ""
        assert f"| {' / '.join(shown)}{suffix} |" in measured["output"], key


def test_judge_accuracy_refuses_a_config_that_is_not_judge_data(release, tmp_path):
    with pytest.raises(SpecError, match="judge accuracy runs on judge data"):
        judge_accuracy(RunSpec(dataset=str(release), configs=("default",), model=JUDGE, base_url="http://127.0.0.1:9/v1",
                               output_dir=tmp_path / "x"), progress=False)
    result = CliRunner().invoke(main, ["judge-accuracy", "--dataset", str(release), "--config", "default",
                                       "--model", JUDGE, "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code != 0 and "judge accuracy runs on judge data (judge-test, judge-train), not default" in \
        result.output and result.output.count("\n") == 1, result.output


def test_the_default_run_directory_is_apart_from_the_judges_benchmark_runs(release, rows, tmp_path, monkeypatch):
    """``eval-runs/<release>/<judge>-judge-test``: never the directory of the same model's benchmark run."""
    monkeypatch.chdir(tmp_path)
    judge = Judge(rows)
    with serving(judge) as base_url:
        outcome = judge_accuracy(spec_for(release, base_url, None, limit=4), progress=False)
    assert outcome.run_dir.parts[0] == "eval-runs" and outcome.run_dir.name == f"{JUDGE}-judge-test"
    assert outcome.block["overall"]["n"] == 4
