"""Scale-out of the parallel build stages (issue 26): per-worker throughput, local against Ray, and a 16-worker projection.

Run by hand; the figures go in the issue's closing note.

1. Measured, on the Wikipedia slice (``$NEEDLEWORK_SHARED_DATA/enwiki_gensim/*.xml.bz2``), through
   :class:`builders.engine.Engine` exactly as the builders call it, under four engines: ``local``
   1 process, ``local`` pool of 2, ``ray`` 1 worker, ``ray`` 2 workers.

   - **parse**: :func:`builders.sources.wikipedia.read_mediawiki_dump` end to end, on its public
     arguments (``engine=``, ``group_bytes=``), of a **multistream dump** written once, untimed,
     with :func:`builders.sources.multistream.write_multistream` from the slice's pages
     **repeated ``--parse-repeat`` times**, its index beside it: each worker reads, decompresses
     and parses its own groups of streams; the driver reads the index and collects. Streams hold
     ``--pages-per-stream`` pages (:data:`PAGES_PER_STREAM`: Wikimedia's 100 pages are ~100 KB of
     enwiki bz2, the slice's long articles ~6.5 KB each) and units are ``--group-bytes``
     (:data:`GROUP_BYTES`), so two workers share many units. Reported: pages/s, MB/s of XML,
     plain-text words/s. Also measured: the **driver's own part** (a 1-process read with its
     stage function timed, :class:`StageTimer`: the wall time less the time inside the stage),
     which no number of workers takes over; and, as a reference, the **single-stream** rate (bz2 +
     mwxml walked by one reader, which is what a non-multistream export costs the driver).
   - **count**: corpus token counting with the ``qwen2.5`` tokenizer over the slice's parsed
     articles rendered as documents (``render_document``), **repeated in memory to ``--count-mb``
     MB**, in batches of ``--count-batch`` documents (64 of the slice's long articles, about
     1.8 MB, against the builder's 1,024 documents of a few KB each: a batch of the same order of
     bytes). Ray runs, and the builders' default local path (``local 1 proc, threads``: one
     process, the counter's own threads), call :meth:`builders.engine.Engine.count_tokens` as
     :func:`builders.haystackcraft.count_documents` does (on Ray: several batches per task, each
     task's counter on its one CPU). The references ``local 1 process`` and ``local pool 2`` map
     :func:`count_one_thread` (``count_batch`` on one thread), so "per worker" means per CPU.
     Reported: tokens/s, MB/s.

   Each run is a whole stage (workers started, shared object sent, every result back), best and
   median of ``--repeats`` after one untimed warm-up run of the same work. Ray's cluster is
   started once (``ray.init(num_cpus=2)``, timed and reported apart) after the local runs, so its
   idle daemons do not load them, and warmed (both workers import the stages) before anything Ray
   is timed. Derived: Ray's overhead at 1 worker (local-1 rate / Ray-1 rate - 1; target at most
   15 %) and the speedups at 2 workers; and the same once a stage is up: each stage's fixed cost
   (``start s``: the stage over a one-page dump or one tiny batch per worker, i.e. workers
   started, the namespaces or tokenizer sent and loaded, results back) is subtracted from its
   time, since at Wikipedia scale it is paid once per hours-long stage.

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
     counting by tokens. The workers read Wikimedia's multistream dump; the driver's own part,
     per word as measured, is the floor of the parse stage's wall time (parse wall = the larger of
     the workers' time / 16 and that floor). For reference, the dump size over the measured
     single-stream rate: the floor if only the single-stream export were read (one reader).
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
    python benchmarks/scale.py --parse-repeat 2 --count-mb 10 --repeats 1   # quicker, noisier
"""

from __future__ import annotations

