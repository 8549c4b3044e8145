"""Which scorer makes a Sequential-NIAH run's headline (paper §4-5: accuracy is the judge's verdict): on a BUILT
release, a run never judged is reported as scored by the rule matcher; after ``python -m eval judge --model M``
the report's accuracy, groups and Table 5 are M's verdicts, the rule matcher's accuracy and agreement stand beside
them, and the paper's §5.2 accuracies, Table 2 and Table 5 rows follow in italics (the run covers the ``default``
test split and the noise configs, the paper's setups)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import needlework.backends
from builders.sequential_niah import SequentialNiahBuild, build
from eval.benchmarks.sequential_niah.report import sequential_niah_section, summary
from eval.cli import main
from eval.judge import judge_run
from eval.release import open_release
from eval.report import write_report
from eval.report_runs import load_runs
from eval.runner import RunSpec, run
from tests.support.scripted import ScriptedBackend

CONFIGS = ("default", "noise-reorder", "noise-tiny-movement")
JUDGE = "judge-7b"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A small built release, a model that lists the reference items in reverse order for the first original
    and its variants (wrong where order is asked) and in order otherwise, and its run directory."""
    root = tmp_path_factory.mktemp("seq-scorer")
    spec = SequentialNiahBuild(size=24, buckets=("4k-7k",), noise_samples=2, judge_train=8, judge_test=8,
                               world_docs=200, seed=3)
    build(spec, root / "release", progress=False)
    release = open_release(str(root / "release"))
    rows = [row for config in CONFIGS for row in release.iter_rows(config, "test")]
    first = min(row["id"] for row in rows if row["variant"] == "original" and row["ordered"] and len(row["answers"]) > 1)
    answers = {row["input"]: "\n".join(f"{n}. {item}" for n, item in enumerate(
        reversed(row["answers"]) if (row["original_id"] or row["id"]) == first else row["answers"], 1)) for row in rows}
    outcome = run(RunSpec(dataset=str(root / "release"), configs=CONFIGS, model="model-x", backend="vllm",
                          output_dir=root / "run"), backend=ScriptedBackend(lambda content: answers[content]),
                  progress=False)
    return {"root": root, "rows": rows, "run_dir": outcome.run_dir, "first": first, "results": outcome.results}


def always_correct(_: str) -> str:
    """A lenient judge: every answer is correct (it never checks order)."""
    return '```json\n{"order_analysis": "-", "eval_analysis": "looks right", "eval_label": "correct"}\n```'


def test_a_run_never_judged_is_scored_by_the_rule_matcher(runs):
    runs_ = load_runs([runs["run_dir"]])
    block = summary(runs_[0])
    assert block["scored_by"] == "rule matcher"
    originals = [r for r in runs["rows"] if r["variant"] == "original"]
    # the reversed answer to an ordered question is the one the rule matcher calls wrong
    assert block["overall"]["accuracy"] == round(1 - 1 / len(originals), 6)
    text = "\n".join(sequential_niah_section(runs_, {}))
    assert f"| model-x | rule matcher | {100 * block['overall']['accuracy']:.2f} | {len(originals)} | 0 | — | — | — |" in text
    assert "| *Gemini-1.5 (paper, §5.2)* | *the paper's evaluation model* | *63.15* | *2,000* |" in text
    assert "| *Qwen-2.5 (paper, §5.2)* | *the paper's evaluation model* | *51.10* | *2,000* |" in text


def test_a_judged_run_is_scored_by_the_judge_model_named_in_the_report(runs, tmp_path, monkeypatch):
    run_dir = tmp_path / "run"
    shutil.copytree(runs["run_dir"], run_dir)
    monkeypatch.setattr(needlework.backends, "backend_for", lambda name, model, **_: ScriptedBackend(always_correct))
    result = CliRunner().invoke(main, ["judge", str(run_dir), "--model", JUDGE, "--base-url", "http://127.0.0.1:9/v1"])
    assert result.exit_code == 0, result.output
    loaded = load_runs([run_dir])
    block = summary(loaded[0])
    originals = [r for r in runs["rows"] if r["variant"] == "original"]
    rule = summary(load_runs([runs["run_dir"]])[0])["overall"]["accuracy"]
    assert block["scored_by"] == JUDGE
    assert block["overall"] == {"accuracy": 1.0, "n": len(originals), "n_errors": 0}  # the judge's verdicts
    assert block["rule"] == {"accuracy": rule, "n": len(originals), "not_judged": 0}
    assert block["judge"]["agreement"] == rule < 1.0  # it disagrees exactly where the rule matcher said wrong
    assert block["noise"]["all"]["acc"] == 1.0 and block["noise"]["all"]["cons"] == 1.0
    report = write_report([run_dir], tmp_path / "report").markdown.read_text(encoding="utf-8")
    assert f"| model-x | {JUDGE} | 100.00 | {len(originals)} | 0 | {100 * rule:.2f} | {100 * rule:.2f} | 0 |" in report
    assert f"| model-x | {JUDGE} | Acc. | 100.00 |" in report
    assert "| *Gemini-1.5 (paper)* | *the paper's evaluation model* | *Acc.* | *62.50* | *65.00* |" in report
    en = sum(r["lang"] == "en" for r in originals)
    assert f"| model-x (test) | {en} | {len(originals) - en} | {len(originals)} |" in report
    assert "| *test (paper, Table 2)* | *1,085* | *915* | *2,000* |" in report


def test_judge_accuracy_candidates_are_never_judged_as_answers(runs, tmp_path):
    """``eval judge`` grades the benchmark's answers; a judge-accuracy run's verdicts are its samples, not answers."""
    spec = RunSpec(dataset=str(runs["root"] / "release"), configs=("judge-test",), model="j", backend="vllm",
                   output_dir=tmp_path / "judged")
    outcome = run(spec, backend=ScriptedBackend(always_correct), progress=False)
    assert outcome.results["scores"]["sequential-niah"]["judge_accuracy"]["overall"]["n"] == 8
    assert judge_run(outcome.run_dir, ScriptedBackend(lambda _: pytest.fail("a candidate was judged"))) == {}


def test_a_report_of_saved_results_alone_says_the_rule_matcher_scored_it(runs, tmp_path):
    """Results copied without the run directory's samples (a results file shared on its own)."""
    folder = tmp_path / "results-only"
    folder.mkdir()
    shutil.copy(Path(runs["run_dir"]) / "results.json", folder / "results.json")
    assert summary(load_runs([folder])[0])["scored_by"] == "rule matcher"
