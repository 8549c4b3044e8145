"""The benchmark registry: :data:`BENCHMARKS`, one line per benchmark, and what is derived from it.

Every task name, the task of a release row, the blocks of the results, the report's sections and
the judge's rubrics come from this one table; error messages list the valid values it holds.
"""

from __future__ import annotations

from typing import Any, Mapping

from eval.benchmark import Benchmark, TaskFactory
from eval.benchmarks.embs import EMBS
from eval.benchmarks.haystackcraft import HAYSTACKCRAFT
from eval.benchmarks.needlebench import NEEDLEBENCH
from eval.benchmarks.rulerv2 import RULERV2
from eval.benchmarks.sequential_niah import SEQUENTIAL_NIAH
from eval.rows import RELEASE_ROWS, RowSource
from eval.task import Task, TaskOptions
from needlework.errors import SpecError

BENCHMARKS: tuple[Benchmark, ...] = (
    RULERV2,
    NEEDLEBENCH,
    HAYSTACKCRAFT,
    SEQUENTIAL_NIAH,
    EMBS,
)
"""Every benchmark eval knows, in report order."""

BY_ID: dict[str, Benchmark] = {benchmark.id: benchmark for benchmark in BENCHMARKS}
TASKS: dict[str, TaskFactory] = {name: factory for benchmark in BENCHMARKS for name, factory in benchmark.tasks.items()}
"""Task name -> factory: the 12 RULERv2 tasks ``rulerv2/{domain}_{level}``, the four NeedleBench
tasks ``needlebench/{s-rt,m-rt,m-rs,atc}``, HaystackCraft's ``haystackcraft/static`` and
Sequential-NIAH's ``sequential-niah/{ordered,unordered}`` and EverMemBench-S's ``embs/{localize,qa}``."""
BENCHMARK_OF_TASK: dict[str, Benchmark] = {name: benchmark for benchmark in BENCHMARKS for name in benchmark.tasks}
"""Task name -> the benchmark it belongs to."""


def get_benchmark(benchmark_id: str) -> Benchmark:
    """The benchmark called ``benchmark_id``; the error lists every registered one."""
    try:
        return BY_ID[benchmark_id]
    except KeyError:
        raise SpecError(f"no eval benchmark {benchmark_id!r}; benchmarks: {', '.join(sorted(BY_ID))}") from None


def task_name_for_row(benchmark_id: str, row: Mapping[str, Any]) -> str:
    """The task name of a release row, by the rule of the release's benchmark (its manifest's ``benchmark``)."""
    return get_benchmark(benchmark_id).task_for_row(row)


def rows_of(benchmark_id: str) -> RowSource:
    """Where the sample rows of a release of ``benchmark_id`` come from (the release's own rows for an
    unknown benchmark, so a release of another toolkit still fails on its task, not here)."""
    benchmark = BY_ID.get(benchmark_id)
    return benchmark.rows if benchmark is not None else RELEASE_ROWS


def get_task(name: str, options: TaskOptions) -> Task:
    """The task called ``name``; the error lists every registered task."""
    try:
        return TASKS[name](options)
    except KeyError:
        raise SpecError(f"no eval task {name!r}; known tasks: {', '.join(sorted(TASKS))}") from None


__all__ = ["BENCHMARKS", "BENCHMARK_OF_TASK", "TASKS", "Benchmark", "get_benchmark", "get_task", "rows_of", "task_name_for_row"]
