"""Scale-out of the parallel build stages (issue 26): per-worker throughput, local against Ray, and a 16-worker projection.

Run by hand; the figures go in the issue's closing note.

1. Measured, on the Wikipedia slice (``$NEEDLEWORK_SHARED_DATA/enwiki_gensim/*.xml.bz2``), through
   :class:`builders.engine.Engine` exactly as the builders call it, under four engines: ``local``
   1 process, ``local`` pool of 2, ``ray`` 1 worker, ``ray`` 2 workers.

   - **parse**: the dump-parsing stage of :func:`builders.sources.wikipedia.read_mediawiki_dump`
     (its stage function ``_parse_chunk`` over chunks of ``CHUNK_PAGES`` article pages). The slice
     is read once (bz2 + mwxml, in this process, as the builder's driver does: timed separately as
     the serial reader rate) and its article pages are **repeated ``--parse-repeat`` times in
     memory**, so the map has enough chunks to keep two workers busy. Reported: article pages/s
     and MB/s of wikitext (UTF-8) in.
   - **count**: corpus token counting (:func:`builders.engine.count_batch`, the stage of
     :func:`builders.haystackcraft.count_documents`) with the ``qwen2.5`` tokenizer over the
     slice's parsed articles rendered as documents (``render_document``), **repeated in memory to
     ``--count-mb`` MB**, in batches of ``--count-batch`` documents (64 of the slice's long
     articles, about 1.8 MB, against the builder's 1,024 documents of a few KB each: a batch of
     the same order of bytes, and enough batches for two workers). Reported: tokens/s, MB/s.

   Every worker runs one thread, so "per worker" means per CPU: the qwen2.5 counter
   (``TiktokenCounter``) splits a large batch over one thread per CPU in whatever process runs it,
   so counting goes through :func:`count_one_thread`, which caps that at one; the builder's own
   local path (one process, the counter's threads) is measured beside it as ``local 1 proc,
   threads``. Each run is timed inside the engine's stage
   (workers started, shared object sent), best and median of ``--repeats`` after one untimed
   warm-up. Ray's cluster is started once (``ray.init(num_cpus=2)``, timed and reported apart)
   and warmed (both workers import the stages) before anything Ray is timed; it starts after the
   local runs, so its idle daemons do not load them. Derived: Ray's overhead at 1 worker
   (local-1 rate / Ray-1 rate - 1; target at most 15 %) and the speedups at 2 workers; and the
   same once a stage is up: each stage's fixed cost (``start s``: the stage over one tiny batch
   per worker, i.e. workers started, the shared namespaces or tokenizer sent and loaded, results
   back) is subtracted from its time, since at Wikipedia scale it is paid once per hours-long stage.

2. Projected wall time on a 16-worker cluster (16 CPU workers for parse + count, 16 GPUs for the
   dense stage), assuming linear scaling of a per-worker rate, twice: from the rates per worker
   measured with Ray at 2 workers (Ray's overhead and the contention of two busy workers on a
   shared 2-CPU machine in: pessimistic) and from one local process (optimistic):

   - English Wikipedia: 6,954,909 articles (the 2025-04-04 dump, HaystackCraft §3.4). The paper
     gives no size in bytes or tokens, so: **words** = 5 billion per 7,028,569 articles
     ("Wikipedia:Size of Wikipedia", 26 July 2025), scaled to 6,954,909 articles; **tokens** =
     those words x the qwen2.5 tokens per word measured on the slice's parsed text; **dump size**
     = 24.05 GB of bz2 (same page: "the current version of all articles compressed", 16 October
     2024). Parsing is projected by words (the slice's measured plain-text words/s per worker),
     counting by tokens. The dump is read by one driver (bz2 + XML, serial, as
     ``read_mediawiki_dump`` does for one file), so the dump size over the measured serial reader
     rate is reported as a floor on the parse stage's wall time.
   - EverMemBench-S's MemoryBank: 326M tokens, 160,280 documents (EMB-S §3.1); already text, so
     counting only (no parse).
   - Dense stage (Qwen3-Embedding-0.6B, the paper's model, one actor per GPU): two figures.
     (a) Published: 80-87 documents/s for Qwen3-Embedding-0.6B on one 24 GB GPU, recommended
     configuration batch 32 x 256 tokens (THETA, "Appendix B: Hardware Requirements & Performance
     Benchmarks", https://codesoul-co.github.io/THETA/appendix/hardware-requirements/); the low
     end, 80 documents/s, is used, i.e. 80 x 256 = 20,480 tokens/s for documents truncated to 256
     tokens. (b) An **assumption**, for whole documents: an A100's 312 dense bf16 TFLOP/s at 30 %
     model-FLOPs utilization over 2 x 0.6e9 FLOPs per token (a forward pass, attention ignored) =
     78,000 tokens/s per GPU. Both are stated in the output; neither was measured here (no GPU).

Usage::

    python benchmarks/scale.py --out /tmp/scale.json
    python benchmarks/scale.py --parse-repeat 1 --count-mb 2 --repeats 1   # quicker, noisier
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from tqdm import tqdm

from builders.engine import Engine, batched, count_batch
from builders.sources.mediawiki_dump import open_dump
from builders.sources.wikipedia import (
    CHUNK_PAGES,
    _DumpReader,
    _namespace_prefixes,
    _open,
    _parse_chunk,
)
from generators.haystackcraft.prompt import render_document
from needlework.tokenizers import load_tokenizer, tiktoken_counter

MB = 1_000_000
GB = 1_000_000_000
TINY = {"parse": [("Tiny", 1, "A [[tiny]] page.")], "count": ["A tiny document."]}
"""One tiny batch per stage: a stage over one of these per worker costs the stage's start and little else."""
THREADED = "local 1 proc, threads"
"""The builder's default local counting path: in this process, the counter's own threads (one per CPU)."""
ENGINES: tuple[tuple[str, str, int], ...] = (
    (THREADED, "local", os.cpu_count() or 1),
    ("local 1 process", "local", 1),
    ("local pool 2", "local", 2),
    ("ray 1 worker", "ray", 1),
    ("ray 2 workers", "ray", 2),
)
PROJECTION_BASES = ("ray 2 workers", "local 1 process")
"""Per-worker rates the projection is made from: Ray's at 2 workers (overhead and contention in), and one
uncontended local process (the best case)."""
OVERHEAD_TARGET = 0.15
CLUSTER_WORKERS = 16

