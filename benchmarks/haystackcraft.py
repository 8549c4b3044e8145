"""HaystackCraft build costs on the synthetic world. Run by hand; figures go in the issue note.

(a) Corpus token counting: documents per second through ``count_documents`` (rendering
    included) beside the raw ``count_batch`` throughput of the same tokenizer on the already
    rendered documents (target: at least 0.8x).
(b) Haystack assembly from cached rankings and token counts: 128,000-token haystacks per second,
    every ordering of each (question, strategy) counted (target: at least 500 per second).
(c) PPR time per query on the world's link graph of ``--ppr-docs`` documents (target: under 0.2 s
    at 200,000), the PageRank solve alone and the whole BM25+PPR ranking of a query.
(d) Peak memory of a whole build with BM25 and BM25+PPR on that world (target: under 8 GB),
    measured in a child process so nothing else counts.
(e) Dense embedding throughput of the offline model on this CPU, and the time 7M Wikipedia
    articles would take on one GPU at the model's published speed.

Usage::

    python benchmarks/haystackcraft.py                       # everything, 200,000-document world
    python benchmarks/haystackcraft.py --ppr-docs 20000 --skip-build
"""

from __future__ import annotations

import json
import multiprocessing
import resource
import tempfile
import time
from pathlib import Path

import click
import numpy as np

from builders.haystackcraft import HaystackCraftBuild, build, count_documents
from builders.retrieval.bm25 import BM25Retriever
from builders.retrieval.ppr import PPR_DEFAULTS, PprGraph, PprRetriever
from builders.retrieval.rank import rank_strategies
from builders.sources.world_corpus import world_corpus_and_qa
from generators.haystackcraft.assemble import RankedQuestion
from generators.haystackcraft.prompt import render_document
from generators.haystackcraft.rows import haystack_rows
from generators.haystackcraft.spec import HaystackSpec
from needlework.tokenizers import load_tokenizer

MINILM_PUBLISHED_PER_S = 14_200
"""all-MiniLM-L6-v2 sentences per second on one V100 GPU, from sbert.net's pretrained-models table."""
WIKIPEDIA_ARTICLES = 6_954_909
"""Articles in the paper's 2025-04-04 dump (§3.4)."""


def _emit(**fields: object) -> None:
    click.echo(json.dumps(fields))


def counting(docs: int, tokenizer: str) -> None:
    """(a): count_documents against raw count_batch on the same documents."""
    corpus, _ = world_corpus_and_qa(docs, 10, 0)
    titles, texts = corpus.corpus["title"].to_pylist(), corpus.corpus["text"].to_pylist()
    tokens = load_tokenizer(tokenizer)
    rendered = [render_document(t, x) for t, x in zip(titles, texts)]
    tokens.count_batch(rendered[:256])
    best_ours = best_raw = float("inf")
    for _ in range(3):
        begin = time.perf_counter()
        ours = count_documents(titles, texts, tokens)
        best_ours = min(best_ours, time.perf_counter() - begin)
        begin = time.perf_counter()
        raw = tokens.count_batch(rendered)
        best_raw = min(best_raw, time.perf_counter() - begin)
    assert ours.tolist() == raw.tolist()
    _emit(case="a-token-counting", docs=docs, tokens=int(raw.sum()), ours_docs_per_s=round(docs / best_ours),
          raw_docs_per_s=round(docs / best_raw), ratio=round(best_raw / best_ours, 3))


def assembly(docs: int, questions: int, tokenizer: str) -> None:
    """(b): haystacks per second at 128,000 tokens from cached rankings and counts."""
    corpus, qa = world_corpus_and_qa(docs, questions, 0)
    titles, texts = corpus.corpus["title"].to_pylist(), corpus.corpus["text"].to_pylist()
    doc_tokens = count_documents(titles, texts, load_tokenizer(tokenizer))
    rows = qa.qa.to_pylist()
    bm25 = BM25Retriever(titles, texts, render=render_document)
    needles = [np.asarray(q["support"], dtype=np.int64) for q in rows]
    ranked = rank_strategies(len(titles), [q["question"] for q in rows], needles, {"bm25": bm25}, 1000)["bm25"]
    spec = HaystackSpec(strategies=("bm25",), sizes=(128_000,))
    inputs = [{"bm25": RankedQuestion(r.doc_ids, r.needle_ids, r.needle_ranks)} for r in ranked]
    begin = time.perf_counter()
    haystacks = [h for q, r in zip(rows, inputs) for h in haystack_rows(q["qid"], r, doc_tokens, 1, spec, seed=0)]
    seconds = time.perf_counter() - begin
    _emit(case="b-assembly-128k", docs=docs, haystacks=len(haystacks), haystacks_per_s=round(len(haystacks) / seconds),
          mean_docs_per_haystack=round(float(np.mean([len(h["doc_ids"]) for h in haystacks])), 1),
          mean_ranking_length=round(float(np.mean([len(r.doc_ids) for r in ranked])), 1))


