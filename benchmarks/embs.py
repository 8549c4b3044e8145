"""EverMemBench-S build costs on the synthetic world. Run by hand; the summary goes in the issue note.

(a) Bank and ladder: wall seconds per build stage (``BuildReport.seconds``) and peak memory
    (maximum resident set size, MiB) of a build with no retrieval regime (``retrievers=()``; with
    ``--retrievers default``, the build's default BM25 + dense regime over every ladder corpus) and
    contexts up to 1M, at several bank sizes, each size in a fresh process so its peak is its own
    (targets at 100M tokens: under 20 minutes, under 8 GB). Entities are ``tokens / 620`` (one
    entity is about one document of about 620 Qwen2.5 tokens); the table shows the tokens the bank
    really has. Inside ``bank_and_queries`` the child also times rendering + counting the bank,
    the tokenizer's ``count_batch`` and the whole-bank BM25 index (by wrapping them; nothing in
    the builder changes), and records the peak RSS at the end of every stage.
(b) Serialized contexts against one encode: the 1M ``ladder`` row of the smallest release from (a)
    serialized exactly by ``builders.embs.context_row`` (render the documents from the bank's
    texts, one verifying count), beside one ``tokens.encode`` of the same text, best of 3
    (target: at most 1.2x); with the parts of ``context_row`` timed apart, and the same for every
    materialized row (64K to 1M).
(c) Projection to the paper's 326M-token bank: a linear fit of seconds per stage and peak RSS
    against bank tokens from (a); the retrieval regime alone (BM25 over every ladder corpus) at a
    small size, scaled by the tokens of the corpora it must index at 100M and 326M; and dense
    embedding throughput of the packaged all-MiniLM-L6-v2 on this CPU, scaled to those banks.

Usage::

    python benchmarks/embs.py                                   # 10M, 30M, 100M; retrieval at 5M; dense 256 docs
    python benchmarks/embs.py --quick                           # smoke test: 2M and 4M, retrieval at 2M, 64 docs
    python benchmarks/embs.py --sizes 10M,30M --skip-dense --summary embs-bench.md
    python benchmarks/embs.py --entities 16000,48000 --skip-retrieval
"""

from __future__ import annotations

import gc
import json
import multiprocessing
import queue as queue_lib
import resource
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

import click
import numpy as np
from against_encode import measure_against_encode

from generators.embs.spec import (
    DOMAIN_SCALES,
    MAX_SCALE,
    SHARED_SCALE,
    global_scales,
    scale_tokens,
)
from needlework.lengths import TOKENS_HELP, parse_tokens

TOKENS_PER_ENTITY = 620
"""Qwen2.5 tokens per world entity (one document each; atomized ones a few), to size a bank."""
PAPER_BANK = 326_000_000
"""The paper's MemoryBank (326M tokens, decimal)."""
TARGET_BANK = 100_000_000
TARGET_SECONDS = 20 * 60
TARGET_RSS_MIB = 8 * 1024
TARGET_CONTEXT_RATIO = 1.2
STAGES = ("world", "bank_and_queries", "ladder", "retrieval", "write", "contexts")
PARTS = ("render_and_count_bank", "count_batch", "bm25_index_bank")
"""Parts of ``bank_and_queries`` timed by wrapping (``count_batch`` is inside ``render_and_count_bank``)."""


def peak_rss_mb() -> float:
    """Maximum resident set size of this process so far, in MiB.

    On Linux this is ``VmHWM`` of ``/proc/self/status``, the high-water mark of this process's own
    address space: ``getrusage``'s ``ru_maxrss`` survives ``exec``, so a child spawned by a parent
    that already holds a few hundred MiB would report at least the parent's size at the fork.
    Elsewhere, ``ru_maxrss`` (KiB on Linux, bytes on macOS).
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


def cpu_seconds() -> float:
    """User + system CPU seconds of this process so far (all its threads): a figure that a busy machine does not
    inflate the way it inflates wall time."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def retrievers_of(names: str) -> tuple[str, ...]:
    """The (a) builds' retrievers: ``none`` -> (), ``default`` -> the build's default set, else the comma list."""
    from generators.embs.spec import RETRIEVERS

    if names.strip() == "none":
        return ()
    return RETRIEVERS if names.strip() == "default" else tuple(n.strip() for n in names.split(",") if n.strip())


def label_of(tokens: float) -> str:
    """A short label for a token count: 104.9M, 512K."""
    return f"{tokens / 1e6:.1f}M" if tokens >= 1e6 else f"{tokens / 1e3:.0f}K"


# ---------------------------------------------------------------------------------------------
# (a) and the retrieval regime: one build in a fresh process


