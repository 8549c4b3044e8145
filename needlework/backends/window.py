"""The window rule for servers: count a prompt in the model's tokens before sending it; skip it when over.

EverMemBench-S runs a model only on the scales whose tokenized input fits its window (A.2 and
footnote 2, "we still enforce the constraint using the model's tokenizer"); every benchmark gains
from the same rule, since a truncated prompt gives a score that means nothing. A prompt whose
tokens plus its ``max_tokens`` exceed the window N is recorded as a final ``skipped_window``
error without being sent (the server could not answer it whole), never truncated.

How the tokens are counted, first that applies (:func:`discover_rule`):

1. ``--tokenizer NAME``: the evaluated model's tokenizer here, message texts plus the chat format's
   overhead (:data:`CHAT_TOKENS_PER_PROMPT`, :data:`CHAT_TOKENS_PER_MESSAGE`; exact only for
   templates that add exactly that much);
2. vLLM's ``POST /tokenize`` with the messages: exact, the chat template applied by the server;
3. llama.cpp's ``POST /apply-template`` then ``POST /tokenize``: exact;
4. llama-cpp-python's ``POST /extras/tokenize/count`` on each message, plus the chat overhead.

N is ``--max-model-len`` when given, else what the server says (vLLM: ``max_model_len`` in
``GET /v1/models``; llama.cpp: ``n_ctx`` in ``GET /props``). Without N, prompts are sent as before and a
server's refusal is recorded as ``context_length``. With N but no way to count, a prompt is sent only when
its UTF-8 bytes show it fits (a token is at least one byte, :data:`SURE_TO_FIT_MARGIN` for the template);
the first that does not stops the run before it is sent (:class:`UncountedPrompt`, naming ``--tokenizer``),
so no prompt over the window is ever sent uncounted and no scale is reported as fitting untested.

Over the window, a prompt is skipped (``skip``, the default) or, under ``cut-middle``
(:data:`OVER_WINDOW`), loses the middle of its last message as HaystackCraft's authors cut it
(``utils/llm.py`` ``query_llm``, ``truncate=True``: the first and last halves of the tokens kept,
:func:`keep_ends`), so few enough tokens are kept that the counted conversation plus ``max_tokens``
fits the window (:meth:`WindowRule.fit`, recounted after each cut). Cutting needs ``--tokenizer``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp

from needlework.backends.base import BackendError, Message, SampleError
from needlework.tokens import TokenCounter

CHAT_TOKENS_PER_MESSAGE = 4
CHAT_TOKENS_PER_PROMPT = 3
"""Chat-format overhead added to message tokens when the template cannot be applied (as ``eval count``)."""
SURE_TO_FIT_MARGIN = 512
"""A prompt of ``B`` UTF-8 bytes has at most ``B`` tokens under byte-level tokenizers; with this many more for
the chat template, a prompt whose bytes + margin + max_tokens fit the window is sent without counting."""

Count = Callable[[aiohttp.ClientSession, Sequence[Message]], Awaitable[int]]
"""Counts a conversation's prompt tokens, asking the server through the given session where it must."""


FIT_PASSES = 4
"""Cuts tried before a prompt is given up as over the window (each recounts; a seam re-encodes a token or two)."""

NOT_COUNTED = "not counted: the server has no tokenize route and no --tokenizer was given"
"""``counted_by`` of a rule that knows N but cannot count (only prompts whose bytes fit are sent)."""


class UncountedPrompt(BackendError):
    """A prompt that may exceed the model's window and cannot be counted: the run stops before sending it."""


