"""The suite's xdist scheduling (tests/xdist_scheduling.py): files whole, the llama.cpp files and the Ray files each as one unit."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("xdist")

from tests.xdist_scheduling import GROUPS, scope_of

REPO = Path(__file__).resolve().parents[1]
STARTS_A_SERVER = re.compile(r"\brunning_server\(")
USES_RAY = re.compile(r"\bray_cluster\b|\bray\.init\(")


def test_every_module_that_starts_a_llama_cpp_server_is_in_the_group():
    starting = sorted(path.relative_to(REPO).as_posix() for path in (REPO / "tests").rglob("test_*.py")
                      if STARTS_A_SERVER.search(path.read_text(encoding="utf-8")))
    assert "tests/eval/test_llamacpp.py" in starting
    assert starting == sorted(GROUPS["llama.cpp"])


def test_every_module_that_uses_the_ray_cluster_is_in_the_ray_group():
    using = sorted(path.relative_to(REPO).as_posix() for path in (REPO / "tests").rglob("test_*.py")
                   if USES_RAY.search(path.read_text(encoding="utf-8")))
    assert "tests/builders/test_engine.py" in using
    assert using == sorted(GROUPS["ray"])


def test_a_grouped_files_tests_share_one_unit_and_other_files_keep_their_own():
    first, second = GROUPS["llama.cpp"][:2]
    assert scope_of(f"{first}::test_a") == scope_of(f"{second}::test_b[x]") == "group:llama.cpp"
    assert scope_of("tests/eval/test_report.py::test_a[1]") == "tests/eval/test_report.py"
    assert scope_of("tests/eval/test_report.py::Class::test_b") == "tests/eval/test_report.py"


class _Config:  # what the scheduler reads of pytest's config under ``-n 2``
    option = type("Option", (), {"loadscopereorder": True})()

    def getvalue(self, name: str) -> object:
        return {"tx": ["2*popen"]}[name]


class _Node:  # the little of xdist's WorkerController the scheduler uses
    def __init__(self, name: str) -> None:
        self.gateway = type("Gateway", (), {"id": name})()
        self.sent: list[list[int]] = []
        self.shutting_down = False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.append(indexes)

    def shutdown(self) -> None:
        self.shutting_down = True


def _scheduled(collection: list[str]):
    from tests.xdist_scheduling import FilesAndGroups

    scheduler = FilesAndGroups(_Config())
    nodes = [_Node("gw0"), _Node("gw1")]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    return scheduler, nodes


def test_a_group_is_handed_out_before_the_files():
    from xdist.scheduler import LoadFileScheduling

    grouped = [f"{path}::test_x" for path in GROUPS["llama.cpp"]]
    collection = ["tests/a/test_big.py::test_" + str(i) for i in range(50)] + ["tests/a/test_small.py::t"] + grouped
    scheduler, nodes = _scheduled(collection)
    assert isinstance(scheduler, LoadFileScheduling)
    first_units = [[collection[i] for i in node.sent[0]] for node in nodes]
    assert first_units[0] == grouped  # the whole group, in one batch, to the first worker
    assert first_units[1][0].startswith("tests/a/test_big.py")


def test_two_groups_never_run_on_two_workers_at_once():
    """Run to the end, the workers finishing a test in turn: a worker is never handed a group while the other has
    one unfinished, and every test is handed out once."""
    groups = {name: [f"{path}::test_{i}" for path in paths for i in range(3)] for name, paths in GROUPS.items()}
    collection = [f"tests/a/test_{i}.py::test_{j}" for i in range(8) for j in range(3)] + [
        test for tests in groups.values() for test in tests]
    scheduler, nodes = _scheduled(collection)
    done: list[set[int]] = [set(), set()]
    while any(set().union(*map(set, node.sent)) - finished for node, finished in zip(nodes, done)):
        running = [{scope_of(collection[i]) for batch in node.sent for i in batch if i not in finished}
                   for node, finished in zip(nodes, done)]
        assert not any(scope.startswith("group:") for scope in running[0]) or \
            not any(scope.startswith("group:") for scope in running[1]), running
        for index, (node, finished) in enumerate(zip(nodes, done)):
            pending = [i for batch in node.sent for i in batch if i not in finished]
            if pending:
                finished.add(pending[0])
                scheduler.mark_test_complete(node, pending[0])
    handed = sorted(i for node in nodes for batch in node.sent for i in batch)
    assert handed == list(range(len(collection)))
