"""Open a published release, local folder or Hub dataset, and stream the rows of a split.

Eval reads only what a release publishes (``manifest.json`` and the Parquet shards it lists), so it
never needs the builders. A Hub revision is resolved to its commit sha once, and every file is
fetched at that sha, so one run never mixes two versions of a dataset.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection, Iterator, Mapping

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from needlework.errors import HubError, InputError, ReleaseError
from needlework.hub import hub_errors, hub_id_problem
from needlework.releases import MANIFEST, closest_release_folders, did_you_mean

ROW_BATCH = 64


@dataclass(frozen=True)
class Release:
    """A release pinned to one revision: its manifest and a way to fetch its files.

    Attributes:
        dataset: What the user passed (a folder path or ``owner/name`` on the Hub).
        identity: The name that goes into sample keys: ``hub:owner/name`` or ``file:<folder name>``,
            so a moved local folder still resumes its runs.
        revision: The Hub commit sha, or ``sha256:<manifest hash>`` for a local folder.
        manifest: The parsed ``manifest.json``.
        manifest_sha256: sha256 of the manifest's bytes.
    """

    dataset: str
    identity: str
    revision: str
    manifest: dict[str, Any]
    manifest_sha256: str
    fetch: Callable[[str], Path]

    @property
    def benchmark(self) -> str:
        """The benchmark the release was built for (``rulerv2``, ``needlebench``...)."""
        return str(self.manifest.get("benchmark", ""))

    def split_info(self, config: str, split: str) -> dict[str, Any]:
        """The manifest entry of one split; a clear error lists what exists otherwise."""
        configs = self.manifest.get("configs", {})
        if config not in configs:
            raise ReleaseError(
                f"{self.dataset}: no config {config!r}; configs: {', '.join(sorted(configs)) or 'none'}"
            )
        splits = configs[config].get("splits", {})
        if split not in splits:
            raise ReleaseError(
                f"{self.dataset}: config {config!r} has no split {split!r}; splits: {', '.join(sorted(splits))}"
            )
        return splits[split]

    def num_rows(self, config: str, split: str) -> int:
        """Row count of a split, from the manifest."""
        return int(self.split_info(config, split)["rows"])

    def iter_rows(self, config: str, split: str, limit: int | None = None,
                  where: Mapping[str, Collection[Any]] | None = None) -> Iterator[dict[str, Any]]:
        """Stream the rows of a split in release order, ``ROW_BATCH`` rows in memory at a time.

        With ``where`` (column -> values), only rows whose columns hold one of their values are
        yielded, filtered in Arrow before any row becomes a Python dict; ``limit`` keeps the first
        of those.
        """
        remaining = self.num_rows(config, split) if limit is None else limit
        for name in self.split_info(config, split)["files"]:
            path = self.fetch(name)
            try:
                batches = pq.ParquetFile(path).iter_batches(batch_size=ROW_BATCH)
                for batch in batches:
                    for row in _matching(batch, where).to_pylist():
                        if remaining <= 0:
                            return
                        remaining -= 1
                        yield row
            except (OSError, pa.ArrowException) as err:
                raise InputError(str(path), None, None, f"unreadable Parquet shard ({err})") from err


def _matching(batch: pa.RecordBatch, where: Mapping[str, Collection[Any]] | None) -> pa.RecordBatch:
    """The rows of ``batch`` whose columns hold one of ``where``'s values (all rows without it)."""
    if not where:
        return batch
    masks = [pc.is_in(batch.column(column), value_set=pa.array(list(values), type=batch.schema.field(column).type))
             for column, values in where.items()]
    mask = masks[0]
    for more in masks[1:]:
        mask = pc.and_(mask, more)
    return batch.filter(mask)


def open_release(dataset: str, revision: str | None = None) -> Release:
    """Open ``dataset``: an existing local release folder, else a Hub dataset id at ``revision``."""
    folder = Path(dataset)
    if folder.is_dir():
        if revision is not None:
            raise ReleaseError(f"{dataset}: --revision applies to Hub datasets, not local folders")
        return _open_local(folder, dataset)
    if folder.suffix or dataset.startswith((".", "/")) or hub_id_problem(dataset) is not None:
        raise ReleaseError(_with_guess(f"{dataset}: no such release folder, and not a Hub dataset id (owner/name)",
                                       folder))
    try:
        return _open_hub(dataset, revision)
    except (ReleaseError, HubError) as err:
        raise type(err)(_with_guess(str(err), folder)) from err


def _with_guess(message: str, folder: Path) -> str:
    """``message``, plus the closest sibling release when ``folder`` looks like a mistyped one."""
    guess = did_you_mean(closest_release_folders(folder))
    return f"{message}; {guess}" if guess else message


def _parse_manifest(path: Path) -> tuple[dict[str, Any], str]:
    if not path.is_file():
        raise ReleaseError(f"{path.parent}: no {MANIFEST}; not a needlework release")
    raw = path.read_bytes()
    try:
        manifest = json.loads(raw)
    except json.JSONDecodeError as err:
        raise InputError(str(path), None, None, f"not valid JSON ({err.msg} at line {err.lineno})") from err
    if not isinstance(manifest, dict) or not isinstance(manifest.get("configs"), dict):
        raise InputError(str(path), None, "configs", "missing; not a needlework manifest")
    return manifest, hashlib.sha256(raw).hexdigest()


def _open_local(folder: Path, dataset: str) -> Release:
    manifest, digest = _parse_manifest(folder / MANIFEST)
    root = folder.resolve()

    def fetch(name: str) -> Path:
        path = root / name
        if not path.is_file():
            raise ReleaseError(f"{path}: listed in {MANIFEST} but missing")
        return path

    return Release(dataset, f"file:{root.name}", f"sha256:{digest}", manifest, digest, fetch)


def _open_hub(repo_id: str, revision: str | None) -> Release:
    from huggingface_hub import HfApi, hf_hub_download

    with hub_errors(f"{repo_id}: no such release folder here, and the Hub dataset {repo_id}@{revision or 'main'} "
                    "cannot be read"):
        sha = HfApi().dataset_info(repo_id, revision=revision).sha
    if sha is None:
        raise ReleaseError(f"{repo_id}@{revision or 'main'}: the Hub returned no commit sha")

    def fetch(name: str) -> Path:
        with hub_errors(f"{repo_id}@{sha[:12]}: cannot download {name}"):
            return Path(hf_hub_download(repo_id, name, repo_type="dataset", revision=sha))

    manifest, digest = _parse_manifest(fetch(MANIFEST))
    return Release(repo_id, f"hub:{repo_id}", sha, manifest, digest, fetch)
