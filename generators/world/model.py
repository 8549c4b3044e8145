"""The in-memory world: entities, facts, events and twins, stored as columns and read as records.

Entities, facts and events are kept column by column (:mod:`generators.world.columns`) so a world
behind a 100M-token bank fits in tens of MB; code reads and writes them as the records below
(``world.entities[i].born``, ``world.facts_of[i]``, ``for e in world.events``), which are made on
demand and compare equal to the values that were stored.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from generators.world.columns import (
    IntColumn,
    InternedColumn,
    RaggedColumn,
    StatementColumns,
    TextColumn,
)
from generators.world.names import Name
from generators.world.spec import WorldSpec
from needlework.rows import RowSequence


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


class _Stored:
    """An :class:`Entity` attribute read from and written to the column of the same name in its table."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, entity: Entity | None, owner: type | None = None) -> Any:
        if entity is None:
            return self
        return getattr(entity._table, self.name)[entity.id]

    def __set__(self, entity: Entity, value: Any) -> None:
        getattr(entity._table, self.name)[entity.id] = value


class Entity:
    """One thing the world has an article about: a view of row ``id`` of the :class:`EntityTable`.

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

    __slots__ = ("_table", "id")
    FIELDS = ("id", "type", "kind", "name", "gender", "born", "died", "founded", "twin_of", "see_also")

    type = _Stored()
    kind = _Stored()
    gender = _Stored()
    born = _Stored()
    died = _Stored()
    founded = _Stored()
    twin_of = _Stored()
    see_also = _Stored()

    def __init__(self, table: EntityTable, id: int) -> None:
        self._table, self.id = table, id

    @property
    def name(self) -> Name:
        return self._table.name(self.id)

    def values(self) -> tuple[Any, ...]:
        """Every field, in :attr:`FIELDS` order."""
        return tuple(getattr(self, f) for f in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entity) and self.values() == other.values()

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaced

    def __repr__(self) -> str:
        return "Entity(" + ", ".join(f"{f}={v!r}" for f, v in zip(self.FIELDS, self.values())) + ")"


class EntityTable(RowSequence[Entity]):
    """Every entity's fields as columns, in id order; ``table[i]`` is the :class:`Entity` view of row ``i``.

    A name is stored as its two texts, its pattern and its tokens (``field code, count, ids...`` per
    field), so a twin can still be drawn one token away from its original.
    """

    row_name = "entity"

    def __init__(self) -> None:
        self.type: InternedColumn[str] = InternedColumn()
        self.kind: InternedColumn[str] = InternedColumn("H")
        self.gender: InternedColumn[str | None] = InternedColumn()
        self.born, self.died, self.founded, self.twin_of = IntColumn(), IntColumn(), IntColumn(), IntColumn()
        self.see_also = RaggedColumn("i")
        self.name_en, self.name_zh = TextColumn(), TextColumn()
        self.pattern: InternedColumn[tuple[str, str]] = InternedColumn("H")
        self.tokens = RaggedColumn("H")
        self._token_fields: InternedColumn[str] = InternedColumn()

    def add(self, type: str, kind: str, name: Name, gender: str | None = None, born: int | None = None,
            died: int | None = None, founded: int | None = None, twin_of: int | None = None,
            see_also: Iterable[int] = ()) -> Entity:
        """Append the next entity (its id is the row) and return its view."""
        row = len(self.type)
        self.type.append(type)
        self.kind.append(kind)
        self.gender.append(gender)
        for column, value in ((self.born, born), (self.died, died), (self.founded, founded), (self.twin_of, twin_of)):
            column.append(value)
        self.see_also.append(see_also)
        self.name_en.append(name.en)
        self.name_zh.append(name.zh)
        self.pattern.append(name.pattern)
        self.tokens.append(x for field_, ids in name.tokens for x in (self._token_fields.encode(field_), len(ids), *ids))
        return Entity(self, row)

    def name(self, row: int) -> Name:
        """The full :class:`Name` of an entity."""
        flat, tokens, k = self.tokens[row], [], 0
        while k < len(flat):
            n = flat[k + 1]
            tokens.append((self._token_fields.decode(flat[k]), flat[k + 2:k + 2 + n]))
            k += 2 + n
        return Name(self.name_en[row], self.name_zh[row], self.pattern[row], tuple(tokens))

    def name_text(self, row: int, lang: str) -> str:
        """An entity's name in a language, without building the whole :class:`Name`."""
        return self.name_en[row] if lang == "en" else self.name_zh[row]

    def __len__(self) -> int:
        return len(self.type)

    def _row(self, row: int) -> Entity:
        return Entity(self, row)


