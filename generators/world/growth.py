"""Growing the world one entity at a time.

Entity ``i`` is made from its own random stream (seed, ``entity``, ``i``) and may only point at
entities made before it. So the world with ``docs = n`` is the first ``n`` entities of any larger
world with the same seed: ids, names and every fact an entity states about itself are the same.
(Later entities can add facts to earlier ones: a spouse, a capital, a child's life event.)

Dates are chosen so the world is consistent: people are born in cities that already exist,
graduate from universities founded before they enrolled, join organizations that exist, marry
living people of a fitting age, and write, direct or perform while alive.
"""

from __future__ import annotations

from array import array
from collections import defaultdict

from generators.world.draws import Draws, cumulative
from generators.world.model import Entity, EntityTable, Event, Fact, World
from generators.world.names import NameForge
from generators.world.schema import (
    INTERACTIONS, KINDS_OF_TYPE, N_CONTINENTS, N_FIRST_COUNTRIES, TYPE_WEIGHTS, Kind,
)
from generators.world.spec import LAST_YEAR, WorldSpec
from generators.world.twins import make_twin

N_FIRST_CITIES = 10
TRIES = 12
_TYPES = tuple(TYPE_WEIGHTS)
_TYPE_CUM = cumulative(TYPE_WEIGHTS.values())
_KIND_CUM = {t: cumulative(k.weight for k in kinds) for t, kinds in KINDS_OF_TYPE.items()}
_INTERACTION_CUM = cumulative(1.0 / (rank + 1) for rank in range(len(INTERACTIONS)))
ACTOR_TYPES = frozenset({"country", "party", "company"})
ORGANIZATIONS: dict[str, tuple[str, int, str, float]] = {
    "university": ("located_in", 1600, "founder", 0.4),
    "company": ("headquartered_in", 1850, "founder", 0.7),
    "party": ("headquartered_in", 1850, "politician", 0.6),
    "publication": ("headquartered_in", 1800, "author", 0.4),
}
"""Per organization type: the relation to its city, the earliest founding year, the founder role
and the chance of having a recorded founder."""


def date(year: int, d: Draws) -> str:
    """An ISO date in ``year`` with a drawn month and day (days 1-28, valid in every month)."""
    return f"{year:04d}-{d.between(1, 12):02d}-{d.between(1, 28):02d}"


