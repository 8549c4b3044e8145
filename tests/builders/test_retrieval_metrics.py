"""Recall@N, NDCG@N, the retrieval table and the Appendix L Markdown tables."""

from __future__ import annotations

import math

import numpy as np
import pytest

from builders.retrieval.base import StrategyRanking
from builders.retrieval.metrics import appendix_l_markdown, ndcg_at, recall_at, retrieval_table
from needlework.errors import SpecError


def _ranking(ranks: list[int]) -> StrategyRanking:
    n = len(ranks)
    return StrategyRanking(np.arange(3, dtype=np.int64), np.zeros(3, np.float32), np.arange(n, dtype=np.int64),
                           np.asarray(ranks, dtype=np.int64), np.zeros(n, np.float32))


def test_recall_and_ndcg_hand_computed():
    assert recall_at([1, 5], 4) == 0.5
    assert ndcg_at([1, 5], 4) == pytest.approx(1 / (1 + 1 / math.log2(3)))
    # Both found, in the wrong order: gain 1/log2(4) + 1/log2(2), ideal 1 + 1/log2(3).
    assert recall_at([3, 1], 10) == 1.0
    assert ndcg_at([3, 1], 10) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    # The ideal only counts min(N, #needles) positions: one slot, two needles.
    assert ndcg_at([1, 2], 1) == pytest.approx(1.0)
    assert recall_at([1, 2], 1) == 0.5
    assert recall_at([11], 10) == 0.0 and ndcg_at([11], 10) == 0.0
    assert ndcg_at([10], 10) == pytest.approx(1 / math.log2(11))


def test_metrics_reject_empty_needles_and_bad_ranks():
    with pytest.raises(SpecError):
        recall_at([], 10)
    with pytest.raises(SpecError):
        ndcg_at([0], 10)


def test_retrieval_table_means_over_questions_by_hop():
    # q0 (2 hops): ranks 1, 30; q1 (2 hops): ranks 15, 5; q2 (3 hops): 2, 3, 200.
    base = [_ranking([1, 30]), _ranking([15, 5]), _ranking([2, 3, 200])]
    reranked = [_ranking([1, 2]), _ranking([2, 1]), _ranking([1, 2, 3])]
    rows = retrieval_table({"bm25+ppr": reranked, "bm25": base}, [2, 2, 3], ns=(10, 20))
    table = {(r["retriever"], r["ppr"], r["hop"], r["n"]): r for r in rows}
    assert table[("bm25", False, "overall", 10)]["recall"] == pytest.approx((0.5 + 0.5 + 2 / 3) / 3)
    assert table[("bm25", False, "2-hop", 20)]["recall"] == pytest.approx((0.5 + 1.0) / 2)
    assert table[("bm25", False, "3-hop", 20)]["recall"] == pytest.approx(2 / 3)
    ideal2 = 1 + 1 / math.log2(3)
    expected = np.mean([1 / ideal2, (1 / math.log2(6)) / ideal2])
    assert table[("bm25", False, "2-hop", 10)]["ndcg"] == pytest.approx(expected)
    assert table[("bm25", True, "overall", 10)]["recall"] == 1.0
    assert table[("bm25", True, "overall", 10)]["ndcg"] == pytest.approx(1.0)
    # Order: retriever, hop group (overall first), without then with PPR, N.
    keys = [(r["hop"], r["ppr"], r["n"]) for r in rows]
    assert keys[:4] == [("overall", False, 10), ("overall", False, 20), ("overall", True, 10), ("overall", True, 20)]
    assert [k[0] for k in keys[4:8]] == ["2-hop"] * 4 and [k[0] for k in keys[8:]] == ["3-hop"] * 4
    assert set(rows[0]) == {"retriever", "ppr", "hop", "n", "recall", "ndcg"}


def test_retrieval_table_checks_alignment():
    with pytest.raises(SpecError):
        retrieval_table({"bm25": [_ranking([1])]}, [1, 2])


def test_appendix_l_markdown_layout_and_bold():
    rows = []
    for ppr, values in ((False, (0.3793, 0.4283)), (True, (0.3793, 0.5502))):
        for n, v in zip((10, 20), values):
            rows.append({"retriever": "bm25", "ppr": ppr, "hop": "overall", "n": n, "recall": v, "ndcg": v / 2})
    for ppr, v in ((False, 0.66), (True, 0.61)):
        rows.append({"retriever": "dense", "ppr": ppr, "hop": "1-hop", "n": 10, "recall": v, "ndcg": v})
        rows.append({"retriever": "dense", "ppr": ppr, "hop": "1-hop", "n": 20, "recall": v, "ndcg": v})
    text = appendix_l_markdown(rows, "recall", labels={"dense": "Qwen3-0.6B"})
    lines = text.splitlines()
    assert lines[0].startswith("Table 4: Recall@N")
    assert lines[2] == "| Base Retriever | Hop | PPR | @10 | @20 |"
    assert lines[4] == "| BM25 | Overall |  | **37.93** | 42.83 |"
    assert lines[5] == "|  |  | ✓ | **37.93** | **55.02** |"
    assert lines[6] == "| Qwen3-0.6B | 1-hop |  | **66.00** | **66.00** |"
    assert lines[7] == "|  |  | ✓ | 61.00 | 61.00 |"
    assert appendix_l_markdown(rows, "ndcg").splitlines()[0].startswith("Table 5: NDCG@N")
    with pytest.raises(SpecError):
        appendix_l_markdown(rows, "mrr")


def test_appendix_l_markdown_single_variant_is_not_bold():
    rows = [{"retriever": "hybrid", "ppr": False, "hop": "overall", "n": 10, "recall": 0.5, "ndcg": 0.5}]
    assert appendix_l_markdown(rows, "recall").splitlines()[-1] == "| Hybrid | Overall |  | 50.00 |"
