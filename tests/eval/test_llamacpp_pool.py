"""Two real llama.cpp servers behind ``--base-url`` twice (issue 26, item 2's acceptance).

A run spread over both gives the scores of a run on one (greedy decoding, the same GGUF); killing
one server mid-run still completes the run on the other, with no sample lost or answered twice.
The servers are those of :mod:`tests.eval.test_llamacpp` (SmolLM2-135M-Instruct; skipped, or failed
under ``NEEDLEWORK_REQUIRE_LLAMACPP=1``, without the packages).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from builders.rulerv2 import RulerV2Build, build
from tests.eval.test_llamacpp import (
    ALIAS,
    REPO,
    Server,
    log_tail,
    running_server,
    served_model,  # noqa: F401 - a fixture
)

pytestmark = pytest.mark.slow  # one llama.cpp file at a time under xdist: tests/xdist_scheduling.py

CONFIG = "mk_niah_basic"
LENGTH = 128  # the needle and question alone (~100 tokens): what is tested is where the samples go, not the haystack
SAMPLES = 4
N_CTX = 512
GENERATION = "max_tokens=8,temperature=0"
RUN_TIMEOUT_S = 900.0


@pytest.fixture(scope="module")
def release(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release") / "rulerv2"
    build(RulerV2Build(tasks=(CONFIG,), tokenizer="qwen2.5", lengths=(LENGTH,), samples=SAMPLES,
                       generation_reserve=16), out, progress=False)
    return out


def eval_command(release: Path, run_dir: Path, servers: list[Server]) -> list[str]:
    urls = [argument for server in servers for argument in ("--base-url", server.base_url)]
    return [sys.executable, "-m", "eval", "run", "--dataset", str(release), "--config", CONFIG, "--backend", "openai",
            "--model", ALIAS, *urls, "--concurrency", "1", "--gen-kwargs", GENERATION, "--output-dir", str(run_dir),
            "--no-progress", "--timeout", "120"]


def environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}


def finished(run_dir: Path, done: subprocess.CompletedProcess[str] | None, servers: list[Server]) -> dict:
    if done is not None:
        assert done.returncode == 0, (f"exit {done.returncode}\n{done.stdout}\n{done.stderr}\n"
                                      + "\n".join(log_tail(s.log) for s in servers))
    return json.loads((run_dir / "results.json").read_text(encoding="utf-8"))


def answered(run_dir: Path) -> list[str]:
    lines = (run_dir / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["key"] for line in lines if line.strip() and json.loads(line).get("error") is None]


def test_two_servers_score_as_one_and_survive_losing_one(release, tmp_path, served_model):  # noqa: F811
    one_dir, two_dir, kill_dir = tmp_path / "one" / "run", tmp_path / "two" / "run", tmp_path / "kill" / "run"
    for folder in (tmp_path / "a", tmp_path / "b", one_dir.parent, two_dir.parent, kill_dir.parent):
        folder.mkdir()
    # One thread each: the two servers answer at the same time on the 2-core machines.
    with (running_server(tmp_path / "a", N_CTX, served_model, threads=1) as a,
          running_server(tmp_path / "b", N_CTX, served_model, threads=1) as b):
        one = finished(one_dir, subprocess.run(eval_command(release, one_dir, [a]), env=environment(),
                                               capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False), [a])
        two = finished(two_dir, subprocess.run(eval_command(release, two_dir, [a, b]), env=environment(),
                                               capture_output=True, text=True, timeout=RUN_TIMEOUT_S, check=False), [a, b])
        assert two["scores"] == one["scores"]
        assert sorted(answered(two_dir)) == sorted(answered(one_dir)) and len(answered(two_dir)) == SAMPLES
        assert all(n > 0 for n in two["provenance"]["answered_per_endpoint"].values())

        process = subprocess.Popen(eval_command(release, kill_dir, [a, b]), env=environment(),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while not (kill_dir / "samples.jsonl").is_file() or not answered(kill_dir):
            assert process.poll() is None and time.monotonic() < deadline, "the run ended before a server was killed"
            time.sleep(0.05)
        assert a.process is not None
        a.process.kill()  # server A dies mid-run
        stdout, stderr = process.communicate(timeout=RUN_TIMEOUT_S)
        killed = finished(kill_dir, subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr), [a, b])
    keys = answered(kill_dir)
    assert len(keys) == len(set(keys)) == SAMPLES  # nothing lost, nothing answered twice
    assert killed["counts"]["answered"] == SAMPLES and killed["complete"] is True
    assert killed["scores"] == one["scores"]
    assert killed["provenance"]["endpoints_down"] == [a.base_url]
