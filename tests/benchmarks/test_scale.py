"""benchmarks/scale.py (issue 26): the arithmetic that turns measured per-worker rates into Ray's overhead, the
speedups and the 16-worker projection, checked against figures worked out by hand from the script's stated
sources (HaystackCraft §3.4: 6,954,909 articles; Wikipedia:Size of Wikipedia: 5 billion words in 7,028,569
articles, 24.05 GB compressed; EMB-S §3.1: 326M tokens, 160,280 documents; THETA Appendix B: 80 docs/s per GPU).
No Ray, no timing."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

# benchmarks/ is a folder of scripts, not a package: load the module from its file.
_spec = importlib.util.spec_from_file_location("scale", Path(__file__).resolve().parents[2] / "benchmarks" / "scale.py")
assert _spec is not None and _spec.loader is not None
scale = importlib.util.module_from_spec(_spec)
sys.modules["scale"] = scale  # dataclasses look their module up while the class is made
_spec.loader.exec_module(scale)


def _run(stage: str, engine: str, workers: int, seconds: float, *, words: int = 0, tokens: int = 0) -> object:
    return scale.Run(stage, engine, workers, best_s=seconds, median_s=seconds, items=100, megabytes=10.0,
                     tokens=tokens, words=words, load_before=0.0)


def test_rates_are_per_second_and_per_worker():
    """A run's rate is its work over its best time; per worker divides by the workers that shared it."""
    run = _run("count", "ray 2 workers", 2, 4.0, tokens=8_000_000)
    assert run.rate("tokens") == 2_000_000
    assert run.per_worker("tokens") == 1_000_000
    assert run.rate("megabytes") == 2.5


def test_marginal_rate_leaves_out_the_stage_start():
    """Once started, a stage's rate is its work over its time less the fixed cost of starting it."""
    run = scale.Run("count", "ray 1 worker", 1, best_s=5.0, median_s=5.0, items=10, megabytes=1.0, tokens=4_000_000,
                    words=0, load_before=0.0, start_s=1.0)
    assert run.rate("tokens") == 800_000
    assert run.marginal_rate("tokens") == 1_000_000


def test_overhead_and_speedup():
    """Overhead is the time Ray adds at equal workers (local rate / Ray rate - 1); speedup is rate 2 / rate 1."""
    assert scale.overhead(100.0, 80.0) == pytest.approx(0.25)
    assert scale.overhead(100.0, 100.0) == 0.0
    assert scale.speedup(100.0, 190.0) == pytest.approx(1.9)


def test_dense_assumption_is_78k_tokens_per_second():
    """312 TFLOP/s x 30 % over 2 x 0.6e9 FLOP per token = 78,000 tokens/s per GPU."""
    assert scale.flops_tokens_per_s() == pytest.approx(78_000)


def test_projection_by_hand():
    """Every projected figure at parse 1,000 words/s, count 10,000 tokens/s per worker, 1.5 tokens/word, a 1 MB/s
    single-stream reader, a driver costing 1 s per million words, 16 workers: the parse wall is the workers' time
    unless the driver's floor is longer."""
    p = scale.projection(1_000.0, 10_000.0, 1.5, 1e6, 1e-6, workers=16)
    words = 5e9 * 6_954_909 / 7_028_569  # 4.9476G words
    wiki, embs = p["wikipedia"], p["embs_memorybank"]
    assert wiki["words"] == pytest.approx(words)
    assert wiki["words"] == pytest.approx(4.9476e9, rel=1e-4)
    assert wiki["tokens"] == pytest.approx(1.5 * words)
    assert wiki["parse_s"] == pytest.approx(words / 16_000)
    assert wiki["serial_reader_s"] == pytest.approx(24_050)
    assert wiki["driver_s"] == pytest.approx(words / 1e6)
    assert wiki["parse_wall_s"] == pytest.approx(words / 16_000)
    assert scale.projection(1_000.0, 10_000.0, 1.5, 1e6, 1e-3)["wikipedia"]["parse_wall_s"] == pytest.approx(words / 1e3)
    assert wiki["count_s"] == pytest.approx(1.5 * words / 160_000)
    assert wiki["dense_published_s"] == pytest.approx(6_954_909 / 1_280)  # 80 docs/s x 16 GPUs: 5,433.5 s
    assert wiki["dense_assumed_s"] == pytest.approx(1.5 * words / (78_000 * 16))
    assert embs["count_s"] == pytest.approx(2_037.5)  # 326M / 160,000
    assert embs["dense_published_s"] == pytest.approx(160_280 / 1_280)
    assert embs["dense_assumed_s"] == pytest.approx(326e6 / 1_248_000)
    assert p["dense_tokens_per_s_per_gpu"]["published_theta_256_tokens"] == 20_480


