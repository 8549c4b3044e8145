"""A BM25 index written and read in bounded memory, in bm25s's own on-disk layout.

bm25s builds its index in memory from the whole tokenized corpus (about eight times the finished
index at its peak) and scores from arrays held in memory. A MemoryBank of hundreds of millions of
tokens needs neither: :func:`write_index` streams documents in batches and keeps only
vocabulary-sized arrays and one batch in memory, spilling (doc, term, tf) entries to a scratch file
and sorting them into term order one term range at a time; :class:`DiskIndex` reads only the
posting lists of a query's terms, with ``pread``, so nothing of the index stays resident.

The result is bm25s's index, value for value (``tests/builders/test_retrieval.py`` compares the
arrays with ``bm25s.BM25.index`` and the scores with ``get_scores``): the caller's analysis (bm25s's tokenizer by default), its vocabulary
order (first appearance, then the empty token), its Lucene idf ``ln(1 + (N - df + 0.5) / (df + 0.5))``
and tf part ``tf / (k1 ((1 - b) + b |d| / avgdl) + tf)`` in the same floating-point order, its
``data``/``indices``/``indptr`` CSC arrays (documents ascending within a term), and its
``params.index.json``, so ``bm25s.BM25.load`` opens the folder too.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import bm25s
import numpy as np
from tqdm.autonotebook import tqdm

from builders.engine import batched
from builders.retrieval.analysis import Analyzer, plain_analyze
from needlework.errors import SpecError

DATA, INDICES, INDPTR = "data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy"
VOCAB, PARAMS = "vocab.index.json", "params.index.json"
"""File names of bm25s's ``save`` layout."""
METHOD = "lucene"
DTYPE, INT_DTYPE = np.dtype("float32"), np.dtype("int32")
BATCH_DOCS = 2048
"""Documents tokenized and counted at a time."""
RANGE_ENTRIES = 2_000_000
"""Most (doc, term) entries sorted in memory at once (a few tens of MB of working arrays)."""
_ENTRY = np.dtype([("doc", "<i4"), ("term", "<i4"), ("tf", "<i4")])


def write_index(documents: Iterable[str], folder: Path, *, k1: float, b: float, analyze: Analyzer = plain_analyze,
                batch_docs: int = BATCH_DOCS, range_entries: int = RANGE_ENTRIES, show_progress: bool = False,
                total: int | None = None) -> int:
    """Index ``documents`` (position == doc id) with Lucene BM25 into ``folder``; returns the number of documents.

    ``analyze`` turns a batch of texts into token lists (:mod:`builders.retrieval.analysis`; bm25s's own
    tokenization by default). Memory holds one batch of documents, the vocabulary and per-document lengths; the
    (doc, term, tf) entries go to a scratch file in ``folder`` that is removed at the end.
    """
    vocab: dict[str, int] = {}

    def term_ids(batch: list[str]) -> tuple[np.ndarray, np.ndarray]:
        tokens = analyze(batch)
        n_tokens = np.fromiter((len(doc) for doc in tokens), dtype=np.int64, count=len(tokens))
        ids = np.fromiter((vocab.setdefault(t, len(vocab)) for doc in tokens for t in doc), dtype=np.int64,
                          count=int(n_tokens.sum()))
        return n_tokens, ids

    documents = tqdm(documents, total=total, desc="index BM25", unit="doc", disable=not show_progress)
    return _write(map(term_ids, batched(documents, batch_docs)), vocab, folder, k1=k1, b=b, range_entries=range_entries)


