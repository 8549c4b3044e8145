"""Hybrid retrieval: reciprocal rank fusion (Cormack et al., 2009) of any retrievers.

score(d) = sum over retrievers r of 1 / (k_rrf + rank_r(d)), where rank_r is d's 1-based rank in
r's full order over the corpus (score descending, ties by smaller doc id). RRF uses ranks only, so
it is immune to the different score scales of BM25 and cosine similarity. The sums are computed in
float64 and returned as float32, like every strategy's scores; sums that only differ below float32
resolution (documents millions of ranks deep) tie and fall back to doc id order.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from builders.retrieval.base import LastCall, Retriever, full_ranks
from builders.retrieval.cache import fingerprint_of
from needlework.errors import SpecError

K_RRF = 60
"""The usual RRF constant (Cormack et al.; Azure AI Search's default)."""


def rrf_scores(score_matrices: Sequence[np.ndarray], k_rrf: int = K_RRF) -> np.ndarray:
    """Reciprocal rank fusion of several ``(q, n)`` score matrices into one ``(q, n)`` float32 matrix."""
    if not score_matrices:
        raise SpecError("reciprocal rank fusion needs at least one retriever")
    q, n = score_matrices[0].shape
    fused = np.zeros((q, n), dtype=np.float64)
    for scores in score_matrices:
        if scores.shape != (q, n):
            raise SpecError(f"retrievers disagree on the batch shape: {scores.shape} vs {(q, n)}")
        for row in range(q):
            fused[row] += 1.0 / (k_rrf + full_ranks(scores[row]))
    return fused.astype(np.float32)


class HybridRetriever:
    """Reciprocal rank fusion of retrievers (the paper's hybrid: BM25 + dense).

    Args:
        parts: The retrievers to fuse (all over the same corpus).
        k_rrf: The RRF constant.
        name: Strategy name.
    """

    def __init__(self, parts: Sequence[Retriever], k_rrf: int = K_RRF, name: str = "hybrid") -> None:
        if len(parts) < 1:
            raise SpecError("a hybrid retriever needs at least one part")
        if k_rrf < 0:
            raise SpecError(f"k_rrf must be non-negative, got {k_rrf}")
        self.parts = tuple(parts)
        self.k_rrf = k_rrf
        self.name = name
        self.config = {"kind": "rrf", "k_rrf": k_rrf, "parts": [p.fingerprint for p in self.parts]}
        self.fingerprint = fingerprint_of(self.config)
        self._last = LastCall()

    def score_all(self, queries: Sequence[str]) -> np.ndarray:
        """``(len(queries), n_docs)`` float32 RRF scores over the parts' full rankings."""
        remembered = self._last.get(queries)
        if remembered is not None:
            return remembered
        fused = rrf_scores([part.score_all(queries) for part in self.parts], self.k_rrf)
        return self._last.put(queries, fused)
