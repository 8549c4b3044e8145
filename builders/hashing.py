"""Content hashes of rows, stable across pyarrow versions and Parquet encodings.

Parquet bytes embed the writer's version, so manifests hash row *values*: each row as canonical
JSON (sorted keys, no whitespace), length-prefixed, fed to sha256 in row order.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from needlework.errors import ReleaseError


class ContentHash:
    """Incremental sha256 over canonical row values."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256()
        self.rows = 0

    def update_rows(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Feed rows (as read back from Arrow, so values have their stored types)."""
        for row in rows:
            data = json.dumps(row, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            self._sha.update(len(data).to_bytes(8, "big"))
            self._sha.update(data)
            self.rows += 1

    def hexdigest(self) -> str:
        """The hash so far, as hex."""
        return self._sha.hexdigest()


def hash_parquet_files(paths: Sequence[Path], batch_rows: int = 64) -> ContentHash:
    """Recompute the content hash of shards, reading a few rows at a time.

    Raises:
        ReleaseError: A shard is not readable Parquet (the message names it).
    """
    digest = ContentHash()
    for path in paths:
        try:
            for batch in pq.ParquetFile(path).iter_batches(batch_size=batch_rows):
                digest.update_rows(batch.to_pylist())
        except (pa.ArrowException, OSError) as err:
            raise ReleaseError(f"{path}: not readable Parquet ({err})") from err
    return digest


def file_sha256(path: Path) -> str:
    """sha256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def folder_sha256(folder: Path) -> str:
    """sha256 over every file of a folder: sorted relative paths and their contents' hashes."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(folder).as_posix()}\0{file_sha256(path)}\n".encode("utf-8"))
    return digest.hexdigest()
