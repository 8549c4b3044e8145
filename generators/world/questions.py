"""Multi-hop questions composed along relation paths, MuSiQue-style, in every language.

A question is a start entity and a chain of hops (``born_in>city``, ``located_in>country``, ...);
its text nests each hop's description inside the next hop's question: "In which country is the
birthplace of the founder of X located?". The independent :class:`FactSolver` must find exactly
one answer for the chain, or the draw is rejected and another is tried. The hop counts follow
the spec's mix exactly (largest remainders), in a seeded order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from needlework.errors import SpecError
from generators.seeding import rng_for
from generators.world.draws import Draws
from generators.world.lexicon import Lexicon
from generators.world.model import World
from generators.world.schema import HOPS, Hop
from generators.world.solver import FactSolver, Unsolvable
from generators.world.spec import BENCHMARK, doc_id

MAX_ATTEMPTS = 2_000
_HOPS_OF_TYPE: dict[str, tuple[Hop, ...]] = {}
for _hop in HOPS:
    for _t in _hop.subjects:
        _HOPS_OF_TYPE[_t] = (*_HOPS_OF_TYPE.get(_t, ()), _hop)


@dataclass(frozen=True)
class ComposedQuestion:
    """A question before rendering: where it starts, the hops, the entities walked, the answer."""

    index: int
    start: int
    hops: tuple[Hop, ...]
    path: tuple[int, ...]
    answer: int | str


@dataclass
class QuestionStats:
    """How composition went: draws rejected because the solver found no or several answers."""

    ambiguous_rejected: int = 0
    dead_ends: int = 0


def hop_counts(n: int, mix: tuple[float, ...]) -> list[int]:
    """``n`` split over 1..4 hops in the proportions ``mix`` (largest remainders, ties to fewer hops)."""
    raw = [n * p for p in mix]
    counts = [int(r) for r in raw]
    order = sorted(range(len(mix)), key=lambda k: (-(raw[k] - counts[k]), k))
    for k in order[: n - sum(counts)]:
        counts[k] += 1
    return counts


def _walk(world: World, hops_wanted: int, d: Draws) -> tuple[int, tuple[Hop, ...]] | None:
    """A random start and chain of hops of the wanted length, or None at a dead end."""
    entities = world.entities
    start = d.below(len(entities))
    if entities[start].twin_of is not None:
        return None
    current, visited, chain = start, {start}, []
    for step in range(hops_wanted):
        last = step == hops_wanted - 1
        relations = {f.relation: f for f in world.facts_of[current]}
        options = [
            h for h in _HOPS_OF_TYPE.get(entities[current].type, ())
            if h.relation in relations and (h.answer == "entity" or last)
        ]
        if not options:
            return None
        hop = d.choice(options)
        chain.append(hop)
        if hop.answer == "year":
            break
        nxt = relations[hop.relation].object
        if nxt in visited:
            return None
        visited.add(nxt)
        current = nxt
    return start, tuple(chain)


def compose_questions(world: World, stats: QuestionStats | None = None) -> Iterator[ComposedQuestion]:
    """The world's questions, each checked by the independent solver over the world's facts.

    Raises:
        SpecError: The world is too small to compose a question with the wanted number of hops.
    """
    spec = world.spec
    stats = stats if stats is not None else QuestionStats()
    solver = FactSolver(world.facts())
    wanted = [h + 1 for h, c in enumerate(hop_counts(spec.questions, spec.hop_mix)) for _ in range(c)]
    order = rng_for(world.seed, BENCHMARK, "questions", "order").permutation(len(wanted))
    seen: set[tuple[int, tuple[str, ...]]] = set()
    for index in range(len(wanted)):
        hops = wanted[int(order[index])]
        d = Draws.keyed(world.seed, "question", index)
        for _ in range(MAX_ATTEMPTS):
            walked = _walk(world, hops, d)
            if walked is None or len(walked[1]) != hops:
                stats.dead_ends += 1
                continue
            start, chain = walked
            key = (start, tuple(h.id for h in chain))
            if key in seen:
                continue
            try:
                solution = solver.solve(start, [h.relation for h in chain], chain[-1].answer)
            except Unsolvable:
                stats.ambiguous_rejected += 1
                continue
            seen.add(key)
            yield ComposedQuestion(index, start, chain, solution.path, solution.answer)
            break
        else:
            raise SpecError(
                f"could not compose question {index} with {hops} hops in {MAX_ATTEMPTS} draws; "
                f"the world ({spec.docs} docs) is too small for {spec.questions} questions"
            )


def _answer_text(world: World, answer: int | str, lang: str) -> str:
    return answer if isinstance(answer, str) else world.name(answer, lang)


def render_question(world: World, q: ComposedQuestion, lex: Lexicon) -> dict:
    """The ``qa`` row of a composed question in the lexicon's language."""
    lang = lex.lang
    phrase = world.name(q.start, lang)
    for hop in q.hops[:-1]:
        phrase = lex.hops[hop.id][0].format(x=phrase)
    question = lex.hops[q.hops[-1].id][1].format(x=phrase)
    steps = []
    for hop, subject in zip(q.hops, q.path):
        nxt = q.path[len(steps) + 1] if len(steps) + 1 < len(q.path) else q.answer
        steps.append(
            {
                "question": lex.hops[hop.id][1].format(x=world.name(subject, lang)),
                "answer": _answer_text(world, nxt, lang),
                "relation": hop.relation,
                "support": doc_id(subject, lang),
            }
        )
    return {
        "qid": f"world/{q.index:06d}/{lang}",
        "question": question,
        "answers": [_answer_text(world, q.answer, lang)],
        "support": [doc_id(e, lang) for e in q.path],
        "hops": len(q.hops),
        "source": "world",
        "lang": lang,
        "start_entity": q.start,
        "path": [h.relation for h in q.hops],
        "hop_ids": [h.id for h in q.hops],
        "answer_kind": q.hops[-1].answer,
        "answer_entity": q.answer if isinstance(q.answer, int) else None,
        "decomposition": steps,
    }

