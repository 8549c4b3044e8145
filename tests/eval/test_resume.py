"""Resuming: the sample store's torn-line handling, and runs killed with SIGKILL then re-run."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from eval.runner import run
from eval.store import SampleWriter, is_done, latest_records, read_records
from needlework.errors import InputError

from tests.support.releases import (  # noqa: F401 - eval_release and release_rows are fixtures
    CONFIGS,
    MODEL,
    TOTAL_ROWS,
    eval_release,
    fast_backend,
    make_script,
    make_spec,
    read_json,
    release_rows,
    row_id,
    samples_lines,
    stub_server,
    with_faults,
)
from tests.support.scripted import ScriptedBackend

REPO = Path(__file__).resolve().parents[2]


def record(key: str, error: dict[str, Any] | None = None, text: str | None = "answer", **extra: Any) -> dict[str, Any]:
    return {"key": key, "text": None if error else text, "error": error, **extra}


def line(data: dict[str, Any]) -> bytes:
    return json.dumps(data, sort_keys=True).encode("utf-8") + b"\n"


TRANSIENT = {"kind": "http", "message": "HTTP 503", "status": 503, "final": False}
FINAL = {"kind": "context_length", "message": "HTTP 400", "status": 400, "final": True}


# --- the store -------------------------------------------------------------------------------


def test_read_records_of_a_missing_file_is_empty(tmp_path):
    assert list(read_records(tmp_path / "samples.jsonl")) == []
    assert latest_records(tmp_path / "samples.jsonl") == {}


def test_read_records_ignores_a_torn_last_line(tmp_path):
    path = tmp_path / "samples.jsonl"
    whole = line(record("a")) + line(record("b"))
    torn = line(record("c"))[:17]
    path.write_bytes(whole + torn)
    assert [r["key"] for r in read_records(path)] == ["a", "b"]
    path.write_bytes(whole + b"\n\n")  # blank lines are not records
    assert [r["key"] for r in read_records(path)] == ["a", "b"]


def test_read_records_rejects_a_corrupt_line_in_the_middle(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(line(record("a")) + b'{"key": "b", "te\n' + line(record("c")))
    with pytest.raises(InputError) as caught:
        list(read_records(path))
    assert str(path) in str(caught.value) and "line 2" in str(caught.value)
    assert caught.value.file == str(path)


def test_read_records_rejects_a_line_that_is_not_a_sample(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(line(record("a")) + line({"text": "no key"}) + line(record("c")))
    with pytest.raises(InputError, match="record 2, field 'key': line 2"):
        list(read_records(path))


def test_sample_writer_cuts_a_torn_tail_before_appending(tmp_path):
    path = tmp_path / "samples.jsonl"
    whole = line(record("a")) + line(record("b"))
    path.write_bytes(whole + line(record("c"))[:25])
    with SampleWriter(path) as writer:
        assert path.read_bytes() == whole  # cut on open, before any append
        writer.append(record("d"))
    assert path.read_bytes() == whole + line(record("d"))
    assert [r["key"] for r in read_records(path)] == ["a", "b", "d"]


def test_sample_writer_keeps_a_whole_last_record_missing_its_newline(tmp_path):
    """The reader counts such a record as written, so the writer must not cut it."""
    path = tmp_path / "samples.jsonl"
    whole = line(record("a")) + line(record("b"))
    path.write_bytes(whole[:-1])
    assert [r["key"] for r in read_records(path)] == ["a", "b"]
    with SampleWriter(path) as writer:
        writer.append(record("c"))
    assert path.read_bytes() == whole + line(record("c"))
    assert [r["key"] for r in read_records(path)] == ["a", "b", "c"]


def test_sample_writer_cuts_a_file_that_is_only_a_torn_line(tmp_path):
    path = tmp_path / "samples.jsonl"
    path.write_bytes(b'{"key": "a", "text": "ans')
    with SampleWriter(path) as writer:
        writer.append(record("b"))
    assert path.read_bytes() == line(record("b"))


def test_sample_writer_cuts_a_torn_line_longer_than_its_read_chunk(tmp_path):
    path = tmp_path / "samples.jsonl"
    first = line(record("a", text="x" * 10))
    long_torn = line(record("b", text="y" * (3 << 20)))[: (5 << 19)]  # 2.5 MiB, no newline
    path.write_bytes(first + long_torn)
    with SampleWriter(path):
        pass
    assert path.read_bytes() == first


def test_sample_writer_keeps_whole_files_and_creates_folders(tmp_path):
    path = tmp_path / "deep" / "run" / "samples.jsonl"
    with SampleWriter(path) as writer:
        writer.append(record("a"))
    with SampleWriter(path) as writer:
        writer.append(record("b"))
    assert path.read_bytes() == line(record("a")) + line(record("b"))


def test_is_done_answers_and_final_errors_only():
    assert is_done(record("a"))
    assert is_done(record("a", FINAL))
    assert not is_done(record("a", TRANSIENT))


def write_lines(path: Path, *records: dict[str, Any]) -> Path:
    path.write_bytes(b"".join(line(r) for r in records))
    return path


def test_latest_records_prefers_a_done_record_over_a_later_transient_error(tmp_path):
    path = write_lines(tmp_path / "s.jsonl", record("a", text="first"), record("a", TRANSIENT),
                       record("b", TRANSIENT), record("b", text="done"), record("b", TRANSIENT))
    latest = latest_records(path)
    assert latest["a"]["text"] == "first" and latest["a"]["error"] is None
    assert latest["b"]["text"] == "done"


def test_latest_records_takes_the_last_done_or_the_last_failure(tmp_path):
    path = write_lines(tmp_path / "s.jsonl", record("a", text="one"), record("a", text="two"),
                       record("b", TRANSIENT, n=1), record("b", TRANSIENT, n=2),
                       record("c", TRANSIENT), record("c", FINAL))
    latest = latest_records(path)
    assert latest["a"]["text"] == "two"
    assert latest["b"]["n"] == 2
    assert latest["c"]["error"]["kind"] == "context_length"


# --- in-process resume -----------------------------------------------------------------------


def done_key_counts(run_dir: Path) -> Counter:
    return Counter(r["key"] for r in samples_lines(run_dir) if is_done(r))


def expected_keys(run_dir: Path) -> set[str]:
    return {e["key"] for e in read_json(run_dir / "run.json")["expected"]}


def test_resume_after_a_torn_write_redoes_only_the_lost_samples(eval_release, release_rows, tmp_path):
    script = make_script(release_rows)
    run_dir = tmp_path / "run"
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, run_dir)
        first = run(spec, backend=fast_backend(spec), progress=False)
        lines = (run_dir / "samples.jsonl").read_bytes().splitlines(keepends=True)
        kept = 10
        (run_dir / "samples.jsonl").write_bytes(b"".join(lines[:kept]) + lines[kept][: len(lines[kept]) // 2])
        before = sum(script.attempts.values())
        second = run(spec, backend=fast_backend(spec), progress=False)
    assert sum(script.attempts.values()) - before == TOTAL_ROWS - kept
    assert second.new_samples == TOTAL_ROWS - kept and second.skipped_done == kept
    assert second.results["scores"] == first.results["scores"]
    assert done_key_counts(run_dir) == Counter({key: 1 for key in expected_keys(run_dir)})


class DiscoveringBackend(ScriptedBackend):
    """Learns its window at preflight, as the openai backend asks the server for it and how to count."""

    def __init__(self) -> None:
        super().__init__(lambda content: "an answer")
        self.window: int | None = None

    def describe(self) -> dict[str, Any]:
        return {"backend": "scripted", "window": self.window}

    async def preflight(self, wait_s: float = 0.0) -> None:
        await super().preflight(wait_s)
        self.window = 4096


def test_a_rerun_with_nothing_to_do_keeps_what_the_backend_learned(eval_release, tmp_path):
    """Nothing pending: no preflight, so the backend knows less than the invocation that ran; the
    run file's provenance (and the results') must not lose those facts."""
    spec = make_spec(eval_release, "http://127.0.0.1:9/v1", tmp_path / "run")
    first = run(spec, backend=DiscoveringBackend(), progress=False)
    again = DiscoveringBackend()
    second = run(spec, backend=again, progress=False)
    assert again.preflights == 0 and again.prompts == [] and second.new_samples == 0
    assert first.results["provenance"]["window"] == 4096
    assert second.results["provenance"] == first.results["provenance"]


def test_resume_keeps_a_whole_last_record_that_lost_only_its_newline(eval_release, release_rows, tmp_path):
    """A write cut exactly before its newline leaves a whole record; the reader counts it as done,
    so the appender must keep it too, or the resumed run silently loses that sample."""
    failing = row_id("mk_niah_basic", 1024, 0)
    script = make_script(release_rows, {failing: ["503"]})
    run_dir = tmp_path / "run"
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, run_dir, max_retries=0)
        first = run(spec, backend=fast_backend(spec), progress=False)
        assert first.results["counts"]["missing"] == 1
        records = samples_lines(run_dir)
        retry = [r for r in records if r["row_id"] == failing]
        done = [r for r in records if r["row_id"] != failing]
        raw = b"".join(line(r) for r in retry + done)
        (run_dir / "samples.jsonl").write_bytes(raw[:-1])  # the last done record lost only its "\n"
        assert len(latest_records(run_dir / "samples.jsonl")) == TOTAL_ROWS
        with_faults(script, {failing: ["ok"]})
        second = run(spec, backend=fast_backend(spec), progress=False)
    assert second.new_samples == 1
    assert second.results["counts"]["missing"] == 0
    assert second.results["complete"] is True
    assert done_key_counts(run_dir) == Counter({key: 1 for key in expected_keys(run_dir)})


# --- SIGKILL ---------------------------------------------------------------------------------

HANG_S = 0.05  # every answer takes this long, so a run lasts long enough to be killed mid-stream
KILLS = 4


def run_command(release: Path, base_url: str, out: Path) -> list[str]:
    return [sys.executable, "-m", "eval", "run", "--dataset", str(release), "--config", ",".join(CONFIGS),
            "--model", MODEL, "--base-url", base_url, "--output-dir", str(out), "--concurrency", "2",
            "--timeout", "5", "--max-retries", "2", "--no-progress"]


def line_count(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def start(command: list[str]) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)


def kill_at(proc: subprocess.Popen, samples: Path, plan: tuple[str, float], deadline_s: float = 60.0) -> bool:
    """SIGKILL ``proc`` after a delay or once ``samples`` holds a number of lines; True if it was running."""
    mode, value = plan
    give_up = time.monotonic() + deadline_s
    if mode == "time":
        try:
            proc.wait(timeout=value)
        except subprocess.TimeoutExpired:
            pass
    else:
        goal = max(value, line_count(samples) + 1)  # at least one new sample in this invocation
        while proc.poll() is None and line_count(samples) < goal and time.monotonic() < give_up:
            time.sleep(0.002)
        time.sleep(random.Random(value).uniform(0.0, 0.03))  # land anywhere in the write cycle
    was_running = proc.poll() is None
    proc.kill()
    proc.communicate(timeout=deadline_s)
    return was_running


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0])
def test_sigkill_at_random_points_then_rerun_matches_an_uninterrupted_run(eval_release, release_rows, tmp_path,
                                                                         seed):
    rng = random.Random(seed)
    script = make_script(release_rows, {row["id"]: ["hang"] for rows in release_rows.values() for row in rows},
                         hang_s=HANG_S)
    killed_dir, reference_dir = tmp_path / "killed", tmp_path / "reference"
    samples = killed_dir / "samples.jsonl"
    plans: list[tuple[str, float]] = [("time", rng.uniform(0.2, 1.0))]  # often before the first sample
    plans += [("lines", float(n)) for n in sorted(rng.sample(range(1, TOTAL_ROWS // 2 + 4), KILLS - 1))]
    with stub_server(script) as server:
        command = run_command(eval_release, server.base_url, killed_dir)
        killed_mid_run = 0
        for number, plan in enumerate(plans):
            proc = start(command)
            killed_mid_run += kill_at(proc, samples, plan)
            if number == 1 and samples.is_file():
                # A kill inside a large write leaves part of a record; the next run must cut it.
                last = samples.read_bytes().splitlines(keepends=True)[-1]
                with samples.open("ab") as handle:
                    handle.write(last[: len(last) // 3])
        assert killed_mid_run >= KILLS - 1, "the runs finished before they could be killed"
        assert line_count(samples) < TOTAL_ROWS
        for _ in range(3):
            finished = subprocess.run(command, env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO,
                                      capture_output=True, text=True, timeout=120)
            if finished.returncode == 0:
                break
        assert finished.returncode == 0, finished.stderr
        reference_spec = make_spec(eval_release, server.base_url, reference_dir, concurrency=2, timeout_s=5.0,
                                   max_retries=2)
        reference = run(reference_spec, backend=fast_backend(reference_spec), progress=False)

    results = read_json(killed_dir / "results.json")
    assert results["scores"] == reference.results["scores"]
    assert results["counts"] == reference.results["counts"] == {
        "expected": TOTAL_ROWS, "answered": TOTAL_ROWS, "errors": {}, "missing": 0}
    assert results["complete"] is True
    keys = expected_keys(killed_dir)
    assert keys == expected_keys(reference_dir)
    records = samples_lines(killed_dir)  # every line parses: the torn tail was cut
    assert Counter(r["key"] for r in records if is_done(r)) == Counter({key: 1 for key in keys})
    assert {r["key"] for r in records} == keys
    new, skipped = map(int, re.search(r"^(\d+) new samples, (\d+) already done$", finished.stdout, re.M).groups())
    assert skipped > 0 and new + skipped == TOTAL_ROWS
