"""RULERv2 in eval: its 12 tasks (:mod:`.tasks`) and its report section (:mod:`.report`).

Rows name their task in the ``task`` and ``level`` columns. RULERv2 has no summary block of its
own: its domain and level scores are the ``by`` breakdowns every run gets.
"""

from __future__ import annotations

from functools import partial

from eval.benchmark import Benchmark, task_from_columns
from eval.benchmarks.rulerv2.report import rulerv2_plots, rulerv2_section
from eval.benchmarks.rulerv2.tasks import RULES, RulerTask
from generators.rulerv2.spec import BENCHMARK

RULERV2 = Benchmark(
    id=BENCHMARK,
    tasks={f"{BENCHMARK}/{task}": partial(RulerTask, f"{BENCHMARK}/{task}") for task in RULES},
    task_for_row=partial(task_from_columns, BENCHMARK),
    plots=rulerv2_plots,
    section=rulerv2_section,
)
"""The 12 tasks ``rulerv2/{domain}_{level}``; the section adds the domain and level tables and ``levels.png``."""
