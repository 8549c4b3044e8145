"""A scripted OpenAI-compatible chat-completions server on loopback, for tests and benchmarks.

It answers each prompt from the dataset's references, so expected scores are known exactly, and it
injects faults on chosen attempts of chosen rows. Prompts are recognised by the sha256 of their
first user message. Run it in a background thread (:func:`serve_in_thread`) or as a script.

Script entries (per row id, one per attempt; the last repeats):
    "ok"                    the references joined by ", "
    "wrong"                 a wrong number
    "half"                  the first half of the references (a multi-value score of exactly 0.5)
    "empty"                 content ""
    "think"                 reasoning then "</think>" then the answer
    "429" / "429:<secs>"    HTTP 429 with Retry-After
    "500", "503"            a server error
    "hang"                  sleep past any sensible timeout, then answer
    "drop"                  close the connection without a response
    "malformed"             HTTP 200 with a body that is not JSON
    "context"               HTTP 400 with an OpenAI-style context-length message
    "401"                   HTTP 401
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from aiohttp import web


def prompt_digest(messages: Sequence[Mapping[str, str]]) -> str:
    """The stub's key for a prompt: sha256 of the first user message's content."""
    content = next(m["content"] for m in messages if m["role"] == "user")
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


@dataclass
class Script:
    """What the stub knows: answers per prompt digest and faults per row id."""

    answers: dict[str, tuple[str, list[str]]]  # digest -> (row id, references)
    faults: dict[str, list[str]] = field(default_factory=dict)
    api_key: str | None = None
    hang_s: float = 30.0
    attempts: Counter = field(default_factory=Counter)
    payloads: list[dict[str, Any]] = field(default_factory=list)
    keep_payloads: bool = False
    models: tuple[str, ...] = ()  # listed by GET /v1/models; empty: that route answers 404
    default: str | None = None  # the answer to a prompt not in ``answers`` (a judge's fixed grade); None: HTTP 400
    default_delay_s: float = 0.0  # how long the default answer takes (a judge slow enough to be killed mid-run)
    window: int | None = None  # listed as the model's max_model_len by GET /v1/models, as vLLM does
    count_tokens: Any = None  # text -> tokens: serves vLLM's POST /tokenize (messages joined by newlines); None: 404

    def action(self, row_id: str) -> str:
        """The scripted behaviour for this row's next attempt (counted)."""
        attempt = self.attempts[row_id]
        self.attempts[row_id] += 1
        plan = self.faults.get(row_id) or ["ok"]
        return plan[min(attempt, len(plan) - 1)]


