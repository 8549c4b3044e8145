"""EMB-S Stages I-III on the synthetic world: the MemoryBank, the queries, their collision tests.

The world is grown once; the bank renders each entity in its one language (atomized entities as
pieces); token counts are taken once per document as serialized (``[DocID=n]`` header, blank line
included). Queries are composed exactly (:mod:`generators.embs.world_queries`), de-duplicated and
calibrated under the build retriever over the whole bank, then collision-tested with the exact
oracle (:mod:`generators.embs.collisions`). Each domain takes ``quota`` survivors of each track in
candidate order, at most a share of them found outright by the build retriever (:class:`Admission`).
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm.autonotebook import tqdm

from builders.engine import Engine, batched
from builders.retrieval.base import ranks_of
from builders.retrieval.ladder import Bank, LazyColumn, nearest_outside
from generators.embs.calibration import difficulty, keep_distinct, outcome, outcome_caps
from generators.embs.collisions import Tested, Verdict, apply_verdicts, oracle_label
from generators.embs.prompts import instructions, render_document
from generators.embs.spec import QuerySpec
from generators.embs.world_bank import (
    BankEntries,
    Entry,
    EntryDocIds,
    doc_id_permutation,
    entity_domains,
    entity_langs,
    render_entry,
    stated_facts,
)
from generators.embs.world_queries import (
    Wording,
    WorldQuery,
    candidate_order,
    compose_rest,
    plan_atomization,
    surplus,
    twins_of,
)
from generators.world.growth import grow_world
from generators.world.model import World
from generators.world.schema import DOMAINS
from generators.world.solver import FactSolver
from generators.world.spec import LANGS, WorldSpec
from needlework.tokens import TokenCounter

COUNT_BATCH = 1024


CACHE_CHARS = 24_000_000
"""Characters of rendered documents a :class:`BankRenderer` keeps (about 50 MB of Python strings at most)."""


class BankRenderer:
    """Renders a bank document by doc id from the world when asked, keeping the most recently read ones.

    The bank's texts are never all held together: a 100M-token bank is several hundred MB of Python
    strings, while rendering a document again from the world costs about 0.5 ms. But the ladder reads
    each document once per corpus that holds it (the demo's 2,000-entity bank was rendered 41,500 times,
    two thirds of its build), so the renderer keeps the last :data:`CACHE_CHARS` characters of documents,
    least recently read out first: a bank that small is rendered once, a larger one is bounded.
    """

    def __init__(self, world: World, entries: Sequence[Entry], entry_of_doc: np.ndarray, langs: list[str],
                 normalize: Callable[[str], str]) -> None:
        self.world, self.entries, self.entry_of_doc, self.langs, self.normalize = world, entries, entry_of_doc, langs, normalize
        self._kept: OrderedDict[int, tuple[str, str]] = OrderedDict()
        self._kept_chars = 0

    def __len__(self) -> int:
        return len(self.entries)

    def document(self, doc: int) -> tuple[str, str]:
        """``(title, text)`` of a document, normalized as the tokenizer counts it."""
        kept = self._kept.get(doc)
        if kept is not None:
            self._kept.move_to_end(doc)
            return kept
        entry = self.entries[int(self.entry_of_doc[doc])]
        title, text = render_entry(self.world, entry, self.langs[entry.entity])
        kept = self._kept[doc] = (self.normalize(title), self.normalize(text))
        self._kept_chars += len(kept[0]) + len(kept[1])
        while self._kept_chars > CACHE_CHARS and len(self._kept) > 1:
            _, (old_title, old_text) = self._kept.popitem(last=False)
            self._kept_chars -= len(old_title) + len(old_text)
        return kept


@dataclass
class WorldBank:
    """The world's MemoryBank in doc-id order, and what the later stages need to know about it.

    ``titles`` and ``texts`` render on demand (:class:`LazyColumn` over :class:`BankRenderer`); ``n_tokens`` and
    ``domains`` are arrays by doc id.
    """

    world: World
    langs: list[str]
    entries: BankEntries
    entry_of_doc: np.ndarray
    doc_of_entry: Mapping[tuple[int, int], int]
    titles: Sequence[str]
    texts: Sequence[str]
    n_tokens: np.ndarray
    domains: np.ndarray

    def doc_lang(self, doc: int) -> str:
        """The language of a document."""
        return self.langs[self.entries[int(self.entry_of_doc[doc])].entity]

    def row(self, doc: int) -> dict[str, Any]:
        """The ``memorybank`` row of a document."""
        entry = self.entries[int(self.entry_of_doc[doc])]
        lang = self.langs[entry.entity]
        return {"doc_id": doc, "title": self.titles[doc], "text": self.texts[doc], "lang": lang, "source": "world",
                "domain": DOMAINS[int(self.domains[doc])], "n_tokens": int(self.n_tokens[doc]), "origin": entry.origin,
                "world_doc_id": 2 * entry.entity + LANGS.index(lang), "entity_id": entry.entity,
                "piece": entry.piece, "pieces": entry.pieces}


@dataclass
class WorldStages:
    """Counts of what Stages II and III did, for the manifest and the build report (world and real sources alike)."""

    candidates: Counter = field(default_factory=Counter)
    duplicates: int = 0
    conflicts: int = 0
    false_negatives: int = 0
    over_budget: int = 0
    held_back: int = 0
    refilled: int = 0
    cross_domain: list[str] = field(default_factory=list)
    kept: Counter = field(default_factory=Counter)
    short: dict[str, int] = field(default_factory=dict)

    def admit(self, refs: Sequence[int], verdicts: Sequence[Verdict]) -> Tested | None:
        """Stage III's outcome for one query: ``None`` (a conflict, counted) or its tested RefList (false negatives counted)."""
        tested = apply_verdicts(refs, verdicts)
        if tested.dropped:
            self.conflicts += 1
            return None
        self.false_negatives += len(tested.ref_list) - len(refs)
        return tested


