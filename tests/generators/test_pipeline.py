"""encoded_ahead: the same ids and offsets as encoding in place, in input order, on one CPU or many."""

from __future__ import annotations

import multiprocessing
import sys
import threading
import time

import pytest

from generators import pipeline
from generators.pipeline import encoded_ahead
from needlework.tokenizers import load_tokenizer

TEXTS = [f"Sample {i}: " + "Alice's father is Bob. 李华的母亲是王芳。" * (i + 1) for i in range(7)]


@pytest.fixture(scope="module")
def qwen():
    return load_tokenizer("qwen2.5")


class Instrumented:
    """``counter`` with its ``encode_native`` replaced by ``encode_native``; all else delegated."""

    def __init__(self, counter, encode_native):
        self._counter = counter
        self.encode_native = encode_native

    def __getattr__(self, name):
        return getattr(self._counter, name)


@pytest.mark.parametrize("cpus", [1, 2])
def test_results_match_encoding_in_place_in_order(qwen, monkeypatch, cpus):
    monkeypatch.setattr(pipeline, "usable_cpus", lambda: cpus)
    got = list(encoded_ahead(qwen, ((text, i) for i, text in enumerate(TEXTS))))
    assert [draft for draft, _, _ in got] == list(range(len(TEXTS)))
    for (i, ids, starts), text in zip(got, TEXTS):
        want_ids, want_starts = qwen.encode_with_offsets(text)
        assert ids.tolist() == want_ids.tolist() and starts.tolist() == want_starts.tolist(), i


def test_encodes_run_outside_the_callers_thread_one_ahead(qwen, monkeypatch):
    monkeypatch.setattr(pipeline, "usable_cpus", lambda: 2)
    seen: list[tuple[str, int]] = []
    produced: list[int] = []

    def recording(text):
        seen.append((threading.current_thread().name, int(text.split(":")[0].split()[1])))
        return qwen.encode_native(text)

    def drafts():
        for i, text in enumerate(TEXTS):
            produced.append(i)
            yield text, i

    for draft, _, _ in encoded_ahead(Instrumented(qwen, recording), drafts()):
        # When draft i comes back, draft i + 1 has already been handed to the worker.
        assert produced[-1] == min(draft + 1, len(TEXTS) - 1)
    assert [i for _, i in seen] == list(range(len(TEXTS)))
    assert all(name.startswith("encode-ahead") for name, _ in seen)


def test_errors_surface_and_early_close_waits_for_the_encode_in_flight(qwen, monkeypatch):
    monkeypatch.setattr(pipeline, "usable_cpus", lambda: 2)
    started: list[int] = []
    finished: list[int] = []

    def slow(text):
        started.append(len(started))
        time.sleep(0.05)
        finished.append(len(finished))
        return qwen.encode_native(text)

    ahead = encoded_ahead(Instrumented(qwen, slow), ((text, i) for i, text in enumerate(TEXTS)))
    assert next(ahead)[0] == 0
    ahead.close()
    # Draft 1 was handed to the worker before draft 0 came back; close returns only when it is done.
    assert started == finished == [0, 1]

    def failing(text):
        raise ValueError(f"cannot encode {text[:8]!r}")

    with pytest.raises(ValueError, match="cannot encode 'Sample 0'"):
        list(encoded_ahead(Instrumented(qwen, failing), ((text, i) for i, text in enumerate(TEXTS))))


def test_one_worker_thread_serves_every_generator_in_the_process(qwen, monkeypatch):
    monkeypatch.setattr(pipeline, "usable_cpus", lambda: 2)
    workers: set[int] = set()

    def recording(text):
        workers.add(threading.get_ident())
        return qwen.encode_native(text)

    list(encoded_ahead(Instrumented(qwen, recording), ((text, i) for i, text in enumerate(TEXTS))))
    threads = threading.active_count()
    for _ in range(3):
        list(encoded_ahead(Instrumented(qwen, recording), ((text, i) for i, text in enumerate(TEXTS))))
    assert len(workers) == 1 and threading.get_ident() not in workers
    assert threading.active_count() == threads


def _encode_in_child(texts: list[str], want: list[list[int]]) -> None:
    pipeline.usable_cpus = lambda: 2
    counter = load_tokenizer("qwen2.5")
    got = [ids.tolist() for _, ids, _ in encoded_ahead(counter, ((text, i) for i, text in enumerate(texts)))]
    sys.exit(0 if got == want else 3)


def test_a_forked_child_starts_its_own_worker(qwen, monkeypatch):
    monkeypatch.setattr(pipeline, "usable_cpus", lambda: 2)
    list(encoded_ahead(qwen, ((text, i) for i, text in enumerate(TEXTS))))  # the parent's worker exists
    want = [qwen.encode(text).tolist() for text in TEXTS]
    child = multiprocessing.get_context("fork").Process(target=_encode_in_child, args=(TEXTS, want))
    child.start()
    child.join(timeout=30)
    if child.is_alive():
        child.kill()
        pytest.fail("the forked child hung waiting for the parent's encode worker")
    assert child.exitcode == 0
