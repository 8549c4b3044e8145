"""Personalized PageRank: igraph's convention (the authors' call) against pinned igraph values and a dense reference, the X+ppr order."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest
from scipy import sparse

from builders.retrieval.base import full_order, ranks_of, search_batch
from builders.retrieval.ppr import (
    PPR_DEFAULTS,
    PprGraph,
    PprParams,
    PprRetriever,
    symmetric_adjacency,
)
from builders.retrieval.rank import rank_strategies
from needlework.errors import SpecError


class FixedScores:
    """A retriever whose scores are given per query."""

    def __init__(self, name: str, table: dict[str, Sequence[float]]) -> None:
        self.name, self.fingerprint, self.table = name, f"fixed-{name}", table

    def score_all(self, queries: Sequence[str]) -> np.ndarray:
        return np.stack([np.asarray(self.table[q], dtype=np.float32) for q in queries])


def reference_ppr(adjacency: np.ndarray, restart: np.ndarray, damping: float) -> np.ndarray:
    """igraph's personalized PageRank by a dense linear solve: x = (1 - d) r + d P^T x + d (sum of x over the
    documents without links) r, with P = D^-1 A (zero rows for documents without links)."""
    degree = adjacency.sum(axis=1)
    transition = np.divide(adjacency, degree[:, None], out=np.zeros_like(adjacency), where=degree[:, None] > 0)
    r = restart / restart.sum()
    stranded = np.outer(r, (degree == 0).astype(float))  # a walker at a document without links restarts along r
    return np.linalg.solve(np.eye(len(r)) - damping * (transition.T + stranded), (1 - damping) * r)


IGRAPH_CASES = [
    # (documents, links, restart, damping, igraph's scores): igraph 1.0.0's Graph.personalized_pagerank(directed=True,
    # damping=d, reset=r) over both directions of each link, as Graph-COM/HaystackCraft retrievers/ppr.py (c68a848)
    # calls it, run outside the repository (issue 40). Seeds without links keep nothing to themselves: their walkers
    # restart along r.
    (6, [(0, 1), (1, 2), (2, 3)], [0.5, 0, 0, 0, 0.3, 0.2], 0.5,
     [0.385185185185, 0.207407407407, 0.059259259259, 0.014814814815, 0.2, 0.133333333333]),
    (5, [(0, 1), (1, 2)], [0, 0, 0, 1.0, 0], 0.85, [0.0, 0.0, 0.0, 1.0, 0.0]),
    (7, [(0, 1), (0, 2), (2, 3), (3, 4)], [0.4, 0, 0.1, 0, 0, 0.3, 0.2], 0.85,
     [0.309648370399, 0.131600557419, 0.219858989424, 0.146285824666, 0.062171475483, 0.078260869565, 0.052173913043]),
    (4, [], [0.25, 0.25, 0.5, 0.0], 0.5, [0.25, 0.25, 0.5, 0.0]),
]


def random_graph(rng: np.random.Generator, n: int, links: int, isolated: Sequence[int]) -> sparse.csr_matrix:
    src, dst = rng.integers(0, n, links), rng.integers(0, n, links)
    keep = ~np.isin(src, isolated) & ~np.isin(dst, isolated)
    return symmetric_adjacency(src[keep], dst[keep], n)


@pytest.mark.parametrize(("n", "links", "restart", "damping", "igraph"), IGRAPH_CASES)
def test_ppr_gives_igraphs_scores_on_small_graphs(n, links, restart, damping, igraph):
    """Issue 40: documents without links treated as the authors' igraph call treats them (pinned values), which
    the dense linear solve of igraph's equation gives too."""
    src = np.array([u for u, _ in links], dtype=np.int64)
    dst = np.array([v for _, v in links], dtype=np.int64)
    restart = np.array(restart)
    seeds = np.flatnonzero(restart)
    got = PprGraph.from_links(src, dst, n).pagerank(seeds, restart[seeds], damping)
    assert np.abs(got - np.array(igraph)).max() < 1e-8
    assert np.abs(reference_ppr(symmetric_adjacency(src, dst, n).toarray(), restart, damping) - igraph).max() < 1e-8


