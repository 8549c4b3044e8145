"""Writing a release: a folder that ``datasets.load_dataset(folder, config)`` reads as it is.

Layout::

    README.md                                       the card, with configs: and dataset_info YAML
    manifest.json                                   version, build args, seed, tokenizer, hashes
    {config}/{split}-{i:05d}-of-{n:05d}.parquet     row shards, written as rows arrive

The release is written into a hidden temporary folder beside the target and swapped into place
only when complete (:func:`needlework.atomic.atomic_folder`), so an interrupted build leaves the
previous release (or nothing) at the target. Rows are buffered one row group at a time; memory does not grow with the row count.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Mapping

import pyarrow as pa
import pyarrow.parquet as pq

from builders.card import CardFacts, render_card
from builders.features import Features
from builders.hashing import ContentHash
from builders.options import reproducing_command
from needlework import __version__
from needlework.atomic import atomic_folder, recover_interrupted
from needlework.errors import ReleaseError
from needlework.releases import MANIFEST
from needlework.tokens import TokenCounter

CARD = "README.md"
ROW_GROUP_BYTES = 8 * 2**20
SHARD_BYTES = 256 * 2**20


class _HidePandas(importlib.abc.MetaPathFinder):
    """An import hook under which ``import pandas`` fails as if pandas were not installed."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.partition(".")[0] == "pandas":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


def skip_pyarrow_pandas_probe() -> None:
    """Spare this process the pandas import that pyarrow's first conversion of Python values makes.

    On its first ``pa.array`` of Python values pyarrow imports pandas (when installed) to ask whether
    they are pandas objects: ~0.25 s of CPU, a fifth of a small NeedleBench build, for a question
    whose answer is no (a release's rows are plain values converted to declared types). This asks
    the question once with pandas hidden; pyarrow remembers "no pandas" for that check, and still
    imports pandas when a later call needs it (``to_pandas``), as tests/builders/test_release.py
    checks. Only the ``needlework build`` process calls it: in a library caller's process pyarrow
    must keep recognising the caller's pandas objects. Nothing to do when pandas is already loaded.
    """
    if "pandas" in sys.modules:
        return
    hide = _HidePandas()
    sys.meta_path.insert(0, hide)
    try:
        pa.array([], pa.string())
    finally:
        sys.meta_path.remove(hide)


def shard_name(split: str, index: int, total: int) -> str:
    """File name of shard ``index`` (0-based) of ``total`` for a split."""
    return f"{split}-{index:05d}-of-{total:05d}.parquet"


@dataclass
class _SplitWriter:
    """Streams the rows of one config split into size-bounded Parquet shards."""

    folder: Path
    split: str
    schema: pa.Schema
    row_group_bytes: int
    shard_bytes: int
    digest: ContentHash = field(default_factory=ContentHash)
    _buffer: list[dict] = field(default_factory=list)
    _buffer_bytes: int = 0
    _writer: pq.ParquetWriter | None = None
    _shard_bytes_written: int = 0
    _parts: list[Path] = field(default_factory=list)
    num_bytes: int = 0

    def add(self, row: Mapping[str, Any]) -> None:
        self._buffer.append(dict(row))
        self._buffer_bytes += sum(len(v) for v in row.values() if isinstance(v, str))
        if self._buffer_bytes >= self.row_group_bytes:
            self._flush()

    def _flush(self) -> None:
        if not self._buffer:
            return
        try:
            table = pa.Table.from_pylist(self._buffer, schema=self.schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError, KeyError) as err:
            raise ReleaseError(f"{self.folder.name}/{self.split}: a row does not match the declared features: {err}") from err
        self.digest.update_rows(table.to_pylist())
        if self._writer is None:
            part = self.folder / f"{self.split}-{len(self._parts):05d}.parquet.part"
            self._parts.append(part)
            self._writer = pq.ParquetWriter(part, self.schema, compression="zstd")
            self._shard_bytes_written = 0
        self._writer.write_table(table)
        self.num_bytes += table.nbytes
        self._shard_bytes_written += table.nbytes
        self._buffer, self._buffer_bytes = [], 0
        if self._shard_bytes_written >= self.shard_bytes:
            self._writer.close()
            self._writer = None

    def close(self) -> list[str]:
        """Flush, close and give shards their final names; returns them relative to the release."""
        self._flush()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if not self._parts:
            part = self.folder / f"{self.split}-00000.parquet.part"
            pq.write_table(self.schema.empty_table(), part, compression="zstd")
            self._parts.append(part)
        names = []
        for i, part in enumerate(self._parts):
            final = self.folder / shard_name(self.split, i, len(self._parts))
            part.rename(final)
            names.append(f"{self.folder.name}/{final.name}")
        return names


