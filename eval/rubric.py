"""What an LLM judge rubric is, and how its verdicts are read back.

A benchmark whose answers an LLM judge grades declares a :class:`JudgeRubric` (its ``judge``
field, :class:`eval.benchmark.Benchmark`): how a release row and the extracted answer become the
judge's messages, how the judge's raw output parses into a verdict value, and what a verdict
scores. :func:`eval.judge.judge_run` sends a finished run's answers through a judge model and
appends one record per verdict to the run directory's judge log; :func:`read_verdicts` reads them
back as :class:`Verdict`; :class:`LlmJudge` judges one answer with any callable that answers chat
messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol

from eval.store import RunDirectory
from needlework.backends.base import Message


class JudgeRubric(Protocol):
    """How an LLM judge grades one benchmark's answers.

    Attributes:
        verdict_field: The field of a judge record that holds the parsed verdict (Sequential-NIAH:
            ``eval_label``, as its judge files have always named it).
    """

    verdict_field: str

    def messages(self, row: Mapping[str, Any], answer: str) -> tuple[Message, ...]:
        """The judge's chat messages for a release row and the model's extracted answer."""
        ...

    def parse(self, raw: str) -> Any:
        """The verdict in the judge's raw output; None when it cannot be read."""
        ...

    def score(self, verdict: Any) -> float | None:
        """A verdict as a score in [0, 1]; None for an unreadable verdict (None)."""
        ...


@dataclass(frozen=True)
class Verdict:
    """One judged answer: the judge's raw output, the parsed verdict and its score.

    Attributes:
        key: The sample's key.
        raw: The judge's output (None when the request failed).
        value: The parsed verdict (:meth:`JudgeRubric.parse`); None when unreadable or on error.
        score: :meth:`JudgeRubric.score` of ``value``.
        error: Why the judge request failed, if it did.
    """

    key: str
    raw: str | None
    value: Any
    score: float | None
    error: str | None = None


def read_verdicts(run: RunDirectory, rubric: JudgeRubric) -> dict[str, Verdict]:
    """The verdicts saved in a run directory's judge log, by sample key (the last done one counts)."""
    verdicts = {}
    for key, record in run.latest_judgements().items():
        value = record.get(rubric.verdict_field)
        verdicts[key] = Verdict(key, record.get("raw"), value, rubric.score(value), (record.get("error") or {}).get("message"))
    return verdicts


class LlmJudge:
    """A rubric's judge around any callable that answers chat messages with text."""

    def __init__(self, rubric: JudgeRubric, complete: Callable[[tuple[Message, ...]], str]) -> None:
        self.rubric = rubric
        self.complete = complete

    def judge(self, row: Mapping[str, Any], answer: str, key: str = "") -> Verdict:
        """Ask the judge once about ``answer`` to ``row``; the verdict keeps its raw output."""
        raw = self.complete(self.rubric.messages(row, answer))
        value = self.rubric.parse(raw)
        return Verdict(key, raw, value, self.rubric.score(value))

    def score(self, row: Mapping[str, Any], answer: str) -> float:
        """The verdict's score; an unreadable verdict scores 0."""
        return self.judge(row, answer).score or 0.0
