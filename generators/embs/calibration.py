"""Stage II's end: near-duplicate removal and difficulty calibration (§3.3, A.1.2; thresholds OURS).

The paper uses Qwen3-Embedding-8B for both and gives no rule. needlework drops a query whose
vector has cosine similarity >= the threshold with an earlier kept query (greedy, candidate order),
and buckets each query by the exact ranks of its gold documents over the whole bank under the
calibration retriever: ``easy`` (all in the top 10), ``medium`` (top 100), ``hard`` (deeper).
Every bucket is kept; the bucket is recorded per query.

Calibration also selects (the paper keeps 882 of 3,457 candidates, Table 2, and gives no rule). Each candidate's
*outcome* under the calibration retriever over the whole bank is one of :data:`OUTCOMES` (:func:`outcome`):
``found`` outright as Table 3 counts a query found (:func:`found_outright`), ``near`` (a gold document in the top
10, but not found outright), or ``missed`` (none in the top 10). Of each domain's queries of a track, at most
:attr:`QuerySpec.found_share` may be found and at most :attr:`QuerySpec.near_share` near; the rest are missed
(:func:`outcome_caps`). A candidate whose outcome has its quota waits, and fills the track's quota only when the
other candidates run out. The mix is the paper's shape: its BM25 finds a single gold document first for 66 % of
queries at 64K (R@1) but has 69 % of gold documents in its top 10 (SR@10), so its misses are nearly all deep.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

HASH_DIM = 2**12
"""Width of the hashed bag-of-words vectors used when the build retriever has no embeddings."""


def keep_distinct(vectors: np.ndarray, threshold: float) -> np.ndarray:
    """Boolean mask: row ``i`` is kept unless its cosine with an earlier kept row is >= ``threshold``."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = np.divide(vectors, norms, out=np.zeros_like(vectors, dtype=np.float64), where=norms > 0)
    keep = np.zeros(len(vectors), dtype=bool)
    kept: list[int] = []
    for i in range(len(vectors)):
        if not kept or float(np.max(unit[kept] @ unit[i])) < threshold:
            keep[i] = True
            kept.append(i)
    return keep


def hashed_bag_of_words(token_lists: Sequence[Sequence[str]], dim: int = HASH_DIM) -> np.ndarray:
    """Term-count vectors with tokens hashed (crc32, stable across processes) into ``dim`` buckets."""
    out = np.zeros((len(token_lists), dim), dtype=np.float32)
    for row, tokens in enumerate(token_lists):
        for token in tokens:
            out[row, zlib.crc32(token.encode("utf-8")) % dim] += 1.0
    return out


FULL_RECALL_K = 10
"""Table 3's cut-off for a multi-source query (FR@10)."""


def found_outright(gold_ranks: Sequence[int]) -> bool:
    """Whether a query counts as found in Table 3's measure of its kind (A.5): a single gold document ranked first
    (R@1), every gold document of a multi-source query in the top 10 (FR@10)."""
    return max(gold_ranks) <= (1 if len(gold_ranks) == 1 else FULL_RECALL_K)


def quota_share(quota: int, share: float) -> int:
    """``share`` of a ``quota``, rounded half up: how many queries of an outcome it admits ahead of the others."""
    return int(quota * share + 0.5)


OUTCOMES = ("found", "near", "missed")
"""A calibrated candidate's outcome over the whole bank (:func:`outcome`)."""


def outcome(gold_ranks: Sequence[int]) -> str:
    """``found`` (:func:`found_outright`), ``near`` (a gold document in the top :data:`FULL_RECALL_K`, not found
    outright) or ``missed`` (none there)."""
    if found_outright(gold_ranks):
        return "found"
    return "near" if min(gold_ranks) <= FULL_RECALL_K else "missed"


def outcome_caps(quota: int, found_share: float, near_share: float) -> dict[str, int]:
    """Queries of each outcome a ``quota`` admits ahead of the others: ``found_share`` and ``near_share`` of it
    (rounded half up, near within what found leaves), the rest missed."""
    found = quota_share(quota, found_share)
    near = min(quota_share(quota, near_share), quota - found)
    return {"found": found, "near": near, "missed": quota - found - near}


def difficulty(gold_ranks: Sequence[int]) -> str:
    """``easy`` if every gold document ranks in the top 10, ``medium`` in the top 100, else ``hard``."""
    worst = max(gold_ranks)
    return "easy" if worst <= 10 else "medium" if worst <= 100 else "hard"