@pytest.mark.parametrize("damping", [0.5, 0.85])
def test_ppr_matches_the_dense_reference_with_isolated_seed(damping):
    rng = np.random.default_rng(7)
    n = 60
    adjacency = random_graph(rng, n, 90, isolated=[3, 17, 40])
    seeds = np.array([5, 17, 22, 31])  # 17 has no links
    weights = np.array([0.4, 0.3, 0.2, 0.1])
    restart = np.zeros(n)
    restart[seeds] = weights
    got = PprGraph(adjacency).pagerank(seeds, weights, damping)
    assert np.abs(got - reference_ppr(adjacency.toarray(), restart, damping)).max() < 1e-6
    assert got[3] == 0 and got[40] == 0  # isolated non-seeds are never reached
    assert got.sum() == pytest.approx(1.0)


def test_ppr_is_textbook_formula_when_seeds_have_links():
    rng = np.random.default_rng(3)
    n = 40
    adjacency = random_graph(rng, n, 80, isolated=[9])
    degree = adjacency.toarray().sum(axis=1)
    seeds = np.flatnonzero(degree > 0)[:5]
    weights = np.arange(1.0, 6.0)
    y = np.zeros(n)
    y[seeds] = weights / weights.sum()
    damping = 0.85
    transition = np.divide(adjacency.toarray(), degree[:, None], out=np.zeros((n, n)), where=degree[:, None] > 0)
    # x = (1 - d) y + d P^T x, solved directly.
    textbook = np.linalg.solve(np.eye(n) - damping * transition.T, (1 - damping) * y)
    assert np.abs(PprGraph(adjacency).pagerank(seeds, weights, damping) - textbook).max() < 1e-6


def test_symmetric_adjacency():
    adjacency = symmetric_adjacency(np.array([0, 1, 1, 2, 3]), np.array([1, 0, 1, 3, 2]), 5)
    dense = adjacency.toarray()
    assert (dense == dense.T).all()
    assert dense.sum() == 4  # 0-1 and 2-3, each once per direction; the self-link is dropped
    assert set(np.unique(adjacency.data)) == {1.0}
    assert adjacency.has_sorted_indices
    with pytest.raises(SpecError):
        symmetric_adjacency(np.array([0]), np.array([5]), 5)


def test_ppr_argument_checks():
    adjacency = symmetric_adjacency(np.array([0]), np.array([1]), 3)
    for seeds, weights in (([0, 0], [1.0, 1.0]), ([0], [-1.0]), ([], []), ([0], [0.0])):
        with pytest.raises(SpecError):
            PprGraph(adjacency).pagerank(np.array(seeds), np.array(weights), 0.5)
    for seeds, damping in ((0, 0.5), (1, 1.0), (1, 0.0)):
        with pytest.raises(SpecError):
            PprParams(seeds=seeds, damping=damping)


def test_table_2_defaults_and_overrides():
    assert dict(PPR_DEFAULTS) == {
        "bm25": PprParams(10, 0.5), "dense": PprParams(5, 0.5), "hybrid": PprParams(5, 0.85),
    }
    graph = PprGraph(symmetric_adjacency(np.array([0]), np.array([1]), 3))
    for name in ("bm25", "dense", "hybrid"):
        strategy = PprRetriever(FixedScores(name, {}), graph)
        assert strategy.params == PPR_DEFAULTS[name] and strategy.name == f"{name}+ppr"
    custom = PprRetriever(FixedScores("bm25", {}), graph, PprParams(3, 0.7))
    assert custom.params == PprParams(3, 0.7)
    assert custom.fingerprint != PprRetriever(FixedScores("bm25", {}), graph).fingerprint
    with pytest.raises(SpecError):
        PprRetriever(FixedScores("splade", {}), graph)