WIKIPEDIA_ARTICLES = 6_954_909
"""Articles of the 2025-04-04 English Wikipedia dump (HaystackCraft §3.4)."""
WIKIPEDIA_WORDS = 5_000_000_000
WIKIPEDIA_WORDS_ARTICLES = 7_028_569
"""'Over 5 billion words' in 7,028,569 articles, 26 July 2025 (Wikipedia:Size of Wikipedia)."""
WIKIPEDIA_DUMP_BYTES = int(24.05 * GB)
"""'The current version of all articles compressed is about 24.05 GB', 16 October 2024 (Wikipedia:Size of Wikipedia)."""
EMBS_TOKENS = 326_000_000
EMBS_DOCUMENTS = 160_280
"""EverMemBench-S's MemoryBank: 326M tokens in 160,280 documents (EMB-S §3.1)."""
THETA_DOCS_PER_S = 80.0
THETA_SEQ_LEN = 256
"""Qwen3-Embedding-0.6B on one 24 GB GPU: 80-87 docs/s, recommended batch 32 x seq_len 256 (THETA, Appendix B,
https://codesoul-co.github.io/THETA/appendix/hardware-requirements/); the low end."""
A100_BF16_FLOPS = 312e12
ASSUMED_MFU = 0.30
QWEN3_EMBEDDING_PARAMS = 0.6e9
"""The assumption for whole documents: A100 dense bf16 peak, 30 % utilization, 2 FLOPs per parameter per token."""


