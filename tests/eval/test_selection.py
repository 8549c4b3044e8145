"""Selecting rows by length (``--lengths``, ``--sizes``, ``--buckets``) on the demo releases (issue 20)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from eval.cli import main
from eval.runner import RunSpec, run
from eval.selection import RowSelection
from tests.support.scripted import ScriptedBackend


def rows_where(release: Path, config: str, column: str, values: set) -> list[str]:
    """Ids of the test rows of ``config`` whose ``column`` is in ``values``, in release order."""
    frame = pl.read_parquet(sorted((release / config).glob("test-*.parquet")))
    return frame.filter(pl.col(column).is_in(list(values)))["id"].to_list()


def run_selected(release: Path, config: str, out: Path, **selection) -> dict:
    spec = RunSpec(dataset=str(release), configs=(config,), model="scripted", backend="vllm", output_dir=out,
                   select=RowSelection(**selection))
    run(spec, backend=ScriptedBackend(lambda prompt: "an answer"), progress=False)
    return json.loads((out / "run.json").read_text())


def test_lengths_4096_runs_exactly_the_4096_token_rows_of_the_demo(demo, tmp_path):
    release = demo.folder / "rulerv2"
    saved = run_selected(release, "mk_niah_basic", tmp_path / "run", lengths=(4096,))
    wanted = rows_where(release, "mk_niah_basic", "target_tokens", {4096})
    assert wanted and [e["row_id"] for e in saved["expected"]] == wanted
    assert len(wanted) < pl.read_parquet(sorted((release / "mk_niah_basic").glob("test-*.parquet"))).height
    assert saved["run"]["select"] == {"lengths": [4096]}
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    assert not results["reportable"] and any("--lengths 4096" in r for r in results["not_reportable_because"])


def test_sizes_and_buckets_select_haystackcraft_and_sequential_niah_rows(demo, tmp_path):
    haystacks = demo.folder / "haystackcraft"
    saved = run_selected(haystacks, "static-descending", tmp_path / "hc", sizes=(2000,))
    assert [e["row_id"] for e in saved["expected"]] == rows_where(haystacks, "static-descending", "size", {2000})
    sequential = demo.folder / "sequential-niah"
    saved = run_selected(sequential, "default", tmp_path / "sn", buckets=("4k-7k",))
    assert [e["row_id"] for e in saved["expected"]] == rows_where(sequential, "default", "length_bucket", {"4k-7k"})


def test_a_selected_run_resumes_into_the_run_over_every_row(demo, tmp_path):
    """The selection is not part of the sample keys: the full run keeps the selected samples."""
    release, out = demo.folder / "rulerv2", tmp_path / "run"
    backend = ScriptedBackend(lambda prompt: "an answer")
    selected = RunSpec(dataset=str(release), configs=("mk_niah_basic",), model="m", backend="vllm", output_dir=out,
                       select=RowSelection(lengths=(4096,)))
    first = run(selected, backend=backend, progress=False)
    everything = run(RunSpec(dataset=str(release), configs=("mk_niah_basic",), model="m", backend="vllm",
                             output_dir=out), backend=backend, progress=False)
    assert everything.skipped_done == first.new_samples > 0
    assert everything.results["reportable"]


def test_limit_counts_the_selected_rows(demo, tmp_path):
    release = demo.folder / "rulerv2"
    spec = RunSpec(dataset=str(release), configs=("mk_niah_basic",), model="m", backend="vllm", output_dir=tmp_path,
                   limit=2, select=RowSelection(lengths=(8192,)))
    run(spec, backend=ScriptedBackend(lambda prompt: "x"), progress=False)
    expected = json.loads((tmp_path / "run.json").read_text())["expected"]
    assert [e["row_id"] for e in expected] == rows_where(release, "mk_niah_basic", "target_tokens", {8192})[:2]


@pytest.mark.parametrize(("args", "message"), [
    (["--lengths", "4000"], "--lengths 4000: no test row of mk_niah_basic has that target_tokens; present: 4096, 8192"),
    (["--sizes", "2000"], "--sizes: "),
    (["--lengths", "four"], "error: --lengths: 'four' is not a token count: write an integer (8000, 8_000) or"),
    (["--lengths", "4k"], "--lengths 4000: no test row"),  # 4k is 4,000, and the error shows the count it read
])
def test_a_selection_that_cannot_match_is_one_clear_error(demo, args, message):
    result = CliRunner().invoke(main, ["count", "--dataset", str(demo.folder / "rulerv2"), "--config",
                                       "mk_niah_basic", *args])
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("release", "config", "spellings"), [
    ("rulerv2", "mk_niah_basic", (["--lengths", "4ki,8Ki"], ["--lengths", "4KI", "--lengths", "8192"], ["--lengths", "4096,8192"])),
    ("haystackcraft", "static-descending", (["--sizes", "2k"], ["--sizes", "2K"], ["--sizes", "2_000"])),
    ("sequential-niah", "default", (["--buckets", "4K-7K"], ["--buckets", "4k-7k"])),
    ("embs", "rankings", (["--scales", "64k,MAX"], ["--scales", "64K,max"])),
])
def test_token_counts_and_labels_select_the_same_rows_in_any_case(demo, release, config, spellings):
    """Issue 41: every spelling of the same count or label selects the same rows (``4ki``, ``2k`` and ``64k`` were refused
    or matched nothing)."""
    outputs = []
    for args in spellings:
        result = CliRunner().invoke(main, ["count", "--dataset", str(demo.folder / release), "--config", config, *args])
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert len(set(outputs)) == 1


def test_max_model_len_is_a_token_count_in_any_case():
    run_command = main.commands["run"]
    windows = {run_command.make_context("run", ["--dataset", "d", "--config", "c", "--model", "m", "--max-model-len", text])
               .params["max_model_len"] for text in ("8k", "8K", "8000", "8_000")}
    assert windows == {8_000}
    assert run_command.make_context("run", ["--dataset", "d", "--config", "c", "--model", "m", "--max-model-len", "128Ki"]
                                    ).params["max_model_len"] == 131_072


def test_count_counts_only_the_selected_rows(demo):
    result = CliRunner().invoke(main, ["count", "--dataset", str(demo.folder / "rulerv2"), "--config",
                                       "mk_niah_basic", "--lengths", "4096,8192"])
    assert result.exit_code == 0, result.output
    rows = len(rows_where(demo.folder / "rulerv2", "mk_niah_basic", "target_tokens", {4096, 8192}))
    line = next(line for line in result.output.splitlines() if line.startswith("mk_niah_basic"))
    assert int(line.split()[1]) == rows


def test_the_selection_round_trips_through_the_run_file():
    selection = RowSelection(lengths=(4096, 8192), buckets=("4k-7k",))
    assert RowSelection.from_record(selection.record()) == selection
    assert RowSelection.from_record(None) == RowSelection() and RowSelection().record() == {}
    assert selection.describe() == "--lengths 4096,8192 --buckets 4k-7k"
    assert selection.keeps({"target_tokens": 4096, "length_bucket": "4k-7k"})
    assert not selection.keeps({"target_tokens": 4096, "length_bucket": "8k-16k"})
