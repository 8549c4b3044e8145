"""Naming an entity by what it is rather than by its title: "the novelist who was born in Lolan" (OURS).

A question that names its entity exactly as the article's title is answered by any lexical retriever
from the title alone; the paper's EverMemBench-S queries, written by people and rewritten by a model,
rarely do that, and its BM25 finds the single gold document first for 66 % of them at 64K (Table 3).
A description names the entity by its kind and one or two of its facts, so a retriever must match the
facts, not the name.

A description is exact: the facts are of :data:`DESCRIBING_RELATIONS` (pointing to an entity, stated
in the subject's article only), and no other entity of the same kind (the noun the description uses,
which every article's lead states) has them all, as the
independent :class:`FactSolver` reads the facts (near-miss twins included). The facts are tried in
one seeded order, one fact before two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from generators.world.model import Fact, World
from generators.world.schema import DESCRIBING_RELATIONS
from generators.world.solver import FactSolver
from generators.world.tables import LEXICONS

MAX_CLAUSES = 2
"""Facts a description may use at most (one is tried first)."""


@dataclass(frozen=True)
class Description:
    """How a question refers to an entity: ``text`` in its language, and the ``facts`` that text relies on
    (none for the entity's name)."""

    text: str
    facts: tuple[Fact, ...] = ()

    @property
    def mention(self) -> str:
        """``name`` or ``description``: how the entity is referred to."""
        return "description" if self.facts else "name"


def named(world: World, entity: int, lang: str) -> Description:
    """The entity referred to by its name (its article's title)."""
    return Description(world.name(entity, lang))


def _sharing(world: World, solver: FactSolver, fact: Fact) -> set[int]:
    """The entities of ``fact``'s subject's kind that have a fact of its relation pointing to its object."""
    kind = world.entities[fact.subject].kind
    assert fact.object is not None
    return {s for s in solver.subjects(fact.relation, fact.object).tolist() if world.entities[s].kind == kind}


def describe(world: World, solver: FactSolver, entity: int, lang: str, rng: np.random.Generator,
             usable: Sequence[Fact], reworded: bool = False) -> Description | None:
    """A description of ``entity`` by its kind and at most :data:`MAX_CLAUSES` of the facts ``usable`` (those the
    caller allows, e.g. not the asked one), that fits no other entity of its kind; None when none is unique.
    ``reworded``: in the lexicon's :class:`~generators.world.lexicon.Rewording` (see :func:`render`)."""
    facts = [f for f in usable if f.subject == entity and f.object is not None and f.relation in DESCRIBING_RELATIONS]
    facts = [facts[i] for i in rng.permutation(len(facts)).tolist()]
    sharing: dict[Fact, set[int]] = {}  # filled as combinations ask: the first unique single fact usually ends it

    def shared(fact: Fact) -> set[int]:
        if fact not in sharing:
            sharing[fact] = _sharing(world, solver, fact)
        return sharing[fact]

    for size in range(1, MAX_CLAUSES + 1):
        for chosen in combinations(facts, size):
            if set.intersection(*(shared(f) for f in chosen)) == {entity}:
                return Description(render(world, entity, lang, chosen, reworded), chosen)
    return None


def render(world: World, entity: int, lang: str, facts: Sequence[Fact], reworded: bool = False) -> str:
    """The description of ``entity`` by ``facts`` in ``lang``: "the novelist who was born in Lolan and who
    studied at Tarvo University", "出生于洛兰、毕业于塔沃大学的小说家"; ``reworded``, in words the articles do not
    use for the kind or the facts: "the fiction writer whose hometown was Lolan", "老家在洛兰的写故事的作家"."""
    lex = LEXICONS[lang]
    kind = world.entities[entity].kind
    templates, noun = (lex.reworded.clauses, lex.reworded.kinds[kind]) if reworded else (lex.clauses, lex.kinds[kind][0])
    clauses = lex.clause_sep.join(templates[f.relation].format(o=world.name(f.object, lang)) for f in facts
                                  if f.object is not None)
    return lex.described.format(kind=noun, clauses=clauses)
