"""Descriptions: an entity named by its kind and facts ("the novelist who was born in Lolan"), exact and unique.

Uniqueness is re-checked here from the world's facts directly (not through the solver the descriptions use).
"""

from __future__ import annotations

import numpy as np
import pytest

from generators.seeding import rng_for
from generators.world.descriptions import Description, describe, named, render
from generators.world.growth import grow_world
from generators.world.model import Fact, World
from generators.world.schema import DESCRIBING_RELATIONS, SYMMETRIC_RELATIONS
from generators.world.solver import FactSolver
from generators.world.spec import WorldSpec
from generators.world.twins import NOT_COPIED


@pytest.fixture(scope="module")
def world() -> World:
    return grow_world(WorldSpec(docs=400, langs=("en", "zh"), twin_fraction=0.2, questions=0), seed=5)


def fitting(world: World, facts: tuple[Fact, ...], kind: str) -> list[int]:
    """Entities of ``kind`` that have every fact's (relation, object): read from ``facts_of`` entity by entity."""
    return [e.id for e in world.entities if e.kind == kind
            and all(any(g.relation == f.relation and g.object == f.object for g in world.facts_of[e.id]) for f in facts)]


def test_every_description_fits_its_entity_alone(world: World) -> None:
    solver = FactSolver(world.facts())
    made = {1: 0, 2: 0}
    none = 0
    for entity in range(len(world.entities)):
        found = describe(world, solver, entity, "en", rng_for(0, "test", "describe", entity), world.facts_of[entity])
        if found is None:
            none += 1
            continue
        made[len(found.facts)] += 1
        assert found.mention == "description"
        assert all(f.subject == entity and f.relation in DESCRIBING_RELATIONS for f in found.facts)
        assert not {f.relation for f in found.facts} & SYMMETRIC_RELATIONS
        assert fitting(world, found.facts, world.entities[entity].kind) == [entity], found.text
    assert made[1] >= 100 and made[2] >= 10 and none >= 50, (made, none)


def test_a_name_twin_is_told_apart_only_by_a_fact_it_lacks(world: World) -> None:
    """A twin that differs only by name copies its original's facts but those it cannot share (a country's capital,
    a marriage): a description of the original must use one of those, or there is none."""
    solver = FactSolver(world.facts())
    twins = [t for t in world.twins if t.constraint == "name"]
    assert len(twins) >= 5
    for twin in twins:
        found = describe(world, solver, twin.original, "en", np.random.default_rng(0), world.facts_of[twin.original])
        assert found is None or {f.relation for f in found.facts} & NOT_COPIED, found


def test_only_the_facts_offered_are_used(world: World) -> None:
    """The caller decides what a description may use (never the asked fact): with no fact offered there is none."""
    solver = FactSolver(world.facts())
    person = next(e.id for e in world.entities if e.type == "person" and e.twin_of is None
                  and describe(world, solver, e.id, "en", np.random.default_rng(0), world.facts_of[e.id]))
    assert describe(world, solver, person, "en", np.random.default_rng(0), []) is None
    allowed = [f for f in world.facts_of[person] if f.relation != "born_in"]
    found = describe(world, solver, person, "en", np.random.default_rng(0), allowed)
    assert found is None or all(f.relation != "born_in" for f in found.facts)


def test_descriptions_read_in_both_languages(world: World) -> None:
    person = next(e for e in world.entities if e.type == "person" and e.kind == "novelist" and e.twin_of is None
                  and any(f.relation == "born_in" for f in world.facts_of[e.id])
                  and any(f.relation == "educated_at" for f in world.facts_of[e.id]))
    born = next(f for f in world.facts_of[person.id] if f.relation == "born_in")
    studied = next(f for f in world.facts_of[person.id] if f.relation == "educated_at")
    city_en, uni_en = world.name(born.object, "en"), world.name(studied.object, "en")
    city_zh, uni_zh = world.name(born.object, "zh"), world.name(studied.object, "zh")
    assert render(world, person.id, "en", (born, studied)) == (
        f"the novelist who was born in {city_en} and who studied at {uni_en}")
    assert render(world, person.id, "zh", (born, studied)) == f"出生于{city_zh}、毕业于{uni_zh}的小说家"
    assert render(world, person.id, "en", (born, studied), reworded=True) == (
        f"the fiction writer whose hometown was {city_en} and who was an alumnus of {uni_en}")
    assert render(world, person.id, "zh", (born, studied), reworded=True) == f"老家在{city_zh}、母校是{uni_zh}的写故事的作家"
    assert named(world, person.id, "en") == Description(world.name(person.id, "en"))


def test_the_solver_answers_who_has_a_fact(world: World) -> None:
    solver = FactSolver(world.facts())
    fact = next(f for f in world.facts() if f.relation == "born_in")
    expected = sorted({e for e in range(len(world.entities))
                       for g in world.facts_of[e] if g.relation == "born_in" and g.object == fact.object})
    assert solver.subjects("born_in", fact.object).tolist() == expected
    assert solver.subjects("no_such_relation", fact.object).size == 0
