"""The shape of the synthetic world: entity types, kinds (with their domain), relations and hops.

Everything here is data. The generator (``facts.py``) decides which relations an entity gets;
the lexicons (``lexicon_en.py``, ``lexicon_zh.py``) say how each one is written; the question
composer (``questions.py``) walks the hops listed here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

EntityType = Literal[
    "continent", "country", "city", "river", "island",
    "university", "company", "band", "party", "publication",
    "person", "song", "book", "film",
]
ENTITY_TYPES: tuple[str, ...] = (
    "continent", "country", "city", "river", "island",
    "university", "company", "band", "party", "publication",
    "person", "song", "book", "film",
)

DOMAINS: tuple[str, ...] = ("medical", "history", "education", "math", "literature", "law", "technology", "finance")
"""The eight broad domains of EverMemBench-S; every article carries one."""

EntityClass = Literal["place", "organization", "person", "work"]
CLASS_OF_TYPE: dict[str, str] = {
    "continent": "place", "country": "place", "city": "place", "river": "place", "island": "place",
    "university": "organization", "company": "organization", "band": "organization",
    "party": "organization", "publication": "organization",
    "person": "person",
    "song": "work", "book": "work", "film": "work",
}

TYPE_WEIGHTS: dict[str, float] = {
    "country": 0.002, "city": 0.10, "river": 0.015, "island": 0.015,
    "university": 0.025, "company": 0.05, "band": 0.02, "party": 0.01, "publication": 0.02,
    "person": 0.518, "song": 0.08, "book": 0.08, "film": 0.065,
}
"""Share of each type among the entities drawn after the fixed geographic prefix."""

N_CONTINENTS = 6
N_FIRST_COUNTRIES = 24
"""Entities 0..5 are continents and 6..29 countries, so every later place has somewhere to be."""


@dataclass(frozen=True)
class Kind:
    """A subtype that fixes an entity's domain and the noun used for it (e.g. ``physician``)."""

    id: str
    type: str
    domain: str
    weight: float = 1.0
    roles: tuple[str, ...] = ()


def _kinds(type_: str, *rows: tuple) -> tuple[Kind, ...]:
    return tuple(Kind(row[0], type_, *row[1:]) for row in rows)


KINDS: tuple[Kind, ...] = (
    *_kinds("continent", ("continent", "history")),
    *_kinds("country", ("republic", "history"), ("kingdom", "history", 0.4), ("federation", "law", 0.3)),
    *_kinds("city", ("city", "history", 3.0), ("town", "history", 2.0), ("port_city", "finance", 1.0)),
    *_kinds("river", ("river", "history")),
    *_kinds("island", ("island", "history")),
    *_kinds(
        "university",
        ("university", "education", 3.0), ("medical_school", "medical"), ("law_school", "law"),
        ("institute_of_technology", "technology"), ("school_of_economics", "finance"),
        ("institute_of_mathematics", "math", 0.6), ("academy_of_arts", "literature", 0.8),
        ("institute_of_history", "history", 0.5),
    ),
    *_kinds(
        "company",
        ("pharmaceutical_company", "medical"), ("software_company", "technology", 1.5),
        ("engineering_company", "technology"), ("bank", "finance", 1.2), ("insurance_company", "finance", 0.6),
        ("law_firm", "law", 0.8), ("publishing_house", "literature", 0.6), ("film_studio", "literature", 0.6),
        ("analytics_firm", "math", 0.5), ("education_company", "education", 0.5), ("auction_house", "history", 0.3),
    ),
    *_kinds("band", ("rock_band", "literature"), ("folk_band", "literature"), ("jazz_ensemble", "literature", 0.6)),
    *_kinds("party", ("political_party", "law")),
    *_kinds(
        "publication",
        ("medical_journal", "medical"), ("historical_review", "history"), ("education_journal", "education"),
        ("mathematics_journal", "math"), ("literary_magazine", "literature"), ("law_review", "law"),
        ("technology_magazine", "technology"), ("financial_newspaper", "finance"), ("daily_newspaper", "literature", 1.5),
    ),
    *_kinds(
        "person",
        ("physician", "medical", 1.2, ("employee",)), ("surgeon", "medical", 0.6, ("employee",)),
        ("nurse", "medical", 0.6, ("employee",)), ("historian", "history", 1.0, ("author", "employee")),
        ("archaeologist", "history", 0.5, ("author", "employee")), ("teacher", "education", 1.2, ("employee",)),
        ("educator", "education", 0.6, ("author", "founder", "employee")),
        ("mathematician", "math", 0.8, ("author", "employee")), ("statistician", "math", 0.5, ("author", "employee")),
        ("novelist", "literature", 1.2, ("author",)), ("poet", "literature", 0.8, ("author",)),
        ("journalist", "literature", 0.8, ("author", "employee")), ("musician", "literature", 1.5, ("performer", "band_member")),
        ("singer", "literature", 1.2, ("performer", "band_member")), ("film_director", "literature", 1.0, ("director",)),
        ("actor", "literature", 0.8, ()), ("lawyer", "law", 1.0, ("employee", "politician")),
        ("judge", "law", 0.5, ()), ("politician", "law", 1.2, ("politician", "founder")),
        ("engineer", "technology", 1.2, ("employee", "founder")), ("software_developer", "technology", 1.0, ("employee", "founder")),
        ("banker", "finance", 0.8, ("employee", "founder")), ("economist", "finance", 0.8, ("author", "employee")),
        ("entrepreneur", "finance", 1.0, ("founder",)),
    ),
    *_kinds("song", ("song", "literature")),
    *_kinds(
        "book",
        ("novel", "literature", 3.0), ("poetry_collection", "literature", 1.0), ("medical_textbook", "medical"),
        ("history_book", "history", 1.5), ("textbook", "education"), ("mathematics_monograph", "math"),
        ("legal_treatise", "law"), ("technology_book", "technology"), ("economics_book", "finance"),
    ),
    *_kinds("film", ("feature_film", "literature", 3.0), ("documentary_film", "history", 1.0)),
)
KIND_BY_ID: dict[str, Kind] = {k.id: k for k in KINDS}
KINDS_OF_TYPE: dict[str, tuple[Kind, ...]] = {t: tuple(k for k in KINDS if k.type == t) for t in ENTITY_TYPES}

