"""Haystack assembly and orderings against a brute-force reading of paper §3.1 and Appendix J."""

from __future__ import annotations

import numpy as np
import pytest

from needlework.errors import SpecError
from generators.haystackcraft.assemble import MIN_CUT_TOKENS, RankedQuestion, assemble_haystack, order_haystack
from generators.haystackcraft.spec import HaystackSpec
from generators.strategies import strategy_parts

JOIN = 1


def brute_force(order: list[int], needles: list[int], tokens: list[int], size: int) -> tuple[list[int], int, int]:
    """Needles first, then whole distractors in rank order while they fit, then one cut distractor."""
    used = sum(tokens[n] for n in needles) + JOIN * (len(needles) - 1)
    chosen, cut, kept = list(needles), -1, -1
    for d in order:
        if d in needles or cut >= 0:
            continue
        if used + JOIN + tokens[d] <= size:
            chosen.append(d)
            used += JOIN + tokens[d]
        else:
            if size - used - JOIN >= MIN_CUT_TOKENS:
                chosen.append(d)
                cut, kept = d, size - used - JOIN
                used = size
            break
    return chosen, cut, kept


def random_case(rng: np.random.Generator, n_docs: int = 60, k: int = 40):
    tokens = rng.integers(5, 90, size=n_docs)
    order = rng.permutation(n_docs)
    needles = rng.choice(n_docs, size=int(rng.integers(1, 5)), replace=False)
    rank_of = np.empty(n_docs, dtype=np.int64)
    rank_of[order] = np.arange(1, n_docs + 1)
    ranking = RankedQuestion(order[:k], needles, rank_of[needles])
    return tokens, order, needles, rank_of, ranking


@pytest.mark.parametrize("case", range(40))
def test_assembly_matches_brute_force(case: int) -> None:
    rng = np.random.default_rng(case)
    tokens, order, needles, rank_of, ranking = random_case(rng)
    for size in (0, 50, 200, 700, 1500):
        haystack = assemble_haystack(ranking, tokens, size, JOIN)
        needle_total = int(tokens[needles].sum()) + JOIN * (len(needles) - 1)
        if size and needle_total > size:
            assert haystack is None
            continue
        if size == 0:
            assert sorted(haystack.doc_ids.tolist()) == sorted(needles.tolist()) and haystack.truncated_doc == -1
            continue
        chosen, cut, kept = brute_force(order[:40].tolist(), needles.tolist(), tokens.tolist(), size)
        assert sorted(haystack.doc_ids.tolist()) == sorted(chosen)
        assert (haystack.truncated_doc, haystack.truncated_tokens) == (cut, kept)
        assert len(set(haystack.doc_ids.tolist())) == len(haystack.doc_ids)
        assert haystack.predicted_tokens <= size
        assert haystack.predicted_tokens == int(haystack.tokens.sum()) + JOIN * (len(haystack.doc_ids) - 1)
        # Rank order, needles at their own exact rank.
        assert haystack.ranks.tolist() == sorted(rank_of[haystack.doc_ids].tolist())
        assert set(haystack.doc_ids[haystack.is_needle].tolist()) == set(needles.tolist())


def test_budget_is_filled_up_to_the_cut() -> None:
    tokens = np.full(5, 30)
    ranking = RankedQuestion(np.array([3, 0, 1, 2, 4]), np.array([2]), np.array([4]))
    # needle 2 (30) + join + doc 3 (30) + join + doc 0 (30) = 92, then a join and the cut part of doc 1.
    haystack = assemble_haystack(ranking, tokens, 92 + 1 + MIN_CUT_TOKENS, JOIN)
    assert haystack.doc_ids.tolist() == [3, 0, 1, 2]
    assert (haystack.truncated_doc, haystack.truncated_tokens) == (1, MIN_CUT_TOKENS)
    assert haystack.predicted_tokens == 92 + 1 + MIN_CUT_TOKENS
    short = assemble_haystack(ranking, tokens, 92 + MIN_CUT_TOKENS, JOIN)
    assert short.truncated_doc == -1 and short.doc_ids.tolist() == [3, 0, 2] and short.predicted_tokens == 92


def test_orderings() -> None:
    tokens = np.array([10, 20, 30, 40, 50, 60, 70])
    ranking = RankedQuestion(np.arange(7), np.array([1, 5]), np.array([2, 6]))
    haystack = assemble_haystack(ranking, tokens, 10_000, JOIN)
    ids = haystack.doc_ids
    assert ids[order_haystack(haystack, "descending")].tolist() == [0, 1, 2, 3, 4, 5, 6]
    assert ids[order_haystack(haystack, "ascending")].tolist() == [6, 5, 4, 3, 2, 1, 0]
    # Distractors 0,2,3,4,6 carry 10+30+40+50+70 = 200 tokens; half is 100, nearest boundary after 0,2,3 (80) vs 0,2,3,4 (130): 80.
    assert ids[order_haystack(haystack, "middle")].tolist() == [0, 2, 3, 1, 5, 4, 6]
    a = order_haystack(haystack, "random-0", np.random.default_rng(1))
    b = order_haystack(haystack, "random-0", np.random.default_rng(1))
    assert sorted(a.tolist()) == list(range(7)) and a.tolist() == b.tolist()
    with pytest.raises(SpecError, match="needs a random generator"):
        order_haystack(haystack, "random-1")
    with pytest.raises(SpecError, match="^haystack ordering must be one of 'descending', 'ascending', 'random-0', 'random-1', 'random-2', 'middle'; got 'sideways'$"):
        order_haystack(haystack, "sideways")


def test_spec_validation() -> None:
    assert strategy_parts("hybrid+ppr") == ("hybrid", True)
    assert HaystackSpec(strategies=("hybrid", "bm25+ppr")).base_retrievers == ("bm25", "hybrid")
    with pytest.raises(SpecError, match="^retrieval strategy must be one of 'bm25', 'bm25\\+ppr', 'dense', 'dense\\+ppr', 'hybrid', 'hybrid\\+ppr'; got 'tfidf'$"):
        HaystackSpec(strategies=("tfidf",))
    with pytest.raises(SpecError, match="ascending order"):
        HaystackSpec(sizes=(8000, 0))
    with pytest.raises(SpecError, match="ordering"):
        HaystackSpec(orderings=("random-3",))
