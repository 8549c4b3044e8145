"""EMB-S's retrievers over the MemoryBank and its ladder corpora: the build retriever (Stages II-III), the retrieval
regime, and eval's live RAG (``eval.benchmarks.embs.rows``), which ranks a release's corpora with the same code.

Two corpus-level scorers, one protocol (``CorpusScorer``: corpus doc ids and queries -> scores):

- **dense**: document scores do not depend on the corpus, so the bank is embedded once and each
  ladder corpus is a mask of the full score matrix (exact; spec §5);
- **BM25**: IDF depends on the corpus, so each corpus gets its own index (bm25s, as
  ``builders.retrieval.bm25``). Chinese text is indexed as overlapping character bigrams (bm25s's
  word regex would read a whole clause as one token), queries alike.

Rankings keep the top 100 of each (query, corpus) and every gold document's exact rank within the
corpus; the ``retrieval`` rows are Table 3's R@1 / SR@10 / FR@10 (A.5) per retriever and scale.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm.autonotebook import tqdm

from builders.engine import batched
from builders.retrieval.base import ranks_of, top_k
from builders.retrieval.bm25 import BM25Retriever, tokenize
from builders.retrieval.bm25_index import BATCH_DOCS
from builders.retrieval.cache import RetrievalCache
from builders.retrieval.query_prompts import AUTO, query_prompt_for
from generators.embs.calibration import hashed_bag_of_words
from generators.embs.ladder import Corpus
from generators.embs.scoring import fr_at_k, mean_defined, r_at_1, sr_at_k
from generators.embs.spec import RETRIEVERS, scale_sort_key
from needlework.checks import one_of_message
from needlework.errors import SpecError
from needlework.rows import RowSequence

TOP = 100
"""Documents kept per ranking row (OURS; also the depth a reranker would take)."""
K = 10
"""The paper's cut-off (Table 3)."""
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")

QUERY_BLOCK = 32
"""Queries scored at a time against a whole corpus (bounds the score matrix at 32 x corpus size)."""
ANALYSED_TERMS_KEPT = 32 * 2**20
"""Most term ids (4 bytes each) of analysed bank documents a :class:`Bank` keeps for its corpus indexes: a bank of up
to ~30M tokens is analysed once for its whole ladder; documents past it are analysed again for each corpus."""

QueryScorer = Callable[[Sequence[str]], np.ndarray]
"""``queries -> (len(queries), len(corpus))`` float32 scores over one opened corpus."""
CorpusScorer = Callable[[np.ndarray], QueryScorer]
"""``corpus doc ids (ascending) -> QueryScorer``: a corpus is opened (BM25: indexed) once, then scored in query blocks."""


class LazyColumn(RowSequence[str]):
    """A read-only sequence of ``length`` strings whose item ``i`` is ``get(i)``, computed when asked.

    How the bank's titles and texts (rendered from the world) and a ladder corpus's view of them
    are passed to retrievers without holding them.
    """

    row_name = "document"

    def __init__(self, length: int, get: Callable[[int], str]) -> None:
        self._length, self._get = length, get

    def __len__(self) -> int:
        return self._length

    def _row(self, index: int) -> str:
        return self._get(index)


def cjk_bigrams(text: str) -> str:
    """``text`` with every run of CJK characters replaced by its overlapping character bigrams (space-separated)."""
    def bigrams(match: re.Match[str]) -> str:
        run = match.group(0)
        return " " + " ".join(run[i:i + 2] for i in range(max(len(run) - 1, 1))) + " "
    return _CJK_RUN.sub(bigrams, text)


def bm25_document(title: str, text: str) -> str:
    """How a bank document is indexed by BM25: title and text, Chinese as bigrams."""
    return cjk_bigrams(f"{title}\n{text}")


