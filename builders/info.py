"""Summaries of a release: configs, rows and token statistics per target length."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from builders.validate import read_manifest

RESERVE_COLUMNS = ("generation_reserve", "length_buffer")
"""Columns holding the tokens a row keeps below its target (RULERv2 and NeedleBench), in that order."""


@dataclass(frozen=True)
class SplitSummary:
    """Rows and token statistics of one config split."""

    config: str
    split: str
    rows: int
    by_target: pl.DataFrame | None


def summarize_release(release: Path) -> tuple[dict, list[SplitSummary]]:
    """The manifest and, per config split, token counts grouped by ``target_tokens`` when present."""
    release = Path(release)
    manifest = read_manifest(release)
    summaries = []
    for name, config in sorted(manifest.get("configs", {}).items()):
        for split, info in sorted(config["splits"].items()):
            files = [str(release / f) for f in info["files"]]
            frame = pl.scan_parquet(files)
            columns = frame.collect_schema().names()
            by_target = None
            if {"target_tokens", "n_tokens"} <= set(columns):
                reserve = next((c for c in RESERVE_COLUMNS if c in columns), None)
                limit = pl.col("target_tokens") - (pl.col(reserve).fill_null(0) if reserve else 0)
                by_target = (
                    frame.group_by("target_tokens")
                    .agg(
                        pl.len().alias("rows"),
                        pl.col("n_tokens").min().alias("min"),
                        pl.col("n_tokens").mean().round(1).alias("mean"),
                        pl.col("n_tokens").max().alias("max"),
                        # A target of 0 marks a row with no budget (a golden-context baseline): no slack.
                        pl.when(pl.col("target_tokens") > 0).then(limit - pl.col("n_tokens")).max().alias("max_slack"),
                    )
                    .sort("target_tokens")
                    .collect()
                )
            summaries.append(SplitSummary(name, split, info["rows"], by_target))
    return manifest, summaries
