"""Retrieval metrics over exact needle ranks, and the Appendix L tables (Tables 4 and 5).

For one question with needles at 1-based ranks r_1..r_m in a strategy's order:

- Recall@N = |{i : r_i <= N}| / m;
- NDCG@N (binary relevance) = sum_{i : r_i <= N} 1 / log2(r_i + 1) / sum_{j=1..min(N, m)} 1 / log2(j + 1).

A table entry is the mean over questions (overall, or those with a given hop count).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from builders.retrieval.base import StrategyRanking
from needlework.checks import require_one_of
from needlework.errors import SpecError

NS: tuple[int, ...] = (10, 20, 40, 80, 160)
"""The paper's cut-offs (documents retrieved)."""
METRICS: Mapping[str, str] = {"recall": "Recall@N", "ndcg": "NDCG@N"}
RETRIEVER_ORDER: tuple[str, ...] = ("bm25", "dense", "hybrid")
DEFAULT_LABELS: Mapping[str, str] = {"bm25": "BM25", "dense": "Dense", "hybrid": "Hybrid"}
"""Row labels of the base retrievers (the paper writes "Qwen3-0.6B" for its dense model)."""
_TABLE_NUMBER = {"recall": 4, "ndcg": 5}


def _ranks(needle_ranks: Sequence[int] | np.ndarray, n: int) -> np.ndarray:
    ranks = np.asarray(needle_ranks, dtype=np.int64)
    if ranks.size == 0:
        raise SpecError("a question without needles has no recall or NDCG")
    if n < 1 or (ranks < 1).any():
        raise SpecError(f"ranks and N must be at least 1 (N={n}, ranks={ranks.tolist()})")
    return ranks


def recall_at(needle_ranks: Sequence[int] | np.ndarray, n: int) -> float:
    """Share of a question's needles ranked within the top ``n``."""
    ranks = _ranks(needle_ranks, n)
    return float(np.count_nonzero(ranks <= n) / ranks.size)


def ndcg_at(needle_ranks: Sequence[int] | np.ndarray, n: int) -> float:
    """NDCG@n with binary relevance: found needles' discounted gain over the ideal (needles first)."""
    ranks = _ranks(needle_ranks, n)
    hit = ranks[ranks <= n]
    gain = float(np.sum(1.0 / np.log2(hit + 1.0)))
    ideal = float(np.sum(1.0 / np.log2(np.arange(1, min(n, ranks.size) + 1) + 1.0)))
    return gain / ideal


def _hop_groups(hops: Sequence[int]) -> list[tuple[str, np.ndarray]]:
    hops_arr = np.asarray(hops, dtype=np.int64)
    groups = [("overall", np.arange(hops_arr.size))]
    groups += [(f"{h}-hop", np.flatnonzero(hops_arr == h)) for h in np.unique(hops_arr).tolist()]
    return groups


def _strategy_sort_key(strategy: str) -> tuple[int, str, bool]:
    retriever, _, ppr = strategy.partition("+")
    position = RETRIEVER_ORDER.index(retriever) if retriever in RETRIEVER_ORDER else len(RETRIEVER_ORDER)
    return position, retriever, bool(ppr)


