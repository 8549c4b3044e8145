"""Judge a finished run's answers with an LLM, by the rubric of the run's benchmark.

``python -m eval judge RUN_DIR`` calls :func:`judge_run`: it reads the run file and the samples,
takes every answered sample of a task of the run's benchmark, extracts its answer with the task
(as scoring does), renders the benchmark's :class:`eval.rubric.JudgeRubric` messages from the
release row and the answer, streams them through the judge backend
(:func:`eval.stream.stream_records`) and appends one record per verdict to the run directory's
judge log: ``key``, ``config``, ``row_id``, ``raw`` (the judge's output), the parsed verdict under
the rubric's ``verdict_field`` (Sequential-NIAH: ``eval_label``) and ``error``. Samples already
judged (a verdict, or a final error) are skipped, so an interrupted judge resumes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

from eval.benchmark import Benchmark
from eval.benchmarks import BENCHMARKS, get_benchmark, get_task
from eval.release import Release, open_release
from eval.rubric import JudgeRubric, Verdict, read_verdicts
from eval.selection import RowSelection
from eval.store import RunDirectory, is_done
from eval.stream import Stub, stream_records
from eval.task import Task, TaskOptions
from needlework.backends.base import Backend, Outcome, Request, check_generation
from needlework.errors import SpecError

DEFAULT_GENERATION: Mapping[str, Any] = {"temperature": 0.0}


def judged_benchmark(saved: Mapping[str, Any], run_dir: Path) -> tuple[Benchmark, JudgeRubric]:
    """The benchmark of a run (its release's, from the run file) and that benchmark's judge rubric.

    Raises:
        SpecError: The benchmark has no judge; the message lists the benchmarks that have one.
    """
    benchmark = get_benchmark(str(saved["provenance"].get("benchmark", "")))
    if benchmark.judge is None:
        judged = ", ".join(b.id for b in BENCHMARKS if b.judge is not None) or "none"
        raise SpecError(f"{run_dir}: {benchmark.id} has no LLM judge; benchmarks with one: {judged}")
    return benchmark, benchmark.judge


def judge_run(run_dir: Path, backend: Backend, *, generation: Mapping[str, Any] | None = None,
              release: Release | None = None, judge_model: str | None = None) -> dict[str, Verdict]:
    """Judge every answered sample of a finished run with its benchmark's rubric (module docstring).

    Args:
        run_dir: A run directory of ``python -m eval run``.
        backend: Any eval backend serving the judge model; closed when done.
        generation: Generation settings for the judge (default ``temperature=0``).
        release: The opened release (default: the run's dataset at its recorded revision).
        judge_model: The judge's model name, kept in each verdict record as ``judge_model`` (so a
            report can say which judge scored the run); None keeps no name.

    Returns:
        Every verdict of the run, by sample key.

    Raises:
        SpecError: Generation settings no server takes, not a run directory, the run's benchmark has
            no judge, or the release is at another revision than the run's.
        PreflightError: The judge's server cannot be reached or does not serve the judge model.
    """
    check_generation(generation or {})
    directory = RunDirectory(run_dir)
    saved = directory.read_run()
    benchmark, rubric = judged_benchmark(saved, directory.path)
    info = saved["run"]
    if release is None:
        local = str(info["revision"]).startswith("sha256:")
        release = open_release(info["dataset"], None if local else info["revision"])
    if release.revision != info["revision"]:
        raise SpecError(f"{run_dir}: the release is at {release.revision}, the run used {info['revision']}")
    records = directory.latest_samples()
    done = {key for key, record in directory.latest_judgements().items() if is_done(record)}
    answered = {key for key, record in records.items() if record.get("error") is None}
    wanted: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for e in saved["expected"]:  # a row asked several times (--generations) has one entry per response
        if benchmark.judges(e["task"]) and e["key"] in answered and e["key"] not in done:
            wanted.setdefault((e["config"], e["row_id"]), []).append(e)
    if wanted:
        options = TaskOptions.from_record(info["task_options"])
        settings = dict(generation or DEFAULT_GENERATION)
        tasks: dict[str, Task] = {}
        selection = RowSelection.from_record(info.get("select"))
        source = benchmark.rows

        def requests() -> Iterator[tuple[Request, Stub]]:
            for config in info["configs"]:
                for row in source.rows(release, config, info["split"], info.get("limit"), selection.where(), options):
                    for entry in wanted.get((config, row["id"]), []):
                        task = tasks.get(entry["task"]) or tasks.setdefault(entry["task"], get_task(entry["task"], options))
                        answer = task.extract(records[entry["key"]]["text"] or "")
                        yield (Request(entry["key"], rubric.messages(row, answer), settings),
                               {"config": config, "row_id": row["id"]})

        def record(stub: Stub, outcome: Outcome) -> dict[str, Any]:
            error = None if outcome.error is None else {**asdict(outcome.error), "final": outcome.error.final}
            verdict = None if outcome.text is None else rubric.parse(outcome.text)
            named = {"judge_model": judge_model} if judge_model else {}
            return {"key": outcome.key, **stub, "raw": outcome.text, rubric.verdict_field: verdict, "error": error, **named}

        asyncio.run(backend.preflight())  # the judge's server answers before any verdict is asked
        with directory.judge_writer() as writer:
            asyncio.run(stream_records(backend, requests(), writer, record))
    return read_verdicts(directory, rubric)
