"""EverMemBench-S tasks: evidence access by document ID (``embs/localize``) and answers (``embs/qa``).

Both render the prompts of :mod:`generators.embs.prompts` (the corpus, then the instruction), so a
long-context model and a RAG pipeline answer through the same ``[DocID=n]`` interface (A.3).

- ``embs/localize`` reads the first K = 10 unique integers of the answer after reasoning (A.3's
  canonicalization) and scores SR@10 (A.5, Eq. 1) over every query; R@1 (single-source only),
  FR@10 (multi-source only, Eq. 2) and whether any ID was read are its secondary scores. An answer
  with no integer scores 0 and is counted as unparsed.
- ``embs/qa``: the paper scores answers only with the 0–5 LLM judge (A.6, Figure 6), run after the
  run by ``python -m eval judge``. Its rule score is needlework's check that a reference answer
  occurs in the response (case-insensitive): a quick signal before judging, not the paper's number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from eval.scoring import string_match
from eval.task import TaskOptions
from generators.embs.prompts import DEFAULT_K, localize_prompt, qa_prompt
from generators.embs.scoring import canonicalize_ids, fr_at_k, r_at_1, sr_at_k
from generators.embs.spec import BENCHMARK
from needlework.backends.base import Message

LOCALIZE = f"{BENCHMARK}/localize"
QA = f"{BENCHMARK}/qa"
TASK_NAMES: tuple[str, ...] = (LOCALIZE, QA)
METADATA_COLUMNS: tuple[str, ...] = ("scale", "tier", "domain", "kind", "track", "lang", "regime", "retriever", "qid",
                                     "n_refs", "context_tokens")


@dataclass(frozen=True)
class EmbsTask:
    """One EMB-S task (module docstring); ``name`` picks localization or QA."""

    name: str
    options: TaskOptions = TaskOptions()  # noqa: RUF009 - frozen, so one shared default is safe
    metadata_columns: tuple[str, ...] = METADATA_COLUMNS

    @property
    def metric(self) -> str:
        """What :meth:`score` measures."""
        return ("SR@10 (A.5)" if self.name == LOCALIZE
                else "reference answer in the response (needlework's rule check; the paper's score is the 0-5 judge)")

    def render(self, row: Mapping[str, Any]) -> tuple[Message, ...]:
        """The corpus (or the retrieved documents), then the localization or QA instruction, as one user turn."""
        prompt = (localize_prompt(row["context"], row["query"], DEFAULT_K) if self.name == LOCALIZE
                  else qa_prompt(row["context"], row["query"]))
        return ({"role": "user", "content": prompt},)

    def references(self, row: Mapping[str, Any]) -> list[str]:
        """Localization: the gold document IDs (the RefList); QA: the reference answers."""
        if self.name == LOCALIZE:
            return [str(doc_id) for doc_id in row["ref_list"]]
        return [str(a) for a in (row.get("answers") or [row["answer"]])]

    def metadata(self, row: Mapping[str, Any]) -> dict[str, Any]:
        """The row's scale, tier, domain, kind, track, language, regime, retriever, qid, gold count and context size."""
        return {column: row.get(column) for column in self.metadata_columns}

    def extract(self, response: str) -> str:
        """Localization: the canonical IDs joined by ", " ("" when none); QA: the text after reasoning."""
        answer = self.options.strip_reasoning(response)
        if self.name == LOCALIZE:
            return ", ".join(map(str, canonicalize_ids(answer, DEFAULT_K)))
        return answer

    def score(self, prediction: str, references: Sequence[str]) -> float:
        """Localization: SR@10 of the canonical IDs; QA: 1.0 when a reference occurs in the answer."""
        if self.name == LOCALIZE:
            return sr_at_k(_ids(prediction), [int(r) for r in references], DEFAULT_K)
        return max((string_match(r, prediction) for r in references if r), default=0.0)

    def secondary_scores(self, prediction: str, references: Sequence[str]) -> dict[str, float]:
        """Localization: ``r1`` (single-source), ``fr10`` (multi-source) and ``parsed``; QA: none."""
        if self.name != LOCALIZE:
            return {}
        retrieved, gold = _ids(prediction), [int(r) for r in references]
        scores = {"parsed": float(bool(retrieved))}
        for name, value in (("r1", r_at_1(retrieved, gold)), ("fr10", fr_at_k(retrieved, gold, DEFAULT_K))):
            if value is not None:
                scores[name] = value
        return scores


def _ids(prediction: str) -> list[int]:
    """The IDs of an extracted prediction (already canonical: at most K, unique, in order)."""
    return canonicalize_ids(prediction, DEFAULT_K)


def task_for_row(row: Mapping[str, Any]) -> str:
    """``embs/localize`` or ``embs/qa``, from the composed row's ``task``."""
    return f"{BENCHMARK}/{row['task']}"
