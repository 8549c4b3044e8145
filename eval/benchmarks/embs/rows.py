"""EverMemBench-S sample rows: each query meets the evidence of one ladder scale at evaluation time.

An EMB-S release publishes its corpora once (``contexts-<scale>``: one serialized corpus per domain
tier, or one shared corpus from 512K) and its queries once (``queries``); a sample is a (query,
scale, task) triple composed here, never a stored prompt (spec §8: 1M tokens x queries would not
be written). Two regimes read the same ``[DocID=n]`` interface (paper §4.2, A.3):

- **long context** (``--config contexts-<scale>``): every query of the corpus's domain (all
  queries from 512K) with the whole serialized corpus, once per task (``localize``, ``qa``). Rows
  come corpus by corpus, so the queries sharing a corpus prefix are sent together and a prefix
  cache computes that corpus once (:mod:`needlework.backends.vllm_backend` sorts by token ids as well).
- **RAG** (``--config rankings``): a ``qa`` row per (query, retriever, scale) ranking, whose context
  is the retriever's top ``rag_k`` documents of that scale, serialized with their real IDs in rank
  order (OURS: the paper scores retrievers by evidence access only, Table 3; the generation step
  uses the long-context QA prompt so one table compares both regimes per scale). With
  ``live_retriever`` the rankings are made at run time instead, over the release's ladder corpora,
  by the build's own ranking code (:mod:`builders.retrieval.ladder`): BM25 indexes each corpus,
  dense embeds the corpora's documents once and masks (any sentence-transformers model, behind
  the ``dense`` extra). They are made once per row source and kept for the run's second pass and
  the judge's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterator, Mapping
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from eval.release import Release
from eval.rows import Where, column_values
from eval.task import TaskOptions
from generators.embs.ladder import Corpus
from generators.embs.prompts import render_document, serialize_corpus
from generators.embs.spec import scale_sort_key
from needlework.errors import ReleaseError, SpecError

CONTEXTS_PREFIX = "contexts-"
"""Long-context configs: ``contexts-<scale>``, the serialized corpora of one scale."""
RAG_CONFIG = "rankings"
"""The RAG regime's config: every retriever's top-100 documents per query and scale."""
LONG_CONTEXT_TASKS: tuple[str, ...] = ("localize", "qa")
RAG_TASKS: tuple[str, ...] = ("qa",)
QUERY_COLUMNS: tuple[str, ...] = ("qid", "query", "answer", "answers", "ref_list", "n_refs", "kind", "track", "lang")


def is_sample_config(config: str) -> bool:
    """Whether ``config`` holds evaluation samples (a ``contexts-<scale>`` config or ``rankings``)."""
    return config.startswith(CONTEXTS_PREFIX) or config == RAG_CONFIG


class EmbsRows:
    """The :class:`eval.rows.RowSource` of EMB-S releases (module docstring)."""

    def __init__(self) -> None:
        self._live: dict[tuple[Any, ...], list[dict[str, Any]]] = {}

    def rows(self, release: Release, config: str, split: str, limit: int | None, where: Where | None,
             options: TaskOptions) -> Iterator[dict[str, Any]]:
        """The (query, scale, task) rows of ``config``: long-context rows of a ``contexts-<scale>``
        config, RAG rows of ``rankings``; filtered by ``where`` and cut at ``limit``.

        Raises:
            SpecError: ``config`` holds no questions (``memorybank``, ``ladder`` ...).
            ReleaseError: A ranking names a query or a document the release does not hold.
        """
        _check_config(release, config)
        if config.startswith(CONTEXTS_PREFIX) and where:  # --retrievers picks rankings; long-context rows have none
            where = {column: values for column, values in where.items() if column != "retriever"}
        published, composed = _split_where(release, config, split, where)
        rows = (self._long_context(release, config, split, published) if config.startswith(CONTEXTS_PREFIX)
                else self._rag(release, split, published, options))
        emitted = 0
        for row in rows:
            if limit is not None and emitted >= limit:
                return
            if all(row.get(column) in values for column, values in composed.items()):
                emitted += 1
                yield row

    def values(self, release: Release, config: str, split: str, column: str) -> set[Any] | None:
        """The values of a published column of ``config``, or of the composed ``task`` column."""
        _check_config(release, config)
        if column == "task":
            return set(LONG_CONTEXT_TASKS if config.startswith(CONTEXTS_PREFIX) else RAG_TASKS)
        if column == "retriever" and config.startswith(CONTEXTS_PREFIX):
            return set()  # a retriever selection leaves long-context rows alone (:meth:`rows`)
        return column_values(release, config, split, column)

    def _long_context(self, release: Release, config: str, split: str, where: Where) -> Iterator[dict[str, Any]]:
        queries = _queries(release, split)
        by_domain: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for query in queries.values():
            by_domain[query["domain"]].append(query)
        reserve = _generation_reserve(release)
        for corpus in release.iter_rows(config, split, None, where):
            members = list(queries.values()) if corpus["domain"] == "all" else by_domain.get(corpus["domain"], [])
            for query in members:
                for task in LONG_CONTEXT_TASKS:
                    yield _sample(query, task, corpus["scale"], corpus["tier"], corpus["input"], int(corpus["n_tokens"]),
                                  "long-context", "", reserve)

    def _rag(self, release: Release, split: str, where: Where, options: TaskOptions) -> Iterator[dict[str, Any]]:
        k = options.rag_k
        queries = _queries(release, split)
        rankings = (self._live_rankings(release, split, where, options.live_retriever, queries) if options.live_retriever
                    else list(release.iter_rows(RAG_CONFIG, split, None, where)))
        wanted = {int(d) for ranking in rankings for d in ranking["doc_ids"][:k]}
        documents = _documents(release, wanted)
        reserve = _generation_reserve(release)
        tiers = _tiers(release)
        for ranking in rankings:
            query = queries.get(ranking["qid"])
            if query is None:
                raise ReleaseError(f"{release.dataset}: {RAG_CONFIG} row {ranking['qid']!r} ({ranking['retriever']}, "
                                   f"{ranking['scale']}) names a query that {split} queries do not hold")
            top = [int(d) for d in ranking["doc_ids"][:k]]
            context = serialize_corpus(render_document(d, *documents[d]) for d in top)
            tier = tiers.get((ranking["scale"], ranking["domain"]), "")
            yield _sample(query, "qa", ranking["scale"], tier, context, None, "rag", ranking["retriever"], reserve,
                          retrieved=top)

    def _live_rankings(self, release: Release, split: str, where: Where, retriever: str,
                       queries: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
        """``rankings``-shaped rows ranked now over the ladder corpora of the selected scales (memoized)."""
        scales = where.get("scale")
        memo_key = (release.identity, release.revision, split, retriever, tuple(sorted(scales or ())))
        if memo_key not in self._live:
            self._live.clear()  # one release's rankings at a time
            self._live[memo_key] = _rank_live(release, retriever, scales, list(queries.values()))
        return self._live[memo_key]


def _rank_live(release: Release, retriever: str, scales: Collection[str] | None,
               queries: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Rank the release's ladder corpora (those of ``scales``, all without) with ``retriever`` for their queries; a
    bare ``dense`` ranks with the release's own dense model (its build's ``dense_model``)."""
    from builders.retrieval.ladder import Bank, rank_ladder

    name, _, model = retriever.partition(":")
    model = model or str(((release.manifest.get("build") or {}).get("args") or {}).get("dense_model") or "")
    ladder = [row for row in release.iter_rows("ladder", "test") if not scales or row["scale"] in scales]
    members = np.unique(np.concatenate([np.asarray(row["doc_ids"], dtype=np.int64) for row in ladder])) if ladder else \
        np.zeros(0, dtype=np.int64)
    documents = _documents(release, set(members.tolist()))
    # The bank's positions are the sorted doc ids of the corpora: each corpus is a set of positions.
    bank = Bank([documents[d][0] for d in members.tolist()], [documents[d][1] for d in members.tolist()],
                dense_model=model or None)
    corpora = [Corpus(row["scale"], row["tier"], row["domain"], row["budget_tokens"], row["reserve_tokens"],
                      row["corpus_tokens"], row["next_tokens"], np.searchsorted(members, np.asarray(row["doc_ids"])))
               for row in ladder]
    positions = {int(d): i for i, d in enumerate(members.tolist())}
    local = [{**q, "ref_list": [positions.get(int(r), -1) for r in q["ref_list"]]} for q in queries]
    refs = {q["qid"]: [int(r) for r in q["ref_list"]] for q in queries}
    return [{"qid": r.qid, "retriever": retriever, "scale": r.scale, "domain": r.domain,
             "doc_ids": members[r.doc_ids].tolist(), "gold": refs[r.qid], "gold_ranks": r.gold_ranks}
            for r in rank_ladder([name], bank, corpora, local)]


