"""Run a model over release splits: skip finished samples, stream the rest, append every outcome.

The run directory (:class:`eval.store.RunDirectory`) holds the run file (what is being run,
written first), the samples (one record per finished request, flushed as it completes) and the
results (rewritten at the end from the records alone). Re-running the same command resumes: a
sample is keyed by a hash of everything that determines its answer, and done keys are skipped.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from tqdm.autonotebook import tqdm

from eval.benchmarks import get_task, rows_of, task_name_for_row
from eval.code_execution import refuse_code_execution, remembered_executions
from eval.failures import (
    MIN_SAMPLES_FOR_ERROR_BUDGET,
    ErrorBudgetExceeded,
    RunFailed,
    describe_failures,
)
from eval.release import Release, open_release
from eval.results import (
    SCHEMA_VERSION,
    aggregate_scores,
    count_outcomes,
    score_samples,
    stopped_at_max_tokens,
    usage_and_timing,
    width_scores,
)
from eval.selection import RowSelection
from eval.store import RunDirectory, SampleWriter, is_done
from eval.stream import stream_records
from eval.task import Task, TaskOptions
from needlework import __version__
from needlework.backends import BackendName, backend_for
from needlework.backends.base import (
    OVER_WINDOW,
    WINDOW_ERROR_KINDS,
    Backend,
    BackendError,
    Outcome,
    Request,
    check_generation,
)
from needlework.errors import NeedleworkError, SpecError

DEFAULT_GENERATION: Mapping[str, Any] = {"temperature": 0.0}
RESERVED_GENERATION_KEYS = frozenset({"model", "messages", "prompt", "stream", "n"})


@dataclass(frozen=True)
class RunSpec:
    """Everything a run is asked to do; recorded in the run file (no secrets)."""

    dataset: str
    configs: tuple[str, ...]
    model: str
    backend: BackendName = "openai"
    revision: str | None = None
    split: str = "test"
    base_url: str | tuple[str, ...] | None = None
    concurrency: int = 16
    limit: int | None = None
    select: RowSelection = RowSelection()
    generation: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    output_dir: Path | None = None
    max_error_rate: float = 0.1
    timeout_s: float = 600.0
    max_retries: int = 6
    task_options: TaskOptions = TaskOptions()
    api_key_env: str = "OPENAI_API_KEY"
    max_model_len: int | None = None
    wait_for_server_s: float = 0.0
    window_tokenizer: str | None = None
    over_window: str | None = None
    generations: int = 1
    data_parallel_size: int | None = None
    tensor_parallel_size: int = 1
    ray_address: str = ""

    def __post_init__(self) -> None:
        if not self.configs:
            raise SpecError("name at least one --config")
        if self.concurrency < 1 or self.timeout_s <= 0 or self.max_retries < 0 or self.wait_for_server_s < 0:
            raise SpecError("concurrency must be >= 1, timeout > 0, and max_retries and --wait-for-server >= 0")
        reserved = sorted(RESERVED_GENERATION_KEYS & set(self.generation))
        if reserved:
            raise SpecError(f"--gen-kwargs may not set {', '.join(reserved)}: the harness sets or depends on them")
        check_generation(self.generation)
        if len(set(self.configs)) != len(self.configs):
            raise SpecError(f"--config names a config twice: {', '.join(self.configs)}")
        if self.generations < 1:
            raise SpecError(f"--generations must be at least 1, not {self.generations}")
        if self.limit is not None and self.limit < 1:
            raise SpecError(f"--limit must be at least 1, not {self.limit}")
        if not 0.0 <= self.max_error_rate <= 1.0:
            raise SpecError(f"--max-error-rate must be in [0, 1], not {self.max_error_rate}")
        if self.over_window is not None and self.over_window not in OVER_WINDOW:
            raise SpecError(f"--over-window must be one of {', '.join(OVER_WINDOW)}, not {self.over_window!r}")
        if self.backend == "openai" and not self.base_url:
            raise SpecError("the openai backend needs --base-url (e.g. http://127.0.0.1:8000/v1)")

    def generation_for(self, row: Mapping[str, Any], release_defaults: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Generation settings for a row: defaults, then the release's evaluation settings or the row's reserve, then the user's.

        A release built with a preset that fixes the paper's decoding (``eval_generation`` in its
        manifest, :func:`release_generation`) sets ``max_tokens`` (and any other setting it names)
        for every row; otherwise ``max_tokens`` is the row's ``generation_reserve``, the room the
        build left for the answer. ``--gen-kwargs`` overrides either. Given ``max_completion_tokens``
        (OpenAI reasoning models refuse ``max_tokens``), no ``max_tokens`` is sent.
        """
        settings = dict(DEFAULT_GENERATION)
        if release_defaults:
            settings.update(release_defaults)
        elif row.get("generation_reserve"):
            settings["max_tokens"] = int(row["generation_reserve"])
        settings.update(self.generation)
        if "max_completion_tokens" in self.generation and "max_tokens" not in self.generation:
            settings.pop("max_tokens", None)
        settings.setdefault("seed", self.seed)
        return settings