TimePrecision = Literal["none", "year", "date"]


@dataclass(frozen=True)
class Relation:
    """A typed relation between entities (or, with no object types, a dated attribute).

    Attributes:
        name: Relation id as stored in the ``facts`` table.
        subjects: Entity types it can start from.
        objects: Entity types it points to; empty for an attribute whose value is its time.
        time: Whether facts of this relation carry a year, a full date or no time.
        functional: At most one fact per subject by construction. Questions may still walk
            non-functional relations; the solver rejects those that turn out ambiguous.
        section: The article section (id) whose text states it.
        symmetric: ``s r o`` holds exactly when ``o r s`` does, and the world states both (a marriage
            is in both spouses' articles): a document stating one states the other.
    """

    name: str
    subjects: tuple[str, ...]
    objects: tuple[str, ...]
    time: TimePrecision
    functional: bool
    section: str
    symmetric: bool = False


RELATIONS: tuple[Relation, ...] = (
    Relation("located_in", ("country", "city", "river", "island", "university"), ("continent", "country", "city"), "none", True, "geography"),
    Relation("capital", ("country",), ("city",), "none", True, "geography"),
    Relation("headquartered_in", ("company", "publication", "party"), ("city",), "none", True, "organization"),
    Relation("formed_in", ("band",), ("city",), "none", True, "history"),
    Relation("founded", ("country", "city", "university", "company", "band", "party", "publication"), (), "year", True, "history"),
    Relation("founded_by", ("university", "company", "party", "publication"), ("person",), "none", True, "history"),
    Relation("population", ("city",), (), "year", True, "geography"),
    Relation("born_in", ("person",), ("city",), "date", True, "early_life"),
    Relation("father", ("person",), ("person",), "none", True, "early_life"),
    Relation("mother", ("person",), ("person",), "none", True, "early_life"),
    Relation("educated_at", ("person",), ("university",), "date", True, "education"),
    Relation("employed_by", ("person",), ("company", "university", "publication"), "date", False, "career"),
    Relation("member_of", ("person",), ("band",), "date", False, "career"),
    Relation("party_member", ("person",), ("party",), "date", True, "career"),
    Relation("spouse", ("person",), ("person",), "date", True, "personal_life", symmetric=True),
    Relation("died_in", ("person",), ("city",), "date", True, "personal_life"),
    Relation("performed_by", ("song",), ("band", "person"), "none", True, "production"),
    Relation("written_by", ("book",), ("person",), "none", True, "production"),
    Relation("published_by", ("book",), ("publication",), "none", True, "production"),
    Relation("directed_by", ("film",), ("person",), "none", True, "production"),
    Relation("produced_by", ("film",), ("company",), "none", True, "production"),
    Relation("released", ("song", "film"), (), "date", True, "release"),
    Relation("published", ("book",), (), "year", True, "release"),
)
RELATION_BY_NAME: dict[str, Relation] = {r.name: r for r in RELATIONS}
SYMMETRIC_RELATIONS: frozenset[str] = frozenset(r.name for r in RELATIONS if r.symmetric)
DESCRIBING_RELATIONS: tuple[str, ...] = tuple(r.name for r in RELATIONS if r.objects and not r.symmetric)
"""Relations a query may describe an entity by ("the novelist who was born in Lolan"): those pointing to an entity and
stated in one article only (the subject's), so the description adds no document a query needs."""
"""``population`` carries its count in the fact's ``value`` and the census year in ``time``."""

