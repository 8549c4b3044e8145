"""The run status in report.md: plain words for how far a run got, how to finish it, and whether it counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from eval.report import run_status, write_report
from eval.runner import ErrorBudgetExceeded, RunSpec, run
from needlework.backends.base import Outcome, SampleError
from tests.support.releases import CONFIGS, TOTAL_ROWS, eval_release  # noqa: F401 - eval_release is a fixture
from tests.support.scripted import ScriptedBackend

LIMIT_REASON = "--limit 3: only the first rows of each config were run"


def results(**fields: Any) -> dict[str, Any]:
    """The status fields of a results.json, complete and reportable unless ``fields`` say otherwise."""
    base = {"complete": True, "reportable": True, "not_reportable_because": [], "stopped": None,
            "counts": {"expected": 300, "answered": 300, "errors": {}, "missing": 0}}
    return {**base, **fields}


@pytest.mark.parametrize(("fields", "status"), [
    ({}, "complete (all 300 samples answered); reportable"),
    ({"reportable": False, "not_reportable_because": [LIMIT_REASON]},
     f"complete (all 300 samples answered); not reportable: {LIMIT_REASON}"),
    ({"counts": {"expected": 300, "answered": 297, "errors": {"context_length": 3}, "missing": 0}},
     "complete (297 of 300 samples answered; the other 3 failed and score 0); reportable"),
    ({"complete": False, "reportable": False, "stopped": "401 Unauthorized: check the API key",
      "not_reportable_because": ["28 of 40 samples have no answer yet; re-run to resume"],
      "counts": {"expected": 40, "answered": 12, "errors": {}, "missing": 28}},
     "stopped after 12 of 40 samples: 401 Unauthorized: check the API key; re-run the same command to resume; "
     "not reportable"),
    ({"complete": False, "reportable": False,
      "not_reportable_because": [LIMIT_REASON, "2 of 6 samples have no answer yet; re-run to resume"],
      "counts": {"expected": 6, "answered": 4, "errors": {}, "missing": 2}},
     f"incomplete: 4 of 6 samples done; re-run the same command to resume; not reportable: {LIMIT_REASON}"),
    ({"counts": {}}, "complete; reportable"),
])
def test_status_wording(fields: dict[str, Any], status: str) -> None:
    assert run_status(results(**fields)) == status


def test_results_without_status_fields_read_as_complete_and_reportable() -> None:
    assert run_status({"scores": {}}) == "complete; reportable"


def test_a_limited_run_is_complete_but_not_reportable(eval_release: Path, tmp_path: Path) -> None:
    spec = RunSpec(dataset=str(eval_release), configs=CONFIGS, model="scripted", backend="vllm", limit=3,
                   output_dir=tmp_path / "run")
    run(spec, backend=ScriptedBackend(lambda content: "42"), progress=False)
    text = write_report([tmp_path / "run"], tmp_path / "report").markdown.read_text(encoding="utf-8")
    assert f"- status: complete (all 6 samples answered); not reportable: {LIMIT_REASON}\n" in text


def test_a_stopped_run_says_where_it_stopped_and_how_to_resume(eval_release: Path, tmp_path: Path) -> None:
    """The first 10 samples are answered, then every request fails until the error budget stops the run at 20."""
    answered = 0

    def answer(content: str) -> str | Outcome:
        nonlocal answered
        answered += 1
        return "42" if answered <= 10 else Outcome("", None, error=SampleError("http", "503 Service Unavailable", 503))

    spec = RunSpec(dataset=str(eval_release), configs=CONFIGS, model="scripted", backend="vllm",
                   output_dir=tmp_path / "run")
    with pytest.raises(ErrorBudgetExceeded):
        run(spec, backend=ScriptedBackend(answer), progress=False)
    text = write_report([tmp_path / "run"], tmp_path / "report").markdown.read_text(encoding="utf-8")
    (status,) = [line for line in text.splitlines() if line.startswith("- status: ")]
    # The runner's own reason follows (it names the error kinds), once, without its "stopped: " prefix;
    # its reason for not reporting (samples without an answer) would repeat the status and is left out.
    assert status.startswith(f"- status: stopped after 10 of {TOTAL_ROWS} samples: 10 of 20 samples failed ")
    assert status.endswith("re-run the same command to resume; not reportable")
    assert status.count("re-run") == 1 and "stopped:" not in status and "no answer yet" not in status
