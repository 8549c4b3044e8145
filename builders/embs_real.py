"""EMB-S Stages I-III on real sources: the official release, or raw benchmarks of Table 5 with an LLM.

- **The official release** (``--hub``) already holds the paper's final queries, RefLists and ladder:
  documents keep their position in the release's largest corpus as ``doc_id``, queries are taken as
  they are (``track = "release"``), and its own ladder corpora are used.
- **Raw sources** (``--raw kind:path``) give (Query, Answer, RefDoc) triples. With an LLM
  (``--llm-model``) a seeded share of them goes through Stage II, Track 1 (rewrite against the RefDoc's
  nearest neighbour under the build retriever) and Track 2 (atomize the RefDoc into pieces that replace
  it); documents without a domain are classified; Stage III verifies the top-k non-RefList documents
  of every query. Without an LLM, triples stay single-source and collisions are recorded with label
  ``unverified`` (labeler ``none``): nothing is dropped or added unverified. Document ids are a seeded
  permutation.

De-duplication and calibration are the world's (:mod:`generators.embs.calibration`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from builders.embs_llm import AtomizeCase, LlmStages, RewriteCase, VerifyCase
from builders.embs_world import WorldStages, count_serialized, query_row
from builders.engine import Engine
from builders.retrieval.base import ranks_of
from builders.retrieval.ladder import Bank, nearest_outside
from builders.sources.embs_hub import read_embs_hub
from builders.sources.embs_raw import read_raw
from builders.sources.embs_source import EmbsSource, concat_sources
from generators.embs.calibration import keep_distinct
from generators.embs.collisions import Verdict
from generators.embs.ladder import Corpus
from generators.embs.spec import (
    BASE_SCALE,
    BENCHMARK,
    MAX_SCALE,
    LadderSpec,
    QuerySpec,
    scale_sort_key,
    scale_tokens,
)
from generators.seeding import rng_for
from generators.world.schema import DOMAINS
from needlework.errors import BudgetError, SpecError
from needlework.tokens import TokenCounter


@dataclass
class RealBank:
    """A real MemoryBank in doc-id order (the same interface the writer reads from the world's)."""

    titles: list[str]
    texts: list[str]
    langs: list[str]
    sources: list[str]
    origins: list[str]
    n_tokens: np.ndarray
    domains: np.ndarray

    def row(self, doc: int) -> dict[str, Any]:
        """The ``memorybank`` row of a document."""
        return {"doc_id": doc, "title": self.titles[doc], "text": self.texts[doc], "lang": self.langs[doc],
                "source": self.sources[doc], "domain": DOMAINS[int(self.domains[doc])] if self.domains[doc] >= 0 else None, "n_tokens": int(self.n_tokens[doc]),
                "origin": self.origins[doc], "world_doc_id": None, "entity_id": None, "piece": 0, "pieces": 0}


@dataclass
class _Triple:
    query: str
    answer: str
    answers: list[str]
    refs: list[int]
    lang: str
    source: str
    domain: str | None
    track: str
    qid: str


def _stage_two(docs: list[dict], triples: list[_Triple], spec: QuerySpec, llm: LlmStages, bank_of: Callable[..., Bank],
               retriever: str, seed: int) -> None:
    """Track 1 and Track 2 on a seeded share of single-RefDoc triples (mutates ``docs`` and ``triples``)."""
    quotas = spec.quotas()
    share = {t: quotas[t] / spec.per_domain for t in ("rewrite", "atomize")}
    order = rng_for(seed, BENCHMARK, "real-tracks", len(triples)).permutation(len(triples)).tolist()
    singles = [i for i in order if len(triples[i].refs) == 1]
    n_rewrite = round(len(singles) * share["rewrite"])
    n_atomize = round(len(singles) * share["atomize"])
    rewrite, atomize = singles[:n_rewrite], singles[n_rewrite:n_rewrite + n_atomize]
    # A document about to be atomized leaves the bank, so it cannot be another query's added evidence.
    leaving = {triples[i].refs[0] for i in atomize}
    if rewrite:
        bank = bank_of([d["title"] for d in docs], [d["text"] for d in docs])
        near = {i: [int(d) for d in bank.neighbours(retriever, triples[i].refs[0], spec.neighbours)
                    if int(d) not in triples[i].refs and int(d) not in leaving] for i in rewrite}
        rewrite = [i for i in rewrite if near[i]]
        neighbour = {i: near[i][0] for i in rewrite}
        cases = [RewriteCase(triples[i].query, triples[i].answer, docs[triples[i].refs[0]]["text"], docs[neighbour[i]]["text"])
                 for i in rewrite]
        for i, result in zip(rewrite, llm.rewrite_many(cases)):
            if result is not None:
                t = triples[i]
                t.query, t.answer, t.answers, t.refs, t.track = result[0], result[1], [result[1]], [t.refs[0], neighbour[i]], "rewrite"
    cases = [AtomizeCase(triples[i].query, triples[i].answer, docs[triples[i].refs[0]]["text"]) for i in atomize]
    for i, result in zip(atomize, llm.atomize_many(cases)):
        if result is None:
            continue
        t, original = triples[i], docs[triples[i].refs[0]]
        pieces, t.query, t.answer = result
        t.answers, t.track, original["removed"] = [t.answer], "atomize", True
        t.refs = []
        for k, piece in enumerate(pieces, 1):
            t.refs.append(len(docs))
            docs.append({**original, "title": f"{original['title']} ({k}/{len(pieces)})".strip(), "text": piece,
                         "origin": "atom", "removed": False})


def prepare_bank(source: EmbsSource, spec: QuerySpec, llm: LlmStages | None, *, retriever: str, bank_of: Callable[..., Bank],
                 seed: int, tokens: TokenCounter, official: bool, engine: Engine | None = None
                 ) -> tuple[RealBank, list[_Triple]]:
    """Stages I-II: the bank in doc-id order (tokens counted once, as serialized, on ``engine``) and the test triples
    on it."""
    docs = [{**d, "origin": d["source"], "removed": False} for d in source.docs.to_pylist()]
    triples = [_Triple(t["query"], t["answer"], list(t["answers"]), list(t["ref_docs"]), t["lang"], t["source"], t["domain"],
                       "release" if official else "none", t["qid"])
               for t in source.triples.to_pylist() if t["split"] == "test"]
    if llm is not None and not official:
        _stage_two(docs, triples, spec, llm, bank_of, retriever, seed)
    kept = [i for i, d in enumerate(docs) if not d["removed"]]
    if official:
        new_of = {old: new for new, old in enumerate(kept)}
    else:
        perm = rng_for(seed, BENCHMARK, "doc_ids", len(kept)).permutation(len(kept)).tolist()
        new_of = {old: perm[k] for k, old in enumerate(kept)}
    ordered = [docs[old] for old, _ in sorted(new_of.items(), key=lambda kv: kv[1])]
    for t in triples:
        t.refs = [new_of[r] for r in t.refs]
    missing = [i for i, d in enumerate(ordered) if d["domain"] is None]
    if missing and llm is not None:
        for i, label in zip(missing, llm.classify_domains([ordered[i]["text"] for i in missing])):
            ordered[i]["domain"] = label
        missing = [i for i in missing if ordered[i]["domain"] is None]
    if missing and not official:
        raise SpecError(f"{len(missing):,} documents have no domain (e.g. doc {missing[0]} from {ordered[missing[0]]['source']}); "
                        "give --llm-model to classify them into the 8 domains")
    titles = [tokens.normalize(d["title"]) for d in ordered]
    texts = [tokens.normalize(d["text"]) for d in ordered]
    n_tokens = count_serialized(titles, texts, tokens, engine=engine)
    # The release gives a domain only to documents of its 64K domain corpora; the rest keep none (-1).
    domains = np.array([DOMAINS.index(d["domain"]) if d["domain"] else -1 for d in ordered], dtype=np.int8)
    for t in triples:  # a query without a domain takes its references' one domain; references in two give none
        named = {ordered[r]["domain"] for r in t.refs if ordered[r]["domain"]}
        t.domain = t.domain or (named.pop() if len(named) == 1 else None)
    bank = RealBank(titles, texts, [d["lang"] for d in ordered], [d["source"] for d in ordered],
                    ["atom" if d["origin"] == "atom" else "source" for d in ordered], n_tokens, domains)
    return bank, triples


def stage_three(rbank: RealBank, bank: Bank, triples: list[_Triple], spec: QuerySpec, llm: LlmStages | None, *, retriever: str,
                official: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]], WorldStages]:
    """De-duplicate, calibrate and collision-test the triples; keep at most ``per_domain`` per domain.

    The release's queries are final (the authors ran Stages II-III): every one is kept and calibrated,
    and its collisions are recorded (verified when an LLM is given) without de-duplication or a quota.
    """
    stages = WorldStages(candidates=Counter(t.track for t in triples))
    if official or not triples:
        keep = np.ones(len(triples), dtype=bool)
    else:
        keep = keep_distinct(bank.query_vectors(retriever, [t.query for t in triples]), spec.dedup_threshold)
    stages.duplicates = int((~keep).sum())
    kept = [t for t, k in zip(triples, keep) if k and (official or t.domain in spec.domains)]
    spans = [t.domain is None and len({int(rbank.domains[r]) for r in t.refs} - {-1}) > 1 for t in kept]
    stages.cross_domain = [f"embs/{t.qid}" for t, s in zip(kept, spans) if s]  # no domain corpus holds its RefList
    survivors = [t for t, s in zip(kept, spans) if not s]
    looked = [_look_up(scores, survivors[i].refs, spec.collision_k)
              for i, scores in bank.scored(retriever, [t.query for t in survivors])]
    if llm is not None:
        labels = llm.verify_many([VerifyCase(t.query, t.answer, [rbank.texts[r] for r in t.refs], [rbank.texts[d] for d in seen.candidates])
                                  for t, seen in zip(survivors, looked)])
        labeler = llm.model
    else:
        labels, labeler = [["unverified"] * len(seen.candidates) for seen in looked], "none"
    queries, collisions, per_domain = [], [], Counter()
    for t, seen, verdict_labels in zip(survivors, looked, labels):
        if not official and per_domain[t.domain] >= spec.per_domain:
            continue
        verdicts = [Verdict(d, seen.rank[d], seen.score[d], label or "unverified", labeler, "retrieved")
                    for d, label in zip(seen.candidates, verdict_labels)]
        tested = stages.admit(t.refs, verdicts)
        if tested is None:
            continue
        per_domain[t.domain] += 1
        queries.append(query_row(f"embs/{t.qid}", t.query, t.answer, t.answers, tested, [seen.rank[d] for d in tested.ref_list],
                                 track=t.track, hops=1 if t.track in ("none", "release") else 2, domain=t.domain,
                                 lang=t.lang, source=t.source))
        collisions += [{"qid": queries[-1]["qid"], **vars(v)} for v in verdicts]
    stages.kept = Counter(q["track"] for q in queries)
    return queries, collisions, stages


