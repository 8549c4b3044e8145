"""Fault injection through the stub: retries, the error taxonomy, fatal errors and the error budget."""

from __future__ import annotations

import email.utils
import threading
import time
from collections import Counter

import numpy as np
import pytest
from click.testing import CliRunner

from eval.cli import main
from eval.runner import ErrorBudgetExceeded, RunFailed, describe_failures, run
from needlework.backends.base import BackendError, PreflightError
from needlework.backends.openai_compat import (
    RetryPolicy,
    build_payload,
    classify_http_error,
    parse_completion,
    parse_retry_after,
)
from tests.support.openai_stub import StubServer
from tests.support.ports import closed_port
from tests.support.releases import (  # noqa: F401 - eval_release and release_rows are fixtures
    CONFIGS,
    MODEL,
    TOTAL_ROWS,
    eval_release,
    expected_scores,
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

TIMEOUT_S = 0.5
HANG_S = 1.5
RETRY_AFTER_S = 0.3

RECOVERING = {
    row_id("mk_niah_basic", 1024, 0): ["429:0", "ok"],
    row_id("mk_niah_basic", 1024, 1): [f"429:{RETRY_AFTER_S}", "429", "ok"],
    row_id("mk_niah_basic", 1024, 2): ["500", "ok"],
    row_id("mk_niah_basic", 1024, 3): ["503", "503", "ok"],
    row_id("mk_niah_basic", 2048, 0): ["hang", "ok"],
    row_id("mk_niah_basic", 2048, 1): ["drop", "ok"],
    row_id("mk_niah_basic", 2048, 2): ["malformed", "ok"],
    row_id("mk_niah_basic", 2048, 3): ["drop", "malformed", "500", "ok"],  # max_retries + 1 attempts, just
    row_id("mv_niah_basic", 1024, 0): ["empty"],
    row_id("mv_niah_basic", 1024, 1): ["context"],
    row_id("mv_niah_basic", 2048, 0): ["429:0", "hang", "ok"],
    row_id("mv_niah_basic", 2048, 1): ["think"],
}


def all_row_ids(release_rows) -> list[str]:
    return [row["id"] for rows in release_rows.values() for row in rows]


def attempts_until_answer(plan: list[str]) -> int:
    """Attempts the harness needs for a plan: up to the first answer, or 1 for a final context error."""
    for number, action in enumerate(plan, start=1):
        if action in ("ok", "empty", "think", "wrong", "half", "context"):
            return number
    raise AssertionError(f"plan {plan} never answers")


@pytest.fixture(scope="module")
def recovered(eval_release, release_rows, tmp_path_factory):
    """A run through every recoverable fault (and an empty answer and a context-length error)."""
    script = make_script(release_rows, RECOVERING, hang_s=HANG_S)
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path_factory.mktemp("faults") / "run",
                         timeout_s=TIMEOUT_S, max_retries=3, concurrency=6)
        outcome = run(spec, backend=fast_backend(spec), progress=False)
        yield outcome, script


def test_faults_do_not_change_scores(recovered, release_rows):
    outcome, _ = recovered
    expected = expected_scores(release_rows, RECOVERING)
    scores = outcome.results["scores"]
    assert scores["overall"]["score"] == expected["overall"][None] == round(22 / 24, 6)
    assert {c: s["score"] for c, s in scores["by"]["config"].items()} == expected["config"]
    assert {k: s["score"] for k, s in scores["by"]["length"].items()} == expected["length"]
    assert scores["overall"]["n_errors"] == 1
    assert scores["overall"]["score_answered"] == round(22 / 23, 6)  # the context error is not an answer


def test_faults_are_retried_a_bounded_number_of_times(recovered, release_rows):
    outcome, script = recovered
    expected = Counter({rid: attempts_until_answer(RECOVERING.get(rid, ["ok"])) for rid in all_row_ids(release_rows)})
    assert script.attempts == expected
    records = {r["row_id"]: r for r in samples_lines(outcome.run_dir)}
    assert len(records) == TOTAL_ROWS  # one record per row: retries happen inside a sample
    assert {rid: r["attempts"] for rid, r in records.items()} == dict(expected)
    assert outcome.results["timing"]["attempts"] == sum(expected.values())
    assert records[row_id("mk_niah_basic", 1024, 1)]["latency_s"] >= RETRY_AFTER_S  # Retry-After honoured
    assert records[row_id("mk_niah_basic", 2048, 0)]["latency_s"] >= TIMEOUT_S


