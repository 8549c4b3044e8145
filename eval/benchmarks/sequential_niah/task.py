"""The Sequential-NIAH task: the Figure 1 prompt as one user turn, scored by the order-aware item scorer.

A row's ``input`` is the Figure 1 prompt (the long text with the shuffled needles, then the
question); its ``answers`` are the reference items in their true order and its ``needles`` the
sentences that state them. The task sends the prompt as one user turn and scores the response after
:meth:`eval.task.TaskOptions.strip_reasoning` with :func:`eval.benchmarks.sequential_niah.items.score_items`,
which accepts each item in the reference's wording or its needle's.

A sample record's references are the reference items, then :data:`NEEDLES_FOLLOW` and the needle of
each item in the same order (:func:`references_of`), so that re-scoring from saved records matches
needles too; records saved before needles were kept hold the reference items alone and are scored
in the reference wording (:func:`split_references`).

Rows are read by two registered tasks, ``sequential-niah/ordered`` and
``sequential-niah/unordered`` (:func:`task_for_row`, from the row's ``ordered``), so re-scoring
from the saved records alone knows whether order counts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from eval.benchmarks.sequential_niah.items import (
    MATCH_THRESHOLD,
    WORD_COVERAGE,
    ItemScore,
    score_items,
)
from eval.benchmarks.sequential_niah.judge_accuracy import JUDGE_TASK, is_judge_row
from eval.task import TaskOptions
from generators.sequential_niah.spec import BENCHMARK
from needlework.backends.base import Message
from needlework.checks import require_one_of
from needlework.errors import SpecError

NEEDLES_FOLLOW = ""
"""The reference that separates a record's reference items from their needles (no item is empty)."""
ORDERED = f"{BENCHMARK}/ordered"
UNORDERED = f"{BENCHMARK}/unordered"
TASK_NAMES: tuple[str, ...] = (ORDERED, UNORDERED)
SEQUENTIAL_METRIC = (
    "Sequential-NIAH (paper §4-5), order-aware rule scorer: the response's list items matched one-to-one to the "
    "answer items, each in the reference item's wording or its needle's (normalized text with dates canonicalized, "
    f"WRatio-like similarity >= {MATCH_THRESHOLD:g}, numbers a sub-multiset of the wording's, >= {WORD_COVERAGE:.0%} "
    "of the wording's distinctive words in the item); 1 when every answer item is matched, no extra item remains and, where the "
    "question asks for order, the matched items are in reference order; else 0"
)


def references_of(row: Mapping[str, Any]) -> list[str]:
    """A row's reference items in true order, then :data:`NEEDLES_FOLLOW` and each item's needle, when the row
    has exactly one needle per item (every built row); the reference items alone otherwise."""
    answers = [str(a) for a in row["answers"]]
    by_index: dict[int, list[str]] = {}
    for needle in row.get("needles") or ():
        by_index.setdefault(int(needle["answer_index"]), []).append(str(needle["text"]))
    if sorted(by_index) != list(range(len(answers))) or any(len(texts) != 1 for texts in by_index.values()):
        return answers
    return [*answers, NEEDLES_FOLLOW, *(by_index[j][0] for j in range(len(answers)))]


def split_references(references: Sequence[str]) -> tuple[list[str], list[str] | None]:
    """(reference items, their needles or None): a record's references read back (:func:`references_of`)."""
    if NEEDLES_FOLLOW in references:
        cut = list(references).index(NEEDLES_FOLLOW)
        return list(references[:cut]), list(references[cut + 1:])
    return list(references), None


@lru_cache(maxsize=64)
def _details(prediction: str, references: tuple[str, ...], ordered: bool) -> ItemScore:
    """:func:`score_items` on a record's references (:func:`split_references`), kept for the few latest samples:
    scoring reads a sample's details twice (:meth:`SequentialNiahTask.score`, then its secondary scores)."""
    answers, needles = split_references(references)
    return score_items(prediction, answers, ordered=ordered, needles=needles)


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
        """The reference items in true order (the row's ``answers``), then their needles (:func:`references_of`)."""
        return references_of(row)

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
        """The per-item details of :meth:`score` (matched, missing, extra, order_ok, needle_worded)."""
        return _details(prediction, tuple(references), self.ordered)

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """1.0 when :func:`score_items` finds the answer correct, else 0.0."""
        return 1.0 if self.details(prediction, references).correct else 0.0

    def secondary_scores(self, prediction: str, references: Sequence[str]) -> dict[str, float]:
        """Item recall and precision and whether the matched items are in order, beside the verdict."""
        found = self.details(prediction, references)
        counted = len(found.matched) + len(found.extra)
        return {"item_recall": len(found.matched) / (len(found.matched) + len(found.missing)),
                "item_precision": len(found.matched) / counted if counted else 0.0,
                "order_ok": float(found.order_ok)}