import argparse
import bz2
import collections
import contextlib
import io
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from builders.engine import Engine, batched, count_batch
from builders.sources.mediawiki_dump import open_dump
from builders.sources.multistream import plan_groups, read_index, write_multistream
from builders.sources.wikipedia import read_mediawiki_dump
from generators.haystackcraft.prompt import render_document
from needlework.tokenizers import load_tokenizer, tiktoken_counter

MB = 1_000_000
GB = 1_000_000_000
TINY = ["A tiny document."]
"""One tiny counting batch: a stage over one of these per worker costs the stage's start and little else (parsing's
is a one-page multistream dump)."""
PAGES_PER_STREAM = 15
"""Pages per bz2 stream of the benchmark's multistream dump: Wikimedia writes 100 pages per stream, about 100 KB
of bz2 of English Wikipedia (GROUP_BYTES: 4 MB is ~40 streams); the slice's pages are long articles, ~6.5 KB of
bz2 each, so 15 of them make a stream of the same bytes."""
GROUP_BYTES = 200_000
"""Compressed bytes per unit of work in the benchmark (builders' default: 4 MB): ~2 streams, so the repeated slice
is ~25 units and two workers share them evenly."""
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
               driver_s_per_word: float, workers: int = CLUSTER_WORKERS) -> dict[str, Any]:
    """Projected wall times (seconds) on ``workers`` CPU workers and ``workers`` GPUs, from per-worker rates.

    Args:
        parse_words_per_s: Plain-text words out of the parse stage per second per worker.
        count_tokens_per_s: Tokens counted per second per worker.
        tokens_per_word: qwen2.5 tokens per plain-text word (measured on the slice).
        reader_bytes_per_s: Compressed dump bytes per second one reader gets through (bz2 + XML): the floor of
            a single-stream export, which only the driver can read (a reference: Wikimedia's multistream is read
            by the workers).
        driver_s_per_word: The driver's own seconds per plain-text word when the workers read a multistream dump
            (index, collecting records, resolving links): the floor of the parse stage's wall time.
        workers: CPU workers and GPUs of the cluster.
    """
    words = wikipedia_words()
    tokens = words * tokens_per_word
    dense = {"published_theta_256_tokens": THETA_DOCS_PER_S * THETA_SEQ_LEN, "assumed_a100_whole_documents":
             flops_tokens_per_s()}
    parse_s = wall_seconds(words, parse_words_per_s, workers)
    reader_s = WIKIPEDIA_DUMP_BYTES / reader_bytes_per_s
    driver_s = words * driver_s_per_word
    wiki = {
        "articles": WIKIPEDIA_ARTICLES, "words": words, "tokens": tokens, "dump_bytes": WIKIPEDIA_DUMP_BYTES,
        "parse_s": parse_s, "driver_s": driver_s, "parse_wall_s": max(parse_s, driver_s),
        "serial_reader_s": reader_s,
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


def split_export(xml: bytes) -> tuple[bytes, list[bytes], bytes]:
    """(header, pages, footer) of an export written one element per line, as Wikimedia writes them."""
    starts = [m.start() for m in re.finditer(rb"^  <page>$", xml, re.MULTILINE)]
    ends = [m.end() + 1 for m in re.finditer(rb"^  </page>$", xml, re.MULTILINE)]
    if not starts or len(starts) != len(ends):
        raise SystemExit("the dump is not an export written one element per line (as Wikimedia writes them)")
    return xml[: starts[0]], [xml[a:b] for a, b in zip(starts, ends)], xml[ends[-1]:]


def make_multistream(xml: bytes, repeat: int, pages_per_stream: int, out: Path) -> int:
    """Write the export's pages ``repeat`` times as one multistream dump with its index at ``out``
    (:func:`builders.sources.multistream.write_multistream`); returns the number of pages."""
    header, pages, footer = split_export(xml)
    write_multistream(io.BytesIO(header + b"".join(pages) * repeat + footer), out, pages_per_stream)
    return len(pages) * repeat


def serial_read_seconds(dump: Path) -> float:
    """Seconds to decompress a single-stream export and walk its pages' current wikitext (bz2 + XML): what one driver
    does for the non-multistream path of ``read_mediawiki_dump``, before any page is parsed."""
    start = time.perf_counter()
    with bz2.open(dump, "rb") as handle:
        for page in open_dump(handle):
            for revision in page:
                _ = revision.text
    return time.perf_counter() - start


@dataclass
class StageTimer:
    """An engine whose stages time their own function: the seconds spent inside it, summed over batches.

    Used with ``local`` 1 process, where the stage runs in this process: the rest of the wall time is the driver's
    own work (index, header, collecting records, resolving links), which no number of workers takes over.
    """

    engine: Engine
    inside_s: float = 0.0

    @contextlib.contextmanager
    def stage(self, fn: Callable[[Any, Any], Any], shared: Any = None, *, processes: bool = False) -> Iterator[Any]:
        """:meth:`builders.engine.Engine.stage` of ``fn`` timed per call (in this process only)."""
        if self.engine.name != "local" or self.engine.workers != 1:
            raise ValueError("StageTimer times the stage in this process: local, 1 worker")

        def timed(batch: Any, shared_: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(batch, shared_)
            finally:
                self.inside_s += time.perf_counter() - start

        with self.engine.stage(timed, shared, processes=processes) as run:
            yield run


def timed(work: Callable[[], Any], repeats: int, warm: Callable[[], Any]) -> list[float]:
    """Seconds of each of ``repeats`` calls of ``work`` (each a whole stage: workers started, shared object sent,
    every result back), after one untimed call of ``warm`` (the same work, so every worker has imported it)."""
    warm()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return times


def count_one_thread(texts: Sequence[str], tokens: Any) -> Any:
    """:func:`builders.engine.count_batch` with the tiktoken counter's threads capped at one: the local reference of
    one CPU (a Ray task's counting is capped at its one CPU by the engine itself).

    ``TiktokenCounter.count_batch`` (qwen2.5 here) splits a large batch over ``os.cpu_count()`` threads; capped, the
    per-worker rates are per CPU and a pool of two does not oversubscribe two CPUs.
    """
    previous = tiktoken_counter.set_max_threads(1)
    try:
        return count_batch(texts, tokens)
    finally:
        tiktoken_counter.set_max_threads(previous)


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


def driver_seconds(path: Path, group_bytes: int, repeats: int) -> dict[str, float]:
    """The driver's own seconds reading a multistream dump (index, header, collecting every record, resolving the
    links): the wall time of a 1-process read less the time inside its stage (reading, decompressing and parsing
    the groups), best of ``repeats``. No number of workers takes this part over."""
    best: dict[str, float] = {}
    for _ in range(repeats):
        timer = StageTimer(Engine("local", 1))
        start = time.perf_counter()
        read_mediawiki_dump(path, engine=timer, group_bytes=group_bytes)  # type: ignore[arg-type]
        wall = time.perf_counter() - start
        if not best or wall - timer.inside_s < best["driver_s"]:
            best = {"driver_s": wall - timer.inside_s, "driver_run_wall_s": wall, "driver_run_stage_s": timer.inside_s}
    return best


def _drain(results: Iterable[Any]) -> None:
    collections.deque(results, maxlen=0)


def measure(dump: Path, parse_repeat: int, pages_per_stream: int, group_bytes: int, count_mb: float,
            count_batch_docs: int, repeats: int, workdir: Path) -> dict[str, Any]:
    """Every measurement of part 1, and the projection of part 2 from it."""
    facts = machine()
    xml = bz2.decompress(dump.read_bytes())
    serial_s = min(serial_read_seconds(dump) for _ in range(3))
    header, slice_pages, footer = split_export(xml)
    multistream = workdir / "enwiki-slice-pages-articles-multistream.xml.bz2"
    pages = make_multistream(xml, parse_repeat, pages_per_stream, multistream)
    tiny = workdir / "enwiki-tiny-pages-articles-multistream.xml.bz2"
    write_multistream(io.BytesIO(header + slice_pages[0] + footer), tiny, pages_per_stream)
    streams = read_index(workdir / "enwiki-slice-pages-articles-multistream-index.txt.bz2")
    groups = plan_groups(multistream, streams, group_bytes)
    read = read_mediawiki_dump(dump, workers=1)
    titles, texts = read.corpus.column("title").to_pylist(), read.corpus.column("text").to_pylist()
    words = sum(len(text.split()) for text in texts)
    documents = [render_document(title, text) for title, text in zip(titles, texts)]
    tokens = load_tokenizer("qwen2.5")
    doc_tokens = int(count_batch(documents, tokens).sum())
    copies = max(1, round(count_mb * MB / sum(len(d.encode("utf-8")) for d in documents)))
    count_docs = documents * copies
    count_batches = list(batched(count_docs, count_batch_docs))
    corpus = {"dump": str(dump), "dump_bytes": dump.stat().st_size, "pages": len(slice_pages),
              "kept_documents": read.stats["kept"], "words": words, "tokens": doc_tokens,
              "tokens_per_word": doc_tokens / words, "parse_repeat": parse_repeat, "parse_pages": pages,
              "pages_xml_mb": sum(map(len, slice_pages)) * parse_repeat / MB, "pages_per_stream": pages_per_stream,
              "multistream_bytes": multistream.stat().st_size, "streams": len(streams), "group_bytes": group_bytes,
              "groups": len(groups), "count_copies": copies, "count_documents": len(count_docs),
              "count_batches": len(count_batches), "count_mb": sum(len(d.encode("utf-8")) for d in count_docs) / MB,
              "serial_read_s": serial_s, "serial_read_mb_per_s": dump.stat().st_size / MB / serial_s}

    def parse(engine: Engine, path: Path = multistream) -> Callable[[], Any]:
        return lambda: read_mediawiki_dump(path, engine=engine, group_bytes=group_bytes)

    def count(label: str, engine: Engine, batches: list[list[str]]) -> Callable[[], None]:
        if label == THREADED or engine.name == "ray":  # the builders' call (count_documents, count_serialized)
            return lambda: _drain(engine.count_tokens(batches, tokens))
        return lambda: _drain(engine.map(count_one_thread, batches, tokens, processes=True))

    runs: list[Run] = []
    ray_start_s = None
    idle_cpu = 0.0
    for label, name, workers in ENGINES:
        if name == "ray" and ray_start_s is None:
            _, ray_start_s = start_ray(2)
            idle_cpu = ray_idle_cpu()
            parse(Engine("ray", 2))()  # both workers import the stages before anything Ray is timed
        engine = Engine(name, workers)
        for stage in ("count",) if label == THREADED else ("parse", "count"):
            load = os.getloadavg()[0]
            if stage == "parse":
                times = timed(parse(engine), repeats, warm=parse(engine))
                start_s = min(timed(parse(engine, tiny), repeats, warm=lambda: None))
                work = {"items": pages, "megabytes": corpus["pages_xml_mb"], "tokens": doc_tokens * parse_repeat,
                        "words": words * parse_repeat}
            else:
                times = timed(count(label, engine, count_batches), repeats, warm=count(label, engine, count_batches))
                start_s = min(timed(count(label, engine, [TINY] * workers), repeats, warm=lambda: None))
                work = {"items": len(count_docs), "megabytes": corpus["count_mb"], "tokens": doc_tokens * copies,
                        "words": words * copies}
            runs.append(Run(stage, label, workers, min(times), statistics.median(times), load_before=load,
                            start_s=start_s, **work))
            print(f"  measured {stage:<5} {label:<21} best {min(times):7.2f} s, stage start {start_s:5.2f} s "
                  f"(load {load:.2f})", flush=True)
            if stage == "parse" and label == "local 1 process":
                corpus.update(driver_seconds(multistream, group_bytes, repeats))
                print(f"  measured the driver's own part of the 1-process read: {corpus['driver_s']:.2f} s", flush=True)
    if ray_start_s is not None:
        import ray

        ray.shutdown()
    return summarize({**facts, "ray_idle_cpu": idle_cpu}, corpus, runs, ray_start_s or 0.0)


def parse_rate(run: Run, driver_s: float) -> float:
    """Plain-text words per second per worker of a parse run, for the projection: one local process did the
    driver's part too, so its rate is over its time less ``driver_s``; a run with workers beside the driver keeps
    its whole time (the driver ran at the same time; pessimistic)."""
    if run.engine == "local 1 process":
        return run.words / (run.best_s - driver_s)
    return run.per_worker("words")


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
    driver_per_word = corpus["driver_s"] / by["parse", "local 1 process"].words
    projected = {basis: projection(parse_rate(by["parse", basis], corpus["driver_s"]), by["count", basis].per_worker("tokens"),
                                   corpus["tokens_per_word"], corpus["serial_read_mb_per_s"] * MB, driver_per_word)
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
        (f"slice: {w['dump_bytes']:,} B bz2, {w['pages']} pages ({w['kept_documents']} articles kept), "
         f"{w['words']:,} words, {w['tokens']:,} qwen2.5 tokens ({w['tokens_per_word']:.3f}/word); single-stream "
         f"read (bz2 + mwxml, one reader) {w['serial_read_mb_per_s']:.2f} MB/s of bz2"),
        (f"parse: read_mediawiki_dump of a multistream dump of the pages x {w['parse_repeat']} = "
         f"{w['parse_pages']:,} pages, {w['pages_xml_mb']:.1f} MB XML, {w['multistream_bytes'] / MB:.1f} MB bz2 in "
         f"{w['streams']} streams of {w['pages_per_stream']} pages, {w['groups']} groups of ~{w['group_bytes']:,} B; "
         f"the driver's own part (1 process, less its stage) {w['driver_s']:.2f} s of "
         f"{w['driver_run_wall_s']:.2f} s"),
        (f"count: Engine.count_tokens (ray; the builders' call) or count_batch on 1 thread (local references) of the "
         f"documents x {w['count_copies']} = {w['count_documents']:,} docs in {w['count_batches']} batches, "
         f"{w['count_mb']:.1f} MB"),
        (f"ray cluster start (ray.init num_cpus=2): {result['ray_cluster_start_s']:.2f} s (not in the rates); idle "
         f"Ray processes use {m.get('ray_idle_cpu', 0.0):.1%} of a CPU"),
        "",
        ("parse: items = pages, MB = their XML, words = plain-text words out; "
         "count: items = documents, MB = rendered text, tokens = qwen2.5 tokens; /w = per worker (per CPU); "
         "start s = the same stage over a one-page dump / one tiny batch per worker (its fixed cost)"),
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
        ("Wikipedia driver floor (collect, resolve)", "wikipedia", "driver_s"),
        ("Wikipedia parse wall (max of the two)", "wikipedia", "parse_wall_s"),
        ("(single-stream export: 1 reader floor)", "wikipedia", "serial_reader_s"),
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
    parser.add_argument("--parse-repeat", type=int, default=6, help="Times the slice's pages are repeated in the dump.")
    parser.add_argument("--pages-per-stream", type=int, default=PAGES_PER_STREAM, help="Pages per bz2 stream.")
    parser.add_argument("--group-bytes", type=int, default=GROUP_BYTES, help="Compressed bytes per unit of work.")
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
    with tempfile.TemporaryDirectory(prefix="scale-") as workdir:
        result = measure(dump, args.parse_repeat, args.pages_per_stream, args.group_bytes, args.count_mb,
                         args.count_batch, args.repeats, Path(workdir))
    print(table(result))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