def write_index_of_term_ids(documents: Iterable[np.ndarray], terms: Sequence[str], folder: Path, *, k1: float, b: float,
                            batch_docs: int = BATCH_DOCS, range_entries: int = RANGE_ENTRIES) -> int:
    """:func:`write_index` of documents already analysed: each an array of ids into ``terms``, in token order.

    The index is the one :func:`write_index` writes from the documents' texts, value for value (its vocabulary
    too: terms in order of first appearance), without analysing the texts again; the EMB-S ladder indexes
    many nested corpora of one bank, whose documents it analyses once. ``terms`` may grow while ``documents``
    are read (a bank analysing its documents as they are indexed): it must name every id of a document by the
    time that document is read.
    """
    position = np.zeros(0, dtype=np.int64)  # a term's id in this index, -1 before it appears
    vocab: dict[str, int] = {}

    def term_ids(batch: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
        nonlocal position
        if len(position) < len(terms):
            position = np.concatenate([position, np.full(len(terms) - len(position), -1, dtype=np.int64)])
        n_tokens = np.fromiter(map(len, batch), dtype=np.int64, count=len(batch))
        ids = np.concatenate(batch).astype(np.int64, copy=False) if batch else np.zeros(0, dtype=np.int64)
        seen, first = np.unique(ids, return_index=True)
        new = position[seen] < 0
        arrivals = seen[new][np.argsort(first[new], kind="stable")]
        known = len(vocab)
        position[arrivals] = np.arange(known, known + len(arrivals))
        vocab.update((terms[t], known + i) for i, t in enumerate(arrivals.tolist()))
        return n_tokens, position[ids]

    return _write(map(term_ids, batched(documents, batch_docs)), vocab, folder, k1=k1, b=b, range_entries=range_entries)


def _write(batches: Iterable[tuple[np.ndarray, np.ndarray]], vocab: dict[str, int], folder: Path, *, k1: float,
           b: float, range_entries: int) -> int:
    """The index of documents given a batch at a time as (tokens per document, their term ids, concatenated).

    ``vocab`` (term -> id) is complete once the batches are consumed. Returns the number of documents.
    """
    folder.mkdir(parents=True, exist_ok=True)
    df = np.zeros(0, dtype=np.int64)
    lengths: list[np.ndarray] = []
    scratch = folder / "entries.scratch"
    n_docs = 0
    with open(scratch, "wb") as spill:
        for n_tokens, ids in batches:
            df = _count_batch(n_tokens, ids, n_docs, len(vocab), df, lengths, spill)
            n_docs += len(n_tokens)
    if n_docs == 0:
        scratch.unlink()
        raise SpecError("the corpus is empty")
    doc_len = np.concatenate(lengths)
    avg_doc_len = np.float64(int(doc_len.sum(dtype=np.int64)) / n_docs)  # == np.mean, as bm25s computes it
    indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    idf = _idf(df, n_docs)
    _sort_into_terms(scratch, folder, indptr, idf, doc_len, avg_doc_len, k1, b, range_entries)
    scratch.unlink()
    np.save(folder / INDPTR, indptr)
    vocab[""] = len(vocab)  # bm25s appends the empty token after the corpus's tokens
    _write_json(folder / VOCAB, vocab)
    model = bm25s.BM25(k1=k1, b=b, method=METHOD, backend="numpy")
    _write_json(folder / PARAMS, {"k1": k1, "b": b, "delta": model.delta, "method": METHOD, "idf_method": model.idf_method,
                                  "dtype": str(DTYPE), "int_dtype": str(INT_DTYPE), "num_docs": n_docs,
                                  "version": bm25s.__version__, "backend": "numpy"})
    return n_docs


def _count_batch(n_tokens: np.ndarray, ids: np.ndarray, first_doc: int, n_vocab: int, df: np.ndarray,
                 lengths: list[np.ndarray], spill: BinaryIO) -> np.ndarray:
    """Append a batch's (doc, term, tf) entries to ``spill``; returns the grown document frequencies."""
    docs = np.repeat(np.arange(first_doc, first_doc + len(n_tokens), dtype=np.int64), n_tokens)
    keys, tf = np.unique((docs << 32) | ids, return_counts=True)  # sorted by doc, then term
    entries = np.empty(len(keys), dtype=_ENTRY)
    entries["doc"], entries["term"], entries["tf"] = keys >> 32, keys & 0xFFFFFFFF, tf
    spill.write(entries.tobytes())
    lengths.append(n_tokens.astype(np.int32))
    grown = np.zeros(n_vocab, dtype=np.int64)
    grown[:len(df)] = df
    grown += np.bincount(entries["term"], minlength=n_vocab)
    return grown


def _idf(df: np.ndarray, n_docs: int) -> np.ndarray:
    """Lucene idf per term, computed as bm25s does (Python floats, stored as float32)."""
    values, inverse = np.unique(df, return_inverse=True)
    per_value = np.array([math.log(1 + (n_docs - int(d) + 0.5) / (int(d) + 0.5)) for d in values.tolist()], dtype=DTYPE)
    return per_value[inverse.reshape(-1)]


def _sort_into_terms(scratch: Path, folder: Path, indptr: np.ndarray, idf: np.ndarray, doc_len: np.ndarray,
                     avg_doc_len: np.float64, k1: float, b: float, range_entries: int) -> None:
    """Write ``data`` and ``indices`` in term order, one term range of at most ``range_entries`` entries at a time.

    A first pass scatters the scratch entries into one file per range (in document order); each range
    file is then sorted by term (stable, so documents stay ascending) and appended to the outputs.
    """
    nnz = int(indptr[-1])
    bounds = _term_ranges(indptr, range_entries)
    parts = [folder / f"range-{i:05d}.scratch" for i in range(len(bounds) - 1)]
    starts = np.asarray(bounds[:-1], dtype=np.int64)
    files = [open(p, "wb") for p in parts]  # noqa: SIM115 (closed below, one per range)
    try:
        with open(scratch, "rb") as source:
            while chunk := source.read(range_entries * _ENTRY.itemsize):
                entries = np.frombuffer(chunk, dtype=_ENTRY)
                which = np.searchsorted(starts, entries["term"], side="right") - 1
                order = np.argsort(which, kind="stable")
                cuts = np.searchsorted(which[order], np.arange(len(parts) + 1))
                for i in np.flatnonzero(np.diff(cuts)).tolist():
                    files[i].write(entries[order[cuts[i]:cuts[i + 1]]].tobytes())
    finally:
        for f in files:
            f.close()
    with open(folder / DATA, "wb") as data, open(folder / INDICES, "wb") as indices:
        for f, dtype in ((data, DTYPE), (indices, INT_DTYPE)):
            np.lib.format.write_array_header_2_0(f, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False,
                                                    "shape": (nnz,)})
        for part in parts:
            entries = np.fromfile(part, dtype=_ENTRY)
            part.unlink()
            entries = entries[np.argsort(entries["term"], kind="stable")]
            l_d = doc_len[entries["doc"]]
            tf = entries["tf"].astype(DTYPE)
            tfc = tf / (k1 * ((1 - b) + b * l_d / avg_doc_len) + tf)  # bm25s's _score_tfc_robertson, elementwise
            data.write((idf[entries["term"]] * tfc).astype(DTYPE).tobytes())
            indices.write(entries["doc"].astype(INT_DTYPE).tobytes())


