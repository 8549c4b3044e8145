"""Sequential-NIAH in eval: the task (:mod:`.task`) scored by the order-aware item scorer
(:mod:`.items`), accuracy by group and the noise analysis (:mod:`.summary`), the report section
(:mod:`.report`) and the paper's LLM judge (:mod:`.judge`)."""

from __future__ import annotations

from functools import partial

from eval.benchmark import Benchmark
from eval.benchmarks.sequential_niah.judge import JUDGE_RUBRIC
from eval.benchmarks.sequential_niah.report import sequential_niah_plots, sequential_niah_section
from eval.benchmarks.sequential_niah.summary import sequential_niah_summary
from eval.benchmarks.sequential_niah.task import TASK_NAMES, SequentialNiahTask, task_for_row
from generators.sequential_niah.spec import BENCHMARK

SEQUENTIAL_NIAH = Benchmark(
    id=BENCHMARK,
    tasks={name: partial(SequentialNiahTask, name) for name in TASK_NAMES},
    task_for_row=task_for_row,
    summarize=sequential_niah_summary,
    plots=sequential_niah_plots,
    section=sequential_niah_section,
    judge=JUDGE_RUBRIC,
)
"""``sequential-niah/ordered`` and ``sequential-niah/unordered``, chosen by the row's ``ordered``."""