def _instrument(record: dict[str, Any]) -> None:
    """Wrap (in this child only) the builder's stage laps and the parts of ``bank_and_queries``."""
    import builders.retrieval.ladder as ranking
    import builders.embs_world as world
    from builders import embs

    record.update(stage_rss={}, parts={p: 0.0 for p in PARTS}, part_rss={}, bm25_indexes=[], world_mib=None)
    lap = embs._Stopwatch.lap

    def timed_lap(self: Any, stage: str) -> None:
        lap(self, stage)
        record["stage_rss"][stage] = round(peak_rss_mb(), 1)
        record["lap_at"][stage] = time.perf_counter()

    embs._Stopwatch.lap = timed_lap
    record["lap_at"] = {}

    build_bank = world.build_bank

    def timed_build_bank(*args: Any, **kwargs: Any) -> Any:
        begin = time.perf_counter()
        wbank = build_bank(*args, **kwargs)
        record["parts"]["render_and_count_bank"] += time.perf_counter() - begin
        record["part_rss"]["render_and_count_bank"] = round(peak_rss_mb(), 1)
        record["_wbank"] = wbank  # sized after the build, outside the clock
        return wbank

    world.build_bank = timed_build_bank

    retriever = ranking.BM25Retriever

    class TimedBM25(retriever):  # type: ignore[misc, valid-type]
        def __init__(self, titles: Any, texts: Any, **kwargs: Any) -> None:
            begin = time.perf_counter()
            super().__init__(titles, texts, **kwargs)
            seconds = time.perf_counter() - begin
            record["bm25_indexes"].append((len(titles), seconds, time.perf_counter()))
            if "bm25_index_bank" not in record["part_rss"]:
                record["parts"]["bm25_index_bank"] += seconds
                record["part_rss"]["bm25_index_bank"] = round(peak_rss_mb(), 1)

    ranking.BM25Retriever = TimedBM25


def _build_child(entities: int, retrievers: tuple[str, ...], out: str, queue: multiprocessing.Queue,
                 dense_model: str | None = None) -> None:
    record: dict[str, Any] = {"entities": entities, "retrievers": list(retrievers), "dense_model": dense_model}
    try:
        from builders.embs import EmbsBuild, build
        from needlework.tokenizers import load_tokenizer

        tokens = load_tokenizer("qwen2.5")
        tokens.count_batch(["warm up"])
        _instrument(record)
        count_batch = tokens.count_batch

        def timed_count_batch(texts: Any) -> Any:
            begin = time.perf_counter()
            result = count_batch(texts)
            record["parts"]["count_batch"] += time.perf_counter() - begin
            return result

        tokens.count_batch = timed_count_batch  # type: ignore[method-assign]
        record["rss_before_mib"] = round(peak_rss_mb(), 1)
        cpu_before = cpu_seconds()
        # A fresh cache per build, so the whole-bank BM25 index is built, not loaded from an earlier run.
        spec = EmbsBuild(entities=entities, retrievers=retrievers, materialize="1M", build_retriever="bm25",
                         cache=str(Path(out).with_name(Path(out).name + "-cache")),
                         **({"dense_model": dense_model} if dense_model else {}))
        begin = time.perf_counter()
        report = build(spec, Path(out), tokens=tokens, progress=False)
        end = time.perf_counter()
        manifest = json.loads((Path(out) / "manifest.json").read_text(encoding="utf-8"))
        ladder_at = record["lap_at"].get("ladder", end)
        in_retrieval = [(n, s) for n, s, at in record["bm25_indexes"] if at > ladder_at]
        record.update(
            seconds=report.seconds, total_s=round(end - begin, 2), cpu_s=round(cpu_seconds() - cpu_before, 1),
            peak_rss_mib=round(peak_rss_mb(), 1),
            rows=report.rows, documents=manifest["bank"]["documents"], tokens=manifest["bank"]["tokens"],
            release_mib=round(sum(p.stat().st_size for p in Path(out).rglob("*") if p.is_file()) / 2**20, 1),
            retrieval_indexes=len(in_retrieval), retrieval_indexed_docs=sum(n for n, _ in in_retrieval),
            retrieval_index_s=round(sum(s for _, s in in_retrieval), 2),
        )
        record["parts"] = {k: round(v, 2) for k, v in record["parts"].items()}
        # What the world model (kept through the whole build; the bank renders from it) added to the peak.
        record.pop("_wbank")
        record["world_mib"] = round(record["stage_rss"]["world"] - record["rss_before_mib"], 1)
        del record["lap_at"], record["bm25_indexes"]
    except BaseException as err:  # noqa: BLE001  (report anything, MemoryError included, to the parent)
        record = {"entities": entities, "error": f"{type(err).__name__}: {err}", "traceback": traceback.format_exc(),
                  "peak_rss_mib": round(peak_rss_mb(), 1), "stage_rss": record.get("stage_rss"),
                  "part_rss": record.get("part_rss")}
    queue.put(record)


