"""Where a request's ``max_tokens`` comes from: a preset's evaluation settings, else the row's reserve, else the user.

A release built with the paper's decoding settings (manifest ``eval_generation``, written by a
``--preset paper`` build) sets ``max_tokens`` for every row, decoupled from the room the build left
in each row (``generation_reserve``), so a model that reasons before its answer is not cut off by a
build constant (issue 23, item 3). ``--gen-kwargs`` always wins.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from eval.count import count_run
from eval.release import open_release
from eval.runner import RunSpec, release_generation, run
from tests.support.releases import write_test_release
from tests.support.scripted import ScriptedBackend

SCHEMA = pa.schema([("id", pa.string()), ("task", pa.string()), ("level", pa.string()), ("input", pa.string()),
                    ("answers", pa.list_(pa.string())), ("generation_reserve", pa.int32()),
                    ("target_tokens", pa.int32())])
ROWS = [{"id": f"r{i}", "task": "mk_niah", "level": "basic", "input": f"Find the value {i}.", "answers": [str(i)],
         "generation_reserve": 128, "target_tokens": 4096} for i in range(3)]


def release(tmp_path: Path, eval_generation: dict | None) -> Path:
    manifest = {"benchmark": "rulerv2", "tokenizer": {"name": "qwen2.5"}}
    if eval_generation is not None:
        manifest["eval_generation"] = eval_generation
    return write_test_release(tmp_path / "release", manifest, SCHEMA, {"mk_niah_basic": ROWS})


def sent(tmp_path: Path, eval_generation: dict | None, **generation) -> list[dict]:
    spec = RunSpec(dataset=str(release(tmp_path, eval_generation)), configs=("mk_niah_basic",), model="m",
                   backend="vllm", generation=generation, output_dir=tmp_path / "run")
    backend = ScriptedBackend(lambda content: "0")
    run(spec, backend=backend, progress=False)
    return backend.generations


def test_the_row_reserve_is_max_tokens_without_preset_settings(tmp_path):
    assert {s["max_tokens"] for s in sent(tmp_path, None)} == {128}


def test_a_preset_s_decoding_settings_replace_the_row_reserve(tmp_path):
    settings = sent(tmp_path, {"max_tokens": 4096, "temperature": 0.6, "top_p": 0.95})
    assert all(s["max_tokens"] == 4096 and s["temperature"] == 0.6 and s["top_p"] == 0.95 for s in settings)
    assert release_generation(open_release(str(tmp_path / "release"))) == {"max_tokens": 4096, "temperature": 0.6,
                                                                           "top_p": 0.95}


@pytest.mark.parametrize(("user", "expected"), [
    ({"max_tokens": 256}, {"max_tokens": 256}),
    ({"max_completion_tokens": 2048}, {"max_completion_tokens": 2048}),  # reasoning models refuse max_tokens
])
def test_the_user_s_settings_win(tmp_path, user, expected):
    for settings in sent(tmp_path, {"max_tokens": 4096}, **user):
        assert {k: settings.get(k) for k in ("max_tokens", "max_completion_tokens")} == {
            "max_tokens": None, "max_completion_tokens": None, **expected}


def test_count_uses_the_same_max_tokens(tmp_path):
    spec = RunSpec(dataset=str(release(tmp_path, {"max_tokens": 4096})), configs=("mk_niah_basic",), model="m",
                   backend="vllm")
    _, counts = count_run(spec)
    assert counts[0].max_output_tokens == 3 * 4096


@pytest.mark.parametrize(("setting", "says"), [
    ("max_tokens=abc", 'max_tokens="abc": expected a whole number of tokens >= 1'),
    ("max_tokens=-5", "max_tokens=-5: expected a whole number of tokens >= 1"),
    ("max_completion_tokens=1.5", "max_completion_tokens=1.5: expected a whole number of tokens >= 1"),
    ("max_tokens=true", "max_tokens=true: expected a whole number of tokens >= 1"),
    ('temperature="hot"', 'temperature="hot": expected a number'),
    ("temperature=-1", "temperature=-1: expected a number >= 0"),
])
@pytest.mark.parametrize("command", ["run", "count"])
def test_a_setting_no_server_takes_is_one_error_line_before_anything_is_sent(tmp_path, setting, says, command):
    """Issue 41: ``--gen-kwargs max_tokens=abc`` ended the run in a ValueError traceback from the backend, and
    ``max_tokens=-5`` ran to exit 0, every request refused by a real server."""
    from click.testing import CliRunner

    from eval.cli import main

    extra = ["--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--output-dir", str(tmp_path / "run")] \
        if command == "run" else []
    result = CliRunner().invoke(main, [command, "--dataset", str(release(tmp_path, None)), "--config", "mk_niah_basic",
                                       *extra, "--gen-kwargs", setting])
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [f"error: --gen-kwargs {says}"]
    assert not (tmp_path / "run").exists()
