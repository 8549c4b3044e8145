"""The names of the retrieval strategies benchmarks build haystacks with (HaystackCraft §3.1, Table 2).

A strategy is a base retriever (sparse BM25, dense embeddings, or their hybrid by reciprocal-rank
fusion), optionally reranked by Personalized PageRank over the corpus's hyperlinks (``+ppr``).
The names are data shared by the generators (rows carry them), the retrieval layer that computes
them and the eval reports that order them, so they are spelled here once.
"""

from __future__ import annotations

from needlework.checks import require_one_of

RETRIEVERS: tuple[str, ...] = ("bm25", "dense", "hybrid")
STRATEGIES: tuple[str, ...] = ("bm25", "bm25+ppr", "dense", "dense+ppr", "hybrid", "hybrid+ppr")
"""The six retrieval strategies: each base retriever with and without PPR reranking."""


def strategy_parts(strategy: str) -> tuple[str, bool]:
    """``(base retriever, uses PPR)`` of a strategy name such as ``"hybrid+ppr"``."""
    require_one_of("retrieval strategy", strategy, STRATEGIES)
    base, _, ppr = strategy.partition("+")
    return base, bool(ppr)
