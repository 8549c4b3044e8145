"""``--engine local|ray`` (issue 26 item 1): the same release from every engine, worker count and failure.

The acceptance runs on a real local Ray cluster (the suite's ``ray_cluster``, tests/conftest.py, on the CPU wheel of
the ``ray`` extra, which the ``test`` extra installs), with builds of 1 and 2 Ray workers. Ray's behaviour relied on: a task whose worker process dies
is re-run up to ``max_retries`` times (https://docs.ray.io/en/latest/ray-core/fault_tolerance/tasks.html),
and a worker shows ``ray::<function>`` as its process title while it runs a task.
"""

from __future__ import annotations

import bz2
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import pytest
import ray

from builders import embs, haystackcraft
from builders import engine as engine_module
from builders.engine import Engine, EngineError, batched, count_batch, engine_of, joined
from builders.options import reproducing_command
from needlework.errors import SpecError
from tests.support.wikipedia import WIKIPEDIA_SLICE, short_pages_export

SHORT_PAGE = 30_000
"""The builds read the slice's redirects, its 21 articles under this many bytes of XML and :data:`LINKED` (14 % of
its text): what they compare is the engines, and parsing the long articles would be most of their cost."""
LINKED = ("Agriculture",)
"""A longer article kept for its links: with it, three links join articles of the export (the short ones alone
have one), so the ``links`` config and BM25+PPR have a graph to work on."""
# Natural Questions records whose gold pages are among those articles (read_nq's title fields), one with two.
NQ = [
    {"question": "who directed the film actrius", "answer": ["Ventura Pons"], "title": "Actrius"},
    {"question": "when was alain connes born", "answer": ["1 April 1947"], "title": "Alain Connes"},
    {"question": "what time standard is abbreviated tai", "answer": ["International Atomic Time"],
     "title": "International Atomic Time"},
    {"question": "what is read to a defendant at an arraignment, and which court hears the appeal",
     "answer": ["charging document"], "titles": ["Arraignment", "Appellate court"]},
    {"question": "where was allan dwan born", "answer": ["Canada"], "title": "Allan Dwan"},
    {"question": "how is the arithmetic mean of numbers computed", "answer": ["their sum divided by their count"],
     "title": "Arithmetic mean"},
]
STAGE_TITLE = "ray::_run_stage"


@pytest.fixture(scope="module")
def nq_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("nq") / "nq.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in NQ), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def dump(tmp_path_factory, shared_file) -> Path:
    """The Wikipedia slice's short pages (:data:`SHORT_PAGE`) and :data:`LINKED`, as a bz2 export."""
    path = tmp_path_factory.mktemp("dump") / "enwiki-short-pages.xml.bz2"
    path.write_bytes(bz2.compress(short_pages_export(bz2.decompress(shared_file(WIKIPEDIA_SLICE).read_bytes()),
                                                     under=SHORT_PAGE, keep=LINKED)))
    return path


@pytest.fixture(scope="module")
def local_wiki(tmp_path_factory, dump, nq_file, qwen) -> Path:
    """The HaystackCraft release of the short pages from the local engine, which the Ray builds are compared to."""
    folder = tmp_path_factory.mktemp("wiki-local")
    haystackcraft.build(wiki_spec(dump, nq_file, folder / "cache"), folder / "local", tokens=qwen, progress=False)
    return folder / "local"


def wiki_spec(dump: Path, nq: Path, cache: Path, **engine: Any) -> haystackcraft.HaystackCraftBuild:
    """The HaystackCraft build on the Wikipedia slice: dump parsing, token counting, BM25 (+PPR), prompts."""
    return haystackcraft.HaystackCraftBuild(corpus=(str(dump),), qa=(str(nq),), strategies=("bm25", "bm25+ppr"),
                                            sizes=(0, 2_000, 8_000), top_k=40, cache=str(cache), workers=1, **engine)


EMBS: dict[str, Any] = {"entities": 150, "queries_per_domain": 2, "domains": ("medical", "history"), "base_scale": "4K",
                        "retrievers": ("bm25",), "materialize": "32K"}


def content(out: Path) -> dict[str, Any]:
    """What a release holds, engine aside: its manifest without the spec's arguments (which name the engine),
    with every config's rows and content hash, and its card."""
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    del manifest["build"]["args"]
    return {"manifest": manifest, "card": (out / "README.md").read_text(encoding="utf-8")}


def stage_workers() -> list[psutil.Process]:
    """This cluster's worker processes running a stage's batch now (the cluster is this process's child)."""
    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            if process.cmdline()[:1] == [STAGE_TITLE]:
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied, IndexError):
            continue
    return found


def kill_first_stage_worker(killed: list[int], stop: threading.Event) -> None:
    """SIGKILL the first worker seen running a stage's batch (mid-stage by construction: idle workers read ray::IDLE)."""
    while not stop.is_set():
        for process in stage_workers():
            process.send_signal(signal.SIGKILL)
            killed.append(process.pid)
            return
        time.sleep(0.005)


