"""Build a HaystackCraft static-NIAH release: corpus, QA, rankings, retrieval metrics, haystacks, prompts.

The pipeline (paper §3.1-3.4, §4.1):

1. Read a corpus (MediaWiki dumps and passage files, concatenated; or the synthetic world) and
   the questions whose needle documents it holds; count every rendered document's tokens once.
2. Rank the whole corpus for every question with each retrieval strategy (BM25, dense, hybrid,
   each with and without PPR), keeping the top K and every needle's exact rank.
3. Score the rankings (Recall@N, NDCG@N; Appendix L) and assemble the haystacks of every size and
   ordering from the stored counts, as doc-id lists.
4. Materialize the Appendix B prompts of the chosen orderings, verified with one encode each.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

import datasets
import numpy as np
import pyarrow as pa
from tqdm.auto import tqdm

from builders.card import CardFacts
from builders.haystackcraft_inputs import HaystackInputs, read_inputs
from builders.haystackcraft_ranking import rank_questions
from builders.release import ReleaseWriter, base_manifest
from builders.retrieval.metrics import appendix_l_markdown, retrieval_table
from needlework.errors import SpecError
from generators.haystackcraft.assemble import RankedQuestion
from generators.haystackcraft.prompt import DOCUMENT_JOINER, render_document
from generators.haystackcraft.rows import haystack_rows, materialize
from generators.haystackcraft.spec import DEFAULT_SIZES, ORDERINGS, STRATEGIES, HaystackSpec
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
    benchmark="haystackcraft",
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


@dataclass(frozen=True)
class HaystackCraftBuild:
    """What to build.

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
        seed: Build seed (random orderings, the world).
        tokenizer: Tokenizer spec counting every budget.
        cache: Cache folder for indexes, embeddings and rankings ("" = the default).
        workers: Processes for parsing dumps (0 = all cores).
    """

    corpus: tuple[str, ...] = ()
    qa: tuple[str, ...] = ()
    world_docs: int = 2_000
    world_questions: int = 200
    max_questions: int | None = None
    strategies: tuple[str, ...] = STRATEGIES
    sizes: tuple[int, ...] = DEFAULT_SIZES
    orderings: tuple[str, ...] = ORDERINGS
    materialize: tuple[str, ...] = ("descending",)
    top_k: int = DEFAULT_TOP_K
    dense_model: str = ""
    seed: int = 0
    tokenizer: str = DEFAULT_TOKENIZER
    cache: str = ""
    workers: int = 0

    def __post_init__(self) -> None:
        spec = self.haystack_spec()
        missing = [o for o in self.materialize if o not in spec.orderings]
        if missing:
            raise SpecError(f"--materialize names orderings that are not built: {missing}; built: {', '.join(spec.orderings)}")
        if self.top_k < 1:
            raise SpecError(f"top_k must be positive, got {self.top_k}")
        if self.qa and not self.corpus:
            raise SpecError("--qa needs the --corpus its supporting documents come from")

    def haystack_spec(self) -> HaystackSpec:
        """The haystack grid of this build."""
        return HaystackSpec(self.strategies, self.sizes, self.orderings)

    def command(self) -> str:
        """The CLI command that reproduces this build."""
        parts = ["needlework build haystackcraft"]
        parts += [f"--corpus {c}" for c in self.corpus] + [f"--qa {q}" for q in self.qa]
        if not self.corpus:
            parts.append(f"--world-docs {self.world_docs} --world-questions {self.world_questions}")
        if self.max_questions is not None:
            parts.append(f"--max-questions {self.max_questions}")
        parts += [
            f"--retrievers {','.join(self.strategies)}", f"--sizes {','.join(map(str, self.sizes))}",
            f"--orderings {','.join(self.orderings)}", f"--materialize {','.join(self.materialize) or 'none'}",
            f"--top-k {self.top_k}", f"--seed {self.seed}", f"--tokenizer {self.tokenizer}",
        ]
        if self.dense_model:
            parts.append(f"--dense-model {self.dense_model}")
        return " ".join(parts)


@dataclass
class BuildReport:
    """What a build wrote and measured."""

    out: Path
    rows: dict[str, int] = field(default_factory=dict)
    dropped: list[tuple[str, str]] = field(default_factory=list)
    skipped_cells: int = 0
    retrieval_markdown: str = ""
    seconds: dict[str, float] = field(default_factory=dict)


def count_documents(titles: Sequence[str], texts: Sequence[str], tokens: TokenCounter, *, progress: bool = False) -> np.ndarray:
    """Tokens of every rendered document (``render_document``), counted once in batches (int32)."""
    counts = np.empty(len(titles), dtype=np.int32)
    bar = tqdm(total=len(titles), desc="count tokens", unit="doc", disable=not progress)
    for start in range(0, len(titles), COUNT_BATCH):
        stop = min(start + COUNT_BATCH, len(titles))
        rendered = [render_document(t, x) for t, x in zip(titles[start:stop], texts[start:stop])]
        counts[start:stop] = tokens.count_batch(rendered)
        bar.update(stop - start)
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
    inputs: HaystackInputs = read_inputs(spec, progress=progress)
    corpus, qa = inputs.corpus.corpus, inputs.qa
    titles = corpus["title"].to_pylist()
    texts = corpus["text"].to_pylist()
    doc_tokens = count_documents(titles, texts, tokens, progress=progress)
    join_tokens = tokens.count(DOCUMENT_JOINER)
    questions = qa.to_pylist()
    qids = [q["qid"] for q in questions]
    rankings = rank_questions(spec, inputs, titles, texts, questions, progress=progress)
    table = retrieval_table(rankings, [q["hops"] for q in questions])
    report = BuildReport(Path(out), dropped=list(inputs.dropped))
    report.retrieval_markdown = "\n\n".join(appendix_l_markdown(table, metric) for metric in ("recall", "ndcg"))
    manifest = base_manifest("haystackcraft", spec, spec.seed, tokens, inputs.fingerprints)
    manifest["corpus"] = {"documents": corpus.num_rows, "tokens": int(doc_tokens.sum()), "links": inputs.corpus.links.num_rows,
                          "sources": inputs.corpus.label, "stats": inputs.corpus.stats}
    manifest["questions"] = {"kept": len(questions), "dropped": len(inputs.dropped)}
    manifest["join_tokens"] = join_tokens
    facts = replace(FACTS, attribution=inputs.attribution)

    def documents(ids: np.ndarray) -> list[str]:
        return [render_document(titles[i], texts[i]) for i in ids.tolist()]

    with ReleaseWriter(out, facts, manifest) as release:
        release.card_fields["retrieval_tables"] = report.retrieval_markdown
        configs = [*FEATURES, *(prompt_config(o) for o in spec.materialize)]
        for config in configs:
            release.declare(config, FEATURES.get(config, PROMPT_FEATURES))
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
        for config in ("haystacks", *(prompt_config(o) for o in spec.materialize)):
            report.rows[config] = 0
        expected = len(questions) * len(grid.strategies) * len(grid.sizes)
        bar = tqdm(total=expected, desc="haystacks", unit="cell", disable=not progress)
        for i, question in enumerate(questions):
            ranked = {s: RankedQuestion(r[i].doc_ids, r[i].needle_ids, r[i].needle_ranks) for s, r in rankings.items()}
            written = 0
            for row in haystack_rows(question["qid"], ranked, doc_tokens, join_tokens, grid, seed=spec.seed):
                release.write("haystacks", TEST, row)
                report.rows["haystacks"] += 1
                written += 1
                if row["ordering"] in spec.materialize:
                    config = prompt_config(row["ordering"])
                    release.write(config, TEST, materialize(row, question, documents, tokens))
                    report.rows[config] += 1
            cells = written // len(grid.orderings)
            report.skipped_cells += len(grid.strategies) * len(grid.sizes) - cells
            bar.update(len(grid.strategies) * len(grid.sizes))
        bar.close()
        release.manifest["skipped_cells"] = report.skipped_cells
    return report
