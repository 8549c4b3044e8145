"""Sparse retrieval: BM25 over the rendered corpus with bm25s.

Tokenization is bm25s's own: lower-cased, the regex ``(?u)\\b\\w\\w+\\b`` (scikit-learn's
CountVectorizer pattern), bm25s's English stopword list, and no stemming (bm25s's default; a
stemmer would need PyStemmer, which is not a dependency). Scoring is bm25s's ``"lucene"`` variant,
idf = ln(1 + (N - df + 0.5) / (df + 0.5)) and tf part = tf / (tf + k1 (1 - b + b |d| / avgdl)),
with Pyserini's default k1 = 0.9, b = 0.4, since the paper's BM25 ran on Pyserini's Lucene index.

Every corpus row is indexed as ``render(title, text)``, the renderer the caller passes. The index is bm25s's,
written and read in bounded memory by :mod:`builders.retrieval.bm25_index` (documents streamed, posting lists read
per query), in the retrieval cache, keyed by corpus and settings, so a second build loads it, or in a temporary
folder when there is no cache.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from builders.retrieval.base import DocumentRenderer, LastCall, check_corpus
from builders.retrieval.bm25_index import DiskIndex, scratch_folder, write_index
from builders.retrieval.cache import RetrievalCache, corpus_fingerprint, fingerprint_of
from needlework.errors import SpecError

STOPWORDS = "en"
"""bm25s's English stopword list."""
INDEX_ARTIFACT = "bm25s-index"


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """bm25s's tokenization of texts as the index uses it (lower case, English stopwords, no stemming)."""
    return bm25s.tokenize(list(texts), lower=True, stopwords=STOPWORDS, return_ids=False, show_progress=False)


def build_index(documents: Iterable[str], folder: Path, k1: float, b: float, show_progress: bool = False,
                total: int | None = None) -> None:
    """Write the bm25s index of rendered documents (position == doc id) into ``folder``, streaming them."""
    write_index(documents, folder, k1=k1, b=b, stopwords=STOPWORDS, show_progress=show_progress, total=total)


class BM25Retriever:
    """BM25 scores of every corpus document for a query.

    Args:
        titles: Corpus titles in doc-id order.
        texts: Corpus texts, aligned with ``titles``.
        render: How a (title, text) row becomes the indexed text.
        k1: BM25 term-frequency saturation.
        b: BM25 length normalization.
        cache: Where to keep the index; ``None`` builds it in memory every time.
        corpus_fp: The corpus fingerprint if the caller already has it (saves one pass).
        show_progress: Show bm25s's progress bars while indexing.
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
        cache: RetrievalCache | None = None,
        corpus_fp: str | None = None,
        show_progress: bool = False,
    ) -> None:
        check_corpus(titles, texts)
        if k1 < 0 or not 0 <= b <= 1:
            raise SpecError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.config: dict[str, Any] = {
            "kind": "bm25",
            "library": f"bm25s=={bm25s.__version__}",
            "method": "lucene",
            "k1": k1,
            "b": b,
            "lower": True,
            "stopwords": STOPWORDS,
            "stemmer": None,
        }
        self.fingerprint = fingerprint_of(self.config)
        self.n_docs = len(titles)
        self.loaded_from_cache = False
        self._last = LastCall()
        self._render = render
        self._scratch: Any = None
        self.postings = self._load_or_build(titles, texts, cache, corpus_fp, show_progress)
        self._bm25s: bm25s.BM25 | None = None

    def _load_or_build(
        self,
        titles: Sequence[str],
        texts: Sequence[str],
        cache: RetrievalCache | None,
        corpus_fp: str | None,
        show_progress: bool,
    ) -> DiskIndex:
        def build(folder: Path) -> None:
            documents = (self._render(t, x) for t, x in zip(titles, texts))
            build_index(documents, folder, self.config["k1"], self.config["b"], show_progress, total=self.n_docs)

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
        for row, tokens in enumerate(tokenize(queries)):
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
