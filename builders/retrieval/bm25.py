"""Sparse retrieval: BM25 over the rendered corpus with bm25s.

Text analysis (:mod:`builders.retrieval.analysis`), the same for documents and queries, is one of:

- ``plain`` (the default): bm25s's own tokenization, lower-cased, the regex ``(?u)\\b\\w\\w+\\b``
  (scikit-learn's CountVectorizer pattern), bm25s's English stopword list, no stemming;
- ``lucene``: Lucene's ``EnglishAnalyzer`` chain as the paper's Pyserini index ran it (UAX #29 tokens,
  possessives removed, lower case, Lucene's 33 stop words, Porter stemming).

Scoring is bm25s's ``"lucene"`` variant, idf = ln(1 + (N - df + 0.5) / (df + 0.5)) and tf part =
tf / (tf + k1 (1 - b + b |d| / avgdl)), with k1 = 0.9, b = 0.4 under both analyses: the paper's code
(Graph-COM/HaystackCraft ``retrievers/bm25.py``) searches with a bare ``LuceneSearcher``, whose BM25 is
Anserini's default 0.9/0.4 (castorini/pyserini ``pyserini/search/lucene/_searcher.py``, ``set_bm25``), not
bm25s's 1.5/0.75. (Lucene stores document lengths as a lossy one-byte norm; bm25s, and so this index, uses
exact lengths, which can reorder near-tied documents.) A query term that occurs twice counts twice, as
Anserini's bag-of-words query boosts a repeated term by its count.

Every corpus row is indexed as ``render(title, text)``, the renderer the caller passes. The index is bm25s's,
written and read in bounded memory by :mod:`builders.retrieval.bm25_index` (documents streamed, posting lists read
per query), in the retrieval cache, keyed by corpus and settings, so a second build loads it, or in a temporary
folder when there is no cache.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from builders.retrieval.analysis import PLAIN, analyzer, describe, plain_analyze
from builders.retrieval.base import DocumentRenderer, LastCall, check_corpus
from builders.retrieval.bm25_index import DiskIndex, scratch_folder, write_index, write_index_of_term_ids
from builders.retrieval.cache import RetrievalCache, corpus_fingerprint, fingerprint_of
from needlework.errors import SpecError

STOPWORDS = "en"
"""bm25s's English stopword list (the ``plain`` analysis)."""
INDEX_ARTIFACT = "bm25s-index"


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """The ``plain`` analysis of texts (bm25s's tokenization: lower case, English stopwords, no stemming)."""
    return plain_analyze(texts)


def build_index(documents: Iterable[str], folder: Path, k1: float, b: float, show_progress: bool = False,
                total: int | None = None, analysis: str = PLAIN) -> None:
    """Write the bm25s index of rendered documents (position == doc id) into ``folder``, streaming them."""
    write_index(documents, folder, k1=k1, b=b, analyze=analyzer(analysis), show_progress=show_progress, total=total)


