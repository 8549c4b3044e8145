"""The ``vllm`` backend: an offline vLLM engine fed token ids that the harness rendered itself.

The harness applies the model's chat template with the Hugging Face tokenizer, so the prompt the
model sees is exactly the one recorded (its template is fingerprinted in :meth:`VllmBackend.describe`).
All requests are tokenized first; that pass sizes the engine's ``max_model_len`` to the longest prompt
plus its ``max_tokens`` (no larger than the model's window), skips prompts that cannot fit (never
truncating them), and orders the rest by token ids so prompts sharing a long prefix run together,
where vLLM's prefix cache reuses their KV blocks. Requests then run in bounded chunks, and each
chunk's outcomes are yielded before the next starts, so the caller can flush them to disk.

``vllm`` (and the ``transformers`` it brings) are imported only when a backend is constructed.
Given ``data_parallel``, the planned prompts run on N engine replicas through Ray Data's LLM batch
processor instead (:mod:`needlework.backends.vllm_ray`); Ray is imported only then.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import json
import time
from collections.abc import (
    AsyncIterator,
    Callable,
    Generator,
    Iterable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from typing import Any, NamedTuple

from needlework.backends import vllm_ray
from needlework.backends.base import (
    BackendError,
    Message,
    Outcome,
    PreflightError,
    Request,
    SampleError,
    Usage,
)
from needlework.backends.token_ids import TokenIds, count_tokens, pack_ids, unpack_ids
from needlework.backends.vllm_ray import DataParallel, ProcessorFactory

MISSING_EXTRA = "the vllm backend needs the 'vllm' extra: pip install 'needlework[vllm]' (CUDA-only)"

SAMPLING_KEYS: tuple[str, ...] = (
    "frequency_penalty",
    "ignore_eos",
    "include_stop_str_in_output",
    "max_tokens",
    "min_p",
    "min_tokens",
    "presence_penalty",
    "repetition_penalty",
    "seed",
    "skip_special_tokens",
    "spaces_between_special_tokens",
    "stop",
    "stop_token_ids",
    "temperature",
    "top_k",
    "top_p",
)
"""Generation settings passed on to ``vllm.SamplingParams`` (documented fields of the same name).

``n`` is left out on purpose: every request yields exactly one outcome.
"""

WINDOW_CONFIG_KEYS: tuple[str, ...] = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
"""Hugging Face config attributes that vLLM reads for a model's length; the smallest one present wins."""

# RoPE types whose configured length already includes the scaling (as vLLM treats them).
_PRESCALED_ROPE_TYPES = frozenset({"su", "longrope", "llama3"})

def render_prompt_ids(tokenizer: Any, messages: Sequence[Message]) -> list[int]:
    """Apply the tokenizer's chat template to messages and return the prompt's token ids.

    A conversation ending with an ``assistant`` message is an answer prefix: the template
    continues that message instead of opening a new assistant turn.

    Args:
        tokenizer: A Hugging Face tokenizer (anything with ``apply_chat_template``).
        messages: The chat, ``{"role": ..., "content": ...}`` mappings.

    Returns:
        The token ids the model is to continue.
    """
    prefill = bool(messages) and messages[-1].get("role") == "assistant"
    rendered = tokenizer.apply_chat_template(
        [dict(message) for message in messages],
        tokenize=True,
        add_generation_prompt=not prefill,
        continue_final_message=prefill,
        # Transformers 5 returns a BatchEncoding unless told otherwise.
        return_dict=False,
    )
    if isinstance(rendered, Mapping):
        rendered = rendered["input_ids"]
    return [int(token) for token in rendered]


