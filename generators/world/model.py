"""The in-memory world: entities, facts, events and twins, as plain records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from generators.world.names import Name
from generators.world.spec import WorldSpec


@dataclass(slots=True)
class Entity:
    """One thing the world has an article about.

    Attributes:
        id: Entity id; its articles have doc ids ``2 * id`` (en) and ``2 * id + 1`` (zh).
        type: Entity type (``person``, ``city``, ...).
        kind: Kind id (``physician``, ``port_city``, ...), which fixes the domain.
        name: Its unique bilingual name.
        gender: ``male`` or ``female`` for people, else None.
        born: Birth year of a person.
        died: Death year of a person who has died.
        founded: Founding year of a place or organization; release or publication year of a work.
        twin_of: For a near-miss twin, the entity it imitates.
        see_also: Related earlier entities listed at the end of the article.
    """

    id: int
    type: str
    kind: str
    name: Name
    gender: str | None = None
    born: int | None = None
    died: int | None = None
    founded: int | None = None
    twin_of: int | None = None
    see_also: tuple[int, ...] = ()


class Fact(NamedTuple):
    """``subject --relation--> object`` (an entity id, or None for an attribute) with time and value.

    ``time`` is an ISO 8601 date or year (``1950-03-14``, ``1952``); ``value`` holds a literal
    such as a population count.
    """

    subject: int
    relation: str
    object: int | None
    time: str | None
    value: str | None = None


class Event(NamedTuple):
    """A dated event: an interaction between two actors, or a step of one person's life."""

    subject: int
    relation: str
    object: int | None
    time: str
    kind: str


class Twin(NamedTuple):
    """A near-miss twin: ``twin`` imitates ``original`` but differs in ``constraint``.

    ``constraint`` is ``name`` (only the name differs, by one syllable or word), ``year`` (also a
    year differs) or ``city`` (also a city differs); ``relation`` names the changed fact and the
    two values say what changed (names or ISO times).
    """

    original: int
    twin: int
    constraint: str
    relation: str | None
    original_value: str | None
    twin_value: str | None


@dataclass
class World:
    """Everything generated for one (spec, seed): the ground truth behind every table."""

    spec: WorldSpec
    seed: int
    entities: list[Entity] = field(default_factory=list)
    facts_of: list[list[Fact]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    twins: list[Twin] = field(default_factory=list)

    def facts(self) -> list[Fact]:
        """Every fact, by subject then in the order it was stated."""
        return [f for facts in self.facts_of for f in facts]

    def name(self, entity: int, lang: str) -> str:
        """An entity's name in a language."""
        name = self.entities[entity].name
        return name.en if lang == "en" else name.zh
