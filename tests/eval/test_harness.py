"""The eval harness end to end against the scripted stub on loopback: scores, accounting, CLI."""

from __future__ import annotations

import json
import shutil
import uuid
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from click.testing import CliRunner

import needlework
from eval.cli import main
from eval.runner import RunFailed, RunOutcome, run, score_run
from eval.task import TaskOptions
from needlework.backends.base import BackendError
from tests.support.openai_stub import Script, StubServer
from tests.support.releases import (  # noqa: F401 - eval_release and release_rows are fixtures
    CONFIGS,
    MODEL,
    ROWS_PER_CONFIG,
    TOTAL_ROWS,
    eval_release,
    expected_scores,
    fast_backend,
    final_action,
    make_script,
    make_spec,
    read_json,
    release_rows,
    row_id,
    samples_lines,
    serve_app,
    sha256_file,
    stub_answer,
    stub_server,
)

MISTAKES = {
    row_id("mk_niah_basic", 1024, 0): ["wrong"],
    row_id("mk_niah_basic", 2048, 3): ["empty"],
    row_id("mk_niah_basic", 2048, 5): ["half"],  # one reference: half of it is nothing
    row_id("mk_niah_basic", 1024, 2): ["think"],
    row_id("mv_niah_basic", 1024, 1): ["half"],
    row_id("mv_niah_basic", 1024, 4): ["think"],
    row_id("mv_niah_basic", 2048, 2): ["wrong"],
    row_id("mv_niah_basic", 2048, 5): ["empty"],
}


def invoke(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env)


@dataclass
class ScriptedRun:
    server: StubServer
    script: Script
    outcome: RunOutcome
    spec: Any

    @property
    def run_dir(self) -> Path:
        return self.outcome.run_dir


@pytest.fixture(scope="module")
def scripted(eval_release, release_rows, tmp_path_factory):
    """One finished run where the stub makes the scripted mistakes; the stub keeps running."""
    script = make_script(release_rows, MISTAKES)
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path_factory.mktemp("runs") / "scripted")
        outcome = run(spec, backend=fast_backend(spec), progress=False)
        yield ScriptedRun(server, script, outcome, spec)


def test_scores_follow_the_script_exactly(scripted, release_rows):
    expected = expected_scores(release_rows, MISTAKES)
    scores = scripted.outcome.results["scores"]
    # By hand: mk loses wrong, empty and half (one reference) -> 9/12; mv has half (0.5), wrong, empty -> 9.5/12.
    assert expected["config"] == {"mk_niah_basic": round(9 / 12, 6), "mv_niah_basic": round(9.5 / 12, 6)}
    assert scores["overall"]["score"] == expected["overall"][None] == round(18.5 / 24, 6)
    assert scores["overall"]["score_answered"] == expected["overall"][None]
    assert scores["overall"]["n"] == TOTAL_ROWS and scores["overall"]["n_errors"] == 0
    assert {c: s["score"] for c, s in scores["by"]["config"].items()} == expected["config"]
    assert {c: s["n"] for c, s in scores["by"]["config"].items()} == {c: ROWS_PER_CONFIG for c in CONFIGS}
    assert {k: s["score"] for k, s in scores["by"]["length"].items()} == expected["length"]
    assert {k: s["score"] for k, s in scores["by"]["depth"].items()} == expected["depth"]
    assert {k: s["score"] for k, s in scores["by"]["task"].items()} == {
        f"rulerv2/{c}": v for c, v in expected["config"].items()}
    cells = {(c["config"], c["length"], c["depth"]): c["score"] for c in scores["cells"]}
    assert cells == expected["cells"]
    assert sum(c["n"] for c in scores["cells"]) == TOTAL_ROWS


def test_samples_record_each_answer_once(scripted, release_rows):
    records = samples_lines(scripted.run_dir)
    assert len(records) == TOTAL_ROWS
    by_row = {r["row_id"]: r for r in records}
    assert len(by_row) == TOTAL_ROWS
    for config, rows in release_rows.items():
        for row in rows:
            record = by_row[row["id"]]
            assert record["config"] == config
            assert record["references"] == list(row["answers"])
            assert record["text"] == stub_answer(final_action(MISTAKES.get(row["id"])), row["answers"])
            assert record["error"] is None and record["attempts"] == 1
            assert record["finish_reason"] == "stop"
    assert scripted.script.attempts == Counter({row["id"]: 1 for rows in release_rows.values() for row in rows})