def retrieval_table(
    rankings: Mapping[str, Sequence[StrategyRanking]],
    hops: Sequence[int],
    ns: Sequence[int] = NS,
) -> list[dict[str, Any]]:
    """Recall@N and NDCG@N per strategy, hop group and N, as rows for the ``retrieval`` config.

    Args:
        rankings: Strategy name (``"bm25"``, ``"bm25+ppr"`` ...) -> one ranking per question.
        hops: Each question's hop count, aligned with the rankings.
        ns: Cut-offs.

    Returns:
        Rows ``{retriever, ppr, hop, n, recall, ndcg}`` with fractions in [0, 1]; ``hop`` is
        ``"overall"`` (mean over all questions) or ``"{h}-hop"``. Ordered by retriever (BM25,
        dense, hybrid), hop group, without/with PPR, N.
    """
    groups = _hop_groups(hops)
    rows: list[dict[str, Any]] = []
    for strategy in sorted(rankings, key=_strategy_sort_key):
        per_question = rankings[strategy]
        if len(per_question) != len(hops):
            raise SpecError(f"strategy {strategy!r} has {len(per_question)} rankings for {len(hops)} questions")
        retriever, _, ppr = strategy.partition("+")
        recall = np.array([[recall_at(r.needle_ranks, n) for n in ns] for r in per_question]).reshape(-1, len(ns))
        ndcg = np.array([[ndcg_at(r.needle_ranks, n) for n in ns] for r in per_question]).reshape(-1, len(ns))
        for hop, members in groups:
            if members.size == 0:
                continue
            for j, n in enumerate(ns):
                rows.append({"retriever": retriever, "ppr": bool(ppr), "hop": hop, "n": int(n),
                             "recall": float(recall[members, j].mean()), "ndcg": float(ndcg[members, j].mean())})
    rows.sort(key=lambda r: (_strategy_sort_key(r["retriever"])[:2], _hop_sort_key(r["hop"]), r["ppr"], r["n"]))
    return rows


def _hop_sort_key(hop: str) -> tuple[int, int]:
    return (0, 0) if hop == "overall" else (1, int(hop.split("-")[0]))


def appendix_l_markdown(
    rows: Sequence[Mapping[str, Any]], metric: str, labels: Mapping[str, str] | None = None
) -> str:
    """Table 4 (``metric="recall"``) or Table 5 (``"ndcg"``) of Appendix L as Markdown.

    Rows are base retriever x hop group x PPR (blank, then a check mark), columns @N, values
    x10^-2 with two decimals. In each column the better of a with/without-PPR pair is bold (both
    when equal at two decimals), as in the paper.

    Args:
        rows: Output of :func:`retrieval_table`.
        metric: ``"recall"`` or ``"ndcg"``.
        labels: Display names of the base retrievers (default :data:`DEFAULT_LABELS`).
    """
    require_one_of("metric", metric, METRICS)
    names = {**DEFAULT_LABELS, **(labels or {})}
    ns = sorted({int(r["n"]) for r in rows})
    values: dict[tuple[str, str, bool], dict[int, float]] = {}
    for r in rows:
        values.setdefault((r["retriever"], r["hop"], bool(r["ppr"])), {})[int(r["n"])] = round(100 * float(r[metric]), 2)
    pairs = sorted({(ret, hop) for ret, hop, _ in values}, key=lambda p: (_strategy_sort_key(p[0])[:2], _hop_sort_key(p[1])))
    lines = [
        f"Table {_TABLE_NUMBER[metric]}: {METRICS[metric]} of retrieval strategies (x10^-2, higher is better), "
        "by question hop; the better of each pair with and without PPR in bold.",
        "",
        "| Base Retriever | Hop | PPR | " + " | ".join(f"@{n}" for n in ns) + " |",
        "|---|---|:-:|" + "---:|" * len(ns),
    ]
    for retriever, hop in pairs:
        variants = [ppr for ppr in (False, True) if (retriever, hop, ppr) in values]
        for i, ppr in enumerate(variants):
            cells = []
            for n in ns:
                value = values[(retriever, hop, ppr)].get(n)
                if value is None:
                    cells.append("")
                    continue
                others = [v for o in variants if o != ppr if (v := values[(retriever, hop, o)].get(n)) is not None]
                best = bool(others) and value >= max(others)
                cells.append(f"**{value:.2f}**" if best else f"{value:.2f}")
            head = [names.get(retriever, retriever), hop.capitalize() if hop == "overall" else hop] if i == 0 else ["", ""]
            lines.append("| " + " | ".join([*head, "✓" if ppr else "", *cells]) + " |")
    return "\n".join(lines)