class Growth:
    """The state of a world while it grows: the entities so far and pools to choose from."""

    def __init__(self, spec: WorldSpec, seed: int) -> None:
        self.world = World(spec, seed)
        self.forge = NameForge()
        self.pools: dict[str, array] = defaultdict(lambda: array("i"))  # entity ids, 4 bytes each
        self.country_of_city: dict[int, int] = {}
        self.capital_of: dict[int, int] = {}
        self.spouse: dict[int, int] = {}
        self.employers: dict[int, list[tuple[int, int]]] = defaultdict(list)

    # -- helpers ---------------------------------------------------------------------------

    @property
    def entities(self) -> EntityTable:
        return self.world.entities

    def state(self, fact: Fact) -> None:
        self.world.facts_of.state(fact)

    def live(self, subject: int, relation: str, obj: int | None, time: str) -> None:
        self.world.events.append(Event(subject, relation, obj, time, "life"))

    def pick(self, pool: str, d: Draws, power: float = 1.8) -> int | None:
        ids = self.pools.get(pool)
        return ids[d.skewed(len(ids), power)] if ids else None

    def pick_where(self, pools: str | tuple[str, ...], d: Draws, ok, power: float = 1.5) -> int | None:
        """An entity satisfying ``ok``, a few draws from each pool in turn (None if none fit)."""
        for pool in (pools,) if isinstance(pools, str) else pools:
            ids = self.pools.get(pool)
            if not ids:
                continue
            for _ in range(TRIES):
                candidate = ids[d.skewed(len(ids), power)]
                if ok(self.entities[candidate]):
                    return candidate
        return None

    def alive_in(self, person: Entity, year: int) -> bool:
        return person.born is not None and person.born <= year and (person.died is None or year <= person.died)

    def register(self, e: Entity, kind: Kind) -> None:
        """Make a finished (non-twin) entity available to later entities."""
        self.pools[e.type].append(e.id)
        self.pools[f"{e.type}:{kind.domain}"].append(e.id)
        if e.type == "person":
            self.pools[e.gender or ""].append(e.id)
            for role in kind.roles:
                self.pools[f"role:{role}"].append(e.id)
        if e.type in ("company", "university", "publication"):
            self.pools[f"employer:{kind.domain}"].append(e.id)
            self.pools["employer"].append(e.id)
        if e.type in ACTOR_TYPES or (e.type == "person" and "politician" in kind.roles):
            self.pools["actor"].append(e.id)

    # -- the loop --------------------------------------------------------------------------

    def grow(self) -> World:
        """Make every entity in id order and return the world."""
        spec = self.world.spec
        twin_next = False
        for i in range(spec.docs):
            d = Draws.keyed(self.world.seed, "entity", i)
            self.world.facts_of.add_subject()
            if twin_next:
                make_twin(self, i, d)
                twin_next = False
                continue
            kind = self.kind_for(i, d)
            e = self.entities.add(kind.type, kind.id, self.forge.draw(kind, d))
            maker = "make_organization" if kind.type in ORGANIZATIONS else f"make_{kind.type}"
            getattr(self, maker)(e, kind, d)
            self.interactions(e, kind, d)
            e.see_also = self.see_also(e, kind, d)
            self.register(e, kind)
            twin_next = kind.type != "continent" and d.chance(spec.twin_fraction)
        return self.world

    def kind_for(self, i: int, d: Draws) -> Kind:
        """The kind of entity ``i``: the fixed geographic prefix, then draws by type weight."""
        if i < N_CONTINENTS:
            type_ = "continent"
        elif i < N_CONTINENTS + N_FIRST_COUNTRIES:
            type_ = "country"
        elif len(self.pools["city"]) < N_FIRST_CITIES:
            type_ = "city"
        else:
            type_ = _TYPES[d.weighted(_TYPE_CUM)]
        return KINDS_OF_TYPE[type_][d.weighted(_KIND_CUM[type_])]

    def see_also(self, e: Entity, kind: Kind, d: Draws) -> tuple[int, ...]:
        """A few earlier entities of the same type and domain, for the article's closing list."""
        pool = self.pools.get(f"{e.type}:{kind.domain}", [])
        picks = []
        for _ in range(d.between(0, 4)):
            if pool:
                other = pool[d.skewed(len(pool), 1.3)]
                if other not in picks:
                    picks.append(other)
        return tuple(picks)

    # -- places ----------------------------------------------------------------------------

    def make_continent(self, e: Entity, kind: Kind, d: Draws) -> None:
        """A continent states nothing of its own; countries point at it."""
        pass

    def make_country(self, e: Entity, kind: Kind, d: Draws) -> None:
        """A country on an earlier continent, with its founding year."""
        continent = self.pick("continent", d, 1.0)
        self.state(Fact(e.id, "located_in", continent, None))
        e.founded = d.between(1500, 1990)
        self.state(Fact(e.id, "founded", None, str(e.founded)))

    def make_city(self, e: Entity, kind: Kind, d: Draws) -> None:
        """A city in an earlier country, founded 1000-1800, with a population; the first city of a country becomes its capital."""
        country = self.pick("country", d, 1.6)
        self.state(Fact(e.id, "located_in", country, None))
        self.country_of_city[e.id] = country
        self.pools[f"city:in:{country}"].append(e.id)
        e.founded = d.between(1000, 1800)
        self.state(Fact(e.id, "founded", None, str(e.founded)))
        population = int(round(2_000 * 10 ** (d.u() * 3.4), -2))
        self.state(Fact(e.id, "population", None, str(d.between(2010, 2022)), str(population)))
        if country not in self.capital_of:
            self.capital_of[country] = e.id
            self.state(Fact(country, "capital", e.id, None))

    def make_river(self, e: Entity, kind: Kind, d: Draws) -> None:
        """A river or island in an earlier country."""
        self.state(Fact(e.id, "located_in", self.pick("country", d, 1.4), None))

    make_island = make_river

    # -- organizations -----------------------------------------------------------------------

    def _founding(self, e: Entity, d: Draws, earliest: int, role: str | None, p_founder: float) -> int | None:
        """Pick a founder (optional) and a founding year consistent with them; returns the founder."""
        founder = None
        if role is not None and d.chance(p_founder):
            founder = self.pick_where(
                f"role:{role}", d, lambda p: p.born + 28 <= LAST_YEAR and p.born + 28 >= earliest and (p.died is None or p.died >= p.born + 28)
            )
        if founder is not None:
            p = self.entities[founder]
            last = min(p.born + 60, p.died if p.died is not None else LAST_YEAR, LAST_YEAR)
            e.founded = d.between(p.born + 28, max(p.born + 28, last))
            self.state(Fact(e.id, "founded_by", founder, None))
            self.live(founder, "founded", e.id, date(e.founded, d))
        else:
            e.founded = d.between(earliest, LAST_YEAR - 2)
        self.state(Fact(e.id, "founded", None, str(e.founded)))
        return founder

    def _seat(self, e: Entity, relation: str, d: Draws) -> int:
        city = self.pick("city", d, 1.8)
        self.state(Fact(e.id, relation, city, None))
        return city

    def make_organization(self, e: Entity, kind: Kind, d: Draws) -> None:
        """A university, company, party or publication seated in an earlier city, maybe founded by an earlier person."""
        seat, earliest, role, p_founder = ORGANIZATIONS[e.type]
        self._seat(e, seat, d)
        self._founding(e, d, earliest, role, p_founder)

    def make_band(self, e: Entity, kind: Kind, d: Draws) -> None:
        """A band formed in an earlier city."""
        self._seat(e, "formed_in", d)
        e.founded = d.between(1950, LAST_YEAR - 1)
        self.state(Fact(e.id, "founded", None, str(e.founded)))

    # -- people ------------------------------------------------------------------------------

    def make_person(self, e: Entity, kind: Kind, d: Draws) -> None:
        """A person: birth, parents, education, jobs, bands or party, marriage, moves, retirement, death."""
        e.gender = "female" if d.chance(0.5) else "male"
        e.born = d.between(1850, 2002)
        if e.born < 1940 or d.chance(0.2):
            death = e.born + d.between(45, 98)
            e.died = death if death <= LAST_YEAR else None
        birth = date(e.born, d)
        city = self.pick("city", d, 2.0)
        self.state(Fact(e.id, "born_in", city, birth))
        self.live(e.id, "born", city, birth)
        self._parents(e, birth, d)
        graduated = self._education(e, kind, d)
        if "employee" in kind.roles and d.chance(0.8):
            self._jobs(e, kind, graduated or e.born + 22, d)
        if "band_member" in kind.roles:
            self._join(e, "member_of", "band", 15, d, 0.8)
            self._join(e, "member_of", "band", 25, d, 0.15)
        if "politician" in kind.roles:
            self._join(e, "party_member", "party", 18, d, 0.8)
        if d.chance(0.45):
            self._marry(e, d)
        if d.chance(0.5):
            self._move(e, d)
        self._retire(e, d)
        if e.died is not None:
            died = date(e.died, d)
            if d.chance(0.85):
                city = self.pick("city", d, 2.0)
                self.state(Fact(e.id, "died_in", city, died))
                self.live(e.id, "died", city, died)
            else:
                self.live(e.id, "died", None, died)

    def _last_year(self, p: Entity) -> int:
        return min(p.died if p.died is not None else LAST_YEAR, LAST_YEAR)

    def _parents(self, e: Entity, birth: str, d: Draws) -> None:
        if not d.chance(0.35):
            return
        b = e.born
        father = self.pick_where("male", d, lambda p: b - 50 <= p.born <= b - 20 and (p.died is None or p.died >= b))
        mother = None
        if father is not None:
            self.state(Fact(e.id, "father", father, None))
            self.live(father, "had child", e.id, birth)
            wife = self.spouse.get(father)
            if wife is not None and self.alive_in(self.entities[wife], b) and b - 45 <= self.entities[wife].born <= b - 18:
                mother = wife
        if mother is None and d.chance(0.7):
            mother = self.pick_where("female", d, lambda p: b - 45 <= p.born <= b - 18 and (p.died is None or p.died >= b))
        if mother is not None:
            self.state(Fact(e.id, "mother", mother, None))
            self.live(mother, "had child", e.id, birth)

    def _education(self, e: Entity, kind: Kind, d: Draws) -> int | None:
        """Graduation from a university that existed at enrolment, of the person's domain when one fits."""
        if not d.chance(0.7):
            return None
        year = e.born + d.between(21, 26)
        if year > self._last_year(e):
            return None
        ok = lambda u: u.founded is not None and u.founded <= year - 4
        uni = self.pick_where((f"university:{kind.domain}", "university"), d, ok)
        if uni is None:
            return None
        when = date(year, d)
        self.state(Fact(e.id, "educated_at", uni, when))
        self.live(e.id, "graduated", uni, when)
        return year

    def _jobs(self, e: Entity, kind: Kind, start: int, d: Draws) -> None:
        last = self._last_year(e)
        for n in range(1 + d.chance(0.3)):
            year = start + d.between(0, 12)
            if year > last or year > e.born + 60:
                return
            ok = lambda o, y=year: o.founded is not None and o.founded <= y and o.id not in {j for j, _ in self.employers[e.id]}
            org = self.pick_where((f"employer:{kind.domain}", "employer"), d, ok)
            if org is None:
                return
            when = date(year, d)
            self.state(Fact(e.id, "employed_by", org, when))
            self.live(e.id, "joined", org, when)
            self.employers[e.id].append((org, year))
            start = year + 3

    def _join(self, e: Entity, relation: str, pool: str, min_age: int, d: Draws, p: float) -> None:
        if not d.chance(p):
            return
        last = self._last_year(e)
        earliest = e.born + min_age
        taken = {f.object for f in self.world.facts_of[e.id] if f.relation == relation}
        group = self.pick_where(pool, d, lambda g: g.id not in taken and max(g.founded, earliest) <= last)
        if group is None:
            return
        g = self.entities[group]
        year = d.between(max(g.founded, earliest), max(g.founded, earliest, min(last, earliest + 30)))
        if year > last:
            return
        when = date(year, d)
        self.state(Fact(e.id, relation, group, when))
        self.live(e.id, "joined", group, when)

    def _marry(self, e: Entity, d: Draws) -> None:
        other_gender = "male" if e.gender == "female" else "female"
        b = e.born
        partner = self.pick_where(other_gender, d, lambda p: abs(p.born - b) <= 8 and p.id not in self.spouse)
        if partner is None:
            return
        p = self.entities[partner]
        earliest = max(b, p.born) + 20
        last = min(self._last_year(e), self._last_year(p), earliest + 20)
        if earliest > last:
            return
        when = date(d.between(earliest, last), d)
        self.spouse[e.id], self.spouse[partner] = partner, e.id
        self.state(Fact(e.id, "spouse", partner, when))
        self.state(Fact(partner, "spouse", e.id, when))
        self.live(e.id, "married", partner, when)
        self.live(partner, "married", e.id, when)

    def _move(self, e: Entity, d: Draws) -> None:
        earliest, last = e.born + 18, self._last_year(e)
        if earliest <= last:
            self.live(e.id, "moved", self.pick("city", d, 1.5), date(d.between(earliest, last), d))

    def _retire(self, e: Entity, d: Draws) -> None:
        jobs = self.employers.get(e.id)
        if not jobs:
            return
        year = e.born + d.between(60, 68)
        if year <= self._last_year(e) and year >= jobs[-1][1] + 2:
            self.live(e.id, "retired", jobs[-1][0], date(year, d))

    # -- works -------------------------------------------------------------------------------

    def _creator(self, d: Draws, role: str, min_age: int) -> int | None:
        return self.pick_where(f"role:{role}", d, lambda p: p.born + min_age <= self._last_year(p))

    def _work_year(self, creator: Entity | None, min_age: int, earliest: int, d: Draws) -> int:
        if creator is None:
            return d.between(earliest, LAST_YEAR)
        lo = max(creator.born + min_age, earliest)
        return d.between(min(lo, self._last_year(creator)), self._last_year(creator))

    def make_song(self, e: Entity, kind: Kind, d: Draws) -> None:
        """A song by an earlier band or singer, released while they were active."""
        singer = None
        if d.chance(0.7) and self.pools.get("band"):
            band = self.entities[self.pick("band", d, 1.5)]
            e.founded = d.between(band.founded, LAST_YEAR)
            self.state(Fact(e.id, "performed_by", band.id, None))
        else:
            performer = self._creator(d, "performer", 16)
            singer = self.entities[performer] if performer is not None else None
            e.founded = self._work_year(singer, 16, 1900, d)
            if singer is not None:
                self.state(Fact(e.id, "performed_by", singer.id, None))
        when = date(e.founded, d)
        self.state(Fact(e.id, "released", None, when))
        if singer is not None:
            self.live(singer.id, "performed", e.id, when)

    def make_book(self, e: Entity, kind: Kind, d: Draws) -> None:
        """A book by an earlier author, published in their lifetime by a publication that existed."""
        author = self._creator(d, "author", 20)
        a = self.entities[author] if author is not None else None
        e.founded = self._work_year(a, 20, 1800, d)
        if a is not None:
            self.state(Fact(e.id, "written_by", a.id, None))
            self.live(a.id, "wrote", e.id, date(e.founded, d))
        publisher = self.pick_where("publication", d, lambda p: p.founded <= e.founded)
        if publisher is not None:
            self.state(Fact(e.id, "published_by", publisher, None))
        self.state(Fact(e.id, "published", None, str(e.founded)))

    def make_film(self, e: Entity, kind: Kind, d: Draws) -> None:
        """A film by an earlier director, produced by a company that existed."""
        director = self._creator(d, "director", 25)
        p = self.entities[director] if director is not None else None
        e.founded = self._work_year(p, 25, 1910, d)
        if p is not None:
            self.state(Fact(e.id, "directed_by", p.id, None))
        studio = self.pick_where(("company:literature", "company"), d, lambda c: c.founded <= e.founded)
        if studio is not None:
            self.state(Fact(e.id, "produced_by", studio, None))
        when = date(e.founded, d)
        self.state(Fact(e.id, "released", None, when))
        if p is not None:
            self.live(p.id, "directed", e.id, when)

    # -- the temporal graph --------------------------------------------------------------------

    def active_years(self, e: Entity) -> tuple[int, int] | None:
        """Years in which an actor can take part in an interaction (adults alive; organizations founded)."""
        if e.type == "person":
            lo, hi = e.born + 25, self._last_year(e)
        else:
            lo, hi = (e.founded or 1990), LAST_YEAR
        lo = max(lo, 1990)
        return (lo, hi) if lo <= hi else None

    def interactions(self, e: Entity, kind: Kind, d: Draws) -> None:
        """ICEWS-like dated interactions that a new actor starts with earlier actors."""
        if not (e.type in ACTOR_TYPES or (e.type == "person" and "politician" in kind.roles)):
            return
        mine = self.active_years(e)
        if mine is None:
            return
        for _ in range(d.poisson(self.world.spec.events_per_actor)):
            other = self.pick_where("actor", d, lambda o: (w := self.active_years(o)) is not None and w[0] <= mine[1] and mine[0] <= w[1])
            if other is None:
                continue
            theirs = self.active_years(self.entities[other])
            year = d.between(max(mine[0], theirs[0]), min(mine[1], theirs[1]))
            relation = INTERACTIONS[d.weighted(_INTERACTION_CUM)]
            subject, obj = (e.id, other) if d.chance(0.5) else (other, e.id)
            self.world.events.append(Event(subject, relation, obj, date(year, d), "interaction"))


def grow_world(spec: WorldSpec, seed: int) -> World:
    """Entities, facts, events and twins of the world described by ``spec`` (no articles yet)."""
    return Growth(spec, seed).grow()
