"""Fixtures shared by the test modules.

The suite runs in parallel (pytest-xdist, one worker per core; ``addopts`` in ``pyproject.toml``). Each
worker has its own temporary folders; what is worth building once per run (the demo releases, the
retrieval cache) lives in a folder all workers of the run share (:func:`run_folder`), built by the first
worker that needs it under a file lock.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from filelock import FileLock

from builders.cli import main as needlework_main
from builders.sources.icews import TemporalGraph, read_icews
from needlework.tokenizers import load_tokenizer
from tests.support.wikipedia import WIKIPEDIA_SLICE

# Bytecode is cached even where the environment sets PYTHONDONTWRITEBYTECODE (these machines' images do): without
# it every worker compiles the project and rewrites the asserts of every test module anew (~8 s of CPU a worker at
# collection), and so does every `python -m eval` / `needlework` subprocess a test starts. The caches are
# __pycache__ folders, which git ignores.
sys.dont_write_bytecode = False

# The suite's two workers share the machine's two cores, and torch's OpenMP threads (the MiniLM encoder, in the
# workers, their subprocesses and Ray's actors, which inherit the variable) otherwise spin while they wait for
# work, taking the core the other worker's test needs. Read when the OpenMP runtime loads, which no module above
# does; numerics do not depend on it. Measured on the 2-core machine: the suite took 730 s of CPU and 385 s with
# it, 779 s and 441-460 s without.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

SHARED_DATA_VARIABLE = "NEEDLEWORK_SHARED_DATA"
# Set by CI, where a missing slice is a broken checkout rather than a reason to skip.
REQUIRE_VARIABLE = "NEEDLEWORK_REQUIRE_SHARED_DATA"


def shared_data_path() -> Path:
    """Where the shared data folder should be: ``$NEEDLEWORK_SHARED_DATA`` or ``../shared/data``.

    The default is the ``shared/data`` folder that sits beside the repository checkout, as on the
    developers' machines and in CI.
    """
    default = Path(__file__).resolve().parents[2] / "shared" / "data"
    return Path(os.environ.get(SHARED_DATA_VARIABLE, default))


def _missing(reason: str) -> None:
    if os.environ.get(REQUIRE_VARIABLE):
        pytest.fail(f"{reason} ({REQUIRE_VARIABLE} is set)")
    pytest.skip(reason)


def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder every worker of this test run shares (its own base temp folder when not under xdist).

    Under xdist each worker's base temp folder is ``<run>/popen-gwN``; their parent belongs to the run, and
    pytest removes it with the run's other temporary folders.
    """
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.hookimpl(optionalhook=True, tryfirst=True)  # before xdist's own, which answers for every mode
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    """Under ``--dist loadfile``, each file whole and each group of files together (:mod:`tests.xdist_scheduling`)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from tests.xdist_scheduling import FilesAndGroups

    return FilesAndGroups(config, log)


RAY_CPUS = 4
"""Logical CPUs of the suite's local Ray cluster: a Ray Data pipeline of tests/eval/test_vllm_data_parallel.py runs its
preprocess, two replicas and postprocess at once. Builds name their worker count (``--ray-workers``)."""

_ray_modules: set[Path] = set()
"""Test files with a test that uses :func:`ray_cluster`; the cluster is stopped when the next test is in none of them."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    _ray_modules.update(item.path for item in items if "ray_cluster" in getattr(item, "fixturenames", ()))


@pytest.fixture(scope="module")
def ray_cluster() -> str:
    """A local Ray cluster (its GCS address), started by the first test file that asks and kept for the files
    that follow while they use it too, then stopped (:func:`pytest_runtest_teardown`).

    One cluster for a run of Ray files rather than one per file: starting and stopping one costs ~6 s of CPU,
    and an idle one ~2 s a minute. The Ray files are one work unit under xdist (:mod:`tests.xdist_scheduling`),
    so a worker starts one cluster for them all. No idle workers are prestarted: stages, actors and pipelines
    start the processes they need.
    """
    ray = pytest.importorskip("ray", reason="the ray extra is not installed")
    if not ray.is_initialized():
        ray.init(num_cpus=RAY_CPUS, include_dashboard=False, log_to_driver=False,
                 _system_config={"enable_worker_prestart": False, "prestart_worker_first_driver": False})
    return ray.get_runtime_context().gcs_address


