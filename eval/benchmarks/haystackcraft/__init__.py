"""HaystackCraft in eval: static NIAH (:mod:`.tasks`), the paper's F1 and EM tables (:mod:`.summary`)
and its report section with Figures 3 and 4 (:mod:`.report`)."""

from __future__ import annotations

from functools import partial

from eval.benchmark import Benchmark
from eval.benchmarks.haystackcraft.report import haystackcraft_plots, haystackcraft_section
from eval.benchmarks.haystackcraft.summary import haystackcraft_summary
from eval.benchmarks.haystackcraft.dynamic import DYNAMIC, DynamicTask, HaystackCraftRows, task_for_any_row
from eval.benchmarks.haystackcraft.dynamic_report import plots_with_dynamic, section_with_dynamic, with_dynamic
from eval.benchmarks.haystackcraft.tasks import TASK_NAMES, HaystackCraftTask
from generators.haystackcraft.spec import BENCHMARK

HAYSTACKCRAFT = Benchmark(
    id=BENCHMARK,
    tasks={**{name: partial(HaystackCraftTask, name) for name in TASK_NAMES}, DYNAMIC: partial(DynamicTask, DYNAMIC)},
    task_for_row=task_for_any_row,
    summarize=with_dynamic(haystackcraft_summary),
    plots=plots_with_dynamic(haystackcraft_plots),
    section=section_with_dynamic(haystackcraft_section),
    rows=HaystackCraftRows(),
)
"""``haystackcraft/static``, chosen by a row's columns (the rows have no ``task`` column)."""