SECTIONS_OF_CLASS: dict[str, tuple[str, ...]] = {
    "place": ("geography", "history", "economy", "culture"),
    "organization": ("history", "organization", "activities", "reception"),
    "person": ("early_life", "education", "career", "personal_life", "legacy"),
    "work": ("production", "release", "content", "reception"),
}
"""Article sections per entity class, in order: fact sections plus filler-only ones."""

AnswerKind = Literal["entity", "year"]


@dataclass(frozen=True)
class Hop:
    """One step of a multi-hop question: follow ``relation`` to an entity, or read its year.

    ``id`` keys the phrase templates of the lexicons, e.g. ``born_in>city`` or ``founded>year``.
    """

    id: str
    relation: str
    answer: AnswerKind
    subjects: tuple[str, ...]


HOPS: tuple[Hop, ...] = (
    Hop("located_in>continent", "located_in", "entity", ("country",)),
    Hop("located_in>country", "located_in", "entity", ("city", "river", "island")),
    Hop("located_in>city", "located_in", "entity", ("university",)),
    Hop("capital>city", "capital", "entity", ("country",)),
    Hop("headquartered_in>city", "headquartered_in", "entity", ("company", "publication", "party")),
    Hop("founded_by>person", "founded_by", "entity", ("university", "company", "party", "publication")),
    Hop("formed_in>city", "formed_in", "entity", ("band",)),
    Hop("born_in>city", "born_in", "entity", ("person",)),
    Hop("died_in>city", "died_in", "entity", ("person",)),
    Hop("educated_at>university", "educated_at", "entity", ("person",)),
    Hop("employed_by>organization", "employed_by", "entity", ("person",)),
    Hop("spouse>person", "spouse", "entity", ("person",)),
    Hop("father>person", "father", "entity", ("person",)),
    Hop("mother>person", "mother", "entity", ("person",)),
    Hop("member_of>band", "member_of", "entity", ("person",)),
    Hop("party_member>party", "party_member", "entity", ("person",)),
    Hop("performed_by>performer", "performed_by", "entity", ("song",)),
    Hop("written_by>person", "written_by", "entity", ("book",)),
    Hop("published_by>publication", "published_by", "entity", ("book",)),
    Hop("directed_by>person", "directed_by", "entity", ("film",)),
    Hop("produced_by>company", "produced_by", "entity", ("film",)),
    Hop("founded>year", "founded", "year", ("country", "city", "university", "company", "band", "party", "publication")),
    Hop("born_in>year", "born_in", "year", ("person",)),
    Hop("died_in>year", "died_in", "year", ("person",)),
    Hop("released>year", "released", "year", ("song", "film")),
    Hop("published>year", "published", "year", ("book",)),
)
HOP_BY_ID: dict[str, Hop] = {h.id: h for h in HOPS}

INTERACTIONS: tuple[str, ...] = (
    "Make statement", "Consult", "Make an appeal or request", "Express intent to cooperate",
    "Host a visit", "Make a visit", "Sign formal agreement", "Engage in negotiation",
    "Praise or endorse", "Criticize or denounce", "Provide economic aid", "Accuse",
    "Demand", "Reject", "Express intent to meet or negotiate", "Engage in diplomatic cooperation",
    "Investigate", "Threaten", "Impose embargo, boycott, or sanctions", "Return, release person(s)",
)
"""Relation labels of the world's temporal graph, named after the CAMEO codes that ICEWS uses."""