def test_seed_weights_clip_and_fall_back_to_uniform():
    graph = PprGraph(symmetric_adjacency(np.array([0]), np.array([1]), 5))
    strategy = PprRetriever(FixedScores("bm25", {}), graph, PprParams(3, 0.5))
    seeds, weights = strategy.seed_weights(np.array([-2.0, 3.0, 0.0, 1.0, -5.0], dtype=np.float32))
    assert seeds.tolist() == [1, 3, 2] and weights.tolist() == [0.75, 0.25, 0.0]
    seeds, weights = strategy.seed_weights(np.zeros(5, dtype=np.float32))
    assert seeds.tolist() == [0, 1, 2] and weights == pytest.approx([1 / 3] * 3)


def test_reached_by_ppr_then_unreached_in_base_order():
    # A star 0-{1,2,3}, a pair 4-5, an isolated 6. One seed: the base's best document, 0.
    adjacency = symmetric_adjacency(np.array([0, 0, 0, 4]), np.array([1, 2, 3, 5]), 7)
    base = FixedScores("bm25", {"q": [10, 1, 5, 5, 9, 9, 9.5]})
    strategy = PprRetriever(base, PprGraph(adjacency), PprParams(seeds=1, damping=0.5))
    keys = strategy.order_keys(["q"])
    ppr = keys.primary[0]
    assert ppr[0] > ppr[1] == ppr[2] == ppr[3] > 0 and (ppr[4:] == 0).all()
    # Leaves tie on PPR, so they follow the base order (5, 5, 1: ids 2, 3, 1); then the unreached
    # documents in base order (9.5, 9, 9: ids 6, 4, 5).
    expected = [0, 2, 3, 1, 6, 4, 5]
    assert full_order(ppr, keys.secondary[0]).tolist() == expected
    assert search_batch(strategy, ["q"], 5).doc_ids[0].tolist() == expected[:5]
    assert ranks_of(ppr, np.array([5, 1, 6]), keys.secondary[0]).tolist() == [7, 4, 5]
    result = rank_strategies(7, ["q"], [np.array([5, 3])], {"bm25+ppr": strategy}, k=3)["bm25+ppr"][0]
    assert result.doc_ids.tolist() == [0, 2, 3]
    assert result.needle_ranks.tolist() == [7, 3]
    assert result.needle_scores.tolist() == [0.0, ppr[3]]


def test_ppr_strategy_matches_reference_order_on_random_graph():
    rng = np.random.default_rng(11)
    n = 80
    adjacency = random_graph(rng, n, 70, isolated=[])
    base_scores = np.round(rng.random(n) * 4, 1).astype(np.float32)  # coarse, so there are ties
    strategy = PprRetriever(FixedScores("bm25", {"q": base_scores}), PprGraph(adjacency))
    keys = strategy.order_keys(["q"])
    top = np.lexsort((np.arange(n), -base_scores))[:10]
    weights = np.clip(base_scores[top].astype(np.float64), 0, None)
    restart = np.zeros(n)
    restart[top] = weights / weights.sum()
    ppr = reference_ppr(adjacency.toarray(), restart, 0.5).astype(np.float32)
    assert np.abs(keys.primary[0] - ppr).max() < 1e-6
    reached = np.flatnonzero(ppr > 0)
    unreached = np.flatnonzero(ppr == 0)
    expected = np.concatenate([
        reached[np.lexsort((reached, -base_scores[reached], -keys.primary[0][reached]))],
        unreached[np.lexsort((unreached, -base_scores[unreached]))],
    ])
    assert full_order(keys.primary[0], keys.secondary[0]).tolist() == expected.tolist()
    assert unreached.size > 0  # the sparse random graph leaves some documents out of reach


