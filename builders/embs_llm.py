"""EverMemBench-S's LLM stages for real sources: domains, Track 1 rewrite, Track 2 atomize, Stage III verify.

The paper has an LLM label domains (§3.1), rewrite queries and atomize RefDocs (Stage II, A.1.2) and
verify retrieved collisions (Stage III, A.1.3), but publishes no prompt, k or threshold: the prompts
(``generators.embs.llm_prompts``) and the acceptance rules below are OURS. The synthetic-world default
needs none of this; its collision oracle is exact.

:class:`LlmStages` renders the prompts, sends each batch through a ``complete`` callable (prompts ->
response texts, in order) and parses the answers strictly (:func:`parse_domain`, :func:`parse_label`,
:func:`parse_rewrite`, :func:`parse_atomize`: anything malformed is None, never a guess). Every answer
is kept in an :class:`LlmCache` keyed by (model, sha256 of the prompt), so a prompt already answered is
never sent again, in this build or a later one. :func:`open_llm` makes the stages over an eval backend
(an OpenAI-compatible server, or vLLM offline); the eval package is imported only when it is called,
so importing this module never imports ``eval``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple

from generators.embs.llm_prompts import (
    ATOMIZE_MAX_PIECES,
    ATOMIZE_MIN_PIECES,
    ATOMIZE_TEMPLATE,
    DOMAIN_TEMPLATE,
    REFERENCE_TEMPLATE,
    REWRITE_TEMPLATE,
    VERDICT_LABELS,
    VERIFY_TEMPLATE,
)
from generators.world.schema import DOMAINS
from needlework.backends import backend_for
from needlework.backends.base import Backend, Request
from needlework.errors import InputError, NeedleworkError, SpecError

Complete = Callable[[Sequence[str]], list[str | None]]
"""Prompts -> their response texts in the same order; None where the call failed."""

DEFAULT_MAX_TOKENS = 4096
"""Generation cap of :func:`open_llm`: an atomization repeats its RefDoc (at most ~2K tokens) as JSON."""
ATOMIZE_MIN_COVERAGE = 0.9
"""OURS: the pieces together keep at least this share of the RefDoc's distinct words (CJK characters count
as words), and no single piece keeps that much on its own (see :func:`atomization_ok`)."""
THINKING_END = "</think>"
"""Reasoning a server leaves inline ends at the last such marker; only the text after it is parsed."""

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[{_CJK}]|[^\W{_CJK}]+")
_FENCE = re.compile(r"\A```(?:json)?[ \t]*\n(.*?)\n?```\Z", re.DOTALL)
_LABEL_SEPARATORS = re.compile(r"[\s-]+")


class LlmStageError(NeedleworkError, RuntimeError):
    """A ``complete`` callable broke its contract (not one response per prompt)."""


class Rewrite(NamedTuple):
    """A parsed Track 1 answer: whether the neighbour is usable, and the rewritten query and answer."""

    usable: bool
    query: str
    answer: str


class Atomized(NamedTuple):
    """A parsed Track 2 answer: the sub-documents and the query and answer over them."""

    pieces: list[str]
    query: str
    answer: str


class RewriteCase(NamedTuple):
    """One Track 1 input: a seed triple and one retrieved neighbour of its RefDoc."""

    query: str
    answer: str
    refdoc: str
    neighbour: str


class AtomizeCase(NamedTuple):
    """One Track 2 input: a seed triple."""

    query: str
    answer: str
    refdoc: str


class VerifyCase(NamedTuple):
    """One Stage III input: a query with its RefList texts and its retrieved non-RefList candidates."""

    query: str
    answer: str
    refs: Sequence[str]
    candidates: Sequence[str]


@dataclass
class LlmStats:
    """What the stages did: distinct prompts ``sent``, ``cache_hits``, ``failed`` calls (no response),
    ``unparseable`` responses, and parsed answers ``rejected`` by a check (:meth:`LlmStages.rewrite`,
    :meth:`LlmStages.atomize`)."""

    sent: int = 0
    cache_hits: int = 0
    failed: int = 0
    unparseable: int = 0
    rejected: int = 0


def prompt_sha256(prompt: str) -> str:
    """The cache key of a prompt: the hex sha256 of its UTF-8 bytes."""
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()


class LlmCache:
    """Responses by (model, prompt sha256), in an append-only JSON-Lines file reused across builds.

    One record per line, ``{"model", "prompt_sha256", "response"}``; a record counts once its newline is
    written, so a line cut short by an interrupted build is dropped (and cut from the file) on the next
    open. Only answers are cached, never failures, so a failed call is asked again next time.
    """

    def __init__(self, path: Path) -> None:
        """Open (or start) the cache at ``path``.

        Raises:
            InputError: A complete line of the file is not a cache record (names the line).
        """
        self.path = Path(path)
        self._responses: dict[tuple[str, str], str] = {}
        if self.path.exists():
            self._load()

    def __len__(self) -> int:
        return len(self._responses)

    def get(self, model: str, prompt: str) -> str | None:
        """The cached response of ``model`` to ``prompt``, or None."""
        return self._responses.get((model, prompt_sha256(prompt)))

    def put_many(self, model: str, answered: Sequence[tuple[str, str]]) -> None:
        """Append (prompt, response) pairs of ``model`` and flush them to disk before returning."""
        lines = []
        for prompt, response in answered:
            digest = prompt_sha256(prompt)
            self._responses[(model, digest)] = response
            record = {"model": model, "prompt_sha256": digest, "response": response}
            lines.append(json.dumps(record, ensure_ascii=False) + "\n")
        if not lines:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write("".join(lines))
            handle.flush()
            os.fsync(handle.fileno())

    def _load(self) -> None:
        data = self.path.read_bytes()
        complete_bytes = data.rfind(b"\n") + 1
        if complete_bytes < len(data):  # a half-written last record: never counted, cut before appending
            with self.path.open("r+b") as handle:
                handle.truncate(complete_bytes)
        for number, line in enumerate(data[:complete_bytes].decode("utf-8").splitlines(), start=1):
            if line.strip():
                model, digest, response = _cache_record(line, self.path, number)
                self._responses[(model, digest)] = response


def _cache_record(line: str, path: Path, number: int) -> tuple[str, str, str]:
    try:
        record = json.loads(line)
        fields = (record["model"], record["prompt_sha256"], record["response"])
    except (ValueError, KeyError, TypeError):
        raise InputError(str(path), f"line {number}", None, "not a cache record {model, prompt_sha256, response}") from None
    if not all(isinstance(value, str) for value in fields):
        raise InputError(str(path), f"line {number}", None, "model, prompt_sha256 and response must be strings")
    return fields


# --- strict parsing (pure) -------------------------------------------------------------------------------


def _final_text(response: str) -> str:
    return response.rsplit(THINKING_END, 1)[-1].strip()


def _bare_word(response: str) -> str:
    """The response as one lowercase word: quotes, backticks, bold and a final period around it removed."""
    return _final_text(response).strip(" \t\r\n\"'`*.").lower()


def parse_domain(response: str) -> str | None:
    """The domain a classification answer names, or None.

    Strict on purpose: the answer must be exactly one of the 8 labels (case, surrounding quotes or
    backticks and a final period aside), so a hedged or chatty answer is counted, not guessed at.
    """
    word = _bare_word(response)
    return word if word in DOMAINS else None


def parse_label(response: str) -> str | None:
    """The Stage III verdict an answer names (``conflict``, ``hard_negative``, ``false_negative``), or None.

    Like :func:`parse_domain`; ``hard negative`` and ``hard-negative`` read as ``hard_negative``.
    """
    word = _LABEL_SEPARATORS.sub("_", _bare_word(response))
    return word if word in VERDICT_LABELS else None


def _json_object(response: str, keys: set[str]) -> dict[str, Any] | None:
    """The response as a JSON object with exactly ``keys`` (one ```json fence around it allowed), or None."""
    text = _final_text(response)
    fenced = _FENCE.match(text)
    try:
        value = json.loads(fenced.group(1) if fenced else text)
    except ValueError:
        return None
    return value if isinstance(value, dict) and set(value) == keys else None


def _filled(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def parse_rewrite(response: str) -> Rewrite | None:
    """A Track 1 answer ``{"usable": bool, "query": str, "answer": str}``, or None if malformed.

    A usable rewrite needs a non-empty query and answer; an unusable one may leave them empty.
    """
    value = _json_object(response, {"usable", "query", "answer"})
    if value is None or not isinstance(value["usable"], bool):
        return None
    query, answer = value["query"], value["answer"]
    if not (isinstance(query, str) and isinstance(answer, str)):
        return None
    if value["usable"] and not (_filled(query) and _filled(answer)):
        return None
    return Rewrite(value["usable"], query.strip(), answer.strip())


def parse_atomize(response: str) -> Atomized | None:
    """A Track 2 answer ``{"pieces": [str, ...], "query": str, "answer": str}``, or None if malformed.

    Needs 2-4 non-empty pieces and a non-empty query and answer.
    """
    value = _json_object(response, {"pieces", "query", "answer"})
    if value is None:
        return None
    pieces = value["pieces"]
    if not (isinstance(pieces, list) and ATOMIZE_MIN_PIECES <= len(pieces) <= ATOMIZE_MAX_PIECES):
        return None
    if not (all(_filled(piece) for piece in pieces) and _filled(value["query"]) and _filled(value["answer"])):
        return None
    return Atomized([piece.strip() for piece in pieces], value["query"].strip(), value["answer"].strip())


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.casefold()))


def atomization_ok(refdoc: str, pieces: Sequence[str]) -> bool:
    """Whether ``pieces`` split ``refdoc`` rather than summarize it or keep it whole (OURS; a cheap check).

    Coverage is the share of the RefDoc's distinct words (casefolded; each CJK character is a word) that
    a text contains. The pieces together must reach :data:`ATOMIZE_MIN_COVERAGE` (little of the RefDoc
    is lost), and each piece alone must stay below it (no piece is the whole document). Whether a piece
    alone answers the query is the prompt's job; the paper gives no check.
    """
    wanted = _words(refdoc)
    if not wanted:
        return False

    def coverage(text: str) -> float:
        return len(wanted & _words(text)) / len(wanted)

    return coverage("\n".join(pieces)) >= ATOMIZE_MIN_COVERAGE and all(
        coverage(piece) < ATOMIZE_MIN_COVERAGE for piece in pieces)


def _same_query(a: str, b: str) -> bool:
    return " ".join(a.casefold().split()) == " ".join(b.casefold().split())


# --- the stages -----------------------------------------------------------------------------------------


class LlmStages:
    """The LLM stages over one model: prompts rendered, batched, cached and strictly parsed.

    Each method sends its whole batch in one ``complete`` call (cached prompts left out), so a builder
    should pass many items at once: the ``*_many`` forms take a batch of cases.
    """

    def __init__(self, complete: Complete, model: str, cache: LlmCache) -> None:
        """Stages asking ``complete`` for answers of ``model`` (the cache key), kept in ``cache``."""
        self.complete, self.model, self.cache = complete, model, cache
        self.stats = LlmStats()

    def classify_domains(self, texts: Sequence[str]) -> list[str | None]:
        """The domain of each document (§3.1), one of the 8 labels; None where the model failed or hedged."""
        return self._parsed([DOMAIN_TEMPLATE.format(document=text) for text in texts], parse_domain)

    def rewrite(self, query: str, answer: str, refdoc: str, neighbour: str) -> tuple[str, str] | None:
        """Track 1 (A.1.2) for one neighbour: the rewritten (query, answer) needing RefDoc and the
        neighbour, or None (not usable, unparseable, or the query came back unchanged)."""
        return self.rewrite_many([RewriteCase(query, answer, refdoc, neighbour)])[0]

    def rewrite_many(self, cases: Sequence[RewriteCase]) -> list[tuple[str, str] | None]:
        """:meth:`rewrite` for a batch of cases, in one call."""
        prompts = [REWRITE_TEMPLATE.format(**case._asdict()) for case in cases]
        results: list[tuple[str, str] | None] = []
        for case, parsed in zip(cases, self._parsed(prompts, parse_rewrite)):
            if parsed is None or not parsed.usable:
                results.append(None)
            elif _same_query(parsed.query, case.query):
                self.stats.rejected += 1
                results.append(None)
            else:
                results.append((parsed.query, parsed.answer))
        return results

    def atomize(self, query: str, answer: str, refdoc: str) -> tuple[list[str], str, str] | None:
        """Track 2 (A.1.2): (pieces, query, answer) with 2-4 pieces that split RefDoc, or None
        (unparseable, or rejected by :func:`atomization_ok`)."""
        return self.atomize_many([AtomizeCase(query, answer, refdoc)])[0]

    def atomize_many(self, cases: Sequence[AtomizeCase]) -> list[tuple[list[str], str, str] | None]:
        """:meth:`atomize` for a batch of cases, in one call."""
        prompts = [ATOMIZE_TEMPLATE.format(**case._asdict()) for case in cases]
        results: list[tuple[list[str], str, str] | None] = []
        for case, parsed in zip(cases, self._parsed(prompts, parse_atomize)):
            if parsed is not None and not atomization_ok(case.refdoc, parsed.pieces):
                self.stats.rejected += 1
                parsed = None
            results.append(None if parsed is None else (parsed.pieces, parsed.query, parsed.answer))
        return results

    def verify(self, query: str, answer: str, refs: Sequence[str], candidates: Sequence[str]) -> list[str | None]:
        """Stage III (A.1.3): one verdict per candidate (``conflict`` drops the query, ``hard_negative``
        keeps the candidate as a distractor, ``false_negative`` adds it to RefList); None if unparseable."""
        return self.verify_many([VerifyCase(query, answer, refs, candidates)])[0]

    def verify_many(self, cases: Sequence[VerifyCase]) -> list[list[str | None]]:
        """:meth:`verify` for many queries, every candidate of every query in one call."""
        prompts = [_verify_prompt(case, candidate) for case in cases for candidate in case.candidates]
        labels = iter(self._parsed(prompts, parse_label))
        return [[next(labels) for _ in case.candidates] for case in cases]

    def _parsed(self, prompts: Sequence[str], parse: Callable[[str], Any]) -> list[Any]:
        parsed = []
        for response in self._ask(prompts):
            value = None if response is None else parse(response)
            if response is not None and value is None:
                self.stats.unparseable += 1
            parsed.append(value)
        return parsed

    def _ask(self, prompts: Sequence[str]) -> list[str | None]:
        """Responses to ``prompts``: cached ones from the cache, the rest (each distinct prompt once) in
        one ``complete`` call, whose answers are cached before they are returned."""
        responses: list[str | None] = [self.cache.get(self.model, prompt) for prompt in prompts]
        self.stats.cache_hits += sum(response is not None for response in responses)
        missing = list(dict.fromkeys(p for p, r in zip(prompts, responses) if r is None))
        if not missing:
            return responses
        answers = self.complete(missing)
        if len(answers) != len(missing):
            raise LlmStageError(f"the completer returned {len(answers)} responses for {len(missing)} prompts")
        self.stats.sent += len(missing)
        self.stats.failed += sum(answer is None for answer in answers)
        fresh = {prompt: answer for prompt, answer in zip(missing, answers) if answer is not None}
        self.cache.put_many(self.model, list(fresh.items()))
        return [fresh.get(prompt) if response is None else response for prompt, response in zip(prompts, responses)]


def _verify_prompt(case: VerifyCase, candidate: str) -> str:
    references = "\n\n".join(REFERENCE_TEMPLATE.format(number=i, text=ref) for i, ref in enumerate(case.refs, start=1))
    return VERIFY_TEMPLATE.format(query=case.query, answer=case.answer, references=references, candidate=candidate)


# --- eval backends ---------------------------------------------------------------------------------------


def backend_completer(backend: Backend, *, model: str, max_tokens: int, temperature: float = 0.0) -> Complete:
    """Adapt an eval backend into a synchronous ``complete`` callable for :class:`LlmStages`.

    The backend's ``preflight()`` runs once, here, so an unreachable server fails at once with the
    backend's one-line error instead of after every retry of the first batch. Each call then streams
    its prompts (one user message each) through the backend and matches outcomes to prompts by request
    key, since they complete in any order. The backend is closed after every call, as eval's streams
    do: an aiohttp session cannot outlive its event loop, and a vLLM engine is re-sized for the next
    batch (so batch generously there: each call loads the engine).

    Args:
        backend: Any :class:`needlework.backends.base.Backend`.
        model: The model id the cache keys answers by; it must be the backend's own model when the
            backend names one, so no answer is ever filed under another model.
        max_tokens: Generation cap per prompt, in tokens.
        temperature: Sampling temperature (0: the answer is a function of the prompt, as caching assumes).

    Returns:
        Prompts -> response texts in the same order; None where the request ended in an error.

    Raises:
        SpecError: ``model`` differs from the backend's model.
        PreflightError: The backend cannot reach its model (the message is one line).
    """
    served = getattr(backend, "model", model)
    if served != model:
        raise SpecError(f"the backend serves {served!r}, not {model!r}; the cache would file its answers wrongly")
    asyncio.run(backend.preflight())
    generation = {"max_tokens": max_tokens, "temperature": temperature}

    def complete(prompts: Sequence[str]) -> list[str | None]:
        if not prompts:
            return []
        requests = [Request(str(i), ({"role": "user", "content": p},), generation) for i, p in enumerate(prompts)]
        texts = asyncio.run(_stream_texts(backend, requests))
        return [texts.get(request.key) for request in requests]

    return complete


async def _stream_texts(backend: Backend, requests: Sequence[Request]) -> dict[str, str | None]:
    """Each request's text by key (None for an error), then the backend closed, however the stream ends."""
    texts: dict[str, str | None] = {}
    outcomes = backend.stream(requests)
    try:
        async for outcome in outcomes:
            texts[outcome.key] = outcome.text if outcome.error is None else None
    finally:
        await outcomes.aclose()  # type: ignore[attr-defined]
        await backend.aclose()
    return texts


def open_llm(base_url: str | None, model: str, *, engine: Literal["openai", "vllm"] = "openai", cache_path: Path,
             api_key_env: str = "OPENAI_API_KEY", max_tokens: int = DEFAULT_MAX_TOKENS, temperature: float = 0.0,
             concurrency: int = 16) -> LlmStages:
    """The LLM stages over ``model``, served by an OpenAI-compatible server or vLLM offline.

    The backend is made by eval's own ``backend_for`` (as ``python -m eval run`` and ``judge`` make
    theirs) and checked by its preflight before anything is asked.

    Args:
        base_url: The server's ``/v1`` endpoint (``openai``); ignored by ``vllm``.
        model: The served model id (``openai``) or Hugging Face id or path (``vllm``); the cache key.
        engine: ``openai`` or ``vllm`` (needs the ``vllm`` extra).
        cache_path: The JSON-Lines :class:`LlmCache`, reused across builds.
        api_key_env: The environment variable holding the API key (read there, never stored).
        max_tokens: Generation cap per prompt, in tokens.
        temperature: Sampling temperature.
        concurrency: Requests in flight at once (``openai``).

    Raises:
        SpecError: Unknown engine, or ``openai`` without ``base_url``.
        PreflightError: The server cannot be reached or does not serve ``model``.
        BackendError: The ``vllm`` extra is missing.
    """
    backend = backend_for(engine, model, base_url=base_url, api_key_env=api_key_env, concurrency=concurrency)
    complete = backend_completer(backend, model=model, max_tokens=max_tokens, temperature=temperature)
    return LlmStages(complete, model, LlmCache(cache_path))
