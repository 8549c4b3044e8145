"""An on-disk cache for retrieval artifacts: BM25 indexes, document embeddings, rankings.

An entry is named by the sha256 of the canonical JSON of ``(corpus fingerprint, retriever
fingerprint, what)``, so a second build over the same corpus with the same model and settings finds
it, and any change to either makes a new entry instead of reusing a stale one. Entries are written
to a temporary name in the same folder and renamed into place only when complete, so an
interrupted build never leaves a half-written entry that a later build would trust.

Layout: ``{root}/retrieval/{key[:2]}/{key}.npy`` (arrays), ``.../{key}/`` (folders such as a bm25s
index) and ``.../{key}.json`` (what the key was made of, for people inspecting the cache).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from builders.retrieval.base import DocumentRenderer
from needlework.atomic import atomic_folder, atomic_path, atomic_write

CACHE_VARIABLE = "NEEDLEWORK_CACHE"
"""Environment variable naming the cache folder (default ``~/.cache/needlework``)."""


def default_cache_dir() -> Path:
    """The cache folder: ``$NEEDLEWORK_CACHE`` if set, else ``~/.cache/needlework``."""
    configured = os.environ.get(CACHE_VARIABLE)
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "needlework"


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, so equal values always give equal text (and hashes)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def fingerprint_of(config: Any) -> str:
    """sha256 hex of a configuration's canonical JSON: what identifies a retriever's settings."""
    return hashlib.sha256(canonical_json(config).encode("utf-8")).hexdigest()


def cache_key(corpus_fp: str, retriever_fp: str, what: str) -> str:
    """The entry name for an artifact ``what`` of a retriever over a corpus (sha256 hex)."""
    return fingerprint_of({"corpus": corpus_fp, "retriever": retriever_fp, "what": what})


def corpus_fingerprint(titles: Iterable[str], texts: Iterable[str], render: DocumentRenderer) -> str:
    """sha256 over the rendered documents in corpus order, streamed one document at a time.

    Each document is ``render(title, text)`` (what the retrievers index) as UTF-8, preceded by its
    byte length (8 bytes, big-endian) so that no two different corpora can produce the same byte
    stream. A different renderer gives a different fingerprint, so no artifact is reused across them.
    """
    digest = hashlib.sha256()
    for title, text in zip(titles, texts, strict=True):
        data = render(title, text).encode("utf-8")
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)
    return digest.hexdigest()


class RetrievalCache:
    """Arrays and folders keyed by (corpus fingerprint, retriever fingerprint, what).

    Args:
        root: The cache folder; ``None`` means :func:`default_cache_dir`.
    """

    def __init__(self, root: Path | str | None = None) -> None:
        self.root = Path(root).expanduser() if root is not None else default_cache_dir()

    def entry(self, corpus_fp: str, retriever_fp: str, what: str) -> Path:
        """The entry's path without suffix (``.npy`` for arrays; the folder itself for folders)."""
        key = cache_key(corpus_fp, retriever_fp, what)
        return self.root / "retrieval" / key[:2] / key

    def load_array(self, corpus_fp: str, retriever_fp: str, what: str, mmap: bool = False) -> np.ndarray | None:
        """The cached array, or ``None`` if absent or unreadable (then the caller rebuilds it).

        Args:
            mmap: Map the file read-only instead of reading it (large embedding matrices).
        """
        path = self.entry(corpus_fp, retriever_fp, what).with_suffix(".npy")
        if not path.is_file():
            return None
        try:
            return np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
        except (OSError, ValueError):
            return None

    def store_array(self, corpus_fp: str, retriever_fp: str, what: str, array: np.ndarray) -> Path:
        """Write an array atomically; returns its path."""
        with self.array_writer(corpus_fp, retriever_fp, what, array.shape, array.dtype) as out:
            out[...] = array
        return self.entry(corpus_fp, retriever_fp, what).with_suffix(".npy")

    @contextlib.contextmanager
    def array_writer(
        self, corpus_fp: str, retriever_fp: str, what: str, shape: tuple[int, ...], dtype: np.dtype | str
    ) -> Iterator[np.ndarray]:
        """A writable memory-mapped ``.npy`` to fill in place; renamed into the cache on success.

        Lets a caller stream a matrix larger than memory (embeddings of millions of documents)
        batch by batch. If the block raises, the temporary file is removed and nothing is cached.
        """
        final = self.entry(corpus_fp, retriever_fp, what).with_suffix(".npy")
        with atomic_path(final) as tmp:
            out = np.lib.format.open_memmap(tmp, mode="w+", dtype=np.dtype(dtype), shape=tuple(shape))
            yield out
            out.flush()
            del out
        self._write_meta(final.with_suffix(".json"), corpus_fp, retriever_fp, what)

    def load_dir(self, corpus_fp: str, retriever_fp: str, what: str) -> Path | None:
        """The cached folder, or ``None`` if absent."""
        path = self.entry(corpus_fp, retriever_fp, what)
        return path if path.is_dir() else None

    def store_dir(self, corpus_fp: str, retriever_fp: str, what: str, build: Callable[[Path], None]) -> Path:
        """Build a folder with ``build(tmp_folder)`` and rename it into place; returns its path.

        If another process stored the same entry meanwhile, its folder is kept and ours dropped
        (both were built from the same inputs).
        """
        final = self.entry(corpus_fp, retriever_fp, what)
        with atomic_folder(final, existing="keep") as tmp:
            build(tmp)
        self._write_meta(final.with_suffix(".json"), corpus_fp, retriever_fp, what)
        return final

    @staticmethod
    def _write_meta(path: Path, corpus_fp: str, retriever_fp: str, what: str) -> None:
        atomic_write(path, canonical_json({"corpus": corpus_fp, "retriever": retriever_fp, "what": what}) + "\n")
