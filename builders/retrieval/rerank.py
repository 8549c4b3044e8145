"""Cross-encoder reranking of a retriever's ranking (EverMemBench-S §4.3, Table 3's "+ Qwen3-Reranker-8B" rows).

The paper reranks an embedder's candidates with Qwen3-Reranker-8B and reports the reranked R@1, SR@10 and FR@10
beside the embedder's; it gives no depth. Here a sentence-transformers ``CrossEncoder`` scores each (query,
document) pair of a ranking's top :data:`DEPTH` (OURS: the ranking rows keep 100) and orders them by that score,
the retriever's order breaking ties; documents below the depth keep their places. A gold document inside the
depth takes its new rank; one below keeps its rank. The reranked rows are the retriever's name with
:data:`SUFFIX` (``dense+rerank``), so Table 3 shows both.

A pair is scored once per build however many corpora rank it (the ladder's corpora are nested, so the same
top documents recur), which keeps a large cross-encoder affordable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

import numpy as np

from builders.retrieval.ladder import TOP, Ranked
from generators.embs.spec import RERANK_SUFFIX
from needlework.errors import SpecError
from needlework.hub import hub_errors

DEPTH = TOP
"""Documents of each ranking the cross-encoder reorders (OURS: every document a ranking row keeps)."""
SUFFIX = RERANK_SUFFIX
"""Appended to the retriever's name in the reranked rows."""


class PairScorer(Protocol):
    """Scores (query, document) pairs, higher is more relevant: sentence-transformers' ``CrossEncoder.predict``."""

    def predict(self, sentences: list[tuple[str, str]], **kwargs: Any) -> Any:
        """One relevance score per pair."""
        ...


def load_cross_encoder(model: str) -> PairScorer:
    """A sentence-transformers ``CrossEncoder`` (a Hub name or a local folder), with a clear error without the extra.

    Raises:
        SpecError: sentence-transformers is not installed (the ``dense`` extra), or the model cannot be loaded.
    """
    try:
        from sentence_transformers import CrossEncoder
    except ImportError as err:
        raise SpecError("--reranker needs sentence-transformers: pip install 'needlework[dense]'") from err
    with hub_errors(f"--reranker {model!r} could not be loaded as a cross-encoder", SpecError):
        return CrossEncoder(model)


def reranked(ranking: Ranked, scores: Sequence[float]) -> Ranked:
    """``ranking`` with its top ``len(scores)`` documents reordered by ``scores`` (higher first, the retriever's order
    breaking ties) and the rest in place; gold ranks follow (module docstring)."""
    depth = len(scores)
    order = sorted(range(depth), key=lambda i: (-float(scores[i]), i))
    top = [ranking.doc_ids[i] for i in order]
    position = {doc: rank for rank, doc in enumerate(top, start=1)}
    gold_ranks = [position.get(doc, old) for doc, old in zip(ranking.gold, ranking.gold_ranks)]
    return replace(ranking, retriever=ranking.retriever + SUFFIX, doc_ids=[*top, *ranking.doc_ids[depth:]],
                   gold_ranks=gold_ranks)


def rerank_rankings(rankings: Iterable[Ranked], queries: Mapping[str, str], document: Callable[[int], str],
                    scorer: PairScorer, depth: int = DEPTH, batch_size: int = 64) -> Iterator[Ranked]:
    """The reranked row of every ranking (:func:`reranked`), each (query, document) pair scored once.

    Args:
        rankings: Rankings of one or more retrievers (``Ranked`` rows of the ladder).
        queries: Query text by qid.
        document: The text a cross-encoder reads for a doc id (title and text).
        scorer: The cross-encoder.
        depth: Top documents reordered per ranking.
        batch_size: Pairs per ``predict`` call.
    """
    if depth < 1:
        raise SpecError(f"rerank depth must be at least 1, got {depth}")
    rows = list(rankings)
    pairs = list(dict.fromkeys((r.qid, doc) for r in rows for doc in r.doc_ids[:depth]))
    scores: dict[tuple[str, int], float] = {}
    for start in range(0, len(pairs), batch_size):
        block = pairs[start:start + batch_size]
        predicted = np.asarray(scorer.predict([(queries[qid], document(doc)) for qid, doc in block],
                                              batch_size=batch_size, show_progress_bar=False), dtype=np.float64).reshape(-1)
        scores.update(zip(block, predicted.tolist()))
    for row in rows:
        yield reranked(row, [scores[(row.qid, doc)] for doc in row.doc_ids[:depth]])
