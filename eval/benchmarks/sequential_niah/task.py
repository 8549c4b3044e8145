"""The Sequential-NIAH task: the Figure 1 prompt as one user turn, scored by the order-aware item scorer.

A row's ``input`` is the Figure 1 prompt (the long text with the shuffled needles, then the
question); its ``answers`` are the reference items in their true order. The task sends the
prompt as one user turn and scores the response after :meth:`eval.task.TaskOptions.strip_reasoning` with
:func:`eval.benchmarks.sequential_niah.items.score_items`.

Rows are read by two registered tasks, ``sequential-niah/ordered`` and
``sequential-niah/unordered`` (:func:`task_for_row`, from the row's ``ordered``), so re-scoring
from the saved records alone knows whether order counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from eval.benchmarks.sequential_niah.items import (
    MATCH_THRESHOLD,
    ItemScore,
    score_items,
)
from eval.benchmarks.sequential_niah.judge_accuracy import JUDGE_TASK, is_judge_row
from eval.task import TaskOptions
from generators.sequential_niah.spec import BENCHMARK
from needlework.backends.base import Message
from needlework.checks import require_one_of
from needlework.errors import SpecError

ORDERED = f"{BENCHMARK}/ordered"
UNORDERED = f"{BENCHMARK}/unordered"
TASK_NAMES: tuple[str, ...] = (ORDERED, UNORDERED)
SEQUENTIAL_METRIC = (
    "Sequential-NIAH (paper §4-5), order-aware rule scorer: the response's list items matched one-to-one to the "
    f"reference items (normalized text with dates canonicalized, WRatio-like similarity >= {MATCH_THRESHOLD:g}, numbers a "
    "sub-multiset of the reference item's); 1 when every reference item is matched, no extra item remains and, "
    "where the question asks for order, the matched items are in reference order; else 0"
)


def task_for_row(row: Mapping[str, Any]) -> str:
    """``sequential-niah/ordered`` when the row's question asks for order, else ``sequential-niah/unordered``;
    a labelled judge candidate (``judge-test``, ``judge-train``) is the judge-accuracy task
    (:data:`eval.benchmarks.sequential_niah.judge_accuracy.JUDGE_TASK`).

    Raises:
        SpecError: The row lacks ``input``, ``answers`` or ``ordered`` and is no judge candidate (a ``texts`` row).
    """
    if is_judge_row(row):
        return JUDGE_TASK
    missing = [column for column in ("input", "answers", "ordered") if column not in row]
    if missing:
        raise SpecError(f"sequential-niah row {row.get('id')!r} has no {', '.join(missing)} column; run a sample "
                        "config (default, noise-<type>), or a judge config with python -m eval judge-accuracy")
    return ORDERED if row["ordered"] else UNORDERED


@dataclass(frozen=True)
class SequentialNiahTask:
    """A Sequential-NIAH sample: the prompt as one user turn, scored by :func:`score_items`.

    Attributes:
        name: :data:`ORDERED` or :data:`UNORDERED`.
        options: Reasoning marker (rows have no answer prefix).
    """

    name: str
    options: TaskOptions
    metric: str = SEQUENTIAL_METRIC
    metadata_columns: tuple[str, ...] = ("length_bucket", "needle_count", "pipeline", "lang", "ordered", "variant",
                                         "original_id", "qid", "n_tokens")
    ordered: bool = field(init=False)

    def __post_init__(self) -> None:
        require_one_of("Sequential-NIAH task", self.name, TASK_NAMES)
        object.__setattr__(self, "ordered", self.name == ORDERED)

    def render(self, row: Mapping[str, Any]) -> tuple[Message, ...]:
        """The row's ``input`` (Figure 1 prompt) as one user turn."""
        return ({"role": "user", "content": row["input"]},)

    def references(self, row: Mapping[str, Any]) -> list[str]:
        """The reference items in true order (the row's ``answers``)."""
        return list(row["answers"])

    def metadata(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """Length bucket, needle count, pipeline, language, whether order is asked, the noise variant
        (``original`` or e.g. ``tiny-movement/1``) and its original row id, the QA id, and ``n_tokens``."""
        return {
            "length_bucket": str(row["length_bucket"]),
            "needle_count": len(row["answers"]),
            "pipeline": str(row["pipeline"]),
            "lang": str(row["lang"]),
            "ordered": bool(row["ordered"]),
            "variant": str(row.get("variant") or "original"),
            "original_id": str(row.get("original_id") or row["id"]),
            "qid": str(row["qid"]),
            "n_tokens": int(row["n_tokens"]),
        }

    def extract(self, response: str) -> str:
        """The response after any reasoning (items are read by :meth:`score`)."""
        return self.options.strip_reasoning(response)

    def details(self, prediction: str, references: Sequence[str]) -> ItemScore:
        """The per-item details of :meth:`score` (matched, missing, extra, order_ok)."""
        return score_items(prediction, references, ordered=self.ordered)

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """1.0 when :func:`score_items` finds the answer correct, else 0.0."""
        return 1.0 if self.details(prediction, references).correct else 0.0

    def secondary_scores(self, prediction: str, references: Sequence[str]) -> dict[str, float]:
        """Item recall and precision and whether the matched items are in order, beside the verdict."""
        found = self.details(prediction, references)
        counted = len(found.matched) + len(found.extra)
        return {"item_recall": len(found.matched) / len(references),
                "item_precision": len(found.matched) / counted if counted else 0.0,
                "order_ok": float(found.order_ok)}