class Bank:
    """The MemoryBank's titles and texts by doc id, and the retrievers built over it (lazily)."""

    def __init__(self, titles: Sequence[str], texts: Sequence[str], *, dense_model: str | None = None,
                 cache_dir: str | None = None, progress: bool = False) -> None:
        self.titles, self.texts = titles, texts
        self.dense_model, self.cache_dir, self.progress = dense_model, cache_dir, progress
        self._dense: Any = None
        self._bm25: BM25Retriever | None = None
        self._terms: dict[str, int] = {}  # every term of the analysed documents -> its id
        self._term_list: list[str] = []  # the same terms, by id
        self._term_ids: dict[int, np.ndarray] = {}  # doc id -> its BM25 terms as ids, in token order
        self._terms_kept = 0

    @property
    def dense(self) -> Any:
        """The dense retriever over the whole bank (embeddings cached on disk), its query prompt decided as every dense
        ranking's is (:func:`query_prompt_for`: the paper's instruction for Qwen3-Embedding, none for the default)."""
        if self._dense is None:
            from builders.retrieval.dense import DenseRetriever
            self._dense = DenseRetriever(self.titles, self.texts, render=_dense_document, model=self.dense_model,
                                         cache=RetrievalCache(self.cache_dir), show_progress=self.progress,
                                         query_prompt=query_prompt_for(AUTO, self.dense_model))
        return self._dense

    @property
    def bm25(self) -> BM25Retriever:
        """BM25 over the whole bank; built (when not cached) from :meth:`bm25_term_ids`, so the documents it
        analyses are not analysed again for the ladder's corpora."""
        if self._bm25 is None:
            def analysed() -> tuple[Iterator[np.ndarray], list[str]]:
                batches = batched(range(len(self.titles)), BATCH_DOCS)
                return (ids for batch in batches for ids in self.bm25_term_ids(batch)), self._term_list

            self._bm25 = BM25Retriever(self.titles, self.texts, render=bm25_document, cache=RetrievalCache(self.cache_dir),
                                       analysed=analysed)
        return self._bm25

    def bm25_term_ids(self, doc_ids: Sequence[int]) -> list[np.ndarray]:
        """The BM25 analysis of bank documents (:func:`bm25_document`, then :func:`tokenize`) as ids into
        :meth:`bm25_terms`, each document analysed once while :data:`ANALYSED_TERMS_KEPT` allows.

        The ladder's corpora are nested (each holds the one below it), so without this every document of the
        64K corpus would be analysed again for every larger corpus that holds it.
        """
        missing = list(dict.fromkeys(d for d in doc_ids if d not in self._term_ids))
        fresh: dict[int, np.ndarray] = {}
        for start in range(0, len(missing), BATCH_DOCS):
            batch = missing[start:start + BATCH_DOCS]
            analysed = tokenize([bm25_document(self.titles[d], self.texts[d]) for d in batch])
            for doc, tokens in zip(batch, analysed):
                ids = np.fromiter(map(self._term_id, tokens), dtype=np.int32, count=len(tokens))
                if self._terms_kept + len(ids) <= ANALYSED_TERMS_KEPT:
                    self._term_ids[doc] = ids
                    self._terms_kept += len(ids)
                else:
                    fresh[doc] = ids
        return [self._term_ids[d] if d in self._term_ids else fresh[d] for d in doc_ids]

    def _term_id(self, term: str) -> int:
        found = self._terms.get(term)
        if found is None:
            found = self._terms[term] = len(self._term_list)
            self._term_list.append(term)
        return found

    def bm25_terms(self) -> list[str]:
        """The terms of :meth:`bm25_term_ids`, by id: the bank's own list (it only grows), not a copy of it."""
        return self._term_list

    def score_all(self, retriever: str, queries: Sequence[str]) -> np.ndarray:
        """``(len(queries), n_docs)`` scores of every bank document."""
        if retriever == "dense":
            return np.asarray(self.dense.score_all(list(queries)))
        if retriever == "bm25":
            return np.asarray(self.bm25.score_all([cjk_bigrams(q) for q in queries]))
        raise SpecError(one_of_message("retriever", retriever, RETRIEVERS))

    def scored(self, retriever: str, queries: Sequence[str],
               wanted: Callable[[int], bool] = lambda i: True) -> Iterator[tuple[int, np.ndarray]]:
        """``(position, whole-bank scores)`` of each wanted query, in order, scored QUERY_BLOCK at a time.

        ``wanted(position)`` is asked when the query's turn comes (so a quota filled meanwhile skips it);
        a block none of whose queries is wanted is not scored. Memory: one block's scores.
        """
        for start in range(0, len(queries), QUERY_BLOCK):
            block = list(queries[start:start + QUERY_BLOCK])
            scores: np.ndarray | None = None
            for row in range(len(block)):
                if not wanted(start + row):
                    continue
                if scores is None:
                    scores = self.score_all(retriever, block)
                yield start + row, scores[row]

    def query_vectors(self, retriever: str, queries: Sequence[str]) -> np.ndarray:
        """Vectors for near-duplicate detection: dense query embeddings, or hashed bags of BM25 tokens."""
        if retriever == "dense":
            return self.dense.encode_queries(list(queries))
        return hashed_bag_of_words(tokenize([cjk_bigrams(q) for q in queries]))

    def neighbours(self, retriever: str, doc_id: int, k: int) -> np.ndarray:
        """The ``k`` documents nearest a bank document (itself excluded) under ``retriever``."""
        if retriever == "dense":
            emb = np.asarray(self.dense.embeddings)
            scores = (emb @ emb[doc_id])[None, :]
        else:
            scores = self.score_all("bm25", [f"{self.titles[doc_id]}\n{self.texts[doc_id]}"])
        scores = scores.copy()
        scores[0, doc_id] = -np.inf
        return top_k(scores, k).doc_ids[0]

    def scorer(self, retriever: str) -> CorpusScorer:
        """The corpus scorer of a retriever: dense masks the bank's scores; BM25 indexes each corpus.

        Dense keeps each query block's bank scores (computed once, masked per corpus); BM25 streams a
        corpus into its own on-disk index, dropped when the corpus is done.
        """
        if retriever == "dense":
            memo: dict[tuple[str, ...], np.ndarray] = {}

            def open_dense(corpus: np.ndarray) -> QueryScorer:
                def dense_scores(queries: Sequence[str]) -> np.ndarray:
                    key = tuple(queries)
                    if key not in memo:
                        memo[key] = self.score_all("dense", queries)
                    return memo[key][:, corpus]
                return dense_scores
            return open_dense
        if retriever == "bm25":
            def open_bm25(corpus: np.ndarray) -> QueryScorer:
                if len(corpus) == len(self.titles):
                    return lambda queries: self.score_all("bm25", queries)[:, corpus]
                documents = self.bm25_term_ids(corpus.tolist())
                index = BM25Retriever.of_term_ids(documents, self.bm25_terms())
                return lambda queries: np.asarray(index.score_all([cjk_bigrams(q) for q in queries]))
            return open_bm25
        raise SpecError(one_of_message("retriever", retriever, RETRIEVERS))


