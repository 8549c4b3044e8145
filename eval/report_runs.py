"""Finished runs as reports read them: results loaded and labelled, and the score lookups and
Markdown helpers that the generic report and the benchmarks' sections share.

Scores are fractions in [0, 1]; lengths are in tokens; depths are in percent (RULERv2: 10% bin lower
edges; NeedleBench: the requested depth). A config's context lengths come from the first of
:data:`LENGTH_COLUMNS` that its samples carry (:func:`length_series`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eval.store import RunDirectory
from needlework.errors import InputError

CELL_FIELDS = ("config", "length", "score", "n")
MISSING = "—"


@dataclass(frozen=True)
class Run:
    """One run's results with the label that names it in tables and legends."""

    label: str
    directory: Path
    results: Mapping[str, Any]

    @property
    def scores(self) -> Mapping[str, Any]:
        """The ``scores`` object of the results."""
        return self.results["scores"]

    @property
    def cells(self) -> list[Mapping[str, Any]]:
        """The finest score cells: config x length x depth (depth ``None`` when not applicable)."""
        return list(self.scores.get("cells") or [])

    @property
    def split(self) -> str:
        """The split the run evaluated (``test`` when the results do not say)."""
        return str((self.results.get("run") or {}).get("split") or "test")

    @property
    def release_and_model(self) -> tuple[str, str, str]:
        """(release identity, revision, model): runs that agree on all three saw the same release."""
        info, provenance = self.results.get("run") or {}, self.results.get("provenance") or {}
        identity = provenance.get("dataset_identity") or info.get("dataset")
        return str(identity), str(info.get("revision")), str(info.get("model"))


# Loading -----------------------------------------------------------------------------------------


def load_results(run_dir: Path) -> dict[str, Any]:
    """Read and check one run's results (:meth:`eval.store.RunDirectory.read_results`).

    Args:
        run_dir: The run directory.

    Returns:
        The parsed results object.

    Raises:
        InputError: The file is missing, is not valid JSON, is not an object, lacks ``scores``,
            or has a score cell without one of the fields in :data:`CELL_FIELDS`.
    """
    directory = RunDirectory(run_dir)
    results = directory.read_results()
    path = directory.results_file
    if not isinstance(results.get("scores"), dict):
        raise InputError(str(path), None, "scores", "missing or not an object")
    for index, cell in enumerate(results["scores"].get("cells") or []):
        for name in CELL_FIELDS:
            if not isinstance(cell, dict) or name not in cell:
                raise InputError(str(path), f"scores.cells[{index}]", name, "missing")
    return results


def load_runs(run_dirs: Sequence[Path]) -> list[Run]:
    """Load every run and label it by model, adding the directory name where models repeat.

    Args:
        run_dirs: Run directories, in report order.

    Returns:
        One :class:`Run` per directory, in the same order.
    """
    loaded = [(Path(d), load_results(Path(d))) for d in run_dirs]
    models = [str((results.get("run") or {}).get("model") or directory.name) for directory, results in loaded]
    labels = [f"{m} ({d.name})" if models.count(m) > 1 else m for m, (d, _) in zip(models, loaded)]
    # Directories with the same name under different parents still need distinct labels.
    labels = [f"{m} ({d})" if labels.count(lab) > 1 else lab for lab, m, (d, _) in zip(labels, models, loaded)]
    return [Run(label, directory, results) for label, (directory, results) in zip(labels, loaded)]


# Aggregation -------------------------------------------------------------------------------------


def pooled_score(cells: Iterable[Mapping[str, Any]]) -> tuple[float | None, int]:
    """The n-weighted mean score of some cells and their total n (``None`` when n is 0)."""
    total, n = 0.0, 0
    for cell in cells:
        if cell.get("score") is not None and cell.get("n"):
            total += float(cell["score"]) * int(cell["n"])
            n += int(cell["n"])
    return (total / n if n else None), n


def configs_of(runs: Sequence[Run]) -> list[str]:
    """Every config of the runs: declared order of the first runs first, then the rest sorted."""
    ordered: list[str] = []
    for run in runs:
        ordered += [c for c in (run.results.get("run") or {}).get("configs") or [] if c not in ordered]
    seen = {c for run in runs for c in run.scores.get("by", {}).get("config", {})}
    seen |= {cell["config"] for run in runs for cell in run.cells}
    return ordered + sorted(seen - set(ordered))


def cells_at(cells: Iterable[Mapping[str, Any]], config: str | None, length: int) -> list[Mapping[str, Any]]:
    """The cells at one context length (tokens), of one config or of any (``None``)."""
    return [
        c for c in cells if config in (None, c["config"]) and c["length"] is not None and int(c["length"]) == length
    ]


def depth_configs(runs: Sequence[Run]) -> list[str]:
    """The configs with at least one scored cell that has both a needle depth and a length (a heatmap
    cell), in :func:`configs_of` order."""
    drawable = {c["config"] for r in runs for c in r.cells
                if c.get("depth") is not None and c["length"] is not None and c.get("score") is not None}
    return [c for c in configs_of(runs) if c in drawable]


def length_label(tokens: int) -> str:
    """A context length for tick labels: 4096 -> ``4K``, 131072 -> ``128K``, 8000 -> ``8K``, 128000 -> ``128K``.

    Decimal units come first, so that a decimal size that is also a multiple of 1,024 (128,000 =
    125 x 1,024) reads as it was asked for.
    """
    for unit, suffix in ((1_000_000, "M"), (1000, "K"), (1024 * 1024, "M"), (1024, "K")):
        if tokens >= unit and tokens % unit == 0:
            return f"{tokens // unit}{suffix}"
    return str(tokens)


