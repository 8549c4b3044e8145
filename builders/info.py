"""Summaries of a release: configs, rows and token statistics per length (target, size or bucket)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from builders.release import MANIFEST
from builders.validate import read_manifest
from needlework.errors import InputError, ReleaseError
from needlework.hub import first_line

RESERVE_COLUMNS = ("generation_reserve", "length_buffer")
"""Columns holding the tokens a row keeps below its target (RULERv2 and NeedleBench), in that order."""


@dataclass(frozen=True)
class TokenColumns:
    """Which columns of a config split describe its lengths.

    Attributes:
        group: Rows are grouped by this column (a token budget or a length label); None for one
            group of all rows.
        tokens: The token count summarized per group (min, mean, max).
        budgeted: The token count that was filled up to ``group`` as a budget; when set, each group
            also shows ``max_slack``, the most tokens a row left unused (``group`` minus the row's
            reserve, if the table has a :data:`RESERVE_COLUMNS` column, minus ``budgeted``).
    """

    group: str | None
    tokens: str
    budgeted: str | None = None

    def columns(self) -> set[str]:
        """Every column this choice needs."""
        return {c for c in (self.group, self.tokens, self.budgeted) if c is not None}

    def describe(self, reserve: str | None) -> str:
        """One line naming the summarized columns, e.g. ``n_tokens by target_tokens``."""
        line = f"{self.tokens} by {self.group}" if self.group else f"{self.tokens} over all rows"
        if self.budgeted:
            line += f"; max_slack = {self.group}{f' - {reserve}' if reserve else ''} - {self.budgeted}"
        return line


TOKEN_COLUMNS: tuple[TokenColumns, ...] = (
    TokenColumns("target_tokens", "n_tokens", budgeted="n_tokens"),  # RULERv2, NeedleBench prompts
    TokenColumns("needle_count", "n_tokens"),  # NeedleBench's ATC: no target, as long as its needles
    TokenColumns("size", "n_tokens", budgeted="haystack_tokens"),  # HaystackCraft static NIAH prompts
    TokenColumns("size", "haystack_tokens", budgeted="haystack_tokens"),  # HaystackCraft haystacks
    TokenColumns("length_bucket", "n_tokens"),  # Sequential-NIAH samples and long texts
    TokenColumns("lang", "n_tokens"),  # corpora: the world's, HaystackCraft's
    TokenColumns(None, "n_tokens"),
)
"""Candidates in order of preference; a config split is summarized by the first whose columns it has,
with a group column that is not null throughout."""


@dataclass(frozen=True)
class SplitSummary:
    """Rows and token statistics of one config split (``tokens`` None when it has no token column)."""

    config: str
    split: str
    rows: int
    tokens: TokenColumns | None = None
    reserve: str | None = None
    table: pl.DataFrame | None = None

    def heading(self) -> str | None:
        """What :attr:`table` summarizes, in one line; None without a table."""
        return self.tokens.describe(self.reserve) if self.tokens else None


def choose_token_columns(frame: pl.LazyFrame) -> TokenColumns | None:
    """The first of :data:`TOKEN_COLUMNS` whose columns ``frame`` has, its group not all null; or None."""
    present = set(frame.collect_schema().names())
    for choice in TOKEN_COLUMNS:
        if not choice.columns() <= present:
            continue
        if choice.group is None or frame.select(pl.col(choice.group).is_not_null().any()).collect().item():
            return choice
    return None


def token_statistics(frame: pl.LazyFrame, choice: TokenColumns, reserve: str | None) -> pl.DataFrame:
    """Rows, min, mean and max of ``choice.tokens`` per ``choice.group`` (and ``max_slack`` if budgeted).

    Numeric groups (budgets in tokens) are sorted by value, labels (length buckets, languages) by
    their shortest row. A budget of 0 marks rows with no budget (a golden-context baseline, a
    needles-only haystack): their slack is null.
    """
    tokens = pl.col(choice.tokens)
    aggregates = [
        pl.len().alias("rows"),
        tokens.min().alias("min"),
        tokens.mean().round(1).alias("mean"),
        tokens.max().alias("max"),
    ]
    if choice.budgeted and choice.group:
        budget = pl.col(choice.group)
        limit = budget - (pl.col(reserve).fill_null(0) if reserve else 0)
        aggregates.append(pl.when(budget > 0).then(limit - pl.col(choice.budgeted)).max().alias("max_slack"))
    if choice.group is None:
        return frame.select(aggregates).collect()
    numeric = frame.collect_schema()[choice.group].is_numeric()
    order = [choice.group] if numeric else ["min", choice.group]
    return frame.group_by(choice.group).agg(aggregates).sort(order, nulls_last=True).collect()


def summarize_release(release: Path) -> tuple[dict, list[SplitSummary]]:
    """The manifest and, per config split, its rows and token statistics (see :data:`TOKEN_COLUMNS`).

    Raises:
        ReleaseError: A shard the manifest lists is missing.
        InputError: A shard is not readable Parquet (the file named).
    """
    release = Path(release)
    manifest = read_manifest(release)
    summaries = []
    for name, config in sorted(manifest.get("configs", {}).items()):
        for split, info in sorted(config["splits"].items()):
            files = [release / f for f in info["files"]]
            for path in files:
                _check_shard(path)
            try:
                frame = pl.scan_parquet([str(path) for path in files])
                columns = frame.collect_schema().names()
                choice = choose_token_columns(frame)
                if choice is None:
                    summaries.append(SplitSummary(name, split, info["rows"]))
                    continue
                reserve = next((c for c in RESERVE_COLUMNS if c in columns), None) if choice.budgeted else None
                table = token_statistics(frame, choice, reserve)
            except pl.exceptions.PolarsError as err:
                raise InputError(f"{release}/{name}/{split}", None, None, f"unreadable shards ({first_line(err)}); "
                                 "run needlework validate") from err
            summaries.append(SplitSummary(name, split, info["rows"], choice, reserve, table))
    return manifest, summaries


def _check_shard(path: Path) -> None:
    """Refuse a shard that is missing or not Parquet, naming it (its footer alone is read)."""
    if not path.is_file():
        raise ReleaseError(f"{path}: listed in {MANIFEST} but missing; run needlework validate")
    try:
        pq.read_metadata(path)
    except (OSError, pa.ArrowException) as err:
        raise InputError(str(path), None, None, f"not readable Parquet ({first_line(err)}); run needlework validate") from err
