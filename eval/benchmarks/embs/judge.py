"""EverMemBench-S's LLM judge: Figure 6's 0–5 rubric over (query, true answer, predicted answer) (A.6, A.7).

The judge sees only the triplet, never the corpus nor the system's name (A.7). Its output must be
a single integer from 0 to 5 once surrounding whitespace is stripped (Figure 6: "Output only a
single number (0, 1, 2, 3, 4, or 5):"); anything else ("4/5", "Score: 4", "6") is no verdict, kept
as null and counted, never guessed. The paper's judge is Grok-4; ``python -m eval judge --model``
picks any.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from generators.embs.prompts import judge_prompt
from needlework.backends.base import Message

JUDGE_MAX = 5
"""The top of Figure 6's scale."""
_VERDICT = re.compile(r"[0-5]")


def parse_judge_score(raw: str) -> int | None:
    """The judge's 0–5 score: the whole output, whitespace stripped, must be one digit 0–5; else None.

    ``"4"`` -> 4, ``" 5\\n"`` -> 5, ``"4/5"`` -> None, ``"score: 6"`` -> None.
    """
    text = raw.strip()
    return int(text) if _VERDICT.fullmatch(text) else None


@dataclass(frozen=True)
class EmbsJudgeRubric:
    """Figure 6 as a :class:`eval.rubric.JudgeRubric`; verdicts are saved as ``judge_score`` (0–5)."""

    verdict_field: str = "judge_score"

    def messages(self, row: Mapping[str, Any], answer: str) -> tuple[Message, ...]:
        """Figure 6 filled with the row's query and reference answer and the model's answer, as one user turn."""
        return ({"role": "user", "content": judge_prompt(str(row["query"]), str(row["answer"]), answer)},)

    def parse(self, raw: str) -> int | None:
        """:func:`parse_judge_score`."""
        return parse_judge_score(raw)

    def score(self, verdict: int | None) -> float | None:
        """The 0–5 score as a fraction of 5 (the report prints the 0–5 mean, as Table 4); None without a verdict."""
        return None if verdict is None else verdict / JUDGE_MAX


JUDGE_RUBRIC = EmbsJudgeRubric()
