"""RULERv2's embedded default base tasks, generated from the synthetic world.

Offline, without MMLU or HotpotQA, multi-key and multi-value NIAH hide world multiple-choice
questions and multi-doc QA hides world articles. The world's facts are fictional, so a
multiple-choice question carries its own evidence: the stem states the fact each hop of a
composed (solver-checked) question follows, plus one true fact of the same relation about an
unrelated entity, in a shuffled order, and then asks the question. Wrong choices share the
answer's kind: names of other entities of the answer's type near it in the world (of its class,
place, organization, person or work, where a small world has too few of the type), or years
within 30 of the answer. The distractor fact's object or year is one of them when it fits, so
"the only choice the passage mentions" is no shortcut to the answer.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Sequence, TypeVar

from needlework.errors import SpecError
from generators.rulerv2.spec import BENCHMARK
from generators.rulerv2.pools import LETTERS, Document, DocQaPool, DocQuestion, Mcq, McqPool
from generators.seeding import rng_for
from generators.world.articles import fact_sentence, render_article
from generators.world.draws import Draws
from generators.world.lexicon_en import LEXICON as EN
from generators.world.model import Fact, World
from generators.world.questions import ComposedQuestion, render_question
from generators.world.schema import CLASS_OF_TYPE, KIND_BY_ID
from generators.world.spec import LAST_YEAR, WorldSpec, entity_of
from generators.world.tables import generate_world

T = TypeVar("T")
SOURCE = "world"
TASK = "world_mcq"
YEAR_SPREAD = 30
"""Wrong years lie within this many years of the answer (and not after the world's last year)."""
NEIGHBOURS = 6
"""Same-type entities on each side of the answer (by id) that wrong entity choices come from."""
DISTRACTOR_TRIES = 128
"""Draws spent looking for a distractor fact whose object or year can be a wrong choice."""

DEFAULT_WORLD = WorldSpec(docs=1_000, langs=("en",), questions=4_000, median_tokens=150, min_tokens=60, max_tokens=600)
"""The embedded default: 3,936 questions + 64 shots (about 380K Qwen2.5 tokens of questions, 97
each, so three 110K multi-key samples without a repeat) and 1,000 short English articles, sized
like HotpotQA's paragraphs rather than whole articles (median about 210 tokens, at most about 700;
247K tokens, two 110K multi-doc contexts), so a 4-hop question's gold documents stay small. It
grows in about 1.1 s."""


@dataclass(frozen=True)
class _Lookups:
    """What every question of one world looks up: entities by type and class, facts by relation.

    Twins are left out: their names are one syllable from their originals', too close for a
    wrong choice, and their facts copy their originals'.
    """

    of_type: dict[str, list[int]]
    of_class: dict[str, list[int]]
    by_relation: dict[str, list[Fact]]


def _lookups(world: World) -> _Lookups:
    of_type: dict[str, list[int]] = {}
    of_class: dict[str, list[int]] = {}
    by_relation: dict[str, list[Fact]] = {}
    for e in world.entities:
        if e.twin_of is not None:
            continue
        of_type.setdefault(e.type, []).append(e.id)
        of_class.setdefault(CLASS_OF_TYPE[e.type], []).append(e.id)
        for f in world.facts_of[e.id]:
            by_relation.setdefault(f.relation, []).append(f)
    return _Lookups(of_type, of_class, by_relation)


def _shuffled(items: Sequence[T], d: Draws) -> list[T]:
    rest, out = list(items), []
    while rest:
        out.append(rest.pop(d.below(len(rest))))
    return out


def _reaches(fact: Fact, answer_kind: str, target: int | str) -> bool:
    if answer_kind == "year":
        return fact.time is not None and fact.time[:4] == target
    return fact.object == target


def _hop_facts(world: World, q: ComposedQuestion) -> list[Fact]:
    """The fact each hop of ``q`` follows: from the hop's entity, to the next one or the answer year."""
    targets = (*q.path[1:], q.answer)
    return [
        next(f for f in world.facts_of[subject] if f.relation == hop.relation and _reaches(f, hop.answer, target))
        for hop, subject, target in zip(q.hops, q.path, targets)
    ]


def _mirrors_answer(world: World, q: ComposedQuestion, fact: Fact) -> bool:
    """Whether ``fact``'s object or year could be a wrong choice: same entity type, or a near year."""
    if isinstance(q.answer, str):
        return 1 <= abs(int(fact.time[:4]) - int(q.answer)) <= YEAR_SPREAD
    return fact.object is not None and world.entities[fact.object].type == world.entities[q.answer].type


def _distractor_fact(world: World, q: ComposedQuestion, lookups: _Lookups, d: Draws) -> Fact | None:
    """A true fact of the last hop's relation about an entity off the question's path, if one is drawn.

    Neither its subject nor its object is on the path or the answer, and its year differs from a
    year answer, so it cannot answer the question and is only there to be read past. One whose
    object or year can also be a wrong choice is preferred, so the answer is not the only
    choice the passage mentions.
    """
    last = q.hops[-1]
    off_limits = {*q.path, q.answer}
    candidates = lookups.by_relation.get(last.relation, [])
    fallback = None
    for _ in range(DISTRACTOR_TRIES if candidates else 0):
        f = d.choice(candidates)
        if f.subject in off_limits or f.object in off_limits:
            continue
        if last.answer == "year" and f.time[:4] == q.answer:
            continue
        if _mirrors_answer(world, q, f):
            return f
        fallback = f if fallback is None else fallback
    return fallback


def _year_tiers(answer: str, distractor: Fact | None) -> list[list[str]]:
    year = int(answer)
    years = [str(y) for y in range(year - YEAR_SPREAD, year + YEAR_SPREAD + 1) if y != year and y <= LAST_YEAR]
    mentioned = [distractor.time[:4]] if distractor is not None else []
    return [[y for y in mentioned if y in years], years]


def _near(pool: list[int], entity: int) -> list[int]:
    at = bisect_left(pool, entity)
    return [e for e in pool[max(0, at - NEIGHBOURS): at + NEIGHBOURS + 1] if e != entity]


def _entity_tiers(world: World, answer: int, distractor: Fact | None, lookups: _Lookups) -> list[list[str]]:
    """Wrong names by preference: the distractor's object, same-type neighbours, then (if too few) same-class ones."""
    kind = world.entities[answer].type
    mentioned: list[int] = []
    if distractor is not None and distractor.object is not None and world.entities[distractor.object].type == kind:
        mentioned = [distractor.object]
    same_type = _near(lookups.of_type[kind], answer)
    same_class: list[int] = []
    if len(same_type) < 3:
        others = [e for e in lookups.of_class[CLASS_OF_TYPE[kind]] if world.entities[e].type != kind]
        same_class = _near(others, answer)
    return [[world.name(e, "en") for e in tier] for tier in (mentioned, same_type, same_class)]


def _wrong_choices(answer: str, tiers: Sequence[Sequence[str]], d: Draws) -> list[str]:
    """Three wrong choices, distinct from each other and from ``answer`` ignoring case.

    Each tier is shuffled and used up before the next one is touched.
    """
    taken, wrong = {answer.casefold()}, []
    for choice in (c for tier in tiers for c in _shuffled(tier, d)):
        if choice.casefold() not in taken and len(wrong) < 3:
            taken.add(choice.casefold())
            wrong.append(choice)
    if len(wrong) < 3:
        raise SpecError(
            f"only {len(wrong)} wrong choices for the answer {answer!r}; the world is too small for 4 choices"
        )
    return wrong


def _mcq(world: World, q: ComposedQuestion, lookups: _Lookups, seed: int) -> Mcq:
    d = Draws(rng_for(seed, BENCHMARK, TASK, q.index))
    entity = world.entities
    sentences = [fact_sentence(world, entity[f.subject], f, EN, d) for f in _hop_facts(world, q)]
    distractor = _distractor_fact(world, q, lookups, d)
    if distractor is not None:
        sentences.append(fact_sentence(world, entity[distractor.subject], distractor, EN, d))
    stem = " ".join([*_shuffled(sentences, d), render_question(world, q, EN)["question"]])
    if isinstance(q.answer, str):
        answer, tiers = q.answer, _year_tiers(q.answer, distractor)
    else:
        answer, tiers = world.name(q.answer, "en"), _entity_tiers(world, q.answer, distractor, lookups)
    wrong = _shuffled(_wrong_choices(answer, tiers, d), d)
    at = d.below(len(LETTERS))
    choices = (*wrong[:at], answer, *wrong[at:])
    domain = KIND_BY_ID[entity[q.start].kind].domain
    return Mcq(f"world/mcq/{q.index:06d}", stem, choices, LETTERS[at], domain)


def world_mcq_pool(world: World, questions: Sequence[ComposedQuestion], *, seed: int, shots: int = 64) -> McqPool:
    """Multiple-choice questions (English) from the world's composed questions, for multi-key/value NIAH.

    The world's facts are fictional, so each stem first states the facts the question's hops
    follow (and one distractor fact), shuffled, then asks the question; see the module docstring
    for the wrong choices. Every random choice of question ``i`` draws from
    ``rng_for(seed, "rulerv2", "world_mcq", i)``, so a question does not depend on the others.

    Args:
        world: The world the questions were composed over.
        questions: Its composed questions (``generate_world``'s second value).
        seed: The build seed.
        shots: How many of the last questions become few-shot demonstrations instead of needles.

    Returns:
        A pool named ``world``; qids ``world/mcq/{index:06d}``, subject the start entity's domain.

    Raises:
        SpecError: ``shots`` leaves no question, or the world has too few entities of an
            answer's type for three wrong choices.
    """
    n = len(questions)
    if isinstance(shots, bool) or not isinstance(shots, int) or not 0 <= shots < n:
        raise SpecError(f"shots must be an integer in 0..{n - 1} (fewer than the {n} questions), got {shots!r}")
    lookups = _lookups(world)
    mcqs = tuple(_mcq(world, q, lookups, seed) for q in questions)
    cut = len(mcqs) - shots
    return McqPool(SOURCE, mcqs[:cut], mcqs[cut:])


def world_docqa_pool(world: World, questions: Sequence[ComposedQuestion]) -> DocQaPool:
    """English world articles and the composed questions over them, for multi-doc QA.

    Document ``i`` is entity ``i``'s English article (twins included, as ordinary documents), in
    entity order, so a gold index is the entity id.
    A question's gold documents are the articles of the entities its hops start from, in hop
    order; its distractors are the twin articles of those entities (near-misses that differ by one
    syllable of the name and at most one year or city), the hard negatives to place first.
    """
    documents = tuple(
        Document(article.title, article.text)
        for article in (render_article(world, e, EN) for e in range(len(world.entities)))
    )
    twin_of_original = {t.original: t.twin for t in world.twins}
    rows = (render_question(world, q, EN) for q in questions)
    return DocQaPool(SOURCE, documents, tuple(_doc_question(row, twin_of_original) for row in rows))


def _doc_question(row: dict, twin_of_original: dict[int, int]) -> DocQuestion:
    gold = tuple(entity_of(doc)[0] for doc in row["support"])
    twins = sorted({twin_of_original[e] for e in gold if e in twin_of_original} - set(gold))
    return DocQuestion(row["qid"], row["question"], tuple(row["answers"]), gold, tuple(twins))


def world_pools(spec: WorldSpec, seed: int, *, shots: int = 64) -> tuple[McqPool, DocQaPool]:
    """Grow the world of ``spec`` and ``seed`` and build both RULERv2 pools from it (the offline default).

    Raises:
        SpecError: ``spec.langs`` lacks ``en`` (the pools are English), ``shots`` is not below
            ``spec.questions``, or the world is too small for its questions.
    """
    if "en" not in spec.langs:
        raise SpecError(f"the RULERv2 world pools are English: langs must include en, got {', '.join(spec.langs)}")
    world, questions, _ = generate_world(spec, seed)
    return world_mcq_pool(world, questions, seed=seed, shots=shots), world_docqa_pool(world, questions)