@contextmanager
def first_stage_worker_killed(killed: list[int]) -> Iterator[None]:
    """While the block runs, SIGKILL the first worker seen running a stage's batch (its pid appended to ``killed``)."""
    stop = threading.Event()
    killer = threading.Thread(target=kill_first_stage_worker, args=(killed, stop))
    killer.start()
    try:
        yield
    finally:
        stop.set()
        killer.join()


def test_batches_come_back_in_order_and_stage_errors_as_themselves(ray_cluster, qwen) -> None:
    # Long batches first, so later ones finish first on 2 workers; the counts must still come in batch order.
    texts = [" ".join(["needle"] * (4000 - 37 * i)) + f" {i}" for i in range(60)]
    expected = qwen.count_batch(texts)
    for engine in (Engine(), Engine("local", 2), Engine("ray", 1), Engine("ray", 2)):
        counts = np.concatenate(list(engine.map(count_batch, batched(texts, 7), qwen, processes=True)))
        assert counts.tolist() == list(expected), engine
    for engine in (Engine(), Engine("ray", 2)):
        with pytest.raises(AttributeError, match="count_batch"):
            list(engine.count_tokens([["a"]], None))  # type: ignore[arg-type]


def test_ray_counts_several_batches_per_task_and_yields_them_one_by_one(ray_cluster, qwen, monkeypatch) -> None:
    """Ray counting sends consecutive batches as one task (Ray's per-task cost paid once per ~TASK_CHARS characters);
    the caller still gets one array per batch, in batch order, each equal to counting that batch alone."""
    texts = [" ".join(["needle"] * (20 + 9 * i)) + f" {i}" for i in range(50)]
    batches = list(batched(texts, 3)) + [[]] + list(batched(texts[:5], 2))  # 612, 1,179, ... 9,120, 6,395, 0, ... chars
    assert [len(group) for group in joined(batches, 2_000)] == [3] + [1] * 14 + [4]  # the last one short
    monkeypatch.setattr(engine_module, "TASK_CHARS", 2_000)
    for engine in (Engine("ray", 1), Engine("ray", 2)):
        counts = list(engine.count_tokens(iter(batches), qwen))
        assert [c.tolist() for c in counts] == [qwen.count_batch(b).tolist() for b in batches], engine


def test_a_ray_task_counts_on_the_one_cpu_it_was_given(ray_cluster) -> None:
    """Ray gives a stage's task one CPU (num_cpus=1), so the qwen2.5 counter's threads are capped at one there,
    not os.cpu_count() as in this process (TiktokenCounter.count_batch)."""
    from needlework.tokenizers import tiktoken_counter

    def threads(batch: int, shared: None) -> int:
        from needlework.tokenizers import tiktoken_counter as counter

        return counter.max_threads()

    assert list(Engine("ray", 1).map(threads, [0])) == [1]
    assert list(Engine().map(threads, [0])) == [tiktoken_counter.max_threads()] and tiktoken_counter.max_threads() > 1


def test_engine_options_are_checked_and_not_recorded(tmp_path) -> None:
    with pytest.raises(SpecError, match="--ray-address needs --engine ray"):
        haystackcraft.HaystackCraftBuild(ray_address="ray://head:10001")
    with pytest.raises(SpecError, match="workers must be >= 0"):
        embs.EmbsBuild(engine="ray", ray_workers=-1)
    spec = embs.EmbsBuild(engine="ray", ray_workers=2, ray_address="auto")
    assert engine_of(spec) == Engine("ray", 2, "auto")
    local, remote = haystackcraft.HaystackCraftBuild(), haystackcraft.HaystackCraftBuild(engine="ray", ray_workers=2)
    assert reproducing_command("haystackcraft", local) == reproducing_command("haystackcraft", remote)