@dataclass(frozen=True)
class _Seen:
    """What Stage III needs of one query's whole-bank scores: its top non-RefList documents, their scores, exact ranks."""

    candidates: list[int]
    score: dict[int, float]
    rank: dict[int, int]


def _look_up(scores: np.ndarray, refs: Sequence[int], k: int) -> _Seen:
    """The ``k`` best non-RefList documents, with the scores and ranks of those and of the RefList (false negatives join it)."""
    candidates = nearest_outside(scores, refs, k)
    docs = list(dict.fromkeys([*refs, *candidates]))
    ranks = ranks_of(scores, np.asarray(docs, dtype=np.int64)).tolist()
    return _Seen(candidates, {d: float(scores[d]) for d in candidates}, dict(zip(docs, map(int, ranks))))


def official_ladder(source: EmbsSource, rbank: RealBank, reserves: dict[str, int], spec: LadderSpec) -> list[Corpus]:
    """The release's own ladder corpora (ids are positions, so unchanged), as :class:`Corpus` rows.

    Raises:
        SpecError: ``spec`` has another base than the paper's 64K, the release's.
        BudgetError: A release corpus does not fit its scale's budget less the reserve under this build's tokenizer
            (the authors name none): named with its scale, domain and token counts.
    """
    if spec.base_scale != BASE_SCALE:
        raise SpecError(f"the official release's ladder has the paper's {BASE_SCALE} base, not {spec.base_scale}")
    corpora = []
    for c in source.ladder:
        ids = np.asarray(c.docs, dtype=np.int64)
        tier = ("domain" if c.scale == spec.base_scale else "mixed" if c.domain != "all"
                else "shared" if c.scale == spec.shared_scale else "global")
        budget, reserve = scale_tokens(c.scale, spec.unit), reserves.get(c.domain, reserves["all"])
        measured = int(rbank.n_tokens[ids].sum())
        if c.scale != MAX_SCALE and measured > budget - reserve:
            raise BudgetError(f"the official {c.scale} corpus of {c.domain} has {measured:,} tokens under this build's "
                              f"tokenizer, over its budget of {budget:,} less {reserve:,} reserved for the instruction, the "
                              f"query and the answer ({len(ids):,} documents); build with the tokenizer of the model to be "
                              "evaluated (--tokenizer) or a smaller --generation-reserve")
        corpora.append(Corpus(c.scale, tier, c.domain, budget, reserve, measured, 0, ids))
    return sorted(corpora, key=lambda c: (scale_sort_key(c.scale), c.domain))


def read_sources(hub: str, raw: Sequence[str], tokens: TokenCounter) -> tuple[EmbsSource, list[tuple[str, str]]]:
    """The sources a build names: ``hub`` (a local copy of the release, or ``hub`` for the Hub) and ``kind:path`` raw inputs."""
    sources, dropped = [], []
    if hub:
        sources.append(read_embs_hub(None if hub == "hub" else Path(hub)))
    for item in raw:
        kind, sep, path = item.partition(":")
        if not sep or not path:
            raise SpecError(f"--raw takes kind:path (e.g. ragbench:covidqa.jsonl), got {item!r}")
        read = read_raw(kind, path, tokens=tokens)
        sources.append(read.source)
        dropped += list(read.dropped)
    return concat_sources(sources), dropped
