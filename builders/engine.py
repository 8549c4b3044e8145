"""Where the embarrassingly parallel build stages run: this machine (``local``) or a Ray cluster (``ray``).

A stage is a map of one module-level function over batches (pages of a dump, documents to count,
corpora to serialize): ``fn(batch, shared) -> result``, where ``shared`` is what every batch needs
and is sent once (the namespaces of a dump, a tokenizer). :meth:`Engine.map` yields the results in
the order of the batches, whatever the engine, the number of workers or which worker finished
first, so the release a builder writes from them is byte-identical under every engine.

- ``local`` (the default) is today's code path: in this process, or for stages that asked for it
  (dump parsing) a :mod:`multiprocessing` pool with a bounded window of batches in flight. Nothing
  imports Ray.
- ``ray`` runs each batch as a Ray task (``ray.remote(max_retries=...)``), so a worker process that
  dies mid-stage has its batch re-run by Ray on another one
  (https://docs.ray.io/en/latest/ray-core/fault_tolerance/tasks.html); at most ``workers`` tasks
  run at once and at most ``workers * WINDOW_PER_WORKER`` results wait for their turn, so memory
  stays bounded; a batch goes to the object store while the workers are still busy, and token
  counting sends several batches per task (:data:`TASK_CHARS`), so Ray's own cost per task stays a
  few percent of the work; a task's tokenizer threads are capped at the one CPU Ray gives it.
  ``address`` joins an existing cluster (``ray.init(address=...)``, e.g. ``ray://head:10001`` or
  ``auto``); without one, a cluster already initialized in this process is used, else Ray starts a
  local one. Ray is the ``ray`` extra (``pip install 'needlework[ray]'``).
"""

from __future__ import annotations

import collections
import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from needlework.checks import require_one_of
from needlework.errors import NeedleworkError, SpecError
from needlework.interrupts import blocked_signals, restore_default_signals
from needlework.ray_cluster import join_ray

if TYPE_CHECKING:
    import numpy as np

    from needlework.tokens import TokenCounter

EngineName = Literal["local", "ray"]
ENGINES: tuple[str, ...] = ("local", "ray")
WINDOW_PER_WORKER = 4
TASK_CHARS = 8_000_000
"""Characters of text one Ray counting task carries (consecutive batches joined; a batch is never split).

Measured on a 2-CPU local cluster, 1 worker, 34 batches of ~1.8 MB (~90 ms of counting each): a task costs some
10 ms besides its work (its batch pickled and put, submission and lease, arguments fetched and unpickled, the
result back), which is why Ray counted 60 MB in 3.41 s against 2.80 s in one local process (+22 %). Putting each
batch while the worker is busy (``_ray_map``) brought that to 3.03 s, and tasks of ~0.4 s of counting to 2.90 s
(+2-9 % over runs; ``benchmarks/scale.py``). Small enough that 16 workers share a 1 GB corpus evenly."""
TASK_RETRIES = 3
"""Re-runs of a batch whose worker process died (Ray's default for tasks, stated so it cannot drift)."""

B = TypeVar("B")
R = TypeVar("R")
Stage = Callable[[Any, Any], Any]

ENGINE_HELP = "Where parallel stages run: local (this machine) or ray (a Ray cluster; the ray extra)."
RAY_ADDRESS_HELP = ("Ray cluster to join (ray.init address, e.g. ray://head:10001 or auto); default: a local cluster "
                    "started for the build.")
RAY_WORKERS_HELP = "Ray tasks running at once (0 = every CPU of the cluster)."


class EngineError(NeedleworkError, RuntimeError):
    """The requested engine cannot run (its extra is missing, or the cluster cannot be reached)."""