class ReleaseWriter:
    """Context manager that builds a release folder atomically.

    Example::

        with ReleaseWriter(out, facts) as release:
            release.declare("mk_niah_basic", features)
            for row in rows:
                release.write("mk_niah_basic", "test", row)

    On a clean exit the manifest and card are written and the folder is swapped into place; on an
    exception (or ``KeyboardInterrupt``) the temporary folder is removed and the target is left
    untouched.
    """

    def __init__(
        self,
        out: Path,
        facts: CardFacts,
        manifest: Mapping[str, Any],
        *,
        row_group_bytes: int = ROW_GROUP_BYTES,
        shard_bytes: int = SHARD_BYTES,
    ) -> None:
        self.out = Path(out)
        self.facts = facts
        self.manifest = dict(manifest)
        self._row_group_bytes = row_group_bytes
        self._shard_bytes = shard_bytes
        # Extra $name substitutions for the card body, e.g. statistics measured while writing.
        self.card_fields: dict[str, str] = {}
        self._features: dict[str, Features] = {}
        self._splits: dict[tuple[str, str], _SplitWriter] = {}
        self._tmp: Path | None = None
        self._folder = contextlib.ExitStack()

    def __enter__(self) -> "ReleaseWriter":
        recover_interrupted(self.out)
        check_replaceable(self.out)
        self._tmp = self._folder.enter_context(atomic_folder(self.out))
        return self

    def declare(self, config: str, features: Features) -> None:
        """Declare a config and its columns (:class:`builders.features.Features`) before writing its
        rows; the Parquet schema and the card's ``dataset_info`` come from them."""
        if config in self._features:
            raise ReleaseError(f"config {config!r} declared twice")
        self._features[config] = features

    def write(self, config: str, split: str, row: Mapping[str, Any]) -> None:
        """Append one row to a config split."""
        self._split(config, split).add(row)

    def open_split(self, config: str, split: str) -> None:
        """Make sure a config split exists, even if no row is ever written to it (an empty table)."""
        self._split(config, split)

    def _split(self, config: str, split: str) -> "_SplitWriter":
        if self._tmp is None:
            raise ReleaseError("ReleaseWriter.write called outside its with-block")
        if config not in self._features:
            raise ReleaseError(f"config {config!r} was not declared; declared: {', '.join(sorted(self._features))}")
        key = (config, split)
        if key not in self._splits:
            folder = self._tmp / config
            folder.mkdir(exist_ok=True)
            self._splits[key] = _SplitWriter(
                folder, split, self._features[config].arrow_schema, self._row_group_bytes, self._shard_bytes
            )
        return self._splits[key]

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._tmp is not None
        if exc_type is not None:  # the folder is dropped and the exception goes on
            self._folder.__exit__(exc_type, exc, tb)
            return
        with self._folder:
            self._finish(self._tmp)

    def _finish(self, tmp: Path) -> None:
        configs: dict[str, dict] = {}
        for config in sorted(self._features):
            splits = {}
            for (c, split), writer in sorted(self._splits.items()):
                if c != config:
                    continue
                files = writer.close()
                splits[split] = {
                    "rows": writer.digest.rows,
                    "num_bytes": writer.num_bytes,
                    "content_sha256": writer.digest.hexdigest(),
                    "files": files,
                }
            if not splits:
                raise ReleaseError(f"config {config!r} was declared but no rows were written")
            configs[config] = {"splits": splits}
        manifest = {"needlework_version": __version__, **self.manifest, "configs": configs}
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        (tmp / CARD).write_text(render_card(self.facts, manifest, self._features, self.card_fields), encoding="utf-8")


def base_manifest(benchmark: str, spec: Any, tokens: TokenCounter, inputs: Mapping[str, str]) -> dict[str, Any]:
    """The manifest fields every build records: version, benchmark, the command that rebuilds the
    spec and its arguments, seed, tokenizer name and fingerprint, input fingerprints.

    ``spec`` is a build spec (:mod:`builders.options`) with a ``seed``; ``tokens`` the counter used.
    """
    return {
        "needlework_version": __version__,
        "benchmark": benchmark,
        "build": {"command": reproducing_command(benchmark, spec), "args": asdict(spec)},
        "seed": spec.seed,
        "tokenizer": {"name": tokens.name, "fingerprint": tokens.fingerprint},
        "inputs": dict(inputs),
    }


def is_release(folder: Path) -> bool:
    """Whether ``folder`` holds a needlework release (a manifest that needlework wrote)."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(manifest, dict) and {"needlework_version", "benchmark", "configs"} <= manifest.keys()


def check_replaceable(out: Path) -> None:
    """Refuse to replace ``out`` unless it is absent, an empty folder or a needlework release.

    Raises:
        ReleaseError: ``out`` holds something else.
    """
    if out.exists() and not (out.is_dir() and (is_release(out) or not any(out.iterdir()))):
        raise ReleaseError(f"{out} exists and is not a needlework release; refusing to replace it")