def _completion(text: str, model: str, prompt_chars: int, reasoning: str | None = None,
                finish_reason: str = "stop") -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    return {
        "id": "chatcmpl-stub", "object": "chat.completion", "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": max(1, len(text) // 4),
                  "total_tokens": prompt_chars // 4 + max(1, len(text) // 4)},
    }


def make_app(script: Script) -> web.Application:
    """The aiohttp application serving ``POST /v1/chat/completions`` from ``script``."""

    async def chat(request: web.Request) -> web.StreamResponse:
        if script.api_key is not None and request.headers.get("Authorization") != f"Bearer {script.api_key}":
            return web.json_response({"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}, status=401)
        payload = await request.json()
        if script.keep_payloads:
            script.payloads.append(payload)
        digest = prompt_digest(payload["messages"])
        if digest not in script.answers and script.default is not None:
            await asyncio.sleep(script.default_delay_s)
            return web.json_response(_completion(script.default, payload.get("model", ""),
                                                 sum(len(m["content"]) for m in payload["messages"])))
        if digest not in script.answers:
            return web.json_response({"error": {"message": "unknown prompt"}}, status=400)
        row_id, references = script.answers[digest]
        action = script.action(row_id)
        model, chars = payload.get("model", ""), sum(len(m["content"]) for m in payload["messages"])
        if action.startswith("429"):
            wait = action.split(":", 1)[1] if ":" in action else "0"
            return web.json_response({"error": {"message": "rate limited"}}, status=429, headers={"Retry-After": wait})
        if action in ("500", "503"):
            return web.json_response({"error": {"message": "internal error"}}, status=int(action))
        if action == "401":
            return web.json_response({"error": {"message": "Incorrect API key provided"}}, status=401)
        if action == "context":
            return web.json_response({"error": {"message": f"This model's maximum context length is 2048 tokens. "
                                                f"However, you requested {chars} tokens.", "code": "context_length_exceeded"}},
                                     status=400)
        if action == "drop":
            assert request.transport is not None
            request.transport.close()
            return web.Response()
        if action == "malformed":
            return web.Response(text='{"choices": [', content_type="application/json")
        if action == "hang":
            await asyncio.sleep(script.hang_s)
        answer = {
            "ok": ", ".join(references), "hang": ", ".join(references), "wrong": "0000000000", "empty": "",
            "half": ", ".join(references[: len(references) // 2]), "think": ", ".join(references),
            "length": "Let me think step by step about where",  # cut off by max_tokens before the answer
        }[action]
        reasoning = None
        if action == "think":
            answer = f"Let me recall 1234567890 and 0987654321.</think>{answer}"
        finish = "length" if action == "length" else "stop"
        return web.json_response(_completion(answer, model, chars, reasoning, finish))

    async def models(request: web.Request) -> web.StreamResponse:
        if script.api_key is not None and request.headers.get("Authorization") != f"Bearer {script.api_key}":
            return web.json_response({"error": {"message": "Incorrect API key provided"}}, status=401)
        listed = [{"id": m, "object": "model", **({"max_model_len": script.window} if script.window else {})}
                  for m in script.models]
        return web.json_response({"object": "list", "data": listed})

    async def tokenize(request: web.Request) -> web.StreamResponse:
        payload = await request.json()
        count = script.count_tokens("\n".join(m["content"] for m in payload["messages"]))
        return web.json_response({"count": count, "max_model_len": script.window, "tokens": []})

    app = web.Application(client_max_size=64 * 1024 * 1024)
    app.router.add_post("/v1/chat/completions", chat)
    if script.models:
        app.router.add_get("/v1/models", models)
    if script.count_tokens is not None:
        app.router.add_post("/tokenize", tokenize)
    return app


class StubServer:
    """A running stub: ``base_url`` to point the harness at, ``stop()`` to shut it down."""

    def __init__(self, script: Script, port: int = 0) -> None:
        """A stub for ``script``, to listen on ``port`` once started (0: any free port)."""
        self.script = script
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self.port = port

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        runner = web.AppRunner(make_app(self.script), access_log=None)
        self._loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", self.port)
        self._loop.run_until_complete(site.start())
        self.port = runner.addresses[0][1]
        self._runner = runner
        self._ready.set()
        self._loop.run_forever()
        self._loop.run_until_complete(runner.cleanup())

    def start(self) -> "StubServer":
        """Start serving in a daemon thread; returns once the port is bound."""
        self._thread.start()
        self._ready.wait(10)
        return self

    @property
    def base_url(self) -> str:
        """The ``/v1`` endpoint."""
        return f"http://127.0.0.1:{self.port}/v1"

    def kill(self) -> None:
        """Die as a crashed server does: stop listening (new connections are refused) and drop every
        open connection, answered or not."""
        async def die() -> None:
            for site in list(self._runner.sites):
                await site.stop()
            for handler in list(self._runner.server.connections if self._runner.server else ()):
                if handler.transport is not None:
                    handler.transport.abort()

        asyncio.run_coroutine_threadsafe(die(), self._loop).result(10)

    def stop(self) -> None:
        """Stop the loop and wait for the thread."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)


def serve_in_thread(script: Script) -> StubServer:
    """Start a :class:`StubServer` for ``script``."""
    return StubServer(script).start()