def nearest_outside(scores: np.ndarray, refs: Sequence[int], k: int) -> list[int]:
    """The ``k`` best-scored documents not in ``refs`` (Stage III's collision candidates), best first."""
    hits = top_k(scores[None, :], k + len(refs)).doc_ids[0].tolist()
    return [d for d in hits if d not in refs][:k]


def _dense_document(title: str, text: str) -> str:
    return f"{title}\n{text}"


@dataclass(frozen=True)
class Ranked:
    """One (query, corpus) ranking: the top documents and each gold document's rank in the corpus."""

    qid: str
    retriever: str
    scale: str
    domain: str
    doc_ids: list[int]
    gold: list[int]
    gold_ranks: list[int]


def rank_corpus(retriever: str, scorer: CorpusScorer, corpus: Corpus, qids: Sequence[str], queries: Sequence[str],
                golds: Sequence[Sequence[int]], top: int = TOP) -> list[Ranked]:
    """Rank one corpus for its queries: top ``top`` doc ids and exact gold ranks (ties to the smaller doc id).

    A gold document outside the corpus (possible only in a release's own ladder) has rank -1.
    """
    members = np.sort(corpus.doc_ids)
    score = scorer(members)
    rows = []
    for start in range(0, len(queries), QUERY_BLOCK):
        scores = score(queries[start:start + QUERY_BLOCK])
        for row, (qid, gold) in enumerate(zip(qids[start:start + QUERY_BLOCK], golds[start:start + QUERY_BLOCK])):
            best = members[top_k(scores[row:row + 1], top).doc_ids[0]].tolist()
            at = np.searchsorted(members, np.asarray(gold, dtype=np.int64))
            inside = [(g, int(i)) for g, i in zip(gold, at.tolist()) if i < len(members) and members[i] == g]
            found = dict(zip([g for g, _ in inside],
                             ranks_of(scores[row], np.asarray([i for _, i in inside], dtype=np.int64)).tolist()))
            rows.append(Ranked(qid, retriever, corpus.scale, corpus.domain, best, list(gold), [found.get(g, -1) for g in gold]))
    return rows