def sampling_kwargs(generation: Mapping[str, Any]) -> dict[str, Any]:
    """Check a request's generation settings and return them as ``SamplingParams`` keywords.

    Args:
        generation: Settings such as ``{"temperature": 0, "max_tokens": 128, "seed": 0}``.

    Returns:
        The same settings, as a new dict.

    Raises:
        BackendError: A key is not one of :data:`SAMPLING_KEYS`, or ``max_tokens`` is missing or
            not a positive integer (the engine's length is sized from it).
    """
    unknown = sorted(set(generation) - set(SAMPLING_KEYS))
    if unknown:
        raise BackendError(
            f"generation setting {', '.join(map(repr, unknown))} not supported by the vllm backend; "
            f"valid settings: {', '.join(SAMPLING_KEYS)}"
        )
    max_tokens = generation.get("max_tokens")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise BackendError(
            f"generation setting 'max_tokens' must be a positive integer for the vllm backend, got {max_tokens!r}"
        )
    return dict(generation)


@dataclass(frozen=True)
class Plan:
    """How a batch of tokenized prompts runs on one engine.

    Attributes:
        max_model_len: The engine length in tokens: the largest prompt + ``max_tokens`` among
            the prompts that fit (0 when none fits).
        chunks: Keys of the prompts to run, in token-id order, at most ``chunk_size`` a chunk.
        skipped: Keys of the prompts whose tokens + ``max_tokens`` exceed the window, in input order.
    """

    max_model_len: int
    chunks: tuple[tuple[str, ...], ...]
    skipped: tuple[str, ...]