def build_in_child(entities: int, retrievers: tuple[str, ...], out: Path, dense_model: str | None = None) -> dict[str, Any]:
    """One build in a fresh (spawned) process; its record, or an ``error`` if it failed or was killed."""
    context = multiprocessing.get_context("spawn")
    queue: multiprocessing.Queue = context.Queue()
    child = context.Process(target=_build_child, args=(entities, retrievers, str(out), queue, dense_model))
    begin = time.perf_counter()
    child.start()
    while True:
        try:
            result = queue.get(timeout=5)
            break
        except queue_lib.Empty:
            if not child.is_alive():
                result = {"entities": entities, "error": f"child exited with code {child.exitcode} without a report "
                          f"(killed? -9 is the OOM killer) after {time.perf_counter() - begin:.0f} s"}
                break
    child.join()
    return result


def _fmt_s(v: float | None) -> str:
    return "–" if v is None else (f"{v:,.1f}" if v < 100 else f"{v:,.0f}")


def bank_sizes(entity_counts: list[int], work: Path, retrievers: tuple[str, ...] = (), dense_model: str | None = None
               ) -> tuple[list[dict[str, Any]], Path | None]:
    """(a): one build per size; keeps the smallest release (with a 1M ladder row) for (b) and the dense sample."""
    results = []
    kept: Path | None = None
    for entities in entity_counts:
        out = work / f"release-{entities}"
        click.echo(f"(a) building {entities:,} entities (≈{label_of(entities * TOKENS_PER_ENTITY)} tokens) in a fresh process ...",
                   err=True)
        result = build_in_child(entities, retrievers, out, dense_model)
        shutil.rmtree(out.with_name(out.name + "-cache"), ignore_errors=True)
        results.append(result)
        if "error" in result:
            click.echo(f"    FAILED: {result['error']}\n{result.get('traceback', '')}", err=True)
            shutil.rmtree(out, ignore_errors=True)
            continue
        click.echo(f"    {result['documents']:,} docs, {result['tokens']:,} tokens, {result['total_s']:.1f} s, "
                   f"peak RSS {result['peak_rss_mib']:,.0f} MiB; stages {result['seconds']}; parts {result['parts']}", err=True)
        if kept is None and result["rows"].get("contexts-1M"):
            kept = out
        else:
            shutil.rmtree(out, ignore_errors=True)
    return results, kept


# ---------------------------------------------------------------------------------------------
# (b) serialized contexts against one encode


def load_release(folder: Path) -> tuple[list[str], list[str], list[dict[str, Any]], list[str]]:
    """Titles and texts by doc id, the ladder rows, and the languages by doc id of a built release."""
    import pyarrow.parquet as pq

    bank = pq.read_table(sorted((folder / "memorybank").glob("*.parquet")), columns=["doc_id", "title", "text", "lang"])
    order = np.argsort(bank["doc_id"].to_numpy())
    assert (bank["doc_id"].to_numpy()[order] == np.arange(len(order))).all(), "memorybank doc ids are not 0..n-1"
    titles = [bank["title"][int(i)].as_py() for i in order]
    texts = [bank["text"][int(i)].as_py() for i in order]
    langs = [bank["lang"][int(i)].as_py() for i in order]
    ladder = pq.read_table(sorted((folder / "ladder").glob("*.parquet"))).to_pylist()
    return titles, texts, ladder, langs


def _corpus(row: dict[str, Any]) -> Any:
    import dataclasses

    from generators.embs.ladder import Corpus

    # By field name, so a Corpus with more fields than the ladder row still loads (missing ones are 0).
    values = {f.name: row.get(f.name, 0) for f in dataclasses.fields(Corpus)}
    values["doc_ids"] = np.asarray(row["doc_ids"], dtype=np.int64)
    return Corpus(**values)


def _best(fn: Any, repeats: int) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeats):
        value = None
        gc.collect()
        begin = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - begin)
    return best, value


