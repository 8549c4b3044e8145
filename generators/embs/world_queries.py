"""EMB-S queries on the synthetic world: single-source, Track 1 (rewriting) and Track 2 (atomization).

Every query is exact: the independent :class:`FactSolver` confirms one answer for its hop chain. Every
query needs its whole RefList and nothing else (:func:`needs_every_reference`): each fact it asks is
stated only by RefList documents (a marriage is stated in both spouses' articles, so "the spouse of X"
has two), no one document states all of them, and the answer is not named in the question ("the
spouse of the spouse of X" is X).

- **Single-source** (|RefList| = 1): a 1-hop question about an entity; RefList = its article.
- **Track 1, retrieval-guided rewriting** (§3.3, A.1.2): a 2-hop question from an entity ``s``
  through ``m`` whose article is among the nearest neighbours of ``s``'s article under the build
  retriever, so the added document is near and supplies the complementary constraint; RefList =
  both articles (``m`` is written in ``s``'s language).
- **Track 2, atomization**: ``s``'s article is cut at section boundaries into 2-3 pieces that replace
  it in the bank, and a conjunction question asks two facts stated in different pieces, so no single
  piece suffices (checked) while the two together do; RefList = those two pieces.

How a query is worded (:class:`Wording`, each share drawn per start entity):

- a share refers to the start entity by a description instead of its name
  (:mod:`generators.world.descriptions`: "Who was the spouse of the novelist who was born in Lolan?"); the
  description's facts join the query's required facts, so every check above covers them. An entity with no
  unique description keeps its name;
- a share is *reworded*: its hops, clauses and kind noun come from the lexicon's
  :class:`~generators.world.lexicon.Rewording`, which uses none of the articles' words for them ("Who was the
  husband or wife of the fiction writer whose hometown was Lolan?"), so a lexical retriever is left with the names.
  Only the words change: the hop chain, the facts and every check are the same.

Candidates are drawn per domain from one seeded order of the domain's entities, a surplus beyond
the quota so de-duplication and collision testing can drop some (the builder keeps the first
``quota`` survivors of each domain and track in candidate order).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from generators.embs.collisions import with_mirrors
from generators.embs.spec import BENCHMARK
from generators.embs.world_bank import article, piece_ranges
from generators.seeding import rng_for
from generators.world.descriptions import Description, describe, named
from generators.world.model import Fact, World
from generators.world.schema import HOPS, KIND_BY_ID, Hop
from generators.world.solver import FactSolver, Unsolvable
from generators.world.tables import LEXICONS

CONJUNCTION: dict[str, str] = {"en": "Answer both questions. {first} {second}", "zh": "请回答两个问题：{first}{second}"}
"""Track 2's question: two hop questions about one entity (new templates, OURS)."""
ANSWER_JOINER: dict[str, str] = {"en": "; ", "zh": "；"}
HOPS_OF_TYPE: dict[str, tuple[Hop, ...]] = {
    t: tuple(h for h in HOPS if t in h.subjects) for t in {t for h in HOPS for t in h.subjects}
}


@dataclass(frozen=True)
class Wording:
    """How queries are worded (OURS; issue 39's levers for the paper's retrieval difficulty).

    Attributes:
        described_share: Share of start entities referred to by a unique description instead of their name.
        reworded_share: Share of queries worded in the lexicon's :class:`~generators.world.lexicon.Rewording`.
    """

    described_share: float = 0.0
    reworded_share: float = 0.0

    def reworded(self, seed: int, entity: int) -> bool:
        """Whether the query from ``entity`` is reworded (drawn per start entity and seed)."""
        return bool(rng_for(seed, BENCHMARK, "reword", entity).random() < self.reworded_share)


RefKey = tuple[int, int]
"""A bank entry as ``(entity, piece)``; piece 0 is the whole article."""
Neighbours = Callable[[int], Sequence[int]]
"""Entity -> the entities whose documents are nearest its article under the build retriever."""