@dataclass(frozen=True)
class Engine:
    """An execution engine for per-batch maps.

    Attributes:
        name: ``local`` or ``ray``.
        workers: ``local``: processes for the stages that use them (0 = ``os.cpu_count()``, 1 = this
            process); ``ray``: tasks running at once (0 = the cluster's CPUs).
        address: ``ray``: the cluster to join ("" = this process's cluster, or a new local one).
    """

    name: EngineName = "local"
    workers: int = 0
    address: str = ""

    def __post_init__(self) -> None:
        require_one_of("engine", self.name, ENGINES)
        if self.workers < 0:
            raise SpecError(f"workers must be >= 0 (0 = every CPU), got {self.workers}")
        if self.address and self.name != "ray":
            raise SpecError("--ray-address needs --engine ray")

    def map(self, fn: Stage, batches: Iterable[Any], shared: Any = None, *, processes: bool = False) -> Iterator[Any]:
        """``fn(batch, shared)`` for every batch, yielded in batch order (see :meth:`stage`)."""
        with self.stage(fn, shared, processes=processes) as run:
            yield from run(batches)

    @contextlib.contextmanager
    def stage(self, fn: Stage, shared: Any = None, *, processes: bool = False) -> Iterator[Callable[[Iterable[Any]], Iterator[Any]]]:
        """The workers of one stage, started on entry and stopped on exit: a function from batches to
        ``fn(batch, shared)`` of each, in batch order.

        Starting them first lets a caller fork its pool before it starts threads (a progress bar).

        Args:
            fn: A module-level function (it is sent to other processes by reference).
            shared: Sent once to each worker (``ray.put`` / the pool's initializer), not per batch.
            processes: For ``local``: run in a process pool of ``workers`` (else in this process,
                the local path of stages whose library already uses every core, such as tokenizers).

        Raises:
            EngineError: Ray is not installed or its cluster cannot be joined.
            Whatever ``fn`` raises (the original exception, also from a Ray task).
        """
        if self.name == "ray":
            ray = ray_module(self.address)
            workers = self.workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
            shared_ref = ray.put(shared)
            yield lambda batches: _ray_map(ray, fn, batches, shared_ref, workers)
            return
        workers = self.workers or os.cpu_count() or 1
        if not processes or workers <= 1:
            yield lambda batches: (fn(batch, shared) for batch in batches)
            return
        with process_pool(workers, shared) as pool:
            yield lambda batches: _pool_map(pool, fn, batches, workers)

    def actor_map(self, load: Callable[[], Any], fn: Stage, batches: Iterable[Any]) -> Iterator[Any]:
        """``fn(batch, model)`` for every batch, in batch order, where ``model = load()`` is made once per worker.

        For stages holding a model (dense embedding): ``ray`` starts ``workers`` actors (Ray's actor
        pool pattern), each loading the model once, with a GPU each when the cluster has them; an
        actor whose process dies is restarted and its batch re-run. ``local`` loads the model once
        here and maps in this process (the library already uses every core).

        Args:
            load: A picklable function making the model (e.g. a ``functools.partial`` of a loader).
            fn: A module-level function of (batch, model).
            batches: The work, read lazily.
        """
        if self.name != "ray":
            model = load()
            yield from (fn(batch, model) for batch in batches)
            return
        ray = ray_module(self.address)
        resources = ray.cluster_resources()
        gpus = 1 if resources.get("GPU", 0) >= 1 else 0
        # Capped at what the cluster can hold at once: an actor left pending would never free a slot.
        slots = max(1, int(resources.get("GPU", 0) if gpus else resources.get("CPU", 1)))
        workers = min(self.workers or slots, slots)
        actor_class = ray.remote(num_cpus=1, num_gpus=gpus, max_restarts=TASK_RETRIES,
                                 max_task_retries=TASK_RETRIES)(_StageActor)
        actors = [actor_class.remote(load) for _ in range(workers)]
        free = list(actors)
        busy: dict[Any, Any] = {}

        def launch(batch: Any) -> Any:
            actor = free.pop()
            ref = actor.run.remote(fn, batch)
            busy[ref] = actor
            return ref

        try:
            yield from _in_order(ray, launch, batches, workers, finished=lambda ref: free.append(busy.pop(ref)))
        finally:
            for actor in actors:
                ray.kill(actor)

    def count_tokens(self, texts: Iterable[Sequence[str]], tokens: TokenCounter) -> Iterator[np.ndarray]:
        """Token counts of each batch of texts (``tokens.count_batch``), in batch order.

        ``ray`` sends consecutive batches as one task of about :data:`TASK_CHARS` characters, so Ray's per-task
        cost is paid once per several batches; the counts of each text are the same whatever the grouping.
        """
        if self.name != "ray":
            return self.map(count_batch, texts, tokens)
        return (counts for group in self.map(count_group, joined(texts, TASK_CHARS), tokens) for counts in group)


