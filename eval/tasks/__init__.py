"""The task registry: which eval task reads a release row, by benchmark and the row's columns."""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Mapping

from eval.tasks import haystackcraft, needlebench, rulerv2, sequential_niah
from eval.tasks.base import Task, TaskOptions
from needlework.errors import SpecError

TaskFactory = Callable[[TaskOptions], Task]

TASKS: dict[str, TaskFactory] = {
    **{f"{rulerv2.BENCHMARK}/{task}": partial(rulerv2.RulerTask, f"{rulerv2.BENCHMARK}/{task}") for task in rulerv2.RULES},
    **{f"{needlebench.BENCHMARK}/{task}": partial(needlebench.NeedleBenchTask, f"{needlebench.BENCHMARK}/{task}")
       for task in needlebench.RULES},
    **{name: partial(haystackcraft.HaystackCraftTask, name) for name in haystackcraft.TASK_NAMES},
    **{name: partial(sequential_niah.SequentialNiahTask, name) for name in sequential_niah.TASK_NAMES},
}
"""Task name -> factory: the 12 RULERv2 tasks ``rulerv2/{domain}_{level}``, the four NeedleBench
tasks ``needlebench/{s-rt,m-rt,m-rs,atc}`` and HaystackCraft's ``haystackcraft/static``."""


def task_name_for_row(benchmark: str, row: Mapping[str, Any]) -> str:
    """The registered task name for a row: ``{benchmark}/{task}_{level}`` (or ``{benchmark}/{task}``).

    HaystackCraft rows have no ``task`` column: a row of a release whose manifest names the
    benchmark ``haystackcraft`` is read by :func:`eval.tasks.haystackcraft.task_for_row` (static NIAH
    when it has ``input``, ``strategy``, ``ordering`` and ``size``).
    """
    task = row.get("task")
    if not task and benchmark == haystackcraft.BENCHMARK:
        return haystackcraft.task_for_row(row)
    if not task and benchmark == sequential_niah.BENCHMARK:
        return sequential_niah.task_for_row(row)
    if not task:
        raise SpecError(f"{benchmark} row {row.get('id')!r}: no 'task' column to choose an eval task")
    level = row.get("level")
    return f"{benchmark}/{task}_{level}" if level else f"{benchmark}/{task}"


def get_task(name: str, options: TaskOptions) -> Task:
    """The task called ``name``; the error lists every registered task."""
    try:
        return TASKS[name](options)
    except KeyError:
        raise SpecError(f"no eval task {name!r}; known tasks: {', '.join(sorted(TASKS))}") from None


__all__ = ["TASKS", "Task", "TaskOptions", "get_task", "task_name_for_row"]