@dataclass(frozen=True)
class WorldQuery:
    """A composed query before collision testing.

    Attributes:
        key: Stable id: ``{domain}/{track}/e{start}``.
        query, answer, lang, domain: The question, its answer text, language and domain (the RefDoc's).
        track: ``none`` (single-source), ``rewrite`` (Track 1) or ``atomize`` (Track 2).
        hops: Hop ids the question reads, in order.
        path: Entities whose documents the question needs (start first).
        required: The facts the answer is read from (one per hop).
        refs: The RefList as bank entries.
        mention: How the question refers to the start entity: ``name`` or ``description``.
        wording: ``article`` (the articles' words) or ``reworded`` (:class:`Wording`).
    """

    key: str
    query: str
    answer: str
    lang: str
    domain: str
    track: str
    hops: tuple[str, ...]
    path: tuple[int, ...]
    required: tuple[Fact, ...]
    refs: tuple[RefKey, ...]
    mention: str = "name"
    wording: str = "article"


def candidate_order(world: World, domain: str, seed: int) -> array:
    """The domain's non-twin entities in one seeded order: where every track draws its candidates.

    An int32 array (iterating gives Python ints): these orders cover the whole world.
    """
    ids = np.fromiter((e.id for e in world.entities if e.twin_of is None and KIND_BY_ID[e.kind].domain == domain), dtype=np.int32)
    order = rng_for(seed, BENCHMARK, "candidates", domain).permutation(len(ids))
    return array("i", ids[order].tobytes())


def surplus(quota: int, factor: float) -> int:
    """Candidates to draw for a quota: ``factor`` per slot and one more (:attr:`QuerySpec.surplus`)."""
    return math.ceil(quota * factor) + 1 if quota else 0


def _answer_text(world: World, answer: int | str, lang: str) -> str:
    return answer if isinstance(answer, str) else world.name(answer, lang)


def stating_entities(fact: Fact) -> frozenset[int]:
    """The entities whose articles state ``fact``: the subjects of the fact read either way (:func:`with_mirrors`:
    its subject, and its object too for a symmetric relation)."""
    return frozenset(stated.subject for stated in with_mirrors([fact]))


def needs_every_reference(required: Sequence[Fact], refs: Collection[int]) -> bool:
    """Whether the articles of ``refs`` (the RefList's entities) are exactly the evidence ``required`` needs:
    every required fact is stated only by them (else another document answers, and Stage III would find a
    false negative), and, for two or more entities, no one entity's article states every required fact
    (A.1.2: a rewritten query needs the RefDoc and the added document both)."""
    stating = [stating_entities(fact) for fact in required]
    if any(not entities <= set(refs) for entities in stating):
        return False
    return len(set(refs)) == 1 or not frozenset.intersection(*stating)


def answer_in_question(question: str, answer: str, answer_id: int | str, path: Collection[int]) -> bool:
    """Whether the question gives its answer away: the answer entity is on its path ("the spouse of the spouse of
    X" is X; "the country of the capital of X" is X) or the answer's text is in the question."""
    return (isinstance(answer_id, int) and answer_id in path) or answer.casefold() in question.casefold()


def exact_evidence(world: World, lang: str, question: str, answer: int | str, required: Sequence[Fact],
                   refs: Collection[int]) -> bool:
    """Whether a composed question may be kept: its RefList entities ``refs`` are exactly its evidence
    (:func:`needs_every_reference`) and it does not give its answer away (:func:`answer_in_question`, ``refs``
    being its path)."""
    return needs_every_reference(required, refs) and not answer_in_question(
        question, _answer_text(world, answer, lang), answer, refs)


def required_fact(world: World, subject: int, hop: Hop, answer: int | str) -> Fact:
    """The fact of ``subject`` that answers ``hop`` with ``answer`` (an entity id, or a year)."""
    for fact in world.facts_of[subject]:
        if fact.relation != hop.relation:
            continue
        if (hop.answer == "year" and fact.time and fact.time[:4] == answer) or (hop.answer == "entity" and fact.object == answer):
            return fact
    raise Unsolvable(f"entity {subject} states no {hop.relation} fact answering {answer!r}")


