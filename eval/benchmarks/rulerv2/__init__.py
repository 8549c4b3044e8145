"""RULERv2 in eval: its 12 tasks (:mod:`.tasks`) and its report section (:mod:`.report`).

Rows name their task in the ``task`` and ``level`` columns; multi-key rows that hide math problems
(a ``base`` column, RULERv2 Appendix D.2) get ``rulerv2/{task}_{level}/{base}`` and its math rule, or
for MBPP its code rule (the row's tests run, when allowed).
RULERv2 has no summary block of its own: its domain and level scores are the ``by`` breakdowns
every run gets.
"""

from __future__ import annotations

from functools import partial

from eval.benchmark import Benchmark
from eval.benchmarks.rulerv2.report import rulerv2_plots, rulerv2_section
from eval.benchmarks.rulerv2.tasks import (
    CODE_TASK_NAMES,
    MATH_TASK_NAMES,
    RULES,
    RulerTask,
    task_for_row,
)
from generators.rulerv2.spec import BENCHMARK

RULERV2 = Benchmark(
    id=BENCHMARK,
    tasks={
        **{f"{BENCHMARK}/{task}": partial(RulerTask, f"{BENCHMARK}/{task}") for task in RULES},
        **{name: partial(RulerTask, name) for name in (*MATH_TASK_NAMES, *CODE_TASK_NAMES)},
    },
    task_for_row=task_for_row,
    plots=rulerv2_plots,
    section=rulerv2_section,
)
"""The 12 tasks ``rulerv2/{domain}_{level}`` and the base-task variants ``rulerv2/mk_niah_{easy,medium,hard}/{gsm8k,math500,mbpp}``;
the section adds the domain and level tables and ``levels.png``."""