@dataclass(frozen=True)
class Run:
    """One stage under one engine: timings of its repeats and the work done per repeat."""

    stage: str
    engine: str
    workers: int
    best_s: float
    median_s: float
    items: int
    megabytes: float
    tokens: int
    words: int
    load_before: float
    start_s: float = 0.0

    def rate(self, unit: str) -> float:
        """Throughput of the best repeat in ``unit`` (items, megabytes, tokens or words) per second."""
        return getattr(self, unit) / self.best_s

    def marginal_rate(self, unit: str) -> float:
        """Throughput once the stage is up: the work over the best time less ``start_s``, the best time of the same
        stage over one tiny batch per worker (workers started, shared object sent and loaded, results back)."""
        return getattr(self, unit) / (self.best_s - self.start_s)

    def per_worker(self, unit: str) -> float:
        """Throughput per worker (per CPU) of the best repeat."""
        return self.rate(unit) / self.workers


def overhead(local_rate: float, ray_rate: float) -> float:
    """Ray's overhead at equal workers: the fraction of time Ray adds (local rate / Ray rate - 1)."""
    return local_rate / ray_rate - 1


def speedup(rate_one: float, rate_two: float) -> float:
    """Speedup of two workers over one (1.0 = no gain, 2.0 = linear)."""
    return rate_two / rate_one


def wikipedia_words(articles: int = WIKIPEDIA_ARTICLES) -> float:
    """Words of ``articles`` English Wikipedia articles at the mean words per article of Size of Wikipedia."""
    return WIKIPEDIA_WORDS / WIKIPEDIA_WORDS_ARTICLES * articles


def flops_tokens_per_s(peak_flops: float = A100_BF16_FLOPS, utilization: float = ASSUMED_MFU,
                       params: float = QWEN3_EMBEDDING_PARAMS) -> float:
    """Tokens/s of a forward pass costing 2 FLOPs per parameter per token at ``utilization`` of ``peak_flops``."""
    return peak_flops * utilization / (2 * params)


def wall_seconds(work: float, per_worker_rate: float, workers: int = CLUSTER_WORKERS) -> float:
    """Seconds for ``work`` units at ``per_worker_rate`` units/s on each of ``workers`` workers (linear scaling)."""
    return work / (per_worker_rate * workers)


def projection(parse_words_per_s: float, count_tokens_per_s: float, tokens_per_word: float, reader_bytes_per_s: float,
               workers: int = CLUSTER_WORKERS) -> dict[str, Any]:
    """Projected wall times (seconds) on ``workers`` CPU workers and ``workers`` GPUs, from per-worker rates.

    Args:
        parse_words_per_s: Plain-text words out of the parse stage per second per worker.
        count_tokens_per_s: Tokens counted per second per worker.
        tokens_per_word: qwen2.5 tokens per plain-text word (measured on the slice).
        reader_bytes_per_s: Compressed dump bytes per second the single serial reader gets through.
        workers: CPU workers and GPUs of the cluster.
    """
    words = wikipedia_words()
    tokens = words * tokens_per_word
    dense = {"published_theta_256_tokens": THETA_DOCS_PER_S * THETA_SEQ_LEN, "assumed_a100_whole_documents":
             flops_tokens_per_s()}
    parse_s = wall_seconds(words, parse_words_per_s, workers)
    reader_s = WIKIPEDIA_DUMP_BYTES / reader_bytes_per_s
    wiki = {
        "articles": WIKIPEDIA_ARTICLES, "words": words, "tokens": tokens, "dump_bytes": WIKIPEDIA_DUMP_BYTES,
        "parse_s": parse_s, "serial_reader_s": reader_s, "parse_wall_s": max(parse_s, reader_s),
        "count_s": wall_seconds(tokens, count_tokens_per_s, workers),
        "dense_published_s": wall_seconds(WIKIPEDIA_ARTICLES, THETA_DOCS_PER_S, workers),
        "dense_assumed_s": wall_seconds(tokens, dense["assumed_a100_whole_documents"], workers),
    }
    embs = {
        "documents": EMBS_DOCUMENTS, "tokens": EMBS_TOKENS,
        "count_s": wall_seconds(EMBS_TOKENS, count_tokens_per_s, workers),
        "dense_published_s": wall_seconds(EMBS_DOCUMENTS, THETA_DOCS_PER_S, workers),
        "dense_assumed_s": wall_seconds(EMBS_TOKENS, dense["assumed_a100_whole_documents"], workers),
    }
    return {"workers": workers, "dense_tokens_per_s_per_gpu": dense, "wikipedia": wiki, "embs_memorybank": embs}


