"""Sequential-NIAH in eval: the task (:mod:`.task`) scored by the order-aware item scorer
(:mod:`.items`), accuracy by group and the noise analysis (:mod:`.summary`), the report section
(:mod:`.report`) beside the paper's numbers (:mod:`.paper`), the paper's LLM judge (:mod:`.judge`)
and the labelled ``judge-test`` candidates a judge model is measured on (:mod:`.judge_accuracy`, run by
``python -m eval judge-accuracy``)."""

from __future__ import annotations

from functools import partial

from eval.benchmark import Benchmark
from eval.benchmarks.sequential_niah.judge import JUDGE_RUBRIC
from eval.benchmarks.sequential_niah.judge_accuracy import (
    JUDGE_DATA,
    JUDGE_TASK,
    JudgeAccuracyTask,
)
from eval.benchmarks.sequential_niah.report import (
    sequential_niah_plots,
    sequential_niah_section,
)
from eval.benchmarks.sequential_niah.summary import sequential_niah_summary
from eval.benchmarks.sequential_niah.task import (
    TASK_NAMES,
    SequentialNiahTask,
    task_for_row,
)
from generators.sequential_niah.spec import BENCHMARK

SEQUENTIAL_NIAH = Benchmark(
    id=BENCHMARK,
    tasks={**{name: partial(SequentialNiahTask, name) for name in TASK_NAMES},
           JUDGE_TASK: partial(JudgeAccuracyTask, JUDGE_TASK)},
    task_for_row=task_for_row,
    summarize=sequential_niah_summary,
    plots=sequential_niah_plots,
    section=sequential_niah_section,
    judge=JUDGE_RUBRIC,
    judged_tasks=TASK_NAMES,
    judge_data=JUDGE_DATA,
)
"""``sequential-niah/ordered`` and ``sequential-niah/unordered``, chosen by the row's ``ordered`` (the judge grades
these); ``sequential-niah/judge`` for a judge-data row, where the model under test is the judge."""
