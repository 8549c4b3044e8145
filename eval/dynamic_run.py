"""``python -m eval run --config dynamic`` on a HaystackCraft release: a run directory like a static run's, driven
round by round (:func:`eval.benchmarks.haystackcraft.dynamic.run_rounds`).

This is a run loop beside :func:`eval.runner.run`, so it lives with the runner, above the benchmarks: the benchmark
module declares the rounds (items, task, restore, the round loop), this module writes the run directory around them.

The run file lists one expected sample per item (its key does not depend on any prompt, so it is known before the
first round); the samples log holds every round record and, per finished item, the item record that is scored.
Results are written by the static harness's :func:`eval.runner.score_run`, so ``python -m eval score`` and
``report`` read a dynamic run as any other. The run file's expected entries carry, once an item is done, its
``rounds_used`` and ``early_stop`` (Tables 20/21 count early stops from them).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from eval.benchmarks.haystackcraft.dynamic import (
    CONFIG,
    DEFAULT_MAX_TOKENS,
    DYNAMIC,
    DynamicTask,
    KeyBase,
    is_dynamic_config,
    restore,
    run_rounds,
)
from eval.failures import ErrorBudgetExceeded
from eval.release import Release, open_release
from eval.runner import (
    RunOutcome,
    RunSpec,
    backend_facts,
    default_run_dir,
    finish_run,
    make_backend,
    run,
    write_run_file,
)
from eval.store import RunDirectory, is_done
from needlework.backends.base import Backend, BackendError
from needlework.errors import NeedleworkError, SpecError
from needlework.tokens import TokenCounter


def dynamic_settings(spec: RunSpec) -> dict[str, Any]:
    """Generation settings of every round: temperature 0, :data:`DEFAULT_MAX_TOKENS` new tokens (the official code's
    512 for open non-reasoning models), then ``--gen-kwargs``, then the run's seed."""
    return spec.generation_for({"generation_reserve": DEFAULT_MAX_TOKENS})


def run_any(spec: RunSpec, backend: Backend | None = None, progress: bool = True) -> RunOutcome:
    """:func:`run_dynamic` when the run names the ``dynamic`` config, else the static harness's :func:`eval.runner.run`."""
    if any(is_dynamic_config(c) for c in spec.configs):
        return run_dynamic(spec, backend, progress)
    return run(spec, backend, progress)


def _items(spec: RunSpec, release: Release) -> list[dict[str, Any]]:
    from eval.benchmarks.haystackcraft.dynamic import dynamic_items

    return list(dynamic_items(release, spec.split, spec.select.where(), spec.limit))


def run_dynamic(spec: RunSpec, backend: Backend | None = None, progress: bool = True, *,
                tokens: TokenCounter | None = None, world: Any = None) -> RunOutcome:
    """Run (or resume) dynamic NIAH on a release: write the run file first, every round as it completes, the
    results last.

    Args:
        spec: The run; its only config must be ``dynamic``.
        backend: The model backend (made from ``spec`` when ``None``).
        progress: Show a progress bar.
        tokens: The release's tokenizer, when the caller has it loaded.
        world: An opened :class:`eval.benchmarks.haystackcraft.dynamic_world.DynamicWorld` to reuse.
    """
    started = time.monotonic()
    if spec.configs != (CONFIG,):
        raise SpecError(f"run the {CONFIG} config on its own (got --config {', '.join(spec.configs)})")
    if spec.generations != 1:
        raise SpecError("--generations applies to static rows; a dynamic item is asked once per round")
    release = open_release(spec.dataset, spec.revision)
    release.split_info(CONFIG, spec.split)
    spec.select.check(release, spec.configs, spec.split)
    run_dir = spec.output_dir or default_run_dir(release, spec.model, spec.split)
    directory = RunDirectory(run_dir)
    settings = dynamic_settings(spec)
    keys = KeyBase(release.identity, release.revision, spec.model, settings, spec.seed)
    task = DynamicTask(DYNAMIC, spec.task_options)
    items = _items(spec, release)
    states = restore(items, keys, directory.latest_samples())
    expected = [_expected(s, task) for s in states]
    pending = [s for s in states if not (s.finished and s.recorded)]
    skipped = len(states) - len(pending)
    backend = backend or make_backend(spec, release)
    if pending:
        asyncio.run(backend.preflight(spec.wait_for_server_s))
    saved = write_run_file(run_dir, spec, release, backend_facts(backend, directory, asked=bool(pending)), expected)
    stop: NeedleworkError | None = None
    new = 0
    if pending:
        if world is None:
            from eval.benchmarks.haystackcraft.dynamic_world import DynamicWorld

            world = DynamicWorld(release, tokens)
        with directory.sample_writer() as writer:
            try:
                stats = run_rounds(states, world, backend, writer, keys, settings, task,
                                   max_error_rate=spec.max_error_rate, progress=progress)
                new = stats.requests
            except (ErrorBudgetExceeded, BackendError) as err:
                stop = err
        expected = [_expected(s, task) for s in states]
        saved = write_run_file(run_dir, spec, release, backend.describe(), expected)
    results = finish_run(run_dir, saved, directory.latest_samples(), started, stop, unit="dynamic items")
    return RunOutcome(run_dir, results, new, skipped)


def _expected(state: Any, task: DynamicTask) -> dict[str, Any]:
    """An item's expected entry: key, config, row id, task and metadata (with rounds used and early stop once done)."""
    metadata = task.metadata(state.item)
    if state.finished and state.rounds and is_done(state.rounds[-1]):
        metadata = {**metadata, "rounds_used": len(state.rounds), "early_stop": bool(state.rounds[-1].get("early_stop"))}
    return {"key": state.key, "config": CONFIG, "row_id": state.item["id"], "task": DYNAMIC, "metadata": metadata}
