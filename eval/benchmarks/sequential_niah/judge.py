"""Sequential-NIAH's LLM judge rubric: the paper's Figures 10 and 11, by the row's pipeline and language.

The judge needs a second model call per sample, which the one-pass harness does not make. It runs
after a run, over the run's saved answers (:func:`eval.judge.judge_run`, ``python -m eval judge``):
:data:`JUDGE_RUBRIC` renders each answer with the question and the reference into the Figure 10
(temporal) or Figure 11 (logical) prompt, and reads the judge's ``eval_label`` with
:func:`generators.sequential_niah.prompts.parse_eval_label` ("correct", "incorrect", or None when
unreadable). :func:`eval.benchmarks.sequential_niah.report.judged_samples`
scores a run by the verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from generators.sequential_niah.prompts import (
    judge_prompt,
    order_type_of,
    parse_eval_label,
)
from needlework.backends.base import Message

CORRECT = "correct"


@dataclass(frozen=True)
class JudgeCase:
    """One answer for the judge: the question, the answer, the reference, and which prompt applies."""

    key: str
    question: str
    answer: str
    reference: str
    order_type: str
    lang: str

    def messages(self) -> tuple[Message, ...]:
        """The Figure 10 (temporal) or Figure 11 (logical) prompt in the case's language, as one user turn."""
        prompt = judge_prompt(self.order_type, self.lang, query=self.question, answer=self.answer,
                              ref_answer=self.reference)
        return ({"role": "user", "content": prompt},)


def judge_case(key: str, row: Mapping[str, Any], answer: str) -> JudgeCase:
    """The :class:`JudgeCase` of a Sequential-NIAH row (its question, ``reference``, pipeline, language)."""
    return JudgeCase(key, str(row["question"]), answer, str(row["reference"]), order_type_of(str(row["pipeline"])),
                     str(row["lang"]))


@dataclass(frozen=True)
class SequentialJudgeRubric:
    """The paper's judge as a :class:`eval.rubric.JudgeRubric`: verdicts are ``eval_label`` values.

    Attributes:
        verdict_field: ``eval_label``, the field the verdicts have always been saved under.
    """

    verdict_field: str = "eval_label"

    def messages(self, row: Mapping[str, Any], answer: str) -> tuple[Message, ...]:
        """The :class:`JudgeCase` prompt of the row and the extracted answer."""
        return judge_case("", row, answer).messages()

    def parse(self, raw: str) -> str | None:
        """"correct", "incorrect", or None when the judge's output holds no readable label."""
        return parse_eval_label(raw)

    def score(self, verdict: str | None) -> float | None:
        """1.0 for "correct", 0.0 for "incorrect", None for an unreadable verdict."""
        return None if verdict is None else float(verdict == CORRECT)


JUDGE_RUBRIC = SequentialJudgeRubric()
