"""What a benchmark brings to eval: one :class:`Benchmark` declaration per benchmark.

A benchmark is its tasks (how a release row is asked, read and scored), the rule that picks a
row's task, and optionally a summary of its scored samples (the paper's tables, written to the
results under ``scores[<id>]``), a report section with its plots, and an LLM judge rubric. The
registry :data:`eval.benchmarks.BENCHMARKS` lists one declaration per benchmark; the harness, the
aggregation, the report and the judge loop over it, so adding a benchmark is one module plus one
line there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from eval.report_runs import Run
from eval.rows import RELEASE_ROWS, RowSource
from eval.rubric import JudgeRubric
from eval.scored import ScoredSample
from eval.task import Task, TaskOptions
from needlework.errors import SpecError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TaskFactory = Callable[[TaskOptions], Task]
"""Makes a task for the run's options."""
PlotDraw = tuple[str, str, Callable[[], "Figure"]]
"""(view, file name, draw): one plot of a benchmark's report section; ``draw`` makes the figure."""
Summarize = Callable[[Sequence[ScoredSample]], "dict[str, Any] | None"]
Plots = Callable[[Sequence[Run]], list[PlotDraw]]
Section = Callable[[Sequence[Run], Mapping[str, str]], list[str]]


@dataclass(frozen=True)
class JudgeData:
    """Labelled candidate answers that a judge model is measured on, as an ordinary run of the benchmark
    (``python -m eval judge-accuracy``, :func:`eval.judge_accuracy.judge_accuracy`).

    Attributes:
        configs: The release configs holding labelled candidates (the first is the command's default).
        block: The key of the benchmark's results block (its ``summarize``) that holds the accuracy.
        report: The text printed for that block, given the judge model's name.
    """

    configs: tuple[str, ...]
    block: str
    report: Callable[[str, Mapping[str, Any]], str]


@dataclass(frozen=True)
class Benchmark:
    """One benchmark's part of eval.

    Attributes:
        id: The benchmark's one id (its generator spec's ``BENCHMARK``): the release manifest's
            ``benchmark``, the prefix of its task names and its key under ``scores``.
        tasks: Task name (``<id>/<task>``) -> factory.
        task_for_row: The task name of a release row of this benchmark.
        summarize: The benchmark's block of the results, from the scored samples of its tasks (only
            those are passed; samples without a score or error are left out); None for no block.
        plots: The section's plots for the report's runs; drawn in order into the report folder.
        section: The report's Markdown lines for the runs, given ``{view: file name}`` of the plots
            drawn; empty when no run has this benchmark.
        judge: The LLM judge rubric of ``python -m eval judge`` (:func:`eval.judge.judge_run`), if the
            benchmark's answers can be judged.
        judged_tasks: The tasks whose answers the judge grades (None: every task of the benchmark).
        rows: Where the sample rows come from: the release's rows, or rows the benchmark composes
            (:class:`eval.rows.RowSource`).
        judge_data: Labelled candidates a judge model is measured on (:class:`JudgeData`), if the release has them.
    """

    id: str
    tasks: Mapping[str, TaskFactory]
    task_for_row: Callable[[Mapping[str, Any]], str]
    summarize: Summarize | None = None
    plots: Plots | None = None
    section: Section | None = None
    judge: JudgeRubric | None = None
    judged_tasks: tuple[str, ...] | None = None
    rows: RowSource = RELEASE_ROWS
    judge_data: JudgeData | None = None

    def judges(self, task: str) -> bool:
        """Whether the benchmark's judge grades answers of ``task``."""
        return self.judge is not None and task in self.tasks and (self.judged_tasks is None or task in self.judged_tasks)

    def __post_init__(self) -> None:
        foreign = sorted(name for name in self.tasks if not name.startswith(f"{self.id}/"))
        if foreign:
            raise SpecError(f"benchmark {self.id!r}: task names must start with '{self.id}/', not {', '.join(foreign)}")


def task_from_columns(benchmark: str, row: Mapping[str, Any]) -> str:
    """``{benchmark}/{task}_{level}`` from a row's ``task`` and ``level`` columns (``{benchmark}/{task}``
    without a level): the rule of benchmarks whose rows name their task.

    Raises:
        SpecError: The row has no ``task`` column.
    """
    task = row.get("task")
    if not task:
        raise SpecError(f"{benchmark} row {row.get('id')!r}: no 'task' column to choose an eval task")
    level = row.get("level")
    return f"{benchmark}/{task}_{level}" if level else f"{benchmark}/{task}"