def _sample(query: Mapping[str, Any], task: str, scale: str, tier: str, context: str, context_tokens: int | None,
            regime: str, retriever: str, reserve: int, retrieved: list[int] | None = None) -> dict[str, Any]:
    """One sample row: the query's columns, its scale, the context and how it was assembled."""
    via = f"/{retriever}" if retriever else ""
    return {
        "id": f"{query['qid']}@{scale}{via}/{task}", "task": task, "scale": scale, "tier": tier,
        "domain": query["domain"], "regime": regime, "retriever": retriever, "context": context,
        "context_tokens": context_tokens, "retrieved": retrieved, "generation_reserve": reserve,
        **{column: query[column] for column in QUERY_COLUMNS},
    }


def _check_config(release: Release, config: str) -> None:
    if not is_sample_config(config):
        scales = sorted((c for c in release.manifest.get("configs", {}) if c.startswith(CONTEXTS_PREFIX)),
                        key=lambda c: scale_sort_key(c.removeprefix(CONTEXTS_PREFIX)))
        raise SpecError(f"{release.dataset}: EMB-S config {config!r} holds no questions to ask; run a long-context "
                        f"config ({', '.join(scales) or 'contexts-<scale>; none was materialized'}) or "
                        f"{RAG_CONFIG} (RAG)")


