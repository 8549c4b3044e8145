"""Graph reranking: Personalized PageRank seeded on a base retriever's top documents, as the authors' igraph call.

The graph is the hyperlink graph made undirected (a link either way joins two documents), as the
paper's code does. For a query, the top-s documents of the base retriever X are the seeds, with
restart weights X's scores clipped at 0 and normalized to sum 1 (uniform if all are 0). The
strategy's order is: documents with PPR score > 0 by PPR score descending (ties in X's order), then
the documents PPR never reached, in X's order. PPR scores are compared as the float32 values the
rankings store, so scores equal at that resolution also follow X's order. Seed count s and damping d default to Appendix F.2
Table 2 per base retriever (:data:`PPR_DEFAULTS`); d is the probability to continue the walk (the
paper's code passes the same value to igraph's ``damping``).

The walk is igraph's ``personalized_pagerank`` (Graph-COM/HaystackCraft ``retrievers/ppr.py``:
``directed=True`` over both directions of every link, ``reset`` = the restart weights): with
``P = D^-1 A``, restart vector ``r`` and the documents without links ``Z``, the scores solve
``x = (1 - d) r + d P^T x + d (sum_{i in Z} x_i) r``: a walker at a document without links restarts
along ``r``. :meth:`PprGraph.pagerank` iterates ``x <- d P^T x + (1 - sum(d P^T x)) r`` from ``x = r``
(the mass the walk does not pass on, restart and stranded walkers alike, returns along ``r``) until
the L1 change is below ``tol`` (the previous iterate is returned). For seeds that have links this is
the textbook ``x = (1 - d) y + d P^T x`` (scikit-network's ``PageRank`` too); they differ only for a
seed without links, which scikit-network lets keep its whole restart weight (issue 40: needle ranks
moved by up to 8 on a sparse corpus). We iterate to ``tol = 1e-9`` (L1 error of the result below
``tol * d / (1 - d)``, under float32 resolution of the top scores).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
from scipy import sparse
from sknetwork.linalg import normalize

from builders.retrieval.base import OrderKeys, Retriever, top_k
from builders.retrieval.cache import fingerprint_of
from needlework.errors import SpecError

N_ITER = 1000
"""Most power iterations per query (a cap; convergence to :data:`TOL` normally stops far sooner)."""
TOL = 1e-9
"""Stop when an iteration changes the score vector by less than this in L1 norm."""


@dataclass(frozen=True)
class PprParams:
    """PPR settings for one base retriever.

    Attributes:
        seeds: How many of the base retriever's top documents seed the walk.
        damping: Probability to continue the walk (1 - restart probability), in (0, 1).
    """

    seeds: int
    damping: float

    def __post_init__(self) -> None:
        if self.seeds < 1:
            raise SpecError(f"PPR needs at least one seed document, got {self.seeds}")
        if not 0.0 < self.damping < 1.0:
            raise SpecError(f"PPR damping must be in (0, 1), got {self.damping}")


PPR_DEFAULTS: Mapping[str, PprParams] = MappingProxyType({
    "bm25": PprParams(seeds=10, damping=0.5),
    "dense": PprParams(seeds=5, damping=0.5),
    "hybrid": PprParams(seeds=5, damping=0.85),
})
"""Appendix F.2, Table 2: seed documents and damping factor per base retriever."""


def symmetric_adjacency(src: np.ndarray, dst: np.ndarray, n_docs: int) -> sparse.csr_matrix:
    """The undirected 0/1 adjacency (float64 CSR, sorted indices) of links ``src[i] -> dst[i]``.

    Self-links are dropped and duplicate or two-way links count once.
    """
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    if src.shape != dst.shape:
        raise SpecError(f"link endpoints differ in length ({src.shape[0]} vs {dst.shape[0]})")
    for side, ids in (("src", src), ("dst", dst)):
        if ids.size and (ids.min() < 0 or ids.max() >= n_docs):
            raise SpecError(f"links.{side} has doc ids outside 0..{n_docs - 1}")
    keep = src != dst
    rows = np.concatenate([src[keep], dst[keep]])
    cols = np.concatenate([dst[keep], src[keep]])
    adjacency = sparse.csr_matrix((np.ones(rows.shape[0]), (rows, cols)), shape=(n_docs, n_docs))
    adjacency.sum_duplicates()
    adjacency.data[:] = 1.0
    adjacency.sort_indices()
    return adjacency


def _restart_vector(n: int, seeds: np.ndarray, weights: np.ndarray) -> np.ndarray:
    seeds = np.asarray(seeds, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64)
    if seeds.shape != weights.shape or seeds.size == 0:
        raise SpecError(f"PPR needs one weight per seed and at least one seed (got {seeds.size} seeds, {weights.size} weights)")
    if np.unique(seeds).size != seeds.size:
        raise SpecError("PPR seeds must be unique")
    if (weights < 0).any() or weights.sum() <= 0:
        raise SpecError("PPR seed weights must be non-negative with a positive sum")
    restart = np.zeros(n, dtype=np.float64)
    restart[seeds] = weights / weights.sum()
    return restart


THREADS = min(2, os.cpu_count() or 1)
"""Threads :meth:`PprGraph.pagerank_many` solves its queries on by default."""


class PprGraph:
    """A symmetrized graph with its PPR operator ``d P^T`` prepared once per damping factor.

    Row-normalizing and transposing the whole adjacency costs more than the iterations themselves
    on a large graph; here that is done once.
    :meth:`pagerank_many` solves a batch of queries in parallel with identical results.

    Args:
        adjacency: The symmetrized adjacency (see :func:`symmetric_adjacency`).
        n_iter: Most iterations per query.
        tol: L1 convergence threshold per query.
    """

    def __init__(self, adjacency: sparse.csr_matrix, n_iter: int = N_ITER, tol: float = TOL) -> None:
        if adjacency.shape[0] != adjacency.shape[1]:
            raise SpecError(f"the adjacency must be square, got {adjacency.shape}")
        self.adjacency = sparse.csr_matrix(adjacency, dtype=np.float64)
        self.n_docs = adjacency.shape[0]
        self.n_iter, self.tol = n_iter, tol
        self._operators: dict[float, sparse.csr_matrix] = {}
        digest = hashlib.sha256(self.n_docs.to_bytes(8, "big"))
        digest.update(self.adjacency.indptr.astype(np.int64).tobytes())
        digest.update(self.adjacency.indices.astype(np.int64).tobytes())
        self.fingerprint = digest.hexdigest()

    @classmethod
    def from_links(cls, src: np.ndarray, dst: np.ndarray, n_docs: int, n_iter: int = N_ITER, tol: float = TOL) -> PprGraph:
        """The graph of a ``links`` table's ``src``/``dst`` columns."""
        return cls(symmetric_adjacency(src, dst, n_docs), n_iter=n_iter, tol=tol)

    def _operator(self, damping: float) -> sparse.csr_matrix:
        if damping not in self._operators:
            self._operators[damping] = (damping * normalize(self.adjacency)).T.tocsr()
        return self._operators[damping]

    def _start(self, seeds: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The seeds with positive restart weight and those weights (normalized to sum 1)."""
        restart = _restart_vector(self.n_docs, seeds, weights)
        seeds = np.flatnonzero(restart)
        return seeds, restart[seeds]

    def pagerank(self, seeds: np.ndarray, weights: np.ndarray, damping: float) -> np.ndarray:
        """PPR scores of every document (float64, sum 1), as igraph's ``personalized_pagerank`` (module docstring).

        Args:
            seeds: Seed doc ids (unique).
            weights: Their restart weights (non-negative, positive sum; normalized here).
            damping: Probability to continue the walk.

        The restart vector is non-zero only on the seeds, so its term is added on those entries
        alone; everything else is one sparse matrix-vector product per iteration.
        """
        operator = self._operator(damping)
        seeds, restart = self._start(seeds, weights)
        scores = np.zeros(self.n_docs, dtype=np.float64)
        scores[seeds] = restart
        change = np.empty(self.n_docs, dtype=np.float64)
        for _ in range(self.n_iter):
            step = operator @ scores
            step[seeds] += restart * (1.0 - step.sum())
            # On convergence the iterate before the last step is returned.
            np.subtract(scores, step, out=change)
            np.abs(change, out=change)
            if change.sum() < self.tol:
                break
            scores = step
        return scores / scores.sum()

    def pagerank_many(self, seed_sets: Sequence[np.ndarray], weight_sets: Sequence[np.ndarray], damping: float,
                      threads: int | None = None) -> np.ndarray:
        """``(len(seed_sets), n_docs)`` PPR scores, row ``i`` exactly ``pagerank(seed_sets[i], weight_sets[i], damping)``.

        The queries are solved by :meth:`pagerank` on ``threads`` threads (``None``: :data:`THREADS`);
        scipy's sparse products and numpy's large array operations release the GIL, so the solves run
        in parallel, and each is the one-query solve itself, so no value changes.

        Iterating the batch together as one sparse-matrix x dense-matrix product per iteration gives
        the same bits too (scipy's ``csr_matvecs`` sums each entry in ``csr_matvec``'s order, and
        numpy reduces a contiguous row of a 2-D array pairwise as it does a vector), but measured on
        the 200,000-document world's graph it was slower than one query at a time: the product
        saved under 20% per query while the transposes between the product's ``(n_docs, queries)``
        layout and the per-query rows the sums need cost more than that.
        """
        if len(seed_sets) != len(weight_sets):
            raise SpecError(f"{len(seed_sets)} seed sets but {len(weight_sets)} weight sets")
        self._operator(damping)
        out = np.empty((len(seed_sets), self.n_docs), dtype=np.float64)
        workers = max(1, min(THREADS if threads is None else threads, len(seed_sets)))

        def solve(row: int) -> None:
            out[row] = self.pagerank(seed_sets[row], weight_sets[row], damping)

        if workers == 1:
            for row in range(len(seed_sets)):
                solve(row)
        else:
            with ThreadPoolExecutor(workers) as pool:
                for done in [pool.submit(solve, row) for row in range(len(seed_sets))]:
                    done.result()
        return out


class PprRetriever:
    """The strategy X+ppr: PPR over the graph seeded on the base retriever X's top documents.

    Args:
        base: The base retriever X (its ``name`` picks the :data:`PPR_DEFAULTS` entry).
        graph: The links graph.
        params: Seed count and damping; ``None`` uses :data:`PPR_DEFAULTS` for ``base.name``.
    """

    def __init__(self, base: Retriever, graph: PprGraph, params: PprParams | None = None) -> None:
        if params is None:
            if base.name not in PPR_DEFAULTS:
                raise SpecError(f"no PPR defaults for retriever {base.name!r} (known: {', '.join(PPR_DEFAULTS)}); pass params")
            params = PPR_DEFAULTS[base.name]
        self.base, self.graph, self.params = base, graph, params
        self.name = f"{base.name}+ppr"
        self.config = {"kind": "ppr", "base": base.fingerprint, "graph": graph.fingerprint, "seeds": params.seeds,
                       "damping": params.damping, "solver": "igraph-convention-piteration", "n_iter": graph.n_iter, "tol": graph.tol}
        self.fingerprint = fingerprint_of(self.config)

    def seed_weights(self, base_scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The seeds (top-s of the base order) and their restart weights for one query's base scores.

        Weights are the base scores clipped at 0 and normalized to sum 1, uniform if all are 0.
        """
        hits = top_k(base_scores[None, :], self.params.seeds)
        weights = np.clip(hits.scores[0].astype(np.float64), 0.0, None)
        if weights.sum() <= 0:
            weights = np.ones_like(weights)
        return hits.doc_ids[0], weights / weights.sum()

    def order_keys(self, queries: Sequence[str]) -> OrderKeys:
        """PPR scores (float32) as the primary key, the base scores as the tie-break."""
        base_scores = self.base.score_all(queries)
        starts = [self.seed_weights(row) for row in base_scores]
        scores = self.graph.pagerank_many([s for s, _ in starts], [w for _, w in starts], self.params.damping)
        return OrderKeys(scores.astype(np.float32), base_scores)

    def score_all(self, queries: Sequence[str]) -> np.ndarray:
        """``(len(queries), n_docs)`` float32 PPR scores (0 for documents the walk never reached)."""
        return self.order_keys(queries).primary
