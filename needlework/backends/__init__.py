"""Model backends: ``openai`` (any OpenAI-compatible chat-completions server) and ``vllm`` (offline).

:func:`backend_for` makes either by name; runs and judges over finished runs both reach a model
through it. The backend modules (and aiohttp or vllm behind them) are imported only when one is made.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal, get_args

from needlework.backends.base import Backend
from needlework.errors import SpecError

BackendName = Literal["openai", "vllm"]
BACKENDS: tuple[str, ...] = get_args(BackendName)


def backend_for(name: str, model: str, *, base_url: str | Sequence[str] | None = None, api_key_env: str = "OPENAI_API_KEY",
                concurrency: int = 16, timeout_s: float = 600.0, max_retries: int = 6, seed: int = 0,
                max_model_len: int | None = None, window_tokenizer: str | None = None,
                data_parallel_size: int | None = None, tensor_parallel_size: int = 1, ray_address: str = "",
                over_window: str = "skip") -> Backend:
    """An ``openai`` (any compatible server; key from ``api_key_env``) or ``vllm`` backend serving ``model``.

    Shared by runs and by judges over finished runs, so both reach a model the same way. ``max_model_len``
    is the model's window (vllm: sizes the engine; openai: the window rule's N, else asked of the server) and
    ``window_tokenizer`` the model's tokenizer counting prompts for the openai window rule; ``over_window`` what a
    prompt over the window gets (:data:`needlework.backends.window.OVER_WINDOW`; cutting is the openai backend's). Several
    ``base_url`` make one pool (:mod:`needlework.backends.pool`), ``concurrency`` requests per endpoint.
    vllm only: ``tensor_parallel_size`` GPUs per engine, and ``data_parallel_size`` engine replicas
    through Ray Data's LLM processor on the cluster at ``ray_address`` (:mod:`needlework.backends.vllm_ray`);
    without ``data_parallel_size``, one engine in this process.
    """
    if name != "vllm" and (data_parallel_size is not None or tensor_parallel_size != 1 or ray_address):
        raise SpecError("--data-parallel-size, --tensor-parallel-size and --ray-address are for --backend vllm")
    if name == "vllm" and over_window != "skip":
        raise SpecError("--over-window cut-middle is for --backend openai (the vllm backend skips an over-window prompt)")
    if ray_address and data_parallel_size is None:
        raise SpecError("--ray-address needs --data-parallel-size (the vllm backend runs on Ray only then)")
    if tensor_parallel_size < 1 or (data_parallel_size is not None and data_parallel_size < 1):
        raise SpecError("--data-parallel-size and --tensor-parallel-size must be at least 1")
    if name == "openai":
        from needlework.backends.openai_compat import OpenAIBackend, RetryPolicy

        urls = [base_url] if isinstance(base_url, str) else list(base_url or ())
        if not urls:
            raise SpecError("the openai backend needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        if len(set(urls)) != len(urls):
            raise SpecError(f"--base-url given twice with the same endpoint: {', '.join(urls)}")
        members = [OpenAIBackend(model, url, api_key=os.environ.get(api_key_env), concurrency=concurrency,
                                 timeout_s=timeout_s, retry=RetryPolicy(max_retries=max_retries), seed=seed + i,
                                 window=max_model_len, window_tokenizer=window_tokenizer,
                                 fail_fast_connection=len(urls) > 1, over_window=over_window)
                   for i, url in enumerate(urls)]
        if len(members) == 1:
            return members[0]
        from needlework.backends.pool import PooledBackend

        return PooledBackend(members)
    if name == "vllm":
        from needlework.backends.vllm_backend import VllmBackend
        from needlework.backends.vllm_ray import DataParallel

        return VllmBackend(model, max_model_len=max_model_len,
                           engine_kwargs={"tensor_parallel_size": tensor_parallel_size} if tensor_parallel_size > 1 else None,
                           data_parallel=None if data_parallel_size is None else DataParallel(data_parallel_size, ray_address))
    raise SpecError(f"unknown backend {name!r}; choose {' or '.join(BACKENDS)}")
