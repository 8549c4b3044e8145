"""Scaling width (RULERv2 Appendix D.3, Figure 7 bottom): ``--generations K`` asks every row K times and the
results add the mean, the maximum and the majority over 1..K responses per row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import eval.runner
from eval.cli import main
from eval.judge import judge_run
from eval.results import width_scores
from eval.runner import RunSpec, run
from eval.scored import ScoredSample
from tests.eval.test_judge import ROWS, SCHEMA, registered  # noqa: F401 - the toy benchmark with a 0-5 judge
from tests.support.releases import write_test_release
from tests.support.scripted import ScriptedBackend


def sample(key: str, score: float | None, error: str | None = None, prediction: str | None = None) -> ScoredSample:
    return ScoredSample(key, "c", "t", {}, score, error, prediction=prediction)


def test_average_maximum_and_majority_per_k_are_exact():
    # Row r1: answers x (0), y (1), x (0); row r2: z (1), z (1), a failed response (0, no answer).
    expected = [{"config": "c", "row_id": r, "generation": g, "key": f"{r}{g}"} for r in ("r1", "r2") for g in range(3)]
    predictions = ["x", "y", "x", "z", "z", None]
    scored = [sample(f"{r}{g}", score, error, answer) for (r, g), score, error, answer in zip(
        [(r, g) for r in ("r1", "r2") for g in range(3)], [0.0, 1.0, 0.0, 1.0, 1.0, 0.0],
        [None] * 5 + ["timeout"], predictions)]
    width = width_scores(expected, scored)
    assert width == {"k": [1, 2, 3], "average": [0.5, 0.75, 0.5], "maximum": [0.5, 1.0, 1.0],
                     "majority": [0.5, 0.5, 0.5], "rows": [2, 2, 2]}
    # k = 2 for r1: x and y tie once each, the one given first (x, 0) wins; k = 3: x twice.


def test_rows_asked_once_have_no_width():
    assert width_scores([{"config": "c", "row_id": "r", "key": "k"}], [sample("k", 1.0, prediction="a")]) is None


@pytest.mark.usefixtures("registered")
def test_generations_are_distinct_samples_with_their_own_seeds_and_resume(tmp_path: Path):
    release = write_test_release(tmp_path / "release", {"benchmark": "toy"}, SCHEMA, {"test": ROWS[:2]})
    spec = RunSpec(dataset=str(release), configs=("test",), model="m", backend="vllm", generations=3,
                   generation={"temperature": 0.7}, output_dir=tmp_path / "run")
    backend = ScriptedBackend(lambda content: "A0")
    outcome = run(spec, backend=backend, progress=False)
    assert sorted(g["seed"] for g in backend.generations) == [0, 0, 1, 1, 2, 2]
    saved = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert [(e["row_id"], e["generation"]) for e in saved["expected"]] == [(f"r{i}", g) for i in range(2) for g in range(3)]
    assert len({e["key"] for e in saved["expected"]}) == 6 and saved["run"]["generations"] == 3
    assert outcome.results["width"]["k"] == [1, 2, 3] and outcome.results["width"]["rows"] == [2, 2, 2]
    again = run(spec, backend=ScriptedBackend(lambda content: "never asked"), progress=False)
    assert again.new_samples == 0 and again.skipped_done == 6
    judge = ScriptedBackend(lambda content: "4")
    verdicts = judge_run(tmp_path / "run", judge)
    assert len(verdicts) == len(judge.prompts) == 6  # each response judged, not one per row


@pytest.mark.usefixtures("registered")
def test_the_cli_prints_the_width_curves(tmp_path: Path, monkeypatch):
    release = write_test_release(tmp_path / "release", {"benchmark": "toy"}, SCHEMA, {"test": ROWS[:1]})
    monkeypatch.setattr(eval.runner, "make_backend", lambda spec, release=None: ScriptedBackend(lambda content: "A0"))
    result = CliRunner().invoke(main, ["run", "--dataset", str(release), "--config", "test", "--model", "m",
                                       "--backend", "vllm", "--generations", "2", "--output-dir", str(tmp_path / "run"),
                                       "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "  maximum over 1..2 responses: " in result.output
