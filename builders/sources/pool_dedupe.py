"""Question pools without repeated questions, and the qids of the repeats dropped.

Real sources repeat themselves: MMLU's ``public_relations`` test split holds "In what year did the
BBC start broadcasting radio?" twice, its ``college_physics`` test split holds one question twice
(rows 4 and 16, same stem, same options). A RULERv2 multi-key context drawn from such a pool can show
one question under two indices. Pools are therefore de-duplicated on reading, by normalized text
(:func:`normalized_text`: Unicode NFKC, case-folded, whitespace collapsed), the first occurrence kept
in source order:

- a multiple-choice question repeats another when its stem and its set of options do (options in
  another order are the same question; the same stem over other options, like MMLU's many "Which of
  the following statements is true?", is not);
- a ``paper``-preset distractor question (MMLU ``auxiliary_train``) is dropped when it repeats an
  earlier distractor or any of the pool's questions, which hide among the distractors;
- a multi-doc QA question repeats another when its text and its gold documents do (documents are
  already unique by title, :mod:`builders.sources.hotpotqa`); the same words over other documents,
  as SQuAD's generic questions, are another question.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Hashable, Iterable
from dataclasses import replace
from typing import TypeVar

from generators.rulerv2.pools import DocQaPool, DocQuestion, Mcq, McqPool

T = TypeVar("T")


def normalized_text(text: str) -> str:
    """``text`` as duplicates are compared: NFKC, case-folded, runs of whitespace as one space, stripped."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def mcq_key(mcq: Mcq) -> tuple[str, frozenset[str]]:
    """What makes two multiple-choice questions the same: the normalized stem and set of options."""
    return normalized_text(mcq.question), frozenset(normalized_text(c) for c in mcq.choices)


def doc_question_key(question: DocQuestion) -> tuple[str, frozenset[int]]:
    """What makes two multi-doc QA questions the same: the normalized text and the gold documents."""
    return normalized_text(question.question), frozenset(question.gold)


def unique(items: Iterable[T], key: Callable[[T], Hashable], seen: set[Hashable] | None = None) -> tuple[tuple[T, ...], tuple[T, ...]]:
    """(kept, dropped): each item whose key was not seen before is kept, in order; ``seen`` is
    updated with the kept keys (pass one set to de-duplicate across several lists)."""
    seen = set() if seen is None else seen
    kept: list[T] = []
    dropped: list[T] = []
    for item in items:
        k = key(item)
        (dropped if k in seen else kept).append(item)
        seen.add(k)
    return tuple(kept), tuple(dropped)


def unique_mcq_pool(pool: McqPool) -> tuple[McqPool, tuple[str, ...]]:
    """``pool`` without repeated questions or distractors (see the module docstring), and the qids dropped.

    Few-shot ``shots`` are left as they are: they are demonstrations, not items of the context.
    """
    seen: set[Hashable] = set()
    questions, dropped = unique(pool.questions, mcq_key, seen)
    distractors, dropped_distractors = unique(pool.distractors, mcq_key, seen)
    if not dropped and not dropped_distractors:
        return pool, ()
    return (replace(pool, questions=questions, distractors=distractors),
            tuple(m.qid for m in (*dropped, *dropped_distractors)))


def unique_docqa_pool(pool: DocQaPool) -> tuple[DocQaPool, tuple[str, ...]]:
    """``pool`` without repeated questions (see the module docstring), and the qids dropped."""
    questions, dropped = unique(pool.questions, doc_question_key)
    if not dropped:
        return pool, ()
    return replace(pool, questions=questions), tuple(q.qid for q in dropped)