@dataclass(frozen=True)
class WindowRule:
    """A model's window and how its prompts are counted.

    Attributes:
        window: N, the model's context window in tokens (prompt + completion).
        count: The prompt tokens of a conversation, in the model's tokens; None when they cannot be counted.
        counted_by: How ``count`` counts (recorded in the run's provenance).
        tokens: The model's tokenizer here (``--tokenizer``), which cuts an over-window prompt; None without one.
    """

    window: int
    count: Count | None
    counted_by: str
    tokens: TokenCounter | None = None

    async def check(self, session: aiohttp.ClientSession, messages: Sequence[Message],
                    max_tokens: int) -> tuple[int | None, SampleError | None]:
        """(prompt tokens or None when not counted, the ``skipped_window`` error when the prompt is over).

        Raises:
            UncountedPrompt: The prompt's bytes do not show that it fits, and there is no way to count it.
        """
        size = sum(len(m["content"].encode("utf-8")) for m in messages)
        if size + SURE_TO_FIT_MARGIN + max_tokens <= self.window:
            return None, None
        if self.count is None:
            raise UncountedPrompt(
                f"a prompt of {size:,} bytes may not fit the model's window of {self.window:,} tokens (with max_tokens "
                f"{max_tokens:,}), and it cannot be counted ({self.counted_by}); pass --tokenizer with the model's "
                "tokenizer (e.g. --tokenizer qwen2.5) so every prompt is counted before it is sent. Nothing was sent "
                "uncounted")
        tokens = await self.count(session, messages)
        if tokens + max_tokens <= self.window:
            return tokens, None
        return tokens, SampleError("skipped_window", f"prompt of {tokens:,} tokens + max_tokens {max_tokens:,} exceeds the "
                                   f"model's window of {self.window:,} tokens ({self.counted_by}); skipped, not truncated")


    async def fit(self, session: aiohttp.ClientSession, messages: Sequence[Message], max_tokens: int
                  ) -> tuple[Sequence[Message], int | None, dict[str, int] | None, SampleError | None]:
        """:meth:`check`, and a prompt over the window cut to fit (``cut-middle``): (messages as sent, their prompt
        tokens, ``{"tokens", "kept", "prompt_tokens"}`` when the last message's middle was cut, the error when it
        still does not fit).

        The last message keeps the first and last ``kept // 2`` of its ``tokens`` (:func:`keep_ends`), ``kept``
        lowered by what the recount still finds over, until the conversation counted by this rule plus
        ``max_tokens`` fits the window.
        """
        tokens, over = await self.check(session, messages, max_tokens)
        if over is None or self.tokens is None or self.count is None or tokens is None:
            return messages, tokens, None, over
        content = messages[-1]["content"]
        own = self.tokens.count(content)
        kept = own - (tokens + max_tokens - self.window)
        for _ in range(FIT_PASSES):
            if kept < 2:
                break
            trial = [*messages[:-1], {**messages[-1], "content": keep_ends(content, kept, self.tokens)}]
            counted = await self.count(session, trial)
            if counted + max_tokens <= self.window:
                return trial, counted, {"tokens": own, "kept": kept, "prompt_tokens": counted}, None
            kept -= counted + max_tokens - self.window
        return messages, tokens, None, over


def keep_ends(text: str, kept: int, tokens: TokenCounter) -> str:
    """``text`` without its middle: its first and last ``kept // 2`` tokens (``input_ids[:max_len//2] +
    input_ids[-max_len//2:]`` in HaystackCraft's ``utils/llm.py``), cut at token boundaries of the normalized text
    rather than decoded, so no token is mangled; ``text`` itself when it has no more than ``kept`` tokens."""
    normalized = tokens.normalize(text)
    ids, offsets = tokens.encode_with_offsets(normalized)
    if len(ids) <= kept:
        return text
    half = kept // 2
    return normalized[:int(offsets[half])] + normalized[int(offsets[len(ids) - half]):]


def server_root(base_url: str) -> str:
    """The server's root for its non-OpenAI routes: ``base_url`` without a trailing ``/v1``."""
    return base_url.rstrip("/").removesuffix("/v1")


