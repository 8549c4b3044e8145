"""``needlework info``: token statistics for every benchmark, from one declared list of columns."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from builders.cli import main
from builders.info import TOKEN_COLUMNS, choose_token_columns, token_statistics

BENCHMARKS = ("rulerv2", "needlebench", "world", "haystackcraft", "sequential-niah")


def info(release: Path) -> str:
    result = CliRunner().invoke(main, ["info", str(release)])
    assert result.exit_code == 0, result.output
    return result.output


def info_tables(output: str) -> dict[str, tuple[int, str | None, list[dict[str, str]]]]:
    """Per ``config/split`` that ``info`` printed: its row count, the table's heading and its rows."""
    blocks = {}
    for block in output.split("\n\n")[1:]:
        lines = block.splitlines()
        name, _, rows = lines[0].partition(": ")
        cells = [[c.strip() for c in line.strip("│ ").split("┆")] for line in lines if line.startswith("│")]
        table = [dict(zip(cells[0], row)) for row in cells[1:]] if cells else []
        blocks[name] = (int(rows.removesuffix(" rows").replace(",", "")), lines[1] if cells else None, table)
    return blocks


@pytest.mark.parametrize(
    ("benchmark", "split", "heading", "groups"),
    [
        ("rulerv2", "mk_niah_basic/test", "n_tokens by target_tokens; max_slack = target_tokens - generation_reserve - n_tokens",
         ["4096", "8192", "16384"]),
        ("needlebench", "s-rt-en/test", "n_tokens by target_tokens; max_slack = target_tokens - length_buffer - n_tokens",
         ["2000", "4000", "8000"]),
        ("needlebench", "atc-zh/test", "n_tokens by needle_count", ["2", "4", "8", "16", "32", "64"]),
        ("haystackcraft", "static-descending/test", "n_tokens by size; max_slack = size - haystack_tokens",
         ["0", "2000", "4000", "8000"]),
        ("haystackcraft", "haystacks/test", "haystack_tokens by size; max_slack = size - haystack_tokens",
         ["0", "2000", "4000", "8000"]),
        ("haystackcraft", "corpus/test", "n_tokens by lang", ["en"]),
        ("sequential-niah", "default/train", "n_tokens by length_bucket", ["4k-7k", "8k-16k"]),
        ("sequential-niah", "texts/test", "n_tokens by length_bucket", ["4k-7k", "8k-16k"]),
        ("world", "corpus/train", "n_tokens by lang", ["en", "zh"]),
    ],
)
def test_info_prints_token_statistics_per_length(demo, benchmark, split, heading, groups):
    rows, printed_heading, table = info_tables(info(demo.folder / benchmark))[split]
    assert printed_heading == heading
    group = heading.split(" by ")[1].split(";")[0]
    assert [row[group] for row in table] == groups
    assert sum(int(row["rows"]) for row in table) == rows
    for row in table:
        assert int(row["min"]) <= float(row["mean"]) <= int(row["max"])


@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_info_summarizes_every_config_with_a_token_column(demo, benchmark):
    release = demo.folder / benchmark
    tables = info_tables(info(release))
    for name, (rows, heading, table) in tables.items():
        config, split = name.split("/")
        columns = pq.read_schema(next((release / config).glob(f"{split}-*.parquet"))).names
        has_tokens = any(choice.tokens in columns for choice in TOKEN_COLUMNS)
        assert (heading is not None) == has_tokens, name
        assert not has_tokens or sum(int(row["rows"]) for row in table) == rows
    assert any(heading for _, heading, _ in tables.values())


def test_info_header_and_rulerv2_lengths(demo):
    out = info(demo.folder / "rulerv2")
    assert out.splitlines()[0].startswith("rulerv2  needlework ")
    assert "seed 0" in out and "tokenizer qwen2.5" in out
    tables = info_tables(out)
    assert tables["mv_niah_basic/test"][0] == 30
    assert [row["max_slack"] for row in tables["mk_niah_basic/golden"][2]] == ["null"]  # golden rows: no budget


def test_info_shows_needlebench_slack_below_the_buffer(demo):
    tables = info_tables(info(demo.folder / "needlebench"))
    assert tables["atc-zh/test"][0] == 48 and tables["m-rs-zh/test"][0] == 120
    slacks = [int(row["max_slack"]) for _, _, table in tables.values() for row in table if "max_slack" in row]
    assert slacks and max(slacks) < 200  # slack is measured below target - length_buffer, not below the target


def test_labels_sort_by_length_and_an_all_null_group_is_skipped():
    frame = pl.LazyFrame({
        "target_tokens": [None, None, None],
        "length_bucket": ["16k-32k", "8k-16k", "16k-32k"],
        "n_tokens": [20_000, 9_000, 17_000],
    })
    choice = choose_token_columns(frame)
    assert choice is not None and choice.group == "length_bucket"
    table = token_statistics(frame, choice, None)
    assert table.to_dicts() == [
        {"length_bucket": "8k-16k", "rows": 1, "min": 9_000, "mean": 9_000.0, "max": 9_000},
        {"length_bucket": "16k-32k", "rows": 2, "min": 17_000, "mean": 18_500.0, "max": 20_000},
    ]


def test_slack_subtracts_the_reserve_and_a_table_without_groups_gets_one_row():
    frame = pl.LazyFrame({"target_tokens": [1000, 1000, 0], "generation_reserve": [100, 100, 100],
                          "n_tokens": [850, 890, 50]})
    choice = choose_token_columns(frame)
    table = token_statistics(frame, choice, "generation_reserve")
    assert table["max_slack"].to_list() == [None, 50]
    plain = pl.LazyFrame({"title": ["a", "b"], "n_tokens": [3, 5]})
    choice = choose_token_columns(plain)
    assert choice is not None and choice.group is None
    assert token_statistics(plain, choice, None).to_dicts() == [{"rows": 2, "min": 3, "mean": 4.0, "max": 5}]
    assert choose_token_columns(pl.LazyFrame({"src": [1], "dst": [2]})) is None


@pytest.mark.parametrize("damage", ["not-parquet", "missing"])
def test_a_damaged_shard_is_one_error_line_naming_it(demo, tmp_path, damage):
    """Issue 41: a shard that is not Parquet ended ``needlework info`` in a polars traceback (exit 1), a missing
    one in polars' "No such file or directory (os error 2)"."""
    import shutil

    release = tmp_path / "rulerv2"
    shutil.copytree(demo.folder / "rulerv2", release)
    shard = min((release / "mk_niah_basic").glob("*.parquet"))
    if damage == "missing":
        shard.unlink()
    else:
        shard.write_bytes(b"PAR1 not parquet")
    result = CliRunner().invoke(main, ["info", str(release)])
    assert result.exit_code == 2, result.output
    (line,) = result.output.splitlines()
    expected = "listed in manifest.json but missing" if damage == "missing" else "not readable Parquet ("
    assert line.startswith(f"error: {shard}: {expected}") and line.endswith("run needlework validate"), line
