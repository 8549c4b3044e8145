"""NeedleBench in eval: its four tasks and the two multiple-choice ATC tasks (:mod:`.tasks`, :mod:`.choice`), the
paper's scores (:mod:`.summary`) and its report section with the ATC curve and the heatmaps (:mod:`.report`)."""

from __future__ import annotations

from functools import partial

from eval.benchmark import Benchmark, task_from_columns
from eval.benchmarks.needlebench.report import needlebench_plots, needlebench_section
from eval.benchmarks.needlebench.summary import needlebench_summary
from eval.benchmarks.needlebench.tasks import RULES, NeedleBenchTask
from generators.needlebench.spec import BENCHMARK

NEEDLEBENCH = Benchmark(
    id=BENCHMARK,
    tasks={f"{BENCHMARK}/{task}": partial(NeedleBenchTask, f"{BENCHMARK}/{task}") for task in RULES},
    task_for_row=partial(task_from_columns, BENCHMARK),
    summarize=needlebench_summary,
    plots=needlebench_plots,
    section=needlebench_section,
)
"""The tasks ``needlebench/{s-rt,m-rt,m-rs,atc,atc-choice,atc-choice-reasoning}``, read from the rows' ``task`` column."""