def test_results_counts_usage_and_provenance(scripted, release_rows, eval_release):
    results = read_json(scripted.run_dir / "results.json")
    assert results == scripted.outcome.results
    assert results["counts"] == {"expected": TOTAL_ROWS, "answered": TOTAL_ROWS, "errors": {}, "missing": 0}
    assert results["complete"] is True
    assert results["reportable"] is True and results["not_reportable_because"] == []
    assert results["stopped"] is None
    rows = [row for rows in release_rows.values() for row in rows]
    prompt = sum(len(row["input"]) // 4 for row in rows)  # the stub reports characters // 4 per request
    completion = sum(max(1, len(stub_answer(final_action(MISTAKES.get(row["id"])), row["answers"])) // 4)
                     for row in rows)
    assert results["usage"] == {"prompt_tokens": prompt, "completion_tokens": completion, "reasoning_tokens": 0}
    assert results["timing"]["requests"] == TOTAL_ROWS and results["timing"]["attempts"] == TOTAL_ROWS
    provenance = results["provenance"]
    assert provenance["manifest_sha256"] == sha256_file(eval_release / "manifest.json")
    assert provenance["needlework_version"] == needlework.__version__
    assert provenance["base_url"] == scripted.server.base_url
    assert provenance["tokenizer"]["name"] == "qwen2.5"
    assert results["run"]["model"] == MODEL
    assert results["run"]["revision"] == "sha256:" + sha256_file(eval_release / "manifest.json")
    assert results["run"]["configs"] == list(CONFIGS)
    run_file = read_json(scripted.run_dir / "run.json")
    assert len(run_file["expected"]) == TOTAL_ROWS
    assert {e["key"] for e in run_file["expected"]} == {r["key"] for r in samples_lines(scripted.run_dir)}


def test_generation_defaults_reach_the_server(eval_release, release_rows, tmp_path):
    script = make_script(release_rows, keep_payloads=True)
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run", limit=1, seed=7)
        run(spec, backend=fast_backend(spec), progress=False)
    assert len(script.payloads) == 2
    for payload in script.payloads:
        assert payload["model"] == MODEL
        assert payload["temperature"] == 0.0 and payload["max_tokens"] == 128 and payload["seed"] == 7
        assert [m["role"] for m in payload["messages"]] == ["user"]
        assert "continue_final_message" not in payload


def test_limit_marks_the_run_not_reportable(scripted, eval_release, tmp_path):
    spec = make_spec(eval_release, scripted.server.base_url, tmp_path / "limited", limit=2)
    results = run(spec, backend=fast_backend(spec), progress=False).results
    assert results["counts"]["expected"] == 4
    assert results["scores"]["overall"]["n"] == 4
    assert results["complete"] is True
    assert results["reportable"] is False
    assert any("--limit 2" in reason for reason in results["not_reportable_because"])
    assert {r["row_id"] for r in samples_lines(tmp_path / "limited")} == {
        row_id(c, 1024, i) for c in CONFIGS for i in (0, 1)}


def copy_run(scripted: ScriptedRun, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(scripted.run_dir, target)
    return target


def test_score_run_rescores_identically(scripted, tmp_path):
    run_dir = copy_run(scripted, tmp_path)
    (run_dir / "results.json").unlink()
    rescored = score_run(run_dir)
    assert rescored["scores"] == scripted.outcome.results["scores"]
    assert rescored["counts"] == scripted.outcome.results["counts"]
    assert rescored["usage"] == scripted.outcome.results["usage"]


def test_score_cli_rescores_identically(scripted, tmp_path):
    run_dir = copy_run(scripted, tmp_path)
    before = read_json(run_dir / "results.json")
    (run_dir / "results.json").write_text("{}", encoding="utf-8")
    result = invoke("score", str(run_dir))
    assert result.exit_code == 0, result.output
    after = read_json(run_dir / "results.json")
    assert after["scores"] == before["scores"]
    overall = before["scores"]["overall"]["score"]
    lines = result.output.splitlines()
    assert lines[0] == f"{run_dir / 'results.json'}: score {100 * overall:.1f}% over {TOTAL_ROWS} samples (0 errors)"
    by_config = before["scores"]["by"]["config"]
    assert lines[1:] == [f"  {c}: {100 * by_config[c]['score']:.1f}% (n={ROWS_PER_CONFIG})" for c in CONFIGS]


def test_score_cli_on_a_folder_that_is_not_a_run(tmp_path):
    result = invoke("score", str(tmp_path))
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and "run.json" in result.output
    assert "Traceback" not in result.output


def test_score_cli_names_a_corrupt_run_file(scripted, tmp_path):
    run_dir = copy_run(scripted, tmp_path)
    (run_dir / "run.json").write_text('{"run": ', encoding="utf-8")
    result = invoke("score", str(run_dir))
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and str(run_dir / "run.json") in result.output
    assert "Traceback" not in result.output


def test_count_cli_prints_row_counts(eval_release, release_rows):
    result = invoke("count", "--dataset", str(eval_release), "--config", ",".join(CONFIGS))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("tokenizer: qwen2.5")
    table = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert set(table) == {*CONFIGS, "total"}
    for config in CONFIGS:
        rows, prompt, longest, max_output, cost = table[config]
        assert int(rows) == ROWS_PER_CONFIG
        # n_tokens is the qwen2.5 count of each input; one user message adds 3 + 4 chat tokens.
        tokens = [row["n_tokens"] + 7 for row in release_rows[config]]
        assert int(prompt.replace(",", "")) == sum(tokens)
        assert int(longest.replace(",", "")) == max(tokens)
        assert int(max_output.replace(",", "")) == 128 * ROWS_PER_CONFIG
        assert cost == "-"
    assert int(table["total"][0]) == 2 * ROWS_PER_CONFIG


def test_count_cli_with_limit_and_prices(eval_release):
    result = invoke("count", "--dataset", str(eval_release), "--config", "mk_niah_basic", "--limit", "3",
                    "--price-input", "1000000", "--price-output", "0")
    assert result.exit_code == 0, result.output
    row = result.output.splitlines()[2].split()
    assert row[0] == "mk_niah_basic" and row[1] == "3"
    assert float(row[5]) == float(row[2].replace(",", ""))  # $1 per token: cost equals the prompt tokens


def test_report_cli_writes_report_md(scripted, tmp_path):
    out = tmp_path / "report"
    result = invoke("report", str(scripted.run_dir), "--out", str(out))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[:2] == [str(out / "report.html"), str(out / "report.md")]  # the page to open first
    text = (out / "report.md").read_text(encoding="utf-8")
    assert MODEL in text and MODEL in (out / "report.html").read_text(encoding="utf-8")
    for line in lines[2:]:
        assert Path(line).read_bytes().startswith(b"\x89PNG")


def test_rerunning_the_same_spec_makes_no_requests(scripted, tmp_path):
    run_dir = copy_run(scripted, tmp_path)
    before = Counter(scripted.script.attempts)
    spec = replace(scripted.spec, output_dir=run_dir)
    outcome = run(spec, backend=fast_backend(spec), progress=False)
    assert scripted.script.attempts == before
    assert outcome.new_samples == 0 and outcome.skipped_done == TOTAL_ROWS
    assert outcome.results["scores"] == scripted.outcome.results["scores"]
    assert len(samples_lines(run_dir)) == TOTAL_ROWS


def test_changing_generation_settings_makes_new_keys(scripted, tmp_path):
    run_dir = copy_run(scripted, tmp_path)
    old_keys = {e["key"] for e in read_json(run_dir / "run.json")["expected"]}
    before = Counter(scripted.script.attempts)
    spec = replace(scripted.spec, output_dir=run_dir, generation={"temperature": 0.5})
    outcome = run(spec, backend=fast_backend(spec), progress=False)
    new_keys = {e["key"] for e in read_json(run_dir / "run.json")["expected"]}
    assert len(new_keys) == TOTAL_ROWS and not new_keys & old_keys
    assert outcome.new_samples == TOTAL_ROWS and outcome.skipped_done == 0
    assert scripted.script.attempts == before + Counter({rid: 1 for rid in before})
    assert outcome.results["run"]["generation"] == {"temperature": 0.5}
    assert len(samples_lines(run_dir)) == 2 * TOTAL_ROWS
    assert outcome.results["scores"] == scripted.outcome.results["scores"]  # the stub answers the same


@pytest.mark.parametrize(
    "change", [{"seed": 1}, {"model": "other-model"}, {"task_options": TaskOptions(answer_prefix="omit")}])
def test_other_changes_make_new_keys_too(scripted, tmp_path, change):
    run_dir = copy_run(scripted, tmp_path)
    spec = replace(scripted.spec, output_dir=run_dir, limit=1, **change)
    outcome = run(spec, backend=fast_backend(spec), progress=False)
    assert outcome.new_samples == 2 and outcome.skipped_done == 0


def test_answer_prefix_assistant_is_prefilled_and_continued(eval_release, release_rows, tmp_path):
    script = make_script(release_rows, keep_payloads=True)
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run",
                         task_options=TaskOptions(answer_prefix="assistant"))
        outcome = run(spec, backend=fast_backend(spec), progress=False)
    assert outcome.results["scores"]["overall"]["score"] == 1.0
    assert outcome.results["run"]["task_options"]["answer_prefix"] == "assistant"
    by_question = {row["input"][: -len(row["answer_prefix"])]: row for rows in release_rows.values() for row in rows}
    assert len(script.payloads) == TOTAL_ROWS
    for payload in script.payloads:
        user, assistant = payload["messages"]
        row = by_question[user["content"]]
        assert user == {"role": "user", "content": row["input"][: -len(row["answer_prefix"])]}
        assert assistant == {"role": "assistant", "content": row["answer_prefix"].strip()}
        assert payload["continue_final_message"] is True
        assert payload["add_generation_prompt"] is False
    usage = outcome.results["usage"]["prompt_tokens"]
    assert usage == sum((len(q) + len(r["answer_prefix"].strip())) // 4 for q, r in by_question.items())


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


def test_api_key_is_sent_but_never_written_or_printed(eval_release, release_rows, tmp_path):
    secret = f"sk-needlework-test-{uuid.uuid4().hex}"
    faults = {row_id("mk_niah_basic", 1024, 0): ["context"], row_id("mv_niah_basic", 1024, 0): ["429:0", "ok"]}
    script = make_script(release_rows, faults, api_key=secret)
    run_dir = tmp_path / "run"
    with stub_server(script) as server:
        result = invoke("run", "--dataset", str(eval_release), "--config", ",".join(CONFIGS), "--model", MODEL,
                        "--base-url", server.base_url, "--api-key-env", "NEEDLEWORK_TEST_SECRET_KEY",
                        "--output-dir", str(run_dir), "--max-retries", "1", "--timeout", "5", "--no-progress",
                        env={"NEEDLEWORK_TEST_SECRET_KEY": secret})
        again = invoke("score", str(run_dir))
        report = invoke("report", str(run_dir), "--out", str(run_dir / "report"))
    assert result.exit_code == 0, result.output
    # The stub answers 401 without the key, so every answer proves the key was sent.
    assert read_json(run_dir / "results.json")["counts"]["answered"] == TOTAL_ROWS - 1
    assert result.output.splitlines()[-1] == f"{TOTAL_ROWS} new samples, 0 already done"
    files = files_under(run_dir)
    assert {"run.json", "samples.jsonl", "results.json", "report.md"} <= {p.name for p in files}
    for path in files:
        assert secret.encode() not in path.read_bytes(), path
    for output in (result.output, again.output, report.output):
        assert secret not in output


def test_run_cli_summary_and_resume(eval_release, release_rows, tmp_path):
    script = make_script(release_rows, MISTAKES)
    run_dir = tmp_path / "run"
    with stub_server(script) as server:
        args = ["run", "--dataset", str(eval_release), "--config", CONFIGS[0], "--config", CONFIGS[1],
                "--model", MODEL, "--base-url", server.base_url, "--output-dir", str(run_dir), "--no-progress",
                "--gen-kwargs", "temperature=0,max_tokens=64"]
        first = invoke(*args)
        second = invoke(*args)
    assert first.exit_code == 0, first.output
    assert second.exit_code == 0, second.output
    expected = expected_scores(release_rows, MISTAKES)
    assert first.output.splitlines()[0] == (
        f"{run_dir / 'results.json'}: score {100 * expected['overall'][None]:.1f}% over {TOTAL_ROWS} samples (0 errors)")
    assert first.output.splitlines()[-1] == f"{TOTAL_ROWS} new samples, 0 already done"
    assert second.output.splitlines()[-1] == f"0 new samples, {TOTAL_ROWS} already done"
    assert sum(script.attempts.values()) == TOTAL_ROWS
    assert read_json(run_dir / "run.json")["run"]["generation"] == {"temperature": 0, "max_tokens": 64}


def echoing_app(status: int) -> web.Application:
    """A server that echoes the Authorization header back in an error body, as careless proxies do."""

    async def chat(request: web.Request) -> web.Response:
        echoed = request.headers.get("Authorization", "")
        return web.json_response({"error": {"message": f"rejected credentials {echoed}"}}, status=status)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", chat)
    return app


def test_api_key_echoed_in_a_sample_error_is_masked(eval_release, tmp_path):
    secret = f"sk-needlework-test-{uuid.uuid4().hex}"
    with serve_app(echoing_app(400)) as base_url:
        spec = make_spec(eval_release, base_url, tmp_path / "run", limit=1)
        with pytest.raises(RunFailed, match="2 bad_request") as caught:  # every sample failed
            run(spec, backend=fast_backend(spec, api_key=secret), progress=False)
    records = samples_lines(tmp_path / "run")
    assert [r["error"]["kind"] for r in records] == ["bad_request", "bad_request"]
    assert all("Bearer ***" in r["error"]["message"] for r in records)  # the server did echo it
    assert json.loads((tmp_path / "run" / "results.json").read_text())["counts"]["errors"] == {"bad_request": 2}
    assert secret not in str(caught.value)
    for path in files_under(tmp_path / "run"):
        assert secret.encode() not in path.read_bytes(), path


def test_api_key_echoed_in_a_401_is_masked_in_the_error_and_results(eval_release, tmp_path):
    secret = f"sk-needlework-test-{uuid.uuid4().hex}"
    with serve_app(echoing_app(401)) as base_url:
        spec = make_spec(eval_release, base_url, tmp_path / "run", limit=1)
        with pytest.raises(BackendError, match="401") as caught:
            run(spec, backend=fast_backend(spec, api_key=secret), progress=False)
        result = invoke("run", "--dataset", str(eval_release), "--config", CONFIGS[0], "--model", MODEL,
                        "--base-url", base_url, "--api-key-env", "NEEDLEWORK_TEST_ECHO_KEY", "--output-dir",
                        str(tmp_path / "cli"), "--no-progress", env={"NEEDLEWORK_TEST_ECHO_KEY": secret})
    assert secret not in str(caught.value) and "Bearer ***" in str(caught.value)
    assert result.exit_code == 2 and "401" in result.output and "Bearer ***" in result.output, result.output
    assert secret not in result.output
    for path in files_under(tmp_path):
        assert secret.encode() not in path.read_bytes(), path


def test_a_moved_release_folder_resumes_its_runs(scripted, eval_release, tmp_path):
    moved = tmp_path / "elsewhere" / eval_release.name
    shutil.copytree(eval_release, moved)
    run_dir = copy_run(scripted, tmp_path)
    before = Counter(scripted.script.attempts)
    spec = replace(scripted.spec, dataset=str(moved), output_dir=run_dir)
    outcome = run(spec, backend=fast_backend(spec), progress=False)
    assert outcome.new_samples == 0 and scripted.script.attempts == before
    assert outcome.results["scores"] == scripted.outcome.results["scores"]


def test_a_full_run_after_a_limited_one_reuses_its_samples(scripted, eval_release, tmp_path):
    run_dir = tmp_path / "run"
    limited = replace(scripted.spec, output_dir=run_dir, limit=3)
    first = run(limited, backend=fast_backend(limited), progress=False)
    full = replace(scripted.spec, output_dir=run_dir)
    second = run(full, backend=fast_backend(full), progress=False)
    assert first.new_samples == 6
    assert second.new_samples == TOTAL_ROWS - 6 and second.skipped_done == 6
    assert second.results["reportable"] is True
    assert second.results["scores"] == scripted.outcome.results["scores"]


def test_a_repeated_config_is_run_once_or_rejected(eval_release, release_rows, tmp_path):
    """``--config a --config a`` must neither crash nor ask (and count) any row twice."""
    script = make_script(release_rows)
    run_dir = tmp_path / "run"
    with stub_server(script) as server:
        result = invoke("run", "--dataset", str(eval_release), "--config", CONFIGS[0], "--config", CONFIGS[0],
                        "--model", MODEL, "--base-url", server.base_url, "--output-dir", str(run_dir),
                        "--concurrency", "16", "--no-progress")
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    if result.exit_code == 0:
        assert script.attempts == Counter({row["id"]: 1 for row in release_rows[CONFIGS[0]]})
        results = read_json(run_dir / "results.json")
        assert results["counts"]["expected"] == ROWS_PER_CONFIG
        assert results["scores"]["overall"]["n"] == ROWS_PER_CONFIG
        assert len(samples_lines(run_dir)) == ROWS_PER_CONFIG
    else:
        assert result.exit_code == 2, result.output
        assert result.output.startswith("error: ") and CONFIGS[0] in result.output
        assert sum(script.attempts.values()) == 0


@pytest.mark.parametrize("command", ["run", "count"])
def test_reasoning_required_without_a_thinking_marker_is_a_usage_error(eval_release, command):
    """--reasoning required looks for --thinking-end; with the marker switched off the options contradict
    each other: one error line naming both, exit 2, before any row is read or request sent."""
    extra = ["--model", "m", "--base-url", "http://127.0.0.1:9/v1"] if command == "run" else []
    result = invoke(command, "--dataset", str(eval_release), "--config", "mk_niah_basic", *extra,
                    "--reasoning", "required", "--thinking-end", "")
    assert result.exit_code == 2, result.output
    assert "--reasoning required with --thinking-end ''" in result.output and "Traceback" not in result.output