class FactTable(RowSequence[tuple[Fact, ...]]):
    """Every fact, grouped by subject: ``table[s]`` is entity ``s``'s facts in the order they were stated.

    Facts are stored in the order stated, each subject's chained (a later entity can add a fact to
    an earlier one: a spouse, a capital); ``value`` literals live in a dict by fact row.
    """

    row_name = "subject"

    def __init__(self) -> None:
        self._statements = StatementColumns()
        self.values: dict[int, str] = {}
        self._head, self._tail, self._next = array("i"), array("i"), array("i")

    def add_subject(self) -> None:
        """Open the (empty) fact list of the next entity."""
        self._head.append(-1)
        self._tail.append(-1)

    def state(self, fact: Fact) -> None:
        """Append a fact to its subject's list."""
        row = self._statements.append(fact.subject, fact.relation, fact.object, fact.time)
        if fact.value is not None:
            self.values[row] = fact.value
        self._next.append(-1)
        tail = self._tail[fact.subject]
        if tail < 0:
            self._head[fact.subject] = row
        else:
            self._next[tail] = row
        self._tail[fact.subject] = row

    def extend(self, subject: int, facts: Iterable[Fact]) -> None:
        """Append facts to ``subject``'s list (each must have ``subject`` as its subject)."""
        for fact in facts:
            if fact.subject != subject:
                raise ValueError(f"fact {fact} is not about entity {subject}")
            self.state(fact)

    def fact(self, row: int) -> Fact:
        """The fact stored at ``row``."""
        return Fact(*self._statements[row], self.values.get(row))

    def __len__(self) -> int:
        return len(self._head)

    def _row(self, subject: int) -> tuple[Fact, ...]:
        facts, row = [], self._head[subject]
        while row >= 0:
            facts.append(self.fact(row))
            row = self._next[row]
        return tuple(facts)

    def count(self) -> int:
        """How many facts there are in all."""
        return len(self._statements)


class EventTable(RowSequence[Event]):
    """Every event, in the order recorded, as columns; reads give :class:`Event` tuples."""

    row_name = "event"

    def __init__(self) -> None:
        self._statements = StatementColumns()
        self.kind: InternedColumn[str] = InternedColumn()

    def append(self, event: Event) -> None:
        self._statements.append(event.subject, event.relation, event.object, event.time)
        self.kind.append(event.kind)

    def __len__(self) -> int:
        return len(self._statements)

    def _row(self, row: int) -> Event:
        return Event(*self._statements[row], self.kind[row])  # type: ignore[arg-type]  # an event's time is never None


@dataclass
class World:
    """Everything generated for one (spec, seed): the ground truth behind every table."""

    spec: WorldSpec
    seed: int
    entities: EntityTable = field(default_factory=EntityTable)
    facts_of: FactTable = field(default_factory=FactTable)
    events: EventTable = field(default_factory=EventTable)
    twins: list[Twin] = field(default_factory=list)

    def facts(self) -> Iterator[Fact]:
        """Every fact, by subject then in the order it was stated."""
        return (f for facts in self.facts_of for f in facts)

    def name(self, entity: int, lang: str) -> str:
        """An entity's name in a language."""
        return self.entities.name_text(entity, lang)
