"""What every retrieval strategy shares: the protocol, top-k selection and exact ranks.

A strategy scores every corpus document for a query (document index == doc id) and so defines a
total order over the whole corpus: by score descending, ties broken by the smaller doc id. PPR
reranking adds one level in between (PPR score, then the base retriever's score, then doc id), so
the order is expressed as :class:`OrderKeys`: a primary score, an optional secondary score, then
doc id. Top-k lists and the exact rank of any document (needles far beyond k included) are
computed from those keys in linear time per query, without sorting the whole corpus.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, NamedTuple, Protocol, runtime_checkable

import numpy as np

from needlework.errors import SpecError


DocumentRenderer = Callable[[str, str], str]
"""``render(title, text)``: a corpus row as the text a retriever indexes. A benchmark passes its own
(HaystackCraft: ``Article Title: {title}\n{text}``), so retrieval depends on no benchmark; the
corpus fingerprint hashes the rendered texts, so cached artifacts follow the renderer too."""


class Hits(NamedTuple):
    """Top-k results of a batch of queries.

    Attributes:
        doc_ids: ``(q, k)`` int64, best first.
        scores: ``(q, k)`` float32, the strategy's score of each hit.
    """

    doc_ids: np.ndarray
    scores: np.ndarray


class OrderKeys(NamedTuple):
    """The keys that order the corpus for a batch of queries.

    Attributes:
        primary: ``(q, n)`` float32, the strategy's score (descending).
        secondary: ``(q, n)`` float32 breaking ties of ``primary`` (descending), or ``None``;
            ties that remain go to the smaller doc id.
    """

    primary: np.ndarray
    secondary: np.ndarray | None


@runtime_checkable
class Retriever(Protocol):
    """A retriever scores every corpus document for each query.

    Attributes:
        name: Strategy name (``"bm25"``, ``"dense"``, ``"hybrid"``, ``"bm25+ppr"`` ...).
        fingerprint: sha256 hex of everything that determines its scores besides the corpus.
    """

    name: str
    fingerprint: str

    def score_all(self, queries: Sequence[str]) -> np.ndarray:
        """``(len(queries), n_docs)`` float32 scores over every document (index == doc id)."""
        ...


@runtime_checkable
class Reranker(Retriever, Protocol):
    """A strategy whose order needs a tie-breaking score besides its own (PPR reranking)."""

    def order_keys(self, queries: Sequence[str]) -> OrderKeys:
        """The primary and secondary keys for a batch of queries."""
        ...


@dataclass(frozen=True)
class StrategyRanking:
    """One question's result under one strategy.

    Attributes:
        doc_ids: The top-K documents, best first (int64).
        scores: The strategy's score of each (float32, same length; for ``+ppr`` the PPR score).
        needle_ids: The question's supporting documents (int64, in the qa row's order).
        needle_ranks: Exact 1-based rank of each needle in the strategy's order over the whole
            corpus, even beyond K (int64).
        needle_scores: The strategy's score of each needle (float32).
    """

    doc_ids: np.ndarray
    scores: np.ndarray
    needle_ids: np.ndarray
    needle_ranks: np.ndarray
    needle_scores: np.ndarray


def order_keys(strategy: Retriever, queries: Sequence[str]) -> OrderKeys:
    """The ordering keys of any strategy: its own for a :class:`Reranker`, else its scores alone."""
    if isinstance(strategy, Reranker):
        return strategy.order_keys(queries)
    return OrderKeys(strategy.score_all(queries), None)


def search_batch(strategy: Retriever, queries: Sequence[str], k: int) -> Hits:
    """Top-k documents of each query, derived from ``score_all`` (or ``order_keys``).

    Ties are broken as the strategy's total order says (smaller doc id last of all), so the result
    is the first k entries of the full order. ``k`` larger than the corpus returns every document.
    """
    keys = order_keys(strategy, queries)
    return top_k(keys.primary, k, keys.secondary)


def top_k(primary: np.ndarray, k: int, secondary: np.ndarray | None = None) -> Hits:
    """The first ``k`` documents of each row's order (primary desc, secondary desc, doc id asc).

    ``argpartition`` finds the k-th best primary score; every document scoring at least that much
    is a candidate (all ties at the boundary included, so the cut respects the tie-break), and only
    the candidates are sorted.

    Args:
        primary: ``(q, n)`` scores.
        k: How many documents per row (at most n are returned).
        secondary: ``(q, n)`` tie-breaking scores, or ``None``.
    """
    if k < 1:
        raise SpecError(f"k must be at least 1, got {k}")
    primary = np.atleast_2d(primary)
    q, n = primary.shape
    k = min(k, n)
    doc_ids = np.empty((q, k), dtype=np.int64)
    for row in range(q):
        doc_ids[row] = _top_k_row(primary[row], k, None if secondary is None else secondary[row])
    scores = np.take_along_axis(primary, doc_ids, axis=1).astype(np.float32, copy=False)
    return Hits(doc_ids, scores)


def _top_k_row(primary: np.ndarray, k: int, secondary: np.ndarray | None) -> np.ndarray:
    n = primary.shape[0]
    if k < n:
        threshold = primary[np.argpartition(primary, n - k)[n - k]]
        candidates = np.flatnonzero(primary >= threshold)
    else:
        candidates = np.arange(n)
    best_first = _sort_candidates(candidates, primary, secondary)
    return best_first[:k]


def _sort_candidates(candidates: np.ndarray, primary: np.ndarray, secondary: np.ndarray | None) -> np.ndarray:
    # lexsort sorts by the last key first: primary desc, then secondary desc, then doc id asc.
    keys: list[np.ndarray] = [candidates]
    if secondary is not None:
        keys.append(-secondary[candidates])
    keys.append(-primary[candidates])
    return candidates[np.lexsort(keys)]


def full_order(primary: np.ndarray, secondary: np.ndarray | None = None) -> np.ndarray:
    """Every doc id of one query in the strategy's order (O(n log n); for small corpora and tests)."""
    return _sort_candidates(np.arange(primary.shape[0]), primary, secondary)