def engine_of(spec: Any) -> Engine:
    """The engine a build spec asks for: its ``engine``, ``ray_workers`` and ``ray_address`` fields,
    and for ``local`` its ``workers`` (processes parsing a dump; 0 = every core) where it has one."""
    name = getattr(spec, "engine", "local")
    if name == "ray":
        return Engine("ray", getattr(spec, "ray_workers", 0), getattr(spec, "ray_address", ""))
    if getattr(spec, "ray_address", ""):
        raise SpecError("--ray-address needs --engine ray")
    return Engine("local", getattr(spec, "workers", 0))


def count_batch(texts: Sequence[str], tokens: TokenCounter) -> np.ndarray:
    """Tokens of each text (a stage function for :meth:`Engine.map`)."""
    import numpy as np  # here, not at the top: build specs read this module's option names for --help

    return np.asarray(tokens.count_batch(list(texts)))


def count_group(batches: Sequence[Sequence[str]], tokens: TokenCounter) -> list[np.ndarray]:
    """:func:`count_batch` of each batch of a group (the stage of a Ray counting task)."""
    return [count_batch(texts, tokens) for texts in batches]


def joined(batches: Iterable[Sequence[str]], chars: int) -> Iterator[list[Sequence[str]]]:
    """Consecutive batches of texts grouped until a group holds at least ``chars`` characters (the last one fewer)."""
    group: list[Sequence[str]] = []
    size = 0
    for batch in batches:
        group.append(batch)
        size += sum(map(len, batch))
        if size >= chars:
            yield group
            group, size = [], 0
    if group:
        yield group


def batched(items: Iterable[B], size: int) -> Iterator[list[B]]:
    """Consecutive lists of ``size`` items (the last one shorter)."""
    batch: list[B] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


# --- local: a process pool ----------------------------------------------------------------------

_SHARED: Any = None


def _init_worker(shared: Any) -> None:
    global _SHARED
    restore_default_signals()
    _SHARED = shared


def _call_with_shared(fn: Stage, batch: Any) -> Any:
    return fn(batch, _SHARED)


def process_pool(workers: int, shared: Any = None) -> Any:
    """A :mod:`multiprocessing` pool of ``workers`` whose workers hold ``shared`` (the local engine's workers).

    The platform's default start method; with spawn or forkserver the caller's main module needs
    the usual ``if __name__ == "__main__":`` guard, as for any multiprocessing code. Workers start
    with SIGINT and SIGTERM blocked until their initializer has set the default handlers, so they
    leave Ctrl-C to the parent and die quietly on the SIGTERM that stops the pool, even one sent
    while they are still being forked.
    """
    import multiprocessing  # only the parallel path needs it

    with blocked_signals():
        return multiprocessing.get_context().Pool(workers, _init_worker, (shared,))


def _pool_map(pool: Any, fn: Stage, batches: Iterable[Any], workers: int) -> Iterator[Any]:
    """Results in batch order, ``workers * WINDOW_PER_WORKER`` batches in flight.

    An explicit window instead of ``Pool.imap``, whose feeder thread would read every batch ahead.
    """
    pending: collections.deque = collections.deque()
    for batch in batches:
        pending.append(pool.apply_async(_call_with_shared, (fn, batch)))
        if len(pending) >= workers * WINDOW_PER_WORKER:
            yield pending.popleft().get()
    while pending:
        yield pending.popleft().get()


# --- ray: tasks with retries --------------------------------------------------------------------


def ray_module(address: str = "") -> Any:
    """Ray, connected: to ``address`` if given, else as ``ray.init()`` connects (``$RAY_ADDRESS``, else a new
    local cluster); a process that is already connected (``ray.is_initialized()``, as in tests) keeps its connection.

    Raises:
        EngineError: Ray is not installed (the ``ray`` extra), or the cluster cannot be joined.
    """
    try:
        return join_ray(address, log_to_driver=False)
    except ImportError as err:
        raise EngineError("--engine ray needs Ray: pip install 'needlework[ray]'") from err
    except ConnectionError as err:
        raise EngineError(str(err)) from err


