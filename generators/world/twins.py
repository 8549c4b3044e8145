"""Near-miss twins: a second entity that imitates an earlier one but violates one constraint.

A twin gets a name one syllable (or title word) away from its original, the original's own
facts (not its marriage, which is one person's, nor facts added later), and, unless the
violated constraint is the name itself, one changed year or one changed city. Twins are never
the object of another entity's fact, so no question's answer depends on them: they are hard
negatives whose labels are known exactly.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from generators.world.draws import Draws
from generators.world.model import Entity, EntityTable, Twin, World
from generators.world.names import NameForge
from generators.world.spec import LAST_YEAR

NOT_COPIED = frozenset({"spouse", "capital"})
CITY_RELATIONS = frozenset({"born_in", "died_in", "located_in", "headquartered_in", "formed_in"})
WORK_TYPES = frozenset({"song", "book", "film"})


class GrowingWorld(Protocol):
    """What a twin is made from: the world growing around it (``generators.world.growth.Growth``)."""

    world: World
    forge: NameForge
    pools: Mapping[str, Sequence[int]]
    country_of_city: dict[int, int]

    @property
    def entities(self) -> EntityTable:
        """The entities made so far, by id."""
        ...


def _shift_year(time: str, d: Draws) -> str:
    year = int(time[:4])
    step = d.between(1, 4)
    year = year + step if year + step <= LAST_YEAR else year - step
    return f"{year:04d}{time[4:]}"


def make_twin(g: GrowingWorld, i: int, d: Draws) -> None:
    """Create entity ``i`` as the twin of entity ``i - 1`` and record what it violates."""
    original = g.entities[i - 1]
    name = g.forge.similar(original.name, original.type in WORK_TYPES, d)
    twin = g.entities.add(
        original.type, original.kind, name, original.gender, original.born, original.died,
        original.founded, twin_of=original.id, see_also=original.see_also,
    )
    facts = [f._replace(subject=i) for f in g.world.facts_of[original.id] if f.relation not in NOT_COPIED]
    timed = [k for k, f in enumerate(facts) if f.time is not None]
    cities = [
        k for k, f in enumerate(facts)
        if f.relation in CITY_RELATIONS and f.object is not None and g.entities[f.object].type == "city"
    ]
    options = ["name"] + (["year"] if timed else []) + (["city"] if cities else [])
    constraint = d.choice(options)
    relation = before = after = None
    if constraint == "year":
        k = d.choice(timed)
        before = facts[k].time
        after = _shift_year(before, d)
        facts[k] = facts[k]._replace(time=after)
        relation = facts[k].relation
        _sync_years(twin, relation, int(after[:4]))
    elif constraint == "city":
        k = d.choice(cities)
        old = facts[k].object
        country = g.country_of_city.get(old)
        near = [c for c in g.pools.get(f"city:in:{country}", []) if c != old]
        far = [c for c in g.pools["city"] if c != old]
        new = d.choice(near) if near else d.choice(far) if far else None
        if new is None:
            constraint = "name"
        else:
            facts[k] = facts[k]._replace(object=new)
            relation, before, after = facts[k].relation, g.world.name(old, "en"), g.world.name(new, "en")
    g.world.facts_of.extend(i, facts)
    g.world.twins.append(Twin(original.id, i, constraint, relation, before, after))


def _sync_years(twin: Entity, relation: str, year: int) -> None:
    """Keep the twin's year attributes in step with its changed fact."""
    if relation == "born_in":
        twin.born = year
    elif relation == "died_in":
        twin.died = year
    elif relation in ("founded", "released", "published"):
        twin.founded = year