# --- measurement --------------------------------------------------------------------------------------------------


def read_slice(path: Path) -> tuple[list[list[tuple[str, int, str]]], dict[str, int], float]:
    """The slice's article pages in the builder's chunks, its namespaces, and the seconds the serial read took
    (bz2 + mwxml, the driver's part of ``read_mediawiki_dump``)."""
    start = time.perf_counter()
    reader = _DumpReader(path)
    with _open(path) as handle, tqdm(disable=True) as bar:
        dump = open_dump(handle)
        namespaces = _namespace_prefixes(dump)
        chunks = list(reader.chunks(dump, bar))
    return chunks, namespaces, time.perf_counter() - start


def timed_stage(engine: Engine, fn: Callable[[Any, Any], Any], batches: Sequence[Any], shared: Any,
                repeats: int) -> list[float]:
    """Seconds of each of ``repeats`` runs of ``fn`` over ``batches`` on ``engine``, after one untimed warm-up;
    each timed from the stage's start (workers up, shared object sent) to its last result."""
    times = []
    for attempt in range(repeats + 1):
        start = time.perf_counter()
        with engine.stage(fn, shared, processes=True) as run:
            for _ in run(batches if attempt else batches[: 2 * max(1, engine.workers)]):
                pass
        if attempt:
            times.append(time.perf_counter() - start)
    return times


def count_one_thread(texts: Sequence[str], tokens: Any) -> Any:
    """:func:`builders.engine.count_batch` with the tiktoken counter's threads capped at one, so a worker is one CPU.

    ``TiktokenCounter.count_batch`` (qwen2.5 here) splits a large batch over ``os.cpu_count()`` threads, in every
    worker; capped, the per-worker rates are per CPU and two workers do not oversubscribe two CPUs.
    """
    previous = tiktoken_counter._MAX_THREADS
    tiktoken_counter._MAX_THREADS = 1
    try:
        return count_batch(texts, tokens)
    finally:
        tiktoken_counter._MAX_THREADS = previous


def start_ray(cpus: int) -> tuple[Any, float]:
    """A local Ray cluster of ``cpus`` CPUs, and the seconds it took to start."""
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    return ray, time.perf_counter() - start


def ray_idle_cpu(seconds: float = 5.0) -> float:
    """CPUs (fraction of one) that the idle Ray cluster's own processes (GCS, raylet, idle workers, monitors) use
    over ``seconds``: the share of a machine Ray takes from the stages before any task runs."""
    import psutil

    def ray_process(process: Any) -> bool:
        line = " ".join(process.info["cmdline"] or [])
        return process.pid != os.getpid() and ("ray" in line or "gcs_server" in line)

    processes = [p for p in psutil.process_iter(["cmdline"]) if ray_process(p)]
    before = {}
    for process in processes:
        with contextlib.suppress(psutil.Error):
            before[process.pid] = sum(process.cpu_times()[:2])
    time.sleep(seconds)
    used = 0.0
    for process in processes:
        with contextlib.suppress(psutil.Error):
            used += sum(process.cpu_times()[:2]) - before.get(process.pid, 0.0)
    return used / seconds


def machine() -> dict[str, Any]:
    """The facts a reader needs to weigh the figures."""
    return {"cpus": os.cpu_count(), "platform": platform.platform(), "processor": platform.processor(),
            "python": sys.version.split()[0], "ray": version("ray"), "tokenizers": version("tokenizers"),
            "mwparserfromhell": version("mwparserfromhell"), "load_average_start": os.getloadavg()}