@pytest.hookimpl(trylast=True)  # after the module fixtures of ``item`` are torn down
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """Stop the Ray cluster after the last test of a run of files that use it."""
    ray = sys.modules.get("ray")
    if item.path in _ray_modules and (nextitem is None or nextitem.path not in _ray_modules) \
            and ray is not None and ray.is_initialized():
        ray.shutdown()


@pytest.fixture(scope="session", autouse=True)
def isolated_retrieval_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The retrieval cache (``$NEEDLEWORK_CACHE``) of this run, shared by its workers, never the user's.

    Indexes and embeddings one test builds are reused by the others, as before the suite ran in
    parallel; the cache's writes are atomic, so two workers storing the same entry is safe.
    """
    folder = run_folder(tmp_path_factory) / "needlework-cache"
    patch = pytest.MonkeyPatch()
    patch.setenv("NEEDLEWORK_CACHE", str(folder))
    yield folder
    patch.undo()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared data folder; tests that need it skip, with the reason, when it is absent."""
    path = shared_data_path()
    if not path.is_dir():
        _missing(f"shared data folder not found at {path}; set {SHARED_DATA_VARIABLE} to the shared/data folder")
    return path


@pytest.fixture(scope="session")
def shared_file(shared_data: Path) -> Callable[[str], Path]:
    """A function from a path relative to the shared data folder to the file, skipping if absent."""

    def find(relative: str) -> Path:
        path = shared_data / relative
        if not path.is_file():
            _missing(f"shared data file not found: {path} ({SHARED_DATA_VARIABLE}={shared_data})")
        return path

    return find


def made_once_per_run(tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The file ``name`` of the run folder (:func:`run_folder`), which ``make(path)`` writes: the first worker that
    asks makes it under a file lock, the others wait for it and read it (``make`` writes it last, once whole)."""
    root = run_folder(tmp_path_factory)
    path = root / name
    with FileLock(str(root / f"{name}.lock")):
        if not path.is_file():
            make(path)
    return path


@pytest.fixture(scope="session")
def wikipedia_slice(shared_file: Callable[[str], Path], tmp_path_factory: pytest.TempPathFactory):
    """The Wikipedia dump slice as ``read_mediawiki_dump`` reads it in one process: parsed once per test run
    (~3.5 s of CPU) and pickled for every worker. Tests read it and never change it."""
    from builders.sources.wikipedia import read_mediawiki_dump

    def parse(path: Path) -> None:
        read = read_mediawiki_dump(shared_file(WIKIPEDIA_SLICE), workers=1)
        path.write_bytes(pickle.dumps(read, protocol=pickle.HIGHEST_PROTOCOL))

    return pickle.loads(made_once_per_run(tmp_path_factory, "wikipedia-slice.pickle", parse).read_bytes())


@pytest.fixture(scope="session")
def qwen():
    """The default tokenizer (Qwen2.5), exact and offline."""
    return load_tokenizer("qwen2.5")


@pytest.fixture(scope="session")
def cl100k():
    """GPT-4's cl100k_base tokenizer, offline."""
    return load_tokenizer("cl100k_base")


@pytest.fixture(scope="session")
def icews(shared_data: Path) -> TemporalGraph:
    """The ICEWS14 temporal knowledge graph slice, read once (Sequential-NIAH's real-temporal source)."""
    folder = shared_data / "tkg_icews14"
    if not (folder / "train.txt").is_file():
        _missing(f"ICEWS14 slice not found at {folder}")
    return read_icews(folder)


@dataclass(frozen=True)
class Demo:
    """Where ``needlework build demo`` wrote its releases, and what it printed."""

    folder: Path
    output: str


@pytest.fixture(scope="session")
def demo(tmp_path_factory) -> Demo:
    """Every registered builder's demo release, built once per test run by ``needlework build demo``
    (the builder tests check it; the eval tests run on it, as a new user would). Tests read it and never
    change it: all workers share it."""
    def build(printed: Path) -> None:
        result = CliRunner().invoke(needlework_main, ["build", "demo", "--out", str(printed.parent / "demo"), "--quiet"])
        assert result.exit_code == 0, result.output
        printed.write_text(result.output, encoding="utf-8")

    printed = made_once_per_run(tmp_path_factory, "demo-output.txt", build)
    return Demo(printed.parent / "demo", printed.read_text(encoding="utf-8"))