# Context lengths ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class LengthColumn:
    """A metadata column that gives a sample's context length.

    Attributes:
        name: The column (a key of the samples' metadata and of ``scores.by_config[config]``).
        title: Table heading and axis label.
        noun: What one value is called in a sentence.
    """

    name: str
    title: str
    noun: str


LENGTH_COLUMNS: tuple[LengthColumn, ...] = (
    LengthColumn("length", "context length (tokens)", "length"),
    LengthColumn("size", "context size (tokens)", "context size"),
    LengthColumn("length_bucket", "length bucket (tokens)", "length bucket"),
)
"""Where a config's lengths are looked for, in this order: ``length`` (the rows' target tokens: RULERv2,
NeedleBench; read from the score cells), ``size`` (HaystackCraft's haystack size in tokens, 0 = the
needles alone) and ``length_bucket`` (Sequential-NIAH's bucket names such as ``8k-16k``)."""

Length = int | str
"""A context length: tokens, or a bucket name."""


@dataclass(frozen=True)
class LengthSeries:
    """One config's scores by context length, in every run of a report.

    Attributes:
        config: The config.
        column: Where the lengths come from; None when the config's samples carry no length.
        lengths: Every length with a score in some run, ascending (tokens, or bucket names).
        scores: Per run, in report order: ``{length: (score in [0, 1], n)}``.
    """

    config: str
    column: LengthColumn | None
    lengths: tuple[Length, ...]
    scores: tuple[Mapping[Length, tuple[float, int]], ...]

    @property
    def numeric(self) -> bool:
        """Whether the lengths are token counts (a log axis) rather than bucket names (categories)."""
        return all(isinstance(length, int) for length in self.lengths)

    @property
    def drawn(self) -> tuple[Length, ...]:
        """The lengths a plot draws: all but 0 (no haystack: the golden context, or the needles alone)."""
        return tuple(length for length in self.lengths if length != 0)

    @property
    def plottable(self) -> bool:
        """Whether score against length has a shape: at least two lengths to draw."""
        return len(self.drawn) >= 2


def length_series(runs: Sequence[Run], config: str) -> LengthSeries:
    """A config's scores by context length in each run, from the first of :data:`LENGTH_COLUMNS` it has.

    ``length`` pools the config's score cells over depths; the other columns are read from
    ``scores.by_config``.
    """
    for column in LENGTH_COLUMNS:
        scores = tuple(_scores_by_length(run, config, column.name) for run in runs)
        if any(scores):
            lengths = sorted({length for by_length in scores for length in by_length}, key=_length_order)
            return LengthSeries(config, column, tuple(lengths), scores)
    return LengthSeries(config, None, (), tuple({} for _ in runs))


def _scores_by_length(run: Run, config: str, column: str) -> dict[Length, tuple[float, int]]:
    if column == "length":  # from the cells: results written before by_config existed have them too
        lengths = {int(c["length"]) for c in run.cells if c["config"] == config and c["length"] is not None}
        pooled = {length: pooled_score(cells_at(run.cells, config, length)) for length in lengths}
        return {length: (score, n) for length, (score, n) in pooled.items() if score is not None}
    by_value = ((run.scores.get("by_config") or {}).get(config) or {}).get(column) or {}
    return {_length_value(value): (float(entry["score"]), int(entry.get("n") or 0))
            for value, entry in by_value.items() if entry.get("score") is not None}


def _length_value(value: str) -> Length:
    return int(value) if value.isdigit() else value


def _length_order(length: Length) -> tuple[float, str]:
    """Tokens numerically; a bucket name by the number it starts with (``4k-7k`` before ``16k-32k``)."""
    if isinstance(length, int):
        return (float(length), "")
    match = re.match(r"\s*(\d+(?:\.\d+)?)\s*([kKmM]?)", length)
    if match is None:
        return (float("inf"), length)
    scale = {"": 1, "k": 1000, "m": 1_000_000}[match.group(2).lower()]
    return (float(match.group(1)) * scale, length)


def format_length(length: Length) -> str:
    """A length for tables and ticks: tokens as :func:`length_label`, a bucket name as it is."""
    return length_label(length) if isinstance(length, int) else length


# Markdown ----------------------------------------------------------------------------------------


def percent(score: float | None) -> str:
    """A [0, 1] score as a percentage with one decimal (``0.9333`` -> ``93.3``), or a dash."""
    return MISSING if score is None else f"{100 * float(score):.1f}"


def points(value: float | None) -> str:
    """A [0, 1] score as a percentage with two decimals, the papers' tables' precision (``0.1413`` -> ``14.13``)."""
    return MISSING if value is None else f"{100 * float(value):.2f}"


def score_with_n(entry: Mapping[str, Any] | None) -> str:
    """A ``scores.by`` entry as ``93.3 (n=18)``, or a dash without a score."""
    if not entry or entry.get("score") is None:
        return MISSING
    return f"{percent(entry['score'])} (n={entry.get('n', 0)})"


def score_by(run: Run, column: str, key: str) -> str:
    """The run's score where ``column`` has the value ``key`` (``scores.by``), as :func:`score_with_n`."""
    return score_with_n((run.scores.get("by") or {}).get(column, {}).get(key))


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """A Markdown table (first column left-aligned, the others right-aligned) and a blank line."""
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return lines + [""]


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")