class BM25Retriever:
    """BM25 scores of every corpus document for a query.

    Args:
        titles: Corpus titles in doc-id order.
        texts: Corpus texts, aligned with ``titles``.
        render: How a (title, text) row becomes the indexed text.
        k1: BM25 term-frequency saturation.
        b: BM25 length normalization.
        analysis: Text analysis of documents and queries: ``plain`` or ``lucene`` (:mod:`builders.retrieval.analysis`).
        cache: Where to keep the index; ``None`` builds it in memory every time.
        corpus_fp: The corpus fingerprint if the caller already has it (saves one pass).
        show_progress: Show bm25s's progress bars while indexing.
        analysed: The documents already analysed with ``analysis``, should the index have to be built: a function
            giving them as arrays of term ids, in doc-id order, and the terms (:func:`write_index_of_term_ids`).
            The index, and so its cache entry, is the one of the rendered texts; a caller that analyses the
            documents for other indexes too (the EMB-S bank) analyses each once.
    """

    name = "bm25"

    def __init__(
        self,
        titles: Sequence[str],
        texts: Sequence[str],
        *,
        render: DocumentRenderer,
        k1: float = 0.9,
        b: float = 0.4,
        analysis: str = PLAIN,
        cache: RetrievalCache | None = None,
        corpus_fp: str | None = None,
        show_progress: bool = False,
        analysed: Callable[[], tuple[Iterable[np.ndarray], Sequence[str]]] | None = None,
    ) -> None:
        check_corpus(titles, texts)
        self._configure(k1, b, analysis)
        self.n_docs = len(titles)
        self._render = render
        self.postings = self._load_or_build(titles, texts, cache, corpus_fp, show_progress, analysed)

    @classmethod
    def of_term_ids(cls, documents: Sequence[np.ndarray], terms: Sequence[str], *, k1: float = 0.9, b: float = 0.4,
                    analysis: str = PLAIN) -> BM25Retriever:
        """BM25 over documents already analysed (with ``analysis``) into ids of ``terms``, in token order.

        The retriever of their rendered texts (the same index, so the same scores), built without analysing them
        again, in a temporary folder (never cached): for many corpora drawn from one set of documents.
        """
        retriever = cls.__new__(cls)
        retriever._configure(k1, b, analysis)
        retriever.n_docs = len(documents)
        retriever._scratch = scratch_folder()
        folder = Path(retriever._scratch.name)
        write_index_of_term_ids(documents, terms, folder, k1=k1, b=b)
        retriever.postings = DiskIndex(folder)
        return retriever

    def _configure(self, k1: float, b: float, analysis: str) -> None:
        if k1 < 0 or not 0 <= b <= 1:
            raise SpecError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.analysis = analysis
        self._analyze = analyzer(analysis)
        # The plain analysis keeps the exact config (and so the cache key) the index always had.
        self.config: dict[str, Any] = {
            "kind": "bm25",
            "library": f"bm25s=={bm25s.__version__}",
            "method": "lucene",
            "k1": k1,
            "b": b,
            **describe(analysis),
        }
        self.fingerprint = fingerprint_of(self.config)
        self.loaded_from_cache = False
        self._last = LastCall()
        self._scratch: Any = None
        self._bm25s: bm25s.BM25 | None = None

    def _load_or_build(
        self,
        titles: Sequence[str],
        texts: Sequence[str],
        cache: RetrievalCache | None,
        corpus_fp: str | None,
        show_progress: bool,
        analysed: Callable[[], tuple[Iterable[np.ndarray], Sequence[str]]] | None,
    ) -> DiskIndex:
        def build(folder: Path) -> None:
            if analysed is not None:
                write_index_of_term_ids(*analysed(), folder, k1=self.config["k1"], b=self.config["b"])
                return
            documents = (self._render(t, x) for t, x in zip(titles, texts))
            build_index(documents, folder, self.config["k1"], self.config["b"], show_progress, total=self.n_docs,
                        analysis=self.analysis)

        if cache is None:
            self._scratch = scratch_folder()
            folder = Path(self._scratch.name)
            build(folder)
            return DiskIndex(folder)
        corpus_fp = corpus_fp or corpus_fingerprint(titles, texts, self._render)
        found = cache.load_dir(corpus_fp, self.fingerprint, INDEX_ARTIFACT)
        if found is not None:
            index = _open(found)
            if index is not None and index.num_docs == self.n_docs:
                self.loaded_from_cache = True
                return index
            # Unreadable or inconsistent: drop it so the rebuilt index can take its place.
            shutil.rmtree(found, ignore_errors=True)
        return DiskIndex(cache.store_dir(corpus_fp, self.fingerprint, INDEX_ARTIFACT, build))

    def score_all(self, queries: Sequence[str]) -> np.ndarray:
        """``(len(queries), n_docs)`` float32 BM25 scores (bm25s's full score vector per query).

        A query with no indexed token scores every document 0.
        """
        remembered = self._last.get(queries)
        if remembered is not None:
            return remembered
        scores = np.zeros((len(queries), self.n_docs), dtype=np.float32)
        for row, tokens in enumerate(self._analyze(queries)):
            if tokens:
                scores[row] = self.postings.get_scores(tokens)
        return self._last.put(queries, scores)

    @property
    def index(self) -> bm25s.BM25:
        """The index as a bm25s object, memory-mapped (for callers that want bm25s's own ``retrieve``)."""
        if self._bm25s is None:
            self._bm25s = bm25s.BM25.load(str(self.postings.folder), mmap=True, load_vocab=True, show_progress=False)
        return self._bm25s


def _open(folder: Path) -> DiskIndex | None:
    """A cached index folder, or ``None`` if it is unreadable."""
    try:
        return DiskIndex(folder)
    except (OSError, ValueError, KeyError, TypeError):
        return None
