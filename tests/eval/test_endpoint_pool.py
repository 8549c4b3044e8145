"""``--base-url`` repeated: one run spread over several servers of a model, failing over when one dies.

Issue 26, item 2: requests are shared by the endpoints (each with its own concurrency); an
endpoint that dies mid-run has its requests answered by the others; no sample is lost or
answered twice, and the scores equal a one-server run's.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from click.testing import CliRunner

from eval.cli import main
from eval.runner import run
from needlework.backends import backend_for
from needlework.backends.base import BackendError
from needlework.backends.pool import PooledBackend
from needlework.errors import SpecError
from tests.support.releases import (  # noqa: F401 - eval_release and release_rows are fixtures
    MODEL,
    TOTAL_ROWS,
    eval_release,
    make_script,
    make_spec,
    read_json,
    release_rows,
    samples_lines,
    stub_server,
)


def answered_keys(run_dir) -> Counter:
    return Counter(line["key"] for line in samples_lines(run_dir) if line.get("error") is None)


def scores(results: dict) -> dict:
    return {k: results[k] for k in ("overall", "per_config")} if "per_config" in results else results["scores"]


def test_two_endpoints_share_the_requests_and_score_as_one(eval_release, release_rows, tmp_path):
    one_script, a_script, b_script = (make_script(release_rows) for _ in range(3))
    with stub_server(one_script) as one:
        single = run(make_spec(eval_release, one.base_url, tmp_path / "one"), progress=False)
    with stub_server(a_script) as a, stub_server(b_script) as b:
        pooled = run(make_spec(eval_release, (a.base_url, b.base_url), tmp_path / "two"), progress=False)
    assert sum(a_script.attempts.values()) > 0 and sum(b_script.attempts.values()) > 0
    assert sum(a_script.attempts.values()) + sum(b_script.attempts.values()) == TOTAL_ROWS  # each asked once
    assert pooled.results["scores"] == single.results["scores"]
    provenance = pooled.results["provenance"]
    assert provenance["base_url"] == [a.base_url, b.base_url]
    assert sum(provenance["answered_per_endpoint"].values()) == TOTAL_ROWS and provenance["endpoints_down"] == []
    assert answered_keys(tmp_path / "two") == Counter({key: 1 for key in answered_keys(tmp_path / "one")})


def test_a_server_that_dies_mid_run_loses_and_duplicates_nothing(eval_release, release_rows, tmp_path):
    """Server A holds its requests (each would take 5 s) and is killed once it holds two: the run
    completes on B, every sample answered exactly once, with the one-server scores."""
    with stub_server(make_script(release_rows)) as one:
        single = run(make_spec(eval_release, one.base_url, tmp_path / "one"), progress=False)
    slow = make_script(release_rows, hang_s=5.0)
    slow.faults = {row["id"]: ["hang"] for rows in release_rows.values() for row in rows}
    fast = make_script(release_rows)
    with stub_server(slow) as a, stub_server(fast) as b:
        def kill_when_busy() -> None:
            deadline = time.monotonic() + 10
            while sum(slow.attempts.values()) < 2 and time.monotonic() < deadline:
                time.sleep(0.01)
            a.kill()

        killer = threading.Thread(target=kill_when_busy)
        killer.start()
        spec = make_spec(eval_release, (a.base_url, b.base_url), tmp_path / "two", timeout_s=30.0)
        pooled = run(spec, progress=False)
        killer.join()
    assert sum(slow.attempts.values()) >= 2
    assert max(slow.attempts.values()) == 1  # a dead endpoint is left at once: no retry went to A
    assert answered_keys(tmp_path / "two") == Counter({key: 1 for key in answered_keys(tmp_path / "one")})
    assert len(answered_keys(tmp_path / "two")) == TOTAL_ROWS
    assert pooled.results["scores"] == single.results["scores"]
    assert pooled.results["counts"]["answered"] == TOTAL_ROWS
    provenance = pooled.results["provenance"]
    assert provenance["endpoints_down"] == [a.base_url] and provenance["failovers"] >= 2
    assert provenance["answered_per_endpoint"] == {a.base_url: 0, b.base_url: TOTAL_ROWS}


def test_the_cli_takes_base_url_repeated(eval_release, release_rows, tmp_path):
    with stub_server(make_script(release_rows)) as a, stub_server(make_script(release_rows)) as b:
        result = CliRunner().invoke(main, ["run", "--dataset", str(eval_release), "--config", "mk_niah_basic", "--model", MODEL, "--base-url", a.base_url,
                                           "--base-url", b.base_url, "--output-dir", str(tmp_path / "run"),
                                           "--no-progress", "--concurrency", "2"])
    assert result.exit_code == 0, result.output
    assert read_json(tmp_path / "run" / "results.json")["provenance"]["base_url"] == [a.base_url, b.base_url]


def test_one_url_is_a_plain_backend_and_a_repeated_url_is_refused():
    assert not isinstance(backend_for("openai", MODEL, base_url=("http://a/v1",)), PooledBackend)
    assert isinstance(backend_for("openai", MODEL, base_url=("http://a/v1", "http://b/v1")), PooledBackend)
    with pytest.raises(SpecError, match="same endpoint"):
        backend_for("openai", MODEL, base_url=("http://a/v1", "http://a/v1"))


def test_a_run_whose_every_endpoint_dies_stops_and_says_so(eval_release, release_rows, tmp_path):
    """Both servers hold their requests and are killed: the held requests are recorded as connection
    errors (resumable) and the run stops naming the cause, with the rest never sent."""
    scripts = [make_script(release_rows, hang_s=5.0) for _ in range(2)]
    for script in scripts:
        script.faults = {row["id"]: ["hang"] for rows in release_rows.values() for row in rows}
    with stub_server(scripts[0]) as a, stub_server(scripts[1]) as b:
        def kill_when_busy() -> None:
            deadline = time.monotonic() + 10
            while min(sum(s.attempts.values()) for s in scripts) < 1 and time.monotonic() < deadline:
                time.sleep(0.01)
            a.kill()
            b.kill()

        killer = threading.Thread(target=kill_when_busy)
        killer.start()
        with pytest.raises(BackendError, match="every endpoint is down"):
            run(make_spec(eval_release, (a.base_url, b.base_url), tmp_path / "run", timeout_s=30.0), progress=False)
        killer.join()
    records = samples_lines(tmp_path / "run")
    assert records and all(r["error"]["kind"] == "connection" for r in records)
    assert len(records) < TOTAL_ROWS