def ppr(docs: int, queries: int) -> None:
    """(c): PageRank solve per query, and a whole BM25+PPR ranking per query."""
    begin = time.perf_counter()
    corpus, qa = world_corpus_and_qa(docs, queries, 0)
    world_s = time.perf_counter() - begin
    links = corpus.links
    graph = PprGraph.from_links(links["src"].to_numpy(), links["dst"].to_numpy(), corpus.corpus.num_rows)
    rng = np.random.default_rng(0)
    params = PPR_DEFAULTS["bm25"]
    solve = []
    for _ in range(queries):
        seeds = rng.choice(corpus.corpus.num_rows, size=params.seeds, replace=False)
        begin = time.perf_counter()
        graph.pagerank(seeds, rng.random(params.seeds), params.damping)
        solve.append(time.perf_counter() - begin)
    titles, texts = corpus.corpus["title"].to_pylist(), corpus.corpus["text"].to_pylist()
    bm25 = BM25Retriever(titles, texts, render=render_document)
    questions = qa.qa["question"].to_pylist()
    strategy = PprRetriever(bm25, graph, params)
    begin = time.perf_counter()
    for q in questions:
        strategy.order_keys([q])
    whole = (time.perf_counter() - begin) / len(questions)
    _emit(case="c-ppr", docs=docs, links=links.num_rows, world_generation_s=round(world_s, 1),
          ppr_solve_s_median=round(float(np.median(solve)), 4), ppr_solve_s_max=round(max(solve), 4),
          bm25_plus_ppr_ranking_s_per_query=round(whole, 4))


def _build_child(docs: int, questions: int, out: str, queue: multiprocessing.Queue) -> None:
    begin = time.perf_counter()
    spec = HaystackCraftBuild(world_docs=docs, world_questions=questions, strategies=("bm25", "bm25+ppr"), cache=out + "-cache")
    report = build(spec, Path(out), progress=False)
    queue.put({"seconds": round(time.perf_counter() - begin, 1), "rows": report.rows,
               "peak_rss_gb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, 2)})


def whole_build(docs: int, questions: int) -> None:
    """(d): peak resident memory of a whole BM25/BM25+PPR build, in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        queue: multiprocessing.Queue = multiprocessing.get_context("spawn").Queue()
        child = multiprocessing.get_context("spawn").Process(target=_build_child, args=(docs, questions, f"{tmp}/release", queue))
        child.start()
        result = queue.get()
        child.join()
    _emit(case="d-whole-build-memory", docs=docs, questions=questions, **result)


def dense(docs: int) -> None:
    """(e): offline embedding throughput, and the projected 7M-article time on one GPU."""
    from builders.retrieval.dense import DenseRetriever

    corpus, _ = world_corpus_and_qa(docs, 10, 0)
    titles, texts = corpus.corpus["title"].to_pylist(), corpus.corpus["text"].to_pylist()
    begin = time.perf_counter()
    DenseRetriever(titles, texts, render=render_document)
    seconds = time.perf_counter() - begin
    _emit(case="e-dense", docs=docs, cpu_docs_per_s=round(docs / seconds, 1),
          cpu_days_for_wikipedia=round(WIKIPEDIA_ARTICLES / (docs / seconds) / 86400, 1),
          published_gpu_per_s=MINILM_PUBLISHED_PER_S,
          projected_gpu_hours_for_wikipedia=round(WIKIPEDIA_ARTICLES / MINILM_PUBLISHED_PER_S / 3600, 2))


@click.command()
@click.option("--count-docs", type=int, default=20_000, show_default=True)
@click.option("--assembly-docs", type=int, default=5_000, show_default=True)
@click.option("--assembly-questions", type=int, default=200, show_default=True)
@click.option("--ppr-docs", type=int, default=200_000, show_default=True)
@click.option("--ppr-queries", type=int, default=20, show_default=True)
@click.option("--build-questions", type=int, default=100, show_default=True)
@click.option("--dense-docs", type=int, default=1_000, show_default=True)
@click.option("--tokenizer", default="qwen2.5", show_default=True)
@click.option("--skip-build", is_flag=True, help="Skip (d), the whole build.")
@click.option("--skip-dense", is_flag=True, help="Skip (e).")
def main(count_docs, assembly_docs, assembly_questions, ppr_docs, ppr_queries, build_questions, dense_docs, tokenizer,
         skip_build, skip_dense) -> None:
    """Print one JSON line per measurement."""
    counting(count_docs, tokenizer)
    assembly(assembly_docs, assembly_questions, tokenizer)
    ppr(ppr_docs, ppr_queries)
    if not skip_build:
        whole_build(ppr_docs, build_questions)
    if not skip_dense:
        dense(dense_docs)


if __name__ == "__main__":
    main()