def measure(dump: Path, parse_repeat: int, count_mb: float, count_batch_docs: int, repeats: int) -> dict[str, Any]:
    """Every measurement of part 1, and the projection of part 2 from it."""
    facts = machine()
    chunks, namespaces, read_s = read_slice(dump)
    pages = [page for chunk in chunks for page in chunk]
    parse_batches = list(batched(pages * parse_repeat, CHUNK_PAGES))
    wikitext_mb = sum(len(text.encode("utf-8")) for _, _, text in pages) * parse_repeat / MB
    parsed = [doc for chunk in chunks for doc in _parse_chunk(chunk, namespaces) if doc[2] and doc[2].strip()]
    words = sum(len(text.split()) for _, _, text, _ in parsed)
    documents = [render_document(title, text) for title, _, text, _ in parsed]
    tokens = load_tokenizer("qwen2.5")
    doc_tokens = int(count_batch(documents, tokens).sum())
    copies = max(1, round(count_mb * MB / sum(len(d.encode("utf-8")) for d in documents)))
    count_docs = documents * copies
    count_batches = list(batched(count_docs, count_batch_docs))
    corpus = {"dump": str(dump), "dump_bytes": dump.stat().st_size, "article_pages": len(pages),
              "parse_repeat": parse_repeat, "parse_chunks": len(parse_batches), "wikitext_mb": wikitext_mb,
              "kept_documents": len(parsed), "words": words, "tokens": doc_tokens,
              "tokens_per_word": doc_tokens / words, "count_copies": copies, "count_documents": len(count_docs),
              "count_batches": len(count_batches), "count_mb": sum(len(d.encode("utf-8")) for d in count_docs) / MB,
              "serial_read_s": read_s, "serial_read_mb_per_s": dump.stat().st_size / MB / read_s}

    runs: list[Run] = []
    ray_start_s = None
    idle_cpu = 0.0
    for label, name, workers in ENGINES:
        if name == "ray" and ray_start_s is None:
            _, ray_start_s = start_ray(2)
            idle_cpu = ray_idle_cpu()
            timed_stage(Engine("ray", 2), _parse_chunk, parse_batches[:4], namespaces, 1)  # warm both workers
            timed_stage(Engine("ray", 2), count_one_thread, count_batches[:4], tokens, 1)
        engine = Engine(name, workers)
        stages = [("parse", _parse_chunk, parse_batches, namespaces), ("count", count_one_thread, count_batches, tokens)]
        if label == THREADED:
            engine, stages = Engine("local", 1), [("count", count_batch, count_batches, tokens)]
        for stage, fn, batches, shared in stages:
            load = os.getloadavg()[0]
            times = timed_stage(engine, fn, batches, shared, repeats)
            start_s = min(timed_stage(engine, fn, [TINY[stage]] * workers, shared, repeats))
            if stage == "parse":
                work = {"items": len(pages) * parse_repeat, "megabytes": wikitext_mb, "tokens": doc_tokens * parse_repeat,
                        "words": words * parse_repeat}
            else:
                work = {"items": len(count_docs), "megabytes": corpus["count_mb"], "tokens": doc_tokens * copies,
                        "words": words * copies}
            runs.append(Run(stage, label, workers, min(times), statistics.median(times), load_before=load,
                            start_s=start_s, **work))
            print(f"  measured {stage:<5} {label:<21} best {min(times):7.2f} s, stage start {start_s:5.2f} s "
                  f"(load {load:.2f})", flush=True)
    if ray_start_s is not None:
        import ray

        ray.shutdown()
    return summarize({**facts, "ray_idle_cpu": idle_cpu}, corpus, runs, ray_start_s or 0.0)


