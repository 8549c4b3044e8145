"""Any OpenAI-compatible chat-completions server: vLLM serve, SGLang, llama.cpp, hosted APIs.

Requests run concurrently up to a limit. Transient failures (429, 5xx, timeouts, dropped
connections, a 200 whose body is not a completion) are retried with exponential backoff and full
jitter, honouring Retry-After; a context-length or other 400 is final for its sample; a 401, 403 or
404 stops the run. The API key is read from the environment and only ever sent in a header.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import re
import time
from dataclasses import dataclass
from typing import Any, AsyncIterator, Iterable, Mapping, Sequence

import aiohttp
import numpy as np

from needlework.backends.base import (
    OVER_WINDOW,
    BackendError,
    Message,
    Outcome,
    PreflightError,
    Request,
    SampleError,
    Usage,
    drain_workers,
)
from needlework.backends.window import WindowRule, discover_rule
from needlework.errors import SpecError

CONTEXT_LENGTH_PATTERN = re.compile(
    r"context.length|context.window|maximum context|exceeds the (available )?context|too many tokens"
    r"|prompt is too long|input is too long|max_model_len|maximum model length|requested \d+ tokens",
    re.IGNORECASE,
)
FATAL_STATUSES = {401: "the server rejected the API key", 403: "access denied", 404: "model or endpoint not found"}
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 520, 522, 524, 529})
MAX_ERROR_TEXT = 500
PREFLIGHT_TIMEOUT_S = 10.0
"""The longest a preflight waits for ``GET /models`` (a live server answers it at once)."""
PREFLIGHT_RETRY_S = 0.5
"""Between two tries of a preflight that waits for a server to start."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before retrying a transient failure.

    Attributes:
        max_retries: Retries after the first attempt (so ``max_retries + 1`` attempts at most).
        base_delay_s: The backoff before retry ``n`` is uniform in ``[0, base * 2**n]`` (full jitter).
        max_delay_s: Cap on any single wait, Retry-After included.
    """

    max_retries: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0

    def delay_s(self, retry: int, retry_after_s: float | None, rng: np.random.Generator) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        if retry_after_s is not None:
            return min(self.max_delay_s, max(0.0, retry_after_s))
        return float(rng.uniform(0.0, min(self.max_delay_s, self.base_delay_s * 2**retry)))


class _Transient(Exception):
    """A failure worth retrying; carries the error to record if retries run out."""

    def __init__(self, error: SampleError, retry_after_s: float | None = None) -> None:
        super().__init__(error.message)
        self.error, self.retry_after_s = error, retry_after_s


def build_payload(model: str, messages: Sequence[Message], generation: Mapping[str, Any]) -> dict[str, Any]:
    """The chat-completions request body. A trailing assistant message is continued, not answered
    (vLLM's and SGLang's ``continue_final_message``), which is how an answer prefix is prefilled."""
    payload: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages], **generation}
    if messages and messages[-1]["role"] == "assistant":
        payload.setdefault("continue_final_message", True)
        payload.setdefault("add_generation_prompt", False)
    return payload


def parse_completion(body: Any) -> tuple[str, str | None, str | None, Usage]:
    """(text, reasoning, finish_reason, usage) of a chat-completions response body.

    Raises:
        ValueError: the body is not a chat completion with one choice and a message.
    """
    try:
        choice = body["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError):
        raise ValueError("response has no choices[0].message") from None
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise ValueError("choices[0].message.content is not a string")
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    usage = body.get("usage") or {}
    details = usage.get("completion_tokens_details") or {}
    return (
        content or "",
        reasoning if isinstance(reasoning, str) else None,
        choice.get("finish_reason"),
        Usage(
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            reasoning_tokens=int(details.get("reasoning_tokens") or 0),
        ),
    )


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date), else None."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def classify_http_error(status: int, text: str) -> SampleError:
    """The recorded error for a non-200 answer that is not fatal to the run."""
    message = f"HTTP {status}: {text[:MAX_ERROR_TEXT]}"
    if status in (400, 413, 422) and CONTEXT_LENGTH_PATTERN.search(text):
        return SampleError("context_length", message, status)
    if status in RETRY_STATUSES or status >= 500:
        return SampleError("http", message, status)
    return SampleError("bad_request", message, status)


class OpenAIBackend:
    """Chat completions over HTTP with bounded concurrency, retries and an error taxonomy."""

    name = "openai"

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key: str | None = None,
        concurrency: int = 16,
        timeout_s: float = 600.0,
        retry: RetryPolicy = RetryPolicy(),
        seed: int = 0,
        window: int | None = None,
        window_tokenizer: str | None = None,
        fail_fast_connection: bool = False,
        over_window: str = "skip",
    ) -> None:
        """A backend for ``model`` at ``base_url``.

        ``window`` (N, else asked of the server) and ``window_tokenizer`` (the model's tokenizer, else the
        server's tokenize route) set up the window rule (:mod:`needlework.backends.window`) at :meth:`preflight`;
        ``over_window`` says what a prompt over it gets (``skip``, or ``cut-middle``, which needs ``window_tokenizer``
        once the window is known).
        ``fail_fast_connection`` returns a failed connection at once instead of retrying it: in a pool of
        endpoints (:mod:`needlework.backends.pool`) another endpoint takes the request.
        """
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {concurrency}")
        if over_window not in OVER_WINDOW:
            raise SpecError(f"--over-window must be one of {', '.join(OVER_WINDOW)}, not {over_window!r}")
        self.over_window = over_window
        self.model, self.base_url = model, base_url.rstrip("/")
        self.concurrency, self.timeout_s, self.retry = concurrency, timeout_s, retry
        self._headers = {"Content-Type": "application/json"}
        self._secret = api_key or None
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._rng = np.random.default_rng(seed)  # jitter only; never affects what is asked
        self._session: aiohttp.ClientSession | None = None
        self._window, self._window_tokenizer = window, window_tokenizer
        self._rule: WindowRule | None = None
        self.fail_fast_connection = fail_fast_connection

    def describe(self) -> dict[str, Any]:
        """Endpoint and client limits; the API key is never included."""
        return {
            "base_url": self.base_url,
            "concurrency": self.concurrency,
            "timeout_s": self.timeout_s,
            "max_retries": self.retry.max_retries,
            "chat_template_sha256": None,
            "window": self._rule.window if self._rule else self._window,
            "window_counted_by": self._rule.counted_by if self._rule else None,
            "over_window": self.over_window,
        }

    async def preflight(self, wait_s: float = 0.0) -> None:
        """``GET /models`` before the first sample: the server answers and serves the model.

        A server that does not list models (a 404, a body without ``data``) passes: it answered,
        and an unknown model still stops the run at its first request. A listed model name is
        compared exactly, as the server will.

        Args:
            wait_s: How long to keep trying a server that cannot be reached yet (one just started
                beside the run); 0 gives up at the first failure.

        Raises:
            PreflightError: Nothing answers (refused, unresolvable, timed out) within ``wait_s``,
                the key is refused (401, 403), or the listed models do not include ``model``.
        """
        url = f"{self.base_url}/models"
        deadline = time.monotonic() + wait_s
        while True:
            try:
                status, raw = await self._get(url)
                break
            except PreflightError:
                if time.monotonic() + PREFLIGHT_RETRY_S > deadline:
                    raise
                await asyncio.sleep(PREFLIGHT_RETRY_S)
        text = self._redact(raw.decode("utf-8", errors="replace"))
        if status in (401, 403):
            raise PreflightError(f"{url}: HTTP {status}, {FATAL_STATUSES[status]}: {text[:MAX_ERROR_TEXT]}")
        served = _listed_models(raw) if status == 200 else None
        if served and self.model not in served:
            shown = ", ".join(sorted(served)[:20]) + (" ..." if len(served) > 20 else "")
            raise PreflightError(f"{self.base_url} does not serve model {self.model!r}; it lists: {shown} "
                                 "(pass one of them as --model). Nothing was sent")
        timeout = aiohttp.ClientTimeout(total=min(self.timeout_s, PREFLIGHT_TIMEOUT_S))
        async with aiohttp.ClientSession(timeout=timeout, headers=self._headers) as session:  # this event loop's own
            self._rule = await discover_rule(session, self.base_url, self.model, self._window, self._window_tokenizer)
        if self._rule is not None and self.over_window == "cut-middle" and self._rule.tokens is None:
            raise PreflightError(f"prompts over the model's window of {self._rule.window:,} tokens are to be cut "
                                 "(--over-window cut-middle, or the release's preset), which needs the model's tokenizer: "
                                 "pass --tokenizer (e.g. --tokenizer qwen2.5), or --over-window skip. Nothing was sent")

    async def _get(self, url: str) -> tuple[int, bytes]:
        """(status, body) of one GET; an unreachable server is a :class:`PreflightError`."""
        timeout = aiohttp.ClientTimeout(total=min(self.timeout_s, PREFLIGHT_TIMEOUT_S))
        try:
            async with aiohttp.ClientSession(timeout=timeout, headers=self._headers) as session:
                async with session.get(url) as response:
                    return response.status, await response.read()
        except (asyncio.TimeoutError, TimeoutError):
            raise PreflightError(f"cannot reach {self.base_url}: no answer within {timeout.total:g} s; "
                                 "is the server up? Nothing was sent") from None
        except aiohttp.ClientError as err:
            raise PreflightError(f"cannot reach {self.base_url}: {_connection_problem(err)}; is the server running "
                                 "at that address (--wait-for-server waits for one that is starting)? "
                                 "Nothing was sent") from None

    async def stream(self, requests: Iterable[Request]) -> AsyncIterator[Outcome]:
        """Run requests with ``concurrency`` workers and yield outcomes as they complete.

        Raises:
            BackendError: the server answered 401, 403 or 404 (the run cannot succeed).
        """
        pending = iter(requests)
        results: asyncio.Queue[Outcome | BaseException | None] = asyncio.Queue()

        async def worker() -> None:
            try:
                for request in pending:
                    await results.put(await self._complete(request))
            except Exception as err:  # noqa: BLE001 - handed to the consumer, which re-raises it
                await results.put(err)
            finally:
                await results.put(None)

        workers = [asyncio.create_task(worker()) for _ in range(self.concurrency)]
        async for outcome in drain_workers(workers, results):
            yield outcome

    async def aclose(self) -> None:
        """Close the connection pool."""
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self.concurrency, force_close=False),
                timeout=aiohttp.ClientTimeout(total=self.timeout_s),
                headers=self._headers,
            )
        return self._session

    async def _complete(self, request: Request) -> Outcome:
        messages, cut = request.messages, None
        if self._rule is not None:
            started = time.monotonic()
            max_tokens = int(request.generation.get("max_completion_tokens") or request.generation.get("max_tokens") or 0)
            if self.over_window == "cut-middle":
                messages, tokens, cut, over = await self._rule.fit(self._client(), messages, max_tokens)
            else:
                tokens, over = await self._rule.check(self._client(), messages, max_tokens)
            if over is not None:
                return Outcome(request.key, None, usage=Usage(prompt_tokens=tokens or 0), error=over,
                               latency_s=time.monotonic() - started)
        body = json.dumps(build_payload(self.model, messages, request.generation)).encode("utf-8")
        started = time.monotonic()
        for attempt in range(self.retry.max_retries + 1):
            try:
                text, reasoning, finish, usage = await self._post(body)
                return Outcome(request.key, text, reasoning, finish, usage, None, attempt + 1, time.monotonic() - started,
                               window_cut=cut)
            except _Transient as transient:
                if attempt == self.retry.max_retries or (self.fail_fast_connection and transient.error.kind == "connection"):
                    return _failed(request.key, transient.error, attempt + 1, started)
                await asyncio.sleep(self.retry.delay_s(attempt, transient.retry_after_s, self._rng))
            except _Final as final:
                return _failed(request.key, final.error, attempt + 1, started)
        raise AssertionError("unreachable: the retry loop always returns")

    async def _post(self, body: bytes) -> tuple[str, str | None, str | None, Usage]:
        url = f"{self.base_url}/chat/completions"
        try:
            async with self._client().post(url, data=body) as response:
                raw = await response.read()
                status, retry_after = response.status, response.headers.get("Retry-After")
        except (asyncio.TimeoutError, TimeoutError):
            raise _Transient(SampleError("timeout", f"no response within {self.timeout_s:g} s")) from None
        except aiohttp.ClientError as err:
            message = self._redact(_connection_problem(err))
            raise _Transient(SampleError("connection", message)) from None
        text = self._redact(raw.decode("utf-8", errors="replace"))
        if status in FATAL_STATUSES:
            raise BackendError(f"{url}: HTTP {status}, {FATAL_STATUSES[status]}: {text[:MAX_ERROR_TEXT]}")
        if status != 200:
            error = classify_http_error(status, text)
            if error.final:
                raise _Final(error)
            raise _Transient(error, parse_retry_after(retry_after))
        try:
            return parse_completion(json.loads(raw))
        except ValueError as err:  # json.JSONDecodeError is a ValueError
            raise _Transient(SampleError("malformed", f"{err}: {text[:200]!r}", status)) from None


    def _redact(self, text: str) -> str:
        """``text`` with the API key masked, in case a server echoes it back in an error."""
        return text.replace(self._secret, "***") if self._secret else text


class _Final(Exception):
    def __init__(self, error: SampleError) -> None:
        super().__init__(error.message)
        self.error = error


def _listed_models(raw: bytes) -> set[str] | None:
    """The model ids of a ``GET /models`` body (``{"data": [{"id": ...}]}``), None if it is not one."""
    try:
        return {str(entry["id"]) for entry in json.loads(raw)["data"]}
    except (ValueError, KeyError, TypeError):
        return None


def _connection_problem(err: aiohttp.ClientError) -> str:
    """What went wrong with a connection, in words first: ``connection refused (ClientConnectorError: ...)``."""
    cause = getattr(err, "os_error", None)
    words = ("connection refused" if isinstance(cause, ConnectionRefusedError)
             else "host name not found" if isinstance(cause, OSError) and "name" in str(cause).lower()
             else "connection failed")
    return f"{words} ({type(err).__name__}: {err})"[:MAX_ERROR_TEXT]


def _failed(key: str, error: SampleError, attempts: int, started: float) -> Outcome:
    return Outcome(key, None, error=error, attempts=attempts, latency_s=time.monotonic() - started)
