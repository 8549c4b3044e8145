"""A toy benchmark's rows, task and judge rubric for tests of eval's general machinery (the judge loop, suites):
the input as one user turn, the answer after reasoning, exact match, graded 0-5 by a judge."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from eval.task import TaskOptions, strip_reasoning
from needlework.backends.base import Message

TOY_SCHEMA = pa.schema([("id", pa.string()), ("input", pa.string()), ("question", pa.string()),
                        ("answers", pa.list_(pa.string()))])
TOY_ROWS = [{"id": f"r{i}", "input": f"Context {i}. Question {i}?", "question": f"Question {i}?", "answers": [f"A{i}"]}
            for i in range(4)]


@dataclass(frozen=True)
class EchoTask:
    """The input as one user turn; the answer after reasoning; exact match."""

    name: str
    options: TaskOptions
    metric: str = "toy exact match"
    metadata_columns: tuple[str, ...] = ()

    def render(self, row: Mapping[str, Any]) -> tuple[Message, ...]:
        return ({"role": "user", "content": row["input"]},)

    def references(self, row: Mapping[str, Any]) -> list[str]:
        return list(row["answers"])

    def metadata(self, row: Mapping[str, Any]) -> dict[str, Any]:
        return {}

    def extract(self, response: str) -> str:
        return strip_reasoning(response, self.options.thinking_end)

    def score(self, prediction: str, references: Sequence[str]) -> float:
        return float(prediction in references)


@dataclass(frozen=True)
class ScaleRubric:
    """Grades 0-5: exactly one integer after stripping whitespace, else no verdict (and counted)."""

    verdict_field: str = "verdict"

    def messages(self, row: Mapping[str, Any], answer: str) -> tuple[Message, ...]:
        return ({"role": "user", "content": f"Question: {row['question']}\nAnswer: {answer}\nGrade 0-5."},)

    def parse(self, raw: str) -> int | None:
        text = raw.strip()
        return int(text) if re.fullmatch(r"[0-5]", text) else None

    def score(self, verdict: int | None) -> float | None:
        return None if verdict is None else verdict / 5