def seed_sets(rng: np.random.Generator, n: int, count: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``count`` seed sets of 1-12 distinct documents, weights with some zeros (as clipped base scores give)."""
    seeds, weights = [], []
    for _ in range(count):
        size = int(rng.integers(1, 13))
        chosen = rng.choice(n, size=size, replace=False)
        w = rng.random(size)
        w[rng.random(size) < 0.2] = 0.0
        w[0] = max(w[0], 0.1)
        seeds.append(chosen)
        weights.append(w)
    return seeds, weights


def assert_many_is_single_bitwise(graph: PprGraph, seeds: list[np.ndarray], weights: list[np.ndarray],
                                  damping: float) -> None:
    single = np.stack([graph.pagerank(s, w, damping) for s, w in zip(seeds, weights)])
    for threads in (1, 2, 5):
        many = graph.pagerank_many(seeds, weights, damping, threads=threads)
        assert many.dtype == np.float64 and many.shape == single.shape
        assert np.array_equal(many, single)  # bitwise: same bits, not merely close


@pytest.mark.parametrize("damping", [0.5, 0.85])
def test_pagerank_many_is_bitwise_pagerank_on_a_random_graph(damping):
    """The batched solve gives exactly the one-query solve for every query, whatever the thread count; both follow
    the dense reference (igraph's equation), isolated seeds included."""
    rng = np.random.default_rng(21)
    n = 300
    adjacency = random_graph(rng, n, 500, isolated=[4, 50, 51])
    graph = PprGraph(adjacency)
    seeds, weights = seed_sets(rng, n, 40)
    seeds[0], weights[0] = np.array([4, 10]), np.array([0.5, 0.5])  # a seed without links
    assert_many_is_single_bitwise(graph, seeds, weights, damping)
    restart = np.zeros(n)
    restart[seeds[0]] = weights[0]
    many = graph.pagerank_many(seeds[:1], weights[:1], damping)
    assert np.abs(many[0] - reference_ppr(adjacency.toarray(), restart, damping)).max() < 1e-6


def test_pagerank_many_is_bitwise_pagerank_at_the_iteration_cap():
    """A query stopped by ``n_iter`` (not converged) returns the last iterate, batched or not."""
    rng = np.random.default_rng(5)
    graph = PprGraph(random_graph(rng, 120, 200, isolated=[]), n_iter=3)
    seeds, weights = seed_sets(rng, 120, 10)
    assert_many_is_single_bitwise(graph, seeds, weights, 0.85)
    assert graph.pagerank_many([], [], 0.5).shape == (0, 120)
    with pytest.raises(SpecError):
        graph.pagerank_many(seeds, weights[:2], 0.5)


@pytest.mark.parametrize("damping", [0.5, 0.85])
def test_pagerank_many_is_bitwise_pagerank_on_the_wikipedia_slice_graph(wikipedia_slice, damping):
    """On the real hyperlink graph of the Wikipedia dump slice (``enwiki_gensim``: 53 articles, 21 linked pairs,
    isolated articles among the seeds), many seed sets."""
    read = wikipedia_slice
    n = read.corpus.num_rows
    graph = PprGraph.from_links(read.links["src"].to_numpy(), read.links["dst"].to_numpy(), n)
    assert graph.adjacency.nnz == 42  # 21 two-way article pairs among the 53 articles
    seeds, weights = seed_sets(np.random.default_rng(8), n, 60)
    assert_many_is_single_bitwise(graph, seeds, weights, damping)


def test_strategy_scores_are_the_one_query_solves_cast_to_float32():
    """``order_keys`` over a batch (solved by ``pagerank_many``) stores exactly what one ``pagerank`` per query did."""
    rng = np.random.default_rng(13)
    n = 150
    graph = PprGraph(random_graph(rng, n, 260, isolated=[7]))
    table = {f"q{i}": np.round(rng.random(n) * 3 - 0.5, 1).astype(np.float32) for i in range(12)}
    table["zeros"] = np.zeros(n, dtype=np.float32)  # uniform seed weights
    for base, params in (("bm25", None), ("hybrid", None), ("dense", PprParams(4, 0.7))):
        strategy = PprRetriever(FixedScores(base, table), graph, params)
        keys = strategy.order_keys(list(table))
        for row, query in enumerate(table):
            seeds, weights = strategy.seed_weights(table[query])
            expected = graph.pagerank(seeds, weights, strategy.params.damping).astype(np.float32)
            assert np.array_equal(keys.primary[row], expected)
