"""RULERv2 tasks. Basic multi-key and multi-value NIAH for now; the other levels join here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from eval.backends.base import Message
from eval.scoring import Aggregate, ruler_score
from eval.tasks.base import TaskOptions, strip_reasoning

DEPTH_BIN_PERCENT = 10
RULER_METRIC = (
    "RULERv2: per reference max(string match, 1 - WER), WER per pair after lower-casing, "
    "removing punctuation and splitting on whitespace, 1 - WER clipped at 0; "
    "mean over references"
)


def depth_bin(depth_percent: float) -> int:
    """Lower edge of the 10%-wide depth bin (0, 10, ..., 90) holding ``depth_percent``."""
    return min(90, int(depth_percent // DEPTH_BIN_PERCENT) * DEPTH_BIN_PERCENT)


@dataclass(frozen=True)
class RulerNiahTask:
    """A RULERv2 NIAH task: the row's prompt as one user turn, scored by :func:`ruler_score`.

    Multi-key asks for one value, multi-value for all values of a key; both are "all" tasks in
    RULER's sense (every reference must be recalled). A row with a single needle also reports the
    needle's depth bin, which draws the classic depth x length heatmap.
    """

    name: str
    options: TaskOptions
    aggregate: Aggregate = "all"
    metric: str = RULER_METRIC
    metadata_columns: tuple[str, ...] = ("length", "depth")

    def render(self, row: Mapping[str, Any]) -> tuple[Message, ...]:
        """The prompt as built; the answer prefix placed as :class:`TaskOptions` says."""
        prompt, prefix = row["input"], row.get("answer_prefix") or ""
        if self.options.answer_prefix == "user" or not prefix:
            return ({"role": "user", "content": prompt},)
        if not prompt.endswith(prefix):
            raise ValueError(f"row {row['id']}: input does not end with its answer_prefix")
        question = prompt[: len(prompt) - len(prefix)]
        if self.options.answer_prefix == "omit":
            return ({"role": "user", "content": question},)
        return ({"role": "user", "content": question}, {"role": "assistant", "content": prefix.strip()})

    def references(self, row: Mapping[str, Any]) -> list[str]:
        """The values hidden for the queried key."""
        return list(row["answers"])

    def metadata(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """Target length in tokens, and the depth bin when exactly one needle answers the query."""
        needles = row.get("needles") or []
        depth = depth_bin(float(needles[0]["depth_percent"])) if len(needles) == 1 else None
        return {"length": int(row["target_tokens"]), "depth": depth}

    def extract(self, response: str) -> str:
        """The response after any reasoning."""
        return strip_reasoning(response, self.options.thinking_end)

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """:func:`eval.scoring.ruler_score` with this task's aggregation."""
        return ruler_score(references, prediction, self.aggregate)