def test_summary_derives_from_the_right_runs():
    """The summary's overhead compares Ray at 1 worker with one local process, its speedups are 2 workers over 1,
    and the pessimistic projection uses Ray's 2-worker rate per worker (half the total); the optimistic one takes
    the driver's part out of the 1-process parse time, and projects it per word as the floor."""
    runs = [_run("count", scale.THREADED, 2, 1.0, tokens=3_000_000)]
    for engine, workers, seconds in (("local 1 process", 1, 10.0), ("local pool 2", 2, 6.0), ("ray 1 worker", 1, 11.0),
                                     ("ray 2 workers", 2, 5.5)):
        runs += [_run("parse", engine, workers, seconds, words=1_000_000),
                 _run("count", engine, workers, seconds / 10, tokens=8_000_000)]
    workload = {"tokens_per_word": 1.5, "serial_read_mb_per_s": 2.0, "driver_s": 0.5}
    result = scale.summarize({}, workload, runs, ray_start_s=3.0)
    parse = result["derived"]["parse"]
    assert parse["ray_overhead_1_worker"] == pytest.approx(0.1)
    assert parse["overhead_target_met"] is True
    assert parse["ray_speedup_2"] == pytest.approx(2.0)
    assert parse["local_speedup_2"] == pytest.approx(10 / 6)
    ray2 = result["projection"]["ray 2 workers"]["wikipedia"]
    words = 5e9 * 6_954_909 / 7_028_569
    assert ray2["parse_s"] == pytest.approx(words / ((1_000_000 / 5.5 / 2) * 16))
    assert ray2["count_s"] == pytest.approx(1.5 * words / ((8_000_000 / 0.55 / 2) * 16))
    assert ray2["serial_reader_s"] == pytest.approx(24.05e9 / 2e6)
    assert ray2["driver_s"] == pytest.approx(words * 0.5 / 1_000_000)
    local1 = result["projection"]["local 1 process"]
    assert local1["wikipedia"]["parse_s"] == pytest.approx(words / ((1_000_000 / 9.5) * 16))
    assert local1["embs_memorybank"]["count_s"] == pytest.approx(326e6 / (8_000_000 / 1.0 * 16))


def test_one_thread_counting_counts_the_same_and_restores_the_counter():
    """count_one_thread gives count_batch's counts and leaves the counter's thread cap as it found it."""
    from builders.engine import count_batch
    from needlework.tokenizers import load_tokenizer, tiktoken_counter

    tokens = load_tokenizer("qwen2.5")
    texts = ["Anarchism is a political philosophy. " * 2_000, "Albedo", "", "数据 1234"]
    cap = tiktoken_counter.max_threads()
    assert scale.count_one_thread(texts, tokens).tolist() == count_batch(texts, tokens).tolist()
    assert tiktoken_counter.max_threads() == cap


def test_the_parse_workload_is_the_slice_repeated_as_a_multistream_dump(shared_file, tmp_path):
    """The benchmark's dump (write_multistream of an export's pages x 2, Wikimedia's layout) reads, on the public
    read_mediawiki_dump, as the export twice; the stage timer sees the stage's own time and refuses engines whose
    stage does not run in this process. (The export: the slice's pages under 20 kB, 100 of its 135, 18 of them
    articles; parsing the whole slice twice cost ~5 s of CPU.)"""
    import bz2

    from builders.engine import Engine
    from builders.sources.wikipedia import read_mediawiki_dump

    slice_dump = shared_file("enwiki_gensim/enwiki-pages-articles1-p10p30302-shortened.xml.bz2")
    header, pages, footer = scale.split_export(bz2.decompress(slice_dump.read_bytes()))
    export = tmp_path / "enwiki-small-pages-articles.xml"
    export.write_bytes(header + b"".join(page for page in pages if len(page) < 20_000) + footer)
    out = tmp_path / "enwiki-slice-pages-articles-multistream.xml.bz2"
    pages_written = scale.make_multistream(export.read_bytes(), 2, 15, out)
    timer = scale.StageTimer(Engine("local", 1))
    read = read_mediawiki_dump(out, engine=timer, group_bytes=200_000)
    single = read_mediawiki_dump(export, workers=1)
    assert pages_written == read.stats["pages"] == 2 * single.stats["pages"] == 200
    assert single.stats["kept"] == 18
    assert read.corpus.column("text").to_pylist() == single.corpus.column("text").to_pylist() * 2
    assert timer.inside_s > 0
    with pytest.raises(ValueError, match="local, 1 worker"), scale.StageTimer(Engine("local", 2)).stage(len):
        pass
