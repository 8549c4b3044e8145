"""Where a run's sample rows come from: a release config's rows, or rows a benchmark composes.

Most benchmarks publish one row per question, so a sample row is a release row
(:data:`RELEASE_ROWS`). A benchmark whose question meets its context only at evaluation time
declares its own :class:`RowSource` (EverMemBench-S joins each query with the serialized corpus of
a ladder scale, or with a retriever's top documents): the harness, the judge, ``count`` and the
row selection all read rows through it, so a composed row is asked, counted, judged and selected
exactly like a published one.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any, Protocol

import pyarrow.compute as pc
import pyarrow.parquet as pq

from eval.release import Release
from eval.task import TaskOptions

Where = Mapping[str, Collection[Any]]
"""Column -> the values a row must hold in it (a row selection)."""


class RowSource(Protocol):
    """The sample rows of a release's configs."""

    def rows(self, release: Release, config: str, split: str, limit: int | None, where: Where | None,
             options: TaskOptions) -> Iterator[dict[str, Any]]:
        """The rows of one config and split, in a fixed order, filtered by ``where``; the first ``limit``."""
        ...

    def values(self, release: Release, config: str, split: str, column: str) -> set[Any] | None:
        """The values ``column`` takes in the config's rows; None when its rows have no such column."""
        ...


class ReleaseRows:
    """The rows as the release publishes them."""

    def rows(self, release: Release, config: str, split: str, limit: int | None, where: Where | None,
             options: TaskOptions) -> Iterator[dict[str, Any]]:
        """The split's rows in file order (:meth:`eval.release.Release.iter_rows`)."""
        return release.iter_rows(config, split, limit, where)

    def values(self, release: Release, config: str, split: str, column: str) -> set[Any] | None:
        """The distinct values of a published column, read from the Parquet shards."""
        return column_values(release, config, split, column)


def column_values(release: Release, config: str, split: str, column: str) -> set[Any] | None:
    """The distinct values of ``column`` in a config's shards; None when the config has no such column."""
    files = [release.fetch(f) for f in release.split_info(config, split)["files"]]
    if not files or column not in pq.read_schema(files[0]).names:
        return None
    present: set[Any] = set()
    for path in files:
        present.update(pc.unique(pq.read_table(path, columns=[column])[column]).to_pylist())
    return present


RELEASE_ROWS = ReleaseRows()
"""The default source: one sample row per published row."""