async def discover_rule(session: aiohttp.ClientSession, base_url: str, model: str, window: int | None,
                        tokenizer: str | None) -> WindowRule | None:
    """The window rule for a server (module docstring), or None when N is unknown; with N but no way to count, a
    rule that sends only prompts whose bytes fit (:data:`NOT_COUNTED`).

    ``session`` serves the discovery only; the rule asks through the session it is given at each check.
    """
    root = server_root(base_url)
    window = window or await _served_window(session, base_url, root, model)
    if window is None:
        return None
    if tokenizer:
        from needlework.tokenizers import load_tokenizer

        counter = load_tokenizer(tokenizer)
        return WindowRule(window, _local_count(counter), f"tokenizer {tokenizer} + chat overhead", counter)
    probe: list[Message] = [{"role": "user", "content": "window probe"}]
    for count, name in ((_vllm_count(root, model), "server /tokenize"),
                        (_llamacpp_count(root), "server /apply-template + /tokenize"),
                        (_llama_cpp_python_count(root, model), "server /extras/tokenize/count + chat overhead")):
        try:
            if await count(session, probe) > 0:
                return WindowRule(window, count, name)
        except (aiohttp.ClientError, ValueError, KeyError, TypeError):
            continue
    return WindowRule(window, None, NOT_COUNTED)


async def _post(session: aiohttp.ClientSession, url: str, payload: dict[str, Any]) -> Any:
    async with session.post(url, data=json.dumps(payload).encode("utf-8"),
                            headers={"Content-Type": "application/json"}) as response:
        if response.status != 200:
            raise ValueError(f"{url}: HTTP {response.status}")
        return json.loads(await response.read())


async def _get(session: aiohttp.ClientSession, url: str) -> Any:
    async with session.get(url) as response:
        if response.status != 200:
            raise ValueError(f"{url}: HTTP {response.status}")
        return json.loads(await response.read())


async def _served_window(session: aiohttp.ClientSession, base_url: str, root: str, model: str) -> int | None:
    """N as the server reports it: vLLM's ``max_model_len`` for the model, else llama.cpp's ``n_ctx``."""
    try:
        for entry in (await _get(session, f"{base_url.rstrip('/')}/models")).get("data", []):
            if entry.get("id") == model and isinstance(entry.get("max_model_len"), int):
                return int(entry["max_model_len"])
    except (aiohttp.ClientError, ValueError, AttributeError, TypeError):
        pass
    try:
        props = await _get(session, f"{root}/props")
        n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx") or props.get("n_ctx")
        return int(n_ctx) if n_ctx else None
    except (aiohttp.ClientError, ValueError, AttributeError, TypeError):
        return None


def _vllm_count(root: str, model: str) -> Count:
    async def count(session: aiohttp.ClientSession, messages: Sequence[Message]) -> int:
        body = await _post(session, f"{root}/tokenize", {"model": model, "messages": list(messages),
                                                          "add_generation_prompt": True})
        return int(body["count"])
    return count


def _llamacpp_count(root: str) -> Count:
    async def count(session: aiohttp.ClientSession, messages: Sequence[Message]) -> int:
        prompt = (await _post(session, f"{root}/apply-template", {"messages": list(messages)}))["prompt"]
        return len((await _post(session, f"{root}/tokenize", {"content": prompt, "add_special": True}))["tokens"])
    return count


def _llama_cpp_python_count(root: str, model: str) -> Count:
    async def count(session: aiohttp.ClientSession, messages: Sequence[Message]) -> int:
        total = CHAT_TOKENS_PER_PROMPT
        for message in messages:
            body = await _post(session, f"{root}/extras/tokenize/count", {"model": model, "input": message["content"]})
            total += CHAT_TOKENS_PER_MESSAGE + int(body["count"])
        return total
    return count


def _local_count(counter: TokenCounter) -> Count:
    def count_now(messages: Sequence[Message]) -> int:
        return CHAT_TOKENS_PER_PROMPT + sum(CHAT_TOKENS_PER_MESSAGE + counter.count(m["content"]) for m in messages)

    async def count(_session: aiohttp.ClientSession, messages: Sequence[Message]) -> int:
        return await asyncio.to_thread(count_now, messages)  # a long prompt takes a second; the other requests go on
    return count