def model_stem(model: str) -> str:
    """A model's name without its organisation or folder, lower case: ``Qwen/Qwen2.5-7B-Instruct``,
    ``/models/qwen2.5-7b-instruct/`` and ``qwen2.5-7b-instruct`` are one model."""
    return model.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1].lower()


def length_counting_warning(lengths_for_model: Mapping[str, Any] | None, model: str) -> str | None:
    """A warning when a release whose lengths are meant to be the evaluated model's tokens (its
    manifest's ``lengths_for_model``, written by RULERv2 builds for a named model or under the paper
    preset) was counted for another model than ``model``, or for none; ``None`` when they agree or
    the release makes no such claim."""
    if not lengths_for_model:
        return None
    built_for = lengths_for_model.get("model")
    if built_for and model_stem(built_for) == model_stem(model):
        return None
    counted = f"{lengths_for_model.get('tokenizer')}" + (f" (built for {built_for})" if built_for else "")
    return (f"lengths were counted with {counted}, not {model}'s tokenizer, so a row's length is not {model}'s length "
            f"as the paper measures it; rebuild with --model {model} to compare with the paper")


def release_generation(release: Release) -> dict[str, Any]:
    """The evaluation settings a release's preset records (manifest ``eval_generation``: the paper's decoding,
    e.g. ``max_tokens``), empty when the release leaves them to the row reserve."""
    return dict(release.manifest.get("eval_generation") or {})


@dataclass(frozen=True)
class RunOutcome:
    """What a finished (or stopped) run produced."""

    run_dir: Path
    results: dict[str, Any]
    new_samples: int
    skipped_done: int


