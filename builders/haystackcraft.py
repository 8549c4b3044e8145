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

import numpy as np
import pyarrow as pa
from tqdm.autonotebook import tqdm

from builders.base import Builder, wrote_line
from builders.card import CardFacts
from builders.engine import Engine, batched, engine_of
from builders.features import Features, List, Value
from builders.release import ReleaseWriter, base_manifest
from builders.specs.haystackcraft import HaystackCraftBuild
from builders.retrieval.metrics import appendix_l_markdown, retrieval_table
from builders.retrieval.rank import rank_corpus
from builders.sources.haystackcraft_official import read_build_inputs
from generators.haystackcraft.assemble import RankedQuestion
from generators.haystackcraft.measure import JoinCounts
from generators.haystackcraft.preset import PAPER_EVAL, preset_record
from generators.haystackcraft.prompt import DOCUMENT_JOINER, PromptLayout, render_document
from generators.haystackcraft.rows import haystack_rows, materialize, no_context_row, prefix_token_counts, prompt_overhead
from generators.haystackcraft.spec import (BENCHMARK, NO_CONTEXT)
from needlework.tokens import TokenCounter
from needlework.tokenizers import load_tokenizer

TEST = "test"
COUNT_BATCH = 1024

_str, _i64, _i32, _i8, _f32, _f64, _bool = (Value(t) for t in ("string", "int64", "int32", "int8", "float32", "float64", "bool"))
FEATURES: dict[str, Features] = {
    "corpus": Features({"doc_id": _i64, "title": _str, "text": _str, "lang": _str, "source": _str, "n_tokens": _i32,
                        "dropped_chars": _i32}),
    "links": Features({"src": _i64, "dst": _i64}),
    "qa": Features({"qid": _str, "question": _str, "answers": List(_str), "support": List(_i64),
                             "hops": _i8, "source": _str, "lang": _str}),
    "rankings": Features({"qid": _str, "strategy": _str, "doc_ids": List(_i64), "scores": List(_f32),
                                   "needle_ids": List(_i64), "needle_ranks": List(_i64),
                                   "needle_scores": List(_f32)}),
    "retrieval": Features({"retriever": _str, "ppr": _bool, "hop": _str, "n": _i32, "recall": _f64, "ndcg": _f64}),
    "haystacks": Features({"id": _str, "qid": _str, "strategy": _str, "size": _i32, "ordering": _str,
                                    "doc_ids": List(_i64), "needle_positions": List(_i32),
                                    "ranks": List(_i64), "truncated_doc": _i64, "truncated_tokens": _i32,
                                    "haystack_tokens": _i32}),
}
PROMPT_FEATURES = Features({
    "id": _str, "input": _str, "answers": List(_str), "question": _str, "qid": _str, "strategy": _str,
    "retriever": _str, "ppr": _bool, "ordering": _str, "size": _i32, "hops": _i8, "source": _str, "n_tokens": _i32,
    "haystack_tokens": _i32, "doc_ids": List(_i64), "needle_positions": List(_i32),
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
    unlinked: list[str] = field(default_factory=list)
    markup: dict[str, Any] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """The rows written, questions dropped, cells skipped, and the retrieval tables (Appendix L)."""
        lines = [wrote_line(self.out, self.rows)]
        if self.dropped:
            lines.append(f"dropped {len(self.dropped)} questions: " + "; ".join(f"{q}: {why}" for q, why in self.dropped[:3])
                         + (f"; and {len(self.dropped) - 3} more, every one with its reason in the manifest's "
                            "questions.dropped_questions" if len(self.dropped) > 3 else ""))
        if self.markup.get("pages"):
            worst = "; ".join(f"{p['title']} (kept {p['kept_chars']:,}, dropped {p['dropped_chars']:,})"
                              for p in self.markup["most_dropped"][:3])
            lines.append(f"markup dropped without showing (templates, references, File and Category links): "
                         f"{self.markup['chars']:,} characters from {self.markup['pages']:,} pages; most, against the "
                         f"text kept: {worst} (every page's count: the corpus config's dropped_chars)")
        if self.unlinked:
            lines.append(f"the corpus has no links between documents: {', '.join(self.unlinked)} rank as their base "
                         "retrievers (PPR has no edge to walk)")
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


def markup_dropped(titles: Sequence[str], texts: Sequence[str], dropped: np.ndarray) -> dict[str, Any]:
    """What a dump's pages lost: the characters of markup dropped without showing, in all, and the 20 pages that lost
    the most against what they kept (each page's own count is the ``corpus`` config's ``dropped_chars``)."""
    kept = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    order = np.argsort(-(dropped / np.maximum(kept, 1)), kind="stable")[:20]
    return {"chars": int(dropped.sum()), "pages": int((dropped > 0).sum()),
            "most_dropped": [{"title": titles[i], "kept_chars": int(kept[i]), "dropped_chars": int(dropped[i])}
                             for i in order.tolist() if dropped[i] > 0]}


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
    report = BuildReport(Path(out), dropped=list(inputs.dropped), retrieval=retrieval,
                         unlinked=[s for s in spec.strategies if s.endswith("+ppr")] if links.num_rows == 0 else [])
    report.retrieval_markdown = "\n\n".join(appendix_l_markdown(table, metric) for metric in ("recall", "ndcg"))
    manifest = base_manifest(BENCHMARK, spec, tokens, inputs.fingerprints)
    manifest["corpus"] = {"documents": corpus.num_rows, "tokens": int(doc_tokens.sum()), "links": inputs.corpus.links.num_rows,
                          "sources": inputs.corpus.label, "stats": inputs.corpus.stats}
    if inputs.corpus.dropped_chars is not None:
        report.markup = markup_dropped(titles, texts, inputs.corpus.dropped_chars)
        manifest["corpus"]["markup_dropped"] = report.markup
    manifest["questions"] = {"kept": len(questions), "dropped": len(inputs.dropped),
                             "dropped_questions": [{"qid": qid, "reason": why} for qid, why in inputs.dropped]}
    manifest["join_tokens"] = join_tokens
    manifest["retrieval"] = retrieval
    if spec.preset:
        manifest["preset"] = preset_record(spec)
        manifest.update(PAPER_EVAL)
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
        linked = links.num_rows > 0  # datasets cannot load an empty split: a corpus without links has no links config
        for config in [*(c for c in FEATURES if linked or c != "links"), *prompt_configs]:
            release.declare(config, features(config))
        dropped = inputs.corpus.dropped_chars
        corpus_rows = corpus.append_column("n_tokens", pa.array(doc_tokens, pa.int32())).append_column(
            "dropped_chars", pa.array(np.zeros(corpus.num_rows, np.int32) if dropped is None else dropped, pa.int32()))
        tables: dict[str, Iterator[dict] | list[dict]] = {
            "corpus": corpus_rows.select(list(FEATURES["corpus"])).to_pylist(),
            **({"links": inputs.corpus.links.to_pylist()} if linked else {}),
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


def features(config: str) -> Features:
    """The features of a config: the tables of :data:`FEATURES`, or a ``static-<ordering>`` prompt config."""
    return FEATURES.get(config, PROMPT_FEATURES)


def demo_spec(seed: int, tokenizer: str) -> HaystackCraftBuild:
    """400 world articles and 30 questions, BM25 with and without PPR, haystacks up to 8K.

    The dense strategies need the ``dense`` extra, which the base install leaves out.
    """
    return HaystackCraftBuild(world_docs=400, world_questions=30, strategies=("bm25", "bm25+ppr"),
                              sizes=(0, 2_000, 4_000, 8_000), top_k=200, seed=seed, tokenizer=tokenizer)


BUILDER = Builder(id=BENCHMARK, spec=HaystackCraftBuild, features=features, facts=FACTS, build=build, demo=demo_spec)
