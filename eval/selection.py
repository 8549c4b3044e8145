"""Select a run's rows by their length, scale, retriever or task: ``--lengths``, ``--sizes``, ``--buckets``,
``--scales``, ``--retrievers`` and ``--tasks``.

A small model cannot read a release's long rows, and ``--limit`` takes the first rows in file order
(HaystackCraft's alternate sizes), so a run may keep only the rows whose length column holds one of
the given values. Each option reads the column its benchmarks use:

* ``--lengths``: ``target_tokens``, the token budget of a RULERv2 or NeedleBench row;
* ``--sizes``: ``size``, the haystack size of a HaystackCraft row;
* ``--buckets``: ``length_bucket``, the length bucket of a Sequential-NIAH row;
* ``--scales``: ``scale``, the ladder scale of an EverMemBench-S row (``64K`` ... ``max``);
* ``--retrievers``: ``retriever``, the retriever whose ranking an EverMemBench-S RAG row reads;
* ``--tasks``: ``task``, the task column of a row (EverMemBench-S: ``localize`` or ``qa``).

A selection does not enter the sample keys (it changes which rows are asked, not what is asked), so
a selected run resumes into, and is extended by, the run over every row.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Iterable, Mapping

from eval.benchmarks import rows_of
from eval.release import Release
from eval.scored import value_order
from needlework.errors import SpecError

SELECTED_COLUMNS: Mapping[str, str] = {"lengths": "target_tokens", "sizes": "size", "buckets": "length_bucket",
                                       "scales": "scale", "retrievers": "retriever", "tasks": "task"}
"""The column each selection option reads."""


@dataclass(frozen=True)
class RowSelection:
    """The values a row's selected columns must hold to be run; an empty tuple selects every row."""

    lengths: tuple[int, ...] = ()
    sizes: tuple[int, ...] = ()
    buckets: tuple[str, ...] = ()
    scales: tuple[str, ...] = ()
    retrievers: tuple[str, ...] = ()
    tasks: tuple[str, ...] = ()

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

        Columns are read through the release benchmark's row source, so a column of composed rows
        (EverMemBench-S's ``task``) is checked like a published one.

        Raises:
            SpecError: A selected config has no such column, or a value occurs in none of them.
        """
        source = rows_of(release.benchmark)
        for name, values in self._given():
            column = SELECTED_COLUMNS[name]
            present: set[Any] = set()
            for config in configs:
                found = source.values(release, config, split, column)
                if found is None:
                    raise SpecError(f"--{name}: {release.dataset} config {config!r} has no {column} column; "
                                    f"rows are selected by {_options_for(release, config, split)}")
                present.update(found)
            missing = [v for v in values if v not in present]
            if missing:
                known = ", ".join(map(str, sorted((v for v in present if v is not None), key=value_order))) or "none"
                raise SpecError(f"--{name} {','.join(map(str, missing))}: no {split} row of "
                                f"{', '.join(configs)} has that {column}; present: {known}")

    def _given(self) -> list[tuple[str, tuple[Any, ...]]]:
        return [(f.name, getattr(self, f.name)) for f in fields(self) if getattr(self, f.name)]


def _options_for(release: Release, config: str, split: str) -> str:
    source = rows_of(release.benchmark)
    usable = [f"--{name}" for name, column in SELECTED_COLUMNS.items()
              if source.values(release, config, split, column) is not None]
    return " or ".join(usable) if usable else f"none of {', '.join('--' + name for name in SELECTED_COLUMNS)}"
