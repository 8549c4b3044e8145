"""stream_records: requests fed lazily, one record per outcome as it arrives, the backend always closed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from eval.store import RunDirectory
from eval.stream import stream_records
from needlework.backends.base import Outcome, Request
from tests.support.scripted import ScriptedBackend


def requests(rendered: list[str], n: int):
    for index in range(n):
        rendered.append(f"k{index}")  # rendered only when the backend asks for it
        yield Request(f"k{index}", ({"role": "user", "content": f"q{index}"},), {}), {"row_id": f"r{index}"}


def record(stub, outcome: Outcome) -> dict:
    return {"key": outcome.key, **stub, "text": outcome.text}


def test_every_outcome_is_appended_with_its_stub_and_the_backend_is_closed(tmp_path: Path):
    backend = ScriptedBackend(lambda content: content.upper())
    rendered: list[str] = []
    with RunDirectory(tmp_path).sample_writer() as writer:
        written = asyncio.run(stream_records(backend, requests(rendered, 3), writer, record))
    lines = [json.loads(line) for line in RunDirectory(tmp_path).samples_file.read_text().splitlines()]
    assert written == 3 and backend.closed == 1
    assert lines == [{"key": f"k{i}", "row_id": f"r{i}", "text": f"Q{i}"} for i in range(3)]


def test_a_hook_that_raises_stops_the_stream_keeps_what_was_written_and_closes(tmp_path: Path):
    backend = ScriptedBackend(lambda content: content)
    rendered: list[str] = []
    seen: list[str] = []

    def after(outcome: Outcome) -> None:
        seen.append(outcome.key)
        if len(seen) == 2:
            raise RuntimeError("budget spent")

    with RunDirectory(tmp_path).sample_writer() as writer, pytest.raises(RuntimeError, match="budget spent"):
        asyncio.run(stream_records(backend, requests(rendered, 10), writer, record, after))
    assert seen == ["k0", "k1"] and backend.closed == 1
    assert rendered == ["k0", "k1"]  # the other eight requests were never rendered
    assert len(RunDirectory(tmp_path).latest_samples()) == 2
