"""Shared pieces of the eval tests: a small RULERv2 release, a scripted stub server, fast backends.

The release is built once per session with the project's own builder (tests may import builders;
the eval package never does). The stub answers every prompt from the row's references, so the
expected score of a run follows from its fault script alone (:func:`expected_row_score`).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from aiohttp import web

from builders.rulerv2 import RulerV2Build, build
from eval.release import open_release
from eval.runner import RunSpec
from needlework.backends.openai_compat import OpenAIBackend, RetryPolicy
from tests.support.openai_stub import Script, StubServer, prompt_digest, serve_in_thread

CONFIGS = ("mk_niah_basic", "mv_niah_basic")
LENGTHS = (1024, 2048)
SAMPLES = 6
ROWS_PER_CONFIG = len(LENGTHS) * SAMPLES
TOTAL_ROWS = len(CONFIGS) * ROWS_PER_CONFIG
MODEL = "stub-model"
FAST_BACKOFF_S = 0.01

_BUILT: dict[str, Path] = {}


def build_small_release(out: Path) -> Path:
    """mk_niah_basic and mv_niah_basic at 1024 and 2048 tokens, 6 samples each (24 rows)."""
    spec = RulerV2Build(tasks=CONFIGS, tokenizer="qwen2.5", lengths=LENGTHS, samples=SAMPLES)
    build(spec, out, progress=False)
    return out


@pytest.fixture(scope="session")
def eval_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small release, built once per session even when several modules import this fixture."""
    if "release" not in _BUILT:
        _BUILT["release"] = build_small_release(tmp_path_factory.mktemp("eval-release") / "rulerv2")
    return _BUILT["release"]


@pytest.fixture(scope="session")
def release_rows(eval_release: Path) -> dict[str, list[dict[str, Any]]]:
    """Every row of the small release by config, in release order."""
    release = open_release(str(eval_release))
    return {config: list(release.iter_rows(config, "test")) for config in CONFIGS}


def split_rows(release: Path, config: str, split: str = "test") -> list[dict[str, Any]]:
    """A release's rows of one config and split, read as users read them (``datasets.load_dataset``)."""
    return list(datasets.load_dataset(str(release), config, split=split))


def gold_question(row: Mapping[str, Any]) -> str:
    """The text of a RULERv2 row's one gold item as placed in the context (``Question {index}: {text}``)."""
    (needle,) = row["needles"]
    return needle["text"].split(": ", 1)[1]


def row_id(config: str, length: int, index: int) -> str:
    """The release row id of sample ``index`` of ``config`` at ``length`` tokens."""
    return f"rulerv2/{config}/len={length}/i={index:04d}"


def make_script(rows: Mapping[str, Sequence[Mapping[str, Any]]], faults: Mapping[str, list[str]] | None = None,
                **settings: Any) -> Script:
    """A stub script answering every row, recognised by its full input or its input minus the prefix."""
    answers: dict[str, tuple[str, list[str]]] = {}
    for config_rows in rows.values():
        for row in config_rows:
            prefix = row["answer_prefix"]
            for content in (row["input"], row["input"][: len(row["input"]) - len(prefix)]):
                answers[prompt_digest([{"role": "user", "content": content}])] = (row["id"], list(row["answers"]))
    unknown = set(faults or {}) - {row["id"] for config_rows in rows.values() for row in config_rows}
    assert not unknown, f"fault script names rows that do not exist: {sorted(unknown)}"
    return Script(answers=answers, faults={k: list(v) for k, v in (faults or {}).items()}, **settings)


