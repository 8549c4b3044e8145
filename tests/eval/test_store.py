"""RunDirectory: the four files of a run directory, their names, formats and errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eval.store import RunDirectory, read_records
from needlework.errors import InputError, SpecError
from tests.support.releases import eval_release  # noqa: F401 - fixture


def test_the_four_files_keep_their_names(tmp_path: Path):
    directory = RunDirectory(tmp_path / "run")
    assert [p.name for p in (directory.run_file, directory.samples_file, directory.results_file,
                             directory.judge_file)] == ["run.json", "samples.jsonl", "results.json", "judge.jsonl"]
    assert {p.parent for p in (directory.run_file, directory.judge_file)} == {tmp_path / "run"}


def test_run_file_round_trips_compact_and_is_required(tmp_path: Path):
    directory = RunDirectory(tmp_path / "run")
    assert not directory.is_run()
    with pytest.raises(SpecError, match="run: no such run directory"):
        directory.read_run()
    (tmp_path / "run").mkdir()
    with pytest.raises(SpecError, match="no run.json; not an eval run directory"):
        directory.read_run()
    saved = {"run": {"model": "m"}, "expected": [{"key": "k", "task": "t"}], "schema_version": 1}
    directory.write_run(saved)  # creates the directory
    assert directory.is_run() and directory.read_run() == saved
    assert directory.run_file.read_text(encoding="utf-8").count("\n") == 1  # one compact line
    directory.run_file.write_text("{torn", encoding="utf-8")
    with pytest.raises(InputError, match="run.json.*not valid JSON"):
        directory.read_run()


def test_results_round_trip_indented_and_errors_name_the_file(tmp_path: Path):
    directory = RunDirectory(tmp_path)
    with pytest.raises(InputError, match=r"results.json: no results.json in run directory .*is the run finished"):
        directory.read_results()
    assert directory.previous_results() is None
    results = {"scores": {"overall": {"score": 0.5}}, "complete": True}
    directory.write_results(results)
    text = directory.results_file.read_text(encoding="utf-8")
    assert json.loads(text) == results == directory.read_results() == directory.previous_results()
    assert text == json.dumps(results, indent=2, sort_keys=True) + "\n"
    directory.results_file.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(InputError, match="expected a JSON object, got list"):
        directory.read_results()
    directory.results_file.write_text("{", encoding="utf-8")
    with pytest.raises(InputError, match="not valid JSON"):
        directory.read_results()
    assert directory.previous_results() is None


def test_samples_and_verdicts_are_separate_resumable_logs(tmp_path: Path):
    directory = RunDirectory(tmp_path / "run")
    assert directory.latest_samples() == {} and not directory.has_judgements()
    with directory.sample_writer() as writer:
        writer.append({"key": "a", "text": "x", "error": None})
        writer.append({"key": "b", "text": None, "error": {"kind": "timeout", "final": False}})
    with directory.judge_writer() as writer:
        writer.append({"key": "a", "raw": "4", "verdict": 4, "error": None})
    assert set(directory.latest_samples()) == {"a", "b"}
    assert directory.latest_judgements() == {"a": {"key": "a", "raw": "4", "verdict": 4, "error": None}}
    assert directory.has_judgements()
    with directory.judge_file.open("ab") as handle:  # a kill mid-write
        handle.write(b'{"key": "b", "raw": "5", "verd')
    assert set(directory.latest_judgements()) == {"a"}
    with directory.judge_writer() as writer:  # opening for append cuts the torn line
        writer.append({"key": "b", "raw": "5", "verdict": 5, "error": None})
    assert [json.loads(line)["key"] for line in directory.judge_file.read_text().splitlines()] == ["a", "b"]


def test_stamp_changes_with_any_file_a_summary_reads(tmp_path: Path):
    directory = RunDirectory(tmp_path)
    empty = directory.stamp()
    assert empty == ((0, 0), (0, 0), (0, 0))
    directory.write_run({"run": {}})
    after_run = directory.stamp()
    with directory.sample_writer() as writer:
        writer.append({"key": "a"})
    after_samples = directory.stamp()
    with directory.judge_writer() as writer:
        writer.append({"key": "a"})
    assert len({empty, after_run, after_samples, directory.stamp()}) == 4


def test_a_corrupt_sample_line_is_named_by_record_and_line_both_from_1(tmp_path: Path):
    path = tmp_path / "samples.jsonl"
    path.write_text('\n{"key": "a"}\n\n{torn\n{"key": "b"}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"record 2: line 4 is not a JSON record"):
        list(read_records(path))
    path.write_text('{"key": "a"}\n{"torn": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match=r"record 2, field 'key': line 2: missing"):
        list(read_records(path))


def test_a_run_is_not_written_over_a_folder_that_is_no_run_but_holds_a_runs_file_names(tmp_path: Path):
    """Issue 41: ``--output-dir`` on a folder of other work appended to its samples.jsonl and replaced its
    results.json; a folder of unrelated files, a new folder and an existing run stay writable."""
    foreign = tmp_path / "analysis"
    foreign.mkdir()
    (foreign / "results.json").write_text('{"mine": 1}', encoding="utf-8")
    with pytest.raises(SpecError, match=r"analysis: no run\.json, not an eval run directory, but it holds results\.json, "
                                        r"which a run would overwrite; choose another --output-dir$"):
        RunDirectory(foreign).write_run({"run": {}})
    assert sorted(p.name for p in foreign.iterdir()) == ["results.json"]
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    with pytest.raises(SpecError, match="file.txt: a file, not a run directory"):
        RunDirectory(tmp_path / "file.txt").write_run({"run": {}})
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("x", encoding="utf-8")
    for path in (notes, tmp_path / "new"):
        RunDirectory(path).write_run({"run": {}})
        RunDirectory(path).write_run({"run": {"again": True}})  # a run resumed
        assert RunDirectory(path).read_run() == {"run": {"again": True}}


def test_eval_run_refuses_such_a_folder_before_asking_the_server(tmp_path: Path, eval_release):  # noqa: F811
    from click.testing import CliRunner

    from eval.cli import main

    out = tmp_path / "work"
    out.mkdir()
    (out / "samples.jsonl").write_text('{"mine": 1}\n', encoding="utf-8")
    config = sorted(json.loads((eval_release / "manifest.json").read_text())["configs"])[0]
    result = CliRunner().invoke(main, ["run", "--dataset", str(eval_release), "--config", config, "--model", "m",
                                       "--base-url", "http://127.0.0.1:9/v1", "--output-dir", str(out), "--no-progress"])
    assert result.exit_code == 2, result.output
    (line,) = result.output.splitlines()
    assert line.startswith(f"error: {out}: no run.json, not an eval run directory, but it holds samples.jsonl")
    assert (out / "samples.jsonl").read_text(encoding="utf-8") == '{"mine": 1}\n' and not (out / "run.json").exists()