def contexts_against_encode(folder: Path, repeats: int) -> dict[str, Any]:
    """(b): ``context_row`` of the 1M ladder row beside one encode of its text, and its parts apart."""
    from builders.embs import context_row
    from generators.embs.prompts import render_document, serialize_corpus
    from generators.embs.spec import scale_sort_key
    from needlework.tokenizers import load_tokenizer

    tokens = load_tokenizer("qwen2.5")
    titles, texts, ladder, _langs = load_release(folder)
    one = _corpus(next(r for r in ladder if r["scale"] == "1M"))
    ids = one.doc_ids.tolist()
    tokens.encode("warm up")
    serialized = serialize_corpus(render_document(d, titles[d], texts[d]) for d in ids)
    row_s, row = _best(lambda: context_row(one, serialized, tokens.count(serialized), tokens), repeats)
    text = row["input"]
    encode_s, ids_array = _best(lambda: tokens.encode(text), repeats)
    render_s, rendered = _best(lambda: serialize_corpus(render_document(d, titles[d], texts[d]) for d in ids), repeats)
    assert rendered == text
    normalize_s, _ = _best(lambda: tokens.normalize(text), repeats)
    count_s, counted = _best(lambda: tokens.count(text), repeats)
    assert counted == row["n_tokens"] == len(ids_array)
    materialized = sorted((_corpus(r) for r in ladder if scale_sort_key(r["scale"]) <= scale_sort_key("1M")),
                          key=lambda c: scale_sort_key(c.scale))
    def rows() -> list[dict[str, Any]]:
        out = []
        for c in materialized:
            text = serialize_corpus(render_document(d, titles[d], texts[d]) for d in c.doc_ids.tolist())
            out.append(context_row(c, text, tokens.count(text), tokens))
        return out

    every = measure_against_encode(rows, tokens, repeats)
    return {
        "release": folder.name, "n_docs": len(ids), "n_tokens": row["n_tokens"], "limit_tokens": row["limit_tokens"],
        "chars": len(text), "context_row_s": round(row_s, 4), "encode_s": round(encode_s, 4),
        "ratio": round(row_s / encode_s, 3), "render_join_s": round(render_s, 4), "normalize_check_s": round(normalize_s, 4),
        "count_s": round(count_s, 4), "all_rows": len(materialized), "all_rows_measure": every, "repeats": repeats,
    }


# ---------------------------------------------------------------------------------------------
# (c) dense throughput and projections


def dense_throughput(folder: Path, docs: int, dense_model: str | None = None) -> dict[str, Any]:
    """Documents and encoder tokens per second through ``DenseRetriever`` (the build's default dense model unless
    ``dense_model``; CPU, model load excluded)."""
    import torch

    from builders.retrieval.dense import DenseRetriever, encoder_token_counts, load_model, resolve_model
    from builders.retrieval.ladder import _dense_document
    from builders.specs.embs import EmbsBuild

    titles, texts, _, langs = load_release(folder)
    rng = np.random.default_rng(0)
    pick = np.sort(rng.choice(len(titles), size=min(docs, len(titles)), replace=False)).tolist()
    sample_titles, sample_texts = [titles[i] for i in pick], [texts[i] for i in pick]
    source, identity = resolve_model(dense_model or EmbsBuild().dense_model)
    model = load_model(source, device="cpu")
    DenseRetriever(sample_titles[:32], sample_texts[:32], render=_dense_document, model=model, model_id=identity)
    begin = time.perf_counter()
    retriever = DenseRetriever(sample_titles, sample_texts, render=_dense_document, model=model, model_id=identity)
    seconds = time.perf_counter() - begin
    counts = encoder_token_counts([_dense_document(t, x) for t, x in zip(sample_titles, sample_texts)], model)
    encoder_tokens = int(counts.sum()) if counts is not None else None
    return {"model": identity, "docs": len(pick), "zh_share": round(sum(langs[i] == "zh" for i in pick) / len(pick), 2),
            "seconds": round(seconds, 2), "docs_per_s": round(len(pick) / seconds, 1),
            "encoder_tokens_per_s": round(encoder_tokens / seconds) if encoder_tokens else None,
            "dim": int(retriever.embeddings.shape[1]),
            "max_seq_length": int(getattr(model, "max_seq_length", 0) or 0), "torch_threads": torch.get_num_threads()}


def ladder_index_tokens(bank_tokens: int, unit: int = 1024) -> int:
    """Tokens BM25 must index for the retrieval regime over a bank of ``bank_tokens``.

    Every ladder corpus but ``max`` gets its own index (``max`` reuses the whole-bank index built in
    Stages II-III): eight domains x (64K + 128K + 256K), the 512K union, and every global scale
    below the bank (budgets; corpora fill them to within one document).
    """
    domain = 8 * sum(scale_tokens(s, unit) for s in DOMAIN_SCALES)
    shared = scale_tokens(SHARED_SCALE, unit)
    return domain + shared + sum(scale_tokens(s, unit) for s in global_scales(bank_tokens, unit) if s != MAX_SCALE)


def linear_fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """``(intercept, slope)`` of a least-squares line (a constant if only one point)."""
    if len(xs) < 2:
        return (ys[0] if ys else 0.0), 0.0
    slope, intercept = np.polyfit(np.asarray(xs, dtype=float), np.asarray(ys, dtype=float), 1)
    return float(intercept), float(slope)