def sample_key(release: Release, config: str, row_id: str, request: Request, model: str, seed: int) -> str:
    """sha256 over (dataset, revision, config, row id, rendered messages, model, generation, seed).

    Message contents enter through their own sha256, which keeps keying a long prompt about as
    cheap as one pass over its bytes (JSON-escaping 100K-token strings would cost several times more).
    """
    messages = [[m["role"], hashlib.sha256(m["content"].encode("utf-8")).hexdigest()] for m in request.messages]
    material = [release.identity, release.revision, config, row_id, messages, model, dict(request.generation), seed]
    return hashlib.sha256(json.dumps(material, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()


def default_run_dir(release: Release, model: str, split: str = "test") -> Path:
    """``eval-runs/<release name>/<model>`` for the test split, ``.../<model>-<split>`` for another.

    Unsafe characters are replaced. The split is in the name so that a run over another split
    (the golden-context baseline) never resumes into, or overwrites the results of, the test run.
    """
    def slug(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_") or "run"

    name = slug(model) if split == "test" else f"{slug(model)}-{slug(split)}"
    return Path("eval-runs") / slug(release.identity.split(":", 1)[1]) / name


def tasked_rows(spec: RunSpec, release: Release, configs: Iterable[str] | None = None
                ) -> Iterator[tuple[str, dict[str, Any], str, Task]]:
    """(config, row, task name, task) for every row the run covers, in release order."""
    source = rows_of(release.benchmark)
    for config in spec.configs if configs is None else configs:
        for row in source.rows(release, config, spec.split, spec.limit, spec.select.where(), spec.task_options):
            task_name = task_name_for_row(release.benchmark, row)
            yield config, row, task_name, get_task(task_name, spec.task_options)


def row_generations(spec: RunSpec, row: Mapping[str, Any], defaults: Mapping[str, Any]
                    ) -> Iterator[tuple[int | None, int, dict[str, Any]]]:
    """(generation index, seed, settings) of each response a row is asked for.

    One response: index None and the run's seed, as always. ``spec.generations`` = k > 1 (RULERv2
    D.3's width scaling): k responses, the i-th with seed ``seed + i`` (unless ``--gen-kwargs`` fixes
    a seed), each its own sample.
    """
    settings = spec.generation_for(row, defaults)
    if spec.generations == 1:
        yield None, spec.seed, settings
        return
    for index in range(spec.generations):
        seed = spec.seed + index
        yield index, seed, settings if "seed" in spec.generation else {**settings, "seed": seed}


def plan_samples(spec: RunSpec, release: Release) -> list[dict[str, Any]]:
    """Every sample the run covers: key, config, row id, task name and metadata (and the generation index
    when rows are asked several times), in release order."""
    expected = []
    defaults = release_generation(release)
    for config, row, task_name, task in tasked_rows(spec, release):
        messages = task.render(row)
        for index, seed, settings in row_generations(spec, row, defaults):
            entry = {"key": sample_key(release, config, row["id"], Request("", messages, settings), spec.model, seed),
                     "config": config, "row_id": row["id"], "task": task_name, "metadata": task.metadata(row)}
            expected.append(entry if index is None else {**entry, "generation": index})
    return expected


def _requests(spec: RunSpec, release: Release, pending: Mapping[tuple[str, str, int | None], str]
              ) -> Iterator[tuple[Request, dict[str, Any]]]:
    """(request, record stub) for each pending (config, row id, generation), re-rendered from the release."""
    configs = [c for c in spec.configs if any(c == pending_config for pending_config, _, _ in pending)]
    defaults = release_generation(release)
    for config, row, task_name, task in tasked_rows(spec, release, configs):
        for index, _, settings in row_generations(spec, row, defaults):
            key = pending.get((config, row["id"], index))
            if key is None:
                continue
            stub = {"key": key, "config": config, "row_id": row["id"], "task": task_name,
                    "references": task.references(row), "metadata": task.metadata(row)}
            yield Request(key, task.render(row), settings), stub if index is None else {**stub, "generation": index}


def _record(stub: Mapping[str, Any], outcome: Outcome) -> dict[str, Any]:
    return {**stub, **outcome.fields()}


def over_window(spec: RunSpec, release: Release | None) -> str:
    """What a prompt over the model's window gets: ``--over-window``, else what the release's preset records
    (``eval_over_window``: HaystackCraft's paper preset cuts its middle as the authors do), else ``skip``."""
    recorded = release.manifest.get("eval_over_window") if release is not None else None
    return spec.over_window or str(recorded or "skip")


def make_backend(spec: RunSpec, release: Release | None = None) -> Backend:
    """The backend the spec names; the API key comes from ``spec.api_key_env`` in the environment."""
    return backend_for(spec.backend, spec.model, base_url=spec.base_url, api_key_env=spec.api_key_env,
                       concurrency=spec.concurrency, timeout_s=spec.timeout_s, max_retries=spec.max_retries,
                       seed=spec.seed, max_model_len=spec.max_model_len, window_tokenizer=spec.window_tokenizer,
                       data_parallel_size=spec.data_parallel_size, tensor_parallel_size=spec.tensor_parallel_size,
                       ray_address=spec.ray_address,
                       over_window=over_window(spec, release))


def run(spec: RunSpec, backend: Backend | None = None, progress: bool = True) -> RunOutcome:
    """Run (or resume) ``spec``: write the run file first and the results last.

    Raises:
        ErrorBudgetExceeded: more than ``max_error_rate`` of this invocation's samples failed.
        BackendError: the backend cannot serve the run at all (401, unknown model, missing extra).
    """
    started = time.monotonic()
    release = open_release(spec.dataset, spec.revision)
    for config in spec.configs:
        release.split_info(config, spec.split)
    spec.select.check(release, spec.configs, spec.split)
    run_dir = spec.output_dir or default_run_dir(release, spec.model, spec.split)
    directory = RunDirectory(run_dir)
    directory.check_can_hold_a_run()  # before the server is asked or a row rendered
    expected = plan_samples(spec, release)
    refuse_code_execution((get_task(t, spec.task_options) for t in {e["task"] for e in expected}),
                          spec.task_options.allow_code_execution)  # before any request is sent
    records = directory.latest_samples()
    done = {key for key, record in records.items() if is_done(record)}
    pending = {(e["config"], e["row_id"], e.get("generation")): e["key"] for e in expected if e["key"] not in done}
    backend = backend or make_backend(spec, release)
    if pending:
        asyncio.run(backend.preflight(spec.wait_for_server_s))  # before anything is written or sent
    saved = write_run_file(run_dir, spec, release, backend_facts(backend, directory, asked=bool(pending)), expected)
    stop: NeedleworkError | None = None
    new = 0
    if pending:
        with directory.sample_writer() as writer:
            try:
                new = asyncio.run(_drive(spec, backend, _requests(spec, release, pending), writer,
                                         len(expected), len(expected) - len(pending), progress))
            except (ErrorBudgetExceeded, BackendError) as err:
                stop, new = err, getattr(err, "new_samples", 0)
        saved = write_run_file(run_dir, spec, release, backend.describe(), expected)  # now with engine facts
        records = directory.latest_samples()
    results = finish_run(run_dir, saved, records, started, stop,
                         allow_code_execution=spec.task_options.allow_code_execution)
    return RunOutcome(run_dir, results, new, len(expected) - len(pending))


def finish_run(run_dir: Path, saved: dict[str, Any], records: dict[str, dict[str, Any]], started: float,
               stop: Exception | None, *, allow_code_execution: bool = False, unit: str = "samples") -> dict[str, Any]:
    """Score a run that has stopped sending (done, or stopped by ``stop``) and return its results; then
    raise ``stop``, or :class:`RunFailed` when every expected ``unit`` failed (a run with no score).
    The results are written either way, so a stopped run reports what it has. Shared by the static
    harness and runs driven round by round (HaystackCraft's dynamic NIAH)."""
    expected = saved["expected"]
    failures = [records[e["key"]].get("error") for e in expected if e["key"] in records]
    if stop is None and expected and len(failures) == len(expected) and all(failures):
        stop = RunFailed(f"every one of the {len(expected)} {unit} failed, so the run has no score: "
                         f"{describe_failures(failures)}; fix the cause and re-run the same command to resume")
    results = score_run(run_dir, wall_s=time.monotonic() - started, stopped=str(stop) if stop else None,
                        saved=(saved, records), allow_code_execution=allow_code_execution)
    if stop is not None:
        raise stop
    return results


async def _drive(spec: RunSpec, backend: Backend, requests: Iterator[tuple[Request, dict[str, Any]]],
                 writer: SampleWriter, total: int, initial: int, progress: bool) -> int:
    """Stream the requests into the samples (:func:`eval.stream.stream_records`) with a progress bar,
    stopping once the error budget is spent; a stopping error carries ``new_samples``.

    The budget is checked from :data:`MIN_SAMPLES_FOR_ERROR_BUDGET` finished samples on;
    window errors (``context_length``, ``skipped_window``) do not count.
    """
    finished = 0
    failures: list[dict[str, Any]] = []
    bar = tqdm(total=total, initial=min(initial, total), unit="sample", disable=not progress, dynamic_ncols=True)

    def after(outcome: Outcome) -> None:
        nonlocal finished
        finished += 1
        if outcome.error is not None and outcome.error.kind not in WINDOW_ERROR_KINDS:
            failures.append(asdict(outcome.error))
        bar.update(1)
        bar.set_postfix(errors=len(failures), refresh=False)
        if finished >= MIN_SAMPLES_FOR_ERROR_BUDGET and len(failures) > spec.max_error_rate * finished:
            raise ErrorBudgetExceeded(
                f"stopped: {len(failures)} of {finished} samples failed (--max-error-rate {spec.max_error_rate:g}): "
                f"{describe_failures(failures)}; fix the cause and re-run the same command to resume")

    try:
        return await stream_records(backend, requests, writer, _record, after)
    except (ErrorBudgetExceeded, BackendError) as err:
        err.new_samples = finished  # type: ignore[attr-defined]
        raise
    finally:
        bar.close()


def backend_facts(backend: Backend, directory: RunDirectory, asked: bool) -> dict[str, Any]:
    """``backend.describe()``; when this invocation never asked the backend (nothing was pending, so no
    preflight), the facts it leaves unknown (None: a discovered window and how it is counted, engine
    facts) are kept from the run file of the invocation that did, so a resume does not erase them."""
    info = backend.describe()
    if asked or not directory.is_run():
        return info
    earlier = directory.read_run().get("provenance") or {}
    return {key: earlier.get(key) if value is None else value for key, value in info.items()}


def write_run_file(run_dir: Path, spec: RunSpec, release: Release, backend_info: Mapping[str, Any],
                   expected: list[dict[str, Any]]) -> dict[str, Any]:
    """Write the run file: the run as asked (no secrets), provenance, and every expected sample."""
    run_info = {
        "dataset": spec.dataset, "revision": release.revision, "configs": list(spec.configs), "split": spec.split,
        "model": spec.model, "backend": spec.backend, "generation": dict(spec.generation), "seed": spec.seed,
        "limit": spec.limit, "select": spec.select.record(), "task_options": asdict(spec.task_options),
        **({"generations": spec.generations} if spec.generations > 1 else {}),
    }
    provenance = {
        "needlework_version": __version__, "dataset_identity": release.identity, "benchmark": release.benchmark,
        "manifest_sha256": release.manifest_sha256, "tokenizer": release.manifest.get("tokenizer"),
        "eval_generation": release_generation(release) or None,
        "lengths_for_model": release.manifest.get("lengths_for_model"),
        "dense_model": ((release.manifest.get("retrieval") or {}).get("dense") or {}).get("model"),
        **dict(backend_info),
    }
    saved = {"schema_version": SCHEMA_VERSION, "run": run_info, "provenance": provenance, "expected": expected}
    RunDirectory(run_dir).write_run(saved)
    return saved


def score_run(run_dir: Path, wall_s: float | None = None, stopped: str | None = None,
              saved: tuple[dict[str, Any], dict[str, dict[str, Any]]] | None = None,
              allow_code_execution: bool = False, code_timeout_s: float | None = None) -> dict[str, Any]:
    """Re-score a run from its run file and samples alone and rewrite its results.

    ``saved`` hands over the run file's content and the latest records when the caller already
    holds them (the end of :func:`run`), instead of reading them back. A run whose tasks score by
    running the model's code (RULERv2 over MBPP) is re-scored only with ``allow_code_execution``
    (this invocation's consent, never the run file's), each solution given ``code_timeout_s``
    seconds (default: the run's).
    """
    directory = RunDirectory(run_dir)
    if saved is None:
        saved = (directory.read_run(), directory.latest_samples())
    saved_run, records = saved
    run_info, expected = saved_run["run"], saved_run["expected"]
    options = replace(TaskOptions.from_record(run_info["task_options"]), allow_code_execution=allow_code_execution)
    if code_timeout_s is not None:
        options = replace(options, code_timeout_s=code_timeout_s)
    refuse_code_execution((get_task(t, options) for t in {e["task"] for e in expected}), allow_code_execution)
    with remembered_executions(directory.executions_file):
        scored = score_samples(expected, records, options)
    width = width_scores(expected, scored)
    metrics = sorted({get_task(t, options).metric for t in {e["task"] for e in expected}})
    counts = count_outcomes(scored)
    expected_keys = {e["key"] for e in expected}
    usage, timing = usage_and_timing(r for k, r in records.items() if k in expected_keys)
    previous = directory.previous_results()
    before = (previous or {}).get("timing", {})
    timing["wall_s"] = round(wall_s, 3) if wall_s is not None else before.get("wall_s")
    timing["wall_s_all_invocations"] = round((before.get("wall_s_all_invocations") or 0.0) + (wall_s or 0.0), 3)
    warnings = []
    truncated = stopped_at_max_tokens(r for k, r in records.items() if k in expected_keys)
    if truncated:
        limit = run_info.get("generation", {}).get("max_tokens") or (saved_run["provenance"].get("eval_generation") or {}).get(
            "max_tokens")
        warnings.append(f"{truncated} of {counts['answered']} answers stopped at max_tokens "
                        f"({limit if limit is not None else 'the row reserve'}; finish_reason 'length') and may be cut off "
                        "before their answer; raise it with --gen-kwargs max_tokens=N and re-run to compare")
    counting = length_counting_warning(saved_run["provenance"].get("lengths_for_model"), run_info["model"])
    if counting:
        warnings.append(counting)
    if counts["errors"].get("skipped_window"):
        warnings.append(f"{counts['errors']['skipped_window']} samples were over the model's window (counted before "
                        "sending) and were skipped, not truncated; compare only lengths inside the window")
    if counts["errors"].get("context_length"):
        warnings.append(f"{counts['errors']['context_length']} samples did not fit the model's context window "
                        "and score 0; compare only lengths inside the window")
    reasons = []
    if run_info.get("limit") is not None:
        reasons.append(f"--limit {run_info['limit']}: only the first rows of each config were run")
    selection = RowSelection.from_record(run_info.get("select"))
    if selection.record():
        reasons.append(f"{selection.describe()}: only the rows of these lengths were run")
    if counts["missing"]:
        reasons.append(f"{counts['missing']} of {counts['expected']} samples have no answer yet; re-run to resume")
    results = {
        "schema_version": SCHEMA_VERSION,
        "complete": counts["missing"] == 0,
        "reportable": not reasons,
        "not_reportable_because": reasons,
        "stopped": stopped,
        "warnings": warnings,
        "run": run_info,
        "provenance": saved_run["provenance"],
        "counts": counts,
        "stopped_at_max_tokens": truncated,
        "usage": usage,
        "timing": timing,
        "scores": aggregate_scores(scored, "; ".join(metrics)),
        **({"width": width} if width else {}),
    }
    directory.write_results(results)
    return results
