"""Sparse retrieval: BM25 over the rendered corpus with bm25s.

Tokenization is bm25s's own: lower-cased, the regex ``(?u)\\b\\w\\w+\\b`` (scikit-learn's
CountVectorizer pattern), bm25s's English stopword list, and no stemming (bm25s's default; a
stemmer would need PyStemmer, which is not a dependency). Scoring is bm25s's ``"lucene"`` variant,
idf = ln(1 + (N - df + 0.5) / (df + 0.5)) and tf part = tf / (tf + k1 (1 - b + b |d| / avgdl)),
with Pyserini's default k1 = 0.9, b = 0.4, since the paper's BM25 ran on Pyserini's Lucene index.

Every corpus row is indexed as ``render(title, text)``, the renderer the caller passes. The index is saved in the
retrieval cache, keyed by corpus and settings, so a second build loads it.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
from tqdm.auto import tqdm

from builders.retrieval.base import DocumentRenderer, LastCall, check_corpus
from builders.retrieval.cache import RetrievalCache, corpus_fingerprint, fingerprint_of
from needlework.errors import SpecError

STOPWORDS = "en"
"""bm25s's English stopword list."""
INDEX_ARTIFACT = "bm25s-index"


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """bm25s's tokenization of texts as the index uses it (lower case, English stopwords, no stemming)."""
    return bm25s.tokenize(list(texts), lower=True, stopwords=STOPWORDS, return_ids=False, show_progress=False)


def build_index(documents: Sequence[str], k1: float, b: float, show_progress: bool = False) -> bm25s.BM25:
    """A bm25s index over rendered documents (position in ``documents`` == doc id)."""
    corpus_tokens = bm25s.tokenize(
        list(documents), lower=True, stopwords=STOPWORDS, return_ids=True, show_progress=show_progress
    )
    index = bm25s.BM25(k1=k1, b=b, method="lucene")
    index.index(corpus_tokens, show_progress=show_progress)
    return index


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
        self._index = self._load_or_build(titles, texts, cache, corpus_fp, show_progress)

    def _load_or_build(
        self,
        titles: Sequence[str],
        texts: Sequence[str],
        cache: RetrievalCache | None,
        corpus_fp: str | None,
        show_progress: bool,
    ) -> bm25s.BM25:
        def build() -> bm25s.BM25:
            rendered = [self._render(t, x) for t, x in tqdm(
                zip(titles, texts), total=len(titles), desc="render for BM25", unit="doc", disable=not show_progress
            )]
            return build_index(rendered, self.config["k1"], self.config["b"], show_progress)

        if cache is None:
            return build()
        corpus_fp = corpus_fp or corpus_fingerprint(titles, texts, self._render)
        found = cache.load_dir(corpus_fp, self.fingerprint, INDEX_ARTIFACT)
        if found is not None:
            try:
                index = _load(found)
            except (OSError, ValueError, KeyError):
                index = None
            if index is not None and index.scores["num_docs"] == self.n_docs:
                self.loaded_from_cache = True
                return index
            # Unreadable or inconsistent: drop it so the rebuilt index can take its place.
            shutil.rmtree(found, ignore_errors=True)
        index = build()
        cache.store_dir(corpus_fp, self.fingerprint, INDEX_ARTIFACT, lambda folder: index.save(folder, show_progress=False))
        return index

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
                scores[row] = self._index.get_scores(tokens)
        return self._last.put(queries, scores)

    @property
    def index(self) -> bm25s.BM25:
        """The underlying bm25s index (for callers that want bm25s's own ``retrieve``)."""
        return self._index


def _load(folder: Path) -> bm25s.BM25:
    return bm25s.BM25.load(str(folder), mmap=False, load_vocab=True, show_progress=False)