def rank_ladder(retrievers: Sequence[str], bank: Bank, ladder: Sequence[Corpus], queries: Sequence[Mapping[str, Any]],
                progress: bool = False) -> Iterator[Ranked]:
    """Every (retriever, corpus, query) ranking: domain corpora rank their domain's queries, shared ones all."""
    steps = len(retrievers) * len(ladder)
    bar = tqdm(total=steps, desc="rank ladder", unit="corpus", disable=not progress)
    for retriever in retrievers:
        scorer = bank.scorer(retriever)
        for corpus in ladder:
            mine = [q for q in queries if corpus.domain in ("all", q["domain"])]
            if mine:
                yield from rank_corpus(retriever, scorer, corpus, [q["qid"] for q in mine], [q["query"] for q in mine],
                                       [q["ref_list"] for q in mine])
            bar.update(1)
    bar.close()


def retrieval_rows(ranked: Sequence[Ranked], k: int = K) -> list[dict[str, Any]]:
    """Table 3's cells: per retriever and scale, R@1 (single-source), SR@k (all), FR@k (multi-source) (A.5)."""
    groups: dict[tuple[str, str], list[Ranked]] = {}
    for r in ranked:
        groups.setdefault((r.retriever, r.scale), []).append(r)
    rows = []
    for (retriever, scale), items in sorted(groups.items(), key=lambda kv: (RETRIEVERS.index(kv[0][0]) if kv[0][0] in RETRIEVERS else 9,
                                                                         kv[0][0], scale_sort_key(kv[0][1]))):
        r1, n_single = mean_defined([r_at_1(r.doc_ids, r.gold) for r in items])
        fr, n_multi = mean_defined([fr_at_k(r.doc_ids, r.gold, k) for r in items])
        sr, _ = mean_defined([sr_at_k(r.doc_ids, r.gold, k) for r in items])
        rows.append({"retriever": retriever, "scale": scale, "r1": r1, "sr10": sr, "fr10": fr,
                     "n_single": n_single, "n_multi": n_multi})
    return rows


def table3_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """The ``retrieval`` rows laid out as the paper's Table 3: a row per retriever, R@1/SR@10/FR@10 per scale."""
    scales = sorted({r["scale"] for r in rows}, key=scale_sort_key)
    retrievers = list(dict.fromkeys(r["retriever"] for r in rows))
    cell = {(r["retriever"], r["scale"]): r for r in rows}
    fmt = lambda v: "–" if v is None else f"{v:.3f}"
    head = "| retriever | " + " | ".join(f"{s} R@1 | {s} SR@10 | {s} FR@10" for s in scales) + " |"
    sep = "|---|" + "---:|" * (3 * len(scales))
    body = []
    for name in retrievers:
        cells = []
        for s in scales:
            r = cell.get((name, s))
            cells += ["–"] * 3 if r is None else [fmt(r["r1"]), fmt(r["sr10"]), fmt(r["fr10"])]
        body.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join([head, sep, *body])