def _ray_map(ray: Any, fn: Stage, batches: Iterable[Any], shared_ref: Any, workers: int) -> Iterator[Any]:
    """Results in batch order from Ray tasks: ``workers`` running, ``workers * WINDOW_PER_WORKER`` not yet yielded."""
    task = ray.remote(num_cpus=1, max_retries=TASK_RETRIES)(_run_stage)
    # Each batch goes to the object store (ray.put) before the driver waits for a free worker, so a worker that
    # finishes does not wait for the next batch to be serialized and copied: only the task's submission.
    return _in_order(ray, lambda batch: task.remote(fn, batch, [shared_ref]), batches, workers, prepare=ray.put)


def _in_order(ray: Any, launch: Callable[[Any], Any], batches: Iterable[Any], workers: int,
              finished: Callable[[Any], None] = lambda ref: None,
              prepare: Callable[[Any], Any] = lambda batch: batch) -> Iterator[Any]:
    """``ray.get`` of ``launch(prepare(batch))`` for every batch, in batch order, with at most ``workers`` launched
    and not finished, and at most ``workers * WINDOW_PER_WORKER`` results held; ``finished(ref)`` frees its slot.
    ``prepare`` runs before waiting for a slot (work done while the workers are busy)."""
    from ray.exceptions import RayTaskError

    running: dict[Any, int] = {}
    done: dict[int, Any] = {}
    next_out = 0

    def wait_one() -> None:
        ready, _ = ray.wait(list(running), num_returns=1)
        for ref in ready:
            index = running.pop(ref)
            finished(ref)
            try:
                done[index] = ray.get(ref)
            except RayTaskError as err:  # the stage's own exception, raised as the local engine raises it
                raise (err.cause if isinstance(err.cause, BaseException) else err) from None

    try:
        for index, batch in enumerate(batches):
            batch = prepare(batch)
            while len(running) >= workers or index - next_out >= workers * WINDOW_PER_WORKER:
                if next_out in done:
                    yield done.pop(next_out)
                    next_out += 1
                else:
                    wait_one()
            running[launch(batch)] = index
            while next_out in done:
                yield done.pop(next_out)
                next_out += 1
        while running or next_out in done:
            if next_out in done:
                yield done.pop(next_out)
                next_out += 1
            else:
                wait_one()
    finally:
        for ref in running:
            ray.cancel(ref, force=True)


class _StageActor:
    """A Ray actor holding what ``load()`` made (a model), running a stage's batches with it."""

    def __init__(self, load: Callable[[], Any]) -> None:
        self.model = load()

    def run(self, fn: Stage, batch: Any) -> Any:
        """``fn(batch, model)``."""
        return fn(batch, self.model)


_WORKER_SHARED: dict[str, Any] = {}


def _run_stage(fn: Stage, batch: Any, shared_ref: list) -> Any:
    """The Ray task: one batch of a stage (its process title reads ``ray::_run_stage`` while it runs).

    The shared object comes as a reference in a list, so that Ray does not resolve it for every
    task: a worker fetches and unpickles it once (a tokenizer is megabytes) and keeps the last one.
    """
    import ray

    _one_cpu_threads()
    key = shared_ref[0].hex()
    if key not in _WORKER_SHARED:
        _WORKER_SHARED.clear()
        _WORKER_SHARED[key] = ray.get(shared_ref[0])
    return fn(batch, _WORKER_SHARED[key])


def _one_cpu_threads() -> None:
    """Cap the tokenizer's own threads at the one CPU Ray gives each task (``num_cpus=1``).

    The qwen2.5 counter (:class:`needlework.tokenizers.tiktoken_counter.TiktokenCounter`) splits a large batch over
    ``os.cpu_count()`` threads (at most 8), which in a Ray worker is the node's CPUs, not the task's: 16 workers on
    a 16-CPU node would run 128 threads. Capped, a worker uses the CPU it was given; counts do not depend on it.
    """
    from needlework.tokenizers.tiktoken_counter import set_max_threads

    set_max_threads(1)