def plan_chunks(prompts: Sequence[tuple[str, TokenIds, int]], window: int, chunk_size: int) -> Plan:
    """Size the engine, drop prompts that do not fit, and order the rest to share prefixes.

    Sorting by token ids puts prompts with a common prefix (the same haystack, say) next to each
    other, so they land in the same chunk and vLLM's prefix cache computes that prefix once.

    Args:
        prompts: ``(key, packed token ids, max_tokens)`` per request; ids packed by :func:`pack_ids`.
        window: The model's context window in tokens (prompt + completion).
        chunk_size: The most prompts per chunk (>= 1).

    Returns:
        The :class:`Plan`.

    Raises:
        ValueError: ``chunk_size`` is below 1.
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    needs = [(ids, key, count_tokens(ids) + max_tokens) for key, ids, max_tokens in prompts]
    skipped = tuple(key for _, key, needed in needs if needed > window)
    # Packed ids compare as token sequences; the key breaks ties so the order never depends on input order.
    fitting = sorted(entry for entry in needs if entry[2] <= window)
    keys = [key for _, key, _ in fitting]
    chunks = tuple(tuple(keys[start : start + chunk_size]) for start in range(0, len(keys), chunk_size))
    return Plan(max((needed for *_, needed in fitting), default=0), chunks, skipped)


def window_from_config(config: Any, tokenizer_max_length: int | None = None) -> int:
    """The model's context window in tokens, derived from its Hugging Face config as vLLM does.

    The smallest of :data:`WINDOW_CONFIG_KEYS` present, capped by the tokenizer's
    ``model_max_length``, times the RoPE scaling factor (YaRN scales
    ``original_max_position_embeddings``; ``su``/``longrope``/``llama3`` and Gemma 3 are taken
    as already scaled), following vLLM's ``_get_and_verify_max_len``.

    Args:
        config: A ``transformers`` config (``AutoConfig.from_pretrained(model)``).
        tokenizer_max_length: The tokenizer's ``model_max_length``, if any.

    Returns:
        The window in tokens.

    Raises:
        BackendError: The config names no length; pass ``max_model_len`` explicitly then.
    """
    text_config = config.get_text_config() if hasattr(config, "get_text_config") else config
    lengths = [getattr(text_config, key, None) for key in WINDOW_CONFIG_KEYS]
    lengths = [length for length in lengths if isinstance(length, (int, float)) and length > 0]
    if not lengths:
        raise BackendError(
            f"the model config has none of {', '.join(WINDOW_CONFIG_KEYS)}; pass max_model_len to the vllm backend"
        )
    window = min(lengths)
    if isinstance(tokenizer_max_length, (int, float)) and tokenizer_max_length > 0:
        window = min(window, tokenizer_max_length)
    return int(_rope_scaled(window, text_config))


def _rope_scaled(window: float, text_config: Any) -> float:
    rope = getattr(text_config, "rope_parameters", None) or getattr(text_config, "rope_scaling", None)
    if not isinstance(rope, Mapping) or "gemma3" in str(getattr(text_config, "model_type", "")):
        return window
    # Transformers 5 may give one RoPE setting per layer type.
    settings = list(rope.values()) if all(isinstance(v, Mapping) for v in rope.values()) else [rope]
    factor = 1.0
    for setting in settings:
        rope_type = setting.get("rope_type", setting.get("type"))
        if rope_type in _PRESCALED_ROPE_TYPES:
            continue
        factor = setting.get("factor", factor)
        if rope_type == "yarn" and "original_max_position_embeddings" in setting:
            window = setting["original_max_position_embeddings"]
    return window * factor


def chat_template_sha256(tokenizer: Any) -> str | None:
    """SHA-256 (hex) of the tokenizer's chat template text; None when it has none.

    A tokenizer with several named templates is hashed over their JSON, keys sorted.
    """
    template = getattr(tokenizer, "chat_template", None)
    if template is None:
        return None
    text = template if isinstance(template, str) else json.dumps(template, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# Engine arguments the backend owns: the model, the length sized from the prompts, and the prefix cache.
_RESERVED_ENGINE_KWARGS = frozenset({"model", "max_model_len", "enable_prefix_caching"})


class _Prompt(NamedTuple):
    ids: TokenIds
    sampling: dict[str, Any]


def _import(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise BackendError(MISSING_EXTRA) from error


def _hf_tokenizer(model: str) -> Any:
    return _import("transformers").AutoTokenizer.from_pretrained(model)


def _hf_config(model: str) -> Any:
    return _import("transformers").AutoConfig.from_pretrained(model)


class VllmBackend:
    """An offline vLLM engine over prompts tokenized by the harness (see the module docstring).

    The engine is created on the first :meth:`stream`, sized for that stream's prompts; a later
    stream whose prompts need a longer engine raises :class:`BackendError`.
    """

    name = "vllm"

    def __init__(
        self,
        model: str,
        *,
        max_model_len: int | None = None,
        chunk_size: int = 256,
        engine_kwargs: Mapping[str, Any] | None = None,
        engine_factory: Callable[..., Any] | None = None,
        sampling_params_factory: Callable[..., Any] | None = None,
        tokenizer_factory: Callable[[str], Any] | None = None,
        config_factory: Callable[[str], Any] | None = None,
        data_parallel: DataParallel | None = None,
        processor_factory: ProcessorFactory | None = None,
    ) -> None:
        """Load the tokenizer and find the model's window; the engine waits for the prompts.

        Args:
            model: A Hugging Face model id or local path, for the tokenizer and the engine.
            max_model_len: The model's window in tokens; None reads it from the model's config
                (:func:`window_from_config`).
            chunk_size: The most requests handed to the engine at once.
            engine_kwargs: More ``vllm.LLM`` arguments (``tensor_parallel_size``, ``dtype`` ...).
            engine_factory: Makes the engine, called like ``vllm.LLM`` (default).
            sampling_params_factory: Makes sampling parameters, called like ``vllm.SamplingParams``
                (default).
            tokenizer_factory: Loads the tokenizer for ``model``; default
                ``transformers.AutoTokenizer.from_pretrained``.
            config_factory: Loads the model config when ``max_model_len`` is None; default
                ``transformers.AutoConfig.from_pretrained``.
            data_parallel: Run on this many engine replicas (each ``engine_kwargs``'
                ``tensor_parallel_size`` GPUs) through Ray Data's LLM processor
                (:mod:`needlework.backends.vllm_ray`); None runs one engine in this process.
            processor_factory: With ``data_parallel``: makes the Ray processor, called like
                :func:`needlework.backends.vllm_ray.build_ray_processor` (default).

        Raises:
            BackendError: ``vllm`` or ``transformers`` is not installed (or, with ``data_parallel``,
                Ray), the tokenizer has no chat template, or the window is unknown.
            ValueError: ``chunk_size`` or ``max_model_len`` is below 1, or ``engine_kwargs`` sets
                ``model``, ``max_model_len`` or ``enable_prefix_caching``.
        """
        if chunk_size < 1:
            raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
        if max_model_len is not None and max_model_len < 1:
            raise ValueError(f"max_model_len must be at least 1, got {max_model_len}")
        reserved = sorted(_RESERVED_ENGINE_KWARGS & set(engine_kwargs or {}))
        if reserved:
            raise ValueError(f"engine_kwargs may not set {', '.join(reserved)}: the vllm backend sets them")
        self.vllm_version: str | None = None
        self.data_parallel = data_parallel
        self.ray_version: str | None = None
        if data_parallel is not None:
            self.ray_version = getattr(vllm_ray.import_ray(), "__version__", None)
            if processor_factory is None:
                self.vllm_version = getattr(_import("vllm"), "__version__", None)
            self._processor_factory = processor_factory or vllm_ray.build_ray_processor
        elif engine_factory is None or sampling_params_factory is None:
            vllm = _import("vllm")
            self.vllm_version = getattr(vllm, "__version__", None)
            engine_factory = engine_factory or vllm.LLM
            sampling_params_factory = sampling_params_factory or vllm.SamplingParams
        self.model = model
        self.chunk_size = chunk_size
        self.engine_kwargs = dict(engine_kwargs or {})
        self._engine_factory = engine_factory
        self._sampling_params = sampling_params_factory
        self.tokenizer = (tokenizer_factory or _hf_tokenizer)(model)
        self.chat_template_sha256 = chat_template_sha256(self.tokenizer)
        if self.chat_template_sha256 is None:
            raise BackendError(f"the tokenizer of {model!r} has no chat template; the vllm backend needs one")
        if max_model_len is None:
            config = (config_factory or _hf_config)(model)
            max_model_len = window_from_config(config, getattr(self.tokenizer, "model_max_length", None))
        self.window = max_model_len
        self._engine: Any = None
        self.engine_max_model_len: int | None = None

    def describe(self) -> dict[str, Any]:
        """Provenance for the run's results: model, vLLM version, template hash, lengths."""
        return {
            "backend": self.name,
            "model": self.model,
            "vllm_version": self.vllm_version,
            "chat_template_sha256": self.chat_template_sha256,
            "window": self.window,
            "max_model_len": self.engine_max_model_len,
            "chunk_size": self.chunk_size,
            "enable_prefix_caching": True,
            "engine_kwargs": {key: repr(value) for key, value in sorted(self.engine_kwargs.items())},
            "data_parallel": self._data_parallel_record(),
        }

    def _data_parallel_record(self) -> dict[str, Any] | None:
        """How the engines ran: None for one in-process engine, else the Ray replicas and their GPUs."""
        if self.data_parallel is None:
            return None
        tensor_parallel = int(self.engine_kwargs.get("tensor_parallel_size", 1))
        return {
            "replicas": self.data_parallel.replicas,
            "tensor_parallel_size": tensor_parallel,
            "gpus": self.data_parallel.replicas * tensor_parallel,
            "via": "ray.data.llm vLLMEngineProcessorConfig",
            "ray_version": self.ray_version,
            "ray_address": self.data_parallel.ray_address or None,
            "batch_size": vllm_ray.batch_size_for(self.chunk_size),
        }

    async def preflight(self, wait_s: float = 0.0) -> None:
        """The constructor loaded the tokenizer and config (the model exists and has a chat template),
        and the engine is sized by the prompts, so it loads with them; with ``data_parallel``, join the
        Ray cluster now, so a cluster that cannot be joined stops the run before anything is written.

        Raises:
            PreflightError: The Ray cluster cannot be joined.
        """
        if self.data_parallel is not None:
            try:
                await asyncio.to_thread(vllm_ray.connect, self.data_parallel.ray_address)
            except BackendError as error:
                raise PreflightError(str(error)) from error

    async def stream(self, requests: Iterable[Request]) -> AsyncIterator[Outcome]:
        """Tokenize every request, then run them chunk by chunk, yielding each chunk's outcomes.

        Prompts that cannot fit the window come first, as ``skipped_window`` errors (never sent, never truncated).

        Args:
            requests: The requests; consumed entirely before the first generation.

        Yields:
            One :class:`Outcome` per request.

        Raises:
            BackendError: A request has a duplicate key or bad generation settings, or needs a
                longer engine than the one this backend already made.
        """
        prompts = await asyncio.to_thread(self._tokenize_all, requests)
        plan = plan_chunks(
            [(key, prompt.ids, prompt.sampling["max_tokens"]) for key, prompt in prompts.items()],
            self.window,
            self.chunk_size,
        )
        for key in plan.skipped:
            yield self._skipped(key, prompts[key])
        if not plan.chunks:
            return
        if self.data_parallel is not None:
            async for outcome in self._stream_data_parallel(plan, prompts):
                yield outcome
            return
        engine = self._engine_for(plan.max_model_len)
        for chunk in plan.chunks:
            for outcome in await self._run_chunk(engine, chunk, prompts):
                yield outcome

    async def aclose(self) -> None:
        """Drop the engine so its GPU memory can be released."""
        self._engine = None

    async def _stream_data_parallel(self, plan: Plan, prompts: Mapping[str, _Prompt]) -> AsyncIterator[Outcome]:
        """Run the plan's prompts, in plan order, on the Ray replicas; yield each outcome as its row
        comes back. Each stream makes its own replicas, sized for its own prompts."""
        assert self.data_parallel is not None
        keys = [key for chunk in plan.chunks for key in chunk]
        rows = vllm_ray.prompt_rows(keys, {key: (prompts[key].ids, prompts[key].sampling) for key in keys})
        engine_kwargs = {**self.engine_kwargs, "max_model_len": plan.max_model_len, "enable_prefix_caching": True}
        self.engine_max_model_len = max(self.engine_max_model_len or 0, plan.max_model_len)
        ray = await asyncio.to_thread(vllm_ray.connect, self.data_parallel.ray_address)
        results = vllm_ray.processed_rows(ray, self.model, engine_kwargs, self.data_parallel.replicas,
                                          vllm_ray.batch_size_for(self.chunk_size), rows, self._processor_factory)
        pending = set(keys)
        try:
            while pending:
                row = await asyncio.to_thread(_next_row, results)
                if row is None:
                    raise BackendError(f"Ray returned no outcome for {len(pending)} of {len(keys)} requests, "
                                       f"e.g. {min(pending)!r}")
                key = str(row["key"])
                if key not in pending:
                    raise BackendError(f"Ray returned request {key!r} twice or never asked for it")
                pending.discard(key)
                prompt = prompts[key]
                yield vllm_ray.outcome_from_row(row, count_tokens(prompt.ids), prompt.sampling["max_tokens"])
        finally:
            await asyncio.to_thread(_close, results)

    def _tokenize_all(self, requests: Iterable[Request]) -> dict[str, _Prompt]:
        prompts: dict[str, _Prompt] = {}
        for request in requests:
            if request.key in prompts:
                raise BackendError(f"duplicate request key {request.key!r}")
            sampling = sampling_kwargs(request.generation)
            prompts[request.key] = _Prompt(pack_ids(render_prompt_ids(self.tokenizer, request.messages)), sampling)
        return prompts

    def _skipped(self, key: str, prompt: _Prompt) -> Outcome:
        n_tokens = count_tokens(prompt.ids)
        max_tokens = prompt.sampling["max_tokens"]
        message = (
            f"prompt of {n_tokens} tokens + max_tokens {max_tokens} = {n_tokens + max_tokens} tokens "
            f"exceeds the model's window of {self.window} tokens; skipped, not truncated"
        )
        return Outcome(
            key=key,
            text=None,
            usage=Usage(prompt_tokens=n_tokens),
            error=SampleError(kind="skipped_window", message=message),
        )

    def _engine_for(self, max_model_len: int) -> Any:
        if self._engine is None:
            # Built on the caller's thread: some vLLM versions refuse to start outside the main thread.
            self._engine = self._engine_factory(
                model=self.model,
                **{**self.engine_kwargs, "max_model_len": max_model_len, "enable_prefix_caching": True},
            )
            self.engine_max_model_len = max_model_len
        elif max_model_len > (self.engine_max_model_len or 0):
            raise BackendError(
                f"these requests need max_model_len {max_model_len} but the engine was made with "
                f"{self.engine_max_model_len}; use a new vllm backend"
            )
        return self._engine

    async def _run_chunk(self, engine: Any, chunk: Sequence[str], prompts: Mapping[str, _Prompt]) -> list[Outcome]:
        # vllm.inputs.TokensPrompt is a TypedDict: a plain dict with its key is the same prompt.
        token_prompts = [{"prompt_token_ids": unpack_ids(prompts[key].ids)} for key in chunk]
        params = [self._sampling_params(**prompts[key].sampling) for key in chunk]
        started = time.perf_counter()
        results = await asyncio.to_thread(engine.generate, token_prompts, sampling_params=params, use_tqdm=False)
        latency_s = (time.perf_counter() - started) / len(chunk)
        if len(results) != len(chunk):
            raise BackendError(f"vLLM returned {len(results)} outputs for {len(chunk)} prompts")
        return [
            _outcome(key, count_tokens(prompts[key].ids), result, latency_s) for key, result in zip(chunk, results)
        ]