def _one_hop(world: World, solver: FactSolver, entity: int) -> list[tuple[Hop, int | str]]:
    """Every 1-hop question about ``entity`` with exactly one answer, as (hop, answer)."""
    found = []
    relations = {f.relation for f in world.facts_of[entity]}
    for hop in HOPS_OF_TYPE.get(world.entities[entity].type, ()):
        if hop.relation not in relations:
            continue
        try:
            found.append((hop, solver.solve(entity, [hop.relation], hop.answer).answer))
        except Unsolvable:
            continue
    return found


def reference(world: World, solver: FactSolver, entity: int, lang: str, seed: int, share: float,
              usable: Sequence[Fact], reworded: bool = False) -> Description:
    """How a query refers to ``entity``: with probability ``share`` (drawn per entity and seed) a unique
    description by facts among ``usable`` (``reworded``: in the lexicon's rewording), else (or when it has none)
    its name."""
    rng = rng_for(seed, BENCHMARK, "describe", entity)
    if rng.random() >= share:
        return named(world, entity, lang)
    return describe(world, solver, entity, lang, rng, usable, reworded) or named(world, entity, lang)


def _usable(world: World, entity: int, asked: Collection[str], named_entities: Collection[int | str]) -> list[Fact]:
    """``entity``'s facts a description of it may use: none of a relation the question asks of it, none pointing to an
    entity the question reaches (its path or answer)."""
    return [f for f in world.facts_of[entity] if f.relation not in asked and f.object not in named_entities]


def _referred(world: World, lang: str, ref: Description, compose: Callable[..., str], answer: int | str,
              required: tuple[Fact, ...], refs: Collection[int]) -> tuple[str, tuple[Fact, ...], str] | None:
    """``(question, required facts, mention)`` with the start entity referred to by ``ref``, or None when that
    question would not be exact (:func:`exact_evidence`, the description's facts required too)."""
    text, needed = compose(x=ref.text), (*required, *ref.facts)
    return (text, needed, ref.mention) if exact_evidence(world, lang, text, answer, needed, refs) else None


def _refer_or_name(world: World, solver: FactSolver, entity: int, lang: str, seed: int, described_share: float,
                   reworded: bool, usable: Sequence[Fact], compose: Callable[..., str], answer: int | str,
                   required: tuple[Fact, ...], refs: Collection[int]) -> tuple[str, tuple[Fact, ...], str] | None:
    """The question with its start entity described (:func:`reference`, ``reworded`` or not) when that is exact, else
    named."""
    ref = reference(world, solver, entity, lang, seed, described_share, usable, reworded)
    described = _referred(world, lang, ref, compose, answer, required, refs) if ref.facts else None
    return described or _referred(world, lang, named(world, entity, lang), compose, answer, required, refs)


def hop_phrases(lang: str, reworded: bool) -> Mapping[str, tuple[str, str]]:
    """The hop (description, question) templates of ``lang``: the articles' words, or the lexicon's rewording."""
    lex = LEXICONS[lang]
    return lex.reworded.hops if reworded else lex.hops


def _wording(reworded: bool) -> str:
    return "reworded" if reworded else "article"


def single_query(world: World, solver: FactSolver, entity: int, lang: str, domain: str, seed: int,
                 wording: Wording = Wording()) -> WorldQuery | None:
    """A single-source 1-hop question about ``entity``, or None if it has no uniquely answered hop."""
    reworded = wording.reworded(seed, entity)
    hops = hop_phrases(lang, reworded)
    options = []
    for hop, answer in _one_hop(world, solver, entity):
        text, fact = hops[hop.id][1].format(x=world.name(entity, lang)), required_fact(world, entity, hop, answer)
        if exact_evidence(world, lang, text, answer, (fact,), (entity,)):
            options.append((hop, answer, fact))
    if not options:
        return None
    hop, answer, fact = options[int(rng_for(seed, BENCHMARK, "single", entity).integers(len(options)))]
    referred = _refer_or_name(world, solver, entity, lang, seed, wording.described_share, reworded,
                              _usable(world, entity, {hop.relation}, {answer}), hops[hop.id][1].format, answer,
                              (fact,), (entity,))
    assert referred is not None  # the named question was checked above
    text, required, mention = referred
    return WorldQuery(f"{domain}/none/e{entity}", text, _answer_text(world, answer, lang), lang, domain, "none",
                      (hop.id,), (entity,), required, ((entity, 0),), mention, _wording(reworded))


