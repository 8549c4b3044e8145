"""EMB-S calibration's selection (issue 39): of each domain's queries per track, at most a share found outright by the
build retriever and a share near (a gold document in its top 10), the rest missed, a candidate beyond its outcome's
share refilling only what the others cannot fill; and the order in which a base corpus takes hard negatives."""

from __future__ import annotations

from collections import Counter

import numpy as np

from builders.embs import nearest_first, outranking_first
from builders.embs_world import (
    Admission,
    Admitted,
    GoldRoom,
    WorldStages,
    instruction_tokens,
)
from generators.embs import collisions
from generators.embs.calibration import quota_share, found_outright, outcome, outcome_caps
from generators.embs.world_queries import WorldQuery
from needlework.tokens import TokenCounter


def candidate(n: int, track: str, ranks: list[int], domain: str = "law") -> Admitted:
    query = WorldQuery(f"{domain}/{track}/e{n}", f"question {n}", "answer", "en", domain, track, (), (n,), (), ())
    return Admitted(query, collisions.Tested(tuple(range(len(ranks))), (), False), ranks, [])


def test_found_outright_is_what_table_3_counts() -> None:
    """R@1 for one gold document, FR@10 for several (A.5)."""
    assert found_outright([1]) and not found_outright([2])
    assert found_outright([3, 10]) and not found_outright([1, 11])
    assert [quota_share(12, 0.55), quota_share(6, 0.55), quota_share(1, 0.55), quota_share(4, 1.0)] == [7, 3, 1, 4]


def test_outcomes_and_their_caps() -> None:
    """Found outright, near (a gold document in the top 10, not found outright), missed; the caps fill the quota."""
    assert [outcome(r) for r in ([1], [2], [10], [11], [3, 10], [1, 11], [11, 12])] == [
        "found", "near", "near", "missed", "found", "near", "missed"]
    assert outcome_caps(24, 0.55, 0.15) == {"found": 13, "near": 4, "missed": 7}
    assert outcome_caps(4, 1.0, 0.0) == {"found": 4, "near": 0, "missed": 0}
    assert outcome_caps(2, 0.55, 0.5) == {"found": 1, "near": 1, "missed": 0}


def test_admission_holds_back_each_outcome_beyond_its_share_and_refills_in_order(qwen: TokenCounter) -> None:
    stages = WorldStages()
    admission = Admission({"none": 4, "rewrite": 2}, {"none": (0.5, 0.25), "rewrite": (0.5, 0.25)}, None, qwen, ["law"])
    offered = [candidate(1, "none", [1]), candidate(2, "none", [1]), candidate(3, "none", [1]), candidate(4, "none", [5]),
               candidate(5, "none", [2]), candidate(8, "none", [1]), candidate(6, "rewrite", [2, 30]),
               candidate(7, "rewrite", [1, 2]), candidate(9, "rewrite", [40, 50])]
    tokens = np.ones(10, dtype=np.int64)
    for admitted in offered:
        admission.offer(admitted, tokens, stages)
    # none: 2 found, 1 near, 1 missed; rewrite: 1 found, 1 near, 0 missed
    assert sorted(admission.admitted) == ["law/none/e1", "law/none/e2", "law/none/e4", "law/rewrite/e6", "law/rewrite/e7"]
    assert stages.held_back == 4 and not admission.wanted(offered[6].query) and admission.wanted(offered[0].query)
    admission.refill(tokens, stages)
    assert stages.refilled == 1 and "law/none/e3" in admission.admitted and "law/none/e5" not in admission.admitted
    order = [a.query.key for a in admission.in_candidate_order([a.query for a in offered])]
    assert order == ["law/none/e1", "law/none/e2", "law/none/e3", "law/none/e4", "law/rewrite/e6", "law/rewrite/e7"]
    assert Counter(outcome(a.ranks) for a in admission.admitted.values() if a.query.track == "none") == {
        "found": 3, "near": 1}


def test_a_query_whose_gold_would_overflow_the_base_corpus_gives_way(qwen: TokenCounter) -> None:
    """The gold documents of a domain's admitted queries, its longest instruction and the fixed reserve fit the base
    budget: a query that would overflow it is passed over (counted), the next candidate taken."""
    tokens = np.array([80, 5, 3], dtype=np.int64)
    instruction = instruction_tokens("question 1", qwen)
    big, small, smaller = (candidate(1, "none", [3]), candidate(2, "none", [3]), candidate(3, "none", [3]))
    small = Admitted(small.query, collisions.Tested((1,), (), False), [3], [])
    smaller = Admitted(smaller.query, collisions.Tested((2,), (), False), [3], [])
    stages = WorldStages()
    admission = Admission({"none": 3}, {"none": (0.0, 1.0)}, GoldRoom(budget=80 + 4 + instruction + 10, fixed_reserve=10), qwen, ["law"])
    for admitted in (big, small, smaller):
        admission.offer(admitted, tokens, stages)
    assert stages.over_budget == 1 and list(admission.admitted) == ["law/none/e1", "law/none/e3"]


def test_a_base_corpus_takes_every_query_s_nearest_negative_first() -> None:
    assert nearest_first([[7, 8, 9], [4], [1, 2]]) == [7, 4, 1, 8, 2, 9]
    assert nearest_first([]) == []


def test_a_base_corpus_takes_the_negatives_that_outrank_gold_first() -> None:
    """A query's hard negatives ranked above its worst-ranked gold document over the bank come first: every query's
    nearest such one, then each query's others together, fewest first (what keeps the most queries as hard in a 64K
    corpus as over the bank), then every query's remaining negatives nearest first."""
    queries = [{"qid": "a", "calib_ranks": [4], "hard_negatives": [10, 11, 12, 13]},
               {"qid": "b", "calib_ranks": [1], "hard_negatives": [20, 21]},
               {"qid": "c", "calib_ranks": [3, 12], "hard_negatives": [30, 31]},
               {"qid": "d", "calib_ranks": [20], "hard_negatives": [40, 41]}]
    ranks = {("a", 10): 1, ("a", 11): 2, ("a", 12): 3, ("a", 13): 5, ("b", 20): 2, ("b", 21): 3,
             ("c", 30): 11, ("c", 31): 13, ("d", 40): 1, ("d", 41): 2}
    collisions = [{"qid": q, "doc_id": d, "rank": r} for (q, d), r in ranks.items()]
    assert outranking_first(queries, collisions) == [10, 30, 40, 41, 11, 12, 13, 20, 31, 21]
    untested = [{**q, "calib_ranks": []} for q in queries]  # an official release's queries: nearest first
    assert outranking_first(untested, collisions) == nearest_first([q["hard_negatives"] for q in queries])