def _next_row(rows: Iterator[dict[str, Any]]) -> dict[str, Any] | None:
    """The next row of the Ray pipeline, None at its end; a Ray task or actor failure (the engine's
    error inside) becomes a :class:`BackendError` that stops the run, as the single engine's does."""
    try:
        return next(rows, None)
    except BackendError:
        raise
    except Exception as error:
        raise BackendError(f"the data-parallel vLLM run failed: {_cause_line(error)}") from error


_CHAINED = "The above exception was the direct cause of the following exception:"


def _cause_line(error: BaseException) -> str:
    """The engine's own error line behind a Ray error: the last line of the first (innermost) traceback
    in Ray's text, e.g. ``RuntimeError: ...``; else the innermost ``cause`` / ``__cause__`` in the process."""
    text = str(error)
    if _CHAINED in text:
        lines = [line.strip() for line in text.split(_CHAINED, 1)[0].splitlines() if line.strip()]
        if lines:
            return lines[-1]
    seen: set[int] = set()
    while id(error) not in seen:
        seen.add(id(error))
        inner = getattr(error, "cause", None) or error.__cause__
        if not isinstance(inner, BaseException):
            break
        error = inner
    return f"{type(error).__name__}: {next(iter(str(error).strip().splitlines()), '')}"


def _close(rows: Generator[dict[str, Any], None, None]) -> None:
    """Stop the Ray pipeline behind ``rows`` (closing the generator shuts Ray Data's executor down); a
    row still being fetched on another thread (the consumer was cancelled) finishes that fetch first."""
    try:
        rows.close()
    except ValueError:  # "generator already executing"
        pass


def _outcome(key: str, prompt_tokens: int, result: Any, latency_s: float) -> Outcome:
    completion = result.outputs[0]
    return Outcome(
        key=key,
        text=completion.text,
        finish_reason=completion.finish_reason,
        usage=Usage(prompt_tokens=prompt_tokens, completion_tokens=len(completion.token_ids)),
        latency_s=latency_s,
    )