def summarize(facts: dict[str, Any], corpus: dict[str, Any], runs: list[Run], ray_start_s: float) -> dict[str, Any]:
    """Derived ratios (overhead, speedups) and the projection, with the raw runs."""
    by = {(r.stage, r.engine): r for r in runs}
    derived: dict[str, Any] = {}
    for stage, unit in (("parse", "items"), ("count", "tokens")):
        local1, local2 = by[stage, "local 1 process"].rate(unit), by[stage, "local pool 2"].rate(unit)
        ray1, ray2 = by[stage, "ray 1 worker"].rate(unit), by[stage, "ray 2 workers"].rate(unit)
        derived[stage] = {"ray_overhead_1_worker": overhead(local1, ray1), "ray_speedup_2": speedup(ray1, ray2),
                          "local_speedup_2": speedup(local1, local2), "ray2_vs_local1": speedup(local1, ray2),
                          "overhead_target_met": overhead(local1, ray1) <= OVERHEAD_TARGET,
                          "ray_overhead_1_worker_after_start": overhead(by[stage, "local 1 process"].marginal_rate(unit),
                                                                        by[stage, "ray 1 worker"].marginal_rate(unit)),
                          "ray_speedup_2_after_start": speedup(by[stage, "ray 1 worker"].marginal_rate(unit),
                                                               by[stage, "ray 2 workers"].marginal_rate(unit))}
    projected = {basis: projection(by["parse", basis].per_worker("words"), by["count", basis].per_worker("tokens"),
                                   corpus["tokens_per_word"], corpus["serial_read_mb_per_s"] * MB)
                 for basis in PROJECTION_BASES}
    facts = {**facts, "load_average_end": os.getloadavg()}
    return {"machine": facts, "workload": corpus, "ray_cluster_start_s": ray_start_s,
            "runs": [asdict(r) for r in runs], "derived": derived, "projection": projected}


# --- output -------------------------------------------------------------------------------------------------------


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


