"""Select a run's rows by their length: ``--lengths``, ``--sizes`` and ``--buckets``.

A small model cannot read a release's long rows, and ``--limit`` takes the first rows in file order
(HaystackCraft's alternate sizes), so a run may keep only the rows whose length column holds one of
the given values. Each option reads the column its benchmarks use:

* ``--lengths``: ``target_tokens``, the token budget of a RULERv2 or NeedleBench row;
* ``--sizes``: ``size``, the haystack size of a HaystackCraft row;
* ``--buckets``: ``length_bucket``, the length bucket of a Sequential-NIAH row.

A selection does not enter the sample keys (it changes which rows are asked, not what is asked), so
a selected run resumes into, and is extended by, the run over every row.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Iterable, Mapping

import pyarrow.compute as pc
import pyarrow.parquet as pq

from eval.release import Release
from needlework.errors import SpecError

SELECTED_COLUMNS: Mapping[str, str] = {"lengths": "target_tokens", "sizes": "size", "buckets": "length_bucket"}
"""The column each selection option reads."""


@dataclass(frozen=True)
class RowSelection:
    """The values a row's length columns must hold to be run; an empty tuple selects every row."""

    lengths: tuple[int, ...] = ()
    sizes: tuple[int, ...] = ()
    buckets: tuple[str, ...] = ()

    @classmethod
    def from_record(cls, record: Mapping[str, Any] | None) -> "RowSelection":
        """The selection saved in a run file (``run.select``); None or missing selects every row."""
        record = record or {}
        return cls(**{f.name: tuple(record.get(f.name) or ()) for f in fields(cls)})

    def record(self) -> dict[str, list[Any]]:
        """The options given, for the run file: ``{"lengths": [4096]}``."""
        return {name: list(values) for name, values in self._given()}

    def describe(self) -> str:
        """The options as typed: ``--lengths 4096,8192 --buckets 4k-7k``."""
        return " ".join(f"--{name} {','.join(map(str, values))}" for name, values in self._given())

    def where(self) -> dict[str, frozenset[Any]]:
        """Column -> selected values, as :meth:`eval.release.Release.iter_rows` filters by them."""
        return {SELECTED_COLUMNS[name]: frozenset(values) for name, values in self._given()}

    def keeps(self, row: Mapping[str, Any]) -> bool:
        """Whether ``row`` holds a selected value in every selected column."""
        return all(row.get(column) in values for column, values in self.where().items())

    def check(self, release: Release, configs: Iterable[str], split: str) -> None:
        """Fail early, naming the option, when a config lacks its column or a value matches no row.

        Raises:
            SpecError: A selected config has no such column, or a value occurs in none of them.
        """
        for name, values in self._given():
            column = SELECTED_COLUMNS[name]
            present: set[Any] = set()
            for config in configs:
                files = [release.fetch(f) for f in release.split_info(config, split)["files"]]
                if not files or column not in pq.read_schema(files[0]).names:
                    raise SpecError(f"--{name}: {release.dataset} config {config!r} has no {column} column; "
                                    f"rows are selected by {_options_for(release, config, split)}")
                for path in files:
                    present.update(pc.unique(pq.read_table(path, columns=[column])[column]).to_pylist())
            missing = [v for v in values if v not in present]
            if missing:
                known = ", ".join(map(str, sorted(v for v in present if v is not None))) or "none"
                raise SpecError(f"--{name} {','.join(map(str, missing))}: no {split} row of "
                                f"{', '.join(configs)} has that {column}; present: {known}")

    def _given(self) -> list[tuple[str, tuple[Any, ...]]]:
        return [(f.name, getattr(self, f.name)) for f in fields(self) if getattr(self, f.name)]


def _options_for(release: Release, config: str, split: str) -> str:
    files = release.split_info(config, split)["files"]
    names = set(pq.read_schema(release.fetch(files[0])).names) if files else set()
    usable = [f"--{name}" for name, column in SELECTED_COLUMNS.items() if column in names]
    return " or ".join(usable) if usable else "none of --lengths, --sizes, --buckets"