def test_empty_content_scores_zero_and_is_not_an_error(recovered):
    outcome, _ = recovered
    record = next(r for r in samples_lines(outcome.run_dir) if r["row_id"] == row_id("mv_niah_basic", 1024, 0))
    assert record["text"] == "" and record["error"] is None


def test_context_length_is_final_and_recorded(recovered):
    outcome, _ = recovered
    record = next(r for r in samples_lines(outcome.run_dir) if r["row_id"] == row_id("mv_niah_basic", 1024, 1))
    assert record["text"] is None
    assert record["error"]["kind"] == "context_length"
    assert record["error"]["status"] == 400 and record["error"]["final"] is True
    assert "maximum context length" in record["error"]["message"]
    assert record["attempts"] == 1
    results = outcome.results
    assert results["counts"] == {"expected": TOTAL_ROWS, "answered": TOTAL_ROWS - 1,
                                 "errors": {"context_length": 1}, "missing": 0}
    assert results["complete"] is True and results["reportable"] is True
    assert len(results["warnings"]) == 1 and "context window" in results["warnings"][0]


def test_answers_cut_off_by_max_tokens_are_counted_and_warned_about(eval_release, release_rows, tmp_path):
    cut = all_row_ids(release_rows)[:3]
    script = make_script(release_rows, {rid: ["length"] for rid in cut})
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run")
        outcome = run(spec, backend=fast_backend(spec), progress=False)
    results = outcome.results
    assert results["stopped_at_max_tokens"] == 3 and results["counts"]["answered"] == TOTAL_ROWS
    assert [w for w in results["warnings"] if "stopped at max_tokens" in w] == [
        f"3 of {TOTAL_ROWS} answers stopped at max_tokens (the row reserve; finish_reason 'length') and may be cut off "
        "before their answer; raise it with --gen-kwargs max_tokens=N and re-run to compare"]
    assert results["reportable"] is True  # a warning, not a reason to withhold the score


def test_context_errors_are_not_retried_nor_counted_against_the_budget(eval_release, release_rows, tmp_path):
    faults = {rid: ["context"] for rid in all_row_ids(release_rows)[::2]}  # half of all rows
    script = make_script(release_rows, faults)
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run", max_error_rate=0.1, max_retries=3)
        outcome = run(spec, backend=fast_backend(spec), progress=False)
    assert script.attempts == Counter({rid: 1 for rid in all_row_ids(release_rows)})
    assert outcome.results["counts"]["errors"] == {"context_length": len(faults)}
    assert outcome.results["complete"] is True and outcome.results["stopped"] is None
    assert outcome.results["scores"]["overall"]["score"] == 0.5
    # Final errors are done: a re-run asks nothing.
    rerun = run(spec, backend=fast_backend(spec), progress=False)
    assert rerun.new_samples == 0 and sum(script.attempts.values()) == TOTAL_ROWS


ALWAYS_FAILING = {
    row_id("mk_niah_basic", 1024, 0): (["503"], "http"),
    row_id("mk_niah_basic", 2048, 5): (["drop"], "connection"),
    row_id("mv_niah_basic", 1024, 3): (["malformed"], "malformed"),
    row_id("mv_niah_basic", 2048, 4): (["hang"], "timeout"),
}