def _term_ranges(indptr: np.ndarray, range_entries: int) -> list[int]:
    """Term-id boundaries ``[0, ..., n_vocab]`` so that each range holds at most ``range_entries`` entries (or one term)."""
    bounds = [0]
    n_vocab = len(indptr) - 1
    while bounds[-1] < n_vocab:
        start = bounds[-1]
        stop = int(np.searchsorted(indptr, indptr[start] + range_entries, side="right")) - 1
        bounds.append(min(max(stop, start + 1), n_vocab))
    return bounds


def _write_json(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")


class PackedVocabulary:
    """A term -> id lookup in about 30 bytes a term, where a dict of strings takes about 130.

    A bank's vocabulary grows with it (about one new term a document on the synthetic world, 190K
    terms at 100M tokens), and the index is open while queries are scored. The terms' UTF-8 bytes
    are stored in one buffer, ordered by the term's ``hash``; a lookup binary-searches the hash and
    compares the bytes, so it is exact (the hash only has to be stable within this process).
    """

    key = staticmethod(hash)
    """The term's search key (any function of the term; equal keys are told apart by the bytes)."""

    def __init__(self, vocab: Mapping[str, int]) -> None:
        encoded = [term.encode("utf-8") for term in vocab]
        hashes = np.fromiter((self.key(term) for term in vocab), dtype=np.int64, count=len(encoded))
        order = np.argsort(hashes, kind="stable")
        self._hashes = hashes[order]
        self._ids = np.fromiter(vocab.values(), dtype=np.int64, count=len(encoded))[order]
        ordered = [encoded[i] for i in order.tolist()]
        self._ends = np.cumsum(np.fromiter(map(len, ordered), dtype=np.int64, count=len(ordered)))
        self._bytes = b"".join(ordered)

    def get(self, term: str) -> int | None:
        """The id of ``term``, or None if the vocabulary does not have it."""
        key, data = self.key(term), term.encode("utf-8")
        i = int(np.searchsorted(self._hashes, key))
        while i < len(self._hashes) and self._hashes[i] == key:
            start = int(self._ends[i - 1]) if i else 0
            if self._bytes[start:int(self._ends[i])] == data:
                return int(self._ids[i])
            i += 1
        return None

    def __len__(self) -> int:
        return len(self._hashes)


class DiskIndex:
    """Scores from an index folder, reading only the posting lists a query needs.

    ``get_scores`` sums, per query token in order, the token's BM25 contributions into a float32
    vector with ``np.add.at``, exactly as bm25s's ``get_scores`` does, so the scores are the same bits.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        params = json.loads((self.folder / PARAMS).read_text(encoding="utf-8"))
        self.num_docs: int = int(params["num_docs"])
        self.vocab = PackedVocabulary(json.loads((self.folder / VOCAB).read_text(encoding="utf-8")))
        self.indptr = np.load(self.folder / INDPTR)
        self._data = _NpyColumn(self.folder / DATA)
        self._indices = _NpyColumn(self.folder / INDICES)

    def token_ids(self, tokens: Sequence[str]) -> list[int]:
        """The vocabulary ids of the tokens the index has (others dropped, duplicates kept, as bm25s does)."""
        n_terms = len(self.indptr) - 1
        return [i for i in (self.vocab.get(t) for t in tokens) if i is not None and i < n_terms]

    def get_scores(self, tokens: Sequence[str]) -> np.ndarray:
        """``(num_docs,)`` float32 BM25 scores of one tokenized query."""
        scores = np.zeros(self.num_docs, dtype=DTYPE)
        for term in self.token_ids(tokens):
            start, stop = int(self.indptr[term]), int(self.indptr[term + 1])
            np.add.at(scores, self._indices.read(start, stop), self._data.read(start, stop))
        return scores

    def close(self) -> None:
        """Close the index files."""
        self._data.close()
        self._indices.close()


class _NpyColumn:
    """A one-dimensional ``.npy`` file read by ranges with ``pread`` (nothing mapped, nothing kept)."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as f:
            version = np.lib.format.read_magic(f)
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _, dtype = read_header(f)
            self.offset = f.tell()
        self.dtype = np.dtype(dtype)
        self.length = int(shape[0])
        self._fd = os.open(path, os.O_RDONLY)

    def read(self, start: int, stop: int) -> np.ndarray:
        """Elements ``[start, stop)``."""
        size = (stop - start) * self.dtype.itemsize
        data = os.pread(self._fd, size, self.offset + start * self.dtype.itemsize)
        if len(data) != size:
            raise OSError(f"short read from the BM25 index ({len(data)} of {size} bytes)")
        return np.frombuffer(data, dtype=self.dtype)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        self.close()


def scratch_folder(prefix: str = "needlework-bm25-") -> tempfile.TemporaryDirectory:
    """A temporary folder for an index nobody caches (removed when the object is collected)."""
    return tempfile.TemporaryDirectory(prefix=prefix)