@dataclass(frozen=True)
class GoldRoom:
    """What a domain's base corpus can hold of its queries' gold documents (the ladder's check, made while
    queries are chosen, so that a query whose documents would not fit gives way to the next candidate).

    Attributes:
        budget: The base scale in tokens (64K: 65,536).
        fixed_reserve: Tokens reserved whatever the queries: generation reserve and chat template.
    """

    budget: int
    fixed_reserve: int

    def fits(self, gold_tokens: int, longest_instruction: int) -> bool:
        """Whether gold documents of ``gold_tokens`` fit beside the longest instruction + query and the fixed reserve."""
        return gold_tokens + longest_instruction + self.fixed_reserve <= self.budget


@dataclass(frozen=True)
class Admitted:
    """A candidate that passed Stage III: the query, its tested RefList, its gold ranks over the whole bank under the
    build retriever, and its collision verdicts."""

    query: WorldQuery
    tested: Tested
    ranks: list[int]
    verdicts: list[Verdict]


class Admission:
    """Which tested candidates become the query set, offered in candidate order.

    Each domain takes its quota per track, of each calibration :func:`outcome` under the build retriever at most
    its :func:`outcome_caps` (calibration's selection; ``shares``: track -> (found, near), as
    :meth:`QuerySpec.outcome_shares` gives them); a candidate beyond its outcome's cap waits and fills the quota only when the other
    candidates have run out (:meth:`refill`). With ``room``, a query whose gold documents would overflow its domain's
    base corpus is passed over.
    """

    def __init__(self, quotas: Mapping[str, int], shares: Mapping[str, tuple[float, float]], room: GoldRoom | None,
                 tokens: TokenCounter, domains: Sequence[str]) -> None:
        self.quotas, self.room, self.tokens = quotas, room, tokens
        self.caps = {track: outcome_caps(quota, *shares[track]) for track, quota in quotas.items()}
        self.taken: Counter = Counter()
        self.outcomes: Counter = Counter()
        self.gold: dict[str, set[int]] = {d: set() for d in domains}
        self.longest: Counter = Counter()
        self.admitted: dict[str, Admitted] = {}
        self.waiting: list[Admitted] = []

    def wanted(self, query: WorldQuery) -> bool:
        """Whether ``query``'s domain still has room in its track's quota."""
        return self.taken[(query.domain, query.track)] < self.quotas[query.track]

    def offer(self, admitted: Admitted, n_tokens: np.ndarray, stages: WorldStages) -> None:
        """Take a tested candidate, or hold it back when its domain has its share of queries of its outcome."""
        query = admitted.query
        result = outcome(admitted.ranks)
        if self.outcomes[(query.domain, query.track, result)] >= self.caps[query.track][result]:
            self.waiting.append(admitted)
            stages.held_back += 1
            return
        self._take(admitted, n_tokens, stages)

    def refill(self, n_tokens: np.ndarray, stages: WorldStages) -> None:
        """Fill quotas the other candidates left short with held-back ones, in candidate order."""
        for admitted in self.waiting:
            if self.wanted(admitted.query) and self._take(admitted, n_tokens, stages):
                stages.refilled += 1

    def _take(self, admitted: Admitted, n_tokens: np.ndarray, stages: WorldStages) -> bool:
        query = admitted.query
        if self.room is not None:
            domain_gold = self.gold[query.domain] | set(admitted.tested.ref_list)
            instruction = max(self.longest[query.domain], instruction_tokens(query.query, self.tokens))
            if not self.room.fits(int(n_tokens[sorted(domain_gold)].sum()), instruction):
                stages.over_budget += 1
                return False
            self.gold[query.domain], self.longest[query.domain] = domain_gold, instruction
        self.taken[(query.domain, query.track)] += 1
        self.outcomes[(query.domain, query.track, outcome(admitted.ranks))] += 1
        self.admitted[query.key] = admitted
        return True

    def in_candidate_order(self, candidates: Sequence[WorldQuery]) -> list[Admitted]:
        """The admitted queries in the order of ``candidates``."""
        return [self.admitted[q.key] for q in candidates if q.key in self.admitted]