def test_a_row_that_always_fails_gets_max_retries_plus_one_attempts_and_resumes_alone(
        eval_release, release_rows, tmp_path):
    max_retries = 2
    script = make_script(release_rows, {rid: plan for rid, (plan, _) in ALWAYS_FAILING.items()}, hang_s=HANG_S)
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run", timeout_s=TIMEOUT_S,
                         max_retries=max_retries, max_error_rate=0.5, concurrency=8)
        first = run(spec, backend=fast_backend(spec), progress=False)
        for rid in ALWAYS_FAILING:
            assert script.attempts[rid] == max_retries + 1
        healthy = TOTAL_ROWS - len(ALWAYS_FAILING)
        assert sum(script.attempts.values()) == healthy + len(ALWAYS_FAILING) * (max_retries + 1)
        records = {r["row_id"]: r for r in samples_lines(tmp_path / "run")}
        for rid, (_, kind) in ALWAYS_FAILING.items():
            assert records[rid]["error"]["kind"] == kind
            assert records[rid]["error"]["final"] is False
            assert records[rid]["attempts"] == max_retries + 1
            assert records[rid]["text"] is None
        assert records[row_id("mk_niah_basic", 1024, 0)]["error"]["status"] == 503
        results = first.results
        assert results["complete"] is False and results["reportable"] is False
        assert results["counts"]["missing"] == len(ALWAYS_FAILING)
        assert results["counts"]["errors"] == {"connection": 1, "http": 1, "malformed": 1, "timeout": 1}
        assert results["scores"]["overall"]["n_errors"] == len(ALWAYS_FAILING)
        assert results["scores"]["overall"]["score"] == round(20 / 24, 6)  # errors count as 0

        before = Counter(script.attempts)
        with_faults(script, {rid: ["ok"] for rid in ALWAYS_FAILING})
        second = run(spec, backend=fast_backend(spec), progress=False)
    assert script.attempts - before == Counter({rid: 1 for rid in ALWAYS_FAILING})
    assert second.new_samples == len(ALWAYS_FAILING) and second.skipped_done == TOTAL_ROWS - len(ALWAYS_FAILING)
    assert second.results["complete"] is True and second.results["reportable"] is True
    assert second.results["counts"] == {"expected": TOTAL_ROWS, "answered": TOTAL_ROWS, "errors": {}, "missing": 0}
    assert second.results["scores"]["overall"]["score"] == 1.0
    assert len(samples_lines(tmp_path / "run")) == TOTAL_ROWS + len(ALWAYS_FAILING)


def test_wrong_api_key_stops_the_run(eval_release, release_rows, tmp_path):
    script = make_script(release_rows, api_key="sk-right-key")
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run", max_retries=3)
        with pytest.raises(BackendError, match="401") as caught:
            run(spec, backend=fast_backend(spec, api_key="sk-wrong-key"), progress=False)
    assert "sk-wrong-key" not in str(caught.value) and "sk-right-key" not in str(caught.value)
    assert sum(script.attempts.values()) == 0  # rejected before any row was answered
    results = read_json(tmp_path / "run" / "results.json")
    assert results["complete"] is False
    assert "401" in results["stopped"]
    assert results["counts"]["missing"] == TOTAL_ROWS


def test_a_401_mid_run_keeps_finished_samples(eval_release, release_rows, tmp_path):
    bad = row_id("mv_niah_basic", 2048, 5)  # the last row in release order
    script = make_script(release_rows, {bad: ["401"]})
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run", concurrency=1)
        with pytest.raises(BackendError, match="HTTP 401"):
            run(spec, backend=fast_backend(spec), progress=False)
    assert script.attempts[bad] == 1  # a fatal status is not retried
    records = samples_lines(tmp_path / "run")
    assert len(records) == TOTAL_ROWS - 1 and all(r["error"] is None for r in records)
    results = read_json(tmp_path / "run" / "results.json")
    assert results["counts"]["missing"] == 1 and results["complete"] is False


def test_cli_wrong_api_key_exits_2_with_one_error_line(eval_release, release_rows, tmp_path):
    script = make_script(release_rows, api_key="sk-right-key")
    with stub_server(script) as server:
        result = CliRunner().invoke(main, [
            "run", "--dataset", str(eval_release), "--config", ",".join(CONFIGS), "--model", MODEL,
            "--base-url", server.base_url, "--api-key-env", "NEEDLEWORK_FAULTS_KEY", "--output-dir",
            str(tmp_path / "run"), "--no-progress"], env={"NEEDLEWORK_FAULTS_KEY": "sk-wrong-key"})
    assert result.exit_code == 2, result.output
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "401" in lines[0]
    assert "sk-wrong-key" not in result.output
    assert "Traceback" not in result.output


BUDGET_FAILING = 20  # of 24 rows; the budget is checked from the 20th finished sample on


def budget_faults(release_rows) -> dict[str, list[str]]:
    """The last 20 rows in release order always fail, so the first 4 finish (and stay) before the stop."""
    return {rid: ["500"] for rid in all_row_ids(release_rows)[-BUDGET_FAILING:]}


