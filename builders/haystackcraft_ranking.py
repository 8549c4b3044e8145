"""Rank a HaystackCraft build's corpus for every question with each strategy (cached on disk)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from builders.retrieval.base import StrategyRanking
from builders.retrieval.bm25 import BM25Retriever
from builders.retrieval.cache import RetrievalCache, corpus_fingerprint
from builders.retrieval.ppr import PprGraph
from builders.retrieval.rank import make_strategies, rank_strategies
from generators.haystackcraft.prompt import render_document
from generators.haystackcraft.spec import strategy_parts

if TYPE_CHECKING:
    from builders.haystackcraft import HaystackCraftBuild
    from builders.haystackcraft_inputs import HaystackInputs


def rank_questions(spec: "HaystackCraftBuild", inputs: "HaystackInputs", titles: Sequence[str], texts: Sequence[str],
                   questions: Sequence[dict[str, Any]], *, progress: bool = False) -> dict[str, list[StrategyRanking]]:
    """Each strategy's top ``spec.top_k`` documents and exact needle ranks for every question.

    Only the base retrievers the strategies need are built (hybrid needs BM25 and dense); the
    BM25 index, the document embeddings and the rankings are cached under ``spec.cache`` keyed by
    the corpus fingerprint, so a second build of the same corpus reuses them.
    """
    cache = RetrievalCache(Path(spec.cache) if spec.cache else None)
    corpus_fp = corpus_fingerprint(titles, texts, render_document)
    bases = {strategy_parts(s)[0] for s in spec.strategies}
    needs_bm25 = bool(bases & {"bm25", "hybrid"})
    needs_dense = bool(bases & {"dense", "hybrid"})
    bm25 = BM25Retriever(titles, texts, render=render_document, cache=cache, corpus_fp=corpus_fp, show_progress=progress) if needs_bm25 else None
    dense = None
    if needs_dense:
        from builders.retrieval.dense import DenseRetriever

        dense = DenseRetriever(titles, texts, render=render_document, model=spec.dense_model or None, cache=cache, corpus_fp=corpus_fp,
                               show_progress=progress)
    graph = None
    if any(strategy_parts(s)[1] for s in spec.strategies):
        links = inputs.corpus.links
        graph = PprGraph.from_links(links["src"].to_numpy(), links["dst"].to_numpy(), len(titles))
    strategies = make_strategies(spec.strategies, bm25=bm25, dense=dense, graph=graph)
    needles = [np.asarray(q["support"], dtype=np.int64) for q in questions]
    return rank_strategies(len(titles), [q["question"] for q in questions], needles, strategies,
                           min(spec.top_k, len(titles)), cache=cache, corpus_fp=corpus_fp, show_progress=progress)
