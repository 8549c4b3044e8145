"""Model backends: ``openai`` (any OpenAI-compatible chat-completions server) and ``vllm`` (offline).

:func:`backend_for` makes either by name; runs and judges over finished runs both reach a model
through it. The backend modules (and aiohttp or vllm behind them) are imported only when one is made.
"""

from __future__ import annotations

import os
from typing import Literal, get_args

from eval.backends.base import Backend
from needlework.errors import SpecError

BackendName = Literal["openai", "vllm"]
BACKENDS: tuple[str, ...] = get_args(BackendName)


def backend_for(name: str, model: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                concurrency: int = 16, timeout_s: float = 600.0, max_retries: int = 6, seed: int = 0,
                max_model_len: int | None = None, window_tokenizer: str | None = None) -> Backend:
    """An ``openai`` (any compatible server; key from ``api_key_env``) or ``vllm`` backend serving ``model``.

    Shared by runs and by judges over finished runs, so both reach a model the same way. ``max_model_len``
    is the model's window (vllm: sizes the engine; openai: the window rule's N, else asked of the server) and
    ``window_tokenizer`` the model's tokenizer counting prompts for the openai window rule.
    """
    if name == "openai":
        from eval.backends.openai_compat import OpenAIBackend, RetryPolicy

        if not base_url:
            raise SpecError("the openai backend needs --base-url (e.g. http://127.0.0.1:8000/v1)")
        return OpenAIBackend(model, base_url, api_key=os.environ.get(api_key_env), concurrency=concurrency,
                             timeout_s=timeout_s, retry=RetryPolicy(max_retries=max_retries), seed=seed,
                             window=max_model_len, window_tokenizer=window_tokenizer)
    if name == "vllm":
        from eval.backends.vllm_backend import VllmBackend

        return VllmBackend(model, max_model_len=max_model_len)
    raise SpecError(f"unknown backend {name!r}; choose {' or '.join(BACKENDS)}")
