"""``needlework build embs``: EverMemBench-S as a release (paper §3; spec ../shared/specs/evermembench-s.md).

The pipeline:

1. **MemoryBank** (``memorybank``): documents with integer ``doc_id`` from a seeded permutation, each
   counted once as serialized (``[DocID=n]`` header and blank line included).
2. **Queries** (``queries``) with RefLists: single-source and multi-source by Track 1 (rewriting) and
   Track 2 (atomization), de-duplicated and calibrated under the build retriever.
3. **Collisions** (``collisions``): the top-k nearest non-RefList documents of each query over the
   whole bank and the twins of its path entities, labelled conflict / hard negative / false negative.
4. **Ladder** (``ladder``, ``contexts-<scale>``): nested corpora from 64K domain corpora (``--base-scale``,
   smaller for short-window models: OURS) to the bank.
5. **Retrieval regime** (``qrels``, ``rankings``, ``retrieval``): BM25 and dense over every ladder
   corpus, scored as Table 3 (A.5).

The default is the synthetic world, offline and exact; real sources (the official release, raw
benchmarks of Table 5) come through ``builders/sources/embs_*.py``.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from tqdm.autonotebook import tqdm

from builders.base import Builder, wrote_line
from builders.card import CardFacts
from builders.embs_real import official_ladder, prepare_bank, read_sources, stage_three
from builders.embs_world import (
    GoldRoom,
    compose_queries,
    grow,
    instruction_tokens,
    query_row,
)
from builders.engine import (
    Engine,
    engine_of,
)
from builders.features import Features, List, Value
from builders.release import ReleaseWriter, base_manifest
from builders.retrieval.ladder import (
    Bank,
    rank_ladder,
    retrieval_rows,
    table3_markdown,
)
from builders.retrieval.query_prompts import DEFAULT_MODEL
from builders.sources.embs_source import EmbsSource
from builders.specs.embs import EmbsBuild
from generators.embs.calibration import OUTCOMES, outcome
from generators.embs.collisions import Tested
from generators.embs.ladder import Corpus, build_ladder
from generators.embs.paper import TABLE3, TABLE3_SCALES
from generators.embs.prompts import (
    CHAT_TEMPLATE_RESERVE,
    DOCUMENT_TEMPLATE,
    render_document,
    serialize_corpus,
)
from generators.embs.spec import (
    BENCHMARK,
    MAX_SCALE,
    RERANK_SUFFIX,
    scale_sort_key,
    scale_tokens,
)
from generators.world.schema import DOMAINS
from needlework.errors import BudgetError
from needlework.tokenizers import load_tokenizer
from needlework.tokens import TokenCounter

TEST = "test"
TRAIN = "train"
_str, _i64, _i32, _i8, _f32, _f64 = (Value(t) for t in ("string", "int64", "int32", "int8", "float32", "float64"))
FEATURES: dict[str, Features] = {
    "memorybank": Features({
        "doc_id": _i64, "title": _str, "text": _str, "lang": _str, "source": _str, "domain": _str, "n_tokens": _i32,
        "origin": _str, "world_doc_id": _i64, "entity_id": _i64, "piece": _i8, "pieces": _i8,
    }),
    "queries": Features({
        "qid": _str, "query": _str, "answer": _str, "answers": List(_str), "ref_list": List(_i64),
        "n_refs": _i8, "kind": _str, "track": _str, "hops": _i8, "domain": _str, "lang": _str, "source": _str,
        "hard_negatives": List(_i64), "calib_ranks": List(_i64), "calib_bucket": _str,
        "entity_id": _i64, "hop_ids": List(_str), "mention": _str, "wording": _str,
    }),
    "collisions": Features({
        "qid": _str, "doc_id": _i64, "rank": _i32, "score": _f32, "label": _str, "labeler": _str, "origin": _str,
    }),
    "ladder": Features({
        "scale": _str, "tier": _str, "domain": _str, "budget_tokens": _i64, "reserve_tokens": _i32, "corpus_tokens": _i64,
        "next_tokens": _i32, "n_docs": _i32, "doc_ids": List(_i64),
    }),
    "qrels": Features({"query-id": _str, "corpus-id": _i64, "score": _i32}),
    "rankings": Features({
        "qid": _str, "retriever": _str, "scale": _str, "domain": _str, "doc_ids": List(_i64),
        "gold": List(_i64), "gold_ranks": List(_i64),
    }),
    "retrieval": Features({
        "retriever": _str, "scale": _str, "r1": _f64, "sr10": _f64, "fr10": _f64, "n_single": _i32, "n_multi": _i32,
    }),
}
CONTEXT_FEATURES = Features({
    "scale": _str, "tier": _str, "domain": _str, "input": _str, "n_tokens": _i32, "limit_tokens": _i32,
    "n_docs": _i32, "tokenizer": _str,
})
"""Columns of a ``contexts-<scale>`` config: one serialized corpus per row (the prompt's shared prefix)."""

FACTS = CardFacts(
    benchmark=BENCHMARK,
    pretty_name="EverMemBench-S (needlework build)",
    license="apache-2.0",
    language=("en", "zh"),
    task_categories=("question-answering", "text-retrieval"),
    tags=("long-context", "needle-in-a-haystack", "evermembench", "hard-negatives", "retrieval", "memory"),
    attribution=(
        "## Sources and licences\n\n"
        "The default build uses only needlework's synthetic world (fictional entities, templates and word lists "
        "written for needlework): released under Apache-2.0."
    ),
)


def context_config(scale: str) -> str:
    """The config holding the serialized corpora of one scale."""
    return f"contexts-{scale}"


@dataclass
class BuildReport:
    """What a build wrote, and the Table 3 layout of its retrieval metrics."""

    out: Path
    rows: dict[str, int] = field(default_factory=dict)
    short: dict[str, int] = field(default_factory=dict)
    table3: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The rows written, what the ladder could not give as asked, any quota a small world could not fill, and
        Table 3."""
        lines = [wrote_line(self.out, self.rows), *self.notes]
        if self.short:
            lines.append("queries short of their quota (domain/track: missing): "
                         + ", ".join(f"{k}: {v}" for k, v in self.short.items()))
        if self.table3:
            lines.append(self.table3)
        return lines


def reserves(queries: list[dict[str, Any]], domains: tuple[str, ...], tokens: TokenCounter, generation_reserve: int) -> dict[str, int]:
    """Per domain (and ``all``): the longest instruction + query of its queries, plus the generation reserve and
    :data:`generators.embs.prompts.CHAT_TEMPLATE_RESERVE`."""
    need: dict[str, int] = {d: 0 for d in (*domains, "all")}
    for q in queries:
        longest = instruction_tokens(q["query"], tokens)
        need[q["domain"]] = max(need[q["domain"]], longest)
        need["all"] = max(need["all"], longest)
    return {d: n + generation_reserve + CHAT_TEMPLATE_RESERVE for d, n in need.items()}


def nearest_first(negatives: Sequence[Sequence[int]]) -> list[int]:
    """The queries' hard negatives in the order a base corpus takes them: every query's nearest, then every query's
    second, and so on, so a corpus too small for them all keeps each query's nearest (not the first queries' all)."""
    return [ranked[k] for k in range(max(map(len, negatives), default=0)) for ranked in negatives if k < len(ranked)]


def outranking_first(queries: Sequence[dict[str, Any]], collisions: Sequence[dict[str, Any]]) -> list[int]:
    """The queries' hard negatives in the order a base corpus takes them (OURS), so that it keeps as many queries as
    hard as they are over the whole bank.

    A query's *outranking* negatives are those ranked above its worst-ranked gold document over the bank: without
    them in a 64K corpus, the query is found there though missed over the bank. A 64K corpus holds only a few
    negatives per query, so it takes first every query's nearest outranking one (each query missed at rank 1 stays
    missed), then the rest of each query's outranking ones, a query's all together, queries needing fewest first
    (a query missing the top 10 needs all ten), then the other negatives :func:`nearest_first`.
    """
    rank = {(c["qid"], c["doc_id"]): c["rank"] for c in collisions}
    ahead, behind = [], []
    for q in queries:
        worst = max(q["calib_ranks"], default=0)
        outranks = [rank.get((q["qid"], d), worst) < worst for d in q["hard_negatives"]]
        ahead.append([d for d, o in zip(q["hard_negatives"], outranks) if o])
        behind.append([d for d, o in zip(q["hard_negatives"], outranks) if not o])
    completing = sorted((docs[1:] for docs in ahead if len(docs) > 1), key=len)
    return [docs[0] for docs in ahead if docs] + [d for docs in completing for d in docs] + nearest_first(behind)


def ladder_rows(ladder: list[Corpus]) -> Iterator[dict[str, Any]]:
    """``ladder`` rows: one per corpus, doc ids in serialization order."""
    for c in ladder:
        yield {"scale": c.scale, "tier": c.tier, "domain": c.domain, "budget_tokens": c.budget_tokens,
               "reserve_tokens": c.reserve_tokens, "corpus_tokens": c.corpus_tokens, "next_tokens": c.next_tokens,
               "n_docs": len(c.doc_ids),
               "doc_ids": c.doc_ids.tolist()}


def context_rows(corpora: list[Corpus], titles: list[str], texts: list[str], tokens: TokenCounter,
                 engine: Engine | None = None) -> Iterator[dict[str, Any]]:
    """:func:`context_row` of each corpus, in order: serialized here, counted on ``engine`` (default: this process;
    a bounded window of corpora in flight), the rows assembled here in corpus order."""
    sent: collections.deque[str] = collections.deque()

    def serialized() -> Iterator[list[str]]:
        for corpus in corpora:
            sent.append(serialize_corpus(render_document(d, titles[d], texts[d]) for d in corpus.doc_ids.tolist()))
            yield [sent[-1]]

    for corpus, counts in zip(corpora, (engine or Engine()).count_tokens(serialized(), tokens)):
        yield context_row(corpus, sent.popleft(), int(counts[0]), tokens)


def context_row(corpus: Corpus, text: str, measured: int, tokens: TokenCounter) -> dict[str, Any]:
    """A serialized corpus, verified with its one count: it must fit ``budget - reserve`` (``max``: the bank's size),
    else the document counts were wrong."""
    # ``max`` is the whole bank: its "budget" is the bank's size, with no room reserved (it is not a budget).
    limit = corpus.budget_tokens - (0 if corpus.scale == MAX_SCALE else corpus.reserve_tokens)
    if measured > limit:
        raise BudgetError(f"{corpus.scale}/{corpus.domain}: the serialized corpus has {measured:,} tokens, over its "
                          f"limit of {limit:,} (predicted {corpus.corpus_tokens:,}); document counts did not add up")
    return {"scale": corpus.scale, "tier": corpus.tier, "domain": corpus.domain, "input": text, "n_tokens": measured,
            "limit_tokens": limit, "n_docs": len(corpus.doc_ids), "tokenizer": tokens.name}


def build(spec: EmbsBuild, out: Path, *, tokens: TokenCounter | None = None, progress: bool = True) -> BuildReport:
    """Build an EMB-S release at ``out`` (replacing a previous release there atomically).

    Raises:
        BudgetError: A domain's gold documents do not fit its base (64K) corpus.
    """
    tokens = tokens or load_tokenizer(spec.tokenizer)
    engine = engine_of(spec)
    clock = _Stopwatch()
    cross_encoder = None
    if spec.reranker:  # loaded before any work, so a missing model or extra fails at once
        from builders.retrieval.rerank import load_cross_encoder

        cross_encoder = load_cross_encoder(spec.reranker)

    def bank_of(titles: list[str], texts: list[str]) -> Bank:
        return Bank(titles, texts, dense_model=spec.dense_model or None, cache_dir=spec.cache or None, progress=progress)

    prepared = (_prepare_real(spec, tokens, bank_of, clock, engine) if spec.real
                else _prepare_world(spec, tokens, bank_of, progress, clock, engine))
    wbank, bank, queries, collisions, stages, inputs, official = prepared
    domains = tuple(d for d in spec.domains if any(q["domain"] == d for q in queries))
    gold = {d: [r for q in queries if q["domain"] == d for r in q["ref_list"]] for d in domains}
    negatives = {d: outranking_first([q for q in queries if q["domain"] == d], collisions) for d in domains}
    need = reserves(queries, domains, tokens, spec.generation_reserve)
    if official is not None and official.ladder:
        ladder = official_ladder(official, wbank, need, spec.ladder_spec())
    else:
        ladder = build_ladder(wbank.n_tokens, wbank.domains, domains, gold, negatives, need, spec.ladder_spec(), spec.seed, DOMAINS)
    clock.lap("ladder")
    ranked = list(rank_ladder(spec.retrievers, bank, ladder, queries, progress=progress))
    if cross_encoder is not None and ranked:
        from builders.retrieval.rerank import rerank_rankings

        asked = {q["qid"]: q["query"] for q in queries}
        ranked += list(rerank_rankings(ranked, asked, lambda d: f"{wbank.titles[d]}\n{wbank.texts[d]}", cross_encoder))
    table = retrieval_rows(ranked)
    clock.lap("retrieval")
    report = BuildReport(Path(out), short=stages.short, table3=table3_markdown(table) if table else "", seconds=clock.seconds,
                         notes=ladder_notes(ladder, spec, int(wbank.n_tokens.sum())))
    manifest = base_manifest(BENCHMARK, spec, tokens, inputs)
    manifest.update({
        "bank": {"documents": len(wbank.titles), "tokens": int(wbank.n_tokens.sum())},
        "unit_tokens_per_k": spec.ladder_spec().unit, "generation_reserve": spec.generation_reserve,
        "document_template": DOCUMENT_TEMPLATE, "reserves": need,
        "stages": {"candidates": dict(stages.candidates), "near_duplicates": stages.duplicates, "conflicts": stages.conflicts,
                   "false_negatives": stages.false_negatives, "over_budget": stages.over_budget,
                   "held_back_by_calibration": stages.held_back, "refilled_from_held_back": stages.refilled,
                   "cross_domain": stages.cross_domain, "kept": dict(stages.kept), "short": stages.short},
        "collision_labeler": (spec.llm_model or "none") if spec.real else "oracle", "build_retriever": spec.build_retriever,
    })
    facts = FACTS if official is None or not official.attribution else replace(FACTS, attribution=official.attribution)
    contexts = sorted({c.scale for c in ladder if spec.materialized(c.scale)}, key=scale_sort_key)
    with ReleaseWriter(out, facts, manifest) as release:
        release.card_fields["table3"] = report.table3 or "(no retrievers were run)"
        release.card_fields["bank_stats"] = "\n".join([_bank_stats(wbank.n_tokens, queries, ladder),
                                                       *(f"- {note}" for note in report.notes)])
        release.card_fields["track1_hops"] = _track1_hops(queries)
        release.card_fields["query_mix"] = _query_mix(queries)
        release.card_fields["table3_paper"] = _beside_paper(table)
        release.card_fields["reranker"] = f"`{spec.reranker}`" if spec.reranker else "none"
        dense_ran = "dense" in spec.retrievers or spec.build_retriever == "dense"
        release.card_fields["dense_model"] = f"`{spec.dense_model or DEFAULT_MODEL}`" if dense_ran else "none (no dense retriever ran)"
        for config in [*FEATURES, *(context_config(s) for s in contexts)]:
            release.declare(config, features(config))
        bar = tqdm(total=len(wbank.titles), desc="write bank", unit="doc", disable=not progress)
        tables: dict[str, Any] = {
            "memorybank": (wbank.row(d) for d in range(len(wbank.titles))),
            "queries": queries, "collisions": collisions, "ladder": ladder_rows(ladder),
            "qrels": ({"query-id": q["qid"], "corpus-id": r, "score": 1} for q in queries for r in q["ref_list"]),
            "rankings": ({"qid": r.qid, "retriever": r.retriever, "scale": r.scale, "domain": r.domain, "doc_ids": r.doc_ids,
                          "gold": r.gold, "gold_ranks": r.gold_ranks} for r in ranked),
            "retrieval": table,
        }
        for config, rows in tables.items():
            report.rows[config] = 0
            release.open_split(config, TEST)
            for row in rows:
                release.write(config, TEST, row)
                report.rows[config] += 1
                if config == "memorybank":
                    bar.update(1)
        bar.close()
        train = official_train_rows(official) if official is not None else []
        if train:  # the release's train pairs (qar/train_sft.jsonl), kept apart from the test queries, never merged
            release.open_split("queries", TRAIN)
            release.open_split("qrels", TRAIN)
            for row in train:
                release.write("queries", TRAIN, row)
                for doc in row["ref_list"]:
                    release.write("qrels", TRAIN, {"query-id": row["qid"], "corpus-id": doc, "score": 1})
            report.rows["queries/train"] = len(train)
        clock.lap("write")
        for scale in contexts:
            config = context_config(scale)
            report.rows[config] = 0
            for row in context_rows([c for c in ladder if c.scale == scale], wbank.titles, wbank.texts, tokens, engine):
                release.write(config, TEST, row)
                report.rows[config] += 1
        clock.lap("contexts")
    return report


def official_train_rows(source: EmbsSource) -> list[dict[str, Any]]:
    """The official release's train pairs as ``queries`` rows of a ``train`` split: the release's ids (bank positions)
    as RefLists; no calibration or collision testing (the test queries' stages), so those fields are empty."""
    return [query_row(f"embs/{t['qid']}", t["query"], t["answer"], t["answers"], Tested(tuple(t["ref_docs"]), (), False), [],
                      track="release", hops=1, domain=t["domain"], lang=t["lang"], source=t["source"])
            for t in source.triples.to_pylist() if t["split"] == TRAIN]


class _Stopwatch:
    """Wall-clock seconds per build stage (the report's ``seconds``; benchmarks/embs.py reads them)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.seconds[stage] = round(now - self._last, 3)
        self._last = now


def _prepare_world(spec: EmbsBuild, tokens: TokenCounter, bank_of: Any, progress: bool, clock: _Stopwatch,
                   engine: Engine) -> tuple:
    """Stages I-III on the synthetic world (exact oracle)."""
    world = grow(spec.entities, spec.twin_fraction, spec.seed)
    clock.lap("world")
    ladder = spec.ladder_spec()
    room = GoldRoom(scale_tokens(ladder.domain_scales[0], ladder.unit), spec.generation_reserve + CHAT_TEMPLATE_RESERVE)
    wbank, bank, queries, collisions, stages = compose_queries(world, spec.query_spec(), spec.build_retriever, bank_of,
                                                               spec.seed, tokens, progress, engine, room)
    clock.lap("bank_and_queries")
    return wbank, bank, queries, collisions, stages, {"world": f"synthetic(entities={spec.entities}, seed={spec.seed})"}, None


def _prepare_real(spec: EmbsBuild, tokens: TokenCounter, bank_of: Any, clock: _Stopwatch, engine: Engine) -> tuple:
    """Stages I-III on real sources, with the LLM stages when ``--llm-model`` is given."""
    source, dropped = read_sources(spec.hub, spec.raw, tokens)
    clock.lap("read")
    llm = None
    if spec.llm_model:
        from builders.embs_llm import open_llm
        from builders.retrieval.cache import default_cache_dir
        cache = Path(spec.llm_cache) if spec.llm_cache else Path(spec.cache or default_cache_dir()) / "embs-llm.jsonl"
        llm = open_llm(spec.llm_base_url or None, spec.llm_model, engine=spec.llm_engine, cache_path=cache)
    official = bool(spec.hub) and not spec.raw
    rbank, triples = prepare_bank(source, spec.query_spec(), llm, retriever=spec.build_retriever, bank_of=bank_of,
                                  seed=spec.seed, tokens=tokens, official=official, engine=engine)
    bank = bank_of(rbank.titles, rbank.texts)
    queries, collisions, stages = stage_three(rbank, bank, triples, spec.query_spec(), llm, retriever=spec.build_retriever,
                                              official=official)
    clock.lap("bank_and_queries")
    inputs = {**source.fingerprints, "sources": source.label, "dropped_triples": str(len(dropped))}
    return rbank, bank, queries, collisions, stages, inputs, source if official else None


def _bank_stats(n_tokens: np.ndarray, queries: list[dict[str, Any]], ladder: list[Corpus]) -> str:
    tracks = {k: sum(1 for q in queries if q["track"] == k) for k in ("none", "rewrite", "atomize")}
    single = sum(1 for q in queries if q["n_refs"] == 1)  # by RefList, not track: Stage III may add a reference
    scales = ", ".join(f"{s} ({n})" for s, n in _scale_counts(ladder))
    return (f"- MemoryBank: {len(n_tokens):,} documents, {int(n_tokens.sum()):,} tokens (mean {float(n_tokens.mean()):,.0f})\n"
            f"- queries: {len(queries)} ({single} single-source, {len(queries) - single} multi-source; by track: "
            f"{tracks['none']} not rewritten, {tracks['rewrite']} Track 1, {tracks['atomize']} Track 2)\n"
            f"- ladder scales (corpora): {scales}")


def ladder_notes(ladder: list[Corpus], spec: EmbsBuild, bank_tokens: int) -> list[str]:
    """What the ladder could not give as asked, said rather than silently capped (issue 41): a bank too small for
    ``--max-scale``, scales whose corpora hold the same documents as the scale below (one corpus under two labels),
    contexts asked above the largest scale built."""
    notes = []
    scales = sorted({c.scale for c in ladder}, key=scale_sort_key)
    largest = scales[-1] if scales else ""
    below_max = [s for s in scales if s != MAX_SCALE]
    if spec.max_scale != MAX_SCALE and below_max and scale_sort_key(below_max[-1]) < scale_sort_key(spec.max_scale):
        notes.append(f"the bank holds {bank_tokens:,} tokens, so the ladder stops at {largest}, below "
                     f"--max-scale {spec.max_scale}")
    by_scale: dict[str, dict[frozenset[int], str]] = {}
    for corpus in ladder:
        by_scale.setdefault(corpus.scale, {})[frozenset(corpus.doc_ids.tolist())] = corpus.domain
    for lower, upper in zip(scales, scales[1:]):
        repeated = [(by_scale[lower][docs], domain) for docs, domain in by_scale[upper].items() if docs in by_scale[lower]]
        for was, now in repeated:
            notes.append(f"{upper} ({now}) holds the same documents as {lower} ({was}): the bank has no more to add")
    if spec.materialize not in ("none", MAX_SCALE) and largest and largest != MAX_SCALE and \
            scale_sort_key(largest) < scale_sort_key(spec.materialize):
        # the default --materialize over a smaller --max-scale looks the same as an explicit one: both are said
        above = scale_sort_key(spec.materialize) > scale_sort_key(spec.max_scale)
        notes.append(f"contexts written up to {largest}, the largest scale built (--materialize {spec.materialize}"
                     + (f" is above --max-scale {spec.max_scale})" if above else ")"))
    return notes


def _track1_hops(queries: list[dict[str, Any]]) -> str:
    """How often each relation is Track 1's first hop in this release, most frequent first (the card's hop mix)."""
    rewrites = [q for q in queries if q["track"] == "rewrite"]
    firsts = collections.Counter(q["hop_ids"][0] for q in rewrites if q.get("hop_ids"))
    if rewrites and not firsts:
        return "not recorded (Track 1 rewritten by a model from real sources has no hops)"
    return ", ".join(f"`{hop}` {n}" for hop, n in sorted(firsts.items(), key=lambda kv: (-kv[1], kv[0]))) or "none"


def _query_mix(queries: list[dict[str, Any]]) -> str:
    """How the release's questions refer to their entities, and how many the build retriever finds outright (the
    card's calibration line)."""
    parts = []
    referred = [q for q in queries if q.get("mention")]
    if referred:
        described = sum(q["mention"] == "description" for q in referred)
        parts.append(f"{described} of {len(referred)} questions describe their entity instead of naming it")
    worded = [q for q in queries if q.get("wording")]
    if worded:
        reworded = sum(q["wording"] == "reworded" for q in worded)
        parts.append(f"{reworded} of {len(worded)} are worded unlike the articles")
    for kind, label in (("single", "single-source"), ("multi", "multi-source")):
        calibrated = [q for q in queries if q["kind"] == kind and q["calib_ranks"]]
        if calibrated:
            seen = collections.Counter(outcome(q["calib_ranks"]) for q in calibrated)
            mix = ", ".join(f"{seen[o]} {o}" for o in OUTCOMES)
            parts.append(f"{label}, by the build retriever over the whole bank: {mix} (of {len(calibrated)})")
    return "; ".join(parts) or "no calibrated queries"


PAPER_BESIDE: tuple[str, ...] = ("BM25", "Qwen3-Embedding-0.6B", "Qwen3-Embedding-8B")
"""The paper's Table 3 rows the card sets beside the release's: BM25, and its smallest and Stage II-III dense models."""


def _beside_paper(rows: list[dict[str, Any]]) -> str:
    """The release's retrieval rows beside the paper's (italic) at the scales both report (64K and 512K), with the
    paper's reranked row when the release has a reranked system."""
    scales = [s for s in TABLE3_SCALES if any(r["scale"] == s for r in rows)]
    if not scales:
        return ""
    systems = PAPER_BESIDE + (("Qwen3-Embedding-8B + Qwen3-Reranker-8B",)
                              if any(r["retriever"].endswith(RERANK_SUFFIX) for r in rows) else ())
    paper = [{"retriever": f"*{system} (paper)*", "scale": scale, "r1": v[0], "sr10": v[1], "fr10": v[2]}
             for system in systems for scale, v in TABLE3[system].items() if scale in scales]
    return ("Beside the paper's rows at the scales both report (the paper: 483 queries, a 326M-token bank; "
            "its dense models are Qwen3-Embedding, 0.6B and 8B parameters; this release's dense model is named above):"
            "\n\n" + table3_markdown([r for r in rows if r["scale"] in scales] + paper))


def _scale_counts(ladder: list[Corpus]) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for c in ladder:
        counts[c.scale] = counts.get(c.scale, 0) + 1
    return sorted(counts.items(), key=lambda kv: scale_sort_key(kv[0]))


def features(config: str) -> Features:
    """The features of a config: a table of :data:`FEATURES`, or a ``contexts-<scale>`` config."""
    return FEATURES.get(config, CONTEXT_FEATURES)


def demo_spec(seed: int, tokenizer: str) -> EmbsBuild:
    """A small instance: 2,000 entities (about 1.2M tokens), 4 queries per domain, BM25, contexts up to 512K."""
    return EmbsBuild(entities=2_000, queries_per_domain=4, retrievers=("bm25",), materialize="512K", seed=seed, tokenizer=tokenizer)


BUILDER = Builder(id=BENCHMARK, spec=EmbsBuild, features=features, facts=FACTS, build=build, demo=demo_spec)