def test_error_budget_stops_the_run_and_keeps_finished_samples(eval_release, release_rows, tmp_path):
    faults = budget_faults(release_rows)
    script = make_script(release_rows, faults)
    run_dir = tmp_path / "run"
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, run_dir, max_retries=1, max_error_rate=0.1, concurrency=2)
        with pytest.raises(ErrorBudgetExceeded, match="--max-error-rate 0.1") as caught:
            run(spec, backend=fast_backend(spec), progress=False)
        assert caught.value.exit_status == 3
        records = samples_lines(run_dir)
        # At 20 finished samples at least 16 had failed (> 10%), so the run stops right there.
        assert len(records) == 20
        assert len({r["key"] for r in records}) == 20
        failed = [r for r in records if r["error"] is not None]
        done = [r for r in records if r["error"] is None]
        assert all(r["error"]["kind"] == "http" and r["attempts"] == 2 for r in failed)
        assert {r["row_id"] for r in done} == set(all_row_ids(release_rows)[:TOTAL_ROWS - BUDGET_FAILING])
        results = read_json(run_dir / "results.json")
        assert results["complete"] is False and results["reportable"] is False
        assert results["stopped"].startswith("stopped: ")
        assert results["counts"]["answered"] == len(done)
        assert results["counts"]["missing"] == TOTAL_ROWS - len(done)

        with_faults(script, {rid: ["ok"] for rid in faults})
        resumed = run(spec, backend=fast_backend(spec), progress=False)
    assert resumed.skipped_done == len(done) and resumed.new_samples == TOTAL_ROWS - len(done)
    assert resumed.results["complete"] is True and resumed.results["scores"]["overall"]["score"] == 1.0


def test_cli_error_budget_exits_3(eval_release, release_rows, tmp_path):
    script = make_script(release_rows, budget_faults(release_rows))
    with stub_server(script) as server:
        result = CliRunner().invoke(main, [
            "run", "--dataset", str(eval_release), "--config", ",".join(CONFIGS), "--model", MODEL,
            "--base-url", server.base_url, "--output-dir", str(tmp_path / "run"), "--no-progress",
            "--max-retries", "0", "--max-error-rate", "0.1", "--concurrency", "2"])
    assert result.exit_code == 3, result.output
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: stopped: "), lines
    assert read_json(tmp_path / "run" / "results.json")["complete"] is False


def test_error_budget_allows_failures_under_the_rate(eval_release, release_rows, tmp_path):
    faults = {rid: ["500"] for rid in all_row_ids(release_rows)[:2]}  # 2 of 24 <= 10%
    script = make_script(release_rows, faults)
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run", max_retries=0, max_error_rate=0.1)
        outcome = run(spec, backend=fast_backend(spec), progress=False)
    assert outcome.results["stopped"] is None
    assert outcome.results["counts"]["errors"] == {"http": 2} and outcome.results["complete"] is False


# --- the first requests of a run (issue 20) ----------------------------------------------------



def test_a_closed_port_fails_before_any_sample_is_sent(eval_release, tmp_path):
    """--limit 3 against nothing: one error line naming the refused connection, exit 2, nothing written.

    The preflight fails at its first connection attempt; before it, 3 samples x 7 attempts of
    backoff were spent (155 s) and the run exited 0.
    """
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(main, [
        "run", "--dataset", str(eval_release), "--config", CONFIGS[0], "--model", MODEL, "--limit", "3",
        "--base-url", f"http://127.0.0.1:{closed_port()}/v1", "--output-dir", str(run_dir), "--no-progress"])
    assert result.exit_code == 2, result.output
    (line,) = result.output.splitlines()
    assert line.startswith("error: cannot reach http://127.0.0.1:") and "connection refused" in line
    assert not run_dir.exists()


def test_the_preflight_names_the_models_the_server_serves(eval_release, release_rows, tmp_path):
    script = make_script(release_rows, models=("smollm2", "qwen"))
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run", model="smolm2")
        with pytest.raises(PreflightError, match="does not serve model 'smolm2'; it lists: qwen, smollm2"):
            run(spec, backend=fast_backend(spec), progress=False)
        assert sum(script.attempts.values()) == 0 and not (tmp_path / "run").exists()
        listed = make_spec(eval_release, server.base_url, tmp_path / "listed", model="smollm2", limit=1)
        assert run(listed, backend=fast_backend(listed), progress=False).new_samples == len(CONFIGS)


