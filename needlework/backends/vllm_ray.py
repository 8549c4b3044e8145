"""The ``vllm`` backend's data-parallel path: N engine replicas through Ray Data's LLM batch processor.

``VllmBackend(data_parallel=DataParallel(N))`` (``python -m eval run --backend vllm --data-parallel-size N``)
keeps everything the single in-process engine does on the driver: the harness renders every prompt's
token ids with the model's chat template, sizes ``max_model_len``, skips prompts that cannot fit (never
truncating), and orders the rest by token ids. The fitting prompts then become a Ray Dataset of rows
``{key, ids, sampling_params}`` in that order, and Ray Data's vLLM processor
(``ray.data.llm.vLLMEngineProcessorConfig`` + ``build_processor``; Ray's
``python/ray/llm/_internal/batch/processor/vllm_engine_proc.py``) runs them on ``N`` actors, each one
vLLM engine over ``tensor_parallel_size`` GPUs, ``concurrency=(N, N)`` so the pool holds exactly N.

Ray's own chat-template, tokenize and detokenize stages are switched off: the engine stage
(``stages/vllm_engine_stage.py``) sends the row's ``tokenized_prompt`` as a ``TokensPrompt`` and builds
``vllm.SamplingParams(**sampling_params)``, so the model sees exactly the ids and settings the single
engine sends, and ``generated_text`` is vLLM's own detokenization under those settings. Consecutive rows
form a batch on one replica, so prompts sharing a prefix still meet in one engine's prefix cache.

Rows come back through ``Dataset.iter_rows()`` as Ray Data finishes each task (a batch or a few; Ray
returns a task's batches in their input order, tasks in completion order), and each becomes an
:class:`~needlework.backends.base.Outcome` at once, so the runner flushes it and an interrupted run keeps
what finished. Each stream starts its own replicas (Ray Data's actors live as long as the dataset).

Ray's engine stage does not return vLLM's ``finish_reason``; :func:`finish_reason` derives it from the
token count (see there).

Ray and vLLM are imported only when this path is used.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from needlework.backends.base import BackendError, Outcome, Usage
from needlework.backends.token_ids import unpack_ids
from needlework.ray_cluster import join_ray

MISSING_EXTRA = (
    "the vllm backend's --data-parallel-size needs the 'vllm' extra (vllm and ray[data]): "
    "pip install 'needlework[vllm]' (CUDA-only)"
)

MAX_CONCURRENT_BATCHES = 8
"""Batches one replica runs at once (Ray's ``max_concurrent_batches`` default): with a batch of
``ceil(chunk_size / 8)`` rows a replica holds at most ``chunk_size`` requests, as the single engine does."""

OUTPUT_FIELDS: tuple[str, ...] = ("key", "generated_text", "num_generated_tokens", "num_input_tokens", "time_taken_llm")
"""What the postprocess keeps of an engine row: the request key plus the engine stage's
``vLLMOutputData`` fields and its ``time_taken_llm`` (the rest, e.g. the prompt's ids, stays on the worker)."""

ProcessorFactory = Callable[[Any, Callable[[dict[str, Any]], dict[str, Any]], Callable[[dict[str, Any]], dict[str, Any]]], Any]
"""Makes the processor from ``(vLLMEngineProcessorConfig, preprocess, postprocess)``, as
``ray.data.llm.build_processor`` does (:func:`build_ray_processor`, the default)."""


@dataclass(frozen=True)
class DataParallel:
    """How many engine replicas run, and on which Ray cluster.

    Attributes:
        replicas: vLLM engines running at once, each on ``tensor_parallel_size`` GPUs (>= 1).
        ray_address: The cluster to join (``ray.init(address=...)``: ``auto``, ``HEAD_IP:6379``,
            ``ray://HEAD_IP:10001``); "" joins the one this process is connected to, else
            ``$RAY_ADDRESS``, else starts a local cluster.
    """

    replicas: int
    ray_address: str = ""

    def __post_init__(self) -> None:
        if isinstance(self.replicas, bool) or not isinstance(self.replicas, int) or self.replicas < 1:
            raise ValueError(f"data parallelism needs at least 1 replica, got {self.replicas!r}")


def batch_size_for(chunk_size: int) -> int:
    """Rows per Ray Data batch so that one replica holds at most ``chunk_size`` requests
    (:data:`MAX_CONCURRENT_BATCHES` batches at once); outcomes reach the runner batch by batch."""
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    return math.ceil(chunk_size / MAX_CONCURRENT_BATCHES)


def prompt_rows(keys: Sequence[str], prompts: Mapping[str, tuple[bytes, Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """The dataset rows for the engine, in ``keys`` order: key, packed token ids, sampling settings.

    Ray Data stores ``sampling_params`` as one Arrow struct column, whose fields are the union over the
    rows: a setting missing from one row would reach vLLM as ``None`` there. So every row must name
    the same settings (a run's rows do: defaults, ``max_tokens``, ``seed``).

    Args:
        keys: The request keys to run, in the order to run them (the plan's token-id order).
        prompts: ``key -> (ids packed by token_ids.pack_ids, SamplingParams keywords)``.

    Returns:
        One row per key.

    Raises:
        BackendError: Two requests name different generation settings.
    """
    rows = []
    names: frozenset[str] | None = None
    for key in keys:
        ids, sampling = prompts[key]
        if names is None:
            names = frozenset(sampling)
        elif frozenset(sampling) != names:
            raise BackendError(
                f"request {key!r} names the generation settings {sorted(sampling)}, others {sorted(names)}; "
                "the data-parallel vllm path needs the same settings for every request"
            )
        rows.append({"key": key, "ids": ids, "sampling_params": dict(sampling)})
    return rows


def tokens_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The processor's preprocess (on a Ray worker): unpack the row's ids into the engine stage's
    ``tokenized_prompt``, so the driver ships 4 bytes a token instead of a Python list."""
    return {"tokenized_prompt": unpack_ids(bytes(row["ids"]))}


def output_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The processor's postprocess (on a Ray worker): keep :data:`OUTPUT_FIELDS` of an engine row."""
    return {field: row[field] for field in OUTPUT_FIELDS}


def processor_config_kwargs(model: str, engine_kwargs: Mapping[str, Any], replicas: int, batch_size: int) -> dict[str, Any]:
    """Keywords of ``ray.data.llm.vLLMEngineProcessorConfig`` for ``replicas`` engines over harness token ids.

    ``concurrency=(replicas, replicas)`` pins the actor pool to exactly that size (an int would let it
    autoscale from 1, per ``ProcessorConfig.get_concurrency``); the chat-template, tokenize and
    detokenize stages are off (the harness renders ids; vLLM detokenizes); an engine error stops the
    run, as it does for the single engine; engine metrics export (which needs a metrics port) is off.
    """
    return {
        "model_source": model,
        "engine_kwargs": dict(engine_kwargs),
        "concurrency": (replicas, replicas),
        "batch_size": batch_size,
        "max_concurrent_batches": MAX_CONCURRENT_BATCHES,
        "chat_template_stage": False,
        "tokenize_stage": False,
        "detokenize_stage": False,
        "should_continue_on_error": False,
        "log_engine_metrics": False,
    }


def finish_reason(generated_tokens: int, max_tokens: int) -> str:
    """``length`` when the completion used all of ``max_tokens``, else ``stop``.

    Ray's engine stage keeps vLLM's text and token ids but not its ``finish_reason``. An engine sized to
    the longest prompt + its ``max_tokens`` ends a request early only on a stop condition (EOS, a stop
    token or string), so fewer tokens than ``max_tokens`` is vLLM's ``stop``. A completion of exactly
    ``max_tokens`` tokens is called ``length``; vLLM says ``stop`` instead when its stop condition fell
    on that very last token.
    """
    return "length" if generated_tokens >= max_tokens else "stop"


def outcome_from_row(row: Mapping[str, Any], prompt_tokens: int, max_tokens: int) -> Outcome:
    """The :class:`Outcome` of one engine row (:func:`output_row`), with the same fields the single
    engine's outcome has: vLLM's text, the harness's prompt token count, the generated token count.

    ``latency_s`` is the engine stage's ``time_taken_llm`` for this request (the single engine
    divides a chunk's time among its requests instead).

    Raises:
        BackendError: The engine saw another number of prompt tokens than the harness rendered.
    """
    if int(row["num_input_tokens"]) != prompt_tokens:
        raise BackendError(
            f"request {row['key']!r}: the engine received {row['num_input_tokens']} prompt tokens, "
            f"the harness rendered {prompt_tokens}"
        )
    generated = int(row["num_generated_tokens"])
    return Outcome(
        key=str(row["key"]),
        text=str(row["generated_text"]),
        finish_reason=finish_reason(generated, max_tokens),
        usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=generated),
        latency_s=float(row["time_taken_llm"]),
    )


def import_ray() -> Any:
    """``ray`` with Ray Data's LLM processor importable, else :class:`BackendError` naming the extra."""
    try:
        importlib.import_module("ray.data.llm")
        return importlib.import_module("ray")
    except ImportError as error:
        raise BackendError(MISSING_EXTRA) from error


def connect(address: str = "") -> Any:
    """Ray, connected to ``address`` (see :class:`DataParallel`); a process already connected keeps its
    connection (:func:`needlework.ray_cluster.join_ray`, the rule the builders' ``--engine ray`` follows too).

    Raises:
        BackendError: Ray is missing (the extra), or the cluster cannot be joined.
    """
    import_ray()
    try:
        return join_ray(address)
    except ConnectionError as error:
        raise BackendError(str(error)) from error


def build_ray_processor(config: Any, preprocess: Callable[[dict[str, Any]], dict[str, Any]],
                        postprocess: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    """Ray Data's vLLM processor for ``config``, after checking the cluster has the GPUs it asks for.

    Raises:
        BackendError: The connected cluster has fewer GPUs than replicas x ``tensor_parallel_size``
            (Ray Data would wait for them forever).
    """
    import ray
    from ray.data.llm import build_processor

    replicas = config.concurrency[1] if isinstance(config.concurrency, tuple) else config.concurrency
    tensor_parallel = int(config.engine_kwargs.get("tensor_parallel_size", 1))
    pipeline_parallel = int(config.engine_kwargs.get("pipeline_parallel_size", 1))
    needed = replicas * tensor_parallel * pipeline_parallel
    available = ray.cluster_resources().get("GPU", 0)
    if available < needed:
        raise BackendError(
            f"{replicas} vLLM replicas x {tensor_parallel * pipeline_parallel} GPUs need {needed} GPUs; "
            f"the Ray cluster has {available:g}"
        )
    return build_processor(config, preprocess=preprocess, postprocess=postprocess)


def processed_rows(ray: Any, model: str, engine_kwargs: Mapping[str, Any], replicas: int, batch_size: int,
                   rows: list[dict[str, Any]], processor_factory: ProcessorFactory) -> Generator[dict[str, Any], None, None]:
    """Run ``rows`` through the processor and yield its output rows (:func:`output_row`) as Ray Data
    produces them. Closing the iterator stops the pipeline (Ray Data shuts its actors down)."""
    from ray.data.llm import vLLMEngineProcessorConfig

    config = vLLMEngineProcessorConfig(**processor_config_kwargs(model, engine_kwargs, replicas, batch_size))
    processor = processor_factory(config, tokens_row, output_row)
    # One block per batch keeps consecutive (prefix-sharing) rows together and lets batches start at once.
    dataset = ray.data.from_items(rows, override_num_blocks=max(1, math.ceil(len(rows) / batch_size)))
    yield from processor(dataset).iter_rows()
