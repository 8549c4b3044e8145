"""``python -m eval judge-accuracy``: a judge model measured on a release's labelled candidate answers.

A benchmark whose releases hold labelled candidates declares them (:class:`eval.benchmark.JudgeData`:
the configs, the results block its summary writes, the printout); today that is Sequential-NIAH
(paper §5.1, Tables 4 and 6). The measurement is an ordinary run with the judge as the model, so
samples are appended as they finish and a re-run resumes; then the report is written into the run
directory. The command lives here, above the benchmarks, so no benchmark module imports the runner
or the report.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from eval.benchmarks import BENCHMARKS, get_benchmark
from eval.release import open_release
from eval.report import write_report
from eval.runner import RunSpec, default_run_dir, run
from needlework.backends.base import Backend
from needlework.errors import SpecError


@dataclass(frozen=True)
class JudgeAccuracyOutcome:
    """A finished judge-accuracy run: its directory, the benchmark's accuracy block, the text printed and the report."""

    run_dir: Path
    block: dict[str, Any]
    text: str
    report: Path


def judge_accuracy(spec: RunSpec, backend: Backend | None = None, *, progress: bool = True) -> JudgeAccuracyOutcome:
    """Measure a judge model (``spec.model``) on a release's judge configs and write the report.

    Without an output directory the run goes to ``eval-runs/<release>/<judge>-<config>``, apart
    from the judge's own benchmark runs.

    Raises:
        SpecError: A release whose benchmark declares no judge data, or a config that is not judge data.
        ErrorBudgetExceeded, BackendError: As :func:`eval.runner.run`.
    """
    release = open_release(spec.dataset, spec.revision)
    judge_data = get_benchmark(release.benchmark).judge_data
    if judge_data is None:
        with_data = ", ".join(b.id for b in BENCHMARKS if b.judge_data is not None)
        raise SpecError(f"{spec.dataset}: a {release.benchmark} release has no labelled candidates; judge accuracy "
                        f"runs on {with_data} releases")
    wrong = [c for c in spec.configs if c not in judge_data.configs]
    if wrong:
        raise SpecError(f"judge accuracy runs on judge data ({', '.join(judge_data.configs)}), not {', '.join(wrong)}")
    if spec.output_dir is None:
        spec = replace(spec, output_dir=default_run_dir(release, spec.model, "-".join(spec.configs)))
    outcome = run(spec, backend=backend, progress=progress)
    block = (outcome.results["scores"].get(release.benchmark) or {}).get(judge_data.block)
    if not block:
        raise SpecError(f"{spec.dataset}: no judge candidates in {', '.join(spec.configs)}")
    files = write_report([outcome.run_dir], outcome.run_dir)
    return JudgeAccuracyOutcome(outcome.run_dir, block, judge_data.report(spec.model, block), files.markdown)
