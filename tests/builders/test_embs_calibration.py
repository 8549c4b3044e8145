"""EMB-S calibration's selection (issue 39): at most a share of each domain's queries per track found outright by the
build retriever, the rest of the quota from candidates it misses, found ones refilling only what those cannot fill;
and the order in which a base corpus takes hard negatives."""

from __future__ import annotations

from collections import Counter

import numpy as np

from builders.embs import nearest_first
from builders.embs_world import (
    Admission,
    Admitted,
    GoldRoom,
    WorldStages,
    instruction_tokens,
)
from generators.embs import collisions
from generators.embs.calibration import found_cap, found_outright
from generators.embs.world_queries import WorldQuery
from needlework.tokens import TokenCounter


def candidate(n: int, track: str, ranks: list[int], domain: str = "law") -> Admitted:
    query = WorldQuery(f"{domain}/{track}/e{n}", f"question {n}", "answer", "en", domain, track, (), (n,), (), ())
    return Admitted(query, collisions.Tested(tuple(range(len(ranks))), (), False), ranks, [])


def test_found_outright_is_what_table_3_counts() -> None:
    """R@1 for one gold document, FR@10 for several (A.5)."""
    assert found_outright([1]) and not found_outright([2])
    assert found_outright([3, 10]) and not found_outright([1, 11])
    assert [found_cap(12, 0.55), found_cap(6, 0.55), found_cap(1, 0.55), found_cap(4, 1.0)] == [7, 3, 1, 4]


def test_admission_holds_back_found_queries_beyond_the_share_and_refills_in_order(qwen: TokenCounter) -> None:
    stages = WorldStages()
    admission = Admission({"none": 4, "rewrite": 2}, 0.5, None, qwen, ["law"])
    offered = [candidate(1, "none", [1]), candidate(2, "none", [1]), candidate(3, "none", [1]), candidate(4, "none", [5]),
               candidate(5, "none", [1]), candidate(6, "rewrite", [2, 30]), candidate(7, "rewrite", [1, 2])]
    tokens = np.ones(10, dtype=np.int64)
    for admitted in offered:
        admission.offer(admitted, tokens, stages)
    assert sorted(admission.admitted) == ["law/none/e1", "law/none/e2", "law/none/e4", "law/rewrite/e6", "law/rewrite/e7"]
    assert stages.held_back == 2 and not admission.wanted(offered[5].query) and admission.wanted(offered[0].query)
    admission.refill(tokens, stages)
    assert stages.refilled == 1 and "law/none/e3" in admission.admitted and "law/none/e5" not in admission.admitted
    order = [a.query.key for a in admission.in_candidate_order([a.query for a in offered])]
    assert order == ["law/none/e1", "law/none/e2", "law/none/e3", "law/none/e4", "law/rewrite/e6", "law/rewrite/e7"]
    assert Counter(found_outright(a.ranks) for a in admission.admitted.values() if a.query.track == "none") == {True: 3, False: 1}


def test_a_share_of_one_keeps_candidate_order(qwen: TokenCounter) -> None:
    stages = WorldStages()
    admission = Admission({"none": 2}, 1.0, None, qwen, ["law"])
    for admitted in [candidate(1, "none", [1]), candidate(2, "none", [1]), candidate(3, "none", [4])]:
        if admission.wanted(admitted.query):
            admission.offer(admitted, np.ones(3, dtype=np.int64), stages)
    assert sorted(admission.admitted) == ["law/none/e1", "law/none/e2"] and stages.held_back == 0


def test_a_query_whose_gold_would_overflow_the_base_corpus_gives_way(qwen: TokenCounter) -> None:
    """The gold documents of a domain's admitted queries, its longest instruction and the fixed reserve fit the base
    budget: a query that would overflow it is passed over (counted), the next candidate taken."""
    tokens = np.array([80, 5, 3], dtype=np.int64)
    instruction = instruction_tokens("question 1", qwen)
    big, small, smaller = (candidate(1, "none", [3]), candidate(2, "none", [3]), candidate(3, "none", [3]))
    small = Admitted(small.query, collisions.Tested((1,), (), False), [3], [])
    smaller = Admitted(smaller.query, collisions.Tested((2,), (), False), [3], [])
    stages = WorldStages()
    admission = Admission({"none": 3}, 1.0, GoldRoom(budget=80 + 4 + instruction + 10, fixed_reserve=10), qwen, ["law"])
    for admitted in (big, small, smaller):
        admission.offer(admitted, tokens, stages)
    assert stages.over_budget == 1 and list(admission.admitted) == ["law/none/e1", "law/none/e3"]


def test_a_base_corpus_takes_every_query_s_nearest_negative_first() -> None:
    assert nearest_first([[7, 8, 9], [4], [1, 2]]) == [7, 4, 1, 8, 2, 9]
    assert nearest_first([]) == []