def rewrite_query(
    world: World, solver: FactSolver, entity: int, langs: Sequence[str], domain: str, seed: int,
    neighbours: Neighbours, excluded: set[int], wording: Wording = Wording(),
) -> WorldQuery | None:
    """A Track 1 two-hop question through a near, same-language, non-atomized neighbour, or None."""
    lang = langs[entity]
    reworded = wording.reworded(seed, entity)
    hops = hop_phrases(lang, reworded)
    near: set[int] | None = None
    options = []
    for hop1, mid in _one_hop(world, solver, entity):
        if hop1.answer != "entity" or not isinstance(mid, int) or mid in excluded or mid == entity:
            continue
        if world.entities[mid].twin_of is not None or langs[mid] != lang:
            continue
        if near is None:
            near = set(neighbours(entity))
        if mid not in near:
            continue
        for hop2, answer in _one_hop(world, solver, mid):
            required = (required_fact(world, entity, hop1, mid), required_fact(world, mid, hop2, answer))
            text = _two_hops(hops, hop1, hop2, world.name(entity, lang))
            if exact_evidence(world, lang, text, answer, required, (entity, mid)):
                options.append((hop1, mid, hop2, answer, required))
    if not options:
        return None
    hop1, mid, hop2, answer, required = options[int(rng_for(seed, BENCHMARK, "rewrite", entity).integers(len(options)))]
    referred = _refer_or_name(world, solver, entity, lang, seed, wording.described_share, reworded,
                              _usable(world, entity, {hop1.relation}, {mid, answer}),
                              lambda x: _two_hops(hops, hop1, hop2, x), answer, required, (entity, mid))
    assert referred is not None  # the named question was checked above
    text, required, mention = referred
    return WorldQuery(
        f"{domain}/rewrite/e{entity}", text, _answer_text(world, answer, lang), lang, domain, "rewrite",
        (hop1.id, hop2.id), (entity, mid), required, ((entity, 0), (mid, 0)), mention, _wording(reworded),
    )


def _two_hops(hops: Mapping[str, tuple[str, str]], hop1: Hop, hop2: Hop, x: str) -> str:
    """The question of ``hop2`` about the answer of ``hop1`` from the entity referred to as ``x``."""
    return hops[hop2.id][1].format(x=hops[hop1.id][0].format(x=x))


