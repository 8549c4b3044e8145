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
(f) Dynamic NIAH: time per round per question spent outside the model (BM25+PPR ranking of the whole corpus with
    the refined question, assembly, rendering, prompt count) at 128,000 tokens on the ``--ppr-docs`` world
    (target: under 0.25 s), through ``python -m eval``'s round driver with an instant model.
(g) Dynamic NIAH batching: requests in flight at once over unfinished questions while a slow OpenAI-compatible
    server answers (lock-step rounds: target 1.0, every question of a round in flight together).

Usage::

    python benchmarks/haystackcraft.py                       # everything, 200,000-document world
    python benchmarks/haystackcraft.py --ppr-docs 20000 --skip-build
    python benchmarks/haystackcraft.py --only-dynamic          # (f) and (g) alone
    python benchmarks/haystackcraft.py --only-dynamic --dynamic-release /tmp/hc200k   # keep/reuse (f)'s release
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


class _InstantModel:
    """An in-process backend answering at once: round 1 refines to the question's first capitalised words."""

    name = "instant"

    def describe(self) -> dict[str, object]:
        return {"backend": "instant"}

    async def preflight(self, wait_s: float = 0.0) -> None:
        return None

    async def stream(self, requests):  # type: ignore[no-untyped-def]
        from needlework.backends.base import Outcome

        for request in requests:
            prompt = request.messages[-1]["content"]
            if "What is the correct answer to this question:" in prompt:
                yield Outcome(request.key, "The correct answer is 1900.")
            else:
                question = prompt.rsplit("\n\nQuestion: ", 1)[1].split("\n\n", 1)[0]
                words = [w for w in question.rstrip("?").split() if w[:1].isupper()][1:]
                yield Outcome(request.key, f"Summary: about {' '.join(words)}.\n\nRefined Question: {' '.join(words)}")

    async def aclose(self) -> None:
        return None


def _dynamic_release(docs: int, questions: int, out: Path, tokens) -> float:  # type: ignore[no-untyped-def]
    begin = time.perf_counter()
    spec = HaystackCraftBuild(world_docs=docs, world_questions=questions, strategies=("bm25", "bm25+ppr"),
                              sizes=(128_000,), materialize=(), orderings=("descending",), dynamic=True,
                              dynamic_questions=questions, cache=str(out) + "-cache")
    build(spec, out, tokens=tokens, progress=False)
    return time.perf_counter() - begin