def ranks_of(primary: np.ndarray, doc_ids: np.ndarray, secondary: np.ndarray | None = None) -> np.ndarray:
    """Exact 1-based ranks of some documents in one query's order over the whole corpus.

    A document's rank is one plus the number of documents ordered before it, counted directly in
    O(n) per document: no sort, and correct however deep the document sits.

    Args:
        primary: ``(n,)`` scores of one query.
        doc_ids: The documents to rank (any order; int).
        secondary: ``(n,)`` tie-breaking scores, or ``None``.
    """
    doc_ids = np.asarray(doc_ids, dtype=np.int64)
    ranks = np.empty(doc_ids.shape[0], dtype=np.int64)
    for i, doc in enumerate(doc_ids.tolist()):
        value = primary[doc]
        tied = primary == value
        if secondary is not None:
            before_on_secondary = tied & (secondary > secondary[doc])
            tied &= secondary == secondary[doc]
        else:
            before_on_secondary = None
        before = int(np.count_nonzero(primary > value)) + int(np.count_nonzero(tied[:doc]))
        if before_on_secondary is not None:
            before += int(np.count_nonzero(before_on_secondary))
        ranks[i] = before + 1
    return ranks


def full_ranks(primary: np.ndarray) -> np.ndarray:
    """The 1-based rank of every document of one query (score desc, doc id asc); int64 ``(n,)``."""
    order = np.argsort(-primary, kind="stable")
    ranks = np.empty(primary.shape[0], dtype=np.int64)
    ranks[order] = np.arange(1, primary.shape[0] + 1)
    return ranks


class LastCall:
    """Remembers the scores of the last batch of queries, so strategies built on one another
    (hybrid on BM25 and dense, PPR on any of them) score each batch once.

    The stored matrix is returned read-only: every caller shares it.
    """

    def __init__(self) -> None:
        self._key: tuple[str, ...] | None = None
        self._value: np.ndarray | None = None

    def get(self, queries: Sequence[str]) -> np.ndarray | None:
        """The remembered scores if ``queries`` equals the last batch, else ``None``."""
        if self._key is not None and self._key == tuple(queries):
            return self._value
        return None

    def put(self, queries: Sequence[str], scores: np.ndarray) -> np.ndarray:
        """Remember ``scores`` for ``queries``; returns them (made read-only)."""
        scores.setflags(write=False)
        self._key, self._value = tuple(queries), scores
        return scores


def check_corpus(titles: Sequence[str], texts: Sequence[str]) -> None:
    """Refuse an empty corpus or titles and texts of different lengths (every retriever indexes both)."""
    if len(titles) != len(texts):
        raise SpecError(f"titles and texts differ in length ({len(titles)} vs {len(texts)})")
    if not titles:
        raise SpecError("the corpus is empty")