def atomize_query(world: World, solver: FactSolver, entity: int, lang: str, domain: str, seed: int,
                  wording: Wording = Wording()) -> tuple[WorldQuery, list[tuple[int, int]]] | None:
    """A Track 2 conjunction question and the piece ranges of the atomized article, or None.

    The two facts asked for sit in different pieces; each piece is checked to state at most one
    of them and the two pieces together both. A description of the entity uses only facts those two
    pieces state, so no third piece is needed.
    """
    art = article(world, entity, lang)
    facts = world.facts_of[entity]
    located = []
    reworded = wording.reworded(seed, entity)
    hops = hop_phrases(lang, reworded)
    name = world.name(entity, lang)
    for hop, answer in _one_hop(world, solver, entity):
        fact = required_fact(world, entity, hop, answer)
        if not exact_evidence(world, lang, hops[hop.id][1].format(x=name), answer, (fact,), (entity,)):
            continue
        sentence = art.fact_sentences[facts.index(fact)]
        part = next((i for i, p in enumerate(art.parts) if sentence in p), None)
        if part is not None and part > 0:
            located.append((hop, answer, fact, part))
    pairs = [(a, b) for a in located for b in located if a[3] < b[3]]
    if not pairs:
        return None
    rng = rng_for(seed, BENCHMARK, "atomize", entity)
    first, second = pairs[int(rng.integers(len(pairs)))]
    cuts = [second[3]]
    others = [i for i in range(1, len(art.parts)) if i != second[3]]
    if others and rng.random() < 0.5:
        cuts.append(others[int(rng.integers(len(others)))])
    ranges = piece_ranges(len(art.parts), cuts)
    piece_of = [next(k for k, (a, b) in enumerate(ranges) if a <= part < b) for part in (first[3], second[3])]
    sentences = [art.fact_sentences[facts.index(f[2])] for f in (first, second)]
    texts = ["\n\n".join(art.parts[a:b]) for a, b in ranges]
    if any(all(s in t for s in sentences) for t in texts) or piece_of[0] == piece_of[1]:
        return None

    def conjunction(x: str) -> str:
        return CONJUNCTION[lang].format(first=hops[first[0].id][1].format(x=x), second=hops[second[0].id][1].format(x=x))

    answer = ANSWER_JOINER[lang].join(_answer_text(world, f[1], lang) for f in (first, second))
    allowed = set(_usable(world, entity, {first[0].relation, second[0].relation}, {first[1], second[1]}))
    usable = [f for f, sentence in zip(facts, art.fact_sentences)
              if f in allowed and any(sentence in texts[k] for k in piece_of)]  # stated by the RefList pieces
    referred = _refer_or_name(world, solver, entity, lang, seed, wording.described_share, reworded, usable, conjunction,
                              answer, (first[2], second[2]), (entity,))
    if referred is None:
        return None
    text, required, mention = referred
    query = WorldQuery(
        f"{domain}/atomize/e{entity}", text, answer, lang, domain, "atomize", (first[0].id, second[0].id), (entity,),
        required, tuple((entity, k + 1) for k in piece_of), mention, _wording(reworded),
    )
    return query, ranges


def plan_atomization(
    world: World, solver: FactSolver, langs: Sequence[str], orders: Mapping[str, Sequence[int]], wants: Mapping[str, int], seed: int,
    wording: Wording = Wording(),
) -> tuple[list[WorldQuery], dict[int, list[tuple[int, int]]]]:
    """Track 2 candidates of every domain (``wants["atomize"]`` each) and the piece ranges of each atomized entity
    (before the bank exists)."""
    queries: list[WorldQuery] = []
    atomized: dict[int, list[tuple[int, int]]] = {}
    for domain, order in orders.items():
        want = wants["atomize"]
        for entity in order:
            if want == 0:
                break
            found = atomize_query(world, solver, entity, langs[entity], domain, seed, wording)
            if found is not None:
                queries.append(found[0])
                atomized[entity] = found[1]
                want -= 1
    return queries, atomized


def compose_rest(
    world: World, solver: FactSolver, langs: Sequence[str], orders: Mapping[str, Sequence[int]], wants: Mapping[str, int],
    seed: int, neighbours: Neighbours, atomized: set[int], wording: Wording = Wording(),
) -> list[WorldQuery]:
    """Track 1 and single-source candidates of every domain (``wants`` of each track), one query per start entity, none
    touching an atomized one."""
    queries: list[WorldQuery] = []
    for domain, order in orders.items():
        want = {"rewrite": wants["rewrite"], "none": wants["none"]}
        for entity in order:
            if not any(want.values()):
                break
            if entity in atomized:
                continue
            query = None
            if want["rewrite"]:
                query = rewrite_query(world, solver, entity, langs, domain, seed, neighbours, atomized, wording)
            if query is None and want["none"]:
                query = single_query(world, solver, entity, langs[entity], domain, seed, wording)
            if query is not None:
                queries.append(query)
                want[query.track] -= 1
    return queries


def twins_of(world: World) -> dict[int, list[int]]:
    """Original entity -> its twins."""
    found: dict[int, list[int]] = {}
    for twin in world.twins:
        found.setdefault(twin.original, []).append(twin.twin)
    return found