def test_ray_without_the_extra_names_it(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray were not installed
    with pytest.raises(EngineError, match=r"pip install 'needlework\[ray\]'"):
        list(Engine("ray").count_tokens([["a"]], None))  # type: ignore[arg-type]


def test_wikipedia_haystackcraft_build_is_identical_on_every_engine_and_after_a_killed_worker(
        ray_cluster, dump, nq_file, qwen, local_wiki, tmp_path) -> None:
    """The acceptance: dump parsing, token counting and the release from local and Ray with 1 and 2 workers; in the
    1-worker build the first worker seen running a stage's batch is SIGKILLed, Ray re-runs its task and the release
    is still the local one. (One build shows both: a second 1-worker build only for the kill cost ~7 s of CPU.)"""
    releases = {"local": content(local_wiki)}
    killed: list[int] = []
    for name, workers in (("ray1", 1), ("ray2", 2)):
        spec = wiki_spec(dump, nq_file, tmp_path / f"cache-{name}", engine="ray", ray_workers=workers)
        with first_stage_worker_killed(killed) if name == "ray1" else nullcontext():
            haystackcraft.build(spec, tmp_path / name, tokens=qwen, progress=False)
        releases[name] = content(tmp_path / name)
    assert len(killed) == 1 and not psutil.pid_exists(killed[0])
    manifest = releases["local"]["manifest"]
    assert manifest["corpus"]["documents"] == 22 and manifest["corpus"]["links"] > 0
    assert manifest["questions"]["kept"] == len(NQ)
    assert manifest["configs"]["static-descending"]["splits"]["test"]["rows"] > 0
    assert releases["ray1"] == releases["local"] and releases["ray2"] == releases["local"]


def test_embs_world_build_is_identical_on_every_engine(ray_cluster, qwen, tmp_path) -> None:
    """The acceptance: the MemoryBank's token counts and the materialized contexts, local and Ray (1 and 2 workers)."""
    releases = {}
    for name, engine in {"local": {}, "ray1": {"engine": "ray", "ray_workers": 1},
                         "ray2": {"engine": "ray", "ray_workers": 2}}.items():
        out = tmp_path / name
        embs.build(embs.EmbsBuild(**EMBS, **engine), out, tokens=qwen, progress=False)
        releases[name] = content(out)
    configs = releases["local"]["manifest"]["configs"]
    assert configs["memorybank"]["splits"]["test"]["rows"] >= 150 and "contexts-32K" in configs
    assert releases["ray1"] == releases["local"] and releases["ray2"] == releases["local"]


def test_a_killed_driver_leaves_no_release(ray_cluster, dump, nq_file, tmp_path) -> None:
    """The build command, joined to the cluster by --ray-address, is SIGKILLed while a stage runs: nothing is at
    --out, and the next build there completes (the release writer swaps a finished folder into place)."""
    out = tmp_path / "release"
    command = [sys.executable, "-m", "builders", "build", "haystackcraft", "--out", str(out), "--corpus",
               str(dump), "--qa", str(nq_file), "--retrievers", "bm25", "--sizes", "0,2k", "--top-k", "40",
               "--cache", str(tmp_path / "cache"), "--engine", "ray", "--ray-address", ray_cluster, "--ray-workers", "1",
               "--quiet"]
    driver = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ})
    try:
        assert wait_for(lambda: bool(stage_workers()) or driver.poll() is not None, seconds=120)
        assert driver.poll() is None, driver.communicate()[1][-2000:]
        driver.send_signal(signal.SIGKILL)
        driver.wait(timeout=30)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".release")]
    assert wait_for(lambda: not stage_workers(), seconds=60)  # Ray stops the dead job's tasks
    done = subprocess.run(command, check=False, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (out / "manifest.json").is_file() and sorted(p.name for p in tmp_path.iterdir()) == ["cache", "release"]


def wait_for(condition: Callable[[], bool], *, seconds: float) -> bool:
    """Poll ``condition`` until it holds or ``seconds`` pass (a bound against hanging, not a timed assertion)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def _batch_model_and_process(batch: int, model: int) -> tuple[int, int, int]:
    """A stage for :meth:`Engine.actor_map`: the batch, the model its actor loaded, and the actor's process."""
    time.sleep(0.06 if batch % 3 == 0 else 0.01)  # so batches finish out of order, and both actors take some
    return batch, model, os.getpid()


def test_an_actor_pool_loads_its_model_once_per_actor_and_keeps_batch_order(ray_cluster) -> None:
    """``actor_map`` on two actors whose model is the clock at load time (no actor imports torch): every batch
    comes back once and in order, both actors ran batches, and each made its model once."""
    module = sys.modules[__name__]
    ray.cloudpickle.register_pickle_by_value(module)  # the actors get the stage without importing this module
    try:
        done = list(Engine("ray", 2).actor_map(time.monotonic_ns, _batch_model_and_process, range(12)))
    finally:
        ray.cloudpickle.unregister_pickle_by_value(module)
    assert [batch for batch, _, _ in done] == list(range(12))
    models = {process: {model for _, model, ran_in in done if ran_in == process} for _, _, process in done}
    assert len(models) == 2 and os.getpid() not in models
    assert all(len(made) == 1 for made in models.values()), models


@pytest.mark.slow  # the actor and the driver each import torch and load the encoder
def test_dense_embeddings_from_an_actor_equal_local_ones(ray_cluster) -> None:
    """Dense embedding on a Ray actor holding the packaged all-MiniLM-L6-v2: two chunks of 256 and 44 documents come
    back in doc-id order, bit for bit the vectors (and encoder token counts) of the local path. (One actor: each
    imports sentence-transformers, ~9 s of CPU; the pool's order and loads are the test above.)"""
    from builders.retrieval.dense import DenseRetriever

    titles = [f"Entry {i}" for i in range(300)]
    texts = [f"Item {i} is filed under shelf {i % 17} beside {(i * 7) % 300}." for i in range(300)]
    local = DenseRetriever(titles, texts, render=lambda t, x: f"{t}\n{x}", batch_size=8)
    pooled = DenseRetriever(titles, texts, render=lambda t, x: f"{t}\n{x}", batch_size=8, engine=Engine("ray", 1))
    assert np.array_equal(pooled.embeddings, local.embeddings)
    assert pooled.truncation() == local.truncation() and pooled.truncation()["documents"] == 300
