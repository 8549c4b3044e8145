"""The benchmark registry: every registered benchmark's tasks resolve, rows are dispatched by their
benchmark's own rule, unknown names list the valid ones, and the ids and grids are the generators'."""

from __future__ import annotations

from functools import partial

import pytest

import eval.benchmarks as registry
from eval.benchmark import Benchmark, task_from_columns
from eval.benchmarks import (
    BENCHMARK_OF_TASK,
    BENCHMARKS,
    TASKS,
    get_benchmark,
    get_task,
    task_name_for_row,
)
from eval.benchmarks.needlebench.tasks import PAPER_LANGS
from eval.benchmarks.needlebench.tasks import RULES as NEEDLEBENCH_RULES
from eval.benchmarks.rulerv2.report import DOMAIN_NAMES, LEVEL_COLOURS
from eval.benchmarks.rulerv2.tasks import RULES as RULERV2_RULES
from eval.task import TaskOptions
from generators.embs import spec as embs_spec
from generators.haystackcraft import spec as haystackcraft_spec
from generators.needlebench import spec as needlebench_spec
from generators.rulerv2 import spec as rulerv2_spec
from generators.sequential_niah import spec as sequential_spec
from needlework.errors import SpecError

ROWS = {
    rulerv2_spec.BENCHMARK: ({"id": "r", "task": "mk_niah", "level": "easy"}, "rulerv2/mk_niah_easy"),
    needlebench_spec.BENCHMARK: ({"id": "n", "task": "atc"}, "needlebench/atc"),
    haystackcraft_spec.BENCHMARK: ({"id": "h", "input": "p", "strategy": "bm25", "ordering": "middle", "size": 0},
                                   "haystackcraft/static"),
    sequential_spec.BENCHMARK: ({"id": "s", "input": "p", "answers": ["a"], "ordered": False},
                                "sequential-niah/unordered"),
    embs_spec.BENCHMARK: ({"id": "q@64K/qa", "task": "qa"}, "embs/qa"),
}


def test_the_registry_holds_each_benchmark_once_under_its_generator_id():
    ids = [benchmark.id for benchmark in BENCHMARKS]
    assert ids == [rulerv2_spec.BENCHMARK, needlebench_spec.BENCHMARK, haystackcraft_spec.BENCHMARK,
                   sequential_spec.BENCHMARK, embs_spec.BENCHMARK]
    assert ids == ["rulerv2", "needlebench", "haystackcraft", "sequential-niah", "embs"]
    assert all(get_benchmark(benchmark.id) is benchmark for benchmark in BENCHMARKS)


@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.id)
def test_every_registered_task_resolves_and_belongs_to_its_benchmark(benchmark: Benchmark):
    assert benchmark.tasks, benchmark.id
    for name in benchmark.tasks:
        task = get_task(name, TaskOptions())
        assert task.name == name and name.startswith(f"{benchmark.id}/")
        assert task.metric and task.metadata_columns
        assert TASKS[name] is benchmark.tasks[name] and BENCHMARK_OF_TASK[name] is benchmark


def test_tasks_is_the_union_of_the_benchmarks_tasks():
    assert sorted(TASKS) == sorted(name for benchmark in BENCHMARKS for name in benchmark.tasks)
    # RULERv2's 12, its 6 math-base and 3 MBPP tasks (D.2); NeedleBench's 4 and 2 multiple-choice ATC; HaystackCraft's
    # static and dynamic; EverMemBench-S's 2; Sequential-NIAH's ordered, unordered and judge-accuracy tasks
    assert len(TASKS) == 12 + 6 + 3 + 4 + 2 + 2 + 2 + 3


def test_task_tables_match_the_generators_grids():
    assert set(RULERV2_RULES) == set(rulerv2_spec.TASKS)
    assert list(DOMAIN_NAMES) == list(rulerv2_spec.DOMAINS) and list(LEVEL_COLOURS) == list(rulerv2_spec.LEVELS)
    assert set(NEEDLEBENCH_RULES) == set(needlebench_spec.TASKS)
    assert sorted(PAPER_LANGS) == sorted(needlebench_spec.LANGS)


@pytest.mark.parametrize("benchmark_id", sorted(ROWS))
def test_task_name_for_row_dispatches_by_benchmark(benchmark_id: str):
    row, expected = ROWS[benchmark_id]
    assert task_name_for_row(benchmark_id, row) == expected
    assert expected in get_benchmark(benchmark_id).tasks


def test_each_benchmark_reads_rows_by_its_own_rule_only():
    """A row another benchmark would read is refused with that benchmark's own message."""
    with pytest.raises(SpecError, match="no 'task' column"):
        task_name_for_row(rulerv2_spec.BENCHMARK, ROWS[haystackcraft_spec.BENCHMARK][0])
    with pytest.raises(SpecError, match="not a static NIAH row"):
        task_name_for_row(haystackcraft_spec.BENCHMARK, ROWS[needlebench_spec.BENCHMARK][0])
    with pytest.raises(SpecError, match="has no input, ordered column"):
        task_name_for_row(sequential_spec.BENCHMARK, {"id": "x", "answers": ["a"]})


def test_unknown_benchmark_and_task_list_the_registered_ones():
    with pytest.raises(SpecError) as caught:
        task_name_for_row("emb-s", {"id": "x", "task": "qa"})
    assert str(caught.value) == ("no eval benchmark 'emb-s'; benchmarks: "
                                 + ", ".join(sorted(b.id for b in BENCHMARKS)))
    with pytest.raises(SpecError) as caught:
        get_task("emb-s/qa", TaskOptions())
    assert str(caught.value).endswith("known tasks: " + ", ".join(sorted(TASKS)))


def test_a_registered_benchmark_is_dispatched_to_by_the_registry(monkeypatch):
    """Dispatch goes through the table: a benchmark added to it is found with no other change."""
    toy = Benchmark(id="toy", tasks={"toy/echo": partial(get_task, "rulerv2/mk_niah_basic")},
                    task_for_row=lambda row: "toy/echo")
    monkeypatch.setitem(registry.BY_ID, toy.id, toy)
    monkeypatch.setitem(registry.TASKS, "toy/echo", toy.tasks["toy/echo"])
    assert task_name_for_row("toy", {"id": "x"}) == "toy/echo"
    assert get_task("toy/echo", TaskOptions()).name == "rulerv2/mk_niah_basic"


def test_benchmark_task_names_must_carry_its_id():
    with pytest.raises(SpecError, match="must start with 'toy/'"):
        Benchmark(id="toy", tasks={"other/echo": lambda options: None}, task_for_row=lambda row: "other/echo")


def test_task_from_columns():
    assert task_from_columns("b", {"task": "t", "level": "hard"}) == "b/t_hard"
    assert task_from_columns("b", {"task": "t", "level": None}) == "b/t"
    with pytest.raises(SpecError, match="b row 'x': no 'task' column"):
        task_from_columns("b", {"id": "x"})
