"""Exact document-ID metrics of EMB-S (paper A.5) and the canonicalization of model outputs (A.3).

For a query with gold set G (its RefList) and the top-K retrieved IDs R@K:

- SR@K = |R@K ∩ G| / |G|, over all queries (standard recall);
- R@1 = 1[R@1 = G], single-source queries only (|G| = 1);
- FR@K = 1[G ⊆ R@K], multi-source queries only (|G| > 1), the strict recall.

Undefined cases return ``None`` so a mean is never taken over the wrong subset.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_INTEGER = re.compile(r"\d+")


def canonicalize_ids(output: str, k: int) -> list[int]:
    """The integer IDs in a model's output, in order, first ``k`` unique (A.3).

    ``"IDs: 12, 7, 12, 3"`` with ``k=2`` gives ``[12, 7]``.
    """
    ids: list[int] = []
    for match in _INTEGER.findall(output):
        value = int(match)
        if value not in ids:
            ids.append(value)
            if len(ids) == k:
                break
    return ids


def sr_at_k(retrieved: Sequence[int], gold: Sequence[int], k: int) -> float:
    """SR@K = |R@K ∩ G| / |G| (A.5, Eq. 1)."""
    if not gold:
        raise ValueError("SR@K needs a non-empty gold set")
    top = set(retrieved[:k])
    return sum(1 for g in set(gold) if g in top) / len(set(gold))


def fr_at_k(retrieved: Sequence[int], gold: Sequence[int], k: int) -> float | None:
    """FR@K = 1[G ⊆ R@K] for a multi-source query (A.5, Eq. 2); ``None`` when |G| <= 1."""
    if len(set(gold)) <= 1:
        return None
    return float(set(gold) <= set(retrieved[:k]))


def r_at_1(retrieved: Sequence[int], gold: Sequence[int]) -> float | None:
    """R@1 = 1[the unique gold document is ranked first], single-source only (A.5); ``None`` when |G| > 1."""
    if len(set(gold)) != 1:
        return None
    return float(bool(retrieved) and retrieved[0] == gold[0])


def mean_defined(values: Sequence[float | None]) -> tuple[float | None, int]:
    """The mean over the values that are defined, and how many there were (``(None, 0)`` if none)."""
    defined = [v for v in values if v is not None]
    return (sum(defined) / len(defined), len(defined)) if defined else (None, 0)
