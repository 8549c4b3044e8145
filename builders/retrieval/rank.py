"""Rank the corpus for every question under every strategy: top-K lists and exact needle ranks.

Queries go through in batches, so at most a few ``(batch, n_docs)`` score matrices exist at once
(one per base retriever, remembered for the strategies built on it, plus the strategy being
ranked): memory is about ``5 * batch * n_docs * 4`` bytes, whatever the number of questions.
Results can be cached on disk per strategy, keyed by corpus, strategy and the questions.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.autonotebook import tqdm

from builders.engine import Engine
from builders.retrieval.base import DocumentRenderer, Retriever, StrategyRanking, order_keys, ranks_of, top_k
from builders.retrieval.bm25 import BM25Retriever
from builders.retrieval.cache import RetrievalCache, corpus_fingerprint, fingerprint_of
from builders.retrieval.analysis import PLAIN
from builders.retrieval.dense import DenseRetriever
from builders.retrieval.query_prompts import AUTO, query_prompt_for
from builders.retrieval.hybrid import HybridRetriever
from builders.retrieval.ppr import PprGraph, PprParams, PprRetriever
from generators.strategies import STRATEGIES, strategy_parts
from needlework.errors import SpecError


def make_strategies(
    names: Sequence[str],
    *,
    bm25: Retriever | None = None,
    dense: Retriever | None = None,
    graph: PprGraph | None = None,
    ppr_params: Mapping[str, PprParams] | None = None,
) -> dict[str, Retriever]:
    """The strategies ``names`` (see :data:`STRATEGIES`) built from the base retrievers and the graph.

    Hybrid fuses ``bm25`` and ``dense``; ``X+ppr`` reranks X on ``graph`` with ``ppr_params[X]``
    or, where not given, the Table 2 defaults. Shared parts are shared objects, so a batch is
    scored once per base retriever.
    """
    unknown = [n for n in names if n not in STRATEGIES]
    if unknown:
        raise SpecError(f"unknown retrieval strategies {unknown}; known: {', '.join(STRATEGIES)}")
    base: dict[str, Retriever] = {}
    for name in ("bm25", "dense"):
        retriever = bm25 if name == "bm25" else dense
        if retriever is not None:
            base[name] = retriever
    if any(n.partition("+")[0] == "hybrid" for n in names):
        if bm25 is None or dense is None:
            raise SpecError("the hybrid strategies need both the bm25 and the dense retriever")
        base["hybrid"] = HybridRetriever([bm25, dense])
    out: dict[str, Retriever] = {}
    for name in names:
        base_name, _, ppr = name.partition("+")
        if base_name not in base:
            raise SpecError(f"strategy {name!r} needs the {base_name} retriever")
        if not ppr:
            out[name] = base[base_name]
            continue
        if graph is None:
            raise SpecError(f"strategy {name!r} needs the links graph")
        params = (ppr_params or {}).get(base_name)
        out[name] = PprRetriever(base[base_name], graph, params)
    return out


def rank_strategies(
    corpus_size: int,
    queries: Sequence[str],
    needles: Sequence[np.ndarray],
    strategies: Mapping[str, Retriever],
    k: int,
    batch_size: int = 32,
    *,
    cache: RetrievalCache | None = None,
    corpus_fp: str | None = None,
    show_progress: bool = False,
) -> dict[str, list[StrategyRanking]]:
    """Top-K documents and exact needle ranks and scores, per strategy and question.

    Args:
        corpus_size: Number of corpus documents (doc ids ``0..corpus_size-1``).
        queries: Question texts.
        needles: Each question's supporting doc ids, aligned with ``queries``.
        strategies: Strategy name -> strategy (e.g. from :func:`make_strategies`).
        k: How many top documents to keep per question (at most ``corpus_size``).
        batch_size: Questions scored together.
        cache: Where to keep and find rankings (needs ``corpus_fp``); ``None`` computes them.
        corpus_fp: The corpus fingerprint for cache keys.
        show_progress: Show a progress bar over questions.

    Returns:
        Strategy name -> one :class:`StrategyRanking` per question, in question order.
    """
    if len(queries) != len(needles):
        raise SpecError(f"{len(queries)} queries but {len(needles)} needle lists")
    if batch_size < 1 or k < 1:
        raise SpecError(f"batch_size and k must be at least 1, got {batch_size} and {k}")
    if cache is not None and corpus_fp is None:
        raise SpecError("caching rankings needs the corpus fingerprint")
    needle_arrays = [_needles(i, ids, corpus_size) for i, ids in enumerate(needles)]
    questions_fp = fingerprint_of({"queries": list(queries), "needles": [a.tolist() for a in needle_arrays],
                                   "k": min(k, corpus_size)})
    results: dict[str, list[StrategyRanking]] = {}
    todo: dict[str, Retriever] = {}
    for name, strategy in strategies.items():
        found = _load_rankings(cache, corpus_fp, strategy, questions_fp, needle_arrays) if cache is not None else None
        if found is not None:
            results[name] = found
        else:
            results[name], todo[name] = [], strategy
    bar = tqdm(total=len(queries), desc="rank", unit="question", disable=not show_progress or not todo)
    for start in range(0, len(queries) if todo else 0, batch_size):
        batch = list(queries[start:start + batch_size])
        for name, strategy in todo.items():
            keys = order_keys(strategy, batch)
            if keys.primary.shape != (len(batch), corpus_size):
                raise SpecError(f"strategy {name!r} scored {keys.primary.shape}, expected {(len(batch), corpus_size)}")
            hits = top_k(keys.primary, k, keys.secondary)
            for row in range(len(batch)):
                ids = needle_arrays[start + row]
                secondary = None if keys.secondary is None else keys.secondary[row]
                results[name].append(StrategyRanking(
                    doc_ids=hits.doc_ids[row].copy(),
                    scores=hits.scores[row].copy(),
                    needle_ids=ids,
                    needle_ranks=ranks_of(keys.primary[row], ids, secondary),
                    needle_scores=keys.primary[row][ids].astype(np.float32),
                ))
        bar.update(len(batch))
    bar.close()
    if cache is not None:
        for name, strategy in todo.items():
            _store_rankings(cache, corpus_fp, strategy, questions_fp, results[name])
    return results


def rank_corpus(
    strategies: Sequence[str],
    titles: Sequence[str],
    texts: Sequence[str],
    questions: Sequence[str],
    needles: Sequence[np.ndarray],
    *,
    render: DocumentRenderer,
    top: int,
    links: tuple[np.ndarray, np.ndarray] | None = None,
    dense_model: str | None = None,
    cache_dir: str | Path | None = None,
    progress: bool = False,
    bm25_analyzer: str = PLAIN,
    dense_query_instruction: str = AUTO,
    record: dict[str, Any] | None = None,
    engine: Engine | None = None,
) -> dict[str, list[StrategyRanking]]:
    """Each strategy's top ``top`` documents and exact needle ranks for every question, from the corpus up.

    Only the base retrievers the strategies need are built (hybrid needs BM25 and dense); the BM25
    index, the document embeddings and the rankings are cached under ``cache_dir`` (``None``: the
    default cache folder) keyed by the fingerprint of the rendered corpus, so a second build of the
    same corpus reuses them.

    Args:
        strategies: Strategy names (:data:`generators.strategies.STRATEGIES`).
        titles, texts: The corpus in doc-id order.
        questions: Query texts.
        needles: Each question's supporting doc ids.
        render: How a (title, text) row becomes the text retrievers index.
        top: Documents kept per ranking (at most the corpus size).
        links: ``(src, dst)`` hyperlink arrays, needed by the ``+ppr`` strategies.
        dense_model: The dense retriever's model (``None``: the offline default).
        cache_dir: The retrieval cache folder.
        progress: Show progress bars.
        bm25_analyzer: BM25 text analysis, ``plain`` or ``lucene`` (:mod:`builders.retrieval.analysis`).
        dense_query_instruction: The dense query prompt setting (:func:`builders.retrieval.query_prompts.query_prompt_for`).
        record: If given, filled with what the retrievers were (``bm25``: its config; ``dense``: model, query
            prompt and :meth:`DenseRetriever.truncation`; ``top_k``), for the manifest and the build report.
        engine: Where the dense retriever embeds the documents (:mod:`builders.engine`; default: here).
    """
    cache = RetrievalCache(cache_dir)
    corpus_fp = corpus_fingerprint(titles, texts, render)
    bases = {strategy_parts(s)[0] for s in strategies}
    bm25 = dense = graph = None
    if bases & {"bm25", "hybrid"}:
        bm25 = BM25Retriever(titles, texts, render=render, analysis=bm25_analyzer, cache=cache, corpus_fp=corpus_fp,
                             show_progress=progress)
    if bases & {"dense", "hybrid"}:
        dense = DenseRetriever(titles, texts, render=render, model=dense_model, cache=cache, corpus_fp=corpus_fp,
                               query_prompt=query_prompt_for(dense_query_instruction, dense_model),
                               show_progress=progress, engine=engine)
    if any(strategy_parts(s)[1] for s in strategies):
        if links is None:
            raise SpecError("the +ppr strategies need the corpus's links")
        graph = PprGraph.from_links(links[0], links[1], len(titles))
    built = make_strategies(strategies, bm25=bm25, dense=dense, graph=graph)
    rankings = rank_strategies(len(titles), questions, needles, built, min(top, len(titles)), cache=cache,
                               corpus_fp=corpus_fp, show_progress=progress)
    if record is not None:
        record["top_k"] = min(top, len(titles))
        if bm25 is not None:
            record["bm25"] = {"analyzer": bm25_analyzer, **bm25.config}
        if dense is not None:
            record["dense"] = {"model": dense.documents_config["model"], "query_instruction": dense_query_instruction,
                               "query_prompt": dense.effective_query_prompt(), "truncation": dense.truncation()}
    return rankings


def _needles(index: int, ids: np.ndarray, corpus_size: int) -> np.ndarray:
    arr = np.asarray(ids, dtype=np.int64).ravel()
    if arr.size and (arr.min() < 0 or arr.max() >= corpus_size):
        raise SpecError(f"question {index}: needle doc ids {arr.tolist()} outside 0..{corpus_size - 1}")
    return arr


_FIELDS = ("doc_ids", "scores", "needle_ranks", "needle_scores")


def _load_rankings(cache: RetrievalCache, corpus_fp: str | None, strategy: Retriever, questions_fp: str,
                   needles: list[np.ndarray]) -> list[StrategyRanking] | None:
    folder = cache.load_dir(corpus_fp or "", strategy.fingerprint, f"rankings:{questions_fp}")
    if folder is None:
        return None
    offsets = np.cumsum([0] + [a.size for a in needles])
    try:
        arrays = {f: np.load(folder / f"{f}.npy", allow_pickle=False) for f in _FIELDS}
        if arrays["doc_ids"].shape[0] != len(needles) or arrays["needle_ranks"].shape[0] != offsets[-1]:
            raise ValueError("rankings do not match the questions")
    except (OSError, ValueError):
        # Unreadable: drop it so the recomputed rankings can take its place.
        shutil.rmtree(folder, ignore_errors=True)
        return None
    return [
        StrategyRanking(arrays["doc_ids"][i], arrays["scores"][i], needles[i],
                        arrays["needle_ranks"][offsets[i]:offsets[i + 1]],
                        arrays["needle_scores"][offsets[i]:offsets[i + 1]])
        for i in range(len(needles))
    ]


def _store_rankings(cache: RetrievalCache, corpus_fp: str | None, strategy: Retriever, questions_fp: str,
                    rankings: list[StrategyRanking]) -> None:
    def write(folder: Path) -> None:
        np.save(folder / "doc_ids.npy", np.stack([r.doc_ids for r in rankings]) if rankings else np.zeros((0, 0), np.int64))
        np.save(folder / "scores.npy", np.stack([r.scores for r in rankings]) if rankings else np.zeros((0, 0), np.float32))
        np.save(folder / "needle_ranks.npy", np.concatenate([r.needle_ranks for r in rankings] or [np.zeros(0, np.int64)]))
        np.save(folder / "needle_scores.npy", np.concatenate([r.needle_scores for r in rankings] or [np.zeros(0, np.float32)]))

    cache.store_dir(corpus_fp or "", strategy.fingerprint, f"rankings:{questions_fp}", write)