@contextmanager
def stub_server(script: Script) -> Iterator[StubServer]:
    """A running stub for ``script``, stopped on exit."""
    server = serve_in_thread(script)
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def serve_app(app: web.Application) -> Iterator[str]:
    """Serve any aiohttp application on loopback in a thread; yields its ``/v1`` base URL."""
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, access_log=None)
    loop.run_until_complete(runner.setup())
    site = web.TCPSite(runner, "127.0.0.1", 0)
    loop.run_until_complete(site.start())
    port = runner.addresses[0][1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.run_until_complete(runner.cleanup())
        loop.close()


def make_spec(release: Path, base_url: str, out: Path, **overrides: Any) -> RunSpec:
    """A run of both configs against ``base_url`` with short timeouts and no progress bar."""
    settings: dict[str, Any] = dict(dataset=str(release), configs=CONFIGS, model=MODEL, base_url=base_url,
                                    concurrency=4, output_dir=out, timeout_s=1.0, max_retries=3)
    settings.update(overrides)
    return RunSpec(**settings)


def fast_backend(spec: RunSpec, api_key: str | None = None) -> OpenAIBackend:
    """The backend ``spec`` would get, with a 10 ms backoff base so retries cost no wall time."""
    return OpenAIBackend(spec.model, spec.base_url or "", api_key=api_key, concurrency=spec.concurrency,
                         timeout_s=spec.timeout_s,
                         retry=RetryPolicy(max_retries=spec.max_retries, base_delay_s=FAST_BACKOFF_S),
                         seed=spec.seed)


def final_action(plan: Sequence[str] | None) -> str:
    """The action that decides a row's record: the first answering action of its plan, else the last."""
    answering = ("ok", "wrong", "half", "empty", "think", "hang")
    for action in plan or ["ok"]:
        if action in answering:
            return action
    return (plan or ["ok"])[-1]


def expected_row_score(action: str, references: Sequence[str]) -> float:
    """The RULERv2 score of the stub's answer for ``action``, worked out by hand per action.

    "half" answers the first ``len // 2`` references; each recalled reference scores 1 and each
    missing one 0 (a 10-digit number never partially matches another), so the mean is
    ``(len // 2) / len``: 0.5 for four values, 0 for a single one.
    """
    if action in ("ok", "think", "hang"):
        return 1.0
    if action == "half":
        return (len(references) // 2) / len(references)
    if action in ("wrong", "empty", "context"):
        return 0.0
    raise AssertionError(f"no known score for action {action!r}")


def depth_bin_of(row: Mapping[str, Any]) -> int | None:
    """The 10%-wide depth bin of a single-needle row, written out independently of eval."""
    needles = row["needles"]
    if len(needles) != 1:
        return None
    return min(90, int(needles[0]["depth_percent"] // 10) * 10)


def expected_scores(rows: Mapping[str, Sequence[Mapping[str, Any]]], faults: Mapping[str, list[str]],
                    ) -> dict[str, Any]:
    """Expected overall, per-config, per-length and per-cell mean scores (rounded as results.json)."""
    groups: dict[str, dict[Any, list[float]]] = {"overall": {}, "config": {}, "length": {}, "depth": {}, "cells": {}}
    for config, config_rows in rows.items():
        for row in config_rows:
            score = expected_row_score(final_action(faults.get(row["id"])), row["answers"])
            depth = depth_bin_of(row)
            groups["overall"].setdefault(None, []).append(score)
            groups["config"].setdefault(config, []).append(score)
            groups["length"].setdefault(str(row["target_tokens"]), []).append(score)
            if depth is not None:
                groups["depth"].setdefault(str(depth), []).append(score)
            groups["cells"].setdefault((config, row["target_tokens"], depth), []).append(score)
    return {name: {key: round(sum(v) / len(v), 6) for key, v in group.items()} for name, group in groups.items()}


def stub_answer(action: str, references: Sequence[str]) -> str:
    """The content the stub sends for an answering action (mirrors tests/openai_stub.py)."""
    return {
        "ok": ", ".join(references), "hang": ", ".join(references), "wrong": "0000000000", "empty": "",
        "half": ", ".join(references[: len(references) // 2]),
        "think": "Let me recall 1234567890 and 0987654321.</think>" + ", ".join(references),
    }[action]


def samples_lines(run_dir: Path) -> list[dict[str, Any]]:
    """Every line of ``samples.jsonl`` parsed strictly (a torn or corrupt line fails the test)."""
    raw = (run_dir / "samples.jsonl").read_bytes()
    assert raw == b"" or raw.endswith(b"\n"), "samples.jsonl does not end with a whole line"
    return [json.loads(line) for line in raw.splitlines()]


def read_json(path: Path) -> dict[str, Any]:
    """A JSON file as a dict."""
    return json.loads(path.read_text(encoding="utf-8"))


def sha256_file(path: Path) -> str:
    """sha256 hex digest of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def with_faults(script: Script, faults: Mapping[str, list[str]]) -> Script:
    """Replace some rows' fault plans in place (attempt counters keep counting)."""
    script.faults.update({k: list(v) for k, v in faults.items()})
    return script


__all__ = [
    "CONFIGS", "FAST_BACKOFF_S", "LENGTHS", "MODEL", "ROWS_PER_CONFIG", "SAMPLES", "TOTAL_ROWS",
    "build_small_release", "depth_bin_of", "eval_release", "expected_row_score", "expected_scores", "fast_backend",
    "final_action", "make_script", "make_spec", "read_json", "release_rows", "row_id", "samples_lines",
    "serve_app", "sha256_file", "stub_answer", "stub_server", "with_faults",
]


def write_test_release(folder: Path, manifest: dict[str, Any], schema: pa.Schema,
                       configs: Mapping[str, Sequence[Mapping[str, Any]]]) -> Path:
    """A release folder as eval reads it: ``manifest`` (benchmark, tokenizer, ...) with a
    ``configs`` entry added, and one Parquet shard of ``schema`` per config of the ``test`` split."""
    manifest = {**manifest, "configs": {}}
    for config, rows in configs.items():
        name = f"{config}/test-00000-of-00001.parquet"
        (folder / config).mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(list(rows), schema=schema), folder / name)
        manifest["configs"][config] = {"splits": {"test": {"rows": len(rows), "files": [name]}}}
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True), encoding="utf-8")
    return folder
