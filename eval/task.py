"""The task interface: render a release row as chat messages, extract the answer, score it.

A task is chosen per row from the release (its benchmark and the row's task columns), so the user
never restates it. Everything a task needs to score lives in the saved sample record (references
and metadata), which is what lets ``python -m eval score`` re-score without the dataset.
The answer-reading helpers every benchmark's tasks share (:func:`strip_reasoning`,
:func:`last_boxed`) live here too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar, get_args

from eval.code_execution import DEFAULT_TIMEOUT_S
from needlework.backends.base import Message

AnswerPrefixPlacement = Literal["user", "assistant", "omit"]
Scoring = Literal["official", "lenient"]
ReasoningMode = Literal["auto", "required", "remove"]
ANSWER_PREFIXES: tuple[str, ...] = get_args(AnswerPrefixPlacement)
SCORINGS: tuple[str, ...] = get_args(Scoring)
REASONING_MODES: tuple[str, ...] = get_args(ReasoningMode)
LIVE_RETRIEVERS: tuple[str, ...] = ("bm25", "dense")
"""What ``live_retriever`` may name before an optional ``:<model>`` (``dense:<model>``)."""


def live_retriever_problem(value: str) -> str | None:
    """Why ``value`` is not a live retriever (``bm25``, ``dense`` or ``dense:<model>``; empty: none), else None."""
    if value and value.partition(":")[0] not in LIVE_RETRIEVERS:
        return f"expected bm25, dense or dense:<model>, got {value!r}"
    return None
T = TypeVar("T")
_BOXED = re.compile(r"\\boxed\s*\{")


@dataclass(frozen=True)
class TaskOptions:
    """Options that change how every task renders or reads answers (recorded in the run).

    Attributes:
        thinking_end: Reasoning ends at the last occurrence of this marker; only the text after it
            is the answer. ``None`` keeps the whole response.
        answer_prefix: Where a row's answer prefix goes: at the end of the user turn as built
            ("user", the paper's prompt verbatim), as an assistant prefill ("assistant"; the
            server must continue the final message), or dropped ("omit").
        scoring: "official" reads and scores answers as the benchmark's official code does (the
            default, so numbers stand next to the paper's); "lenient" uses needlework's more
            forgiving reading where a task has one (each task's docstring says which).
        rag_k: Documents of a retriever's ranking that a RAG row puts in its prompt (EverMemBench-S
            ``rankings`` rows; OURS: the paper reports retrieval at K = 10, A.5).
        live_retriever: EverMemBench-S RAG rows ranked at run time instead of read from the release's
            ``rankings``: ``bm25``, ``dense`` (the packaged MiniLM) or ``dense:<sentence-transformers
            model>`` (the ``dense`` extra); empty reads the release.
        allow_code_execution: Whether tasks that score by running the model's code (RULERv2 over
            MBPP) may run it (``--allow-code-execution``). Consent is given per invocation: a run file
            records it, but :meth:`from_record` does not take it back, so re-scoring asks again.
        code_timeout_s: Seconds one solution and its tests may run (:mod:`eval.code_execution`).
        reasoning: "auto" (the default): each benchmark's official reading. NeedleBench scores the whole
            response, as OpenCompass's configs do; the others score the text after :attr:`thinking_end`,
            stripped, and a response without the marker as a whole. "required" (``--reasoning required``,
            NeMo-Skills' reasoning mode, ``++parse_reasoning=True`` in ``nemo_skills/utils.py``): the text
            after the marker, and a response without it is a model that never finished thinking: its
            answer is empty and scores 0. "remove" (``--reasoning remove``) is
            OpenCompass's model-level remover (``extract-non-reasoning-content``,
            :func:`without_reasoning_blocks`): every ``<think>...</think>`` block cut out, or the text after the
            marker when it has no opening tag.
    """

    thinking_end: str | None = "</think>"
    answer_prefix: AnswerPrefixPlacement = "user"
    scoring: Scoring = "official"
    rag_k: int = 10
    live_retriever: str = ""
    allow_code_execution: bool = False
    code_timeout_s: float = DEFAULT_TIMEOUT_S
    reasoning: ReasoningMode = "auto"

    def __post_init__(self) -> None:
        if self.answer_prefix not in ANSWER_PREFIXES:
            raise ValueError(f"answer_prefix must be user, assistant or omit, not {self.answer_prefix!r}")
        if self.thinking_end == "":
            raise ValueError("thinking_end must be a non-empty marker or None")
        if self.scoring not in SCORINGS:
            raise ValueError(f"scoring must be official or lenient, not {self.scoring!r}")
        if self.rag_k < 1:
            raise ValueError(f"rag_k must be at least 1, not {self.rag_k}")
        if live_retriever_problem(self.live_retriever):
            raise ValueError(f"live_retriever must be bm25, dense or dense:<model>, not {self.live_retriever!r}")
        if not self.code_timeout_s > 0:
            raise ValueError(f"code_timeout_s must be positive seconds, not {self.code_timeout_s}")
        if self.reasoning not in REASONING_MODES:
            raise ValueError(f"reasoning must be auto, required or remove, not {self.reasoning!r}")
        if self.reasoning != "auto" and self.thinking_end is None:
            raise ValueError(f"reasoning {self.reasoning!r} needs a thinking_end marker to look for "
                             f"(--reasoning {self.reasoning} with --thinking-end '')")

    def after_reasoning(self, response: str) -> str:
        """The response as the official scorers read it (:func:`after_reasoning` with these options; under
        ``reasoning="remove"``, :func:`without_reasoning_blocks`)."""
        if self.reasoning == "remove":
            return without_reasoning_blocks(response, self.thinking_end)
        return after_reasoning(response, self.thinking_end, required=self.reasoning == "required")

    def strip_reasoning(self, response: str) -> str:
        """The answer after any reasoning, trimmed (:meth:`after_reasoning`, stripped)."""
        return self.after_reasoning(response).strip()

    def whole_or_reasoning_removed(self, response: str) -> str:
        """The whole response, as a scorer that ignores reasoning reads it (OpenCompass's NeedleBench configs),
        unless this run asks for reasoning to be removed (``reasoning`` "remove" or "required")."""
        return response if self.reasoning == "auto" else self.after_reasoning(response)

    def by_scoring(self, official: T, lenient: T) -> T:
        """``official`` or ``lenient``, whichever this run's :attr:`scoring` asks for (a task's rules and metric)."""
        return lenient if self.scoring == "lenient" else official

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> TaskOptions:
        """The options a run file recorded. Runs recorded before ``scoring`` existed were scored leniently;
        permission to execute code is never taken from a record (:attr:`allow_code_execution`)."""
        return cls(**{"scoring": "lenient", **{k: v for k, v in record.items() if k != "allow_code_execution"}})


class Task(Protocol):
    """One kind of question: how to ask it, read the answer and score it."""

    name: str
    metric: str
    metadata_columns: tuple[str, ...]

    def render(self, row: Mapping[str, Any]) -> tuple[Message, ...]:
        """The chat messages for a release row."""
        ...

    def references(self, row: Mapping[str, Any]) -> list[str]:
        """The gold answers of a row."""
        ...

    def metadata(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """Values of :attr:`metadata_columns` for a row, used to break scores down."""
        ...

    def extract(self, response: str) -> str:
        """The answer inside a model response."""
        ...

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """The score in [0, 1] of an extracted prediction."""
        ...


def after_reasoning(response: str, thinking_end: str | None, *, required: bool = False) -> str:
    """The generation NeMo-Skills scores (``nemo_skills/utils.py`` ``parse_reasoning``, 0b012df8).

    With the marker: the text after its last occurrence, stripped. Without it: the response as written
    (a model that does not reason; NeMo-Skills scores the untrimmed generation, which ``eval_ruler2``'s
    "2steps" and "part" readings see), or "" when ``required`` (NeMo-Skills' reasoning mode: a generation
    that never closed its thinking is empty).
    """
    if thinking_end and thinking_end in response:
        return response.rsplit(thinking_end, 1)[1].strip()
    return "" if required and thinking_end else response


def strip_reasoning(response: str, thinking_end: str | None) -> str:
    """The text after the last ``thinking_end`` marker (all of it when the marker is absent), trimmed."""
    return after_reasoning(response, thinking_end).strip()


def without_reasoning_blocks(response: str, thinking_end: str | None) -> str:
    """OpenCompass's model-level reasoning remover (``extract_non_reasoning_content`` in
    ``opencompass/utils/text_postprocessors.py``, a5acc4bb): with the end marker but no opening tag, the text
    after the last end marker; otherwise every block from an opening tag to the next end marker cut out (text
    before and between blocks kept; an unclosed block kept); stripped. The opening tag is the end marker
    without its slash (``</think>`` -> ``<think>``)."""
    if not thinking_end:
        return response.strip()
    start = thinking_end.replace("</", "<", 1)
    if start not in response and thinking_end in response:
        return response.split(thinking_end)[-1].strip()
    return re.sub(f"{re.escape(start)}(.*?){re.escape(thinking_end)}", "", response, flags=re.DOTALL).strip()


def last_boxed(response: str) -> str | None:
    """The content of the last ``\\boxed{...}`` (nested braces kept whole), or None without one.

    An unclosed box runs to the end of the response.
    """
    boxes = list(_BOXED.finditer(response))
    if not boxes:
        return None
    start, depth = boxes[-1].end(), 1
    for position in range(start, len(response)):
        depth += {"{": 1, "}": -1}.get(response[position], 0)
        if depth == 0:
            return response[start:position]
    return response[start:]