def dynamic(docs: int, questions: int, tokenizer: str, delay_s: float, keep: str | None = None) -> None:
    """(f) and (g): the round driver's time outside the model at 128K, and its batching against a slow server.

    ``keep``: a folder for the release, reused when it already holds one (its build takes minutes at 200,000
    documents); the runs still go to a temporary folder.
    """
    import asyncio
    import threading

    from aiohttp import web

    from eval.dynamic_run import run_dynamic
    from eval.benchmarks.haystackcraft.dynamic_world import DynamicWorld
    from eval.release import open_release
    from eval.runner import RunSpec
    from eval.selection import RowSelection

    tokens = load_tokenizer(tokenizer)
    with tempfile.TemporaryDirectory() as tmp:
        release = Path(keep) if keep else Path(tmp) / "release"
        build_s = 0.0 if (release / "manifest.json").exists() else _dynamic_release(docs, questions, release, tokens)
        begin = time.perf_counter()
        world = DynamicWorld(open_release(str(release)), tokens)
        world.strategy("bm25+ppr")
        open_s = time.perf_counter() - begin
        spec = RunSpec(dataset=str(release), configs=("dynamic",), model="instant", base_url="http://127.0.0.1:9/v1",
                       output_dir=Path(tmp) / "run-f", select=RowSelection(sizes=(128_000,), tasks=("enforced-2",)))
        from eval.benchmarks.haystackcraft import dynamic as driver

        recorded: dict[str, object] = {}
        original = driver.drive_rounds

        async def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
            stats = await original(*args, **kwargs)
            recorded["stats"] = stats
            return stats
        driver.drive_rounds = timed  # type: ignore[assignment]
        try:
            run_dynamic(spec, _InstantModel(), progress=False, world=world)
        finally:
            driver.drive_rounds = original  # type: ignore[assignment]
        stats = recorded["stats"]
        per_round = stats.prepare_s / stats.requests  # type: ignore[attr-defined]
        _emit(case="f-dynamic-round-outside-model-128k", docs=docs, questions=questions, build_s=round(build_s, 1),
              open_world_s=round(open_s, 2), requests=stats.requests,  # type: ignore[attr-defined]
              seconds_per_round_per_question=round(per_round, 4),
              rank_s_total=round(world.seconds["rank"], 2), assemble_s_total=round(world.seconds["assemble"], 2),
              target_s=0.25)

        state = {"now": 0, "peak": 0, "total": 0}

        async def chat(request: web.Request) -> web.Response:
            await request.json()
            state["now"] += 1
            state["total"] += 1
            state["peak"] = max(state["peak"], state["now"])
            await asyncio.sleep(delay_s)
            state["now"] -= 1
            return web.json_response({"choices": [{"message": {"role": "assistant", "content": "Summary: s\n\n"
                                                               "Refined Question: Who?"}, "finish_reason": "stop"}],
                                      "usage": {"prompt_tokens": 1, "completion_tokens": 1}})
        app = web.Application(client_max_size=64 * 2**20)
        app.router.add_post("/v1/chat/completions", chat)
        loop = asyncio.new_event_loop()
        runner = web.AppRunner(app, access_log=None)
        loop.run_until_complete(runner.setup())
        site = web.TCPSite(runner, "127.0.0.1", 0)
        loop.run_until_complete(site.start())
        port = runner.addresses[0][1]
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        try:
            spec = RunSpec(dataset=str(release), configs=("dynamic",), model="slow", base_url=f"http://127.0.0.1:{port}/v1",
                           concurrency=4 * questions, output_dir=Path(tmp) / "run-g",
                           select=RowSelection(sizes=(128_000,), tasks=("enforced-3",)))
            begin = time.perf_counter()
            run_dynamic(spec, progress=False, world=world)
            wall = time.perf_counter() - begin
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(10)
        _emit(case="g-dynamic-batching", questions=questions, rounds=3, server_delay_s=delay_s,
              requests=state["total"], peak_in_flight=state["peak"],
              batching_ratio=round(state["peak"] / questions, 3), wall_s=round(wall, 2),
              serial_wall_s_would_be=round(state["total"] * delay_s, 1))


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
@click.option("--dynamic-questions", type=int, default=20, show_default=True, help="Questions of (f) and (g).")
@click.option("--server-delay", type=float, default=0.5, show_default=True, help="(g): seconds per answer.")
@click.option("--only-dynamic", is_flag=True, help="Run (f) and (g) alone.")
@click.option("--dynamic-release", default=None, type=click.Path(file_okay=False),
              help="(f), (g): keep the release here and reuse it when it exists (build_s 0 then); must match "
                   "--ppr-docs and --dynamic-questions.")
def main(count_docs, assembly_docs, assembly_questions, ppr_docs, ppr_queries, build_questions, dense_docs, tokenizer,
         skip_build, skip_dense, dynamic_questions, server_delay, only_dynamic, dynamic_release) -> None:
    """Print one JSON line per measurement."""
    if only_dynamic:
        dynamic(ppr_docs, dynamic_questions, tokenizer, server_delay, dynamic_release)
        return
    counting(count_docs, tokenizer)
    assembly(assembly_docs, assembly_questions, tokenizer)
    ppr(ppr_docs, ppr_queries)
    if not skip_build:
        whole_build(ppr_docs, build_questions)
    if not skip_dense:
        dense(dense_docs)
    dynamic(ppr_docs, dynamic_questions, tokenizer, server_delay, dynamic_release)


if __name__ == "__main__":
    main()