def _split_where(release: Release, config: str, split: str, where: Where | None) -> tuple[Where, Where]:
    """``where`` as (the columns the config publishes, filtered in Arrow; the composed ones, filtered per row)."""
    if not where:
        return {}, {}
    files = release.split_info(config, split)["files"]
    names = set(pq.read_schema(release.fetch(files[0])).names) if files else set()
    return ({c: v for c, v in where.items() if c in names}, {c: v for c, v in where.items() if c not in names})


def _queries(release: Release, split: str) -> dict[str, dict[str, Any]]:
    """The release's queries by qid, in release order."""
    return {row["qid"]: row for row in release.iter_rows("queries", split)}


def _tiers(release: Release) -> dict[tuple[str, str], str]:
    """(scale, domain) -> the ladder tier of that corpus, read without the ladder's document lists."""
    tiers: dict[tuple[str, str], str] = {}
    for name in release.split_info("ladder", "test")["files"]:
        table = pq.read_table(release.fetch(name), columns=["scale", "domain", "tier"])
        for scale, domain, tier in zip(*(table[c].to_pylist() for c in ("scale", "domain", "tier"))):
            tiers[(scale, domain)] = tier
    return tiers


def _generation_reserve(release: Release) -> int:
    """Tokens each corpus budget kept for the answer: the samples' ``max_tokens`` by default."""
    return int(release.manifest.get("generation_reserve") or 1024)


def _documents(release: Release, doc_ids: set[int]) -> dict[int, tuple[str, str]]:
    """(title, text) of the given MemoryBank documents, read shard by shard without loading the bank."""
    found: dict[int, tuple[str, str]] = {}
    if not doc_ids:
        return found
    wanted = pa.array(sorted(doc_ids), type=pa.int64())
    for name in release.split_info("memorybank", "test")["files"]:
        # Row groups whose doc_id statistics rule them out are never read; the rest are filtered in Arrow.
        table = pq.read_table(release.fetch(name), columns=["doc_id", "title", "text"],
                              filters=pc.is_in(pc.field("doc_id"), value_set=wanted))
        for doc_id, title, text in zip(*(table[c].to_pylist() for c in ("doc_id", "title", "text"))):
            found[int(doc_id)] = (title, text)
    missing = sorted(doc_ids - found.keys())
    if missing:
        raise ReleaseError(f"{release.dataset}: {RAG_CONFIG} rank documents the memorybank does not hold "
                           f"(doc_id {', '.join(map(str, missing[:5]))}{' ...' if len(missing) > 5 else ''})")
    return found