def _rss_steps(r: dict[str, Any]) -> dict[str, float]:
    """How much each step of one build raised its peak RSS (MiB), in build order."""
    marks = [("imports + tokenizer", r["rss_before_mib"]), ("world", r["stage_rss"]["world"]),
             ("render+count bank", r["part_rss"]["render_and_count_bank"]), ("BM25 index (bank)", r["part_rss"]["bm25_index_bank"]),
             ("rest of queries", r["stage_rss"]["bank_and_queries"]),
             *((s, r["stage_rss"][s]) for s in STAGES[2:] if s in r["stage_rss"])]
    steps, last = {}, 0.0
    for name, value in marks:
        steps[name] = max(value - last, 0.0)
        last = max(last, value)
    return steps


# ---------------------------------------------------------------------------------------------
# the summary


def summary(sizes: list[dict[str, Any]], contexts: dict[str, Any] | None, retrieval: dict[str, Any] | None,
            dense: dict[str, Any] | None, retrievers: tuple[str, ...] = ()) -> str:
    out: list[str] = []
    ok = [r for r in sizes if "error" not in r]
    out.append(f"### (a) MemoryBank + ladder (retrievers={retrievers}, materialize=1M), one fresh process per size\n")
    head = ["entities", "docs", "bank tokens", *STAGES, "other", "total s", "CPU s", "peak RSS MiB", "world MiB",
            "release MiB"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---:|" * len(head))
    for r in sizes:
        if "error" in r:
            out.append(f"| {r['entities']:,} | FAILED: {r['error']} (peak RSS {r.get('peak_rss_mib', '?')} MiB; "
                       f"stage peaks {r.get('stage_rss')}; part peaks {r.get('part_rss')}) |")
            continue
        other = r["total_s"] - sum(r["seconds"].values())
        out.append(f"| {r['entities']:,} | {r['documents']:,} | {r['tokens']:,} | "
                   + " | ".join(_fmt_s(r["seconds"].get(s)) for s in STAGES)
                   + f" | {_fmt_s(other)} | {_fmt_s(r['total_s'])} | {_fmt_s(r.get('cpu_s'))} | {r['peak_rss_mib']:,.0f} | {r['world_mib']:,.0f} | {r['release_mib']:,.0f} |")
    if ok:
        out.append("\nInside `bank_and_queries` (seconds; `count_batch` is part of render+count), and peak RSS (MiB) at the end of each step:\n")
        head = ["bank tokens", "render+count bank", "count_batch", "BM25 index (bank)", "rest of queries",
                "RSS before", "RSS render+count", "RSS BM25", *(f"RSS {s}" for s in STAGES)]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---:|" * len(head))
        for r in ok:
            p = r["parts"]
            rest = r["seconds"]["bank_and_queries"] - p["render_and_count_bank"] - p["bm25_index_bank"]
            out.append(f"| {label_of(r['tokens'])} | {_fmt_s(p['render_and_count_bank'])} | {_fmt_s(p['count_batch'])} | "
                       f"{_fmt_s(p['bm25_index_bank'])} | {_fmt_s(rest)} | {r['rss_before_mib']:,.0f} | "
                       f"{r['part_rss'].get('render_and_count_bank', 0):,.0f} | {r['part_rss'].get('bm25_index_bank', 0):,.0f} | "
                       + " | ".join(f"{r['stage_rss'].get(s, 0):,.0f}" for s in STAGES) + " |")
    largest = max(ok, key=lambda r: r["tokens"]) if ok else None
    if largest is not None:
        per_entity = sum(r["tokens"] for r in ok) / sum(r["entities"] for r in ok)
        verdict_s = "meets" if largest["total_s"] < TARGET_SECONDS else "MISSES"
        verdict_m = "meets" if largest["peak_rss_mib"] < TARGET_RSS_MIB else "MISSES"
        out.append(f"\nLargest: {largest['tokens']:,} tokens in {largest['total_s']:,.0f} s ({verdict_s} < {TARGET_SECONDS // 60} min) "
                   f"at peak RSS {largest['peak_rss_mib']:,.0f} MiB ({verdict_m} < {TARGET_RSS_MIB // 1024} GB). "
                   f"Observed {per_entity:,.0f} tokens per entity (sizing assumes {TOKENS_PER_ENTITY}).")
    if len(ok) >= 2:
        small = min(ok, key=lambda r: r["tokens"])
        bank_growth = largest["tokens"] / small["tokens"]
        rss_growth = largest["peak_rss_mib"] / small["peak_rss_mib"]
        _, rss_slope = linear_fit([r["tokens"] / 1e6 for r in ok], [r["peak_rss_mib"] for r in ok])
        _, world_slope = linear_fit([r["tokens"] / 1e6 for r in ok], [r["world_mib"] for r in ok])
        flat = (largest["peak_rss_mib"] - small["peak_rss_mib"]) < 0.1 * small["peak_rss_mib"]
        # The world model is the build's input (the real-source path holds its sources the same way):
        # the peak net of the world stage's own rise says whether the build adds anything bank-sized.
        net_small, net_large = (r["peak_rss_mib"] - r["world_mib"] for r in (small, largest))
        net_flat = net_large - net_small < 0.1 * net_small
        out.append(f"Memory in bank size: bank x{bank_growth:.1f} -> peak RSS x{rss_growth:.2f} "
                   f"(+{rss_slope:,.1f} MiB per 1M bank tokens; the world model alone is +{world_slope:,.1f} MiB per 1M). "
                   + ("Peak memory is FLAT beyond the largest materialized context (1M)." if flat else
                      "Peak memory is NOT flat: it grows linearly with the bank.")
                   + f" Net of the world stage's rise (the world model as grown, with its growth's working set) the peak goes "
                   f"{net_small:,.0f} -> {net_large:,.0f} MiB: "
                   + ("FLAT (within 10%): the build itself holds nothing bank-sized." if net_flat else
                      "NOT flat: the build itself holds something bank-sized."))

    if contexts is not None:
        c = contexts
        every = c["all_rows_measure"]
        verdict = "meets" if c["ratio"] <= TARGET_CONTEXT_RATIO else "MISSES"
        out.append(f"\n### (b) Serialized 1M context vs one encode (best of {c['repeats']}; release {c['release']})\n")
        out.append("| corpus | docs | tokens | chars | context_row s | encode s | ratio | render+join s | NFC check s | count s |")
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        out.append(f"| 1M | {c['n_docs']:,} | {c['n_tokens']:,} | {c['chars']:,} | {c['context_row_s']:.3f} | {c['encode_s']:.3f} | "
                   f"**{c['ratio']:.2f}x** | {c['render_join_s']:.3f} | {c['normalize_check_s']:.3f} | {c['count_s']:.3f} |")
        out.append(f"\n1M ratio {c['ratio']:.2f}x ({verdict} <= {TARGET_CONTEXT_RATIO}x). All {c['all_rows']} materialized rows (64K-1M) "
                   f"through `measure_against_encode`: ratio {every['ratio']:.2f}x (median paired {every['median_paired_ratio']:.2f}x), "
                   f"{every['generate_s_per_sample']:.3f} s per row vs {every['one_encode_s_per_sample']:.3f} s per encode.")

    out.append("\n### (c) Projection (linear fit of (a) in bank tokens)\n")
    if len(ok) >= 2:
        xs = [r["tokens"] for r in ok]
        cols = [*STAGES, "total"]
        fits = {s: linear_fit(xs, [r["seconds"].get(s, 0.0) for r in ok]) for s in STAGES}
        fits["total"] = linear_fit(xs, [r["total_s"] for r in ok])
        for p in ("render_and_count_bank", "bm25_index_bank"):
            fits[p] = linear_fit(xs, [r["parts"][p] for r in ok])
        fits["rest_of_queries"] = linear_fit(xs, [r["seconds"]["bank_and_queries"] - r["parts"]["render_and_count_bank"]
                                                  - r["parts"]["bm25_index_bank"] for r in ok])
        rss_fit = linear_fit(xs, [r["peak_rss_mib"] for r in ok])
        step_rss = {s: linear_fit(xs, [r["stage_rss"].get(s, 0.0) for r in ok]) for s in STAGES}
        bank_rss = linear_fit(xs, [r["part_rss"]["render_and_count_bank"] for r in ok])
        bm25_rss = linear_fit(xs, [r["part_rss"]["bm25_index_bank"] - r["part_rss"]["render_and_count_bank"] for r in ok])
        head = ["bank tokens", *cols, "render+count", "BM25 index", "rest of queries", "peak RSS MiB",
                "RSS after render+count", "RSS added by BM25 index"]
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "---:|" * len(head))
        at = lambda fit, x: fit[0] + fit[1] * x
        for x in (TARGET_BANK, PAPER_BANK):
            out.append(f"| {label_of(x)} | " + " | ".join(_fmt_s(max(at(fits[s], x), 0.0)) for s in cols)
                       + f" | {_fmt_s(at(fits['render_and_count_bank'], x))} | {_fmt_s(at(fits['bm25_index_bank'], x))} | "
                       f"{_fmt_s(at(fits['rest_of_queries'], x))} | {at(rss_fit, x):,.0f} | {at(bank_rss, x):,.0f} | {at(bm25_rss, x):,.0f} |")
        slopes = {s: fits[s][1] * 1e6 for s in (*STAGES, "render_and_count_bank", "bm25_index_bank", "rest_of_queries")}
        out.append("\nSlopes (seconds per 1M bank tokens): " + ", ".join(f"{k} {v:.3f}" for k, v in slopes.items())
                   + f"; peak RSS {rss_fit[1] * 1e6:,.1f} MiB per 1M tokens; RSS at end of each stage per 1M tokens: "
                   + ", ".join(f"{s} {step_rss[s][1] * 1e6:,.1f}" for s in STAGES) + ".")
        heaviest = max(("render_and_count_bank", "bm25_index_bank", "rest_of_queries", "write", "contexts", "ladder", "world"),
                       key=lambda s: at(fits[s], PAPER_BANK))
        out.append(f"At 326M the longest step would be `{heaviest}` ({_fmt_s(at(fits[heaviest], PAPER_BANK))} s); the whole build "
                   f"{_fmt_s(at(fits['total'], PAPER_BANK))} s ({'under' if at(fits['total'], PAPER_BANK) < TARGET_SECONDS else 'OVER'} "
                   f"{TARGET_SECONDS // 60} min) at a peak of {at(rss_fit, PAPER_BANK):,.0f} MiB "
                   f"({'under' if at(rss_fit, PAPER_BANK) < TARGET_RSS_MIB else 'OVER'} {TARGET_RSS_MIB // 1024} GB).")
        biggest = max(ok, key=lambda r: r["tokens"])
        steps = _rss_steps(biggest)
        step, grew = max(steps.items(), key=lambda kv: kv[1])
        out.append(f"Where the peak grows at {label_of(biggest['tokens'])}: " + ", ".join(f"{k} +{v:,.0f}" for k, v in steps.items())
                   + f" MiB; the largest rise is `{step}` ({grew / max(biggest['peak_rss_mib'], 1):.0%} of the peak). "
                   f"Per-document maps the distributed engine would take (spec §8): render+count "
                   f"{_fmt_s(at(fits['render_and_count_bank'], PAPER_BANK))} s at 326M; dense embedding is hours (below).")
    else:
        out.append("(needs at least two successful sizes)")

    if retrieval is not None:
        out.append("\n#### Retrieval regime alone (BM25 over every ladder corpus; fresh process)\n")
        if "error" in retrieval:
            out.append(f"FAILED: {retrieval['error']}")
        else:
            r = retrieval
            tpd = r["tokens"] / r["documents"]
            measured_tokens = ladder_index_tokens(r["tokens"])
            per_token = r["seconds"]["retrieval"] / measured_tokens
            grew = r["stage_rss"]["retrieval"] - r["stage_rss"]["ladder"]
            out.append("| bank tokens | ladder corpora | BM25 indexes | docs indexed | index s | retrieval stage s | s per 1M indexed tokens | RSS growth in stage MiB | peak RSS MiB |")
            out.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
            out.append(f"| {r['tokens']:,} | {r['rows']['ladder']} | {r['retrieval_indexes']} | {r['retrieval_indexed_docs']:,} | "
                       f"{r['retrieval_index_s']:.1f} | {r['seconds']['retrieval']:.1f} | {per_token * 1e6:.3f} | {grew:,.0f} | {r['peak_rss_mib']:,.0f} |")
            # Each corpus's index is streamed to disk and read per query, so it adds no resident memory
            # beyond the streaming build's working set (the stage's RSS growth above).
            out.append("\n| bank | tokens to index (all ladder corpora but max) | projected BM25 regime s | largest corpus index |")
            out.append("|---:|---:|---:|---:|")
            for x in (TARGET_BANK, PAPER_BANK):
                need = ladder_index_tokens(x)
                top = max((scale_tokens(t) for t in global_scales(x) if t != MAX_SCALE), default=0)
                out.append(f"| {label_of(x)} | {need:,} | {_fmt_s(need * per_token)} | {label_of(top)} |")
            out.append(f"(scaled by indexed tokens: {r['seconds']['retrieval']:.1f} s over {measured_tokens:,} budget tokens at "
                       f"{label_of(r['tokens'])}; {tpd:,.0f} tokens per document; query scoring is included in the rate.)")

    if dense is not None:
        out.append(f"\n#### Dense embedding throughput ({dense.get('model', 'the default model')}, this CPU)\n")
        if "error" in dense:
            out.append(f"FAILED: {dense['error']}")
        else:
            d = dense
            tpd = (sum(r["tokens"] for r in ok) / sum(r["documents"] for r in ok)) if ok else TOKENS_PER_ENTITY
            out.append(f"{d['docs']} docs ({d['zh_share']:.0%} Chinese) in {d['seconds']:.1f} s = **{d['docs_per_s']:.1f} docs/s** "
                       f"({d['model']}, {d['encoder_tokens_per_s']} encoder tokens/s, max_seq_length {d['max_seq_length']}, dim {d['dim']}, {d['torch_threads']} torch threads; "
                       f"a model with a max_seq_length cuts longer documents, one without reads them whole in windows).\n")
            out.append("| bank | documents | CPU hours | embeddings GiB (f32) |")
            out.append("|---:|---:|---:|---:|")
            for x in (TARGET_BANK, PAPER_BANK):
                n = x / tpd
                out.append(f"| {label_of(x)} | {n:,.0f} | {n / d['docs_per_s'] / 3600:,.1f} | {n * d['dim'] * 4 / 2**30:.2f} |")
    return "\n".join(out)