def table(result: dict[str, Any]) -> str:
    """The printed report: machine, workload, one line per (stage, engine), ratios, projection."""
    m, w = result["machine"], result["workload"]
    lines = [
        (f"machine: {m['cpus']} CPUs, {m['platform']}, python {m['python']}, ray {m['ray']}, tokenizers "
         f"{m['tokenizers']}; load average start {m['load_average_start'][0]:.2f}, end {m['load_average_end'][0]:.2f}"),
        (f"slice: {w['dump_bytes']:,} B bz2, {w['article_pages']} article pages ({w['kept_documents']} kept), "
         f"{w['words']:,} words, {w['tokens']:,} qwen2.5 tokens ({w['tokens_per_word']:.3f}/word); serial read "
         f"(bz2 + mwxml, the driver's part) {w['serial_read_mb_per_s']:.2f} MB/s of bz2"),
        (f"parse: the pages x {w['parse_repeat']} in memory = {w['parse_chunks']} chunks, {w['wikitext_mb']:.1f} MB "
         f"wikitext; count: the documents x {w['count_copies']} in memory = {w['count_documents']:,} docs in "
         f"{w['count_batches']} batches, {w['count_mb']:.1f} MB"),
        (f"ray cluster start (ray.init num_cpus=2): {result['ray_cluster_start_s']:.2f} s (not in the rates); idle "
         f"Ray processes use {m.get('ray_idle_cpu', 0.0):.1%} of a CPU"),
        "",
        ("parse: items = article pages, MB = wikitext in, words = plain-text words out; "
         "count: items = documents, MB = rendered text, tokens = qwen2.5 tokens; /w = per worker (per CPU); "
         "start s = the same stage over one tiny batch per worker (its fixed cost)"),
        (f"{'stage':<6} {'engine':<21} {'best s':>7} {'med s':>7} {'start s':>7} {'load':>5} {'items/s':>8} "
         f"{'MB/s':>6} {'words|tokens/s':>15} {'MB/s/w':>7} {'words|tokens/s/w':>17}"),
    ]
    for r in result["runs"]:
        run = Run(**r)
        unit = "words" if run.stage == "parse" else "tokens"
        lines.append(f"{run.stage:<6} {run.engine:<21} {run.best_s:7.2f} {run.median_s:7.2f} {run.start_s:7.2f} "
                     f"{run.load_before:5.2f} "
                     f"{run.rate('items'):8.1f} {run.rate('megabytes'):6.2f} {run.rate(unit):15,.0f} "
                     f"{run.per_worker('megabytes'):7.2f} {run.per_worker(unit):17,.0f}")
    lines.append("")
    for stage, d in result["derived"].items():
        lines.append(f"{stage}: Ray overhead at 1 worker {d['ray_overhead_1_worker']:+.1%} (target <= "
                     f"{OVERHEAD_TARGET:.0%}: {'met' if d['overhead_target_met'] else 'NOT met'}); speedup at 2: "
                     f"Ray {d['ray_speedup_2']:.2f}x, local pool {d['local_speedup_2']:.2f}x; Ray 2 vs local 1 "
                     f"{d['ray2_vs_local1']:.2f}x; once started (start s subtracted): overhead "
                     f"{d['ray_overhead_1_worker_after_start']:+.1%}, Ray speedup {d['ray_speedup_2_after_start']:.2f}x")
    first = result["projection"][PROJECTION_BASES[0]]
    wiki, embs, dense = first["wikipedia"], first["embs_memorybank"], first["dense_tokens_per_s_per_gpu"]
    lines += [
        "",
        (f"projection on {first['workers']} CPU workers (linear scaling of the per-worker rates) and "
         f"{first['workers']} GPUs (dense)"),
        (f"  English Wikipedia: {wiki['articles']:,} articles (HaystackCraft §3.4), {wiki['words'] / 1e9:.2f}G words "
         f"(Size of Wikipedia), {wiki['tokens'] / 1e9:.2f}G tokens (words x measured tokens/word), dump "
         f"{wiki['dump_bytes'] / GB:.2f} GB bz2 (Size of Wikipedia)"),
        f"  EMB-S MemoryBank: {embs['tokens'] / 1e6:.0f}M tokens, {embs['documents']:,} documents (EMB-S §3.1)",
        (f"  dense per GPU: published {THETA_DOCS_PER_S:.0f} docs/s at <= {THETA_SEQ_LEN} tokens (THETA App. B) = "
         f"{dense['published_theta_256_tokens']:,.0f} tokens/s; ASSUMED {dense['assumed_a100_whole_documents']:,.0f} "
         f"tokens/s for whole documents (A100 312 TFLOP/s bf16, {ASSUMED_MFU:.0%} MFU, 2 x 0.6e9 FLOP/token)"),
        f"  {'':<44}" + "".join(f"{'rates per worker of ' + basis:>38}" for basis in PROJECTION_BASES),
    ]
    rows = (
        ("Wikipedia parse (workers)", "wikipedia", "parse_s"),
        ("Wikipedia serial reader floor (1 driver)", "wikipedia", "serial_reader_s"),
        ("Wikipedia parse wall (max of the two)", "wikipedia", "parse_wall_s"),
        ("Wikipedia token count", "wikipedia", "count_s"),
        ("Wikipedia dense, published (<= 256 tok/doc)", "wikipedia", "dense_published_s"),
        ("Wikipedia dense, assumed (whole articles)", "wikipedia", "dense_assumed_s"),
        ("EMB-S token count", "embs_memorybank", "count_s"),
        ("EMB-S dense, published (<= 256 tok/doc)", "embs_memorybank", "dense_published_s"),
        ("EMB-S dense, assumed (whole documents)", "embs_memorybank", "dense_assumed_s"),
    )
    for name, corpus, key in rows:
        lines.append(f"  {name:<44}" + "".join(f"{_duration(result['projection'][basis][corpus][key]):>38}"
                                               for basis in PROJECTION_BASES))
    return "\n".join(lines)


def main() -> None:
    """Measure, print the table, write the JSON."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dump", type=Path, default=None, help="A MediaWiki .xml.bz2 (default: the shared slice).")
    parser.add_argument("--parse-repeat", type=int, default=6, help="Times the slice's pages are repeated in memory.")
    parser.add_argument("--count-mb", type=float, default=60.0, help="MB of rendered documents to count.")
    parser.add_argument("--count-batch", type=int, default=64, help="Documents per counting batch.")
    parser.add_argument("--repeats", type=int, default=5, help="Timed runs per (stage, engine); best and median kept.")
    parser.add_argument("--out", type=Path, default=None, help="Write the result as JSON here.")
    args = parser.parse_args()
    dump = args.dump
    if dump is None:
        shared = os.environ.get("NEEDLEWORK_SHARED_DATA")
        found = sorted(Path(shared).glob("enwiki_gensim/*.xml.bz2")) if shared else []
        if not found:
            parser.error("no --dump and no $NEEDLEWORK_SHARED_DATA/enwiki_gensim/*.xml.bz2")
        dump = found[0]
    result = measure(dump, args.parse_repeat, args.count_mb, args.count_batch, args.repeats)
    print(table(result))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
