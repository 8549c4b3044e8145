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


def test_a_group_is_handed_out_before_the_files():
    from xdist.scheduler import LoadFileScheduling

    from tests.xdist_scheduling import FilesAndGroups

    class Config:  # what the scheduler reads of pytest's config under ``-n 2``
        option = type("Option", (), {"loadscopereorder": True})()

        def getvalue(self, name: str) -> object:
            return {"tx": ["2*popen"]}[name]

    class Node:  # the little of xdist's WorkerController the scheduler uses
        def __init__(self, name: str) -> None:
            self.gateway = type("Gateway", (), {"id": name})()
            self.sent: list[list[int]] = []
            self.shutting_down = False

        def send_runtest_some(self, indexes: list[int]) -> None:
            self.sent.append(indexes)

        def shutdown(self) -> None:
            self.shutting_down = True

    grouped = [f"{path}::test_x" for path in GROUPS["llama.cpp"]]
    collection = ["tests/a/test_big.py::test_" + str(i) for i in range(50)] + ["tests/a/test_small.py::t"] + grouped
    scheduler = FilesAndGroups(Config())
    assert isinstance(scheduler, LoadFileScheduling)
    nodes = [Node("gw0"), Node("gw1")]
    for node in nodes:
        scheduler.add_node(node)
        scheduler.add_node_collection(node, collection)
    scheduler.schedule()
    first_units = [[collection[i] for i in node.sent[0]] for node in nodes]
    assert first_units[0] == grouped  # the whole group, in one batch, to the first worker
    assert first_units[1][0].startswith("tests/a/test_big.py")