def test_the_preflight_refuses_a_rejected_key(eval_release, release_rows, tmp_path):
    script = make_script(release_rows, api_key="right", models=(MODEL,))
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run")
        with pytest.raises(PreflightError, match="HTTP 401"):
            run(spec, backend=fast_backend(spec, api_key="wrong"), progress=False)
    assert sum(script.attempts.values()) == 0


def test_a_small_run_whose_samples_all_fail_exits_3_naming_the_error(eval_release, release_rows, tmp_path):
    """Under 20 samples the budget never stops a run, but one with no answer exits 3; the message counts the kinds."""
    script = make_script(release_rows, {rid: ["500"] for rid in all_row_ids(release_rows)})
    with stub_server(script) as server:
        result = CliRunner().invoke(main, [
            "run", "--dataset", str(eval_release), "--config", ",".join(CONFIGS), "--model", MODEL, "--limit", "3",
            "--base-url", server.base_url, "--output-dir", str(tmp_path / "run"), "--no-progress", "--max-retries", "0"])
    assert result.exit_code == 3, result.output
    (line,) = result.output.splitlines()
    assert line.startswith("error: every one of the 6 samples failed") and "6 http (HTTP 500" in line
    assert read_json(tmp_path / "run" / "results.json")["counts"]["errors"] == {"http": 6}


def test_a_run_in_which_nothing_fits_the_window_exits_3(eval_release, release_rows, tmp_path):
    """Context-length errors do not spend the budget, but a run with no answer at all never exits 0."""
    script = make_script(release_rows, {rid: ["context"] for rid in all_row_ids(release_rows)})
    with stub_server(script) as server:
        spec = make_spec(eval_release, server.base_url, tmp_path / "run", limit=2)
        with pytest.raises(RunFailed, match="every one of the 4 samples failed.*4 context_length") as caught:
            run(spec, backend=fast_backend(spec), progress=False)
    assert caught.value.exit_status == 3
    results = read_json(tmp_path / "run" / "results.json")
    assert results["complete"] is True and results["stopped"].startswith("every one of the 4 samples failed")


def test_describe_failures_counts_the_most_frequent_kinds_first():
    errors = [{"kind": "timeout", "message": "no response within 600 s"}] * 2
    errors += [{"kind": "connection", "message": "connection refused (...)"}] * 5
    errors += [{"kind": k, "message": ""} for k in ("http", "malformed")]
    assert describe_failures(errors) == ("5 connection (connection refused (...)), 2 timeout (no response within 600 s), "
                                         "1 http, 1 other")


# --- units -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [("5", 5.0), ("0", 0.0), ("0.25", 0.25), ("120", 120.0), ("-3", 0.0), (None, None), ("", None), ("soon", None)],
)
def test_parse_retry_after_seconds(header, expected):
    assert parse_retry_after(header) == expected


def test_parse_retry_after_http_date():
    future = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28.0 <= parse_retry_after(future) <= 30.0
    past = email.utils.formatdate(time.time() - 3600, usegmt=True)
    assert parse_retry_after(past) == 0.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0


CONTEXT_MESSAGES = [
    # vLLM (OpenAI server), older and newer wordings
    '{"object":"error","message":"This model\'s maximum context length is 4096 tokens. However, you requested '
    '5000 tokens (4900 in the messages, 100 in the completion). Please reduce the length of the messages or '
    'completion.","type":"BadRequestError","param":null,"code":400}',
    '{"error":{"message":"The decoder prompt (length 5000) is longer than the maximum model length of 4096. Make '
    'sure that `max_model_len` is no smaller than the number of text tokens.","type":"BadRequestError"}}',
    # OpenAI
    '{"error":{"message":"This model\'s maximum context length is 128000 tokens. However, your messages resulted '
    'in 130000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages",'
    '"code":"context_length_exceeded"}}',
    # llama.cpp server
    '{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it",'
    '"type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}',
    # SGLang
    '{"object":"error","message":"The input (5000 tokens) is longer than the model\'s context length (4096 tokens).",'
    '"type":"BadRequestError","code":400}',
]