def query_row(qid: str, query: str, answer: str, answers: Sequence[str], tested: Tested, gold_ranks: Sequence[int], *,
              track: str, hops: int, domain: str, lang: str, source: str, entity_id: int | None = None,
              hop_ids: Sequence[str] = (), mention: str = "", wording: str = "") -> dict[str, Any]:
    """A ``queries`` row: the tested RefList, its hard negatives and the gold documents' calibration ranks (none, and
    no bucket, for a query that was not calibrated: an official release's train pairs). ``mention`` says how a world
    query refers to its entity (``name`` or ``description``) and ``wording`` whether its words are the articles'
    (``article``) or not (``reworded``); both empty for real sources."""
    return {
        "qid": qid, "query": query, "answer": answer, "answers": list(answers), "ref_list": list(tested.ref_list),
        "n_refs": len(tested.ref_list), "kind": "single" if len(tested.ref_list) == 1 else "multi", "track": track,
        "hops": hops, "domain": domain, "lang": lang, "source": source, "hard_negatives": list(tested.hard_negatives),
        "calib_ranks": list(gold_ranks), "calib_bucket": difficulty(gold_ranks) if gold_ranks else "", "entity_id": entity_id,
        "hop_ids": list(hop_ids), "mention": mention, "wording": wording,
    }


def instruction_tokens(query: str, tokens: TokenCounter) -> int:
    """The tokens of the longest instruction built around ``query`` (localization or QA): what a corpus budget keeps
    free for it beside the corpus (:func:`builders.embs.reserves`, :class:`GoldRoom`)."""
    return max(tokens.count_batch(list(instructions(query))).tolist())


def grow(entities: int, twin_fraction: float, seed: int) -> World:
    """The world of ``entities`` entities (both lexicons available; each entity is written in one language)."""
    return grow_world(WorldSpec(docs=entities, langs=LANGS, twin_fraction=twin_fraction, questions=0), seed)


def count_serialized(titles: Sequence[str], texts: Sequence[str], tokens: TokenCounter, progress: bool = False,
                     engine: Engine | None = None) -> np.ndarray:
    """Tokens of every bank document as serialized (``[DocID=n]`` header and blank line included), by doc id, in batches.

    Documents are rendered here (on demand, from the world) and counted on ``engine`` (default: this
    process); counts come back in doc-id order whatever the engine.
    """
    n_tokens = np.empty(len(texts), dtype=np.int64)
    bar = tqdm(total=len(texts), desc="count tokens", unit="doc", disable=not progress)
    serialized = (render_document(d, titles[d], texts[d]) for d in range(len(texts)))
    start = 0
    for counts in (engine or Engine()).count_tokens(batched(serialized, COUNT_BATCH), tokens):
        n_tokens[start:start + len(counts)] = counts
        start += len(counts)
        bar.update(len(counts))
    bar.close()
    return n_tokens


def build_bank(world: World, atomized: dict[int, list[tuple[int, int]]], langs: list[str], seed: int,
               tokens: TokenCounter, progress: bool, engine: Engine | None = None) -> WorldBank:
    """The bank in doc-id order (rendered on demand), each document's serialized tokens counted once (on ``engine``)."""
    entries = BankEntries(len(world.entities), atomized)
    doc_ids = doc_id_permutation(len(entries), seed)
    entry_of_doc = np.argsort(doc_ids)
    renderer = BankRenderer(world, entries, entry_of_doc, langs, tokens.normalize)
    titles = LazyColumn(len(entries), lambda d: renderer.document(d)[0])
    texts = LazyColumn(len(entries), lambda d: renderer.document(d)[1])
    n_tokens = count_serialized(titles, texts, tokens, progress, engine)
    domains = entity_domains(world)[entries.entities[entry_of_doc]]
    doc_of_entry = EntryDocIds(entries, doc_ids)
    return WorldBank(world, langs, entries, entry_of_doc, doc_of_entry, titles, texts, n_tokens, domains)


