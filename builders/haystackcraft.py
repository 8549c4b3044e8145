"""Build a HaystackCraft static-NIAH release: corpus, QA, rankings, retrieval metrics, haystacks, prompts.

The pipeline (paper §3.1-3.4, §4.1):

1. Read a corpus (MediaWiki dumps and passage files, concatenated; or the synthetic world) and
   the questions whose needle documents it holds; count every rendered document's tokens once.
2. Rank the whole corpus for every question with each retrieval strategy (BM25, dense, hybrid,
   each with and without PPR), keeping the top K and every needle's exact rank.
3. Score the rankings (Recall@N, NDCG@N; Appendix L) and assemble the haystacks of every size and
   ordering from the stored counts, as doc-id lists.
4. Materialize the Appendix B prompts of the chosen orderings, verified with one encode each, in
   needlework's layout or the authors' (``--prompt-layout official``, ``--budget-rule prompt``;
   both under ``--preset paper``: :mod:`generators.haystackcraft.preset`), and with ``--no-context``
   the Appendix G prompts without documents (``static-no-context``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

import datasets
import numpy as np
import pyarrow as pa
from tqdm.auto import tqdm

from builders.base import Builder, wrote_line
from builders.card import CardFacts
from builders.engine import ENGINE_HELP, RAY_ADDRESS_HELP, RAY_WORKERS_HELP, Engine, EngineName, batched, engine_of
from builders.options import option, parse_names
from builders.release import ReleaseWriter, base_manifest
from builders.retrieval.analysis import ANALYZERS, PLAIN
from builders.retrieval.dense import AUTO
from builders.retrieval.metrics import appendix_l_markdown, retrieval_table
from builders.retrieval.rank import rank_corpus
from builders.sources.haystackcraft_official import read_build_inputs
from needlework.checks import require_one_of
from needlework.errors import SpecError
from generators.haystackcraft.assemble import RankedQuestion
from generators.haystackcraft.measure import JoinCounts
from generators.haystackcraft.preset import Preset, apply_preset, preset_record
from generators.haystackcraft.prompt import DOCUMENT_JOINER, PromptLayout, check_layout, render_document
from generators.haystackcraft.rows import haystack_rows, materialize, no_context_row, prefix_token_counts, prompt_overhead
from generators.haystackcraft.spec import (BENCHMARK, BUDGET_RULES, DEFAULT_SIZES, NO_CONTEXT, ORDERINGS, BudgetRule,
                                           HaystackSpec, parse_sizes)
from generators.strategies import STRATEGIES
from needlework.tokens import TokenCounter
from needlework.tokenizers import load_tokenizer

DEFAULT_TOKENIZER = "qwen2.5"
"""The paper counts every budget with the Qwen2.5-1M tokenizer (§4.1)."""
DEFAULT_TOP_K = 1000
TEST = "test"
COUNT_BATCH = 1024

_str, _i64, _i32, _i8, _f32, _f64, _bool = (datasets.Value(t) for t in ("string", "int64", "int32", "int8", "float32", "float64", "bool"))
FEATURES: dict[str, datasets.Features] = {
    "corpus": datasets.Features({"doc_id": _i64, "title": _str, "text": _str, "lang": _str, "source": _str, "n_tokens": _i32}),
    "links": datasets.Features({"src": _i64, "dst": _i64}),
    "qa": datasets.Features({"qid": _str, "question": _str, "answers": datasets.List(_str), "support": datasets.List(_i64),
                             "hops": _i8, "source": _str, "lang": _str}),
    "rankings": datasets.Features({"qid": _str, "strategy": _str, "doc_ids": datasets.List(_i64), "scores": datasets.List(_f32),
                                   "needle_ids": datasets.List(_i64), "needle_ranks": datasets.List(_i64),
                                   "needle_scores": datasets.List(_f32)}),
    "retrieval": datasets.Features({"retriever": _str, "ppr": _bool, "hop": _str, "n": _i32, "recall": _f64, "ndcg": _f64}),
    "haystacks": datasets.Features({"id": _str, "qid": _str, "strategy": _str, "size": _i32, "ordering": _str,
                                    "doc_ids": datasets.List(_i64), "needle_positions": datasets.List(_i32),
                                    "ranks": datasets.List(_i64), "truncated_doc": _i64, "truncated_tokens": _i32,
                                    "haystack_tokens": _i32}),
}
PROMPT_FEATURES = datasets.Features({
    "id": _str, "input": _str, "answers": datasets.List(_str), "question": _str, "qid": _str, "strategy": _str,
    "retriever": _str, "ppr": _bool, "ordering": _str, "size": _i32, "hops": _i8, "source": _str, "n_tokens": _i32,
    "haystack_tokens": _i32, "doc_ids": datasets.List(_i64), "needle_positions": datasets.List(_i32),
    "truncated_tokens": _i32, "tokenizer": _str,
})
"""Columns of the ``static-<ordering>`` configs: the Appendix B prompt, ready for ``python -m eval``."""

FACTS = CardFacts(
    benchmark=BENCHMARK,
    pretty_name="HaystackCraft static NIAH (needlework build)",
    license="cc-by-sa-4.0",
    language=("en",),
    task_categories=("question-answering", "text-generation"),
    tags=("long-context", "needle-in-a-haystack", "haystackcraft", "retrieval", "multi-hop", "rag"),
    attribution="",
)


def prompt_config(ordering: str) -> str:
    """The config holding the materialized prompts of one ordering."""
    return f"static-{ordering}"


def parse_materialize(text: str) -> tuple[str, ...]:
    """``descending,middle`` -> the orderings; ``none`` -> none."""
    return () if text.strip() == "none" else parse_names(text)


def show_materialize(orderings: tuple[str, ...]) -> str:
    """The inverse of :func:`parse_materialize`."""
    return ",".join(orderings) or "none"


@dataclass(frozen=True)
class HaystackCraftBuild:
    """HaystackCraft static NIAH: retriever-built haystacks of every size and ordering, with retrieval metrics.

    Attributes:
        corpus: Corpus sources (MediaWiki ``.xml``/``.xml.bz2`` dumps, passage ``.json``/``.jsonl``/
            ``.parquet`` files), concatenated in order; empty means the synthetic world.
        qa: Question files (MuSiQue, HotpotQA, Natural Questions); empty with the world means its questions.
        world_docs: Articles of the synthetic world (when ``corpus`` is empty).
        world_questions: Questions of the synthetic world.
        max_questions: Keep only the first questions (all when ``None``).
        strategies: Retrieval strategies.
        sizes: Haystack sizes in tokens (0 = needles only).
        orderings: Haystack orderings stored as doc-id lists.
        materialize: Orderings whose full prompts are written as ``static-<ordering>`` configs.
        top_k: Documents kept per ranking (enough to fill the largest size).
        dense_model: Sentence-transformers model of the dense retriever ("" = the offline default).
        bm25_analyzer: BM25 text analysis: ``plain`` (bm25s's tokenizer) or ``lucene`` (Lucene's EnglishAnalyzer,
            as the paper's Pyserini index; :mod:`builders.retrieval.analysis`).
        dense_query_instruction: The dense query prefix: ``auto`` (the paper's instruction for Qwen3-Embedding
            models, the model's own prompt otherwise), ``model``, ``none``, or an instruction
            (:func:`builders.retrieval.dense.query_prompt_for`).
        cache: Cache folder for indexes, embeddings and rankings ("" = the default).
        workers: Processes for parsing dumps (0 = all cores).
        seed: Build seed (random orderings, the world).
        tokenizer: Tokenizer spec counting every budget.
        preset: ``""`` or ``paper`` (the authors' setup; options left at their default take its
            values, :data:`generators.haystackcraft.preset.PAPER_VALUES`).
        prompt_layout: ``needlework`` (Appendix B as printed) or ``official`` (``<text>`` wrapper,
            ``Article {i}`` prefixes).
        budget_rule: ``haystack`` (a size counts the documents) or ``prompt`` (the whole prompt).
        no_context: Also write ``static-no-context`` (Appendix G: each question without documents).
        official_corpus: The authors' ``docs.jsonl`` (``edge_list.csv`` beside it) or their folder.
        qa_ids: Keep only the questions whose ids this file lists (one per line).
    """

    corpus: tuple[str, ...] = option((), "Corpus: a MediaWiki .xml/.xml.bz2 dump or a passage .json/.jsonl/.parquet file "
                                         "(repeatable; concatenated). Default: the synthetic world.", multiple=True)
    qa: tuple[str, ...] = option((), "Questions: MuSiQue, HotpotQA or Natural Questions file (repeatable).", multiple=True)
    world_docs: int = option(2_000, "Synthetic-world articles (without --corpus).")
    world_questions: int = option(200, "Synthetic-world questions (without --corpus).")
    max_questions: int | None = option(None, "Keep only the first N questions.")
    strategies: tuple[str, ...] = option(STRATEGIES, "Retrieval strategies: bm25, dense, hybrid, each optionally +ppr.",
                                         flag="retrievers")
    sizes: tuple[int, ...] = option(DEFAULT_SIZES, "Haystack sizes in tokens (0 = needles only).", parse=parse_sizes,
                                    default_text="0,8k,16k,32k,64k,128k")
    orderings: tuple[str, ...] = option(ORDERINGS, "Haystack orderings stored as doc-id lists.")
    materialize: tuple[str, ...] = option(("descending",), "Orderings whose full prompts are written (static-<ordering> "
                                          "configs); 'none' for none.", parse=parse_materialize, show=show_materialize)
    top_k: int = option(DEFAULT_TOP_K, "Documents kept per ranking.")
    dense_model: str = option("", "Dense model (e.g. Qwen/Qwen3-Embedding-0.6B, the paper's); default: all-MiniLM-L6-v2 "
                                  "shipped offline.")
    bm25_analyzer: str = option(PLAIN, "BM25 text analysis: plain (bm25s's tokenizer, no stemming) or lucene (Lucene's "
                                       "EnglishAnalyzer as the paper's Pyserini index: possessives, 33 stop words, Porter).")
    dense_query_instruction: str = option(AUTO, "Dense query prefix: auto (the paper's 'Given a query, retrieve relevant "
                                                "documents that answer the query' for Qwen3-Embedding models, the model's "
                                                "own prompt otherwise), model, none, or an instruction text.")
    cache: str = option("", "Cache folder for indexes, embeddings and rankings (default $NEEDLEWORK_CACHE or "
                            "~/.cache/needlework).", record=False)
    workers: int = option(0, "Processes parsing a dump (0 = all cores).", record=False)
    engine: EngineName = option("local", ENGINE_HELP, record=False)  # noqa: RUF009
    ray_address: str = option("", RAY_ADDRESS_HELP, record=False)
    ray_workers: int = option(0, RAY_WORKERS_HELP, record=False)
    seed: int = option(0, "Build seed.")
    tokenizer: str = option(DEFAULT_TOKENIZER, "Tokenizer spec (default: the paper's Qwen2.5-1M tokenizer).")
    preset: Preset = option("", "Reproduce the authors' setup: paper (official prompt layout and whole-prompt "  # noqa: RUF009
                                "budget, top 2560, Lucene-style BM25, the paper's dense query instruction, no-context "
                                "configs); options given explicitly override it.", default_text="")
    prompt_layout: PromptLayout = option("needlework", "Prompt layout: needlework (Appendix B as printed) or official "  # noqa: RUF009
                                                       "(prompts/context.txt: <text> wrapper, 'Article i' prefixes).")
    budget_rule: BudgetRule = option("haystack", "What a size counts: haystack (the documents) or prompt (the whole "  # noqa: RUF009
                                                 "prompt, as the authors' code).")
    no_context: bool = option(False, "Also write static-no-context: every question without documents (Appendix G).")
    official_corpus: str = option("", "The authors' corpus: docs.jsonl (edge_list.csv beside it) or the folder of both; "
                                      "--qa then reads their question files (id, question, answer, answer_aliases, p2d_id).")
    qa_ids: str = option("", "Keep only the questions whose ids this file lists, one per line (e.g. the paper's 500).")
    dynamic: bool = option(False, "Also write the dynamic NIAH config (question subset, needles) and the BM25 index and "
                                  "embeddings its live retrieval needs (builders/haystackcraft_dynamic.py).")
    dynamic_questions: int = option(100, "Dynamic NIAH questions, drawn with the seed (the paper's 100).")
    dynamic_ids: str = option("", "Dynamic NIAH question ids instead: a file of JSON lines with an id field (the official "
                                  "100_for_multi.jsonl) or one id per line.")

    def __post_init__(self) -> None:
        apply_preset(self)
        check_layout(self.prompt_layout)
        engine_of(self)  # refuses --ray-address without --engine ray, negative worker counts
        if not self.dynamic and (self.dynamic_ids or self.dynamic_questions != 100):
            raise SpecError("--dynamic-ids and --dynamic-questions choose the dynamic NIAH questions: add --dynamic")
        require_one_of("budget_rule", self.budget_rule, BUDGET_RULES)
        if self.official_corpus and self.corpus:
            raise SpecError("--official-corpus and --corpus are two corpora; give one")
        spec = self.haystack_spec()
        missing = [o for o in self.materialize if o not in spec.orderings]
        if missing:
            raise SpecError(f"--materialize names orderings that are not built: {missing}; built: {', '.join(spec.orderings)}")
        if self.top_k < 1:
            raise SpecError(f"top_k must be positive, got {self.top_k}")
        require_one_of("bm25_analyzer", self.bm25_analyzer, ANALYZERS)
        if not self.dense_query_instruction.strip():
            raise SpecError("dense_query_instruction is empty; use auto, model, none or an instruction")
        if self.qa and not (self.corpus or self.official_corpus):
            raise SpecError("--qa needs the --corpus its supporting documents come from")

    def haystack_spec(self) -> HaystackSpec:
        """The haystack grid of this build."""
        return HaystackSpec(self.strategies, self.sizes, self.orderings)


@dataclass
class BuildReport:
    """What a build wrote and measured."""

    out: Path
    rows: dict[str, int] = field(default_factory=dict)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    skipped_cells: int = 0
    retrieval_markdown: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    retrieval: dict[str, Any] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The rows written, questions dropped, cells skipped, and the retrieval tables (Appendix L)."""
        lines = [wrote_line(self.out, self.rows)]
        if self.dropped:
            lines.append(f"dropped {len(self.dropped)} questions: " + "; ".join(f"{q}: {why}" for q, why in self.dropped[:3])
                         + (" ..." if len(self.dropped) > 3 else ""))
        if self.skipped_cells:
            lines.append(f"{self.skipped_cells} (question, strategy, size) cells skipped: their needles alone exceed the size")
        truncation = self.retrieval.get("dense", {}).get("truncation", {})
        if truncation.get("truncated_documents") is not None:
            lines.append(f"dense encoder read at most {truncation['limit']} word pieces of a document: "
                         f"{truncation['truncated_documents']} of {truncation['documents']} documents truncated "
                         f"(longest {truncation['longest_document_tokens']})")
        if self.retrieval_markdown:
            lines.append(self.retrieval_markdown)
        return lines


def count_documents(titles: Sequence[str], texts: Sequence[str], tokens: TokenCounter, *, progress: bool = False,
                    engine: Engine | None = None) -> np.ndarray:
    """Tokens of every rendered document (``render_document``), counted once in batches (int32), on ``engine``
    (default: this process), in doc-id order."""
    counts = np.empty(len(titles), dtype=np.int32)
    bar = tqdm(total=len(titles), desc="count tokens", unit="doc", disable=not progress)
    rendered = (render_document(t, x) for t, x in zip(titles, texts))
    start = 0
    for batch in (engine or Engine()).count_tokens(batched(rendered, COUNT_BATCH), tokens):
        counts[start:start + len(batch)] = batch
        start += len(batch)
        bar.update(len(batch))
    bar.close()
    return counts


def _ranking_rows(qids: Sequence[str], rankings: dict[str, list]) -> Iterator[dict[str, Any]]:
    for strategy, per_question in rankings.items():
        for qid, r in zip(qids, per_question):
            yield {"qid": qid, "strategy": strategy, "doc_ids": r.doc_ids.tolist(), "scores": r.scores.tolist(),
                   "needle_ids": r.needle_ids.tolist(), "needle_ranks": r.needle_ranks.tolist(),
                   "needle_scores": r.needle_scores.tolist()}


def build(spec: HaystackCraftBuild, out: Path, *, tokens: TokenCounter | None = None, progress: bool = True) -> BuildReport:
    """Build a HaystackCraft release at ``out`` (replacing a previous release there atomically).

    Args:
        spec: Inputs, strategies and grid.
        out: Target folder of the release.
        tokens: A tokenizer to use instead of loading ``spec.tokenizer`` (tests inject one).
        progress: Show progress bars.
    """
    tokens = tokens or load_tokenizer(spec.tokenizer)
    grid = spec.haystack_spec()
    inputs = read_build_inputs(spec, progress=progress)
    corpus, qa = inputs.corpus.corpus, inputs.qa
    titles = corpus["title"].to_pylist()
    texts = corpus["text"].to_pylist()
    doc_tokens = count_documents(titles, texts, tokens, progress=progress, engine=engine_of(spec))
    join_tokens = tokens.count(DOCUMENT_JOINER)
    questions = qa.to_pylist()
    qids = [q["qid"] for q in questions]
    links = inputs.corpus.links
    rankings = rank_corpus(spec.strategies, titles, texts, [q["question"] for q in questions],
                           [np.asarray(q["support"], dtype=np.int64) for q in questions], render=render_document,
                           top=spec.top_k, links=(links["src"].to_numpy(), links["dst"].to_numpy()),
                           dense_model=spec.dense_model or None, cache_dir=spec.cache or None, progress=progress,
                           bm25_analyzer=spec.bm25_analyzer, dense_query_instruction=spec.dense_query_instruction,
                           record=(retrieval := {}), engine=engine_of(spec))
    table = retrieval_table(rankings, [q["hops"] for q in questions])
    report = BuildReport(Path(out), dropped=list(inputs.dropped), retrieval=retrieval)
    report.retrieval_markdown = "\n\n".join(appendix_l_markdown(table, metric) for metric in ("recall", "ndcg"))
    manifest = base_manifest(BENCHMARK, spec, tokens, inputs.fingerprints)
    manifest["corpus"] = {"documents": corpus.num_rows, "tokens": int(doc_tokens.sum()), "links": inputs.corpus.links.num_rows,
                          "sources": inputs.corpus.label, "stats": inputs.corpus.stats}
    manifest["questions"] = {"kept": len(questions), "dropped": len(inputs.dropped)}
    manifest["join_tokens"] = join_tokens
    manifest["retrieval"] = retrieval
    if spec.preset:
        manifest["preset"] = preset_record(spec)
    layout, whole_prompt = spec.prompt_layout, spec.budget_rule == "prompt"
    prefixes = (prefix_token_counts(spec.top_k + max(len(q["support"]) for q in questions), tokens)
                if layout == "official" else None)
    facts = replace(FACTS, attribution=inputs.attribution)

    def documents(ids: np.ndarray) -> list[str]:
        return [render_document(titles[i], texts[i]) for i in ids.tolist()]

    counts = JoinCounts(len(titles), documents, tokens, layout)  # exact haystack_tokens (issue 27)

    with ReleaseWriter(out, facts, manifest) as release:
        release.card_fields["retrieval_tables"] = report.retrieval_markdown
        prompt_configs = [*(prompt_config(o) for o in spec.materialize), *([prompt_config(NO_CONTEXT)] * spec.no_context)]
        for config in [*FEATURES, *prompt_configs]:
            release.declare(config, features(config))
        corpus_rows = corpus.append_column("n_tokens", pa.array(doc_tokens, pa.int32()))
        tables: dict[str, Iterator[dict] | list[dict]] = {
            "corpus": corpus_rows.select(list(FEATURES["corpus"])).to_pylist(),
            "links": inputs.corpus.links.to_pylist(),
            "qa": questions,
            "rankings": _ranking_rows(qids, rankings),
            "retrieval": table,
        }
        for config, rows in tables.items():
            report.rows[config] = 0
            for row in rows:
                release.write(config, TEST, row)
                report.rows[config] += 1
        for config in ("haystacks", *prompt_configs):
            report.rows[config] = 0
        expected = len(questions) * len(grid.strategies) * len(grid.sizes)
        bar = tqdm(total=expected, desc="haystacks", unit="cell", disable=not progress)

        def haystacks_to_materialize() -> Iterator[MaterializeBatch]:
            """Writes each question's haystacks; yields the rows whose prompts are materialized, with their documents."""
            for i, question in enumerate(questions):
                ranked = {s: RankedQuestion(r[i].doc_ids, r[i].needle_ids, r[i].needle_ranks) for s, r in rankings.items()}
                written, wanted = 0, []
                overhead = prompt_overhead(question["question"], tokens, layout) if whole_prompt else 0
                if spec.no_context:
                    release.write(prompt_config(NO_CONTEXT), TEST, no_context_row(question, tokens))
                    report.rows[prompt_config(NO_CONTEXT)] += 1
                for row in haystack_rows(question["qid"], ranked, doc_tokens, join_tokens, grid, seed=spec.seed,
                                         overhead=overhead, prefix_tokens=prefixes, counts=counts, whole_prompt=whole_prompt):
                    release.write("haystacks", TEST, row)
                    report.rows["haystacks"] += 1
                    written += 1
                    if row["ordering"] in spec.materialize:
                        wanted.append(row)
                cells = written // len(grid.orderings)
                report.skipped_cells += len(grid.strategies) * len(grid.sizes) - cells
                bar.update(len(grid.strategies) * len(grid.sizes))
                ids = sorted({d for row in wanted for d in row["doc_ids"]})
                yield wanted, question, dict(zip(ids, documents(np.asarray(ids, dtype=np.int64))))

        # Prompts are materialized on the engine, question by question, and written in question order.
        for prompts in engine_of(spec).map(materialize_batch, haystacks_to_materialize(), (tokens, layout, whole_prompt)):
            for prompt in prompts:
                release.write(prompt_config(prompt["ordering"]), TEST, prompt)
                report.rows[prompt_config(prompt["ordering"])] += 1
        bar.close()
        if spec.dynamic:
            from builders.haystackcraft_dynamic import write_for_build

            release.manifest["dynamic"] = write_for_build(release, spec, questions, titles, texts, render_document)
            report.rows["dynamic"] = release.manifest["dynamic"]["questions"]["n"]
        release.manifest["skipped_cells"] = report.skipped_cells
    return report


MaterializeBatch = tuple[list[dict[str, Any]], dict[str, Any], dict[int, str]]
"""One question's ``haystacks`` rows to materialize, its ``qa`` row, and the rendered documents they hold by doc id."""


def materialize_batch(batch: MaterializeBatch, settings: tuple[TokenCounter, PromptLayout, bool]) -> list[dict[str, Any]]:
    """The prompt rows of one question's haystacks (:func:`materialize`), in row order: a stage of the build's engine.

    ``settings`` is (tokenizer, prompt layout, whole-prompt budget), sent once to each worker.
    """
    rows, question, rendered = batch
    tokens, layout, whole_prompt = settings

    def documents(ids: np.ndarray) -> list[str]:
        return [rendered[i] for i in ids.tolist()]

    return [materialize(row, question, documents, tokens, layout=layout, whole_prompt=whole_prompt) for row in rows]


def features(config: str) -> datasets.Features:
    """The features of a config: the tables of :data:`FEATURES`, or a ``static-<ordering>`` prompt config."""
    return FEATURES.get(config, PROMPT_FEATURES)


def demo_spec(seed: int, tokenizer: str) -> HaystackCraftBuild:
    """400 world articles and 30 questions, BM25 with and without PPR, haystacks up to 8K.

    The dense strategies need the ``dense`` extra, which the base install leaves out.
    """
    return HaystackCraftBuild(world_docs=400, world_questions=30, strategies=("bm25", "bm25+ppr"),
                              sizes=(0, 2_000, 4_000, 8_000), top_k=200, seed=seed, tokenizer=tokenizer)


BUILDER = Builder(id=BENCHMARK, spec=HaystackCraftBuild, features=features, facts=FACTS, build=build, demo=demo_spec)