@pytest.mark.parametrize("text", CONTEXT_MESSAGES)
def test_classify_context_length_messages(text):
    error = classify_http_error(400, text)
    assert error.kind == "context_length" and error.final and error.status == 400
    assert error.message.startswith("HTTP 400: ")


@pytest.mark.parametrize(
    ("status", "text", "kind", "final"),
    [
        (400, '{"error":{"message":"temperature must be non-negative"}}', "bad_request", True),
        (422, '{"detail":"field required: messages"}', "bad_request", True),
        (413, "Request Entity Too Large", "bad_request", True),
        (503, "Service Unavailable", "http", False),
        (500, "internal error", "http", False),
        (502, "Bad Gateway", "http", False),
        (429, "rate limited", "http", False),
        (408, "Request Timeout", "http", False),
        (505, "HTTP Version Not Supported", "http", False),  # any 5xx, listed or not
        (599, "Network Connect Timeout", "http", False),
    ],
)
def test_classify_other_http_errors(status, text, kind, final):
    error = classify_http_error(status, text)
    assert (error.kind, error.final, error.status) == (kind, final, status)


def test_classify_truncates_long_bodies():
    error = classify_http_error(500, "x" * 10_000)
    assert len(error.message) < 600


@pytest.mark.parametrize("retry", range(8))
def test_retry_delay_is_full_jitter_within_bounds(retry):
    policy = RetryPolicy(max_retries=8, base_delay_s=0.5, max_delay_s=10.0)
    rng = np.random.default_rng(retry)
    bound = min(10.0, 0.5 * 2**retry)
    delays = [policy.delay_s(retry, None, rng) for _ in range(500)]
    assert all(0.0 <= d <= bound for d in delays)
    assert max(delays) > 0.8 * bound and min(delays) < 0.2 * bound  # spread over the whole range


def test_retry_delay_honours_retry_after_within_the_cap():
    policy = RetryPolicy(base_delay_s=0.5, max_delay_s=10.0)
    rng = np.random.default_rng(0)
    assert policy.delay_s(0, 3.5, rng) == 3.5
    assert policy.delay_s(5, 0.0, rng) == 0.0
    assert policy.delay_s(0, 1000.0, rng) == 10.0
    assert policy.delay_s(0, -5.0, rng) == 0.0


def test_build_payload_prefills_a_trailing_assistant_message():
    messages = ({"role": "user", "content": "q?"}, {"role": "assistant", "content": "The answer is"})
    payload = build_payload("m", messages, {"temperature": 0.0, "max_tokens": 8})
    assert payload == {"model": "m", "messages": [dict(m) for m in messages], "temperature": 0.0, "max_tokens": 8,
                       "continue_final_message": True, "add_generation_prompt": False}
    plain = build_payload("m", messages[:1], {})
    assert plain == {"model": "m", "messages": [{"role": "user", "content": "q?"}]}


def test_parse_completion_reads_text_reasoning_and_usage():
    body = {"choices": [{"message": {"content": "42", "reasoning_content": "think"}, "finish_reason": "length"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3,
                      "completion_tokens_details": {"reasoning_tokens": 2}}}
    text, reasoning, finish, usage = parse_completion(body)
    assert (text, reasoning, finish) == ("42", "think", "length")
    assert (usage.prompt_tokens, usage.completion_tokens, usage.reasoning_tokens) == (10, 3, 2)
    assert parse_completion({"choices": [{"message": {"content": None}}]})[0] == ""
    for bad in ({}, {"choices": []}, {"choices": [{}]}, [], {"choices": [{"message": {"content": 5}}]}):
        with pytest.raises(ValueError):
            parse_completion(bad)


def test_wait_for_server_reaches_a_server_that_starts_late(eval_release, release_rows, tmp_path):
    """--wait-for-server: the preflight keeps trying a refused port until the server listens."""
    script = make_script(release_rows, models=(MODEL,))
    port = closed_port()
    server = StubServer(script, port=port)
    starter = threading.Timer(1.0, server.start)
    starter.start()
    try:
        spec = make_spec(eval_release, f"http://127.0.0.1:{port}/v1", tmp_path / "run", limit=1, wait_for_server_s=30)
        outcome = run(spec, backend=fast_backend(spec), progress=False)
    finally:
        starter.join()
        server.stop()
    assert outcome.new_samples == len(CONFIGS) and outcome.results["complete"] is True
