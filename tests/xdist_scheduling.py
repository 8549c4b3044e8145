"""How the suite is spread over pytest-xdist's workers: a test file to one worker, a group of files to one.

``--dist loadfile`` keeps a file's module fixtures (a built release, a started server) on one worker; some files
must also not run at the same time as each other. The llama.cpp end-to-end tests each start servers whose ggml
threads wait for each other at every layer: two such files on the two workers of a 2-core machine made each
several times slower (the suite's longest tests, 150-290 s instead of 10-40 s). The files that use a local Ray
cluster (the ``ray_cluster`` fixture of tests/conftest.py) share one: on one worker, one after the other, they start
it once instead of once a file (~6 s of CPU each), and two clusters never compete for the cores. The files of a group in
:data:`GROUPS` form one work unit, run one after the other by one worker; a group's unit is handed out before any
file's, since it is a long serial chain that would otherwise finish last, but not to one worker while another has
a group unfinished (so in a 2-worker run the groups follow each other on one worker while the other runs files).

Why a list of paths rather than xdist's ``xdist_group`` mark: under pytest 9.2 the mark's ``--dist loadgroup``
does not group (pytest-xdist 3.8 suffixes ``item._nodeid``, which pytest no longer reads), and the scheduler,
which runs in the controller, sees only node ids. ``tests/test_xdist_scheduling.py`` checks that every module
starting a llama.cpp server is in its group.
"""

from __future__ import annotations

from xdist.scheduler import LoadFileScheduling
from xdist.workermanage import WorkerController

GROUPS: dict[str, tuple[str, ...]] = {
    "llama.cpp": (
        "tests/eval/test_llamacpp.py",
        "tests/eval/test_llamacpp_embs.py",
        "tests/eval/test_llamacpp_pool.py",
        "tests/eval/test_haystackcraft_dynamic_llamacpp.py",
    ),
    "ray": (
        "tests/builders/test_engine.py",
        "tests/builders/test_sources_multistream.py",
        "tests/eval/test_vllm_data_parallel.py",
    ),
}
"""Group name -> the test files (paths from the repository root) that run one after another on one worker."""

GROUP = "group:"
_GROUP_OF = {path: GROUP + name for name, paths in GROUPS.items() for path in paths}


def scope_of(nodeid: str) -> str:
    """The work unit of a test: ``group:<name>`` when its file is in :data:`GROUPS`, else its file."""
    path = nodeid.split("::", 1)[0]
    return _GROUP_OF.get(path, path)


class FilesAndGroups(LoadFileScheduling):
    """xdist's ``loadfile`` scheduling, with the files of each group in :data:`GROUPS` as one unit."""

    def _split_scope(self, nodeid: str) -> str:
        return scope_of(nodeid)

    def _assign_work_unit(self, node: WorkerController) -> None:
        """Hand out a group before any file, but never while another worker has a group unfinished (while files
        remain to give instead): two groups at once, llama.cpp's spinning threads beside Ray's actors, made both
        slower and cost the suite ~130 s more CPU (858 s against 730 s)."""
        groups = [scope for scope in self.workqueue if scope.startswith(GROUP)]
        files = [scope for scope in self.workqueue if not scope.startswith(GROUP)]
        elsewhere = any(scope.startswith(GROUP) and not all(work.values())
                        for other, assigned in self.assigned_work.items() if other is not node
                        for scope, work in assigned.items())
        if groups and not (elsewhere and files):
            self.workqueue.move_to_end(groups[0], last=False)
        elif files:
            self.workqueue.move_to_end(files[0], last=False)
        super()._assign_work_unit(node)