def compose_queries(world: World, spec: QuerySpec, retriever: str, bank_of: Any, seed: int, tokens: TokenCounter,
                    progress: bool, engine: Engine | None = None, room: GoldRoom | None = None
                    ) -> tuple[WorldBank, Bank, list[dict[str, Any]], list[dict[str, Any]], WorldStages]:
    """Stages I-III on the world: returns the bank, its retrievers, the query rows and the collision rows.

    ``bank_of(titles, texts)`` makes the :class:`Bank` (the builder passes its retriever settings); the bank's
    token counting runs on ``engine`` (default: this process). With ``room``, a query whose gold documents would
    overflow its domain's base corpus is passed over (counted in ``over_budget``) for the next candidate.
    """
    langs = entity_langs(world, seed)
    solver = FactSolver(world.facts())
    quotas = spec.quotas()
    orders = {d: candidate_order(world, d, seed) for d in spec.domains}
    wants = {track: surplus(quota, spec.surplus) for track, quota in quotas.items()}
    wording = Wording(spec.described_share, spec.reworded_share)
    atom_queries, atomized = plan_atomization(world, solver, langs, orders, wants, seed, wording)
    wbank = build_bank(world, atomized, langs, seed, tokens, progress, engine)
    bank: Bank = bank_of(wbank.titles, wbank.texts)

    def neighbours(entity: int) -> list[int]:
        near = bank.neighbours(retriever, wbank.doc_of_entry[(entity, 0)], spec.neighbours)
        return [wbank.entries[int(wbank.entry_of_doc[d])].entity for d in near.tolist()]

    candidates = atom_queries + compose_rest(world, solver, langs, orders, wants, seed, neighbours, set(atomized),
                                             wording)
    stages = WorldStages(candidates=Counter(q.track for q in candidates))
    texts = [q.query for q in candidates]
    keep = keep_distinct(bank.query_vectors(retriever, texts), spec.dedup_threshold)
    stages.duplicates = int((~keep).sum())
    survivors = [q for q, k in zip(candidates, keep) if k]
    twins = twins_of(world)
    admission = Admission(quotas, {t: spec.outcome_shares(t) for t in quotas}, room, tokens, spec.domains)
    for i, query_scores in bank.scored(retriever, [q.query for q in survivors], lambda i: admission.wanted(survivors[i])):
        query = survivors[i]
        refs = [wbank.doc_of_entry[r] for r in query.refs]
        verdicts = _verdicts(query, refs, query_scores, wbank, twins, spec.collision_k)
        tested = stages.admit(refs, verdicts)
        if tested is not None:
            ranks = ranks_of(query_scores, np.asarray(tested.ref_list, dtype=np.int64)).tolist()
            admission.offer(Admitted(query, tested, ranks, verdicts), wbank.n_tokens, stages)
    admission.refill(wbank.n_tokens, stages)
    queries, collisions = [], []
    for admitted in admission.in_candidate_order(survivors):
        query = admitted.query
        queries.append(query_row(f"embs/{query.key}", query.query, query.answer, [query.answer], admitted.tested,
                                 admitted.ranks, track=query.track, hops=len(query.hops), domain=query.domain,
                                 lang=query.lang, source="world", entity_id=query.path[0], hop_ids=query.hops,
                                 mention=query.mention, wording=query.wording))
        collisions += [{"qid": queries[-1]["qid"], **vars(v)} for v in admitted.verdicts]
    stages.kept = Counter(q["track"] for q in queries)
    stages.short = {f"{d}/{t}": quotas[t] - admission.taken[(d, t)] for d in spec.domains for t in quotas
                    if admission.taken[(d, t)] < quotas[t]}
    return wbank, bank, queries, collisions, stages


def _verdicts(query: WorldQuery, refs: Sequence[int], scores: np.ndarray, wbank: WorldBank, twins: dict[int, list[int]],
              k: int) -> list[Verdict]:
    """The oracle's labels for the top-k non-RefList documents and the path entities' twins."""
    retrieved = nearest_outside(scores, refs, k)
    twin_docs = [wbank.doc_of_entry[(t, 0)] for e in query.path for t in twins.get(e, ()) if (t, 0) in wbank.doc_of_entry]
    extra = [d for d in dict.fromkeys(twin_docs) if d not in retrieved and d not in refs]
    ranks = ranks_of(scores, np.asarray(retrieved + extra, dtype=np.int64)).tolist()
    verdicts = []
    for i, doc in enumerate(retrieved + extra):
        entry = wbank.entries[int(wbank.entry_of_doc[doc])]
        label = oracle_label(query.required, stated_facts(wbank.world, entry, wbank.langs[entry.entity]))
        verdicts.append(Verdict(doc, int(ranks[i]), float(scores[doc]), label, "oracle", "retrieved" if i < len(retrieved) else "twin"))
    return verdicts
