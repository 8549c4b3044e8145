"""EverMemBench-S in eval: (query, scale, task) rows composed at evaluation time (:mod:`.rows`), localization
and QA tasks (:mod:`.tasks`), the Figure 6 judge (:mod:`.judge`), the per-scale block (:mod:`.summary`) and
the report section in the layouts of Tables 3 and 4 beside the paper's rows (:mod:`.report`, :mod:`.paper`)."""

from __future__ import annotations

from functools import partial

from eval.benchmark import Benchmark
from eval.benchmarks.embs.judge import JUDGE_RUBRIC
from eval.benchmarks.embs.report import embs_plots, embs_section
from eval.benchmarks.embs.rows import EmbsRows
from eval.benchmarks.embs.summary import embs_summary
from eval.benchmarks.embs.tasks import QA, TASK_NAMES, EmbsTask, task_for_row
from generators.embs.spec import BENCHMARK

EMBS = Benchmark(
    id=BENCHMARK,
    tasks={name: partial(EmbsTask, name) for name in TASK_NAMES},
    task_for_row=task_for_row,
    summarize=embs_summary,
    plots=embs_plots,
    section=embs_section,
    judge=JUDGE_RUBRIC,
    judged_tasks=(QA,),
    rows=EmbsRows(),
)
"""``embs/localize`` and ``embs/qa`` over ``contexts-<scale>`` (long context) and ``rankings`` (RAG) rows."""