@click.command()
@click.option("--sizes", "--bank-tokens", "sizes", default="10M,30M,100M", show_default=True,
              help="Comma-separated bank sizes in tokens; entities = tokens / 620. " + TOKENS_HELP)
@click.option("--entities", default="", help="Comma-separated entity counts instead of --sizes.")
@click.option("--retrieval-size", default="5M", show_default=True, help="Bank size of the retrieval-regime build ('0' to skip). " + TOKENS_HELP)
@click.option("--dense-docs", type=int, default=256, show_default=True, help="Documents embedded for the dense throughput (0 to skip).")
@click.option("--dense-model", default="", help="Dense model of the (a) builds and the throughput (default: the build's).")
@click.option("--repeats", type=int, default=3, show_default=True, help="Repeats of (b) (best of).")
@click.option("--quick", is_flag=True, help="Smoke test: sizes 2M,4M, retrieval at 2M, 64 dense docs.")
@click.option("--retrievers", "retriever_names", default="none", show_default=True,
              help="Retrievers of the (a) builds: 'none', 'default' (the build's own default set) or a comma list.")
@click.option("--skip-retrieval", is_flag=True)
@click.option("--skip-dense", is_flag=True)
@click.option("--skip-contexts", is_flag=True, help="Skip (b).")
@click.option("--workdir", default=None, help="Folder for the temporary releases (default: the system's temp folder).")
@click.option("--summary", "summary_path", default=None, help="Also write the markdown summary (and raw JSON beside it) here.")
def main(sizes: str, entities: str, retrieval_size: str, dense_docs: int, dense_model: str, repeats: int, quick: bool,
         retriever_names: str, skip_retrieval: bool, skip_dense: bool, skip_contexts: bool, workdir: str | None, summary_path: str | None) -> None:
    """Measure EMB-S build costs and print a markdown summary."""
    if quick:
        sizes, retrieval_size, dense_docs = "2M,4M", "2M", min(dense_docs, 64)
    if entities:
        counts = [int(e) for e in entities.split(",") if e.strip()]
    else:
        counts = [max(1, round(parse_tokens(s) / TOKENS_PER_ENTITY)) for s in sizes.split(",") if s.strip()]
    work = Path(tempfile.mkdtemp(prefix="embs-bench-", dir=workdir))
    raw: dict[str, Any] = {"argv": sys.argv}
    try:
        retrievers = retrievers_of(retriever_names)
        results, kept = bank_sizes(counts, work, retrievers, dense_model or None)
        raw["sizes"] = results
        contexts = dense = retrieval = None
        if kept is None and not (skip_contexts and skip_dense):
            click.echo("no release with a 1M ladder row was built: (b) and dense skipped", err=True)
        if not skip_retrieval and parse_tokens(retrieval_size) > 0:
            n = max(1, round(parse_tokens(retrieval_size) / TOKENS_PER_ENTITY))
            click.echo(f"(c) retrieval regime: {n:,} entities, retrievers=('bm25',) in a fresh process ...", err=True)
            retrieval = build_in_child(n, ("bm25",), work / "release-retrieval")
            shutil.rmtree(work / "release-retrieval", ignore_errors=True)
            shutil.rmtree(work / "release-retrieval-cache", ignore_errors=True)
            click.echo(f"    {json.dumps({k: v for k, v in retrieval.items() if k != 'traceback'})}", err=True)
        if kept is not None and not skip_contexts:
            click.echo(f"(b) contexts against encode on {kept.name} ...", err=True)
            contexts = contexts_against_encode(kept, repeats)
            click.echo(f"    {json.dumps(contexts)}", err=True)
        if kept is not None and not skip_dense and dense_docs > 0:
            click.echo(f"(c) dense throughput, {dense_docs} docs ...", err=True)
            try:
                dense = dense_throughput(kept, dense_docs, dense_model or None)
            except Exception as err:  # noqa: BLE001  (the dense extra may be missing; report, go on)
                dense = {"error": f"{type(err).__name__}: {err}"}
            click.echo(f"    {json.dumps(dense)}", err=True)
        raw.update(contexts=contexts, retrieval=retrieval, dense=dense)
        text = summary(results, contexts, retrieval, dense, retrievers)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    click.echo(text)
    if summary_path:
        Path(summary_path).write_text(text + "\n", encoding="utf-8")
        Path(summary_path).with_suffix(".json").write_text(json.dumps(raw, indent=1, default=str) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
